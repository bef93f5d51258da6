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

import functools
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, ClassVar

import flint
import numpy as np
from numpy.typing import NDArray

from exactdp.algebra.phi import entry_values_exact, phi_ball
from exactdp.algebra.symbolic import RationalSolution, rational_function_signs, verify_identity
from exactdp.arithmetic.ball import arb_from_fraction, arb_to_fraction_interval, workprec
from exactdp.arithmetic.interval import Enclosure
from exactdp.arithmetic.rationals import fmpq_to_fraction, to_fmpq
from exactdp.errors import REJECTED_ERRORS
from exactdp.kinds import Certificate, CertificateKind, Sign, Verdict, proved_by
from exactdp.linalg.arb_check import (
    check_enclosure_arb,
    check_enclosure_refined_arb,
    residual_enclosure_arb,
)
from exactdp.linalg.enclosure import FloatEnclosure
from exactdp.spaces.levels import PrivacyLevel
from exactdp.spaces.metrics import FiniteMetric
from exactdp.spaces.metrics.claims import kronecker_claim_error, same_distances

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
]


def _fmpq_column(values: tuple[Fraction, ...]) -> flint.fmpq_mat:
    return flint.fmpq_mat([[to_fmpq(v)] for v in values])


def _exact_phi_times(metric: FiniteMetric, level: PrivacyLevel,
                     x: tuple[Fraction, ...]) -> list[Fraction]:
    fvals = [to_fmpq(v) for v in entry_values_exact(metric, level)]
    phi = flint.fmpq_mat([[fvals[k] for k in row] for row in metric.index.tolist()])
    prod = phi * _fmpq_column(x)
    return [fmpq_to_fraction(e) for e in prod.entries()]


#: Highest precision (bits) that ``VerifiedFloatCertificate.verify()`` raises to.
VERIFY_MAX_PREC = 1024
#: A recorded precision above this is refused as malformed (a user may raise ``max_prec``
#: far above the default, but not to millions of bits).
_PREC_LIMIT = 1 << 20

_PRIMES = (4611686018427387847, 4611686018427387817, 4611686018427387787)


def exact_nonsingular(metric: FiniteMetric, level: PrivacyLevel) -> bool:
    """Exactly decide whether Φ is nonsingular at a level with rational s.

    Full rank modulo a prime p of the integer matrix b^K·Φ proves det Φ ≠ 0; if every
    prime tried divides the determinant, the exact rank over Q decides.

    >>> from exactdp.spaces.metrics import line
    >>> from exactdp.spaces.levels import parse_level
    >>> exact_nonsingular(line(5), parse_level(t="1/3"))
    True
    """
    entry_values_exact(metric, level)  # raises ExactnessRequired unless s is rational
    base = level.s_rational(metric.q or 1)
    assert base is not None
    a, b = base.numerator, base.denominator
    ks = metric.exponents
    kmax = max(ks)
    n = metric.n
    for p in _PRIMES:
        if a % p == 0 or b % p == 0:
            continue
        vals = [pow(a, k, p) * pow(b, kmax - k, p) % p for k in ks]
        mat = flint.nmod_mat([[vals[k] for k in row] for row in metric.index.tolist()], p)
        if mat.rank() == n:
            return True
    fv = [to_fmpq(v) for v in entry_values_exact(metric, level)]
    phi = flint.fmpq_mat([[fv[k] for k in row] for row in metric.index.tolist()])
    return bool(phi.rank() == n)


def _witness_ok(witness: int | None, n: int) -> bool:
    return isinstance(witness, int) and not isinstance(witness, bool) and 0 <= witness < n


def _never_raises(verify: Callable[[Any], bool]) -> Callable[[Any], bool]:
    """A tampered or malformed certificate makes ``verify()`` return False, never raise."""

    @functools.wraps(verify)
    def checked(self: Any) -> bool:
        try:
            return bool(verify(self))
        except Exception:  # noqa: BLE001 - any failure to re-check is "not verified"
            return False

    return checked


def _enclosure_ok(enclosure: Any, n: int) -> bool:
    return (isinstance(enclosure, tuple) and len(enclosure) == n
            and all(isinstance(e, Enclosure) and isinstance(e.lo, Fraction)
                    and isinstance(e.hi, Fraction) and e.lo <= e.hi for e in enclosure))


def _contained(ball: flint.arb, e: Enclosure) -> bool:
    """The ball lies inside [e.lo, e.hi], compared exactly."""
    if not ball.is_finite():
        return False
    lo, hi = arb_to_fraction_interval(ball)
    return e.lo <= lo and hi <= e.hi


@dataclass(frozen=True)
class ExactSolution:
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

    @_never_raises
    def verify(self) -> bool:
        """Multiply back exactly; for a negative entry also prove uniqueness (det Φ ≠ 0)."""
        if len(self.x) != self.metric.n or len(self.rhs) != self.metric.n:
            return False
        if _exact_phi_times(self.metric, self.level, self.x) != list(self.rhs):
            return False
        if self.holds:
            return all(v >= 0 for v in self.x)
        return any(v < 0 for v in self.x) and exact_nonsingular(self.metric, self.level)


