"""Hypothesis strategies for users' own property tests (needs ``hypothesis`` installed).

Every strategy draws small instances (at most 12 points by default; parameters raise the
limits) with exact data: integer or rational distances (optionally square roots), rational
levels, exact priors, exact mechanisms. The strategies for mechanisms, Pufferfish
distributions and sets live in :mod:`exactdp.testing.mechanism_strategies`,
:mod:`exactdp.testing.pufferfish_strategies` and :mod:`exactdp.testing.set_strategies`;
all are re-exported here and from :mod:`exactdp.testing`.

>>> from hypothesis import given
>>> @given(graph_metrics(max_nodes=4))
... def check(m):
...     assert m.n >= 2
>>> check()
"""

from __future__ import annotations

from fractions import Fraction

from hypothesis import strategies as st

from exactdp.errors import InvalidArgument
from exactdp.spaces.levels import PrivacyLevel, parse_level
from exactdp.spaces.metrics import FiniteMetric, cycle, discrete, from_graph, from_matrix, grid, line
from exactdp.testing.mechanism_strategies import (
    mechanism_rows,
    nonprivate_mechanism_rows,
    private_mechanism_rows,
)
from exactdp.testing.oracle import exponent_matrix, holds_at_t
from exactdp.testing.pufferfish_strategies import (
    bernoulli_pairs,
    discrete_distributions,
    populations,
    secret_pairs,
)
from exactdp.testing.set_strategies import box_unions, boxes, point_sets, points

__all__ = [
    "graph_metrics",
    "line_metrics",
    "cycle_metrics",
    "star_metrics",
    "grid_metrics",
    "discrete_metrics",
    "matrix_metrics",
    "metrics",
    "priors",
    "rational_t",
    "rational_eps",
    "levels",
    "mechanism_rows",
    "private_mechanism_rows",
    "nonprivate_mechanism_rows",
    "discrete_distributions",
    "secret_pairs",
    "populations",
    "points",
    "point_sets",
    "boxes",
    "box_unions",
    "euclidean_grids",
    "manhattan_grids",
    "distance_matrices",
    "point_metrics",
    "ln_rational_levels",
    "regular_priors",
    "nonregular_priors",
    "bernoulli_pairs",
]

#: Default largest number of points of a drawn metric.
MAX_POINTS = 12


@st.composite
def graph_metrics(draw: st.DrawFn, min_nodes: int = 2, max_nodes: int = 7,
                  max_weight: int = 3) -> FiniteMetric:
    """Shortest-path metrics of random connected graphs with small integer weights.

    A random spanning tree keeps the graph connected; up to n extra edges are added.
    """
    n = draw(st.integers(min_nodes, max_nodes))
    edges = []
    for v in range(1, n):
        u = draw(st.integers(0, v - 1))
        edges.append((u, v, draw(st.integers(1, max_weight))))
    extra = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1),
                                    st.integers(1, max_weight)), max_size=n))
    edges += [e for e in extra if e[0] != e[1]]
    return from_graph(edges, nodes=range(n))


def line_metrics(min_n: int = 2, max_n: int = MAX_POINTS) -> st.SearchStrategy[FiniteMetric]:
    """``line(n)``: the points 0..n−1 with |i − j| (Toeplitz; z > 0 at every ε)."""
    return st.integers(min_n, max_n).map(line)


def cycle_metrics(min_n: int = 3, max_n: int = MAX_POINTS) -> st.SearchStrategy[FiniteMetric]:
    """``cycle(n)``: the shortest-path metric of the n-cycle (ball-size symmetric)."""
    return st.integers(min_n, max_n).map(cycle)


def discrete_metrics(min_n: int = 2, max_n: int = MAX_POINTS) -> st.SearchStrategy[FiniteMetric]:
    """``discrete(n, d)``: every distance d (a small positive integer)."""
    return st.builds(discrete, st.integers(min_n, max_n), st.integers(1, 3))


@st.composite
def star_metrics(draw: st.DrawFn, min_leaves: int = 2, max_leaves: int = MAX_POINTS - 1,
                 max_weight: int = 3) -> FiniteMetric:
    """Weighted stars: a centre 0 and leaves at integer distances w_i, d(i, j) = w_i + w_j.

    The unweighted star with 3 leaves has ε* = ln 2 for tight constraints.
    """
    k = draw(st.integers(min_leaves, max_leaves))
    w = draw(st.lists(st.integers(1, max_weight), min_size=k, max_size=k))
    return from_graph([(0, i + 1, wi) for i, wi in enumerate(w)], nodes=range(k + 1))


