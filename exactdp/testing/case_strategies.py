"""Hypothesis strategies of whole oracle cases, one per question (needs ``hypothesis``).

:func:`cases_for` gives the default cases of :func:`exactdp.testing.assert_matches_exact`: small
exact instances (at most ``max_points`` points, 8 by default, so that a shrunk failing case is
small) in the tuple shape that :mod:`exactdp.testing.questions` documents.

>>> from hypothesis import given
>>> from exactdp.testing.questions import read_question
>>> @given(cases_for("tight-constraints", max_points=4))
... def check(case):
...     metric, level = read_question("tight-constraints").read_case(case)
...     assert metric.n <= 4
>>> check()
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

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

__all__ = ["cases_for"]


def _small(strategy: st.SearchStrategy[Any], max_points: int) -> st.SearchStrategy[Any]:
    return strategy.filter(lambda m: m.n <= max_points)


@st.composite
def _metric_level(draw: st.DrawFn, max_points: int) -> tuple[Any, ...]:
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
