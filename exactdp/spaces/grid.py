"""Planar grid geometry: offsets, their distances and counts, and the matrix-free size rule.

A grid metric (:func:`exactdp.spaces.metrics.grid`) has n = W·H points; the distance of two
points depends only on their offset (|dx|, |dy|), so every table indexed by pairs of points
can be replaced by a W×H table indexed by offsets. Above :data:`MATRIX_FREE_ABOVE_N` points
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
"""

from __future__ import annotations

import numpy as np

from exactdp.errors import InvalidMetric
from exactdp.spaces.distances import Distance, grid_offset_distance
from exactdp.spaces.metrics import FiniteMetric, GridInfo

__all__ = [
    "MATRIX_FREE_ABOVE_N",
    "is_large_grid",
    "use_matrix_free",
    "offset_distance",
    "offset_value_codes",
    "offset_count_row",
]

#: Grids with more points than this are handled matrix-free (no n×n table is formed). From
#: 31×31 on the matrix-free threshold route is the faster one (certified ε* of the Euclidean
#: 40×40 grid: 4.8 s CPU matrix-free; 50×50: 6.4 s against 64 s dense; 30×30: 3.1 s against
#: 12.3 s — one run each on the shared 2-core machine, session 7).
MATRIX_FREE_ABOVE_N = 900


def is_large_grid(metric: FiniteMetric) -> bool:
    """True for a grid metric (any norm) with n > :data:`MATRIX_FREE_ABOVE_N` points.

    For such grids per-point tables are replaced by offset tables (e.g. the distance-count
    row of the perturbation lemma).
    """
    return metric.grid is not None and metric.n > MATRIX_FREE_ABOVE_N


def use_matrix_free(metric: FiniteMetric) -> bool:
    """True when Φ(ε) is handled matrix-free: a Euclidean grid with n > :data:`MATRIX_FREE_ABOVE_N`.

    There Φ is symmetric positive definite and block-Toeplitz (FFT products, lattice
    λ_min bound); smaller grids and other norms use the dense routes.
    """
    g = metric.grid
    return g is not None and g.norm == "euclidean" and metric.n > MATRIX_FREE_ABOVE_N


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
    each offset at most once), so bounds of row sums taken over it hold for every row.
    """
    g = _info(metric)
    pos = {v: i for i, v in enumerate(metric.values)}
    row = np.zeros((1, len(metric.values)), dtype=np.int64)
    for dx in range(g.width):
        for dy in range(g.height):
            row[0, pos[offset_distance(g, dx, dy)]] += (2 if dx else 1) * (2 if dy else 1)
    return row


def _info(metric: FiniteMetric) -> GridInfo:
    g = metric.grid
    if g is None:
        raise InvalidMetric(f"{metric.name} is not a grid metric; build it with grid(W, H, ...).")
    return g
