"""Exact distance values of the form c·√r (c ≥ 0 rational, r a squarefree positive integer).

Every metric the library builds has distances of this form: rational distances
(graph, Hamming, Manhattan, Chebyshev, sum query) have r = 1; Euclidean distances
between points with rational coordinates are square roots of rationals, which is
c·√r after pulling squares out. Comparisons and sums-versus-single comparisons are
decided exactly (by squaring), so metric axioms are checked without rounding.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy
from flint import arb

from exactdp.arithmetic.ball import arb_to_fraction_interval, sympy_to_arb, workprec
from exactdp.arithmetic.expressions import parse_real_expression, structural_sign
from exactdp.arithmetic.rationals import to_fmpq, to_fraction, to_sympy
from exactdp.arithmetic.rounding import float_down, float_up
from exactdp.errors import ExactnessRequired, InvalidArgument, InvalidMetric

__all__ = [
    "grid_offset_distance", "Distance", "as_distance", "triangle_holds"]


def _squarefree_split(m: int) -> tuple[int, int]:
    """m = a²·r with r squarefree; returns (a, r)."""
    if m == 0:
        return 0, 1
    a, r = 1, 1
    for p_, e_ in sympy.factorint(m).items():
        p, e = int(p_), int(e_)  # sympy may return its own Integer type
        a *= p ** (e // 2)
        if e % 2:
            r *= p
    return a, r


@dataclass(frozen=True, order=False)
class Distance:
    """The exact nonnegative real ``coef * sqrt(radicand)``.

    Examples
    --------
    >>> Distance.sqrt_of(Fraction(8))
    Distance(coef=Fraction(2, 1), radicand=2)
    >>> Distance.sqrt_of(Fraction(9, 4)).is_rational
    True
    """

    coef: Fraction
    radicand: int = 1

    @staticmethod
    def rational(value: Fraction | int) -> Distance:
        return Distance(Fraction(value), 1)

    @staticmethod
    def sqrt_of(value: Fraction | int) -> Distance:
        """√value for a nonnegative rational value, normalised to c·√r."""
        v = Fraction(value)
        if v < 0:
            raise InvalidMetric(
                f"Got value={v}; a distance √value needs value ≥ 0 (distances are nonnegative)."
            )
        # sqrt(p/q) = sqrt(p q) / q
        a, r = _squarefree_split(v.numerator * v.denominator)
        if a == 0:
            return Distance(Fraction(0), 1)
        return Distance(Fraction(a, v.denominator), r)

    @property
    def is_rational(self) -> bool:
        return self.radicand == 1 or self.coef == 0

    @property
    def square(self) -> Fraction:
        return self.coef * self.coef * self.radicand

    def __float__(self) -> float:
        return float(self.coef) * math.sqrt(self.radicand)

    def float_bounds(self) -> tuple[float, float]:
        """Floats ``lo ≤ self ≤ hi`` for every value (no overflow error: ``hi`` may be inf,
        ``lo`` the largest float; underflow gives ``lo = 0``).

        >>> Distance.rational(10**400).float_bounds()[1], Distance.sqrt_of(2).float_bounds()[0] < 2**0.5 + 1e-15
        (inf, True)
        """
        if self.is_rational:
            return float_down(self.coef), float_up(self.coef)
        with workprec(80):
            lo, hi = arb_to_fraction_interval(self.ball())
        return max(0.0, float_down(lo)), float_up(hi)

    def ball(self) -> arb:
        """Ball enclosure at the current flint precision."""
        c = arb(to_fmpq(self.coef))
        if self.radicand == 1:
            return c
        return c * arb(self.radicand).sqrt()

    def to_sympy(self) -> sympy.Expr:
        return to_sympy(self.coef) * sympy.sqrt(
            self.radicand
        )

    def __str__(self) -> str:
        if self.radicand == 1:
            return str(self.coef)
        return f"{self.coef}*sqrt({self.radicand})" if self.coef != 1 else f"sqrt({self.radicand})"

    def compare(self, other: Distance) -> int:
        """Exact comparison: -1, 0 or 1."""
        a, b = self.square, other.square
        return (a > b) - (a < b)


def _sign_of_sum_minus(d1: Distance, d2: Distance, d3: Distance) -> int:
    """Exact sign of d1 + d2 - d3 for nonnegative distances."""
    if d1.is_rational and d2.is_rational and d3.is_rational:
        v = d1.coef + d2.coef - d3.coef
        return (v > 0) - (v < 0)
    # (d1 + d2)^2 = d1² + d2² + 2 d1 d2, with d1 d2 = c1 c2 sqrt(r1 r2)
    lhs_rat = d1.square + d2.square
    cross = 2 * d1.coef * d2.coef  # times sqrt(r1 r2) >= 0
    k = d3.square - lhs_rat  # compare cross*sqrt(r1 r2) with k
    rr = d1.radicand * d2.radicand
    if k < 0:
        return 1
    cross_sq = cross * cross * rr
    k_sq = k * k
    return (cross_sq > k_sq) - (cross_sq < k_sq)


def triangle_holds(d_ik: Distance, d_ij: Distance, d_jk: Distance) -> bool:
    """Exactly decide d_ik ≤ d_ij + d_jk.

    >>> s2 = Distance.sqrt_of(2)
    >>> triangle_holds(Distance.sqrt_of(8), s2, s2)   # 2√2 ≤ √2 + √2, with equality
    True
    >>> triangle_holds(Distance.rational(3), s2, s2)
    False
    """
    return _sign_of_sum_minus(d_ij, d_jk, d_ik) >= 0


def as_distance(value: Any, where: str = "distance") -> Distance:
    """Read one exact distance: int, Fraction, rational string, ``'sqrt(2)'``, sympy expr.

    Strings are read by a whitelist parser (never ``sympify``); the square of the value
    must be an exact rational (no numerical guessing), and the value must be ≥ 0.

    >>> as_distance("sqrt(8)")
    Distance(coef=Fraction(2, 1), radicand=2)
    >>> as_distance("3/2")
    Distance(coef=Fraction(3, 2), radicand=1)
    >>> as_distance("sqrt(2) + 1/10**40")
    Traceback (most recent call last):
    ...
    exactdp.errors.ExactnessRequired: distance='sqrt(2) + 1/10**40' is not the square root of a rational; ...
    """
    if isinstance(value, Distance):
        return value
    if isinstance(value, str):
        try:
            return Distance.rational(to_fraction(value, where))
        except InvalidArgument:
            expr: sympy.Expr = parse_real_expression(value, where)
    elif isinstance(value, sympy.Expr) and not isinstance(value, sympy.Rational):
        expr = value
    else:
        d = to_fraction(value, where)
        if d < 0:
            raise InvalidMetric(f"{where}={value!r} is negative; distances are ≥ 0.")
        return Distance.rational(d)
    sq = sympy.expand(expr**2)
    if not isinstance(sq, sympy.Rational):
        raise ExactnessRequired(
            f"{where}={value!r} is not the square root of a rational; exact distances "
            "must be rationals or square roots of rationals (pass e.g. 'sqrt(2)' or '3/2')."
        )
    decided = structural_sign(expr)  # before sympy's query, which may run for hours on huge numbers
    nonneg = (decided in (0, 1)) if decided is not None else expr.is_nonnegative
    if nonneg is None:
        with workprec(128):
            nonneg = bool(sympy_to_arb(expr) >= 0)
    if not nonneg:
        raise InvalidMetric(f"{where}={value!r} is negative; distances are ≥ 0.")
    return Distance.sqrt_of(to_fraction(sq, where))


def grid_offset_distance(dx: int, dy: int, norm: str, h: Fraction) -> Distance:
    """The exact length of the lattice offset (dx, dy) × spacing h under ``norm``
    ("euclidean": h·√(dx² + dy²), "manhattan": h·(|dx| + |dy|), else Chebyshev h·max).

    >>> grid_offset_distance(1, 1, "euclidean", Fraction(1))
    Distance(coef=Fraction(1, 1), radicand=2)
    """
    dx, dy = abs(dx), abs(dy)
    if norm == "euclidean":
        return Distance.sqrt_of(Fraction(dx * dx + dy * dy) * h * h)
    if norm == "manhattan":
        return Distance.rational((dx + dy) * h)
    return Distance.rational(max(dx, dy) * h)
