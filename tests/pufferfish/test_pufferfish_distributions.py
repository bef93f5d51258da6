"""Distributions, transport plans, secret pairs, populations: exact values and bad input."""

from __future__ import annotations

import warnings
from fractions import Fraction as F

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp.errors import InexactInputWarning, InvalidArgument, InvalidDistribution
from exactdp.pufferfish import (
    DiscreteDistribution,
    DistributionPair,
    DistributionVsAbsent,
    Population,
    User,
    ValuePair,
    ValueVsAbsent,
    bernoulli,
    binomial,
    class_total,
    class_vs_absent,
    point_mass,
    poisson_binomial,
    transport_plan,
    wasserstein_1,
    wasserstein_inf,
)


def test_bad_probabilities_are_rejected_with_specific_errors() -> None:
    with pytest.raises(InvalidDistribution, match="sum to 5/6"):
        DiscreteDistribution.from_dict({0: "1/2", 1: "1/3"})
    with pytest.raises(InvalidDistribution, match="lies in \\[0, 1\\]"):
        DiscreteDistribution.from_dict({0: "3/2", 1: "-1/2"})
    with pytest.raises(InvalidDistribution, match="empty support"):
        DiscreteDistribution.from_dict({})
    with pytest.raises(InvalidDistribution, match="empty support"):
        DiscreteDistribution((), ())
    with pytest.raises(InvalidDistribution, match="strictly increasing"):
        DiscreteDistribution((F(1), F(0)), (F(1, 2), F(1, 2)))
    with pytest.raises(InvalidDistribution):
        bernoulli("11/10")
    with pytest.raises(InvalidDistribution):
        User(bernoulli("1/2"), "3/2")
    with pytest.raises(InvalidArgument):
        DistributionVsAbsent({0: 1})  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument):
        class_total([])


def test_binary_float_probabilities_warn_and_usually_fail_to_sum_to_one() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InexactInputWarning)
        with pytest.raises(InvalidDistribution, match="not 1"):
            DiscreteDistribution.from_dict({0: 0.1, 1: 0.2, 2: 0.7})
    with pytest.warns(InexactInputWarning):
        DiscreteDistribution.from_dict({0: 0.5, 1: 0.5})


def test_zero_masses_dropped_and_duplicates_merged() -> None:
    d = DiscreteDistribution.from_pairs([(0, "1/4"), (1, 0), (0, "1/4"), (2, "1/2")])
    assert d.support == (F(0), F(2)) and d.probs == (F(1, 2), F(1, 2))


def test_cdf_quantile_by_hand() -> None:
    d = DiscreteDistribution.from_dict({-1: "1/6", "1/2": "1/3", 3: "1/2"})
    assert d.cdf(-2) == 0 and d.cdf(-1) == F(1, 6) and d.cdf(1) == F(1, 2) and d.cdf(3) == 1
    assert d.quantile(F(1, 6)) == -1 and d.quantile(F(1, 5)) == F(1, 2)
    assert d.quantile(F(1, 2)) == F(1, 2) and d.quantile(1) == 3
    with pytest.raises(InvalidArgument):
        d.quantile(0)
    assert d.mean() == F(-1, 6) + F(1, 6) + F(3, 2)


def test_poisson_binomial_and_binomial_by_hand() -> None:
    pb = poisson_binomial(["1/2", "1/3", "1/4"])
    # P(0) = 1/2·2/3·3/4 = 1/4; P(3) = 1/24
    assert pb.pmf(0) == F(1, 4) and pb.pmf(3) == F(1, 24)
    assert binomial(3, "1/2").probs == (F(1, 8), F(3, 8), F(3, 8), F(1, 8))
    assert class_total([bernoulli("1/2"), bernoulli("1/3"), bernoulli("1/4")]) == pb


def test_population_presence_mixture() -> None:
    pop = Population([User(bernoulli("1/2"), "1/2"), User(point_mass(3), 0)])
    # first user contributes 1 w.p. 1/4; the second is never present
    assert pop.sum_distribution().as_dict() == {F(0): F(3, 4), F(1): F(1, 4)}
    assert Population([]).sum_distribution() == point_mass(0)


def _atoms(d: DiscreteDistribution, n: int) -> list[F]:
    """Expand into n equal-mass atoms (all probabilities are multiples of 1/n)."""
    out: list[F] = []
    for s, p in zip(d.support, d.probs):
        k = p * n
        assert k.denominator == 1
        out += [s] * int(k)
    return sorted(out)


@st.composite
def common_denominator_pair(
    draw: st.DrawFn,
) -> tuple[DiscreteDistribution, DiscreteDistribution, int]:
    n = draw(st.integers(1, 12))

    def dist() -> DiscreteDistribution:
        values = draw(st.lists(st.integers(-6, 6), min_size=n, max_size=n))
        return DiscreteDistribution.from_pairs((v, F(1, n)) for v in values)

    return dist(), dist(), n


@settings(max_examples=60, deadline=None)
@given(common_denominator_pair())
def test_w1_winf_match_sorted_atom_matching(
    data: tuple[DiscreteDistribution, DiscreteDistribution, int],
) -> None:
    # independent algorithm: with n equal atoms, the optimal matching pairs sorted atoms
    P, Q, n = data
    a, b = _atoms(P, n), _atoms(Q, n)
    assert wasserstein_1(P, Q) == sum(abs(x - y) for x, y in zip(a, b)) / n
    assert wasserstein_inf(P, Q) == max(abs(x - y) for x, y in zip(a, b))
    plan = transport_plan(P, Q)
    assert plan.verify()
    assert wasserstein_1(P, Q) == wasserstein_1(Q, P)


def test_plan_by_hand() -> None:
    plan = transport_plan(bernoulli("3/10"), point_mass(0))
    assert plan.w1 == F(3, 10) and plan.winf == 1
    assert {(x, y): m for x, y, m in plan.moves} == {(F(0), F(0)): F(7, 10), (F(1), F(0)): F(3, 10)}
    assert plan.verify()


def test_pairs_laws() -> None:
    assert ValuePair(2, 5).P == point_mass(2) and ValuePair(2, 5).Q == point_mass(5)
    assert ValueVsAbsent("-3/2").Q == point_mass(0)
    assert DistributionPair(bernoulli("1/2"), bernoulli("1/3")).Q == bernoulli("1/3")
    assert class_vs_absent([bernoulli("1/2")] * 2).P == binomial(2, "1/2")
