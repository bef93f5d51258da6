"""Shared validators of numeric arguments: tolerances, positive rationals, probabilities,
precisions. Each raises the specific error of :mod:`exactdp.errors`, naming the value and the fix.

Examples
--------
>>> read_tol("1e-9")
Fraction(1, 1000000000)
>>> read_probability("1/3", "p")
Fraction(1, 3)
>>> read_precision(128)
128
>>> read_precision("a")
Traceback (most recent call last):
...
exactdp.errors.InvalidArgument: Got max_prec='a'; pass a whole number of bits ≥ 53, e.g. 4096.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from exactdp.arithmetic.rationals import to_fraction
from exactdp.errors import InvalidArgument, InvalidTolerance

__all__ = ["read_tol", "read_positive", "read_probability", "read_precision"]


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
