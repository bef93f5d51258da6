"""Finite metric spaces with exact distances and the structure later speed-ups use.

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
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import Any

import numpy as np

from exactdp.arithmetic.rationals import to_fraction
from exactdp.errors import ExactnessRequired, InvalidArgument, InvalidMetric
from exactdp.spaces.distances import Distance, as_distance, triangle_holds

__all__ = [
    "FiniteMetric",
    "GridInfo",
    "line",
    "cycle",
    "discrete",
    "sum_query",
    "count_queries",
    "hamming",
    "grid",
    "from_graph",
    "from_matrix",
    "BUILTIN_METRICS",
]


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


# --------------------------------------------------------------------------------
# helpers
def _positive_int(value: Any, name: str, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise InvalidArgument(f"Got {name}={value!r}; it must be an integer ≥ {minimum}.")
    if int(value) < minimum:
        raise InvalidArgument(f"Got {name}={value!r}; it must be an integer ≥ {minimum}.")
    return int(value)


def _rational_values(count: int) -> list[Distance]:
    return [Distance.rational(k) for k in range(count)]


def _edges_where(index: np.ndarray, value_index: int) -> tuple[tuple[int, int], ...]:
    ii, jj = np.nonzero(np.triu(index == value_index, k=1))
    return tuple(zip(ii.tolist(), jj.tolist()))


# --------------------------------------------------------------------------------
# built-in metrics
def line(n: int) -> FiniteMetric:
    """Points 0..n-1 with d(i, j) = |i − j| (the counting query's line graph).

    >>> line(3).exponent_matrix().tolist()
    [[0, 1, 2], [1, 0, 1], [2, 1, 0]]
    """
    n = _positive_int(n, "n")
    idx = np.abs(np.arange(n)[:, None] - np.arange(n)[None, :])
    edges = tuple((i, i + 1) for i in range(n - 1))
    return FiniteMetric(
        f"line({n})", range(n), _rational_values(n), idx, toeplitz=True,
        graph_edges=edges, params={"n": n},
    )


def cycle(n: int) -> FiniteMetric:
    """Points 0..n-1 on a cycle, d = min(|i − j|, n − |i − j|).

    >>> cycle(4).exponent_matrix()[0].tolist()
    [0, 1, 2, 1]
    """
    n = _positive_int(n, "n")
    diff = np.abs(np.arange(n)[:, None] - np.arange(n)[None, :])
    idx = np.minimum(diff, n - diff)
    edges = tuple(sorted({tuple(sorted((i, (i + 1) % n))) for i in range(n) if n > 1}))
    return FiniteMetric(
        f"cycle({n})", range(n), _rational_values(n // 2 + 1), idx,
        graph_edges=edges,  # type: ignore[arg-type]
        params={"n": n},
    )


def discrete(n: int, distance: Any = 1) -> FiniteMetric:
    """n points, all at the same distance (randomized response's metric).

    >>> discrete(3, "1/2").q
    2
    """
    n = _positive_int(n, "n")
    d = to_fraction(distance, "distance")
    if d <= 0:
        raise InvalidMetric(f"Got distance={distance!r}; off-diagonal distances must be > 0.")
    idx = 1 - np.eye(n, dtype=np.int64)
    edges = tuple(itertools.combinations(range(n), 2))
    return FiniteMetric(
        f"discrete({n}, {d})", range(n), [Distance.rational(0), Distance.rational(d)], idx,
        toeplitz=True, graph_edges=edges, params={"n": n, "distance": d},
    )


def sum_query(u: int, v: int) -> FiniteMetric:
    """Sum query: points 0..u·v, d(i, j) = ⌈|i − j| / v⌉ (neighbours: |i − j| ≤ v).

    >>> m = sum_query(2, 3)
    >>> m.n, m.exponent_matrix()[0].tolist()
    (7, [0, 1, 1, 1, 2, 2, 2])
    """
    u = _positive_int(u, "u")
    v = _positive_int(v, "v")
    n = u * v + 1
    diff = np.abs(np.arange(n)[:, None] - np.arange(n)[None, :])
    idx = -(-diff // v)

    def edges() -> tuple[tuple[int, int], ...]:
        return tuple((i, j) for i in range(n) for j in range(i + 1, min(n, i + v + 1)))

    return FiniteMetric(
        f"sum_query({u}, {v})", range(n), _rational_values(u + 1), idx, toeplitz=True,
        graph_edges=edges(), params={"u": u, "v": v},
    )


def _chebyshev_index(u: int, k: int) -> tuple[list[tuple[int, ...]], np.ndarray]:
    pts = list(itertools.product(range(u + 1), repeat=k))
    arr = np.array(pts, dtype=np.int64).reshape(len(pts), k)
    idx = np.zeros((len(pts), len(pts)), dtype=np.int64)
    for c in range(k):
        np.maximum(idx, np.abs(arr[:, c][:, None] - arr[:, c][None, :]), out=idx)
    return pts, idx


def _king_edges(idx: np.ndarray) -> tuple[tuple[int, int], ...]:
    return _edges_where(idx, 1)


def count_queries(u: int, k: int = 2) -> FiniteMetric:
    """k counting queries: points {0..u}^k, Chebyshev distance (king-move adjacency).

    >>> m = count_queries(2)
    >>> m.n, m.distance(0, 8)
    (9, Distance(coef=Fraction(2, 1), radicand=1))
    """
    u = _positive_int(u, "u")
    k = _positive_int(k, "k")
    pts, idx = _chebyshev_index(u, k)
    return FiniteMetric(
        f"count_queries({u}, k={k})", pts, _rational_values(u + 1), idx,
        graph_edges=_king_edges(idx), params={"u": u, "k": k},
    )


def hamming(values: int | Sequence[Any], individuals: int) -> FiniteMetric:
    """All databases V^u (u individuals, values V) under the Hamming distance.

    Φ is the Kronecker power of the |V|×|V| matrix (1 − t)I + tJ.

    >>> m = hamming(2, 3)
    >>> m.n, m.distance(0, 7), len(m.kronecker_factors)
    (8, Distance(coef=Fraction(3, 1), radicand=1), 3)
    """
    vals = list(range(values)) if isinstance(values, int) else list(values)
    if isinstance(values, int):
        _positive_int(values, "values")
    if len(vals) < 1 or len(set(vals)) != len(vals):
        raise InvalidArgument(f"Got values={values!r}; need distinct values.")
    u = _positive_int(individuals, "individuals")
    k = len(vals)
    dbs = list(itertools.product(vals, repeat=u))
    digits = np.array(list(itertools.product(range(k), repeat=u)), dtype=np.int64).reshape(
        len(dbs), u
    )

    def build() -> np.ndarray:
        idx = np.zeros((len(dbs), len(dbs)), dtype=np.int64)
        for c in range(u):
            idx += digits[:, c][:, None] != digits[:, c][None, :]
        return idx

    factor = discrete(k)
    factor = FiniteMetric(
        f"discrete({k})", vals, factor.values, factor.index, toeplitz=True,
        graph_edges=factor.graph_edges, params=factor.params,
    )

    def edges() -> tuple[tuple[int, int], ...]:
        out = []
        for a in range(len(dbs)):
            for c in range(u):
                step = k ** (u - 1 - c)
                da = digits[a, c]
                for dv in range(da + 1, k):
                    out.append((a, a + (dv - da) * step))
        return tuple(sorted(out))

    return FiniteMetric(
        f"hamming({k}, {u})", dbs, _rational_values(u + 1), build,
        kronecker_factors=tuple([factor] * u), graph_edges=edges(),
        params={"values": vals, "individuals": u},
    )


_NORMS = ("euclidean", "manhattan", "chebyshev")


def grid(width: int, height: int, norm: str = "euclidean", spacing: Any = 1) -> FiniteMetric:
    """Planar grid of width × height points (x, y)·spacing under a norm.

    Points are ordered row-major: index = y·width + x.

    >>> g = grid(3, 2, "euclidean")
    >>> g.q is None, g.distance(0, 5)
    (True, Distance(coef=Fraction(1, 1), radicand=5))
    >>> grid(3, 2, "manhattan").q
    1
    """
    width = _positive_int(width, "width")
    height = _positive_int(height, "height")
    if norm not in _NORMS:
        raise InvalidArgument(f"Got norm={norm!r}; choose one of {_NORMS}.")
    h = to_fraction(spacing, "spacing")
    if h <= 0:
        raise InvalidMetric(f"Got spacing={spacing!r}; it must be > 0.")
    xs = np.tile(np.arange(width), height)
    ys = np.repeat(np.arange(height), width)
    pts = [(int(x) * h, int(y) * h) for x, y in zip(xs, ys)]
    info = GridInfo(width, height, norm, h)
    # distinct (|dx|, |dy|) pairs → distance value
    pair_code = np.arange(width)[:, None] * height + np.arange(height)[None, :]
    table: dict[Distance, int] = {}
    code_to_value = np.zeros(width * height, dtype=np.int64)
    for dx in range(width):
        for dy in range(height):
            if norm == "euclidean":
                d = Distance.sqrt_of(Fraction(dx * dx + dy * dy) * h * h)
            elif norm == "manhattan":
                d = Distance.rational((dx + dy) * h)
            else:
                d = Distance.rational(max(dx, dy) * h)
            code_to_value[pair_code[dx, dy]] = table.setdefault(d, len(table))
    values = list(table)

    def build() -> np.ndarray:
        dx = np.abs(xs[:, None] - xs[None, :])
        dy = np.abs(ys[:, None] - ys[None, :])
        return code_to_value[dx * height + dy]

    kron = None
    edges: tuple[tuple[int, int], ...] | None = None
    if norm == "manhattan":
        kron = (line_scaled(height, h), line_scaled(width, h))
        edges = tuple(
            sorted(
                [(i, i + 1) for i in range(width * height) if xs[i] + 1 < width]
                + [(i, i + width) for i in range(width * height) if ys[i] + 1 < height]
            )
        )
    elif norm == "chebyshev":
        edges = tuple(
            sorted(
                (i, j)
                for i in range(width * height)
                for j in (i + 1, i + width - 1, i + width, i + width + 1)
                if j < width * height and abs(int(xs[i]) - int(xs[j])) <= 1
                and abs(int(ys[i]) - int(ys[j])) <= 1 and i != j
            )
        )
    return FiniteMetric(
        f"grid({width}, {height}, {norm}, spacing={h})", pts, values, build,
        kronecker_factors=kron, graph_edges=edges, grid_info=info,
        params={"width": width, "height": height, "norm": norm, "spacing": h},
    )


def line_scaled(n: int, h: Fraction) -> FiniteMetric:
    """Line 0..n-1 with spacing h (a Kronecker factor of Manhattan grids)."""
    base = line(n)
    return FiniteMetric(
        f"line({n}, spacing={h})", [k * h for k in range(n)],
        [Distance.rational(k * h) for k in range(n)], base.index, toeplitz=True,
        graph_edges=base.graph_edges, params={"n": n, "spacing": h},
    )


def from_graph(edges: Iterable[Sequence[Any]], nodes: Iterable[Any] | None = None) -> FiniteMetric:
    """Shortest-path metric of a connected undirected graph.

    ``edges`` are pairs ``(a, b)`` (weight 1) or triples ``(a, b, w)`` with an exact
    positive weight. Only edges whose weight equals the shortest-path distance are kept
    as ``graph_edges`` (the others never bind).

    >>> m = from_graph([("a", "b"), ("b", "c")])
    >>> m.points, m.distance(0, 2)
    (('a', 'b', 'c'), Distance(coef=Fraction(2, 1), radicand=1))
    """
    edge_list: list[tuple[Any, Any, Fraction]] = []
    order: dict[Any, int] = {}
    for node in nodes or ():
        order.setdefault(node, len(order))
    for e in edges:
        e = tuple(e)
        if len(e) not in (2, 3):
            raise InvalidArgument(f"Got edge {e!r}; use (a, b) or (a, b, weight).")
        w = to_fraction(e[2], "weight") if len(e) == 3 else Fraction(1)
        if w <= 0:
            raise InvalidMetric(f"Got edge {e!r} with weight {w}; weights must be > 0.")
        if e[0] == e[1]:
            raise InvalidMetric(f"Got self-loop {e!r}; edges join distinct nodes.")
        order.setdefault(e[0], len(order))
        order.setdefault(e[1], len(order))
        edge_list.append((e[0], e[1], w))
    n = len(order)
    if n == 0:
        raise InvalidMetric("The graph has no nodes.")
    inf = None
    dist: list[list[Fraction | None]] = [[inf] * n for _ in range(n)]
    for i in range(n):
        dist[i][i] = Fraction(0)
    for a, b, w in edge_list:
        i, j = order[a], order[b]
        cur = dist[i][j]
        if cur is None or w < cur:
            dist[i][j] = dist[j][i] = w
    # Floyd–Warshall with exact rationals (fine for the sizes graphs are given by hand)
    for k in range(n):
        dk = dist[k]
        for i in range(n):
            dik = dist[i][k]
            if dik is None:
                continue
            di = dist[i]
            for j in range(n):
                dkj = dk[j]
                if dkj is not None and (di[j] is None or dik + dkj < di[j]):  # type: ignore[operator]
                    di[j] = dik + dkj
    for i in range(n):
        for j in range(n):
            if dist[i][j] is None:
                names = list(order)
                raise InvalidMetric(
                    f"The graph is not connected: no path between {names[i]!r} and "
                    f"{names[j]!r}; a metric needs finite distances."
                )
    table: dict[Fraction, int] = {}
    idx = np.zeros((n, n), dtype=np.int64)
    for i in range(n):
        for j in range(n):
            idx[i, j] = table.setdefault(dist[i][j], len(table))  # type: ignore[arg-type]
    tight = sorted(
        {
            (min(order[a], order[b]), max(order[a], order[b]))
            for a, b, w in edge_list
            if dist[order[a]][order[b]] == w
        }
    )
    return FiniteMetric(
        f"graph({n} nodes, {len(edge_list)} edges)", list(order),
        [Distance.rational(v) for v in table], idx, graph_edges=tuple(tight),
        params={"edges": [(a, b, str(w)) for a, b, w in edge_list]},
    )


def from_matrix(D: Any, points: Sequence[Any] | None = None) -> FiniteMetric:
    """A metric from an explicit distance matrix, validated exactly.

    Entries may be ints, Fractions, rational strings, or square roots of rationals
    (``"sqrt(2)"``, ``sympy.sqrt(2)``). Checks: square shape, zero diagonal, symmetry,
    positive off-diagonal entries, triangle inequality — the error names the axiom
    and the indices where it fails.

    >>> from_matrix([[0, 1], [1, 0]]).n
    2
    >>> from_matrix([[0, 1, 3], [1, 0, 1], [3, 1, 0]])
    Traceback (most recent call last):
    ...
    exactdp.errors.InvalidMetric: triangle inequality fails: d[0][2] = 3 > d[0][1] + d[1][2] = 1 + 1
    """
    rows = D.tolist() if isinstance(D, np.ndarray) else [list(r) for r in D]
    n = len(rows)
    if n == 0:
        raise InvalidMetric("The distance matrix is empty.")
    for i, r in enumerate(rows):
        if len(r) != n:
            raise InvalidMetric(f"The distance matrix is not square: row {i} has {len(r)} "
                                f"entries, expected {n}.")
    table: dict[Distance, int] = {}
    idx = np.zeros((n, n), dtype=np.int64)
    for i in range(n):
        for j in range(n):
            try:
                d = as_distance(rows[i][j], f"d[{i}][{j}]")
            except (ValueError, ExactnessRequired) as exc:
                if isinstance(exc, ExactnessRequired):
                    raise
                raise InvalidMetric(f"d[{i}][{j}] = {rows[i][j]!r}: {exc}") from exc
            if d.coef < 0:
                raise InvalidMetric(f"d[{i}][{j}] = {d} is negative.")
            idx[i, j] = table.setdefault(d, len(table))
    values = list(table)
    for i in range(n):
        if values[idx[i, i]].coef != 0:
            raise InvalidMetric(f"diagonal entry d[{i}][{i}] = {values[idx[i, i]]} is not 0.")
    asym = np.argwhere(idx != idx.T)
    if len(asym):
        i, j = (int(x) for x in asym[0])
        raise InvalidMetric(
            f"not symmetric: d[{i}][{j}] = {values[idx[i, j]]} but d[{j}][{i}] = "
            f"{values[idx[j, i]]}."
        )
    zero = [k for k, v in enumerate(values) if v.coef == 0]
    off = np.argwhere(np.isin(idx, zero) & ~np.eye(n, dtype=bool))
    if len(off):
        i, j = (int(x) for x in off[0])
        raise InvalidMetric(
            f"d[{i}][{j}] = 0 for distinct points {i} and {j}; a metric separates points "
            f"(merge them, or give a positive distance)."
        )
    _check_triangle(values, idx)
    pts = list(range(n)) if points is None else list(points)
    if len(pts) != n:
        raise InvalidArgument(f"Got {len(pts)} point labels for a {n}×{n} matrix.")
    return FiniteMetric(f"matrix({n})", pts, values, idx, params={})


def _check_triangle(values: Sequence[Distance], idx: np.ndarray) -> None:
    n = idx.shape[0]
    fl = np.array([float(v) for v in values])[idx]
    scale = max(1.0, float(fl.max()))
    exact_rational = all(v.is_rational for v in values)
    for j in range(n):
        slack = fl[:, j][:, None] + fl[j, :][None, :] - fl
        suspects = np.argwhere(slack < 1e-9 * scale)
        for i, k in suspects:
            i, k = int(i), int(k)
            d_ik, d_ij, d_jk = values[idx[i, k]], values[idx[i, j]], values[idx[j, k]]
            ok = (d_ik.coef <= d_ij.coef + d_jk.coef) if exact_rational else triangle_holds(
                d_ik, d_ij, d_jk
            )
            if not ok:
                raise InvalidMetric(
                    f"triangle inequality fails: d[{i}][{k}] = {d_ik} > d[{i}][{j}] + "
                    f"d[{j}][{k}] = {d_ij} + {d_jk}"
                )


#: Built-in metrics by CLI name: (constructor, parameter names).
BUILTIN_METRICS: dict[str, tuple[Callable[..., FiniteMetric], tuple[str, ...]]] = {
    "line": (line, ("n",)),
    "cycle": (cycle, ("n",)),
    "discrete": (discrete, ("n",)),
    "sum-query": (sum_query, ("u", "v")),
    "count-queries": (count_queries, ("u", "k")),
    "hamming": (hamming, ("values", "individuals")),
    "grid": (grid, ("width", "height", "norm")),
}
