"""A level whose ε has more digits than Python's 4300-digit str() limit prints, shortened, and a
question at that level ends in a specific error, not a bare ValueError (review 11R, session 12)."""

from fractions import Fraction

import pytest

import exactdp
from exactdp import metrics
from exactdp.errors import ExactDPError
from exactdp.spaces.levels import parse_level


def test_huge_level_prints_shortened():
    text = str(parse_level(Fraction(1, 10**5000)))
    assert text == "ε = 1/1000000000…000000 (5001 digits)"
    assert str(parse_level(Fraction(3, 7))) == "ε = 3/7"


def test_huge_level_question_raises_a_library_error():
    with pytest.raises(ExactDPError) as info:
        exactdp.tight_constraints(metrics.line(3), eps=Fraction(1, 10**5000), max_prec=256)
    assert "(5001 digits)" in str(info.value)
