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
* A certified mechanism without a closed form (only balls): non-optimality can still be
  certified (a rational Farkas vector with margins); optimality, an equality, cannot, and
  :class:`~exactdp.errors.ExactnessRequired` says so.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import flint
import sympy
from flint import arb

from exactdp.algebra.lp import solve_lp
from exactdp.algebra.phi import entry_values_ball, entry_values_exact, exact_parameter
from exactdp.arithmetic.ball import (
    DEFAULT_PREC,
    MAX_PREC,
    arb_from_fraction,
    arb_to_fraction_interval,
    certified_sign,
    workprec,
)
from exactdp.arithmetic.interval import Enclosure
from exactdp.arithmetic.rationals import to_fmpq, to_fraction
from exactdp.errors import (
    CertificateInvalid,
    ExactnessRequired,
    InstanceTooLarge,
    InvalidMechanism,
    PrecisionLimitReached,
)
from exactdp.kinds import CertificateKind, Sign, Verdict
from exactdp.mechanisms.mechanism import Mechanism, MechanismKind, factor_ball
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

_RatFun = tuple[flint.fmpq_poly, flint.fmpq_poly]  # (numerator, denominator)
_X = sympy.Symbol("x")


class _Field:
    """The question in Q(x): Φ[y, y'] = x^{b·e(y, y')}, H[y, z] = c_z(x)·x^{a·E[y, z]} or exact.

    ``x0`` is x's value as a ball at any precision (``ball(prec)``). Built only when every
    quantity is a rational function of x with rational coefficients.
    """

    def __init__(self, mechanism: Mechanism, metric: FiniteMetric, level: PrivacyLevel) -> None:
        q = metric.q
        if q is None:
            raise ExactnessRequired(f"{metric.name} is not in the polynomial case (no exponent q).")
        s_metric = sympy.exp(-sympy.sympify(level.eps) / q)
        self.level, self.metric = level, metric
        self.exact_h: list[list[Fraction]] | None = None
        self.cols: list[_RatFun] = []
        a, b = 1, 1
        form = mechanism.monomial
        if mechanism.kind is MechanismKind.EXACT:
            self.exact_h = mechanism.rows_fraction()
        elif form is not None and form.symbol is not None and not any(
            not isinstance(c, sympy.Basic) for c in form.column_factors
        ) and int(form.exponents.min()) >= 0:
            ratio = sympy.simplify(
                sympy.expand_log(sympy.log(form.s), force=True)
                / sympy.expand_log(sympy.log(s_metric), force=True)
            )
            if not (isinstance(ratio, sympy.Rational) and ratio > 0):
                raise ExactnessRequired(
                    f"the mechanism's parameter {form.s} is not a rational power of "
                    f"s = {s_metric}: no common field Q(x)."
                )
            a, b = int(ratio.p), int(ratio.q)
            for c in form.column_factors:
                expr = sympy.cancel(sympy.sympify(c).subs(form.symbol, _X**a))
                num, den = sympy.fraction(expr)
                self.cols.append((_poly(num), _poly(den)))
            self.E = form.exponents.tolist()
        else:
            raise ExactnessRequired(
                f"{mechanism.name} has certified entries without a closed form in s; "
                "optimality (an equality) cannot be certified from balls."
            )
        self.a, self.b, self.q = a, b, q
        idx = metric.index.tolist()
        ks = metric.exponents
        self.phi_exp = [[b * int(ks[k]) for k in row] for row in idx]
        self.colsum = [_sum_monomials(row) for row in self.phi_exp]  # Φ symmetric: c = Φ1

    def ball(self) -> arb:
        """x at the current precision (x = e^{-ε/(q·b)})."""
        return self.level.s_ball(self.q * self.b)

    def h_poly(self, y: int, z: int) -> flint.fmpq_poly:
        """The polynomial part of H[y, z] (the whole entry for an exact mechanism)."""
        if self.exact_h is not None:
            return flint.fmpq_poly([to_fmpq(self.exact_h[y][z])])
        return flint.fmpq_poly([0] * (self.a * self.E[y][z]) + [1])

    def col(self, z: int) -> _RatFun:
        """The column factor c_z(x) (1 for an exact mechanism)."""
        one = flint.fmpq_poly([1])
        return self.cols[z] if self.cols else (one, one)


