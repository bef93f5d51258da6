"""Session 11, review 15E11 fixes (session 12: the API solves such grids in their unit
instead, see ``test_scaled_threshold12.py``): the certified route refuses a smallest distance (grid
spacing) above 10^35 with a specific error naming the rescaling (it used to return a
certificate the kernel rejects at 10^41–10^45, run out of memory at 10^50, hang at 10^60
and raise a bare OverflowError at 10^300); ``_scaled_tol`` is exact; ``quotients_up`` is
finite for integers beyond 2^1024 whose quotient is a float. No timings."""

from __future__ import annotations

from fractions import Fraction

import pytest

from exactdp.errors import PrecisionLimitReached
from exactdp.spaces.metrics import grid
from exactdp.threshold import epsilon_threshold
from exactdp.threshold.certified import (
    MAX_SMALLEST_DISTANCE,
    _scaled_tol,
    refuse_far_scale,
    smallest_square,
)
from exactdp.threshold.taylor_exact import quotients_up


@pytest.mark.parametrize("power", [41, 100, 400])
def test_huge_spacing_is_solved_in_its_unit(power):
    """Session 12 (15H): the API no longer refuses; it solves grid(5, 5) at spacing 1 and
    divides (exact-scaled). The certified route itself still refuses (its guard)."""
    h = 10**power
    r = epsilon_threshold(grid(5, 5, spacing=h))
    assert r.certificate.kind.value == "exact-scaled" and r.verify()
    assert r.eps_lower * h < Fraction(66982464494, 10**11) < r.eps_upper * h
    with pytest.raises(PrecisionLimitReached) as info:
        refuse_far_scale(grid(5, 5, spacing=h))
    assert f"10^{power}." in str(info.value) and "ε*(h) = ε*(1)/h" in str(info.value)


def test_huge_spacing_on_the_matrix_free_route_is_solved_in_its_unit():
    r = epsilon_threshold(grid(5, 5, spacing=10**45), matrix_free=True)
    assert r.to_json()["evidence"]["inner"]["kind"] == "grid-threshold" and r.verify()
    assert r.eps_lower * 10**45 < Fraction(66982464494, 10**11) < r.eps_upper * 10**45


def test_limit_edge_is_exact():
    refuse_far_scale(grid(3, 3, spacing=MAX_SMALLEST_DISTANCE))  # accepted
    with pytest.raises(PrecisionLimitReached):
        refuse_far_scale(grid(3, 3, spacing=MAX_SMALLEST_DISTANCE + 1))
    # manhattan / irrational smallest distances are measured by their exact square
    assert smallest_square(grid(3, 3, "manhattan", spacing=Fraction(7, 3))) == Fraction(49, 9)


def test_spacing_at_the_limit_still_verifies():
    h = 10**35
    r = epsilon_threshold(grid(5, 5, spacing=h))
    assert r.method.startswith("certified")
    assert r.verify()
    # ε*(1) of grid(5, 5) is 0.6698246449399… (mpmath, review 15E11): ε*(h)·h contains it
    assert r.eps_lower * h < Fraction(66982464494, 10**11) < r.eps_upper * h


@pytest.mark.parametrize("power, tol_power", [(300, 9), (400, 9), (328, 330), (30, 9)])
def test_scaled_tol_is_exact_and_never_overflows(power, tol_power):
    g = grid(3, 3, spacing=10**power)
    tol = Fraction(1, 10**tol_power)
    t = _scaled_tol(g, tol)
    assert 0 < t <= tol and t * 10**power <= tol  # t ≤ tol/u
    assert t * 10**power > tol / 4  # and not needlessly fine: the largest power of 2 ≤ tol/u, halved
    assert t.numerator == 1 and t.denominator & (t.denominator - 1) == 0


def test_scaled_tol_keeps_tol_near_spacing_one():
    assert _scaled_tol(grid(3, 3), Fraction(1, 10**9)) == Fraction(1, 10**9)


@pytest.mark.parametrize("v, e", [(1 << 1100, 1100), (3**700, 1000), ((1 << 1024) + 1, 1000),
                                  (-(1 << 2999) - 12345, 2990), (7 * (1 << 2000), 2000)])
def test_quotients_up_is_finite_and_tight_beyond_2_1024(v, e):
    exact = Fraction(abs(v), 1 << e)
    u = float(quotients_up([v, 1, 0], e)[0])
    assert u != float("inf")
    assert exact <= Fraction(u) <= exact * (1 + Fraction(1, 1 << 50))


def test_quotients_up_inf_only_for_quotients_beyond_the_float_range():
    q = quotients_up([1 << 1100, 1 << 1100], 10).tolist()
    assert q == [float("inf")] * 2  # 2^1090: not a float
    assert quotients_up([1 << 1100], 10**40).tolist() == [5e-324]  # underflow: least subnormal
