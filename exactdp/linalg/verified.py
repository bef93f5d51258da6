"""Verified (certified) float linear solves: Rump/Krawczyk enclosures in plain numpy.

:func:`verified_solve` returns a box ``[lo, hi]`` that provably contains the unique
solution of ``A x = b`` for *every* ``A`` and ``b`` in the given entrywise
midpoint-radius boxes, or ``None`` when it cannot prove that. It uses only
round-to-nearest IEEE double arithmetic (numpy/BLAS have no directed rounding), and
accounts for every rounding error with a priori bounds valid for any summation
order, blocking, threading or FMA use. The argument is written out in
``proofs/linalg_verified_bounds.py``, which also checks it against exact rational
arithmetic; :func:`check_enclosure_arb` re-checks a result independently with flint
ball arithmetic.

The argument (``u = 2⁻⁵³``, ``eta = 2⁻¹⁰⁷⁴``, ``gamma_k = k u / (1 - k u)``)
---------------------------------------------------------------------------
F1 (single operations). For IEEE round-to-nearest, the exact result ``z`` of one
    ``+ - * /`` satisfies ``pred(fl(z)) <= z <= succ(fl(z))`` (:mod:`exactdp.arithmetic.rounding`), and
    ``|z - fl(z)| <= spacing(|fl(z)|)``. This emulates upward/downward rounding.
F2 (products, any order). Each entry of ``fl(P @ Q)`` (inner dimension ``k``)
    computed by any sequence of roundings of products and sums (any order,
    blocking, multithreading, with or without FMA) satisfies
    ``|fl(PQ) - PQ| <= gamma_k |P||Q| + k eta`` (Higham, *Accuracy and Stability*,
    Lemma 3.1/Thm 3.5, plus ``eta/2`` per product for underflow). We use the
    larger ``gamma_{k+2}`` and ``2 k eta``. Hence, for ``P, Q >= 0``:
    ``PQ <= (fl(PQ) + 2k eta) / (1 - gamma_{k+2})``, evaluated with F1.
    Assumption: BLAS ``dgemm``/``dgemv`` compute the classical sum of products
    (no Strassen-like algorithm, no reduced precision); OpenBLAS, MKL, BLIS do.
F3 (Krawczyk/Rump). Let ``R`` be any matrix, ``x~`` any vector, ``G >= |I - R A|``
    entrywise with ``beta = ||G||_inf < 1``. Then ``A`` is nonsingular and the
    error ``e = A^{-1} b - x~`` satisfies ``e = R r + (I - R A) e`` with
    ``r = b - A x~``, so ``||e||_inf <= || |R||r| ||_inf / (1 - beta) =: delta`` and,
    componentwise, ``|e| <= |R||r| + G 1 delta``.
Bounds used: ``|I - R A| <= |I - C| + gamma |R||A_mid| + 2 n eta + |R| A_rad`` with
``C = fl(R A_mid)``; only the row sums ``G 1`` are needed, and
``(|R||A_mid|) 1 = |R| (|A_mid| 1)`` costs two matrix-vector products.
``|r| <= |fl(b_mid - fl(A_mid x~))|`` (F1) ``+ gamma |A_mid||x~| + 2 n eta + A_rad|x~|
+ b_rad`` (``accurate=False``). By default (``accurate=True``) the residual of ``x~`` is
computed with error-free transformations (F4: TwoSum/TwoProduct, see
:func:`exactdp.linalg._accurate.accurate_residual`), giving ``c`` with
``|b_mid - A_mid x~ - c| <= c_err`` of order ``u |c| + n u^2 |A||x~|``; F3 is then applied
to ``y = x~ + d`` with the correction ``d = fl(R c)``, using
``b - A y = (b_mid - A_mid x~) - A_mid d + (b - b_mid) - (A - A_mid) y``. This makes the
width about ``n`` times smaller (a few ulps when the data are exact floats). Scalars
``beta`` and ``delta`` are combined exactly with Fractions; the vectors with F1.
Subnormal flushing (FTZ/DAZ) would break F1/F2: it is detected and the solve refuses
(returns ``None``).
"""


from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np
from numpy.typing import NDArray

from exactdp.arithmetic.rounding import (
    ETA,
    float_down,
    float_up,
    gamma,
    pred,
    subnormals_ok,
    succ,
)
from exactdp.errors import InvalidArgument
from exactdp.kinds import proved_by
from exactdp.linalg._accurate import accurate_residual, two_sum
from exactdp.linalg.arb_check import check_enclosure_arb
from exactdp.linalg.enclosure import FloatEnclosure, float_enclosure

