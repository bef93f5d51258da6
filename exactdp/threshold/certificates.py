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
from typing import Any, ClassVar

from exactdp.algebra.algebraic import log_enclosure
from exactdp.arithmetic.interval import Enclosure
from exactdp.arithmetic.rounding import require_subnormals
from exactdp.engine.certificates import ExactSolution, FarkasCertificate, certificate_from_json
from exactdp.engine.documents import write_linear, write_threshold
from exactdp.errors import InvalidArgument, PrecisionLimitReached
from exactdp.kernel.jsonio import loads
from exactdp.kernel.threshold import ThresholdClaim, check_threshold
from exactdp.kernel.threshold_grid import GRID_THRESHOLD, read_grid_threshold
from exactdp.kernel.threshold_json import read_threshold
from exactdp.kernel.threshold_spd import (
    SPD_COVER,
    SPD_EPS_DISTANCE_LIMIT,
    SPD_POINT,
    SpdPointClaim,
)
from exactdp.kernel.threshold_spd import eps_in_range as spd_eps_in_range
from exactdp.kernel.threshold_spd_json import read_spd_point
from exactdp.kinds import CertificateKind, Verdict, proved_by
from exactdp.spaces.metrics import FiniteMetric
from exactdp.threshold.binding import (
    REJECTED_ERRORS,
    certificate_bounds,
    certificate_question,
    kronecker_structure_holds,
    product_rhs_holds,
    same_distances,
    same_rhs,
)
from exactdp.threshold.exact_certificate import ExactThresholdCertificate, ScaledExactCertificate, s_enclosure_of_eps
from exactdp.threshold.krawczyk_check import arb_mean_value_check
from exactdp.threshold.lemmas import lemma_holds
from exactdp.threshold.spd_certificates import (
    TAYLOR_ORDER,
    SpdCoverCertificate,
    SpdPointCertificate,
    fail_claim,
    metric_of_shape,
    rhs_of,
)

__all__ = [
    "Prop9Certificate",
    "ExactThresholdCertificate",
    "CoverCertificate",
    "KroneckerThresholdCertificate",
    "SpdPointCertificate",
    "SpdCoverCertificate",
    "TAYLOR_ORDER",
    "SPD_EPS_DISTANCE_LIMIT",
    "spd_eps_in_range",
    "s_enclosure_of_eps",
    "claims_failure",
    "fail_matches",
    "cover_frame_holds",
    "float_model_holds",
    "threshold_certificate_from_json",
]

@proved_by("prop9_ball_symmetric")
@dataclass(frozen=True)
class Prop9Certificate:
    """Ball-size symmetry ⇒ z = 1/Σ n_r e^{-εr} > 0 for every ε (Prop. 9,
    ``proofs/prop9_ball_symmetric.py``)."""

    metric: FiniteMetric = field(repr=False)
    rhs: tuple[Fraction, ...] | None = field(repr=False)
    kind: ClassVar[CertificateKind] = CertificateKind.PROP9

    @property
    def verdict(self) -> Verdict:
        """``HOLDS``: the property holds for every ε > 0."""
        return Verdict.HOLDS

    @property
    def eps_lower(self) -> Fraction:
        """0: nothing fails."""
        return Fraction(0)

    @property
    def eps_upper(self) -> Fraction:
        """0: the property holds for every ε > 0."""
        return Fraction(0)

    def threshold_claim(self) -> ThresholdClaim:
        """This certificate as the kernel's claim: ε* ∈ [0, 0] (raises on malformed fields)."""
        if not isinstance(self.metric, FiniteMetric):
            raise InvalidArgument(f"metric={self.metric!r} is not a FiniteMetric.")
        return ThresholdClaim("prop9", self.metric, rhs_of(self.rhs, self.metric.n),
                              Enclosure(Fraction(0), Fraction(0)), {})

    def verify(self) -> bool:
        """Recount the distance multiset of every row exactly; rhs must be constant > 0
        (the kernel's ``prop9`` check). Never raises."""
        return _kernel_or_python(self)

    def to_json(self) -> dict[str, Any]:
        """The certificate as a JSON document (:mod:`exactdp.kernel.threshold_json`)."""
        return write_threshold(self.threshold_claim())


def _kernel_or_python(cert: Any) -> bool:
    """The kernel's check; a certificate with a part that has no kernel form (its
    ``threshold_claim()`` raises InvalidArgument) is checked by the same rules in Python
    (its ``_verify()``). False, never an exception, when malformed."""
    try:
        claim = cert.threshold_claim()
    except InvalidArgument:
        try:
            return bool(cert._verify())
        except REJECTED_ERRORS:
            return False
    except REJECTED_ERRORS:
        return False
    return check_threshold(claim)


