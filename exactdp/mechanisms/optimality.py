"""Thm. 4: is a mechanism optimal for every regular prior? An exact LP, certified either way.

A d-private H: Y → Z is optimal (utility and min-entropy leakage) for every d-regular
prior iff some remap R: Z → Y makes HR a tight-constraints mechanism, i.e. iff

    Φ · diag(HR) = 1,   R ≥ 0,   R·1 = 1                                  (*)

(Thm. 2's equality condition; Prop. 7 turns it into "HR is tight-constraints" because HR
is d-private whenever H is). (*) is linear in the m·n unknowns R[z, y]: the question is
the feasibility of A x = b, x ≥ 0.

The LP is decided by an exact phase-I simplex over Fractions (:func:`exact_feasibility`).

* Feasible: the certificate is the exact remap R; ``verify()`` re-checks R ≥ 0, R·1 = 1,
  Φ·diag(HR) = 1 exactly.
* Infeasible: the certificate is a Farkas vector w with Aᵀw ≥ 0 and bᵀw < 0 (exact);
  ``verify()`` rebuilds A, b independently and re-checks both inequalities.

Needs exact Φ and H (t = e^{-ε} rational in the polynomial case, exact mechanism).
The LP has m·n unknowns: meant for small instances (the exact simplex over Fractions is slow on large LPs).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from exactdp.algebra.lp import solve_lp
from exactdp.algebra.phi import entry_values_exact, exact_parameter
from exactdp.errors import ExactnessRequired, InstanceTooLarge, InvalidMechanism
from exactdp.kinds import CertificateKind, Verdict
from exactdp.mechanisms.mechanism import Mechanism, MechanismKind
from exactdp.mechanisms.privacy import PrivacyCheck, is_private
from exactdp.spaces.levels import PrivacyLevel, parse_level
from exactdp.spaces.metrics import FiniteMetric
from exactdp.tight import TightConstraintsResult, tight_constraints

__all__ = [
    "OptimalityResult",
    "RemapCertificate",
    "FarkasRemapCertificate",
    "is_optimal",
    "exact_feasibility",
    "exact_lp_min",
]

#: Largest number of LP unknowns (outputs × inputs) the exact simplex is asked to handle.
MAX_UNKNOWNS = 400


def _system(
    mech: Mechanism, metric: FiniteMetric, level: PrivacyLevel
) -> tuple[list[list[Fraction]], list[Fraction]]:
    """Rows of A and b for (*); unknown x[z·n + y] = R[z, y]."""
    n, m = mech.shape
    vals = entry_values_exact(metric, level)
    idx = metric.index.tolist()
    H = mech.rows_fraction()
    rows: list[list[Fraction]] = []
    rhs: list[Fraction] = []
    # Σ_{y'} φ[y, y'] Σ_z h[y', z] R[z, y'] = 1
    for y in range(n):
        row = [Fraction(0)] * (m * n)
        for y2 in range(n):
            phi = vals[idx[y][y2]]
            if phi == 0:
                continue
            for z in range(m):
                if H[y2][z]:
                    row[z * n + y2] += phi * H[y2][z]
        rows.append(row)
        rhs.append(Fraction(1))
    # Σ_y R[z, y] = 1
    for z in range(m):
        row = [Fraction(0)] * (m * n)
        for y in range(n):
            row[z * n + y] = Fraction(1)
        rows.append(row)
        rhs.append(Fraction(1))
    return rows, rhs


@dataclass(frozen=True)
class RemapCertificate:
    """A remap R (outputs × inputs) with Φ·diag(HR) = 1: H is optimal for all regular priors."""

    remap: tuple[tuple[Fraction, ...], ...]
    mechanism: Mechanism = field(repr=False)
    metric: FiniteMetric = field(repr=False)
    level: PrivacyLevel = field(repr=False)
    kind: CertificateKind = field(default=CertificateKind.REMAP, init=False)

    @property
    def verdict(self) -> Verdict:
        """``HOLDS``: the remap proves Thm. 4's condition."""
        return Verdict.HOLDS

    def verify(self) -> bool:
        n, m = self.mechanism.shape
        R = self.remap
        if len(R) != m or any(len(r) != n for r in R):
            return False
        if any(v < 0 for r in R for v in r) or any(sum(r, Fraction(0)) != 1 for r in R):
            return False
        H = self.mechanism.rows_fraction()
        diag = [sum((H[y][z] * R[z][y] for z in range(m)), Fraction(0)) for y in range(n)]
        vals = entry_values_exact(self.metric, self.level)
        idx = self.metric.index.tolist()
        return all(
            sum((vals[idx[y][y2]] * diag[y2] for y2 in range(n)), Fraction(0)) == 1
            for y in range(n)
        )


