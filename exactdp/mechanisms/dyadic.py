"""Exact comparisons of ratios of binary floats, vectorised: the tie-breaker of float-backed routes.

A float-backed exact mechanism (:attr:`~exactdp.spaces.mechanism.Mechanism.binary_floats`)
*is* a matrix of dyadic rationals. Two privacy ratios x/y and X/Y of its entries compare as
the products x·Y and X·y, and those are compared exactly with float operations only
(proofs/mech_dyadic_ratio.py): each float is split by ``frexp`` into a fraction f ∈ [1/2, 1)
and an integer exponent (exact, subnormals included); the product of two fractions is
p + e exactly by Dekker's TwoProduct (:func:`exactdp.linalg._accurate.two_product`: the
fractions are far from underflow and overflow), with p = fl(f·f') ∈ [1/4, 1]. Products whose
exponents differ by 2 or more are ordered by the exponents alone; otherwise one side is doubled
(exact) and, because rounding to nearest is monotone, p₁ > p₂ implies the exact products are
in the same order, and p₁ = p₂ leaves the exact comparison of e₁ and e₂.

This replaces the Python-integer (``fmpz``) cross-multiplications of many candidates — the
cost of exact ties, where a float filter cannot discard anything — by a few numpy passes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from exactdp.errors import CertificateInvalid, InvalidArgument
from exactdp.kinds import proved_by
from exactdp.linalg._accurate import two_product, veltkamp_split

__all__ = ["DyadicRatios"]


@dataclass(frozen=True)
class DyadicRatios:
    """Ratios x[k]/y[k] of float64 vectors (x ≥ 0, y > 0 finite), split once so that each is
    compared exactly with any other ratio X/Y of floats in a few numpy passes
    (proofs/mech_dyadic_ratio.py).

    >>> r = DyadicRatios.of(np.array([0.1, 0.3, 5e-324]), np.array([0.3, 0.9, 1.0]))
    >>> r.compare(1.0, 3.0).tolist()          # sign(x/y − 1/3), exactly
    [1, -1, -1]
    >>> from fractions import Fraction as Q   # the same answers, in exact rationals
    >>> [(Q(a) / Q(b) > Q(1, 3)) - (Q(a) / Q(b) < Q(1, 3)) for a, b in [(0.1, 0.3), (0.3, 0.9)]]
    [1, -1]
    """

    x: np.ndarray
    y: np.ndarray
    fx: np.ndarray
    fx_hi: np.ndarray
    fx_lo: np.ndarray
    ex: np.ndarray
    fy: np.ndarray
    fy_hi: np.ndarray
    fy_lo: np.ndarray
    ey: np.ndarray

    @classmethod
    def of(cls, x: ArrayLike, y: ArrayLike) -> DyadicRatios:
        """Split every x[k] and y[k] into a fraction in [1/2, 1) and an exponent (exact)."""
        xa = np.ascontiguousarray(x, dtype=np.float64).ravel()
        ya = np.ascontiguousarray(y, dtype=np.float64).ravel()
        if xa.shape != ya.shape:
            raise InvalidArgument(f"Got {xa.size} numerators and {ya.size} denominators; "
                                  "pass one denominator per numerator.")
        if not (np.isfinite(xa).all() and np.isfinite(ya).all() and (xa >= 0).all()
                and (ya > 0).all()):
            raise InvalidArgument("DyadicRatios needs finite numerators ≥ 0 and denominators "
                                  "> 0.")
        fx, ex = np.frexp(xa)
        fy, ey = np.frexp(ya)
        fx_hi, fx_lo = veltkamp_split(fx)
        fy_hi, fy_lo = veltkamp_split(fy)
        return cls(xa, ya, fx, fx_hi, fx_lo, ex.astype(np.int64), fy, fy_hi, fy_lo,
                   ey.astype(np.int64))

    def compare(self, X: float, Y: float) -> np.ndarray:
        """sign(x[k]/y[k] − X/Y) for every k, exactly (``int8``); X ≥ 0, Y > 0 finite floats."""
        X, Y = float(X), float(Y)
        if not (np.isfinite(X) and np.isfinite(Y) and X >= 0 and Y > 0):
            raise InvalidArgument(f"Got X={X!r}, Y={Y!r}; compare with X ≥ 0 and Y > 0 finite.")
        fX, eX = np.frexp(X)
        fY, eY = np.frexp(Y)
        # x·Y = (fx·fY)·2^(ex+eY) and X·y = (fX·fy)·2^(eX+ey); each fraction product p + e
        # is exact (TwoProduct) and lies in [1/4, 1)
        p1, e1 = two_product(self.fx, self.fx_hi, self.fx_lo, np.asarray(fY, dtype=np.float64))
        p2, e2 = two_product(self.fy, self.fy_hi, self.fy_lo, np.asarray(fX, dtype=np.float64))
        gap = (self.ex + int(eY)) - (self.ey + int(eX))
        up1, up2 = gap == 1, gap == -1  # doubling is exact here (no overflow)
        p1, e1 = np.where(up1, 2 * p1, p1), np.where(up1, 2 * e1, e1)
        p2, e2 = np.where(up2, 2 * p2, p2), np.where(up2, 2 * e2, e2)
        out = np.where(p1 > p2, 1, np.where(p1 < p2, -1,
                                            np.where(e1 > e2, 1, np.where(e1 < e2, -1, 0))))
        out = np.where(gap >= 2, 1, np.where(gap <= -2, -1, out))
        zx = self.x == 0  # a zero numerator: the ratio is 0
        out = np.where(zx, 0 if X == 0 else -1, 1 if X == 0 else out)
        return np.asarray(out, dtype=np.int8)

    @classmethod
    def distinct(cls, x: np.ndarray, y: np.ndarray) -> tuple[DyadicRatios, np.ndarray]:
        """The distinct (x[k], y[k]) pairs (as :meth:`of`) and, for each, one index k where
        it occurs. Equal pairs have equal ratios, so an exact maximum over the distinct pairs
        is one over all of them (proofs/mech_dyadic_ratio.py, D7): exact ties of a mechanism
        whose rows repeat the same values (a cycle, a torus) cost one sort.

        >>> r, where = DyadicRatios.distinct(np.array([0.5, 0.5, 0.25]), np.array([1.0, 1.0, 1.0]))
        >>> r.x.tolist(), sorted(where.tolist()) in ([0, 2], [1, 2])
        ([0.25, 0.5], True)
        """
        xa = np.asarray(x, dtype=np.float64)
        ya = np.asarray(y, dtype=np.float64)
        order = np.lexsort((ya, xa))  # sorted by x, then y (exact float comparisons)
        xs, ys = xa[order], ya[order]
        new = np.ones(len(order), dtype=bool)
        new[1:] = (xs[1:] != xs[:-1]) | (ys[1:] != ys[:-1])
        first = order[new]
        return cls.of(xa[first], ya[first]), first

    @proved_by("mech_dyadic_ratio")
    def argmax(self, guide: np.ndarray) -> int:
        """The index of an exactly largest ratio x[k]/y[k].

        ``guide`` (e.g. the float ratios) orders the search: start at its maximum, and while
        some ratio is exactly larger than the current one move to the largest ``guide`` among
        those. Each step strictly increases the exact ratio, so it ends, at an exact maximum
        (proofs/mech_dyadic_ratio.py). Ties are settled in one vectorised pass.

        >>> r = DyadicRatios.of(np.array([1.0, 2.0, 0.1]), np.array([3.0, 6.0, 0.3]))
        >>> r.argmax(np.zeros(3))   # 0.1/0.3 > 1/3 exactly; the guide cannot tell
        2
        """
        if len(self.x) == 0:
            raise InvalidArgument("argmax needs at least one candidate ratio.")
        g = np.where(np.isnan(guide), -np.inf, guide)
        k = int(np.argmax(g))
        for _ in range(len(self.x)):  # each step strictly raises the exact ratio
            above = np.nonzero(self.compare(self.x[k], self.y[k]) > 0)[0]
            if len(above) == 0:
                return k
            k = int(above[int(np.argmax(g[above]))])
        raise CertificateInvalid("DyadicRatios.argmax did not settle: the exact comparison "
                                 "is inconsistent (a bug; please report it).")
