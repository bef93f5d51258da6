"""Accurate residuals ``b - A x`` with rigorous error bounds (error-free transformations).

Used by :mod:`exactdp.linalg.verified`. Vectorised over rows with numpy, looping over
columns; every floating-point step is one IEEE operation (numpy ufuncs do not fuse
multiply-add), so the classical error-free transformations hold exactly:

* TwoSum (Knuth): ``s = fl(a + b)``, ``e = (a - (s - bb)) + (b - bb)`` with ``bb = s - a``
  gives ``a + b = s + e`` exactly for all finite floats (no overflow), underflow included.
* TwoProduct (Dekker/Veltkamp, split factor ``2^27 + 1``): ``a b = p + e`` exactly when
  no overflow occurs and ``e_a + e_b >= -970`` (``e_x`` the binary exponent of ``x``).
  We only use it when ``2^-480 <= |a|, |x| <= 2^480`` (or a product is zero); all other
  products are summed in plain floating point with the a priori bound F2.

Residual error (``k`` columns). With ``c_j`` the TwoSum errors and ``E_ij`` the product
errors, ``b - A_s x = s + sum_j c_j - sum_j E_j`` exactly. The two float sums have error
at most ``gamma_k sum |c_j|`` and ``gamma_k sum |E_j|`` (sums of floats in any order:
F2 without underflow term, because float additions never underflow inexactly), and
``sum |c| + sum |E|`` is bounded through its float sum (F2 again). The final
combinations are single operations bounded by F1 (``spacing``).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from numpy.typing import NDArray

from exactdp.arithmetic.rounding import ETA, float_down, float_up, gamma, succ, ulp
from exactdp.kinds import proved_by

__all__ = ["two_sum", "veltkamp_split", "two_product", "accurate_residual"]

FloatArray = NDArray[np.float64]

_SPLIT = 134217729.0  # 2**27 + 1
_SAFE_LO = 2.0**-480
_SAFE_HI = 2.0**480
_BLOCK = 256


def two_sum(a: FloatArray, b: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Knuth's TwoSum: ``a + b = s + e`` exactly (finite inputs, no overflow)."""
    s = a + b
    bb = s - a
    e = (a - (s - bb)) + (b - bb)
    return s, e


def veltkamp_split(a: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Veltkamp's split ``a = hi + lo`` with 26-bit halves (exact, no overflow)."""
    c = _SPLIT * a
    hi = c - (c - a)
    return hi, a - hi


def two_product(a: FloatArray, a_hi: FloatArray, a_lo: FloatArray, x: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Dekker's TwoProduct ``a * x = p + e`` (exact in the safe range), ``a`` pre-split."""
    p = a * x
    x_hi, x_lo = veltkamp_split(x)
    e = a_lo * x_lo - (((p - a_hi * x_hi) - a_lo * x_hi) - a_hi * x_lo)
    return p, e


@proved_by("linalg_verified_bounds")
def accurate_residual(A: FloatArray, b: FloatArray, x: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Float vectors ``(center, err)`` with ``|b - A x - center| <= err`` exactly.

    The error is of order ``u |b - A x| + n u^2 |A||x|`` instead of the ``n u |A||x|`` of
    a plain float residual. Returns non-finite values on overflow (callers refuse them).
    The bound (lemma F4) is stated and checked in ``proofs/linalg_verified_bounds.py``.

    >>> A = np.array([[1.0, 1e-17], [3.0, 1.0]]); x = np.array([1.0, -1.0])
    >>> c, err = accurate_residual(A, np.array([1.0, 2.0]), x)
    >>> c.tolist(), bool(err[0] < 1e-32)  # exact residual: 1e-17 (as a float product), 0
    ([1e-17, 0.0], True)
    """
    n, k = A.shape
    absx = np.abs(x)
    col_safe = ((absx >= _SAFE_LO) & (absx <= _SAFE_HI)) | (x == 0.0)
    x_safe = np.where(col_safe, x, 0.0)
    safe = (np.abs(A) >= _SAFE_LO) & (np.abs(A) <= _SAFE_HI)
    safe |= A == 0.0
    safe &= col_safe[None, :]
    if bool(safe.all()):
        A_safe = A
        A_unsafe = None
    else:
        A_safe = np.where(safe, A, 0.0)
        A_unsafe = A - A_safe  # exact: each entry is either A_ij or 0
    del safe

    s = np.array(b, dtype=np.float64, copy=True)
    comp = np.zeros(n)  # float sum of the TwoSum errors c_j minus product errors E_j
    abs_acc = np.zeros(n)  # float sum of |c_j| and |E_j|
    for j0 in range(0, k, _BLOCK):
        j1 = min(k, j0 + _BLOCK)
        blk = np.ascontiguousarray(A_safe[:, j0:j1].T)  # rows = columns j0..j1 of A_safe
        xb = np.broadcast_to(x_safe[j0:j1, None], blk.shape)
        hi, lo = veltkamp_split(blk)
        P, E = two_product(blk, hi, lo, xb)
        comp -= E.sum(axis=0)
        abs_acc += np.abs(E).sum(axis=0)
        for row in P:
            s, c = two_sum(s, -row)
            comp += c
            abs_acc += np.abs(c)
    # 2k terms went into each of comp and abs_acc
    g2k = float_up(gamma(2 * k + 2))
    one_minus = float_down(1 - gamma(2 * k + 2))
    abs_bound = succ(abs_acc / one_minus)  # >= sum|c| + sum|E| (F2 for sums)
    err = succ(g2k * abs_bound)  # >= |comp - (sum c - sum E)|
    center = s + comp
    err = succ(err + ulp(center))  # F1 for the final addition
    if A_unsafe is not None:
        w = A_unsafe @ x
        center2 = center - w
        err = succ(err + ulp(center2))
        gk = float_up(gamma(k + 2))
        tail = float_up(Fraction(2 * k) * ETA)
        prod = np.abs(A_unsafe) @ absx
        prod_up = succ(succ(prod + tail) / float_down(1 - gamma(k + 2)))
        err = succ(err + succ(gk * prod_up))
        err = succ(err + tail)
        center = center2
    return center, err
