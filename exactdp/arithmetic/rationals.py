"""Exact conversion of user input into rationals, and rationals into flint types.

The rule: anything that can be taken exactly is taken exactly; a binary float is
accepted only as its exact binary value, with an :class:`InexactInputWarning` that
says how to pass a Fraction instead.
"""

from __future__ import annotations

import math
import numbers
import re
import sys
import threading
import warnings
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from fractions import Fraction
from typing import Any

import flint
import numpy as np
import sympy

from exactdp.errors import ExactnessRequired, InexactInputWarning, InvalidArgument

__all__ = ["to_fraction", "MAX_DECIMAL_EXPONENT", "decimal_exponent_too_large",
           "to_fmpq", "floats_to_fmpq", "fmpq_to_fraction", "fmpq_to_float",
           "to_sympy", "is_exact_number", "float_row_sums_exact", "unlimited_int_digits",
           "int_digits_at_least", "shorten_numbers", "exact_root",
           "binary_float_to_fraction"]


def is_exact_number(value: Any) -> bool:
    """True for ints, Fractions, fmpz/fmpq and sympy rationals (not floats, not bools)."""
    if isinstance(value, bool):
        return False
    return isinstance(value, (int, Fraction, flint.fmpz, flint.fmpq, sympy.Rational))


#: |exponent| limit of a decimal read exactly: "1e100000" builds 10^100000 (0.02 s);
#: "1e10000000" would build a ten-million-digit integer (9 s) that no exact route can use.
MAX_DECIMAL_EXPONENT = 100_000

#: a decimal's exponent part (after the mantissa): "e-400", "E+12"
_EXPONENT = re.compile(r"[eE]([+-]?)0*(\d+)\s*$")


def decimal_exponent_too_large(text: str) -> bool:
    """True when the decimal ``text`` has an exponent beyond ±:data:`MAX_DECIMAL_EXPONENT`.

    Decided from the digits, without building 10^|exponent|.

    >>> decimal_exponent_too_large("1e-400"), decimal_exponent_too_large("2.5E+100001")
    (False, True)
    """
    m = _EXPONENT.search(text)
    if m is None:
        return False
    digits = m.group(2)
    return len(digits) > len(str(MAX_DECIMAL_EXPONENT)) or int(digits) > MAX_DECIMAL_EXPONENT


def to_fraction(value: Any, name: str = "value") -> Fraction:
    """Convert ``value`` to an exact :class:`fractions.Fraction`.

    Accepts ``int``, ``Fraction``, ``flint.fmpz``/``flint.fmpq``, sympy rationals,
    numpy integers, and strings such as ``"4/5"`` or ``"0.3"`` (read as the exact
    decimal 3/10). A binary ``float`` is taken as its exact binary value, with an
    :class:`~exactdp.errors.InexactInputWarning`.

    Parameters
    ----------
    value : int, Fraction, str, fmpq, sympy.Rational or float
        The number to convert.
    name : str
        Used in error messages.

    Returns
    -------
    Fraction

    Examples
    --------
    >>> to_fraction("4/5")
    Fraction(4, 5)
    >>> to_fraction("0.3")
    Fraction(3, 10)
    >>> to_fraction(flint.fmpq(1, 3))
    Fraction(1, 3)
    """
    if isinstance(value, bool):
        raise ExactnessRequired(f"Got {name}={value!r}; a bool is not a number here.")
    if isinstance(value, Fraction):
        return value
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, flint.fmpz):
        return Fraction(int(value))
    if isinstance(value, flint.fmpq):
        return Fraction(int(value.p), int(value.q))
    if isinstance(value, sympy.Rational):
        return Fraction(int(value.p), int(value.q))
    if isinstance(value, str):
        text = value.strip()
        if "/" not in text and decimal_exponent_too_large(text):
            shown = text if len(text) <= 40 else text[:40] + "…"
            raise InvalidArgument(
                f"Got {name}={shown!r}: its decimal exponent is beyond ±{MAX_DECIMAL_EXPONENT} "
                "(reading it exactly would build 10^|exponent|, a number no exact route can "
                "use); write the value as a fraction p/q or choose a smaller exponent.")
        try:
            return Fraction(text)
        except (ValueError, ZeroDivisionError) as exc:
            raise InvalidArgument(
                f"Got {name}={value!r}; expected a rational such as '4/5' or '0.3'."
            ) from exc
    if isinstance(value, numbers.Integral):
        return Fraction(int(value))
    if isinstance(value, float) or isinstance(value, numbers.Real) and not isinstance(
        value, sympy.Basic
    ):
        f = float(value)
        if math.isnan(f) or math.isinf(f):
            raise InvalidArgument(f"Got {name}={value!r}; it must be a finite number.")
        exact = Fraction(f)
        warnings.warn(
            f"{name}={value!r} is a binary float; it is taken as its exact binary value "
            f"{exact}. Pass Fraction({str(f)!r}) or the string {str(f)!r} for the decimal.",
            InexactInputWarning,
            stacklevel=3,
        )
        return exact
    raise ExactnessRequired(
        f"Got {name}={value!r} of type {type(value).__name__}; pass an int, a Fraction "
        f"or a string such as '4/5'."
    )


