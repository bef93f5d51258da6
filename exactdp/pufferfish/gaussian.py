"""Gaussian noise with (ε, δ): δ for a given σ as a certified enclosure, and the least σ.

The release X + N(0, σ²) of a sum is (ε, δ)-Pufferfish private for a secret pair (P, Q) and
every population iff δ ≥ δ(σ) := max over the two directions of
∫ (g_P(y) − e^ε g_Q(y))_+ dy, g_P(y) = Σ_d P(d) φ_σ(y − d) (``proofs/pufferfish_gaussian.py``:
a point-mass rest is the worst case, by convexity of (·)_+; δ is non-increasing in σ).

δ(σ) is enclosed with balls by :func:`exactdp.pufferfish.hockey.hockey_stick` (finite sums of
normal CDF terms in arb on the pieces where the sign is certain).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy

from exactdp.arithmetic.ball import MAX_PREC, arb_to_fraction_interval, workprec
from exactdp.arithmetic.interval import Enclosure
from exactdp.arithmetic.rationals import to_sympy
from exactdp.arithmetic.validate import read_positive, read_probability, read_tol
from exactdp.engine.documents import write_dist
from exactdp.errors import (
    REJECTED_ERRORS,
    CertificateInvalid,
    InvalidPrivacyLevel,
    InvalidScale,
    NoNoiseNeeded,
    PrecisionLimitReached,
)
from exactdp.kernel.jsonio import envelope, read_enclosure, write_enclosure, write_rational
from exactdp.kernel.pufferfish_mechanisms import check_pufferfish_mechanisms, gaussian_work
from exactdp.kernel.question import read_level, write_level
from exactdp.kinds import CertificateKind, Sign, Verdict, proved_by
from exactdp.pufferfish.bernoulli_forms import exact_sign
from exactdp.pufferfish.distributions import DiscreteDistribution
from exactdp.pufferfish.hockey import GAUSSIAN, hockey_stick
from exactdp.pufferfish.loss import union_points
from exactdp.pufferfish.secrets import as_pair, pair_laws
from exactdp.pufferfish.staircase import read_checked
from exactdp.spaces.levels import PrivacyLevel, parse_level

__all__ = ["GaussianDelta", "gaussian_delta", "GaussianScale", "gaussian_scale", "noiseless_delta"]

def _read_sigma(sigma: Any) -> Fraction:
    return read_positive(sigma, "sigma (the Gaussian standard deviation σ)", InvalidScale)


def delta_width_ok(claimed: Enclosure, again: Enclosure, rel_tol: Any) -> bool:
    """A stored δ enclosure is in [0, 1] and no wider than rel_tol·max(lo, 10⁻³⁰), or than
    4× a tighter recomputation ``again`` (the width floor of the root pieces)."""
    tol = read_tol(rel_tol, "rel_tol", below_one=True)
    lo, hi = claimed.lo, claimed.hi
    return 0 <= lo <= hi <= 1 and (
        hi - lo <= tol * max(lo, Fraction(1, 10**30)) or hi - lo <= 4 * (again.hi - again.lo))


def _read_delta(delta: Any) -> Fraction:
    d = read_probability(delta, "delta", InvalidPrivacyLevel)
    if not 0 < d < 1:
        raise InvalidPrivacyLevel(
            f"Got delta={d}; δ must lie strictly between 0 and 1 (e.g. '1/100000').")
    return d


def _pair(P: DiscreteDistribution, Q: DiscreteDistribution, eps: sympy.Expr) -> dict[str, Any]:
    return {"P": write_dist(P.as_dict()), "Q": write_dist(Q.as_dict()), "level": write_level(parse_level(eps=eps))}


def _decidable(doc: dict[str, Any], P: DiscreteDistribution, Q: DiscreteDistribution, eps: sympy.Expr,
               sigma: Fraction, sigmas: int) -> dict[str, Any]:
    """``doc`` once the kernel decides it: first its work estimate (:func:`gaussian_work`, cheap), then
    the kernel's own check within its budget. InstanceTooLarge (naming MAX_GAUSS_WORK) or
    PrecisionLimitReached when the kernel would leave it undecided, CertificateInvalid if it rejects it."""
    level = parse_level(eps=eps)
    assert isinstance(level, PrivacyLevel)  # parse_level(eps=...) gives one
    gaussian_work(P.as_dict(), Q.as_dict(), sigma, level, sigmas)
    if not check_pufferfish_mechanisms(doc):
        raise CertificateInvalid(f"the kernel rejects this {doc['kind']} document; do not use it.")
    return doc


def _read_pair(q: dict[str, Any]) -> tuple[DiscreteDistribution, DiscreteDistribution, sympy.Expr]:
    level = read_level(q["level"], strict=True)
    laws = (DiscreteDistribution.from_lists(q[k]["support"], q[k]["probs"]) for k in ("P", "Q"))
    assert isinstance(level, PrivacyLevel)  # the kernel read it
    return (*laws, level.eps)


@dataclass(frozen=True)
class GaussianDelta:
    """Certified enclosure of δ(σ) at level ε: the least δ with (ε, δ)-privacy for every population.

    Attributes
    ----------
    P, Q : DiscreteDistribution
    sigma : Fraction
    eps : sympy.Expr
    delta : Enclosure
        lo ≤ δ(σ) ≤ hi.
    prec : int
    """

    P: DiscreteDistribution
    Q: DiscreteDistribution
    sigma: Fraction
    eps: sympy.Expr
    delta: Enclosure
    prec: int
    rel_tol: Fraction = Fraction(1, 10**6)

    def verify(self) -> bool:
        """Recompute the enclosure at twice the precision and a finer root width; it must
        overlap (both contain the true δ), lie in [0, 1] and be as narrow as ``rel_tol`` says
        (or as the recomputation, when the root pieces hit their 2⁻⁶⁰σ floor)."""
        try:
            again = gaussian_delta((self.P, self.Q), self.sigma, self.eps,
                                   prec=2 * self.prec, rel_tol=Fraction(1, 10**8))
            return (not (again.delta.hi < self.delta.lo or self.delta.hi < again.delta.lo)
                    and delta_width_ok(self.delta, again.delta, self.rel_tol))
        except REJECTED_ERRORS:
            return False


    def to_document(self) -> dict[str, Any]:
        """The ``pufferfish-gaussian-delta`` kernel document (question P, Q, σ, ε; claim the δ
        enclosure; ``prec`` and ``rel_tol`` as the writer's notes), re-checked by
        ``exactdp verify`` (``exactdp/kernel/pufferfish_mechanisms.py``) before it is returned:
        InstanceTooLarge beyond the kernel's limits (at most 64 points; the work estimate and
        budget ``MAX_GAUSS_WORK``, which grow with the points and with the sign changes of
        P − e^ε Q, at most m − 1: e.g. two interleaved uniform laws of 20 points each are over it).

        >>> from exactdp.pufferfish.secrets import ValuePair
        >>> r = gaussian_delta(ValuePair(1, 0), 1, 1)
        >>> GaussianDelta.from_document(r.to_document()) == r
        True
        """
        return _decidable(envelope(CertificateKind.PUFFERFISH_GAUSSIAN_DELTA,
                                   {**_pair(self.P, self.Q, self.eps), "sigma": write_rational(self.sigma)},
                                   {"delta": write_enclosure(self.delta)},
                                   {"prec": self.prec, "rel_tol": write_rational(self.rel_tol)}),
                          self.P, self.Q, self.eps, self.sigma, 1)

    @classmethod
    def from_document(cls, doc: Any) -> GaussianDelta:
        """Re-check ``doc`` in the kernel, then rebuild the result (CertificateInvalid when
        the kernel rejects it)."""
        q, c, ev = read_checked(doc, CertificateKind.PUFFERFISH_GAUSSIAN_DELTA)
        P, Q, eps = _read_pair(q)
        return cls(P, Q, Fraction(q["sigma"]), eps, read_enclosure(c["delta"]), ev["prec"],
                   Fraction(ev["rel_tol"]))


@proved_by("pufferfish_gaussian")
def gaussian_delta(pair: Any, sigma: Any, eps: Any, *, prec: int = 128,
                   rel_tol: Any = Fraction(1, 10**6)) -> GaussianDelta:
    """δ(σ) for the release X + N(0, σ²) at level ε, as a certified enclosure.

    ``pair``: a secret pair or a tuple ``(P, Q)`` of laws. The enclosure's width is at most
    about ``rel_tol``·δ (refined until then, or until the root pieces are 2⁻⁶⁰σ wide).
    Justified by ``proofs/pufferfish_gaussian.py``.

    >>> from exactdp.pufferfish.secrets import ValuePair
    >>> r = gaussian_delta(ValuePair(1, 0), 1, 1)
    >>> float(r.delta.lo) <= 0.12693673751 <= float(r.delta.hi)
    True
    """
    P, Q = pair_laws(pair)
    s = _read_sigma(sigma)
    level = parse_level(eps=eps)
    tol = read_tol(rel_tol, "rel_tol", below_one=True)
    width = s / 2**20
    while True:
        with workprec(prec):
            lo1, hi1 = hockey_stick(P, Q, GAUSSIAN, s, level, width)
            lo2, hi2 = hockey_stick(Q, P, GAUSSIAN, s, level, width)
            lo = arb_to_fraction_interval(lo1.max(lo2))[0]
            hi = arb_to_fraction_interval(hi1.max(hi2))[1]
        lo = max(lo, Fraction(0))
        if hi - lo <= tol * max(lo, Fraction(1, 10**30)) or width < s / 2**60:
            return GaussianDelta(P, Q, s, level.eps, Enclosure(lo, hi), prec, tol)
        width /= 2**8


@proved_by("pufferfish_gaussian")
def noiseless_delta(P: DiscreteDistribution, Q: DiscreteDistribution, eps: Any) -> sympy.Expr:
    """δ₀ = max over both directions of Σ_d (P(d) − e^ε Q(d))_+, exactly: the δ of the sum
    released with no noise, an upper bound on δ(σ) for every σ and its limit as σ → 0
    (``proofs/pufferfish_gaussian.py`` (4)).

    >>> from exactdp.pufferfish.distributions import bernoulli, point_mass
    >>> noiseless_delta(bernoulli("1/10"), point_mass(0), 1)
    1/10
    """
    big_e = sympy.exp(parse_level(eps=eps).eps)
    pp, qq = P.as_dict(), Q.as_dict()
    best: sympy.Expr = sympy.Integer(0)
    for a, b in ((pp, qq), (qq, pp)):
        total = sympy.Integer(0)
        for x in union_points(P, Q):
            term = to_sympy(a.get(x, Fraction(0))) - to_sympy(b.get(x, Fraction(0))) * big_e
            if exact_sign(term, max_prec=MAX_PREC) is Sign.POSITIVE:
                total += term
        if exact_sign(total - best, max_prec=MAX_PREC) is Sign.POSITIVE:
            best = total
    return best


@dataclass(frozen=True)
class GaussianScale:
    """The least σ for (ε, δ): δ(σ_lo) > δ (FAILS) and δ(σ_hi) < δ (HOLDS), certified."""

    P: DiscreteDistribution
    Q: DiscreteDistribution
    eps: sympy.Expr
    target_delta: Fraction
    lo: Fraction
    hi: Fraction
    at_lo: GaussianDelta
    at_hi: GaussianDelta

    def verify(self) -> bool:
        """Both enclosures verify, are about this result's own P, Q, ε and σ_lo, σ_hi, and lie
        strictly on their sides of the target δ ∈ (0, 1). A malformed result gives False."""
        try:
            level = parse_level(eps=self.eps)
            target = _read_delta(self.target_delta)
            if not (isinstance(self.lo, Fraction) and isinstance(self.hi, Fraction)
                    and 0 < self.lo < self.hi and target == self.target_delta):
                return False
            for side, sigma in ((self.at_lo, self.lo), (self.at_hi, self.hi)):
                if not (isinstance(side, GaussianDelta) and side.sigma == sigma
                        and side.P == self.P and side.Q == self.Q and side.eps == level.eps):
                    return False
            return (self.at_lo.delta.lo > target and self.at_hi.delta.hi < target
                    and self.at_lo.verify() and self.at_hi.verify())
        except REJECTED_ERRORS:
            return False


    def to_document(self) -> dict[str, Any]:
        """The ``pufferfish-gaussian-scale`` kernel document (question P, Q, ε, the target δ;
        claim the bracket and both δ enclosures; the two sides' ``prec`` / ``rel_tol`` as
        notes), re-checked by ``exactdp verify`` before it is returned (limits: as
        :meth:`GaussianDelta.to_document`, for two values of σ).

        >>> from exactdp.pufferfish.secrets import ValuePair
        >>> r = gaussian_scale(ValuePair(1, 0), 1, "1/100", rel_tol=Fraction(1, 1000))
        >>> GaussianScale.from_document(r.to_document()) == r
        True
        """
        sides = (self.at_lo, self.at_hi)
        return _decidable(envelope(
            CertificateKind.PUFFERFISH_GAUSSIAN_SCALE,
            {**_pair(self.P, self.Q, self.eps), "delta": write_rational(self.target_delta)},
            {"least": write_enclosure(Enclosure(self.lo, self.hi)),
             "at_lo": write_enclosure(self.at_lo.delta), "at_hi": write_enclosure(self.at_hi.delta)},
            {"prec": [r.prec for r in sides], "rel_tol": [write_rational(r.rel_tol) for r in sides]}),
            self.P, self.Q, self.eps, self.lo, 2)

    @classmethod
    def from_document(cls, doc: Any) -> GaussianScale:
        """Re-check ``doc`` in the kernel, then rebuild the result (CertificateInvalid when
        the kernel rejects it)."""
        q, c, ev = read_checked(doc, CertificateKind.PUFFERFISH_GAUSSIAN_SCALE)
        P, Q, eps = _read_pair(q)
        least = read_enclosure(c["least"])
        lo, hi = (GaussianDelta(P, Q, s, eps, read_enclosure(c[k]), p, Fraction(t))
                  for s, k, p, t in zip((least.lo, least.hi), ("at_lo", "at_hi"), ev["prec"], ev["rel_tol"]))
        return cls(P, Q, eps, Fraction(q["delta"]), least.lo, least.hi, lo, hi)


def _side(P: DiscreteDistribution, Q: DiscreteDistribution, sigma: Fraction, eps: sympy.Expr,
          target: Fraction, rel_tol: Fraction) -> tuple[Verdict, GaussianDelta]:
    r = gaussian_delta((P, Q), sigma, eps, rel_tol=rel_tol)
    if r.delta.hi < target:
        return Verdict.HOLDS, r
    if r.delta.lo > target:
        return Verdict.FAILS, r
    return Verdict.UNDECIDED, r


@proved_by("pufferfish_gaussian")
def gaussian_scale(pair: Any, eps: Any, delta: Any, *, rel_tol: Any = Fraction(1, 10**6)) -> GaussianScale:
    """The least σ with δ(σ) ≤ δ at level ε, bracketed by certified verdicts
    (δ(σ) is non-increasing in σ, ``proofs/pufferfish_gaussian.py``).

    >>> from exactdp.pufferfish.secrets import ValuePair
    >>> r = gaussian_scale(ValuePair(1, 0), 1, "1/100", rel_tol=Fraction(1, 1000))
    >>> 1.87 < float(r.lo) < float(r.hi) < 1.88, r.verify()
    (True, True)
    """
    pr = as_pair(pair)
    level = parse_level(eps=eps)
    target = _read_delta(delta)
    tol = read_tol(rel_tol, "rel_tol", below_one=True)
    P, Q = pr.P, pr.Q
    d0 = noiseless_delta(P, Q, level.eps)
    if exact_sign(to_sympy(target) - d0, max_prec=MAX_PREC) is not Sign.NEGATIVE:
        raise NoNoiseNeeded(
            f"Got delta={target} ≥ δ₀ = {d0} (≈ {float(d0):.6g}), the δ of releasing the sum "
            f"with NO noise at ε = {level.eps}"
            + "; every σ ≥ 0 meets it (proofs/pufferfish_gaussian.py (4)). "
            + ("P = Q: nothing to hide, no noise is needed for any δ > 0." if P == Q
               else "Ask for a δ below δ₀ to need noise."),
            evidence=d0,
        )
    pts = union_points(P, Q)
    hi = max(Fraction(1), pts[-1] - pts[0])
    v_hi, r_hi = _side(P, Q, hi, level.eps, target, tol / 100)
    while v_hi is not Verdict.HOLDS:
        hi *= 2
        v_hi, r_hi = _side(P, Q, hi, level.eps, target, tol / 100)
    lo = hi / 2
    v_lo, r_lo = _side(P, Q, lo, level.eps, target, tol / 100)
    while v_lo is not Verdict.FAILS:
        if v_lo is Verdict.HOLDS:
            hi, r_hi = lo, r_lo
        lo /= 2
        if lo < Fraction(1, 2**40):
            raise PrecisionLimitReached("δ(σ) stays below the target for tiny σ: no noise needed?")
        v_lo, r_lo = _side(P, Q, lo, level.eps, target, tol / 100)
    while hi - lo > tol * hi:
        mid = ((lo + hi) / 2).limit_denominator(max(2, int(16 / (hi - lo))))
        if not lo < mid < hi:
            mid = (lo + hi) / 2
        v, r = _side(P, Q, mid, level.eps, target, tol / 100)
        if v is Verdict.HOLDS:
            hi, r_hi = mid, r
        elif v is Verdict.FAILS:
            lo, r_lo = mid, r
        else:
            break  # δ(mid) within the enclosure width of the target: the bracket is as tight as balls allow
    return GaussianScale(P, Q, level.eps, target, lo, hi, r_lo, r_hi)
