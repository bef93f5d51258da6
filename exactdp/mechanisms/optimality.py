"""Thm. 4: is a mechanism optimal for every regular prior? A closed form, certified either way.

A d-private H: Y → Z is optimal (utility and min-entropy leakage) for every d-regular
prior iff some remap R: Z → Y makes HR a tight-constraints mechanism, i.e. iff

    Φ · diag(HR) = 1,   R ≥ 0,   R·1 = 1                                  (*)

(Thm. 2's equality condition; Prop. 7 turns it into "HR is tight-constraints" because HR
is d-private whenever H is). (*) is an LP in the m·n unknowns R[z, y], but it has a closed
form (``proofs/qif_optimality_reduction.py``): HR is d-private, so every row of Φ·diag(HR)
is ≤ 1; with c = Φᵀ1 (column sums of Φ) and μ_z = max_y c_y·H[y, z],

    Σ_y (Φ·diag(HR))_y = Σ_{z, y} c_y H[y, z] R[z, y] ≤ Σ_z μ_z,

with equality for the 0/1 remap R[z, argmax_y] = 1. Hence (*) holds iff Σ_z μ_z = n, and then
that 0/1 remap is a certificate; otherwise w = (−1, …, −1, μ_1, …, μ_m) is a Farkas vector
of {A x = b, x ≥ 0}: (Aᵀw)[z, y] = μ_z − c_y H[y, z] ≥ 0 and b·w = Σ_z μ_z − n < 0. The cost
is O(n² + n·m) instead of an LP in n·m unknowns.

* Rational s and an exact mechanism: everything is an exact Fraction.
* Irrational s (ε rational, e.g. t = e^{-1}): the answer lives in Q(x) for a base
  x = e^{-ε/(q·b)} with s = x^b and the mechanism's parameter x^a. Equalities are decided as
  identities of rational functions of x (exact, ``flint.fmpq_poly``); inequalities by ball
  arithmetic at increasing precision (sound for any x). When ε ≠ 0 is rational, x is
  transcendental (Lindemann–Weierstrass), so a rational function that is not identically
  zero is nonzero at x and every comparison terminates. The remap certificate is then
  re-checked as n polynomial identities; the Farkas certificate is rational
  (μ̄_z ≥ μ_z(x) with a margin, Σ μ̄_z < n) and re-checked in ball arithmetic.
* Algebraic s (ε irrational): exact when every Φ entry e^{-ε·d} is rational (s^g rational,
  g = gcd of the exponents; :func:`~exactdp.mechanisms.optimality_field.exact_phi_values`);
  otherwise an equation true at x but not an identity is undecidable from balls and
  :class:`~exactdp.errors.ExactnessRequired` says so.
* The entries decide; a monomial form only when it defines them (``form_sealed``) and its
  balls meet them (:func:`~exactdp.mechanisms.optimality_field.trusted_monomial`).
* Portable: ``to_json()`` / ``from_json()`` of both certificates are kernel documents
  (kinds ``remap`` / ``remap-farkas``, :mod:`exactdp.kernel.remap`): exact rows when H is
  exact and s rational (re-checked in exact rationals); at a rational ε, H as rational
  functions of its base x (exact rows, a monomial or a row-normalized form;
  :mod:`exactdp.kernel.remap_qx`: identities in Q(x), signs in balls up to a cap).
* A certified mechanism without a closed form (only balls): non-optimality can still be
  certified (a rational Farkas vector with margins); optimality, an equality, cannot, and
  :class:`~exactdp.errors.ExactnessRequired` says so.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import flint
from flint import arb

from exactdp.algebra.lp import solve_lp
from exactdp.algebra.phi import entry_values_ball
from exactdp.arithmetic.ball import (
    DEFAULT_PREC,
    MAX_PREC,
    arb_from_fraction,
    arb_to_fraction_interval,
    workprec,
)
from exactdp.arithmetic.interval import Enclosure
from exactdp.arithmetic.rationals import to_fmpq
from exactdp.errors import (
    REJECTED_ERRORS,
    CertificateInvalid,
    ExactDPError,
    ExactnessRequired,
    InstanceTooLarge,
    InvalidMechanism,
    PrecisionLimitReached,
)
from exactdp.kernel.privacy import MAX_PREC as KERNEL_MAX_PREC
from exactdp.kinds import CertificateKind, Verdict
from exactdp.mechanisms.mechanism import Mechanism
from exactdp.mechanisms.optimality_field import (
    QxField,
    ball_colsum,
    ball_h,
    exact_data,
    exact_phi_values,
    ratfun_sum,
    symbolic_argmax,
    tight_structure,
)
from exactdp.mechanisms.optimality_json import remap_document, remap_from_document
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

#: Largest number of mechanism entries (inputs × outputs) :func:`is_optimal` reads.
MAX_ENTRIES = 4_000_000

@dataclass(frozen=True)
class RemapCertificate:
    """A remap R (outputs × inputs) with Φ·diag(HR) = 1: H is optimal for all regular priors.

    ``verify()`` checks the n equations exactly: in Fractions when s is rational and H exact,
    else as identities of rational functions of x (``proofs/qif_optimality_reduction.py``).
    """

    remap: tuple[tuple[Fraction, ...], ...]
    mechanism: Mechanism = field(repr=False)
    metric: FiniteMetric = field(repr=False)
    level: PrivacyLevel = field(repr=False)
    kind: CertificateKind = field(default=CertificateKind.REMAP, init=False)

    @property
    def verdict(self) -> Verdict:
        """``HOLDS``: the remap proves Thm. 4's condition."""
        return Verdict.HOLDS

    def to_json(self) -> dict[str, Any]:
        """The kernel document (kind ``remap``; ``exactdp verify``):
        :func:`~exactdp.mechanisms.optimality_json.remap_document`."""
        return remap_document(self)

    @classmethod
    def from_json(cls, doc: Any) -> RemapCertificate:
        """Read :meth:`to_json` back (dict or text), re-checked by the kernel first."""
        return remap_from_document(cls, doc)  # type: ignore[no-any-return]

    def verify(self) -> bool:
        n, m = self.mechanism.shape
        R = self.remap
        if self.metric.n != n or len(R) != m or any(len(r) != n for r in R):
            return False
        if any(not _is_rational(v) for r in R for v in r):
            return False
        if any(v < 0 for r in R for v in r) or any(sum(r, Fraction(0)) != 1 for r in R):
            return False
        idx = self.metric.index.tolist()
        exact = exact_data(self.mechanism, self.metric, self.level)
        if exact is not None:
            H, _ = exact
            diag = [sum((H[y][z] * R[z][y] for z in range(m) if R[z][y]), Fraction(0))
                    for y in range(n)]
            vals = exact_phi_values(self.metric, self.level)
            assert vals is not None
            return all(
                sum((vals[idx[y][y2]] * diag[y2] for y2 in range(n)), Fraction(0)) == 1
                for y in range(n)
            )
        try:
            fld = QxField(self.mechanism, self.metric, self.level)
        except ExactnessRequired:
            identity = all(R[z][y] == (z == y) for z in range(m) for y in range(n))
            return n == m and identity and tight_structure(self.mechanism, self.metric,
                                                            self.level)
        # diag_{y'}(x) = Σ_z R[z, y'] c_z(x) h_{y'z}(x); row y: Σ_{y'} x^{e(y, y')} diag_{y'} ≡ 1
        used = [(z, y2) for z in range(m) for y2 in range(n) if R[z][y2]]
        one = flint.fmpq_poly([1])
        for y in range(n):
            terms = [(fld.col(z), fld.h_poly(y2, z) * to_fmpq(Fraction(R[z][y2]))
                      * flint.fmpq_poly([0] * fld.phi_exp[y][y2] + [1])) for z, y2 in used]
            num, den = ratfun_sum(terms)
            if num != den * one:
                return False
        return True


