"""Directed rounding and the IEEE-754 double rounding model: the one home of these primitives.

Every certified float route (verified solves, the threshold covers, the SPD checks, the
lattice bound, the float pre-filters) rests on the constants and helpers below; no other
module defines its own copy (``tests/repo/test_repo_structure.py`` searches for copies).

The model (IEEE binary64, round to nearest, gradual underflow):

* ``U`` = 2⁻⁵³ is the unit roundoff, ``ETA`` = 2⁻¹⁰⁷⁴ the smallest positive subnormal.
* F1: the exact result of one ``+ − × ÷`` (or ``sqrt``) whose rounding is ``fl`` lies in
  ``[pred(fl), succ(fl)]``.
* F2: for a dot product of length k, ``|fl(xᵀy) − xᵀy| ≤ γ_k |x|ᵀ|y| + k·ETA`` with
  ``γ_k = k·U / (1 − k·U)`` (Higham, *Accuracy and Stability*, Lemma 3.1 and §3.1 with
  underflow).

Both need subnormals to be kept, not flushed to zero (FTZ/DAZ); :func:`subnormals_ok`
tests that at run time and every certified route calls :func:`require_subnormals`.
The proofs are ``proofs/linalg_verified_bounds.py`` (F1, F2 and the γ_k algebra).

Examples
--------
>>> float_up(Fraction(1, 3)) >= Fraction(1, 3) >= float_down(Fraction(1, 3))
True
>>> gamma(2) == 2 * U / (1 - 2 * U)
True
>>> float_up(Fraction(10) ** 400), float_down(-Fraction(10) ** 400)
(inf, -inf)
>>> float_down(Fraction(10) ** 400) == MAX_FLOAT
True
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from exactdp.errors import InvalidArgument, PrecisionLimitReached

__all__ = [
    "U",
    "ETA",
    "ETA_FLOAT",
    "MAX_FLOAT",
    "gamma",
    "gamma_up",
    "succ",
    "pred",
    "float_up",
    "float_down",
    "subnormals_ok",
    "require_subnormals",
    "ulp",
    "dyadic_down",
    "dyadic_up",
    "round_down_bits",
]

#: Unit roundoff of IEEE binary64 with round to nearest: 2⁻⁵³, exactly.
U = Fraction(1, 2**53)
#: Smallest positive subnormal binary64 number: 2⁻¹⁰⁷⁴, exactly.
ETA = Fraction(1, 2**1074)
#: ``ETA`` as a float (5e-324).
ETA_FLOAT = math.ldexp(1.0, -1074)
#: Largest finite binary64 number.
MAX_FLOAT = float(np.finfo(np.float64).max)
_INF = math.inf


def gamma(k: int) -> Fraction:
    """γ_k = k·u / (1 − k·u), exactly.

    Parameters
    ----------
    k : int
        Number of rounded operations in a chain (k ≥ 0 and k·u < 1).

    Raises
    ------
    InvalidArgument
        When k·u ≥ 1 (the model says nothing then).

    >>> gamma(0)
    Fraction(0, 1)
    """
    if not isinstance(k, int) or k < 0:
        raise InvalidArgument(f"Got k={k!r}; γ_k needs a whole number k ≥ 0.")
    ku = k * U
    if ku >= 1:
        raise InvalidArgument(f"Got k={k}; k·2⁻⁵³ ≥ 1, so γ_k is undefined (split the computation).")
    return ku / (1 - ku)


def gamma_up(k: int) -> float:
    """A float ≥ γ_k.

    >>> gamma_up(10) >= gamma(10)
    True
    """
    return float_up(gamma(k))


def succ(x: Any) -> Any:
    """The next float above ``x`` (scalar or array): an upper bound of the exact result whose
    rounding to nearest is ``x`` (F1)."""
    return np.nextafter(x, _INF)


def pred(x: Any) -> Any:
    """The next float below ``x`` (scalar or array): a lower bound of the exact result whose
    rounding to nearest is ``x`` (F1)."""
    return np.nextafter(x, -_INF)


def float_up(q: Fraction | int) -> float:
    """The least float ≥ ``q`` (``inf`` when q exceeds the largest float).

    ``float(Fraction)`` is correctly rounded (integer true division), so at most one step up
    is needed; overflow gives ``inf`` (a valid upper bound), never an exception.

    >>> float_up(Fraction(1, 10)) > 0.1 or Fraction(0.1) >= Fraction(1, 10)
    True
    """
    q = Fraction(q)
    try:
        f = float(q)
    except OverflowError:
        return _INF if q > 0 else -MAX_FLOAT
    if Fraction(f) < q:
        f = float(np.nextafter(f, _INF))
    return f


def float_down(q: Fraction | int) -> float:
    """The greatest float ≤ ``q`` (``-inf`` when q is below the most negative float).

    >>> float_down(Fraction(1, 3)) < 1 / 3 or Fraction(1 / 3) <= Fraction(1, 3)
    True
    """
    q = Fraction(q)
    try:
        f = float(q)
    except OverflowError:
        return -_INF if q < 0 else MAX_FLOAT
    if Fraction(f) > q:
        f = float(np.nextafter(f, -_INF))
    return f


def subnormals_ok() -> bool:
    """True when the floating-point unit keeps subnormal numbers (no flush-to-zero).

    Computed afresh on every call (a library loaded later may change the FPU mode).

    >>> subnormals_ok()
    True
    """
    tiny = np.array([ETA_FLOAT * 4], dtype=np.float64)
    half = tiny / np.float64(2.0)  # an arithmetic result in the subnormal range
    return bool(half[0] == ETA_FLOAT * 2) and bool((tiny * np.float64(0.25))[0] == ETA_FLOAT)


def require_subnormals(where: str) -> None:
    """Raise :class:`~exactdp.errors.PrecisionLimitReached` when subnormals are flushed.

    Every certified float route calls this before it relies on F1/F2.
    """
    if not subnormals_ok():
        raise PrecisionLimitReached(
            f"{where}: this process flushes subnormal floats to zero (FTZ/DAZ), so the rounding "
            "bounds of the certified float route do not hold; use method='exact' or 'ball', or "
            "run without a library that sets FTZ (e.g. some -Ofast builds)."
        )


def ulp(x: Any) -> Any:
    """The gap from ``|x|`` to the next float away from zero (``np.spacing``; arrays ok).

    A float ``f`` nearest to a real ``r`` satisfies ``|r − f| ≤ ulp(f)`` (F1).

    >>> float(ulp(1.0)) == 2 * float(U)
    True
    """
    return np.spacing(np.abs(x))


# ---- exact rounding of rationals to dyadics (the threshold routes) ----


def dyadic_down(x: Fraction | int | float, bits: int) -> Fraction:
    """The greatest multiple of 2^-bits that is ≤ ``x`` (exact; a float is taken exactly).

    >>> dyadic_down(Fraction(1, 3), 4), dyadic_down(Fraction(-1, 3), 4)
    (Fraction(5, 16), Fraction(-3, 8))
    """
    scale = 1 << bits
    return Fraction(math.floor(Fraction(x) * scale), scale)


def dyadic_up(x: Fraction | int | float, bits: int) -> Fraction:
    """The least multiple of 2^-bits that is ≥ ``x`` (exact; a float is taken exactly).

    >>> dyadic_up(Fraction(1, 3), 4)
    Fraction(3, 8)
    """
    scale = 1 << bits
    return Fraction(math.ceil(Fraction(x) * scale), scale)


def round_down_bits(x: Fraction, bits: int) -> Fraction:
    """The largest p·2^e ≤ ``x`` whose numerator p has about ``bits`` significant bits (x > 0).

    Shortens a rigorous lower bound without losing its direction.

    >>> round_down_bits(Fraction(1, 3), 8) <= Fraction(1, 3) < round_down_bits(Fraction(1, 3), 8) + Fraction(1, 2**9)
    True
    """
    e = x.numerator.bit_length() - x.denominator.bit_length() - bits
    if e >= 0:
        return Fraction((x.numerator // (x.denominator << e)) << e)
    return Fraction((x.numerator << -e) // x.denominator, 1 << -e)