@dataclass(frozen=True)
class FarkasCertificate:
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

    @_never_raises
    def verify(self) -> bool:
        """Φ is symmetric, so Φᵀy = Φy; check it is ≥ 0 and that b·y < 0, exactly."""
        if len(self.y) != self.metric.n or len(self.rhs) != self.metric.n:
            return False
        phi_y = _exact_phi_times(self.metric, self.level, self.y)
        return all(v >= 0 for v in phi_y) and sum(
            (b * y for b, y in zip(self.rhs, self.y)), Fraction(0)
        ) < 0


@dataclass(frozen=True)
class BallCertificate:
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

    @_never_raises
    def verify(self) -> bool:
        """Prove that the STORED enclosure contains Φ⁻¹b, and that the verdict follows from it.

        1. The verdict is read off the stored rational enclosure, exactly: "holds" needs every
           lower end > 0, "fails" the witness's upper end < 0.
        2. Containment, first by a route independent of ``arb_mat.solve``: a Krawczyk/Rump
           bound (``residual_enclosure_arb``) around the stored midpoints, with an
           approximate inverse R of Φ's midpoint matrix taken exactly, evaluated in balls at
           the recorded precision; every resulting ball must lie inside the stored interval
           (compared exactly). When that bound is too coarse, the ball solve is recomputed
           at the recorded precision and each of its balls must lie inside the stored
           interval. Either way the true solution is in the stored enclosure.
        """
        n = self.metric.n
        if len(self.rhs) != n or not _enclosure_ok(self.enclosure, n):
            return False
        if isinstance(self.precision, bool) or not isinstance(self.precision, int) or not (
                2 <= self.precision <= _PREC_LIMIT):
            return False
        if self.holds:
            if not all(e.lo > 0 for e in self.enclosure):
                return False
        else:
            if not _witness_ok(self.witness, n):
                return False
            assert self.witness is not None
            if not self.enclosure[self.witness].hi < 0:
                return False
        with workprec(self.precision):
            phi = phi_ball(self.metric, self.level)
            b = flint.arb_mat([[arb_from_fraction(v)] for v in self.rhs])
            if self._krawczyk_contains(phi, b):
                return True
            try:
                x = phi.solve(b)
            except ZeroDivisionError:
                return False
            return all(_contained(v, e) for v, e in zip(x.entries(), self.enclosure))

    def _krawczyk_contains(self, phi: flint.arb_mat, b: flint.arb_mat) -> bool:
        n = self.metric.n
        with workprec(self.precision):
            mid = flint.arb_mat(n, n, [flint.arb(e.mid()) for e in phi.entries()])
            try:
                inv = mid.inv()
            except ZeroDivisionError:
                return False
            R = flint.arb_mat(n, n, [flint.arb(e.mid()) for e in inv.entries()])
        with workprec(max(2 * self.precision, self.precision + 64)):
            m = [arb_from_fraction((e.lo + e.hi) / 2) for e in self.enclosure]
        balls = residual_enclosure_arb(phi, b, R, m, self.precision)
        return balls is not None and all(_contained(v, e) for v, e in zip(balls, self.enclosure))


@dataclass(frozen=True)
class VerifiedFloatCertificate:
    """Rigorous float enclosure [lo, hi] of the solution, from an approximate inverse R."""

    kind: ClassVar[CertificateKind] = CertificateKind.VERIFIED_FLOAT

    metric: FiniteMetric = field(repr=False)
    level: PrivacyLevel
    rhs: tuple[Fraction, ...] = field(repr=False)
    holds: bool
    witness: int | None
    R: NDArray[np.float64] = field(repr=False)
    enclosure: FloatEnclosure = field(repr=False)
    verify_precision: int = 64
    #: The precision at which the last successful ``verify()`` proved the enclosure.
    verified_precision: int | None = field(default=None, compare=False, repr=False)

    @property
    def verdict(self) -> Verdict:
        """``HOLDS`` or ``FAILS`` as claimed by ``holds``."""
        return Verdict.from_bool(bool(self.holds))

    @_never_raises
    def verify(self) -> bool:
        """Re-check the enclosure in flint ball arithmetic, then re-read the signs.

        The ball check starts at ``verify_precision`` bits and doubles, up to
        :data:`VERIFY_MAX_PREC`, until it proves the enclosure (a correct enclosure whose
        solution has tiny entries, e.g. a zero-entry prior at a large ε, needs more than 64
        bits); the precision that proved it is recorded in ``verified_precision``.
        """
        lo, hi = np.asarray(self.enclosure.lo), np.asarray(self.enclosure.hi)
        n = self.metric.n
        if lo.shape != (n,) or hi.shape != (n,) or len(self.rhs) != n:
            return False
        if self.holds:
            if not bool(np.all(lo > 0)):
                return False
        else:
            if not _witness_ok(self.witness, n) or not hi[self.witness] < 0:
                return False
        prec = self.verify_precision
        if isinstance(prec, bool) or not isinstance(prec, int) or not 2 <= prec <= VERIFY_MAX_PREC:
            return False  # a stated precision beyond the cap is refused, not attempted
        while prec <= VERIFY_MAX_PREC:
            with workprec(prec):
                phi = phi_ball(self.metric, self.level)
                b = flint.arb_mat([[arb_from_fraction(v)] for v in self.rhs])
                if (check_enclosure_arb(phi, b, self.R, self.enclosure, prec)
                        or check_enclosure_refined_arb(phi, b, self.R, self.enclosure, prec)):
                    object.__setattr__(self, "verified_precision", prec)
                    return True
            prec *= 2
        return False


