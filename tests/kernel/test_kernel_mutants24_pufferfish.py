"""Session 24: survivors of the first complete ``scripts/mutation.py`` run on
exactdp/kernel/pufferfish.py (Laplace scale, Wasserstein and population documents).
Each test names the mutants it kills.

Ground truth is worked out in the test:
- at θ = 0 (the θ → 0 limit) the signs are e^ε·Q(x) − P(x) on the rational masses, so a
  mass P(0) = e^ε·Q(0) + δ makes that sign exactly −δ: FAILS, and a ball decides it only
  once its radius (about 2^−prec) is below δ;
- the Bernoulli ratios R_A = (1−p+pu)/(1−q+qu), R_B = (q+(1−q)u)/(p+(1−p)u) (u = e^{h/θ})
  equal e^ε at u_A = (e^ε(1−q) − (1−p))/(p − e^ε q) and u_B = (e^ε p − q)/((1−q) − e^ε(1−p));
  θ* = h/ln min(u_A, u_B) (both ratios increase in u), and at the larger u the other ratio
  is above e^ε;
- the term counts of an expansion: (a + b)^n has n + 1 terms, a product multiplies them.
"""

from __future__ import annotations

import copy
from fractions import Fraction as F

import mpmath
import pytest
import sympy

from exactdp.arithmetic.ball import MAX_PREC
from exactdp.engine.documents import write_scale, write_wasserstein
from exactdp.errors import InstanceTooLarge, InvalidArgument
from exactdp.kernel.jsonio import write_closed_form
from exactdp.kernel.pufferfish import (
    check_pufferfish,
    closed_form_is_least,
    decide_laplace,
    query_laws,
)
from exactdp.kinds import Verdict
from exactdp.spaces.levels import parse_level

FAILS = (Verdict.FAILS, False)
TIGHT = (Verdict.HOLDS, True)


def _near(delta: F) -> tuple[dict[F, F], dict[F, F]]:
    """P, Q at e^ε = 3 (t = 1/3): the signs 3·Q(0) − P(0) = −δ and 3·P(1) − Q(1) = −3δ, the
    other two positive."""
    Q = {F(0): F(1, 4), F(1): F(3, 4)}
    return {F(0): F(3, 4) + delta, F(1): F(1, 4) - delta}, Q


# kills "line 166: return True" (every sum an exact tie): δ = 10^-100 ≈ 2^-332 leaves two
# signs open at 256 bits, the exact tie test must find them nonzero (−δ, −3δ) and 512 bits
# then decide FAILS; "all ties" would make it (HOLDS, tight)
def test_a_sign_256_bits_leave_open_is_not_a_tie():
    P, Q = _near(F(1, 10**100))
    assert decide_laplace(P, Q, F(0), parse_level(t=F(1, 3))) == FAILS
    P, Q = _near(F(0))  # the same masses with δ = 0: two exact ties, HOLDS and tight
    assert decide_laplace(P, Q, F(0), parse_level(t=F(1, 3))) == TIGHT


# kills "line 158: return True" / "False -> True" (a tie declared when neither e^ε nor ε is
# rational, where no tie test exists): at ε = √2, P(0) = e^√2/10 + ~10^-100 (110 digits)
# makes e^ε·Q(0) − P(0) < 0 by ~10^-100, open at 256 bits, decided at 512: FAILS
def test_an_irrational_level_never_declares_a_tie():
    with mpmath.workdps(150):
        p0 = F(int(mpmath.floor(mpmath.exp(mpmath.sqrt(2)) / 10 * 10**110)), 10**110) + F(1, 10**100)
    P, Q = {F(0): p0, F(1): 1 - p0}, {F(0): F(1, 10), F(1): F(9, 10)}
    assert decide_laplace(P, Q, F(0), parse_level(eps=sympy.sqrt(2))) == FAILS


