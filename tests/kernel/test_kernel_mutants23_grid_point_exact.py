"""Session 23: tests for the survivors of the first complete ``scripts/mutation.py`` run on
exactdp/kernel/grid_point_exact.py (100 mutants; never run before). Each test names the
mutants it kills ("line N: change", the tool's description at the time of the run).

Ground truth by hand:

* a 2×1 grid (two points at distance h): Φ = [[1, T], [T, 1]], T = e^{−ε·h}, so b = (1, 1)
  gives z = (1/(1 + T), 1/(1 + T)); at spacing h = 2 and t = e^{−ε} = 1/3, T = 1/9 and
  z = (9/10, 9/10). b = (1 + T, 1 + T) gives z = (1, 1): denominator 1;
* the work limit is the documented formula size = 2·((2H − 1)(2W − 1) + 2W)·digits,
  digits = ⌊((W + H − 2)·a·max(bits(num u), bits(den u)) + bits(X) + bits(n) + 16)/8⌋,
  against MAX_EXACT_BYTES = 2^28, evaluated in the test.
"""

from __future__ import annotations

import copy
from fractions import Fraction as F

import pytest

from exactdp.engine.grid_documents import write_grid_point_exact
from exactdp.errors import InstanceTooLarge, InvalidArgument
from exactdp.kernel.grid_point_exact import (
    MAX_EXACT_BYTES,
    GridPointExactClaim,
    check_grid_point_exact,
    read_grid_point_exact,
    require_exact_work,
)
from exactdp.kernel.verify import verify_document
from exactdp.spaces.levels import parse_level
from exactdp.spaces.metrics.masked import GridShape

THIRD = parse_level(t="1/3")
HALF = parse_level(t="1/2")
ONES = (F(1), F(1))


def _size(W: int, H: int, u: F, a: int, xbits: int) -> int:
    tbits = a * max(u.numerator.bit_length(), u.denominator.bit_length())
    digits = ((W + H - 2) * tbits + xbits + (W * H).bit_length() + 16) // 8
    return 2 * ((2 * H - 1) * (2 * W - 1) + 2 * W) * digits


# kills "line 153: Pow -> Mult" and "line 155: Div -> Mult": at spacing 2, T = u² = 1/9 and the
# offset's length is d/h = 1 (u·a = 2/3 or d·h = 4 give another Φ)
def test_spacing_two_uses_t_squared():
    sh = GridShape(2, 1, "manhattan", F(2))
    assert check_grid_point_exact(GridPointExactClaim(sh, THIRD, ONES, True, None, (9, 9), 10))
    assert not check_grid_point_exact(GridPointExactClaim(sh, THIRD, ONES, True, None, (3, 3), 4))  # T = 1/3's z
    assert check_grid_point_exact(GridPointExactClaim(GridShape(2, 1, "manhattan", F(1)), THIRD, ONES, True, None,
                                                      (3, 3), 4))  # control: spacing 1, T = 1/3, z = 3/4


# kills "line 168: return True" and "line 168: False -> True": a claim whose check raises on
# malformed data (a level that is no PrivacyLevel) is "not proved", never accepted; numerators
# that are no integers are refused before (next test)
def test_malformed_numerators_are_not_proved():
    sh = GridShape(2, 1, "manhattan", F(1))
    for bad in (("x", 2), (None, 2), (2, [2])):
        assert check_grid_point_exact(GridPointExactClaim(sh, HALF, ONES, True, None, bad, 3)) is False
    for level in ("t=1/2", None, 0.5):  # not a PrivacyLevel: reading T raises inside the check
        assert check_grid_point_exact(GridPointExactClaim(sh, level, ONES, True, None, (2, 2), 3)) is False


