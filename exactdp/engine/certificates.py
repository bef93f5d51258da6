"""Certificates: frozen records of *why* an answer is right, each with ``verify()``.

``verify()`` re-checks the claim by a short routine that does not reuse the solver
that produced it: exact certificates multiply back in exact arithmetic, ball
certificates recompute the enclosure from scratch at the recorded precision, and
verified-float certificates are re-checked in flint ball arithmetic.

The claim certified everywhere here is about one linear system Φx = b (b = 1 for
tight constraints, b = π for regularity; Φ symmetric, so αΦ = π ⇔ Φα = π). Every
certificate states it the same way: ``holds`` (True: a solution x ≥ 0 exists; False:
none does), ``verdict`` (the same claim as a :class:`~exactdp.kinds.Verdict`) and
``kind`` (its :class:`~exactdp.kinds.CertificateKind`):

* :class:`ExactSolution` — x solves Φx = b exactly. With every x_i ≥ 0 this proves a
  nonnegative solution exists; with some x_i < 0 *and* Φ nonsingular (checked too),
  the solution is unique, so none is nonnegative.
* :class:`FarkasCertificate` — y with Φᵀy ≥ 0 and bᵀy < 0: no x ≥ 0 solves Φx = b
  (for any x ≥ 0, 0 ≤ (Φᵀy)ᵀx = yᵀb < 0 would be a contradiction).
* :class:`BallCertificate` — a rational enclosure of x at the recorded precision;
  ``verify()`` proves that the STORED enclosure contains x (Krawczyk in balls, or the
  ball solve recomputed and contained in it) and reads the verdict from it.
* :class:`VerifiedFloatCertificate` — a float approximate inverse R and a rigorous
  componentwise enclosure [lo, hi] of x (Krawczyk-type bound); re-checked in arb, at a
  precision raised until it is proved (recorded in ``verified_precision``).
* :class:`KroneckerCertificate` — Φ = ⊗Φ_k, b = ⊗b_k and one certificate per factor,
  each bound to its factor's metric, right-hand side and this level.
* :class:`SymbolicCertificate` — z(s) = N(s)/D(s) exactly over Q(s) and its signs; the
  identity is re-checked for the certificate's own metric and right-hand side.

Every ``verify()`` re-derives what it needs from the question (metric, right-hand side,
level), re-checks every stored claim, and returns False (never raises) on tampered or
malformed data.

Examples
--------
>>> from exactdp.spaces.metrics import line
>>> from exactdp.spaces.levels import parse_level
>>> lvl = parse_level(t="1/2")
>>> cert = ExactSolution(line(2), lvl, (Fraction(1), Fraction(1)),
...                      (Fraction(2, 3), Fraction(2, 3)), holds=True)
>>> cert.kind, cert.verdict, cert.verify()
(<CertificateKind.EXACT_SOLUTION: 'exact-solution'>, <Verdict.HOLDS: 'holds'>, True)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, ClassVar

import flint
import numpy as np
from numpy.typing import NDArray

from exactdp.algebra.phi import entry_values_exact
from exactdp.algebra.symbolic import RationalSolution
from exactdp.arithmetic.interval import Enclosure
from exactdp.engine.documents import write_linear
from exactdp.errors import REJECTED_ERRORS, InvalidArgument
from exactdp.kernel.jsonio import loads
from exactdp.kernel.linear import MAX_CHECK_PREC, LinearClaim, check_linear, nonsingular_exact
from exactdp.kernel.linear_json import read_linear
from exactdp.kinds import Certificate, CertificateKind, Verdict, proved_by
from exactdp.linalg.enclosure import FloatEnclosure
from exactdp.spaces.levels import PrivacyLevel
from exactdp.spaces.metrics import FiniteMetric
from exactdp.spaces.metrics.claims import same_distances

__all__ = [
    "answers_question",
    "ENGINE_CERTIFICATE_TYPES",
    "Certificate",
    "ExactSolution",
    "FarkasCertificate",
    "BallCertificate",
    "VerifiedFloatCertificate",
    "KroneckerCertificate",
    "SymbolicCertificate",
    "EngineCertificate",
    "exact_nonsingular",
    "certificate_from_json",
]


#: Highest precision (bits) that a ball re-check doubles to (the kernel's limit).
VERIFY_MAX_PREC = MAX_CHECK_PREC


def exact_nonsingular(metric: FiniteMetric, level: PrivacyLevel) -> bool:
    """Exactly decide whether Φ is nonsingular at a level with rational s.

    Full rank modulo a prime p of the integer matrix b^K·Φ proves det Φ ≠ 0; if every
    prime tried divides the determinant, the exact rank over Q decides (the kernel's
    :func:`~exactdp.kernel.linear.nonsingular_exact`).

    >>> from exactdp.spaces.metrics import line
    >>> from exactdp.spaces.levels import parse_level
    >>> exact_nonsingular(line(5), parse_level(t="1/3"))
    True
    """
    entry_values_exact(metric, level)  # raises ExactnessRequired unless s is rational
    s = level.s_rational(metric.q or 1)
    assert s is not None
    return nonsingular_exact(metric, s)


class _KernelChecked:
    """``verify()`` and ``to_json()`` of every engine certificate: the kernel re-checks
    :meth:`linear_claim`, the claim with the question it answers and its evidence."""

    def linear_claim(self) -> LinearClaim:
        """This certificate as the kernel's claim (each certificate type defines it)."""
        raise InvalidArgument(f"{type(self).__name__} does not state a linear claim.")

    def verify(self) -> bool:
        """Re-check every claim in the kernel (:func:`~exactdp.kernel.linear.check_linear`);
        False, never an exception, on tampered or malformed data."""
        try:
            claim = self.linear_claim()
        except REJECTED_ERRORS:
            return False
        return check_linear(claim)

    def to_json(self) -> dict[str, Any]:
        """The certificate as a JSON document (:mod:`exactdp.kernel.linear_json`)."""
        return write_linear(self.linear_claim())


