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

The code lives in three modules: :mod:`~exactdp.spaces.metrics.space` (the
:class:`FiniteMetric` type), :mod:`~exactdp.spaces.metrics.builtin` (the built-in spaces)
and :mod:`~exactdp.spaces.metrics.explicit` (graphs and distance matrices); every name is
importable from here.
"""

from exactdp.spaces.metrics.builtin import (
    BUILTIN_METRICS,
    band,
    count_queries,
    cycle,
    discrete,
    grid,
    hamming,
    line,
    line_scaled,
    sum_query,
)
from exactdp.spaces.metrics.explicit import from_graph, from_matrix
from exactdp.spaces.metrics.space import FiniteMetric, GridInfo, read_metric

__all__ = [
    "FiniteMetric",
    "GridInfo",
    "read_metric",
    "line",
    "cycle",
    "band",
    "discrete",
    "sum_query",
    "count_queries",
    "hamming",
    "grid",
    "line_scaled",
    "from_graph",
    "from_matrix",
    "BUILTIN_METRICS",
]
