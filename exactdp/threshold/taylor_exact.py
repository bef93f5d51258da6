"""The exact side of the Taylor pieces: integer tables at 2^-100 and exact residual bounds.

Providers with fast exact products (grids: the layout of :mod:`exactdp.linalg.grid_exact_conv`
on the byte-packed digits of :mod:`exactdp.arithmetic.packed`) bound every
residual of a Taylor piece (:mod:`exactdp.threshold.taylor`) *exactly*: Φ_j = (−d)^j e^{−cd}/j!
enclosed by integers at scale 2^-100 (outward-rounded arb, far entries below 2^-100 by one
constant: :func:`exact_taylor_tables`), vectors on integer grids (:func:`on_column_grids`),
exact products, one rounded division per entry (``proofs/grid_exact_convolution.py``,
``proofs/grid_taylor_blocks.py``). :class:`ExactResidual` is the one home of the exact
residual b − Φ(c)y_0 of a y_0 kept as integers (the fail point's per-entry bound and the
precision escalation both use it, ``proofs/grid_exact_products.py``).

The integer tables depend on the piece only through e^{−cd}; the ε-independent parts
(d², d, (−d)^j/j!) and the tables of the last few (c, a, K) are kept per list of values
(:mod:`exactdp.threshold.value_powers`).

Examples
--------
>>> from exactdp.spaces.metrics import line
>>> ex = exact_taylor_tables(list(line(4).values), Fraction(1), Fraction(1), 0)
>>> ex.lo[0][0] == ex.hi[0][0] == 2**100          # e^0 = 1 exactly at scale 2^100
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from flint import arb

from exactdp.arithmetic.ball import ball_key, workprec
from exactdp.arithmetic.rationals import to_fmpq
from exactdp.arithmetic.rounding import float_up, succ
from exactdp.errors import InvalidArgument, PrecisionLimitReached
from exactdp.kinds import proved_by
from exactdp.threshold.providers import PhiProvider
from exactdp.threshold.value_powers import ValuePowers, value_powers

__all__ = ["ExactTables", "exact_taylor_tables", "exact_rho_bounds", "exact_residual_bound",
           "exact_residual", "ExactResidual", "refined_y0", "on_residual_grid", "on_column_grids",
           "column_scale", "far_square", "quotients_up", "MAX_Y0_BITS", "TABLE_BITS", "Y0_BITS"]

TABLE_BITS = _S_TAB = 100  # exact residual: table entries enclosed by integers at scale 2^100
Y0_BITS = _S_Y = 64   # ... and y_0 on the grid 2^-64
#: deepest grid 2^-s of a refined y_0 (exact integers, finer than a double; fast exact products
#: only): two 52-bit steps after 2^-64; below that the 2^-100 table enclosures dominate
MAX_Y0_BITS = _S_Y + 2 * 52


@dataclass(frozen=True)
class ExactTables:
    """Integer tables at scale 2^-100 of the Taylor coefficients (outward-rounded arb)."""

    lo: list[list[int]]   # (K+1) × k
    hi: list[list[int]]
    rem: list[int]        # ≥ d^{K+1} e^{−ad}/(K+1)! · 2^100
    #: max_i (hi[j][i] − lo[j][i]) per j (computed on demand when empty)
    rmax: tuple[int, ...] = ()

    def widths(self) -> list[int]:
        """max_i (hi[j][i] − lo[j][i]) for every j."""
        if self.rmax:
            return list(self.rmax)
        return [max((h - lo for lo, h in zip(self.lo[j], self.hi[j])), default=0) for j in range(len(self.lo))]


def _scaled_bounds(x: Any, T: int) -> tuple[int, int]:
    """(⌊lo·2^T⌋, ⌈hi·2^T⌉) for the ball x = [mid ± rad], from its exact mantissas and
    exponents (:func:`exactdp.arithmetic.ball.ball_key`; the same integers as
    ``arb_to_fraction_interval`` then floor/ceil, without Fractions)."""
    mm, me, rm, re = ball_key(x)
    e0 = min(me, re)
    A, R = mm << (me - e0), rm << (re - e0)
    e = e0 + T
    if e >= 0:
        return (A - R) << e, (A + R) << e
    return (A - R) >> -e, -((-(A + R)) >> -e)


def exact_taylor_tables(values: list[Any], c: Fraction, a: Fraction, K: int) -> ExactTables:
    """Integer enclosures of Φ_0..Φ_K at ``c`` and of the remainder entries from ``a``.

    >>> from exactdp.spaces.metrics import line
    >>> ex = exact_taylor_tables(list(line(3).values), Fraction(1), Fraction(1), 1)
    >>> [ex.hi[0][0] - ex.lo[0][0], ex.lo[0][0] == 2**100]      # e^0 = 1 exactly
    [0, True]
    >>> -0.3679 * 2**100 < ex.lo[1][1] < ex.hi[1][1] < -0.3678 * 2**100   # −d e^{−d} at d = 1
    True

    The result is kept with the values' :class:`~exactdp.threshold.value_powers.ValuePowers`
    (the last few (c, a, K)): treat it as read-only.
    """
    far = far_square(min(a, c), K + 1)
    with workprec(_S_TAB + 64):
        vp = value_powers(values, K + 1)  # d², d, (−d)^j/j!: the same for every piece
        return vp.tables(("exact", c, a, K), lambda: _build_tables(vp, c, a, K, far))  # type: ignore[no-any-return]


def _build_tables(vp: ValuePowers, c: Fraction, a: Fraction, K: int, far: Fraction | None) -> ExactTables:
    """:func:`exact_taylor_tables` on a miss: far values (d² ≥ far) are below 2^-100 in every
    table (``proofs/grid_taylor_blocks.py``): [0, 1] for even j, [−1, 0] for odd j, rem 1;
    the near ones (:meth:`ValuePowers.near`) from arb balls."""
    k = len(vp.squares)
    lo = [[0 if j % 2 == 0 else -1] * k for j in range(K + 1)]
    hi = [[1 if j % 2 == 0 else 0] * k for j in range(K + 1)]
    rem = [1] * k
    ca, aa = arb(to_fmpq(c)), arb(to_fmpq(a))
    for i in vp.near(far):
        d, pw = vp.row(i)
        e = (-ca * d).exp()
        for j in range(K + 1):
            lo[j][i], hi[j][i] = _scaled_bounds(pw[j] * e, _S_TAB)
        rem[i] = _scaled_bounds(abs(pw[K + 1]) * (-aa * d).exp(), _S_TAB)[1]
    return ExactTables(lo, hi, rem, tuple(ExactTables(lo, hi, rem).widths()))


@proved_by("grid_taylor_blocks")
def far_square(a: Fraction, J: int) -> Fraction | None:
    """A rational q with d^j·e^{−a d}/j! < 2^-100 for every j ≤ J and every d with d² ≥ q
    (proved in ``arb`` at d0 = √q ≥ J/a, where each d^j e^{−ad} decreases;
    ``proofs/grid_taylor_blocks.py``), or None.

    >>> q = far_square(Fraction(2, 3), 4)
    >>> 100 < q ** 0.5 < 200
    True
    """
    if a <= 0 or J >= a * 10**7:  # J/a ≥ 10^7: no cut below the search limit anyway
        return None
    # the float search only proposes d0 (the arb check below decides); a is capped so that
    # a huge or tiny rational never overflows or divides by zero, and d0 ≥ J/a exactly
    af = float(min(a, Fraction(10**6)))
    d0 = max(math.ceil(Fraction(J) / a), 1)
    limit = -(_S_TAB + 2) * math.log(2)  # in logs: no overflow for any order J
    while d0 < 10**7 and max(j * math.log(d0) - af * d0 - math.lgamma(j + 1)
                             for j in range(J + 1)) >= limit:
        d0 = math.ceil(d0 * 1.05) + 1
    if d0 >= 10**7:
        return None
    with workprec(_S_TAB + 64):
        e = (-arb(to_fmpq(a)) * d0).exp()
        if not all(arb(d0) ** j * e / math.factorial(j) * arb(2) ** _S_TAB < 1 for j in range(J + 1)):
            return None
    return Fraction(d0 * d0)


def column_scale(col: np.ndarray) -> int:
    """s with the column's entries on the grid 2^-s: max|y|·2^s < 2^64, at least 2^-64 fine
    (so a y_0 already on :func:`on_residual_grid` stays put), at most 2^-1074."""
    top = float(np.max(np.abs(col))) if len(col) else 0.0
    e = int(np.frexp(top)[1]) if top > 0 else 0
    return min(1074, max(_S_Y, 64 - e))


def on_column_grids(Y: np.ndarray) -> np.ndarray:
    """Each Taylor vector (column) rounded to its grid 2^-s (:func:`column_scale`): the
    vectors whose products the exact route computes (exact in float; idempotent).

    >>> Y = np.array([[1.0, 2.0**-80], [1 / 3, 3.0]])
    >>> Z = on_column_grids(Y)
    >>> bool(Z[0, 0] == 1.0 and Z[0, 1] == 0.0 and abs(Z[1, 0] - 1 / 3) < 2.0**-63)
    True
    >>> bool(np.all(on_column_grids(Z) == Z))
    True
    """
    Y = np.array(Y, dtype=np.float64)
    for k in range(Y.shape[1]):
        s = column_scale(Y[:, k])
        Y[:, k] = np.ldexp(np.rint(np.ldexp(Y[:, k], s)), -s)
    return Y


def exact_rho_bounds(prov: PhiProvider, ex: ExactTables, b: np.ndarray, b_rad: float, K: int,
                      Y: np.ndarray, Ysum: np.ndarray,
                      y0x: tuple[list[int], int, np.ndarray] | None = None
                      ) -> tuple[list[np.ndarray], np.ndarray]:
    """bounds[m] ≥ |ρ_m| (m ≤ 2K) and PY ≥ P·Ysum from exact integer products.

    With Φ_j ∈ [A_j, A_j + R_j]·2^-T entrywise (T = 100), y_k = Y_k·2^-s_k (integers, the
    columns on their grids) and b exact as a float up to ``b_rad``:
    ρ_m = [m=0]b − Σ_{j+k=m} (A_jY_k + Δ_jY_k)·2^{−T−s_k} with 0 ≤ Δ_j ≤ R_j, so
    |ρ_m| ≤ |[m=0]b − Σ A_jY_k 2^{−T−s_k}| + Σ max R_j·‖Y_k‖₁·2^{−T−s_k} (+ b_rad) for
    every m ≤ 2K, all the Cauchy sums Σ A_jY_k exact from one blocked product
    (``prov.exact_block_products``, ``proofs/grid_taylor_blocks.py`` Lemmas 4–5).
    The remainder: Ysum rounded *up* to its grid, P ≤ rem·2^-T, PY ≤ rem·⌈Ysum⌉ exactly.
    The m = 0 quotients are correctly rounded int/int divisions, then one ``succ``
    (``proofs/grid_exact_convolution.py``); the others, and PY, are upper bounds of
    integers over powers of two from their floats (:func:`quotients_up`, no big-int
    division; ``proofs/exact_bounds_float_up.py``). ``y0x = (Y0, s, _)``: y_0 = Y0·2^-s exactly
    replaces column 0 (a refined y_0 finer than one double; the same lemmas, s_0 = s).
    """
    n = prov.n
    if not (np.all(np.isfinite(Y)) and np.all(np.isfinite(Ysum))):  # no bound: the piece fails
        return [np.full(n, math.inf)] * (2 * K + 1), np.full(n, math.inf)
    if not np.all(on_column_grids(Y)[:, (y0x is not None):] == Y[:, (y0x is not None):]):
        raise InvalidArgument("the exact piece bound needs the Taylor vectors on their grids "
                              "(round them with on_column_grids first)")
    T = _S_TAB
    scales = [column_scale(Y[:, k]) for k in range(K + 1)]
    yint = [list(map(int, np.ldexp(Y[:, k], scales[k]).tolist())) for k in range(K + 1)]
    if y0x is not None:
        yint[0], scales[0] = list(y0x[0]), y0x[1]
    l1 = [sum(map(abs, col)) for col in yint]
    smax = max(scales)
    # b = num/2^eb exactly (floats are dyadic); common denominator 2^E
    ratios: dict[float, tuple[int, int]] = {}
    for bi in b.tolist():
        if bi not in ratios:
            q = Fraction(bi)  # exact: b_i = num / 2^e
            ratios[bi] = (q.numerator, q.denominator.bit_length() - 1)
    E = max(T + smax, max((e for _, e in ratios.values()), default=0))
    D = 1 << E
    # every Cauchy sum Σ_{j+k=m} A_j·Y_k·2^{smax−s_k}, m ≤ 2K, in one blocked exact product
    # (proofs/grid_taylor_blocks.py); signed for every m, the radii added separately
    cauchy = prov.exact_block_products(
        ex.lo, [[v << (smax - scales[k]) for v in yint[k]] for k in range(K + 1)])
    rmax = ex.widths()
    sh = E - T - smax
    bvals = [ratios[bi][0] << (E - ratios[bi][1]) for bi in b.tolist()]
    bounds = []
    for m in range(2 * K + 1):
        pairs = [(j, m - j) for j in range(K + 1) if 0 <= m - j <= K]
        rad = sum(rmax[j] * l1[k] << (E - T - scales[k]) for j, k in pairs)
        col = cauchy[m]
        if m == 0:  # b − Σ A_0Y_0 cancels: exact integers, one rounded division
            bound = np.asarray(succ(np.array([(abs(bv - (c << sh)) + rad) / D for bv, c in zip(bvals, col)])))
        else:  # (|c|·2^sh + rad)/2^E ≤ |c|/2^(T+smax) ↑ + rad/2^E ↑, rounded up
            bound = np.asarray(succ(quotients_up(col, T + smax) + float_up(Fraction(rad, D))))
        if m == 0 and b_rad:
            bound = np.asarray(succ(bound + b_rad))
        bounds.append(bound)
    # remainder: Ysum on its grid, rounded up (P ≥ 0, so the product only grows)
    sr = column_scale(Ysum)
    ysum_int = [int(v) for v in np.ceil(np.ldexp(Ysum, sr)).tolist()]
    py = prov.exact_matvec(ex.rem, [ysum_int])[0]
    return bounds, quotients_up(py, T + sr)


@proved_by("exact_bounds_float_up")
def quotients_up(vals: list[int], e: int) -> np.ndarray:
    """Floats u_i ≥ |vals_i|/2^e for Python integers of any size, without big-int divisions:
    the float of |v| is within one ulp (a faithful conversion), so two ``succ`` bound |v|;
    the scaling by 2^-e (``ldexp``) is exact unless it underflows, where it rounds to
    nearest, so one more ``succ`` (``proofs/exact_bounds_float_up.py``). Integers of more
    than 64 bits beyond the float range are first shifted right exactly, rounding up
    (m = ⌈|v|/2^b⌉ ≥ |v|/2^b, b = bit_length − 64), and 2^(b−e) goes into the ``ldexp``:
    only a quotient beyond the float range gives inf.

    >>> quotients_up([3, -(1 << 200)], 1).tolist() >= [1.5, 2.0**199]
    True
    >>> quotients_up([2**1100, 3**700], 1100).tolist()[0] >= 1.0 > 0 < math.inf
    True
    """
    try:
        f = np.abs(np.array(vals, dtype=np.float64)) if len(vals) else np.zeros(0)
        shift = np.zeros(len(f), dtype=np.int64)
    except OverflowError:
        b = [max(0, abs(int(v)).bit_length() - 64) for v in vals]
        f = np.array([float(-(-abs(int(v)) >> k)) for v, k in zip(vals, b)])  # ⌈|v|/2^k⌉
        shift = np.array(b, dtype=np.int64)
    # exponents clipped to ±4000 (e first to ±8000, shift ≥ 0): beyond, the result is 0
    # (then succ) or inf either way; a larger exponent only raises the bound
    ex = np.clip(shift - max(-8000, min(8000, int(e))), -4000, 4000).astype(np.int32)
    with np.errstate(over="ignore"):
        return np.asarray(succ(np.ldexp(succ(succ(f)), ex)))


def on_residual_grid(y: np.ndarray) -> np.ndarray:
    """y rounded to the grid 2^-64 (exact in float): the y_0 of :func:`exact_residual_bound`."""
    return np.asarray(np.ldexp(np.rint(np.ldexp(y, _S_Y)), -_S_Y))


@proved_by("grid_exact_products", "grid_exact_convolution", "grid_taylor_blocks")
def exact_residual_bound(prov: PhiProvider, values: list[Any], rhs: tuple[Fraction, ...],
                         c: Fraction, y0: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(center, upper): |b − Φ(c)y0| ≤ upper componentwise, exactly; center ≈ b − Φ(c)y0.

    Entries e^{−cd} ∈ [A_k, A_k + r_k]·2^-100 (arb, outward; far ones [0, 1]·2^-100), y0 =
    Y·2^-64 (on the grid 2^-64), A·Y exact (``prov.exact_matvec``: grids an integer 2-D
    convolution, dense metrics integer limbs), B the common denominator of b:
    |b − Φy0|_i ≤ (|B·b_i·2^164 − B·(AY)_i| + B·max_k r_k·‖Y‖₁)/(B·2^164), one correctly
    rounded int/int division and ``succ`` (``proofs/grid_exact_products.py``,
    ``proofs/grid_exact_convolution.py``, ``proofs/grid_taylor_blocks.py``). Memory O(n).
    """
    if len(rhs) != prov.n or len(y0) != prov.n:
        raise InvalidArgument(f"exact_residual_bound: rhs has {len(rhs)} and y0 {len(y0)} entries; "
                              f"Φ is {prov.n}×{prov.n}: pass vectors of length {prov.n}.")
    scaled = np.ldexp(np.asarray(y0, dtype=np.float64), _S_Y)
    if not np.all(scaled == np.rint(scaled)):
        raise PrecisionLimitReached("exact_residual_bound: y0 is not on the grid 2^-64 "
                                    "(round it with on_residual_grid first)")
    return exact_residual(prov, values, rhs, c, [int(v) for v in scaled], _S_Y).bounds()


