"""Your own metric from a file: an edge list, a distance matrix, or points with a norm.

Every reader returns a :class:`~exactdp.spaces.metrics.space.FiniteMetric` validated exactly
by :func:`~exactdp.spaces.metrics.explicit.from_graph` or
:func:`~exactdp.spaces.metrics.explicit.from_matrix` (same checks and errors as in Python:
symmetry, zero diagonal, separation, the triangle inequality, exactly); a reading error
names the file, the row and the column.

* **edge list** (``.edges``, or ``kind="edges"``): one edge per line, ``a,b`` or ``a,b,w``
  (commas or whitespace; ``#`` starts a comment). Weights are exact (``0.5`` is 1/2,
  ``1/3``). The metric is the shortest-path metric. Points are ordered numerically when
  every label is an integer, else in order of first appearance.
* **distance matrix** (``.csv``, ``.npy``, ``kind="matrix"``): an n×n table; CSV cells are
  exact (``1/3``, ``0.5`` = 1/2, ``sqrt(2)``); an ``.npy`` of floats is read as the exact
  binary values.
* **points** (``.points``, ``kind="points"``): one point per line, rational coordinates;
  the distance is the ``norm`` ("euclidean": exact √, "manhattan", "chebyshev").

Examples
--------
>>> import os, tempfile
>>> from exactdp.spaces.metrics import line
>>> from exactdp.spaces.metrics.claims import same_distances
>>> d = tempfile.mkdtemp()
>>> p = os.path.join(d, "line.edges")
>>> _ = open(p, "w").write("0,1\\n1,2\\n2,3\\n")
>>> same_distances(load_metric(p), line(4))
True
"""

from __future__ import annotations

import csv
import os
import re
from fractions import Fraction
from typing import Any

import numpy as np

from exactdp.arithmetic.rationals import to_fraction
from exactdp.errors import InvalidArgument, InvalidMetric
from exactdp.spaces.distances import Distance
from exactdp.spaces.metrics.explicit import from_graph, from_matrix
from exactdp.spaces.metrics.space import FiniteMetric

__all__ = ["load_metric", "metric_from_edges", "metric_from_matrix_file", "metric_from_points",
           "METRIC_FILE_KINDS", "POINT_NORMS"]

#: What a metric file may hold.
METRIC_FILE_KINDS = ("edges", "matrix", "points")
#: Norms for a point file.
POINT_NORMS = ("euclidean", "manhattan", "chebyshev")

_EXT_KIND = {".edges": "edges", ".csv": "matrix", ".npy": "matrix", ".points": "points"}


def _lines(path: str) -> list[tuple[int, list[str]]]:
    """Non-empty lines split on commas or whitespace, with their 0-based line numbers."""
    out = []
    try:
        with open(path, encoding="utf-8") as fh:
            for k, raw in enumerate(fh):
                text = raw.split("#", 1)[0].strip()
                if text:
                    out.append((k, [c for c in re.split(r"[,\s]+", text) if c]))
    except UnicodeDecodeError as exc:
        raise InvalidMetric(f"{path}: not a text file ({exc}).") from None
    if not out:
        raise InvalidMetric(f"{path}: the file has no data lines.")
    return out


def _number(text: str, path: str, row: int, col: int) -> Fraction:
    try:
        return to_fraction(text, f"{path}: row {row}, column {col}")
    except InvalidArgument:
        raise InvalidMetric(
            f"{path}: row {row}, column {col}: {text!r} is not an exact number (write 3, 1/2 "
            "or 0.5).") from None


def metric_from_edges(path: str | os.PathLike[str]) -> FiniteMetric:
    """The shortest-path metric of the edge list in ``path`` (module docstring)."""
    where = os.fspath(path)
    edges: list[tuple[Any, ...]] = []
    for k, cells in _lines(where):
        if len(cells) not in (2, 3):
            raise InvalidMetric(
                f"{where}: row {k} has {len(cells)} fields; an edge is 'a,b' or 'a,b,weight'.")
        if len(cells) == 3:
            edges.append((cells[0], cells[1], _number(cells[2], where, k, 2)))
        else:
            edges.append((cells[0], cells[1]))
    labels: list[str] = []
    for e in edges:
        for x in e[:2]:
            if x not in labels:
                labels.append(x)
    if all(re.fullmatch(r"-?\d+", x) for x in labels):
        nodes: list[Any] = sorted(int(x) for x in labels)
        edges = [(int(e[0]), int(e[1]), *e[2:]) for e in edges]
    else:
        nodes = labels
    return from_graph(edges, nodes=nodes)