def to_fmpq(value: Fraction | int) -> flint.fmpq:
    """Exact conversion of a Fraction (or int) to ``flint.fmpq``.

    >>> to_fmpq(Fraction(2, 6))
    1/3
    """
    f = value if type(value) is Fraction else Fraction(value)
    return flint.fmpq(f.numerator, f.denominator)


def floats_to_fmpq(values: list[float]) -> list[flint.fmpq]:
    """The exact binary value of each finite float as ``fmpq`` (no Fraction per entry).

    About 3.5× faster than ``to_fmpq(Fraction(x))`` on a million entries; the caller checks
    finiteness (``as_integer_ratio`` raises on NaN and infinities).

    >>> floats_to_fmpq([0.5, 0.1])[1] == flint.fmpq(3602879701896397, 36028797018963968)
    True
    """
    return [flint.fmpq(*x.as_integer_ratio()) for x in values]


def fmpq_to_fraction(value: flint.fmpq | flint.fmpz) -> Fraction:
    """Exact conversion of ``flint.fmpq``/``fmpz`` to Fraction.

    >>> fmpq_to_fraction(flint.fmpq(3, 9))
    Fraction(1, 3)
    """
    if isinstance(value, flint.fmpz):
        return Fraction(int(value))
    return Fraction(int(value.p), int(value.q))


def fmpq_to_float(x: flint.fmpq) -> float:
    """The float nearest to an exact rational (Python's int true division rounds correctly).

    Round to nearest, not directed: for bounds use :func:`exactdp.arithmetic.rounding.float_up`
    / ``float_down``.

    >>> fmpq_to_float(flint.fmpq(1, 3))
    0.3333333333333333
    """
    return int(x.p) / int(x.q)


def to_sympy(value: Fraction | int) -> sympy.Rational:
    """Exact conversion of a Fraction (or int) to ``sympy.Rational``.

    >>> to_sympy(Fraction(2, 6))
    1/3
    """
    f = value if isinstance(value, Fraction) else Fraction(value)
    r = sympy.Rational(f.numerator, f.denominator)
    if max(abs(f.numerator), f.denominator).bit_length() > SIGN_FACT_BITS:
        for z in (r, sympy.Integer(f.numerator), sympy.Integer(f.denominator)):
            _state_sign(z)
    return r


#: Above this many bits, :func:`to_sympy` states the sign facts of the numbers it builds.
SIGN_FACT_BITS = 256


