"""Certified route edge cases: thresholds beyond ε ≈ 3.9, and honest precision limits."""

from fractions import Fraction as F

import pytest

from exactdp.errors import PrecisionLimitReached
from exactdp.metrics import sum_query
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


def test_too_fine_tolerance_says_double_precision_is_the_limit():
    m = sum_query(3, 2)
    prior = _skewed_prior(m.n, F(1, 10**6))
    # near ε* ≈ 14.5 min z grows like 1e-7·(ε − ε*): a 1e-9 bracket is below float resolution
    with pytest.raises(PrecisionLimitReached, match="double precision"):
        epsilon_threshold(m, prior, method="certified")
