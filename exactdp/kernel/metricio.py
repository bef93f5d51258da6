"""A metric's exact fingerprint, and its JSON form: a library constructor, or its distances.

**Fingerprint.** ``"sha256:" + hex`` of this byte string (every part ASCII):

1. ``b"exactdp-metric/1\\n"`` and ``f"n={n}\\n"``;
2. ``b"squares="`` + the distinct values of d(i, j)², increasing, each ``"p/q"`` (as
   :func:`~exactdp.kernel.jsonio.write_rational`), joined by ``","`` + ``b"\\n"`` — a distance
   c·√r ≥ 0 is determined by its square c²r, so no normal form is needed;
3. the n×n matrix of ranks (position of d(i, j)² in that list), row by row, as
   little-endian unsigned 64-bit integers.

It covers the point *order* and every distance, and nothing else: point labels are names,
and the structure metadata (``kronecker_factors``, ``grid``, ...) is not data. Cost: O(n²)
time, reading the metric's own n×n ``index`` (n² int64: 800 MB at n = 10⁴), hashed in row
blocks without a second copy.

**Encoding** (``question.metric`` of a certificate):

* ``{"encoding": "builtin", "constructor": "grid", "params": {...}, "n": 6, "fingerprint": ...}``
  for a metric equal to what a library constructor (:data:`CONSTRUCTORS`) builds from
  ``params``: a 10⁴-point grid travels as four parameters. Reading rebuilds it with the
  constructor, so its structure metadata comes only from the library.
* ``{"encoding": "distances", "n": 3, "points": [...] | null, "values": [{"coef": "p/q",
  "radicand": "r"}, ...], "index": [[0, 1, ...], ...], "fingerprint": ...}`` for any other
  metric: the distinct distances c·√r (r squarefree, r < 2⁶⁴; increasing; each used) and
  the n×n matrix of positions in that list. Reading rebuilds it with
  :func:`~exactdp.kernel.axioms.metric_from_distances` (every axiom checked exactly), so it
  carries no structure metadata at all.

Examples
--------
>>> from exactdp.spaces.metrics import line, from_matrix
>>> fingerprint(line(3)) == fingerprint(from_matrix([[0, 1, 2], [1, 0, 1], [2, 1, 0]]))
True
>>> write_metric(line(3), ("line", '{"n":3}'), fingerprint(line(3)))["params"]
{'n': 3}
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

import flint
import numpy as np

from exactdp.errors import ExactDPError, InstanceTooLarge, InvalidArgument, InvalidMetric
from exactdp.kernel.axioms import metric_from_distances
from exactdp.kernel.jsonio import (
    dumps,
    loads,
    read_int,
    read_list,
    read_object,
    read_rational,
    read_str,
    show,
    write_rational,
)
from exactdp.spaces.distances import Distance
from exactdp.spaces.metrics import (
    FiniteMetric,
    band,
    count_queries,
    cycle,
    discrete,
    from_graph,
    grid,
    hamming,
    line,
    sum_query,
)

__all__ = ["CONSTRUCTORS", "NORMS", "MAX_POINTS", "MAX_DISTANCE_POINTS", "MAX_GRAPH_NODES",
           "fingerprint", "build_builtin", "portable_labels", "factor_labels_ok", "distinct_distances",
           "write_metric", "read_metric_json"]

#: Most points of a metric read from a built-in encoding (the fingerprint reads n² indices).
MAX_POINTS = 10_000
#: Most points of a metric read from its distances (the exact triangle check is O(n³)).
MAX_DISTANCE_POINTS = 1_000
#: Most nodes of a ``from_graph`` encoding (Floyd–Warshall is O(n³) in Python).
MAX_GRAPH_NODES = 300
_MAX_RADICAND = 2**64
_MAX_SQUARE = Fraction(10) ** 600  # distances ≤ 10³⁰⁰: float bounds of sums stay finite
_MAX_LABEL_DEPTH = 4
_MAX_LABEL_CHARS = 1000
_BLOCK = 1 << 20  # index entries hashed per block

#: JSON name -> (constructor, {parameter: kind}, number of points of the read params);
#: kinds: "int", "rational" (> 0), "norm", "labels" (distinct: hamming values, from_graph
#: nodes), "edges" (from_graph edges). A count is exact and cheap: every int is ≤ MAX_POINTS.
CONSTRUCTORS: dict[str, tuple[Callable[..., FiniteMetric], dict[str, str], Callable[[dict[str, Any]], int]]] = {
    "line": (line, {"n": "int"}, lambda p: p["n"]),
    "cycle": (cycle, {"n": "int"}, lambda p: p["n"]),
    "band": (band, {"n": "int", "w": "int"}, lambda p: p["n"]),
    "discrete": (discrete, {"n": "int", "distance": "rational"}, lambda p: p["n"]),
    "sum_query": (sum_query, {"u": "int", "v": "int"}, lambda p: p["u"] * p["v"] + 1),
    "count_queries": (count_queries, {"u": "int", "k": "int"}, lambda p: (p["u"] + 1) ** p["k"]),
    "hamming": (hamming, {"values": "labels", "individuals": "int"}, lambda p: len(p["values"]) ** p["individuals"]),
    "grid": (grid, {"width": "int", "height": "int", "norm": "norm", "spacing": "rational"},
             lambda p: p["width"] * p["height"]),
    "from_graph": (from_graph, {"nodes": "labels", "edges": "edges"}, lambda p: len(p["nodes"])),
}
NORMS = ("euclidean", "manhattan", "chebyshev")


# ---------------------------------------------------------------------------- fingerprint
def fingerprint(metric: FiniteMetric, max_points: int = MAX_POINTS) -> str:
    """SHA-256 of the point order and every exact distance (see the module docstring).

    Refuses (:class:`~exactdp.errors.InstanceTooLarge`) a metric over ``max_points`` points:
    the fingerprint reads its n×n index.

    >>> from exactdp.spaces.metrics import line, cycle
    >>> fingerprint(line(2)) == fingerprint(cycle(2)), fingerprint(line(3)) == fingerprint(cycle(3))
    (True, False)
    >>> fingerprint(line(2))[:7]
    'sha256:'
    """
    if not isinstance(metric, FiniteMetric):
        raise InvalidMetric(f"Got metric={metric!r}; pass a FiniteMetric such as line(5).")
    if metric.n > max_points:
        raise InstanceTooLarge(f"{metric.name} has {metric.n} points; a question binds at most "
                               f"max_points={max_points} (its fingerprint reads n² distances).")
    for k, v in enumerate(metric.values):
        if (not isinstance(v, Distance) or not isinstance(v.coef, Fraction) or v.coef < 0
                or isinstance(v.radicand, bool) or not isinstance(v.radicand, int)
                or v.radicand < 1):
            raise InvalidMetric(f"{metric.name}: values[{k}] = {v!r} is not a distance c·√r "
                                "with c ≥ 0 rational and r ≥ 1 an integer.")
    n = metric.n
    idx = np.asarray(metric.index)
    if idx.shape != (n, n) or (n and idx.dtype.kind not in "iu"):
        raise InvalidMetric(f"{metric.name}: index has shape {idx.shape} and dtype {idx.dtype}; "
                            f"expected an {n}×{n} integer matrix.")
    if n and (int(idx.min()) < 0 or int(idx.max()) >= len(metric.values)):
        raise InvalidMetric(f"{metric.name}: index refers outside values[0..{len(metric.values) - 1}].")
    distinct, remap = _ranks(metric.values, idx)
    h = hashlib.sha256()
    h.update(f"exactdp-metric/1\nn={n}\nsquares=".encode("ascii"))
    h.update(",".join(write_rational(s, "distance²") for s in distinct).encode("ascii"))
    h.update(b"\n")
    rows = max(1, _BLOCK // max(n, 1))
    for start in range(0, n, rows):
        h.update(np.ascontiguousarray(remap[idx[start:start + rows]], dtype="<u8").tobytes())
    return "sha256:" + h.hexdigest()


def _ranks(values: Sequence[Distance], idx: np.ndarray) -> tuple[dict[Fraction, Distance], np.ndarray]:
    """The values some pair takes (values no pair takes are no distance d(i, j)), one per
    square, by increasing square; and the rank of each value's square among them."""
    by_square: dict[Fraction, Distance] = {}
    for v, u in zip(values, _used(idx, len(values))):
        if u:
            by_square.setdefault(v.square, v)
    rank = {s: r for r, s in enumerate(sorted(by_square))}
    return {s: by_square[s] for s in rank}, np.array([rank.get(v.square, 0) for v in values], dtype=np.int64)