def _state_sign(z: sympy.Rational) -> None:
    """Record z's sign in sympy's assumption cache, so no query on it tests primality.

    sympy answers ``Integer.is_negative`` (and ``is_nonnegative``, …) by trying related facts
    in a *random* order (``sympy.core.random``); some orders ask ``is_prime``, a BPSW test that
    takes hours on a 100,000-digit odd integer — and ``sympy.log(R)`` asks ``R.is_negative``.
    The facts stated here are the true ones (from the exact p), so answers are unchanged; only
    the route to them is fixed. ``sympy.Integer`` is cached, so ``log``'s own ``Integer(p)`` is
    the object marked here. If a sympy version lacks the internal, nothing is stated.
    """
    facts, shared = getattr(z, "_assumptions", None), getattr(z, "default_assumptions", None)
    if facts is None or shared is None or not hasattr(facts, "deduce_all_facts"):
        return
    if facts is shared:  # the class's own table, shared by every instance: copy it first
        facts = z._assumptions = shared.copy()
    facts.deduce_all_facts((("zero", z.p == 0), ("positive", z.p > 0), ("negative", z.p < 0)))


def exact_root(n: int, k: int) -> int | None:
    """The integer k-th root of n ≥ 0 when n is a perfect k-th power, else None (any k ≥ 1;
    time O(size of n) whatever k: for k ≥ the bit length of n ≥ 2 no root can exist).

    >>> exact_root(27, 3), exact_root(28, 3), exact_root(5, 10**300), exact_root(1, 10**300)
    (3, None, None, 1)
    """
    if n < 0 or k < 1:
        raise InvalidArgument(f"exact_root takes n ≥ 0 and k ≥ 1; got k = {k} and "
                              f"{'a negative' if n < 0 else 'a nonnegative'} n.")
    if k == 1 or n in (0, 1):
        return n
    if k >= n.bit_length():  # n < 2^k: a root r ≥ 2 would give r^k ≥ 2^k > n
        return None
    root, exact = sympy.integer_nthroot(n, k)
    return int(root) if exact else None


def float_row_sums_exact(a: Any) -> list[Fraction]:
    """The exact sum of each row of a finite float64 matrix (an integer superaccumulator).

    Each float is m·2^(e−53) with an integer |m| < 2⁵³ (``numpy.frexp``). The mantissas are
    split into two halves of < 2²⁷ and summed per (row, exponent) with ``numpy.bincount``:
    every partial sum is an integer < 2²⁷·(row length) ≤ 2⁵³, so the float64 accumulation is
    exact for rows of up to 2²⁶ entries. The few per-row exponent groups are then combined
    with Python integers: no Fraction per entry (checked against exact Fraction sums in
    proofs/mech_float_filter.py, lemma E3).

    >>> import numpy as np
    >>> float_row_sums_exact(np.array([[0.7, 0.3], [0.5, 0.25]]))
    [Fraction(18014398509481983, 18014398509481984), Fraction(3, 4)]
    >>> float_row_sums_exact(np.array([[1e300, -1e300, 5e-324]])) == [Fraction(5e-324)]
    True
    """
    arr = np.asarray(a, dtype=np.float64)
    if arr.ndim != 2:
        raise InvalidArgument(f"Got an array of shape {arr.shape}; pass a 2-D float matrix.")
    n, m = arr.shape
    if m >= 2**26:
        raise InvalidArgument(f"Got rows of {m} entries; exact row sums support < 2^26.")
    if not np.isfinite(arr).all():
        raise InvalidArgument("float_row_sums_exact needs finite entries (no NaN or inf).")
    mant, expo = np.frexp(arr)
    nz = mant != 0
    out = [Fraction(0)] * n
    if not nz.any():
        return out
    emin = int(expo[nz].min())
    K = int(expo[nz].max()) - emin + 1
    key = (np.arange(n, dtype=np.int64)[:, None] * K + (expo - emin))[nz]
    mv = mant[nz]
    # M = mant·2^53 is an integer with |M| < 2^53; hi = ⌊M / 2^27⌋ and lo = M − hi·2^27 ∈
    # [0, 2^27) are computed exactly in float64 (integers below 2^53, power-of-two scalings)
    hi = np.floor(np.ldexp(mv, 26))
    lo = np.ldexp(mv, 53) - np.ldexp(hi, 27)
    S_hi = np.bincount(key, weights=hi, minlength=n * K).reshape(n, K)
    S_lo = np.bincount(key, weights=lo, minlength=n * K).reshape(n, K)
    rows_nz = np.nonzero(nz.any(axis=1))[0]
    for i in rows_nz.tolist():
        ks = np.nonzero((S_hi[i] != 0) | (S_lo[i] != 0))[0].tolist()
        total = 0
        for k in ks:
            total += ((int(S_hi[i, k]) << 27) + int(S_lo[i, k])) << k
        out[i] = Fraction(total) * Fraction(2) ** (emin - 53)
    return out


