"""Steps 3–6 of a structured or quotient threshold check: s* is the one root r of its minimal
polynomial in (0, b), no z_k = N_k/D changes sign on (0, r], the witness fails just after r,
and ε* = −q·ln r lies in the claimed enclosure (:mod:`exactdp.kernel.threshold_structured`,
:mod:`exactdp.kernel.threshold_quotient`).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import flint

from exactdp.arithmetic.interval import Enclosure
from exactdp.kernel.threshold_poly import (
    CHECK_PRECISIONS,
    int_poly,
    lowest_sign,
    min_poly_ok,
    roots_01,
    s_enclosure,
    scaled_poly,
    sign_at,
    sign_run_ok,
    strip,
)

__all__ = ["root_run_holds", "eps_sides_hold"]


def root_run_holds(eps: Enclosure, q: int, star: Any, nums: Sequence[flint.fmpz_poly],
                   den: flint.fmpz_poly, w: int, odd: bool = False) -> bool:
    """Steps 3–6 of :mod:`exactdp.kernel.threshold_structured` for z_k = nums[k]/den (the identity already checked),
    s* = (q, g, (a, b)) and the failing entry ``w``; ``odd=True`` asks only the odd part of
    each N_k/g^k to have no root in (0, b] (``proofs/equitable_quotient.py``), else all of it.
    """
    sq, gco, iv = star
    g = int_poly(gco)
    if den.degree() < 0 or sq != q or not min_poly_ok(g) or not isinstance(iv, Enclosure):
        return False
    a, b = iv.lo, iv.hi
    s0 = lowest_sign(g)
    if (not 0 <= a < b < 1 or sign_at(g, b) == 0 or roots_01(scaled_poly(g, b)) != 1
            or (a > 0 and sign_at(g, a) != s0) or nums[w].degree() < 0 or strip(nums[w], g)[0] % 2 == 0
            or not sign_run_ok(nums, den, b, g=g, odd=odd)):
        return False
    return any(eps_sides_hold(eps, q, g, s0, b, prec) for prec in CHECK_PRECISIONS)


def eps_sides_hold(eps: Enclosure, q: int, g: Any, s0: int, b: Fraction, prec: int) -> bool:
    """e^{-hi/q} < r < e^{-lo/q} ≤ b for the root r of g in (0, b), g of sign s0 at 0+
    (the ε enclosure's two sides, at ``prec`` bits)."""
    up = s_enclosure(eps.hi, q, prec)[1]       # ≥ e^{-hi/q}
    l1, l2 = s_enclosure(eps.lo, q, prec)      # ∋ e^{-lo/q}
    return 0 < up < b and 0 < l1 <= l2 <= b and sign_at(g, up) == s0 and sign_at(g, l1) == -s0
