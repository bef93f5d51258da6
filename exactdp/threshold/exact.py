"""The exact algebraic route (polynomial case): the whole ε-set and ε* as an algebraic number.

z(s) is computed as exact rational functions of s = e^{-ε/q}
(:mod:`exactdp.algebra.symbolic`), the real roots of every numerator and of the
denominator on (0, 1) are isolated exactly, and signs are propagated exactly. This gives
the exact ε-set (:class:`~exactdp.threshold.results.EpsilonSet`), the threshold as an
algebraic number s* (ε* = −q·ln s*), and an
:class:`~exactdp.threshold.certificates.ExactThresholdCertificate` that re-checks the
identity Φ(s)N(s) = D(s)b and the absence of sign changes.

Examples
--------
>>> from fractions import Fraction
>>> from exactdp.spaces.metrics import sum_query
>>> res, eps_set = exact_route(sum_query(2, 2), None, Fraction(1, 10**6), None, [], 160)
>>> res.exact.minimal_polynomial, eps_set.monotone
((-1, 1, 1), True)
"""

from __future__ import annotations

import math
import time
from dataclasses import replace
from fractions import Fraction

import numpy as np

from exactdp.algebra.algebraic import AlgebraicNumber
from exactdp.algebra.symbolic import SignPattern, sign_pattern, solve_symbolic
from exactdp.errors import (
    InstanceTooLarge,
    InvalidArgument,
    InvalidPrior,
    PrecisionLimitReached,
    PropertyNeverHolds,
    ToleranceTooFine,
)
from exactdp.kernel.threshold import CHECK_PRECISIONS
from exactdp.kinds import proved_by
from exactdp.progress import Progress, report
from exactdp.spaces.distances import Distance
from exactdp.spaces.metrics import FiniteMetric
from exactdp.threshold.certificates import ExactThresholdCertificate, s_enclosure_of_eps
from exactdp.threshold.exact_certificate import (
    MAX_EXPANDED_DEGREE,
    ScaledExactCertificate,
    scaled_question,
    short_name,
    unit_text,
)
from exactdp.threshold.results import (
    DEFAULT_TOL,
    EpsilonInterval,
    EpsilonSet,
    ScaledThresholdResult,
    ThresholdResult,
    eps_enclosure,
    property_name,
    short_rational,
)

__all__ = ["exact_route", "exact_set", "set_from_pattern", "exponent_stride", "unit_metric", "unit_text",
           "exact_threshold", "ScaledExactCertificate", "ScaledThresholdResult", "MAX_EXPANDED_DEGREE",
           "checkable_width", "too_fine", "threshold_enclosure", "unit_tol"]



def set_from_pattern(pat: SignPattern, q: int, prop: str, method: str,
                     seconds: float) -> EpsilonSet:
    """Turn the s-pattern into ε-intervals (increasing ε = decreasing s)."""
    # walk s from 0 to 1, collect holding runs in s
    runs: list[tuple[AlgebraicNumber | None, bool, AlgebraicNumber | None, bool]] = []
    cur_start: AlgebraicNumber | None = None
    cur_closed = False
    open_run = pat.gaps[0]
    singular: list[AlgebraicNumber] = []
    for k, bp in enumerate(pat.breakpoints):
        nxt = pat.gaps[k + 1]
        if bp.status == "singular":
            singular.append(bp.s)
        here = bp.status == "holds"
        if open_run:
            if here and nxt:
                continue
            runs.append((cur_start, cur_closed, bp.s, here))
            open_run = False
        if not open_run:
            if nxt:
                cur_start, cur_closed, open_run = bp.s, here, True
            elif here and not (runs and runs[-1][2] is bp.s):
                runs.append((bp.s, True, bp.s, True))  # isolated point
    if open_run:
        runs.append((cur_start, cur_closed, None, False))
    intervals = [EpsilonInterval(a, b, ac, bc, q) for a, ac, b, bc in reversed(runs)]
    monotone = len(intervals) <= 1 and (not intervals or intervals[0].s_lo is None)
    return EpsilonSet(tuple(intervals), tuple(singular), monotone, prop, method, seconds, q)


def checkable_width(eps: Fraction, q: int) -> Fraction:
    """The finest width of an ε-enclosure near ε the kernel's ``exact`` check resolves:
    it encloses s = e^(-ε/q) with arb at up to ``CHECK_PRECISIONS[-1]`` = 8192 bits, so ε/q
    to about 2^-8192·max(1, ε/q); 64 bits of margin on top.

    >>> checkable_width(Fraction(1), 1) == Fraction(1, 2**8128)
    True
    """
    return Fraction(max(q, math.ceil(eps)), 2 ** (CHECK_PRECISIONS[-1] - 64))


