"""Conservative and exact Laplace scales: closed forms, root finding, necessity, sufficiency."""

from __future__ import annotations

from fractions import Fraction as F

import mpmath
import pytest
import sympy
from hypothesis import example, given, settings
from hypothesis import strategies as st

from exactdp.arithmetic.ball import workprec
from exactdp.errors import (
    InvalidArgument,
    InvalidPrivacyLevel,
    InvalidScale,
    InvalidTolerance,
)
from exactdp.pufferfish import (
    DiscreteDistribution,
    DistributionPair,
    DistributionVsAbsent,
    Population,
    User,
    ValuePair,
    ValueVsAbsent,
    Verdict,
    bernoulli,
    certify,
    closed_forms,
    conservative_scale,
    exact_scale,
    point_mass,
)
from exactdp.pufferfish.loss import decide_loss
from exactdp.spaces.levels import parse_level

probs = st.fractions(min_value=0, max_value=1, max_denominator=40)
epsilons = st.fractions(min_value=F(1, 20), max_value=3, max_denominator=20)


# ---------------------------------------------------------------- hand-derived values
def test_bernoulli_vs_absent_at_ln2_is_one_over_ln3() -> None:
    # by hand: u_A = 1 + (E − 1)/p = 1 + 1/(1/2) = 3
    r = exact_scale(DistributionVsAbsent(bernoulli("1/2")), "ln(2)")
    assert sympy.simplify(r.theta_expr - 1 / sympy.log(3)) == 0
    mpmath.mp.dps = 40
    val = 1 / mpmath.log(3)
    assert r.verify() and mpmath.mpf(r.lo.numerator) / r.lo.denominator < val
    assert val < mpmath.mpf(r.hi.numerator) / r.hi.denominator


def test_symmetric_bernoulli_pair_by_hand() -> None:
    # p = 3/4, q = 1/4, E = 2: u_A = (2·3/4 − 1/4)/(3/4 − 1/2) = 5 = u_B
    r = exact_scale(DistributionPair(bernoulli("3/4"), bernoulli("1/4")), "ln(2)")
    assert sympy.simplify(r.theta_expr - 1 / sympy.log(5)) == 0
    assert r.verify()


def test_zero_noise_when_pmf_ratio_already_within_e_eps() -> None:
    # p/q = 2 ≤ E = 2 and (1−q)/(1−p) = 3/2 ≤ 2: no noise is needed at all
    r = exact_scale(DistributionPair(bernoulli("1/2"), bernoulli("1/4")), "ln(2)")
    assert r.zero_noise and not r.identical and r.lo == r.hi == 0 and r.verify()
    # a tiny θ really is private (every θ > 0 is)
    d = decide_loss(bernoulli("1/2"), bernoulli("1/4"), F(1, 10), parse_level(eps="ln(2)"))
    assert d.verdict is Verdict.HOLDS
    # just below ln 2 the same pair needs noise
    r2 = exact_scale(DistributionPair(bernoulli("1/2"), bernoulli("1/4")), "69/100")
    assert not r2.zero_noise and r2.lo > 0


def test_identical_distributions_give_theta_zero_said_plainly() -> None:
    r = exact_scale(DistributionPair(bernoulli("1/3"), bernoulli("1/3")), 1)
    assert r.identical and r.zero_noise and r.theta_expr == 0 and r.verify()
    assert exact_scale(ValuePair(2, 2), 1).identical


@settings(max_examples=40, deadline=None)
@given(st.fractions(-20, 20, max_denominator=7), st.fractions(-20, 20, max_denominator=7),
       epsilons)
@example(F(1), F(0), F(1))
def test_value_pairs_reduce_to_distance_over_eps(a: F, b: F, eps: F) -> None:
    e = sympy.Rational(eps.numerator, eps.denominator)
    want = sympy.Rational(abs(a - b)) / e
    r = exact_scale(ValuePair(a, b), eps)
    c = conservative_scale(ValuePair(a, b), eps)
    assert c.theta == want and c.verify()
    if a == b:
        assert r.identical
        return
    assert sympy.simplify(r.theta_expr - want) == 0 and r.verify()
    ra = exact_scale(ValueVsAbsent(a), eps)
    if a != 0:
        assert sympy.simplify(ra.theta_expr - sympy.Rational(abs(a)) / e) == 0
        assert conservative_scale(ValueVsAbsent(a), eps).theta == sympy.Rational(abs(a)) / e


