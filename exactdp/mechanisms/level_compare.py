"""Exact comparisons of candidate privacy levels ln(R)/d, and of row-normalized edge values.

Shared by the privacy-level routes (:mod:`exactdp.mechanisms.privacy_routes`) and by the
independent re-check of their results (:mod:`exactdp.mechanisms.privacy_result`): balls
separate distinct values, and equality is decided exactly (integer powers, polynomial
identities in s), never by a float.
"""

from __future__ import annotations

from fractions import Fraction

import flint
import numpy as np
import sympy
from flint import arb

from exactdp.arithmetic.ball import (
    Sign,
    arb_from_fraction,
    arb_to_fraction_interval,
    certified_sign,
    sympy_to_arb,
)
from exactdp.arithmetic.rationals import to_sympy
from exactdp.mechanisms.mechanism import RowNormalizedForm
from exactdp.spaces.distances import Distance
from exactdp.spaces.metrics import FiniteMetric

__all__ = [
    "approx_decimal",
    "log_ratio_bounds",
    "log_ratio_points",
    "log_ratio_value",
    "monomial_value",
    "rownorm_value",
    "compare_kappa",
    "compare_log_ratio",
    "poly_value_ball",
    "rownorm_equal",
    "rownorm_value_ball",
]


def log_ratio_bounds(hx: arb, hy: arb, d: Distance) -> tuple[Fraction | None, Fraction | None]:
    """Exact rationals lo ≤ ln(x/y)/d ≤ hi for every x in the ball ``hx``, y in ``hy``.

    ``lo`` is None (−∞) when ``hx`` reaches 0; both are None (+∞: unbounded) when ``hy``
    reaches 0.
    Computed from the balls' endpoints at the current precision (call with ``hx`` not an
    exact zero: a zero numerator never constrains a privacy level).

    >>> from flint import fmpq
    >>> log_ratio_bounds(arb(fmpq(1, 2)), arb(fmpq(1, 4)), Distance.rational(1))[0] > 0
    True
    """
    lo, hi = log_ratio_points(hx, hy, d)
    return (None if lo is None else arb_to_fraction_interval(lo)[0],
            None if hi is None else arb_to_fraction_interval(hi)[1])


def log_ratio_points(hx: arb, hy: arb, d: Distance) -> tuple[arb | None, arb | None]:
    """:func:`log_ratio_bounds` as exact arb points (cheap to compare; no rational conversion)."""
    y_lo = hy.lower()
    if not y_lo > 0:
        return None, None
    db = d.ball()
    hi = ((hx.upper() / y_lo).log() / db).upper()
    x_lo = hx.lower()
    lo = ((x_lo / hy.upper()).log() / db).lower() if x_lo > 0 else None
    return lo, hi


def log_ratio_value(ratio: Fraction, d: Distance) -> sympy.Expr:
    """The exact level ln(R)/d as the sympy expression every route and re-check builds."""
    return sympy.log(to_sympy(ratio)) / d.to_sympy()


def monomial_value(s: sympy.Expr, kappa: Fraction, d: Distance) -> sympy.Expr:
    """The exact level κ·(−ln s)/d of a monomial form (0 when κ = 0)."""
    if not kappa:
        return sympy.Integer(0)
    neg_log_s = sympy.simplify(-sympy.log(s))
    return sympy.simplify(sympy.nsimplify(kappa) * neg_log_s / d.to_sympy())


def rownorm_value(
    form: RowNormalizedForm, metric: FiniteMetric, key: tuple[int, int, int, int]
) -> sympy.Expr:
    """The exact edge value (Δ·(−ln s) + ln S_b(s) − ln S_a(s))/d of a row-normalized form."""
    polys, _ = form.row_polynomials
    sv = form.s

    def S(v: np.ndarray) -> sympy.Expr:
        return sympy.Add(*[int(c) * sv**k for k, c in enumerate(v.tolist()) if c])

    value = (key[0] * (-sympy.log(sv)) + sympy.log(S(polys[key[2]]))
             - sympy.log(S(polys[key[1]])))
    value = value / metric.values[key[3]].to_sympy()
    if isinstance(sv, sympy.Rational) or polys[key[1]].tolist() == polys[key[2]].tolist():
        value = sympy.simplify(value)
    return value


def compare_kappa(k1: Fraction, d1: Distance, k2: Fraction, d2: Distance) -> int:
    """Exact sign of k1/d1 − k2/d2 for k ≥ 0 rational, d > 0 of the form c·√r."""
    lhs = k1 * k1 * d2.square  # compare (k1 d2)^2 with (k2 d1)^2, all nonnegative
    rhs = k2 * k2 * d1.square
    return (lhs > rhs) - (lhs < rhs)