def too_fine(name: str, tol: Fraction, finest: Fraction, eps: Fraction, scale: Fraction) -> ToleranceTooFine:
    """The refusal of a ``tol`` below :func:`checkable_width` (all in the asked metric's ε,
    the route's values divided by ``scale``)."""
    tol, finest, eps = tol / scale, finest / scale, eps / scale
    name = short_name(name)
    k = math.ceil(math.log10(finest.numerator) - math.log10(finest.denominator))
    fix = f"Fraction(10**{k})" if k >= 0 else f"Fraction(1, 10**{-k})"
    unit = ("" if scale == 1 else f" (its distances are multiples of c = {unit_text(scale)}: ε* is "
            f"solved as ε*(unit metric)/c, so the unit metric would need width tol·c = "
            f"{unit_text(tol * scale)})")
    return ToleranceTooFine(
        f"{name}: tol = {unit_text(tol)} asks for ε* (≤ {unit_text(eps)}) to an absolute width "
        f"the kernel's exact check cannot resolve{unit}; it encloses s = e^(-ε/q) to at most "
        f"{CHECK_PRECISIONS[-1]} bits, i.e. ε to widths down to {unit_text(finest)} here, so the certificate "
        f"would not verify and none is returned. Pass a coarser absolute tol, e.g. tol={fix} "
        f"(relative width {unit_text(finest / eps) if eps else '?'}; that is all the "
        "kernel can check).")


def threshold_enclosure(s_star: AlgebraicNumber, q: int, tol: Fraction,
                        nxt_lo: Fraction) -> tuple[Fraction, Fraction, AlgebraicNumber]:
    """(e_lo, e_hi, s*) with e_lo ≤ ε* = −q·ln s* ≤ e_hi, e_hi − e_lo ≤ tol, short dyadic
    ends, and s = e^(-e_lo/q) below ``nxt_lo`` (the next breakpoint: e_lo must fail).

    >>> s = AlgebraicNumber((-1, 1, 1), (Fraction(1, 2), Fraction(1)))  # s² + s − 1 = 0
    >>> lo, hi, _ = threshold_enclosure(s, 1, Fraction(1, 10**6), Fraction(1))
    >>> lo < Fraction(481211825, 10**9) < hi and hi - lo <= Fraction(1, 10**6)
    True
    """
    if s_star.width > 0 and s_star.isolating_interval[0] > 0:  # ε = −q·ln s: width_ε ≈ q·width_s/s
        s_star = s_star.refine(tol * s_star.isolating_interval[0] / (8 * q))  # one bisection run
    inner = tol / 4
    while True:
        e_lo, e_hi = eps_enclosure(s_star, q, inner)
        e_lo = short_rational(e_lo, tol / 8, -1)
        e_hi = short_rational(e_hi, tol / 8, +1)
        if s_enclosure_of_eps(e_lo, q)[1] < nxt_lo:  # s at eps_lower below the next breakpoint
            return e_lo, e_hi, s_star
        if s_star.width > 0:  # a rational s* is exact already (refine(0) would raise)
            s_star = s_star.refine(s_star.width / 16)
        inner = inner / 4


