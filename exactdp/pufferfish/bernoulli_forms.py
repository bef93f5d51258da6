"""Closed forms of the least Laplace scale for Bernoulli secret pairs.

With E = e^ε and u = e^{1/θ}, for D ~ Bern(p) against D ~ Bern(q), p > q, the
privacy loss is the larger of the two end constraints (proved in
``proofs/pufferfish_bernoulli.py``):

    (1 − p + p u)/(1 − q + q u) ≤ E      (output far right; binding when p > qE)
    (q + (1 − q) u)/(p + (1 − p) u) ≤ E  (output far left; binding when 1 − q > (1 − p)E)

so θ* = 1 / ln min(u_A, u_B) with u_A, u_B below (∞ when not binding), and θ* = 0
when neither binds: then p/q ≤ E and (1 − q)/(1 − p) ≤ E, the secret's own
randomness already hides it and no noise at all is needed. For S_{P,⊥}
(q = 0) u_A ≤ u_B always, so θ* = 1/ln(1 + (E − 1)/p).

:func:`bernoulli_theta_piecewise` states all of this as one sympy ``Piecewise``, symbolic
in p, q and ε (``proofs/pufferfish_bernoulli_piecewise.py``).
"""

from __future__ import annotations

from fractions import Fraction

import sympy

from exactdp.arithmetic.ball import MAX_PREC, certified_sign, sympy_to_arb
from exactdp.arithmetic.expressions import parse_closed_form
from exactdp.arithmetic.rationals import to_sympy
from exactdp.errors import InvalidArgument, PrecisionLimitReached
from exactdp.kinds import Sign, proved_by
from exactdp.pufferfish.distributions import DiscreteDistribution
from exactdp.spaces.levels import PrivacyLevel

__all__ = [
    "closed_forms",
    "bernoulli_theta_expr",
    "bernoulli_theta_piecewise",
    "piecewise_mathtext",
    "closed_form_solves",
    "exact_sign",
]

_p, _q, _eps = sympy.symbols("p q epsilon", positive=True)
_h = sympy.Symbol("h", positive=True)  # the gap |a − b| of a value pair S_{a,b}


@proved_by("pufferfish_bernoulli")
def closed_forms() -> dict[str, sympy.Expr]:
    """The sympy expressions for the Bernoulli cases (symbols p, q, epsilon).

    Keys: ``u_A``, ``u_B`` (the two end constraints solved for u = e^{1/θ}),
    ``theta_A``, ``theta_B`` (= 1/ln u), ``theta_absent`` (S_{P,⊥}, p = P(D = 1)),
    ``theta_values`` (S_{a,b} with |a − b| = 1, i.e. 1/ε), ``theta_values_gap``
    (S_{a,b} for a gap h = |a − b|: h/ε), ``cond_A``, ``cond_B``
    (the conditions p > qE and 1 − q > (1 − p)E under which u_A, u_B are finite),
    ``theta_conservative`` (W_∞/ε = 1/ε for any p ≠ q) and ``theta_star`` (θ* for every
    p ≠ q as one ``Piecewise``, see :func:`bernoulli_theta_piecewise`).
    Proved in ``proofs/pufferfish_bernoulli.py``.

    >>> cf = closed_forms()
    >>> cf["theta_absent"]
    1/log(1 + (exp(epsilon) - 1)/p)
    >>> sorted(cf)[:3]
    ['cond_A', 'cond_B', 'theta_A']
    """
    big_e = sympy.exp(_eps)
    u_a = (big_e * (1 - _q) - (1 - _p)) / (_p - _q * big_e)
    u_b = (big_e * _p - _q) / ((1 - _q) - (1 - _p) * big_e)
    return {
        "u_A": u_a,
        "u_B": u_b,
        "theta_A": 1 / sympy.log(u_a),
        "theta_B": 1 / sympy.log(u_b),
        "theta_absent": 1 / sympy.log(1 + (big_e - 1) / _p),
        "theta_values": 1 / _eps,
        "theta_values_gap": _h / _eps,
        "theta_conservative": 1 / _eps,
        "cond_A": sympy.StrictGreaterThan(_p - _q * big_e, 0),
        "cond_B": sympy.StrictGreaterThan((1 - _q) - (1 - _p) * big_e, 0),
        "theta_star": bernoulli_theta_piecewise()[0],
    }


