"""Finite point sets in Qⁿ, norms, exact Hausdorff distance and diameter with witnesses.

Coordinates are held as exact rationals (:class:`fractions.Fraction`). A binary float
is taken at its exact binary value (with an :class:`~exactdp.errors.InexactInputWarning`),
so any finite set of floats in Rⁿ is handled exactly as the rational set it really is.

Distances: ℓ1 and ℓ∞ are rational; ℓ2 is compared through its (rational) square and
returned as an exact ``sympy.sqrt`` — so every comparison is exact, with no rounding.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

import sympy

from exactdp.arithmetic.rationals import to_fraction, to_sympy
from exactdp.errors import InstanceTooLarge, InvalidArgument, InvalidSet
from exactdp.kernel.jsonio import MAX_DIGITS, document_numbers, envelope, write_rational
from exactdp.kernel.sets import (
    MAX_DIM,
    MAX_POINTS,
    SET_DIAMETER,
    SET_HAUSDORFF,
    check_set_functional_document,
    pair_work,
)

__all__ = [
    "Norm",
    "Point",
    "PointSet",
    "point_set",
    "parse_norm",
    "distance",
    "HausdorffResult",
    "DiameterResult",
    "hausdorff_distance",
    "diameter",
    "as_point",
    "comparison_key",
    "key_to_sympy",
]

Norm = Literal["l1", "l2", "linf"]
Point = tuple[Fraction, ...]

_NORM_ALIASES: dict[str, Norm] = {
    "l1": "l1",
    "1": "l1",
    "manhattan": "l1",
    "taxicab": "l1",
    "l2": "l2",
    "2": "l2",
    "euclidean": "l2",
    "linf": "linf",
    "inf": "linf",
    "max": "linf",
    "chebyshev": "linf",
}


def parse_norm(norm: Any) -> Norm:
    """Read a norm name: ``"l1"``, ``"l2"`` or ``"linf"`` (aliases: 1, 2, "inf", ...).

    >>> parse_norm("Euclidean"), parse_norm(1), parse_norm("inf")
    ('l2', 'l1', 'linf')
    """
    key = str(norm).strip().lower().replace("ℓ", "l").replace("∞", "inf")
    if key in _NORM_ALIASES:
        return _NORM_ALIASES[key]
    raise InvalidArgument(f"Got norm={norm!r}; use 'l1', 'l2' or 'linf'.")


def _coordinate(value: Any, name: str, error: type[Exception] = InvalidSet) -> Fraction:
    if isinstance(value, float | numbers.Real) and not isinstance(value, int | Fraction | sympy.Basic):
        f = float(value)
        if math.isnan(f) or math.isinf(f):
            raise error(f"Got {name}={value!r}; coordinates must be finite numbers.")
    if isinstance(value, sympy.Basic) and not isinstance(value, sympy.Rational):
        raise error(
            f"Got {name}={value!r}; coordinates must be rational (exact) numbers such as 3, '1/4' or Fraction(1, 4)."
        )
    try:
        return to_fraction(value, name)
    except InvalidArgument as exc:
        raise error(str(exc)) from exc


def as_point(p: Any, name: str) -> Point:
    """One point of Qⁿ, read exactly (a scalar is a 1-D point); :class:`InvalidSet` if bad."""
    if isinstance(p, str) or not isinstance(p, Iterable):
        return (_coordinate(p, name),)
    coords = tuple(_coordinate(c, f"{name}[{i}]") for i, c in enumerate(p))
    if not coords:
        raise InvalidSet(f"Got {name}={p!r}; a point needs at least one coordinate.")
    return coords


@dataclass(frozen=True)
class PointSet:
    """A nonempty finite set of points in Qⁿ (sorted, duplicates removed).

    Build one with :func:`point_set`.

    Examples
    --------
    >>> X = point_set([(0, 0), (1, "1/2"), (0, 0)])
    >>> len(X), X.dim
    (2, 2)
    >>> X.translate((1, 1)).points[0]
    (Fraction(1, 1), Fraction(1, 1))
    """

    points: tuple[Point, ...]
    dim: int

    def __len__(self) -> int:
        return len(self.points)

    def __iter__(self) -> Any:
        return iter(self.points)

    def translate(self, v: Sequence[Any]) -> PointSet:
        """The translate X + v (exact)."""
        vec = as_point(v, "v")
        if len(vec) != self.dim:
            raise InvalidSet(f"Got a shift of dimension {len(vec)} for a set in dimension {self.dim}.")
        return PointSet(tuple(sorted(tuple(a + b for a, b in zip(p, vec)) for p in self.points)), self.dim)

    def to_json(self) -> list[list[str]]:
        """Exact JSON form: coordinates as "p/q" strings."""
        return [[write_number(c, "coordinate") for c in p] for p in self.points]

    def as_floats(self) -> list[list[float]]:
        """Float coordinates (for plotting only)."""
        return [[float(c) for c in p] for p in self.points]


def point_set(points: Any, name: str = "X") -> PointSet:
    """Build a :class:`PointSet` from points (sequences of numbers) or 1-D scalars.

    Raises :class:`~exactdp.errors.InvalidSet` for an empty set, mixed dimensions,
    NaN/∞ or non-rational coordinates.

    >>> point_set([0, "1/4"]).points
    ((Fraction(0, 1),), (Fraction(1, 4),))
    >>> point_set([])
    Traceback (most recent call last):
    ...
    exactdp.errors.InvalidSet: Got an empty X; a point set needs at least one point.
    """
    if isinstance(points, PointSet):
        return points
    if hasattr(points, "tolist"):
        points = points.tolist()
    if isinstance(points, str) or not isinstance(points, Iterable):
        raise InvalidSet(f"Got {name}={points!r}; pass a list of points such as [(0, 0), (1, 2)].")
    pts = [as_point(p, f"{name}[{i}]") for i, p in enumerate(points)]
    if not pts:
        raise InvalidSet(f"Got an empty {name}; a point set needs at least one point.")
    dims = {len(p) for p in pts}
    if len(dims) > 1:
        raise InvalidSet(
            f"Got points of mixed dimensions {sorted(dims)} in {name}; all points must have "
            f"the same number of coordinates."
        )
    return PointSet(tuple(sorted(set(pts))), dims.pop())


def comparison_key(a: Point, b: Point, norm: Norm) -> Fraction:
    """Exact comparison key: the distance (ℓ1, ℓ∞) or the squared distance (ℓ2).

    >>> comparison_key((0, 0), (1, 1), "l2")
    Fraction(2, 1)
    """
    if norm == "l1":
        return sum((abs(x - y) for x, y in zip(a, b)), Fraction(0))
    if norm == "linf":
        return max(abs(x - y) for x, y in zip(a, b))
    return sum(((x - y) ** 2 for x, y in zip(a, b)), Fraction(0))


def key_to_sympy(key: Fraction, norm: Norm) -> sympy.Expr:
    """The distance whose :func:`comparison_key` is ``key``, as an exact sympy number."""
    r = to_sympy(key)
    return sympy.sqrt(r) if norm == "l2" else r


def distance(a: Sequence[Any], b: Sequence[Any], norm: Any = "l1") -> sympy.Expr:
    """Exact distance between two points (sympy Rational, or sqrt of one for ℓ2).

    >>> distance((0, 0), (1, 1), "l2"), distance((0, 0), (1, 1), "l1")
    (sqrt(2), 2)
    """
    nm = parse_norm(norm)
    pa, pb = as_point(a, "a"), as_point(b, "b")
    if len(pa) != len(pb):
        raise InvalidSet(f"Points of dimensions {len(pa)} and {len(pb)} cannot be compared.")
    return key_to_sympy(comparison_key(pa, pb, nm), nm)


_TOO_LONG = 10**MAX_DIGITS


def write_number(value: Fraction, where: str) -> str:
    """The kernel's ``write_rational`` of a number of a set document; InstanceTooLarge when
    its numerator or denominator has more than the kernel's MAX_DIGITS digits (no document
    can state it; never Python's bare int↔str ValueError).

    >>> write_number(Fraction(10**5000 + 1, 3), "x")[-6:]
    '0001/3'
    """
    if max(abs(value.numerator), value.denominator) >= _TOO_LONG:
        raise InstanceTooLarge(f"{where}: a number with more than MAX_DIGITS = {MAX_DIGITS} digits in its numerator "
                               "or denominator has no document form (rescale the sets).")
    return write_rational(value, where)


def _key_of(value: sympy.Expr, norm: Norm) -> str:
    """The document's ``key`` of a claimed distance: the distance (ℓ1, ℓ∞) or its square (ℓ2)."""
    key = value**2 if norm == "l2" else value
    if not isinstance(key, sympy.Rational) or sympy.sign(value) < 0:
        raise InvalidArgument(f"Got a distance {value}; it must be ≥ 0 with a rational "
                              f"{'square' if norm == 'l2' else 'value'} under the {norm} norm.")
    return write_number(to_fraction(key, "key"), "key")


