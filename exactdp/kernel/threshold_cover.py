"""The certified cover of a threshold claim, re-checked in arb balls and exact rationals.

The kernel's check of a ``certified-cover`` claim (:mod:`exactdp.kernel.threshold`) does not
reuse the search's floating-point rounding analysis (F1/F2 and γ_k bounds on float
products). It re-proves each range [a, b] with the same mathematics in
ball arithmetic (python-flint ``arb``/``arb_mat``): floats appear only as *candidates*
(an approximate inverse R and the vectors x ≈ Φ0⁻¹b, u ≈ −Φ0⁻¹Φ1x), each converted
exactly to a ball (a double is a dyadic rational), and every product, residual and bound
is a ball enclosure, rounded outward by arb itself. So no subnormal or rounding-model
hypothesis is involved.

Argument (the one of the search's mean-value Krawczyk ranges, restated here; checked
step by step in ``proofs/krawczyk_mean_value.py``). On [a, b] with centre c, h = ε − c, |h| ≤ w = (b − a)/2:
Φ(ε) = Φ0 + hΦ1 + h²Φ2 with 0 ≤ Φ2 ≤ P2 = d²e^{−ad}/2 entrywise (Taylor with Lagrange
remainder, ξ ∈ [a, b]). With y(h) = x + hu and e = z(ε) − y(h), Φ(ε)e = ρ(h),
|ρ| ≤ ρ̄ := |b − Φ0x| + w|Φ0u + Φ1x| + w²(|Φ1||u| + P2|x|) + w³P2|u|. For any R,
|I − RΦ(ε)| ≤ G := |I − RΦ0| + w|RΦ1| + w²|R|P2; if β = ‖G‖∞ < 1 then Φ(ε) is invertible,
‖e‖∞ ≤ δ := ‖|R|ρ̄‖∞/(1 − β) and |e| ≤ |R|ρ̄ + (G·1)δ. Hence z(ε) ≥ x − w|u| − |e|
componentwise for every ε in [a, b].

Perturbation lemma (``proofs/threshold_lemmas.py``): with Φ = I + E, E ≥ 0 off-diagonal
and e ≥ ‖E(t0)‖∞ (max row sum, increasing in t), e < 1 and e·‖b‖∞ < min b·(1 − e) prove
z(t) > 0 for every t = e^{-ε} in (0, t0]. :func:`lemma_row_sum_bound` bounds e exactly:
integer distance counts per row times rational upper bounds of t0^d (arb, outward).

Examples
--------
>>> from fractions import Fraction
>>> from exactdp.spaces.metrics import line, sum_query
>>> arb_mean_value_check(line(3), (Fraction(1),) * 3, Fraction(1), Fraction(11, 10))
True
>>> arb_mean_value_check(sum_query(2, 2), (Fraction(1),) * 5, Fraction(40, 100), Fraction(47, 100))
False
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import numpy as np
from flint import arb, arb_mat, fmpq_mat, fmpz_mat

from exactdp.arithmetic.ball import arb_to_fraction_interval, workprec
from exactdp.arithmetic.rationals import fmpq_to_fraction, to_fmpq
from exactdp.spaces.distances import Distance
from exactdp.spaces.metrics import FiniteMetric

__all__ = ["arb_mean_value_check", "lemma_row_sum_bound", "cover_frame_ok", "CountRows"]

#: Count rows (r × k integers, each dominating a metric's per-row distance counts) and the
#: k distances they count.
CountRows = tuple[np.ndarray, Sequence[Distance]]


def _gather(vals: list[arb], idx: np.ndarray, n: int) -> arb_mat:
    return arb_mat(n, n, [vals[int(k)] for k in idx.ravel()])


def _float_mat(A: np.ndarray) -> arb_mat:
    """A float matrix (a column for a vector) as balls of radius 0 (a double is an exact dyadic)."""
    A = A.reshape(len(A), -1)
    return arb_mat(*A.shape, [arb(float(v)) for v in A.ravel()])


def _uppers(M: arb_mat) -> arb_mat:
    """Exact upper bounds of |entry| (arb's own outward rounding), entrywise."""
    return arb_mat(M.nrows(), M.ncols(), [e.abs_upper() for e in M.entries()])


def arb_mean_value_check(metric: FiniteMetric, rhs: tuple[Fraction, ...], a: Fraction,
                         b: Fraction, prec: int = 128,
                         candidates: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None) -> bool:
    """True when the mean-value Krawczyk argument proves z(ε) > 0 for every ε in [a, b],
    evaluated entirely in arb ball arithmetic (module docstring).

    Floats are candidates only; a wrong candidate can make the check fail, never pass.
    ``candidates`` = (R, x, u), float arrays of shapes n×n, n and n, replaces the kernel's
    own float solves (R ≈ Φ0⁻¹, x ≈ Φ0⁻¹b, u ≈ −Φ0⁻¹Φ1x); the argument holds for any
    finite R, x and u, so only true claims are proved, whoever chose them (poor ones only
    refuse more; the tests pass adversarial ones, ``test_kernel_mutants26_threshold_cover*``).
    """
    n = metric.n
    if not (isinstance(a, Fraction) and isinstance(b, Fraction)) or not 0 < a < b or len(rhs) != n or n < 1:
        return False
    idx = np.asarray(metric.index)
    with workprec(prec):
        ca, aa, w = arb(to_fmpq((a + b) / 2)), arb(to_fmpq(a)), arb(to_fmpq((b - a) / 2))
        ds = [v.ball() for v in metric.values]
        f0 = [(-ca * d).exp() for d in ds]
        f1 = [-d * f for d, f in zip(ds, f0)]
        p2 = [(d * d * (-aa * d).exp() / 2).abs_upper() for d in ds]
        # float candidates (uncertified; only their exact values enter the proof)
        mid0 = np.array([float(x.mid()) for x in f0])[idx]
        mid1 = np.array([float(x.mid()) for x in f1])[idx]
        if candidates is None:
            bf = np.array([float(x) for x in rhs])
            with np.errstate(all="ignore"):
                try:
                    Rf = np.linalg.inv(mid0)
                except np.linalg.LinAlgError:
                    return False
                xf = Rf @ bf
                xf = xf + Rf @ (bf - mid0 @ xf)
                uf = -(Rf @ (mid1 @ xf))
                uf = uf - Rf @ (mid0 @ uf + mid1 @ xf)
        else:
            try:
                Rf, xf, uf = (np.asarray(v, dtype=float) for v in candidates)
            except (TypeError, ValueError, OverflowError):  # not floats, or beyond their range
                return False
            if Rf.shape != (n, n) or xf.shape != (n,) or uf.shape != (n,):
                return False
        if not (np.all(np.isfinite(Rf)) and np.all(np.isfinite(xf)) and np.all(np.isfinite(uf))):
            return False
        Phi0, Phi1, P2 = _gather(f0, idx, n), _gather(f1, idx, n), _gather(p2, idx, n)
        R, absR, x, u = _float_mat(Rf), _float_mat(np.abs(Rf)), _float_mat(xf), _float_mat(uf)
        ax, au = _float_mat(np.abs(xf)), _float_mat(np.abs(uf))
        bb = arb_mat(n, 1, [arb(to_fmpq(Fraction(v))) for v in rhs])
        ones = arb_mat(n, 1, [arb(1)] * n)
        # ρ̄ = |b − Φ0x| + w|Φ0u + Φ1x| + w²(|Φ1||u| + P2|x|) + w³P2|u|
        rho = (_uppers(bb - Phi0 * x) + w * _uppers(Phi0 * u + Phi1 * x)
               + w * w * (_uppers(Phi1) * au + P2 * ax) + w * w * w * (P2 * au))
        # G·1 = |I − RΦ0|·1 + w|RΦ1|·1 + w²|R|P2·1
        G = _uppers(arb_mat(n, n, [arb(int(i == j)) for i in range(n) for j in range(n)]) - R * Phi0) * ones \
            + w * (_uppers(R * Phi1) * ones) + w * w * (absR * (P2 * ones))
        grow = [g.abs_upper() for g in G.entries()]
        beta = max(grow)
        if not beta < 1:
            return False
        Rr = [r.abs_upper() for r in (absR * rho).entries()]
        delta = max(Rr) / (1 - beta)
        return all(xi - w * ui - (Rr[i] + grow[i] * delta) > 0
                   for i, (xi, ui) in enumerate(zip(x.entries(), au.entries())))


#: Upper bounds of t0^d below 2^-TINY_BITS are replaced by 2^-TINY_BITS (a tiny t0 made
#: the exact ends of t0^d enormous, issue 11; the lemma's test loses nothing by it).
TINY_BITS = 4096


def _small_upper(x: arb) -> Fraction:
    """A rational upper bound of the finite ball x: its exact upper end, or 2^-TINY_BITS
    when arb proves x < 2^-TINY_BITS (so that the bound stays small)."""
    cap = Fraction(1, 1 << TINY_BITS)
    if x < arb(to_fmpq(cap)):
        return cap
    return arb_to_fraction_interval(x)[1]


def lemma_row_sum_bound(metric: FiniteMetric | CountRows, t0: Fraction, prec: int = 128) -> Fraction:
    """A rational e ≥ max_i Σ_{j≠i} t0^{d(i, j)}: exact integer counts of each distance per
    row (``np.bincount``) times rational upper bounds of t0^d, summed in ``fmpq_mat``.

    ``metric`` may also be ``(rows, values)``: count rows (r × k integers) that dominate
    every row of the metric entrywise, over the distances ``values`` (a grid: the counts
    of its W×H offset window, O(n), never the n×n index).

    >>> from exactdp.spaces.metrics import line
    >>> e = lemma_row_sum_bound(line(3), Fraction(1, 8))  # the middle row: 2·(1/8)
    >>> Fraction(1, 4) <= e < Fraction(1, 4) + Fraction(1, 10**30)
    True
    """
    if isinstance(metric, FiniteMetric):
        n, values = metric.n, list(metric.values)
        k = len(values)
        codes = (np.arange(n, dtype=np.int64)[:, None] * k + np.asarray(metric.index)).ravel()
        rows = np.unique(np.bincount(codes, minlength=n * k).reshape(n, k), axis=0)
    else:
        rows, values = np.asarray(metric[0], dtype=np.int64), list(metric[1])
        k = len(values)
    with workprec(prec):
        lt = arb(to_fmpq(t0)).log()
        ups = [Fraction(0) if v.coef == 0 else _small_upper((lt * v.ball()).exp()) for v in values]
    prod = fmpq_mat(fmpz_mat(len(rows), k, [int(x) for x in rows.ravel()])) * fmpq_mat(k, 1, [to_fmpq(u) for u in ups])
    return max(fmpq_to_fraction(prod[i, 0]) for i in range(len(rows)))


def cover_frame_ok(metric: FiniteMetric | CountRows, rhs: tuple[Fraction, ...], eps_hi: Fraction,
                   t0: Fraction, pieces: tuple[tuple[Fraction, Fraction], ...]) -> bool:
    """The perturbation lemma holds at t0 and the proper ranges (a < b) cover
    [eps_hi, −ln t0] without gaps (−ln t0 bounded above in arb). ``metric``: a metric or
    dominating count rows (:func:`lemma_row_sum_bound`)."""
    bmin, bmax = min(rhs), max(abs(v) for v in rhs)
    if bmin <= 0 or not 0 < t0 < 1 or any(not a < b for a, b in pieces):
        return False
    e = lemma_row_sum_bound(metric, t0)
    if not (e < 1 and e * bmax < bmin * (1 - e)):
        return False
    with workprec(128):
        end = arb_to_fraction_interval(-arb(to_fmpq(t0)).log())[1]
    cur = eps_hi
    for a, b in sorted(pieces):
        if a > cur:
            return False
        cur = max(cur, b)
    return cur >= end