# a numerator or denominator that is not an int is malformed, never rounded: z = (2.9, 2)/3 is not
# the solution (2, 2)/3, though int(2.9) = 2 would make the identity hold (session 23: the check
# used to apply int() to every numerator, so a claim stating z_0 = 2.9/3 verified in memory)
def test_numerators_and_denominator_are_ints_not_rounded():
    sh = GridShape(2, 1, "manhattan", F(1))
    assert check_grid_point_exact(GridPointExactClaim(sh, HALF, ONES, True, None, (2, 2), 3))
    for nums, den in (((2.9, 2), 3), ((F(2), 2), 3), ((True, 2), 3), ((2, 2), 3.0), ((2, 2), F(3)), ((2, 2), True)):
        assert check_grid_point_exact(GridPointExactClaim(sh, HALF, ONES, True, None, nums, den)) is False


# kills "line 185: Lt -> LtE" and "line 185: 1 -> 2": z = (1, 1) has denominator 1, legal; and
# "line 182: True -> False": a denominator that is not an integer is malformed (no rounding)
def test_denominator_one_is_read_and_a_fraction_is_refused():
    sh = GridShape(2, 1, "manhattan", F(1))
    rhs = (F(3, 2), F(3, 2))  # Φ·(1, 1) at T = 1/2
    doc = write_grid_point_exact(GridPointExactClaim(sh, HALF, rhs, True, None, (1, 1), 1))
    assert verify_document(doc).verified
    assert read_grid_point_exact(doc).denominator == 1
    for where, value in (("denominator", "3/2"), ("numerators", ["1/2", "1"])):
        bad = copy.deepcopy(doc)
        bad["evidence"][where] = value
        with pytest.raises(InvalidArgument):
            read_grid_point_exact(bad)
    zero = copy.deepcopy(doc)
    zero["evidence"]["denominator"] = "0"
    with pytest.raises(InvalidArgument, match="denominator"):
        read_grid_point_exact(zero)


# kills "line 71: 1 -> 2", "line 71: 28 -> 29" and the formula mutants of lines 128–129 ("16 ->
# 17", "8 -> 9", "Add -> Sub", "2 -> 3", "Sub -> Add"): on three shapes, the largest numerator
# size whose product fits 2^28 is read and one more bit is refused
@pytest.mark.parametrize("W,H,u,a", [(400, 400, F(1, 2), 1), (200, 150, F(2, 7), 3), (1000, 1, F(5, 9), 2)])
def test_exact_work_limit_at_its_edge(W, H, u, a):
    assert MAX_EXACT_BYTES == 2**28
    sh = GridShape(W, H, "manhattan", F(a))
    xbits = 0
    while _size(W, H, u, a, xbits + 8) <= 2**28:  # whole bytes first, then bits
        xbits += 8
    while _size(W, H, u, a, xbits + 1) <= 2**28:
        xbits += 1
    assert _size(W, H, u, a, xbits) <= 2**28 < _size(W, H, u, a, xbits + 1) <= 2**29
    require_exact_work(sh, (u, a), xbits)
    with pytest.raises(InstanceTooLarge, match="limit 268435456"):
        require_exact_work(sh, (u, a), xbits + 1)


# kills "line 115: 1 -> 2" and "line 119: 190 -> 191" / "line 119: LtE -> Lt": the refusal names T's
# base exactly (1/2 is "1/2", not its integer part), and shows integers up to 190 bits in full,
# longer ones by their size
def test_refusal_messages_show_the_numbers():
    big = GridShape(2000, 2000, "manhattan", F(1))
    with pytest.raises(InstanceTooLarge, match=r"T = \(1/2\)\^1 "):
        require_exact_work(big, (F(1, 2), 1), 1)
    with pytest.raises(InstanceTooLarge) as full:
        require_exact_work(big, (F(1, 2**189), 1), 1)  # a 190-bit denominator: written out
    assert f"1/{2**189})" in str(full.value)
    with pytest.raises(InstanceTooLarge) as short:
        require_exact_work(big, (F(1, 2**190), 1), 1)  # 191 bits: by its size
    assert "1/⟨191-bit integer⟩)" in str(short.value)
