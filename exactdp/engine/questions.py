"""Building questions on the search side: canonical metrics and user-style arguments.

The kernel (:mod:`exactdp.kernel.question`) only reads and checks questions
(:meth:`~exactdp.kernel.question.Question.bind` checks every part); turning a library
metric into its canonical form — rebuilt by its library constructor, or from its
distances with *no* structure metadata, so metadata set by hand never reaches a
certificate — and reading user-style arguments happen here.

Examples
--------
>>> from exactdp.kernel.jsonio import dumps, loads
>>> from exactdp.spaces.metrics import line
>>> q = question_of(line(3), "regular", prior="uniform", t="1/2")
>>> q.level.t, q.rhs
(Fraction(1, 2), (Fraction(1, 3), Fraction(1, 3), Fraction(1, 3)))
>>> back = Question.from_json(loads(dumps(q.to_json())))
>>> same_question(back, q), back.metric.toeplitz
(True, True)
>>> question_of(line(3), "regular", prior=["1/2", "1/2", "1/2"], t="1/2")
Traceback (most recent call last):
...
exactdp.errors.InvalidPrior: prior sums to 3/2, not 1 (difference 1/2); ...
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from exactdp.errors import ExactDPError, InvalidArgument, InvalidMetric
from exactdp.kernel.axioms import metric_from_distances
from exactdp.kernel.jsonio import dumps, write_rational
from exactdp.kernel.metricio import (
    CONSTRUCTORS,
    NORMS,
    build_builtin,
    distinct_distances,
    fingerprint,
    portable_labels,
)
from exactdp.kernel.question import ALL_EPS, ONES, SHAPES, EpsRange, Property, Question, Rhs, as_property
from exactdp.spaces.levels import PrivacyLevel, parse_level
from exactdp.spaces.metrics import FiniteMetric
from exactdp.spaces.priors import read_prior

__all__ = ["canonical_metric", "make_question", "question_of", "same_question"]

# the prefix of FiniteMetric.name that each constructor writes
_NAME_PREFIX = {**{k: k for k in CONSTRUCTORS if k != "from_graph"}, "graph": "from_graph"}


def _builtin_params(metric: FiniteMetric) -> tuple[str, dict[str, Any]] | None:
    """(constructor, JSON params) that the metric's name and params claim, or None."""
    if not isinstance(metric.name, str) or not isinstance(metric.params, dict):
        return None
    ctor = _NAME_PREFIX.get(metric.name.split("(", 1)[0])
    if ctor is None:
        return None
    p = metric.params
    if ctor == "from_graph":
        if set(p) != {"edges"}:
            return None
        nodes = portable_labels(metric.points)
        edges = []
        for e in p["edges"]:
            if not (isinstance(e, tuple) and len(e) == 3 and isinstance(e[2], str)):
                return None
            ends = portable_labels(e[:2])
            if ends is None:
                return None
            edges.append([*ends, e[2]])
        return None if nodes is None else (ctor, {"nodes": nodes, "edges": edges})
    kinds = CONSTRUCTORS[ctor][1]
    if set(p) != set(kinds):
        return None
    out: dict[str, Any] = {}
    for key, kind in kinds.items():
        v = p[key]
        if kind == "int" and not isinstance(v, bool) and isinstance(v, int):
            out[key] = v
        elif kind == "rational" and isinstance(v, (int, Fraction)) and not isinstance(v, bool):
            out[key] = write_rational(v)
        elif kind == "norm" and v in NORMS:
            out[key] = v
        elif kind == "labels" and isinstance(v, list) and (labels := portable_labels(v)) is not None:
            out[key] = labels
        else:
            return None
    return ctor, out


def canonical_metric(metric: FiniteMetric) -> tuple[FiniteMetric, tuple[str, str] | None, str]:
    """The metric rebuilt so that its structure metadata comes only from the library.

    Returns ``(canonical, spec, fingerprint)``: when the metric's name and params name a
    library constructor and that constructor rebuilds the same distances in the same order,
    ``canonical`` is the rebuilt metric and ``spec`` is ``(constructor, params text)``;
    otherwise ``canonical`` is built from its distinct distances by
    :func:`~exactdp.kernel.axioms.metric_from_distances` (axioms checked exactly, no
    structure metadata) and ``spec`` is None. Either way the fingerprint is unchanged.

    >>> import numpy as np
    >>> from exactdp.spaces.distances import Distance
    >>> from exactdp.spaces.metrics import hamming
    >>> star = FiniteMetric("hamming(2, 2)", range(4), [Distance.rational(k) for k in range(3)],
    ...                     np.array([[0, 1, 1, 1], [1, 0, 2, 2], [1, 2, 0, 2], [1, 2, 2, 0]]),
    ...                     params={"values": [0, 1], "individuals": 2})
    >>> m, spec, fp = canonical_metric(star)   # a built-in's name on other distances
    >>> spec is None, fingerprint(m) == fp == fingerprint(star), fp == fingerprint(hamming(2, 2))
    (True, True, False)
    """
    fp = fingerprint(metric)
    claimed = _builtin_params(metric)
    if claimed is not None:
        ctor, params = claimed
        try:
            rebuilt = build_builtin(ctor, params, metric.n)
            if fingerprint(rebuilt) == fp:
                return rebuilt, (ctor, dumps(params)), fp
        except ExactDPError:
            pass  # not what the library builds: fall back to the distances
    values, idx = distinct_distances(metric)
    points = list(metric.points) if portable_labels(metric.points) is not None else None
    return metric_from_distances(values, idx, points), None, fp


