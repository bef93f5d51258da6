"""Privacy levels: ε > 0, or t = e^-ε in (0, 1), held exactly.

Every public question takes the level as ``eps=`` (int, Fraction, a string such as
``"4/5"`` or ``"ln(2)"``, or a sympy expression) or as ``t=`` (a rational in (0, 1)).
:func:`parse_level` turns either into a :class:`PrivacyLevel`, which knows whether
t is rational (Φ is then an exact rational matrix in the polynomial case) or not
(Φ is then decided with balls; at rational ε, t is transcendental by Lindemann).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy
from flint import arb

from exactdp.arithmetic.ball import certified_sign, sympy_to_arb
from exactdp.arithmetic.expressions import parse_real_expression, structural_sign
from exactdp.arithmetic.rationals import (
    exact_root,
    shorten_numbers,
    to_fmpq,
    to_fraction,
    to_sympy,
    unlimited_int_digits,
)
from exactdp.errors import InvalidArgument, InvalidPrivacyLevel
from exactdp.kinds import Sign

__all__ = ["PrivacyLevel", "parse_level", "parse_epsilon"]


@dataclass(frozen=True)
class PrivacyLevel:
    """An exact privacy level.

    Attributes
    ----------
    eps : sympy.Expr
        ε > 0 as an exact sympy expression.
    t : Fraction or None
        t = e^-ε when it is rational, else None.
    eps_rational : Fraction or None
        ε when it is rational, else None.

    Examples
    --------
    >>> parse_level(t="1/2").eps
    log(2)
    >>> parse_level(eps="ln(2)").t
    Fraction(1, 2)
    >>> parse_level(eps="4/5").t is None
    True
    """

    eps: sympy.Expr
    t: Fraction | None
    eps_rational: Fraction | None

    def __str__(self) -> str:
        """``ε = …`` (and t when rational), numbers over 40 digits shortened (an ε of
        10⁻⁵⁰⁰⁰ prints, where Python's 4300-digit str() limit used to raise)."""
        with unlimited_int_digits():
            text = f"ε = {self.eps}" + (f" (t = {self.t})" if self.t is not None else "")
        return shorten_numbers(text)

    @property
    def is_t_rational(self) -> bool:
        """True when t = e^-ε is rational, so Φ is exact over Q in the polynomial case."""
        return self.t is not None

    def s_rational(self, q: int) -> Fraction | None:
        """s = e^(-ε/q) when rational (t rational and a perfect q-th power), else None.

        >>> parse_level(t="1/4").s_rational(2)
        Fraction(1, 2)
        >>> parse_level(t="1/2").s_rational(2) is None
        True
        """
        if self.t is None:
            return None
        if q == 1:
            return self.t
        num = exact_root(self.t.numerator, q)
        den = exact_root(self.t.denominator, q)
        if num is None or den is None:
            return None
        return Fraction(num, den)

    def eps_ball(self) -> arb:
        """Ball enclosing ε at the current flint precision."""
        if self.eps_rational is not None:
            return arb(to_fmpq(self.eps_rational))
        if self.t is not None:
            return -arb(to_fmpq(self.t)).log()
        return sympy_to_arb(self.eps)

    def t_ball(self) -> arb:
        """Ball enclosing t = e^-ε at the current flint precision (exact when t is rational)."""
        if self.t is not None:
            return arb(to_fmpq(self.t))
        return (-self.eps_ball()).exp()

    def s_ball(self, q: int) -> arb:
        """Ball enclosing s = e^(-ε/q) at the current flint precision."""
        s = self.s_rational(q)
        if s is not None:
            return arb(to_fmpq(s))
        return (-self.eps_ball() / q).exp()

    def eps_float(self) -> float:
        """ε as a float (uncertified; for display and float baselines only)."""
        return float(self.eps.evalf(30))

    def to_json(self) -> dict[str, str | None]:
        """Exact JSON form: rationals as "p/q" strings."""
        return {
            "eps": str(self.eps),
            "t": None if self.t is None else str(self.t),
        }


def parse_epsilon(eps: Any) -> sympy.Expr:
    """Parse ε into an exact, positive, finite sympy expression.

    >>> parse_epsilon("4/5")
    4/5
    >>> parse_epsilon("ln(2)")
    log(2)
    """
    if isinstance(eps, float):
        if math.isnan(eps) or math.isinf(eps):
            raise InvalidPrivacyLevel(
                f"Got eps={eps!r}; ε must be a finite number > 0 "
                f"(pass Fraction('4/5') or '4/5' for an exact value)."
            )
    if isinstance(eps, str):
        # never sympify user text (it evaluates Python): a whitelist parser reads it
        try:
            value: sympy.Expr = parse_real_expression(eps, "eps")
        except InvalidArgument as exc:
            raise InvalidPrivacyLevel(
                f"Got eps={eps!r}; could not read it ({exc}). Use '4/5', '0.8' or 'ln(2)'."
            ) from exc
    elif isinstance(eps, sympy.Basic):
        if not isinstance(eps, sympy.Expr):
            raise InvalidPrivacyLevel(f"Got eps={eps!r}; it is not a real expression.")
        value = eps
    else:
        value = sympy.Rational(to_fraction(eps, "eps"))
    if value.free_symbols:
        raise InvalidPrivacyLevel(
            f"Got eps={eps!r}, which has free symbols {sorted(map(str, value.free_symbols))}; "
            "pass a number such as '4/5' or 'ln(2)'."
        )
    if value.has(sympy.nan, sympy.oo, -sympy.oo, sympy.zoo):
        raise InvalidPrivacyLevel(f"Got eps={eps!r}; ε must be finite and > 0.")
    decided = structural_sign(value)  # before sympy's queries, which may run for hours on huge numbers
    positive = (decided == 1) if decided is not None else value.is_positive
    if positive is None and not value.is_zero:
        sign, _ = certified_sign(lambda _p: sympy_to_arb(value), start_prec=128,
                                 what=f"ε = {value}")
        positive = sign is Sign.POSITIVE
    if positive is not True:
        raise InvalidPrivacyLevel(
            f"Got eps={eps!r}; ε must be > 0 (for example Fraction(1, 10) or '1/10')."
        )
    return value


def parse_level(eps: Any = None, t: Any = None) -> PrivacyLevel:
    """Build a :class:`PrivacyLevel` from exactly one of ``eps=`` or ``t=``.

    Examples
    --------
    >>> parse_level(eps=1).t is None
    True
    >>> parse_level(t=Fraction(9, 10)).t
    Fraction(9, 10)
    >>> parse_level(eps=0)
    Traceback (most recent call last):
    ...
    exactdp.errors.InvalidPrivacyLevel: Got eps=0; ε must be > 0 (for example Fraction(1, 10) or '1/10').
    """
    if (eps is None) == (t is None):
        raise InvalidPrivacyLevel(
            f"Give exactly one of eps= or t= (got eps={eps!r}, t={t!r})."
        )
    if t is not None:
        if isinstance(t, float) and (math.isnan(t) or math.isinf(t)):
            raise InvalidPrivacyLevel(f"Got t={t!r}; t = e^-ε must lie in (0, 1).")
        tq = to_fraction(t, "t")
        if not 0 < tq < 1:
            raise InvalidPrivacyLevel(
                f"Got t={t!r}; t = e^-ε must lie strictly between 0 and 1 "
                f"(t = 1/2 means ε = ln 2)."
            )
        eps_expr = -sympy.log(to_sympy(tq))
        eps_expr = sympy.expand_log(eps_expr, force=True)
        return PrivacyLevel(eps=sympy.simplify(eps_expr), t=tq, eps_rational=None)
    value = parse_epsilon(eps)
    eps_rat = (
        to_fraction(value, "eps") if isinstance(value, sympy.Rational) else None
    )
    t_val = None if eps_rat is not None else _rational_t(value, eps)
    return PrivacyLevel(eps=value, t=t_val, eps_rational=eps_rat)


#: Most bits of t = e^-ε that sympy may be asked to form from ε = Σ c·ln(x) (rational c, x).
MAX_T_BITS = 1 << 20


def _refuse_huge_power(value: sympy.Expr, eps: Any) -> None:
    """InvalidPrivacyLevel when e^-ε would make sympy form a rational power x^c of more than
    :data:`MAX_T_BITS` bits (sympy evaluates exp(c·log x) eagerly: ε = 10³⁵·ln(3/2) hung).

    >>> _refuse_huge_power(1000 * sympy.log(2), "1000*log(2)")
    >>> _refuse_huge_power(10**35 * sympy.log(sympy.Rational(3, 2)), "1e35*log(3/2)")
    Traceback (most recent call last):
    ...
    exactdp.errors.InvalidPrivacyLevel: Got eps='1e35*log(3/2)': t = e^-ε would be ... 4e+35 bits ...
    """
    bits = 0
    for term in sympy.Add.make_args(value):
        c, rest = term.as_coeff_Mul()
        if isinstance(c, sympy.Rational) and isinstance(rest, sympy.log) \
                and isinstance(rest.args[0], sympy.Rational):
            x = rest.args[0]
            bits += abs(int(c.p)) * (int(x.p).bit_length() + int(x.q).bit_length())
    if bits > MAX_T_BITS:
        raise InvalidPrivacyLevel(
            f"Got eps={str(eps)[:200]!r}: t = e^-ε would be a rational power of about "
            f"{f'{float(bits):.0e}' if bits.bit_length() < 1000 else f'2^{bits.bit_length() - 1}'}"
            f" bits (over {MAX_T_BITS}); pass a smaller level, or t= directly.")


def _rational_t(value: sympy.Expr, eps: Any) -> Fraction | None:
    """t = e^-ε when it is rational (sympy's simplification finds it), else None.

    sympy's ``simplify`` converts large integers to floats (OverflowError on
    ε = ln(a/b)/√5 with 10¹⁰¹-size a, b). Then ε = c·ln x with x > 0 rational ≠ 1 and c
    algebraic irrational still decides it: t = x^{−c} is transcendental
    (Gelfond–Schneider); any other form raises :class:`InvalidPrivacyLevel`.

    >>> big = sympy.Rational(7 * (10**101 + 11), 3 * (10**101 + 3))
    >>> _rational_t(sympy.log(big) / sympy.sqrt(5), "…") is None
    True
    >>> _rational_t(sympy.log(4) / 2, "ln(4)/2")
    Fraction(1, 2)
    """
    _refuse_huge_power(value, eps)
    c, rest = value.as_coeff_Mul()
    if isinstance(c, sympy.Rational) and isinstance(rest, sympy.log) \
            and isinstance(rest.args[0], sympy.Rational) and rest.args[0] > 0:
        # ε = (a/b)·ln x: t = x^(−a/b) is rational iff x is a perfect b-th power (gcd(a, b) = 1:
        # b | a·v_p(x) for every prime p forces b | v_p(x)). Decided by exact integer roots, not
        # by sympy's exp, which factors x (hours for a 10,000-digit odd x).
        x, a, b = rest.args[0], int(c.p), int(c.q)
        num, den = exact_root(int(x.p), b), exact_root(int(x.q), b)
        return None if num is None or den is None else Fraction(den, num) ** a
    t_expr = sympy.exp(-value)
    if not isinstance(t_expr, sympy.Rational):
        try:
            t_expr = sympy.simplify(t_expr)
        except (OverflowError, RecursionError) as exc:
            coeff, rest = value.as_independent(sympy.log, as_Add=False)
            x = rest.args[0] if isinstance(rest, sympy.log) else None
            if (isinstance(x, sympy.Rational) and x > 0 and x != 1 and coeff.is_algebraic
                    and coeff.is_rational is False):
                return None  # x^(−c): transcendental by Gelfond–Schneider
            raise InvalidPrivacyLevel(
                f"Got eps={str(eps)[:200]!r}: cannot decide whether t = e^-ε is rational "
                f"({type(exc).__name__} while simplifying e^-ε). Pass t= directly when it is "
                "rational, or a simpler closed form of ε.") from exc
    return to_fraction(t_expr, "t") if isinstance(t_expr, sympy.Rational) else None