def _question(norm: Norm, **sets: PointSet) -> dict[str, Any]:
    """The document's question; InstanceTooLarge beyond the sizes the kernel reads."""
    if max(len(S) for S in sets.values()) > MAX_POINTS or next(iter(sets.values())).dim > MAX_DIM:
        raise InstanceTooLarge(f"sets of sizes {[len(S) for S in sets.values()]} in dimension "
                               f"{next(iter(sets.values())).dim}: a set document allows at most MAX_POINTS = "
                               f"{MAX_POINTS} points and dimension MAX_DIM = {MAX_DIM}.")
    values = list(sets.values())
    pair_work([*values[0].points], [*values[1].points] if len(values) > 1 else None)  # the kernel's own limit
    return {k: S.to_json() for k, S in sets.items()} | {"norm": norm}


def _write_point(p: Point) -> list[str]:
    return [write_number(to_fraction(c, "coordinate"), "coordinate") for c in p]


def _kernel_verify(result: HausdorffResult | DiameterResult) -> bool:
    """``check_set_functional_document(result.to_document())``; False when no document can
    state the result (an irrational ℓ1 value, a non-rational witness)."""
    try:
        with document_numbers():  # messages about 4,300+ digit numbers: shortened, never a bare ValueError
            return check_set_functional_document(result.to_document())
    except InvalidArgument:
        return False


