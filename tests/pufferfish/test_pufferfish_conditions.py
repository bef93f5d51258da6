"""The paper's relaxed condition as its own column: value, sufficiency, counterexamples."""

from __future__ import annotations

import random
from dataclasses import replace
from fractions import Fraction as F

import mpmath
import pytest

from exactdp.kinds import Verdict
from exactdp.pufferfish import (
    DiscreteDistribution,
    DistributionPair,
    DistributionVsAbsent,
    bernoulli,
    conservative_scale,
    exact_scale,
)
from exactdp.pufferfish.conditions import relaxed_condition_holds, relaxed_condition_scale


@pytest.fixture(autouse=True)
def _fifty_digits():
    """50 digits for every brute force here (other modules set mpmath's global precision)."""
    with mpmath.workdps(50):
        yield


def test_issue_counterexample_is_certified():
    P = DiscreteDistribution.from_dict({0: "1/2", 2: "1/2"})
    Q = DiscreteDistribution.from_dict({1: "1/2", 2: "1/2"})
    r = relaxed_condition_scale(DistributionPair(P, Q), 1)
    # independent: ½e^{1/θ} + ½ = e at θ = 1/ln(2e − 1)
    assert abs(mpmath.mpf(r.float()) - 1 / mpmath.log(2 * mpmath.e - 1)) < 1e-11
    assert round(r.float(), 5) == 0.67119 and r.sufficient is Verdict.FAILS
    ex = exact_scale(DistributionPair(P, Q), 1)
    assert r.hi < ex.lo and f"{ex.float():.9f}" == "0.848999792"
    assert r.counterexample is not None and not r.counterexample.private and r.verify()


def test_bernoulli_against_absent_relaxed_equals_exact():
    r = relaxed_condition_scale(DistributionVsAbsent(bernoulli("1/10")), 1)
    assert r.equals_exact and r.sufficient is Verdict.HOLDS and r.verify()


def test_relaxed_sits_between_exact_and_conservative_when_sufficient():
    rng = random.Random(5)
    seen = {Verdict.HOLDS: 0, Verdict.FAILS: 0}
    for _ in range(12):
        p, q = F(rng.randint(1, 9), 10), F(rng.randint(0, 9), 10)
        if p == q:
            continue
        pair = DistributionPair(bernoulli(p), bernoulli(q))
        ex, r = exact_scale(pair, 1), relaxed_condition_scale(pair, 1)
        cons = conservative_scale(pair, 1)
        if ex.zero_noise:
            continue
        assert r.hi <= float(cons.theta) * (1 + 1e-12)  # never above W∞/ε (e^{h/θ} averaged)
        if r.sufficient is Verdict.HOLDS:
            assert r.equals_exact or r.lo >= ex.lo
        if r.sufficient is Verdict.FAILS:
            assert r.hi <= ex.hi
        seen[r.sufficient] = seen.get(r.sufficient, 0) + 1
        assert r.verify()
    assert seen[Verdict.HOLDS] > 0


def test_condition_verdict_and_tampering():
    pair = DistributionPair(bernoulli("3/10"), bernoulli("1/10"))
    r = relaxed_condition_scale(pair, 1)
    assert relaxed_condition_holds(pair, r.hi, 1) is Verdict.HOLDS
    assert relaxed_condition_holds(pair, r.lo, 1) is Verdict.FAILS
    assert not replace(r, lo=r.hi * 2, hi=r.hi * 3).verify()
    assert not replace(r, sufficient=Verdict.FAILS).verify()
