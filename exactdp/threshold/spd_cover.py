"""Certified "z(ε) > 0 for every ε ≥ eps_upper" when Φ(ε) is symmetric positive definite.

The certified threshold route (:mod:`exactdp.threshold.certified`) must prove that
Φ(ε)z = b has z > 0 for *every* ε of [eps_upper, −ln t0] (the perturbation lemma of
:mod:`exactdp.threshold.lemmas` covers the rest). When Φ(ε) is provably symmetric positive
definite on the range this module does it with O(K²·n²) work per range (K = 3 Taylor
terms), once a lower bound λ of λ_min(Φ(ε)) on the range is known:

* the Taylor piece (:mod:`exactdp.threshold.taylor`): float Taylor vectors with one
  factorisation, rigorous residual bounds by a handful of matrix–vector products, and
  ‖z − y‖∞ ≤ ‖r̄‖₂/λ; on large Euclidean grids and masked grids all the residual sums of
  a piece come from ONE blocked exact integer product of the zero-padded vectors
  (``proofs/grid_taylor_blocks.py``), quasi-linear in n;
* the λ bounds (:mod:`exactdp.threshold.providers`): dense metrics by shifted Cholesky
  nodes and the chord lemma (:mod:`exactdp.threshold.lambda_bounds`), Euclidean grids by
  the size-free lattice symbol bound (:mod:`exactdp.algebra.lattice_spectrum`), Manhattan
  grids by ((1 − t)/(1 + t))² — both hold for every subset of the lattice, so for masked
  grids;
* the certificate (:class:`~exactdp.threshold.certificates.SpdCoverCertificate`) is
  re-proved by the kernel with exact integer arithmetic (:mod:`exactdp.kernel.threshold_spd`).

A range near ε* is 10⁻⁹ wide, ranges far from it 0.5 wide, and about twenty reach from
``eps_upper`` to the lemma's region. With a ``progress`` callback every certified range is
reported with the ε-range covered, a guess of the ranges and seconds left
(:func:`remaining_note`) and the peak memory. When Φ is not provably SPD at eps_upper,
:func:`spd_cover` returns None and the route falls back to the mean-value Krawczyk cover
(:mod:`exactdp.threshold.krawczyk`). Everything proved here is checked step by step in
``proofs/spd_cover_bounds.py``.

Examples
--------
>>> from fractions import Fraction
>>> from exactdp.spaces.metrics import line
>>> m = line(6)
>>> pieces, nodes = spd_cover(m, (Fraction(1),) * 6, Fraction(1, 2), Fraction(3), Fraction(1, 10**6))
>>> pieces[0][0], pieces[-1][1]
(Fraction(1, 2), Fraction(3, 1))
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np

from exactdp.arithmetic.rounding import dyadic_down, dyadic_up, float_up, succ
from exactdp.errors import PrecisionLimitReached
from exactdp.kinds import proved_by
from exactdp.progress import Progress, memory_note, report
from exactdp.spaces.metrics import FiniteMetric
from exactdp.threshold.certificates import TAYLOR_ORDER, SpdPointCertificate
from exactdp.threshold.float_bounds import rhs_float
from exactdp.threshold.providers import DenseProvider, GridProvider, PhiProvider, provider_for
from exactdp.threshold.taylor import point_bounds, taylor_piece, taylor_tables
from exactdp.threshold.taylor_exact import Y0_BITS, exact_residual, refined_y0

__all__ = ["spd_cover", "spd_fail_point", "float_zmin", "lambda_for", "remaining_note", "per_entry_upper"]


def lambda_for(prov: PhiProvider, a: Fraction, b: Fraction) -> Fraction:
    """The provider's λ_min lower bound on [a, b], rounded down to 2^-60 (0 when unknown)."""
    lam = prov.lambda_lower(a, b)
    return dyadic_down(lam, 60) if lam > 0 else Fraction(0)


def float_zmin(prov: PhiProvider, metric: FiniteMetric, rhs: np.ndarray) -> Callable[[float], float]:
    """ε ↦ min_i z_i(ε) by a float solve (uncertified; used to *find* ε*). On grids each CG
    solve starts from the previous solution (a warm start)."""
    d = np.array([float(v) for v in metric.values])
    last: list[np.ndarray] = []
    warm = isinstance(prov, GridProvider)

    def zmin(eps: float) -> float:
        table = np.exp(-eps * d)
        try:
            x = prov.solver(table)(rhs, last[0]) if warm and last else prov.solver(table)(rhs)
            if warm and np.all(np.isfinite(x)):
                last[:] = [np.asarray(x)]
        except (np.linalg.LinAlgError, ValueError):
            return -math.inf
        x = np.asarray(x)
        return float(np.min(x)) if np.all(np.isfinite(x)) else -math.inf

    return zmin


