"""Metric spaces from explicit data: the shortest-path metric of a graph, and a distance
matrix validated exactly (the error names the axiom that fails and where)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from exactdp.arithmetic.rationals import to_fraction
from exactdp.errors import ExactnessRequired, InvalidArgument, InvalidMetric
from exactdp.kinds import proved_by
from exactdp.spaces.distances import Distance, as_distance, triangle_holds
from exactdp.spaces.metrics.space import FiniteMetric

__all__ = ["from_graph", "from_matrix"]


def from_graph(edges: Iterable[Sequence[Any]], nodes: Iterable[Any] | None = None) -> FiniteMetric:
    """Shortest-path metric of a connected undirected graph.

    ``edges`` are pairs ``(a, b)`` (weight 1) or triples ``(a, b, w)`` with an exact
    positive weight. Only edges whose weight equals the shortest-path distance are kept
    as ``graph_edges`` (the others never bind).

    >>> m = from_graph([("a", "b"), ("b", "c")])
    >>> m.points, m.distance(0, 2)
    (('a', 'b', 'c'), Distance(coef=Fraction(2, 1), radicand=1))
    """
    if edges is None or isinstance(edges, (str, bytes)) or not isinstance(edges, Iterable):
        raise InvalidMetric(
            f"Got edges={edges!r}; pass an iterable of pairs (a, b) or triples (a, b, weight), "
            "e.g. from_graph([('a', 'b'), ('b', 'c', 2)])."
        )
    if nodes is not None and (isinstance(nodes, (str, bytes)) or not isinstance(nodes, Iterable)):
        raise InvalidMetric(f"Got nodes={nodes!r}; pass an iterable of node labels (or None).")
    edge_list: list[tuple[Any, Any, Fraction]] = []
    order: dict[Any, int] = {}
    for node in nodes or ():
        _hashable(node, "node")
        order.setdefault(node, len(order))
    for raw in edges:
        if isinstance(raw, (str, bytes)) or not isinstance(raw, Iterable):
            raise InvalidMetric(f"Got edge {raw!r}; use (a, b) or (a, b, weight).")
        e = tuple(raw)
        if len(e) not in (2, 3):
            raise InvalidArgument(f"Got edge {e!r}; use (a, b) or (a, b, weight).")
        w = to_fraction(e[2], "weight") if len(e) == 3 else Fraction(1)
        if w <= 0:
            raise InvalidMetric(f"Got edge {e!r} with weight {w}; weights must be > 0.")
        _hashable(e[0], "node")
        _hashable(e[1], "node")
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
    return FiniteMetric._from_library(
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
    rows = _matrix_rows(D)
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
            except ExactnessRequired:
                raise
            except InvalidArgument as exc:
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
    return FiniteMetric._from_library(f"matrix({n})", pts, values, idx, params={})


def _hashable(label: Any, what: str) -> None:
    try:
        hash(label)
    except TypeError as exc:
        raise InvalidMetric(
            f"Got the {what} label {label!r}, which is unhashable; use ints, strings or tuples."
        ) from exc


def _matrix_rows(D: Any) -> list[list[Any]]:
    """The rows of a square matrix given as a numpy array or a sequence of sequences."""
    if isinstance(D, np.ndarray):
        if D.ndim != 2:
            raise InvalidMetric(f"Got a distance array of shape {D.shape}; pass a square n×n matrix.")
        return [list(r) for r in D.tolist()]
    if D is None or isinstance(D, (str, bytes)) or not isinstance(D, Iterable):
        raise InvalidMetric(
            f"Got D={D!r}; pass a square matrix of distances (a list of rows or a numpy array), "
            "e.g. from_matrix([[0, 1], [1, 0]])."
        )
    rows = []
    for i, r in enumerate(D):
        if isinstance(r, (str, bytes)) or not isinstance(r, Iterable):
            raise InvalidMetric(f"Got row {i} = {r!r}; each row of D is a sequence of distances.")
        rows.append(list(r))
    return rows


@proved_by("triangle_prefilter")
def _check_triangle(values: Sequence[Distance], idx: np.ndarray) -> None:
    """Refuse the matrix when some d(i, k) > d(i, j) + d(j, k), exactly.

    A float pre-filter only *clears* triples; every triple it does not clear is decided
    exactly. Lemma (proofs/triangle_prefilter.py): with floats lo ≤ d ≤ hi for every
    distance (directed conversions, :meth:`Distance.float_bounds`: overflow gives
    hi = inf, underflow lo = 0, never an exception), ``fl(lo_ij + lo_jk) > hi_ik`` implies
    d_ik ≤ d_ij + d_jk. Proof: round-to-nearest is monotone and fixes floats, so
    lo_ij + lo_jk ≤ hi_ik would give fl(lo_ij + lo_jk) ≤ fl(hi_ik) = hi_ik; hence
    d_ij + d_jk ≥ lo_ij + lo_jk > hi_ik ≥ d_ik. This holds for every representable input:
    the sum of two nonnegative floats is never NaN, overflow gives inf (and the exact sum
    then exceeds every finite hi_ik; hi_ik = inf never clears), subnormal sums are
    correctly rounded, and a flush-to-zero unit only lowers the sum or the compared values
    to 0, which only makes fewer triples clear. Underflow to 0 therefore means "decide
    exactly", never "small".
    """
    n = idx.shape[0]
    bounds = [v.float_bounds() for v in values]
    lo = np.array([b[0] for b in bounds], dtype=np.float64)[idx]
    hi = np.array([b[1] for b in bounds], dtype=np.float64)[idx]
    exact_rational = all(v.is_rational for v in values)
    for j in range(n):
        with np.errstate(over="ignore"):
            cleared = (lo[:, j][:, None] + lo[j, :][None, :]) > hi
        for i, k in np.argwhere(~cleared):
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
