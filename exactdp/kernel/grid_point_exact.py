"""The kernel's check of an EXACT one-ε grid certificate (kind ``grid-point-exact``).

Question: as for ``grid-point`` (:mod:`exactdp.kernel.grid_point`, same ``question`` and
``claim``): on a grid whose distances are integer multiples k·h of the spacing h (Manhattan,
or one row or column), at a level where T = e^{−ε·h} is rational, does Φx = b have a
solution x ≥ 0? There Φ = [T^k] is a rational matrix and z = Φ⁻¹b is rational — and an
entry z_i = 0 (e.g. the inner corner of a masked Manhattan L at T = 1/2) can never be
separated from 0 by enclosures; it is decided here exactly.

Evidence: z = X/D, integers X_i over one common denominator D ≥ 1 (gcd(D, X) = 1).
The check, in integers only (``proofs/grid_point_exact.py``):

1. with T = p/q, k_c the integer length of offset code c and K = W + H − 2 ≥ every k_c,
   the table A_c = p^{k_c}·q^{K−k_c} = q^K·T^{k_c}; ONE exact product S = A·X (the
   zero-padded 2-D convolution by :meth:`~exactdp.kernel.grid_point.GridProducts.sums`,
   with nothing cropped), read back on the kept cells;
2. Φz = b ⇔ den_i·S_i = D·q^K·num_i for every kept cell i (b_i = num_i/den_i);
3. **holds**: every X_i ≥ 0 (z itself is a solution x ≥ 0); **fails**: X_w < 0 at the stated
   witness w — Φ is positive definite for 0 < T < 1 on every subset of the lattice
   (λ_min ≥ ((1 − T)/(1 + T))², ``proofs/grid_point_bounds.py``, Lemma 2), so z is the only
   solution and no x ≥ 0 exists.

No floating point, no λ. The work is bounded before any set-up (:func:`require_exact_work`:
the product's size, from W, H, the bits of T and of X; InstanceTooLarge, "undecided").

Examples
--------
>>> from exactdp.spaces.metrics.masked import GridShape
>>> from exactdp.spaces.levels import parse_level
>>> sh = GridShape(2, 1, "manhattan", Fraction(1))
>>> lvl = parse_level(t="1/2")                       # Φ = [[1, 1/2], [1/2, 1]], z = (2/3, 2/3)
>>> one = (Fraction(1), Fraction(1))
>>> check_grid_point_exact(GridPointExactClaim(sh, lvl, one, True, None, (2, 2), 3))
True
>>> check_grid_point_exact(GridPointExactClaim(sh, lvl, one, True, None, (2, 3), 3))
False
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from flint import fmpz_mat

from exactdp.errors import REJECTED_ERRORS, InstanceTooLarge, InvalidArgument
from exactdp.kernel.grid_point import (
    MAX_GRID_POINTS,
    GridHeader,
    GridProducts,
    read_grid_header,
    shape_ok,
    verdict_ok,
)
from exactdp.kernel.jsonio import read_list, read_object, read_rational
from exactdp.kinds import CertificateKind, proved_by
from exactdp.spaces.levels import PrivacyLevel
from exactdp.spaces.metrics.masked import MASK_NORMS, GridShape

__all__ = ["GRID_POINT_EXACT", "GridPointExactClaim", "check_grid_point_exact", "exact_unit_t",
           "lattice_distances", "read_grid_point_exact", "require_exact_work", "MAX_EXACT_BYTES"]

GRID_POINT_EXACT = CertificateKind.GRID_POINT_EXACT.value
#: Most bytes of the exact product's integers (slots × digit bytes): e.g. a 400×400
#: Manhattan grid at T = 1/2 needs ≈ 0.14·10⁹. Measured peak memory above the ≈ 0.1 GB
#: baseline: ≈ 5× that size in this check (40×40 at T = 10^-400, size 0.16·10⁹: 0.92 GB
#: RSS, 37 s), ≈ 8× in the writer (20×20 there, size 0.02·10⁹: +0.16 GB): ≈ 1.4–2 GB and
#: minutes of CPU at the limit.
MAX_EXACT_BYTES = 1 << 28


@dataclass(frozen=True)
class GridPointExactClaim(GridHeader):
    """A :class:`~exactdp.kernel.grid_point.GridHeader` with the exact solution
    z = numerators/denominator (module docstring)."""

    numerators: tuple[int, ...]
    denominator: int


def lattice_distances(shape: GridShape) -> bool:
    """True when every distance is (|dx| + |dy|)·h: Manhattan grids, or one row or column
    (any norm). The one rule of the exact route (this kernel, the writer, ``exact_grid_z``).

    >>> lattice_distances(GridShape(3, 3, "chebyshev", Fraction(1)))
    False
    >>> lattice_distances(GridShape(4, 1, "chebyshev", Fraction(1)))
    True
    """
    return shape.norm == "manhattan" or min(shape.width, shape.height) == 1


def exact_unit_t(shape: GridShape, level: PrivacyLevel) -> tuple[Fraction, int] | None:
    """(u, a) with T = e^{−ε·h} = u^a (h = a/c the spacing, u = e^{−ε/c}), for a grid with
    :func:`lattice_distances`; None for other grids, and when u = e^{−ε/c} is not known
    to be rational (the level must come from a rational t = e^{−ε}, or ε = ln(1/t) exactly:
    T = 1/2 with h = 2, ε = ln(2)/2 gives None — state it as spacing 1, t = 1/2).

    >>> from exactdp.spaces.levels import parse_level
    >>> exact_unit_t(GridShape(3, 3, "manhattan", Fraction(2)), parse_level(t="1/3"))
    (Fraction(1, 3), 2)
    >>> exact_unit_t(GridShape(3, 3, "euclidean", Fraction(1)), parse_level(t="1/3")) is None
    True
    """
    if not lattice_distances(shape):
        return None
    u = level.s_rational(shape.spacing.denominator)
    return None if u is None else (u, shape.spacing.numerator)


def _short(x: int | Fraction) -> str:
    """``str(x)``, with integers over 190 bits shown by their size (messages stay short)."""
    if isinstance(x, Fraction) and x.denominator != 1:
        return f"{_short(x.numerator)}/{_short(x.denominator)}"
    v = int(x)
    sign = "-" if v < 0 else ""
    return str(v) if v.bit_length() <= 190 else f"{sign}⟨{v.bit_length()}-bit integer⟩"


def require_exact_work(shape: GridShape, unit: tuple[Fraction, int], xbits: int) -> None:
    """Refuse (:class:`~exactdp.errors.InstanceTooLarge`) a check whose exact product would
    exceed :data:`MAX_EXACT_BYTES` — tested before any set-up, and by the writer."""
    W, H = shape.width, shape.height
    u, a = unit
    tbits = a * max(u.numerator.bit_length(), u.denominator.bit_length())
    digits = ((W + H - 2) * tbits + xbits + shape.n.bit_length() + 16) // 8
    size = 2 * ((2 * H - 1) * (2 * W - 1) + 2 * W) * digits
    if shape.n > MAX_GRID_POINTS or size > MAX_EXACT_BYTES:
        raise InstanceTooLarge(
            f"the exact check of a {W}×{H} grid at T = ({_short(u)})^{_short(a)} with "
            f"{_short(xbits)}-bit numerators needs ≈ {_short(size)} bytes per integer (limit "
            f"{MAX_EXACT_BYTES}); decide it with the enclosure route (kind grid-point) or on a "
            "smaller grid.")


@proved_by("grid_point_exact")
def check_grid_point_exact(c: Any) -> bool:
    """Re-check a ``grid-point-exact`` claim (module docstring; ``proofs/grid_point_exact.py``);
    False, never an exception, on tampered or malformed data; InstanceTooLarge (undecided)
    beyond the work limit."""
    try:
        if (not isinstance(c, GridPointExactClaim) or not shape_ok(c.shape, c.rhs, MASK_NORMS)
                or len(c.numerators) != c.shape.n or not all(type(x) is int for x in c.numerators)
                or type(c.denominator) is not int or c.denominator < 1):  # ints only: never rounded
            return False
        unit = exact_unit_t(c.shape, c.level)
        X = list(c.numerators)
        if unit is None:
            return False
        require_exact_work(c.shape, unit, max(abs(x) for x in X).bit_length())
        T = unit[0] ** unit[1]
        op = GridProducts(c.shape)
        ks = [v.coef / c.shape.spacing for v in op.values]
        if not 0 < T < 1 or any(v.radicand != 1 or k.denominator != 1 for v, k in
                                zip(op.values, ks)):
            return False
        K, p, q = c.shape.width + c.shape.height - 2, T.numerator, T.denominator
        table = fmpz_mat(len(ks), 1, [p ** int(k) * q ** (K - int(k)) for k in ks])
        S, err = op.sums(table, [X])
        qK = q ** K
        return not any(err) and all(b.denominator * int(s) == c.denominator * qK * b.numerator
                                    for b, s in zip(c.rhs, S[0])) and verdict_ok(c, X, Fraction(0))
    except InstanceTooLarge:
        raise
    except REJECTED_ERRORS:
        return False


def read_grid_point_exact(doc: Any) -> GridPointExactClaim:
    """Read a ``grid-point-exact`` document (strict; InvalidArgument if malformed, e.g. a
    Euclidean grid or an irrational T, where this kind does not apply; InstanceTooLarge over
    the work limit). The claim is only as good as :func:`check_grid_point_exact`."""
    env, shape, rhs, level, holds, wit = read_grid_header(doc, GRID_POINT_EXACT)
    unit = exact_unit_t(shape, level)
    if unit is None:
        raise InvalidArgument(f"question: {GRID_POINT_EXACT!r} needs rational distances "
                              "(Manhattan, or one row or column) and a rational e^(-ε·spacing); "
                              "certify this question with kind 'grid-point'.")
    ev = read_object(env.evidence, "evidence", ("denominator", "numerators"))
    den = int(read_rational(ev["denominator"], "evidence.denominator", integer=True))
    nums = tuple(int(read_rational(x, f"evidence.numerators[{k}]", integer=True)) for k, x in
                 enumerate(read_list(ev["numerators"], "evidence.numerators", length=shape.n)))
    if den < 1 or math.gcd(den, *nums) != 1:
        raise InvalidArgument(f"evidence.denominator: got {den}; write z = numerators/"
                              "denominator with a denominator ≥ 1 in lowest terms.")
    require_exact_work(shape, unit, max(abs(x) for x in nums).bit_length())
    return GridPointExactClaim(shape, level, rhs, holds, wit, nums, den)
