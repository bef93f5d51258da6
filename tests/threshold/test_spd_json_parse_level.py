"""parse_level on huge ε (issue 11): a specific error or the correct level, never an overflow."""

from __future__ import annotations

from fractions import Fraction as F

import pytest
import sympy

import exactdp.spaces.levels as levels
from exactdp.errors import InvalidPrivacyLevel
from exactdp.spaces.levels import parse_level

A, B = F(7, 10**101 + 3), F(3, 10**101 + 11)
RATIO = sympy.Rational((A / B).numerator, (A / B).denominator)


def test_log_of_a_10_101_ratio_over_sqrt5():
    """ε = ln(a/b)/√5 with 10¹⁰¹-size a, b: sympy.simplify(e^-ε) raised OverflowError.
    t = (a/b)^(−1/√5) is transcendental (Gelfond–Schneider), so t is None."""
    eps = sympy.log(RATIO) / sympy.sqrt(5)
    level = parse_level(eps=eps)
    assert level.t is None and level.eps_rational is None and level.eps == eps


def test_rational_t_still_found_for_huge_logs():
    level = parse_level(eps=sympy.log(RATIO))
    assert level.t == 1 / F(RATIO.p, RATIO.q)
    assert parse_level(eps=2 * sympy.log(RATIO)).t == (1 / F(RATIO.p, RATIO.q)) ** 2


@pytest.mark.parametrize("text", ["1e101", "1" + "0" * 101, "10**101", "1e5000"])
def test_huge_decimal_strings_are_exact(text):
    level = parse_level(eps=text)
    assert level.eps_rational is not None and level.eps_rational >= 10**101 and level.t is None


def test_undecidable_t_is_a_specific_error(monkeypatch):
    """When the simplification overflows and ε is not c·ln x with c algebraic irrational,
    the error names the value and the fix (pass t=)."""
    def overflow(_expr):
        raise OverflowError("int too large to convert to float")

    monkeypatch.setattr(levels.sympy, "simplify", overflow)
    with pytest.raises(InvalidPrivacyLevel, match="t = e\\^-ε is rational.*Pass t="):
        parse_level(eps=sympy.pi + sympy.log(RATIO))
    # the Gelfond–Schneider form is still decided without simplify
    assert parse_level(eps=sympy.sqrt(2) * sympy.log(RATIO)).t is None