@dataclass(frozen=True)
class FarkasRemapCertificate:
    """w with Aᵀw ≥ 0 and b·w < 0: no remap R satisfies (*), so H is not optimal for all."""

    w: tuple[Fraction, ...]
    mechanism: Mechanism = field(repr=False)
    metric: FiniteMetric = field(repr=False)
    level: PrivacyLevel = field(repr=False)
    kind: CertificateKind = field(default=CertificateKind.REMAP_FARKAS, init=False)

    @property
    def verdict(self) -> Verdict:
        """``FAILS``: the Farkas vector proves that no remap satisfies Thm. 4's condition."""
        return Verdict.FAILS

    def verify(self) -> bool:
        A, b = _system(self.mechanism, self.metric, self.level)
        if len(self.w) != len(A):
            return False
        ncols = len(A[0])
        for j in range(ncols):
            if sum((A[i][j] * self.w[i] for i in range(len(A))), Fraction(0)) < 0:
                return False
        return sum((bi * wi for bi, wi in zip(b, self.w)), Fraction(0)) < 0


@dataclass(frozen=True)
class OptimalityResult:
    """Verdict of :func:`is_optimal`.

    Attributes
    ----------
    optimal : bool
        Certified: some remap R gives Φ·diag(HR) = 1, i.e. H (with R) attains Thm. 2's
        bound Σα for every regular prior. When a tight-constraints mechanism exists at ε
        this is exactly "H is optimal for every regular prior" (Thm. 4).
    private : PrivacyCheck
        The privacy check at ε the theorem presupposes.
    certificate : RemapCertificate | FarkasRemapCertificate | None
        None when H is not even ε·d0-private (then the privacy check is the evidence).
    tight_constraints_exist : bool | None
        Whether a tight-constraints mechanism exists at ε (certified; None when not
        checked because H is not private). When False, Thm. 4's hypothesis fails: no
        mechanism attains the bound, so ``optimal`` is False for every H and says nothing
        about which private mechanism is best.
    """

    optimal: bool
    private: PrivacyCheck = field(repr=False)
    certificate: RemapCertificate | FarkasRemapCertificate | None = field(repr=False)
    tight_constraints_exist: bool | None = None

    def __bool__(self) -> bool:
        return self.optimal

    @property
    def verdict(self) -> Verdict:
        """``HOLDS`` when Thm. 4's condition holds (``optimal``), ``FAILS`` otherwise."""
        return Verdict.from_bool(self.optimal)

    def verify(self) -> bool:
        if not self.private.verify():
            return False
        if self.certificate is None:
            return not self.optimal and not self.private.private
        ok = self.certificate.verify()
        return ok and self.certificate.verdict is self.verdict