@st.composite
def grid_metrics(draw: st.DrawFn, max_side: int = 3, norms: tuple[str, ...] = ("manhattan",)) -> FiniteMetric:
    """Small ``grid(w, h, norm)`` metrics (w·h ≤ 12 by default; ``"euclidean"`` gives √ distances)."""
    w = draw(st.integers(1, max_side))
    h = draw(st.integers(2 if w == 1 else 1, max(1, min(max_side, MAX_POINTS // w))))
    return grid(w, h, norm=draw(st.sampled_from(norms)))


@st.composite
def matrix_metrics(draw: st.DrawFn, min_n: int = 2, max_n: int = 6, max_value: int = 4,
                   denominators: tuple[int, ...] = (1,), allow_sqrt: bool = False) -> FiniteMetric:
    """Explicit distance matrices with values in [1, max_value]·(1/den) (rational distances),
    or, with ``allow_sqrt``, some distances √r; triangle inequality enforced by taking the
    shortest-path closure of the drawn matrix (so every draw is a metric)."""
    n = draw(st.integers(min_n, max_n))
    den = draw(st.sampled_from(denominators))
    D = [[Fraction(0)] * n for _ in range(n)]
    for i in range(n):
        for j in range(i + 1, n):
            D[i][j] = D[j][i] = Fraction(draw(st.integers(den, max_value * den)), den)
    for k in range(n):  # Floyd–Warshall closure: the triangle inequality holds exactly
        for i in range(n):
            for j in range(n):
                if D[i][k] + D[k][j] < D[i][j]:
                    D[i][j] = D[i][k] + D[k][j]
    if not allow_sqrt or not draw(st.booleans()):
        return from_matrix(D)
    # √ distances: the metric √d of a metric d is again a metric (snowflake)
    return from_matrix([[f"sqrt({v})" if v else 0 for v in row] for row in D])


def metrics(max_n: int = MAX_POINTS, rational_only: bool = True) -> st.SearchStrategy[FiniteMetric]:
    """Any of the metric strategies above (integer distances unless ``rational_only=False``,
    which adds rational and √ distances and Euclidean grids)."""
    parts = [line_metrics(max_n=max_n), cycle_metrics(max_n=max(3, max_n)),
             discrete_metrics(max_n=max_n), star_metrics(max_leaves=max(2, max_n - 1)),
             graph_metrics(max_nodes=min(7, max_n)), grid_metrics(),
             matrix_metrics(max_n=min(6, max_n))]
    if not rational_only:
        parts += [matrix_metrics(max_n=min(6, max_n), denominators=(1, 2, 3), allow_sqrt=True),
                  grid_metrics(norms=("euclidean", "chebyshev"))]
    return st.one_of(*parts)


@st.composite
def priors(draw: st.DrawFn, n: int, allow_zeros: bool = True) -> tuple[Fraction, ...]:
    """Exact probability vectors of length n (entries k/Σk with small integers k; zeros allowed)."""
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


def rational_eps(max_denominator: int = 20, max_value: int = 4) -> st.SearchStrategy[Fraction]:
    """Rational ε in (0, max_value] (then t = e^-ε is transcendental)."""
    return st.fractions(min_value=Fraction(1, max_denominator), max_value=max_value,
                        max_denominator=max_denominator)


def levels(max_denominator: int = 20) -> st.SearchStrategy[PrivacyLevel]:
    """Privacy levels given by a rational t or by a rational ε (both kinds)."""
    return st.one_of(rational_t(max_denominator).map(lambda t: parse_level(t=t)),
                     rational_eps(max_denominator).map(lambda e: parse_level(eps=e)))


def euclidean_grids(max_side: int = 3) -> st.SearchStrategy[FiniteMetric]:
    """Small w×h grids under the Euclidean norm (√ distances; w·h ≤ 12 by default).

    >>> from hypothesis import given
    >>> @given(euclidean_grids())
    ... def check(m):
    ...     assert "euclidean" in m.name and m.n >= 2
    >>> check()
    """
    return grid_metrics(max_side=max_side, norms=("euclidean",))


def manhattan_grids(max_side: int = 3) -> st.SearchStrategy[FiniteMetric]:
    """Small w×h grids under the Manhattan norm (integer distances).

    >>> from hypothesis import given
    >>> @given(manhattan_grids())
    ... def check(m):
    ...     assert "manhattan" in m.name
    >>> check()
    """
    return grid_metrics(max_side=max_side, norms=("manhattan",))


def distance_matrices(min_n: int = 2, max_n: int = 6, max_value: int = 4,
                      denominators: tuple[int, ...] = (1, 2, 3)) -> st.SearchStrategy[FiniteMetric]:
    """Random valid distance matrices with rational entries (symmetric, zero diagonal,
    positive off the diagonal, triangle inequality by shortest-path closure).

    >>> from hypothesis import given
    >>> @given(distance_matrices(max_n=4))
    ... def check(m):
    ...     D = m.distance_matrix_float()
    ...     assert all(D[i][j] <= D[i][k] + D[k][j] + 1e-12
    ...                for i in range(m.n) for j in range(m.n) for k in range(m.n))
    >>> check()
    """
    return matrix_metrics(min_n=min_n, max_n=max_n, max_value=max_value, denominators=denominators)


@st.composite
def point_metrics(draw: st.DrawFn, min_n: int = 2, max_n: int = 6, dim: int = 2,
                  norm: str = "manhattan", max_abs: int = 3, max_denominator: int = 2) -> FiniteMetric:
    """Distinct points with rational coordinates under the ``"manhattan"``, ``"chebyshev"``
    (rational distances) or ``"euclidean"`` norm (distances √r, r rational).

    >>> from hypothesis import given
    >>> @given(point_metrics(norm="euclidean", max_n=3))
    ... def check(m):
    ...     assert 2 <= m.n <= 3
    >>> check()
    """
    coord = st.fractions(min_value=-max_abs, max_value=max_abs, max_denominator=max_denominator)
    pts = draw(st.lists(st.tuples(*[coord] * dim), min_size=min_n, max_size=max_n, unique=True))
    rows: list[list[object]] = []
    for p in pts:
        row: list[object] = []
        for q in pts:
            diffs = [abs(a - b) for a, b in zip(p, q)]
            if norm == "manhattan":
                row.append(sum(diffs, Fraction(0)))
            elif norm == "chebyshev":
                row.append(max(diffs))
            elif norm == "euclidean":
                r = sum((d * d for d in diffs), Fraction(0))
                row.append(f"sqrt({r})" if r else 0)
            else:
                raise InvalidArgument(f"Got norm={norm!r}; use 'manhattan', 'chebyshev' or 'euclidean'.")
        rows.append(row)
    return from_matrix(rows)


def ln_rational_levels(max_value: int = 8) -> st.SearchStrategy[PrivacyLevel]:
    """Levels ε = ln(r) for rational r > 1 (so t = 1/r is rational).

    >>> from hypothesis import given
    >>> @given(ln_rational_levels())
    ... def check(level):
    ...     assert level.t is not None and 0 < level.t < 1
    >>> check()
    """
    r = st.fractions(min_value=Fraction(11, 10), max_value=max_value, max_denominator=10)
    return r.filter(lambda x: x > 1).map(lambda x: parse_level(eps=f"ln({x})"))


def _phi_rows(metric: FiniteMetric, t: Fraction) -> list[list[Fraction]]:
    """Φ(t) exactly (integer distances)."""
    q, k = exponent_matrix(metric)
    if q != 1:
        raise InvalidArgument(f"Got {metric.name} with non-integer distances; regular_priors needs "
                              "integer distances so that Φ(t) = t^d is rational (use a graph metric).")
    return [[t ** e for e in row] for row in k]


@st.composite
def regular_priors(draw: st.DrawFn, metric: FiniteMetric, t: Fraction) -> tuple[Fraction, ...]:
    """Priors that are regular at t (integer distances): π ∝ αΦ(t) with α ≥ 0, so
    α = πΦ⁻¹ ≥ 0 by construction (zeros of α allowed, π > 0).

    >>> from hypothesis import given
    >>> from exactdp.spaces.metrics import line
    >>> from exactdp.testing.oracle import holds_at_t
    >>> @given(regular_priors(line(3), Fraction(1, 2)))
    ... def check(p):
    ...     assert holds_at_t(line(3), p, Fraction(1, 2))
    >>> check()
    """
    Phi = _phi_rows(metric, Fraction(t))
    n = metric.n
    a = draw(st.lists(st.integers(0, 9), min_size=n, max_size=n).filter(lambda w: sum(w) > 0))
    pi = [sum((a[i] * Phi[i][j] for i in range(n)), Fraction(0)) for j in range(n)]
    total = sum(pi, Fraction(0))
    return tuple(v / total for v in pi)


@st.composite
def nonregular_priors(draw: st.DrawFn, metric: FiniteMetric, t: Fraction) -> tuple[Fraction, ...]:
    """Priors that are NOT regular at t (integer distances), checked exactly: a point mass
    (α has a negative entry whenever some other point is within reach) or a drawn prior with
    zeros rejected by the exact oracle.

    >>> from hypothesis import given
    >>> from exactdp.spaces.metrics import line
    >>> @given(nonregular_priors(line(3), Fraction(1, 2)))
    ... def check(p):
    ...     assert holds_at_t(line(3), p, Fraction(1, 2)) is False
    >>> check()
    """
    t = Fraction(t)
    n = metric.n
    if draw(st.booleans()):
        i = draw(st.integers(0, n - 1))
        p = tuple(Fraction(int(j == i)) for j in range(n))
    else:
        p = draw(priors(n).filter(lambda w: holds_at_t(metric, w, t) is False))
    if holds_at_t(metric, p, t) is not False:
        p = draw(priors(n).filter(lambda w: holds_at_t(metric, w, t) is False))
    return p