class _DigitScopes:
    """The open int↔str digit scopes of the process (Python's limit is process-wide): one
    lock-protected list of their requests (0 = unlimited), and the user's own limit saved when
    the first scope opened. While any scope is open the limit in force is the highest of the
    user's limit and every request (0 counts as highest), so a scope closing in one thread never
    lowers the limit under another still open; the last one to close restores the user's value."""

    lock = threading.Lock()
    requests: list[int] = []
    user = 0

    @classmethod
    def apply(cls) -> None:
        """Set the limit in force from the open requests (the caller holds the lock)."""
        if not cls.requests:
            sys.set_int_max_str_digits(cls.user)
            return
        wanted = (cls.user, *cls.requests)
        sys.set_int_max_str_digits(0 if 0 in wanted else max(wanted))


@contextmanager
def _digit_scope(request: int) -> Iterator[None]:
    """Hold a request for an int↔str limit of at least ``request`` digits (0 = unlimited)."""
    with _DigitScopes.lock:
        if not _DigitScopes.requests:
            _DigitScopes.user = sys.get_int_max_str_digits()
        _DigitScopes.requests.append(request)
        _DigitScopes.apply()
    try:
        yield
    finally:
        with _DigitScopes.lock:
            _DigitScopes.requests.remove(request)
            _DigitScopes.apply()


def unlimited_int_digits() -> AbstractContextManager[None]:
    """Lift Python's int↔str digit limit (4300 digits) inside the block, then restore it.

    Exact results can hold rationals of any size (an entry 10^-5000 gives a 5000-digit
    ratio); their exact decimal forms are written and read inside this block. Safe across
    threads and with :func:`int_digits_at_least`: the limit stays lifted while any such block
    is open anywhere in the process, and the user's own limit is back when the last one closes.

    >>> with unlimited_int_digits():
    ...     len(str(10**5000))
    5001
    """
    return _digit_scope(0)


def int_digits_at_least(digits: int) -> AbstractContextManager[None]:
    """Raise Python's int↔str digit limit to at least ``digits`` inside the block (a
    bounded :func:`unlimited_int_digits`: conversions beyond it still raise ValueError),
    then restore it; a higher or lifted (0) limit is left as it is. Scopes opened in several
    threads share one count: the highest open request is in force until the last one closes.

    >>> with int_digits_at_least(5000):
    ...     len(str(10**4999))
    5000
    """
    return _digit_scope(digits)


_LONG_DIGITS = re.compile(r"[0-9]{41,}")


def shorten_numbers(text: str) -> str:
    """``text`` with every run of more than 40 digits shortened to its ends and its length.

    >>> shorten_numbers("got t = " + "7" * 50)
    'got t = 7777777777…777777 (50 digits)'
    """
    return _LONG_DIGITS.sub(lambda m: f"{m[0][:10]}…{m[0][-6:]} ({len(m[0])} digits)", text)


def binary_float_to_fraction(x: Any) -> Fraction:
    """The exact value of a binary float of any numpy width (float16 … longdouble/float128),
    never rounded through float64. Finite values only.

    >>> import numpy as np
    >>> binary_float_to_fraction(np.float32(0.1))
    Fraction(13421773, 134217728)
    """
    p, q = x.as_integer_ratio()
    return Fraction(int(p), int(q))
