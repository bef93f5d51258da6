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

import dataclasses
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
from exactdp.errors import ExactDPError, PrecisionLimitReached, PropertyNeverHolds, ToleranceTooFine
from exactdp.kinds import proved_by
from exactdp.progress import Progress, memory_note, report
from exactdp.spaces.distances import Distance
from exactdp.spaces.levels import parse_level
from exactdp.spaces.metrics import FiniteMetric
from exactdp.spaces.metrics.masked import grid_shape
from exactdp.threshold.binding import grid_structure_holds
from exactdp.threshold.certificates import CoverCertificate, SpdCoverCertificate
from exactdp.threshold.exact import unit_metric, unit_tol
from exactdp.threshold.exact_certificate import ScaledExactCertificate, short_name, unit_text
from exactdp.threshold.float_bounds import binade
from exactdp.threshold.krawczyk import krawczyk_cover
from exactdp.threshold.lemmas import lemma_t0
from exactdp.threshold.providers import GridProvider, PhiProvider, provider_for
from exactdp.threshold.results import (
    DEFAULT_TOL,
    EpsilonSet,
    ScaledThresholdResult,
    ThresholdResult,
    property_name,
    short_rational,
)
from exactdp.threshold.spd_certificates import metric_of_shape
from exactdp.threshold.spd_cover import float_zmin, spd_cover, spd_fail_point

__all__ = ["float_find", "certified_route", "refuse_far_scale", "smallest_square", "MAX_SMALLEST_DISTANCE",
           "unit_of", "far_from_one", "scaled_route", "FAR_SCALE_BITS"]

#: Euclidean grids with at least this many points run the float search with FFT + PCG
#: solves (O(n log n) each) even when the certificate uses the dense provider.
_GRID_SEARCH_MIN_N = 900
#: bracket rounds (matrix-free route): when the cover fails at a certified failing point
#: e_hi (the float estimate of ε* was low), e_hi becomes the failing point and the bracket
#: climbs from it (steps tol·2^k while z stays certified negative, then bisection)
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

    # scan t = e^{-ε·u} upward from 0 in units u = d_min, the smallest distance (spacing 64
    # or 10^-9: ε*·d_min is of order 1), then, when that finds no failure, u = 1 — except on
    # grids, where z(ε) at spacing h is z(ε·h) at spacing 1 (u = 1 would only add float
    # noise of a near-singular Φ when h ≪ 1)
    dmin = min((float(v) for v in metric.values if float(v) > 0), default=1.0)
    ts = np.linspace(0.02, 0.98, 25)
    for unit in (dmin, 1.0) if dmin != 1.0 and grid_shape(metric) is None else (dmin,):
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
                    f"the float search (uncertified) finds min z < 0 for every t = e^(-ε·u) "
                    f"down to 1e-200 (u = {unit:.6g}, ε·u ≈ 460); with b > 0 the property "
                    "holds for t small enough, so either ε* is huge or the float solves are "
                    "wrong here (prior entries or distances out of double range); rational "
                    "distances: try method='exact'")
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
        if hi_t - lo_t < lo_t * max(tol * unit / 64, 1e-15):  # relative: dt/t = u·dε
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