def is_optimal(
    mechanism: Mechanism, metric: FiniteMetric, eps: Any = None, *, t: Any = None
) -> OptimalityResult:
    """Decide Thm. 4's condition exactly: does some remap R make HR tight-constraints?

    Examples
    --------
    >>> from exactdp.spaces.metrics import line
    >>> from exactdp.mechanisms.constructors import from_rows, truncated_geometric
    >>> r = is_optimal(truncated_geometric(3, t="1/2"), line(3), t="1/2")
    >>> r.optimal, r.certificate.kind, r.verdict, r.verify()
    (True, <CertificateKind.REMAP: 'remap'>, <Verdict.HOLDS: 'holds'>, True)
    >>> flat = from_rows([["1/3"] * 3] * 3)      # private but useless
    >>> r = is_optimal(flat, line(3), t="1/2")
    >>> r.optimal, str(r.certificate.kind), r.verify()
    (False, 'remap-farkas', True)
    """
    level = parse_level(eps=eps, t=t)
    if mechanism.n_inputs != metric.n:
        raise InvalidMechanism(
            f"The mechanism has {mechanism.n_inputs} inputs but {metric.name} has {metric.n} "
            "points."
        )
    if mechanism.kind is not MechanismKind.EXACT or exact_parameter(metric, level) is None:
        raise ExactnessRequired(
            "is_optimal decides an exact LP: it needs an exact mechanism and a level whose "
            "s = e^(-ε/q) is rational (pass t= as a rational)."
        )
    n, m = mechanism.shape
    if n * m > MAX_UNKNOWNS:
        raise InstanceTooLarge(
            f"{n}×{m} gives {n * m} LP unknowns (> {MAX_UNKNOWNS}); the exact simplex is "
            "meant for small instances."
        )
    priv = is_private(mechanism, metric, eps=level.eps)
    if not priv.private:
        return OptimalityResult(False, priv, None)
    tc = tight_constraints(metric, eps=level.eps) if level.t is None else tight_constraints(
        metric, t=level.t
    )
    exists = bool(tc.exists) if isinstance(tc, TightConstraintsResult) else None
    A, b = _system(mechanism, metric, level)
    feasible, vec = exact_feasibility(A, b)
    if feasible:
        R = tuple(tuple(vec[z * n + y] for y in range(n)) for z in range(m))
        cert: RemapCertificate | FarkasRemapCertificate = RemapCertificate(
            R, mechanism, metric, level
        )
        return OptimalityResult(True, priv, cert, exists)
    return OptimalityResult(
        False, priv, FarkasRemapCertificate(vec, mechanism, metric, level), exists
    )


def exact_feasibility(
    A: list[list[Fraction]], b: list[Fraction]
) -> tuple[bool, tuple[Fraction, ...]]:
    """Exact feasibility of Ax = b, x ≥ 0 (the shared exact simplex, :func:`exactdp.algebra.lp.solve_lp`).

    Returns ``(True, x)`` with a feasible x, or ``(False, w)`` with a Farkas vector:
    Aᵀw ≥ 0 and b·w < 0. Both are exact rationals, checked before they are returned.

    >>> exact_feasibility([[Fraction(1), Fraction(1)]], [Fraction(1)])
    (True, (Fraction(1, 1), Fraction(0, 1)))
    >>> exact_feasibility([[Fraction(1), Fraction(1)]], [Fraction(-1)])   # w = 1: Aᵀw ≥ 0, b·w < 0
    (False, (Fraction(1, 1),))
    """
    res = solve_lp(A, b)
    if res.feasible:
        assert res.x is not None
        return True, res.x
    assert res.farkas is not None
    return False, res.farkas


def exact_lp_min(
    c: list[Fraction], A: list[list[Fraction]], b: list[Fraction]
) -> tuple[Fraction, tuple[Fraction, ...]] | None:
    """Exact min c·x subject to Ax = b, x ≥ 0 (:func:`exactdp.algebra.lp.solve_lp`).

    Returns ``(value, x)``, or None when infeasible. Raises ``ArithmeticError`` when the
    objective is unbounded below.

    >>> one = Fraction(1)
    >>> exact_lp_min([one, 2 * one], [[one, one]], [one])
    (Fraction(1, 1), (Fraction(1, 1), Fraction(0, 1)))
    """
    res = solve_lp(A, b, c)
    if not res.feasible:
        return None
    assert res.x is not None and res.value is not None
    return res.value, res.x