@dataclass(frozen=True)
class ExactResidual:
    """b − A·y_0 exactly, y_0 = ``yint``·2^-``s``, A the lower integer table of e^{−cd} at 2^-100:
    b − A·y_0 = ``num``/``den`` entrywise, and |b − Φ(c)y_0| ≤ (|num| + ``wide``)/``den``
    (``wide`` = B·max_k r_k·‖Y‖₁ covers the table radii; ``proofs/grid_exact_products.py``)."""

    yint: list[int]
    s: int
    num: list[int]
    den: int
    wide: int

    def center(self) -> np.ndarray:
        """≈ b − Φy_0 (correctly rounded quotients; a candidate's correction)."""
        return np.array([r / self.den for r in self.num])

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """(center, upper) with |b − Φ(c)y_0| ≤ upper entrywise (one rounded division, ``succ``)."""
        up = np.array([(abs(r) + self.wide) / self.den for r in self.num])
        return self.center(), np.asarray(succ(up))

    def norm2_scaled(self) -> int:
        """An integer ≥ ‖(|num| + wide)‖₂ (so ≥ den·‖b − Φy_0‖₂): ⌊√Σ⌋ + 1."""
        return math.isqrt(sum((abs(r) + self.wide) ** 2 for r in self.num)) + 1