def _scaled_tol(metric: FiniteMetric, tol: Fraction) -> Fraction:
    """``tol``, or a power 2^-k ≤ tol/u when the smallest distance u is so large that
    tol·u > 2^-10 (ε* is of the order 1/u: a spacing of 10^30 puts it near 10^-30, where an
    absolute tol of 10^-9 resolves nothing and the cover would leave the range the kernel
    checks, ε·max d ≤ its limit). A finer tol only narrows the enclosure.

    >>> from exactdp.spaces.metrics import grid
    >>> tol = Fraction(1, 10**9)
    >>> _scaled_tol(grid(3, 3), tol), _scaled_tol(grid(3, 3, spacing=10**30), tol) < tol / 10**30
    (Fraction(1, 1000000000), True)
    """
    u2 = smallest_square(metric)  # exact: no float overflow
    if not tol * tol * u2 > Fraction(1, 1 << 20):  # tol·u ≤ 2^-10
        return tol
    r2 = u2 / (tol * tol)  # (u/tol)²
    k = max(0, binade(r2) // 2)  # then the least k with 4^k ≥ (u/tol)²: 2^k = ⌈u/tol⌉₂
    while Fraction(4) ** k < r2:
        k += 1
    return min(tol, Fraction(1, 2 ** (k + 1)))


#: The largest smallest-distance u the certified route accepts: 10^35. Beyond it the
#: perturbation lemma's t0 = e^{-s/u} lies within ~2^-116 of 1 and its float guide loses the
#: digits of s/u (measured on grid(5, 5): spacing 10^40 still verifies, 10^41 and 10^42 give a
#: certificate the kernel rejects, 10^45 an unusable one, 10^50 a MemoryError, 10^60 a hang).
MAX_SMALLEST_DISTANCE = 10**35


def smallest_square(metric: FiniteMetric) -> Fraction:
    """The exact square u² of the smallest positive distance (1 when there is none).

    >>> from exactdp.spaces.metrics import grid
    >>> smallest_square(grid(3, 3, spacing=Fraction(3, 2)))
    Fraction(9, 4)
    """
    return min((v.coef * v.coef * v.radicand for v in metric.values if v.coef != 0),
               default=Fraction(1))


def refuse_far_scale(metric: FiniteMetric) -> None:
    """PrecisionLimitReached when the smallest positive distance exceeds
    :data:`MAX_SMALLEST_DISTANCE` (a grid spacing far above 1), before any work: the guard of
    :func:`certified_route` itself. ``epsilon_threshold`` never gets here with such a metric:
    it solves it in its unit (:func:`far_from_one`, :func:`scaled_route`).

    >>> from exactdp.spaces.metrics import grid
    >>> refuse_far_scale(grid(3, 3, spacing=10**30))
    >>> refuse_far_scale(grid(3, 3, spacing=10**36))
    Traceback (most recent call last):
    ...
    exactdp.errors.PrecisionLimitReached: certified threshold route on ...
    """
    u2 = smallest_square(metric)
    if u2 > MAX_SMALLEST_DISTANCE ** 2:
        digits = (math.log10(u2.numerator) - math.log10(u2.denominator)) / 2  # big ints: ok
        raise PrecisionLimitReached(
            f"certified threshold route on {metric.name}: the smallest distance (a grid's "
            f"spacing) is about 10^{digits:.1f}, above the limit 10^35 where the perturbation "
            "lemma's t0 stays resolvable and the certificate checkable. Rescale: solve at "
            "spacing 1 (divide the distances by the spacing h) and divide the result, "
            "ε*(h) = ε*(1)/h exactly (proofs/grid_spacing_scaling.py) — epsilon_threshold "
            "does this itself (certified.scaled_route, an exact-scaled certificate).")


#: A smallest distance u with |log2 u| > this is "far from 1": the API solves the metric in
#: its unit (:func:`scaled_route`) instead of running a route at that scale.
FAR_SCALE_BITS = 20


def far_from_one(metric: FiniteMetric) -> bool:
    """The smallest positive distance u lies outside [2^-20, 2^20] (exact, from u²).

    >>> from exactdp.spaces.metrics import grid
    >>> far_from_one(grid(3, 3, spacing=10**4)), far_from_one(grid(3, 3, spacing=10**7))
    (False, True)
    >>> far_from_one(grid(3, 3, spacing=Fraction(1, 10**400)))
    True
    """
    u2 = smallest_square(metric)
    return not Fraction(1, 1 << 2 * FAR_SCALE_BITS) <= u2 <= 1 << 2 * FAR_SCALE_BITS


@proved_by("grid_spacing_scaling")
def unit_of(metric: FiniteMetric) -> tuple[FiniteMetric, Fraction] | None:
    """(d′, c) with d = c·d′ exactly and c ≠ 1, or None (c = 1): a library grid at spacing h
    gives the same grid at spacing 1 (its structure — shape, Kronecker factors — kept) and
    c = h; a polynomial-case metric its common unit (:func:`~exactdp.threshold.exact.unit_metric`);
    any other the rational coefficient of its smallest distance
    (``proofs/grid_spacing_scaling.py``: ε*(d) = ε*(d′)/c).

    >>> from exactdp.spaces.metrics import grid, line
    >>> m1, c = unit_of(grid(3, 2, "euclidean", spacing=10**40))
    >>> m1.name, c == 10**40, unit_of(line(3))
    ('grid(3, 2, euclidean, spacing=1)', True, None)
    """
    shape = grid_shape(metric)
    if shape is not None and (shape.mask is not None or grid_structure_holds(metric)):
        if shape.spacing == 1:
            return None
        return metric_of_shape(dataclasses.replace(shape, spacing=Fraction(1))), shape.spacing
    if metric.q is not None:
        m1, c = unit_metric(metric)
        return None if c == 1 else (m1, c)
    u = min((v for v in metric.values if v.coef != 0), key=lambda v: v.square, default=None)
    c = Fraction(1) if u is None else u.coef
    if c == 1:
        return None
    m1 = FiniteMetric(f"{short_name(metric.name)} in units of {unit_text(c)}", metric.points,
                      [Distance(v.coef / c, v.radicand) for v in metric.values], np.asarray(metric.index))
    return m1, c


@proved_by("grid_spacing_scaling")
def scaled_route(metric: FiniteMetric, rhs: tuple[Fraction, ...] | None, tol: Fraction,
                 progress: Progress, unit: tuple[FiniteMetric, Fraction],
                 solve: Callable[[FiniteMetric, Fraction], ThresholdResult]) -> ThresholdResult:
    """ε*(metric) = ε*(d′)/c: ``solve(d′, tol′)`` runs any route on the unit metric d′
    (``unit`` = (d′, c) from :func:`unit_of`) with tol′ = :func:`~exactdp.threshold.results.unit_tol`
    = min(tol·c, 10⁻⁹), and the result wraps its certificate in an ``exact-scaled`` one (inner
    enclosure divided by c, exactly; ``proofs/grid_spacing_scaling.py``). Width ≤ tol·c/c = tol.
    The exact ε-set (when the inner route has one) carries over with every ε divided by c
    (:meth:`~exactdp.threshold.results.EpsilonSet.scaled`); every error of the inner solve
    says that it was solved in units of c.

    >>> from exactdp.spaces.metrics import grid
    >>> from exactdp.threshold.api import epsilon_threshold
    >>> g = grid(4, 3, "euclidean", spacing=10**40)
    >>> r = scaled_route(g, None, Fraction(1, 10**9), None, unit_of(g),
    ...                  lambda m, t: epsilon_threshold(m, tol=t))
    >>> r.certificate.kind.value, r.verify(), r.eps_upper * 10**40 < 1
    ('exact-scaled', True, True)
    """
    m1, c = unit
    cs = unit_text(c)
    name = short_name(metric.name)
    report(progress, "threshold", f"{name}: solving with every distance divided by c = {cs} "
           "(ε* scales by 1/c)")
    inner_tol = unit_tol(tol, c)
    units = (f" [solved with every distance of {name} divided by c = {cs}: the ε above are the "
             f"unit metric's; in your units ε = (that ε)/{cs}]")
    try:
        inner = solve(m1, inner_tol)
    except ExactDPError as err:
        if isinstance(err, PrecisionLimitReached) and not isinstance(err, ToleranceTooFine) \
                and inner_tol < Fraction(1, 1 << 30):  # the absolute tol is a relative tol·c in the unit
            raise ToleranceTooFine(
                f"{name}: tol = {unit_text(tol)} asks for ε* (of the order 1/c = {unit_text(1 / c)}) "
                f"to a relative width of about {unit_text(inner_tol)}; the route that ran on the "
                f"unit metric could not reach it ({str(err)[:160]}…). Pass a coarser absolute tol, "
                f"e.g. tol={_power_of_ten_at_least(DEFAULT_TOL / c)} (10⁻⁹ in the unit metric).") from err
        raise _noted(err, units, c) from err
    cert = ScaledExactCertificate(metric, rhs, c, inner.certificate, inner.eps_lower / c,
                                  inner.eps_upper / c)
    eps_set = None if inner.eps_set is None else inner.eps_set.scaled(c)
    return ScaledThresholdResult(metric.name, rhs, cert.eps_lower, cert.eps_upper, cert, None, metric.q,
                                 f"{inner.method} (distances in units of {cs})", inner.seconds,
                                 inner.timings, inner.question, eps_set)


def _noted(err: ExactDPError, note: str, c: Fraction) -> ExactDPError:
    """``err`` (same type and attributes) with ``note`` appended to its message; a
    PropertyNeverHolds' ε-set evidence in the asked metric's ε (divided by c)."""
    new = type(err).__new__(type(err))
    new.__dict__.update(err.__dict__)
    new.args = (f"{err}{note}",)
    evidence = getattr(err, "evidence", None)
    if isinstance(err, PropertyNeverHolds) and isinstance(evidence, EpsilonSet):
        new.evidence = evidence.scaled(c)  # type: ignore[attr-defined]
        new.args = (f"{new.args[0]} (.evidence is your metric's ε-set)",)
    return new


def _power_of_ten_at_least(x: Fraction) -> str:
    """The least 10^k ≥ x > 0 as a Fraction expression (the advice of ToleranceTooFine).

    >>> _power_of_ten_at_least(Fraction(1, 10**2)), _power_of_ten_at_least(Fraction(10**49 + 1))
    ('Fraction(1, 10**2)', 'Fraction(10**50)')
    >>> _power_of_ten_at_least(Fraction(3, 10**500)), _power_of_ten_at_least(Fraction(1))
    ('Fraction(1, 10**499)', 'Fraction(10**0)')
    """
    k = math.floor(math.log10(x.numerator) - math.log10(x.denominator))  # within 1 of the answer
    while Fraction(10) ** k < x:
        k += 1
    while Fraction(10) ** (k - 1) >= x:
        k -= 1
    return f"Fraction(10**{k})" if k >= 0 else f"Fraction(1, 10**{-k})"


def _certified_route_body(metric: FiniteMetric, rhs: tuple[Fraction, ...] | None,
                          tol: Fraction, progress: Progress,
                          timings: list[tuple[str, float]],
                          max_pieces: int,
                          everywhere: Callable[[], ThresholdResult] | None) -> ThresholdResult:
    refuse_far_scale(metric)
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
    tol = _scaled_tol(metric, tol)
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
            "e^(-ε·u) ∈ [0.02, 0.98] (u = the smallest distance, and u = 1 unless a grid), "
            "but the certified "
            "route cannot prove 'for every ε > 0' "
            "(it covers [ε*, ∞) only); that needs the exact route (rational distances) or "
            "Prop. 9 (ball-size symmetric spaces)."
        )
    ef = Fraction(eps_f)
    t_lemma = lemma_t0(metric, b)
    _, e_end = log_enclosure(t_lemma, t_lemma, Fraction(-1))
    e_end = dyadic_up(e_end, 20 - min(0, binade(e_end) + 10))  # 2^-20, finer below ε = 2^-10
    e_lo, e_hi, fail = _fail_side(metric, b, ef, tol, prov, grid_route, progress, timings)
    for rnd in range(_BRACKET_ROUNDS):
        # cover [e_hi, ∞)
        t2 = time.perf_counter()
        try:
            out = spd_cover(metric, b, e_hi, e_end, tol, progress, prov)
            break
        except PrecisionLimitReached as exc:
            # the float estimate may be low (ε* above e_hi: z < 0 there, which no precision
            # settles): when z(e_hi) is *certified* to have a negative entry, that point is
            # the new failing point and the bracket climbs from it
            up = spd_fail_point(metric, b, e_hi, prov) if grid_route else None
            if up is None:
                raise
            report(progress, "cover", f"z(ε) fails at ε = {float(e_hi):.12f} (the float "
                   "estimate was low): moving the bracket up")
            if rnd + 1 == _BRACKET_ROUNDS:
                raise PrecisionLimitReached(
                    f"z(ε) is certified to have a negative entry at ε = {float(e_hi):.15g} "
                    f"(so ε* lies above it) after {_BRACKET_ROUNDS} rounds of moving the bracket "
                    "up: the bracket is low, not a precision limit; the float search "
                    "misplaced ε* (ill-conditioned Φ?). Ask for a wider tol."
                ) from exc
            e_lo, e_hi, fail = _climb(metric, b, e_hi, up, tol, prov, progress)
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


