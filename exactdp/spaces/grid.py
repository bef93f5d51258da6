"""Planar grid geometry: offsets, their distances and counts, and the matrix-free size rule.

A grid metric (:func:`exactdp.spaces.metrics.grid`) has n = W·H points; the distance of two
points depends only on their offset (|dx|, |dy|), so every table indexed by pairs of points
can be replaced by a W×H table indexed by offsets. The same holds for a masked grid
(:func:`exactdp.spaces.metrics.masked.masked_grid`, the kept cells of a W×H grid): its
distances are the full grid's on the kept cells. Above :data:`MATRIX_FREE_ABOVE_N` points
the threshold route and the reproduction of Fig. 7 never form the n×n index (it would take
gigabytes at 100×100): they use the offset tables below instead.

Examples
--------
>>> from exactdp.spaces.metrics import grid
>>> g = grid(3, 2, "euclidean")
>>> offset_value_codes(g).tolist()            # value index of each offset (dx, dy)
[[0, 1], [1, 2], [3, 4]]
>>> offset_count_row(g).tolist()              # offsets counted with their signs
[[1, 4, 4, 2, 4]]
>>> use_matrix_free(g), use_matrix_free(grid(51, 51))
(False, True)
>>> from exactdp.spaces.metrics.masked import masked_grid
>>> use_matrix_free(masked_grid(40, 40, mask=["1" * 40] * 39 + ["0" * 40]))    # 1,560 points
True
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import numpy as np

from exactdp.errors import InstanceTooLarge, InvalidMetric
from exactdp.spaces.distances import Distance, grid_offset_distance
from exactdp.spaces.metrics import FiniteMetric, GridInfo
from exactdp.spaces.metrics.masked import GridShape, grid_shape

__all__ = [
    "MATRIX_FREE_ABOVE_N",
    "MATRIX_FREE_NORMS",
    "is_large_grid",
    "matrix_free_shape",
    "force_matrix_free",
    "use_matrix_free",
    "offset_distance",
    "offset_value_codes",
    "offset_count_row",
    "offset_distance_count",
    "MAX_COUNT_BYTES",
]

#: Grids with more points than this are handled matrix-free (no n×n table is formed). From
#: 31×31 on the matrix-free threshold route is the faster one (certified ε* of the Euclidean
#: 40×40 grid: 4.8 s CPU matrix-free; 50×50: 6.4 s against 64 s dense; 30×30: 3.1 s against
#: 12.3 s — one run each on the shared 2-core machine, session 7).
MATRIX_FREE_ABOVE_N = 900

#: Norms whose grids (masked or not) the matrix-free threshold route takes: Φ is positive
#: definite on every finite subset of the lattice, with a proved λ_min bound (Euclidean:
#: the lattice symbol; Manhattan: ((1 − t)/(1 + t))²; ``proofs/grid_point_bounds.py``).
MATRIX_FREE_NORMS = ("euclidean", "manhattan")


def is_large_grid(metric: FiniteMetric) -> bool:
    """True for a grid or masked grid (any norm) with n > :data:`MATRIX_FREE_ABOVE_N` points.

    For such grids per-point tables are replaced by offset tables (e.g. the distance-count
    row of the perturbation lemma).
    """
    if any(m is metric for m in _FORCED):
        return True
    return metric.n > MATRIX_FREE_ABOVE_N and (metric.grid is not None
                                               or grid_shape(metric) is not None)


def matrix_free_shape(metric: FiniteMetric, above_n: int | None = None) -> GridShape | None:
    """The exact shape (:class:`~exactdp.spaces.metrics.masked.GridShape`) of a library grid
    or masked grid under a norm of :data:`MATRIX_FREE_NORMS` with n > ``above_n`` points
    (default :data:`MATRIX_FREE_ABOVE_N`), else None.

    The shape is read only from library constructors (never from a name or params), so a
    masked grid is never taken for its full grid.

    >>> from exactdp.spaces.metrics import grid
    >>> matrix_free_shape(grid(31, 31)).width, matrix_free_shape(grid(30, 30))
    (31, None)
    >>> matrix_free_shape(grid(3, 2, "manhattan"), above_n=0).norm
    'manhattan'
    """
    if metric.n <= (MATRIX_FREE_ABOVE_N if above_n is None else above_n):
        return None
    shape = grid_shape(metric)
    return shape if shape is not None and shape.norm in MATRIX_FREE_NORMS else None


def use_matrix_free(metric: FiniteMetric) -> bool:
    """True when Φ(ε) is handled matrix-free: a Euclidean or Manhattan grid or masked grid
    (:func:`matrix_free_shape`) with n > :data:`MATRIX_FREE_ABOVE_N`, or any such grid inside
    :func:`force_matrix_free`.

    There Φ is symmetric positive definite and a principal submatrix of a block-Toeplitz
    matrix (FFT products on the zero-padded vector; λ_min bounds that hold for every subset
    of the lattice). Full Manhattan grids take the Kronecker route before this rule is
    asked (under ``method="auto"``). Smaller grids and other norms use the dense routes.
    """
    if any(m is metric for m in _FORCED):
        return True
    return matrix_free_shape(metric) is not None


#: metrics whose threshold route was asked to run matrix-free below the size switch
#: (``epsilon_threshold(..., matrix_free=True)``); held only for the duration of that call
_FORCED: list[FiniteMetric] = []


@contextlib.contextmanager
def force_matrix_free(metric: FiniteMetric) -> Iterator[None]:
    """Within the block :func:`use_matrix_free` and :func:`is_large_grid` are True for
    ``metric`` (a Euclidean or Manhattan grid or masked grid of any size), so every stage
    of the threshold route — search, fail point, cover, the perturbation lemma's count row —
    runs matrix-free; InvalidMetric for other metrics.

    >>> from exactdp.spaces.metrics import grid
    >>> g = grid(4, 4, "manhattan")
    >>> with force_matrix_free(g):
    ...     use_matrix_free(g), is_large_grid(g)
    (True, True)
    >>> use_matrix_free(g)
    False
    """
    if matrix_free_shape(metric, above_n=0) is None:
        raise InvalidMetric(f"matrix_free=True: {metric.name} is not a Euclidean or Manhattan "
                            "grid or masked grid (grid(W, H, norm) or masked_grid(...)); "
                            "the matrix-free route takes only those.")
    _FORCED.append(metric)
    try:
        yield
    finally:  # by identity (equal metrics are other objects)
        del _FORCED[next(i for i, m in enumerate(_FORCED) if m is metric)]


def offset_distance(info: GridInfo, dx: int, dy: int) -> Distance:
    """The exact distance of the offset (dx, dy) ≥ 0 under the grid's norm and spacing.

    >>> from exactdp.spaces.metrics import grid
    >>> offset_distance(grid(3, 3).grid, 1, 1)
    Distance(coef=Fraction(1, 1), radicand=2)
    """
    return grid_offset_distance(dx, dy, info.norm, info.spacing)


def offset_value_codes(metric: FiniteMetric) -> np.ndarray:
    """(W, H) int64 array: the index in ``metric.values`` of the distance of offset (dx, dy).

    Built from W·H exact distances, without the n×n index.
    """
    g = _info(metric)
    pos = {v: i for i, v in enumerate(metric.values)}
    code = np.zeros((g.width, g.height), dtype=np.int64)
    for dx in range(g.width):
        for dy in range(g.height):
            code[dx, dy] = pos[offset_distance(g, dx, dy)]
    return code


def offset_count_row(metric: FiniteMetric) -> np.ndarray:
    """(1, k) int64 array: how many signed offsets (±dx, ±dy) of the grid have each distance.

    Every row of the per-point distance counts is entrywise ≤ this row (a point sees
    each offset at most once), so bounds of row sums taken over it hold for every row —
    also on a masked grid, whose points see a subset of the full grid's offsets.
    """
    g = _info(metric)
    pos = {v: i for i, v in enumerate(metric.values)}
    row = np.zeros((1, len(metric.values)), dtype=np.int64)
    for dx in range(g.width):
        for dy in range(g.height):
            row[0, pos[offset_distance(g, dx, dy)]] += (2 if dx else 1) * (2 if dy else 1)
    return row


#: Memory the Euclidean :func:`offset_distance_count` may use (a bitmap of the keys, or the
#: keys and their sort copies). 1000×1000 and 1500×600 need ≈ 2.6 MB.
MAX_COUNT_BYTES = 1 << 28


def offset_distance_count(width: int, height: int, norm: str) -> int:
    """The exact number of distinct distances ‖(dx, dy)‖ over the offsets 0 ≤ dx < W,
    0 ≤ dy < H of a grid (any spacing: it scales every distance alike).

    Manhattan: W + H − 1 (dx + dy); Chebyshev: max(W, H); Euclidean: the distinct values
    of dx² + dy² (√ is injective; W ≥ H): offsets with dx > (H − 1)² have keys of their
    own (H each), the others are counted on a bitmap of their keys or, when the largest
    key is far above their number, by sorting them (≤ W·H keys). The closed
    form W·H − m(m − 1)/2, m = min(W, H), only bounds the Euclidean count: 720,300 at
    1500×600, where the exact count is 439,470.

    >>> offset_distance_count(1500, 600, "euclidean"), offset_distance_count(1000, 1000, "euclidean")
    (439470, 299231)
    >>> offset_distance_count(4, 3, "manhattan"), offset_distance_count(10**6, 1, "euclidean")
    (6, 1000000)

    Sizes must be integers ≥ 1; the Euclidean count refuses (InstanceTooLarge) when it would
    take more than :data:`MAX_COUNT_BYTES` of memory.

    >>> offset_distance_count(10**6, 1000, "euclidean")
    Traceback (most recent call last):
    ...
    exactdp.errors.InstanceTooLarge: counting the distinct distances of a 1000000×1000 ...
    """
    for v in (width, height):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise InvalidMetric(f"Got a {width!r}×{height!r} grid; width and height must be "
                                "integers ≥ 1.")
    W, H = (int(width), int(height)) if width >= height else (int(height), int(width))
    if norm == "manhattan":
        return W + H - 1
    if norm == "chebyshev":
        return W
    if norm != "euclidean":
        raise InvalidMetric(f"Got norm={norm!r}; choose euclidean, manhattan or chebyshev.")
    # an offset with dx ≥ T = (H − 1)² + 1 shares its key with no other offset:
    # |dx² − dx'²| ≥ dx + dx' ≥ T > (H − 1)² ≥ |dy'² − dy²| when dx' ≠ dx
    T = min(W, (H - 1) ** 2 + 1)
    sq = np.arange(T, dtype=np.int64) ** 2
    top = (T - 1) ** 2 + (H - 1) ** 2
    bitmap = top < 8 * T * H + 4096
    need = top + 1 if bitmap else 24 * T * H  # bytes: the bitmap, or the keys + np.unique's copies
    if need > MAX_COUNT_BYTES:
        raise InstanceTooLarge(
            f"counting the distinct distances of a {width}×{height} {norm} grid needs about "
            f"{need / 2**30:.3g} GiB (limit {MAX_COUNT_BYTES / 2**30:.3g} GiB); use a smaller grid "
            "(the count bounds the set-up of the grid routes, which refuse such a grid anyway).")
    if bitmap:  # bitmap over the keys, one row of the short side at a time
        seen = np.zeros(top + 1, dtype=np.bool_)
        for dy in range(H):
            seen[sq + dy * dy] = True
        near = int(np.count_nonzero(seen))
    else:
        near = int(np.unique(sq[None, :] + (np.arange(H, dtype=np.int64) ** 2)[:, None]).size)
    return near + H * (W - T)


def _info(metric: FiniteMetric) -> GridInfo:
    g = metric.grid
    if g is not None:
        return g
    shape = grid_shape(metric)  # a masked grid: its full grid's geometry
    if shape is None:
        raise InvalidMetric(f"{metric.name} is not a grid metric; build it with grid(W, H, ...) "
                            "or masked_grid(W, H, norm, mask=...).")
    return GridInfo(shape.width, shape.height, shape.norm, shape.spacing)
