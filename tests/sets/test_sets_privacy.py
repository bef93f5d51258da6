"""Theorem 1 verdict, the proven bound, and the violation search (issue 6, part 4)."""

from fractions import Fraction

import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp.arithmetic.ball import Sign
from exactdp.sets import (
    Box,
    BoxUnion,
    bound_factor,
    check_set_privacy,
    find_violation,
    find_violation_random,
    is_translate,
    point_set,
    theorem1_counterexample,
)

E = sympy.E
coord = st.fractions(min_value=-2, max_value=2, max_denominator=4)
width = st.fractions(min_value=Fraction(1, 8), max_value=2, max_denominator=8)


@st.composite
def instance(draw):
    dim = draw(st.integers(1, 2))
    X = draw(st.lists(st.tuples(*[coord] * dim), min_size=1, max_size=3))
    Y = draw(st.lists(st.tuples(*[coord] * dim), min_size=1, max_size=3))
    lo = draw(st.tuples(*[coord] * dim))
    w = draw(st.tuples(*[width] * dim))
    K = Box(lo, tuple(a + b for a, b in zip(lo, w)))
    eps = draw(st.sampled_from([Fraction(1), Fraction(1, 2), Fraction(2)]))
    return dim, X, Y, K, eps


# ---- the verdict on Theorem 1 ---------------------------------------------------------------


def test_theorem1_counterexample_exact_values():
    # by hand: K − 0 = [0, 1/4], K − 1/4 = [−1/4, 0]; T_X = F(1/4) − F(−1/4) = 1 − e^{−1/4},
    # T_Y = F(1/4) − F(0) = ½ − ½e^{−1/4}; ratio 2; bound e^{1/4 + 1/4}; 2 > e^{1/2} as e < 4.
    r = theorem1_counterexample()
    q = sympy.Rational(1, 4)
    assert sympy.simplify(r.lhs - (1 - sympy.exp(-q))) == 0
    assert sympy.simplify(r.T_Y.expr - (1 - sympy.exp(-q)) / 2) == 0
    assert r.ratio == 2
    assert r.factor == sympy.exp(sympy.Rational(1, 2))
    assert r.hausdorff.value == q and r.diam_K == q
    assert r.holds is False and r.sign is Sign.NEGATIVE
    assert r.verify()
    f = r.floats()
    assert abs(f["ratio"] - 2) < 1e-12 and abs(f["factor"] - 1.6487212707) < 1e-9


def test_counterexample_scaled_integer_version():
    # same witness scaled by 4 with ε = 1/4: X = {0, 1}, Y = {0}, K = [0, 1]
    r = check_set_privacy([0, 1], [0], Box(0, 1), Fraction(1, 4))
    assert r.ratio == 2 and not r.holds and r.verify()
    # threshold: with δ = a the family fails iff εa < ln(2)/2 ≈ 0.3466
    assert not check_set_privacy([0, 1], [0], Box(0, 1), Fraction(34, 100)).holds
    assert check_set_privacy([0, 1], [0], Box(0, 1), Fraction(35, 100)).holds


def test_other_direction_holds_for_the_witness():
    # T_Y ≤ e^{ε(d_H + diam)} T_X trivially (Y ⊂ X ⇒ T_Y ≤ T_X)
    r = check_set_privacy([0], [0, Fraction(1, 4)], Box(0, Fraction(1, 4)), 1)
    assert r.holds and r.verify()


def test_many_points_give_ratio_near_m():
    # X = {0, a, ..., 4a}, Y = {0}, K = [0, a], a = 1/64: ratio = 1 + Σ_{j=1}^{4} e^{−ε(j−1)a}
    a = Fraction(1, 64)
    X = [k * a for k in range(5)]
    r = check_set_privacy(X, [0], Box(0, a), 1)
    want = 1 + sum(sympy.exp(-sympy.Rational(j - 1, 64)) for j in range(1, 5))
    assert sympy.simplify(r.ratio - want) == 0
    assert not r.holds
    assert r.floats()["ratio_over_factor"] > 4  # about 5/e^{5/64}
    assert check_set_privacy(X, [0], Box(0, a), 1, bound="points").holds


def test_l2_reading_fails_even_for_single_points():
    # d_H in ℓ2 is smaller than the ℓ1 shift the Laplace noise pays for:
    # X = {(1,1)}, Y = {(0,0)}, K = [1, 1+δ]² : ratio = e^{2ε} exactly (K beyond both points)
    d = Fraction(1, 16)
    K = Box((1, 1), (1 + d, 1 + d))
    r = check_set_privacy([(1, 1)], [(0, 0)], K, 1, norm="l2")
    assert r.ratio == sympy.exp(2)
    assert r.factor == sympy.exp(sympy.sqrt(2) + sympy.sqrt(2) / 16)
    assert not r.holds and r.method == "lindemann-weierstrass+ball"
    assert r.verify()
    assert check_set_privacy([(1, 1)], [(0, 0)], K, 1, norm="l1").holds


