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

The argument (``u = 2**-53``, ``eta = 2**-1074``, ``gamma_k = k u / (1 - k u)``)
---------------------------------------------------------------------------------
F1 (single operations). For IEEE round-to-nearest, the exact result ``z`` of one
    ``+ - * /`` satisfies ``pred(fl(z)) <= z <= succ(fl(z))`` (``np.nextafter``), and
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

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import flint
import numpy as np
from numpy.typing import NDArray

from exactdp.errors import InvalidArgument
from exactdp.linalg._accurate import accurate_residual, two_sum

__all__ = [
    "FloatEnclosure",
    "float_enclosure",
    "verified_solve",
    "check_enclosure_arb",
    "VERIFIED_METHOD",
]

VERIFIED_METHOD = "verified-float (Krawczyk; rigorous rounding bounds)"

_U = Fraction(1, 2**53)
_ETA_F = float(np.nextafter(0.0, 1.0))  # 2**-1074, smallest positive subnormal
_INF = np.inf

FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class FloatEnclosure:
    """Certified componentwise enclosure ``lo <= A^{-1} b <= hi`` (float64 endpoints).

    Attributes
    ----------
    lo, hi : numpy.ndarray
        Rigorous bounds: ``lo[i] <= x[i] <= hi[i]`` exactly for the true solution(s).
    beta : float
        Rigorous upper bound of ``||I - R A||_inf`` (``< 1``) over the whole input box.
    x_approx : numpy.ndarray
        The float approximation the enclosure was built around (uncertified).
    method : str
        How the enclosure was obtained.
    """

    lo: np.ndarray
    hi: np.ndarray
    beta: float
    x_approx: np.ndarray
    method: str

    def contains(self, x: Any) -> bool:
        """True if every component of the exact vector ``x`` (rationals) lies in the box.

        >>> e = FloatEnclosure(np.array([0.0]), np.array([1.0]), 0.0, np.array([0.5]), "demo")
        >>> e.contains([Fraction(1, 3)]), e.contains([Fraction(3, 2)])
        (True, False)
        """
        values = list(x)
        if len(values) != len(self.lo):
            return False
        for v, lo, hi in zip(values, self.lo, self.hi, strict=True):
            q = Fraction(v) if not isinstance(v, flint.fmpq) else Fraction(int(v.p), int(v.q))
            if not (Fraction(float(lo)) <= q <= Fraction(float(hi))):
                return False
        return True

    def to_dict(self) -> dict[str, Any]:
        """Exact JSON-ready form: every float as ``float.hex`` (round-trips bit for bit).

        >>> e = FloatEnclosure(np.array([0.1]), np.array([0.2]), 0.5, np.array([0.15]), "demo")
        >>> e2 = FloatEnclosure.from_dict(e.to_dict())
        >>> e2.lo[0] == 0.1 and e2.hi[0] == 0.2 and e2.beta == 0.5 and e2.method == "demo"
        True
        """
        return {
            "lo": [float(v).hex() for v in self.lo],
            "hi": [float(v).hex() for v in self.hi],
            "beta": float(self.beta).hex(),
            "x_approx": [float(v).hex() for v in self.x_approx],
            "method": self.method,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> FloatEnclosure:
        """Inverse of :meth:`to_dict`."""
        try:
            return cls(
                lo=np.array([float.fromhex(v) for v in data["lo"]], dtype=np.float64),
                hi=np.array([float.fromhex(v) for v in data["hi"]], dtype=np.float64),
                beta=float.fromhex(data["beta"]),
                x_approx=np.array([float.fromhex(v) for v in data["x_approx"]], dtype=np.float64),
                method=str(data["method"]),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidArgument(f"not a FloatEnclosure dict: {exc}") from exc

    @property
    def width(self) -> np.ndarray:
        """Componentwise width ``hi - lo`` (float, rounded to nearest; informational)."""
        return np.asarray(self.hi - self.lo)

    def signs(self) -> np.ndarray:
        """Certified sign per component: +1 if ``lo > 0``, -1 if ``hi < 0``, 0 if undecided.

        >>> e = FloatEnclosure(np.array([1.0, -2.0, -1.0]), np.array([2.0, -1.0, 1.0]), 0.0,
        ...                    np.zeros(3), "demo")
        >>> e.signs().tolist()
        [1, -1, 0]
        """
        out = np.zeros(self.lo.shape, dtype=np.int64)
        out[self.lo > 0] = 1
        out[self.hi < 0] = -1
        return out


# ----------------------------------------------------------------------------------
# elementary rigorous helpers (F1, F2)
# ----------------------------------------------------------------------------------


def _up(x: Any) -> Any:
    """succ(x): an upper bound of the exact result whose rounding-to-nearest is ``x``."""
    return np.nextafter(x, _INF)


def _down(x: Any) -> Any:
    """pred(x): a lower bound of the exact result whose rounding-to-nearest is ``x``."""
    return np.nextafter(x, -_INF)


def _frac_up(q: Fraction) -> float:
    """Smallest-ish float >= q (q finite)."""
    f = float(q)
    if Fraction(f) < q:
        f = float(np.nextafter(f, _INF))
    return f


def _frac_down(q: Fraction) -> float:
    """Largest-ish float <= q (q finite)."""
    f = float(q)
    if Fraction(f) > q:
        f = float(np.nextafter(f, -_INF))
    return f


def _gamma(k: int) -> Fraction:
    """gamma_k = k u / (1 - k u), exactly."""
    ku = k * _U
    if ku >= 1:
        raise InvalidArgument(f"dimension {k} too large for the rounding-error bounds")
    return ku / (1 - ku)


def _subnormals_work() -> bool:
    """False if the FPU flushes subnormals to zero (FTZ/DAZ), which breaks F1/F2."""
    tiny = np.float64(2.0**-1022)
    with np.errstate(all="ignore"):
        half = tiny / np.float64(2.0)
        back = half * np.float64(2.0)
    return bool(half != 0.0) and bool(back == tiny)


class _Bounds:
    """Rigorous constants for inner dimension ``k`` (F2)."""

    def __init__(self, k: int) -> None:
        self.k = k
        self.gamma = _frac_up(_gamma(k + 2))
        self.one_minus_gamma = _frac_down(1 - _gamma(k + 2))
        self.tail = _frac_up(Fraction(2 * k) * Fraction(_ETA_F))

    def nonneg_product_upper(self, P: FloatArray, Q: FloatArray) -> FloatArray:
        """Float array >= P @ Q (exactly), for nonnegative float P, Q (F2 + F1)."""
        M = P @ Q
        return _up(_up(M + self.tail) / self.one_minus_gamma)  # type: ignore[no-any-return]


# ----------------------------------------------------------------------------------
# arb -> float enclosure
# ----------------------------------------------------------------------------------


def float_enclosure(values: Any) -> tuple[np.ndarray, np.ndarray]:
    """Float64 midpoints and radii enclosing an array of ``flint.arb`` balls.

    For every ball ``v`` of ``values`` (any shape: nested lists, an object ndarray, or
    an ``arb_mat``) returns ``(mid, rad)`` with ``|t - mid| <= rad`` for every real ``t``
    in ``v``. The float conversion of the arb midpoint is faithful (python-flint's
    ``arf_get_d``, correctly rounded to nearest or towards zero depending on the
    version), so its error is at most ``spacing(|mid|)``; that is added to the ball
    radius, and the sum is rounded up. Values below the double range become 0 with a
    radius covering them; values beyond it, NaN or infinite balls raise. The argument
    (F1) is checked in ``proofs/linalg_verified_bounds.py``.

    Parameters
    ----------
    values : array-like of flint.arb (or flint.arb_mat)

    Returns
    -------
    mid, rad : numpy.ndarray of float64, same shape as ``values``

    Raises
    ------
    InvalidArgument
        If an entry is not an arb (or exact number), is not finite, or exceeds the
        double range.

    Examples
    --------
    >>> from flint import arb, fmpq
    >>> mid, rad = float_enclosure([arb(fmpq(1, 3)), arb(2)])
    >>> mid.tolist(), bool(rad[0] > 0), float(rad[1])
    ([0.3333333333333333, 2.0], True, 0.0)
    >>> abs(Fraction(mid[0]) - Fraction(1, 3)) <= Fraction(rad[0])
    True
    """
    if isinstance(values, flint.arb_mat):
        values = [[values[i, j] for j in range(values.ncols())] for i in range(values.nrows())]
    arr = np.asarray(values, dtype=object)
    flat = arr.reshape(-1)
    mids = np.empty(flat.shape, dtype=np.float64)
    rads = np.empty(flat.shape, dtype=np.float64)
    exact = np.zeros(flat.shape, dtype=bool)
    radzero = np.zeros(flat.shape, dtype=bool)
    for k, v in enumerate(flat):
        if not isinstance(v, flint.arb):
            if isinstance(v, (int, flint.fmpz, flint.fmpq)) and not isinstance(v, bool):
                v = flint.arb(v)
            else:
                raise InvalidArgument(
                    f"float_enclosure: entry {k} is {v!r} of type {type(v).__name__}; "
                    "pass flint.arb balls (build them from fmpq or strings)."
                )
        if not v.is_finite():
            raise InvalidArgument(f"float_enclosure: entry {k} is the non-finite ball {v}; cannot enclose it.")
        mid = v.mid()
        f = float(mid)
        mids[k] = f
        rads[k] = float(v.rad())
        exact[k] = mid == flint.arb(f)  # float(arb) is exact: no conversion error
        radzero[k] = v.is_exact()
    if not (np.all(np.isfinite(mids)) and np.all(np.isfinite(rads))):
        bad = int(np.flatnonzero(~(np.isfinite(mids) & np.isfinite(rads)))[0])
        raise InvalidArgument(
            f"float_enclosure: entry {bad} ({flat[bad]}) exceeds the double range; rescale the problem."
        )
    biggest = np.finfo(np.float64).max
    if np.any(np.abs(mids) >= biggest) or np.any(rads >= biggest):
        raise InvalidArgument("float_enclosure: an entry is at the edge of the double range")
    # faithful conversions: true radius <= succ(float(rad)); |mid - float(mid)| <= spacing
    conv_err = np.where(exact, 0.0, np.spacing(np.abs(mids)))
    rad_up = np.where(radzero, 0.0, _up(rads))  # float(rad) is faithful: succ bounds it
    rad_total = np.where(conv_err == 0.0, rad_up, _up(rad_up + conv_err))
    if not np.all(np.isfinite(rad_total)):
        raise InvalidArgument("float_enclosure: a radius exceeds the double range")
    return mids.reshape(arr.shape), np.asarray(rad_total, dtype=np.float64).reshape(arr.shape)


# ----------------------------------------------------------------------------------
# verified solve
# ----------------------------------------------------------------------------------


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
    if not _subnormals_work():
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

    bounds = _Bounds(n)
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
    delta = _frac_up(Fraction(float(np.max(Rr))) / (1 - beta))
    rad = _up(Rr + _up(g * delta))
    y_hi, y_lo = two_sum(x, d)  # x + d = y_hi + y_lo exactly
    lo = _down(y_hi + _down(y_lo - rad))
    hi = _up(y_hi + _up(y_lo + rad))
    if not (np.all(np.isfinite(lo)) and np.all(np.isfinite(hi))):
        return None
    arrays = [np.array(v, dtype=np.float64) for v in (lo, hi, y_hi)]
    for arr in arrays:
        arr.setflags(write=False)  # the certificate must not be edited in place
    return FloatEnclosure(
        lo=arrays[0],
        hi=arrays[1],
        beta=_frac_up(beta),
        x_approx=arrays[2],
        method=VERIFIED_METHOD,
    )


def _defect_row_bound(A: FloatArray, Arad: FloatArray, R: FloatArray, bounds: _Bounds) -> FloatArray | None:
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
    diag_up = _up(np.abs(1.0 - diag))  # F1: |1 - c_ii| <= succ(|fl(1 - c_ii)|)
    offd = np.abs(C, out=C)  # C itself is no longer needed
    np.fill_diagonal(offd, 0.0)
    off_up = bounds.nonneg_product_upper(offd, ones)  # exact row sums of |C| off-diagonal
    rowsA = bounds.nonneg_product_upper(np.abs(A), ones)  # >= |A_mid| 1
    RA1 = bounds.nonneg_product_upper(absR, rowsA)  # >= |R||A_mid| 1
    g = _up(diag_up + off_up)
    g = _up(g + _up(bounds.gamma * RA1))  # rounding errors of C, row sums
    g = _up(g + _frac_up(n * Fraction(bounds.tail)))  # underflow terms of C, row sums
    if np.any(Arad > 0):
        rowsRad = bounds.nonneg_product_upper(Arad, ones)
        g = _up(g + bounds.nonneg_product_upper(absR, rowsRad))  # >= |R| A_rad 1
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
    bounds: _Bounds,
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
        r_up = _up(np.abs(c2))  # F1 for the subtraction
        r_up = _up(r_up + c_err)
        Ad_abs = bounds.nonneg_product_upper(absA, np.abs(d))  # F2 for fl(A_mid d)
        r_up = _up(r_up + _up(bounds.gamma * Ad_abs))
        r_up = _up(r_up + bounds.tail)
        absy = _up(np.abs(x) + np.abs(d))  # >= |x + d|
    else:
        d = np.zeros(n)
        w = A @ x
        r_up = _up(np.abs(b - w))  # F1 for the subtraction b - w
        Ax_abs = bounds.nonneg_product_upper(absA, np.abs(x))  # F2 for fl(A_mid x)
        r_up = _up(r_up + _up(bounds.gamma * Ax_abs))
        r_up = _up(r_up + bounds.tail)
        absy = np.abs(x)
    r_up = _up(r_up + brad)  # |b - b_mid| <= b_rad
    if np.any(Arad > 0):
        r_up = _up(r_up + bounds.nonneg_product_upper(Arad, absy))  # |(A - A_mid) y|
    if not np.all(np.isfinite(r_up)):
        return None
    return d, r_up


def check_enclosure_arb(
    A: flint.arb_mat,
    b: flint.arb_mat,
    R: np.ndarray,
    enclosure: FloatEnclosure,
    prec: int = 53,
) -> bool:
    """Independent re-check of an enclosure with flint ball arithmetic (O(n^3) arb work).

    Recomputes, in arb at ``prec`` bits, ``E = I - R A`` (``R`` is taken as its exact
    binary value; ``A`` and ``b`` are the ball data, so every matrix/vector in them is
    covered) and ``beta = max_i sum_j |E_ij|``; requires ``beta < 1`` (so ``A`` is
    nonsingular). With the midpoint ``m = (lo + hi) / 2`` it computes ``z = R (b - A m)``
    (at ``max(2 prec, prec + 64)`` bits, the residual suffers cancellation),
    ``delta = max|z| / (1 - beta)`` and checks, componentwise and with certain ball
    comparisons, ``lo <= m - (|z| + |E| 1 delta)`` and ``m + (|z| + |E| 1 delta) <= hi``.
    This is the Krawczyk/Rump argument F3 (module docstring) evaluated with ball
    arithmetic only: no float rounding analysis is shared with :func:`verified_solve`.

    Parameters
    ----------
    A : flint.arb_mat (n, n)
    b : flint.arb_mat (n, 1) (a 1 x n row is accepted too)
    R : numpy.ndarray (n, n)
        The approximate inverse used (any float matrix).
    enclosure : FloatEnclosure
    prec : int
        Working precision in bits for the O(n^3) product ``R A``.

    Returns
    -------
    bool
        True only if the ball computation proves that ``[lo, hi]`` contains
        ``A^{-1} b`` for every ``A``, ``b`` in the balls. False means "not proved".

    Examples
    --------
    >>> from flint import arb_mat
    >>> A = np.array([[2.0, 1.0], [1.0, 3.0]])
    >>> enc = verified_solve(A, 0, [1.0, 2.0], 0)
    >>> check_enclosure_arb(arb_mat(A.tolist()), arb_mat([[1], [2]]), np.linalg.inv(A), enc)
    True
    >>> shrunk = FloatEnclosure(enc.lo + 1e-3, enc.hi, enc.beta, enc.x_approx, enc.method)
    >>> check_enclosure_arb(arb_mat(A.tolist()), arb_mat([[1], [2]]), np.linalg.inv(A), shrunk)
    False
    """
    n = A.nrows()
    if A.ncols() != n:
        raise InvalidArgument(f"A must be square; got {n} x {A.ncols()}")
    if (b.nrows(), b.ncols()) == (1, n) and n != 1:
        b = b.transpose()
    if (b.nrows(), b.ncols()) != (n, 1):
        raise InvalidArgument(f"b must be an ({n}, 1) arb_mat; got {b.nrows()} x {b.ncols()}")
    Rf = np.asarray(R, dtype=np.float64)
    lo = np.asarray(enclosure.lo, dtype=np.float64)
    hi = np.asarray(enclosure.hi, dtype=np.float64)
    if Rf.shape != (n, n) or lo.shape != (n,) or hi.shape != (n,):
        raise InvalidArgument(f"R must be ({n}, {n}) and lo, hi of length {n}; got {Rf.shape}, {lo.shape}, {hi.shape}")
    if not (np.all(np.isfinite(Rf)) and np.all(np.isfinite(lo)) and np.all(np.isfinite(hi))):
        return False
    if not bool(np.all(lo <= hi)):
        return False
    zero = flint.arb(0)
    one = flint.arb(1)
    with flint.ctx.workprec(prec):
        # arb(float) is exact (the binary value of the float), independent of precision
        Ra = flint.arb_mat(n, n, [flint.arb(float(v)) for v in Rf.ravel()])
        E = Ra * A
        entries = E.entries()
        row_abs: list[flint.arb] = []
        for i in range(n):
            total = zero
            for j in range(n):
                e = entries[i * n + j]
                total += (one - e).abs_upper() if i == j else e.abs_upper()
            row_abs.append(total)
        beta = row_abs[0]
        for v in row_abs[1:]:
            beta = beta.max(v)
        if not beta < 1:
            return False
    rprec = max(2 * prec, prec + 64)
    with flint.ctx.workprec(rprec):
        lo_a = [flint.arb(float(v)) for v in lo]
        hi_a = [flint.arb(float(v)) for v in hi]
        m = flint.arb_mat(n, 1, [(x + y) / 2 for x, y in zip(lo_a, hi_a, strict=True)])
        z = Ra * (b - A * m)
        z_abs = [z[i, 0].abs_upper() for i in range(n)]
        zmax = z_abs[0]
        for v in z_abs[1:]:
            zmax = zmax.max(v)
        delta = zmax / (one - beta)
        for i in range(n):
            bound = z_abs[i] + row_abs[i] * delta
            if not (m[i, 0] - bound >= lo_a[i] and m[i, 0] + bound <= hi_a[i]):
                return False
    return True
