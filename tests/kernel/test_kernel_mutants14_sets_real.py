"""Session 14 (14M2's first mutation sample of ``kernel/sets_real.py``): no test claimed an
enclosure exactly as tight as an exact value, so the mutant that made the upper-end test strict
(``<=`` → ``<``) survived. With rational points the kernel's ball is exact and the claim
[d, d] is true: it must verify, and [d, d − 2⁻⁶⁰⁰] must not."""

from __future__ import annotations

import copy
from fractions import Fraction

from exactdp.kernel.jsonio import write_rational
from exactdp.kernel.verify import verify_document
from exactdp.sets._real import hausdorff_distance_certified


def _doc():
    return hausdorff_distance_certified([[0, 0]], [[1, 2]], "l1").to_document()


def test_exact_claim_at_both_ends_verifies():
    doc = copy.deepcopy(_doc())
    doc["claim"]["enclosure"] = {"lo": "3", "hi": "3"}  # d_H = |1| + |2| exactly
    assert verify_document(doc).verified is True


def test_claims_just_beside_the_exact_value_are_rejected():
    tiny = Fraction(1, 2**600)
    for lo, hi in ((3 + tiny, 3 + tiny), (3 - tiny, 3 - tiny), (Fraction(0), 3 - tiny)):
        doc = copy.deepcopy(_doc())
        doc["claim"]["enclosure"] = {"lo": write_rational(lo), "hi": write_rational(hi)}
        assert verify_document(doc).verified is False
