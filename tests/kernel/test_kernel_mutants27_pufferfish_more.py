"""The class-scale check's exact branch, reached by a gap below 2⁻⁴⁰⁹⁶ (session 27, audit 27A).

``_class_holds`` (``exactdp/kernel/pufferfish_more.py``) decides L(θ) ≤ ε by balls up to
MAX_PREC = 4096 bits and, when they leave it open and every p is 0 or 1 with ε rational,
exactly: L(θ) = n₁/θ. Two mutants of that exact branch ("return True", and n₁/(2θ)) were
judged equivalent, on the argument that balls leave the sign open "only at the exact tie". The
audit found that a claim's θ can sit within 2⁻⁵⁰⁰⁰ of the tie — below what 4096 bits resolve —
so the branch also decides false claims, and both mutants accepted one.

Ground truth, by hand: one group p = 1, count 1, at ε = 1 has L(θ) = ln(1 + (e^{1/θ} − 1)) =
1/θ, so the least θ with L(θ) ≤ ε is exactly 1. A claim "least θ ∈ [1/2, hi]" is true iff
hi ≥ 1.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from exactdp.kernel.jsonio import envelope
from exactdp.kernel.pufferfish_more import check_pufferfish_more
from exactdp.kernel.verify import verify_document

GAP = Fraction(1, 2**5000)  # far below 2^-4096: 4096-bit balls of 1/θ − 1 contain 0


def _doc(hi: Fraction) -> dict:
    return envelope("pufferfish-class-scale", {"groups": [{"p": "1", "count": 1}], "level": {"eps": "1"}},
                    {"least": {"lo": "1/2", "hi": str(hi)}, "closed_form": None}, {"tol": "3/4", "prec": 0})


def test_a_claim_ending_just_below_the_least_theta_is_refused() -> None:
    assert check_pufferfish_more(_doc(1 - GAP)) is False  # L(hi) = 1/hi > 1 = ε: false


@pytest.mark.parametrize("hi", [Fraction(1), 1 + GAP], ids=["the tie", "just above"])
def test_claims_ending_at_or_just_above_it_verify(hi: Fraction) -> None:
    assert check_pufferfish_more(_doc(hi)) is True  # L(hi) = 1/hi ≤ 1: true, decided exactly


# ---- discrete Laplace: the exact tie at the lower end (audit 27S) ----
# ``_within(R, level)`` (R ≤ e^ε, exact at a rational t) is read both ways: R(hi) ≤ e^ε must
# hold and R(lo) ≤ e^ε must not. Its ``<`` mutant was judged "stricter: sound", but at an
# exact tie R(lo) = e^ε it makes the lower end look failing, so it accepted a false claim.
# Ground truth, by hand: P = δ₁, Q = δ₀ give R(α) = max over s of the two ratios of
# α^{|s−1|} and α^{|s|} = 1/α, and e^ε = 3 at t = 1/3, so α* = 1/3 exactly.


def _discrete(lo: str, hi: str) -> dict:
    return envelope("pufferfish-discrete-laplace",
                    {"P": {"support": ["1"], "probs": ["1"]}, "Q": {"support": ["0"], "probs": ["1"]},
                     "level": {"t": "1/3"}},
                    {"least": {"lo": lo, "hi": hi}, "ratios": [str(1 / Fraction(lo)), str(1 / Fraction(hi))],
                     "closed_form": None}, {})  # R(lo) = 1/lo, R(hi) = 1/hi


def test_a_range_open_at_the_exact_least_alpha_is_refused() -> None:
    assert verify_document(_discrete("1/3", "1/2")).verified is False  # α* = 1/3 ∉ (1/3, 1/2]


def test_ranges_around_the_least_alpha_verify() -> None:
    assert verify_document(_discrete("1/4", "1/3")).verified is True  # α* = 1/3 ∈ (1/4, 1/3]
    assert verify_document(_discrete("1/4", "1/2")).verified is True
