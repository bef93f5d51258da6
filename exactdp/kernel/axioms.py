"""Exact check of the metric axioms for a metric given by its distinct distances and index.

The kernel's own "from_matrix": :func:`metric_from_distances` checks zero diagonal,
symmetry, separation and every triangle inequality d(i, k) ≤ d(i, j) + d(j, k) exactly, and
builds a :class:`~exactdp.spaces.metrics.FiniteMetric` with *no* structure metadata.

How the O(n³) triangle check stays exact and fast:

* all distances rational: scaled to integers by the common denominator; when they stay
  below 2⁶¹ the check is exact int64 numpy (sums < 2⁶² cannot overflow), else exact
  Python integers;
* some distance irrational (c·√r): a *sound* float filter accepts a triple when
  hi(d_ik) ≤ pred(fl(lo(d_ij) + lo(d_jk))), with lo/hi directed-rounded float bounds of
  each distance (:meth:`~exactdp.spaces.distances.Distance.float_bounds`) — the rounded sum s satisfies
  a + b ≥ pred(s) (rounding to nearest; values ≤ 10³⁰⁰ so nothing overflows; skipped
  entirely when the process flushes subnormals). Every other triple is decided exactly
  by :func:`~exactdp.spaces.distances.triangle_holds`, once per distinct triple of values.

Examples
--------
>>> from exactdp.spaces.distances import Distance
>>> vals = [Distance.rational(0), Distance.rational(1), Distance.rational(3)]
>>> metric_from_distances(vals, np.array([[0, 1, 2], [1, 0, 1], [2, 1, 0]]))
Traceback (most recent call last):
...
exactdp.errors.InvalidMetric: triangle inequality fails: d[0][2] = 3 > d[0][1] + d[1][2] = 1 + 1
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from exactdp.arithmetic.rounding import pred, subnormals_ok
from exactdp.errors import InvalidMetric
from exactdp.spaces.distances import Distance, triangle_holds
from exactdp.spaces.metrics import FiniteMetric

__all__ = ["metric_from_distances", "check_axioms"]

_INT_LIMIT = 2**61


def check_axioms(values: Sequence[Distance], idx: np.ndarray) -> None:
    """Raise :class:`~exactdp.errors.InvalidMetric` unless ``values[idx]`` is a metric.

    ``values`` are distinct (no two with the same square); ``idx`` is an n×n integer matrix
    of positions in ``values``.
    """
    n = idx.shape[0]
    if idx.shape != (n, n) or n == 0:
        raise InvalidMetric(f"index has shape {idx.shape}; expected n×n with n ≥ 1.")
    zero = [k for k, v in enumerate(values) if v.coef == 0]
    diag = np.diagonal(idx)
    bad = np.flatnonzero(~np.isin(diag, zero))
    if len(bad):
        i = int(bad[0])
        raise InvalidMetric(f"diagonal entry d[{i}][{i}] = {values[idx[i, i]]} is not 0.")
    off = np.argwhere(np.isin(idx, zero) & ~np.eye(n, dtype=bool))
    if len(off):
        i, j = (int(x) for x in off[0])
        raise InvalidMetric(f"d[{i}][{j}] = 0 for distinct points {i} and {j}; a metric "
                            "separates points (merge them, or give a positive distance).")
    asym = np.argwhere(idx != idx.T)
    if len(asym):
        i, j = (int(x) for x in asym[0])
        raise InvalidMetric(f"not symmetric: d[{i}][{j}] = {values[idx[i, j]]} but d[{j}][{i}] = {values[idx[j, i]]}.")
    if all(v.is_rational for v in values):
        _triangle_rational(values, idx)
    else:
        _triangle_irrational(values, idx)


def _fail(values: Sequence[Distance], idx: np.ndarray, i: int, j: int, k: int) -> InvalidMetric:
    return InvalidMetric(f"triangle inequality fails: d[{i}][{k}] = {values[idx[i, k]]} > d[{i}][{j}] + d[{j}][{k}] = "
                         f"{values[idx[i, j]]} + {values[idx[j, k]]}")


def _triangle_rational(values: Sequence[Distance], idx: np.ndarray) -> None:
    den = math.lcm(*(v.coef.denominator for v in values))
    ints = [int(v.coef * den) for v in values]
    top = max(ints)
    dtype: Any = np.int32 if top < 2**30 else np.int64 if top < _INT_LIMIT else object
    D = np.array(ints, dtype=dtype)[idx]
    n = idx.shape[0]
    S = np.empty((n, n), dtype=dtype)
    for j in range(n):
        np.add(D[:, j][:, None], D[j, :][None, :], out=S)
        less = S < D
        if less.any():
            viol = np.argwhere(less)
            i, k = (int(x) for x in viol[0])
            raise _fail(values, idx, i, j, k)


def _triangle_irrational(values: Sequence[Distance], idx: np.ndarray) -> None:
    n, K = idx.shape[0], len(values)
    bounds = [v.float_bounds() for v in values]  # floats lo ≤ v ≤ hi (directed rounding of balls)
    lo = np.array([b[0] for b in bounds])[idx]
    hi = np.array([b[1] for b in bounds])[idx]
    use_filter = subnormals_ok()
    decided: dict[int, bool] = {}
    for j in range(n):
        with np.errstate(all="ignore"):  # without the filter every triple is a suspect
            ok = hi <= pred(lo[:, j][:, None] + lo[j, :][None, :]) if use_filter else np.zeros((n, n), dtype=bool)
        suspects = np.argwhere(~ok)
        if not len(suspects):
            continue
        ii, kk = suspects[:, 0], suspects[:, 1]
        codes = (idx[ii, kk].astype(np.int64) * K + idx[ii, j]) * K + idx[j, kk]
        for code in np.unique(codes).tolist():
            if code not in decided:
                a, rest = divmod(code, K * K)
                b, c = divmod(rest, K)
                decided[code] = triangle_holds(values[a], values[b], values[c])
            if not decided[code]:
                pos = int(np.flatnonzero(codes == code)[0])
                raise _fail(values, idx, int(ii[pos]), j, int(kk[pos]))


def metric_from_distances(values: Sequence[Distance], idx: np.ndarray,
                          points: Sequence[Any] | None = None) -> FiniteMetric:
    """A structure-free :class:`~exactdp.spaces.metrics.FiniteMetric`, axioms checked exactly.

    >>> from exactdp.spaces.distances import Distance
    >>> s2 = Distance.sqrt_of(2)
    >>> m = metric_from_distances([Distance.rational(0), Distance.rational(1), s2],
    ...                           np.array([[0, 1, 2], [1, 0, 1], [2, 1, 0]]))
    >>> m.name, m.kronecker_factors, m.distance(0, 2)
    ('matrix(3)', None, Distance(coef=Fraction(1, 1), radicand=2))
    """
    idx = np.array(idx, dtype=np.int64)
    check_axioms(values, idx)
    n = idx.shape[0]
    pts = list(range(n)) if points is None else list(points)
    if len(pts) != n:
        raise InvalidMetric(f"Got {len(pts)} point labels for {n} points.")
    return FiniteMetric(f"matrix({n})", pts, list(values), idx, params={})
