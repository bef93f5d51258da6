"""Session 13: the CI stall. sympy's assumption queries try their rules in a shuffled order
(``sympy.core.random``), and for ``log(10**100000/2).is_nonnegative`` some orders test a
100,000-digit integer for primality — hours. ``enclose_value`` asked it for every exact level
(and ``parse_level`` asked ``is_positive``), so ``test_reader_limits12.py::
test_writers_refuse_what_readers_refuse`` hung at random (11 of 40 seeds ran over 5 s before
the fix, 0 after). Signs of levels, ε and distances are now read off the expression's
structure (``structural_sign``) first. Here primality testing of a huge number fails the test,
and sympy's rule order is replayed over 40 seeds."""

from __future__ import annotations

from fractions import Fraction as F

import pytest
import sympy.ntheory.primetest as primetest
from sympy import Integer, Rational, log, sin, sqrt
from sympy.core import random as sympy_random
from sympy.core.cache import clear_cache

from exactdp.arithmetic.expressions import structural_sign
from exactdp.arithmetic.rationals import unlimited_int_digits
from exactdp.mechanisms.level_compare import log_ratio_value
from exactdp.mechanisms.privacy_result import enclose_value
from exactdp.spaces.distances import Distance
from exactdp.spaces.levels import parse_level


@pytest.fixture
def no_huge_primality(monkeypatch):
    real = primetest.isprime

    def guarded(n):
        if abs(int(n)) > 10**1000 and int(n) % 2:  # an even one is answered at once
            raise AssertionError("sympy was asked whether a 1000+-digit odd number is prime")
        return real(n)
    monkeypatch.setattr(primetest, "isprime", guarded)


@pytest.mark.parametrize("seed", range(40))
def test_levels_and_eps_of_huge_ratios_never_test_primality(no_huge_primality, seed):
    clear_cache()
    sympy_random.seed(seed)
    with unlimited_int_digits():
        value = log_ratio_value(F(10**100_000, 2), Distance(3))  # built after the seed: no cached facts
        enc = enclose_value(value)
        assert 0 < enc.lo <= enc.hi and enc.hi - enc.lo < F(1, 10**30)
        assert parse_level(eps=value).eps == value


def test_structural_sign_against_exact_cases():
    half, two = Rational(1, 2), Integer(2)
    assert structural_sign(log(half)) == -1 and structural_sign(log(two)) == 1
    assert structural_sign(-log(half) * 3 / 7) == 1
    assert structural_sign(log(1) + 0) == 0
    assert structural_sign(sqrt(two)) == 1 and structural_sign(-sqrt(two)) == -1
    assert structural_sign(log(3) - 1) is None  # mixed signs: undecided, never guessed
    assert structural_sign(sin(1)) is None