# ---------------------------------------------------------------- closed form vs root finding
@settings(max_examples=30, deadline=None)
@given(probs, probs, epsilons)
@example(F(1, 2), F(0), F(1))
@example(F(9, 10), F(1, 10), F(1, 20))
def test_closed_form_agrees_with_certified_root_finding(p: F, q: F, eps: F) -> None:
    pair = DistributionPair(bernoulli(p), bernoulli(q))
    cf = exact_scale(pair, eps, method="closed_form")
    rf = exact_scale(pair, eps, method="root_finding")
    assert cf.zero_noise == rf.zero_noise
    if cf.zero_noise:
        return
    assert cf.verify() and rf.verify()
    with workprec(128):
        assert cf.ball(128) > 0
    # the closed form's value lies in the root-finding bracket
    mpmath.mp.dps = 40
    lo = mpmath.mpf(rf.lo.numerator) / rf.lo.denominator
    hi = mpmath.mpf(rf.hi.numerator) / rf.hi.denominator
    val = mpmath.mpf(str(sympy.N(cf.theta_expr, 40)))
    assert lo < val <= hi
    # and the exact θ never exceeds the conservative one (1/ε for p ≠ q)
    cons = conservative_scale(pair, eps)
    assert cons.theta == 1 / sympy.Rational(eps.numerator, eps.denominator)
    assert rf.hi <= F(1) / eps * (1 + F(1, 10**9))


def test_closed_forms_dictionary_substitutes_to_the_same_values() -> None:
    cf = closed_forms()
    p, q, e = sympy.symbols("p q epsilon", positive=True)
    # p = 3/10, q = 1/10, ε = 1: 3/10 > e/10 so u_A is finite; 9/10 > 7e/10? no (e ≈ 2.718)
    sub = {p: sympy.Rational(3, 10), q: sympy.Rational(1, 10), e: 1}
    r = exact_scale(DistributionPair(bernoulli("3/10"), bernoulli("1/10")), 1)
    assert sympy.simplify(cf["theta_A"].subs(sub) - r.theta_expr) == 0
    assert bool(cf["cond_A"].subs(sub)) and not bool(cf["cond_B"].subs(sub))
    sub2 = {p: sympy.Rational(2, 5), e: sympy.log(3)}
    r2 = exact_scale(DistributionVsAbsent(bernoulli("2/5")), "ln(3)")
    assert sympy.simplify(cf["theta_absent"].subs(sub2) - r2.theta_expr) == 0


# ---------------------------------------------------------------- necessity and sufficiency
@settings(max_examples=20, deadline=None)
@given(probs, probs, epsilons, st.integers(-5, 5), st.sampled_from([0, 1]))
def test_point_mass_rest_is_tight_at_the_exact_theta(
    p: F, q: F, eps: F, r: int, zeta: int
) -> None:
    pair = DistributionPair(bernoulli(p), bernoulli(q))
    ex = exact_scale(pair, eps)
    if ex.zero_noise:
        return
    # a rest that is a point mass (one user always reporting r, or absent)
    pop = Population([User(point_mass(r), zeta)])
    at_lo = certify(pop, pair, ex.lo, eps, least=False)
    at_hi = certify(pop, pair, ex.hi, eps, least=False)
    assert at_lo.verdict is Verdict.FAILS  # necessity: any smaller θ fails
    assert at_hi.verdict is Verdict.HOLDS
    assert at_lo.verify() and at_hi.verify()


@settings(max_examples=15, deadline=None)
@given(
    probs,
    probs,
    epsilons,
    st.lists(st.tuples(probs, probs), min_size=1, max_size=4),
)
def test_every_population_tried_is_private_at_the_exact_theta(
    p: F, q: F, eps: F, others: list[tuple[F, F]]
) -> None:
    pair = DistributionPair(bernoulli(p), bernoulli(q))
    ex = exact_scale(pair, eps)
    if ex.zero_noise:
        return
    pop = Population.bernoulli([a for a, _ in others], [z for _, z in others])
    c = certify(pop, pair, ex.hi, eps)
    assert c.verdict is Verdict.HOLDS
    # the population-specific least θ is never larger than the independent one ...
    assert c.population_theta is not None and c.independent_theta is not None
    assert c.population_theta.lo < c.independent_theta.hi
    # ... and the independent one is the same whatever the population
    assert (c.independent_theta.lo, c.independent_theta.hi) == (ex.lo, ex.hi)
    assert c.verify()


