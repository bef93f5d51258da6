"""Review 11D9 M1-M3, m1, m2: the one level / closed-form reader accepts what the library
writes (exp() nested 3 deep, any number of exp() terms; strict Pufferfish forms nested 2
deep), names the limit it applies, and refuses huge powers exp(c·log w) before sympy
evaluates w**c (it hung on c = 10**35)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from exactdp.engine.questions import question_of
from exactdp.errors import InvalidArgument, InvalidPrivacyLevel
from exactdp.kernel.jsonio import dumps, loads
from exactdp.kernel.question import (
    MAX_EXP_DEPTH,
    MAX_STRICT_EXP_DEPTH,
    read_form,
    read_level,
)
from exactdp.kernel.verify import verify_document
from exactdp.mechanisms.constructors import from_rows
from exactdp.mechanisms.privacy import is_private
from exactdp.mechanisms.privacy_json import check_document
from exactdp.pufferfish import DistributionVsAbsent, bernoulli, exact_scale
from exactdp.pufferfish.documents import to_document
from exactdp.spaces.levels import parse_level
from exactdp.spaces.metrics import line
from exactdp.testing.budget import call_budget

FOUR = "exp(1/7) + exp(1/5) + exp(1/3) + exp(1/2)"  # canonical text of a 4-exp() sum


def test_limits_are_the_parents():
    assert (MAX_EXP_DEPTH, MAX_STRICT_EXP_DEPTH) == (3, 2)


@pytest.mark.parametrize("eps", [FOUR, "exp(exp(exp(1/2)))"])
def test_levels_the_parent_wrote_are_read(eps):
    """M2: the parent commit wrote and verified these levels; they are read again."""
    assert read_level({"eps": eps}).eps == parse_level(eps=eps).eps


def test_a_privacy_check_document_with_four_exp_verifies():
    """M2 end to end: check_document writes it and the kernel verifies it."""
    H = from_rows([["3/4", "1/4"], ["1/4", "3/4"]])
    doc = check_document(is_private(H, line(2), eps="exp(1/2)+exp(1/3)+exp(1/5)+exp(1/7)"))
    assert verify_document(loads(dumps(doc))).verified


def test_strict_forms_count_depth_not_exp_terms():
    """M1: the θ* closed form the library writes for ε = exp(1/2)+exp(1/3)+exp(1/5) has 4
    exp() nested 2 deep; the strict (Pufferfish) reader accepts it and still refuses depth 3."""
    form = "1/log(-1 + 2*exp(exp(1/5) + exp(1/3) + exp(1/2)))"
    assert str(read_form(form, "claim.closed_form", strict=True)) == form
    assert read_level({"eps": FOUR}, strict=True) is not None
    with pytest.raises(InvalidArgument, match="3 deep, over the limit of 2"):
        read_form("exp(exp(exp(1/2)))", "claim.theta", strict=True)


@pytest.mark.parametrize("eps, depth", [("exp(exp(exp(exp(1/2))))", 4),
                                        ("1 + exp(exp(exp(exp(exp(1/2)))))", 5)])
def test_towers_are_refused_naming_the_depth(eps, depth):
    """m1: the message gives the real depth and the limit."""
    with pytest.raises(InvalidPrivacyLevel, match=f"{depth} deep, over the limit of 3"):
        read_level({"eps": eps})


@pytest.mark.parametrize("eps", ["exp(1000000*log(3/2))", "exp(10**35*log(3/2))",
                                 "E**(10**35*log(3/2))", "exp(1/2 + 10**35*(log(3) - log(2)))"])
@pytest.mark.parametrize("strict", [False, True])
def test_huge_powers_inside_exp_are_refused_before_sympy_builds_them(eps, strict):
    """M3: exp(c·log w) is the power w**c; beyond 100000 bits it is refused as an
    InvalidPrivacyLevel naming the limit (before: ValueError, or a hang at c = 10**35)."""
    with call_budget(600_000) as seen, pytest.raises(InvalidPrivacyLevel, match="over the limit of 100000 bits"):
        read_level({"eps": eps}, strict=strict)
    assert seen[1] < 2**23  # bytes: the power is never built
    with call_budget(3_000) as seen, pytest.raises(InvalidPrivacyLevel, match="over the limit of 100000 bits"):
        parse_level(eps=eps)
    assert seen[1] < 2**20


@pytest.mark.parametrize("eps", ["exp(40000*log(3/2))", "(3/2)**40000"])
def test_exact_numbers_over_4300_digits_are_refused_by_name(eps):
    """M3: a power within the parser's limit but over Python's 4300-digit str() limit cannot
    be the canonical text of a level (before: ValueError from every reader)."""
    with pytest.raises(InvalidPrivacyLevel, match="over 4300 digits"):
        read_level({"eps": eps})


def test_small_powers_inside_exp_still_parse():
    assert read_level({"eps": "exp(sqrt(2))"}).eps is not None
    assert parse_level(eps="exp(20*log(3/2))").eps_rational == Fraction(3, 2) ** 20


def test_question_of_reads_an_iterator_rhs_once():
    """m2: the parent accepted a generator for a vector right-hand side."""
    b = [Fraction(1), Fraction(-1)]
    q = question_of(line(2), "nonnegative-solution", prior=(x for x in b), eps=1)
    assert q.rhs == tuple(b)


def test_the_scale_writer_leaves_out_a_closed_form_the_kernel_refuses():
    """M1, writer side: at ε = exp(exp(1/2)) the θ* form nests exp() 3 deep, over the strict
    limit; the document used to carry it and the kernel refused the whole document."""
    r = exact_scale(DistributionVsAbsent(bernoulli("1/2")), "exp(exp(1/2))")
    doc = loads(dumps(to_document(r)))
    assert doc["claim"]["closed_form"] is None and doc["claim"]["least"] is not None
    assert verify_document(doc).verified