@dataclass(frozen=True)
class FarkasRemapCertificate:
    """w with Aᵀw ≥ 0 and b·w < 0: no remap R satisfies (*), so H is not optimal for all.

    w = (−1, …, −1, μ̄_1, …, μ̄_m) (rational) with (Aᵀw)[z, y] = μ̄_z − c_y·H[y, z] and
    b·w = Σ μ̄ − n (``proofs/qif_optimality_reduction.py``). ``precision`` is None when the
    check is exact (rational s, exact H), else the bits at which ``verify()`` re-checks
    Aᵀw ≥ 0 in ball arithmetic (w stays rational; b·w < 0 is exact), at most the kernel's
    cap :data:`~exactdp.kernel.privacy.MAX_PREC` (a certificate read back from a document
    the kernel verified re-checks at the least precision that decides it).
    """

    w: tuple[Fraction, ...]
    mechanism: Mechanism = field(repr=False)
    metric: FiniteMetric = field(repr=False)
    level: PrivacyLevel = field(repr=False)
    precision: int | None = None
    kind: CertificateKind = field(default=CertificateKind.REMAP_FARKAS, init=False)

    @property
    def verdict(self) -> Verdict:
        """``FAILS``: the Farkas vector proves that no remap satisfies Thm. 4's condition."""
        return Verdict.FAILS

    def to_json(self) -> dict[str, Any]:
        """The kernel document (kind ``remap-farkas``; exact: ``precision`` is not written,
        the kernel re-checks w in rationals): :mod:`exactdp.mechanisms.optimality_json`."""
        return remap_document(self)

    @classmethod
    def from_json(cls, doc: Any) -> FarkasRemapCertificate:
        """Read :meth:`to_json` back (dict or text), re-checked by the kernel first."""
        return remap_from_document(cls, doc)  # type: ignore[no-any-return]

    def verify(self) -> bool:
        n, m = self.mechanism.shape
        w = self.w
        if self.metric.n != n or len(w) != n + m:
            return False
        if any(not _is_rational(v) for v in w):
            return False
        if self.precision is not None and (
                not isinstance(self.precision, int) or isinstance(self.precision, bool)):
            return False
        if sum(w, Fraction(0)) >= 0:  # b = (1, …, 1): b·w < 0, exact
            return False
        exact = exact_data(self.mechanism, self.metric, self.level)
        if self.precision is None:
            if exact is None:
                return False
            H, _ = exact
            vals = exact_phi_values(self.metric, self.level)
            assert vals is not None
            idx = self.metric.index.tolist()
            # Aᵀw[z, y] = Σ_{y_r} w_{y_r} Φ[y_r, y] H[y, z] + w_{n+z}
            g = [sum((w[yr] * vals[idx[yr][y]] for yr in range(n)), Fraction(0))
                 for y in range(n)]
            return all(g[y] * H[y][z] + w[n + z] >= 0 for y in range(n) for z in range(m))
        prec = self.precision
        if not DEFAULT_PREC <= prec <= KERNEL_MAX_PREC:  # a read-back certificate may need the kernel's cap
            return False
        with workprec(prec):
            H_b = ball_h(self.mechanism, prec)
            vals_b = entry_values_ball(self.metric, self.level)
            idx = self.metric.index.tolist()
            wb = [arb_from_fraction(v) for v in w]
            g_b = [sum((wb[yr] * vals_b[idx[yr][y]] for yr in range(n)), arb(0))
                   for y in range(n)]
            return all(bool(g_b[y] * H_b[y][z] + wb[n + z] >= 0)
                       for y in range(n) for z in range(m))