# kills "line 224: LtE -> Lt" (MAX_PREC = 4096 bits never tried) and "line 224: And -> Or"
# (the loop going on past MAX_PREC): δ = 2^-3000 is decided at 4096 bits and not at 2048;
# δ = 2^-5000 is open at 4096 bits (undecided: None) and would be decided at 8192
def test_the_last_precision_is_max_prec_and_no_further():
    level = parse_level(t=F(1, 3))
    assert decide_laplace(*_near(F(1, 2**3000)), F(0), level) == FAILS
    assert decide_laplace(*_near(F(1, 2**5000)), F(0), level) is None


def _bernoulli(p: F, q: F) -> tuple[dict[F, F], dict[F, F]]:
    return {F(0): 1 - p, F(1): p}, {F(0): 1 - q, F(1): q}


# p = 9/10, q = 1/5, h = 1, ε = 1: u_A = (8e − 1)/(9 − 2e) ≈ 5.82, u_B = (9e − 2)/(8 − e) ≈ 4.25,
# so θ* = 1/ln u_B and at θ_A = 1/ln u_A (< θ*) R_A = e but R_B > e
THETA_B = 1 / sympy.log((9 * sympy.E - 2) / (8 - sympy.E))
THETA_A = 1 / sympy.log((8 * sympy.E - 1) / (9 - 2 * sympy.E))


# kills "line 283: return True" (the other ratio never compared with e^ε): θ_A makes R_A = e
# identically but is not the least scale
def test_the_binding_ratio_must_be_the_larger_one():
    P, Q = _bernoulli(F(9, 10), F(1, 5))
    level = parse_level(eps=1)
    assert float(THETA_A) < float(THETA_B)
    assert closed_form_is_least(P, Q, level, THETA_B) is True
    assert closed_form_is_least(P, Q, level, THETA_A) is False


# kills "line 271: Or -> And" (a three-point union read as the Bernoulli one at its first two
# points): the masses at the middle point are those of the two-point case above, so the
# two-point identity holds for θ_B, which is not θ* of the three-point pair
def test_a_three_point_union_has_no_bernoulli_closed_form():
    P = {F(0): F(1, 20), F(1): F(9, 10), F(2): F(1, 20)}
    Q = {F(0): F(3, 5), F(1): F(1, 5), F(2): F(1, 5)}
    assert closed_form_is_least(P, Q, parse_level(eps=1), THETA_B) is False


# kills "line 277: return True" / "False -> True" (a big power in h/θ accepted): 1/(65·ln 2)
# gives exp(65·log 2), refused before sympy would evaluate 2**65. (Here the identity would be
# false anyway, so this pins the mutants' True, not the refusal itself.)
def test_a_big_power_in_the_argument_is_refused():
    P, Q = _bernoulli(F(9, 10), F(1, 5))
    assert closed_form_is_least(P, Q, parse_level(eps=1), 1 / (65 * sympy.log(2))) is False


def _wasserstein(theta: str | None = None) -> dict:
    """δ_1 against δ_0 at ε = 1: W1 = W∞ = 1, θ = 1 (optionally a claimed θ text)."""
    doc = write_wasserstein({F(1): F(1)}, {F(0): F(1)}, parse_level(eps=1), 1, sympy.Integer(1), F(1), F(1))
    if theta is not None:
        doc["claim"]["theta"] = theta
    return doc


# kills "line 121: Gt -> GtE" (MAX_TERMS = 2000 terms refused) and "line 114: 1 -> 2" (every
# atom counted twice): θ − 1 = (1 + e)^49·(1 + π)^39 expands to exactly 50·40 = 2000 terms,
# within the limit: the identity is decided (False: θ ≠ 1); one more power is over it, which
# also kills two "line 113: 1 -> 2" (b == 2 counted 1; comb(n + b − 2, n)): (1 + π)^40 must
# count 41 terms
def test_an_identity_of_exactly_max_terms_is_decided():
    assert check_pufferfish(_wasserstein("1 + (1 + E)**49*(1 + pi)**39")) is False
    with pytest.raises(InstanceTooLarge, match="MAX_TERMS"):
        check_pufferfish(_wasserstein("1 + (1 + E)**49*(1 + pi)**40"))  # 50·41 = 2050


