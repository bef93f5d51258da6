"""Finite discrete distributions with rational support and rational probabilities.

Everything is exact (:class:`fractions.Fraction`): the probabilities are checked to
lie in [0, 1] and to sum to exactly 1, zero-probability points are dropped, and the
support is kept sorted. Sums of independent users (convolutions), Bernoulli,
binomial and Poisson-binomial laws are built exactly.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from exactdp.arithmetic.rationals import to_fraction
from exactdp.arithmetic.validate import read_probability
from exactdp.errors import InvalidArgument, InvalidDistribution

__all__ = [
    "DiscreteDistribution",
    "point_mass",
    "bernoulli",
    "binomial",
    "poisson_binomial",
    "convolve",
    "sum_of",
]


@dataclass(frozen=True)
class DiscreteDistribution:
    """A finite distribution on rationals, held exactly.

    Attributes
    ----------
    support : tuple of Fraction
        Strictly increasing points with positive probability.
    probs : tuple of Fraction
        Their probabilities (each in (0, 1], summing to exactly 1).

    Examples
    --------
    >>> P = DiscreteDistribution.from_dict({0: "1/4", 1: "3/4"})
    >>> P.support, P.probs
    ((Fraction(0, 1), Fraction(1, 1)), (Fraction(1, 4), Fraction(3, 4)))
    >>> P.cdf(0), P.quantile(Fraction(1, 2)), P.mean()
    (Fraction(1, 4), Fraction(1, 1), Fraction(3, 4))
    """

    support: tuple[Fraction, ...]
    probs: tuple[Fraction, ...]

    def __post_init__(self) -> None:
        if len(self.support) == 0:
            raise InvalidDistribution(
                "Got an empty support; a distribution needs at least one point "
                "(use point_mass(0) for 'absent')."
            )
        if len(self.support) != len(self.probs):
            raise InvalidDistribution(
                f"Got {len(self.support)} support points but {len(self.probs)} probabilities."
            )
        for a, b in zip(self.support, self.support[1:]):
            if not a < b:
                raise InvalidDistribution(
                    f"Support must be strictly increasing; got {a} before {b}. "
                    f"Use DiscreteDistribution.from_dict, which sorts and merges."
                )
        for x, p in zip(self.support, self.probs):
            if not 0 < p <= 1:
                raise InvalidDistribution(
                    f"Got probability {p} at {x}; stored probabilities must lie in (0, 1]."
                )
        total = sum(self.probs, Fraction(0))
        if total != 1:
            raise InvalidDistribution(
                f"Probabilities sum to {total}, not 1; pass exact rationals such as "
                f"'1/3' (binary floats rarely sum to exactly 1)."
            )

    # ------------------------------------------------------------------ builders
    @classmethod
    def from_dict(cls, masses: Mapping[Any, Any]) -> DiscreteDistribution:
        """Build from ``{value: probability}``; values and probabilities read exactly.

        Probabilities must lie in [0, 1] (zeros are dropped) and sum to exactly 1.

        >>> DiscreteDistribution.from_dict({"1/2": "1/3", 2: "2/3"}).support
        (Fraction(1, 2), Fraction(2, 1))
        >>> DiscreteDistribution.from_dict({0: "1/2", 1: "1/3"})
        Traceback (most recent call last):
        ...
        exactdp.errors.InvalidDistribution: Probabilities sum to 5/6, not 1; ...
        """
        return cls.from_pairs(masses.items())

    @classmethod
    def from_pairs(cls, pairs: Iterable[tuple[Any, Any]]) -> DiscreteDistribution:
        """Build from ``(value, probability)`` pairs; repeated values are merged."""
        merged: dict[Fraction, Fraction] = {}
        for value, prob in pairs:
            x = to_fraction(value, "support value")
            p = read_probability(prob, f"P({x})", InvalidDistribution)
            merged[x] = merged.get(x, Fraction(0)) + p
        total = sum(merged.values(), Fraction(0))
        if not merged:
            raise InvalidDistribution(
                "Got an empty support; a distribution needs at least one point "
                "(use point_mass(0) for 'absent')."
            )
        if total != 1:
            raise InvalidDistribution(
                f"Probabilities sum to {total}, not 1; pass exact rationals such as "
                f"'1/3' (binary floats rarely sum to exactly 1)."
            )
        items = sorted((x, p) for x, p in merged.items() if p != 0)
        return cls(tuple(x for x, _ in items), tuple(p for _, p in items))

    @classmethod
    def from_lists(cls, values: Sequence[Any], probs: Sequence[Any]) -> DiscreteDistribution:
        """Build from parallel lists of values and probabilities."""
        if len(values) != len(probs):
            raise InvalidDistribution(
                f"Got {len(values)} values but {len(probs)} probabilities; they must match."
            )
        return cls.from_pairs(zip(values, probs))

    # ------------------------------------------------------------------ queries
    def pmf(self, x: Any) -> Fraction:
        """P(X = x), exactly (0 off the support)."""
        xf = to_fraction(x, "x")
        for s, p in zip(self.support, self.probs):
            if s == xf:
                return p
        return Fraction(0)

    def as_dict(self) -> dict[Fraction, Fraction]:
        """``{value: probability}``."""
        return dict(zip(self.support, self.probs))

    def cdf(self, x: Any) -> Fraction:
        """F(x) = P(X ≤ x), exactly.

        >>> bernoulli("1/3").cdf("1/2")
        Fraction(2, 3)
        """
        xf = to_fraction(x, "x")
        return sum((p for s, p in zip(self.support, self.probs) if s <= xf), Fraction(0))

    def quantile(self, t: Any) -> Fraction:
        """Left-continuous quantile F⁻¹(t) = min{x : F(x) ≥ t} for t in (0, 1].

        >>> bernoulli("1/3").quantile("2/3"), bernoulli("1/3").quantile("3/4")
        (Fraction(0, 1), Fraction(1, 1))
        """
        tf = to_fraction(t, "t")
        if not 0 < tf <= 1:
            raise InvalidArgument(f"Got t={tf}; the quantile level must lie in (0, 1].")
        acc = Fraction(0)
        for s, p in zip(self.support, self.probs):
            acc += p
            if acc >= tf:
                return s
        return self.support[-1]  # pragma: no cover - unreachable since probs sum to 1

    def mean(self) -> Fraction:
        """E[X], exactly."""
        return sum((s * p for s, p in zip(self.support, self.probs)), Fraction(0))

    def is_point_mass(self) -> bool:
        """True when the support is a single point."""
        return len(self.support) == 1

    def is_two_point(self) -> bool:
        """True when the support has at most two points."""
        return len(self.support) <= 2

    def shift(self, c: Any) -> DiscreteDistribution:
        """The law of X + c."""
        cf = to_fraction(c, "shift")
        return DiscreteDistribution(tuple(s + cf for s in self.support), self.probs)

    def to_json(self) -> dict[str, list[str]]:
        """Exact JSON form (rationals as "p/q" strings)."""
        return {
            "support": [str(s) for s in self.support],
            "probs": [str(p) for p in self.probs],
        }

    def __str__(self) -> str:
        inner = ", ".join(f"{s}: {p}" for s, p in zip(self.support, self.probs))
        return "{" + inner + "}"


def point_mass(value: Any = 0) -> DiscreteDistribution:
    """The point mass at ``value`` (``point_mass(0)`` is how ⊥, 'absent', is modelled).

    >>> point_mass("5/2").support
    (Fraction(5, 2),)
    """
    return DiscreteDistribution((to_fraction(value, "value"),), (Fraction(1),))


def bernoulli(p: Any, high: Any = 1, low: Any = 0) -> DiscreteDistribution:
    """Bernoulli(p) on {low, high} (default {0, 1}); p read exactly, p ∈ [0, 1].

    >>> bernoulli("3/10").probs
    (Fraction(7, 10), Fraction(3, 10))
    >>> bernoulli(2)
    Traceback (most recent call last):
    ...
    exactdp.errors.InvalidDistribution: Got p=2; a probability lies in [0, 1].
    """
    pf = read_probability(p, "p", InvalidDistribution)
    return DiscreteDistribution.from_pairs([(low, 1 - pf), (high, pf)])


def convolve(a: DiscreteDistribution, b: DiscreteDistribution) -> DiscreteDistribution:
    """The law of X + Y for independent X ~ a, Y ~ b (exact).

    >>> convolve(bernoulli("1/2"), bernoulli("1/2")).probs
    (Fraction(1, 4), Fraction(1, 2), Fraction(1, 4))
    """
    out: dict[Fraction, Fraction] = {}
    for x, p in zip(a.support, a.probs):
        for y, q in zip(b.support, b.probs):
            out[x + y] = out.get(x + y, Fraction(0)) + p * q
    items = sorted(out.items())
    return DiscreteDistribution(tuple(x for x, _ in items), tuple(p for _, p in items))


def sum_of(dists: Iterable[DiscreteDistribution]) -> DiscreteDistribution:
    """The law of the sum of independent variables (point mass at 0 for none)."""
    total = point_mass(0)
    for d in dists:
        total = convolve(total, d)
    return total


def poisson_binomial(ps: Iterable[Any]) -> DiscreteDistribution:
    """The number of successes among independent Bernoulli(p_i) trials (exact).

    >>> poisson_binomial(["1/2", "1/3"]).probs
    (Fraction(1, 3), Fraction(1, 2), Fraction(1, 6))
    """
    probs = [Fraction(1)]
    for i, p in enumerate(ps):
        pf = read_probability(p, f"ps[{i}]", InvalidDistribution)
        nxt = [Fraction(0)] * (len(probs) + 1)
        for k, w in enumerate(probs):
            nxt[k] += w * (1 - pf)
            nxt[k + 1] += w * pf
        probs = nxt
    return DiscreteDistribution.from_pairs(enumerate(probs))


def binomial(n: int, p: Any) -> DiscreteDistribution:
    """Binomial(n, p), exactly.

    >>> binomial(2, "1/2").probs
    (Fraction(1, 4), Fraction(1, 2), Fraction(1, 4))
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise InvalidArgument(f"Got n={n!r}; the number of trials must be an integer ≥ 0.")
    pf = read_probability(p, "p", InvalidDistribution)
    return DiscreteDistribution.from_pairs(
        (k, math.comb(n, k) * pf**k * (1 - pf) ** (n - k)) for k in range(n + 1)
    )
