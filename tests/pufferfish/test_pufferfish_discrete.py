"""Discrete Laplace (two-sided geometric) noise: exact ratios against brute-force summation."""

from __future__ import annotations

import random
from dataclasses import replace
from fractions import Fraction as F

import mpmath
import pytest
import sympy

from exactdp.errors import InvalidDistribution, InvalidScale
from exactdp.pufferfish import (
    DiscreteDistribution,
    DistributionPair,
    DistributionVsAbsent,
    bernoulli,
    exact_scale,
)
from exactdp.pufferfish.discrete import discrete_laplace_ratio, discrete_laplace_scale


@pytest.fixture(autouse=True)
def _fifty_digits():
    """50 digits for every brute force here (other modules set mpmath's global precision)."""
    with mpmath.workdps(50):
        yield


def _mp(x: F) -> mpmath.mpf:
    return mpmath.mpf(x.numerator) / x.denominator


def _brute_sup(P: DiscreteDistribution, Q: DiscreteDistribution, alpha: F) -> mpmath.mpf:
    """sup over integer outputs y of the pmf ratio of X + Z, by direct summation at 50 digits
    (the noise pmf (1 − α)/(1 + α) α^{|z|} written out; its constant cancels)."""
    a = _mp(alpha)
    c = (1 - a) / (1 + a)

    def pmf(dist: DiscreteDistribution, y: int) -> mpmath.mpf:
        return mpmath.fsum(_mp(w) * c * a ** abs(y - int(d)) for d, w in zip(dist.support, dist.probs))

    return max(max(pmf(P, y) / pmf(Q, y), pmf(Q, y) / pmf(P, y)) for y in range(-80, 81))


def _random_pair(rng: random.Random) -> tuple[DiscreteDistribution, DiscreteDistribution]:
    def law() -> DiscreteDistribution:
        pts = rng.sample(range(-3, 4), rng.randint(1, 3))
        ws = [rng.randint(1, 5) for _ in pts]
        return DiscreteDistribution.from_pairs((p, F(w, sum(ws))) for p, w in zip(pts, ws))

    return law(), law()


def test_exact_ratio_equals_brute_force_summation():
    rng = random.Random(8)
    for _ in range(12):
        P, Q = _random_pair(rng)
        alpha = F(rng.randint(1, 19), 20)
        ratio, _ = discrete_laplace_ratio(P, Q, alpha)
        assert abs(_brute_sup(P, Q, alpha) - _mp(ratio)) < mpmath.mpf(10) ** -40


def test_least_alpha_fails_below_and_holds_above_by_brute_force():
    rng = random.Random(9)
    done = 0
    while done < 5:
        P, Q = _random_pair(rng)
        if P == Q:
            continue
        r = discrete_laplace_scale(DistributionPair(P, Q), 1)
        if r.zero_noise:
            continue
        done += 1
        assert r.verify()
        assert _brute_sup(P, Q, r.alpha_lo) > mpmath.e  # not private just below α*
        assert _brute_sup(P, Q, r.alpha_hi) <= mpmath.e  # private at α_hi


def test_bernoulli_alpha_is_the_inverse_of_u():
    pair = DistributionVsAbsent(bernoulli("1/10"))
    r = discrete_laplace_scale(pair, 1)
    theta = exact_scale(pair, 1).theta_expr
    assert sympy.simplify(r.alpha_expr - sympy.exp(-1 / theta)) == 0
    assert r.alpha_lo < sympy.N(r.alpha_expr, 30) <= r.alpha_hi and r.verify()


def test_tampered_bracket_is_rejected():
    r = discrete_laplace_scale(DistributionVsAbsent(bernoulli("1/2")), 1)
    assert not replace(r, alpha_lo=r.alpha_hi * F(101, 100)).verify()
    assert not replace(r, ratio_hi=r.ratio_lo).verify()


def test_bad_parameters_give_specific_errors():
    half = DiscreteDistribution.from_dict({"1/2": 1})
    with pytest.raises(InvalidDistribution, match="integer values"):
        discrete_laplace_scale(DistributionVsAbsent(half), 1)
    with pytest.raises(InvalidScale, match="alpha"):
        discrete_laplace_ratio(bernoulli("1/2"), bernoulli("1/3"), 1)
    with pytest.raises(InvalidScale, match="alpha"):
        discrete_laplace_ratio(bernoulli("1/2"), bernoulli("1/3"), 0.5)