def _used(idx: np.ndarray, size: int) -> list[bool]:
    """Which of ``size`` values the n×n index refers to (row blocks: no n² copy)."""
    seen = np.zeros(size, dtype=bool)
    rows = max(1, _BLOCK // max(len(idx), 1))
    for start in range(0, len(idx), rows):
        seen |= np.bincount(np.ravel(idx[start:start + rows]), minlength=size)[:size] > 0
    return seen.tolist()


# ------------------------------------------------------------------------------ labels
def _write_label(label: Any, depth: int = 0) -> Any:
    """int, str, Fraction or tuple of these -> JSON; None when not portable."""
    if isinstance(label, np.integer):
        label = int(label)
    if isinstance(label, bool):
        return None
    if isinstance(label, int):
        return label if abs(label) < 10**18 else None
    if isinstance(label, str):
        return label if len(label) <= _MAX_LABEL_CHARS else None
    if isinstance(label, Fraction):
        return {"rational": write_rational(label)}
    if isinstance(label, tuple) and depth < _MAX_LABEL_DEPTH:
        out = [_write_label(x, depth + 1) for x in label]
        return None if any(x is None for x in out) else out
    return None


def _read_label(value: Any, where: str, depth: int = 0) -> Any:
    if isinstance(value, int) and not isinstance(value, bool):  # bools and null fall to the end: not labels
        return value
    if isinstance(value, str):
        if len(value) > _MAX_LABEL_CHARS:
            raise InvalidArgument(f"{where}: a label of {len(value)} characters (at most {_MAX_LABEL_CHARS}).")
        return value
    if isinstance(value, dict):
        obj = read_object(value, where, ("rational",))
        return read_rational(obj["rational"], where + ".rational")
    if isinstance(value, list) and depth < _MAX_LABEL_DEPTH:
        return tuple(_read_label(x, f"{where}[{k}]", depth + 1) for k, x in enumerate(value))
    raise InvalidArgument(f"{where}: got {type(value).__name__}; a label is an integer, a "
                          f"string, {{\"rational\": \"p/q\"}} or an array (depth ≤ {_MAX_LABEL_DEPTH}).")


def portable_labels(labels: Any) -> list[Any] | None:
    """The JSON form of point labels, or None when one is not portable."""
    out = [_write_label(x) for x in labels]
    return None if any(x is None for x in out) else out


def factor_labels_ok(metric: FiniteMetric, factors: Sequence[FiniteMetric]) -> bool:
    """A Kronecker document's factor metrics carry the labels (equal values: ``0`` names the
    point ``0/1``) of ``metric``'s own factors, when it has them (read from a constructor):
    labels are outside the fingerprint, so this binds each factor's ``points`` to the
    question (a distances-encoded metric has no factors: its labels are names only)."""
    own = metric.kronecker_factors
    return not own or (len(own) == len(factors) and all(
        list(a.points) == list(b.points) for a, b in zip(own, factors)))


# ------------------------------------------------------------------- built-in encodings
def _read_params(ctor: str, value: Any, where: str) -> dict[str, Any]:
    """Strictly read the JSON params of ``ctor`` into constructor arguments."""
    kinds = CONSTRUCTORS[ctor][1]
    obj = read_object(value, where, tuple(kinds))
    out: dict[str, Any] = {}
    for key, kind in kinds.items():
        w = f"{where}.{key}"
        if kind == "int":
            out[key] = read_int(obj[key], w, 1, MAX_POINTS)
        elif kind == "rational":
            out[key] = read_rational(obj[key], w)
            if out[key] <= 0:
                raise InvalidArgument(f"{w}: got {show(out[key])}; it must be > 0.")
        elif kind == "norm":
            out[key] = read_str(obj[key], w, NORMS)
        elif kind == "labels":  # hamming values, from_graph nodes (at most MAX_GRAPH_NODES)
            if ctor == "from_graph" and isinstance(obj[key], list) and len(obj[key]) > MAX_GRAPH_NODES:
                raise InvalidArgument(f"{w}: {len(obj[key])} nodes; at most {MAX_GRAPH_NODES} in a from_graph "
                                      "encoding (the reader's Floyd–Warshall is O(n³)); write the "
                                      "metric by its distances (encoding \"distances\", up to "
                                      f"{MAX_DISTANCE_POINTS} points), as the writer does for such graphs.")
            items = read_list(obj[key], w, limit=MAX_GRAPH_NODES if ctor == "from_graph" else MAX_POINTS)
            out[key] = [_read_label(x, f"{w}[{k}]") for k, x in enumerate(items)]
            if len(set(out[key])) != len(out[key]):
                raise InvalidArgument(f"{w}: the labels are not distinct.")
        else:  # from_graph edges, between its nodes (read before them)
            rows, nodes, edges = read_list(obj[key], w, max_length=MAX_GRAPH_NODES**2), set(out["nodes"]), []
            for k, e in enumerate(rows):
                a, b, wt = read_list(e, f"{w}[{k}]", length=3)
                weight = read_rational(wt, f"{w}[{k}][2]")
                edges.append((_read_label(a, f"{w}[{k}][0]"), _read_label(b, f"{w}[{k}][1]"), weight))
                if not {edges[-1][0], edges[-1][1]} <= nodes:
                    raise InvalidArgument(f"{w}[{k}]: an end is not in nodes; list every node in nodes (point order).")
            out[key] = edges
    return out


def build_builtin(ctor: str, params: Any, n: int, where: str = "params") -> FiniteMetric:
    """The metric that constructor ``ctor`` builds from the JSON ``params``, which must give
    ``n`` points (checked before anything is built)."""
    args = _read_params(ctor, params, where + ".params")
    fn, _, size = CONSTRUCTORS[ctor]
    if (count := size(args)) != n:  # checked before anything is built
        shown = count if count <= MAX_POINTS else f"more than {MAX_POINTS}"  # a hamming count: 40000 digits
        raise InvalidArgument(f"{where}: {ctor} with these params has {shown} points, not n = {n}.")
    try:
        return fn(args["edges"], nodes=args["nodes"]) if ctor == "from_graph" else fn(**args)
    except (ExactDPError, ArithmeticError, TypeError, ValueError) as exc:
        # a constructor that cannot build these params (e.g. a spacing too large for its
        # float pre-checks) makes the document malformed, never "rejected"
        raise InvalidMetric(f"{where}: {ctor} cannot build these params ({type(exc).__name__}: {exc}); write "
                            "params this constructor accepts, or the metric by its distances.") from exc


def _normal(v: Distance) -> tuple[Fraction, int]:
    """(c, r) with c·√r = v, r squarefree (refuses r ≥ 2⁶⁴)."""
    if v.coef == 0 or v.radicand == 1:
        return v.coef, 1
    if v.radicand >= _MAX_RADICAND:
        raise InvalidMetric(f"the distance {v} has a radicand ≥ 2^64, which the JSON form "
                            "does not carry; rescale the metric.")
    c, r = v.coef, 1
    for p, e in flint.fmpz(v.radicand).factor():
        c *= int(p) ** (e // 2)
        r *= int(p) ** (e % 2)
    return c, r


def distinct_distances(metric: FiniteMetric) -> tuple[list[Distance], np.ndarray]:
    """The distinct distances that occur (normal form c·√r, increasing) and the index into
    them (a value no pair takes is not written: the reader refuses unused values)."""
    idx = np.asarray(metric.index)
    distinct, remap = _ranks(metric.values, idx)
    return [Distance(*_normal(v)) for v in distinct.values()], remap[idx]


def write_metric(metric: FiniteMetric, spec: tuple[str, str] | None, fp: str) -> dict[str, Any]:
    """The JSON form of a canonical metric (``spec`` and ``fp`` from
    :func:`exactdp.engine.questions.canonical_metric`)."""
    if spec is not None:
        return {"encoding": "builtin", "constructor": spec[0], "params": loads(spec[1]),
                "n": metric.n, "fingerprint": fp}
    values, idx = distinct_distances(metric)
    return {"encoding": "distances", "n": metric.n, "points": portable_labels(metric.points),
            "values": [{"coef": write_rational(v.coef), "radicand": write_rational(v.radicand)}
                       for v in values],
            "index": idx.tolist(), "fingerprint": fp}


def _read_distance(value: Any, where: str) -> Distance:
    obj = read_object(value, where, ("coef", "radicand"))
    c = read_rational(obj["coef"], where + ".coef")
    r = int(read_rational(obj["radicand"], where + ".radicand", integer=True))
    if c < 0 or not 1 <= r < _MAX_RADICAND:
        raise InvalidMetric(f"{where}: coef = {show(c)}, radicand = {show(r)}; need coef ≥ 0 and 1 ≤ radicand < 2^64.")
    if (c == 0 and r != 1) or any(e > 1 for _, e in flint.fmpz(r).factor()):
        raise InvalidMetric(f"{where}: radicand {show(r)} is not squarefree (or coef is 0 with "
                            "radicand ≠ 1); write c·√r with r squarefree.")
    if c * c * r >= _MAX_SQUARE:
        raise InvalidMetric(f"{where}: the distance {show(c)}·√{r} exceeds 10^300; rescale the metric.")
    return Distance(c, r)


def read_metric_json(value: Any, where: str = "question.metric", *,
                     max_points: int = MAX_POINTS,
                     max_distance_points: int = MAX_DISTANCE_POINTS,
                     ) -> tuple[FiniteMetric, tuple[str, str] | None, str]:
    """Rebuild a metric from its JSON form: ``(metric, spec, stated fingerprint)``.

    The caller compares the stated fingerprint with the rebuilt metric's (see
    :meth:`exactdp.kernel.question.Question.from_json`). Sizes are checked before anything
    is built: at most ``max_points`` points for a constructor, ``max_distance_points`` for
    distances.
    """
    if not isinstance(value, dict) or "encoding" not in value:
        raise InvalidArgument(f"{where}: expected an object with \"encoding\": \"builtin\" or \"distances\".")
    enc = read_str(value["encoding"], where + ".encoding", ("builtin", "distances"))
    builtin = enc == "builtin"
    obj = read_object(value, where, ("encoding", "n", "fingerprint",
                                     *(("constructor", "params") if builtin else ("points", "values", "index"))))
    n = read_int(obj["n"], where + ".n", 1, max_points if builtin else max_distance_points)
    fp = read_str(obj["fingerprint"], where + ".fingerprint")
    if builtin:
        ctor = read_str(obj["constructor"], where + ".constructor", CONSTRUCTORS)
        return build_builtin(ctor, obj["params"], n, where), (ctor, dumps(obj["params"])), fp
    raw_values = read_list(obj["values"], where + ".values", max_length=n * n)
    values = [_read_distance(v, f"{where}.values[{k}]") for k, v in enumerate(raw_values)]
    squares = [v.square for v in values]
    if any(a >= b for a, b in zip(squares, squares[1:])):
        raise InvalidArgument(f"{where}.values: the distances must be strictly increasing.")
    idx = np.array([[read_int(k, f"{where}.index[{i}][{j}]", 0, len(values) - 1)
                      for j, k in enumerate(read_list(r, f"{where}.index[{i}]", length=n))]
                     for i, r in enumerate(read_list(obj["index"], where + ".index", length=n))], dtype=np.int64)
    used = _used(idx, len(values))
    if not all(used):
        raise InvalidArgument(f"{where}.values[{used.index(False)}] is never used; list only the distances that occur.")
    points = None
    if obj["points"] is not None:
        labels = read_list(obj["points"], where + ".points", length=n)
        points = [_read_label(x, f"{where}.points[{k}]") for k, x in enumerate(labels)]
    return metric_from_distances(values, idx, points), None, fp