def spd_fail_point(metric: FiniteMetric, rhs: tuple[Fraction, ...], eps: Fraction,
                   prov: PhiProvider | None = None) -> SpdPointCertificate | None:
    """A certificate that z(eps) has a negative entry, or None when not provable here."""
    prov = prov or provider_for(metric)
    lam = lambda_for(prov, eps, eps)
    if lam <= 0:
        return None
    sigma = prov.nodes[eps][0] if isinstance(prov, DenseProvider) else Fraction(0)
    b, brad = rhs_float(rhs)
    y, err = point_bounds(prov, list(metric.values), b, brad, eps, lam, rhs)
    i = int(np.argmin(y))
    up = float(succ(y[i] + err))
    if up >= 0 and y[i] < 0 and prov.fast_exact:  # the scalar err cannot decide: per entry
        # claim only up/2 (still ≥ z_i when up < 0): room for the kernel's own candidate
        up = per_entry_upper(prov, list(metric.values), rhs, eps, lam, y, i) / 2
    if up >= 0:
        return None
    return SpdPointCertificate(metric, rhs, eps, i, sigma, lam, up)


@proved_by("fail_point_per_entry")
def per_entry_upper(prov: PhiProvider, values: list[Any], rhs: tuple[Fraction, ...], eps: Fraction,
                    lam: Fraction, y: np.ndarray, i: int, steps: int = 3) -> float:
    """A float u ≥ z_i(eps), from y_0 kept exactly as Y·2^-s (refined ``steps`` times from
    ``y`` by solves of its exact residual, s = 64, 116, 168, …; providers with fast exact
    products): z_i ≤ Y_i·2^-s + ‖r̄‖₂/λ with r̄ ≥ |b − Φy_0| entrywise (e^{−εd} ∈
    [A, A + r]·2^-100, A·Y exact), rounded up once — the rounding of y_0 to doubles, which
    :func:`point_bounds` charges to every entry as max_j 2^-52|y_j|, never enters
    (``proofs/fail_point_per_entry.py``). ``lam`` ≤ λ_min(Φ(eps)) is the caller's.
    """
    # the float solver only refines the candidate: its table is read off the exact one
    solve = prov.solver(taylor_tables(values, eps, eps, 0, exact=True).mids[0])
    Y = [int(v) for v in np.rint(np.ldexp(np.asarray(y, dtype=np.float64), Y0_BITS))]
    res = exact_residual(prov, values, rhs, eps, Y, Y0_BITS)  # B·2^(100+s)·(b − A·y_0) exactly
    for _ in range(steps):
        corr = np.asarray(solve(res.center()))
        if not np.all(np.isfinite(corr)):
            return math.inf
        res = exact_residual(prov, values, rhs, eps, *refined_y0(res.yint, res.s, corr))
    # ‖r̄‖₂ ≤ norm2_scaled()/den (wide = B·max r·Σ|Y| covers the table radii)
    return float_up(Fraction(res.yint[i], 1 << res.s) + Fraction(res.norm2_scaled(), res.den) / lam)


def remaining_note(done: list[tuple[float, float]], left: float, width: float, start: float) -> str:
    """``"≈ 5 more ranges, ETA 40 s"`` from the ranges certified so far (a guess, not a bound).

    ``done`` holds (finish time, width growth factor) per certified range; ``left`` is the
    ε-length still to cover and ``width`` the next range's width. The number of ranges left
    is what the recent geometric growth of the widths (at most 2) needs to span ``left``; the time per
    range is the mean of the last four.

    >>> remaining_note([(1.0, 4.0), (2.0, 4.0), (3.0, 4.0)], 0.63, 0.01, 0.0)
    '≈ 6 more ranges, ETA 6 s'
    >>> remaining_note([(1.0, 4.0)], 0.0, 0.01, 0.0)
    'done'
    """
    if left <= 0:
        return "done"
    if not done or width <= 0:
        return "ETA unknown"
    recent = done[-4:]
    # far from ε* the widths grow slowly (the Taylor remainder limits them): a growth
    # above 2 seen near ε* is not extrapolated
    g = min(2.0, math.exp(sum(math.log(max(1.0, f)) for _, f in recent) / len(recent)))
    if left <= width:
        more = 1
    elif g > 1.05:
        more = math.ceil(math.log1p(left / width * (g - 1)) / math.log(g))  # w·Σ g^i ≥ left
    else:
        more = math.ceil(left / width)
    more = max(1, more)
    prev = done[-5][0] if len(done) >= 5 else start
    per = (recent[-1][0] - prev) / len(recent)
    return f"≈ {more} more range{'s' if more != 1 else ''}, ETA {more * per:.0f} s"


