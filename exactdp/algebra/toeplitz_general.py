"""Exact z(s) with Φ(s)z = 1 for any symmetric Toeplitz Φ (exponents need not repeat).

Φ[i, j] = s^{e_|i−j|} (e_k = q·d(0, k), s = e^{-ε/q}). When the e_k do not repeat
(e_{k+v} = e_k + c fails for every small v) the banded reduction of
:mod:`exactdp.algebra.toeplitz` does not apply; this module uses the Toeplitz structure
inside the multi-modular series/Padé solve of :mod:`exactdp.algebra.symbolic` instead:

* **runs**: d ↦ e_d is constant on maximal runs [l_r, h_r] of offsets (R runs; for a
  monotone f, R = the number of distinct distances, ≈ √n for f(k) = ⌈√k⌉), so
  (Φ(s) − I)z = Σ_r s^{j_r} Σ_{l_r ≤ d ≤ h_r} (z_{i−d} + z_{i+d}): each inner sum is a
  difference of prefix sums. One coefficient of the power series of z(s) costs O(R·n)
  instead of the generic O(n²) sparse product (``proofs/toeplitz_general.py``);
* **persymmetry**: z_i = z_{n−1−i} (Φ and 1 are persymmetric, Φ(s) is invertible over
  Q(s) since det Φ(0) = 1), so only ⌈n/2⌉ rows are computed, Padé-reconstructed and
  Chinese-remaindered.

Why not a fraction-free Levinson / Toeplitz-Bareiss over Z[s] (O(n²) polynomial
operations)? Its intermediates are the leading principal minors of Φ, far larger than the
reduced z: for f(k) = ⌈√k⌉, n = 100, det Φ has degree 800 and 218-bit coefficients while
the reduced D has degree 351 and 72 bits; a prototype took 120 s where the generic route
takes 1 s. Gohberg–Semencul with evaluation/interpolation needs a Toeplitz solve per
evaluation point, O(n²) each with Levinson — the same order as the series it would
replace. The series with runs keeps the generic route's (well-tested) reconstruction and
makes its inner loop structural.

Nothing here is trusted: the result is accepted only when the generic exact check
:func:`~exactdp.algebra.symbolic.verify_identity` proves Φ(s)N(s) = D(s)·1 over Z[s]
for the mirrored numerators (it does not use the structure). The output is the generic
route's :class:`~exactdp.algebra.symbolic.RationalSolution` (content 1, D(0) > 0), so
the same numerators and denominator, coefficient for coefficient.

Examples
--------
>>> from exactdp.spaces.metrics import sum_query
>>> sol = solve_toeplitz_general(sum_query(2, 2))   # z_2 = (1 − s − s²)/(1 + 3s + s²)
>>> [str(p) for p in sol.numerators], str(sol.denominator)
(['x + 1', '1', '(-1)*x^2 + (-1)*x + 1', '1', 'x + 1'], 'x^2 + 3*x + 1')
>>> sol.verify()
True
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, cast

import numpy as np
from flint import fmpz_poly

from exactdp.algebra.symbolic import RationalSolution, solve_pattern, verify_identity
from exactdp.errors import CertificateInvalid, InstanceTooLarge, InvalidArgument
from exactdp.kinds import proved_by
from exactdp.progress import Progress
from exactdp.spaces.metrics import FiniteMetric, read_metric
from exactdp.spaces.metrics.claims import toeplitz_claim_error

__all__ = ["ToeplitzRuns", "toeplitz_runs", "solve_toeplitz_general", "GENERAL_MAX_N"]

#: Size limit: the series' int64 arithmetic (prefix sums of residues below 2^50) needs n < 2^13.
GENERAL_MAX_N = 2**13 - 1


@dataclass(frozen=True)
class ToeplitzRuns:
    """e_d (d < n) cut into maximal runs [lo[r], hi[r]] (1 ≤ lo ≤ hi < n) of constant e = exp[r].

    >>> toeplitz_runs((0, 1, 1, 2, 2, 2, 3))
    ToeplitzRuns(n=7, lo=(1, 3, 6), hi=(2, 5, 6), exp=(1, 2, 3))
    """

    n: int
    lo: tuple[int, ...]
    hi: tuple[int, ...]
    exp: tuple[int, ...]


def toeplitz_runs(exponents: tuple[int, ...]) -> ToeplitzRuns:
    """The runs of e_1, …, e_{n−1} (each e_d ≥ 1: a metric separates points)."""
    e = [int(x) for x in exponents]
    if not e or e[0] != 0 or any(x < 1 for x in e[1:]):
        raise InvalidArgument(f"exponents {tuple(e)[:8]}…: pass e_0 = 0 and e_d ≥ 1 for d ≥ 1.")
    lo: list[int] = []
    hi: list[int] = []
    ex: list[int] = []
    for d in range(1, len(e)):
        if ex and e[d] == ex[-1] and hi[-1] == d - 1:
            hi[-1] = d
        else:
            lo.append(d)
            hi.append(d)
            ex.append(e[d])
    return ToeplitzRuns(len(e), tuple(lo), tuple(hi), tuple(ex))


def toeplitz_exponents(metric: FiniteMetric) -> tuple[int, ...] | None:
    """(e_0, …, e_{n−1}) when Φ is symmetric Toeplitz in the polynomial case, else None.

    >>> from exactdp.spaces.metrics import cycle, from_matrix
    >>> toeplitz_exponents(cycle(5))                  # circulant: Toeplitz too
    (0, 1, 2, 2, 1)
    >>> toeplitz_exponents(from_matrix([[0, 1, 1], [1, 0, 2], [1, 2, 0]])) is None
    True
    """
    if metric.q is None or metric.n < 1:
        return None
    if not metric.toeplitz and toeplitz_claim_error(metric) is not None:
        return None  # toeplitz=True was checked exactly when the metric was built
    exps = metric.exponent_array()
    return tuple(int(x) for x in exps[np.asarray(metric.index[0])])


class _HalfPattern:
    """Φ(s) restricted to persymmetric vectors, for :func:`~exactdp.algebra.symbolic.solve_pattern`:
    ``n`` is ⌈n/2⌉ and :meth:`series` returns rows of z_0..z_{H−1} only."""

    def __init__(self, runs: ToeplitzRuns) -> None:
        n = runs.n
        self.full = n
        self.n = (n + 1) // 2
        self.kmax = max(runs.exp, default=0)
        i = np.arange(self.n)[None, :]
        lo = np.asarray(runs.lo, dtype=np.int64)[:, None]
        hi = np.asarray(runs.hi, dtype=np.int64)[:, None]
        ex = np.asarray(runs.exp, dtype=np.int64)[:, None]
        # prefix sums P[t] = Σ_{u<t} z_u (t = 0..n) of the lagged term k − e_r:
        # Σ_{d=l..h} z_{i−d} = P[i−l+1] − P[i−h];  Σ_{d=l..h} z_{i+d} = P[i+h+1] − P[i+l]
        w = n + 1

        def at(col: np.ndarray) -> np.ndarray:
            return -ex * w + np.clip(col, 0, n)

        self.plus = np.stack([at(i - lo + 1), at(i + hi + 1)]).reshape(2, -1)
        self.minus = np.stack([at(i - hi), at(i + lo)]).reshape(2, -1)
        self.width = w

    @proved_by("toeplitz_general")
    def series(self, b: np.ndarray, terms: int, p: int) -> np.ndarray:
        """Rows z_0..z_{terms−1} (first ⌈n/2⌉ entries) of the series of Φ(s)⁻¹b mod p (b
        persymmetric: only its first half is read); ``proofs/toeplitz_general.py``."""
        n, H, K, w = self.full, self.n, self.kmax, self.width
        P = np.zeros((terms + K, w), dtype=np.int64)  # row K + k: prefix sums of z_k
        Z = np.zeros((terms, H), dtype=np.int64)
        full = np.empty(n, dtype=np.int64)
        flat = P.reshape(-1)
        plus, minus = self.plus, self.minus
        for k in range(terms):
            if k == 0:
                half = b[:H] % p
            else:
                base = (K + k) * w
                # gathered prefix sums are < p; per run the sum is reduced to [0, p), so the
                # sum over the R < 2^13 runs stays below 2^63 (p < 2^50)
                acc = (flat[plus + base].sum(axis=0) - flat[minus + base].sum(axis=0)) % p
                half = (-acc.reshape(-1, H).sum(axis=0)) % p
            Z[k] = half
            full[:H] = half
            full[H:] = half[: n - H][::-1]  # z_i = z_{n−1−i}
            np.cumsum(full, out=P[K + k, 1:])  # < n·p < 2^63
            P[K + k, 1:] %= p
        return Z


@proved_by("toeplitz_general")
def solve_toeplitz_general(metric: FiniteMetric, *, max_n: int = GENERAL_MAX_N,
                           progress: Progress = None, seed: int = 20140616) -> RationalSolution:
    """Exact z(s) = Φ(s)⁻¹·1 for a symmetric Toeplitz metric (module doc), verified exactly.

    The series by run prefix sums and persymmetry: ``proofs/toeplitz_general.py``.

    Parameters
    ----------
    metric : FiniteMetric
        Polynomial case, d(i, j) = f(|i − j|) (any f: repeating or not).
    max_n : int
        Refuse larger instances (:class:`~exactdp.errors.InstanceTooLarge`).
    progress : Progress, optional
        Progress messages (stage ``"symbolic"``).
    seed : int
        Seed of the random combination whose Padé denominator is D (a bad draw only costs
        a retry: the identity check decides).

    Returns
    -------
    RationalSolution
        The same (N, D) as :func:`~exactdp.algebra.symbolic.solve_symbolic` — the reduced
        form is unique — with ``verify()``.

    Raises
    ------
    InvalidArgument
        The metric is not symmetric Toeplitz in the polynomial case.

    Examples
    --------
    >>> from exactdp.spaces.metrics import line
    >>> sol = solve_toeplitz_general(line(3))
    >>> [str(p) for p in sol.numerators], str(sol.denominator)
    (['1', '(-1)*x + 1', '1'], 'x + 1')
    """
    t0 = time.perf_counter()
    metric = read_metric(metric)
    e = toeplitz_exponents(metric)
    if e is None:
        raise InvalidArgument(f"{metric.name} is not a symmetric Toeplitz metric with rational "
                              "distances; use exactdp.algebra.symbolic.solve_symbolic.")
    n = metric.n
    if n > min(max_n, GENERAL_MAX_N):
        raise InstanceTooLarge(f"{metric.name} has n = {n} > max_n = {min(max_n, GENERAL_MAX_N)} "
                               "for the Toeplitz exact solve.")
    ones = tuple(Fraction(1) for _ in range(n))

    def mirror(half: tuple[fmpz_poly, ...]) -> tuple[fmpz_poly, ...]:
        return tuple(half[min(i, n - 1 - i)] for i in range(n))

    def check(half: tuple[fmpz_poly, ...], D: fmpz_poly) -> bool:
        return verify_identity(metric, mirror(half), D, ones)  # generic: no structure used

    half: tuple[fmpz_poly, ...] = (fmpz_poly([1]),)
    D = fmpz_poly([1])
    if n > 1:
        # solve_pattern reads .n, .kmax and .series() only (duck-typed ExponentPattern)
        pattern = cast(Any, _HalfPattern(toeplitz_runs(e)))
        D, half = solve_pattern(pattern, [1] * n, check, progress=progress, seed=seed,
                                what=metric.name)
    elif not check(half, D):  # n = 1: Φ = (1), z = 1/1; accepted only after the check too
        raise CertificateInvalid(f"{metric.name}: the identity Φ·1 = 1 failed at n = 1.")
    return RationalSolution(metric=metric, numerators=mirror(half), denominator=D,
                            q=metric.q or 1, rhs=ones,
                            method="toeplitz (run prefix sums + persymmetry; series mod p + "
                                   "Padé + CRT, exact verification)",
                            seconds=time.perf_counter() - t0)