# kills "line 113: Or -> And" and the "line 113: 1 -> 2" of "return 2" (a power with
# |exponent| < 2 counted as b or 2 terms instead of 1): (2 + e + π)^(3/2) stays one factor of
# the 2000-term product
def test_a_fractional_power_counts_one_term():
    assert check_pufferfish(_wasserstein("1 + (1 + E)**49*(1 + pi)**39*(2 + E + pi)**(3/2)")) is False


def _law(xs: list) -> dict:
    return {"support": [str(x) for x in xs], "probs": [str(F(1, len(xs)))] * len(xs)}


# kills "line 99: LtE -> Lt" twice (a zero mass accepted; a repeated support point accepted)
def test_laws_take_rational_points_and_refuse_zero_masses_and_repeated_points():
    doc = _wasserstein()
    doc["question"]["P"] = {"support": ["1/2"], "probs": ["1"]}
    doc["claim"].update(theta="1/2", w1="1/2", winf="1/2")
    assert check_pufferfish(doc) is True
    doc = _wasserstein()
    doc["question"]["P"] = {"support": ["1", "2"], "probs": ["1", "0"]}
    with pytest.raises(InvalidArgument, match="masses > 0"):
        check_pufferfish(doc)
    doc["question"]["P"] = {"support": ["1", "1"], "probs": ["1/2", "1/2"]}
    with pytest.raises(InvalidArgument, match="increasing support"):
        check_pufferfish(doc)


# kills "line 349: 6 -> 7" (up to 10^7 releases): 10^6 releases are read, 10^6 + 1 refused
def test_releases_are_at_most_a_million():
    doc = _wasserstein()
    doc["question"]["releases"] = 10**6
    doc["claim"]["theta"] = str(10**6)
    assert check_pufferfish(doc) is True
    doc["question"]["releases"] = 10**6 + 1
    doc["claim"]["theta"] = str(10**6 + 1)
    with pytest.raises(InvalidArgument, match="releases"):
        check_pufferfish(doc)


# kills "line 75: 10000 -> 10001" (MAX_USERS): 10,000 users are read, 10,001 refused
def test_a_population_has_at_most_max_users():
    one = {"dist": _law([0]), "presence": "1"}
    q = {"users": [one] * 10_000, "P": _law([0]), "Q": _law([1])}
    assert query_laws(q) == ({F(0): F(1)}, {F(1): F(1)})
    q["users"] = [one] * 10_001
    with pytest.raises(InstanceTooLarge, match="at most 10000"):
        query_laws(q)


# kills "line 77: 1000000 -> 1000001" and "line 321: Gt -> GtE" (MAX_CONVOLUTION at its edge):
# a 1000-point user (support with 0: 1000 products) then P (500 points) and Q (499):
# 1000 + 1000·999 = 1,000,000 products, accepted; a one-point user first adds 1 product
def test_the_exact_convolution_at_max_convolution():
    user = {"dist": _law(range(1000)), "presence": "1"}
    q = {"users": [user], "P": _law(range(500)), "Q": _law(range(499))}
    P, Q = query_laws(q)
    assert (len(P), len(Q), sum(P.values()), sum(Q.values())) == (1499, 1498, 1, 1)
    q["users"] = [{"dist": _law([0]), "presence": "1"}, user]
    with pytest.raises(InstanceTooLarge, match="MAX_CONVOLUTION = 1000000"):
        query_laws(q)


# kills "line 283: return True" again, through a whole scale document
def test_the_scale_document_of_the_bernoulli_pair_takes_theta_b_only():
    """The same instance as a document: θ_B verifies as the closed form, θ_A does not."""
    P, Q = _bernoulli(F(9, 10), F(1, 5))
    level = parse_level(eps=1)
    lo, hi = F(69, 100), F(70, 100)  # θ* = 1/ln u_B ≈ 0.6908
    assert lo < float(THETA_B) < hi
    doc = write_scale(P, Q, level, 1, (lo, hi), write_closed_form(THETA_B), F(1, 10), 64)
    assert doc["claim"]["closed_form"] is not None
    assert check_pufferfish(doc) is True
    bad = copy.deepcopy(doc)
    bad["claim"]["closed_form"] = write_closed_form(THETA_A)
    assert check_pufferfish(bad) is False


