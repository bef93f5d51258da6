"""Rényi divergence of integer order: certified enclosures against 50-digit mpmath."""

from __future__ import annotations

import random
from dataclasses import replace
from fractions import Fraction as F
from typing import Any

import mpmath
import pytest

from exactdp.arithmetic.interval import Enclosure
from exactdp.errors import InvalidDistribution, InvalidOrder, InvalidScale
from exactdp.pufferfish import DiscreteDistribution, ValuePair, bernoulli
from exactdp.pufferfish.loss import loss_float
from exactdp.pufferfish.renyi import discrete_laplace_renyi, laplace_renyi


def _mp(x: F) -> mpmath.mpf:
    return mpmath.mpf(x.numerator) / x.denominator


def _law(rng: random.Random) -> DiscreteDistribution:
    pts = rng.sample(range(-2, 3), rng.randint(1, 3))
    ws = [rng.randint(1, 4) for _ in pts]
    return DiscreteDistribution.from_pairs((d, F(w, sum(ws))) for d, w in zip(pts, ws))


def _quad(P: DiscreteDistribution, Q: DiscreteDistribution, theta: F, order: int) -> mpmath.mpf:
    """D_α(P ∗ Lap(θ) ‖ Q ∗ Lap(θ)) by mpmath quadrature of the normalized densities."""
    th = _mp(theta)

    def f(dist: DiscreteDistribution, y: mpmath.mpf) -> mpmath.mpf:
        return sum(_mp(w) * mpmath.exp(-abs(y - _mp(d)) / th)
                   for d, w in zip(dist.support, dist.probs)) / (2 * th)

    pts = sorted({_mp(d) for d in P.support} | {_mp(d) for d in Q.support})
    val = mpmath.quad(lambda y: f(P, y) ** order * f(Q, y) ** (1 - order),
                      [-mpmath.inf] + pts + [mpmath.inf])
    return mpmath.log(val) / (order - 1)


def test_laplace_renyi_matches_quadrature() -> None:
    rng = random.Random(21)
    with mpmath.workdps(50):
        for _ in range(4):
            P, Q = _law(rng), _law(rng)
            theta, order = F(rng.randint(1, 6), 3), rng.choice([2, 3, 5])
            r = laplace_renyi((P, Q), theta, order)
            for encl, (A, B) in ((r.forward, (P, Q)), (r.backward, (Q, P))):
                q = _quad(A, B, theta, order)
                assert _mp(encl.lo) - mpmath.mpf(10) ** -35 <= q <= _mp(encl.hi) + mpmath.mpf(10) ** -35
                assert encl.hi - encl.lo < F(1, 10**25)
            assert r.verify()


def test_point_pair_closed_form() -> None:
    """D_α(Lap(1, θ) ‖ Lap(0, θ)) = ln(α/(2α−1) e^{(α−1)/θ} + (α−1)/(2α−1) e^{−α/θ})/(α−1)."""
    with mpmath.workdps(50):
        for order in (2, 4):
            r = laplace_renyi(ValuePair(1, 0), 2, order)
            a, t = mpmath.mpf(order), mpmath.mpf(1) / 2
            exact = mpmath.log(a / (2 * a - 1) * mpmath.exp((a - 1) * t)
                               + (a - 1) / (2 * a - 1) * mpmath.exp(-a * t)) / (a - 1)
            assert _mp(r.forward.lo) <= exact <= _mp(r.forward.hi)
            assert r.forward == r.backward or abs(_mp(r.forward.lo) - _mp(r.backward.lo)) < 1e-30


def test_renyi_grows_with_the_order_and_stays_below_the_pure_loss() -> None:
    """D_α is non-decreasing in α and ≤ the pure loss L(θ) (= D_∞)."""
    pair = (bernoulli("3/10"), bernoulli("1/10"))
    values = [laplace_renyi(pair, 1, k).value for k in (2, 3, 6)]
    assert values[0].hi < values[1].lo and values[1].hi < values[2].lo
    pts = [0.0, 1.0]
    assert float(values[2].hi) <= loss_float(pts, [0.7, 0.3], [0.9, 0.1], 1.0)


def test_discrete_renyi_is_exact_against_summation() -> None:
    rng = random.Random(4)
    with mpmath.workdps(50):
        for _ in range(5):
            P, Q = _law(rng), _law(rng)
            a, order = F(rng.randint(1, 3), 4), rng.choice([2, 3])
            r = discrete_laplace_renyi((P, Q), a, order)
            am = _mp(a)

            def pmf(dist: DiscreteDistribution, y: int, am: mpmath.mpf = am) -> mpmath.mpf:
                return (1 - am) / (1 + am) * sum(_mp(w) * am ** abs(y - int(d))
                                                 for d, w in zip(dist.support, dist.probs))

            def term(y: mpmath.mpf, P: DiscreteDistribution = P, Q: DiscreteDistribution = Q,
                     order: int = order, pmf: Any = pmf) -> mpmath.mpf:
                return pmf(P, int(y)) ** order * pmf(Q, int(y)) ** (1 - order)

            brute = mpmath.nsum(term, [-mpmath.inf, mpmath.inf])
            back = mpmath.nsum(lambda y, P=P, Q=Q, order=order, term=term: term(y, Q, P, order),
                               [-mpmath.inf, mpmath.inf])
            assert abs(_mp(r.forward) - brute) < mpmath.mpf(10) ** -40
            assert abs(_mp(r.backward) - back) < mpmath.mpf(10) ** -40
            assert r.verify()
            # the "max" direction against the brute-force sums (review 17b m6: the old check
            # max ≥ forward held by construction)
            best = mpmath.log(max(brute, back)) / (order - 1)
            assert abs(mpmath.mpf(str(r.divergence("max").evalf(60))) - best) < mpmath.mpf(10) ** -35


@pytest.mark.parametrize("order", [1, 0, -2, F(5, 2), "3/2", 2.0, True, "x"])
def test_bad_order_is_a_specific_error(order: object) -> None:
    with pytest.raises(InvalidOrder, match="integer ≥ 2"):
        laplace_renyi(ValuePair(1, 0), 1, order)
    with pytest.raises(InvalidOrder):
        discrete_laplace_renyi(ValuePair(1, 0), F(1, 2), order)


def test_bad_scale_and_support() -> None:
    with pytest.raises(InvalidScale):
        laplace_renyi(ValuePair(1, 0), 0, 2)
    with pytest.raises(InvalidDistribution, match="integer"):
        discrete_laplace_renyi(ValuePair("1/2", 0), F(1, 2), 2)
    with pytest.raises(InvalidScale):
        discrete_laplace_renyi(ValuePair(1, 0), 1, 2)


def test_verify_rejects_tampering() -> None:
    r = laplace_renyi(ValuePair(1, 0), 1, 2)
    assert not replace(r, forward=Enclosure(F(0), F(1, 10))).verify()
    d = discrete_laplace_renyi(ValuePair(1, 0), F(1, 2), 2)
    assert not replace(d, forward=F(7, 3)).verify()
