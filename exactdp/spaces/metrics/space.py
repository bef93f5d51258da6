"""The finite metric space type: exact distance values, an index matrix, recorded structure.

A :class:`FiniteMetric` stores its distinct distance values (exact :class:`Distance`
objects) and an index matrix mapping each pair (i, j) to one of them, so Φ can be
built in any arithmetic by evaluating e^{-ε d} once per distinct distance. It also
records what it knows about its own structure:

* ``q``: in the *polynomial case* every distance is an integer multiple of 1/q, so with
  s = e^{-ε/q} every entry of Φ is a monomial s^k (``exponent_matrix()`` gives k);
* ``toeplitz``: d(i, j) depends only on |i − j| (line, sum query);
* ``kronecker_factors``: the metric is the ℓ1-sum of the factors' metrics, so
  Φ = Φ_1 ⊗ … ⊗ Φ_m (Hamming databases, Manhattan grids);
* ``graph_edges``: d is the shortest-path metric of these weighted edges, so privacy
  of a mechanism needs checking on the edges only (the path argument);
* ``grid``: (width, height, norm, spacing) for planar grids (block-Toeplitz Φ).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import Any

import numpy as np

from exactdp.errors import ExactnessRequired, InvalidMetric
from exactdp.spaces.distances import Distance

__all__ = ["FiniteMetric", "GridInfo", "read_metric"]


@dataclass(frozen=True)
class GridInfo:
    """Planar grid structure: points (x, y) row-major by y then x, coordinates × spacing."""

    width: int
    height: int
    norm: str
    spacing: Fraction


class FiniteMetric:
    """A finite metric space with exact distances (immutable after construction).

    Use the constructors (:func:`line`, :func:`sum_query`, :func:`from_matrix`, ...)
    rather than this class directly: they validate input and record structure.

    Examples
    --------
    >>> from exactdp.spaces.metrics import line
    >>> m = line(4)
    >>> m.n, m.q, m.distance(0, 3)
    (4, 1, Distance(coef=Fraction(3, 1), radicand=1))
    >>> m.exponent_matrix()[0].tolist()
    [0, 1, 2, 3]
    """

    def __init__(
        self,
        name: str,
        points: Sequence[Any],
        values: Sequence[Distance],
        index: np.ndarray | Callable[[], np.ndarray],
        *,
        toeplitz: bool = False,
        kronecker_factors: tuple[FiniteMetric, ...] | None = None,
        graph_edges: tuple[tuple[int, int], ...] | None = None,
        grid_info: GridInfo | None = None,
        params: dict[str, Any] | None = None,
    ) -> None:
        self.name = name
        self.points = tuple(points)
        self.values: tuple[Distance, ...] = tuple(values)
        self._index_source = index
        self.toeplitz = toeplitz
        self.kronecker_factors = kronecker_factors
        self.graph_edges = graph_edges
        self.grid = grid_info
        self.params = dict(params or {})

    # -- basic facts -------------------------------------------------------------
    @property
    def n(self) -> int:
        """Number of points."""
        return len(self.points)

    def __len__(self) -> int:
        return self.n

    def __repr__(self) -> str:
        return f"<FiniteMetric {self.name} n={self.n} q={self.q}>"

    @cached_property
    def index(self) -> np.ndarray:
        """n×n integer matrix: ``values[index[i, j]]`` is d(i, j)."""
        src = self._index_source
        idx = src() if callable(src) else src
        idx = np.asarray(idx)
        idx.setflags(write=False)
        return idx

    def distance(self, i: int, j: int) -> Distance:
        """Exact d(i, j)."""
        return self.values[int(self.index[i, j])]

    @cached_property
    def q(self) -> int | None:
        """Common denominator q of the polynomial case (None when some distance is irrational)."""
        if not all(v.is_rational for v in self.values):
            return None
        return math.lcm(*(v.coef.denominator for v in self.values)) if self.values else 1

    @property
    def is_polynomial(self) -> bool:
        """True when every distance is a multiple of 1/q (Φ entries are monomials in s)."""
        return self.q is not None

    @cached_property
    def exponents(self) -> tuple[int, ...]:
        """k = q·d for each distinct distance value (polynomial case only)."""
        q = self._require_polynomial()
        out = []
        for v in self.values:
            k = v.coef * q
            assert k.denominator == 1
            out.append(int(k))
        return tuple(out)

    def exponent_matrix(self) -> np.ndarray:
        """n×n int64 matrix of k = q·d(i, j): Φ[i, j] = s^k with s = e^{-ε/q}."""
        return np.asarray(self.exponents, dtype=np.int64)[self.index]

    def distance_matrix_float(self) -> np.ndarray:
        """Float distance matrix (uncertified; for float baselines and plotting)."""
        return np.array([float(v) for v in self.values])[self.index]

    def _require_polynomial(self) -> int:
        q = self.q
        if q is None:
            raise ExactnessRequired(
                f"{self.name} has irrational distances; Φ is not polynomial in any s. "
                "Use the ball backend (certified) instead of the exact one."
            )
        return q

    @cached_property
    def ball_size_symmetric(self) -> bool:
        """True when every point sees the same multiset of distances (Prop. 9 applies)."""
        idx = self.index
        counts = np.stack([np.bincount(row, minlength=len(self.values)) for row in idx])
        return bool(np.all(counts == counts[0]))

    def neighbours_counts(self) -> dict[Distance, int]:
        """n_r: how many points lie at each distance r from point 0 (ball-size symmetric spaces)."""
        row = np.bincount(self.index[0], minlength=len(self.values))
        return {self.values[k]: int(c) for k, c in enumerate(row) if c}

    def check_edges(self) -> tuple[tuple[int, int], ...]:
        """Pairs on which d-privacy must be checked: the graph's edges, else all pairs i < j."""
        if self.graph_edges is not None:
            return self.graph_edges
        return tuple(itertools.combinations(range(self.n), 2))



def read_metric(metric: Any, name: str = "metric") -> FiniteMetric:
    """``metric`` itself when it is a :class:`FiniteMetric`; else :class:`InvalidMetric`.

    >>> read_metric(None)
    Traceback (most recent call last):
    ...
    exactdp.errors.InvalidMetric: Got metric=None; pass a FiniteMetric, e.g. exactdp.metrics.line(5) ...
    """
    if not isinstance(metric, FiniteMetric):
        raise InvalidMetric(
            f"Got {name}={metric!r}; pass a FiniteMetric, e.g. exactdp.metrics.line(5) or "
            "exactdp.metrics.from_matrix([[0, 1], [1, 0]])."
        )
    return metric
