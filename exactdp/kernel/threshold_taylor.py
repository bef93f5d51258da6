"""Helpers shared by the dense SPD checks and the grid checks: the Taylor candidates.

The float *candidates* of the SPD and grid threshold checks — Taylor vectors y_0..y_K on
the grid 2^-sy (:func:`taylor_candidates`, through a :class:`Products` of the metric: dense,
:class:`~exactdp.kernel.threshold_spd.DenseProducts`, or a grid,
:class:`~exactdp.kernel.grid_point.GridProducts`) — with the grid constants :data:`SY`,
:data:`ST` and the small validators :func:`all_rational`, :func:`is_index`, and
:func:`int_ends` (the exact integer ends of a ball). Candidates are never trusted: every
bound built on them is re-proved exactly by :mod:`exactdp.kernel.threshold_spd` or
:mod:`exactdp.kernel.grid_point`. This module imports no other kernel module.

Examples
--------
>>> all_rational(Fraction(1), Fraction(1, 3)), is_index(2, 2), int_ends(arb(5) / 2)
(True, False, (2, 3))
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any, Protocol

import numpy as np
from flint import arb, fmpz_mat

from exactdp.arithmetic.validate import is_index
from exactdp.errors import PrecisionLimitReached

__all__ = ["SY", "ST", "all_rational", "is_index", "int_ends", "rhs_shift", "Products",
           "taylor_candidates"]

SY = 80     # Taylor vectors on the grid 2^-80 (finer than a double: exact refinements)
ST = 110    # Taylor tables enclosed by integers at scale 2^-110


def all_rational(*xs: Any) -> bool:
    """Every argument is a Fraction."""
    return all(isinstance(x, Fraction) for x in xs)


def rhs_shift(rhs: tuple[Fraction, ...]) -> int:
    """e ≥ 0 with max|b|/2^e < 2: float candidates solve for b/2^e and are shifted back
    exactly (y is linear in b), so a huge b (10^400) does not overflow a double.

    >>> rhs_shift((Fraction(1), Fraction(10**400))), rhs_shift((Fraction(1, 3),))
    (1328, 0)
    """
    return max(0, max((abs(x.numerator).bit_length() - x.denominator.bit_length() for x in rhs),
                      default=0))


class Products(Protocol):
    """Exact products with integer distance tables: ``n`` points, ``values`` (the distinct
    distances, the rows of a table), ``sums`` and float ``candidates`` (dense:
    :class:`~exactdp.kernel.threshold_spd.DenseProducts`; grids:
    :class:`~exactdp.kernel.threshold_grid.GridProducts`)."""

    n: int

    @property
    def values(self) -> list[Any]:
        """The distinct distances (the rows of a table)."""

    def sums(self, table: fmpz_mat, ys: list[list[int]], tau: int = 0) -> tuple[np.ndarray, list[int]]:
        """(S, err): S_m = Σ_{j+k=m} T'_j·ys[k] exactly ((2K+1) × n object array), T'_j the column
        j of ``table`` on the distances with entries |·| ≤ ``tau`` possibly left out (0), so
        |(T_j − T'_j)·y| ≤ err[j]·‖y‖₁ entrywise."""

    def candidates(self, rhs: tuple[Fraction, ...], mids: fmpz_mat, K: int, sy: int = SY
                   ) -> list[list[int]] | None:
        """Taylor vectors y_0..y_K on the grid 2^-sy (float solves: candidates only)."""


def int_ends(x: arb) -> tuple[int, int]:
    """⌊lower end⌋ and ⌈upper end⌉ of the ball x (exact integers; PrecisionLimitReached if
    they are not resolved)."""
    lo, hi = x.lower().floor().unique_fmpz(), x.upper().ceil().unique_fmpz()
    if lo is None or hi is None:
        raise PrecisionLimitReached(f"the table entry {x} has no exact integer ends at this "
                                    "precision (ε·d too large).")
    return int(lo), int(hi)


def taylor_candidates(op: Products, rhs: tuple[Fraction, ...], mids: fmpz_mat, K: int, sy: int,
                      setup: Callable[[np.ndarray], tuple[Callable[..., Any], Callable[..., Any]]]
                      ) -> list[list[int]] | None:
    """Taylor vectors y_0..y_K as integers on the grid 2^-sy — float solves, candidates only;
    None when a solve is not finite. ``setup(tab)`` gets the k × (K+1) float table of
    ``mids`` and returns (solve Φ_0 x = v, (j, v) ↦ Φ_j v). They solve for b/2^e and are
    shifted back exactly (:func:`rhs_shift`; y is linear in b). y_0 is the solve corrected
    1 + (sy − SY)//26 times by solves of its residual, each computed exactly with the
    integer table (column 0 of ``mids``)."""
    e = rhs_shift(rhs)
    rhs = tuple(x / (1 << e) for x in rhs)
    solve, apply = setup(np.array([int(x) / (1 << ST) for x in mids.entries()]).reshape(-1, K + 1))
    col, sh = fmpz_mat(mids.nrows(), 1, [mids[d, 0] for d in range(mids.nrows())]), ST + sy
    yi, r = [0] * op.n, np.array([x.numerator / x.denominator for x in rhs])
    for step in range(2 + (sy - SY) // 26):
        if step:
            prod = op.sums(col, [yi])[0][0]
            r = np.array([((x.numerator << sh) - x.denominator * p) / (x.denominator << sh)
                          for x, p in zip(rhs, prod)])
        corr = solve(r)
        if not np.all(np.isfinite(corr)):
            return None
        yi = [u + int(w) for u, w in zip(yi, np.rint(np.ldexp(corr, sy)))]
    ys = [np.ldexp(np.array(yi, dtype=np.float64), -sy)]
    for k in range(1, K + 1):
        ys.append(-solve(sum((apply(j, ys[k - j]) for j in range(1, k + 1)), np.zeros(op.n))))
    if not all(np.all(np.isfinite(y)) for y in ys):
        return None
    return [[v << e for v in yi]] + [[int(v) << e for v in np.rint(np.ldexp(y, sy))] for y in ys[1:]]
