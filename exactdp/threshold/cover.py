"""The certified cover of [eps_upper, ∞) by Taylor pieces with λ_min bounds (SPD route).

Used by :func:`exactdp.threshold.core.epsilon_threshold` (certified route) whenever Φ(ε) is
symmetric positive definite on the range, which the search proves as it goes (dense
metrics: shifted Cholesky nodes; Euclidean grids: the lattice symbol bound). The
mathematics is in :mod:`exactdp.threshold.spd_cover`. Otherwise the threshold module falls back
to its mean-value Krawczyk cover (any invertible Φ, two O(n³) products per range).

Per range the work is O(K²·n²) (K = 3 Taylor terms): float solves with one
factorisation, then rigorous residual bounds by a handful of matrix–vector products; a
range near ε* is 10⁻⁹ wide, ranges far from it 0.5 wide, and about a dozen reach from
``eps_upper`` to the perturbation lemma's region.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from exactdp.errors import PrecisionLimitReached
from exactdp.spaces.metrics import FiniteMetric
from exactdp.threshold.spd_cover import (
    DenseProvider,
    GridProvider,
    PhiProvider,
    chord_bound,
    exact_lambda_check,
    exact_piece_check,
    point_bounds,
    provider_for,
    taylor_piece,
    taylor_vectors,
)

__all__ = ["SpdCoverCertificate", "SpdPointCertificate", "spd_cover", "spd_fail_point",
           "float_zmin", "fail_matches", "claims_failure", "cover_frame_holds"]

TAYLOR_ORDER = 3


def _rhs_float(rhs: tuple[Fraction, ...]) -> tuple[np.ndarray, float]:
    b = np.array([float(x) for x in rhs])
    rad = max((abs(Fraction(float(x)) - x) for x in set(rhs)), default=Fraction(0))
    r = float(rad)
    if Fraction(r) < rad:
        r = float(np.nextafter(r, np.inf))
    return b, r


def _lam_for(prov: PhiProvider, a: Fraction, b: Fraction) -> Fraction:
    lam = prov.lambda_lower(a, b)
    return Fraction(math.floor(lam * 2**60), 2**60) if lam > 0 else Fraction(0)


def float_zmin(prov: PhiProvider, metric: FiniteMetric, rhs: np.ndarray) -> Callable[[float], float]:
    """ε ↦ min_i z_i(ε) by a float solve (uncertified; used to *find* ε*)."""
    d = np.array([float(v) for v in metric.values])

    def zmin(eps: float) -> float:
        table = np.exp(-eps * d)
        try:
            x = prov.solver(table)(rhs)
        except (np.linalg.LinAlgError, ValueError):
            return -math.inf
        x = np.asarray(x)
        return float(np.min(x)) if np.all(np.isfinite(x)) else -math.inf

    return zmin


# -------------------------------------------------------------------------------------
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
    kind: str = "spd-point"

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
        b, brad = _rhs_float(self.rhs)
        values = list(self.metric.values)
        if isinstance(prov, DenseProvider):
            Y = taylor_vectors(prov, values, b, self.eps, self.eps, 0)
            return exact_piece_check(self.metric, self.rhs, self.eps, self.eps, 0, self.lam, Y,
                                     upper_index=self.index)
        y, err = point_bounds(prov, values, b, brad, self.eps, self.lam)
        up = float(np.nextafter(y[self.index] + err, np.inf))
        return up < 0


def spd_fail_point(metric: FiniteMetric, rhs: tuple[Fraction, ...], eps: Fraction,
                   prov: PhiProvider | None = None) -> SpdPointCertificate | None:
    """A certificate that z(eps) has a negative entry, or None when not provable here."""
    prov = prov or provider_for(metric)
    lam = _lam_for(prov, eps, eps)
    if lam <= 0:
        return None
    sigma = prov.nodes[eps][0] if isinstance(prov, DenseProvider) else Fraction(0)
    b, brad = _rhs_float(rhs)
    y, err = point_bounds(prov, list(metric.values), b, brad, eps, lam)
    i = int(np.argmin(y))
    up = float(np.nextafter(y[i] + err, np.inf))
    if up >= 0:
        return None
    return SpdPointCertificate(metric, rhs, eps, i, sigma, lam, up)


def claims_failure(fail: Any) -> bool:
    """The certificate's own verdict is "the property fails" (explicitly, per kind)."""
    from exactdp.engine.certificates import ExactSolution, FarkasCertificate

    if isinstance(fail, FarkasCertificate):
        return True
    if isinstance(fail, ExactSolution):
        return not fail.nonnegative
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
    from exactdp.algebra.algebraic import log_enclosure
    from exactdp.threshold.core import _lemma_holds

    if not (0 < eps_lower < eps_upper):
        return False
    if not fail_matches(fail, metric, rhs, eps_lower):
        return False
    if not claims_failure(fail) or not fail.verify():
        return False
    if any(not (a < b) for a, b in ranges):
        return False
    if not _lemma_holds(metric, rhs, t0):
        return False
    _, e_end = log_enclosure(t0, t0, Fraction(-1))
    cur = eps_upper
    for a, b in sorted(ranges):
        if a > cur:
            return False
        cur = max(cur, b)
    return cur >= e_end


