"""Ball arithmetic (python-flint ``arb``) with explicit, scoped precision.

Ball predicates in flint return False for "false *or unknown*"; here every sign is
three-valued (:class:`~exactdp.kinds.Sign`, re-exported here) and :func:`certified_sign` raises the precision until
the sign is decided or a limit is hit (:class:`~exactdp.errors.PrecisionLimitReached`).
Balls are built from exact rationals or strings, never from binary floats.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

import flint
import sympy
from flint import arb, ctx

from exactdp.arithmetic.rationals import to_fmpq
from exactdp.errors import ExactnessRequired, PrecisionLimitReached
from exactdp.kinds import Sign

__all__ = [
    "Sign",
    "DEFAULT_PREC",
    "MAX_PREC",
    "arb_from_fraction",
    "ball_sign",
    "certified_sign",
    "sympy_to_arb",
    "arb_to_fraction_interval",
    "arb_lower_dyadic",
    "workprec",
]

DEFAULT_PREC = 64
MAX_PREC = 4096


def workprec(prec: int) -> Any:
    """Scoped working precision in bits (never mutate the global precision)."""
    return ctx.workprec(prec)


def arb_from_fraction(value: Fraction | int) -> arb:
    """Ball containing exactly the rational ``value`` (rounded outward at the current precision).

    >>> with workprec(64):
    ...     arb_from_fraction(Fraction(1, 10)).contains(flint.fmpq(1, 10))
    True
    """
    return arb(to_fmpq(value))


def ball_sign(x: arb) -> Sign:
    """Sign of a ball, UNDECIDED when the ball contains 0 but is not exactly 0.

    >>> ball_sign(arb(2)), ball_sign(arb(0)), ball_sign(arb("0 +/- 1"))
    (<Sign.POSITIVE: 1>, <Sign.ZERO: 0>, <Sign.UNDECIDED: None>)
    """
    if x > 0:
        return Sign.POSITIVE
    if x < 0:
        return Sign.NEGATIVE
    if x.is_zero():
        return Sign.ZERO
    return Sign.UNDECIDED


def certified_sign(
    evaluate: Callable[[int], arb],
    *,
    start_prec: int = DEFAULT_PREC,
    max_prec: int = MAX_PREC,
    what: str = "quantity",
) -> tuple[Sign, int]:
    """Evaluate at increasing precision until the sign is decided.

    ``evaluate(prec)`` must return a ball containing the true value, computed at
    ``prec`` bits. Returns the sign and the precision that decided it. A value that
    is exactly zero can only be recognised if ``evaluate`` returns an exact zero ball;
    otherwise :class:`PrecisionLimitReached` is raised at ``max_prec``.

    >>> certified_sign(lambda p: arb(1) / 3 - arb(flint.fmpq(1, 4)))
    (<Sign.POSITIVE: 1>, 64)
    """
    prec = start_prec
    while True:
        with ctx.workprec(prec):
            value = evaluate(prec)
            sign = ball_sign(value)
        if sign is not Sign.UNDECIDED:
            return sign, prec
        if prec >= max_prec:
            raise PrecisionLimitReached(
                f"could not decide the sign of the {what} at {prec} bits (last ball "
                f"{value}); raise max_prec or pass an exact rational level"
            )
        prec = min(2 * prec, max_prec)


def arb_to_fraction_interval(x: arb) -> tuple[Fraction, Fraction]:
    """Exact rational endpoints ``(lo, hi)`` of a finite ball.

    >>> arb_to_fraction_interval(arb(1))
    (Fraction(1, 1), Fraction(1, 1))
    """
    if not x.is_finite():
        raise PrecisionLimitReached(f"ball {x} is not finite")
    mid, rad = x.mid(), x.rad()
    m = _arb_exact_to_fraction(mid)
    r = _arb_exact_to_fraction(rad)
    return m - r, m + r


def _arb_exact_to_fraction(x: arb) -> Fraction:
    man, exp = x.man_exp()
    man_i, exp_i = int(man), int(exp)
    if exp_i >= 0:
        return Fraction(man_i * 2**exp_i)
    return Fraction(man_i, 2 ** (-exp_i))


def sympy_to_arb(expr: sympy.Expr) -> arb:
    """Rigorous ball enclosure of a closed-form real sympy expression at the current precision.

    Supports rationals, ``pi``, ``E``, ``+``, ``*``, integer and rational powers,
    ``exp``, ``log`` and ``sqrt``. Anything else raises :class:`ExactnessRequired`.

    >>> with workprec(64):
    ...     sympy_to_arb(sympy.log(2)).overlaps(arb(2).log())
    True
    """
    if isinstance(expr, str):  # never evaluate user text: see exactdp.arithmetic.expressions
        raise ExactnessRequired(f"sympy_to_arb takes a sympy expression, not the string {expr!r}")
    expr = sympy.sympify(expr)
    if isinstance(expr, sympy.Rational):
        return arb(flint.fmpq(int(expr.p), int(expr.q)))
    if expr is sympy.pi:
        return arb.pi()
    if expr is sympy.E:
        return arb(1).exp()
    if isinstance(expr, sympy.Add):
        total = arb(0)
        for a in expr.args:
            total += sympy_to_arb(a)
        return total
    if isinstance(expr, sympy.Mul):
        prod = arb(1)
        for a in expr.args:
            prod *= sympy_to_arb(a)
        return prod
    if isinstance(expr, sympy.exp):
        return sympy_to_arb(expr.args[0]).exp()
    if isinstance(expr, sympy.log) and len(expr.args) == 1:
        return sympy_to_arb(expr.args[0]).log()
    if isinstance(expr, sympy.Pow):
        base, power = expr.args
        b = sympy_to_arb(base)
        if isinstance(power, sympy.Integer):
            return b ** int(power)
        if isinstance(power, sympy.Rational):
            return b ** arb(flint.fmpq(int(power.p), int(power.q)))
        return (sympy_to_arb(power) * b.log()).exp()
    raise ExactnessRequired(
        f"cannot evaluate {expr!r} rigorously; use rationals, log, exp, sqrt, pi, E"
    )


def arb_lower_dyadic(ball: arb, max_exp: int = 10**6) -> Fraction | None:
    """Exact lower end of a ball (midpoint minus radius, rounded down at the working precision).

    None when the ball is not finite or its lower end is not a dyadic number with a binary
    exponent of at most ``max_exp`` in absolute value (a guard against huge exact integers).

    >>> arb_lower_dyadic(arb(3) / 4)
    Fraction(3, 4)
    """
    if not ball.is_finite():
        return None
    low = ball.lower()
    man, exp = (int(v) for v in low.man_exp())
    if not low.is_exact() or abs(exp) > max_exp:
        return None
    return Fraction(man * 2**exp) if exp >= 0 else Fraction(man, 2 ** (-exp))


def ball_key(x: arb) -> tuple[int, int, int, int]:
    """The exact (midpoint, radius) of a ball as integers (m, e, r, f): x = [m·2^e ± r·2^f].

    Two balls with equal keys are the same ball (not merely overlapping ones); the key
    pickles and rebuilds the ball exactly with :func:`ball_from_key`.

    >>> with workprec(200):
    ...     b = arb(1) / 3
    >>> ball_key(ball_from_key(ball_key(b))) == ball_key(b)
    True
    """
    m, e = x.mid().man_exp()
    r, f = x.rad().man_exp()
    return int(m), int(e), int(r), int(f)


def ball_from_key(key: tuple[int, int, int, int]) -> arb:
    """The ball whose :func:`ball_key` is ``key`` (exactly: no rounding of the radius)."""
    m, e, r, f = key
    with workprec(max(int(m).bit_length(), 2) + 2):  # the midpoint is not rounded
        x = arb((m, e), (r, f))
        # a radius given as a float is stored rounded *up* (sometimes by one unit of its
        # 30-bit mantissa): a slightly smaller input can give the stored radius exactly
        for rr, ff in ((r, f), (2 * r - 1, f - 1), (r - 1, f), (4 * r - 3, f - 2)):
            y = arb((m, e), (rr, ff)) if rr > 0 else x
            if ball_key(y) == (m, e, r, f):
                return y
    return x  # never smaller than the encoded radius: still an enclosure
