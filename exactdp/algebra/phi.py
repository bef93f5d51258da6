"""The privacy-constraints matrix Φ[i, j] = e^{-ε d(i, j)} in four arithmetics.

Each builder evaluates e^{-ε d} once per *distinct* distance and indexes, so the
cost is dominated by the n² index lookup, not by the arithmetic.

* :func:`phi_exact` — ``flint.fmpq_mat`` when t (or s = e^{-ε/q}) is rational;
* :func:`phi_ball` — ``flint.arb_mat`` at the current precision, any real ε,
  transcendental Euclidean case included;
* :func:`phi_enclosure` — float64 midpoint and rigorous radius (for verified float
  linear algebra);
* :func:`phi_float` — plain float64, uncertified;
* :func:`phi_symbolic` — sympy matrix of monomials in s (polynomial case).
"""

from __future__ import annotations

from fractions import Fraction

import flint
import numpy as np
import sympy
from flint import arb

from exactdp.arithmetic.rationals import to_fmpq
from exactdp.arithmetic.rounding import succ
from exactdp.errors import ExactnessRequired
from exactdp.spaces.levels import PrivacyLevel
from exactdp.spaces.metrics import FiniteMetric

__all__ = [
    "exact_parameter",
    "entry_values_exact",
    "entry_values_ball",
    "phi_exact",
    "phi_ball",
    "phi_float",
    "phi_enclosure",
    "phi_symbolic",
]


def exact_parameter(metric: FiniteMetric, level: PrivacyLevel) -> Fraction | None:
    """s = e^{-ε/q} when the polynomial case applies and s is rational, else None.

    >>> from exactdp.spaces.metrics import line, discrete
    >>> from exactdp.spaces.levels import parse_level
    >>> exact_parameter(line(3), parse_level(t="1/2"))
    Fraction(1, 2)
    >>> exact_parameter(discrete(3, "1/2"), parse_level(t="1/4"))
    Fraction(1, 2)
    """
    q = metric.q
    if q is None:
        return None
    return level.s_rational(q)


def entry_values_exact(metric: FiniteMetric, level: PrivacyLevel) -> list[Fraction]:
    """Exact e^{-ε d} for each distinct distance of the metric (needs rational s)."""
    s = exact_parameter(metric, level)
    if s is None:
        raise ExactnessRequired(
            f"Φ of {metric.name} at {level} is not a rational matrix (s = e^(-ε/q) is "
            "irrational); pass t= as a rational whose q-th root is rational, or use the "
            "ball backend."
        )
    return [s**k for k in metric.exponents]


def entry_values_ball(metric: FiniteMetric, level: PrivacyLevel) -> list[arb]:
    """Balls enclosing e^{-ε d} for each distinct distance, at the current precision."""
    if metric.q is not None:
        s = level.s_ball(metric.q)
        return [s**k for k in metric.exponents]
    eps = level.eps_ball()
    return [(-eps * v.ball()).exp() for v in metric.values]


def phi_exact(metric: FiniteMetric, level: PrivacyLevel) -> flint.fmpq_mat:
    """Φ as an exact ``fmpq_mat``.

    >>> from exactdp.spaces.metrics import line
    >>> from exactdp.spaces.levels import parse_level
    >>> print(phi_exact(line(3), parse_level(t="1/2")))
    [  1, 1/2, 1/4]
    [1/2,   1, 1/2]
    [1/4, 1/2,   1]
    """
    vals = [to_fmpq(v) for v in entry_values_exact(metric, level)]
    idx = metric.index.tolist()
    return flint.fmpq_mat([[vals[k] for k in row] for row in idx])


def phi_ball(metric: FiniteMetric, level: PrivacyLevel) -> flint.arb_mat:
    """Φ as an ``arb_mat`` at the current flint precision (use ``workprec``)."""
    vals = entry_values_ball(metric, level)
    idx = metric.index.tolist()
    return flint.arb_mat([[vals[k] for k in row] for row in idx])


def phi_float(metric: FiniteMetric, level: PrivacyLevel) -> np.ndarray:
    """Φ in float64 — uncertified (rounding not tracked)."""
    eps = level.eps_float()
    d = np.array([float(v) for v in metric.values])
    return np.exp(-eps * d)[metric.index]


def phi_enclosure(metric: FiniteMetric, level: PrivacyLevel) -> tuple[np.ndarray, np.ndarray]:
    """Float64 midpoint matrix M and radius matrix E with |Φ − M| ≤ E entrywise, rigorously.

    Built from 128-bit balls of the distinct entries; each ball is rounded to a double
    and the conversion error is added to the radius (then rounded up).

    Sound for every entry e^{-εd} ∈ (0, 1] (no overflow possible): the error bound is an
    arb upper bound, its float conversion errs by less than one spacing (faithful), and
    ``succ`` adds one spacing; an entry or error below the double range converts to 0 or a
    subnormal and ``succ`` still returns a float above it (the smallest subnormal at
    least), so underflow widens the radius, never hides the entry. The consumer,
    :func:`~exactdp.linalg.verified.verified_solve`, refuses when subnormals are flushed.
    """
    with flint.ctx.workprec(128):
        vals = entry_values_ball(metric, level)
        mids = np.empty(len(vals))
        rads = np.empty(len(vals))
        for k, v in enumerate(vals):
            m = float(v.mid())
            # |v - m| ≤ |mid(v) - m| + rad(v), evaluated in arb then rounded up
            err = abs(v.mid() - arb(m)) + v.rad()
            mids[k] = m
            rads[k] = succ(float(err.upper()))
    return mids[metric.index], rads[metric.index]


def phi_symbolic(metric: FiniteMetric, s: sympy.Symbol | None = None) -> sympy.Matrix:
    """Φ(s) as a sympy matrix of monomials s^k (polynomial case; small n only).

    >>> from exactdp.spaces.metrics import line
    >>> phi_symbolic(line(2))
    Matrix([
    [1, s],
    [s, 1]])
    """
    s = s if s is not None else sympy.Symbol("s", positive=True)
    ks = metric.exponents
    return sympy.Matrix([[s ** ks[k] for k in row] for row in metric.index.tolist()])
