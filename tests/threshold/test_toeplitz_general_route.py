"""The exact Toeplitz threshold route (exactdp.threshold.toeplitz_general) against the exact route."""

import math
from dataclasses import replace
from fractions import Fraction

import numpy as np
import pytest

from exactdp.spaces.distances import Distance
from exactdp.spaces.metrics import cycle, from_matrix, line, sum_query
from exactdp.spaces.metrics.space import FiniteMetric
from exactdp.threshold.exact import exact_route
from exactdp.threshold.toeplitz_general import toeplitz_general_route

TOL = Fraction(1, 10**9)


def ceil_sqrt(n: int) -> FiniteMetric:
    f = np.array([0] + [math.isqrt(k - 1) + 1 for k in range(1, n)])
    ar = np.arange(n)
    return FiniteMetric(f"ceil-sqrt({n})", range(n), [Distance.rational(v) for v in range(f.max() + 1)],
                        f[np.abs(ar[:, None] - ar[None, :])], toeplitz=True)


@pytest.mark.parametrize("m", [ceil_sqrt(18), sum_query(5, 3), line(12)], ids=str)
def test_route_matches_exact_route(m: FiniteMetric) -> None:
    got = toeplitz_general_route(m, TOL)
    want, _ = exact_route(m, None, TOL, None, [], 10**4)
    assert got is not None and got.method == "exact-toeplitz"
    assert (got.eps_lower, got.eps_upper) == (want.eps_lower, want.eps_upper)
    assert (got.exact is None) == (want.exact is None)
    if want.exact is not None:
        assert got.exact.minimal_polynomial == want.exact.minimal_polynomial
    assert got.certificate.kind == want.certificate.kind
    assert got.certificate.verify()


def test_route_declines_non_toeplitz_and_tampering_is_rejected() -> None:
    assert toeplitz_general_route(from_matrix([[0, 1, 1], [1, 0, 2], [1, 2, 0]]), TOL) is None
    res = toeplitz_general_route(cycle(6), TOL)  # circulant is Toeplitz: ε* = 0 (Prop. 9)
    assert res is not None and res.eps_upper == 0 and res.certificate.verify()
    r = toeplitz_general_route(ceil_sqrt(14), TOL)
    assert r is not None and r.certificate.verify()
    bad = replace(r.certificate, eps_upper=r.eps_lower - Fraction(1, 10**6),
                  eps_lower=r.eps_lower - Fraction(2, 10**6))
    assert not bad.verify()


def test_epsilon_threshold_uses_the_toeplitz_solve_from_its_size(monkeypatch: pytest.MonkeyPatch) -> None:
    """Wiring: at n ≥ TOEPLITZ_GENERAL_FROM_N a non-repeating Toeplitz metric's exact threshold
    comes from the Toeplitz solve, with the same answer as the generic exact route below it."""
    import exactdp.threshold.api as api
    from exactdp import epsilon_threshold

    m = ceil_sqrt(18)
    before = epsilon_threshold(m, method="exact")
    monkeypatch.setattr(api, "TOEPLITZ_GENERAL_FROM_N", 10)
    after = epsilon_threshold(m, method="exact")
    assert before.method == "exact" and after.method == "exact-toeplitz"
    assert (after.eps_lower, after.eps_upper) == (before.eps_lower, before.eps_upper)
    assert after.exact.minimal_polynomial == before.exact.minimal_polynomial
    assert after.certificate.verify()