@dataclass(frozen=True)
class ExactSolution(_KernelChecked):
    """x with Φx = b exactly (and, when x has a negative entry, Φ nonsingular).

    Attributes
    ----------
    x : tuple of Fraction
        The exact solution.
    holds : bool
        Whether every x_i ≥ 0 (the claim this certificate supports; ``nonnegative`` is
        the same value under its historical name).
    """

    kind: ClassVar[CertificateKind] = CertificateKind.EXACT_SOLUTION

    metric: FiniteMetric = field(repr=False)
    level: PrivacyLevel
    rhs: tuple[Fraction, ...] = field(repr=False)
    x: tuple[Fraction, ...] = field(repr=False)
    holds: bool

    @property
    def verdict(self) -> Verdict:
        """``HOLDS`` when every x_i ≥ 0, else ``FAILS``."""
        return Verdict.from_bool(bool(self.holds))

    @property
    def nonnegative(self) -> bool:
        """The historical name of :attr:`holds`."""
        return self.holds

    def linear_claim(self) -> LinearClaim:
        return LinearClaim("exact-solution", self.metric, self.level, tuple(self.rhs), self.holds,
                           {"x": tuple(self.x)})



@dataclass(frozen=True)
class FarkasCertificate(_KernelChecked):
    """y with Φᵀy ≥ 0 and bᵀy < 0 (exact): Φx = b has no solution x ≥ 0.

    ``holds`` is always False (the certificate proves that the property fails).
    """

    kind: ClassVar[CertificateKind] = CertificateKind.FARKAS

    metric: FiniteMetric = field(repr=False)
    level: PrivacyLevel
    rhs: tuple[Fraction, ...] = field(repr=False)
    y: tuple[Fraction, ...] = field(repr=False)

    @property
    def holds(self) -> bool:
        """Always False: a Farkas vector proves that no x ≥ 0 solves Φx = b."""
        return False

    @property
    def verdict(self) -> Verdict:
        """Always ``FAILS``."""
        return Verdict.FAILS

    def linear_claim(self) -> LinearClaim:
        return LinearClaim("farkas", self.metric, self.level, tuple(self.rhs), False,
                           {"y": tuple(self.y)})



@dataclass(frozen=True)
class BallCertificate(_KernelChecked):
    """A ball enclosure of the unique solution at ``precision`` bits settles the signs.

    ``holds`` True: every enclosure is > 0. ``holds`` False: ``witness`` has an enclosure < 0.
    """

    kind: ClassVar[CertificateKind] = CertificateKind.BALL

    metric: FiniteMetric = field(repr=False)
    level: PrivacyLevel
    rhs: tuple[Fraction, ...] = field(repr=False)
    precision: int
    holds: bool
    witness: int | None
    enclosure: tuple[Enclosure, ...] = field(repr=False)

    @property
    def verdict(self) -> Verdict:
        """``HOLDS`` or ``FAILS`` as claimed by ``holds``."""
        return Verdict.from_bool(bool(self.holds))

    def linear_claim(self) -> LinearClaim:
        return LinearClaim("ball", self.metric, self.level, tuple(self.rhs), self.holds,
                           {"enclosure": tuple(self.enclosure), "witness": self.witness,
                            "precision": self.precision})



