"""Hypothesis strategies of whole oracle cases, one per question (needs ``hypothesis``).

:func:`cases_for` gives the default cases of :func:`exactdp.testing.assert_matches_exact`: small
exact instances (at most ``max_points`` points, 8 by default, so that a shrunk failing case is
small) in the tuple shape that :mod:`exactdp.testing.questions` documents.

The verdict is what matters near thresholds, so a third of the tight-constraints and regularity
cases are *near-threshold* ones (:func:`near_threshold_cases`): unweighted stars with k leaves,
whose tight-constraints threshold is ε* = ln(k − 1), at ε = ln r with r a rational on either
side of k − 1, from far below (no z ≥ 0: the verdict *fails*) to 10⁻⁵ relative away; so a
backend that always answers "exists" is caught at the defaults. (By symmetry z has a centre
value c and a leaf value l; Φz = 1 gives l = 1/(1 + λ), c = (1 + λ − kλ)/(1 + λ), λ = e^{−ε},
so c ≥ 0 iff λ ≤ 1/(k − 1). The closed form only places the levels: every truth is still
computed by exactdp.)

>>> from hypothesis import given
>>> from exactdp.testing.questions import read_question
>>> @given(cases_for("tight-constraints", max_points=4))
... def check(case):
...     metric, level = read_question("tight-constraints").read_case(case)
...     assert metric.n <= 4
>>> check()
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from hypothesis import strategies as st

from exactdp.spaces.levels import parse_level
from exactdp.spaces.metrics import from_graph
from exactdp.testing.mechanism_strategies import mechanism_rows
from exactdp.testing.pufferfish_strategies import secret_pairs
from exactdp.testing.questions import read_question
from exactdp.testing.set_strategies import box_unions, point_sets
from exactdp.testing.strategies import (
    distance_matrices,
    grid_metrics,
    levels,
    ln_rational_levels,
    metrics,
    priors,
    rational_eps,
)

__all__ = ["cases_for", "near_threshold_cases", "star_graph"]


def _small(strategy: st.SearchStrategy[Any], max_points: int) -> st.SearchStrategy[Any]:
    return strategy.filter(lambda m: m.n <= max_points)


def star_graph(k: int) -> Any:
    """The unweighted star with k leaves (centre 0): ε* = ln(k − 1) for tight constraints.

    >>> star_graph(3).n
    4
    """
    return from_graph([(0, i + 1, 1) for i in range(k)], nodes=range(k + 1))


@st.composite
def near_threshold_cases(draw: st.DrawFn, max_points: int = 8) -> tuple[Any, ...]:
    """``(star with k leaves, ε = ln r)`` with r on either side of k − 1 = e^{ε*}: below it no
    z ≥ 0 exists (verdict fails), above it one does; |r/(k−1) − 1| ranges from 1/2 down to 10⁻⁵,
    including 5·10⁻⁶ and 2·10⁻⁶ (a verdict slack just above the default ``tol_level`` is caught).

    >>> from hypothesis import given
    >>> @given(near_threshold_cases(max_points=5))
    ... def check(case):
    ...     m, level = case
    ...     assert 4 <= m.n <= 5 and level.t is not None
    >>> check()
    """
    k = draw(st.integers(3, max(3, min(6, max_points - 1))))
    rel = Fraction(1, draw(st.sampled_from((2, 4, 10, 100, 10**3, 10**5, 2 * 10**5, 5 * 10**5))))
    sign = draw(st.sampled_from((-1, 1)))
    r = (k - 1) * (1 + sign * rel)
    if r <= 1:  # k = 3 far below (r = 1 would be ε = 0): take r = 3/2 instead
        r = Fraction(3, 2)
    return (star_graph(k), parse_level(eps=f"ln({r})"))


@st.composite
def _metric_level(draw: st.DrawFn, max_points: int) -> tuple[Any, ...]:
    if max_points >= 4 and draw(st.integers(0, 2)) == 0:
        return tuple(draw(near_threshold_cases(max_points)))
    m = draw(_small(st.one_of(metrics(max_n=max_points), grid_metrics(norms=("euclidean",), max_side=2)),
                    max_points))
    return (m, draw(st.one_of(levels(), ln_rational_levels())))


@st.composite
def _regularity(draw: st.DrawFn, max_points: int) -> tuple[Any, ...]:
    m, level = draw(_metric_level(max_points))
    return (m, draw(priors(m.n, allow_zeros=False)), level)


@st.composite
def _threshold(draw: st.DrawFn, max_points: int) -> tuple[Any, ...]:
    m = draw(_small(st.one_of(metrics(max_n=min(6, max_points)),
                              distance_matrices(max_n=min(5, max_points), denominators=(1,))),
                    min(6, max_points)))
    prior = draw(st.one_of(st.none(), priors(m.n, allow_zeros=False)))
    return (m, prior)


@st.composite
def _privacy(draw: st.DrawFn, max_points: int) -> tuple[Any, ...]:
    m = draw(_small(metrics(max_n=min(6, max_points)), min(6, max_points)))
    rows = draw(mechanism_rows(m.n, allow_zeros=draw(st.booleans())))
    return (rows, m, draw(st.one_of(st.none(), rational_eps(), ln_rational_levels())))


@st.composite
def _gain(draw: st.DrawFn, max_points: int) -> tuple[Any, ...]:
    n = draw(st.integers(2, max_points))
    rows = draw(mechanism_rows(n, outputs=draw(st.integers(1, max_points))))
    return (rows, draw(priors(n, allow_zeros=False)))


@st.composite
def _pufferfish(draw: st.DrawFn, max_points: int) -> tuple[Any, ...]:
    return (draw(secret_pairs(max_value=3)), draw(st.one_of(rational_eps(max_value=3), ln_rational_levels(4))))


@st.composite
def _sets(draw: st.DrawFn, max_points: int) -> tuple[Any, ...]:
    X = draw(point_sets(dim=1, max_size=min(4, max_points)))
    return (X, draw(box_unions(dim=1)), draw(rational_eps(max_value=3)))


_BUILDERS = {
    "tight-constraints": _metric_level, "regularity": _regularity, "threshold": _threshold,
    "privacy-level": _privacy, "utility": _gain, "min-entropy-leakage": _gain,
    "pufferfish-theta": _pufferfish, "set-capacity": _sets,
}


def cases_for(question: Any, max_points: int = 8) -> st.SearchStrategy[tuple[Any, ...]]:
    """Small exact cases of ``question`` (a name of
    :data:`~exactdp.testing.questions.QUESTION_NAMES`), at most ``max_points`` points.

    >>> from hypothesis import given
    >>> @given(cases_for("utility", max_points=3))
    ... def check(case):
    ...     rows, prior = case
    ...     assert len(rows) == len(prior) <= 3
    >>> check()
    """
    q = read_question(question)
    return _BUILDERS[q.name](max_points)
