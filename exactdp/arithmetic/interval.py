"""Closed intervals with exact rational endpoints: the certified answer type."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

__all__ = ["Interval"]


@dataclass(frozen=True)
class Interval:
    """The closed interval [lo, hi] with exact rational endpoints, known to contain the truth.

    >>> I = Interval(Fraction(1, 3), Fraction(1, 2))
    >>> I.contains(Fraction(2, 5)), I.width, I.sign
    (True, Fraction(1, 6), 1)
    """

    lo: Fraction
    hi: Fraction

    def __post_init__(self) -> None:
        if self.lo > self.hi:
            raise ValueError(f"empty interval [{self.lo}, {self.hi}]")

    @property
    def width(self) -> Fraction:
        return self.hi - self.lo

    @property
    def mid(self) -> Fraction:
        return (self.lo + self.hi) / 2

    @property
    def sign(self) -> int | None:
        """+1 or -1 when the whole interval is on one side of 0; 0 for [0, 0]; None otherwise."""
        if self.lo > 0:
            return 1
        if self.hi < 0:
            return -1
        if self.lo == self.hi == 0:
            return 0
        return None

    def contains(self, value: Fraction | int) -> bool:
        return self.lo <= value <= self.hi

    def __str__(self) -> str:
        return f"[{float(self.lo):.17g}, {float(self.hi):.17g}]"