@dataclass(frozen=True)
class OptimalityResult:
    """Verdict of :func:`is_optimal`, bound to its question (mechanism, metric, level).

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
    mechanism, metric, level
        The question asked. ``verify()`` re-derives the verdict against exactly this
        question: the certificate must be about the same entries, distances and level.
    tight_constraints : TightConstraintsResult | None
        The existence check of a tight-constraints mechanism at ε (None when not checked
        because H is not private); ``tight_constraints_exist`` reads its verdict.
    """

    optimal: bool
    private: PrivacyCheck = field(repr=False)
    certificate: RemapCertificate | FarkasRemapCertificate | None = field(repr=False)
    mechanism: Mechanism = field(repr=False, compare=False)
    metric: FiniteMetric = field(repr=False, compare=False)
    level: PrivacyLevel = field(repr=False, compare=False)
    tight_constraints: Any = field(default=None, repr=False, compare=False)

    def __bool__(self) -> bool:
        return self.optimal

    @property
    def tight_constraints_exist(self) -> bool | None:
        """Whether a tight-constraints mechanism exists at ε (certified; None when not
        checked because H is not private). When False, Thm. 4's hypothesis fails: no
        mechanism attains the bound, so ``optimal`` is False for every H."""
        tc = self.tight_constraints
        return bool(tc.exists) if isinstance(tc, TightConstraintsResult) else None

    @property
    def verdict(self) -> Verdict:
        """``HOLDS`` when Thm. 4's condition holds (``optimal``), ``FAILS`` otherwise."""
        return Verdict.from_bool(self.optimal)

    def verify(self) -> bool:
        """Re-derive the verdict for the stored question (never raises on a tampered result).

        The privacy check must be the one of (mechanism, metric, ε) and pass its own
        ``verify()``; the certificate must be about the same entries, exact distances and
        level, pass its ``verify()`` and prove this verdict; a stored tight-constraints
        check must be about the same metric and level and verify.
        """
        try:
            return self._verify()
        except REJECTED_ERRORS:
            return False

    def _verify(self) -> bool:
        mech, metric, level = self.mechanism, self.metric, self.level
        if not (isinstance(self.optimal, bool) and isinstance(mech, Mechanism)
                and isinstance(metric, FiniteMetric) and isinstance(level, PrivacyLevel)):
            return False
        if mech.n_inputs != metric.n or not isinstance(self.private, PrivacyCheck):
            return False
        if self.private != _privacy_of(mech, metric, level) or not self.private.verify():
            return False  # the stored check is this question's, re-derived, and re-checks
        tc = self.tight_constraints
        if tc is not None and not (isinstance(tc, TightConstraintsResult)
                                   and _same_metric(tc.metric, metric)
                                   and tc.level.eps == level.eps and tc.verify()):
            return False
        cert = self.certificate
        if cert is None:
            return not self.optimal and not self.private.private
        if not self.private.private or tc is None:
            return False  # a certificate is only issued for a private H
        if not isinstance(cert, RemapCertificate | FarkasRemapCertificate):
            return False
        if not (_same_mechanism(cert.mechanism, mech) and _same_metric(cert.metric, metric)
                and cert.level.eps == level.eps):
            return False  # a certificate of another question proves nothing here
        return cert.verify() and cert.verdict is self.verdict


