"""A constant numerator's sign at a low stated precision (session 27, review 27R).

``_negative_at_level`` (``exactdp/kernel/linear.py``) reads the sign of each N_i(s)·D(s)
in balls at the certificate's stated precision and returns None (no verdict) when one is
not separated from 0. The mutants ``p.degree() >= 1`` / ``p.degree() > 0`` skip that
test for constant numerators; they were judged equivalent ("a constant times the
separated D(s) is separated") until the non-author review 27R found that at 2 bits the
rounded product c·D(s) can contain 0 although D(s) is separated. A skipped undecided sign
then reads as "not negative", so a false "holds" claim would verify.

Instance: line(3), b = (−k, 0, k), the symbolic solution N/D with constant numerators
(−k, 0, k) and D = 1 − s² (written (−1, 0, 1), descending). Ground truth, by hand:
x = (−k, 0, k)/(1 − s²) solves Φ(s)x = b for line(3) (Φ = [[1, s, s²], [s, 1, s], [s², s, 1]]:
row 1 gives (−k + k·s²)/(1 − s²) = −k), and 0 < s < 1 makes x₀ < 0, so "holds"
(x ≥ 0) is false for every k ≥ 1 and every level; "fails" with witness 0 is true.
"""

from __future__ import annotations

from fractions import Fraction

import flint
import pytest

from exactdp.arithmetic.ball import Sign, ball_sign, workprec
from exactdp.kernel.linear import LinearClaim, check_linear
from exactdp.spaces.levels import parse_level
from exactdp.spaces.metrics import line

LEVELS = ("1/2", "1", "1/3", "2")
KS = range(1, 16)


def _claim(eps: str, k: int, prec: int, holds: bool) -> LinearClaim:
    ev = {"numerators": ((-k,), (0,), (k,)), "denominator": (-1, 0, 1), "precision": prec,
          "witness": None if holds else 0}
    return LinearClaim("symbolic", line(3), parse_level(eps=eps), (Fraction(-k), Fraction(0), Fraction(k)), holds, ev)


def _straddles(eps: str, k: int, prec: int) -> bool:
    """Some constant numerator's product with D(s) is undecided at ``prec`` although D(s) is not."""
    level = parse_level(eps=eps)
    with workprec(prec):
        sb = level.s_ball(1)
        d = flint.arb_poly([1, 0, -1])(sb)  # 1 − s²
        return ball_sign(d).decided and any(
            ball_sign(flint.arb_poly([c])(sb) * d) is Sign.UNDECIDED for c in (-k, k))


def test_the_construction_reaches_undecided_constant_products() -> None:
    hits = [(e, k) for e in LEVELS for k in KS if _straddles(e, k, 2)]
    assert len(hits) >= 5, hits  # the case the equivalence argument missed


@pytest.mark.parametrize("eps", LEVELS)
def test_false_holds_claims_with_constant_numerators_never_verify(eps: str) -> None:
    for prec in (2, 3, 4, 8):
        for k in KS:
            assert check_linear(_claim(eps, k, prec, True)) is False, (eps, k, prec)


@pytest.mark.parametrize("eps", LEVELS)
def test_the_true_fails_claim_verifies_at_64_bits(eps: str) -> None:
    assert all(check_linear(_claim(eps, k, 64, False)) for k in (1, 5, 15))