def _theta_ordered(hi: sympy.Expr, lo: sympy.Expr, big_e: sympy.Expr) -> sympy.Piecewise:
    """θ* for Bern(hi) against Bern(lo) when hi > lo (the module docstring's branches).

    When both ends bind the smaller u is chosen by the sign of the cross product
    ``num_A·den_B − num_B·den_A`` (a polynomial in E, both denominators positive), not by
    ``Max`` of the two θ: ``Max`` compares 1/ln u numerically, which divides by zero in
    mpmath when u is within 1e-10 of 1 (tiny ε).
    """
    num_a, den_a = big_e * (1 - lo) - (1 - hi), hi - lo * big_e
    num_b, den_b = big_e * hi - lo, (1 - lo) - (1 - hi) * big_e
    cond_a = den_a > 0
    cond_b = den_b > 0
    b_smaller = num_a * den_b - num_b * den_a > 0  # u_A > u_B: the B end binds first
    theta_a = 1 / sympy.log(num_a / den_a)
    theta_b = 1 / sympy.log(num_b / den_b)
    return sympy.Piecewise(
        (theta_b, sympy.And(cond_a, cond_b, b_smaller)),
        (theta_a, cond_a),
        (theta_b, cond_b),
        (sympy.Integer(0), True),
    )


@proved_by("pufferfish_bernoulli_piecewise")
def bernoulli_theta_piecewise() -> tuple[sympy.Piecewise, sympy.Boolean]:
    """θ* for Bern(p) against Bern(q) on {0, 1} as one sympy expression in p, q, ε.

    Returns ``(theta, validity)``: ``theta`` is a ``Piecewise`` over p > q and p < q (the
    pair swapped), each a ``Piecewise`` over the binding ends — both bind: the larger of
    θ_A, θ_B (= 1/ln min(u_A, u_B), chosen by the exact sign of a polynomial in e^ε, so
    substituting any rational ε > 0, however small, stays exact); one binds: its θ; none
    binds: 0 (no noise needed); p = q: 0 (identical secrets). ``validity`` is ε > 0 and
    0 ≤ p, q ≤ 1, kept unevaluated (the symbols are declared positive, substitute 0 for a
    point mass; it is ``False`` for any substitution outside the range). For a support {a, a + h} multiply
    by h. Substituting rationals gives :func:`exactdp.pufferfish.calibration.exact_scale`'s
    closed form (tests/threshold/test_thr_closed_forms.py checks this). Proved in
    ``proofs/pufferfish_bernoulli_piecewise.py``.

    >>> theta, validity = bernoulli_theta_piecewise()
    >>> eps, p, q = sorted(theta.free_symbols, key=str)
    >>> theta.subs({p: sympy.Rational(1, 2), q: 0, eps: sympy.log(2)})
    1/log(3)
    >>> validity.subs({p: sympy.Rational(1, 2), q: 0, eps: 1})
    True
    >>> validity.subs({p: 2, q: 0, eps: 1})
    False
    >>> theta.subs({p: sympy.Rational(1, 2), q: 0, eps: sympy.Rational(1, 10**12)})
    1/log(-1 + 2*exp(1/1000000000000))
    """
    big_e = sympy.exp(_eps)
    theta = sympy.Piecewise(
        (_theta_ordered(_p, _q, big_e), _p > _q),
        (_theta_ordered(_q, _p, big_e), _q > _p),
        (sympy.Integer(0), True),
    )
    # evaluate=False: the symbols are declared positive, so a plain ``_eps > 0`` or
    # ``_p >= 0`` would collapse to True and the condition could never fail.
    validity = sympy.And(
        sympy.Gt(_eps, 0, evaluate=False),
        sympy.Ge(_p, 0, evaluate=False), sympy.Le(_p, 1, evaluate=False),
        sympy.Ge(_q, 0, evaluate=False), sympy.Le(_q, 1, evaluate=False),
        evaluate=False,
    )
    return theta, validity