def _same_mechanism(a: Mechanism, b: Mechanism) -> bool:
    return a is b or (isinstance(a, Mechanism) and a == b)


def _same_metric(a: FiniteMetric, b: FiniteMetric) -> bool:
    """Same points and the same exact distances (q and the exponent matrix, or the values)."""
    if a is b:
        return True
    if not isinstance(a, FiniteMetric) or a.n != b.n or a.q != b.q:
        return False
    if a.q is not None:
        return bool(a.exponent_matrix().tolist() == b.exponent_matrix().tolist())
    return all(a.distance(i, j) == b.distance(i, j) for i in range(a.n) for j in range(a.n))


def _privacy_of(mechanism: Mechanism, metric: FiniteMetric, level: PrivacyLevel) -> PrivacyCheck:
    """is_private at ε, with the level's enclosure clamped below at 0 (a level is ≥ 0).

    The clamp is sound and keeps a correct check verifiable at t ≈ 1, where the 128-bit
    enclosure of −log t (≈ 10^-40) can have a lower end just below 0 that the level
    re-check rejects.
    """
    chk = is_private(mechanism, metric, eps=level.eps)
    enc = chk.level.enclosure
    if enc is not None and enc.lo < 0 <= enc.hi:
        lvl = dataclasses.replace(chk.level, enclosure=Enclosure(Fraction(0), enc.hi))
        chk = dataclasses.replace(chk, level=lvl)
    return chk


def _is_rational(v: Any) -> bool:
    return isinstance(v, Fraction | int) and not isinstance(v, bool)