def _check_same_dim(X: PointSet, Y: PointSet) -> None:
    if X.dim != Y.dim:
        raise InvalidSet(f"Got sets in dimensions {X.dim} and {Y.dim}; both sets must live in the same Rⁿ.")


@dataclass(frozen=True)
class HausdorffResult:
    """Exact Hausdorff distance with a witness.

    ``witness`` lies in ``X`` when ``direction == "X->Y"`` (else in ``Y``); ``nearest``
    is its nearest point in the other set, and d_H = d(witness, nearest) =
    d(witness, other set).
    """

    value: sympy.Expr
    norm: Norm
    witness: Point
    nearest: Point
    direction: Literal["X->Y", "Y->X"]
    X: PointSet
    Y: PointSet

    @property
    def value_float(self) -> float:
        """The distance as a float (uncertified, display only)."""
        return float(self.value)

    def verify(self) -> bool:
        """Re-check :meth:`to_document` in the kernel: the witness pair realises the value,
        the witness's nearest point is that far, and d_H is that value (re-derived exactly
        from X, Y and the norm; InstanceTooLarge beyond the kernel's MAX_POINTS / MAX_DIM / MAX_PAIR_WORK or
        MAX_DIGITS)."""
        return _kernel_verify(self)

    def to_document(self) -> dict[str, Any]:
        """The kernel document (kind ``set-hausdorff``; ``exactdp verify`` re-checks it).

        >>> doc = hausdorff_distance([(0, 0)], [(0, 0), (3, 4)], norm="l2").to_document()
        >>> doc["claim"]["key"], doc["claim"]["witness"]
        ('25', ['3', '4'])
        """
        question = _question(self.norm, X=self.X, Y=self.Y)
        claim = {"key": _key_of(self.value, self.norm), "witness": _write_point(self.witness),
                 "nearest": _write_point(self.nearest), "direction": self.direction}
        return envelope(SET_HAUSDORFF, question, claim, {})


