"""k Laplace releases of the same sum: exact loss, least common θ, brute force, composition.

The independent checks here do not use the theorem of ``proofs/pufferfish_releases.py``:
the brute force evaluates the k-dimensional output density ratio with mpmath on a grid of
R^k plus the support points, and the lo/hi checks of ``exact_scale(..., releases=k)`` use
every vertex of S^k (S = support points), which is the whole supremum by the per-coordinate
Möbius argument alone (with the other coordinates fixed, G(y) = A e^{y_i/θ_i} + B e^{-y_i/θ_i}
between support points, as in ``proofs/pufferfish_supremum.py`` step 3).
"""

from __future__ import annotations

import dataclasses
import itertools
import random
from fractions import Fraction as F

import mpmath
import pytest
from flint import arb
from hypothesis import example, given, settings
from hypothesis import strategies as st

from exactdp.arithmetic.ball import workprec
from exactdp.arithmetic.interval import Enclosure
from exactdp.errors import InvalidArgument, InvalidScale
from exactdp.pufferfish import (
    DiscreteDistribution,
    DistributionPair,
    DistributionVsAbsent,
    ExactScale,
    ValuePair,
    Verdict,
    bernoulli,
    conservative_scale,
    effective_scale,
    exact_scale,
    release_loss,
)
from exactdp.pufferfish.releases import log_ratio_at_output


@pytest.fixture(autouse=True)
def _fifty_digits():
    """50 digits for every brute force here (other modules set mpmath's global precision)."""
    with mpmath.workdps(50):
        yield


def _mp_loss(P: DiscreteDistribution, Q: DiscreteDistribution, thetas, ys) -> mpmath.mpf:
    def G(dist):
        return mpmath.fsum(
            mpmath.mpf(w.numerator) / w.denominator
            * mpmath.exp(-mpmath.fsum(abs(y - mpmath.mpf(d.numerator) / d.denominator)
                                      / (mpmath.mpf(t.numerator) / t.denominator)
                                      for y, t in zip(ys, thetas)))
            for d, w in zip(dist.support, dist.probs))

    return abs(mpmath.log(G(P)) - mpmath.log(G(Q)))


def _brute_force(P, Q, thetas, step: int) -> mpmath.mpf:
    pts = sorted(set(P.support) | set(Q.support))
    lo, hi = int(min(pts)) - 2, int(max(pts)) + 2
    grid = sorted({mpmath.mpf(p.numerator) / p.denominator for p in pts}
                  | {mpmath.mpf(i) / step for i in range(lo * step, hi * step + 1)})
    return max(_mp_loss(P, Q, thetas, ys) for ys in itertools.product(grid, repeat=len(thetas)))


def _vertex_max_exceeds(P, Q, thetas, eps) -> tuple[bool, bool]:
    """(some vertex of S^k certainly has loss > ε, every vertex certainly has loss ≤ ε)."""
    pts = sorted(set(P.support) | set(Q.support))
    with workprec(256):
        balls = [abs(log_ratio_at_output(P, Q, thetas, y))
                 for y in itertools.product(pts, repeat=len(thetas))]
    with workprec(256):
        eb = arb(eps.numerator) / eps.denominator
    return any(b > eb for b in balls), all(b < eb for b in balls)


def _random_law(rng: random.Random, pts: list[int]) -> DiscreteDistribution:
    ws = [rng.randint(0, 4) for _ in pts]
    ws[rng.randrange(len(pts))] += 1
    return DiscreteDistribution.from_pairs((p, F(w, sum(ws))) for p, w in zip(pts, ws))


def test_bernoulli_tenth_numbers_of_the_issue():
    pair = DistributionVsAbsent(bernoulli("1/10"))
    ex = exact_scale(pair, 1)
    star = ex.ball(128)
    for k, expected in ((2, "3.525"), (3, "6.400"), (5, "12.20")):
        at_hi = release_loss(pair, ex.hi, releases=k)
        at_lo = release_loss(pair, ex.lo, releases=k)
        digits = len(expected.split(".")[1])
        assert f"{at_hi.float():.{digits}f}" == expected
        assert at_hi.loss.hi <= at_lo.loss.hi  # the loss decreases in θ
        # independently: ln((1 − p) + p e^{k/θ*}) with mpmath from the closed form's ball
        theta = mpmath.mpf(star.mid().str(40, radius=False))
        closed = mpmath.log(mpmath.mpf("0.9") + mpmath.mpf("0.1") * mpmath.exp(k / theta))
        assert at_hi.loss.lo - F(1, 10**9) <= F(str(closed)) <= at_lo.loss.hi + F(1, 10**9)
        assert at_hi.loss.lo > k  # far above k·ε
        assert at_hi.worst_output == (F(1),) * k and at_hi.verify()


def test_loss_matches_independent_brute_force_on_random_small_distributions():
    rng = random.Random(2026)
    for trial in range(6):
        pts = sorted(rng.sample(range(-2, 3), rng.randint(2, 3)))
        P, Q = _random_law(rng, pts), _random_law(rng, pts)
        if P == Q:
            continue
        k = 2 if trial < 4 else 3
        thetas = [F(rng.randint(1, 6), rng.randint(1, 3)) for _ in range(k)]
        r = release_loss(DistributionPair(P, Q), thetas)
        brute = _brute_force(P, Q, thetas, step=4 if k == 2 else 1)
        at_witness = _mp_loss(P, Q, thetas, [mpmath.mpf(v.numerator) / v.denominator
                                             for v in r.worst_output])
        slack = F(1, 10**30)
        assert F(str(brute)) <= r.loss.hi + slack  # nothing on the grid beats the enclosure
        assert r.loss.lo - slack <= F(str(at_witness)) <= r.loss.hi + slack  # attained
        assert r.verify()