def piecewise_mathtext(expr: sympy.Expr) -> tuple[str, ...]:
    r"""A (nested) ``Piecewise`` as LaTeX lines that matplotlib's mathtext can parse.

    ``sympy.latex`` writes a ``Piecewise`` with ``\begin{cases}``, which mathtext does not
    have. This gives one ``$…$`` line per piece, first match wins, nested pieces flattened
    with their outer condition (``\wedge``); the catch-all piece reads "otherwise".

    >>> x = sympy.Symbol("x")
    >>> piecewise_mathtext(sympy.Piecewise((x, x > 0), (0, True)))
    ('$x \\quad \\mathrm{if}\\ x > 0$', '$0 \\quad \\mathrm{otherwise}$')
    """
    lines: list[str] = []
    for value, cond in _flat_pieces(expr, sympy.true):
        tail = r"\mathrm{otherwise}" if cond is sympy.true else r"\mathrm{if}\ " + sympy.latex(cond)
        lines.append(f"${sympy.latex(value)} \\quad {tail}$")
    return tuple(lines)


def _flat_pieces(expr: sympy.Expr, outer: sympy.Boolean) -> list[tuple[sympy.Expr, sympy.Boolean]]:
    """The pieces of a nested ``Piecewise`` with their conditions ANDed with ``outer``."""
    if not isinstance(expr, sympy.Piecewise):
        return [(expr, outer)]
    out: list[tuple[sympy.Expr, sympy.Boolean]] = []
    for value, cond in expr.args:
        out.extend(_flat_pieces(value, sympy.And(outer, cond)))
    return out


def exact_sign(expr: sympy.Expr, *, max_prec: int = 2048) -> Sign:
    """Exact sign of a real closed-form constant (rational: exact; else balls, then sympy).

    Expressions polynomial in e^ε with rational ε are never 0 unless identically 0
    (e^ε is transcendental), so balls decide them; a true zero is recognised symbolically.

    >>> exact_sign(sympy.exp(1) - sympy.Rational(27, 10))
    <Sign.POSITIVE: 1>
    >>> exact_sign(sympy.exp(sympy.log(2)) - 2)
    <Sign.ZERO: 0>
    """
    if isinstance(expr, str):
        expr = parse_closed_form(expr, "expr", InvalidArgument)  # never sympify/eval user text
    expr = sympy.sympify(expr)  # ints and sympy objects only from here on
    if isinstance(expr, sympy.Rational):
        return Sign.POSITIVE if expr > 0 else Sign.NEGATIVE if expr < 0 else Sign.ZERO
    try:
        sign, _ = certified_sign(lambda _p: sympy_to_arb(expr), max_prec=max_prec, what=str(expr))
        return sign
    except PrecisionLimitReached:
        if sympy.simplify(expr) == 0:
            return Sign.ZERO
        raise