@proved_by("grid_exact_products")
def exact_residual(prov: PhiProvider, values: list[Any], rhs: tuple[Fraction, ...],
                   c: Fraction, yint: list[int], s: int) -> ExactResidual:
    """:class:`ExactResidual` of y0 = yint·2^-s (any s ≥ 0: the proof of
    :func:`exact_residual_bound`, ``proofs/grid_exact_products.py``, with 2^-64 replaced by
    2^-s). The one home of the exact residual of the fail point
    (:func:`exactdp.threshold.spd_cover.per_entry_upper`) and of the precision escalation
    (:func:`exactdp.threshold.taylor.taylor_piece`).

    >>> from exactdp.spaces.metrics import line
    >>> from exactdp.threshold.providers import DenseProvider
    >>> m = line(3)
    >>> r = exact_residual(DenseProvider(m), list(m.values), (Fraction(1),) * 3, Fraction(1), [0, 0, 0], 0)
    >>> [Fraction(x, r.den) for x in r.num], r.wide     # y0 = 0: the residual is b
    ([Fraction(1, 1), Fraction(1, 1), Fraction(1, 1)], 0)
    """
    ex = exact_taylor_tables(values, c, c, 0)  # e^{−cd} ∈ [lo, hi]·2^-100 (far: [0, 1])
    radmax = max((h - lo for lo, h in zip(ex.lo[0], ex.hi[0])), default=0)
    prod = prov.exact_matvec(ex.lo[0], [yint])[0]
    bden = math.lcm(*(Fraction(x).denominator for x in rhs))
    sh = _S_TAB + s
    num = []
    for bi, p in zip(rhs, prod):
        bq = Fraction(bi)
        num.append(((bq.numerator * (bden // bq.denominator)) << sh) - bden * p)
    return ExactResidual(list(yint), s, num, bden << sh, bden * radmax * sum(abs(v) for v in yint))


def refined_y0(yint: list[int], s: int, corr: np.ndarray) -> tuple[list[int], int]:
    """y_0 + corr on the grid 2^-(s + 52), exactly: (Y·2^52 + rint(corr·2^(s+52)), s + 52).

    >>> refined_y0([3], 0, np.array([0.25])) == ([(3 << 52) + (1 << 50)], 52)
    True
    """
    s2 = s + 52
    return [(v << 52) + int(w) for v, w in zip(yint, np.rint(np.ldexp(corr, s2)).tolist())], s2