def threshold_certificate_from_json(doc: Any) -> Any:
    """Rebuild a threshold certificate from its JSON document (parsed or text).

    Raises :class:`~exactdp.errors.InvalidArgument` for a malformed document and
    :class:`~exactdp.errors.CertificateInvalid` for an altered question. The rebuilt
    certificate is only as good as its ``verify()``.

    >>> from exactdp.spaces.metrics import cycle
    >>> from exactdp.kernel.jsonio import dumps
    >>> cert = Prop9Certificate(cycle(5), None)
    >>> again = threshold_certificate_from_json(dumps(cert.to_json()))
    >>> again.to_json() == cert.to_json(), again.verify()
    (True, True)
    """
    doc = loads(doc) if isinstance(doc, (str, bytes)) else doc
    if isinstance(doc, dict) and doc.get("kind") == SPD_POINT:
        return _from_fail(read_spd_point(doc))
    if isinstance(doc, dict) and doc.get("kind") == CertificateKind.EXACT_SCALED:
        return ScaledExactCertificate.from_json(doc, threshold_certificate_from_json)
    if isinstance(doc, dict) and doc.get("kind") == GRID_THRESHOLD:
        g = read_grid_threshold(doc)
        metric = metric_of_shape(g.shape)
        index, upper, lam = g.fail
        fail = _from_fail(SpdPointClaim(metric, g.rhs, g.eps.lo, index, upper, Fraction(0), lam))
        return SpdCoverCertificate(metric, g.rhs, g.eps.lo, g.eps.hi, fail, g.t0, (), g.pieces,
                                   g.order)
    return _from_claim(read_threshold(doc))


def _from_fail(fail: Any) -> Any:
    """The certificate object of a fail-side claim (spd-point or linear-system)."""
    if isinstance(fail, SpdPointClaim):
        upper: Any = fail.upper  # a float bound round-trips as that float; a huge one stays exact
        upper = float(upper) if abs(upper) < 2**1024 and Fraction(float(upper)) == upper else upper
        return SpdPointCertificate(fail.metric, fail.rhs, fail.eps, fail.index, fail.sigma,
                                   fail.lam, upper)
    return certificate_from_json(write_linear(fail))


def _from_claim(c: ThresholdClaim) -> Any:
    rhs = None if all(v == 1 for v in c.rhs) else c.rhs
    if c.kind == "prop9":
        return Prop9Certificate(c.metric, rhs)
    if c.kind == "exact":
        return ExactThresholdCertificate.from_claim(c)
    ev = c.evidence
    if c.kind == "certified-cover":
        return CoverCertificate(c.metric, c.rhs, c.eps.lo, c.eps.hi, _from_fail(ev["fail"]),
                                ev["t0"], tuple((p.lo, p.hi) for p in ev["pieces"]))
    if c.kind == SPD_COVER:
        return SpdCoverCertificate(c.metric, c.rhs, c.eps.lo, c.eps.hi, _from_fail(ev["fail"]),
                                   ev["t0"], ev["nodes"], ev["pieces"], ev["order"])
    return KroneckerThresholdCertificate(c.metric, rhs, tuple(_from_claim(f) for f in ev["factors"]),
                                         ev["binding"], c.eps.lo, c.eps.hi)