def _tight_structure(mechanism: Mechanism, metric: FiniteMetric, level: PrivacyLevel) -> bool:
    """True when ``mechanism`` is the tight-constraints mechanism Φ·diag(z) of (metric, level).

    Then Φ·diag(H·I) = Φ·z = 1 by structure (Φ[y, y] = 1), whatever closed form z has: the
    identity remap is a certificate (``proofs/qif_optimality_reduction.py``). Checked: the
    mechanism carries a verified existence certificate for this metric (same exact distances)
    and level, its monomial exponents are the metric's (H[y, z] = c_z·s^{e(y, z)}), and each
    c_z enclosure meets the certificate's enclosure of z_z.
    """
    tc = mechanism.parameters.get("certificate")
    form = mechanism.monomial
    if not isinstance(tc, TightConstraintsResult) or not tc.exists or form is None:
        return False
    if tc.level.eps != level.eps or tc.metric.q != metric.q or tc.metric.q is None:
        return False
    if tc.metric.exponent_matrix().tolist() != metric.exponent_matrix().tolist():
        return False
    if form.exponents.tolist() != metric.exponent_matrix().tolist():
        return False
    if sympy.simplify(form.s - sympy.exp(-sympy.sympify(level.eps) / metric.q)) != 0:
        return False
    if not tc.verify():
        return False
    for k, zk in enumerate(tc.z_enclosure):
        ck = form.column_value(k)
        if not isinstance(ck, Enclosure) or ck.hi < zk.lo or zk.hi < ck.lo:
            return False
    return True


def _poly(expr: Any) -> flint.fmpq_poly:
    coeffs = sympy.Poly(expr, _X).all_coeffs()[::-1]
    return flint.fmpq_poly([to_fmpq(to_fraction(c)) for c in coeffs])


def _sum_monomials(exps: list[int]) -> flint.fmpq_poly:
    coeffs = [0] * (max(exps) + 1)
    for e in exps:
        coeffs[e] += 1
    return flint.fmpq_poly(coeffs)


def _poly_ball(p: flint.fmpq_poly, x: arb) -> arb:
    return flint.arb_poly(p)(x)


def _ratfun_sum(terms: list[tuple[_RatFun, flint.fmpq_poly]]) -> _RatFun:
    """Σ (num/den)·p exactly, grouping equal denominators."""
    groups: dict[str, tuple[flint.fmpq_poly, flint.fmpq_poly]] = {}
    for (num, den), p in terms:
        key = str(den)
        acc = groups.get(key)
        groups[key] = (den, num * p if acc is None else acc[1] + num * p)
    tot_n, tot_d = flint.fmpq_poly([0]), flint.fmpq_poly([1])
    for den, num in groups.values():
        tot_n, tot_d = tot_n * den + num * tot_d, tot_d * den
        g = tot_n.gcd(tot_d)
        if g.degree() > 0:
            tot_n, tot_d = tot_n / g, tot_d / g  # exact division by the monic gcd
    return tot_n, tot_d


def _poly_sign_at(p: flint.fmpq_poly, fld: _Field, what: str) -> Sign:
    """Sign of p(x): ZERO iff p ≡ 0, else certified by balls at increasing precision."""
    if p == 0:
        return Sign.ZERO
    sign, _ = certified_sign(lambda _prec: _poly_ball(p, fld.ball()), what=what)
    return sign


def _symbolic_argmax(fld: _Field, n: int, m: int) -> list[int]:
    """argmax_y c_y·H[y, z] for each z, decided exactly (identities) and by certified signs."""
    out = []
    with workprec(DEFAULT_PREC):
        x0 = fld.ball()
        cvals = [_poly_ball(c, x0) for c in fld.colsum]
        for z in range(m):
            vals = [cvals[y] * _poly_ball(fld.h_poly(y, z), x0) for y in range(n)]
            lead = max(range(n), key=lambda y: float(vals[y].mid()))
            floor = vals[lead].lower()
            best = lead
            for y in range(n):
                if y == best or vals[y].upper() < floor:
                    continue
                diff = fld.colsum[best] * fld.h_poly(best, z) - fld.colsum[y] * fld.h_poly(y, z)
                if _poly_sign_at(diff, fld, "difference of two candidate maxima") is Sign.NEGATIVE:
                    best = y
            out.append(best)
    return out