def spd_cover(metric: FiniteMetric, rhs: tuple[Fraction, ...], e_hi: Fraction,
              e_end: Fraction, tol: Fraction, progress: Progress = None,
              prov: PhiProvider | None = None, max_pieces: int = 400
              ) -> tuple[tuple[tuple[Fraction, Fraction, Fraction], ...],
                         tuple[tuple[Fraction, Fraction, Fraction], ...]] | None:
    """Pieces (a, b, λ) and λ nodes (ε, σ, λ) certifying z > 0 on [e_hi, e_end], or None if Φ
    is not provably SPD at e_hi (the caller then uses the Krawczyk cover)."""
    prov = prov or provider_for(metric)
    if isinstance(prov, DenseProvider):
        prov.start_chain(e_hi)
    if lambda_for(prov, e_hi, e_hi) <= 0:
        return None
    b, brad = rhs_float(rhs)
    values = list(metric.values)
    pieces: list[tuple[Fraction, Fraction, Fraction]] = []
    eta: list[tuple[float, float]] = []  # (time, width growth) per certified range
    t_start = time.perf_counter()
    a = e_hi
    w = 8 * tol
    tries = 0
    while a < e_end:
        tries += 1
        if tries > max_pieces:
            return None
        bb = min(e_end, a + w)
        lam = lambda_for(prov, a, bb)
        ok = False
        factor = 0.25
        last = None
        if lam > 0:
            res, _ = taylor_piece(prov, values, b, brad, a, bb, TAYLOR_ORDER, lam, rhs=rhs)
            ok = res.ok
            last = res
            # the error is dominated by the ω^{K+1} remainder: aim at err ≈ half the room
            room = res.min_lower + res.err
            if math.isfinite(room) and room > 0 and res.err > 0:
                factor = (0.5 * room / res.err) ** (1 / (TAYLOR_ORDER + 1))
                if ok and res.err < 0.02 * room:
                    # the error is still at its rounding floor: widen boldly
                    factor = max(factor, 8.0)
        if ok:
            pieces.append((a, bb, lam))
            a = bb
            grow = min(32.0, max(1.0, factor))
            w = w * Fraction(grow).limit_denominator(64)
            if progress is not None:
                eta.append((time.perf_counter(), grow))
                report(progress, "cover", f"{len(pieces)} ranges certified, ε ∈ [{float(e_hi):.6f}, "
                       f"{float(bb):.6f}] of [{float(e_hi):.6f}, {float(e_end):.4f}]; "
                       f"{remaining_note(eta, float(e_end - a), float(w), t_start)}; {memory_note()}")
        else:
            w = w * Fraction(min(0.5, max(0.1, factor))).limit_denominator(64)
            if w < tol / 2**20:
                if last is None or not math.isfinite(last.err):
                    return None  # no λ bound here: Φ not provably positive definite
                raise PrecisionLimitReached(
                    f"Φ is positive definite near ε = {float(a):.12g} but z cannot be certified "
                    f"positive there: the certified lower bound of min z is "
                    f"{last.min_lower:.3g} with a float error bound of {last.err:.3g}, i.e. "
                    "min z is below what double precision resolves at this ε, even with the "
                    "exact residual of the double-precision solution (precision escalation). "
                    "Ask for a wider tol, or use method='exact' (polynomial case).")
        w = dyadic_up(w, 40) if w > Fraction(1, 2**40) else w
    nodes: tuple[tuple[Fraction, Fraction, Fraction], ...] = ()
    if isinstance(prov, DenseProvider):
        nodes = tuple((e, prov.nodes[e][0], prov.nodes[e][1]) for e in sorted(prov.nodes))
    return tuple(pieces), nodes
