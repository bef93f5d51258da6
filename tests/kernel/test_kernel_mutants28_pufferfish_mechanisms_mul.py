"""The staircase check's exact recognition of a mirror piece, on unequal weights (session 28).

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
"""

from __future__ import annotations

import pytest

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