# kills "line 113: Lt -> LtE" and "line 113: 2 -> 3" (a square counted as one term): (2 + e + π)^2
# has 6 terms, so the 2000-term product becomes 12,000 and is refused
def test_a_square_counts_its_terms():
    with pytest.raises(InstanceTooLarge, match="MAX_TERMS"):
        check_pufferfish(_wasserstein("1 + (1 + E)**49*(1 + pi)**39*(2 + E + pi)**2"))


# kills "line 351: True -> False" and "line 359: True -> False" (θ and the closed form read
# without the strict limits): a power beyond 64 is refused in both
def test_claimed_forms_are_read_strictly():
    with pytest.raises(InvalidArgument, match="beyond 64"):
        check_pufferfish(_wasserstein("pi**65"))
    P, Q = _bernoulli(F(9, 10), F(1, 5))
    doc = write_scale(P, Q, parse_level(eps=1), 1, (F(69, 100), F(7, 10)), None, F(1, 10), 64)
    assert check_pufferfish(doc) is True
    doc["claim"]["closed_form"] = "pi**65"
    with pytest.raises(InvalidArgument, match="beyond 64"):
        check_pufferfish(doc)


# kills "line 255: LtE -> Lt" (the width test hi − lo ≤ tol·hi at its edge): θ* ≈ 0.6908 in
# (69/100, 7/10], width 1/100 = tol·hi with tol = 1/70
def test_a_bracket_exactly_as_wide_as_tol_verifies():
    P, Q = _bernoulli(F(9, 10), F(1, 5))
    doc = write_scale(P, Q, parse_level(eps=1), 1, (F(69, 100), F(7, 10)), None, F(1, 70), 64)
    assert check_pufferfish(doc) is True
    doc["evidence"]["tol"] = "1/71"
    assert check_pufferfish(doc) is False


# kills "line 218: Mult -> Div" (rational points scaled down instead of up to integers): δ_{1/2}
# against δ_0 at θ = 1/2 is δ_1 against δ_0 at θ = 1 — loss exactly ε = 1, HOLDS and tight
def test_rational_points_are_scaled_to_integers():
    level = parse_level(eps=1)
    assert decide_laplace({F(1, 2): F(1)}, {F(0): F(1)}, F(1, 2), level) == TIGHT
    assert decide_laplace({F(1): F(1)}, {F(0): F(1)}, F(1), level) == TIGHT


def _ties(ties: int) -> tuple[dict[F, F], dict[F, F]]:
    """500 points, Q uniform; P = 2/500 on ``ties`` points (2·Q − P = 0 exactly there, a tie at
    e^ε = 2) and the rest of P's mass spread evenly on the other points (2·P − Q < 0 there:
    FAILS, decided at 64 bits)."""
    Q = {F(x): F(1, 500) for x in range(500)}
    rest = (1 - F(2 * ties, 500)) / (500 - ties)
    return {F(x): F(2, 500) if x < ties else rest for x in range(500)}, Q


# kills "line 237: LtE -> Lt" (the tie budget len(todo)·m ≤ 50·MAX_TERMS = 100,000 at its edge),
# "line 237: 50 -> 51" and "line 237: And -> Or" (tie tests over the budget): 200 ties × 500
# points = 100,000 are tested (FAILS); 204 × 500 = 102,000 are not: the ties stay open, None
def test_the_tie_budget_at_its_edge():
    level = parse_level(t=F(1, 2))
    assert decide_laplace(*_ties(200), F(0), level) == FAILS
    assert decide_laplace(*_ties(204), F(0), level) is None


