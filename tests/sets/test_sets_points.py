"""Point sets, norms, exact Hausdorff distance and diameter (issue 6, part 1)."""

from fractions import Fraction

import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp.arithmetic.ball import sympy_to_arb, workprec
from exactdp.sets import diameter, distance, hausdorff_distance, point_set, region_diameter
from exactdp.sets._boxes import Box

NORMS = ["l1", "l2", "linf"]

coord = st.fractions(min_value=-3, max_value=3, max_denominator=4)


def points(dim):
    return st.lists(st.tuples(*[coord] * dim), min_size=1, max_size=4)


@st.composite
def set_triples(draw):
    dim = draw(st.integers(1, 3))
    return dim, draw(points(dim)), draw(points(dim)), draw(points(dim))


# ---- hand cases ------------------------------------------------------------------------


def test_hausdorff_hand_cases():
    # {0} vs {0, 10}: the point 10 is 10 away from {0}; 0 is at distance 0 from {0, 10}.
    for nm in NORMS:
        r = hausdorff_distance([0], [0, 10], nm)
        assert r.value == 10
        assert r.witness == (10,) and r.direction == "Y->X"
        assert r.verify()
    # single points (0,0) and (3,4): 3+4, sqrt(9+16), max(3,4)
    assert hausdorff_distance([(0, 0)], [(3, 4)], "l1").value == 7
    assert hausdorff_distance([(0, 0)], [(3, 4)], "l2").value == 5
    assert hausdorff_distance([(0, 0)], [(3, 4)], "linf").value == 4
    # irrational l2 value stays exact
    r = hausdorff_distance([(0, 0), (2, 0)], [(1, 1)], "l2")
    assert r.value == sympy.sqrt(2)
    assert r.verify()


def test_hausdorff_asymmetric_sets():
    # X = {0, 1}, Y = {0, 1, 5}: sup_x d(x,Y) = 0, sup_y d(y,X) = 4 (from 5 to 1).
    r = hausdorff_distance([0, 1], [0, 1, 5])
    assert r.value == 4 and r.witness == (5,) and r.nearest == (1,)


def test_diameter_hand_cases():
    S = [(0, 0), (1, 0), (0, 2)]
    assert diameter(S, "l1").value == 3
    assert diameter(S, "l2").value == sympy.sqrt(5)
    assert diameter(S, "linf").value == 2
    d = diameter(S, "l2")
    assert {d.a, d.b} == {(0, 2), (1, 0)} and d.verify()
    assert diameter([(7, 7)]).value == 0


def test_box_and_union_diameter_hand_cases():
    assert region_diameter(Box((0, 0), (1, 2)), "l1")[0] == 3
    assert region_diameter(Box((0, 0), (1, 2)), "linf")[0] == 2
    # two unit squares [0,1]^2 and [3,4]x[0,1]: farthest corners (0,0)-(4,1) or (0,1)-(4,0)
    K = [Box((0, 0), (1, 1)), Box((3, 0), (4, 1))]
    assert region_diameter(K, "l1")[0] == 5
    assert region_diameter(K, "l2")[0] == sympy.sqrt(17)


def test_floats_taken_exactly():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        X = point_set([0.5, 0.25])
    assert X.points == ((Fraction(1, 4),), (Fraction(1, 2),))


# ---- properties --------------------------------------------------------------------------


def _le(a, b) -> bool:
    """a ≤ b for exact sympy reals, certified (equality allowed)."""
    with workprec(256):
        return not bool(sympy_to_arb(sympy.sympify(b - a)) < 0)


@settings(max_examples=40, deadline=None)
@given(set_triples(), st.sampled_from(NORMS))
def test_hausdorff_is_a_metric(triple, nm):
    _, X, Y, Z = triple
    dxy = hausdorff_distance(X, Y, nm)
    assert dxy.verify()
    assert dxy.value == hausdorff_distance(Y, X, nm).value
    assert hausdorff_distance(X, X, nm).value == 0
    assert (dxy.value == 0) == (point_set(X) == point_set(Y))
    dyz = hausdorff_distance(Y, Z, nm).value
    dxz = hausdorff_distance(X, Z, nm).value
    assert _le(dxz, dxy.value + dyz)


@settings(max_examples=40, deadline=None)
@given(set_triples(), st.sampled_from(NORMS))
def test_hausdorff_translation(triple, nm):
    dim, X, Y, Z = triple
    v = Z[0]
    Xs, Ys = point_set(X), point_set(Y)
    # invariance: d_H(X + v, Y + v) = d_H(X, Y)
    assert hausdorff_distance(Xs.translate(v), Ys.translate(v), nm).value == hausdorff_distance(Xs, Ys, nm).value
    # a finite set and its translate are exactly ‖v‖ apart (dual-norm argument,
    # proofs/sets_correct_bound.py)
    assert hausdorff_distance(Xs, Xs.translate(v), nm).value == distance((0,) * dim, v, nm)


@settings(max_examples=30, deadline=None)
@given(set_triples(), st.sampled_from(NORMS))
def test_diameter_is_max_pairwise_distance(triple, nm):
    _, X, _, _ = triple
    d = diameter(X, nm)
    assert d.verify()
    pts = point_set(X).points
    for a in pts:
        for b in pts:
            assert _le(distance(a, b, nm), d.value)
    # and diam(X) ≥ d_H(X, {x}) for x ∈ X
    assert _le(hausdorff_distance(X, [pts[0]], nm).value, d.value)
