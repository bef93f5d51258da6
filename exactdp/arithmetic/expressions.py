"""Safe reading of closed-form real numbers typed by users: "4/5", "ln(2)", "sqrt(2)/3" (no ``eval``).

``sympy.sympify`` on a string runs Python's ``eval``, so it must never see user text.
:func:`parse_closed_form` walks the text with :mod:`ast` and accepts only

* numeric literals (integers, and decimals such as ``0.1`` read as the exact decimal 1/10),
* the operators ``+ - * / **``, unary ``-`` and ``+``, and parentheses,
* the constants ``pi`` and ``E``,
* calls ``sqrt(x)``, ``log(x)``, ``ln(x)`` (= log) and ``exp(x)`` with one argument,

and builds the sympy expression itself. Anything else (attributes, other names, other
calls, keywords, subscripts, lambdas, strings, ``^``, …) is rejected with the error class
the caller chooses, naming the text. This is the one parser for user text in exactdp
(privacy levels, distances, set coordinates, Pufferfish expressions).
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from fractions import Fraction

import sympy

from exactdp.arithmetic.rationals import MAX_DECIMAL_EXPONENT, decimal_exponent_too_large
from exactdp.errors import InvalidArgument

__all__ = ["parse_closed_form", "parse_real_expression", "structural_sign", "MAX_TEXT_LENGTH"]

MAX_TEXT_LENGTH = 2000
_MAX_POWER_BITS = 100_000  # an exact rational power may have at most this many bits
_MAX_EXPONENT = 100_000

_CONSTANTS: dict[str, sympy.Expr] = {"pi": sympy.pi, "E": sympy.E}
_FUNCTIONS: dict[str, Callable[[sympy.Expr], sympy.Expr]] = {
    "sqrt": sympy.sqrt,
    "log": sympy.log,
    "ln": sympy.log,
    "exp": sympy.exp,
}
_ALLOWED = "numbers, + - * / **, parentheses, pi, E, sqrt(), log(), ln(), exp()"


def parse_closed_form(text: str, name: str = "value",
                      error: type[Exception] = InvalidArgument) -> sympy.Expr:
    """Parse ``text`` into an exact sympy expression using a whitelist (never ``eval``).

    Parameters
    ----------
    text : the user's string, e.g. ``"sqrt(2)/8"`` or ``"ln(3) - 1/10**30"``
    name : what the value is (used in error messages)
    error : exception class raised for rejected text (default
        :class:`~exactdp.errors.InvalidArgument`; pass a more specific subclass)

    Examples
    --------
    >>> parse_closed_form("sqrt(8)/2 + ln(3)")
    log(3) + sqrt(2)
    >>> parse_closed_form("0.1 + 2**-3")
    9/40
    >>> parse_closed_form("__import__('os')")
    Traceback (most recent call last):
    ...
    exactdp.errors.InvalidArgument: Got value="__import__('os')"; only numbers, ... not allowed: '__import__').
    """
    if not isinstance(text, str):
        raise error(f"Got {name}={text!r}; expected a string.")
    if len(text) > MAX_TEXT_LENGTH:
        raise error(f"Got {name} of {len(text)} characters; at most {MAX_TEXT_LENGTH} are allowed.")
    src = text.strip()
    try:
        tree = ast.parse(src, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        raise error(f"Got {name}={text!r}; could not read it as a formula (try 'sqrt(2)' or '1/3').") from exc

    def bad(why: str) -> Exception:
        return error(f"Got {name}={text!r}; only {_ALLOWED} are allowed ({why}).")

    def huge(why: str) -> Exception:
        return error(f"Got {name}={text[:200]!r}; {why}; write a smaller closed form.")

    def build(node: ast.AST) -> sympy.Expr:
        if isinstance(node, ast.Constant):
            v = node.value
            if isinstance(v, bool) or not isinstance(v, int | float):
                raise bad(f"found the literal {v!r}")
            if isinstance(v, int):
                return sympy.Integer(v)
            seg = ast.get_source_segment(src, node) or repr(v)
            if decimal_exponent_too_large(seg):
                raise bad(f"the number {seg[:40]!r} has a decimal exponent beyond "
                          f"±{MAX_DECIMAL_EXPONENT}; write it as a fraction p/q")
            try:
                f = Fraction(seg.replace("_", ""))
            except (ValueError, ZeroDivisionError) as exc:
                raise bad(f"found the number {seg!r}") from exc
            return sympy.Rational(f.numerator, f.denominator)
        if isinstance(node, ast.Name):
            if node.id in _CONSTANTS:
                return _CONSTANTS[node.id]
            raise bad(f"found the name {node.id!r}")
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
            x = build(node.operand)
            return -x if isinstance(node.op, ast.USub) else x
        if isinstance(node, ast.BinOp):
            if isinstance(node.op, ast.BitXor):
                raise bad("'^' is not a power here: write '**'")
            a, b = build(node.left), build(node.right)
            if isinstance(node.op, ast.Add):
                return a + b
            if isinstance(node.op, ast.Sub):
                return a - b
            if isinstance(node.op, ast.Mult):
                return a * b
            if isinstance(node.op, ast.Div):
                return a / b
            if isinstance(node.op, ast.Pow):
                if a == sympy.E:
                    _refuse_exp_power(b, huge)
                return _power(a, b, bad)
            raise bad(f"found the operator {type(node.op).__name__}")
        if isinstance(node, ast.Call):
            fn = node.func
            if not isinstance(fn, ast.Name) or fn.id not in _FUNCTIONS:
                what = repr(fn.id) if isinstance(fn, ast.Name) else "an expression"
                raise bad(f"found a call to a name that is not allowed: {what}")
            if node.keywords or len(node.args) != 1 or isinstance(node.args[0], ast.Starred):
                raise bad(f"{fn.id}() takes exactly one argument")
            arg = build(node.args[0])
            if fn.id == "exp":
                _refuse_exp_power(arg, huge)
            return _FUNCTIONS[fn.id](arg)
        raise bad(f"found {type(node).__name__}")

    try:
        return build(tree.body)
    except RecursionError as exc:
        raise error(f"Got {name}={text[:80]!r}...; the formula is nested too deeply.") from exc


def _power(a: sympy.Expr, b: sympy.Expr, bad: Callable[[str], Exception]) -> sympy.Expr:
    """a**b, refusing exact rational powers too large to hold (e.g. 10**10**10 or
    (10**10000)**10000) and rational exponents beyond ±10⁵ (sqrt(2)**10**9 expands)."""
    if isinstance(b, sympy.Rational) and abs(b) > _MAX_EXPONENT:
        raise bad(f"the exponent {b} is too large (at most {_MAX_EXPONENT} in absolute value)")
    if isinstance(a, sympy.Rational) and isinstance(b, sympy.Rational) and a not in (0, 1, -1):
        bits = max(int(a.p).bit_length(), int(a.q).bit_length())
        if abs(b) * bits > _MAX_POWER_BITS:
            raise bad(f"a power with about {int(abs(b) * bits)} bits is too large to hold exactly")
    return sympy.Pow(a, b)


def _refuse_exp_power(x: sympy.Expr, bad: Callable[[str], Exception]) -> None:
    """Refuse exp(x) when a term c·log(w) of x (rational c) would make sympy evaluate the power
    w**c beyond _MAX_POWER_BITS bits, before sympy builds it (exp(10**35*log(3/2)) hung)."""
    for term in sympy.Add.make_args(x):
        c, rest = term.as_coeff_Mul()
        logs = [f for f in sympy.Mul.make_args(rest) if isinstance(f, sympy.log)]
        if logs and isinstance(c, sympy.Rational):
            w = logs[0].args[0]
            bits = max((max(int(r.p).bit_length(), int(r.q).bit_length())
                        for r in w.atoms(sympy.Rational)), default=1)
            if abs(c) * bits > _MAX_POWER_BITS:
                raise bad(f"exp({str(term)[:60]}) is the power ({str(w)[:40]})**{str(c)[:40]}, "
                          f"over the limit of {_MAX_POWER_BITS} bits for an exact power")


def parse_real_expression(text: str, what: str = "value") -> sympy.Expr:
    """:func:`parse_closed_form` raising :class:`~exactdp.errors.InvalidArgument`.

    >>> parse_real_expression("ln(2)"), parse_real_expression("0.8")
    (log(2), 4/5)
    >>> parse_real_expression("__import__('os').system('true')")
    Traceback (most recent call last):
    ...
    exactdp.errors.InvalidArgument: Got value=...; only numbers, ... are allowed (...).
    """
    return parse_closed_form(text, what, InvalidArgument)


def structural_sign(expr: sympy.Expr) -> int | None:
    """The sign (−1, 0, 1) of a closed form read off its structure, or None when the rules
    below do not decide it.

    Rules: a rational's sign; log(r) of a positive rational r has the sign of r − 1; a
    positive rational base to a rational power is positive; a product multiplies its
    factors' signs; a sum whose decided terms all have one sign (or are 0) has it. Exact
    and cheap for numbers of any size — unlike sympy's assumption queries
    (``expr.is_nonnegative``), which may test a huge integer for primality (a
    100,000-digit one: hours), depending on the order in which they try their rules.

    >>> import sympy
    >>> structural_sign(sympy.log(sympy.Rational(10**5000, 3)) / 7)
    1
    >>> structural_sign(-sympy.log(sympy.Rational(1, 2)) * 3), structural_sign(sympy.log(1))
    (1, 0)
    >>> structural_sign(sympy.sin(1)) is None
    True
    """
    if isinstance(expr, sympy.Rational):  # p/q with q > 0: compare plain Python integers
        return (int(expr.p) > 0) - (int(expr.p) < 0)
    if isinstance(expr, sympy.log) and isinstance(expr.args[0], sympy.Rational) and int(expr.args[0].p) > 0:
        p, q = int(expr.args[0].p), int(expr.args[0].q)
        return (p > q) - (p < q)
    if isinstance(expr, sympy.Pow) and isinstance(expr.base, sympy.Rational) and int(expr.base.p) > 0 \
            and isinstance(expr.exp, sympy.Rational):
        return 1
    if isinstance(expr, sympy.Mul):
        sign = 1
        for factor in expr.args:
            s = structural_sign(factor)
            if s is None:
                return None
            sign *= s
        return sign
    if isinstance(expr, sympy.Add):
        decided = [structural_sign(term) for term in expr.args]
        signs = {s for s in decided if s is not None}
        if len(signs) < len(set(decided)) or {1, -1} <= signs:
            return None
        return 1 if 1 in signs else -1 if -1 in signs else 0
    return None
