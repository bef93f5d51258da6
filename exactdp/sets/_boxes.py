"""Axis-aligned boxes with rational corners and finite unions of them (the sets K).

A box is the closed product ``[l_1, u_1] × … × [l_n, u_n]`` with ``l_i < u_i``
(strictly: a degenerate box has Laplace measure zero and is rejected — use a tiny box
instead). Whether faces are open or closed does not matter for any probability computed
here (faces have measure zero under the continuous Laplace law).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy

from exactdp.errors import InvalidBox
from exactdp.sets._points import Norm, Point, as_point, comparison_key, key_to_sympy, parse_norm

__all__ = ["Box", "BoxUnion", "as_boxes", "region_diameter"]


@dataclass(frozen=True, init=False)
class Box:
    """A closed axis-aligned box ``[lower, upper]`` in Qⁿ.

    Examples
    --------
    >>> Box((0, 0), ("1/2", 1)).upper
    (Fraction(1, 2), Fraction(1, 1))
    >>> Box(0, 1).dim
    1
    >>> Box((0, 1), (1, 1))
    Traceback (most recent call last):
    ...
    exactdp.errors.InvalidBox: Got a degenerate box: lower[1]=1 is not < upper[1]=1; ...
    """

    lower: Point
    upper: Point

    def __init__(self, lower: Any, upper: Any) -> None:
        try:
            lo = as_point(lower, "lower")
            hi = as_point(upper, "upper")
        except Exception as exc:  # InvalidSet from the shared parser -> InvalidBox
            raise InvalidBox(str(exc).replace("coordinates", "box corners")) from exc
        if len(lo) != len(hi):
            raise InvalidBox(
                f"Got corners of dimensions {len(lo)} and {len(hi)}; lower and upper must "
                f"have the same number of coordinates."
            )
        for i, (a, b) in enumerate(zip(lo, hi)):
            if a > b:
                raise InvalidBox(f"Got an inverted box: lower[{i}]={a} > upper[{i}]={b}; swap the corners.")
            if a == b:
                raise InvalidBox(
                    f"Got a degenerate box: lower[{i}]={a} is not < upper[{i}]={b}; a box "
                    f"needs lower < upper in every coordinate (for a point, use a tiny box)."
                )
        object.__setattr__(self, "lower", lo)
        object.__setattr__(self, "upper", hi)

    @property
    def dim(self) -> int:
        """Dimension n."""
        return len(self.lower)

    def translate(self, v: Sequence[Fraction]) -> Box:
        """The box shifted by v (exact)."""
        return Box(
            tuple(a + b for a, b in zip(self.lower, v)),
            tuple(a + b for a, b in zip(self.upper, v)),
        )

    def contains(self, p: Sequence[Any]) -> bool:
        """Whether the point p lies in the closed box."""
        q = as_point(p, "p")
        return all(lo <= c <= hi for lo, c, hi in zip(self.lower, q, self.upper))

    def to_json(self) -> dict[str, list[str]]:
        """Exact JSON form."""
        return {"lower": [str(c) for c in self.lower], "upper": [str(c) for c in self.upper]}


@dataclass(frozen=True, init=False)
class BoxUnion:
    """A nonempty finite union of boxes of one dimension.

    >>> K = BoxUnion([Box(0, 1), Box(3, 4)])
    >>> len(K.boxes), K.dim
    (2, 1)
    """

    boxes: tuple[Box, ...]

    def __init__(self, boxes: Iterable[Box]) -> None:
        bs = tuple(boxes)
        if not bs:
            raise InvalidBox("Got an empty union of boxes; pass at least one Box.")
        for b in bs:
            if not isinstance(b, Box):
                raise InvalidBox(f"Got {b!r} in a BoxUnion; every member must be a Box.")
        dims = {b.dim for b in bs}
        if len(dims) > 1:
            raise InvalidBox(f"Got boxes of mixed dimensions {sorted(dims)} in one union.")
        object.__setattr__(self, "boxes", bs)

    @property
    def dim(self) -> int:
        """Dimension n."""
        return self.boxes[0].dim

    def to_json(self) -> list[dict[str, list[str]]]:
        """Exact JSON form."""
        return [b.to_json() for b in self.boxes]


def as_boxes(K: Any) -> tuple[Box, ...]:
    """Normalise K (a Box, a BoxUnion, or a list of Boxes) to a tuple of boxes."""
    if isinstance(K, Box):
        return (K,)
    if isinstance(K, BoxUnion):
        return K.boxes
    if isinstance(K, list | tuple):
        return BoxUnion(K).boxes
    raise InvalidBox(f"Got K={K!r}; pass a Box(lower, upper), a BoxUnion or a list of Boxes.")


def region_diameter(K: Any, norm: Any = "l1") -> tuple[sympy.Expr, Point, Point]:
    """Exact diameter of a box or union of boxes, with a witnessing pair of corners.

    For two boxes A, B the farthest pair is coordinatewise: in coordinate i the largest
    gap is max(u^A_i − l^B_i, u^B_i − l^A_i), and every ℓp norm is monotone in the
    absolute coordinates, so the maxima combine. O(m²·n) for m boxes.

    >>> region_diameter(Box((0, 0), (1, 2)), "l2")[0]
    sqrt(5)
    >>> region_diameter([Box(0, 1), Box(3, 4)])[0]
    4
    """
    nm: Norm = parse_norm(norm)
    boxes = as_boxes(K)
    best: tuple[Fraction, Point, Point] | None = None
    for A in boxes:
        for B in boxes:
            a: list[Fraction] = []
            b: list[Fraction] = []
            for i in range(A.dim):
                if A.upper[i] - B.lower[i] >= B.upper[i] - A.lower[i]:
                    a.append(A.upper[i])
                    b.append(B.lower[i])
                else:
                    a.append(A.lower[i])
                    b.append(B.upper[i])
            k = comparison_key(tuple(a), tuple(b), nm)
            if best is None or k > best[0]:
                best = (k, tuple(a), tuple(b))
    assert best is not None
    return key_to_sympy(best[0], nm), best[1], best[2]
