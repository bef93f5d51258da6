"""Machinery of :func:`exactdp.mechanisms.optimality.is_optimal`: the question in Q(x) and in balls.

* :func:`exact_phi_values` — Φ's distinct entries as exact rationals, also at an algebraic
  s = e^{-ε/q} whose power s^g (g = gcd of the exponents) is rational (e.g. ε = ln(2)/2 on
  distances 2|i − j|): then Φ[y, y'] = (s^g)^{k/g} is rational although s is not.
* :func:`trusted_monomial` — the monomial form of a certified mechanism only when it is the
  definition of the entries (``Mechanism.from_form``) and its balls meet every entry; a form
  attached to balls handed in by a caller is ignored (the entries decide).
* :class:`QxField` — Φ, c = Φ1 and H as rational functions of a base x (identities exact,
  signs by balls); polynomial helpers; :func:`tight_structure`.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import flint
import sympy
from flint import arb

from exactdp.algebra.phi import entry_values_ball, exact_parameter
from exactdp.arithmetic.ball import DEFAULT_PREC, arb_from_fraction, certified_sign, workprec
from exactdp.arithmetic.interval import Enclosure
from exactdp.arithmetic.rationals import to_fmpq, to_fraction
from exactdp.errors import ExactnessRequired
from exactdp.kinds import Sign
from exactdp.mechanisms.mechanism import Mechanism, MechanismKind, factor_ball
from exactdp.spaces.levels import PrivacyLevel
from exactdp.spaces.mechanism_forms import MonomialForm
from exactdp.spaces.metrics import FiniteMetric
from exactdp.tight import TightConstraintsResult

__all__ = [
    "QxField",
    "exact_phi_values",
    "exact_data",
    "trusted_monomial",
    "tight_structure",
    "symbolic_argmax",
    "ratfun_sum",
    "poly_sign_at",
    "ball_h",
    "ball_colsum",
]

#: Largest sympy operation count of s^g that :func:`exact_phi_values` tries to simplify.
SIMPLIFY_OPS = 60


def exact_phi_values(metric: FiniteMetric, level: PrivacyLevel) -> list[Fraction] | None:
    """Exact e^{-ε d} for each distinct distance when all are rational, else None.

    With s = e^{-ε/q} and g = gcd of the exponents k (d = k/q), every s^k is rational iff
    r = s^g is (Bézout: g = Σ a_i k_i), and then s^k = r^{k/g}. r is recognised when sympy
    evaluates e^{-ε·g/q} to a rational (exact algebra, e.g. e^{-ln 2} = 1/2); otherwise None
    (``proofs/qif_optimality_reduction.py``).

    >>> from exactdp.spaces.metrics import line
    >>> from exactdp.spaces.metrics.explicit import from_matrix
    >>> from exactdp.spaces.levels import parse_level
    >>> exact_phi_values(line(3), parse_level(t="1/2"))
    [Fraction(1, 1), Fraction(1, 2), Fraction(1, 4)]
    >>> D2 = from_matrix([[2 * abs(i - j) for j in range(3)] for i in range(3)])
    >>> exact_phi_values(D2, parse_level(eps="ln(2)/2"))     # s = 2^(-1/2), s^2 = 1/2
    [Fraction(1, 1), Fraction(1, 2), Fraction(1, 4)]
    >>> exact_phi_values(line(3), parse_level(eps="ln(2)/2")) is None
    True
    """
    q = metric.q
    if q is None:
        return None
    s = exact_parameter(metric, level)
    if s is not None:
        return [s**k for k in metric.exponents]
    ks = [int(k) for k in metric.exponents]
    g = math.gcd(*ks)
    if g == 0:
        return [Fraction(1)] * len(ks)
    r = sympy.exp(-sympy.sympify(level.eps) * g / q)
    if not isinstance(r, sympy.Rational) and sympy.count_ops(r) <= SIMPLIFY_OPS:
        r = sympy.simplify(r)
    if not isinstance(r, sympy.Rational) or not 0 < r <= 1:
        return None
    base = to_fraction(r)
    return [base ** (k // g) for k in ks]


def exact_data(
    mechanism: Mechanism, metric: FiniteMetric, level: PrivacyLevel
) -> tuple[list[list[Fraction]], list[Fraction]] | None:
    """(H, c) exactly when Φ is rational and H exact; c = Φᵀ1 = Φ1 (Φ is symmetric)."""
    if mechanism.kind is not MechanismKind.EXACT:
        return None
    vals = exact_phi_values(metric, level)
    if vals is None:
        return None
    c = [sum((vals[k] for k in row), Fraction(0)) for row in metric.index.tolist()]
    return mechanism.rows_fraction(), c


def trusted_monomial(mechanism: Mechanism) -> MonomialForm | None:
    """The monomial form of a certified mechanism when it is *in force*, else None.

    In force: the entries were computed from it (``form_sealed``: the form is their
    definition) and its balls meet every entry ball at :data:`DEFAULT_PREC` (a form that
    contradicts the entries is never trusted). A form on caller-given balls proves nothing
    about them, so the entries decide.
    """
    form = mechanism.monomial
    if form is None or mechanism.kind is not MechanismKind.CERTIFIED:
        return None
    if not mechanism.form_sealed or form.exponents.shape != mechanism.shape:
        return None
    with workprec(DEFAULT_PREC):
        s = factor_ball(form.s)
        cs = [form.column_factor_ball(k) for k in range(mechanism.n_outputs)]
        balls = mechanism.to_balls().tolist()
        for row, brow, in zip(form.exponents.tolist(), balls):
            for z, (e, b) in enumerate(zip(row, brow)):
                entry = b if isinstance(b, arb) else arb_from_fraction(to_fraction(b))
                if not (cs[z] * s ** int(e)).overlaps(entry):
                    return None
    return form


RatFun = tuple[flint.fmpq_poly, flint.fmpq_poly]  # (numerator, denominator)
_X = sympy.Symbol("x")


class QxField:
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
        self.cols: list[RatFun] = []
        a, b = 1, 1
        form = trusted_monomial(mechanism)
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
                self.cols.append((poly_of(num), poly_of(den)))
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
        self.colsum = [sum_monomials(row) for row in self.phi_exp]  # Φ symmetric: c = Φ1

    def ball(self) -> arb:
        """x at the current precision (x = e^{-ε/(q·b)})."""
        return self.level.s_ball(self.q * self.b)

    def h_poly(self, y: int, z: int) -> flint.fmpq_poly:
        """The polynomial part of H[y, z] (the whole entry for an exact mechanism)."""
        if self.exact_h is not None:
            return flint.fmpq_poly([to_fmpq(self.exact_h[y][z])])
        return flint.fmpq_poly([0] * (self.a * self.E[y][z]) + [1])

    def col(self, z: int) -> RatFun:
        """The column factor c_z(x) (1 for an exact mechanism)."""
        one = flint.fmpq_poly([1])
        return self.cols[z] if self.cols else (one, one)


def tight_structure(mechanism: Mechanism, metric: FiniteMetric, level: PrivacyLevel) -> bool:
    """True when ``mechanism`` is the tight-constraints mechanism Φ·diag(z) of (metric, level).

    Then Φ·diag(H·I) = Φ·z = 1 by structure (Φ[y, y] = 1), whatever closed form z has: the
    identity remap is a certificate (``proofs/qif_optimality_reduction.py``). Checked: the
    mechanism carries a verified existence certificate for this metric (same exact distances)
    and level, its entries were computed from its monomial form (``Mechanism.from_form``),
    the form's exponents are the metric's (H[y, z] = c_z·s^{e(y, z)}), and each c_z is the
    certificate's own enclosure of z_z (equal bounds, not merely overlapping ones).
    """
    tc = mechanism.parameters.get("certificate")
    form = trusted_monomial(mechanism)
    if not isinstance(tc, TightConstraintsResult) or not tc.exists or form is None:
        return False
    if not mechanism.form_sealed:
        return False  # a form attached to given balls proves nothing about them
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
        if not isinstance(ck, Enclosure) or (ck.lo, ck.hi) != (zk.lo, zk.hi):
            return False  # the factors are the certificate's own enclosures of z
    return True


def poly_of(expr: Any) -> flint.fmpq_poly:
    coeffs = sympy.Poly(expr, _X).all_coeffs()[::-1]
    return flint.fmpq_poly([to_fmpq(to_fraction(c)) for c in coeffs])


def sum_monomials(exps: list[int]) -> flint.fmpq_poly:
    coeffs = [0] * (max(exps) + 1)
    for e in exps:
        coeffs[e] += 1
    return flint.fmpq_poly(coeffs)


def poly_ball(p: flint.fmpq_poly, x: arb) -> arb:
    return flint.arb_poly(p)(x)


def ratfun_sum(terms: list[tuple[RatFun, flint.fmpq_poly]]) -> RatFun:
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


def poly_sign_at(p: flint.fmpq_poly, fld: QxField, what: str) -> Sign:
    """Sign of p(x): ZERO iff p ≡ 0, else certified by balls at increasing precision."""
    if p == 0:
        return Sign.ZERO
    sign, _ = certified_sign(lambda _prec: poly_ball(p, fld.ball()), what=what)
    return sign


def symbolic_argmax(fld: QxField, n: int, m: int) -> list[int]:
    """argmax_y c_y·H[y, z] for each z, decided exactly (identities) and by certified signs."""
    out = []
    with workprec(DEFAULT_PREC):
        x0 = fld.ball()
        cvals = [poly_ball(c, x0) for c in fld.colsum]
        for z in range(m):
            vals = [cvals[y] * poly_ball(fld.h_poly(y, z), x0) for y in range(n)]
            lead = max(range(n), key=lambda y: float(vals[y].mid()))
            floor = vals[lead].lower()
            best = lead
            for y in range(n):
                if y == best or vals[y].upper() < floor:
                    continue
                diff = fld.colsum[best] * fld.h_poly(best, z) - fld.colsum[y] * fld.h_poly(y, z)
                if poly_sign_at(diff, fld, "difference of two candidate maxima") is Sign.NEGATIVE:
                    best = y
            out.append(best)
    return out


def ball_h(mechanism: Mechanism, prec: int) -> list[list[arb]]:
    """Balls enclosing H at ``prec`` bits (closed-form monomial factors re-evaluated there)."""
    form = trusted_monomial(mechanism)
    with workprec(prec):
        if form is not None:
            s = factor_ball(form.s)
            cs = [form.column_factor_ball(k) for k in range(mechanism.n_outputs)]
            return [[cs[z] * s ** int(e) for z, e in enumerate(row)]
                    for row in form.exponents.tolist()]
        return [[arb(v) if isinstance(v, arb) else arb_from_fraction(v)
                 for v in row] for row in mechanism.to_balls().tolist()]


def ball_colsum(metric: FiniteMetric, level: PrivacyLevel) -> list[arb]:
    vals = entry_values_ball(metric, level)
    return [sum((vals[k] for k in row), arb(0)) for row in metric.index.tolist()]
