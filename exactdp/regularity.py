"""Regular priors (Def. 4): π is regular iff αΦ = π for some α ≥ 0."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from exactdp.arithmetic.ball import MAX_PREC
from exactdp.arithmetic.interval import Interval
from exactdp.arithmetic.rationals import to_fraction
from exactdp.engine.certificates import Certificate
from exactdp.engine.core import EngineResult, FloatEstimate, float_solve, solve_nonnegative
from exactdp.errors import InvalidPrior
from exactdp.spaces.levels import PrivacyLevel, parse_level
from exactdp.spaces.metrics import FiniteMetric

__all__ = ["RegularityResult", "is_regular", "validate_prior", "uniform_prior"]


def validate_prior(metric: FiniteMetric, prior: Any) -> tuple[Fraction, ...]:
    """Read a prior exactly and check it is a distribution on the metric's points.

    ``prior`` is a sequence of n probabilities, or a mapping {point label: probability}
    (missing labels get 0). Entries are read exactly (floats with a warning).

    >>> from exactdp.spaces.metrics import line
    >>> validate_prior(line(2), ["1/3", "2/3"])
    (Fraction(1, 3), Fraction(2, 3))
    >>> validate_prior(line(2), [Fraction(1, 2), Fraction(1, 3)])
    Traceback (most recent call last):
    ...
    exactdp.errors.InvalidPrior: prior sums to 5/6, not 1 (difference -1/6); pass exact Fractions that sum to 1.
    """
    if isinstance(prior, Mapping):
        labels = {p: i for i, p in enumerate(metric.points)}
        values = [Fraction(0)] * metric.n
        for key, v in prior.items():
            if key not in labels:
                raise InvalidPrior(f"prior names {key!r}, which is not a point of {metric.name}.")
            values[labels[key]] = to_fraction(v, f"prior[{key!r}]")
    else:
        if isinstance(prior, (str, bytes)) or not isinstance(prior, Sequence) and not hasattr(
            prior, "__len__"
        ):
            raise InvalidPrior(f"Got prior={prior!r}; pass a sequence of {metric.n} probabilities.")
        seq = list(prior)
        if len(seq) != metric.n:
            raise InvalidPrior(
                f"prior has {len(seq)} entries but {metric.name} has {metric.n} points."
            )
        values = [to_fraction(v, f"prior[{i}]") for i, v in enumerate(seq)]
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


def uniform_prior(metric: FiniteMetric) -> tuple[Fraction, ...]:
    """The uniform prior 1/n on every point."""
    return tuple(Fraction(1, metric.n) for _ in range(metric.n))


@dataclass(frozen=True)
class RegularityResult:
    """Whether ``prior`` is regular at this level, certified.

    Attributes
    ----------
    regular : bool
        Certified: αΦ = π has a solution α ≥ 0.
    alpha : tuple of Fraction, tuple of Interval, or None
        The (unique, when Φ is invertible) α: exact when s is rational, else rigorous
        enclosures; None only when Φ is singular and π is not regular.
    certificate : Certificate
    method : str
    """

    metric: FiniteMetric = field(repr=False)
    level: PrivacyLevel
    prior: tuple[Fraction, ...] = field(repr=False)
    regular: bool
    certificate: Certificate = field(repr=False)
    method: str
    engine: EngineResult = field(repr=False)

    @property
    def alpha(self) -> tuple[Fraction, ...] | tuple[Interval, ...] | None:
        if self.engine.x_exact is not None:
            return self.engine.x_exact
        if self.engine.x_enclosure is not None:
            return tuple(Interval(lo, hi) for lo, hi in self.engine.x_enclosure)
        return None


def is_regular(
    metric: FiniteMetric,
    prior: Any,
    eps: Any = None,
    t: Any = None,
    *,
    method: str = "auto",
    max_prec: int = MAX_PREC,
) -> RegularityResult | FloatEstimate:
    """Decide whether ``prior`` is ε·d0-regular on ``metric`` (αΦ = π with α ≥ 0).

    Examples
    --------
    >>> from exactdp.spaces.metrics import line
    >>> r = is_regular(line(3), ["1/3", "1/3", "1/3"], t="1/2")
    >>> r.regular, r.alpha, r.certificate.verify()
    (True, (Fraction(2, 9), Fraction(1, 9), Fraction(2, 9)), True)
    >>> is_regular(line(3), [1, 0, 0], t="1/2").regular
    False
    """
    pi = validate_prior(metric, prior)
    level = parse_level(eps=eps, t=t)
    if method == "float":
        return float_solve(metric, level, pi)
    res = solve_nonnegative(metric, level, pi, method=method, max_prec=max_prec)
    return RegularityResult(metric, level, pi, res.holds, res.certificate, res.method, res)
