"""Prop. 9: the tight-constraints mechanism of a ball-size-symmetric space, in closed form.

A metric space is *ball-size symmetric* when every point sees the same multiset of
distances: n_r = #{y' : d(y, y') = r} does not depend on y. Then every row of Φ has
the same sum Σ_r n_r e^{-εr}, so z = 1 / Σ_r n_r e^{-εr} (all entries equal, > 0)
solves Φz = 1 for **every** ε > 0, and the tight-constraints mechanism is

    h[y, y'] = e^{-ε d(y, y')} / Σ_r n_r e^{-ε r}.

The derivation (row sums, Φz = 1, row-stochasticity, the tight-constraint identity of
Def. 6 and ε-privacy) is checked symbolically in ``proofs/prop9_ball_symmetric.py``.

Examples
--------
>>> from exactdp.spaces.metrics import cycle
>>> from exactdp.spaces.levels import parse_level
>>> mech = ball_symmetric_mechanism(cycle(4), parse_level(t="1/2"))
>>> mech.h[0]
(Fraction(4, 9), Fraction(2, 9), Fraction(1, 9), Fraction(2, 9))
>>> mech.verify()
True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import sympy

from exactdp.algebra.phi import entry_values_exact, exact_parameter
from exactdp.errors import ExactnessRequired, InvalidArgument
from exactdp.kinds import Verdict, proved_by
from exactdp.spaces.levels import PrivacyLevel
from exactdp.spaces.metrics import FiniteMetric, read_metric

__all__ = [
    "BallSymmetricMechanism",
    "ball_symmetric_mechanism",
    "ball_symmetric_z_symbolic",
    "is_ball_size_symmetric",
]


def is_ball_size_symmetric(metric: FiniteMetric) -> bool:
    """Exact check of ball-size symmetry: every row of the distance index has the same counts.

    >>> from exactdp.spaces.metrics import line, hamming
    >>> is_ball_size_symmetric(line(3)), is_ball_size_symmetric(hamming(3, 2))
    (False, True)
    """
    return bool(read_metric(metric).ball_size_symmetric)


@dataclass(frozen=True)
class BallSymmetricMechanism:
    """The Prop. 9 mechanism at a level with rational s (exact entries).

    Attributes
    ----------
    h : tuple of tuple of Fraction
        h[y][y'] = e^{-ε d(y,y')} / Σ_r n_r e^{-εr}.
    z : Fraction
        The common diagonal value 1 / Σ_r n_r e^{-εr}.
    """

    metric: FiniteMetric = field(repr=False, compare=False)
    level: PrivacyLevel
    h: tuple[tuple[Fraction, ...], ...] = field(repr=False)
    z: Fraction

    @property
    def verdict(self) -> Verdict:
        """Always ``Verdict.HOLDS``: a tight-constraints mechanism exists (Prop. 9)."""
        return Verdict.HOLDS

    def verify(self) -> bool:
        """Re-check exactly: rows sum to 1, h[y,y'] = Φ[y,y'] h[y',y'] (Def. 6), Φz = 1."""
        vals = entry_values_exact(self.metric, self.level)
        idx = self.metric.index.tolist()
        n = self.metric.n
        for i in range(n):
            if sum(self.h[i], Fraction(0)) != 1:
                return False
            for j in range(n):
                if self.h[i][j] != vals[idx[i][j]] * self.h[j][j]:
                    return False
            if sum((vals[k] for k in idx[i]), Fraction(0)) * self.z != 1:
                return False
        return True


@proved_by("prop9_ball_symmetric")
def ball_symmetric_mechanism(metric: FiniteMetric, level: PrivacyLevel) -> BallSymmetricMechanism:
    """Prop. 9 closed form (proof: ``proofs/prop9_ball_symmetric.py``); needs rational s.

    Raises
    ------
    InvalidArgument
        If the metric is not ball-size symmetric.
    ExactnessRequired
        If s = e^{-ε/q} is not rational (use :func:`ball_symmetric_z_symbolic`).
    """
    metric = read_metric(metric)
    if not metric.ball_size_symmetric:
        raise InvalidArgument(
            f"{metric.name} is not ball-size symmetric (points see different distance "
            "multisets); Prop. 9 does not apply. Use exactdp.tight.tight_constraints."
        )
    if exact_parameter(metric, level) is None:
        raise ExactnessRequired(
            f"s = e^(-ε/q) is irrational at {level}; pass t= as a rational, or use "
            "ball_symmetric_z_symbolic for the closed form."
        )
    vals = entry_values_exact(metric, level)
    idx = metric.index.tolist()
    total = sum((vals[k] for k in idx[0]), Fraction(0))
    z = 1 / total
    h = tuple(tuple(vals[k] * z for k in row) for row in idx)
    return BallSymmetricMechanism(metric, level, h, z)


@proved_by("prop9_ball_symmetric")
def ball_symmetric_z_symbolic(metric: FiniteMetric) -> sympy.Expr:
    """z(ε) = 1 / Σ_r n_r e^{-ε r} as a sympy expression in ``eps`` (any ε > 0).

    Positive for every ε > 0, so a tight-constraints mechanism exists at every level
    (Prop. 9; ``proofs/prop9_ball_symmetric.py``).

    >>> from exactdp.spaces.metrics import hamming
    >>> ball_symmetric_z_symbolic(hamming(2, 2))
    1/(1 + 2*exp(-eps) + exp(-2*eps))
    """
    metric = read_metric(metric)
    if not metric.ball_size_symmetric:
        raise InvalidArgument(f"{metric.name} is not ball-size symmetric; Prop. 9 does not apply.")
    eps = sympy.Symbol("eps", positive=True)
    total = sympy.Integer(0)
    for r, count in metric.neighbours_counts().items():
        total += count * sympy.exp(-eps * r.to_sympy())
    return 1 / total