def _ball_h(mechanism: Mechanism, prec: int) -> list[list[arb]]:
    """Balls enclosing H at ``prec`` bits (closed-form monomial factors re-evaluated there)."""
    form = mechanism.monomial
    with workprec(prec):
        if mechanism.kind is MechanismKind.CERTIFIED and form is not None:
            s = factor_ball(form.s)
            cs = [form.column_factor_ball(k) for k in range(mechanism.n_outputs)]
            return [[cs[z] * s ** int(e) for z, e in enumerate(row)]
                    for row in form.exponents.tolist()]
        return [[arb(v) if isinstance(v, arb) else arb_from_fraction(v)
                 for v in row] for row in mechanism.to_balls().tolist()]


def _ball_colsum(metric: FiniteMetric, level: PrivacyLevel) -> list[arb]:
    vals = entry_values_ball(metric, level)
    return [sum((vals[k] for k in row), arb(0)) for row in metric.index.tolist()]


def _exact_data(
    mechanism: Mechanism, metric: FiniteMetric, level: PrivacyLevel
) -> tuple[list[list[Fraction]], list[Fraction]] | None:
    """(H, c) exactly when s is rational and H exact; c = Φᵀ1 = Φ1 (Φ is symmetric)."""
    if mechanism.kind is not MechanismKind.EXACT or exact_parameter(metric, level) is None:
        return None
    vals = entry_values_exact(metric, level)
    c = [sum((vals[k] for k in row), Fraction(0)) for row in metric.index.tolist()]
    return mechanism.rows_fraction(), c


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

    def verify(self) -> bool:
        n, m = self.mechanism.shape
        R = self.remap
        if self.metric.n != n or len(R) != m or any(len(r) != n for r in R):
            return False
        if any(not isinstance(v, Fraction | int) for r in R for v in r):
            return False
        if any(v < 0 for r in R for v in r) or any(sum(r, Fraction(0)) != 1 for r in R):
            return False
        idx = self.metric.index.tolist()
        if _exact_data(self.mechanism, self.metric, self.level) is not None:
            H = self.mechanism.rows_fraction()
            diag = [sum((H[y][z] * R[z][y] for z in range(m) if R[z][y]), Fraction(0))
                    for y in range(n)]
            vals = entry_values_exact(self.metric, self.level)
            return all(
                sum((vals[idx[y][y2]] * diag[y2] for y2 in range(n)), Fraction(0)) == 1
                for y in range(n)
            )
        try:
            fld = _Field(self.mechanism, self.metric, self.level)
        except ExactnessRequired:
            identity = all(R[z][y] == (z == y) for z in range(m) for y in range(n))
            return n == m and identity and _tight_structure(self.mechanism, self.metric,
                                                            self.level)
        # diag_{y'}(x) = Σ_z R[z, y'] c_z(x) h_{y'z}(x); row y: Σ_{y'} x^{e(y, y')} diag_{y'} ≡ 1
        used = [(z, y2) for z in range(m) for y2 in range(n) if R[z][y2]]
        one = flint.fmpq_poly([1])
        for y in range(n):
            terms = [(fld.col(z), fld.h_poly(y2, z) * to_fmpq(Fraction(R[z][y2]))
                      * flint.fmpq_poly([0] * fld.phi_exp[y][y2] + [1])) for z, y2 in used]
            num, den = _ratfun_sum(terms)
            if num != den * one:
                return False
        return True