def metric_from_matrix_file(path: str | os.PathLike[str]) -> FiniteMetric:
    """The metric of the distance matrix in a ``.csv`` (exact cells) or ``.npy`` file."""
    where = os.fspath(path)
    if where.lower().endswith(".npy"):
        try:
            a = np.load(where, allow_pickle=False)
        except ValueError as exc:
            raise InvalidMetric(f"{where}: not a numeric .npy matrix ({exc}).") from None
        if a.ndim != 2 or a.shape[0] != a.shape[1]:
            raise InvalidMetric(f"{where}: a distance matrix is square; got shape {a.shape}.")
        if a.dtype.kind == "f":
            if not np.isfinite(a).all():
                i, j = (int(x) for x in np.argwhere(~np.isfinite(a))[0])
                raise InvalidMetric(f"{where}: d[{i}][{j}] = {float(a[i, j])!r} is not finite.")
            rows: list[list[Any]] = [[Fraction(x) for x in r] for r in a.tolist()]
        elif a.dtype.kind in "iu":
            rows = [[int(x) for x in r] for r in a.tolist()]
        else:
            raise InvalidMetric(f"{where}: entries of dtype {a.dtype} are not distances.")
    else:
        try:
            with open(where, encoding="utf-8", newline="") as fh:
                rows = [[c.strip() for c in r] for r in csv.reader(fh)
                        if r and any(c.strip() for c in r)]
        except (UnicodeDecodeError, csv.Error) as exc:
            raise InvalidMetric(f"{where}: not a text CSV file ({exc}).") from None
        if not rows:
            raise InvalidMetric(f"{where}: the file has no rows.")
        for i, r in enumerate(rows):
            if len(r) != len(rows):
                raise InvalidMetric(
                    f"{where}: row {i} has {len(r)} columns; a distance matrix with "
                    f"{len(rows)} rows needs {len(rows)} columns.")
    try:
        return from_matrix(rows)
    except InvalidArgument as exc:
        raise type(exc)(f"{where}: {exc}") from None


def metric_from_points(path: str | os.PathLike[str], norm: str = "euclidean") -> FiniteMetric:
    """The metric of the points in ``path`` under ``norm`` (Euclidean distances are exact √)."""
    if norm not in POINT_NORMS:
        raise InvalidArgument(f"Got norm={norm!r}; choose one of {', '.join(POINT_NORMS)}.")
    where = os.fspath(path)
    pts: list[tuple[Fraction, ...]] = []
    for k, cells in _lines(where):
        pts.append(tuple(_number(c, where, k, j) for j, c in enumerate(cells)))
        if len(pts[-1]) != len(pts[0]):
            raise InvalidMetric(
                f"{where}: row {k} has {len(pts[-1])} coordinates, the first point has "
                f"{len(pts[0])}.")
    n = len(pts)
    D: list[list[Any]] = [[Distance.rational(0)] * n for _ in range(n)]
    for i in range(n):
        for j in range(i + 1, n):
            diff = [abs(a - b) for a, b in zip(pts[i], pts[j])]
            if norm == "euclidean":
                d = Distance.sqrt_of(sum((x * x for x in diff), Fraction(0)))
            elif norm == "manhattan":
                d = Distance.rational(sum(diff, Fraction(0)))
            else:
                d = Distance.rational(max(diff))
            D[i][j] = D[j][i] = d
    try:
        m = from_matrix(D, points=pts)
    except InvalidArgument as exc:
        raise type(exc)(f"{where}: {exc}") from None
    return m


def load_metric(
    path: str | os.PathLike[str], kind: str = "auto", norm: str = "euclidean"
) -> FiniteMetric:
    """A metric from a file: ``kind`` "edges", "matrix" or "points" ("auto": by extension).

    Extensions for "auto": ``.edges`` (edge list), ``.csv`` / ``.npy`` (distance matrix),
    ``.points`` (points under ``norm``).
    """
    where = os.fspath(path)
    if kind == "auto":
        ext = os.path.splitext(where)[1].lower()
        if ext not in _EXT_KIND:
            raise InvalidMetric(
                f"{where}: unknown metric file type {ext or '(none)'!r}; use .edges (edge "
                "list), .csv/.npy (distance matrix) or .points, or name the kind "
                "(edges, matrix, points).")
        kind = _EXT_KIND[ext]
    if kind == "edges":
        return metric_from_edges(where)
    if kind == "matrix":
        return metric_from_matrix_file(where)
    if kind == "points":
        return metric_from_points(where, norm)
    raise InvalidArgument(f"Got kind={kind!r}; choose auto, {', '.join(METRIC_FILE_KINDS)}.")
