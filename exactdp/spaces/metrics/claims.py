"""Exact checks of the structure a metric claims (Kronecker factors, grid, Toeplitz).

A route that exploits structure (a Kronecker split of Φ, the block-Toeplitz grid kernel,
a Toeplitz solve) is only sound when the structure really holds. The library
constructors establish it by construction; a :class:`~exactdp.spaces.metrics.FiniteMetric`
built directly with structure metadata has each claim checked here, exactly and in
O(n²) comparisons of exact values, against its distances. Each function returns None when
the claim holds and otherwise a sentence naming what fails (the caller raises
:class:`~exactdp.errors.InvalidMetric`).

The functions read a metric through its attributes only (``n``, ``values``, ``index``,
``points``), so :mod:`exactdp.engine.certificates` reuses :func:`kronecker_claim_error`
to re-check a factorisation in ``verify()``.

>>> from exactdp.spaces.metrics import line, hamming
>>> kronecker_claim_error(hamming(2, 2), (line(2), line(2))) is None
True
>>> import numpy as np
>>> from exactdp.spaces.distances import Distance
>>> class Star:  # the 4-point star: not the ℓ1-sum of two 2-point lines
...     n, values = 4, tuple(Distance.rational(k) for k in range(3))
...     index = np.array([[0, 1, 1, 1], [1, 0, 2, 2], [1, 2, 0, 2], [1, 2, 2, 0]])
>>> kronecker_claim_error(Star(), (line(2), line(2)))
'd(0, 3) = 1 but the sum of the factor distances is 2'
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from exactdp.spaces.distances import Distance, grid_offset_distance

__all__ = ["kronecker_claim_error", "grid_claim_error", "toeplitz_claim_error", "distance_table_error",
           "graph_claim_error", "same_distances", "canonical_index", "GRID_TRUSTED_TYPES"]

#: Types whose ``grid`` claim holds by construction: :class:`~exactdp.spaces.metrics.FiniteMetric`
#: registers itself (its claim is checked exactly by :func:`grid_claim_error` when it is built,
#: or established by a library constructor, and the object is immutable). Two such metrics with
#: equal grid claims have the same distances, so :func:`same_distances` decides them in O(1)
#: instead of comparing n×n index tables (3.2 GB at 100×100). Exact types only: a subclass is
#: compared in full.
GRID_TRUSTED_TYPES: set[type] = set()


def _key(v: Distance) -> tuple[bool, Fraction]:
    """Exact identity of c·√r (c may be written unnormalised: compare c ≥ 0 and c²·r)."""
    return (v.coef >= 0, v.square)


def _canonical_codes(values: Any) -> np.ndarray:
    """One id per exact value, for each code of ``values``."""
    ids: dict[tuple[bool, Fraction], int] = {}
    return np.array([ids.setdefault(_key(v), len(ids)) for v in values], dtype=np.int64)


def canonical_index(metric: Any) -> np.ndarray:
    """The index matrix with equal distance values merged (one id per exact value)."""
    canon = _canonical_codes(metric.values)
    return canon[np.asarray(metric.index)] if len(canon) else np.asarray(metric.index)


def same_distances(a: Any, b: Any) -> bool:
    """True when ``a`` and ``b`` have the same points count and d_a(i, j) = d_b(i, j) exactly.

    >>> from exactdp.spaces.metrics import line, line_scaled, discrete
    >>> same_distances(line(2), discrete(2)), same_distances(line(3), line_scaled(3, 2))
    (True, False)
    """
    if type(a) in GRID_TRUSTED_TYPES and type(b) in GRID_TRUSTED_TYPES and a.n == b.n:
        ga, gb = a.grid, b.grid
        if a is b or (ga is not None and ga == gb):
            return True  # both grid claims hold (see GRID_TRUSTED_TYPES) and they are equal
    # hasattr evaluates a lazy index: only after the O(1) decisions above
    if not all(hasattr(m, k) for m in (a, b) for k in ("n", "values", "index")):
        return False  # not metrics (e.g. a tampered field); claims.py sits below FiniteMetric
    if a is b:
        return True
    if a.n != b.n:
        return False
    ka = [_key(v) for v in a.values]
    kb = [_key(v) for v in b.values]
    ia, ib = np.asarray(a.index), np.asarray(b.index)
    if ia.shape != (a.n, a.n) or ib.shape != (b.n, b.n):
        return False
    # compare the pairs of ids that occur together; each (id_a, id_b) pair once
    pairs = np.unique(np.stack([ia.ravel(), ib.ravel()], axis=1), axis=0)
    return all(ka[i] == kb[j] for i, j in pairs.tolist())


def _scaled_integers(values: Any, q: int) -> list[int] | None:
    out = []
    for v in values:
        if not v.is_rational:
            return None
        k = v.coef * q
        if k.denominator != 1:
            return None
        out.append(int(k))
    return out


def kronecker_claim_error(metric: Any, factors: Any) -> str | None:
    """None when d(i, j) = Σ_k d_k(i_k, j_k) exactly, in row-major product order.

    Factor distances must be rational (the library's ℓ1-sums are), so the check is done
    in exact integers after scaling by the common denominator.
    """
    if not isinstance(factors, tuple) or not factors:
        return f"kronecker_factors={factors!r} is not a nonempty tuple of metrics"
    for f in factors:
        if not all(hasattr(f, a) for a in ("n", "values", "index")):
            return f"kronecker factor {f!r} is not a metric"
    if math.prod(f.n for f in factors) != metric.n:
        return (f"the factors have {' × '.join(str(f.n) for f in factors)} points, "
                f"the metric {metric.n}")
    every = list(metric.values) + [v for f in factors for v in f.values]
    if not all(v.is_rational for v in every):
        return "a Kronecker claim needs rational distances (an ℓ1-sum of rational metrics)"
    q = math.lcm(*(v.coef.denominator for v in every))
    whole = _scaled_integers(metric.values, q)
    assert whole is not None
    total = np.zeros((1, 1), dtype=object)
    for f in factors:
        dk = _scaled_integers(f.values, q)
        assert dk is not None
        mk = np.array(dk, dtype=object)[np.asarray(f.index)]
        total = (total[:, None, :, None] + mk[None, :, None, :]).reshape(
            total.shape[0] * f.n, total.shape[1] * f.n)
    target = np.array(whole, dtype=object)[np.asarray(metric.index)]
    bad = np.argwhere(total != target)
    if len(bad):
        i, j = (int(x) for x in bad[0])
        return (f"d({i}, {j}) = {Fraction(target[i, j], q)} but the sum of the factor "
                f"distances is {Fraction(total[i, j], q)}")
    return None


def grid_claim_error(metric: Any, info: Any) -> str | None:
    """None when d(i, j) = ‖(x_i − x_j, y_i − y_j)‖·spacing exactly (points row-major)."""
    try:
        w, h, norm, spacing = info.width, info.height, info.norm, info.spacing
    except AttributeError:
        return f"grid_info={info!r} is not a GridInfo"
    if (isinstance(w, bool) or isinstance(h, bool) or not isinstance(w, int)
            or not isinstance(h, int) or w < 1 or h < 1):
        return f"grid_info has width={w!r}, height={h!r}; they must be integers ≥ 1"
    if norm not in ("euclidean", "manhattan", "chebyshev"):
        return f"grid_info has norm={norm!r}"
    if not isinstance(spacing, (int, Fraction)) or spacing <= 0:
        return f"grid_info has spacing={spacing!r}; it must be a positive rational"
    if w * h != metric.n:
        return f"grid_info says {w} × {h} points, the metric has {metric.n}"
    ids: dict[tuple[bool, Fraction], int] = {}
    canon = np.array([ids.setdefault(_key(v), len(ids)) for v in metric.values], dtype=np.int64)
    expected = np.full((w, h), -1, dtype=np.int64)
    for dx in range(w):
        for dy in range(h):
            expected[dx, dy] = ids.get(_key(grid_offset_distance(dx, dy, norm, Fraction(spacing))), -1)
    xs = np.tile(np.arange(w), h)
    ys = np.repeat(np.arange(h), w)
    want = expected[np.abs(xs[:, None] - xs[None, :]), np.abs(ys[:, None] - ys[None, :])]
    got = canon[np.asarray(metric.index)]
    bad = np.argwhere(want != got)
    if len(bad):
        i, j = (int(x) for x in bad[0])
        d = grid_offset_distance(abs(int(xs[i] - xs[j])), abs(int(ys[i] - ys[j])), norm,
                           Fraction(spacing))
        return (f"d({i}, {j}) = {metric.values[int(metric.index[i, j])]} but the {norm} "
                f"grid distance is {d}")
    return None


def distance_table_error(metric: Any, index: Any = None) -> str | None:
    """None when the index is an n×n table of valid codes with d(i, i) = 0, d(i, j) > 0 for
    i ≠ j and d(i, j) = d(j, i) (exact values; O(n²), row blocks). The triangle inequality is
    not checked here (O(n³)): the matrix constructors check it. ``index`` replaces
    ``metric.index`` (a lazily built table, checked when it is first built).

    >>> class Bent:  # d(0, 1) = 2 but d(1, 0) = 1
    ...     n, values = 3, tuple(Distance.rational(k) for k in range(3))
    ...     index = np.array([[0, 2, 2], [1, 0, 1], [2, 1, 0]])
    >>> distance_table_error(Bent())
    'd(0, 1) = 2 but d(1, 0) = 1: a metric is symmetric'
    """
    n, values = metric.n, metric.values
    idx = np.asarray(metric.index if index is None else index)
    if idx.shape != (n, n) or not np.issubdtype(idx.dtype, np.integer):
        return f"the index is {idx.shape} {idx.dtype}, not an n×n integer table (n = {n})"
    if n == 0:
        return None
    if int(idx.min()) < 0 or int(idx.max()) >= len(values):
        return f"the index holds codes outside 0..{len(values) - 1}"
    zero = np.array([v.coef == 0 for v in values], dtype=bool)
    diag = idx[np.arange(n), np.arange(n)]
    if not zero[diag].all():
        i = int(np.flatnonzero(~zero[diag])[0])
        return f"d({i}, {i}) = {values[int(diag[i])]}: a metric has d(i, i) = 0"
    canon = _canonical_codes(values)
    step = max(1, 2**22 // n)
    for r0 in range(0, n, step):
        rows = canon[idx[r0:r0 + step]]
        cols = canon[idx[:, r0:r0 + step]].T
        bad = np.argwhere(rows != cols)
        if len(bad):
            i, j = int(bad[0][0]) + r0, int(bad[0][1])
            return (f"d({i}, {j}) = {values[int(idx[i, j])]} but d({j}, {i}) = "
                    f"{values[int(idx[j, i])]}: a metric is symmetric")
        off = zero[idx[r0:r0 + step]]
        off[np.arange(off.shape[0]), np.arange(r0, r0 + off.shape[0])] = False
        if off.any():
            i, j = (int(x) for x in np.argwhere(off)[0])
            return f"d({i + r0}, {j}) = 0 for two different points: a metric separates points"
    return None


def toeplitz_claim_error(metric: Any) -> str | None:
    """None when d(i, j) depends only on |i − j|."""
    c = canonical_index(metric)
    n = c.shape[0]
    if n == 0:
        return None
    ar = np.arange(n)
    want = c[0][np.abs(ar[:, None] - ar[None, :])]
    bad = np.argwhere(want != c)
    if len(bad):
        i, j = (int(x) for x in bad[0])
        return (f"d({i}, {j}) = {metric.values[int(metric.index[i, j])]} but d(0, {abs(i - j)}) "
                f"= {metric.values[int(metric.index[0, abs(i - j)])]}")
    return None


def graph_claim_error(metric: Any, edges: Any) -> str | None:
    """None when d is the shortest-path metric of ``edges`` weighted by d (the path argument).

    Checked as: every edge joins two distinct points at a positive distance, and for every
    pair (a, b) some edge (a, c) has d(a, c) + d(c, b) = d(a, b) exactly. By induction on
    d(a, b) (d(c, b) < d(a, b) because d(a, c) > 0) every pair is then joined by a path of
    edges of total length d(a, b). Rational distances only (the library's graphs are).
    O(n · Σ deg) exact integer comparisons.

    >>> from exactdp.spaces.metrics import line
    >>> graph_claim_error(line(4), ((0, 1), (1, 2), (2, 3))) is None
    True
    >>> graph_claim_error(line(4), ((0, 1), (2, 3)))
    'no edge from point 1 starts a shortest path to point 2'
    """
    n = metric.n
    if not isinstance(edges, tuple):
        return f"graph_edges={edges!r} is not a tuple of pairs"
    if not all(v.is_rational for v in metric.values):
        return "a graph_edges claim needs rational distances"
    q = math.lcm(*(v.coef.denominator for v in metric.values)) if metric.values else 1
    ints = _scaled_integers(metric.values, q)
    assert ints is not None
    D = np.array(ints, dtype=object)[np.asarray(metric.index)]
    nbrs: list[list[int]] = [[] for _ in range(n)]
    for e in edges:
        if (not isinstance(e, tuple) or len(e) != 2
                or not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in e)
                or not (0 <= e[0] < n and 0 <= e[1] < n) or e[0] == e[1]):
            return f"graph edge {e!r} is not a pair of distinct point indices below {n}"
        a, b = int(e[0]), int(e[1])
        if D[a, b] <= 0:
            return f"graph edge {e!r} has distance {Fraction(D[a, b], q)}, not > 0"
        nbrs[a].append(b)
        nbrs[b].append(a)
    for a in range(n):
        others = [b for b in range(n) if b != a]
        if not others:
            continue
        if not nbrs[a]:
            return f"point {a} has no edge"
        via = D[nbrs[a], :] + D[a, nbrs[a]][:, None]
        ok = (via == D[a][None, :]).any(axis=0)
        ok[a] = True
        if not bool(np.all(ok)):
            b = int(np.argmin(ok))
            return f"no edge from point {a} starts a shortest path to point {b}"
    return None
