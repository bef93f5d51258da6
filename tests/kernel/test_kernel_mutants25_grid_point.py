"""Session 25: a "sound" survivor of exactdp/kernel/grid_point.py (session 21's run), caught by
the closed form's exact value.

``manhattan_lambda_lower`` documents ((1 − t)/(1 + t))² with t ≥ e^{-ε·spacing} rounded up,
to a multiple of 2^-96 (the same rounding ``test_kernel_mutants21`` pins for a tiny t). The
ground truth here is computed without the kernel: e^{-ε·spacing} to 80 digits with mpmath,
then ⌈t·2^96⌉/2^96 in integers. (A 128-bit ball of t whose upper end crossed a multiple of
2^-96 would make the kernel's t one step larger; the chance is about 2^-32 per level, and the
levels below were checked not to.)
"""

from __future__ import annotations

from fractions import Fraction as F

import mpmath
import pytest

from exactdp.kernel import grid_point as gp
from exactdp.kernel.grid_point import manhattan_lambda_lower
from exactdp.spaces.levels import parse_level


def _expected(eps, spacing, bits):
    with mpmath.workdps(80):
        t = mpmath.exp(-mpmath.mpf(eps.numerator) / eps.denominator * spacing.numerator / spacing.denominator)
        top = int(mpmath.ceil(t * 2**bits))
    T = F(top, 2**bits)
    return ((1 - T) / (1 + T)) ** 2


# kills "line 304: 96 -> 97" (t rounded up to a multiple of 2^-97: a larger bound, sound, but not
# the documented closed form — at each of these levels the two roundings differ)
@pytest.mark.parametrize(("eps", "spacing"), [(F(1, 3), F(1)), (F(5, 4), F(1)), (F(1, 2), F(1, 3)),
                                              (F(7, 5), F(2))])
def test_the_bound_is_the_closed_form_at_96_bits(eps, spacing):
    got = manhattan_lambda_lower(parse_level(eps=eps), spacing)
    assert got == _expected(eps, spacing, 96)
    assert got != _expected(eps, spacing, 97)  # the levels tell the two roundings apart
    with mpmath.workdps(80):  # a lower bound, below the unrounded ((1 − t)/(1 + t))² by < 2^-90
        t = mpmath.exp(-mpmath.mpf(eps.numerator) / eps.denominator * spacing.numerator / spacing.denominator)
        gap = ((1 - t) / (1 + t)) ** 2 - mpmath.mpf(got.numerator) / got.denominator
        assert 0 < gap < mpmath.mpf(2) ** -90


# ------------------------------------------------------------------------- _eps_bracket
# The documented precision of the ε bracket (grid_point._eps_bracket): the ends of ε's 128-bit
# ball rounded outward to multiples of 2^-b, b = 64 + max(0, 1 − ⌊log₂ ε⌋). Session 21 pinned
# only a window (about 64 bits, test_kernel_mutants21_grid_point_search.py), inside which the
# ±1-bit variants of line 282 survived. Ground truth here: ε to 80 digits with mpmath, then
# ⌊ε·2^b⌋/2^b and ⌈ε·2^b⌉/2^b in integers, with b from ⌊log₂ ε⌋. That equals ⌊log₂ lo⌋ for the
# ball's lower end lo unless ε is within a relative 2^-127 above a power of two (10^-30 is 1.27
# times 2^-100; the others are farther), and the 128-bit ball rounds to the same multiples of
# 2^-b unless it straddles one (the chance is about 2^-60 per level; the assertions confirm it
# does not here).
def _bracket_expected(eps_mp, floor_log2):
    b = 64 + max(0, 1 - floor_log2)
    with mpmath.workdps(80):
        lo, hi = int(mpmath.floor(eps_mp * 2**b)), int(mpmath.ceil(eps_mp * 2**b))
    return F(lo, 2**b), F(hi, 2**b)


# kills "line 282: 0 -> 1" (max(1, ·): b = 65 from ε ≥ 2), "line 282: 64 -> 65" (b + 1 everywhere),
# "line 282: 1 -> 2" (b = 65 on [2, 4)) and "line 282: Add -> Sub" (b − 2 below 1)
@pytest.mark.parametrize(("level", "eps", "floor_log2"), [
    (dict(eps=F(7, 3)), F(7, 3), 1),            # [2, 4): b = 64
    (dict(eps=F(10**6, 3)), F(10**6, 3), 18),   # far above 2: b = 64
    (dict(eps=F(4, 3)), F(4, 3), 0),            # [1, 2): b = 65
    (dict(t="1/2"), None, -1),                  # ε = ln 2 ∈ [1/2, 1): b = 66
    (dict(eps=F(1, 3)), F(1, 3), -2),           # [1/4, 1/2): b = 67
    (dict(eps=F(1, 10**30)), F(1, 10**30), -100),  # 2^-100 ≤ 10^-30 < 2^-99: b = 165
], ids=["7/3", "1e6/3", "4/3", "ln2", "1/3", "1e-30"])
def test_the_eps_bracket_has_its_documented_precision(level, eps, floor_log2):
    with mpmath.workdps(80):
        eps_mp = mpmath.log(2) if eps is None else mpmath.mpf(eps.numerator) / eps.denominator
        assert mpmath.floor(mpmath.log(eps_mp, 2)) == floor_log2
    assert gp._eps_bracket(parse_level(**level)) == _bracket_expected(eps_mp, floor_log2)