def _directed(A: PointSet, B: PointSet, norm: Norm) -> tuple[Fraction, Point, Point]:
    best: tuple[Fraction, Point, Point] | None = None
    for a in A.points:
        near = min(B.points, key=lambda b: comparison_key(a, b, norm))
        k = comparison_key(a, near, norm)
        if best is None or k > best[0]:
            best = (k, a, near)
    assert best is not None
    return best


def hausdorff_distance(X: Any, Y: Any, norm: Any = "l1") -> HausdorffResult:
    """Exact Hausdorff distance d_H(X, Y) = max(sup_x d(x, Y), sup_y d(y, X)).

    O(|X|·|Y|·n) exact comparisons.

    Examples
    --------
    >>> r = hausdorff_distance([(0, 0)], [(0, 0), (3, 4)], norm="l2")
    >>> r.value, r.witness, r.direction
    (5, (Fraction(3, 1), Fraction(4, 1)), 'Y->X')
    >>> r.verify()
    True
    """
    nm = parse_norm(norm)
    Xs, Ys = point_set(X, "X"), point_set(Y, "Y")
    _check_same_dim(Xs, Ys)
    kx, ax, bx = _directed(Xs, Ys, nm)
    ky, ay, by = _directed(Ys, Xs, nm)
    if kx >= ky:
        return HausdorffResult(key_to_sympy(kx, nm), nm, ax, bx, "X->Y", Xs, Ys)
    return HausdorffResult(key_to_sympy(ky, nm), nm, ay, by, "Y->X", Xs, Ys)


@dataclass(frozen=True)
class DiameterResult:
    """Exact diameter with a witnessing pair of points (a, b) of ``S``: diam = d(a, b)."""

    value: sympy.Expr
    norm: Norm
    a: Point
    b: Point
    S: PointSet

    @property
    def value_float(self) -> float:
        """The diameter as a float (uncertified, display only)."""
        return float(self.value)

    def verify(self) -> bool:
        """Re-check :meth:`to_document` in the kernel: a and b are points of S, d(a, b) is the
        value and no pair of S is farther apart (all pairs, exact comparison keys;
        InstanceTooLarge beyond the kernel's MAX_POINTS / MAX_DIM / MAX_PAIR_WORK or
        MAX_DIGITS)."""
        return _kernel_verify(self)

    def to_document(self) -> dict[str, Any]:
        """The kernel document (kind ``set-diameter``; ``exactdp verify`` re-checks it).

        >>> diameter([(0, 0), (1, 0), (0, 2)], "l2").to_document()["claim"]
        {'key': '5', 'a': ['0', '2'], 'b': ['1', '0']}
        """
        claim = {"key": _key_of(self.value, self.norm), "a": _write_point(self.a), "b": _write_point(self.b)}
        return envelope(SET_DIAMETER, _question(self.norm, X=self.S), claim, {})


def diameter(S: Any, norm: Any = "l1") -> DiameterResult:
    """Exact diameter of a finite point set, with the farthest pair (O(|S|²·n)).

    >>> d = diameter([(0, 0), (1, 0), (0, 2)], "l1")
    >>> d.value, d.a, d.b
    (3, (Fraction(0, 1), Fraction(2, 1)), (Fraction(1, 1), Fraction(0, 1)))
    >>> d.verify()
    True
    """
    nm = parse_norm(norm)
    Ss = point_set(S, "S")
    best = (Fraction(-1), Ss.points[0], Ss.points[0])
    for i, a in enumerate(Ss.points):
        for b in Ss.points[i:]:
            k = comparison_key(a, b, nm)
            if k > best[0]:
                best = (k, a, b)
    return DiameterResult(key_to_sympy(best[0], nm), nm, best[1], best[2], Ss)