def compare_log_ratio(r1: Fraction, d1: Distance, r2: Fraction, d2: Distance) -> int:
    """Exact sign of ln(r1)/d1 − ln(r2)/d2 for rationals r ≥ 1 and distances d > 0.

    Balls separate distinct values; equality is decided exactly: when d1/d2 is rational
    (same radicand) it is r1^{a} = r2^{b} for integers a, b; when d1/d2 is irrational,
    Gelfond–Schneider makes equality impossible unless r1 = r2 = 1.
    """
    if r1 == 1 and r2 == 1:
        return 0
    if d1.radicand == d2.radicand or (d1.is_rational and d2.is_rational):
        # ln r1 / (c1 √r) vs ln r2 / (c2 √r): compare c2 ln r1 vs c1 ln r2
        c = d2.coef / d1.coef  # ln r1 · c vs ln r2  ⇔  r1^(c) vs r2
        a, b = c.numerator, c.denominator  # r1^a vs r2^b
        if a * max(r1.numerator.bit_length(), 1) < 200_000 and b * max(
            r2.numerator.bit_length(), 1
        ) < 200_000:
            lhs, rhs = r1**a, r2**b
            return (lhs > rhs) - (lhs < rhs)

    def diff(prec: int) -> arb:
        return (
            arb_from_fraction(r1).log() / d1.ball() - arb_from_fraction(r2).log() / d2.ball()
        )

    sign, _ = certified_sign(diff, what="difference of log-ratios")
    return {Sign.POSITIVE: 1, Sign.NEGATIVE: -1}.get(sign, 0)


def poly_value_ball(coeffs: np.ndarray, s_ball: arb) -> arb:
    """Ball of Σ_k coeffs[k]·s^k at the ball ``s_ball`` (integer coefficients)."""
    total = arb(0)
    p = arb(1)
    for c in coeffs.tolist():
        if c:
            total += c * p
        p *= s_ball
    return total


def rownorm_equal(
    form: RowNormalizedForm, metric: FiniteMetric, k1: tuple[int, int, int, int], k2: tuple[int, int, int, int]
) -> bool:
    """Exact equality of two edge values (Δ L + ln S_b − ln S_a)/d, L = −ln s.

    With d1 = c1/D, d2 = c2/D (integers c1, c2): equality ⇔
    s^(c1·Δ2)·S_b1^c2·S_a2^c1 = s^(c2·Δ1)·S_b2^c1·S_a1^c2 — a polynomial identity when s is
    transcendental (rational coefficients), an identity of rationals when s is rational.
    """
    polys, _ = form.row_polynomials
    d1 = metric.values[k1[3]].coef
    d2 = metric.values[k2[3]].coef
    D = d1.denominator * d2.denominator
    c1, c2 = int(d1 * D), int(d2 * D)
    s_rat = form.s_rational
    if s_rat is not None:
        def ev(v: np.ndarray) -> Fraction:
            return sum((int(c) * s_rat**k for k, c in enumerate(v.tolist()) if c), Fraction(0))

        lhs = s_rat ** (c1 * k2[0]) * ev(polys[k1[2]]) ** c2 * ev(polys[k2[1]]) ** c1
        rhs = s_rat ** (c2 * k1[0]) * ev(polys[k2[2]]) ** c1 * ev(polys[k1[1]]) ** c2
        return lhs == rhs

    def P(v: np.ndarray) -> flint.fmpz_poly:
        return flint.fmpz_poly([int(c) for c in v.tolist()])

    x = flint.fmpz_poly([0, 1])
    # Δ can be negative (rectangular forms: an input farther than its neighbour from every
    # output); multiply both sides by s^{-min} so that only nonnegative powers remain
    e1, e2 = c1 * k2[0], c2 * k1[0]
    shift = min(e1, e2, 0)
    lhs_p = x ** (e1 - shift) * P(polys[k1[2]]) ** c2 * P(polys[k2[1]]) ** c1
    rhs_p = x ** (e2 - shift) * P(polys[k2[2]]) ** c1 * P(polys[k1[1]]) ** c2
    return bool(lhs_p == rhs_p)


def rownorm_value_ball(
    form: RowNormalizedForm, metric: FiniteMetric, key: tuple[int, int, int, int]
) -> arb:
    """Ball of (Δ·(−ln s) + ln S_b(s) − ln S_a(s))/d at the current precision."""
    polys, _ = form.row_polynomials
    s_ball = sympy_to_arb(form.s)
    lnb = poly_value_ball(polys[key[2]], s_ball).log()
    lna = poly_value_ball(polys[key[1]], s_ball).log()
    return (key[0] * (-s_ball.log()) + lnb - lna) / metric.values[key[3]].ball()


def approx_decimal(x: Fraction) -> str:
    """A 3-digit decimal of a rational of any size (floats underflow below 1e-308).

    >>> approx_decimal(Fraction(37, 10**52)), approx_decimal(Fraction(1, 10**5000))
    ('3.7e-51', '1.00e-5000')
    """
    if x == 0:
        return "0"
    e = len(str(x.numerator)) - len(str(x.denominator)) if max(
        x.numerator.bit_length(), x.denominator.bit_length()) < 10000 else int(
        (x.numerator.bit_length() - x.denominator.bit_length()) * 0.30103)
    if -300 < e < 300:
        return f"{float(x):.3g}"
    m = x / Fraction(10) ** e
    while m >= 10:
        m, e = m / 10, e + 1
    while m < 1:
        m, e = m * 10, e - 1
    return f"{float(m):.2f}e{e:+d}"
