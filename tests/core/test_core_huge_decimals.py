"""A decimal with a huge exponent is refused from its digits, not after building 10^|e|."""

from __future__ import annotations

from fractions import Fraction

import pytest

from exactdp.arithmetic.rationals import MAX_DECIMAL_EXPONENT, to_fraction
from exactdp.errors import InvalidArgument
from exactdp.spaces.levels import parse_level


@pytest.mark.parametrize("text", ["1e10000000", "-2.5E+99999999999999999999", "1e-100001",
                                  "3.0e00000000000000000000000100001"])
def test_huge_exponent_refused_naming_the_value(text: str) -> None:
    with pytest.raises(InvalidArgument, match="decimal exponent is beyond"):
        to_fraction(text, "eps")


def test_exponent_at_the_limit_is_read_exactly() -> None:
    assert to_fraction(f"1e-{MAX_DECIMAL_EXPONENT}") == Fraction(1, 10**MAX_DECIMAL_EXPONENT)
    assert to_fraction("1e-400") == Fraction(1, 10**400)
    assert to_fraction("7/1") == 7


def test_a_level_with_a_huge_exponent_is_bad_input() -> None:
    with pytest.raises(InvalidArgument, match="decimal exponent beyond"):
        parse_level(eps="1e10000000")
