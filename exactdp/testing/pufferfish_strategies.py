"""Hypothesis strategies for multi-user Pufferfish questions: distributions, secret pairs,
populations (all exact, small supports).

>>> from hypothesis import given
>>> @given(secret_pairs())
... def check(pair):
...     assert sum(pair.P.probs) == 1 and sum(pair.Q.probs) == 1
>>> check()
"""

from __future__ import annotations

from fractions import Fraction

from hypothesis import strategies as st

from exactdp.pufferfish.distributions import DiscreteDistribution, bernoulli
from exactdp.pufferfish.population import Population, User
from exactdp.pufferfish.secrets import (
    DistributionPair,
    DistributionVsAbsent,
    SecretPair,
    ValuePair,
    ValueVsAbsent,
)

__all__ = ["discrete_distributions", "secret_pairs", "populations", "bernoulli_pairs"]


@st.composite
def discrete_distributions(draw: st.DrawFn, max_support: int = 4, max_value: int = 4,
                           max_weight: int = 8) -> DiscreteDistribution:
    """Exact laws on a few integers in [0, max_value] (probabilities k/Σk, all > 0)."""
    support = draw(st.lists(st.integers(0, max_value), min_size=1, max_size=max_support, unique=True))
    weights = draw(st.lists(st.integers(1, max_weight), min_size=len(support), max_size=len(support)))
    total = sum(weights)
    return DiscreteDistribution.from_dict({s: Fraction(w, total) for s, w in zip(support, weights)})


@st.composite
def secret_pairs(draw: st.DrawFn, max_value: int = 4) -> SecretPair:
    """Any of the four secret-pair types: (a, b), (a, ⊥), (P, ⊥), (P, Q)."""
    kind = draw(st.sampled_from(["value", "value-absent", "dist-absent", "dist-pair"]))
    if kind == "value":
        a, b = draw(st.lists(st.integers(0, max_value), min_size=2, max_size=2, unique=True))
        return ValuePair(a, b)
    if kind == "value-absent":
        return ValueVsAbsent(draw(st.integers(1, max_value)))
    if kind == "dist-absent":
        return DistributionVsAbsent(draw(discrete_distributions(max_value=max_value)))
    return DistributionPair(draw(discrete_distributions(max_value=max_value)),
                            draw(discrete_distributions(max_value=max_value)))


@st.composite
def populations(draw: st.DrawFn, min_users: int = 0, max_users: int = 3,
                allow_absence: bool = True) -> Population:
    """The other users: each a small law and a presence probability ζ (1 unless absences
    are allowed)."""
    k = draw(st.integers(min_users, max_users))
    users = []
    for _ in range(k):
        z = draw(st.fractions(min_value=0, max_value=1, max_denominator=4)) if allow_absence else Fraction(1)
        users.append(User(draw(discrete_distributions(max_support=3, max_value=2)), z))
    return Population(users)


@st.composite
def bernoulli_pairs(draw: st.DrawFn, max_denominator: int = 20, allow_absent: bool = True) -> SecretPair:
    """Bernoulli secret pairs: (Bern(p), Bern(q)) with p ≠ q, or (Bern(p), absent).

    >>> from hypothesis import given
    >>> @given(bernoulli_pairs())
    ... def check(pair):
    ...     assert set(pair.P.support) <= {0, 1}
    >>> check()
    """
    prob = st.fractions(min_value=Fraction(1, max_denominator), max_value=1 - Fraction(1, max_denominator),
                        max_denominator=max_denominator)
    p = draw(prob)
    if allow_absent and draw(st.booleans()):
        return DistributionVsAbsent(bernoulli(p))
    q = draw(prob.filter(lambda x: x != p))
    return DistributionPair(bernoulli(p), bernoulli(q))
