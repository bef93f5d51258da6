"""Priors on a metric's points: the one reader every question uses.

Examples
--------
>>> from exactdp.spaces.metrics import line
>>> read_prior(line(2), ["1/3", "2/3"])
(Fraction(1, 3), Fraction(2, 3))
>>> read_prior(line(2), "uniform")
(Fraction(1, 2), Fraction(1, 2))
>>> read_prior(line(2), {0: 1})
(Fraction(1, 1), Fraction(0, 1))
>>> read_prior(line(2), [Fraction(1, 2), Fraction(1, 3)])
Traceback (most recent call last):
...
exactdp.errors.InvalidPrior: prior sums to 5/6, not 1 (difference -1/6); pass exact Fractions that sum to 1.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from exactdp.arithmetic.rationals import to_fraction
from exactdp.errors import InvalidArgument, InvalidPrior
from exactdp.spaces.metrics import FiniteMetric

__all__ = ["read_prior", "read_prior_values", "uniform_prior"]


def uniform_prior(metric: FiniteMetric) -> tuple[Fraction, ...]:
    """The uniform prior 1/n on every point."""
    return tuple(Fraction(1, metric.n) for _ in range(metric.n))


def read_prior(metric: FiniteMetric, prior: Any) -> tuple[Fraction, ...]:
    """Read a prior exactly and check it is a distribution on the metric's points.

    ``prior`` is ``"uniform"``, a sequence of n probabilities, or a mapping
    {point label: probability} (missing labels get 0). Entries are read exactly (floats
    with a warning).
    """
    if isinstance(prior, Mapping):
        labels = {p: i for i, p in enumerate(metric.points)}
        values = [Fraction(0)] * metric.n
        for key, v in prior.items():
            try:
                known = key in labels
            except TypeError:
                known = False
            if not known:
                raise InvalidPrior(f"prior names {key!r}, which is not a point of {metric.name}.")
            values[labels[key]] = _entry(v, f"prior[{key!r}]")
        return _checked(values)
    return read_prior_values(prior, metric.n, f"{metric.name} has {metric.n} points")


def read_prior_values(prior: Any, n: int, what: str = "") -> tuple[Fraction, ...]:
    """Read ``"uniform"`` or a sequence of n probabilities (the mechanism's inputs, say).

    >>> read_prior_values(["1/2", "1/2", 0], 2)
    Traceback (most recent call last):
    ...
    exactdp.errors.InvalidPrior: prior has 3 entries but it needs 2 (one per point).
    """
    if isinstance(prior, str) and prior == "uniform":
        return tuple([Fraction(1, n)] * n)
    if prior is None or isinstance(prior, (str, bytes)) or not hasattr(prior, "__len__"):
        raise InvalidPrior(f"Got prior={prior!r}; pass \"uniform\" or a sequence of {n} probabilities.")
    seq = list(prior)
    if len(seq) != n:
        raise InvalidPrior(f"prior has {len(seq)} entries but {what or f'it needs {n} (one per point)'}.")
    return _checked([_entry(v, f"prior[{i}]") for i, v in enumerate(seq)])


def _entry(v: Any, name: str) -> Fraction:
    try:
        return to_fraction(v, name)
    except InvalidArgument as exc:
        raise InvalidPrior(str(exc)) from exc


def _checked(values: list[Fraction]) -> tuple[Fraction, ...]:
    for i, v in enumerate(values):
        if v < 0:
            raise InvalidPrior(f"prior[{i}] = {v} is negative; probabilities must be ≥ 0.")
    total = sum(values, Fraction(0))
    if total != 1:
        raise InvalidPrior(
            f"prior sums to {total}, not 1 (difference {total - 1}); pass exact Fractions "
            "that sum to 1."
        )
    return tuple(values)
