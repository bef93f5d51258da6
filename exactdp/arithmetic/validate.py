"""Shared validators of numeric arguments: tolerances, positive rationals, probabilities,
precisions, exact integer vectors, indices. Each raises the specific error of :mod:`exactdp.errors`,
naming the value and the fix.

Examples
--------
>>> read_tol("1e-9")
Fraction(1, 1000000000)
>>> read_probability("1/3", "p")
Fraction(1, 3)
>>> read_precision(128)
128
>>> read_integers([3, 2.0], "the vector", "GridConvolution")
[3, 2]
>>> is_index(2, 3), is_index(True, 3), is_index(3, 3), is_index(2.0, 3)
(True, False, False, False)
>>> read_precision("a")
Traceback (most recent call last):
...
exactdp.errors.InvalidArgument: Got max_prec='a'; pass a whole number of bits ≥ 53, e.g. 4096.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any, TypeGuard

from exactdp.arithmetic.rationals import to_fraction
from exactdp.errors import InvalidArgument, InvalidTolerance

__all__ = ["read_tol", "read_positive", "read_probability", "read_precision", "read_integers", "is_index"]


def read_tol(tol: Any, name: str = "tol", *, below_one: bool = False) -> Fraction:
    """A positive rational tolerance (``below_one``: also < 1), read exactly.

    >>> read_tol(0)
    Traceback (most recent call last):
    ...
    exactdp.errors.InvalidTolerance: Got tol=0; tol must be > 0 (e.g. Fraction(1, 10**9)).
    """
    if isinstance(tol, float) and (not math.isfinite(tol) or tol <= 0):
        raise InvalidTolerance(f"Got {name}={tol!r}; {name} must be a positive rational such as "
                               "Fraction(1, 10**9).")
    try:
        q = to_fraction(tol, name)
    except Exception as exc:  # noqa: BLE001 - re-raised with a specific class
        raise InvalidTolerance(
            f"Got {name}={tol!r}; {name} must be a positive rational such as Fraction(1, 10**9) "
            "or '1e-9'."
        ) from exc
    if q <= 0:
        raise InvalidTolerance(f"Got {name}={tol!r}; {name} must be > 0 (e.g. Fraction(1, 10**9)).")
    if below_one and q >= 1:
        raise InvalidTolerance(f"Got {name}={q}; the relative tolerance must lie in (0, 1).")
    return q


def read_positive(value: Any, name: str, error: type[InvalidArgument] = InvalidArgument) -> Fraction:
    """A rational > 0, read exactly; ``error`` is the specific class to raise."""
    try:
        q = to_fraction(value, name)
    except InvalidArgument as exc:
        raise error(str(exc)) from exc
    if q <= 0:
        raise error(f"Got {name}={q}; it must be > 0.")
    return q


def read_probability(value: Any, name: str, error: type[InvalidArgument] = InvalidArgument,
                     *, open_interval: bool = False) -> Fraction:
    """A rational in [0, 1] (``open_interval``: in (0, 1)), read exactly."""
    try:
        q = to_fraction(value, name)
    except InvalidArgument as exc:
        raise error(str(exc)) from exc
    if open_interval and not 0 < q < 1:
        raise error(f"Got {name}={q}; it must lie strictly between 0 and 1.")
    if not 0 <= q <= 1:
        raise error(f"Got {name}={q}; a probability lies in [0, 1].")
    return q


def read_precision(value: Any, name: str = "max_prec", minimum: int = 53) -> int:
    """A whole number of bits ≥ ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise InvalidArgument(
            f"Got {name}={value!r}; pass a whole number of bits ≥ {minimum}, e.g. 4096."
        )
    return value


def read_integers(values: Sequence[Any], what: str, who: str) -> list[int]:
    """The values as Python ints, for exact integer products (``who``: the caller, named in
    the error). An integral value of any integer-like type (``np.int64``, ``2.0``,
    ``Fraction(3)``) is read exactly; a non-integer (0.5, NaN, inf, None, a string) or a bool
    is refused, never truncated, and so is an iterator (a table or vector is read more than
    once: pass a list or an array).

    >>> import numpy as np
    >>> read_integers(np.arange(3), "the vector", "f")
    [0, 1, 2]
    >>> read_integers([1, 0.5], "the vector", "f")
    Traceback (most recent call last):
    ...
    exactdp.errors.InvalidArgument: f: the vector has entry [1] = 0.5; exact grid products take ...
    """
    if not hasattr(values, "__len__"):
        raise InvalidArgument(f"{who}: {what} is a {type(values).__name__}, not a "
                              "sequence; pass a list (or array) of integers.")
    vals = list(values)
    if set(map(type, vals)) <= {int}:  # fast path (a C-level scan): already exact Python ints
        return vals
    out = []
    for k, x in enumerate(vals):
        try:
            i: int | None = int(x)
        except (ValueError, OverflowError, TypeError):
            i = None
        if i is None or isinstance(x, bool) or i != x:
            raise InvalidArgument(f"{who}: {what} has entry [{k}] = {x!r}; exact grid "
                                  "products take integers (scale and round the values first).")
        out.append(i)
    return out


def is_index(i: Any, n: int) -> TypeGuard[int]:
    """i is an int (not a bool) with 0 ≤ i < n (a predicate: the kernel reads a bad index as
    "not proved", not as an error)."""
    return isinstance(i, int) and not isinstance(i, bool) and 0 <= i < n