def _user(xs: list, probs: list, z: str) -> dict:
    return {"dist": {"support": [str(x) for x in xs], "probs": probs}, "presence": z}


# kills "line 92: False -> True" (a user's law read as integer-supported: the user at 1/2),
# "line 309: 1 -> 2" (a presence above 1), "line 311: Mult -> Div" (mass z/p),
# "line 312: 0 -> 1" (the absent mass put at 1, or an absent 0 read as mass 1) and
# "line 327: And -> Or" (zero products kept as points). Users: {0, 1} halves present with
# ζ = 1/2 → {0: 3/4, 1: 1/4}; {2} with ζ = 1/3 → {0: 2/3, 2: 1/3}; {5} always present → δ_5.
# Sum: {5: 1/2, 6: 1/6, 7: 1/4, 8: 1/12}; P = δ_0, Q = δ_1 shift it by 0 and 1
def test_the_population_sum_exactly():
    q = {"users": [_user([0, 1], ["1/2", "1/2"], "1/2"), _user([2], ["1"], "1/3"), _user([5], ["1"], "1")],
         "P": _law([0]), "Q": _law([1])}
    S = {F(5): F(1, 2), F(6): F(1, 6), F(7): F(1, 4), F(8): F(1, 12)}
    assert query_laws(q) == (S, {x + 1: p for x, p in S.items()})
    q["users"].append(_user(["1/2"], ["1"], "1"))  # every point moves by 1/2
    assert query_laws(q) == ({x + F(1, 2): p for x, p in S.items()}, {x + F(3, 2): p for x, p in S.items()})
    q["users"][0]["presence"] = "3/2"
    with pytest.raises(InvalidArgument, match="presence"):
        query_laws(q)


# kills "line 237: Eq -> NotEq" (the exact tie test at every precision but 256): 200 exact ties
# plus one near tie P(200) = 2/500 + 2^-300 (2·Q − P = −2^-300, open at 256 bits, decided at 512).
# At 256 bits 201 open signs × 500 points exceed the tie budget of 100,000, and the kernel tries
# ties only at 256 bits: the ties stay open, None. Testing them at 512 bits (200 × 500 = 100,000)
# would decide FAILS
def test_ties_are_tried_only_at_256_bits():
    d = F(1, 2**300)
    Q = {F(x): F(1, 500) for x in range(500)}
    rest = (1 - F(402, 500) - d) / 299
    P = {F(x): F(2, 500) if x < 200 else F(2, 500) + d if x == 200 else rest for x in range(500)}
    assert sum(P.values()) == 1
    assert decide_laplace(P, Q, F(0), parse_level(t=F(1, 2))) is None


# kills "line 356: return True" (the Wasserstein document's re-decision at θ = W∞/ε dropped):
# P = {0: η, 1: 1 − η}, η = 2^-4200, against δ_0 at ε = 1: W1 = 1 − η, W∞ = 1, θ = 1. The
# sign e·g_P(0) − g_Q(0) = e·(η + (1 − η)/e) − 1 = η(e − 1) > 0 (and at x = 1, e·g_Q(1) − g_P(1)
# = η(1 − 1/e) > 0) is below what 4096 bits (MAX_PREC) resolve and is not an exact tie, so the
# re-decision is undecided and the document is rejected (the kernel's rule: an undecided sign
# rejects), though θ is sufficient by the theorem. η is tied to MAX_PREC: 104 bits below it
def test_an_undecided_wasserstein_re_decision_rejects():
    assert MAX_PREC == 4096  # η below is 104 bits under it: move η if MAX_PREC grows
    eta = F(1, 2**4200)
    P, Q = {F(0): eta, F(1): 1 - eta}, {F(0): F(1)}
    level = parse_level(eps=1)
    assert decide_laplace(P, Q, F(1), level) is None
    doc = write_wasserstein(P, Q, level, 1, sympy.Integer(1), 1 - eta, F(1))
    assert check_pufferfish(doc) is False
