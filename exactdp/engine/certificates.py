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
* :class:`BallCertificate` — at the recorded precision, flint's ``arb_mat.solve``
  proves Φ (every matrix in the ball) nonsingular and encloses x; the signs of the
  enclosure settle the question.
* :class:`VerifiedFloatCertificate` — a float approximate inverse R and a rigorous
  componentwise enclosure [lo, hi] of x (Krawczyk-type bound); re-checked in arb.
* :class:`KroneckerCertificate` — Φ = ⊗Φ_k, b = ⊗b_k and one certificate per factor.
* :class:`SymbolicCertificate` — z(s) = N(s)/D(s) exactly over Q(s) and its signs.

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

import itertools
from dataclasses import dataclass, field
from fractions import Fraction
from typing import ClassVar

import flint
import numpy as np
from numpy.typing import NDArray

from exactdp.algebra.phi import entry_values_exact, phi_ball
from exactdp.algebra.symbolic import RationalSolution, rational_function_signs
from exactdp.arithmetic.ball import arb_from_fraction, workprec
from exactdp.arithmetic.interval import Enclosure
from exactdp.arithmetic.rationals import fmpq_to_fraction, to_fmpq
from exactdp.arithmetic.rounding import float_down, float_up
from exactdp.kinds import Certificate, CertificateKind, Sign, Verdict, proved_by
from exactdp.linalg.arb_check import check_enclosure_arb
from exactdp.linalg.enclosure import FloatEnclosure
from exactdp.spaces.levels import PrivacyLevel
from exactdp.spaces.metrics import FiniteMetric