def test_union_K_and_callable_bound():
    K = BoxUnion([Box(0, Fraction(1, 4)), Box(3, Fraction(13, 4))])
    r = check_set_privacy([0, 3], [0], K, 1, bound=lambda b: 2 * sympy.exp(b.eps * (b.d_H + b.diam_K)))
    assert r.bound == "<lambda>" and r.verify()
    assert r.diam_K == sympy.Rational(13, 4)


def test_irrational_level_ln2():
    # t = 1/2 (s algebraic): exact decisions through the minimal polynomial / rational route
    r = check_set_privacy([0, 1], [0], Box(0, 1), "ln(2)")
    # ratio 2 (for every ε); bound e^{2 ln 2} = 4
    assert r.ratio == 2 and r.holds
    r = check_set_privacy([0, 1], [0], Box(0, 1), "ln(2)/4")
    assert not r.holds  # e^{ln(2)/2} = √2 < 2


def test_bound_factor_values():
    assert bound_factor([0, 1], [0], Box(0, 1), 1, bound="paper") == sympy.exp(2)
    assert bound_factor([0, 1], [0], Box(0, 1), 1, bound="points") == 2 * E
    assert bound_factor([0, 1], [0], Box(0, 1), 1, bound="points_sharp") == 1 + E
    assert bound_factor([0, 1], [0], Box(0, 1), 1, bound="hausdorff") == E


# ---- properties ---------------------------------------------------------------------------


@settings(max_examples=30, deadline=None)
@given(instance())
def test_proven_bounds_always_hold(inst):
    _, X, Y, K, eps = inst
    for bound in ("points_sharp", "points"):
        r = check_set_privacy(X, Y, K, eps, bound=bound)
        assert r.guaranteed and r.holds
    # sharp ≤ plain: Σ_x e^{ε d(x,Y)} ≤ |X| e^{ε d_H}
    sharp = check_set_privacy(X, Y, K, eps, bound="points_sharp").factor
    plain = check_set_privacy(X, Y, K, eps, bound="points").factor
    assert sympy.N(plain - sharp, 30) >= -1e-25


@settings(max_examples=30, deadline=None)
@given(instance(), st.tuples(coord, coord))
def test_paper_bound_holds_for_translates(inst, v):
    dim, X, _, K, eps = inst
    vec = tuple(v[:dim])
    Y = point_set(X).translate(vec)
    assert is_translate(X, Y) == tuple(Fraction(c) for c in vec)
    for bound in ("paper", "hausdorff"):
        r = check_set_privacy(X, Y, K, eps, bound=bound)
        assert r.guaranteed and r.holds


@settings(max_examples=30, deadline=None)
@given(instance())
def test_verdicts_verify_and_guarantees_are_consistent(inst):
    _, X, Y, K, eps = inst
    r = check_set_privacy(X, Y, K, eps, bound="paper")
    assert r.verify()
    if r.guaranteed:
        assert r.holds
    if len(point_set(X)) == 1:
        assert r.guaranteed


# ---- search -----------------------------------------------------------------------------------


def test_find_violation_recovers_a_witness():
    s = find_violation([0, Fraction(1, 4)], [0], 1)
    assert s.found and s.verify()
    assert s.best.floats()["ratio_over_factor"] > 1.7  # sup is 1 + e^{-1/4} ≈ 1.7788
    assert s.best.floats()["ratio_over_factor"] < 1 + float(sympy.exp(-sympy.Rational(1, 4)))


def test_find_violation_none_for_translates_and_proven_bound():
    X = [(0, 0), (1, 0), (0, 1)]
    Y = point_set(X).translate((Fraction(1, 2), -1))
    s = find_violation(X, Y, 1)
    assert not s.found and s.best.holds and s.verify()
    s = find_violation([0, Fraction(1, 4)], [0], 1, bound="points")
    assert not s.found


def test_find_violation_random_search():
    s = find_violation_random(1, dim=1, max_points=3, trials=4, seed=3)
    assert s.verify()
    assert s.found  # most random pairs with |X| ≥ 2 violate the paper's bound at small K


def test_singleton_X_never_violates_and_large_K_is_guaranteed():
    # Theorem C (|X| = 1): the search over boxes finds nothing, in either norm-l1 reading
    s = find_violation([(0, 0)], [(0, 0), (1, Fraction(1, 2))], 1, both_directions=False)
    assert not s.found and s.best.guaranteed
    # Corollary E: |X| = 2 ≤ e^{ε diam K} = e^{1} makes the paper's bound true
    r = check_set_privacy([0, Fraction(1, 4)], [0], Box(0, 1), 1)
    assert r.guaranteed and r.holds
    # ... but not at diam K = 1/4 (e^{1/4} < 2): no guarantee, and indeed it fails
    r = check_set_privacy([0, Fraction(1, 4)], [0], Box(0, Fraction(1, 4)), 1)
    assert not r.guaranteed and not r.holds
