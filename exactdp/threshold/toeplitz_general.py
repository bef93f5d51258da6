"""The exact threshold route for symmetric Toeplitz metrics whose exponents need not repeat.

Tight constraints (b = 1) on d(i, j) = f(|i − j|) in the polynomial case: z(s) comes from
:func:`exactdp.algebra.toeplitz_general.solve_toeplitz_general` (the Toeplitz-structured
series: O(R·n) per coefficient instead of O(n²), half of z by persymmetry) instead of the
generic :func:`~exactdp.algebra.symbolic.solve_symbolic`; everything after the solve is the
generic exact route's: exact root isolation and signs (:func:`~exactdp.algebra.symbolic.sign_pattern`),
the exact ε-set, ε* = −q·ln s* as an algebraic number, and the generic
:class:`~exactdp.threshold.exact_certificate.ExactThresholdCertificate` (kind ``exact``),
whose kernel check re-proves Φ(s)N(s) = D(s)·1 without using the structure.

Examples
--------
>>> from fractions import Fraction
>>> from exactdp.spaces.metrics import sum_query
>>> res = toeplitz_general_route(sum_query(2, 2), Fraction(1, 10**6))
>>> res.exact.minimal_polynomial, res.method, res.certificate.verify()
((-1, 1, 1), 'exact-toeplitz', True)
"""

from __future__ import annotations

import time
from fractions import Fraction

from exactdp.algebra.symbolic import sign_pattern
from exactdp.algebra.toeplitz_general import (
    GENERAL_MAX_N,
    solve_toeplitz_general,
    toeplitz_exponents,
)
from exactdp.errors import PrecisionLimitReached, PropertyNeverHolds
from exactdp.progress import Progress, report
from exactdp.spaces.metrics import FiniteMetric
from exactdp.threshold.certificates import ExactThresholdCertificate
from exactdp.threshold.exact import set_from_pattern, threshold_enclosure
from exactdp.threshold.results import ThresholdResult, property_name

__all__ = ["toeplitz_general_route", "toeplitz_general_applies"]

#: The ``method`` of a result of this route.
METHOD = "exact-toeplitz"


def toeplitz_general_applies(metric: FiniteMetric, rhs: object = None) -> bool:
    """True when the route runs: b = 1 and Φ symmetric Toeplitz in the polynomial case."""
    return rhs is None and metric.n >= 2 and toeplitz_exponents(metric) is not None


def toeplitz_general_route(metric: FiniteMetric, tol: Fraction, progress: Progress = None,
                           timings: list[tuple[str, float]] | None = None,
                           max_n: int = GENERAL_MAX_N) -> ThresholdResult | None:
    """ε* of tight constraints within ``tol``, exactly, or None when the metric is not
    symmetric Toeplitz (polynomial case). Same result and certificate kind as
    :func:`exactdp.threshold.exact.exact_route` (``method`` = ``"exact-toeplitz"``).

    Raises
    ------
    PropertyNeverHolds
        Some z_i is negative for every large ε.
    PrecisionLimitReached
        The first change is at a pole of z(s) or an isolated point (as the exact route).
    """
    if not toeplitz_general_applies(metric):
        return None
    t0 = time.perf_counter()
    timings = [] if timings is None else timings
    report(progress, "threshold", "exact Toeplitz route: z(s)")
    sol = solve_toeplitz_general(metric, max_n=max_n, progress=progress)
    timings.append(("toeplitz z(s)", time.perf_counter() - t0))
    t1 = time.perf_counter()
    pat = sign_pattern(sol, progress=progress)
    timings.append(("root isolation + signs", time.perf_counter() - t1))
    q, prop = sol.q, property_name(None)
    eps_set = set_from_pattern(pat, q, prop, "exact", time.perf_counter() - t0)
    if not pat.gaps[0]:
        i = pat.gap_witness[0]
        raise PropertyNeverHolds(
            f"On {metric.name}, {prop} for no large ε: z_{i}(s) < 0 on the whole first "
            f"interval of s = e^(-ε/{q}) (exactly, e.g. at s = {pat.gap_samples[0]}).",
            evidence=eps_set)
    star = next((k for k, bp in enumerate(pat.breakpoints)
                 if bp.status != "holds" or not pat.gaps[k + 1]), None)
    if star is None:  # holds for every ε
        cert = ExactThresholdCertificate(sol, Fraction(0), Fraction(0), None, None)
        return ThresholdResult(metric.name, None, Fraction(0), Fraction(0), cert, None, q,
                               METHOD, time.perf_counter() - t0, tuple(timings), prop, eps_set)
    bp = pat.breakpoints[star]
    if bp.status == "singular" or pat.gaps[star + 1]:
        raise PrecisionLimitReached(
            f"the first change of the property on {metric.name} is at a pole of z(s) or an "
            f"isolated point (s ≈ {float(bp.s):.12g}); use method='certified'.")
    fail_i = pat.gap_witness[star + 1]
    nxt_lo = (pat.breakpoints[star + 1].s.isolating_interval[0]
              if star + 1 < len(pat.breakpoints) else Fraction(1))
    e_lo, e_hi, s_star = threshold_enclosure(bp.s, q, tol, nxt_lo)  # the exact route's enclosure
    cert = ExactThresholdCertificate(sol, e_lo, e_hi, fail_i, s_star)
    return ThresholdResult(metric.name, None, e_lo, e_hi, cert, s_star, q, METHOD,
                           time.perf_counter() - t0, tuple(timings), prop, eps_set)
