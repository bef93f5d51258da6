"""Hypothesis strategies for the sets module: rational points, point sets, boxes, unions.

>>> from hypothesis import given
>>> @given(point_sets(dim=2))
... def check(X):
...     assert X.dim == 2 and len(X) >= 1
>>> check()
"""

from __future__ import annotations

from fractions import Fraction

from hypothesis import strategies as st

from exactdp.sets import Box, BoxUnion, PointSet, point_set

__all__ = ["points", "point_sets", "boxes", "box_unions"]


def _coordinates(max_abs: int, max_denominator: int) -> st.SearchStrategy[Fraction]:
    return st.fractions(min_value=-max_abs, max_value=max_abs, max_denominator=max_denominator)


def points(dim: int, max_abs: int = 4, max_denominator: int = 4) -> st.SearchStrategy[tuple[Fraction, ...]]:
    """Rational points of Q^dim with |coordinate| ≤ max_abs."""
    return st.tuples(*[_coordinates(max_abs, max_denominator)] * dim)


@st.composite
def point_sets(draw: st.DrawFn, dim: int = 2, min_size: int = 1, max_size: int = 6,
               max_abs: int = 4, max_denominator: int = 4) -> PointSet:
    """Nonempty finite point sets (duplicates merged by :func:`~exactdp.sets.point_set`)."""
    pts = draw(st.lists(points(dim, max_abs, max_denominator), min_size=min_size, max_size=max_size))
    return point_set(pts)


@st.composite
def boxes(draw: st.DrawFn, dim: int = 1, max_abs: int = 4, max_denominator: int = 4) -> Box:
    """Nondegenerate boxes [l, u] (l_i < u_i) with rational corners."""
    lo, hi = [], []
    for _ in range(dim):
        a, b = draw(st.lists(_coordinates(max_abs, max_denominator), min_size=2, max_size=2, unique=True))
        lo.append(min(a, b))
        hi.append(max(a, b))
    return Box(tuple(lo), tuple(hi))


@st.composite
def box_unions(draw: st.DrawFn, dim: int = 1, max_boxes: int = 3) -> BoxUnion:
    """Finite unions of 1..max_boxes boxes of one dimension (they may overlap)."""
    return BoxUnion(draw(st.lists(boxes(dim), min_size=1, max_size=max_boxes)))
