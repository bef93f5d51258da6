"""Session 22: survivors of the first complete ``scripts/mutation.py`` run on
exactdp/kernel/pufferfish_more.py (discrete Laplace, class laws, class scales, class pairs).
Each test names the mutants it kills.

Ground truth is worked out in the test:
- a class of members with p = 0 or 1 has the loss L(θ) = n₁/θ exactly (n₁ members with
  p = 1), since ln(1 + 1·(e^{1/θ} − 1)) = 1/θ and ln(1 + 0) = 0;
- the work bounds are the documented products: support size × span × bits of α, and
  (n + 1) × Σ count·bits(denominator) over the p strictly between 0 and 1 (at least 1).
"""

from __future__ import annotations

import copy
from fractions import Fraction as F

import pytest

from exactdp.errors import InstanceTooLarge, InvalidArgument
from exactdp.kernel.jsonio import envelope
from exactdp.kernel.pufferfish_more import (
    MAX_BITS,
    MAX_POINTS,
    check_pufferfish_more,
    class_law_work,
    discrete_work,
)
from exactdp.pufferfish import DistributionVsAbsent, bernoulli
from exactdp.pufferfish.class_pairs import class_pair_scale
from exactdp.pufferfish.discrete import discrete_laplace_scale
from exactdp.pufferfish.documents import to_document


def _scale_doc(groups, lo: str, hi: str, tol: str, eps: str = "1"):
    return envelope("pufferfish-class-scale",
                    {"groups": [{"p": p, "count": c} for p, c in groups], "level": {"eps": eps}},
                    {"least": {"lo": lo, "hi": hi}, "closed_form": None}, {"tol": tol, "prec": 0})


# kills "line 226: 0 -> 1" (the exact-tie branch only when every p is 1, so a p = 0 group
# leaves the tie undecided) and "line 241: LtE -> Lt" (the width test hi − lo ≤ tol·hi at its
# edge). Groups p = 0 (1 member) and p = 1 (2 members): L(θ) = 2/θ, so at ε = 1 the least θ
# is exactly 2 = hi (a tie arb cannot decide), L(19/10) = 20/19 > 1, and hi − lo = 1/10 =
# tol·hi with tol = 1/20
def test_an_exact_tie_with_a_zero_group_at_the_width_edge_verifies():
    doc = _scale_doc([("0", 1), ("1", 2)], "19/10", "2", "1/20")
    assert check_pufferfish_more(doc)
    assert not check_pufferfish_more(_scale_doc([("0", 1), ("1", 2)], "19/10", "2", "1/21"))
    assert not check_pufferfish_more(_scale_doc([("0", 1), ("1", 2)], "21/10", "11/5", "1/2"))


def _genuine_discrete():
    """A fresh genuine discrete Laplace document: Bernoulli(1/3) against absent at ε = 1."""
    return to_document(discrete_laplace_scale(DistributionVsAbsent(bernoulli("1/3")), 1))


def _discrete(lo: str, hi: str):
    doc = _genuine_discrete()
    doc["claim"]["least"] = {"lo": lo, "hi": hi}
    doc["claim"]["closed_form"] = None
    return doc


# kills "line 169: return True" and "line 169: False -> True": the bracket of α* must satisfy
# 0 < lo < hi < 1 (α is a discrete Laplace parameter); a reversed or unbounded bracket is
# refused, whatever its ratios say
def test_a_bracket_outside_zero_one_is_refused():
    good = _genuine_discrete()
    assert check_pufferfish_more(good)  # control
    lo, hi = good["claim"]["least"]["lo"], good["claim"]["least"]["hi"]
    for bad in (_discrete(hi, lo), _discrete(lo, "1"), _discrete(lo, "2"), _discrete(lo, lo)):
        try:
            ok = check_pufferfish_more(bad)
        except InvalidArgument:
            ok = False
        assert not ok


# kills "line 156: Mult -> Div" (R·t.num ≤ den·t.den read with a division): at ε = ln(3/2),
# t = 2/3 has numerator 2, so R/2 ≤ 3R' differs from 2R ≤ 3R'; the genuine document verifies
def test_a_rational_t_with_numerator_above_one():
    doc = to_document(discrete_laplace_scale(DistributionVsAbsent(bernoulli("1/3")), "ln(3/2)"))
    assert check_pufferfish_more(doc)


# kills the four mutants of "line 193" ((n + 2), ≥, / and (n − 1) in the limit test) and
# both "line 192: 1 -> 2": class_law_work at exactly MAX_BITS = 2^24 passes, one member more
# raises. [(1/2, 1024), (1, 7167)]: n = 8191, bits = 1024·2 = 2048, (n + 1)·bits = 2^24
def test_class_law_work_at_its_limit():
    assert class_law_work([(F(1, 2), 1024), (F(1), 7167)]) == MAX_BITS == 2**24
    with pytest.raises(InstanceTooLarge, match="MAX_BITS"):
        class_law_work([(F(1, 2), 1024), (F(1), 7168)])
    assert class_law_work([(F(1), 5)]) == 6  # no fractional p: bits = 1
    assert class_law_work([(F(0), 3), (F(1), 5)]) == 6  # p = 0 members add nothing