def make_question(metric: FiniteMetric, prop: Property | str, rhs: Any = None, level: Any = None,
                  mechanism: Any = None) -> Question:
    """A checked question on the canonical form of ``metric`` (:func:`canonical_metric`;
    cost O(n²) for the fingerprint, plus O(n³) for a metric kept as distances).

    >>> from exactdp.spaces.metrics import line
    >>> make_question(line(2), "tight-constraints", ONES, parse_level(t="1/2")).builtin
    ('line', '{"n":2}')
    """
    if not isinstance(metric, FiniteMetric):
        raise InvalidMetric(f"Got metric={metric!r}; pass a FiniteMetric such as line(5) or "
                            "from_matrix([[0, 1], [1, 0]]).")
    return Question.bind(*canonical_metric(metric), prop, rhs, level, mechanism)


def question_of(metric: FiniteMetric, prop: Property | str, *, prior: Any = None,
                eps: Any = None, t: Any = None, eps_range: tuple[Any, Any] | None = None,
                mechanism: Sequence[Sequence[Any]] | None = None) -> Question:
    """Build from user-style arguments: ``prior`` as :func:`~exactdp.spaces.priors.read_prior`
    takes it, the level as ``eps=``/``t=`` (:func:`~exactdp.spaces.levels.parse_level`)
    or ``eps_range=(lo, hi)``; the right-hand side ``"ones"`` is filled in.

    >>> from exactdp.spaces.metrics import line
    >>> question_of(line(2), "threshold-tight").level == ALL_EPS
    True
    """
    if not isinstance(metric, FiniteMetric):
        raise InvalidMetric(f"Got metric={metric!r}; pass a FiniteMetric such as line(5) or "
                            "from_matrix([[0, 1], [1, 0]]).")
    p = as_property(prop)
    rhs_kind, level_kind, _ = SHAPES[p]
    if prior is not None and rhs_kind not in ("prior", "vector"):
        raise InvalidArgument(f"Got prior={prior!r} for {p.value!r}, which takes no prior.")
    if rhs_kind == "vector" and prior is not None and not isinstance(prior, str):
        prior = tuple(prior)  # an iterator is read once
    rhs: Rhs = ONES if rhs_kind == "ones" else (
        read_prior(metric, prior) if rhs_kind == "prior" and prior is not None else prior)
    level: PrivacyLevel | EpsRange | None = None
    if eps is not None or t is not None:
        level = parse_level(eps=eps, t=t)
    elif eps_range is not None:
        level = EpsRange(*eps_range)
    elif level_kind == "range":
        level = ALL_EPS
    return make_question(metric, p, rhs, level, mechanism)


def same_question(a: Question, b: object) -> bool:
    """Exact equality of fingerprint, property, right-hand side, level and mechanism.

    >>> from exactdp.spaces.metrics import line, from_matrix
    >>> a = question_of(line(2), "tight-constraints", t="1/2")
    >>> same_question(a, question_of(from_matrix([[0, 1], [1, 0]]), "tight-constraints", t="1/2"))
    True
    >>> same_question(a, question_of(line(2), "tight-constraints", t="1/3"))
    False
    """
    return isinstance(b, Question) and all(
        getattr(a, f) == getattr(b, f) for f in ("fingerprint", "prop", "rhs", "mechanism")
    ) and _level_key(a.level) == _level_key(b.level)


def _level_key(level: PrivacyLevel | EpsRange | None) -> tuple[Any, ...] | None:
    if isinstance(level, PrivacyLevel):
        return ("t", level.t) if level.t is not None else ("eps", str(level.eps))
    if isinstance(level, EpsRange):
        return ("range", level.lo, level.hi)
    return None