def is_optimal(
    mechanism: Mechanism, metric: FiniteMetric, eps: Any = None, *, t: Any = None
) -> OptimalityResult:
    """Decide Thm. 4's condition: does some remap R make HR tight-constraints?

    Decided by the closed form Σ_z max_y c_y·H[y, z] = n (c = Φᵀ1) of the LP (*), with a
    0/1 remap or a Farkas vector as certificate (``proofs/qif_optimality_reduction.py``):
    exact when Φ is rational (also at an algebraic s whose needed powers are rational, e.g.
    ε = ln(2)/2 on even distances) and the mechanism exact; certified for irrational s
    (identities in Q(x), signs by balls). The decision reads the mechanism's entries; a
    closed form is used only when it is the entries' definition
    (:func:`~exactdp.mechanisms.optimality_field.trusted_monomial`). Cost O(n² + n·m); at
    most :data:`MAX_ENTRIES` entries.

    Raises :class:`~exactdp.errors.ExactnessRequired` when s is algebraic, Φ is not
    rational and Σ_z μ_z(x) = n might hold at x without being an identity (undecidable from
    balls), and for a ball mechanism without a closed form that might be optimal.

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
    >>> r = is_optimal(truncated_geometric(60, eps=1), line(60), eps=1)   # t = e^-1, 3,600 unknowns
    >>> r.optimal, r.verify()
    (True, True)
    """
    level = parse_level(eps=eps, t=t)
    if mechanism.n_inputs != metric.n:
        raise InvalidMechanism(
            f"The mechanism has {mechanism.n_inputs} inputs but {metric.name} has {metric.n} "
            "points."
        )
    n, m = mechanism.shape
    if n * m > MAX_ENTRIES:
        raise InstanceTooLarge(
            f"{n}×{m} = {n * m} mechanism entries (> MAX_ENTRIES = {MAX_ENTRIES}); the "
            "closed form reads each entry in exact or ball arithmetic."
        )
    mechanism.require_stochastic("is_optimal")
    priv = _privacy_of(mechanism, metric, level)
    question = (mechanism, metric, level)
    if not priv.private:
        return OptimalityResult(False, priv, None, *question)
    tc = tight_constraints(metric, eps=level.eps) if level.t is None else tight_constraints(
        metric, t=level.t
    )

    def result(optimal: bool, cert: RemapCertificate | FarkasRemapCertificate
               ) -> OptimalityResult:
        return OptimalityResult(optimal, priv, cert, *question, tc)

    exact = exact_data(mechanism, metric, level)
    if exact is not None:
        H, c = exact
        argmax, mu = [], []
        for z in range(m):
            y_best = max(range(n), key=lambda y: c[y] * H[y][z])
            argmax.append(y_best)
            mu.append(c[y_best] * H[y_best][z])
        total = sum(mu, Fraction(0))
        if total > n:  # impossible for a private H (every row of Φ·diag(HR) is ≤ 1)
            raise CertificateInvalid(
                f"Σ_z μ_z = {total} > n = {n} although {mechanism.name} was certified private; "
                "the privacy check and Lemma 1 disagree (please report the instance)."
            )
        if total == n:
            return result(True, RemapCertificate(_zero_one_remap(argmax, n), *question))
        w = tuple([Fraction(-1)] * n + mu)
        return result(False, FarkasRemapCertificate(w, *question))
    refuted = _ball_farkas(mechanism, metric, level, stop_prec=DEFAULT_PREC)
    if refuted is not None:
        return result(False, refuted)
    if n == m and tight_structure(mechanism, metric, level):
        return result(True, RemapCertificate(_zero_one_remap(list(range(n)), n), *question))
    fld = QxField(mechanism, metric, level)  # ExactnessRequired when no closed form
    try:
        argmax = symbolic_argmax(fld, n, m)
    except PrecisionLimitReached as exc:
        raise _undecided(level, "two candidate maxima tie") from exc
    terms = [(fld.col(z), fld.colsum[argmax[z]] * fld.h_poly(argmax[z], z)) for z in range(m)]
    num, den = ratfun_sum(terms)
    if num == den * n:
        return result(True, RemapCertificate(_zero_one_remap(argmax, n), *question))
    # Σ μ_z(x) − n is a nonzero rational function: nonzero at a transcendental x
    refuted = _ball_farkas(mechanism, metric, level, stop_prec=MAX_PREC)
    if refuted is None:
        raise _undecided(level, "Σ_z μ_z(x) = n")
    return result(False, refuted)


def _undecided(level: PrivacyLevel, what: str) -> ExactDPError:
    """The error when balls cannot settle an equation that is not an identity in Q(x)."""
    if level.eps_rational is None:
        return ExactnessRequired(
            f"at {level} the base x = e^(-ε/(q·b)) may be algebraic, so '{what}' can hold at x "
            f"without being an identity in Q(x), and balls up to {MAX_PREC} bits did not "
            "separate it: undecidable here. Pass a level whose Φ entries e^(-ε·d) are all "
            "rational (e.g. t rational with rational q-th root), or a rational ε "
            "(x transcendental)."
        )
    return PrecisionLimitReached(
        f"'{what}' is not an identity in Q(x) but its sign was not decided at {MAX_PREC} bits."
    )


def _zero_one_remap(argmax: list[int], n: int) -> tuple[tuple[Fraction, ...], ...]:
    return tuple(tuple(Fraction(int(y == y_best)) for y in range(n)) for y_best in argmax)


def _ball_farkas(
    mechanism: Mechanism, metric: FiniteMetric, level: PrivacyLevel, *, stop_prec: int
) -> FarkasRemapCertificate | None:
    """A rational Farkas vector with margins, checked in balls, when Σ_z μ_z < n is certain."""
    n, m = mechanism.shape
    prec = DEFAULT_PREC
    while True:
        with workprec(prec):
            H_b = ball_h(mechanism, prec)
            c_b = ball_colsum(metric, level)
            uppers = [max(arb_to_fraction_interval(c_b[y] * H_b[y][z])[1] for y in range(n))
                      for z in range(m)]
        slack = n - sum(uppers, Fraction(0))
        if slack > 0:
            # a dyadic margin below slack/(2m): μ̄_z = upper_z + margin, Σ μ̄ < n
            margin = Fraction(1, 2 ** ((2 * m * slack.denominator // slack.numerator).bit_length() + 1))
            w = tuple([Fraction(-1)] * n + [u + margin for u in uppers])
            cert = FarkasRemapCertificate(w, mechanism, metric, level, precision=prec)
            if cert.verify():
                return cert
        if prec >= stop_prec:
            return None
        prec = min(2 * prec, stop_prec)


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
