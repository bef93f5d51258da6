"""Hypothesis strategies for users' own property tests (needs ``hypothesis`` installed).

>>> from hypothesis import given
>>> @given(graph_metrics(max_nodes=4))
... def check(m):
...     assert m.n >= 2
>>> check()
"""

from __future__ import annotations

from fractions import Fraction

from hypothesis import strategies as st

from exactdp.spaces.metrics import FiniteMetric, from_graph

__all__ = ["graph_metrics", "priors", "rational_t"]


@st.composite
def graph_metrics(draw: st.DrawFn, min_nodes: int = 2, max_nodes: int = 7,
                  max_weight: int = 3) -> FiniteMetric:
    """Shortest-path metrics of random connected graphs with small integer weights."""
    n = draw(st.integers(min_nodes, max_nodes))
    # a random spanning tree keeps the graph connected, then extra edges
    edges = []
    for v in range(1, n):
        u = draw(st.integers(0, v - 1))
        edges.append((u, v, draw(st.integers(1, max_weight))))
    extra = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1),
                                    st.integers(1, max_weight)), max_size=n))
    edges += [e for e in extra if e[0] != e[1]]
    return from_graph(edges, nodes=range(n))


@st.composite
def priors(draw: st.DrawFn, n: int, allow_zeros: bool = True) -> tuple[Fraction, ...]:
    """Exact probability vectors of length n."""
    lo = 0 if allow_zeros else 1
    weights = draw(st.lists(st.integers(lo, 20), min_size=n, max_size=n).filter(
        lambda w: sum(w) > 0))
    total = sum(weights)
    return tuple(Fraction(w, total) for w in weights)


def rational_t(max_denominator: int = 20) -> st.SearchStrategy[Fraction]:
    """Rational t = e^-ε in (0, 1)."""
    return st.fractions(min_value=Fraction(1, max_denominator),
                        max_value=1 - Fraction(1, max_denominator),
                        max_denominator=max_denominator)
