"""Finite metric spaces (public path; the code lives in :mod:`exactdp.spaces.metrics`).

>>> from exactdp import metrics
>>> metrics.line(3).n
3
"""

from exactdp.spaces.metrics import (
    BUILTIN_METRICS,
    FiniteMetric,
    GridInfo,
    band,
    count_queries,
    cycle,
    discrete,
    from_graph,
    from_matrix,
    grid,
    hamming,
    line,
    sum_query,
)

__all__ = [
    "FiniteMetric",
    "GridInfo",
    "line",
    "cycle",
    "band",
    "discrete",
    "sum_query",
    "count_queries",
    "hamming",
    "grid",
    "from_graph",
    "from_matrix",
    "BUILTIN_METRICS",
]
