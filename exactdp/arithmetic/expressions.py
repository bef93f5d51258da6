"""Safe parsing of closed-form real expressions typed by users ("4/5", "ln(2)", "sqrt(2)/3").

sympy's ``sympify``/``parse_expr`` evaluate Python code, so a string from a command line
or a file must never reach them. Here the text is parsed with :mod:`ast` and only a
whitelist is turned into a sympy expression: numeric literals (decimals read exactly),
``+ - * / **``, parentheses, the constants ``pi``, ``E``/``e`` and the functions
``sqrt``, ``log``/``ln``, ``exp``. Anything else is rejected with the offending piece named.
"""

from __future__ import annotations

import ast
from fractions import Fraction

import sympy

from exactdp.errors import InvalidArgument

__all__ = ["parse_real_expression"]

_FUNCTIONS = {"sqrt": sympy.sqrt, "log": sympy.log, "ln": sympy.log, "exp": sympy.exp}
_CONSTANTS = {"pi": sympy.pi, "E": sympy.E, "e": sympy.E}
_MAX_LENGTH = 500
_MAX_EXPONENT = 10_000


def parse_real_expression(text: str, what: str = "value") -> sympy.Expr:
    """Parse ``text`` into an exact sympy expression, accepting only a safe whitelist.

    Examples
    --------
    >>> parse_real_expression("ln(2)")
    log(2)
    >>> parse_real_expression("0.8")
    4/5
    >>> parse_real_expression("sqrt(8)/2")
    sqrt(2)
    >>> parse_real_expression("__import__('os').system('true')")
    Traceback (most recent call last):
    ...
    exactdp.errors.InvalidArgument: ...: calls are limited to sqrt, log, ln, exp
    """
    if not isinstance(text, str):
        raise InvalidArgument(f"{what}={text!r} must be a string here")
    if len(text) > _MAX_LENGTH:
        raise InvalidArgument(f"{what} is longer than {_MAX_LENGTH} characters")
    try:
        tree = ast.parse(text.strip().replace("^", "**"), mode="eval")
    except SyntaxError as exc:
        raise InvalidArgument(f"{what}={text!r} is not a closed-form number ({exc.msg})") from exc
    return _build(tree.body, text, what)


def _build(node: ast.AST, text: str, what: str) -> sympy.Expr:
    def fail(reason: str) -> InvalidArgument:
        return InvalidArgument(f"{what}={text!r}: {reason}")

    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
            raise fail(f"{node.value!r} is not a number")
        # the literal's source text is read exactly (0.1 means 1/10, not the binary double)
        src = ast.get_source_segment(text.strip().replace("^", "**"), node) or repr(node.value)
        return sympy.Rational(Fraction(src)) if isinstance(node.value, float) else sympy.Integer(
            node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        inner = _build(node.operand, text, what)
        return -inner if isinstance(node.op, ast.USub) else inner
    if isinstance(node, ast.BinOp):
        a = _build(node.left, text, what)
        b = _build(node.right, text, what)
        if isinstance(node.op, ast.Add):
            return a + b
        if isinstance(node.op, ast.Sub):
            return a - b
        if isinstance(node.op, ast.Mult):
            return a * b
        if isinstance(node.op, ast.Div):
            if b == 0:
                raise fail("division by zero")
            return a / b
        if isinstance(node.op, ast.Pow):
            if b.is_Rational and abs(b) > _MAX_EXPONENT:
                raise fail(f"exponent {b} is too large")
            return a**b
        raise fail(f"operator {type(node.op).__name__} is not allowed")
    if isinstance(node, ast.Name):
        if node.id in _CONSTANTS:
            return _CONSTANTS[node.id]
        raise fail(f"unknown name {node.id!r} (allowed: pi, E, e)")
    if isinstance(node, ast.Call):
        if (not isinstance(node.func, ast.Name) or node.func.id not in _FUNCTIONS
                or node.keywords or len(node.args) != 1):
            raise fail("calls are limited to sqrt, log, ln, exp")
        return _FUNCTIONS[node.func.id](_build(node.args[0], text, what))
    raise fail(f"{type(node).__name__} is not allowed in a number")
