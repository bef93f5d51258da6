"""Float64 enclosures: the certified box type of the verified solves, and the rigorous
conversion of ball data (flint ``arb``) to float midpoints and radii."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import flint
import numpy as np

from exactdp.arithmetic.rationals import fmpq_to_fraction
from exactdp.arithmetic.rounding import MAX_FLOAT, succ, ulp
from exactdp.errors import InvalidArgument
from exactdp.kinds import proved_by

__all__ = ["FloatEnclosure", "float_enclosure"]


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
            q = fmpq_to_fraction(v) if isinstance(v, flint.fmpq) else Fraction(v)
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


@proved_by("linalg_verified_bounds")
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
    if np.any(np.abs(mids) >= MAX_FLOAT) or np.any(rads >= MAX_FLOAT):
        raise InvalidArgument("float_enclosure: an entry is at the edge of the double range")
    # faithful conversions: true radius <= succ(float(rad)); |mid - float(mid)| <= spacing
    conv_err = np.where(exact, 0.0, ulp(mids))
    rad_up = np.where(radzero, 0.0, succ(rads))  # float(rad) is faithful: succ bounds it
    rad_total = np.where(conv_err == 0.0, rad_up, succ(rad_up + conv_err))
    if not np.all(np.isfinite(rad_total)):
        raise InvalidArgument("float_enclosure: a radius exceeds the double range")
    return mids.reshape(arr.shape), np.asarray(rad_total, dtype=np.float64).reshape(arr.shape)