def exact_route(metric: FiniteMetric, rhs: tuple[Fraction, ...] | None, tol: Fraction,
                progress: Progress, timings: list[tuple[str, float]],
                max_exact_n: int, *, scale: Fraction = Fraction(1),
                asked: str | None = None) -> tuple[ThresholdResult, EpsilonSet]:
    """ε* enclosed within ``tol`` from the exact z(s), with the whole exact ε-set.

    ``timings`` receives (stage, seconds) pairs. ``scale`` and ``asked`` only word the
    ToleranceTooFine message when ``metric`` is another metric divided by ``scale``
    (:func:`exact_threshold`).

    Raises
    ------
    PropertyNeverHolds
        The property fails for every large ε.
    PrecisionLimitReached
        The first change of the property is at a pole of z(s) or an isolated point.
    ToleranceTooFine
        ``tol`` is below :func:`checkable_width` at ε*: the certificate would not verify.
    """
    t0 = time.perf_counter()
    sol = solve_symbolic(metric, rhs, max_n=max_exact_n, progress=progress)
    timings.append(("symbolic z(s)", time.perf_counter() - t0))
    t1 = time.perf_counter()
    pat = sign_pattern(sol, progress=progress)
    timings.append(("root isolation + signs", time.perf_counter() - t1))
    q = sol.q
    prop = property_name(rhs)
    eps_set = set_from_pattern(pat, q, prop, "exact", time.perf_counter() - t0)
    if not pat.gaps[0]:
        sample = pat.gap_samples[0]
        i = pat.gap_witness[0]
        raise PropertyNeverHolds(
            f"On {short_name(metric.name)}, {prop} for no large ε: z_{i}(s) < 0 on the whole first "
            f"interval of s = e^(-ε/{q}) (exactly, e.g. at s = {sample}: "
            f"z_{i} = {sol.value_at(sample)[i] if i is not None else '?'}); "
            "a prior with a zero entry is never regular (Prop. 1).",
            evidence=eps_set,
        )
    # first breakpoint where the property stops holding (on it or just after it)
    star = None
    for k, bp in enumerate(pat.breakpoints):
        if bp.status != "holds" or not pat.gaps[k + 1]:
            star = k
            break
    elapsed = time.perf_counter() - t0
    if star is None:
        cert = ExactThresholdCertificate(sol, Fraction(0), Fraction(0), None, None)
        res = ThresholdResult(metric.name, rhs, Fraction(0), Fraction(0), cert, None, q,
                              "exact", elapsed, tuple(timings), prop, eps_set)
        return res, eps_set
    bp = pat.breakpoints[star]
    if bp.status == "singular":
        raise PrecisionLimitReached(
            f"z(s) has a pole at s ≈ {float(bp.s):.12g} (Φ singular) before any sign change; "
            "the exact route cannot decide the property there. Use method='certified'."
        )
    if pat.gaps[star + 1]:
        raise PrecisionLimitReached(
            f"the property fails only at the isolated point s ≈ {float(bp.s):.12g}; no "
            "rational eps_lower can witness it. The exact ε-set is in .eps_set.",
        )
    e_rough = eps_enclosure(bp.s, q, Fraction(1))[1]
    finest = checkable_width(e_rough, q)
    if tol < finest:
        raise too_fine(metric.name if asked is None else asked, tol, finest, e_rough, scale)
    fail_i = pat.gap_witness[star + 1]
    nxt_lo = (pat.breakpoints[star + 1].s.isolating_interval[0]
              if star + 1 < len(pat.breakpoints) else Fraction(1))
    t2 = time.perf_counter()
    e_lo, e_hi, s_star = threshold_enclosure(bp.s, q, tol, nxt_lo)
    cert = ExactThresholdCertificate(sol, e_lo, e_hi, fail_i, s_star)
    timings.append(("threshold enclosure", time.perf_counter() - t2))
    res = ThresholdResult(metric.name, rhs, e_lo, e_hi, cert, s_star, q, "exact",
                          time.perf_counter() - t0, tuple(timings), prop, eps_set)
    return res, eps_set


def exact_set(metric: FiniteMetric, rhs: tuple[Fraction, ...] | None, max_n: int,
              progress: Progress) -> EpsilonSet:
    """The exact ε-set of the property (polynomial case)."""
    if metric.q is None:
        raise InvalidArgument(
            f"{metric.name} has irrational distances: the exact ε-set needs the polynomial "
            "case. Use epsilon_threshold (certified) instead."
        )
    if rhs is not None and min(rhs) < 0:
        raise InvalidPrior("prior entries must be ≥ 0")
    t0 = time.perf_counter()
    sol = solve_symbolic(metric, rhs, max_n=max_n, progress=progress)
    pat = sign_pattern(sol, progress=progress)
    return set_from_pattern(pat, sol.q, property_name(rhs), "exact", time.perf_counter() - t0)


def exponent_stride(metric: FiniteMetric) -> int:
    """g = gcd of the exponents q·d (polynomial case; 1 when there is no positive distance).

    Every entry of Φ is then a power of u = s^g = e^{-ε·g/q}: a grid with spacing 7/2 has
    q = 2 and exponents 7k, so g = 7; one with spacing 1000 has g = 1000.

    >>> from exactdp.spaces.metrics import grid, line
    >>> exponent_stride(grid(3, 3, "manhattan", spacing=Fraction(7, 2))), exponent_stride(line(4))
    (7, 1)
    """
    return math.gcd(*metric.exponents) or 1


def unit_tol(tol: Fraction, c: Fraction) -> Fraction:
    """The tol for d′ = d/c: min(tol·c, 10⁻⁹ = ``DEFAULT_TOL``). An inner width ≤ tol·c gives
    an outer one ≤ tol (ε = ε′/c); the unit enclosure is never coarser than 10⁻⁹ (at c = 10^40
    tol·c = 10^31 would allow a useless one) and never finer than asked (an absolute tol is a
    relative width of ε* ≈ ε′*/c: reading it as a unit tol asked c times too much at c > 1).

    >>> unit_tol(Fraction(1, 10**16), Fraction(10**7)), unit_tol(DEFAULT_TOL, Fraction(1, 10**9))
    (Fraction(1, 1000000000), Fraction(1, 1000000000000000000))
    """
    return min(tol * c, DEFAULT_TOL)


