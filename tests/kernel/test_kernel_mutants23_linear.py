"""Session 23: tests for the survivors of the first complete ``scripts/mutation.py`` run on
exactdp/kernel/linear.py (262 mutants; session 6 had run a sample of 80). Each test names the
mutants it kills ("line N: change", the tool's description at the time of the run).

Ground truth by hand:

* line(2) with b = (1, −1): Φ = [[1, s], [s, 1]], x = (1, −1)/(1 − s) — the claim "fails" is
  true at every level (x_1 < 0, det Φ = 1 − s² ≠ 0); at ε = 1/2, s = e^{−1/2} is irrational,
  so det Φ ≠ 0 is proved in balls at the stated precision;
* line(1): Φ = [1], x = b: N = (1,), D = 1 — a constant denominator.

The run also found a defect, fixed in the same commit: a stated precision above
MAX_CHECK_PREC (4096; up to MAX_STATED_PREC = 65536 is legal) made the ball proof of det Φ ≠ 0
give up before trying, so a genuine symbolic "fails" document at an irrational level with
precision 8192 was rejected. It is now tried once at the stated precision, as the enclosure
check already did.
"""

from __future__ import annotations

from fractions import Fraction as F

import mpmath
import pytest

from exactdp.arithmetic.interval import Enclosure
from exactdp.kernel.linear import MAX_CHECK_PREC, MAX_STATED_PREC, LinearClaim, check_linear
from exactdp.spaces.levels import parse_level
from exactdp.spaces.metrics import line

IRRATIONAL = parse_level(eps="1/2")
HALF = parse_level(t="1/2")
B = (F(1), F(-1))


def _fails(precision, level=IRRATIONAL, witness=1):
    ev = {"numerators": ((1,), (-1,)), "denominator": (-1, 1), "precision": precision, "witness": witness}
    return check_linear(LinearClaim("symbolic", line(2), level, B, False, ev))


# kills "line 162: LtE -> Lt" (no ball solve at a stated precision equal to the cap), and pins the
# fix above (a stated precision over the cap is tried once)
@pytest.mark.parametrize("precision", [2, 64, MAX_CHECK_PREC - 1, MAX_CHECK_PREC, MAX_CHECK_PREC + 1,
                                       2 * MAX_CHECK_PREC, MAX_STATED_PREC])
def test_every_legal_stated_precision_proves_nonsingularity(precision):
    assert _fails(precision)
    assert not _fails(precision, witness=0)  # control: x_0 = 1/(1 − s) > 0 is no witness


# kills "line 275: 2 -> 3" and "line 276: Or -> And": the stated precision must be an int in
# [2, MAX_STATED_PREC] — the bounds are exact, and a malformed one is "not proved" even where the
# level is rational and the precision is never used
@pytest.mark.parametrize("level", [HALF, IRRATIONAL], ids=["rational", "irrational"])
def test_stated_precision_bounds_are_exact(level):
    ones = {"numerators": ((1,), (1,)), "denominator": (1, 1), "witness": None}  # x = (1, 1)/(1 + s) ≥ 0
    assert _fails(2, level) and _fails(MAX_STATED_PREC, level)
    assert all(check_linear(LinearClaim("symbolic", line(2), level, (F(1), F(1)), True, {**ones, "precision": p}))
               for p in (2, MAX_STATED_PREC))
    for bad in (1, 0, -64, MAX_STATED_PREC + 1, True, 64.0, "64", None):
        assert not _fails(bad, level), bad
        assert not check_linear(LinearClaim("symbolic", line(2), level, (F(1), F(1)), True, {**ones, "precision": bad}))


# kills "line 276: Lt -> LtE" (a constant denominator refused): line(1) has x = b, D = 1
def test_a_constant_denominator_is_a_denominator():
    for level in (HALF, IRRATIONAL):
        ev = {"numerators": ((1,),), "denominator": (1,), "precision": 64, "witness": None}
        assert check_linear(LinearClaim("symbolic", line(1), level, (F(1),), True, ev))
        assert not check_linear(LinearClaim("symbolic", line(1), level, (F(-1),), True, ev))  # N ≠ D·b
        neg = {**ev, "numerators": ((-1,),), "witness": 0}
        assert check_linear(LinearClaim("symbolic", line(1), level, (F(-1),), False, neg))
    zero = {"numerators": ((1,),), "denominator": (0,), "precision": 64, "witness": None}
    assert not check_linear(LinearClaim("symbolic", line(1), HALF, (F(1),), True, zero))  # D = 0