__all__ = [
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
    return isinstance(witness, int) and 0 <= witness < n


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

    def verify(self) -> bool:
        """Re-check the enclosure by a routine independent of ``arb_mat.solve``.

        The stored rational enclosure is rounded outward to a float box and proved to
        contain Φ⁻¹b by a Krawczyk test evaluated in arb (``check_enclosure_arb``: a float
        approximate inverse R, ‖I − RΦ‖ < 1 and the residual, all in balls). Only when the
        float box is too coarse to carry the verdict (an entry within a few ulps of 0, the
        reason a high precision was needed) is the ball solve itself recomputed instead.
        """
        n = self.metric.n
        if len(self.enclosure) != n or len(self.rhs) != n:
            return False
        if not self.holds and not _witness_ok(self.witness, n):
            return False
        lo = np.array([float_down(e.lo) for e in self.enclosure])
        hi = np.array([float_up(e.hi) for e in self.enclosure])
        carries = bool(np.all(lo > 0)) if self.holds else (
            self.witness is not None and bool(hi[self.witness] < 0))
        with workprec(self.precision):
            phi = phi_ball(self.metric, self.level)
            b = flint.arb_mat([[arb_from_fraction(v)] for v in self.rhs])
            if carries and np.all(np.isfinite(lo)) and np.all(np.isfinite(hi)):
                mid = np.array([[float(e.mid()) for e in row] for row in phi.tolist()])
                try:
                    R = np.linalg.inv(mid)
                except np.linalg.LinAlgError:
                    R = None
                if R is not None:
                    box = FloatEnclosure(lo, hi, 0.0, (lo + hi) / 2, "ball certificate box")
                    if check_enclosure_arb(phi, b, R, box, max(64, self.precision)):
                        return True
            try:
                x = phi.solve(b)
            except ZeroDivisionError:
                return False
            entries = x.entries()
            if self.holds:
                return all(bool(e > 0) for e in entries)
            assert self.witness is not None
            return bool(entries[self.witness] < 0)


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

    @property
    def verdict(self) -> Verdict:
        """``HOLDS`` or ``FAILS`` as claimed by ``holds``."""
        return Verdict.from_bool(bool(self.holds))

    def verify(self) -> bool:
        """Re-check the enclosure in flint ball arithmetic, then re-read the signs."""
        lo, hi = self.enclosure.lo, self.enclosure.hi
        n = self.metric.n
        if len(lo) != n or len(hi) != n or len(self.rhs) != n:
            return False
        if self.holds:
            if not bool(np.all(lo > 0)):
                return False
        else:
            if not _witness_ok(self.witness, n) or not hi[self.witness] < 0:
                return False
        with workprec(self.verify_precision):
            phi = phi_ball(self.metric, self.level)
            b = flint.arb_mat([[arb_from_fraction(v)] for v in self.rhs])
            return bool(check_enclosure_arb(phi, b, self.R, self.enclosure, self.verify_precision))


@proved_by("kronecker_split")
@dataclass(frozen=True)
class KroneckerCertificate:
    """Φ = Φ_1 ⊗ … ⊗ Φ_m and b = b_1 ⊗ … ⊗ b_m (b_k ≥ 0, nonzero); per-factor certificates.

    Lemma (proofs/kronecker_split.py): with every Φ_k invertible, the unique solution
    x = ⊗x_k is ≥ 0 iff every x_k ≥ 0. A factor that *holds* is certified by its own
    certificate; a factor that *fails* must also prove Φ_k invertible, which every failing
    certificate here does except the LP one (never used for a Kronecker split).
    """

    kind: ClassVar[CertificateKind] = CertificateKind.KRONECKER

    metric: FiniteMetric = field(repr=False)
    rhs: tuple[Fraction, ...] = field(repr=False)
    factor_rhs: tuple[tuple[Fraction, ...], ...] = field(repr=False)
    factors: tuple[Certificate, ...]
    holds: bool

    @property
    def verdict(self) -> Verdict:
        """``HOLDS`` or ``FAILS`` as claimed by ``holds``."""
        return Verdict.from_bool(bool(self.holds))

    def verify(self) -> bool:
        """Check the factorisation of Φ and b exactly, then every factor certificate."""
        fm = self.metric.kronecker_factors
        if fm is None or len(fm) != len(self.factors) or len(fm) != len(self.factor_rhs):
            return False
        sizes = [f.n for f in fm]
        q = self.metric.q
        if q is None:
            return False
        # d(a, b) = Σ_k d_k(a_k, b_k) for every pair (row-major multi-indices), exactly:
        total = np.zeros((1, 1), dtype=object)
        for f in fm:
            scaled = [v.coef * q for v in f.values]
            if any(not v.is_rational for v in f.values) or any(x.denominator != 1 for x in scaled):
                return False
            dk = np.array([int(x) for x in scaled], dtype=object)[f.index]
            total = (total[:, None, :, None] + dk[None, :, None, :]).reshape(
                total.shape[0] * f.n, total.shape[1] * f.n)
        if not np.array_equal(total, self.metric.exponent_matrix().astype(object)):
            return False
        for multi, v in zip(itertools.product(*(range(s) for s in sizes)), self.rhs):
            prod = Fraction(1)
            for k, i in enumerate(multi):
                prod *= self.factor_rhs[k][i]
            if prod != v:
                return False
        if any(all(v == 0 for v in b) or any(v < 0 for v in b) for b in self.factor_rhs):
            return False
        if not all(c.verify() for c in self.factors):
            return False
        if self.holds:
            return all(c.verdict is Verdict.HOLDS for c in self.factors)
        # "fails" uses the lemma's ⇒ direction, which needs EVERY Φ_k invertible: ball and
        # verified-float certificates prove it by solving; exact ones are checked here.
        if any(isinstance(c, FarkasCertificate) for c in self.factors):
            return False
        for f, c in zip(fm, self.factors):
            if isinstance(c, ExactSolution) and c.holds and not exact_nonsingular(f, c.level):
                return False
        return any(c.verdict is Verdict.FAILS for c in self.factors)


@dataclass(frozen=True)
class SymbolicCertificate:
    """z(s) = N(s)/D(s) exactly over Q(s), and the signs of z_i at this level.

    ``verify()`` re-checks the identity Φ(s)·N(s) = D(s)·b over Z[s] (modular, exact), then
    re-evaluates the sign of every N_i(s)/D(s) at the level's s in balls at the recorded
    precision, and for a "fails" verdict re-proves Φ nonsingular at the level (ball solve).
    """

    kind: ClassVar[CertificateKind] = CertificateKind.SYMBOLIC

    metric: FiniteMetric = field(repr=False)
    level: PrivacyLevel
    solution: RationalSolution = field(repr=False)
    holds: bool
    witness: int | None
    precision: int

    @property
    def verdict(self) -> Verdict:
        """``HOLDS`` or ``FAILS`` as claimed by ``holds``."""
        return Verdict.from_bool(bool(self.holds))

    def verify(self) -> bool:
        """Re-check the Q(s) identity exactly, then the signs at the level in balls."""
        if not self.solution.verify():
            return False
        signs = rational_function_signs(self.solution, self.level, self.precision)
        if self.holds:
            return all(sg is Sign.POSITIVE or sg is Sign.ZERO for sg in signs)
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


#: Every certificate the engine emits.
EngineCertificate = (ExactSolution | FarkasCertificate | BallCertificate | VerifiedFloatCertificate
                     | KroneckerCertificate | SymbolicCertificate)
