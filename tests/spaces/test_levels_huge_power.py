"""ε = c·ln(x) with a huge rational c: sympy formed x^c eagerly and hung (found by the
review of the Pufferfish documents, session 8); now a specific error, fast."""

import subprocess
import sys
from fractions import Fraction

import pytest

from exactdp.errors import InvalidPrivacyLevel
from exactdp.spaces.levels import parse_level


@pytest.mark.parametrize("eps", ["100000000000000000000000000000000000*log(3/2)",
                                 "10**35*log(3/2) + 1", "-log(2) + 10**40*log(7)"])
def test_huge_power_level_is_refused(eps):
    with pytest.raises(InvalidPrivacyLevel, match="rational power"):
        parse_level(eps=eps)


def test_moderate_powers_still_exact():
    assert parse_level(eps="1000*log(2)").t == Fraction(1, 2**1000)
    assert parse_level(eps="log(9)/2").t == Fraction(1, 3)


def test_huge_power_level_is_refused_in_a_fresh_process_quickly():
    """The readers of every document kind parse levels with parse_level: a fresh process
    refuses such a level within the timeout instead of hanging."""
    out = subprocess.run([sys.executable, "-c",
                          "from exactdp.spaces.levels import parse_level\n"
                          "try:\n    parse_level(eps='10**50*log(3/2)')\n"
                          "except Exception as e:\n    print(type(e).__name__)"],
                         capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "InvalidPrivacyLevel"
