"""The staircase check's piece comparisons, ``below()`` and ``_mul`` (session 28).

**A mirror piece on unequal weights.**
``_check_staircase`` (``exactdp/kernel/pufferfish_mechanisms.py``) must drop from the pieces
still to compare every piece whose ratio is the claimed one's R or 1/R: no ball ever separates
their |ln R|. It decides that exactly, by cross products of the piece polynomials (``_mul``).
Two mutants of ``_mul`` survived every earlier test (open gaps since session 24): ``x / y`` for
``x * y`` and ``out.get(e − f)`` for ``out.get(e + f)``. The earlier mirror test used a
two-term piece b²/3 + 2/3 over 2b²/3 + 1/3, where the mutated "products" of the piece with
itself and of its mirror coincide (swapping two weights leaves w/v + v/w unchanged), so both
mutants still dropped the mirror piece. Three unequal weights break that symmetry: each mutant
keeps the mirror piece, no precision separates it, and the genuine document stays undecided.

Ground truth: Q is P reflected about 1 (Q(d) = P(2 − d)), so the output y and its reflection
2 − y have ratios R and 1/R: the two pieces tie exactly in |ln R|, and the document the writer
makes is genuine (the unmutated kernel must verify it; the ratio of the claim is checked below).

**A claimed ratio of exactly 1 (audit 28P).** ``below()`` drops a piece whose ratio is the
claimed one's, by the exact test k₀·c₁ ≠ k₁·c₀. The mutant ``k[1]`` for ``k[0]`` (line 206,
judged sound until audit 28P) tests k₁·c₁ ≠ k₁·c₀, which is false for every piece when the claim's
numerator equals its denominator: every other piece is dropped, and its balls are read only at
the current precision. At ε = 2⁻¹⁴⁰, 128-bit balls do not separate a loss of 2⁻¹⁴⁰ from 0, so
the mutant accepted "the worst loss is 0" at 128 bits; the kernel keeps the pieces, separates
them at 256 bits and refuses.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from exactdp.engine.documents import write_dist
from exactdp.kernel.jsonio import envelope
from exactdp.kernel.pufferfish_mechanisms import check_pufferfish_mechanisms
from exactdp.pufferfish import DiscreteDistribution
from exactdp.pufferfish.documents import to_document
from exactdp.pufferfish.staircase import staircase_loss

P = ["1/2", "1/3", "1/6"]
Q = list(reversed(P))  # P reflected about 1


@pytest.mark.parametrize(("delta", "gamma", "numerator"), [
    ("1/2", "1/4", ["1/6", "0", "1/3", "0", "1/2"]),
    ("1", "1/4", ["1/6", "1/3", "1/2"]),
    ("1/3", "1/2", ["1/6", "0", "0", "1/3", "0", "0", "1/2"]),
], ids=["delta 1/2", "delta 1", "delta 1/3"])
def test_a_mirror_piece_of_three_unequal_weights_is_recognised(delta: str, gamma: str, numerator: list[str]) -> None:
    laws = (DiscreteDistribution.from_lists([0, 1, 2], P), DiscreteDistribution.from_lists([0, 1, 2], Q))
    doc = to_document(staircase_loss(laws, delta, "1", gamma))
    # the worst piece is a three-term polynomial over its reverse: its mirror has ratio exactly 1/R
    assert doc["claim"]["numerator"] == numerator
    assert doc["claim"]["denominator"] == list(reversed(numerator))
    assert check_pufferfish_mechanisms(doc) is True


def _ratio_one_claim(eps: Fraction) -> dict:
    """P = δ₀, Q = δ₁, Δ = 1, γ = 0: three pieces, outputs −1/2, 1/2, 3/2, with ratios
    P/Q = 1/b, 1, b (b = e^{−ε}), so losses ε, 0, ε. The claim: output 1/2 (ratio 1) is the worst, loss 0."""
    question = {"P": write_dist({Fraction(0): Fraction(1)}), "Q": write_dist({Fraction(1): Fraction(1)}),
                "delta": "1", "eps0": {"eps": str(eps)}, "gamma": "0"}
    claim = {"pieces": 3, "worst_output": "1/2", "numerator": ["1"], "denominator": ["1"], "ratio": None,
             "loss": {"lo": "0", "hi": "0"}}
    return envelope("pufferfish-staircase", question, claim, {"prec": 128})


@pytest.mark.parametrize("eps", [Fraction(1, 2**140), Fraction(1, 2**100), Fraction(1)], ids=["2^-140", "2^-100", "1"])
def test_a_claimed_ratio_of_one_is_not_the_worst_piece(eps: Fraction) -> None:
    # false by hand: the pieces at −1/2 and 3/2 lose ε > 0, above the claimed 0
    assert check_pufferfish_mechanisms(_ratio_one_claim(eps)) is False