def test_other_users_and_presence_do_not_change_the_independent_theta() -> None:
    pair = DistributionVsAbsent(bernoulli("3/10"))
    base = exact_scale(pair, "1/2")
    pops = [
        Population([]),
        Population.bernoulli(["1/2"] * 5, ["1/3"] * 5),
        Population([User(DiscreteDistribution.from_dict({-2: "1/4", 7: "3/4"}), "9/10")]),
    ]
    for pop in pops:
        c = certify(pop, pair, base.hi, "1/2")
        assert c.independent_theta is not None and c.population_theta is not None
        assert (c.independent_theta.lo, c.independent_theta.hi) == (base.lo, base.hi)
        assert c.private
        # Bernoulli pairs bind at the two tails, where the rest's factor cancels
        # (f(y|s) ∝ e^{±y/θ}·E[e^{∓R/θ}]·Σ_d P(d)e^{∓d/θ} as y → ∓∞): every bounded
        # population needs exactly the population-independent θ
        pt = c.population_theta
        assert pt.lo < base.hi and base.lo < pt.hi


def test_population_specific_theta_can_be_smaller_for_an_interior_supremum() -> None:
    # D = ±1 with probability 1/2 each, against absent: by hand the worst output is
    # x = 0, where g_⊥(0)/g_P(0) = 1/e^{-1/θ}, so θ* = 1/ε = W_∞/ε (conservative is tight)
    pair = DistributionVsAbsent(DiscreteDistribution.from_dict({-1: "1/2", 1: "1/2"}))
    ind = exact_scale(pair, 1)
    assert ind.lo < 1 <= ind.hi and ind.worst_point_lo == 0
    # four fair Bernoulli users blur the interior peak: strictly less noise suffices
    c = certify(Population.bernoulli(["1/2"] * 4), pair, F(3, 4), 1)
    assert c.private and c.population_theta is not None
    assert c.population_theta.hi < F(3, 4) < ind.lo
    assert c.verify()
    # with nobody else (point-mass rest) θ = 3/4 is not enough
    assert not certify(Population([]), pair, F(3, 4), 1, least=False).private


# ---------------------------------------------------------------- general distributions
small_dists = st.lists(
    st.tuples(st.integers(-4, 4), st.integers(1, 6)), min_size=1, max_size=4
).map(lambda xs: DiscreteDistribution.from_pairs(
    (v, F(w, sum(w2 for _, w2 in xs))) for v, w in xs))


@settings(max_examples=20, deadline=None)
@given(small_dists, small_dists, epsilons)
def test_general_root_finding_is_certified_and_below_conservative(
    P: DiscreteDistribution, Q: DiscreteDistribution, eps: F
) -> None:
    pair = DistributionPair(P, Q)
    ex = exact_scale(pair, eps)
    cons = conservative_scale(pair, eps)
    assert cons.verify()
    if ex.zero_noise:
        assert P == Q or all(P.pmf(s) > 0 and Q.pmf(s) > 0 for s in P.support + Q.support)
        return
    assert ex.verify()
    assert ex.hi <= cons.winf / eps * (1 + F(1, 10**9))
    # independent check by dense high-precision sampling at hi: never above ε
    mpmath.mp.dps = 30
    th = mpmath.mpf(ex.hi.numerator) / ex.hi.denominator

    def g(d: DiscreteDistribution, x: mpmath.mpf) -> mpmath.mpf:
        return sum(mpmath.mpf(p.numerator) / p.denominator
                   * mpmath.exp(-abs(x - mpmath.mpf(s.numerator) / s.denominator) / th)
                   for s, p in zip(d.support, d.probs))

    worst = max(abs(mpmath.log(g(P, x) / g(Q, x)))
                for x in (mpmath.mpf(k) / 8 for k in range(-48, 49)))
    assert worst <= mpmath.mpf(eps.numerator) / eps.denominator


