"""A multi-user population: users with a value distribution and a presence probability ζ.

The sum query is X = Σ_i 1{i present}·D_i; each user contributes the mixture
(1 − ζ)·δ₀ + ζ·P_i, so the law of X is an exact convolution (Poisson-binomial for
Bernoulli users).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from exactdp.arithmetic.validate import read_probability
from exactdp.errors import InvalidArgument, InvalidDistribution
from exactdp.pufferfish.distributions import (
    DiscreteDistribution,
    bernoulli,
    convolve,
    point_mass,
)

__all__ = ["User", "Population"]


@dataclass(frozen=True)
class User:
    """One user: value law ``dist`` and presence probability ``presence`` (ζ ∈ [0, 1]).

    >>> from exactdp.pufferfish.distributions import bernoulli
    >>> User(bernoulli("1/2"), "1/2").contribution().probs
    (Fraction(3, 4), Fraction(1, 4))
    """

    dist: DiscreteDistribution
    presence: Fraction

    def __init__(self, dist: DiscreteDistribution, presence: Any = 1) -> None:
        if not isinstance(dist, DiscreteDistribution):
            raise InvalidArgument(f"Got dist={dist!r}; pass a DiscreteDistribution.")
        z = read_probability(presence, "presence ζ", InvalidDistribution)
        object.__setattr__(self, "dist", dist)
        object.__setattr__(self, "presence", z)

    def contribution(self) -> DiscreteDistribution:
        """Law of 1{present}·D: (1 − ζ)·δ₀ + ζ·P."""
        pairs = [(0, 1 - self.presence)] + [
            (s, self.presence * p) for s, p in zip(self.dist.support, self.dist.probs)
        ]
        return DiscreteDistribution.from_pairs(pairs)


@dataclass(frozen=True)
class Population:
    """Independent users whose contributions are summed.

    >>> from exactdp.pufferfish.distributions import bernoulli
    >>> pop = Population.bernoulli(["1/2", "1/2"], presences=[1, "1/2"])
    >>> pop.sum_distribution().probs
    (Fraction(3, 8), Fraction(1, 2), Fraction(1, 8))
    """

    users: tuple[User, ...]

    def __init__(self, users: Iterable[User]) -> None:
        us = tuple(users)
        for i, user in enumerate(us):
            if not isinstance(user, User):
                raise InvalidArgument(f"Got users[{i}]={user!r}; pass User(dist, presence).")
        object.__setattr__(self, "users", us)

    @classmethod
    def bernoulli(
        cls, ps: Iterable[Any], presences: Iterable[Any] | None = None
    ) -> Population:
        """Bernoulli(p_i) users with presences ζ_i (default 1)."""
        ps_list = list(ps)
        zs = [1] * len(ps_list) if presences is None else list(presences)
        if len(zs) != len(ps_list):
            raise InvalidArgument(
                f"Got {len(ps_list)} probabilities but {len(zs)} presences; they must match."
            )
        return cls(User(bernoulli(p), z) for p, z in zip(ps_list, zs))

    def sum_distribution(self) -> DiscreteDistribution:
        """Exact law of the sum query over these users (δ₀ when there are none)."""
        total = point_mass(0)
        for user in self.users:
            total = convolve(total, user.contribution())
        return total

    def __len__(self) -> int:
        return len(self.users)