def float_model_holds(where: str) -> bool:
    """The IEEE rounding model with subnormals kept holds in this process (F1/F2).

    ``verify()`` of a certificate whose re-check uses the float rounding analysis returns
    False (never raises) when subnormals are flushed to zero.
    """
    try:
        require_subnormals(where)
    except PrecisionLimitReached:
        return False
    return True


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
    if not same_distances(fm, metric):
        return False
    if not same_rhs(getattr(fail, "rhs", ()), rhs, metric.n):
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
    if not lemma_holds(metric, rhs, t0, exact=True):
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
      Krawczyk argument (:mod:`exactdp.threshold.krawczyk`,
      ``proofs/krawczyk_mean_value.py``) proves z(ε) > 0 for every ε in [a, b].

    ``verify()`` recomputes everything from the metric, independently of the search's
    floating-point rounding analysis: every range is re-proved in arb ball arithmetic
    (:func:`exactdp.threshold.krawczyk_check.arb_mean_value_check`; floats are only
    candidates), the perturbation lemma's row sums are exact rationals, and the fail side
    is re-checked by its own certificate's ``verify``. Nothing in it depends on the float
    rounding model (so not on subnormals being kept).
    """

    metric: FiniteMetric = field(repr=False)
    rhs: tuple[Fraction, ...] = field(repr=False)
    eps_lower: Fraction
    eps_upper: Fraction
    fail: Any = field(repr=False)
    t0: Fraction
    pieces: tuple[tuple[Fraction, Fraction], ...] = field(repr=False)
    kind: ClassVar[CertificateKind] = CertificateKind.CERTIFIED_COVER

    @property
    def verdict(self) -> Verdict:
        """``HOLDS``: the claim ε* ∈ [eps_lower, eps_upper] is certified."""
        return Verdict.HOLDS

    def threshold_claim(self) -> ThresholdClaim:
        """This certificate as the kernel's claim (``certified-cover``); raises when malformed
        or when the fail side has no kernel form (an SPD point on a matrix-free grid)."""
        if not isinstance(self.metric, FiniteMetric):
            raise InvalidArgument(f"metric={self.metric!r} is not a FiniteMetric.")
        return ThresholdClaim("certified-cover", self.metric, rhs_of(self.rhs, self.metric.n),
                              Enclosure(self.eps_lower, self.eps_upper),
                              {"fail": fail_claim(self.fail), "t0": self.t0,
                               "pieces": tuple(Enclosure(a, b) for a, b in self.pieces)})

    def to_json(self) -> dict[str, Any]:
        """The certificate as a JSON document (:mod:`exactdp.kernel.threshold_json`)."""
        return write_threshold(self.threshold_claim())

    def verify(self) -> bool:
        """Re-check the fail certificate, the lemma at t0, and every piece in arb balls, in
        the kernel (``certified-cover``); a fail side without a kernel form (an SPD point)
        is checked by the same rules in Python (:meth:`_verify`).

        Never raises: a malformed certificate is rejected.
        """
        return _kernel_or_python(self)

    def _verify(self) -> bool:
        if not cover_frame_holds(self.metric, self.rhs, self.eps_lower, self.eps_upper,
                                 self.fail, self.t0, list(self.pieces)):
            return False
        return all(arb_mean_value_check(self.metric, self.rhs, a, b) for a, b in self.pieces)


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
    kind: ClassVar[CertificateKind] = CertificateKind.KRONECKER_THRESHOLD

    @property
    def verdict(self) -> Verdict:
        """``HOLDS``: the claim ε* ∈ [eps_lower, eps_upper] is certified factor by factor."""
        return Verdict.HOLDS

    def threshold_claim(self) -> ThresholdClaim:
        """This certificate as the kernel's claim, each factor's certificate as its own claim
        (raises when malformed, or when a factor's certificate has no kernel form yet)."""
        if not isinstance(self.metric, FiniteMetric):
            raise InvalidArgument(f"metric={self.metric!r} is not a FiniteMetric.")
        certs = [getattr(res, "certificate", res) for res in self.factor_results]
        if not all(callable(getattr(c, "threshold_claim", None)) for c in certs):
            raise InvalidArgument("a factor certificate has no kernel form (threshold_claim).")
        return ThresholdClaim("kronecker-threshold", self.metric,
                              rhs_of(self.rhs, self.metric.n),
                              Enclosure(self.eps_lower, self.eps_upper),
                              {"factors": tuple(c.threshold_claim() for c in certs),
                               "binding": self.binding})

    def to_json(self) -> dict[str, Any]:
        """The certificate as a JSON document (:mod:`exactdp.kernel.threshold_json`)."""
        return write_threshold(self.threshold_claim())

    def verify(self) -> bool:
        """Re-check in the kernel (``kronecker-threshold``): the factors' metrics reproduce
        this metric exactly (d(x, y) = Σ_k d_k(x_k, y_k) for every pair;
        ``metric.kronecker_factors`` is not trusted), b = ⊗ b_k, every factor claim is
        re-proved from its own certificate (result fields are ignored), and
        eps_upper ≥ max_k eps_upper_k, eps_lower = eps_lower_b of the binding factor b.

        A factor certificate without a kernel form (the SPD Taylor cover) is checked by
        the same rules in Python (:meth:`_verify`). Never raises.
        """
        return _kernel_or_python(self)

    def _verify(self) -> bool:
        if not isinstance(self.metric, FiniteMetric) or not self.factor_results:
            return False
        if not (isinstance(self.eps_lower, Fraction) and isinstance(self.eps_upper, Fraction)):
            return False
        if not 0 <= self.eps_lower <= self.eps_upper:
            return False
        if not 0 <= self.binding < len(self.factor_results):
            return False
        certs = [getattr(res, "certificate", res) for res in self.factor_results]
        questions = [certificate_question(c) for c in certs]
        if any(qn is None for qn in questions):
            return False
        fmetrics = [qn[0] for qn in questions if qn is not None]
        frhs = [qn[1] for qn in questions if qn is not None]
        if not kronecker_structure_holds(self.metric, fmetrics):
            return False
        if not product_rhs_holds(self.rhs, frhs, [f.n for f in fmetrics]):
            return False
        if any(r is not None and min(Fraction(v) for v in r) <= 0 for r in frhs):
            return False  # the sign lemma needs every b_k > 0 (π_k > 0 when π > 0)
        bounds = []
        for c in certs:
            bd = certificate_bounds(c)
            if bd is None or not c.verify():
                return False
            bounds.append(bd)
        if self.eps_upper < max(hi for _, hi in bounds):
            return False
        return bounds[self.binding][0] == self.eps_lower
