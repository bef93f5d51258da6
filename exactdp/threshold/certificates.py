"""The certificates of the threshold routes, each with ``verify()`` re-checking its claims.

A threshold certificate proves "ε* ∈ [eps_lower, eps_upper]": the property fails at
eps_lower and holds for every ε ≥ eps_upper (its verdict is ``Verdict.HOLDS`` for that
claim). :class:`Prop9Certificate` proves it holds for every ε; :class:`SpdPointCertificate`
proves the property fails at one ε (verdict ``FAILS``) and serves as the fail side of the
SPD cover.

=====================================  =====================================================
kind                                    proof
=====================================  =====================================================
``PROP9``                               ball-size symmetry (``proofs/prop9_ball_symmetric.py``)
``EXACT_THRESHOLD``                     exact z(s), root isolation (:mod:`.exact`)
``CERTIFIED_COVER``                     mean-value Krawczyk ranges (:mod:`.krawczyk`)
``SPD_TAYLOR_COVER``                    Taylor ranges with λ_min bounds (:mod:`.spd_cover`)
``SPD_POINT``                           one point, |z − y| ≤ ‖r‖₂/λ
``KRONECKER_THRESHOLD``                 factor certificates + the Kronecker split
=====================================  =====================================================

The cover certificates share :func:`cover_frame_holds` (fail side, perturbation lemma
of :mod:`exactdp.threshold.lemmas`, coverage of [eps_upper, −ln t0]).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
from flint import arb, fmpz_poly
from threadpoolctl import threadpool_limits

from exactdp.algebra.algebraic import AlgebraicNumber, count_roots_between, log_enclosure, poly_sign_at
from exactdp.algebra.structure import kronecker_split
from exactdp.algebra.symbolic import RationalSolution
from exactdp.arithmetic.ball import arb_to_fraction_interval, workprec
from exactdp.arithmetic.rationals import to_fmpq
from exactdp.arithmetic.rounding import succ
from exactdp.engine.certificates import ExactSolution, FarkasCertificate
from exactdp.kinds import CertificateKind, Verdict, proved_by
from exactdp.spaces.metrics import FiniteMetric
from exactdp.threshold.exact_checks import exact_lambda_check, exact_piece_check
from exactdp.threshold.float_bounds import rhs_float
from exactdp.threshold.krawczyk import mean_value_piece
from exactdp.threshold.lambda_bounds import chord_bound
from exactdp.threshold.lemmas import lemma_holds
from exactdp.threshold.providers import DenseProvider, GridProvider, PhiProvider, provider_for
from exactdp.threshold.taylor import point_bounds, taylor_piece, taylor_vectors

__all__ = [
    "Prop9Certificate",
    "ExactThresholdCertificate",
    "CoverCertificate",
    "KroneckerThresholdCertificate",
    "SpdPointCertificate",
    "SpdCoverCertificate",
    "TAYLOR_ORDER",
    "s_enclosure_of_eps",
    "claims_failure",
    "fail_matches",
    "cover_frame_holds",
]

#: Number K of Taylor terms of the SPD cover's ranges.
TAYLOR_ORDER = 3


def s_enclosure_of_eps(eps: Fraction, q: int, prec: int = 128) -> tuple[Fraction, Fraction]:
    """Rational enclosure [lo, hi] of s = e^{-eps/q}."""
    with workprec(prec):
        return arb_to_fraction_interval((-arb(to_fmpq(eps)) / q).exp())


@proved_by("prop9_ball_symmetric")
@dataclass(frozen=True)
class Prop9Certificate:
    """Ball-size symmetry ⇒ z = 1/Σ n_r e^{-εr} > 0 for every ε (Prop. 9,
    ``proofs/prop9_ball_symmetric.py``)."""

    metric: FiniteMetric = field(repr=False)
    rhs: tuple[Fraction, ...] | None = field(repr=False)
    kind: CertificateKind = CertificateKind.PROP9

    @property
    def verdict(self) -> Verdict:
        """``HOLDS``: the property holds for every ε > 0."""
        return Verdict.HOLDS

    def verify(self) -> bool:
        """Recount the distance multiset of every row exactly; rhs must be constant."""
        idx = self.metric.index
        counts = np.stack([np.bincount(r, minlength=len(self.metric.values)) for r in idx])
        if not bool(np.all(counts == counts[0])):
            return False
        return self.rhs is None or len(set(self.rhs)) == 1 and self.rhs[0] > 0


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


def _lowest_sign(p: fmpz_poly) -> int:
    for c in p.coeffs():
        if c != 0:
            return 1 if c > 0 else -1
    return 0


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
    kind: CertificateKind = CertificateKind.EXACT_THRESHOLD

    @property
    def verdict(self) -> Verdict:
        """``HOLDS``: the claim ε* ∈ [eps_lower, eps_upper] is proved exactly."""
        return Verdict.HOLDS

    def verify(self) -> bool:
        """Re-check the identity, s*, and both sides (raising the precision of e^{-ε/q})."""
        sol = self.solution
        if not sol.verify():
            return False
        if self.s_star is not None and not self.s_star.verify():
            return False
        return any(self._check(prec) for prec in (128, 512, 2048, 8192))

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
        sd = _lowest_sign(D)
        seen: dict[tuple[int, ...], bool] = {}
        for p in sol.numerators:
            key = tuple(int(c) for c in p.coeffs())
            if key in seen:
                if not seen[key]:
                    return False
                continue
            ok = True
            if p.degree() >= 0:
                if _lowest_sign(p) * sd < 0:
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


def claims_failure(fail: Any) -> bool:
    """The certificate's own verdict is "the property fails" (explicitly, per type)."""
    if isinstance(fail, FarkasCertificate):
        return True
    if isinstance(fail, ExactSolution):
        return not fail.nonnegative
    verdict = getattr(fail, "verdict", None)
    if isinstance(verdict, Verdict):
        return verdict is Verdict.FAILS
    return getattr(fail, "holds", None) is False


