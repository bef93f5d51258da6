"""Certify a concrete population: is X + Lap(θ) ε-Pufferfish private for a secret pair?

The other users' sum R has an exact finite law (``population.sum_distribution()``),
so under the two secrets the query has laws R + D_P and R + D_Q and the release's
densities are Laplace mixtures; the supremum of the log-ratio over outputs is the
maximum over the support points of the two laws (``proofs/pufferfish_supremum.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy
from flint import arb

from exactdp.arithmetic.rationals import to_fraction
from exactdp.errors import CertificateInvalid, InvalidArgument, InvalidScale
from exactdp.pufferfish.calibration import (
    DEFAULT_TOL,
    ExactScale,
    _tol,
    _zero_noise,
    exact_scale,
    least_scale,
)
from exactdp.pufferfish.distributions import DiscreteDistribution, convolve
from exactdp.pufferfish.loss import Verdict, decide_loss, log_ratio_expr
from exactdp.pufferfish.population import Population
from exactdp.pufferfish.secrets import as_pair
from exactdp.spaces.levels import parse_level

__all__ = ["PopulationCertificate", "certify", "parse_scale"]


def parse_scale(theta: Any) -> Fraction:
    """Read a Laplace scale θ > 0 exactly."""
    try:
        value = to_fraction(theta, "theta")
    except InvalidArgument as exc:
        raise InvalidScale(f"Got theta={theta!r}; θ must be a finite rational > 0.") from exc
    if value <= 0:
        raise InvalidScale(
            f"Got theta={value}; the Laplace scale θ must be > 0 (θ = 0 means no noise)."
        )
    return value


@dataclass(frozen=True)
class PopulationCertificate:
    """Certified verdict for one population, pair, θ and ε.

    Attributes
    ----------
    verdict : Verdict
        PRIVATE or NOT_PRIVATE (certified).
    theta : Fraction
    eps : sympy.Expr
    worst_output : Fraction
        An output y where |ln f(y|s) − ln f(y|s')| is largest (a support point of the
        query's law; every y beyond the extreme points gives the same value).
    worst_log_ratio : arb
        Ball containing ln f(y|s) − ln f(y|s') at ``worst_output``.
    prec : int
        Bits that decided the verdict.
    tight : bool
        True when the loss equals ε exactly at some output (proved symbolically).
    population_theta : ExactScale or None
        The least θ for this population (certified bracket), when asked for.
    independent_theta : ExactScale or None
        The population-independent least θ (never smaller), when asked for.
    P_total, Q_total : DiscreteDistribution
        Laws of the query under the two secrets.
    """

    verdict: Verdict
    theta: Fraction
    eps: sympy.Expr
    worst_output: Fraction
    worst_log_ratio: arb
    prec: int
    tight: bool
    P_total: DiscreteDistribution
    Q_total: DiscreteDistribution
    population_theta: ExactScale | None = None
    independent_theta: ExactScale | None = None

    @property
    def private(self) -> bool:
        """True when the verdict is PRIVATE."""
        return self.verdict is Verdict.PRIVATE

    def exact_log_ratio(self) -> sympy.Expr:
        """ln f(y|s) − ln f(y|s') at the worst output, as an exact sympy expression."""
        return log_ratio_expr(self.P_total, self.Q_total, self.theta, self.worst_output)

    def verify(self) -> bool:
        """Re-decide with the independent O(m²) double sums and re-check the brackets."""
        level = parse_level(eps=self.eps)
        again = decide_loss(self.P_total, self.Q_total, self.theta, level, direct=True)
        ok = again.verdict is self.verdict
        for scale in (self.population_theta, self.independent_theta):
            if scale is not None:
                ok = ok and scale.verify()
        if self.population_theta is not None and self.independent_theta is not None:
            ok = ok and self.population_theta.lo <= self.independent_theta.hi
        return ok

    def to_json(self) -> dict[str, object]:
        """Exact JSON form (rationals as "p/q" strings; balls as strings)."""
        return {
            "verdict": self.verdict.value,
            "theta": str(self.theta),
            "eps": str(self.eps),
            "worst_output": str(self.worst_output),
            "worst_log_ratio": self.worst_log_ratio.str(20, radius=True),
            "prec": self.prec,
            "tight": self.tight,
            "population_theta": None
            if self.population_theta is None
            else self.population_theta.to_json(),
            "independent_theta": None
            if self.independent_theta is None
            else self.independent_theta.to_json(),
        }


def _population_scale(
    P: DiscreteDistribution, Q: DiscreteDistribution, eps: Any, tol: Fraction,
    upper: Fraction | None,
) -> ExactScale:
    level = parse_level(eps=eps)
    base = dict(P=P, Q=Q, eps=level.eps, tol=tol)
    if P == Q or _zero_noise(P, Q, level):
        return ExactScale(
            lo=Fraction(0), hi=Fraction(0), theta_expr=sympy.Integer(0), method="zero_noise",
            zero_noise=True, identical=P == Q, prec=0, **base,  # type: ignore[arg-type]
        )
    lo, hi, prec, worst = least_scale(P, Q, level, tol=tol, upper=upper)
    return ExactScale(
        lo=lo, hi=hi, theta_expr=None, method="root_finding", zero_noise=False,
        identical=False, prec=prec, verdict_lo=Verdict.NOT_PRIVATE,
        verdict_hi=Verdict.PRIVATE, worst_point_lo=worst, **base,  # type: ignore[arg-type]
    )


def certify(
    population: Population,
    pair: Any,
    theta: Any,
    eps: Any,
    *,
    least: bool = True,
    tol: Any = DEFAULT_TOL,
) -> PopulationCertificate:
    """Exact/certified verdict for the release X + Lap(θ) of a concrete population.

    ``population`` holds the *other* users (their values and presences ζ); the target
    user's contribution follows ``pair``. With ``least=True`` the certificate also
    carries the population-specific least θ and the population-independent one
    (:func:`~exactdp.pufferfish.calibration.exact_scale`); the first is never larger.
    Justified by ``proofs/pufferfish_supremum.py``.

    Examples
    --------
    >>> from exactdp.pufferfish.distributions import bernoulli
    >>> from exactdp.pufferfish.secrets import DistributionVsAbsent
    >>> pop = Population.bernoulli(["1/2"] * 3, presences=["9/10"] * 3)
    >>> c = certify(pop, DistributionVsAbsent(bernoulli("1/2")), 1, "ln(2)")
    >>> c.verdict, c.private
    (<Verdict.PRIVATE: 'private'>, True)
    >>> c.population_theta.lo < c.independent_theta.hi, c.verify()
    (True, True)
    """
    if not isinstance(population, Population):
        raise InvalidArgument(
            f"Got population={population!r}; pass a Population (the other users)."
        )
    pr = as_pair(pair)
    th = parse_scale(theta)
    level = parse_level(eps=eps)
    tolf = _tol(tol)
    rest = population.sum_distribution()
    P_total, Q_total = convolve(rest, pr.P), convolve(rest, pr.Q)
    decision = decide_loss(P_total, Q_total, th, level)
    pop_scale = ind_scale = None
    if least:
        ind_scale = exact_scale(pr, level, tol=tolf)
        upper = None if ind_scale.zero_noise else ind_scale.hi
        pop_scale = _population_scale(P_total, Q_total, level.eps, tolf, upper)
        if not ind_scale.zero_noise and pop_scale.lo > ind_scale.hi:
            raise CertificateInvalid(
                "population-specific θ exceeds the population-independent one (a bug)"
            )
    return PopulationCertificate(
        verdict=decision.verdict,
        theta=th,
        eps=level.eps,
        worst_output=decision.worst_point,
        worst_log_ratio=decision.worst_log_ratio,
        prec=decision.prec,
        tight=bool(decision.tight_points),
        P_total=P_total,
        Q_total=Q_total,
        population_theta=pop_scale,
        independent_theta=ind_scale,
    )