# kills "line 255: And -> Or": at ε = 2^-60 every entry e^{-ε} of Φ rounds to the float 1.0, so
# numpy cannot invert the float midpoints (LinAlgError) and the check falls back to the arb
# inverse. x = (1, 1)/(1 + e^{-ε}) ≈ (1/2, 1/2) lies in [2/5, 3/5]: the claim is true
@pytest.mark.parametrize("kind", ["ball", "verified-float"])
def test_a_float_singular_midpoint_matrix_falls_back_to_arb(kind):
    tiny = parse_level(eps=F(1, 2**60))
    for precision in (53, 64):
        ev = {"enclosure": (Enclosure(F(2, 5), F(3, 5)),) * 2, "precision": precision, "witness": None}
        assert check_linear(LinearClaim(kind, line(2), tiny, (F(1), F(1)), True, ev))
        off = {**ev, "enclosure": (Enclosure(F(1, 5), F(2, 5)),) * 2}  # control: does not hold x
        assert not check_linear(LinearClaim(kind, line(2), tiny, (F(1), F(1)), True, off))


# kills "line 265: 1 -> 2" (a leading zero accepted in a two-coefficient list): one spelling per
# polynomial, leading coefficient nonzero — (0, 1) is the constant 1 written twice as long
def test_a_two_coefficient_list_with_a_leading_zero_is_not_a_polynomial():
    ones = {"numerators": ((1,), (1,)), "denominator": (1, 1), "witness": None, "precision": 64}
    assert check_linear(LinearClaim("symbolic", line(2), HALF, (F(1), F(1)), True, ones))
    for nums, den in ((((0, 1), (1,)), (1, 1)), (((1,), (1,)), (0, 1, 1)), (((0, 1), (0, 1)), (1, 1))):
        assert not check_linear(LinearClaim("symbolic", line(2), HALF, (F(1), F(1)), True,
                                            {**ones, "numerators": nums, "denominator": den}))
    assert check_linear(LinearClaim("symbolic", line(2), HALF, (F(0), F(0)), True,
                                    {**ones, "numerators": ((0,), (0,))}))  # (0,) is the zero polynomial


# kills "line 332: 0 -> 1" (the variant v < 1, which reads a ball around 0 as a decided sign):
# on line(2) with b = (L, M), x = (L − Ms, M − Ls)/(1 − s²). M/L = 3459501891521/5703754354578
# is a continued-fraction convergent of s = e^{−1/2} from below: M − Ls ≈ −8.7·10⁻¹⁴ (checked
# at 60 digits below), so x_1 < 0 and "holds" is false. At 64 bits N_1(s) = M − Ls is a ball
# around 0 (cancellation of two 2^42-size terms), so the sign is undecided and "holds" must not
# verify; at 128 bits "fails" with witness 1 is proved
def test_an_undecided_sign_is_never_read_as_nonnegative():
    mpmath.mp.dps = 60
    M, L = 3459501891521, 5703754354578
    assert -1e-13 < M - L * mpmath.exp(mpmath.mpf(-1) / 2) < -8e-14
    base = {"numerators": ((-M, L), (-L, M)), "denominator": (-1, 0, 1)}
    for precision in (24, 53, 64, 128, 256):
        holds = {**base, "precision": precision, "witness": None}
        assert not check_linear(LinearClaim("symbolic", line(2), IRRATIONAL, (F(L), F(M)), True, holds))
    fails = {**base, "precision": 128, "witness": 1}
    assert check_linear(LinearClaim("symbolic", line(2), IRRATIONAL, (F(L), F(M)), False, fails))
    assert not check_linear(LinearClaim("symbolic", line(2), IRRATIONAL, (F(L), F(M)), False,
                                        {**fails, "precision": 64}))  # undecided at 64 bits: not proved