def fail_matches(fail: Any, metric: FiniteMetric, rhs: tuple[Fraction, ...],
                 eps: Fraction) -> bool:
    """The fail-side certificate is about this metric, this right-hand side and ε = eps."""
    fm = getattr(fail, "metric", None)
    if fm is None:
        return False
    if fm is not metric and not (fm.name == metric.name and fm.n == metric.n
                                 and fm.values == metric.values
                                 and np.array_equal(fm.index, metric.index)):
        return False
    if tuple(getattr(fail, "rhs", ())) != tuple(rhs):
        return False
    if isinstance(fail, SpdPointCertificate):
        return fail.eps == eps
    level = getattr(fail, "level", None)
    return level is not None and getattr(level, "eps_rational", None) == eps


def cover_frame_holds(metric: FiniteMetric, rhs: tuple[Fraction, ...], eps_lower: Fraction,
                      eps_upper: Fraction, fail: Any, t0: Fraction,
                      ranges: list[tuple[Fraction, Fraction]]) -> bool:
    """The checks every cover certificate shares (everything but the ranges' own proofs).

    0 < eps_lower < eps_upper; ``fail`` is about this metric, right-hand side and
    eps_lower, claims failure and verifies; the perturbation lemma holds at t0; the ranges
    are proper (a < b) and cover [eps_upper, −ln t0] without gaps.
    """
    if not (0 < eps_lower < eps_upper):
        return False
    if not fail_matches(fail, metric, rhs, eps_lower):
        return False
    if not claims_failure(fail) or not fail.verify():
        return False
    if any(not (a < b) for a, b in ranges):
        return False
    if not lemma_holds(metric, rhs, t0):
        return False
    _, e_end = log_enclosure(t0, t0, Fraction(-1))
    cur = eps_upper
    for a, b in sorted(ranges):
        if a > cur:
            return False
        cur = max(cur, b)
    return cur >= e_end