# kills "line 120: Gt -> GtE" and "line 119: Sub -> Add" (span = last + first): discrete_work
# at exactly MAX_BITS passes, and the span is last − first. α = 1/5 has 1 + 3 = 4 bits
def test_discrete_work_at_its_limit():
    assert discrete_work({F(0): F(1)}, {F(2**21): F(1)}, F(1, 5)) == 2 * 2**21 * 4 == MAX_BITS
    with pytest.raises(InstanceTooLarge, match="MAX_BITS"):
        discrete_work({F(0): F(1)}, {F(2**21 + 1): F(1)}, F(1, 5))
    assert discrete_work({F(5): F(1)}, {F(10): F(1)}, F(1, 5)) == 2 * 5 * 4


# kills "line 260: Sub -> Add" and "line 260: 1 -> 2": the message names the limit it applies
def test_the_class_size_message_names_its_limit():
    doc = envelope("pufferfish-class-pair",
                   {"a": [{"p": "1", "count": MAX_POINTS}], "b": [{"p": "1/2", "count": 1}],
                    "level": {"eps": "1"}},
                   {"least": None, "witness": None}, {"tol": None})
    with pytest.raises(InstanceTooLarge, match=f"at most MAX_POINTS − 1 = {MAX_POINTS - 1}[.]"):
        check_pufferfish_more(doc)


# kills "line 96: True -> False" (a class-scale question with every p = 0 read),
# "line 104: 1 -> 2" (p up to 2 read), "line 168: 1 -> 2" (three ratios read),
# "line 298: True -> False" and "line 300: True -> False" (a non-integer law read): malformed
# documents are refused by the reader (InvalidArgument, exit 3), not read and rejected
def test_malformed_documents_are_refused_by_the_reader():
    law = envelope("pufferfish-class-law", {"groups": [{"p": "1/3", "count": 1}, {"p": "1/2", "count": 1}]},
                   {"numerator": ["1", "3", "2"], "denominator": "6"}, {})
    assert check_pufferfish_more(law)  # control (the module's doctest)
    disc = _genuine_discrete()
    bad = [
        _scale_doc([("0", 3)], "1", "2", "1/2"),
        envelope("pufferfish-class-law", {"groups": [{"p": "3/2", "count": 1}]},
                 {"numerator": ["3", "-1"], "denominator": "2"}, {}),
    ]
    for path, value in ((("claim", "numerator"), ["1", "3", "3/2"]), (("claim", "denominator"), "13/2")):
        d = copy.deepcopy(law)
        d[path[0]][path[1]] = value
        bad.append(d)
    d = copy.deepcopy(disc)
    d["claim"]["ratios"] = d["claim"]["ratios"] + ["1"]
    bad.append(d)
    for doc in bad:
        with pytest.raises(InvalidArgument):
            check_pufferfish_more(doc)


# kills "line 177/178: Eq -> NotEq, 1 -> 2, Sub -> Add" (the closed form's range (lo, 1))
# and "line 179: Div -> Mult, 1 -> 2" (θ = −1/ln α): genuine documents whose closed form α*
# is proved (1/(3e − 2) at ε = 1 for Bernoulli(1/3) against absent, 1/4 at ε = ln 2, …)
@pytest.mark.parametrize("p,eps", [("1/3", 1), ("1/2", "ln(2)"), ("1/3", "ln(3/2)"), ("1/2", 2)])
def test_discrete_documents_with_a_closed_form_verify(p, eps):
    doc = to_document(discrete_laplace_scale(DistributionVsAbsent(bernoulli(p)), eps))
    assert doc["claim"]["closed_form"] is not None and check_pufferfish_more(doc)


# kills "line 168: 1 -> 2" (a bracket with hi up to 2): hi = 1 with its true ratio R(1) = 1
# (h_P = h_Q = 1 at α = 1) is still outside (0, 1)
def test_a_bracket_reaching_one_with_true_ratios_is_refused():
    doc = _genuine_discrete()
    doc["claim"]["least"]["hi"] = "1"
    doc["claim"]["ratios"] = [doc["claim"]["ratios"][0], "1"]
    doc["claim"]["closed_form"] = None
    assert not check_pufferfish_more(doc)


# kills "line 91: 10 -> 11" (counts up to 11^18) and "line 239: 2 -> 3", "line 239: 16 ->
# 17" (the writer's precision note up to 3^16 or 2^17): each reader bound at its edge
def test_reader_bounds_at_their_edges():
    at = _scale_doc([("1", 10**18)], "1", "2", "1/2")
    assert isinstance(check_pufferfish_more(at), bool)
    with pytest.raises(InvalidArgument, match="count"):
        check_pufferfish_more(_scale_doc([("1", 10**18 + 1)], "1", "2", "1/2"))
    doc = _scale_doc([("0", 1), ("1", 2)], "19/10", "2", "1/20")
    for prec, ok in ((2**16, True), (2**16 + 1, False)):
        d = copy.deepcopy(doc)
        d["evidence"]["prec"] = prec
        if ok:
            assert check_pufferfish_more(d)
        else:
            with pytest.raises(InvalidArgument, match="prec"):
                check_pufferfish_more(d)


# kills "line 276: False -> True" (class-pair groups required to have some p > 0): a class
# whose only member has p = 0 (its total is always 0) against Bernoulli(1/2) is a genuine pair
def test_a_pair_with_a_class_that_is_always_zero_verifies():
    doc = to_document(class_pair_scale(["0"], ["1/2"], 1))
    assert check_pufferfish_more(doc)