# ---------------------------------------------------------------- bad input
def test_bad_input_errors() -> None:
    pair = DistributionVsAbsent(bernoulli("1/2"))
    with pytest.raises(InvalidPrivacyLevel):
        exact_scale(pair, 0)
    with pytest.raises(InvalidPrivacyLevel):
        conservative_scale(pair, "-1/2")
    with pytest.raises(InvalidScale):
        certify(Population([]), pair, 0, 1)
    with pytest.raises(InvalidScale):
        certify(Population([]), pair, "-1", 1)
    with pytest.raises(InvalidTolerance):
        exact_scale(pair, 1, tol=0)
    with pytest.raises(InvalidArgument):
        exact_scale(DistributionPair(point_mass(0), DiscreteDistribution.from_dict(
            {0: "1/3", 1: "1/3", 2: "1/3"})), 1, method="closed_form")
    with pytest.raises(InvalidArgument):
        exact_scale((bernoulli("1/2"), point_mass(0)), 1)
    with pytest.raises(InvalidArgument):
        exact_scale(pair, 1, method="brent")


# ---------------------------------------------------------------- W1/ε is not enough
@settings(max_examples=20, deadline=None)
@given(st.fractions(F(1, 50), F(49, 50), max_denominator=50), epsilons)
def test_w1_over_eps_is_not_private_for_bernoulli_vs_absent(p: F, eps: F) -> None:
    # proofs/pufferfish_bernoulli.py (h): 1 − p + p e^{ε/p} > e^ε by convexity
    pair = DistributionVsAbsent(bernoulli(p))
    w1 = conservative_scale(pair, eps).w1
    assert w1 == p
    c = certify(Population([]), pair, w1 / eps, eps, least=False)
    assert c.verdict is Verdict.FAILS and c.verify()


# ---------------------------------------------------------------- invariances
@settings(max_examples=15, deadline=None)
@given(small_dists, small_dists, epsilons, st.fractions(F(1, 5), 5, max_denominator=7),
       st.fractions(-3, 3, max_denominator=5))
def test_scale_and_shift_invariance(
    P: DiscreteDistribution, Q: DiscreteDistribution, eps: F, h: F, c: F
) -> None:
    # x -> h·x + c maps Laplace(θ) mixtures to Laplace(hθ) mixtures: θ* scales by h
    def move(d: DiscreteDistribution) -> DiscreteDistribution:
        return DiscreteDistribution.from_pairs((h * s + c, p) for s, p in zip(d.support, d.probs))

    a = exact_scale(DistributionPair(P, Q), eps, tol=F(1, 10**9))
    b = exact_scale(DistributionPair(move(P), move(Q)), eps, tol=F(1, 10**9))
    assert a.zero_noise == b.zero_noise
    if not a.zero_noise:
        assert h * a.lo < b.hi and b.lo < h * a.hi
        assert b.verify()


def test_exact_scale_json_round_trip_verifies() -> None:
    from exactdp.pufferfish.calibration import ExactScale

    pair = DistributionPair(DiscreteDistribution.from_dict({"-1/3": "1/4", "5/2": "3/4"}),
                            DiscreteDistribution.from_dict({0: "1/2", 1: "1/2"}))
    r = exact_scale(pair, "1/3")
    again = ExactScale.from_json(r.to_json())
    assert again == r and again.verify()


@settings(max_examples=15, deadline=None)
@given(small_dists, small_dists, epsilons)
def test_float_guided_and_pure_bisection_brackets_overlap(
    P: DiscreteDistribution, Q: DiscreteDistribution, eps: F
) -> None:
    from exactdp.pufferfish.calibration import is_zero_noise, least_scale

    level = parse_level(eps=eps)
    if P == Q or is_zero_noise(P, Q, level):
        return
    a = least_scale(P, Q, level, tol=F(1, 10**10), guided=True)
    b = least_scale(P, Q, level, tol=F(1, 10**10), guided=False)
    assert a[0] < b[1] and b[0] < a[1]
    for lo, hi in (a[:2], b[:2]):
        assert decide_loss(P, Q, lo, level, direct=True).verdict is Verdict.FAILS
        assert decide_loss(P, Q, hi, level, direct=True).verdict is Verdict.HOLDS