@dataclass(frozen=True)
class CoverCertificate:
    """Certified proof of ε* ∈ [eps_lower, eps_upper] by verified interval solves.

    * ``fail``: an engine certificate that the property fails at eps_lower;
    * ``t0``: perturbation lemma (:mod:`exactdp.threshold.lemmas`) on (0, t0];
    * ``pieces``: ε-ranges [a, b] covering [eps_upper, −ln t0]; for each, the mean-value
      Krawczyk argument (:mod:`exactdp.threshold.krawczyk`) proves z(ε) > 0 for every ε
      in [a, b].

    ``verify()`` recomputes everything from the metric (fresh approximate inverses); it
    re-runs the same rounding analysis as the search, so it guards against stale or
    edited certificates rather than against a flaw in that analysis (the fail side is
    re-checked independently by the engine certificate's own ``verify``).
    """

    metric: FiniteMetric = field(repr=False)
    rhs: tuple[Fraction, ...] = field(repr=False)
    eps_lower: Fraction
    eps_upper: Fraction
    fail: Any = field(repr=False)
    t0: Fraction
    pieces: tuple[tuple[Fraction, Fraction], ...] = field(repr=False)
    kind: CertificateKind = CertificateKind.CERTIFIED_COVER

    @property
    def verdict(self) -> Verdict:
        """``HOLDS``: the claim ε* ∈ [eps_lower, eps_upper] is certified."""
        return Verdict.HOLDS

    def verify(self) -> bool:
        """Re-check the fail certificate, the lemma at t0, and every piece (fresh R each)."""
        if not cover_frame_holds(self.metric, self.rhs, self.eps_lower, self.eps_upper,
                                 self.fail, self.t0, list(self.pieces)):
            return False
        R = None
        for a, b in self.pieces:
            ok, R = mean_value_piece(self.metric, self.rhs, a, b, R)
            if not ok:
                ok, R = mean_value_piece(self.metric, self.rhs, a, b, None)
            if not ok:
                return False
        return True


@proved_by("threshold_lemmas")
@dataclass(frozen=True)
class KroneckerThresholdCertificate:
    """Factor certificates plus the exact Kronecker split (lemma in exactdp.algebra.structure,
    ``proofs/threshold_lemmas.py``): the property holds iff it holds for every factor."""

    metric: FiniteMetric = field(repr=False)
    rhs: tuple[Fraction, ...] | None = field(repr=False)
    factor_results: tuple[Any, ...] = field(repr=False)
    binding: int
    eps_lower: Fraction
    eps_upper: Fraction
    kind: CertificateKind = CertificateKind.KRONECKER_THRESHOLD

    @property
    def verdict(self) -> Verdict:
        """``HOLDS``: the claim ε* ∈ [eps_lower, eps_upper] is certified factor by factor."""
        return Verdict.HOLDS

    def verify(self) -> bool:
        split = kronecker_split(self.metric, self.rhs)
        if split is None or len(split.factors) != len(self.factor_results):
            return False
        for (fm, frhs), res in zip(split.factors, self.factor_results):
            if res.metric_name != fm.name or tuple(res.rhs) != tuple(frhs):
                return False
            if not res.certificate.verify():
                return False
            if res.eps_upper > self.eps_upper:
                return False
        b = self.factor_results[self.binding]
        return b.eps_lower == self.eps_lower and self.eps_upper - self.eps_lower >= 0


@dataclass(frozen=True)
class SpdPointCertificate:
    """z_i(eps) < 0 at one point: |z − y| ≤ ‖r‖₂/λ (λ ≤ λ_min), and y_i + that < 0.

    Dense metrics carry the Cholesky shift ``sigma`` of the λ bound, which ``verify()``
    re-proves with exact integer arithmetic; grids recompute the lattice symbol bound.
    """

    metric: FiniteMetric = field(repr=False)
    rhs: tuple[Fraction, ...] = field(repr=False)
    eps: Fraction
    index: int
    sigma: Fraction
    lam: Fraction
    upper: float  # certified upper bound of z_index(eps)
    holds: bool = False
    kind: CertificateKind = CertificateKind.SPD_POINT

    @property
    def verdict(self) -> Verdict:
        """``FAILS``: the property fails at ``eps`` (z_index(eps) < 0)."""
        return Verdict.from_bool(self.holds)

    def verify(self) -> bool:
        """Re-prove the λ bound independently, then recompute the residual bound."""
        prov = provider_for(self.metric)
        if self.lam <= 0 or not 0 <= self.index < self.metric.n:
            return False
        if isinstance(prov, GridProvider):
            if prov.lambda_lower(self.eps, self.eps) < self.lam:
                return False
        elif not exact_lambda_check(self.metric, self.eps, self.sigma, self.lam):
            return False
        b, brad = rhs_float(self.rhs)
        values = list(self.metric.values)
        if isinstance(prov, DenseProvider):
            Y = taylor_vectors(prov, values, b, self.eps, self.eps, 0)
            return exact_piece_check(self.metric, self.rhs, self.eps, self.eps, 0, self.lam, Y,
                                     upper_index=self.index)
        y, err = point_bounds(prov, values, b, brad, self.eps, self.lam)
        up = float(succ(y[self.index] + err))
        return up < 0


