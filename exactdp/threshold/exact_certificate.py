"""The exact threshold certificate: z(s) as exact rational functions, signs by root isolation.

:class:`ExactThresholdCertificate` proves ε* ∈ [eps_lower, eps_upper] from the identity
Φ(s)N(s) = D(s)b over Z[s] and exact root counting; its exact value s* is tied to the
z(s) it carries (a root of odd multiplicity of the failing numerator, with no sign change
of any z_i before it). ``verify()`` and ``to_json()`` delegate to the kernel
(:func:`exactdp.kernel.threshold.check_threshold`, kind ``exact``;
:mod:`exactdp.kernel.threshold_json`), which re-proves every claim from the metric's
exact distances and the right-hand side.

Examples
--------
>>> from fractions import Fraction
>>> from exactdp.spaces.metrics import sum_query
>>> from exactdp.threshold.exact import exact_route
>>> res, _ = exact_route(sum_query(2, 2), None, Fraction(1, 10**6), None, [], 160)
>>> res.certificate.verify()
True
>>> res.certificate.to_json()["claim"]["s_star"]["minimal_polynomial"]
['1', '1', '-1']
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, ClassVar

from flint import fmpz_poly

from exactdp.algebra.algebraic import AlgebraicNumber
from exactdp.algebra.symbolic import RationalSolution
from exactdp.arithmetic.interval import Enclosure
from exactdp.engine.documents import write_threshold
from exactdp.errors import REJECTED_ERRORS, InvalidArgument
from exactdp.kernel.threshold import ThresholdClaim, check_threshold, s_enclosure
from exactdp.kinds import CertificateKind, Verdict
from exactdp.spaces.metrics import FiniteMetric

__all__ = ["ExactThresholdCertificate", "s_enclosure_of_eps"]


def s_enclosure_of_eps(eps: Fraction, q: int, prec: int = 128) -> tuple[Fraction, Fraction]:
    """Rational enclosure [lo, hi] of s = e^{-eps/q} (the kernel's :func:`~exactdp.kernel.threshold.s_enclosure`)."""
    return s_enclosure(eps, q, prec)


def descending(poly: Any) -> tuple[int, ...]:
    """Integer coefficients of a ``flint.fmpz_poly``, leading first; the zero polynomial is (0,)."""
    return tuple(int(c) for c in reversed(poly.coeffs())) or (0,)


@dataclass(frozen=True)
class ExactThresholdCertificate:
    """Exact proof of ε* ∈ [eps_lower, eps_upper] from the rational solution z(s).

    * ``solution``: Φ(s)N(s) = D(s)b over Z[s] (re-checked);
    * holds on [eps_upper, ∞) ⇔ s ∈ (0, s_up] with s_up ≥ e^{-eps_upper/q} rational:
      D has no root in (0, s_up], no N_i changes sign there, and every z_i starts ≥ 0
      at s → 0+ (so z(s) ≥ 0 solves Φz = b);
    * fails at eps_lower (when ``fail_index`` is set): s_low = e^{-eps_lower/q} is
      transcendental (Lindemann), so Φ(s_low) is invertible (det Φ is a nonzero integer
      polynomial) and z(s_low) is the unique solution; on a rational interval containing
      s_low neither N_i nor D vanishes and z_i < 0 there.
    """

    solution: RationalSolution = field(repr=False)
    eps_lower: Fraction
    eps_upper: Fraction
    fail_index: int | None
    s_star: AlgebraicNumber | None
    kind: ClassVar[CertificateKind] = CertificateKind.EXACT_THRESHOLD

    @property
    def verdict(self) -> Verdict:
        """``HOLDS``: the claim ε* ∈ [eps_lower, eps_upper] is proved exactly."""
        return Verdict.HOLDS

    @property
    def metric(self) -> FiniteMetric:
        """The question's metric: the one the identity Φ(s)N(s) = D(s)b is checked against."""
        return self.solution.metric

    @property
    def rhs(self) -> tuple[Fraction, ...]:
        """The question's right-hand side b (the identity's)."""
        return self.solution.rhs

    def threshold_claim(self) -> ThresholdClaim:
        """This certificate as the kernel's claim (raises on malformed fields)."""
        sol = self.solution
        if not isinstance(sol, RationalSolution):
            raise InvalidArgument(f"solution={sol!r} is not a RationalSolution.")
        star = None
        if self.s_star is not None:
            a = self.s_star
            star = (sol.q, tuple(reversed(a.minimal_polynomial)),
                    Enclosure(*a.isolating_interval))
        return ThresholdClaim("exact", sol.metric, tuple(sol.rhs),
                              Enclosure(self.eps_lower, self.eps_upper),
                              {"numerators": tuple(descending(p) for p in sol.numerators),
                               "denominator": descending(sol.denominator),
                               "witness": self.fail_index, "s_star": star})

    def verify(self) -> bool:
        """Re-check the identity, s*, and both sides in the kernel (module doc).

        Never raises: a malformed certificate is rejected.
        """
        try:
            claim = self.threshold_claim()
        except REJECTED_ERRORS:
            return False
        return check_threshold(claim)

    def to_json(self) -> dict[str, Any]:
        """The certificate as a JSON document (:mod:`exactdp.kernel.threshold_json`)."""
        return write_threshold(self.threshold_claim())

    @staticmethod
    def from_claim(c: ThresholdClaim) -> ExactThresholdCertificate:
        """Rebuild from the kernel's claim (kind ``exact``); only as good as its ``verify()``."""
        ev = c.evidence
        m = c.metric
        sol = RationalSolution(m, tuple(fmpz_poly(list(reversed(p))) for p in ev["numerators"]),
                               fmpz_poly(list(reversed(ev["denominator"]))), m.q or 1, c.rhs,
                               method="read from JSON")
        star = ev["s_star"]
        alg = None if star is None else AlgebraicNumber(tuple(reversed(star[1])),
                                                        (star[2].lo, star[2].hi))
        return ExactThresholdCertificate(sol, c.eps.lo, c.eps.hi, ev["witness"], alg)