@dataclass(frozen=True)
class VerifiedFloatCertificate(_KernelChecked):
    """Rigorous float enclosure [lo, hi] of the solution, from an approximate inverse R.

    ``R`` is the search's evidence only: the kernel re-checks the enclosure (its float
    endpoints read as exact dyadic rationals) without it, so a certificate read from JSON
    has ``R = None``.
    """

    kind: ClassVar[CertificateKind] = CertificateKind.VERIFIED_FLOAT

    metric: FiniteMetric = field(repr=False)
    level: PrivacyLevel
    rhs: tuple[Fraction, ...] = field(repr=False)
    holds: bool
    witness: int | None
    R: NDArray[np.float64] | None = field(repr=False, compare=False)
    enclosure: FloatEnclosure = field(repr=False)
    verify_precision: int = 64

    @property
    def verdict(self) -> Verdict:
        """``HOLDS`` or ``FAILS`` as claimed by ``holds``."""
        return Verdict.from_bool(bool(self.holds))

    def linear_claim(self) -> LinearClaim:
        return LinearClaim("verified-float", self.metric, self.level, tuple(self.rhs), self.holds,
                           {"enclosure": _exact_enclosure(self.enclosure, self.metric.n),
                            "witness": self.witness, "precision": self.verify_precision,
                            "R": self.R})



@proved_by("kronecker_split")
@dataclass(frozen=True)
class KroneckerCertificate(_KernelChecked):
    """Φ = Φ_1 ⊗ … ⊗ Φ_m and b = b_1 ⊗ … ⊗ b_m (b_k ≥ 0, nonzero); per-factor certificates.

    Lemma (proofs/kronecker_split.py): with every Φ_k invertible, the unique solution
    x = ⊗x_k is ≥ 0 iff every x_k ≥ 0. A factor that *holds* is certified by its own
    certificate; a factor that *fails* must also prove Φ_k invertible, which every failing
    certificate here does except the LP one (never used for a Kronecker split).

    The factor metrics are those of the factor certificates: ``verify()`` checks from the
    distances that the product really factors over them, that each factor certificate
    answers the question for its factor (its own right-hand side ``factor_rhs[k]`` and this
    certificate's level), and only then re-checks each factor certificate.
    """

    kind: ClassVar[CertificateKind] = CertificateKind.KRONECKER

    metric: FiniteMetric = field(repr=False)
    level: PrivacyLevel
    rhs: tuple[Fraction, ...] = field(repr=False)
    factor_rhs: tuple[tuple[Fraction, ...], ...] = field(repr=False)
    factors: tuple[Certificate, ...]
    holds: bool

    @property
    def verdict(self) -> Verdict:
        """``HOLDS`` or ``FAILS`` as claimed by ``holds``."""
        return Verdict.from_bool(bool(self.holds))

    def linear_claim(self) -> LinearClaim:
        return LinearClaim("kronecker", self.metric, self.level, tuple(self.rhs), self.holds,
                           {"factors": _factor_claims(self.factors, self.factor_rhs)})



@dataclass(frozen=True)
class SymbolicCertificate(_KernelChecked):
    """z(s) = N(s)/D(s) exactly over Q(s), and the signs of z_i at this level.

    ``verify()`` re-checks the identity Φ(s)·N(s) = D(s)·b over Q[s] for THIS certificate's
    metric and right-hand side (never the solution's own), then the sign of every
    N_i(s)/D(s) at the level's s (exactly at rational s, else in balls at the recorded
    precision), and for a "fails" verdict re-proves Φ nonsingular at the level.
    """

    kind: ClassVar[CertificateKind] = CertificateKind.SYMBOLIC

    metric: FiniteMetric = field(repr=False)
    level: PrivacyLevel
    rhs: tuple[Fraction, ...] = field(repr=False)
    solution: RationalSolution = field(repr=False)
    holds: bool
    witness: int | None
    precision: int

    @property
    def verdict(self) -> Verdict:
        """``HOLDS`` or ``FAILS`` as claimed by ``holds``."""
        return Verdict.from_bool(bool(self.holds))

    def linear_claim(self) -> LinearClaim:
        return LinearClaim("symbolic", self.metric, self.level, tuple(self.rhs), self.holds,
                           {"numerators": tuple(_descending(p) for p in self.solution.numerators),
                            "denominator": _descending(self.solution.denominator),
                            "witness": self.witness, "precision": self.precision})



_ENGINE_TYPES = (ExactSolution, FarkasCertificate, BallCertificate, VerifiedFloatCertificate,
                 KroneckerCertificate, SymbolicCertificate)

#: Every certificate the engine emits.
EngineCertificate = (ExactSolution | FarkasCertificate | BallCertificate | VerifiedFloatCertificate
                     | KroneckerCertificate | SymbolicCertificate)
ENGINE_CERTIFICATE_TYPES = (ExactSolution, FarkasCertificate, BallCertificate, VerifiedFloatCertificate,
                            KroneckerCertificate, SymbolicCertificate)