@dataclass(frozen=True)
class SpdCoverCertificate:
    """Proof that ε* ∈ [eps_lower, eps_upper] by the SPD Taylor cover.

    * ``fail``: a certificate that the property fails at ``eps_lower``;
    * ``t0``: perturbation lemma on (0, t0] (:mod:`exactdp.threshold.lemmas`);
    * ``nodes``: (ε, σ, λ) with λ ≤ λ_min(Φ(ε)) (dense metrics; empty on grids, where
      the lattice symbol bound is recomputed instead);
    * ``pieces``: (a, b, λ) ε-ranges covering [eps_upper, −ln t0]; on each, λ ≤ λ_min(Φ(ε))
      (chord lemma between nodes, or the lattice bound) and the Taylor bound proves z > 0.

    ``verify()`` re-proves every node and every piece **independently** with exact
    integer arithmetic (:func:`exactdp.threshold.exact_checks.exact_lambda_check`,
    :func:`exactdp.threshold.exact_checks.exact_piece_check`: no floating-point rounding
    analysis, only fresh float Taylor vectors as candidates), recomputes the chord bounds
    from the nodes, and re-checks coverage, the lemma and the fail side. On large
    Euclidean grids (matrix-free) the pieces are re-run with the float residual bound of
    the search and the lattice λ bound is recomputed; that part is not independent
    arithmetic.
    """

    metric: FiniteMetric = field(repr=False)
    rhs: tuple[Fraction, ...] = field(repr=False)
    eps_lower: Fraction
    eps_upper: Fraction
    fail: Any = field(repr=False)
    t0: Fraction
    nodes: tuple[tuple[Fraction, Fraction, Fraction], ...] = field(repr=False)
    pieces: tuple[tuple[Fraction, Fraction, Fraction], ...] = field(repr=False)
    order: int = TAYLOR_ORDER
    kind: CertificateKind = CertificateKind.SPD_TAYLOR_COVER

    @property
    def verdict(self) -> Verdict:
        """``HOLDS``: the claim ε* ∈ [eps_lower, eps_upper] is certified."""
        return Verdict.HOLDS

    def _piece_lambda_ok(self, prov: PhiProvider, a: Fraction, b: Fraction,
                         lam: Fraction) -> bool:
        if isinstance(prov, GridProvider):
            return lam <= prov.lambda_lower(a, b)
        # dense: the chord bound over consecutive nodes covering [a, b]
        eps = [e for e, _, _ in self.nodes]
        lamd = {e: lm for e, _, lm in self.nodes}
        best = None
        for k in range(len(eps) - 1):
            if eps[k] < b and eps[k + 1] > a:
                cb = chord_bound(self.metric, eps[k], eps[k + 1], lamd[eps[k]], lamd[eps[k + 1]])
                best = cb if best is None else min(best, cb)
        if best is None:
            if a in lamd and b in lamd:
                best = chord_bound(self.metric, a, b, lamd[a], lamd[b])
            else:
                return False
        covered = any(eps[k] <= a for k in range(len(eps))) and any(e >= b for e in eps)
        return covered and lam <= best

    def verify(self) -> bool:
        """Re-check frame, nodes and pieces (BLAS pinned to one thread, restored after)."""
        with threadpool_limits(limits=1, user_api="blas"):
            return self._verify()

    def _verify(self) -> bool:
        if self.order < 0 or not cover_frame_holds(
                self.metric, self.rhs, self.eps_lower, self.eps_upper, self.fail, self.t0,
                [(a, b) for a, b, _ in self.pieces]):
            return False
        prov = provider_for(self.metric)
        if isinstance(prov, DenseProvider):
            eps_sorted = [e for e, _, _ in self.nodes]
            if eps_sorted != sorted(eps_sorted):
                return False
            for e, sigma, lam in self.nodes:
                if not exact_lambda_check(self.metric, e, sigma, lam):
                    return False
        bvec, brad = rhs_float(self.rhs)
        values = list(self.metric.values)
        for a, bb, lam in self.pieces:
            if lam <= 0 or not self._piece_lambda_ok(prov, a, bb, lam):
                return False
            if isinstance(prov, DenseProvider):
                Y = taylor_vectors(prov, values, bvec, a, bb, self.order)
                if not exact_piece_check(self.metric, self.rhs, a, bb, self.order, lam, Y):
                    return False
                continue
            res, _ = taylor_piece(prov, values, bvec, brad, a, bb, self.order, lam)
            if not res.ok:
                return False
        return True
