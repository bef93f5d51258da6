"""Regression tests for the reviewer's findings on exactdp.sets (each failed before its fix)."""

from dataclasses import replace
from fractions import Fraction

import mpmath
import pytest
import sympy

from exactdp.arithmetic.ball import Sign
from exactdp.arithmetic.expressions import parse_closed_form
from exactdp.errors import InexactInputWarning, InvalidArgument, InvalidSet
from exactdp.sets import (
    Box,
    capacity_functional,
    capacity_functional_certified,
    check_set_privacy,
    check_set_privacy_certified,
    diameter,
    hausdorff_distance_certified,
    real_point_set,
)
from exactdp.sets._exppoly import ExpPoly, exp_poly_ratio, exp_poly_sign
from exactdp.spaces.levels import parse_level

# ---------------------------------------------------------------------------------------
# 1. user strings never reach sympify/eval
# ---------------------------------------------------------------------------------------


def test_coordinate_string_is_not_evaluated(tmp_path):
    marker = tmp_path / "pwned"
    payload = f"__import__('pathlib').Path({str(marker)!r}).touch()"
    with pytest.raises(InvalidSet, match="pwned"):
        real_point_set([payload])
    assert not marker.exists()


@pytest.mark.parametrize(
    "text",
    ["x", "E.real", "sqrt(2, 3)", "sqrt(x=2)", "exp", "[1][0]", "lambda: 1", "'1'", "1j", "2^3",
     "10**10**10", "(10**10000)**10000", "sqrt(2)**10**9", "sin(1)", "Integer(2)", "e"],
)
def test_whitelist_rejects(text):
    with pytest.raises(InvalidSet, match="Got X"):
        real_point_set([(text,)])


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("sqrt(2)/8", sympy.sqrt(2) / 8),
        ("ln(3) - 1/10**30", sympy.log(3) - sympy.Rational(1, 10**30)),
        ("0.1", sympy.Rational(1, 10)),  # decimal literal read exactly, not as a double
        ("-pi/4 + E**2", -sympy.pi / 4 + sympy.E**2),
        ("exp(-(1/2))*log(2)", sympy.exp(-sympy.Rational(1, 2)) * sympy.log(2)),
    ],
)
def test_whitelist_accepts(text, expected):
    assert sympy.simplify(parse_closed_form(text) - expected) == 0


def test_non_string_objects_are_not_sympified():
    class Evil:
        def __str__(self):  # sympify falls back to parsing str(obj)
            raise AssertionError("str() was evaluated")

    with pytest.raises(InvalidSet, match="Evil"):
        real_point_set([Evil()])


# ---------------------------------------------------------------------------------------
# 2. no dense polynomial for float coordinates / huge denominators
# ---------------------------------------------------------------------------------------


def _mp_paper_margin(x1, k_hi, eps=1):
    """rhs − lhs of the 'paper' bound for X = {0, x1}, Y = {0}, K = [0, k_hi], 0 < x1 ≤ k_hi,
    by hand with mpmath at 60 digits: T_X = P[w ∈ [−x1, k_hi]], T_Y = P[w ∈ [0, k_hi]]."""
    with mpmath.workdps(60):
        x1, k_hi = mpmath.mpf(x1.numerator) / x1.denominator, mpmath.mpf(k_hi.numerator) / k_hi.denominator
        t_x = 1 - mpmath.exp(-eps * k_hi) / 2 - mpmath.exp(-eps * x1) / 2
        t_y = (1 - mpmath.exp(-eps * k_hi)) / 2
        return mpmath.exp(eps * (x1 + k_hi)) * t_y - t_x


@pytest.mark.parametrize(
    ("x1", "k"),
    [(0.1, Fraction(1, 4)), (Fraction(1, 10**9), Fraction(1))],
)
def test_float_and_tiny_coordinates_no_memory_error(x1, k):
    if isinstance(x1, float):
        with pytest.warns(InexactInputWarning):
            r = check_set_privacy([0, x1], [0], Box(0, k), 1)
    else:
        r = check_set_privacy([0, x1], [0], Box(0, k), 1)
    expected = _mp_paper_margin(Fraction(x1), k)
    assert r.holds == (expected >= 0)
    assert r.sign is (Sign.POSITIVE if expected > 0 else Sign.NEGATIVE)
    assert r.verify()
    ratio = r.ratio  # exp_poly_ratio: no gcd on a 2^55-degree polynomial
    assert abs(float(ratio) - float(r.floats()["ratio"])) < 1e-12
    assert r.to_json()["sign"] == r.sign.name


def test_exp_poly_sign_huge_degree_all_routes():
    f = ExpPoly({0: 1, Fraction(1, 10**9): -1})  # 1 − e^{−ε/10⁹} > 0
    assert exp_poly_sign(f, parse_level(eps=1))[0] is Sign.POSITIVE
    assert exp_poly_sign(f, parse_level(t="1/2"))[0] is Sign.POSITIVE  # ball route, no x^q − t
    assert exp_poly_sign(-f, parse_level(eps="ln(3)"))[0] is Sign.NEGATIVE
    assert exp_poly_sign(f - f, parse_level(eps=1))[0] is Sign.ZERO  # structural zero


