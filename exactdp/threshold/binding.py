"""What a threshold certificate is about, checked exactly: same distances, same rhs, structure.

A certificate's ``verify()`` must be bound to the question it answers. These helpers
compare questions exactly (never by name) and re-check the structure a route exploits:

* :func:`same_distances` — two metrics have the same points in the same order and the
  same exact distance d(i, j) for every pair;
* :func:`same_rhs` — two right-hand sides are equal (``None`` stands for all ones);
* :func:`kronecker_structure_holds` — d(x, y) = Σ_k d_k(x_k, y_k) exactly for every pair
  (first factor most significant, as ``numpy.kron``), so Φ = ⊗Φ_k;
* :func:`product_rhs_holds` — b = b_1 ⊗ … ⊗ b_m exactly;
* :func:`grid_structure_holds` — ``metric.grid`` (norm, spacing, size) reproduces the
  distances the matrix-free route uses;
* :func:`certificate_question` / :func:`certificate_bounds` — the (metric, rhs) a threshold
  certificate answers and the [eps_lower, eps_upper] it itself claims (read from the
  certificate, whose ``verify()`` re-checks it, never from a result field).

Examples
--------
>>> from exactdp.spaces.metrics import hamming, discrete, line
>>> m = hamming(3, 2)
>>> kronecker_structure_holds(m, (discrete(3), discrete(3)))
True
>>> kronecker_structure_holds(m, (line(3), discrete(3)))
False
>>> same_distances(line(3), line(3)), same_distances(line(3), discrete(3))
(True, False)
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from exactdp.errors import REJECTED_ERRORS
from exactdp.spaces.distances import Distance, grid_offset_distance
from exactdp.spaces.metrics import FiniteMetric
from exactdp.spaces.metrics.claims import same_distances

__all__ = [
    "REJECTED_ERRORS",
    "same_distances",
    "same_rhs",
    "kronecker_structure_holds",
    "product_rhs_holds",
    "certificate_question",
    "certificate_bounds",
    "grid_structure_holds",
    "GRID_FULL_CHECK_N",
]

#: Grids up to this many points get the full n×n distance comparison in
#: :func:`grid_structure_holds` (larger ones: the O(n) checks only, see there).
GRID_FULL_CHECK_N = 4096


#: Rows of the product checked at once (bounds the memory of the n×n comparison).
_ROW_BLOCK = 256


def _codes(values: Sequence[Distance], table: dict[Distance, int]) -> np.ndarray:
    out = np.empty(len(values), dtype=np.int64)
    for k, v in enumerate(values):
        out[k] = table.setdefault(v, len(table))
    return out


def same_rhs(a: Sequence[Any] | None, b: Sequence[Any] | None, n: int) -> bool:
    """Exactly equal right-hand sides of length n (``None`` means all ones)."""
    try:
        ta = tuple(Fraction(1) for _ in range(n)) if a is None else tuple(Fraction(v) for v in a)
        tb = tuple(Fraction(1) for _ in range(n)) if b is None else tuple(Fraction(v) for v in b)
    except (TypeError, ValueError, ZeroDivisionError):
        return False
    return len(ta) == n and ta == tb


def _sum_key(parts: Sequence[Distance]) -> tuple[tuple[int, Fraction], ...]:
    """Σ c_k √r_k as its exact coordinates over the squarefree radicands (√r independent over Q)."""
    acc: dict[int, Fraction] = {}
    for d in parts:
        if d.coef != 0:
            acc[d.radicand] = acc.get(d.radicand, Fraction(0)) + d.coef
    return tuple(sorted((r, c) for r, c in acc.items() if c != 0))


def kronecker_structure_holds(metric: FiniteMetric, factors: Sequence[FiniteMetric]) -> bool:
    """d(x, y) = Σ_k d_k(x_k, y_k) exactly for every pair, x = (x_1, …, x_m) mixed radix.

    Each distinct combination of factor distance values is summed exactly once (sums of
    square roots compared by their coordinates over squarefree radicands, which are
    linearly independent over Q); the n×n comparison is one vectorised pass (O(n²)).
    """
    if not factors or not all(isinstance(f, FiniteMetric) for f in factors):
        return False
    sizes = [f.n for f in factors]
    if int(np.prod(sizes, dtype=object)) != metric.n or any(s < 1 for s in sizes):
        return False
    # the product's own distance values by their exact coordinates
    own: dict[tuple[tuple[int, Fraction], ...], int] = {}
    for k, v in enumerate(metric.values):
        own.setdefault(_sum_key([v]), k)
    kinds = [len(f.values) for f in factors]
    strides = [int(np.prod(kinds[i + 1:], dtype=np.int64)) for i in range(len(kinds))]
    combo = np.full(int(np.prod(kinds, dtype=np.int64)), -1, dtype=np.int64)
    for multi in itertools.product(*(range(k) for k in kinds)):
        key = _sum_key([f.values[j] for f, j in zip(factors, multi)])
        combo[sum(j * s for j, s in zip(multi, strides))] = own.get(key, -1)
    n = metric.n
    idx = np.asarray(metric.index)
    if idx.shape != (n, n):
        return False
    # code[x, y] = Σ_k index_k[x_k, y_k]·stride_k, built factor by factor (numpy.kron order)
    dt = np.int32 if len(combo) < 2**31 else np.int64
    code = np.zeros((1, 1), dtype=dt)
    for f, st in zip(factors, strides):
        fi = np.asarray(f.index, dtype=dt) * st
        N, m = code.shape[0], f.n
        code = (code[:, None, :, None] + fi[None, :, None, :]).reshape(N * m, N * m)
    return bool(np.array_equal(combo[code], idx))


def product_rhs_holds(rhs: Sequence[Any] | None, factor_rhs: Sequence[Sequence[Any] | None],
                      sizes: Sequence[int]) -> bool:
    """b = b_1 ⊗ … ⊗ b_m exactly (first factor most significant; None means all ones)."""
    if len(factor_rhs) != len(sizes):
        return False
    try:
        parts = [tuple(Fraction(1) for _ in range(s)) if r is None else tuple(Fraction(v) for v in r)
                 for r, s in zip(factor_rhs, sizes)]
    except (TypeError, ValueError, ZeroDivisionError):
        return False
    if any(len(p) != s for p, s in zip(parts, sizes)):
        return False
    n = int(np.prod(sizes, dtype=object))
    if rhs is None:
        full = tuple(Fraction(1) for _ in range(n))
    else:
        try:
            full = tuple(Fraction(v) for v in rhs)
        except (TypeError, ValueError, ZeroDivisionError):
            return False
    if len(full) != n:
        return False
    for k, multi in enumerate(itertools.product(*parts)):
        prod = Fraction(1)
        for v in multi:
            prod *= v
        if full[k] != prod:
            return False
    return True


def certificate_question(cert: Any) -> tuple[FiniteMetric, Any] | None:
    """The (metric, rhs) a threshold certificate answers (None when it names none)."""
    metric = getattr(cert, "metric", None)
    if isinstance(metric, FiniteMetric):
        return metric, getattr(cert, "rhs", None)
    return None


def certificate_bounds(cert: Any) -> tuple[Fraction, Fraction] | None:
    """The [eps_lower, eps_upper] the certificate itself claims (Prop. 9: [0, 0])."""
    from_kind = getattr(cert, "claimed_bounds", None)
    if callable(from_kind):
        out = from_kind()
        return None if out is None else (Fraction(out[0]), Fraction(out[1]))
    lo, hi = getattr(cert, "eps_lower", None), getattr(cert, "eps_upper", None)
    if isinstance(lo, Fraction) and isinstance(hi, Fraction):
        return lo, hi
    return None


def grid_structure_holds(metric: FiniteMetric, full_check_n: int = GRID_FULL_CHECK_N) -> bool:
    """``metric.grid`` reproduces what the matrix-free grid route uses, exactly.

    O(n) checks: W·H = n; the points are the lattice (x·h, y·h) in row-major order; every
    offset (dx, dy) of the offset table has its exact norm distance among
    ``metric.values`` (the distance classes the route's tables are built from). When
    n ≤ ``full_check_n`` also every pair: d(i, j) = ‖(x_i − x_j, y_i − y_j)‖·h
    (vectorised by row blocks). Above that the n×n index is not formed (10⁸ entries at
    n = 10⁴); the pairwise distances of such a grid come from the library constructor
    ``grid()``, which builds them from the same offset table, and
    :class:`~exactdp.spaces.metrics.FiniteMetric` refuses a false ``grid_info`` claim at
    construction.
    """
    g = getattr(metric, "grid", None)
    if g is None:
        return False
    try:
        W, H, norm, h = int(g.width), int(g.height), g.norm, Fraction(g.spacing)
    except (AttributeError, TypeError, ValueError):
        return False
    if W < 1 or H < 1 or W * H != metric.n or h <= 0 or norm not in ("euclidean", "manhattan",
                                                                        "chebyshev"):
        return False
    pos: dict[Distance, int] = {}
    for k, v in enumerate(metric.values):
        pos.setdefault(v, k)
    code = np.empty((W, H), dtype=np.int64)
    for dx in range(W):
        for dy in range(H):
            d = grid_offset_distance(dx, dy, norm, h)
            hit = pos.get(d)
            if hit is None:
                return False
            code[dx, dy] = hit
    xs = np.tile(np.arange(W, dtype=np.int64), H)
    ys = np.repeat(np.arange(H, dtype=np.int64), W)
    pts = metric.points
    if len(pts) != metric.n:
        return False
    for i, p in enumerate(pts):
        try:
            if tuple(Fraction(c) for c in p) != (int(xs[i]) * h, int(ys[i]) * h):
                return False
        except (TypeError, ValueError):
            return False
    if metric.n > full_check_n:
        return True
    idx = np.asarray(metric.index)
    if idx.shape != (metric.n, metric.n):
        return False
    # equal values may be stored twice: compare canonical ids
    table: dict[Distance, int] = {}
    canon = _codes(metric.values, table)
    ccode = canon[code]
    for start in range(0, metric.n, _ROW_BLOCK):
        stop = min(metric.n, start + _ROW_BLOCK)
        want = ccode[np.abs(xs[start:stop, None] - xs[None, :]),
                     np.abs(ys[start:stop, None] - ys[None, :])]
        if not np.array_equal(want, canon[idx[start:stop]]):
            return False
    return True