def test_different_scales_equal_one_release_at_the_harmonic_scale():
    P = DiscreteDistribution.from_dict({0: "1/2", 2: "1/2"})
    Q = DiscreteDistribution.from_dict({1: "1/2", 2: "1/2"})
    two = release_loss(DistributionPair(P, Q), [1, 2])
    one = release_loss(DistributionPair(P, Q), F(2, 3))
    assert two.theta_eff == one.theta_eff == effective_scale([1, 2]) == F(2, 3)
    assert two.loss == one.loss and two.verify() and one.verify()


@pytest.mark.parametrize("k", [2, 3])
def test_exact_scale_for_k_releases_fails_at_lo_and_holds_at_hi(k):
    P = DiscreteDistribution.from_dict({0: "1/2", 2: "1/2"})
    Q = DiscreteDistribution.from_dict({1: "1/2", 2: "1/2"})
    pair = DistributionPair(P, Q)
    eps = F(1)
    r = exact_scale(pair, eps, releases=k)
    one = exact_scale(pair, eps)
    assert r.releases == k and (r.lo, r.hi) == (k * one.lo, k * one.hi) and r.verify()
    assert release_loss(pair, r.lo, releases=k, eps=eps).verdict is Verdict.FAILS
    assert release_loss(pair, r.hi, releases=k, eps=eps).verdict is Verdict.HOLDS
    # independent: every vertex of S^k, k-dimensional sums, certified balls
    exceeds_lo, _ = _vertex_max_exceeds(P, Q, [r.lo] * k, eps)
    _, holds_hi = _vertex_max_exceeds(P, Q, [r.hi] * k, eps)
    assert exceeds_lo and holds_hi


def test_exact_scale_releases_closed_form_and_json_round_trip():
    pair = DistributionVsAbsent(bernoulli("1/10"))
    r = exact_scale(pair, 1, releases=4)
    assert r.theta_expr == 4 * exact_scale(pair, 1).theta_expr
    again = ExactScale.from_json(r.to_json())
    assert again.releases == 4 and again.verify()
    wrong = dataclasses.replace(r, releases=3)  # bracket of 4 releases claimed for 3
    assert not wrong.verify()


def test_repr_warns_for_a_single_release_only():
    pair = DistributionVsAbsent(bernoulli("1/10"))
    assert "NOT k·ε" in repr(exact_scale(pair, 1))
    assert "NOT k·ε" not in repr(exact_scale(pair, 1, releases=2))


@settings(max_examples=25, deadline=None)
@given(
    st.lists(st.integers(0, 4), min_size=3, max_size=3),
    st.lists(st.integers(0, 4), min_size=3, max_size=3),
    st.fractions(min_value=F(1, 10), max_value=3, max_denominator=10),
    st.integers(1, 12),
)
@example([1, 0, 1], [0, 1, 0], F(1), 12)
def test_wasserstein_scale_composes_linearly(wp, wq, eps, k):
    if sum(wp) == 0 or sum(wq) == 0:
        return
    P = DiscreteDistribution.from_pairs((v, F(w, sum(wp))) for v, w in zip((0, 1, 3), wp))
    Q = DiscreteDistribution.from_pairs((v, F(w, sum(wq))) for v, w in zip((0, 1, 3), wq))
    cons = conservative_scale(DistributionPair(P, Q), eps)
    if cons.winf == 0:
        return
    theta = F(cons.winf) / eps
    r = release_loss(DistributionPair(P, Q), theta, releases=k, eps=k * eps)
    assert r.verdict is Verdict.HOLDS and r.loss.lo <= k * eps
    assert conservative_scale(DistributionPair(P, Q), eps, releases=k).theta == k * theta


def test_exact_single_release_scale_used_k_times_is_not_k_eps_private():
    pair = DistributionVsAbsent(bernoulli("1/10"))
    ex = exact_scale(pair, 1)
    for k in (2, 5, 12):
        assert release_loss(pair, ex.hi, releases=k, eps=k).verdict is Verdict.FAILS


def test_verify_rejects_tampering():
    P = DiscreteDistribution.from_dict({0: "1/4", 1: "1/4", 3: "1/2"})
    Q = DiscreteDistribution.from_dict({0: "1/2", 3: "1/2"})
    r = release_loss(DistributionPair(P, Q), 1, releases=2, eps=1)
    assert r.verify()
    with workprec(128):
        ratio = {y: abs(log_ratio_at_output(P, Q, r.thetas, (y, y))) for y in (F(0), F(1), F(3))}
    lower = min(ratio, key=lambda y: float(ratio[y].mid()))
    assert ratio[lower].upper() < float(r.loss.lo) * 0.9  # certainly not a worst output
    bad = [
        dataclasses.replace(r, worst_output=(lower, lower)),
        dataclasses.replace(r, loss=Enclosure(r.loss.lo + 1, r.loss.hi + 1)),
        dataclasses.replace(r, verdict=Verdict.HOLDS if r.verdict is Verdict.FAILS
                            else Verdict.FAILS),
        dataclasses.replace(r, theta_eff=F(1)),
        dataclasses.replace(r, worst_output=(r.worst_output[0], r.worst_output[0] + 1)),
    ]
    assert [b.verify() for b in bad] == [False] * 5


def test_bad_arguments_give_specific_errors():
    pair = ValuePair(1, 0)
    with pytest.raises(InvalidArgument, match="releases=0"):
        release_loss(pair, 1, releases=0)
    with pytest.raises(InvalidArgument, match="releases"):
        exact_scale(pair, 1, releases=F(1, 2))
    with pytest.raises(InvalidScale):
        release_loss(pair, [1, -1])
    with pytest.raises(InvalidArgument, match="2 scales but releases=3"):
        release_loss(pair, [1, 2], releases=3)
