"""Exact thresholds: hand-derived cases, float bisection, certified route, certificates."""

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from exactdp.spaces.metrics import cycle, discrete, from_graph, hamming, line, sum_query
from exactdp.threshold import (
    epsilon_threshold,
    regular_epsilons,
    tight_constraints_epsilons,
)

F = Fraction
TOL = F(1, 10**9)


def _contains_float(res, value):
    return float(res.eps_lower) - 1e-15 <= value <= float(res.eps_upper) + 1e-15


# --- hand-derived (proofs/threshold_sum_query_2_2.py, proofs/threshold_discrete_prior.py) -----
def test_sum_query_2_2_is_log_golden_ratio():
    res = epsilon_threshold(sum_query(2, 2))
    assert res.method == "exact"
    assert res.exact.minimal_polynomial == (-1, 1, 1)  # s² + s − 1
    assert res.eps_upper - res.eps_lower <= TOL
    assert _contains_float(res, math.log((1 + math.sqrt(5)) / 2))
    assert res.certificate.verify()
    assert res.eps_set.monotone


@pytest.mark.parametrize("k, p", [
    (3, [F(1, 2), F(1, 4), F(1, 4)]),
    (4, [F(3, 10), F(27, 100), F(23, 100), F(1, 5)]),
    (5, [F(1, 3), F(1, 6), F(1, 6), F(1, 6), F(1, 6)]),
    (2, [F(9, 10), F(1, 10)]),
])
def test_discrete_prior_family(k, p):
    pmin = min(p)
    t_star = pmin / (1 - (k - 1) * pmin)  # hand-derived
    res = epsilon_threshold(discrete(k), p)
    assert res.exact is not None and res.exact.compare(t_star) == 0
    lo, hi = float(res.eps_lower), float(res.eps_upper)
    assert lo <= -math.log(t_star) <= hi
    assert res.certificate.verify()


def test_example3_kronecker_is_ln2_not_048():
    p = [F(3, 10), F(27, 100), F(23, 100), F(1, 5)]
    prior = [math.prod(c) for c in itertools.product(p, repeat=5)]
    res = epsilon_threshold(hamming(4, 5), prior)
    assert res.method.startswith("kronecker")
    assert res.exact.as_fraction() == F(1, 2)  # t* = 1/2, ε* = ln 2
    assert float(res.eps_lower) <= math.log(2) <= float(res.eps_upper)
    assert res.certificate.verify()
    # independent float check on the full 1024-point space: not regular at 0.6, regular at 0.7
    D = hamming(4, 5).distance_matrix_float()
    pri = np.array([float(v) for v in prior])
    for eps, regular in ((0.6, False), (0.7, True)):
        alpha = np.linalg.solve(np.exp(-eps * D), pri)
        assert (alpha.min() >= 0) == regular


def test_example3_exact_route_without_structure():
    p = [F(3, 10), F(27, 100), F(23, 100), F(1, 5)]
    prior = [a * b for a, b in itertools.product(p, repeat=2)]
    res = epsilon_threshold(hamming(4, 2), prior, method="exact")
    assert res.method == "exact" and res.exact.as_fraction() == F(1, 2)


def test_prop9_symmetric_spaces_hold_everywhere():
    for m in (cycle(7), hamming(3, 3)):
        res = epsilon_threshold(m)
        assert res.method == "prop9" and res.holds_everywhere and res.certificate.verify()
        # cross-check with the exact route: the exact set is every ε > 0
        S = tight_constraints_epsilons(m)
        assert len(S.intervals) == 1 and S.intervals[0].s_hi is None and S.intervals[0].s_lo is None


def test_line_holds_everywhere_exactly():
    res = epsilon_threshold(line(7))
    assert res.holds_everywhere and res.method == "exact" and res.certificate.verify()


# --- agreement with float bisection ---------------------------------------------------------
def _float_threshold(metric, b=None):
    D = metric.distance_matrix_float()
    rhs = np.ones(metric.n) if b is None else np.array([float(v) for v in b])

    def holds(eps):
        return np.linalg.solve(np.exp(-eps * D), rhs).min() >= 0

    ts = np.linspace(0.01, 0.99, 99)
    prev = None
    for t in ts:
        if not holds(-math.log(t)):
            break
        prev = t
    else:
        return 0.0
    lo, hi = prev, t
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if holds(-math.log(mid)) else (lo, mid)
    return -math.log((lo + hi) / 2)


@pytest.mark.parametrize("metric", [sum_query(2, 3), sum_query(3, 5), sum_query(4, 2),
                                    from_graph([(0, 1), (1, 2), (2, 3), (3, 0), (0, 2), (3, 4)])])
def test_exact_agrees_with_float_bisection(metric):
    res = epsilon_threshold(metric)
    f = _float_threshold(metric)
    assert abs(f - float(res.eps_lower)) < 1e-8
    assert res.certificate.verify()


def test_exact_and_certified_routes_agree():
    m = sum_query(4, 3)
    ex = epsilon_threshold(m, method="exact")
    ce = epsilon_threshold(m, method="certified")
    assert ce.exact is None and ce.method.startswith("certified")
    assert ex.eps_lower <= ce.eps_upper and ce.eps_lower <= ex.eps_upper  # enclosures overlap
    assert ce.certificate.verify() and ex.certificate.verify()


def test_certified_prior_route():
    m = sum_query(3, 2)
    prior = [F(k + 1, 28) for k in range(m.n)]
    ex = epsilon_threshold(m, prior, method="exact")
    ce = epsilon_threshold(m, prior, method="certified")
    assert ex.eps_lower <= ce.eps_upper and ce.eps_lower <= ex.eps_upper
    assert ce.certificate.verify()


def test_tampered_certificates_fail():
    import dataclasses

    res = epsilon_threshold(sum_query(3, 5))
    c = res.certificate
    too_low = dataclasses.replace(c, eps_upper=c.eps_lower - F(1, 100))  # claims too much
    assert not too_low.verify()
    too_high = dataclasses.replace(c, eps_lower=c.eps_upper + F(1, 100))  # fails there? no
    assert not too_high.verify()


# --- exact sets ------------------------------------------------------------------------------
def test_regular_epsilons_discrete():
    S = regular_epsilons(discrete(3), ["1/2", "1/4", "1/4"])
    assert S.monotone and len(S.intervals) == 1
    iv = S.intervals[0]
    assert iv.s_lo is None and iv.s_hi.as_fraction() == F(1, 2) and iv.s_hi_closed


def test_sets_are_consistent_with_thresholds():
    for u in (2, 3, 5):
        m = sum_query(u, 5)
        S = tight_constraints_epsilons(m)
        res = epsilon_threshold(m)
        lo_bounds = S.intervals[0].eps_lower_bounds()
        assert S.intervals[0].s_lo is None  # the last piece reaches ε → ∞
        assert lo_bounds[0] <= res.eps_upper and res.eps_lower <= lo_bounds[1]


def test_euclidean_grid_certified_agrees_with_float():
    from exactdp.spaces.metrics import grid

    g = grid(4, 4, "euclidean")
    res = epsilon_threshold(g)
    assert res.method.startswith("certified") and res.exact is None
    assert abs(_float_threshold(g) - float(res.eps_lower)) < 1e-8
    assert res.certificate.verify()
