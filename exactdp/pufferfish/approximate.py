"""(ε, δ) for Laplace noise: the least δ at a given θ, as a certified enclosure.

δ(θ) = max over the two directions of ∫ (g_P − e^ε g_Q)_+ with g_P the Laplace mixture
density; a point-mass rest is the worst population (``proofs/pufferfish_gaussian.py`` step
(1), which holds for any location noise). Enclosed by
:func:`exactdp.pufferfish.hockey.hockey_stick` (exact tails, Laplace CDF differences in arb).
δ = 0 exactly when the pure loss L(θ) ≤ ε.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy

from exactdp.arithmetic.ball import arb_to_fraction_interval, workprec
from exactdp.arithmetic.interval import Enclosure
from exactdp.arithmetic.validate import read_positive, read_tol
from exactdp.errors import REJECTED_ERRORS, InvalidScale
from exactdp.kinds import proved_by
from exactdp.pufferfish.distributions import DiscreteDistribution
from exactdp.pufferfish.gaussian import delta_width_ok
from exactdp.pufferfish.hockey import LAPLACE, hockey_stick
from exactdp.pufferfish.loss import decide_loss
from exactdp.pufferfish.secrets import pair_laws
from exactdp.spaces.levels import parse_level

__all__ = ["LaplaceDelta", "laplace_delta"]


@dataclass(frozen=True)
class LaplaceDelta:
    """Certified enclosure of the least δ with (ε, δ)-privacy of X + Lap(θ), every population."""

    P: DiscreteDistribution
    Q: DiscreteDistribution
    theta: Fraction
    eps: sympy.Expr
    delta: Enclosure
    pure: bool  # L(θ) ≤ ε certified, so δ = 0 exactly
    prec: int
    rel_tol: Fraction = Fraction(1, 10**6)

    def verify(self) -> bool:
        """Recompute at twice the precision with finer root pieces; the enclosures overlap."""
        try:
            again = laplace_delta((self.P, self.Q), self.theta, self.eps, prec=2 * self.prec,
                                  rel_tol=Fraction(1, 10**8))
            if self.pure:
                return again.pure and self.delta.lo == self.delta.hi == 0
            return again.pure is False and not (
                again.delta.hi < self.delta.lo or self.delta.hi < again.delta.lo
            ) and delta_width_ok(self.delta, again.delta, self.rel_tol)
        except REJECTED_ERRORS:
            return False


@proved_by("pufferfish_gaussian")
def laplace_delta(pair: Any, theta: Any, eps: Any, *, prec: int = 128,
                  rel_tol: Any = Fraction(1, 10**6)) -> LaplaceDelta:
    """δ(θ) for X + Lap(θ) at level ε (``proofs/pufferfish_gaussian.py`` (1): point-mass rest).

    >>> from exactdp.pufferfish.secrets import ValuePair
    >>> r = laplace_delta(ValuePair(1, 0), 1, "1/2")   # 1 − e^{(ε − Δ/θ)/2} = 1 − e^{−1/4}
    >>> float(r.delta.lo) <= 0.22119921693 <= float(r.delta.hi), r.verify()
    (True, True)
    """
    P, Q = pair_laws(pair)
    th = read_positive(theta, "theta (the Laplace scale θ)", InvalidScale)
    level = parse_level(eps=eps)
    if decide_loss(P, Q, th, level).private:
        return LaplaceDelta(P, Q, th, level.eps, Enclosure(Fraction(0), Fraction(0)), True, prec)
    tol = read_tol(rel_tol, "rel_tol", below_one=True)
    width = th / 2**20
    while True:
        with workprec(prec):
            lo1, hi1 = hockey_stick(P, Q, LAPLACE, th, level, width)
            lo2, hi2 = hockey_stick(Q, P, LAPLACE, th, level, width)
            lo = max(arb_to_fraction_interval(lo1.max(lo2))[0], Fraction(0))
            hi = arb_to_fraction_interval(hi1.max(hi2))[1]
        if hi - lo <= tol * max(lo, Fraction(1, 10**30)) or width < th / 2**60:
            return LaplaceDelta(P, Q, th, level.eps, Enclosure(lo, hi), False, prec, tol)
        width /= 2**8