@proved_by("grid_spacing_scaling")
def unit_metric(metric: FiniteMetric) -> tuple[FiniteMetric, Fraction]:
    """(m', c): the same points and index with every distance divided by the unit
    c = g/q (:func:`exponent_stride`), so d = c·d' and Φ_metric(ε) = Φ_m'(c·ε) entrywise;
    m' has q = 1 and exponents q·d/g (``proofs/grid_spacing_scaling.py``).

    >>> from exactdp.spaces.metrics import grid
    >>> m1, c = unit_metric(grid(2, 2, "manhattan", spacing=1000))
    >>> c, m1.q, m1.exponents
    (Fraction(1000, 1), 1, (0, 1, 2))
    """
    q = metric.q
    if q is None:
        raise InvalidArgument(f"{metric.name} has irrational distances: no common unit.")
    c = Fraction(exponent_stride(metric), q)
    cs = unit_text(c)
    values = [Distance(v.coef / c, v.radicand) for v in metric.values]
    m1 = FiniteMetric(f"{short_name(metric.name)} in units of {cs}", metric.points, values,
                      np.asarray(metric.index))
    return m1, c


def exact_threshold(metric: FiniteMetric, rhs: tuple[Fraction, ...] | None, tol: Fraction,
                    progress: Progress, timings: list[tuple[str, float]],
                    max_exact_n: int) -> ThresholdResult:
    """The exact route's threshold, with the distances first put in units of their common
    factor c = g/q when g = :func:`exponent_stride` > 1 (a grid with spacing 7/2 or 1000:
    z(s) then has degree g times smaller). ε*(metric) = ε*(m')/c exactly
    (``proofs/grid_spacing_scaling.py``); the certificate
    (:class:`ScaledExactCertificate`) stays bound to ``metric``.

    >>> from exactdp.spaces.metrics import line_scaled
    >>> r = exact_threshold(line_scaled(5, Fraction(1000)), None, Fraction(1, 10**9), None, [], 160)
    >>> r.holds_everywhere, r.certificate.scale, r.verify()
    (True, Fraction(1000, 1), True)

    Raises InstanceTooLarge when no document can hold ``metric`` (the kernel reads
    distances below 10^300 in a metric encoding; a library grid travels as its shape),
    ToleranceTooFine when ``tol`` is below :func:`checkable_width`
    of the unit metric divided by c (a tiny spacing at the default tol: the message names
    the finest tol), and what :func:`exact_route` raises.
    """
    g = exponent_stride(metric)
    if metric.q is None or g == metric.q:  # irrational (refused below), or already in unit 1
        return exact_route(metric, rhs, tol, progress, timings, max_exact_n)[0]
    m1, c = unit_metric(metric)
    cs = unit_text(c)
    report(progress, "threshold", f"{short_name(metric.name)}: distances are multiples of {cs}; solving "
           "in that unit (ε* scales by 1/c)")
    units = (f" [solved with every distance of {short_name(metric.name)} divided by c = {cs}: the ε and "
             f"s = e^(-ε) above are the unit metric's; in your units ε = (that ε)/{cs} and "
             f"s = e^(-ε/{metric.q}) = (that s)^(1/{g})]")
    try:  # the certificate's document must be readable: refuse up front (distances ≥ 10^300,
        # not a library grid, whose shape travels at any spacing)
        scaled_question(metric, (Fraction(1),) * metric.n, False)  # the metric only (rhs errors are the route's)
    except InstanceTooLarge as err:
        raise InstanceTooLarge(f"{err} Solve the unit metric instead: m1, c = "
                               "exactdp.threshold.exact.unit_metric(metric); its certificate is "
                               "portable and ε*(metric) = ε*(m1)/c exactly "
                               "(proofs/grid_spacing_scaling.py).") from err
    try:
        inner, inner_set = exact_route(m1, rhs, unit_tol(tol, c), progress, timings, max_exact_n, scale=c,
                                       asked=metric.name)
    except ToleranceTooFine:
        raise  # worded in the asked metric's ε already
    except PropertyNeverHolds as err:
        raise PropertyNeverHolds(f"{err}{units}; .evidence is the unit metric's ε-set (divide "
                                 f"its ε by {cs})", evidence=err.evidence) from err
    except PrecisionLimitReached as err:
        raise PrecisionLimitReached(f"{err}{units}") from err
    cert = ScaledExactCertificate(metric, rhs, c, inner.certificate, inner.eps_lower / c,
                                  inner.eps_upper / c)
    # every ε divided by c (s stays the unit metric's); g = 1: s' = e^(-ε') = e^(-ε/q) is the
    # metric's own s, so the set carries over as it is, with q
    eps_set = inner_set.scaled(c) if g != 1 else replace(inner_set, q=metric.q, intervals=tuple(
        replace(i, q=metric.q) for i in inner_set.intervals))
    return ScaledThresholdResult(metric.name, rhs, cert.eps_lower, cert.eps_upper, cert, None,
                                 metric.q, f"exact (distances in units of {cs})", inner.seconds,
                                 inner.timings, inner.question, eps_set)