__all__ = [
    "FloatEnclosure",
    "float_enclosure",
    "verified_solve",
    "check_enclosure_arb",
    "ProductBounds",
    "VERIFIED_METHOD",
]

VERIFIED_METHOD = "verified-float (Krawczyk; rigorous rounding bounds)"

FloatArray = NDArray[np.float64]


class ProductBounds:
    """Rigorous constants of F2 for inner dimension ``k`` (``γ_{k+2}`` and the underflow tail).

    >>> b = ProductBounds(3)
    >>> Fraction(b.gamma) >= gamma(5) and Fraction(b.tail) >= 6 * ETA
    True
    """

    def __init__(self, k: int) -> None:
        self.k = k
        self.gamma = float_up(gamma(k + 2))
        self.one_minus_gamma = float_down(1 - gamma(k + 2))
        self.tail = float_up(Fraction(2 * k) * ETA)

    def nonneg_product_upper(self, P: FloatArray, Q: FloatArray) -> FloatArray:
        """Float array >= P @ Q (exactly), for nonnegative float P, Q (F2 + F1)."""
        M = P @ Q
        return succ(succ(M + self.tail) / self.one_minus_gamma)  # type: ignore[no-any-return]


def _as_float_array(x: Any, name: str, ndim: int) -> FloatArray:
    """Float64 array with exactly the values given (refuses inexact conversions)."""
    try:
        raw = np.asarray(x)
    except (TypeError, ValueError) as exc:
        raise InvalidArgument(f"{name} must be a float64 array-like; got {type(x).__name__}") from exc
    if raw.dtype.kind not in "fiub":
        raise InvalidArgument(
            f"{name} has dtype {raw.dtype}; pass float64 data (for exact or ball entries use "
            "float_enclosure(...) to get a float midpoint and a rigorous radius)"
        )
    arr = raw.astype(np.float64)
    if raw.dtype != np.float64:
        with np.errstate(all="ignore"):
            same = np.array_equal(arr.astype(raw.dtype), raw)
        if not same:
            raise InvalidArgument(
                f"{name} is not exactly representable in float64 (dtype {raw.dtype}); "
                "use float_enclosure(...) to get a float midpoint and a rigorous radius"
            )
    if arr.ndim != ndim:
        raise InvalidArgument(f"{name} must have {ndim} dimension(s); got shape {arr.shape}")
    return arr


def _radius(value: Any, name: str, shape: tuple[int, ...]) -> FloatArray:
    """A radius given as None, a scalar, or an array of exactly ``shape``."""
    if value is None:
        return np.zeros(shape)
    arr = _as_float_array(value, name, np.ndim(value))
    if arr.ndim == 0:
        return np.full(shape, float(arr))
    if arr.shape != shape:
        raise InvalidArgument(f"{name} must be a scalar or have shape {shape}; got {arr.shape}")
    return arr


