"""Algebraic numbers: isolation agrees with sympy, verify() accepts good and rejects bad data."""

from fractions import Fraction

import pytest
import sympy
from flint import fmpz_poly
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp.algebra.algebraic import (
    AlgebraicNumber,
    count_roots_between,
    isolate_roots_01,
    log_enclosure,
    real_roots_between,
)
from exactdp.errors import InvalidTolerance

F = Fraction


def test_sqrt2_verify_refine_compare():
    a = AlgebraicNumber((-2, 0, 1), (F(1), F(2)))
    assert a.verify()
    b = a.refine(F(1, 10**12))
    assert b.verify() and b.width <= F(1, 10**12)
    lo, hi = b.isolating_interval
    assert lo * lo < 2 < hi * hi  # √2 by squaring, independently of the code
    assert a.compare(F(141421, 100000)) == 1 and a.compare(F(141422, 100000)) == -1


@pytest.mark.parametrize(
    "poly, interval",
    [
        ((-2, 0, 1), (F(-2), F(2))),  # two roots inside: not isolating
        ((-2, 0, 1), (F(2), F(3))),  # no root inside
        ((2, 0, -1), (F(1), F(2))),  # leading coefficient negative
        ((-4, 0, 2), (F(1), F(2))),  # not primitive
        ((-1, 0, 1), (F(1, 2), F(2))),  # reducible (x-1)(x+1)
        ((-2, 0, 1), (F(3, 2), F(3, 2))),  # degenerate interval for an irrational
    ],
)
def test_verify_rejects_bad_claims(poly, interval):
    assert not AlgebraicNumber(poly, interval).verify()


def test_rational_numbers():
    a = AlgebraicNumber.from_rational("3/7")
    assert a.verify() and a.is_rational and a.as_fraction() == F(3, 7)
    assert not AlgebraicNumber((-3, 7), (F(1, 2), F(1, 2))).verify()


def test_refine_rejects_bad_tolerance():
    with pytest.raises(InvalidTolerance):
        AlgebraicNumber((-2, 0, 1), (F(1), F(2))).refine(0)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(-6, 6), min_size=2, max_size=7).filter(lambda c: c[-1] != 0))
def test_roots_in_unit_interval_match_sympy(coeffs):
    f = fmpz_poly(coeffs)
    ours = real_roots_between(f, F(0), F(1))
    x = sympy.Symbol("x")
    poly = sympy.Poly(list(reversed(coeffs)), x)
    theirs = sorted({r for r in poly.real_roots() if 0 < r < 1}, key=lambda r: sympy.N(r, 40))
    assert len(ours) == len(theirs)
    for (a, _m), r in zip(ours, theirs):
        assert a.verify()
        lo, hi = a.isolating_interval
        rr = sympy.nsimplify(r)
        assert sympy.Rational(lo.numerator, lo.denominator) <= rr <= sympy.Rational(
            hi.numerator, hi.denominator)


def test_isolation_counts_and_multiplicity():
    f = fmpz_poly([1, -3, 1]) * fmpz_poly([-1, 2]) ** 3  # (s²−3s+1)(2s−1)³
    roots = real_roots_between(f, F(0), F(1))
    assert [m for _, m in roots] == [1, 3]
    assert roots[1][0].as_fraction() == F(1, 2)
    assert len(isolate_roots_01(fmpz_poly([1, -3, 1]) * fmpz_poly([-1, 2]))) == 2
    assert count_roots_between(fmpz_poly([-2, 0, 1]), F(-2), F(2)) == 2


def test_log_enclosure_contains_mpmath_value():
    import mpmath

    mpmath.mp.prec = 200
    lo, hi = log_enclosure(F(3, 7), F(3, 7), F(-2))
    v = -2 * mpmath.log(mpmath.mpf(3) / 7)
    assert mpmath.mpf(lo.numerator) / lo.denominator <= v <= mpmath.mpf(hi.numerator) / hi.denominator