@proved_by("kronecker_split")
@dataclass(frozen=True)
class KroneckerCertificate:
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

    @_never_raises
    def verify(self) -> bool:
        """Check Φ = ⊗Φ_k and b = ⊗b_k exactly, bind every factor certificate, re-check them."""
        factors: tuple[Any, ...] = tuple(self.factors)
        frhs = tuple(self.factor_rhs)
        if not factors or len(factors) != len(frhs) or len(self.rhs) != self.metric.n:
            return False
        if not all(isinstance(c, _ENGINE_TYPES) for c in factors):
            return False
        fms = tuple(c.metric for c in factors)
        # d(a, b) = Σ_k d_k(a_k, b_k) for every pair (row-major multi-indices), exactly:
        if kronecker_claim_error(self.metric, fms) is not None:
            return False
        for c, b in zip(factors, frhs):
            # each factor certificate answers the factor's own question at this level
            if c.level != self.level or tuple(c.rhs) != tuple(b) or len(b) != c.metric.n:
                return False
        sizes = [f.n for f in fms]
        for multi, v in zip(itertools.product(*(range(s) for s in sizes)), self.rhs, strict=True):
            prod = Fraction(1)
            for k, i in enumerate(multi):
                prod *= frhs[k][i]
            if prod != v:
                return False
        if any(all(v == 0 for v in b) or any(v < 0 for v in b) for b in frhs):
            return False
        if not all(c.verify() for c in factors):
            return False
        if self.holds:
            return all(c.verdict is Verdict.HOLDS for c in factors)
        # "fails" uses the lemma's ⇒ direction, which needs EVERY Φ_k invertible: ball and
        # verified-float certificates prove it by solving; exact ones are checked here;
        # the others do not prove it.
        for f, c in zip(fms, factors):
            if isinstance(c, (FarkasCertificate, KroneckerCertificate)):
                return False
            if isinstance(c, SymbolicCertificate) and c.holds:
                return False
            if isinstance(c, ExactSolution) and c.holds and not exact_nonsingular(f, c.level):
                return False
        return any(c.verdict is Verdict.FAILS for c in factors)


@dataclass(frozen=True)
class SymbolicCertificate:
    """z(s) = N(s)/D(s) exactly over Q(s), and the signs of z_i at this level.

    ``verify()`` re-checks the identity Φ(s)·N(s) = D(s)·b over Z[s] (modular, exact) for
    THIS certificate's metric and right-hand side (never the solution's own), then
    re-evaluates the sign of every N_i(s)/D(s) at the level's s in balls at the recorded
    precision, and for a "fails" verdict re-proves Φ nonsingular at the level (ball solve).
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

    @_never_raises
    def verify(self) -> bool:
        """Re-check the Q(s) identity exactly for this question, then the signs in balls."""
        sol, n = self.solution, self.metric.n
        if len(self.rhs) != n or sol.n != n or self.metric.q is None or sol.q != self.metric.q:
            return False
        if not verify_identity(self.metric, sol.numerators, sol.denominator, self.rhs):
            return False
        if isinstance(self.precision, bool) or not isinstance(self.precision, int) or not (
                2 <= self.precision <= _PREC_LIMIT):
            return False
        signs = rational_function_signs(sol, self.level, self.precision)
        if self.holds:
            # some N_i(s)·D(s) > 0 shows D(s) ≠ 0, so x = N(s)/D(s) solves Φx = b
            return (all(sg is Sign.POSITIVE or sg is Sign.ZERO for sg in signs)
                    and any(sg is Sign.POSITIVE for sg in signs))
        if not _witness_ok(self.witness, len(signs)):
            return False
        assert self.witness is not None
        if signs[self.witness] is not Sign.NEGATIVE:
            return False
        with workprec(self.precision):
            phi = phi_ball(self.metric, self.level)
            try:
                phi.solve(flint.arb_mat([[1]] * self.metric.n))
            except ZeroDivisionError:
                return False
        return True


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