def answers_question(cert: Any, metric: FiniteMetric, level: PrivacyLevel,
                     rhs: tuple[Fraction, ...], holds: bool) -> bool:
    """True when ``cert`` is a certificate about exactly this question — the same distances
    (compared exactly, not by name), the same level, the same right-hand side — that claims
    ``holds`` and passes its own ``verify()``. Used by the results' ``verify()`` so that a
    certificate of another question cannot stand behind a result.
    """
    try:
        return (
            isinstance(cert, ENGINE_CERTIFICATE_TYPES)
            and same_distances(cert.metric, metric)
            and cert.level == level
            and tuple(cert.rhs) == tuple(rhs)
            and bool(cert.holds) is bool(holds)
            and cert.verify()
        )
    except REJECTED_ERRORS:
        return False


def _exact_enclosure(enc: FloatEnclosure, n: int) -> tuple[Enclosure, ...]:
    """The float endpoints as exact rationals (a NaN or ±inf endpoint is malformed)."""
    lo, hi = np.asarray(enc.lo, dtype=np.float64), np.asarray(enc.hi, dtype=np.float64)
    if lo.shape != (n,) or hi.shape != (n,):
        raise InvalidArgument(f"the enclosure has shapes {lo.shape}, {hi.shape}; need ({n},)")
    return tuple(Enclosure(Fraction(float(a)), Fraction(float(b))) for a, b in zip(lo, hi))


def _factor_claims(factors: Any, factor_rhs: Any) -> tuple[LinearClaim, ...]:
    """Each factor certificate's claim; its own right-hand side must be ``factor_rhs[k]``."""
    factors, frhs = tuple(factors), tuple(factor_rhs)
    if len(factors) != len(frhs) or not all(isinstance(c, _KernelChecked) for c in factors):
        raise InvalidArgument("one certificate of an engine type per factor right-hand side needed")
    claims = tuple(c.linear_claim() for c in factors)
    if any(tuple(c.rhs) != tuple(b) for c, b in zip(claims, frhs)):
        raise InvalidArgument("a factor certificate answers another right-hand side")
    return claims


def _descending(poly: flint.fmpz_poly) -> tuple[int, ...]:
    """Integer coefficients, leading first; the zero polynomial is (0,)."""
    return tuple(int(c) for c in reversed(poly.coeffs())) or (0,)


def certificate_from_json(doc: Any) -> EngineCertificate:
    """Rebuild an engine certificate from its JSON document (parsed or text).

    Raises :class:`~exactdp.errors.InvalidArgument` for a malformed document and
    :class:`~exactdp.errors.CertificateInvalid` for an altered question. The rebuilt
    certificate is only as good as its ``verify()``.

    >>> from exactdp.tight import tight_constraints
    >>> from exactdp.spaces.metrics import line
    >>> from exactdp.kernel.jsonio import dumps
    >>> cert = tight_constraints(line(3), t="1/2").certificate
    >>> again = certificate_from_json(dumps(cert.to_json()))
    >>> again.to_json() == cert.to_json(), again.verify()
    (True, True)
    """
    return _from_claim(read_linear(loads(doc) if isinstance(doc, (str, bytes)) else doc))


def _from_claim(c: LinearClaim) -> EngineCertificate:
    ev, base = c.evidence, (c.metric, c.level, c.rhs)
    if c.kind == "exact-solution":
        return ExactSolution(*base, ev["x"], c.holds)
    if c.kind == "farkas":
        return FarkasCertificate(*base, ev["y"])
    if c.kind == "ball":
        return BallCertificate(*base, ev["precision"], c.holds, ev["witness"], ev["enclosure"])
    if c.kind == "verified-float":
        lo = [float(e.lo) for e in ev["enclosure"]]
        hi = [float(e.hi) for e in ev["enclosure"]]
        if any(Fraction(a) != e.lo or Fraction(b) != e.hi
               for a, b, e in zip(lo, hi, ev["enclosure"])):
            raise InvalidArgument("claim.enclosure: a verified-float enclosure has double "
                                  "endpoints; write it as kind \"ball\" instead.")
        enc = FloatEnclosure(np.array(lo), np.array(hi), float("nan"),
                             (np.array(lo) + np.array(hi)) / 2, "read from JSON")
        return VerifiedFloatCertificate(*base, c.holds, ev["witness"], None, enc, ev["precision"])
    if c.kind == "symbolic":
        sol = RationalSolution(c.metric, tuple(flint.fmpz_poly(list(reversed(p)))
                                               for p in ev["numerators"]),
                               flint.fmpz_poly(list(reversed(ev["denominator"]))),
                               c.metric.q or 1, c.rhs, method="read from JSON")
        return SymbolicCertificate(*base, sol, c.holds, ev["witness"], ev["precision"])
    factors = tuple(_from_claim(f) for f in ev["factors"])
    return KroneckerCertificate(*base, tuple(f.rhs for f in ev["factors"]), factors, c.holds)