@proved_by("linalg_verified_bounds")
def verified_solve(
    A_mid: Any,
    A_rad: Any,
    b_mid: Any,
    b_rad: Any,
    *,
    R: Any = None,
    refine_steps: int = 1,
    accurate: bool = True,
) -> FloatEnclosure | None:
    """Certified enclosure of the solutions of ``A x = b`` over interval data.

    For EVERY matrix ``A`` with ``|A - A_mid| <= A_rad`` and every ``b`` with
    ``|b - b_mid| <= b_rad`` (entrywise), ``A`` is nonsingular and ``A^{-1} b`` lies in
    ``[lo, hi]``. Returns ``None`` when that cannot be proved (``beta >= 1``: singular
    or too ill-conditioned for double precision; non-finite intermediate values). The
    rounding-error argument is in the module docstring and
    ``proofs/linalg_verified_bounds.py``.

    Parameters
    ----------
    A_mid, A_rad : array-like (n, n) of float64
        Midpoint and (nonnegative) radius matrix. ``A_rad`` may be ``0`` / ``None``.
    b_mid, b_rad : array-like (n,) of float64
        Right-hand side midpoint and radius (``b_rad`` may be ``0`` / ``None``).
    R : array-like (n, n), optional
        Approximate inverse to use (default ``numpy.linalg.inv(A_mid)``). Any matrix is
        allowed; a poor one only makes verification fail, never makes it wrong.
    refine_steps : int
        Float iterative-refinement steps for the approximate solution (uncertified
        heuristic; the bounds hold for whatever approximation results).
    accurate : bool
        Compute residuals with error-free transformations (TwoSum/TwoProduct, see
        ``exactdp/linalg/_accurate.py``) and enclose ``x~ + d`` with a correction ``d``
        (default). Costs O(n^2) extra and makes the enclosure width about ``n`` times
        smaller; ``False`` uses plain float residuals (bound ``gamma_n |A||x~|``).

    Returns
    -------
    FloatEnclosure or None

    Examples
    --------
    >>> enc = verified_solve([[2.0, 1.0], [1.0, 3.0]], 0, [1.0, 2.0], 0)
    >>> enc.contains([Fraction(1, 5), Fraction(3, 5)])  # exact solution (1/5, 3/5)
    True
    >>> bool(enc.beta < 1e-12), enc.signs().tolist()
    (True, [1, 1])
    >>> verified_solve([[1.0, 2.0], [2.0, 4.0]], 0, [1.0, 1.0], 0) is None  # singular
    True
    """
    A = _as_float_array(A_mid, "A_mid", 2)
    n = A.shape[0]
    if A.shape != (n, n) or n == 0:
        raise InvalidArgument(f"A_mid must be a nonempty square matrix; got shape {A.shape}")
    b = _as_float_array(b_mid, "b_mid", 1)
    if b.shape != (n,):
        raise InvalidArgument(f"b_mid must have shape ({n},); got {b.shape}")
    Arad = _radius(A_rad, "A_rad", (n, n))
    brad = _radius(b_rad, "b_rad", (n,))
    for name, arr in (("A_mid", A), ("A_rad", Arad), ("b_mid", b), ("b_rad", brad)):
        if not np.all(np.isfinite(arr)):
            raise InvalidArgument(f"{name} contains NaN or infinite entries")
    if np.any(Arad < 0) or np.any(brad < 0):
        raise InvalidArgument("A_rad and b_rad must be nonnegative (they are radii)")
    if not isinstance(refine_steps, int) or refine_steps < 0:
        raise InvalidArgument(f"Got refine_steps={refine_steps!r}; use an int >= 0")
    if not subnormals_ok():
        return None  # FTZ/DAZ active: the rounding model F1/F2 does not hold
    with np.errstate(all="ignore"):
        return _verified_solve(A, Arad, b, brad, R, refine_steps, accurate)


def _verified_solve(
    A: FloatArray,
    Arad: FloatArray,
    b: FloatArray,
    brad: FloatArray,
    R_in: Any,
    refine_steps: int,
    accurate: bool,
) -> FloatEnclosure | None:
    n = A.shape[0]
    if R_in is None:
        try:
            R = np.asarray(np.linalg.inv(A), dtype=np.float64)
        except np.linalg.LinAlgError:
            return None
    else:
        R = _as_float_array(R_in, "R", 2)
        if R.shape != (n, n):
            raise InvalidArgument(f"R must have shape ({n}, {n}); got {R.shape}")
    if not np.all(np.isfinite(R)):
        return None

    # approximate solution (heuristic, uncertified): float iterative refinement; with
    # ``accurate`` the certified step below adds a correction from an accurate residual
    x = R @ b
    for _ in range(refine_steps):
        x = x + R @ (b - A @ x)
    if not np.all(np.isfinite(x)):
        return None

    bounds = ProductBounds(n)
    g = _defect_row_bound(A, Arad, R, bounds)
    if g is None:
        return None
    beta = Fraction(float(np.max(g)))
    if beta >= 1:
        return None
    res = _residual_bound(A, Arad, b, brad, x, R, bounds, accurate)
    if res is None:
        return None
    d, r_up = res
    absR = np.abs(R)

    # ---- Krawczyk/Rump bound (F3) ----------------------------------------------
    Rr = bounds.nonneg_product_upper(absR, r_up)  # >= |R||r|
    if not np.all(np.isfinite(Rr)):
        return None
    delta = float_up(Fraction(float(np.max(Rr))) / (1 - beta))
    rad = succ(Rr + succ(g * delta))
    y_hi, y_lo = two_sum(x, d)  # x + d = y_hi + y_lo exactly
    lo = pred(y_hi + pred(y_lo - rad))
    hi = succ(y_hi + succ(y_lo + rad))
    if not (np.all(np.isfinite(lo)) and np.all(np.isfinite(hi))):
        return None
    arrays = [np.array(v, dtype=np.float64) for v in (lo, hi, y_hi)]
    for arr in arrays:
        arr.setflags(write=False)  # the certificate must not be edited in place
    return FloatEnclosure(
        lo=arrays[0],
        hi=arrays[1],
        beta=float_up(beta),
        x_approx=arrays[2],
        method=VERIFIED_METHOD,
    )


