"""Staircase noise: exact piecewise ratios against a 50-digit brute-force scan."""

from __future__ import annotations

import math
import random
from dataclasses import replace
from fractions import Fraction as F

import mpmath
import pytest

from exactdp.arithmetic.interval import Enclosure
from exactdp.errors import InvalidPrivacyLevel, InvalidScale
from exactdp.kinds import Verdict
from exactdp.pufferfish import DiscreteDistribution, ValuePair, wasserstein_inf
from exactdp.pufferfish.staircase import Staircase, staircase_loss


def _mp(x: F) -> mpmath.mpf:
    return mpmath.mpf(x.numerator) / x.denominator


def _random_law(rng: random.Random) -> DiscreteDistribution:
    pts = rng.sample(range(0, 5), rng.randint(1, 3))
    ws = [rng.randint(1, 4) for _ in pts]
    return DiscreteDistribution.from_pairs((d, F(w, sum(ws))) for d, w in zip(pts, ws))


def _brute(P: DiscreteDistribution, Q: DiscreteDistribution, delta: F, eps0: mpmath.mpf,
           gamma: F) -> mpmath.mpf:
    """sup_y |ln f_P(y) − ln f_Q(y)| by a 50-digit scan of the density built from its
    definition (floor of |y − d|/Δ, normalizer a), on a grid of step 1/211 over a wide range,
    shifted by 1/1000003 so that no grid point is a break point (the loss is an essential
    supremum: a density's value on a null set does not count)."""
    b = mpmath.exp(-eps0)
    a = (1 - b) / (2 * _mp(delta) * (_mp(gamma) + (1 - _mp(gamma)) * b))

    def f(x: F) -> mpmath.mpf:
        r = abs(x) / delta
        k = math.floor(r)
        return a * b ** (k + (1 if r - k >= gamma else 0))

    def dens(dist: DiscreteDistribution, y: F) -> mpmath.mpf:
        return sum(_mp(w) * f(y - d) for d, w in zip(dist.support, dist.probs))

    lo = min(P.support[0], Q.support[0]) - 3 * delta
    hi = max(P.support[-1], Q.support[-1]) + 3 * delta
    n = int((hi - lo) * 211) + 1
    ys = (lo + F(j, 211) + F(1, 1000003) for j in range(n))
    return max(abs(mpmath.log(dens(P, y) / dens(Q, y))) for y in ys)


@pytest.mark.parametrize("eps0", ["ln(2)", "1/2"])
def test_loss_matches_brute_force_scan(eps0: str) -> None:
    rng = random.Random(3 if eps0 == "ln(2)" else 4)
    with mpmath.workdps(50):
        e0 = mpmath.log(2) if eps0 == "ln(2)" else mpmath.mpf(1) / 2
        for _ in range(5):
            P, Q = _random_law(rng), _random_law(rng)
            if P == Q:
                continue
            delta, gamma = F(rng.randint(2, 6), 3), F(rng.randint(0, 4), 4)
            r = staircase_loss((P, Q), delta, eps0, gamma)
            brute = _brute(P, Q, delta, e0, gamma)
            assert _mp(r.loss.lo) - mpmath.mpf(10) ** -30 <= brute <= _mp(r.loss.hi) + mpmath.mpf(10) ** -30
            assert r.loss.hi - r.loss.lo < F(1, 10**30)
            if eps0 == "ln(2)":  # b = 1/2: the loss is ln of an exact rational
                assert abs(mpmath.log(_mp(r.ratio_exact)) - brute) < mpmath.mpf(10) ** -40
            else:
                assert r.ratio_exact is None
            assert r.verify()


def test_point_pair_loses_exactly_eps0_at_delta_equal_the_gap() -> None:
    r = staircase_loss(ValuePair(3, 1), 2, "ln(3)", "1/3")
    assert r.ratio_exact == 3 and r.decide("ln(3)") is Verdict.HOLDS  # equality proved
    assert r.decide("ln(3) - 1/10**9") is Verdict.FAILS
    r = staircase_loss(ValuePair(3, 1), 2, "1/2", "1/3")   # b irrational: L = ε₀ still proved
    assert r.decide("1/2") is Verdict.HOLDS and r.decide("499/1000") is Verdict.FAILS
    smaller = staircase_loss(ValuePair(3, 1), "3/2", "1/2", "1/3")  # Δ < gap: two steps
    assert smaller.decide("1/2") is Verdict.FAILS


def test_delta_at_least_w_inf_is_private_at_eps0() -> None:
    """(4) of the proof as a property: Δ ≥ W∞ and ε₀ = ε always hold, for random pairs."""
    rng = random.Random(8)
    for _ in range(8):
        P, Q = _random_law(rng), _random_law(rng)
        if P == Q:
            continue
        w = wasserstein_inf(P, Q)
        for scale in (1, F(3, 2)):
            r = staircase_loss((P, Q), w * scale, "ln(2)", F(rng.randint(0, 4), 4))
            assert r.decide("ln(2)") is Verdict.HOLDS


def test_loss_is_not_monotone_in_delta_certified() -> None:
    """Why no 'least Δ' is offered: more noise width can lose MORE (exact rationals)."""
    P = DiscreteDistribution.from_pairs([(1, "1/2"), (4, "1/2")])
    Q = DiscreteDistribution.from_pairs([(2, "1/2"), (3, "1/2")])
    narrow = staircase_loss((P, Q), 2, "ln(2)", 0)
    wide = staircase_loss((P, Q), F(17, 8), "ln(2)", 0)
    assert (narrow.ratio_exact, wide.ratio_exact) == (F(4, 3), F(3, 2))
    assert narrow.decide("ln(4/3)") is Verdict.HOLDS and wide.decide("ln(4/3)") is Verdict.FAILS


def test_bad_parameters_give_specific_errors() -> None:
    pair = ValuePair(1, 0)
    with pytest.raises(InvalidScale, match="delta"):
        staircase_loss(pair, 0, 1, "1/2")
    with pytest.raises(InvalidScale, match="gamma"):
        staircase_loss(pair, 1, 1, "3/2")
    with pytest.raises(InvalidPrivacyLevel):
        staircase_loss(pair, 1, 0, "1/2")
    with pytest.raises(InvalidScale):
        Staircase.of(-1, 1, 0)


def test_verify_rejects_a_tampered_result() -> None:
    r = staircase_loss(ValuePair(1, 0), "1/2", "ln(2)", "1/2")
    assert r.verify()
    assert not replace(r, loss=Enclosure(F(0), F(1, 10))).verify()
    assert not replace(r, ratio_exact=F(2)).verify()
