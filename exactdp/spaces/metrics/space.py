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
from dataclasses import FrozenInstanceError, dataclass
from fractions import Fraction
from functools import cached_property
from typing import Any

import numpy as np

from exactdp.errors import ExactnessRequired, ExponentTooLarge, InvalidMetric
from exactdp.kinds import proved_by
from exactdp.spaces.distances import Distance
from exactdp.spaces.metrics.claims import (
    GRID_TRUSTED_TYPES,
    distance_table_error,
    graph_claim_error,
    grid_claim_error,
    kronecker_claim_error,
    toeplitz_claim_error,
)

__all__ = ["FiniteMetric", "GridInfo", "grid_ball_size_symmetric", "read_metric"]


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
    rather than this class directly: they validate input and record structure. Built
    directly, every structure claim is checked exactly and a false one is refused:

    >>> import numpy as np
    >>> from exactdp.spaces.metrics import line
    >>> star = [[0, 1, 1, 1], [1, 0, 2, 2], [1, 2, 0, 2], [1, 2, 2, 0]]
    >>> FiniteMetric("star", range(4), [Distance.rational(k) for k in range(3)],
    ...              np.array(star), kronecker_factors=(line(2), line(2)))
    Traceback (most recent call last):
    ...
    exactdp.errors.InvalidMetric: star: the claim kronecker_factors=(line(2), line(2)) is false: ...
    >>> line(3).toeplitz = False
    Traceback (most recent call last):
    ...
    dataclasses.FrozenInstanceError: cannot assign to field 'toeplitz': ...

    Examples
    --------
    >>> from exactdp.spaces.metrics import line
    >>> m = line(4)
    >>> m.n, m.q, m.distance(0, 3)
    (4, 1, Distance(coef=Fraction(3, 1), radicand=1))
    >>> m.exponent_matrix()[0].tolist()
    [0, 1, 2, 3]
    """

    name: str
    points: tuple[Any, ...]
    values: tuple[Distance, ...]
    toeplitz: bool
    kronecker_factors: tuple[FiniteMetric, ...] | None
    graph_edges: tuple[tuple[int, int], ...] | None
    grid: GridInfo | None
    params: dict[str, Any]
    _index_source: np.ndarray | Callable[[], np.ndarray]

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
        """Build a metric; every structure claim is checked exactly against the distances.

        ``toeplitz``, ``kronecker_factors``, ``grid_info`` and ``graph_edges`` are claims
        that fast routes rely on, so a claim that does not hold raises
        :class:`InvalidMetric` naming it (O(n²) exact comparisons, O(n·Σdeg) for the
        edges; see :mod:`exactdp.spaces.metrics.claims`). The library constructors, which
        establish the structure themselves, skip the check.
        """
        self._setup(name, points, values, index, toeplitz, kronecker_factors, graph_edges,
                    grid_info, params)
        self._check_claims()

    @classmethod
    def _from_library(
        cls,
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
    ) -> FiniteMetric:
        """For the library constructors only: the structure holds by construction."""
        self = cls.__new__(cls)
        self._setup(name, points, values, index, toeplitz, kronecker_factors, graph_edges,
                    grid_info, params)
        return self

    def _setup(self, name: str, points: Sequence[Any], values: Sequence[Distance],
               index: np.ndarray | Callable[[], np.ndarray], toeplitz: bool,
               kronecker_factors: tuple[FiniteMetric, ...] | None,
               graph_edges: tuple[tuple[int, int], ...] | None, grid_info: GridInfo | None,
               params: dict[str, Any] | None) -> None:
        put = object.__setattr__
        put(self, "name", name)
        put(self, "points", tuple(points))
        put(self, "values", tuple(values))
        put(self, "_index_source", index)
        put(self, "toeplitz", toeplitz)
        put(self, "kronecker_factors", kronecker_factors)
        put(self, "graph_edges", graph_edges)
        put(self, "grid", grid_info)
        put(self, "params", dict(params or {}))

    def _check_claims(self) -> None:
        if callable(self._index_source):
            object.__setattr__(self, "_table_unchecked", True)  # checked when first built
        else:
            self._check_table(self._index_source)
        if not isinstance(self.toeplitz, bool):
            raise InvalidMetric(f"Got toeplitz={self.toeplitz!r}; pass True or False.")
        if self.kronecker_factors is not None:
            factors = self.kronecker_factors
            if isinstance(factors, list):
                factors = tuple(factors)
                object.__setattr__(self, "kronecker_factors", factors)
            if not isinstance(factors, tuple) or not all(
                    isinstance(f, FiniteMetric) for f in factors):
                raise InvalidMetric(f"Got kronecker_factors={factors!r}; pass a tuple of "
                                    "FiniteMetric (or None).")
            err = kronecker_claim_error(self, factors)
            if err is not None:
                raise InvalidMetric(
                    f"{self.name}: the claim kronecker_factors=({', '.join(f.name for f in factors)}"
                    f") is false: {err}. Drop the claim (the distances alone define the metric) "
                    "or build the product with exactdp.metrics.hamming / grid(..., 'manhattan')."
                )
        if self.grid is not None:
            err = grid_claim_error(self, self.grid)
            if err is not None:
                raise InvalidMetric(f"{self.name}: the claim grid_info={self.grid!r} is false: "
                                    f"{err}. Drop the claim or use exactdp.metrics.grid.")
        if self.graph_edges is not None:
            edges = self.graph_edges
            if isinstance(edges, list):
                edges = tuple(tuple(e) if isinstance(e, list) else e for e in edges)
                object.__setattr__(self, "graph_edges", edges)
            err = graph_claim_error(self, edges)
            if err is not None:
                raise InvalidMetric(f"{self.name}: the claim graph_edges is false: {err}. Drop "
                                    "the claim or use exactdp.metrics.from_graph.")
        if self.toeplitz:
            err = toeplitz_claim_error(self)
            if err is not None:
                raise InvalidMetric(f"{self.name}: the claim toeplitz=True is false: {err}. "
                                    "Drop the claim.")

    def __setattr__(self, key: str, value: Any) -> None:
        raise FrozenInstanceError(
            f"cannot assign to field {key!r}: a FiniteMetric is immutable (its structure "
            "claims are checked once, at construction); build a new metric instead."
        )

    def __delattr__(self, key: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {key!r}: a FiniteMetric is immutable.")

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
        if self.__dict__.get("_table_unchecked"):
            self._check_table(idx)
        idx.setflags(write=False)
        return idx

    def _check_table(self, idx: Any) -> None:
        """InvalidMetric unless the index is a distance table (claims.distance_table_error)."""
        err = distance_table_error(self, idx)
        if err is not None:
            raise InvalidMetric(f"{self.name}: not a metric: {err}. Build it with "
                                "exactdp.metrics.from_matrix, which checks every axiom.")

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

    def exponent_array(self) -> np.ndarray:
        """The distinct exponents k = q·d as int64 (the one place they become int64), or
        :class:`~exactdp.errors.ExponentTooLarge` naming the distance."""
        for v, k in zip(self.values, self.exponents):
            if k >= 2**63:
                raise ExponentTooLarge(
                    f"Distance {v} has exponent q·d = {k} (q = {self.q}), which does not fit "
                    f"in 64 bits; the exact routes need q·d < 2^63. Divide every distance by "
                    f"a common factor g (ε* scales by g: the threshold of d/g is g·ε*(d)).")
        return np.asarray(self.exponents, dtype=np.int64)

    def exponent_matrix(self) -> np.ndarray:
        """n×n int64 matrix of k = q·d(i, j): Φ[i, j] = s^k with s = e^{-ε/q}."""
        return self.exponent_array()[self.index]

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
        """True when every point sees the same multiset of distances (Prop. 9 applies).

        Grids are decided from their shape in O(1) (:func:`grid_ball_size_symmetric`),
        without the n×n index; other metrics compare the per-point distance counts.
        """
        if self.grid is not None:
            return grid_ball_size_symmetric(self.grid)
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



GRID_TRUSTED_TYPES.add(FiniteMetric)  # its grid claim is checked at construction (see claims.py)


@proved_by("grid_ball_symmetry")
def grid_ball_size_symmetric(info: GridInfo) -> bool:
    """A W×H grid (any norm, any spacing) is ball-size symmetric iff W ≤ 2 and H ≤ 2.

    If W ≥ 3 (or H ≥ 3) the corner (0, 0) has fewer points at the least distance (the
    spacing) than (1, 0) (or (0, 1)); grids with W, H ≤ 2 have an isometry group acting
    transitively on the points (``proofs/grid_ball_symmetry.py``, which also compares
    with the per-point distance counts on every small grid).

    >>> grid_ball_size_symmetric(GridInfo(2, 2, "euclidean", Fraction(1)))
    True
    >>> grid_ball_size_symmetric(GridInfo(3, 1, "manhattan", Fraction(1)))
    False
    """
    return info.width <= 2 and info.height <= 2


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
