"""Session 25: tests for three "sound" survivors of exactdp/kernel/linear.py's mutation run
(session 23), judged then as precisions that only refuse. A precision that only refuses can
still be caught: by a genuine claim that needs it. These claims sit at the top of the
check's precision ladder, where no later step makes up for a lost bit.

Ground truth by hand: line(2) at s = e^{-ε} = 1/2 with b = (1, 1): Φ = [[1, 1/2], [1/2, 1]],
x = (2/3, 2/3). Φ's entries are dyadic, so its balls are exact at every precision, and how
tightly the check can enclose x depends only on its working precisions:

* at a check precision p (the stated one, doubled while ≤ 4096), the midpoints are refined
  at max(2p, p + 64) bits and the residual b − Φm is evaluated at max(2p, p + 64) bits, so the
  enclosure's width is about 2^-2p (measured in session 25: 2^-2048, 2^-4096, 2^-6144, 2^-8192
  at p = 1024, 2048, 3072, 4096);
* a claimed enclosure 2/3 ± 2^-7000 is therefore proved at p = 4096 and at no lower p of the
  ladder (at p = 2048 the radius is about 2^-4096, and at 3072 about 2^-6144).

The limits are written as numbers (4096): the tool rebinds module constants, so an imported
MAX_CHECK_PREC would move with a mutant.
"""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from exactdp.arithmetic.interval import Enclosure
from exactdp.kernel.linear import LinearClaim, check_linear
from exactdp.spaces.levels import parse_level
from exactdp.spaces.metrics import grid, line

HALF = parse_level(t="1/2")
X = F(2, 3)


def _claim(kind, precision, half_width, centre=X):
    enc = (Enclosure(centre - half_width, centre + half_width),) * 2
    ev = {"enclosure": enc, "precision": precision, "witness": None}
    return LinearClaim(kind, line(2), HALF, (F(1), F(1)), True, ev)


def test_the_ground_truth():
    s = F(1, 2)
    assert [X + s * X, s * X + X] == [1, 1]  # Φx = b


# kills "line 226: Mult -> Div" (midpoints refined at max(2/p, p + 64) = p + 64 bits: at
# p = 4096 they are good to about 2^-4160, so no enclosure of radius below 2^-7000 exists) and
# "line 398: Mult -> Div" (the residual b − Φm at p + 64 bits: the same loss); and, from
# p = 1024, "line 215: 2 -> 3" (a ladder 1024, 3072, 9216 that skips 4096: at 3072 the radius
# is about 2^-6144, and 9216 is over the 4096 cap)
@pytest.mark.parametrize("kind", ["ball", "verified-float"])
@pytest.mark.parametrize("precision", [1024, 2048, 4096])
def test_a_tight_enclosure_is_proved_at_the_top_of_the_ladder(kind, precision):
    assert check_linear(_claim(kind, precision, F(1, 2**7000)))


@pytest.mark.parametrize("kind", ["ball", "verified-float"])
def test_controls_the_ladder_cannot_reach_or_that_miss_x(kind):
    # 2^-9000 is below what 4096 bits can enclose (width about 2^-8192): not proved, though true
    assert not check_linear(_claim(kind, 4096, F(1, 2**9000)))
    # a stated precision over the cap is tried once, at that precision: 8192 bits reach 2^-9000
    assert check_linear(_claim(kind, 8192, F(1, 2**9000)))
    # an interval of the same width that misses x by 2^-7000 is refused at every precision
    for precision in (1024, 4096, 8192):
        assert not check_linear(_claim(kind, precision, F(1, 2**7000), centre=X + F(1, 2**6999)))


# ---------------------------------------------------------------- the Kronecker "fails" side
# Ground truth by hand: on line(2) at ε = 2^-3000, s = e^{-ε} and det Φ = 1 − s² ≈ 2^-2999.
# Factor A (b = (1, 1)): x = (1, 1)/(1 + s) ≥ 0, "holds". Factor B (b = (1, 0)):
# x = (1, −s)/(1 − s²), x_1 < 0, "fails". The product grid(2, 2) (Manhattan) with b = (1, 1) ⊗
# (1, 0) fails (proofs/kronecker_split.py), which the kernel accepts only after proving every
# factor's Φ nonsingular in balls from 64 bits, doubled up to 4096 (written as numbers: the tool
# rebinds module constants). det Φ ≈ 2^-2999 is proved at 4096 bits and at no rung below.
def _factors(eps_bits, stated):
    level = parse_level(eps=F(1, 2**eps_bits))
    a = LinearClaim("symbolic", line(2), level, (F(1), F(1)), True,
                    {"numerators": ((1,), (1,)), "denominator": (1, 1), "precision": stated, "witness": None})
    b = LinearClaim("symbolic", line(2), level, (F(1), F(0)), False,  # N = (1, −s), D = 1 − s²
                    {"numerators": ((1,), (-1, 0)), "denominator": (-1, 0, 1), "precision": stated, "witness": 1})
    return level, a, b


# kills "line 354: 64 -> 65" (the ladder 65, 130, …, 2080 ends below 4096) and "line 168: 2 -> 3"
# (the ladder 64, 192, 576, 1728, then 5184 over the cap): both refuse the genuine claim
def test_a_kronecker_failure_needs_the_top_of_the_nonsingularity_ladder():
    level, a, b = _factors(3000, 3200)  # each factor's own check runs at its stated 3200 bits
    assert check_linear(a) and check_linear(b)
    assert check_linear(LinearClaim("kronecker", grid(2, 2, "manhattan"), level, (F(1), F(0), F(1), F(0)), False,
                                    {"factors": (a, b)}))
    assert check_linear(LinearClaim("kronecker", grid(2, 2, "manhattan"), level, (F(1), F(1), F(0), F(0)), False,
                                    {"factors": (b, a)}))
    # control: a "holds" verdict for the same product is refused (factor B fails)
    assert not check_linear(LinearClaim("kronecker", grid(2, 2, "manhattan"), level, (F(1), F(0), F(1), F(0)),
                                        True, {"factors": (a, b)}))


def test_a_kronecker_failure_beyond_the_ladder_is_not_proved():
    # ε = 2^-5000: det Φ ≈ 2^-4999 needs more than 4096 bits; each factor proves itself at its
    # stated 5200 bits, but the product's nonsingularity ladder stops at 4096: not proved (the
    # claim is true; undecided reads as "not proved", never as accepted)
    level, a, b = _factors(5000, 5200)
    assert check_linear(a) and check_linear(b)
    assert not check_linear(LinearClaim("kronecker", grid(2, 2, "manhattan"), level, (F(1), F(0), F(1), F(0)),
                                        False, {"factors": (a, b)}))