@proved_by("pufferfish_bernoulli")
def bernoulli_theta_expr(p: Fraction, q: Fraction, eps: sympy.Expr) -> tuple[sympy.Expr, str]:
    """θ* for Bern(p) against Bern(q) on {0, 1}, as an exact sympy expression.

    Returns ``(theta, branch)`` with branch one of ``"A"``, ``"B"``, ``"none"``
    (θ* = 0: no noise needed) or ``"equal"`` (p = q: the secrets are identical).
    Proved in ``proofs/pufferfish_bernoulli.py``.

    >>> bernoulli_theta_expr(Fraction(1), Fraction(0), sympy.Integer(1))
    (1, 'A')
    >>> bernoulli_theta_expr(Fraction(1, 2), Fraction(0), sympy.log(2))
    (1/log(3), 'A')
    """
    if p == q:
        return sympy.Integer(0), "equal"
    if p < q:
        p, q = q, p
    P, Q = to_sympy(p), to_sympy(q)
    big_e = sympy.exp(eps)
    cond_a = exact_sign(P - Q * big_e) is Sign.POSITIVE
    cond_b = exact_sign((1 - Q) - (1 - P) * big_e) is Sign.POSITIVE
    if cond_a and cond_b:
        # both denominators are positive: compare the cross products
        cross = (big_e * (1 - Q) - (1 - P)) * ((1 - Q) - (1 - P) * big_e) - (big_e * P - Q) * (
            P - Q * big_e
        )
        branch = "B" if exact_sign(sympy.expand(cross)) is Sign.POSITIVE else "A"
    elif cond_a:
        branch = "A"
    elif cond_b:
        branch = "B"
    else:
        return sympy.Integer(0), "none"
    # factor in a symbol x standing for e^ε, then put e^ε in: factoring in e^ε itself treats
    # e^10000 as the polynomial E**10000 (degree 10⁴, a hang at ε = 10⁴)
    x = sympy.Dummy("x", positive=True)
    u_x = ((x * (1 - Q) - (1 - P)) / (P - Q * x) if branch == "A"
           else (x * P - Q) / ((1 - Q) - (1 - P) * x))
    u = sympy.factor(sympy.together(u_x)).subs(x, big_e)
    return 1 / sympy.log(u), branch


@proved_by("pufferfish_bernoulli")
def closed_form_solves(
    P: DiscreteDistribution, Q: DiscreteDistribution, level: PrivacyLevel, theta: sympy.Expr
) -> bool:
    """Prove that the closed form ``theta`` *is* θ* for a pair on two support points.

    With h = the gap of the two points, p > q the masses of the upper point (P and Q swapped
    if needed), u = e^{h/θ} and E = e^ε, the loss at θ is ln max(R_A(u), R_B(u)) with
    R_A = (1 − p + p u)/(1 − q + q u), R_B = (q + (1 − q) u)/(p + (1 − p) u), both strictly
    increasing in u (proofs/pufferfish_bernoulli.py, steps (a), (b)). So θ = θ* exactly iff
    θ > 0 and max(R_A, R_B) = E at u = e^{h/θ}: one of R_A − E, R_B − E is identically zero
    (its numerator expands to 0 as a polynomial in E) and the other is ≤ 0 (certified sign).
    Derived here from P and Q afresh, not from the closed forms that produced ``theta``.

    >>> from exactdp.pufferfish.distributions import bernoulli, point_mass
    >>> from exactdp.spaces.levels import parse_level
    >>> lv = parse_level(eps="ln(2)")
    >>> closed_form_solves(bernoulli("1/2"), point_mass(0), lv, 1 / sympy.log(3))
    True
    >>> closed_form_solves(bernoulli("1/2"), point_mass(0), lv, sympy.Rational(91, 100))
    False
    """
    pts = sorted(set(P.support) | set(Q.support))
    if len(pts) != 2 or exact_sign(theta) is not Sign.POSITIVE:
        return False
    width = pts[1] - pts[0]
    p, q = P.as_dict().get(pts[1], Fraction(0)), Q.as_dict().get(pts[1], Fraction(0))
    if p == q:
        return False
    if p < q:
        p, q = q, p
    pr, qr = to_sympy(p), to_sympy(q)
    u = sympy.exp(to_sympy(width) / theta)
    big_e = sympy.exp(level.eps)
    r_a = (1 - pr + pr * u) / (1 - qr + qr * u)
    r_b = (qr + (1 - qr) * u) / (pr + (1 - pr) * u)
    for binding, other in ((r_a, r_b), (r_b, r_a)):
        if _identically_zero(binding - big_e):
            return exact_sign(other - big_e, max_prec=MAX_PREC) is not Sign.POSITIVE
    return False


def _identically_zero(expr: sympy.Expr) -> bool:
    """The numerator of ``expr`` (over a common denominator) expands to exactly 0."""
    num, _ = sympy.fraction(sympy.together(expr))
    return bool(sympy.expand(num) == 0)