def _climb(metric: FiniteMetric, b: tuple[Fraction, ...], e: Fraction, fail: Any,
           tol: Fraction, prov: PhiProvider,
           progress: Progress) -> tuple[Fraction, Fraction, Any]:
    """(e_lo, e_hi, fail) above a certified failing point ``e``: steps tol, 2tol, 4tol, …
    up while z stays certified negative, then bisects on certified signs to width tol/4
    (e_lo keeps its certificate; e_hi is tol/2 above the first point not certified failing)."""
    step = tol
    for _ in range(200):
        nxt = short_rational(e + step, tol / 16, +1)
        f = spd_fail_point(metric, b, nxt, prov)
        if f is None:
            break
        e, fail, step = nxt, f, 2 * step
    hi = e + step
    while hi - e > tol / 4:
        mid = short_rational((e + hi) / 2, tol / 16, -1)
        f = spd_fail_point(metric, b, mid, prov) if e < mid < hi else None
        if f is None:
            hi = mid if e < mid < hi else e + (hi - e) / 2
        else:
            e, fail = mid, f
    report(progress, "fail point", f"certified at ε = {float(e):.12f} (bracket moved up)")
    return e, short_rational(hi + tol / 2, tol / 16, +1), fail


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
    far = next((ef - tol * 2**k for k in range(1, 41) if ef - tol * 2**k > 0
                and spd_fail_point(metric, b, short_rational(ef - tol * 2**k, tol, -1), prov)
                is not None), None) if grid_route else None
    if far is not None:
        raise PrecisionLimitReached(
            f"z(ε) is certified negative at ε ≈ {float(far):.15g} but at no point within "
            f"{float(11 * tol / 8):.3g} below the float estimate {float(ef):.15g} of ε*: "
            "there |min z| is below the point bound's resolution (about 2^-52·max|z|, large "
            f"when the prior is very uneven). Ask for tol ≥ {float(2 * (ef - far)):.3g}.")
    raise PrecisionLimitReached(
        "could not certify a failing point just below the float estimate of ε*: either the "
        "float search is unreliable here (ill-conditioned Φ?) or min z is below the point "
        "bound's resolution there; try a wider tol."
    )
