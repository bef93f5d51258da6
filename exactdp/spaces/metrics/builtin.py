"""The built-in metric spaces: lines, cycles, discrete spaces, sum and counting queries,
Hamming databases and planar grids, each recording the structure later speed-ups use."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from fractions import Fraction
from functools import partial
from typing import Any

import numpy as np

from exactdp.arithmetic.rationals import to_fraction
from exactdp.errors import InvalidArgument, InvalidMetric
from exactdp.spaces.distances import Distance, grid_offset_distance
from exactdp.spaces.metrics.space import FiniteMetric, GridInfo

__all__ = [
    "line",
    "cycle",
    "band",
    "discrete",
    "sum_query",
    "count_queries",
    "hamming",
    "grid",
    "line_scaled",
    "BUILTIN_METRICS",
]


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
    return FiniteMetric._from_library(
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
    return FiniteMetric._from_library(
        f"cycle({n})", range(n), _rational_values(n // 2 + 1), idx,
        graph_edges=edges,  # type: ignore[arg-type]
        params={"n": n},
    )


def band(n: int, w: int) -> FiniteMetric:
    """Points 0..n-1 with d(i, j) = min(|i − j|, w): the line truncated at w.

    A metric for every w ≥ 1 (min(·, w) of a metric is one); w = 1 is the discrete metric,
    w ≥ n − 1 the line. Φ is Toeplitz and constant beyond w (the structured threshold
    route's eventually repeating symbol with c = 0).

    >>> band(5, 2).exponent_matrix()[0].tolist()
    [0, 1, 2, 2, 2]
    >>> band(5, 10**30).exponent_matrix()[0].tolist()  # w ≥ n − 1: the line
    [0, 1, 2, 3, 4]
    >>> band(5, 0)
    Traceback (most recent call last):
    ...
    exactdp.errors.InvalidArgument: Got w=0; it must be an integer ≥ 1.
    """
    n = _positive_int(n, "n")
    w = _positive_int(w, "w")
    # clamped before numpy (a huge w does not fit in int64); the name and params keep w
    idx = np.minimum(np.abs(np.arange(n)[:, None] - np.arange(n)[None, :]), min(w, n - 1))
    return FiniteMetric._from_library(
        f"band({n}, {w})", range(n), _rational_values(min(w, n - 1) + 1), idx, toeplitz=True,
        params={"n": n, "w": w},
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
    return FiniteMetric._from_library(
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

    return FiniteMetric._from_library(
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
    return FiniteMetric._from_library(
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
    factor = FiniteMetric._from_library(
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

    return FiniteMetric._from_library(
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
            d = grid_offset_distance(dx, dy, norm, h)
            code_to_value[pair_code[dx, dy]] = table.setdefault(d, len(table))
    values = list(table)
    build = partial(_grid_index, code_to_value, xs, ys, height)  # module-level: grids pickle
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
    return FiniteMetric._from_library(
        f"grid({width}, {height}, {norm}, spacing={h})", pts, values, build,
        kronecker_factors=kron, graph_edges=edges, grid_info=info,
        params={"width": width, "height": height, "norm": norm, "spacing": h},
    )


def _grid_index(code_to_value: np.ndarray, xs: np.ndarray, ys: np.ndarray,
                height: int) -> np.ndarray:
    """The n×n distance-index table of :func:`grid` (built on first use)."""
    dx = np.abs(xs[:, None] - xs[None, :])
    dy = np.abs(ys[:, None] - ys[None, :])
    return code_to_value[dx * height + dy]


def line_scaled(n: int, h: Fraction) -> FiniteMetric:
    """Line 0..n-1 with spacing h (a Kronecker factor of Manhattan grids)."""
    base = line(n)
    return FiniteMetric._from_library(
        f"line({n}, spacing={h})", [k * h for k in range(n)],
        [Distance.rational(k * h) for k in range(n)], base.index, toeplitz=True,
        graph_edges=base.graph_edges, params={"n": n, "spacing": h},
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
