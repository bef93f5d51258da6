"""Enclosures: closed intervals with exact rational endpoints, the certified answer type.

:class:`Enclosure` is the one type every certified value is returned as (``Interval`` is
kept as an alias of the same class). An exact value is a :class:`fractions.Fraction`, an
algebraic number or a sympy expression; a float answer is a ``FloatEstimate``; the three
never share a type.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction

from exactdp.arithmetic.rounding import float_down, float_up
from exactdp.errors import InvalidArgument

__all__ = ["Enclosure", "Interval"]


@dataclass(frozen=True)
class Enclosure:
    """The closed interval [lo, hi] with exact rational endpoints, known to contain the truth.

    >>> I = Enclosure(Fraction(1, 3), Fraction(1, 2))
    >>> I.contains(Fraction(2, 5)), I.width, I.sign
    (True, Fraction(1, 6), 1)
    >>> I.as_float()
    0.4166666666666667
    >>> lo, hi = I
    >>> (lo, hi) == (I[0], I[1]) == (Fraction(1, 3), Fraction(1, 2))
    True
    """

    lo: Fraction
    hi: Fraction

    def __post_init__(self) -> None:
        for name in ("lo", "hi"):
            v = getattr(self, name)
            if not isinstance(v, Fraction):
                if isinstance(v, int) and not isinstance(v, bool):
                    object.__setattr__(self, name, Fraction(v))
                else:
                    raise InvalidArgument(
                        f"Got {name}={v!r}; an Enclosure needs exact endpoints (Fraction or int)."
                    )
        if self.lo > self.hi:
            raise InvalidArgument(f"Got the empty interval [{self.lo}, {self.hi}]; need lo ≤ hi.")

    @property
    def width(self) -> Fraction:
        """hi − lo, exactly."""
        return self.hi - self.lo

    @property
    def mid(self) -> Fraction:
        """(lo + hi) / 2, exactly."""
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
        """True when lo ≤ value ≤ hi (exact comparison)."""
        return self.lo <= value <= self.hi

    def as_float(self) -> float:
        """The midpoint rounded to a float: an *approximation*, labelled as such by its type."""
        return float(self.mid)

    def __iter__(self) -> Iterator[Fraction]:
        """``lo, hi = enclosure`` (kept for code written when enclosures were ``(lo, hi)`` tuples)."""
        return iter((self.lo, self.hi))

    def __getitem__(self, i: int) -> Fraction:
        """``enclosure[0]`` is ``lo`` and ``enclosure[1]`` is ``hi`` (tuple-era compatibility)."""
        return (self.lo, self.hi)[i]

    def __str__(self) -> str:
        """Outward-rounded decimal endpoints: the printed interval still contains the truth.

        >>> str(Enclosure(Fraction(1, 3), Fraction(1, 3)))
        '[0.33333333333333331, 0.33333333333333337]'
        """
        return f"[{float_down(self.lo):.17g}, {float_up(self.hi):.17g}]"


#: The historical name of :class:`Enclosure` (the same class).
Interval = Enclosure
