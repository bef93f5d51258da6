"""Secret pairs for one user (or one class of users) in multi-user Pufferfish privacy.

Each pair says what an adversary must not tell apart about the user's contribution
D to the sum query: its law under the first secret (``P``) against its law under the
second (``Q``). Absence (⊥) contributes nothing, i.e. the point mass at 0.

- :class:`ValuePair` ``(a, b)``: S_{a,b}, D = a against D = b;
- :class:`ValueVsAbsent` ``(a)``: S_{a,⊥}, present with D = a against absent;
- :class:`DistributionVsAbsent` ``(P)``: S_{P,⊥}, present with D ~ P against absent;
- :class:`DistributionPair` ``(P, Q)``: S_{P,Q}, present with D ~ P against D ~ Q.

For a whole class of users, :func:`class_total` gives the law of the class's sum,
and :func:`class_vs_absent` / :func:`class_pair` build the same pairs for it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from exactdp.arithmetic.rationals import to_fraction
from exactdp.errors import InvalidArgument
from exactdp.pufferfish.distributions import DiscreteDistribution, point_mass, sum_of

__all__ = [
    "SecretPair",
    "ValuePair",
    "ValueVsAbsent",
    "DistributionVsAbsent",
    "DistributionPair",
    "as_pair",
    "pair_laws",
    "class_total",
    "class_vs_absent",
    "class_pair",
]


def _dist(value: Any, name: str) -> DiscreteDistribution:
    if isinstance(value, DiscreteDistribution):
        return value
    raise InvalidArgument(
        f"Got {name}={value!r}; pass a DiscreteDistribution "
        f"(for example bernoulli('3/10') or "
        f"DiscreteDistribution.from_dict({{0: '1/2', 1: '1/2'}}))."
    )


@dataclass(frozen=True)
class ValuePair:
    """S_{a,b}: the user reports a against the user reports b.

    >>> ValuePair(2, "1/2").P.support, ValuePair(2, "1/2").Q.support
    ((Fraction(2, 1),), (Fraction(1, 2),))
    """

    a: Fraction
    b: Fraction

    def __init__(self, a: Any, b: Any) -> None:
        object.__setattr__(self, "a", to_fraction(a, "a"))
        object.__setattr__(self, "b", to_fraction(b, "b"))

    @property
    def P(self) -> DiscreteDistribution:
        """Law of D under the first secret."""
        return point_mass(self.a)

    @property
    def Q(self) -> DiscreteDistribution:
        """Law of D under the second secret."""
        return point_mass(self.b)

    def describe(self) -> str:
        """Short name used in reports."""
        return f"S_{{{self.a},{self.b}}}"


@dataclass(frozen=True)
class ValueVsAbsent:
    """S_{a,⊥}: present reporting a against absent (contributes 0)."""

    a: Fraction

    def __init__(self, a: Any) -> None:
        object.__setattr__(self, "a", to_fraction(a, "a"))

    @property
    def P(self) -> DiscreteDistribution:
        """Law of D under the first secret."""
        return point_mass(self.a)

    @property
    def Q(self) -> DiscreteDistribution:
        """Law of D when absent: the point mass at 0."""
        return point_mass(0)

    def describe(self) -> str:
        """Short name used in reports."""
        return f"S_{{{self.a},⊥}}"


@dataclass(frozen=True)
class DistributionVsAbsent:
    """S_{P,⊥}: present with D ~ P against absent (contributes 0)."""

    dist: DiscreteDistribution

    def __post_init__(self) -> None:
        _dist(self.dist, "P")

    @property
    def P(self) -> DiscreteDistribution:
        """Law of D under the first secret."""
        return self.dist

    @property
    def Q(self) -> DiscreteDistribution:
        """Law of D when absent: the point mass at 0."""
        return point_mass(0)

    def describe(self) -> str:
        """Short name used in reports."""
        return f"S_{{P,⊥}} with P = {self.dist}"


@dataclass(frozen=True)
class DistributionPair:
    """S_{P,Q}: present with D ~ P against present with D ~ Q."""

    first: DiscreteDistribution
    second: DiscreteDistribution

    def __post_init__(self) -> None:
        _dist(self.first, "P")
        _dist(self.second, "Q")

    @property
    def P(self) -> DiscreteDistribution:
        """Law of D under the first secret."""
        return self.first

    @property
    def Q(self) -> DiscreteDistribution:
        """Law of D under the second secret."""
        return self.second

    def describe(self) -> str:
        """Short name used in reports."""
        return f"S_{{P,Q}} with P = {self.first}, Q = {self.second}"


SecretPair = ValuePair | ValueVsAbsent | DistributionVsAbsent | DistributionPair


def as_pair(pair: Any) -> SecretPair:
    """Check that ``pair`` is one of the four secret-pair types."""
    if isinstance(pair, (ValuePair, ValueVsAbsent, DistributionVsAbsent, DistributionPair)):
        return pair
    raise InvalidArgument(
        f"Got pair={pair!r}; pass ValuePair(a, b), ValueVsAbsent(a), "
        f"DistributionVsAbsent(P) or DistributionPair(P, Q)."
    )


def pair_laws(pair: Any) -> tuple[DiscreteDistribution, DiscreteDistribution]:
    """The laws (P, Q) of a secret pair, or of a tuple ``(P, Q)`` of two distributions.

    >>> from exactdp.pufferfish.distributions import point_mass
    >>> pair_laws((point_mass(1), point_mass(0)))[0].support
    (Fraction(1, 1),)
    >>> try:
    ...     pair_laws((1, 2))
    ... except InvalidArgument as err:
    ...     print(str(err)[:41])
    Got P=1; pass a DiscreteDistribution (for
    """
    if isinstance(pair, tuple) and len(pair) == 2:
        return _dist(pair[0], "P"), _dist(pair[1], "Q")
    pr = as_pair(pair)
    return pr.P, pr.Q


def class_total(members: Iterable[DiscreteDistribution]) -> DiscreteDistribution:
    """Law of the total of a class of independent users (exact convolution).

    >>> from exactdp.pufferfish.distributions import bernoulli
    >>> class_total([bernoulli("1/2")] * 2).probs
    (Fraction(1, 4), Fraction(1, 2), Fraction(1, 4))
    """
    members = list(members)
    for i, m in enumerate(members):
        _dist(m, f"members[{i}]")
    if not members:
        raise InvalidArgument("Got an empty class; a class needs at least one user.")
    return sum_of(members)


def class_vs_absent(members: Iterable[DiscreteDistribution]) -> DistributionVsAbsent:
    """A whole class added to (or removed from) the data: S_{P,⊥} for its total."""
    return DistributionVsAbsent(class_total(members))


def class_pair(
    first: Iterable[DiscreteDistribution], second: Iterable[DiscreteDistribution]
) -> DistributionPair:
    """A class replaced by another: S_{P,Q} for the two totals."""
    return DistributionPair(class_total(first), class_total(second))
