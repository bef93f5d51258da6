"""The kernel's privacy comparisons (exactdp.kernel.privacy) at the edges its mutation run
looks at: the work limit exactly at MAX_WORK, an exact equality whose powers need exactly
MAX_EXACT_BITS bits, irrational distances (√2: ball comparisons, where the exact route must
not be taken), a rational ε against ln(r)/d, and the largest ratio found in the last column
of an odd number of outputs.

Ground truth by hand: ln(5/2)/√2 ≈ 0.6479 < ln 2 ≈ 0.6931 < ln(5/2) ≈ 0.9163;
ln(3)/√2 ≈ 0.7768; powers of two compared by their exponents.
"""

from __future__ import annotations

import math
from fractions import Fraction as F

import pytest
import sympy

from exactdp.arithmetic.interval import Enclosure
from exactdp.engine.questions import make_question
from exactdp.errors import InstanceTooLarge
from exactdp.kernel.privacy import (
    MAX_EXACT_BITS,
    MAX_WORK,
    LevelClaim,
    LogValue,
    check_privacy_level,
    log_sign,
    require_work,
    target_sign,
)
from exactdp.kernel.question import Property
from exactdp.spaces.distances import Distance
from exactdp.spaces.metrics import line

ONE = Distance.rational(1)
S2 = Distance(F(1), 2)


def test_work_limit_is_inclusive():
    assert MAX_WORK % 2 == 0
    require_work(MAX_WORK // 2, 1)  # exactly MAX_WORK entries: allowed
    with pytest.raises(InstanceTooLarge):
        require_work(MAX_WORK // 2 + 1, 1)


def test_equality_decided_exactly_at_the_bit_limit():
    """r = T = 2^L with 2·(bits(r) + 1) = MAX_EXACT_BITS: equal, and decided exactly (balls
    can never show that two equal logarithms are equal)."""
    L = MAX_EXACT_BITS // 2 - 2  # r.numerator has L + 1 bits, r.denominator 1
    r = F(2**L)
    assert 2 * (r.numerator.bit_length() + r.denominator.bit_length()) == MAX_EXACT_BITS
    assert log_sign(r, ONE, r, ONE) == 0
    # d/e = a/b with b = 2 and a = 2: sign(r^b − T^a) with true powers
    assert log_sign(F(3), ONE, F(9), Distance.rational(2)) == 0  # ln 3 = ln 9 / 2
    assert log_sign(F(9), Distance.rational(2), F(3), ONE) == 0
    assert log_sign(F(3), ONE, F(8), Distance.rational(2)) == 1  # 9 > 8


def test_irrational_distance_ratios():
    assert log_sign(F(5, 2), S2, F(2), ONE) == -1  # 0.648 < 0.693
    assert log_sign(F(3), S2, F(2), ONE) == 1  # 0.777 > 0.693
    assert log_sign(F(2), ONE, F(5, 2), S2) == 1
    assert log_sign(F(1), S2, F(1), ONE) == 0
    assert log_sign(F(1), S2, F(2), ONE) == -1
    assert log_sign(F(5, 2), ONE, F(1), S2) == 1


def test_target_sign_against_a_rational_eps():
    seven = sympy.Rational(7, 10)
    assert target_sign(F(1), ONE, seven) == -1  # ln 1 = 0 < ε
    assert target_sign(F(2), ONE, seven) == -1  # ln 2 ≈ 0.693 < 0.7
    assert target_sign(F(2), ONE, sympy.Rational(69, 100)) == 1
    assert target_sign(F(5, 2), S2, sympy.Rational(64, 100)) == 1  # 0.6479 > 0.64
    assert target_sign(F(5, 2), S2, sympy.Rational(65, 100)) == -1
    assert target_sign(F(5, 2), S2, LogValue(F(2), ONE)) == -1


def _level(rows, value, witness):
    q = make_question(line(len(rows)), Property.PRIVACY_LEVEL, mechanism=rows)
    return LevelClaim(q, value, witness, Enclosure(F(1, 10), F(3)))


def test_largest_ratio_in_the_last_of_an_odd_number_of_outputs():
    """Five outputs; the largest ratio H[0, z]/H[1, z] = 4 is at z = 4 (the carried element
    of the pairwise reduction). The level is ln 4 (line(2): d = 1)."""
    rows = ((F(1, 10), F(2, 10), F(2, 10), F(1, 10), F(4, 10)),
            (F(2, 10), F(2, 10), F(2, 10), F(3, 10), F(1, 10)))
    assert check_privacy_level(_level(rows, LogValue(F(4), ONE), (0, 1, 4)))
    assert not check_privacy_level(_level(rows, LogValue(F(2), ONE), (1, 0, 0)))  # ln 2 < ln 4


# numerator rows where a pairwise tournament that drops or repeats an element misses the
# largest ratio (found by a search over small integer rows; each is a genuine mechanism
# after dividing a row by its sum)
TOURNAMENT_ROWS = [((3, 5), (2, 6)), ((9, 2, 3, 9, 7, 6, 8, 1), (8, 1, 5, 7, 3, 3, 9, 4)),
                   ((4, 7, 9, 6, 6, 8, 5, 9, 1), (7, 9, 3, 9, 9, 4, 7, 1, 8)),
                   ((9, 4, 9, 7, 8, 6), (7, 6, 1, 9, 9, 6)),
                   ((1, 4, 3, 9, 3, 2, 9, 5), (1, 2, 2, 1, 8, 1, 5, 4)),
                   ((4, 5, 2, 5, 9, 4, 7), (1, 4, 1, 7, 3, 1, 3)),
                   ((6, 9, 8, 9, 4, 2, 1, 2, 3), (3, 3, 9, 4, 5, 6, 9, 5, 6))]


@pytest.mark.parametrize("nums", TOURNAMENT_ROWS)
def test_only_the_largest_ratio_is_the_level(nums):
    """line(2) (d = 1): the level is ln of the largest H[y, z]/H[y', z] over both orders and
    every output (exact Fractions here). A claim at any smaller ratio is false."""
    rows = tuple(tuple(F(v, sum(r)) for v in r) for r in nums)
    ratios = {(y, 1 - y, z): rows[y][z] / rows[1 - y][z] for y in (0, 1) for z in range(len(rows[0]))}
    top = max(ratios.values())
    for w, r in ratios.items():
        if r <= 1:
            continue
        mid = F(math.log(r)).limit_denominator(10**6)
        claim = LevelClaim(make_question(line(2), Property.PRIVACY_LEVEL, mechanism=rows), LogValue(r, ONE),
                           w, Enclosure(mid - F(1, 1000), mid + F(1, 1000)))
        assert check_privacy_level(claim) == (r == top), (w, r, top)
