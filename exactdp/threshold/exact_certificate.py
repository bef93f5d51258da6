"""The exact threshold certificate: z(s) as exact rational functions, signs by root isolation.

:class:`ExactThresholdCertificate` proves ε* ∈ [eps_lower, eps_upper] from the identity
Φ(s)N(s) = D(s)b over Z[s] (re-checked against the certificate's own metric and rhs) and
exact root counting; its exact value s* is tied to the z(s) it carries (a root of odd
multiplicity of the failing numerator, with no sign change of any z_i before it).

Examples
--------
>>> from fractions import Fraction
>>> from exactdp.spaces.metrics import sum_query
>>> from exactdp.threshold.exact import exact_route
>>> res, _ = exact_route(sum_query(2, 2), None, Fraction(1, 10**6), None, [], 160)
>>> res.certificate.verify()
True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import ClassVar

from flint import arb, fmpz_poly

from exactdp.algebra.algebraic import AlgebraicNumber, count_roots_between, lowest_sign, poly_sign_at
from exactdp.algebra.symbolic import RationalSolution
from exactdp.arithmetic.ball import arb_to_fraction_interval, workprec
from exactdp.arithmetic.rationals import to_fmpq
from exactdp.kinds import CertificateKind, Verdict
from exactdp.spaces.metrics import FiniteMetric
from exactdp.threshold.binding import REJECTED_ERRORS

__all__ = ["ExactThresholdCertificate", "s_enclosure_of_eps"]


def s_enclosure_of_eps(eps: Fraction, q: int, prec: int = 128) -> tuple[Fraction, Fraction]:
    """Rational enclosure [lo, hi] of s = e^{-eps/q}."""
    with workprec(prec):
        return arb_to_fraction_interval((-arb(to_fmpq(eps)) / q).exp())


def _odd_part(p: fmpz_poly) -> fmpz_poly:
    """Product of the squarefree factors of odd multiplicity (where p changes sign)."""
    _, fl = p.factor_squarefree()
    out = fmpz_poly([1])
    for g, e in fl:
        if int(e) % 2 == 1:
            out *= g
    return out


def _sqfree(p: fmpz_poly) -> fmpz_poly:
    _, fl = p.factor_squarefree()
    out = fmpz_poly([1])
    for g, _e in fl:
        out *= g
    return out


def _multiplicity(p: fmpz_poly, g: fmpz_poly) -> int:
    """How many times the irreducible g divides p exactly (p ≠ 0)."""
    k = 0
    while not p.is_zero() and p.gcd(g).degree() == g.degree():
        p = p / g
        k += 1
    return k


def _without(p: fmpz_poly, g: fmpz_poly) -> fmpz_poly:
    """p with every factor g removed."""
    while p.degree() >= g.degree() and p.gcd(g).degree() == g.degree():
        p = p / g
    return p


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

    def verify(self) -> bool:
        """Re-check the identity, s*, and both sides (raising the precision of e^{-ε/q}).

        Never raises: a malformed certificate is rejected.
        """
        try:
            return self._verify()
        except REJECTED_ERRORS:
            return False

    def _verify(self) -> bool:
        sol = self.solution
        if not isinstance(sol, RationalSolution) or not isinstance(sol.metric, FiniteMetric):
            return False
        if sol.metric.q is None or sol.q != sol.metric.q or sol.denominator.is_zero():
            return False
        if self.fail_index is not None and not 0 <= self.fail_index < sol.n:
            return False
        if not sol.verify():
            return False
        if self.s_star is not None and not self._s_star_ok():
            return False
        return any(self._check(prec) for prec in (128, 512, 2048, 8192))

    def _s_star_ok(self) -> bool:
        """s* is the exact sup of the holding run (0, s*): bound to this z(s).

        s* verifies (irreducible minimal polynomial g, isolated by its interval, in
        (0, 1)); g divides N_fail to an odd power and not D (z_fail changes sign at s*);
        and no odd-multiplicity factor of any N_i other than g, nor any factor of D, has
        a root in (0, s*], so the property holds on (0, s*) and fails just after s*.
        """
        a = self.s_star
        sol = self.solution
        if a is None or self.fail_index is None or not a.verify():
            return False
        g = a.poly
        if g.degree() < 1:
            return False
        lo, hi = a.isolating_interval
        if a.is_rational:
            r = a.as_fraction()
            if not 0 < r < 1:
                return False
        elif not (0 <= lo and hi <= 1):
            return False
        N = sol.numerators[self.fail_index]
        if N.is_zero() or _multiplicity(N, g) % 2 == 0 or _multiplicity(sol.denominator, g):
            return False
        polys: dict[tuple[int, ...], fmpz_poly] = {}
        for p in (*sol.numerators, sol.denominator):
            if p.is_zero():
                continue
            rest = _without(_odd_part(p) if p is not sol.denominator else _sqfree(p), g)
            if rest.degree() >= 1:
                polys.setdefault(tuple(int(c) for c in rest.coeffs()), rest)
        for rest in polys.values():
            b = a
            for _ in range(64):
                blo, bhi = b.isolating_interval
                if blo < bhi and poly_sign_at(rest, blo) != 0 and poly_sign_at(rest, bhi) != 0 \
                        and count_roots_between(rest, blo, bhi) == 0:
                    break
                if blo == bhi and poly_sign_at(rest, blo) != 0:
                    break
                b = b.refine(b.width / 64)
            else:
                return False
            blo = b.isolating_interval[0]
            # no root in (0, blo] (and none in (blo, s*] by the refinement)
            if blo > 0 and (count_roots_between(rest, Fraction(0), blo) != 0
                            or poly_sign_at(rest, blo) == 0):
                return False
        return True

    def _check(self, prec: int) -> bool:
        sol = self.solution
        q = sol.q
        D = sol.denominator
        # --- holds on (0, s_up] ---------------------------------------------------
        if self.eps_upper == 0:
            s_up = Fraction(1)
            closed = False
        else:
            _, s_up = s_enclosure_of_eps(self.eps_upper, q, prec)
            closed = True
        zero = Fraction(0)
        if s_up <= 0 or s_up > 1:
            return False
        dsq = _sqfree(D)
        if dsq.degree() >= 1 and count_roots_between(dsq, zero, s_up) != 0:
            return False
        if closed and poly_sign_at(D, s_up) == 0:
            return False
        sd = lowest_sign(D)
        seen: dict[tuple[int, ...], bool] = {}
        for p in sol.numerators:
            key = tuple(int(c) for c in p.coeffs())
            if key in seen:
                if not seen[key]:
                    return False
                continue
            ok = True
            if p.degree() >= 0:
                if lowest_sign(p) * sd < 0:
                    ok = False
                odd = _odd_part(p)
                if ok and odd.degree() >= 1 and count_roots_between(odd, zero, s_up) != 0:
                    ok = False
            seen[key] = ok
            if not ok:
                return False
        # --- fails at eps_lower --------------------------------------------------
        if self.fail_index is None:
            return self.eps_lower == 0 and (self.eps_upper == 0 or self.s_star is None)
        if self.eps_lower <= 0:
            return False
        lo, hi = s_enclosure_of_eps(self.eps_lower, q, prec)
        if not (0 < lo <= hi < 1):
            return False
        N = sol.numerators[self.fail_index]
        for p in (N, D):
            sq = _sqfree(p)
            if poly_sign_at(p, lo) == 0 or poly_sign_at(p, hi) == 0:
                return False
            if sq.degree() >= 1 and count_roots_between(sq, lo, hi) != 0:
                return False
        return poly_sign_at(N, lo) * poly_sign_at(D, lo) < 0
