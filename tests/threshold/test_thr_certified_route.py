"""Certified route edge cases: thresholds beyond ε ≈ 3.9, and honest precision limits."""

from fractions import Fraction as F

import pytest

from exactdp.errors import PrecisionLimitReached
from exactdp.spaces.metrics import sum_query
from exactdp.threshold import epsilon_threshold


def _skewed_prior(n: int, small: F) -> list[F]:
    p = [small] + [F(1)] * (n - 1)
    s = sum(p)
    return [x / s for x in p]


def test_large_threshold_found_below_t_002_and_matches_exact():
    m = sum_query(3, 2)
    prior = _skewed_prior(m.n, F(1, 10**6))  # ε* ≈ 14.5: the float scan must go below t = 0.02
    exact = epsilon_threshold(m, prior, method="exact")
    assert exact.eps_lower > 14
    cert = epsilon_threshold(m, prior, method="certified", tol=F(1, 10**4))
    assert cert.certificate.verify()
    assert cert.eps_lower <= exact.eps_upper and exact.eps_lower <= cert.eps_upper


def test_tol_1e9_at_eps_14_is_certified():
    m = sum_query(3, 2)
    prior = _skewed_prior(m.n, F(1, 10**6))
    # near ε* ≈ 14.5 (t ≈ 5e-7) min z grows like 1e-7·(ε − ε*); this raised "double
    # precision" while the float search stopped at an absolute 2e-14 in t (≈ 4e-8 in ε);
    # with a relative stop (review 15C9 M1) the 1e-9 bracket is certified
    exact = epsilon_threshold(m, prior, method="exact")
    cert = epsilon_threshold(m, prior, method="certified")
    assert cert.certificate.verify() and cert.eps_upper - cert.eps_lower <= F(1, 10**9)
    assert cert.eps_lower <= exact.eps_upper and exact.eps_lower <= cert.eps_upper


def test_prior_entry_below_double_range_is_a_precision_limit_not_never_holds():
    from exactdp.spaces.metrics import line

    p = [F(1, 10**400), F(1), F(1), F(1)]
    s = sum(p)
    p = [x / s for x in p]
    exact = epsilon_threshold(line(4), p, method="exact")
    assert 900 < exact.eps_lower < 1000  # finite: "never holds" would be false
    with pytest.raises(PrecisionLimitReached):
        epsilon_threshold(line(4), p, method="certified", eps_max=1000)


def test_tolerance_wider_than_threshold_stays_inside_positive_eps():
    m = sum_query(2, 3)
    r = epsilon_threshold(m, method="certified", tol=10)
    exact = epsilon_threshold(m, method="exact")
    assert 0 < r.eps_lower <= exact.eps_lower and exact.eps_upper <= r.eps_upper
    assert r.eps_upper - r.eps_lower <= 10
    assert r.certificate.verify()


def test_malformed_certificates_are_rejected_not_raised():
    import dataclasses

    import numpy as np

    from exactdp.threshold.exact_checks import exact_piece_check

    r = epsilon_threshold(sum_query(4, 3), method="certified")
    c = r.certificate
    assert not dataclasses.replace(c, order=-1).verify()
    a, b, lam = c.pieces[0]
    assert not dataclasses.replace(c, pieces=((b, a, lam),) + c.pieces[1:]).verify()
    # a negative λ must never certify anything (the squared comparison would)
    ones = np.ones((c.metric.n, 1))
    assert not exact_piece_check(c.metric, c.rhs, c.eps_lower, c.eps_lower, 0, F(-10**30), ones)
