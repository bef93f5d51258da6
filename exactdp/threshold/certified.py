"""The certified route: find ε* with floats, then prove both sides of a tight bracket.

1. A float search (Levinson for Toeplitz Φ, Cholesky, or FFT + CG on large Euclidean
   grids; Illinois regula falsi) *finds* ε* (:func:`float_find`, uncertified).
2. A certified point just below: the property fails at ``eps_lower`` (an SPD point
   certificate, or the engine's certificate at that level).
3. A certified cover of [``eps_upper``, ∞): near t = e^{-ε} = 0 the perturbation lemma
   (:mod:`exactdp.threshold.lemmas`), elsewhere finitely many ε-ranges, each proved for
   *every* ε of the range at once — Taylor pieces when Φ(ε) is provably SPD
   (:mod:`exactdp.threshold.spd_cover`), mean-value Krawczyk pieces otherwise
   (:mod:`exactdp.threshold.krawczyk`). Range widths adapt to the measured error, so about
   twenty ranges reach from 10⁻⁹ above ε* to the lemma's region. Large Euclidean grids
   (:func:`exactdp.spaces.grid.use_matrix_free`) never form the n×n matrix (nor any
   other per-pair table: memory O(n)).

Where double precision cannot decide a piece or the fail point (the a priori rounding
bound of the residual b − Φy dominates, as 10⁻⁹ above ε* on 50×50 grids), the residual is
recomputed exactly (:func:`exactdp.threshold.taylor.exact_residual_bound`, precision
escalation) before the route gives up.

Every step relies on the IEEE rounding model with subnormals kept; the route checks that
first (:func:`exactdp.arithmetic.rounding.require_subnormals`).

Examples
--------
>>> from exactdp.spaces.metrics import sum_query
>>> from fractions import Fraction
>>> r = certified_route(sum_query(3, 3), None, Fraction(1, 10**6), None, [])
>>> r.certificate.kind, r.certificate.verify()
(<CertificateKind.SPD_TAYLOR_COVER: 'spd-taylor-cover'>, True)
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np
from threadpoolctl import threadpool_limits

from exactdp.algebra.algebraic import log_enclosure
from exactdp.algebra.structure import solve_float
from exactdp.arithmetic.rounding import dyadic_up, require_subnormals
from exactdp.engine.core import solve_nonnegative
from exactdp.errors import PrecisionLimitReached, PropertyNeverHolds
from exactdp.progress import Progress, memory_note, report
from exactdp.spaces.levels import parse_level
from exactdp.spaces.metrics import FiniteMetric
from exactdp.threshold.certificates import CoverCertificate, SpdCoverCertificate
from exactdp.threshold.krawczyk import krawczyk_cover
from exactdp.threshold.lemmas import lemma_t0
from exactdp.threshold.providers import GridProvider, PhiProvider, provider_for
from exactdp.threshold.results import ThresholdResult, property_name, short_rational
from exactdp.threshold.spd_cover import float_zmin, spd_cover, spd_fail_point

__all__ = ["float_find", "certified_route"]

#: Euclidean grids with at least this many points run the float search with FFT + PCG
#: solves (O(n log n) each) even when the certificate uses the dense provider.
_GRID_SEARCH_MIN_N = 900
#: bracket rounds (matrix-free route): when the cover fails at a certified failing point
#: e_hi (the float estimate of ε* was low), the bracket moves up by tol·2^round and retries
_BRACKET_ROUNDS = 4


def float_find(metric: FiniteMetric, rhs: tuple[Fraction, ...], progress: Progress,
               tol: float = 1e-9, prov: PhiProvider | None = None) -> float:
    """Float estimate of ε* (uncertified; only used to place the bracket).

    Scans t = e^{-ε} upward from 0.02 to the first failure, then brackets the sign
    change of min_i z_i by the Illinois variant of regula falsi (bisection safeguard).
    Solves: Levinson for Toeplitz Φ, else the provider's factorisation (Cholesky when
    Φ is SPD, CG on large Euclidean grids). Returns 0.0 when no failure is found.
    """
    b = np.array([float(v) for v in rhs])
    zmin: Callable[[float], float]
    if metric.toeplitz or prov is None:
        def zmin(eps: float) -> float:
            return float(np.min(solve_float(metric, eps, b)))
    else:
        zmin = float_zmin(prov, metric, b)

    # scan t = e^{-ε·u} upward from 0 (u = 1; when that finds no failure and the smallest
    # distance d_min is far from 1, e.g. spacing 10^6, again with u = d_min)
    dmin = min((float(v) for v in metric.values if float(v) > 0), default=1.0)
    ts = np.linspace(0.02, 0.98, 25)
    for unit in (1.0, dmin) if not 1 / 64 <= dmin <= 64 else (1.0,):
        def g(t: float, unit: float = unit) -> float:
            return zmin(-math.log(t) / unit)

        prev = None
        g_prev = 0.0
        for t in ts:
            gt = g(float(t))
            if gt < 0:
                break
            prev, g_prev = float(t), gt
        else:
            continue
        break
    else:
        return 0.0
    if prev is None:
        # it fails already at t = 0.02 (ε ≈ 3.9): go down geometrically (large ε*)
        hi_t, g_hi = float(ts[0]), gt
        t_try = hi_t
        while True:
            t_try /= 4
            if t_try < 1e-200:
                raise PrecisionLimitReached(
                    "the float search finds the property failing for every t = e^-ε down to "
                    "1e-200 (ε ≈ 460); with b > 0 it holds for t small enough, so ε* is huge or "
                    "the prior has entries too small for double precision: use method='exact' "
                    "(polynomial case)")
            g_t = g(t_try)
            if g_t >= 0:
                prev, g_prev = t_try, g_t
                break
            hi_t, g_hi = t_try, g_t
        lo_t, g_lo = prev, g_prev
    else:
        lo_t, g_lo, hi_t, g_hi = prev, g_prev, float(t), gt  # holds at lo_t, fails at hi_t
    side = 0
    for it in range(100):
        if hi_t - lo_t < max(2e-14, tol * lo_t / 64):
            break
        if math.isfinite(g_hi) and g_lo - g_hi > 0 and it % 4 != 3:
            mid = hi_t - g_hi * (hi_t - lo_t) / (g_hi - g_lo)
            mid = min(max(mid, lo_t + 0.01 * (hi_t - lo_t)), hi_t - 0.01 * (hi_t - lo_t))
        else:
            mid = 0.5 * (lo_t + hi_t)
        gm = g(mid)
        if gm < 0:
            hi_t, g_hi = mid, gm
            if side == -1:
                g_lo /= 2
            side = -1
        else:
            lo_t, g_lo = mid, gm
            if side == 1:
                g_hi /= 2
            side = 1
    est = -math.log(0.5 * (lo_t + hi_t)) / unit
    report(progress, "float search", f"ε* ≈ {est:.12g}; {memory_note()}")
    return est


def certified_route(metric: FiniteMetric, rhs: tuple[Fraction, ...] | None, tol: Fraction,
                    progress: Progress, timings: list[tuple[str, float]],
                    max_pieces: int = 4000,
                    everywhere: Callable[[], ThresholdResult] | None = None) -> ThresholdResult:
    """The certified route with BLAS pinned to one thread.

    Its work is many O(n²) products and n ≈ 10³ factorisations, which run about twice as
    fast without thread synchronisation (measured in ``benchmarks/bench_threshold.py``);
    threadpoolctl restores the caller's setting afterwards. ``timings`` receives
    (stage, seconds) pairs. When the float search finds no failure at all, ``everywhere``
    (if given) is asked for a certified "holds for every ε" answer (the API passes the
    exact route in the polynomial case); without it, :class:`PrecisionLimitReached`.
    """
    require_subnormals("certified threshold route")
    with threadpool_limits(limits=1, user_api="blas"):
        return _certified_route_body(metric, rhs, tol, progress, timings, max_pieces,
                                     everywhere)


def _certified_route_body(metric: FiniteMetric, rhs: tuple[Fraction, ...] | None,
                          tol: Fraction, progress: Progress,
                          timings: list[tuple[str, float]],
                          max_pieces: int,
                          everywhere: Callable[[], ThresholdResult] | None) -> ThresholdResult:
    t0 = time.perf_counter()
    b = rhs if rhs is not None else tuple(Fraction(1) for _ in range(metric.n))
    prop = property_name(rhs)
    if min(b) <= 0:
        i = min(range(len(b)), key=lambda k: b[k])
        raise PropertyNeverHolds(
            f"prior[{i}] = {b[i]}: a prior with a zero entry is regular at no ε (Prop. 1: "
            f"π_y/π_y' ≤ e^(ε d) fails for y' = {i}). Evidence: the zero entry.",
            evidence=i,
        )
    prov = provider_for(metric)
    grid_route = isinstance(prov, GridProvider)
    # the search is uncertified: Euclidean grids of any size search with FFT + PCG solves
    search_prov = provider_for(metric, prefer_grid=metric.n >= _GRID_SEARCH_MIN_N)
    eps_f = float_find(metric, b, progress, float(tol), search_prov)
    timings.append(("float search", time.perf_counter() - t0))
    if eps_f == 0.0:
        if everywhere is not None:
            report(progress, "float search", "no failure found: proving 'for every ε' exactly")
            return everywhere()
        raise PrecisionLimitReached(
            f"on {metric.name} the float search found no failure of '{prop}' for "
            "e^(-ε·u) ∈ [0.02, 0.98] (u = 1 and u = the smallest distance), but the certified "
            "route cannot prove 'for every ε > 0' "
            "(it covers [ε*, ∞) only); that needs the exact route (rational distances) or "
            "Prop. 9 (ball-size symmetric spaces)."
        )
    ef = Fraction(eps_f)
    t_lemma = lemma_t0(metric, b)
    _, e_end = log_enclosure(t_lemma, t_lemma, Fraction(-1))
    e_end = dyadic_up(e_end, 20)
    for rnd in range(_BRACKET_ROUNDS):
        e_lo, e_hi, fail = _fail_side(metric, b, ef, tol, prov, grid_route, progress, timings)
        # cover [e_hi, ∞)
        t2 = time.perf_counter()
        try:
            out = spd_cover(metric, b, e_hi, e_end, tol, progress, prov)
            break
        except PrecisionLimitReached:
            # the float estimate may be low (ε* above e_hi: z < 0 there, which no precision
            # settles): when z(e_hi) is *certified* to have a negative entry, move up and retry
            if (rnd + 1 == _BRACKET_ROUNDS or not grid_route
                    or spd_fail_point(metric, b, e_hi, prov) is None):
                raise
            ef = e_hi + tol * 2**rnd
            report(progress, "cover", f"z(ε) fails at ε = {float(e_hi):.12f} (the float "
                   "estimate was low): moving the bracket up")
    if out is not None:
        pieces, nodes = out
        timings.append(("certified cover", time.perf_counter() - t2))
        lam_src = "lattice symbol" if grid_route else f"{len(nodes)} Cholesky nodes"
        spd_cert = SpdCoverCertificate(metric, b, e_lo, e_hi, fail, t_lemma, nodes, pieces)
        return ThresholdResult(metric.name, rhs, e_lo, e_hi, spd_cert, None, metric.q,
                               f"certified (float search, point check, {len(pieces)} Taylor "
                               f"ε-ranges with λ_min bounds from {lam_src}, perturbation lemma)",
                               time.perf_counter() - t0, tuple(timings), prop, None)
    if grid_route:
        raise PrecisionLimitReached(
            f"the SPD cover of [{float(e_hi)}, {float(e_end)}] did not close on {metric.name}"
        )
    report(progress, "cover", "Φ not provably SPD on the range: mean-value Krawczyk cover")
    done = krawczyk_cover(metric, b, e_hi, e_end, tol, progress, max_pieces)
    timings.append(("certified cover", time.perf_counter() - t2))
    cert = CoverCertificate(metric, b, e_lo, e_hi, fail, t_lemma, tuple(done))
    return ThresholdResult(metric.name, rhs, e_lo, e_hi, cert, None, metric.q,
                           f"certified (float search, engine point check, {len(done)} "
                           "mean-value verified ε-ranges, perturbation lemma)",
                           time.perf_counter() - t0, tuple(timings), prop, None)


def _fail_side(metric: FiniteMetric, b: tuple[Fraction, ...], ef: Fraction, tol: Fraction,
               prov: PhiProvider, grid_route: bool, progress: Progress,
               timings: list[tuple[str, float]]) -> tuple[Fraction, Fraction, Any]:
    """(e_lo, e_hi, fail): a certified failing point e_lo just below the estimate ``ef``
    (moved down by tol/4 up to five times) and the cover's start e_hi."""
    shift = Fraction(0)
    for _attempt in range(6):
        e_lo = short_rational(ef - tol / 8 - shift, tol / 16, -1)
        e_hi = short_rational(ef + tol / 2 - shift, tol / 16, +1)
        if e_lo <= 0:  # tol is wide compared with ε*: stay inside (0, ε*)
            e_lo = short_rational(ef / 2, ef / 16, -1)
            e_hi = min(e_hi, e_lo + tol)
        t1 = time.perf_counter()
        fail: Any = spd_fail_point(metric, b, e_lo, prov)
        if fail is None and not grid_route:
            res = solve_nonnegative(metric, parse_level(eps=e_lo), list(b))
            fail = None if res.holds else res.certificate
        timings.append(("fail point certificate", time.perf_counter() - t1))
        if fail is not None:
            report(progress, "fail point", f"certified at ε = {float(e_lo):.12f}; {memory_note()}")
            return e_lo, e_hi, fail
        shift += tol / 4  # the float estimate was a little high: move the window down
        report(progress, "fail point", "not certified; moving the bracket down")
    raise PrecisionLimitReached(
        "could not certify a failing point just below the float estimate of ε*; "
        "the float search is unreliable here (ill-conditioned Φ?)"
    )