@dataclass(frozen=True)
class FarkasRemapCertificate:
    """w with Aᵀw ≥ 0 and b·w < 0: no remap R satisfies (*), so H is not optimal for all.

    w = (−1, …, −1, μ̄_1, …, μ̄_m) (rational) with (Aᵀw)[z, y] = μ̄_z − c_y·H[y, z] and
    b·w = Σ μ̄ − n (``proofs/qif_optimality_reduction.py``). ``precision`` is None when the
    check is exact (rational s, exact H), else the bits at which ``verify()`` re-checks
    Aᵀw ≥ 0 in ball arithmetic (w stays rational; b·w < 0 is exact).
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

    def verify(self) -> bool:
        n, m = self.mechanism.shape
        w = self.w
        if self.metric.n != n or len(w) != n + m:
            return False
        if any(not isinstance(v, Fraction | int) for v in w):
            return False
        if sum(w, Fraction(0)) >= 0:  # b = (1, …, 1): b·w < 0, exact
            return False
        exact = _exact_data(self.mechanism, self.metric, self.level)
        if self.precision is None:
            if exact is None:
                return False
            H, _ = exact
            vals = entry_values_exact(self.metric, self.level)
            idx = self.metric.index.tolist()
            # Aᵀw[z, y] = Σ_{y_r} w_{y_r} Φ[y_r, y] H[y, z] + w_{n+z}
            g = [sum((w[yr] * vals[idx[yr][y]] for yr in range(n)), Fraction(0))
                 for y in range(n)]
            return all(g[y] * H[y][z] + w[n + z] >= 0 for y in range(n) for z in range(m))
        prec = self.precision
        if not DEFAULT_PREC <= prec <= MAX_PREC:
            return False
        with workprec(prec):
            H_b = _ball_h(self.mechanism, prec)
            vals_b = entry_values_ball(self.metric, self.level)
            idx = self.metric.index.tolist()
            wb = [arb_from_fraction(v) for v in w]
            g_b = [sum((wb[yr] * vals_b[idx[yr][y]] for yr in range(n)), arb(0))
                   for y in range(n)]
            return all(bool(g_b[y] * H_b[y][z] + wb[n + z] >= 0)
                       for y in range(n) for z in range(m))


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
    """Decide Thm. 4's condition: does some remap R make HR tight-constraints?

    Decided by the closed form Σ_z max_y c_y·H[y, z] = n (c = Φᵀ1) of the LP (*), with a
    0/1 remap or a Farkas vector as certificate (``proofs/qif_optimality_reduction.py``):
    exact for rational s and an exact mechanism, certified for irrational s (identities in
    Q(x), signs by balls). Cost O(n² + n·m); at most :data:`MAX_ENTRIES` entries.

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
    priv = is_private(mechanism, metric, eps=level.eps)
    if not priv.private:
        return OptimalityResult(False, priv, None)
    tc = tight_constraints(metric, eps=level.eps) if level.t is None else tight_constraints(
        metric, t=level.t
    )
    exists = bool(tc.exists) if isinstance(tc, TightConstraintsResult) else None
    exact = _exact_data(mechanism, metric, level)
    cert: RemapCertificate | FarkasRemapCertificate
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
            cert = RemapCertificate(_zero_one_remap(argmax, n), mechanism, metric, level)
            return OptimalityResult(True, priv, cert, exists)
        w = tuple([Fraction(-1)] * n + mu)
        return OptimalityResult(
            False, priv, FarkasRemapCertificate(w, mechanism, metric, level), exists
        )
    refuted = _ball_farkas(mechanism, metric, level, stop_prec=DEFAULT_PREC)
    if refuted is not None:
        return OptimalityResult(False, priv, refuted, exists)
    if n == m and _tight_structure(mechanism, metric, level):
        identity = _zero_one_remap(list(range(n)), n)
        return OptimalityResult(True, priv, RemapCertificate(identity, mechanism, metric, level),
                                exists)
    fld = _Field(mechanism, metric, level)  # ExactnessRequired when no closed form
    argmax = _symbolic_argmax(fld, n, m)
    terms = [(fld.col(z), fld.colsum[argmax[z]] * fld.h_poly(argmax[z], z)) for z in range(m)]
    num, den = _ratfun_sum(terms)
    if num == den * n:
        cert = RemapCertificate(_zero_one_remap(argmax, n), mechanism, metric, level)
        return OptimalityResult(True, priv, cert, exists)
    # Σ μ_z(x) − n is a nonzero rational function: nonzero at x, so balls separate it from 0
    refuted = _ball_farkas(mechanism, metric, level, stop_prec=MAX_PREC)
    if refuted is None:
        raise PrecisionLimitReached(
            f"Σ_z μ_z − n is not identically 0 but its sign was not decided at {MAX_PREC} bits "
            "(x algebraic and a root?); pass a rational t or a transcendental level."
        )
    return OptimalityResult(False, priv, refuted, exists)


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
            H_b = _ball_h(mechanism, prec)
            c_b = _ball_colsum(metric, level)
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
