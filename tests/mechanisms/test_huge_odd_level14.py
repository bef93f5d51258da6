"""Session 14: a level log(R)/d whose ratio R is a huge *odd* number. Building ``sympy.log(R)``
asks ``R.is_negative``, which sympy answers by trying related facts in a shuffled order; some
orders run a BPSW primality test on R — hours for 100,000 digits (seen with R = 5·10⁹⁹⁹⁹⁹ − 1;
session 13 fixed only the sign queries made *after* the level was built). ``to_sympy`` now
states the sign facts of the numbers it builds (``arithmetic/rationals._state_sign``). Here a
primality test of a 1000+-digit odd number fails the test, over 40 replayed rule orders; the
numbers are 10,000 digits so that a regression fails at once instead of hanging."""

from __future__ import annotations

from fractions import Fraction as F

import pytest
import sympy
import sympy.ntheory.primetest as primetest
from sympy.core import random as sympy_random
from sympy.core.cache import clear_cache

from exactdp.arithmetic.rationals import to_sympy
from exactdp.mechanisms.level_compare import log_ratio_value
from exactdp.mechanisms.privacy_result import enclose_value
from exactdp.spaces.distances import Distance
from exactdp.spaces.levels import parse_level

ODD = 5 * 10**9_999 - 1
RATIOS = [F(ODD), F(ODD, 3), F(7, ODD), F(ODD, ODD - 2), F(ODD - 2, ODD)]


@pytest.fixture
def no_huge_primality(monkeypatch):
    real = primetest.isprime

    def guarded(n):
        if abs(int(n)) > 10**1000 and int(n) % 2:
            raise AssertionError("sympy was asked whether a 1000+-digit odd number is prime")
        return real(n)
    monkeypatch.setattr(primetest, "isprime", guarded)


@pytest.mark.parametrize("seed", range(40))
def test_log_of_huge_odd_ratio_never_tests_primality(no_huge_primality, seed):
    for ratio in RATIOS:
        clear_cache()
        sympy_random.seed(seed)
        value = log_ratio_value(ratio, Distance(3))
        for query in ("is_positive", "is_nonnegative", "is_negative", "is_zero", "is_real",
                      "is_extended_nonpositive", "is_finite"):
            getattr(value, query)
        assert value.is_positive == (ratio > 1)
        if ratio > 1:  # a level (ratios below 1 are not levels; only sympy's queries above)
            enc = enclose_value(value)
            assert 0 <= enc.lo <= enc.hi and 0 < enc.hi and enc.hi - enc.lo < F(1, 10**30)
            level = parse_level(eps=value)  # decides t = e^-ε by exact roots, not by factoring
            assert level.eps == value and level.t is None
    assert parse_level(eps=log_ratio_value(F(ODD**3), Distance(3))).t == F(1, ODD)


def test_the_guard_would_catch_the_old_route(no_huge_primality):
    """Without the stated facts, some of the 40 rule orders do reach the primality test: the
    fixture is live, so the test above can fail."""
    reached = 0
    for seed in range(40):
        clear_cache()
        sympy_random.seed(seed)
        try:
            _ = sympy.log(sympy.Integer(ODD)).is_nonnegative  # plain sympy: no facts stated
        except AssertionError:
            reached += 1
    assert reached > 0


def test_stated_facts_are_the_true_ones():
    for v in (F(ODD), F(-ODD), F(ODD, 3), F(-7, ODD), F(0), F(1, 2**300)):
        r = to_sympy(v)
        assert r == sympy.Rational(v.numerator, v.denominator)
        assert (r.is_positive, r.is_negative, r.is_zero) == (v > 0, v < 0, v == 0)


def test_stated_facts_stay_with_their_number():
    """sympy instances share their class's default fact table until a query copies it: a
    fact written into the shared table would make every later Rational 'positive' (a first
    version did: log((R − 2)/R) came out positive)."""
    to_sympy(F(ODD - 2, ODD))
    to_sympy(F(ODD))
    for p, q in ((-2, ODD), (-3, 7), (-ODD, 1), (0, 1)):
        r = sympy.Rational(p, q)
        assert (r.is_positive, r.is_negative, r.is_zero) == (p > 0, p < 0, p == 0)
    assert sympy.log(to_sympy(F(ODD - 2, ODD))).is_positive is False
