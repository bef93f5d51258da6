"""Certify a concrete population: is X + Lap(θ) ε-Pufferfish private for a secret pair?

The other users' sum R has an exact finite law (``population.sum_distribution()``),
so under the two secrets the query has laws R + D_P and R + D_Q and the release's
densities are Laplace mixtures; the supremum of the log-ratio over outputs is the
maximum over the support points of the two laws (``proofs/pufferfish_supremum.py``).

The verdict is :class:`exactdp.kinds.Verdict`: ``HOLDS`` = private, ``FAILS`` = not private.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy
from flint import arb

from exactdp.arithmetic.ball import arb_to_fraction_interval, workprec
from exactdp.arithmetic.validate import read_positive, read_tol
from exactdp.errors import REJECTED_ERRORS, CertificateInvalid, InvalidArgument, InvalidScale
from exactdp.kinds import Verdict, proved_by
from exactdp.pufferfish.calibration import (
    DEFAULT_TOL,
    ExactScale,
    exact_scale,
    root_finding_scale,
    zero_noise_scale,
)
from exactdp.pufferfish.distributions import DiscreteDistribution, convolve
from exactdp.pufferfish.loss import (
    decide_loss,
    is_worst_point,
    kernel_sums_direct,
    log_ratio_expr,
    union_points,
)
from exactdp.pufferfish.population import Population
from exactdp.pufferfish.secrets import as_pair
from exactdp.spaces.levels import parse_level

__all__ = ["PopulationCertificate", "certify", "parse_scale"]


def _worst_output_ok(
    P: DiscreteDistribution, Q: DiscreteDistribution, theta: Fraction, y: Fraction,
    claimed: arb,
) -> bool:
    """``claimed`` contains ln g_P(y) − ln g_Q(y), and y attains the largest |log-ratio| to
    within a relative ``WORST_POINT_REL`` (it was named by float midpoints)."""
    points = union_points(P, Q)
    if not isinstance(claimed, arb) or not claimed.is_finite():
        return False
    if not is_worst_point(P, Q, theta, y):
        return False
    pp, qq = P.as_dict(), Q.as_dict()
    for prec in (128, 256, 512):
        with workprec(prec):
            gp = kernel_sums_direct(points, [pp.get(x, Fraction(0)) for x in points], theta)
            gq = kernel_sums_direct(points, [qq.get(x, Fraction(0)) for x in points], theta)
            logs = [a.log() - b.log() for a, b in zip(gp, gq)]
            mine = logs[points.index(y)]
            lo, hi = arb_to_fraction_interval(mine)
            c_lo, c_hi = arb_to_fraction_interval(claimed)
            if c_lo <= lo and hi <= c_hi:
                return True
            if c_hi < lo or hi < c_lo:
                return False
    return False


def parse_scale(theta: Any) -> Fraction:
    """Read a Laplace scale θ > 0 exactly (:class:`~exactdp.errors.InvalidScale` otherwise).

    >>> parse_scale("3/2")
    Fraction(3, 2)
    """
    return read_positive(theta, "theta (the Laplace scale θ)", InvalidScale)


@dataclass(frozen=True)
class PopulationCertificate:
    """Certified verdict for one population, pair, θ and ε.

    Attributes
    ----------
    verdict : Verdict
        HOLDS (private) or FAILS (not private), certified.
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
    population : Population or None
        The question: the other users (``verify()`` re-derives P_total and Q_total from it).
    pair : SecretPair or None
        The question: the target user's secret pair.
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
    population: Population | None = None
    pair: Any = None

    @property
    def private(self) -> bool:
        """True when the verdict is HOLDS (private)."""
        return self.verdict is Verdict.HOLDS

    def exact_log_ratio(self) -> sympy.Expr:
        """ln f(y|s) − ln f(y|s') at the worst output, as an exact sympy expression."""
        return log_ratio_expr(self.P_total, self.Q_total, self.theta, self.worst_output)

    def verify(self) -> bool:
        """Re-derive the question's laws, re-decide, and check every stored claim.

        The laws P_total, Q_total are recomputed from ``population`` and ``pair`` (a
        certificate without its question does not verify); the verdict and ``tight`` are
        re-decided with the independent O(m²) double sums; ``worst_log_ratio`` must contain
        the true log-ratio at ``worst_output``, a support point not certainly beaten by
        another; each scale must answer its own sub-question (the population's laws, or the
        pair's, at the same ε) and verify; the population's least θ is ≤ the independent one.
        """
        try:
            return self._verify()
        except REJECTED_ERRORS:
            return False

    def _verify(self) -> bool:
        if not isinstance(self.population, Population) or self.pair is None:
            return False
        pr = as_pair(self.pair)
        rest = self.population.sum_distribution()
        P_total, Q_total = convolve(rest, pr.P), convolve(rest, pr.Q)
        if (self.P_total, self.Q_total) != (P_total, Q_total):
            return False
        level = parse_level(eps=self.eps)
        again = decide_loss(P_total, Q_total, self.theta, level, direct=True)
        if again.verdict is not self.verdict or bool(again.tight_points) != self.tight:
            return False
        if not _worst_output_ok(P_total, Q_total, self.theta, self.worst_output,
                                self.worst_log_ratio):
            return False
        for scale, (P, Q) in ((self.population_theta, (P_total, Q_total)),
                              (self.independent_theta, (pr.P, pr.Q))):
            if scale is None:
                continue
            if (scale.P, scale.Q) != (P, Q) or scale.eps != level.eps or not scale.verify():
                return False
        if self.population_theta is not None and self.independent_theta is not None:
            return self.population_theta.lo <= self.independent_theta.hi
        return True

    def to_json(self) -> dict[str, object]:
        """Exact JSON form (rationals as "p/q" strings; balls as strings)."""
        return {
            "verdict": self.verdict.value,
            "private": self.private,
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


@proved_by("pufferfish_supremum")
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
    (<Verdict.HOLDS: 'holds'>, True)
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
    tolf = read_tol(tol, below_one=True)
    rest = population.sum_distribution()
    P_total, Q_total = convolve(rest, pr.P), convolve(rest, pr.Q)
    decision = decide_loss(P_total, Q_total, th, level)
    pop_scale = ind_scale = None
    if least:
        ind_scale = exact_scale(pr, level, tol=tolf)
        upper = None if ind_scale.zero_noise else ind_scale.hi
        pop_scale = zero_noise_scale(P_total, Q_total, level, tolf) or root_finding_scale(
            P_total, Q_total, level, tolf, upper)
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
        population=population,
        pair=pr,
    )
