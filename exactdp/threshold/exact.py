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

import time
from fractions import Fraction

from exactdp.algebra.algebraic import AlgebraicNumber
from exactdp.algebra.symbolic import SignPattern, sign_pattern, solve_symbolic
from exactdp.errors import InvalidArgument, InvalidPrior, PrecisionLimitReached, PropertyNeverHolds
from exactdp.progress import Progress
from exactdp.spaces.metrics import FiniteMetric
from exactdp.threshold.certificates import ExactThresholdCertificate, s_enclosure_of_eps
from exactdp.threshold.results import (
    EpsilonInterval,
    EpsilonSet,
    ThresholdResult,
    eps_enclosure,
    property_name,
    short_rational,
)

__all__ = ["exact_route", "exact_set", "set_from_pattern"]


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


def exact_route(metric: FiniteMetric, rhs: tuple[Fraction, ...] | None, tol: Fraction,
                progress: Progress, timings: list[tuple[str, float]],
                max_exact_n: int) -> tuple[ThresholdResult, EpsilonSet]:
    """ε* enclosed within ``tol`` from the exact z(s), with the whole exact ε-set.

    ``timings`` receives (stage, seconds) pairs.

    Raises
    ------
    PropertyNeverHolds
        The property fails for every large ε.
    PrecisionLimitReached
        The first change of the property is at a pole of z(s) or an isolated point.
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
            f"On {metric.name}, {prop} for no large ε: z_{i}(s) < 0 on the whole first "
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
    fail_i = pat.gap_witness[star + 1]
    nxt_lo = (pat.breakpoints[star + 1].s.isolating_interval[0]
              if star + 1 < len(pat.breakpoints) else Fraction(1))
    s_star = bp.s
    inner = tol / 4
    while True:
        e_lo, e_hi = eps_enclosure(s_star, q, inner)
        e_lo = short_rational(e_lo, tol / 8, -1)
        e_hi = short_rational(e_hi, tol / 8, +1)
        # s at eps_lower must stay below the next breakpoint
        _, s_at_lower = s_enclosure_of_eps(e_lo, q)
        if s_at_lower < nxt_lo:
            break
        if s_star.width > 0:  # a rational s* is exact already (refine(0) would raise)
            s_star = s_star.refine(s_star.width / 16)
        inner = inner / 4
    t2 = time.perf_counter()
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
