"""Certificates: frozen records of *why* an answer is right, each with ``verify()``.

``verify()`` re-checks the claim by a short routine that does not reuse the solver
that produced it: exact certificates multiply back in exact arithmetic, ball
certificates recompute the enclosure from scratch at the recorded precision, and
verified-float certificates are re-checked in flint ball arithmetic.

The claim certified everywhere here is about one linear system Φx = b (b = 1 for
tight constraints, b = π for regularity; Φ symmetric, so αΦ = π ⇔ Φα = π):

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
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Protocol

import flint
import numpy as np

from exactdp.algebra.phi import entry_values_exact, phi_ball
from exactdp.arithmetic.ball import arb_from_fraction, workprec
from exactdp.spaces.levels import PrivacyLevel
from exactdp.spaces.metrics import FiniteMetric

__all__ = [
    "Certificate",
    "ExactSolution",
    "FarkasCertificate",
    "BallCertificate",
    "VerifiedFloatCertificate",
    "exact_nonsingular",
]


class Certificate(Protocol):
    """Anything with ``verify() -> bool`` and a short ``kind`` tag."""

    @property
    def kind(self) -> str: ...

    def verify(self) -> bool: ...


def _fmpq_column(values: tuple[Fraction, ...]) -> flint.fmpq_mat:
    return flint.fmpq_mat([[flint.fmpq(v.numerator, v.denominator)] for v in values])


def _exact_phi_times(metric: FiniteMetric, level: PrivacyLevel, x: tuple[Fraction, ...]) -> list[
    Fraction
]:
    vals = entry_values_exact(metric, level)
    fvals = [flint.fmpq(v.numerator, v.denominator) for v in vals]
    phi = flint.fmpq_mat([[fvals[k] for k in row] for row in metric.index.tolist()])
    prod = phi * _fmpq_column(x)
    return [Fraction(int(e.p), int(e.q)) for e in prod.entries()]


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
    fv = [flint.fmpq(v.numerator, v.denominator) for v in entry_values_exact(metric, level)]
    phi = flint.fmpq_mat([[fv[k] for k in row] for row in metric.index.tolist()])
    return bool(phi.rank() == n)


@dataclass(frozen=True)
class ExactSolution:
    """x with Φx = b exactly (and, when x has a negative entry, Φ nonsingular).

    Attributes
    ----------
    x : tuple of Fraction
        The exact solution.
    nonnegative : bool
        Whether every x_i ≥ 0 (the verdict this certificate supports).
    """

    metric: FiniteMetric = field(repr=False)
    level: PrivacyLevel
    rhs: tuple[Fraction, ...] = field(repr=False)
    x: tuple[Fraction, ...] = field(repr=False)
    nonnegative: bool
    kind: str = "exact-solution"

    def verify(self) -> bool:
        """Multiply back exactly; for a negative entry also prove uniqueness (det Φ ≠ 0)."""
        if len(self.x) != self.metric.n or len(self.rhs) != self.metric.n:
            return False
        if _exact_phi_times(self.metric, self.level, self.x) != list(self.rhs):
            return False
        if self.nonnegative:
            return all(v >= 0 for v in self.x)
        return any(v < 0 for v in self.x) and exact_nonsingular(self.metric, self.level)


@dataclass(frozen=True)
class FarkasCertificate:
    """y with Φᵀy ≥ 0 and bᵀy < 0 (exact): Φx = b has no solution x ≥ 0."""

    metric: FiniteMetric = field(repr=False)
    level: PrivacyLevel
    rhs: tuple[Fraction, ...] = field(repr=False)
    y: tuple[Fraction, ...] = field(repr=False)
    kind: str = "farkas"

    def verify(self) -> bool:
        """Φ is symmetric, so Φᵀy = Φy; check it is ≥ 0 and that b·y < 0, exactly."""
        phi_y = _exact_phi_times(self.metric, self.level, self.y)
        return all(v >= 0 for v in phi_y) and sum(
            (b * y for b, y in zip(self.rhs, self.y)), Fraction(0)
        ) < 0


@dataclass(frozen=True)
class BallCertificate:
    """A ball enclosure of the unique solution at ``precision`` bits settles the signs.

    ``holds`` True: every enclosure is > 0. ``holds`` False: ``witness`` has an enclosure < 0.
    """

    metric: FiniteMetric = field(repr=False)
    level: PrivacyLevel
    rhs: tuple[Fraction, ...] = field(repr=False)
    precision: int
    holds: bool
    witness: int | None
    enclosure: tuple[tuple[Fraction, Fraction], ...] = field(repr=False)
    kind: str = "ball"

    def verify(self) -> bool:
        """Re-check the enclosure by a routine independent of ``arb_mat.solve``.

        The stored rational enclosure is rounded outward to a float box and proved to
        contain Φ⁻¹b by a Krawczyk test evaluated in arb (``check_enclosure_arb``: a float
        approximate inverse R, ‖I − RΦ‖ < 1 and the residual, all in balls). Only when the
        float box is too coarse to carry the verdict (an entry within a few ulps of 0, the
        reason a high precision was needed) is the ball solve itself recomputed instead.
        """
        from exactdp.linalg.verified import FloatEnclosure, check_enclosure_arb

        lo = np.array([_round_down(a) for a, _ in self.enclosure])
        hi = np.array([_round_up(b) for _, b in self.enclosure])
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
                return all(e > 0 for e in entries)
            assert self.witness is not None
            return bool(entries[self.witness] < 0)


def _round_down(v: Fraction) -> float:
    f = float(v)
    return f if Fraction(f) <= v else float(np.nextafter(f, -np.inf))


def _round_up(v: Fraction) -> float:
    f = float(v)
    return f if Fraction(f) >= v else float(np.nextafter(f, np.inf))


@dataclass(frozen=True)
class VerifiedFloatCertificate:
    """Rigorous float enclosure [lo, hi] of the solution, from an approximate inverse R."""

    metric: FiniteMetric = field(repr=False)
    level: PrivacyLevel
    rhs: tuple[Fraction, ...] = field(repr=False)
    holds: bool
    witness: int | None
    R: np.ndarray = field(repr=False)
    enclosure: Any = field(repr=False)
    verify_precision: int = 64
    kind: str = "verified-float"

    def verify(self) -> bool:
        """Re-check the enclosure in flint ball arithmetic, then re-read the signs."""
        from exactdp.linalg.verified import check_enclosure_arb

        lo, hi = self.enclosure.lo, self.enclosure.hi
        if self.holds:
            if not bool(np.all(lo > 0)):
                return False
        else:
            if self.witness is None or not hi[self.witness] < 0:
                return False
        with workprec(self.verify_precision):
            phi = phi_ball(self.metric, self.level)
            b = flint.arb_mat([[arb_from_fraction(v)] for v in self.rhs])
            return bool(check_enclosure_arb(phi, b, self.R, self.enclosure, self.verify_precision))


@dataclass(frozen=True)
class KroneckerCertificate:
    """Φ = Φ_1 ⊗ … ⊗ Φ_m and b = b_1 ⊗ … ⊗ b_m (b_k ≥ 0, nonzero); per-factor certificates.

    Lemma (proofs/kronecker_split.py): with every Φ_k invertible, the unique solution
    x = ⊗x_k is ≥ 0 iff every x_k ≥ 0. A factor that *holds* is certified by its own
    certificate; a factor that *fails* must also prove Φ_k invertible, which every failing
    certificate here does except the LP one (never used for a Kronecker split).
    """

    metric: FiniteMetric = field(repr=False)
    rhs: tuple[Fraction, ...] = field(repr=False)
    factor_rhs: tuple[tuple[Fraction, ...], ...] = field(repr=False)
    factors: tuple[Any, ...]
    holds: bool
    kind: str = "kronecker"

    def verify(self) -> bool:
        """Check the factorisation of Φ and b exactly, then every factor certificate."""
        import itertools

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
            return all(_claims_holds(c) for c in self.factors)
        # "fails" uses the lemma's ⇒ direction, which needs EVERY Φ_k invertible: ball and
        # verified-float certificates prove it by solving; exact ones are checked here.
        if any(c.kind == "farkas" for c in self.factors):
            return False
        for f, c in zip(fm, self.factors):
            if isinstance(c, ExactSolution) and c.nonnegative and not exact_nonsingular(
                    f, c.level):
                return False
        return any(not _claims_holds(c) for c in self.factors)


@dataclass(frozen=True)
class SymbolicCertificate:
    """z(s) = N(s)/D(s) exactly over Q(s), and the signs of z_i at this level.

    ``verify()`` re-checks the identity Φ(s)·N(s) = D(s)·b over Z[s] (modular, exact), then
    re-evaluates the sign of every N_i(s)/D(s) at the level's s in balls at the recorded
    precision, and for a "fails" verdict re-proves Φ nonsingular at the level (ball solve).
    """

    metric: FiniteMetric = field(repr=False)
    level: PrivacyLevel
    solution: Any = field(repr=False)  # exactdp.algebra.symbolic.RationalSolution
    holds: bool
    witness: int | None
    precision: int
    kind: str = "symbolic"

    def verify(self) -> bool:
        from exactdp.algebra.symbolic import rational_function_signs

        if not self.solution.verify():
            return False
        signs = rational_function_signs(self.solution, self.level, self.precision)
        if self.holds:
            return all(sg is not None and sg >= 0 for sg in signs)
        if self.witness is None or signs[self.witness] != -1:
            return False
        with workprec(self.precision):
            phi = phi_ball(self.metric, self.level)
            try:
                phi.solve(flint.arb_mat([[1]] * self.metric.n))
            except ZeroDivisionError:
                return False
        return True


def _claims_holds(cert: Any) -> bool:
    if isinstance(cert, ExactSolution):
        return cert.nonnegative
    return bool(cert.holds)

