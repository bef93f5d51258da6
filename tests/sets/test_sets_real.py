"""Point sets with real closed-form coordinates: certified Hausdorff, capacity, privacy."""

from fractions import Fraction

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp.arithmetic.ball import sympy_to_arb, workprec
from exactdp.errors import InvalidSet
from exactdp.sets import (
    Box,
    capacity_functional,
    capacity_functional_certified,
    check_set_privacy,
    check_set_privacy_certified,
    hausdorff_distance,
    hausdorff_distance_certified,
    real_point_set,
)

coord = st.fractions(min_value=-2, max_value=2, max_denominator=4)


@st.composite
def rational_instance(draw):
    dim = draw(st.integers(1, 2))
    X = draw(st.lists(st.tuples(*[coord] * dim), min_size=1, max_size=3))
    Y = draw(st.lists(st.tuples(*[coord] * dim), min_size=1, max_size=3))
    lo = draw(st.tuples(*[coord] * dim))
    K = Box(lo, tuple(c + Fraction(1, 2) for c in lo))
    return X, Y, K


@settings(max_examples=20, deadline=None)
@given(rational_instance(), st.sampled_from(["l1", "l2", "linf"]))
def test_certified_route_agrees_with_exact_route_on_rationals(inst, nm):
    X, Y, K = inst
    assert sympy.simplify(hausdorff_distance_certified(X, Y, nm).value - hausdorff_distance(X, Y, nm).value) == 0
    a = capacity_functional_certified(X, K, 1).expr
    b = capacity_functional(X, K, 1).expr
    assert sympy.simplify(a - b) == 0


def test_irrational_point_by_hand():
    # X = {√2}, K = [0, 2]: w ∈ [−√2, 2 − √2]; F(2 − √2) − F(−√2) = 1 − ½e^{−(2−√2)} − ½e^{−√2}
    r = capacity_functional_certified(["sqrt(2)"], Box(0, 2), 1)
    s2 = sympy.sqrt(2)
    want = 1 - sympy.exp(-(2 - s2)) / 2 - sympy.exp(-s2) / 2
    assert sympy.simplify(r.expr - want) == 0
    with workprec(128):
        assert r.enclosure(128).overlaps(sympy_to_arb(want))
    assert abs(r.value_float - float(want)) < 1e-14


def test_ties_are_recognised_exactly():
    # (√2, 0) is equally far (√2) from both points of Y: an exact tie (sqrt(8) − 2√2 = 0)
    r = hausdorff_distance_certified([("sqrt(2)", 0)], [(0, 0), ("sqrt(8)", 0)], "l2")
    assert r.value == sympy.sqrt(2)
    assert r.verify()
    assert len(real_point_set([("sqrt(8)", 1), ("2*sqrt(2)", 1)])) == 1


def test_certified_privacy_check_matches_exact_on_the_counterexample():
    exact = check_set_privacy([0, Fraction(1, 4)], [0], Box(0, Fraction(1, 4)), 1)
    cert = check_set_privacy_certified([0, "1/4"], [0], Box(0, "1/4"), 1)
    assert cert.holds == exact.holds is False
    assert sympy.simplify(cert.lhs - exact.lhs) == 0 and cert.verify()
    # irrational version of the same phenomenon: X = {0, π/16}, K = [0, 1/8]
    r = check_set_privacy_certified([0, "pi/16"], [0], Box(0, "1/8"), 1)
    assert not r.holds and r.verify()
    assert check_set_privacy_certified([0, "pi/16"], [0], Box(0, "1/8"), 1, bound="points").holds


def test_real_input_errors():
    with pytest.raises(InvalidSet):
        real_point_set([])
    with pytest.raises(InvalidSet):
        real_point_set([("x", 0)])  # a free symbol is not a number
    with pytest.raises(InvalidSet):
        real_point_set([("I", 0)])  # not real
    with pytest.raises(InvalidSet):
        real_point_set([(0, float("nan"))])
    with pytest.raises(InvalidSet):
        real_point_set([(0, 0), (1,)])