def test_exp_poly_sign_rational_s_exact_and_big_exponent():
    # t = 1/4, q = 2: s = 1/2; 1 − 2 s^1 = 0 exactly, with an extra far term cancelling
    assert exp_poly_sign(ExpPoly({0: 1, Fraction(1, 2): -2}), parse_level(t="1/4"))[::2] == (Sign.ZERO, "exact")
    g = ExpPoly({0: 1, Fraction(1, 2): -2, 1000: Fraction(1, 3)})  # 1 − 2s + s^2000/3 at s = 1/2
    assert exp_poly_sign(g, parse_level(t="1/4"))[::2] == (Sign.POSITIVE, "exact")


def test_exp_poly_ratio_huge_degree_returns_plain_quotient():
    num, den = ExpPoly({0: 1, Fraction(1, 10**9): -1}), ExpPoly({0: 1, 1: -1})
    r = exp_poly_ratio(num, den, sympy.Integer(1))
    with mpmath.workdps(40):
        expected = (1 - mpmath.exp(-mpmath.mpf(1) / 10**9)) / (1 - mpmath.exp(-1))
        assert abs(mpmath.mpf(str(sympy.N(r, 40))) / expected - 1) < mpmath.mpf(10) ** -30


# ---------------------------------------------------------------------------------------
# 4. CapacityResult.verify decides 0 ≤ T ≤ 1 at rising precision
# ---------------------------------------------------------------------------------------


def test_capacity_verify_tiny_value():
    r = capacity_functional([Fraction(1, 10**40)], Box(0, Fraction(1, 10**39)), 1)
    # by hand: P[w ∈ [−10⁻⁴⁰, 9·10⁻⁴⁰]] = 1 − e^{−9e−40}/2 − e^{−1e−40}/2 ≈ 5·10⁻⁴⁰
    lo, hi = r.interval(512)
    assert Fraction(49, 10**41) < lo <= hi < Fraction(51, 10**41)
    assert r.verify()


# ---------------------------------------------------------------------------------------
# 5. verify() methods re-check the claim
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("norm", ["l1", "l2", "linf"])
def test_certified_hausdorff_verify_checks_nearest(norm):
    r = hausdorff_distance_certified([(0, 0), (10, 0)], [(1, 0), (10, 0)], norm)
    assert r.value == 1 and r.verify()
    forged = replace(r, witness=(0, 0), nearest=(10, 0), value=sympy.Integer(10), direction="X->Y")
    assert not forged.verify()
    assert not replace(r, witness=(5, 5)).verify()  # not a point of the set


def test_diameter_verify_checks_maximum():
    d = diameter([0, 1, 5])
    assert d.value == 5 and d.verify()
    assert not replace(d, b=d.a, value=sympy.Integer(0)).verify()
    assert not replace(d, a=(Fraction(0),), b=(Fraction(1),), value=sympy.Integer(1)).verify()


def test_certified_privacy_verify_recomputes():
    r = check_set_privacy_certified([0, "sqrt(2)/8"], [0], Box(0, "1/8"), eps=1)
    assert not r.holds and r.verify()
    assert not replace(r, sign=Sign.POSITIVE, holds=True).verify()
    # a wrong lhs whose stored margin sign still looks right is caught by recomputation
    assert not replace(r, lhs=r.lhs + sympy.Rational(1, 10**30)).verify()
    assert not replace(r, d_H=r.d_H + sympy.Rational(1, 10**30)).verify()
    assert not replace(r, factor=r.factor * 2, rhs=r.rhs * 2).verify()


def test_certified_privacy_verify_agrees_with_exact_route():
    # rational instance: the exact route decides, the certified verify must agree
    X, Y, K = [0, "1/3"], [0, 1], Box(0, "1/2")
    for bound in ("paper", "hausdorff", "points"):
        exact = check_set_privacy(X, Y, K, 1, bound=bound)
        cert = check_set_privacy_certified(X, Y, K, 1, bound=bound)
        assert cert.holds == exact.holds and cert.verify()


def test_certified_capacity_has_verify():
    r = capacity_functional_certified(["sqrt(2)", 0], Box(0, 2), 1)
    assert r.verify()
    assert not replace(r, expr=r.expr + sympy.Rational(1, 10**40)).verify()
    # value by hand: union [−√2, 2] ∪ ... = P[w ∈ [−√2, 2]] (translates [−√2, 2−√2] and [0, 2])
    e = sympy.exp
    by_hand = 1 - e(-2) / 2 - e(-sympy.sqrt(2)) / 2
    assert abs(float(r.expr - by_hand)) < 1e-30


# ---------------------------------------------------------------------------------------
# 7. a bound callable must return an exact value
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", [1.5, 2.0, sympy.Float(2.0), sympy.Symbol("x"), [2], True])
def test_bound_callable_inexact_rejected(value):
    with pytest.raises(InvalidArgument, match="Fraction"):
        check_set_privacy([0, 3], [0], Box(0, 1), 1, bound=lambda b: value)


@pytest.mark.parametrize("value", [2, Fraction(3, 2), "3/2", sympy.Rational(3, 2)])
def test_bound_callable_exact_accepted(value):
    r = check_set_privacy([0, 3], [0], Box(0, 1), 1, bound=lambda b: value)
    # T_X/T_Y = 1 + P[w ∈ [−3, −2]]/P[w ∈ [0, 1]] = 1 + (e^{−2} − e^{−3})/(1 − e^{−1}) ≈ 1.137
    assert r.holds
    assert r.verify()
