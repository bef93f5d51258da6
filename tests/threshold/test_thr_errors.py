"""Bad input gives specific errors; fallbacks say which route ran."""

from fractions import Fraction

import pytest

from exactdp.algebra.symbolic import solve_symbolic
from exactdp.errors import (
    InstanceTooLarge,
    InvalidArgument,
    InvalidPrior,
    InvalidTolerance,
    PropertyNeverHolds,
)
from exactdp.spaces.metrics import grid, line, sum_query
from exactdp.threshold import epsilon_threshold, regular_epsilons

F = Fraction


@pytest.mark.parametrize("tol", [0, -1, "0", "abc", float("nan"), F(-1, 3)])
def test_bad_tolerance(tol):
    with pytest.raises(InvalidTolerance):
        epsilon_threshold(line(3), tol=tol)


def test_prior_on_wrong_space():
    with pytest.raises(InvalidPrior):
        epsilon_threshold(line(3), ["1/2", "1/2"])
    with pytest.raises(InvalidPrior):
        epsilon_threshold(line(3), ["1/2", "1/2", "1/2"])


def test_zero_prior_never_regular_with_evidence():
    with pytest.raises(PropertyNeverHolds) as info:
        epsilon_threshold(line(3), ["1/2", "1/2", "0"])
    assert "prior[2] = 0" in str(info.value) and info.value.evidence == {"zero_index": 2}


def test_eps_max_reports_never_on_range():
    with pytest.raises(PropertyNeverHolds) as info:
        epsilon_threshold(sum_query(2, 2), eps_max=F(1, 2) - F(1, 10))
    assert info.value.evidence.eps_lower >= F(2, 5)


def test_too_large_for_exact_falls_back_to_certified():
    # a prior (b ≠ 1): the structured exact route (b = 1 only) does not apply
    res = epsilon_threshold(sum_query(6, 3), "uniform", max_exact_n=10)
    assert res.method.startswith("certified") and res.exact is None
    with pytest.raises(InstanceTooLarge):
        solve_symbolic(sum_query(6, 3), max_n=10)


def test_exact_sets_need_polynomial_case():
    with pytest.raises(InvalidArgument):
        regular_epsilons(grid(2, 2, "euclidean"), ["1/4"] * 4)


def test_bad_method():
    with pytest.raises(InvalidArgument):
        epsilon_threshold(line(3), method="float")