# -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SpdCoverCertificate:
    """Proof that ε* ∈ [eps_lower, eps_upper] by the SPD Taylor cover.

    * ``fail``: a certificate that the property fails at ``eps_lower``;
    * ``t0``: perturbation lemma on (0, t0] (module docstring of exactdp.threshold.core);
    * ``nodes``: (ε, σ, λ) with λ ≤ λ_min(Φ(ε)) (dense metrics; empty on grids, where
      the lattice symbol bound is recomputed instead);
    * ``pieces``: (a, b, λ) ε-ranges covering [eps_upper, −ln t0]; on each, λ ≤ λ_min(Φ(ε))
      (chord lemma between nodes, or the lattice bound) and the Taylor bound proves z > 0.

    ``verify()`` re-proves every node and every piece **independently** with exact
    integer arithmetic (:func:`exactdp.threshold.spd_cover.exact_lambda_check`,
    :func:`exactdp.threshold.spd_cover.exact_piece_check`: no floating-point rounding analysis, only
    fresh float Taylor vectors as candidates), recomputes the chord bounds from the
    nodes, and re-checks coverage, the lemma and the fail side. On large Euclidean grids
    (matrix-free) the pieces are re-run with the float residual bound of the search and
    the lattice λ bound is recomputed; that part is not independent arithmetic.
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
    kind: str = "spd-taylor-cover"

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
        from threadpoolctl import threadpool_limits

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
        bvec, brad = _rhs_float(self.rhs)
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


def spd_cover(metric: FiniteMetric, rhs: tuple[Fraction, ...], e_hi: Fraction,
              e_end: Fraction, tol: Fraction, progress: Any = None,
              prov: PhiProvider | None = None, max_pieces: int = 400
              ) -> tuple[tuple[tuple[Fraction, Fraction, Fraction], ...],
                         tuple[tuple[Fraction, Fraction, Fraction], ...]] | None:
    """Pieces (and λ nodes) certifying z > 0 on [e_hi, e_end], or None if Φ is not
    provably SPD at e_hi (the caller then uses the Krawczyk cover)."""
    prov = prov or provider_for(metric)
    if isinstance(prov, DenseProvider):
        prov.start_chain(e_hi)
    if _lam_for(prov, e_hi, e_hi) <= 0:
        return None
    b, brad = _rhs_float(rhs)
    values = list(metric.values)
    pieces: list[tuple[Fraction, Fraction, Fraction]] = []
    a = e_hi
    w = 8 * tol
    tries = 0
    while a < e_end:
        tries += 1
        if tries > max_pieces:
            return None
        bb = min(e_end, a + w)
        lam = _lam_for(prov, a, bb)
        ok = False
        factor = 0.25
        last = None
        if lam > 0:
            res, _ = taylor_piece(prov, values, b, brad, a, bb, TAYLOR_ORDER, lam)
            ok = res.ok
            last = res
            # the error is dominated by the ω^{K+1} remainder: aim at err ≈ half the room
            room = res.min_lower + res.err
            if math.isfinite(room) and room > 0 and res.err > 0:
                factor = (0.5 * room / res.err) ** (1 / (TAYLOR_ORDER + 1))
                if ok and res.err < 0.02 * room:
                    # the error is still at its rounding floor: widen boldly
                    factor = max(factor, 8.0)
        if ok:
            pieces.append((a, bb, lam))
            a = bb
            w = w * Fraction(min(32.0, max(1.0, factor))).limit_denominator(64)
            if progress and len(pieces) % 4 == 0:
                progress(f"cover: {len(pieces)} ranges certified, up to ε = {float(bb):.6f}")
        else:
            w = w * Fraction(min(0.5, max(0.1, factor))).limit_denominator(64)
            if w < tol / 2**20:
                if last is None or not math.isfinite(last.err):
                    return None  # no λ bound here: Φ not provably positive definite
                raise PrecisionLimitReached(
                    f"Φ is positive definite near ε = {float(a):.12g} but z cannot be certified "
                    f"positive there: the certified lower bound of min z is "
                    f"{last.min_lower:.3g} with a float error bound of {last.err:.3g}, i.e. "
                    "min z is below what double precision resolves at this ε. Ask for a wider "
                    "tol, or use method='exact' (polynomial case).")
        w = Fraction(math.ceil(w * 2**40), 2**40) if w > Fraction(1, 2**40) else w
    nodes: tuple[tuple[Fraction, Fraction, Fraction], ...] = ()
    if isinstance(prov, DenseProvider):
        nodes = tuple((e, prov.nodes[e][0], prov.nodes[e][1]) for e in sorted(prov.nodes))
    return tuple(pieces), nodes
