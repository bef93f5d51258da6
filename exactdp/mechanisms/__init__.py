"""Mechanisms: construction, privacy level, utility and leakage, the paper's bounds, optimality."""

from exactdp.mechanisms.core import (
    Mechanism,
    MonomialForm,
    RowNormalizedForm,
    count_queries_geometric,
    exponential_mechanism,
    fmpq_to_float,
    from_balls,
    from_rows,
    geometric_line,
    planar_laplace_grid,
    randomized_response,
    sum_query_geometric,
    tight_constraints_mechanism,
    truncated_geometric,
)

__all__ = [
    "Mechanism",
    "MonomialForm",
    "RowNormalizedForm",
    "from_rows",
    "from_balls",
    "truncated_geometric",
    "geometric_line",
    "sum_query_geometric",
    "count_queries_geometric",
    "randomized_response",
    "exponential_mechanism",
    "tight_constraints_mechanism",
    "planar_laplace_grid",
    "fmpq_to_float",
]