def _defect_row_bound(A: FloatArray, Arad: FloatArray, R: FloatArray, bounds: ProductBounds) -> FloatArray | None:
    """Float vector ``g >= |I - R A| 1`` (exactly) for every ``A`` with ``|A - A_mid| <= Arad``.

    ``|I - R A| <= |I - C| + |C - R A_mid| + |R| A_rad`` with ``C = fl(R A_mid)`` and F2:
    ``|C - R A_mid| <= gamma |R||A_mid| + tail``; row sums via ``|R| (|A_mid| 1)``.
    """
    n = A.shape[0]
    ones = np.ones(n)
    absR = np.abs(R)
    C = R @ A
    if not np.all(np.isfinite(C)):
        return None
    diag = np.diagonal(C).copy()
    diag_up = succ(np.abs(1.0 - diag))  # F1: |1 - c_ii| <= succ(|fl(1 - c_ii)|)
    offd = np.abs(C, out=C)  # C itself is no longer needed
    np.fill_diagonal(offd, 0.0)
    off_up = bounds.nonneg_product_upper(offd, ones)  # exact row sums of |C| off-diagonal
    rowsA = bounds.nonneg_product_upper(np.abs(A), ones)  # >= |A_mid| 1
    RA1 = bounds.nonneg_product_upper(absR, rowsA)  # >= |R||A_mid| 1
    g = succ(diag_up + off_up)
    g = succ(g + succ(bounds.gamma * RA1))  # rounding errors of C, row sums
    g = succ(g + float_up(n * Fraction(bounds.tail)))  # underflow terms of C, row sums
    if np.any(Arad > 0):
        rowsRad = bounds.nonneg_product_upper(Arad, ones)
        g = succ(g + bounds.nonneg_product_upper(absR, rowsRad))  # >= |R| A_rad 1
    if not np.all(np.isfinite(g)):
        return None
    return g  # type: ignore[no-any-return]


def _residual_bound(
    A: FloatArray,
    Arad: FloatArray,
    b: FloatArray,
    brad: FloatArray,
    x: FloatArray,
    R: FloatArray,
    bounds: ProductBounds,
    accurate: bool,
) -> tuple[FloatArray, FloatArray] | None:
    """Correction ``d`` and float vector ``r_up`` with ``|b - A (x + d)| <= r_up`` exactly.

    Holds for every ``A``, ``b`` in the boxes. With ``accurate`` the residual of ``x`` is
    computed with error-free transformations and ``d = fl(R c)`` is a correction; without
    it ``d = 0`` and the plain float residual carries ``gamma |A_mid||x|``.
    """
    n = A.shape[0]
    absA = np.abs(A)
    if accurate:
        c, c_err = accurate_residual(A, b, x)  # |b_mid - A_mid x - c| <= c_err exactly
        if not (np.all(np.isfinite(c)) and np.all(np.isfinite(c_err))):
            return None
        d = R @ c  # correction: y = x + d approximates the solution beyond double precision
        if not np.all(np.isfinite(d)):
            return None
        c2 = c - A @ d  # b_mid - A_mid y = (b_mid - A_mid x) - A_mid d
        r_up = succ(np.abs(c2))  # F1 for the subtraction
        r_up = succ(r_up + c_err)
        Ad_abs = bounds.nonneg_product_upper(absA, np.abs(d))  # F2 for fl(A_mid d)
        r_up = succ(r_up + succ(bounds.gamma * Ad_abs))
        r_up = succ(r_up + bounds.tail)
        absy = succ(np.abs(x) + np.abs(d))  # >= |x + d|
    else:
        d = np.zeros(n)
        w = A @ x
        r_up = succ(np.abs(b - w))  # F1 for the subtraction b - w
        Ax_abs = bounds.nonneg_product_upper(absA, np.abs(x))  # F2 for fl(A_mid x)
        r_up = succ(r_up + succ(bounds.gamma * Ax_abs))
        r_up = succ(r_up + bounds.tail)
        absy = np.abs(x)
    r_up = succ(r_up + brad)  # |b - b_mid| <= b_rad
    if np.any(Arad > 0):
        r_up = succ(r_up + bounds.nonneg_product_upper(Arad, absy))  # |(A - A_mid) y|
    if not np.all(np.isfinite(r_up)):
        return None
    return d, r_up
