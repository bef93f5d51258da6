"""The kernel's check of a one-ε grid certificate (kind ``grid-point``), and its JSON reader.

Question: on a planar grid (:class:`~exactdp.spaces.metrics.masked.GridShape`: width,
height, norm, spacing and the kept cells of a mask), at one exact level ε, does Φx = b have
a solution x ≥ 0 (b = 1: a tight-constraints mechanism exists; b = π: π is regular)?

Evidence: a dyadic vector y = Y·2^-s (integer mantissas Y, one exponent s) and a claimed
λ > 0 with λ ≤ λ_min(Φ). The check re-derives everything else from the question:

1. λ is re-proved: Manhattan grids by the closed form λ_min ≥ ((1 − t)/(1 + t))², t = e^{-εh}
   (``proofs/grid_point_bounds.py``; any subset of the lattice), Euclidean grids by the
   kernel's lattice symbol check :func:`exactdp.kernel.lattice.euclidean_lambda_ok` on a
   rational bracket of ε (any subset of the lattice, so masked grids too);
2. every distinct entry e^{-εd} is enclosed by integers [A, A + R]·2^-T (arb, rounded
   outward), the product A·Y is computed *exactly* (:meth:`GridProducts.sums`: one integer
   2-D convolution by Kronecker substitution), and
   ‖b − Φy‖₂ ≤ (√Σ⌈|b_i 2^{T+s} − (AY)_i|⌉² + √n·max R·‖Y‖₁)·2^-(T+s) =: ρλ;
3. ‖z − y‖∞ ≤ ‖z − y‖₂ ≤ ‖b − Φy‖₂/λ_min ≤ ρ, so "holds" needs y_i ≥ ρ for every i and
   "fails" needs y_w + ρ < 0 at the stated witness w (Φ is nonsingular since λ > 0).

No floating point anywhere. Memory O(n); time one flint product and n arb exponentials. The
work is bounded before any product (:func:`require_point_work`: mantissas no longer than a
genuine y needs, λ ≥ 2^-MAX_BITS, the product's size; InstanceTooLarge, "undecided").

Examples
--------
>>> from exactdp.spaces.metrics.masked import GridShape
>>> from exactdp.spaces.levels import parse_level
>>> sh = GridShape(2, 1, "manhattan", Fraction(1))
>>> lvl = parse_level(t="1/2")                       # Φ = [[1, 1/2], [1/2, 1]], z = (2/3, 2/3)
>>> c = GridPointClaim(sh, lvl, (Fraction(1), Fraction(1)), True, None,
...                    (2796202, 2796203), 22, Fraction(1, 9), 64)
>>> check_grid_point(c)
True
>>> check_grid_point(GridPointClaim(sh, lvl, c.rhs, True, None, (2796202, -5), 22,
...                                 Fraction(1, 9), 64))
False
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import Any

import numpy as np
from flint import arb, fmpz_mat
from scipy.fft import irfft2, next_fast_len, rfft2

from exactdp.arithmetic.ball import arb_to_fraction_interval, workprec
from exactdp.arithmetic.packed import biased_digits, digit_bytes, pack_signed, signed_values
from exactdp.arithmetic.rounding import dyadic_down, dyadic_up
from exactdp.errors import REJECTED_ERRORS, InstanceTooLarge, InvalidArgument, PrecisionLimitReached
from exactdp.kernel.jsonio import (
    Envelope,
    read_envelope,
    read_int,
    read_list,
    read_object,
    read_rational,
    read_rationals,
    read_str,
    read_verdict,
)
from exactdp.kernel.lattice import euclidean_lambda_ok
from exactdp.kernel.question import LINEAR_PROPS, ONES, Property, linear_property, read_level
from exactdp.kernel.threshold_taylor import SY, all_rational, int_ends, is_index, taylor_candidates
from exactdp.kinds import CertificateKind, Verdict, proved_by
from exactdp.spaces.distances import Distance, grid_offset_distance
from exactdp.spaces.levels import PrivacyLevel
from exactdp.spaces.metrics.masked import MASK_NORMS, GridShape

__all__ = ["GRID_POINT", "GRID_NORMS", "GridHeader", "GridPointClaim", "GridProducts",
           "ResidualBound", "check_grid_point", "check_grid_point_document", "grid_residual",
           "grid_lambda_bound", "lambda_proved", "manhattan_lambda_lower", "radius",
           "read_grid_point", "MAX_GRID_POINTS", "MAX_BITS", "read_grid_shape", "read_grid_header",
           "read_grid_question", "grid_table", "shape_ok", "verdict_ok", "require_point_work",
           "MAX_POINT_BYTES"]

GRID_POINT = CertificateKind.GRID_POINT.value
#: Most points of a grid-point question (a 2000×2000 grid).
MAX_GRID_POINTS = 4_000_000
#: Largest exponent s and table scale T accepted (bits).
MAX_BITS = 1 << 14
#: Most bytes of each factor of the one exact product of a grid-point check (as
#: ``grid-point-exact``: 400×400 up to s ≈ 780 bits, 1000×1000 at the writer's first y).
MAX_POINT_BYTES = 1 << 28
#: The norms of the grids ``grid-point`` and ``grid-threshold`` answer.
GRID_NORMS = ("euclidean", "manhattan")
_CG_TOL = 1e-15
#: A Euclidean λ finder (search side, e.g. the algebra layer's lattice bound):
#: (ε_lo, ε_hi, spacing) ↦ L ≤ λ_min(Φ_S(ε)) for all ε in range, all S.
LatticeLambda = Callable[[Fraction, Fraction, Fraction], Fraction]


@dataclass(frozen=True)
class GridHeader:
    """"Φ(ε)x = rhs has (``holds``) / has no (not ``holds``, at ``witness``) solution x ≥ 0"
    on a grid: the question and claim of the one-ε grid kinds (evidence: subclasses)."""

    shape: GridShape
    level: PrivacyLevel
    rhs: tuple[Fraction, ...]
    holds: bool
    witness: int | None


@dataclass(frozen=True)
class GridPointClaim(GridHeader):
    """A :class:`GridHeader` with y = mantissas·2^-exponent and λ ≤ λ_min(Φ(ε)) (module
    docstring)."""

    mantissas: tuple[int, ...]
    exponent: int
    lam: Fraction
    table_bits: int


@dataclass(frozen=True)
class ResidualBound:
    """``norm_bound`` ≥ ‖b − Φy‖₂ (exact rational); ``numerators[i]/denominators[i]`` is
    b_i − (A·Y)_i·2^-(T+s) scaled by 2^(T+s) (the exact centre of the residual)."""

    norm_bound: Fraction
    numerators: list[int]
    denominators: list[int]
    scale_bits: int


class GridProducts:
    """Exact products with distance tables on a grid (a :class:`~exactdp.kernel.threshold_taylor.Products`).

    ``keys``: the distinct offset keys dx² + dy² (Euclidean) or dx + dy (other norms: the
    length in units of h on a lattice line), increasing; ``code[dx, dy]``: the index of the
    key of offset (dx, dy); ``values``: the distances h·√key / h·key as exact
    :class:`~exactdp.spaces.distances.Distance` (computed on first use); ``count_row``: how
    many signed offsets of the W×H window have each (dominates every row's counts).
    """

    def __init__(self, shape: GridShape) -> None:
        W, H = shape.width, shape.height
        self.shape, self.n = shape, shape.n
        dx, dy = np.ogrid[:W, :H]
        keys, first, code = np.unique(dx * dx + dy * dy if shape.norm == "euclidean" else dx + dy,
                                      return_index=True, return_inverse=True)
        self.keys, self._reps = keys.tolist(), [divmod(int(f), H) for f in first]
        code = code.reshape(W, H).astype(np.int64)
        weight = np.outer(np.where(np.arange(W) > 0, 2, 1), np.where(np.arange(H) > 0, 2, 1))
        self.count_row = np.bincount(code.ravel(), weights=weight.ravel(),
                                     minlength=len(self.keys)).astype(np.int64)[None, :]
        self.code, self.cells = code, np.asarray(shape.cells, dtype=np.int64)

    @cached_property
    def values(self) -> list[Any]:
        """g·d(dx/g, dy/g) of a representative offset per key: √ of a primitive offset."""
        out = []
        for dx, dy in self._reps:
            g = math.gcd(dx, dy) or 1
            v = grid_offset_distance(dx // g, dy // g, self.shape.norm, self.shape.spacing)
            out.append(Distance(v.coef * g, v.radicand))
        return out

    def kernel(self, rx: int, ry: int) -> np.ndarray:
        """(2ry + 1) × (2rx + 1) codes of the offsets (b, a), |a| ≤ ry rows, |b| ≤ rx columns."""
        return self.code[np.abs(np.arange(-rx, rx + 1))[None, :], np.abs(np.arange(-ry, ry + 1))[:, None]]

    def sums(self, table: fmpz_mat, ys: list[list[int]], tau: int = 0
             ) -> tuple[np.ndarray, list[int]]:
        """(S, err): S_m = Σ_{j+k=m} T'_j·ys[k] exactly, T'_j = T_j on the offsets of the
        smallest box holding every code with an entry above ``tau`` and 0 outside, so
        |(T_j − T'_j)·y| ≤ err[j]·‖y‖₁ (err[j] = max |T_j| over the codes left out, ≤ tau).

        One exact product (module docstring): cell (y, x) of block m is read at
        m·L + (y + ry)·S + x + rx, S = W + rx (``proofs/grid_cropped_stride.py``, Lemmas 2–3:
        only the terms of Σ_{j+k=m} T'_j·y_k land there). The polynomials are evaluated at z = 2^(8·nb)
        as flint integers: every coefficient has |c| < 2^(8·nb − 1) (≤ #vector entries ×
        max|T| × max|y|), so the digits of p_T(z)·p_Y(z) + Σ_m 2^(8·nb − 1)·z^m are the
        coefficients + 2^(8·nb − 1), read from that integer's bytes (digit bound, read-back
        and crop bound: ``proofs/kernel_grid_kronecker.py``, Lemmas 1–3; the packing and the
        read-back are :mod:`exactdp.arithmetic.packed`, shared with the search)."""
        J, ny, W, H, n = table.ncols(), len(ys), self.shape.width, self.shape.height, self.n
        tv = [int(x) for x in table.entries()]
        mag = np.abs(np.array(tv, dtype=object).reshape(-1, J))
        big = mag.max(axis=1) > tau
        off = big[self.code]  # W × H
        rx, ry = (int(max(np.flatnonzero(off.any(axis=i)), default=0)) for i in (1, 0))
        err = [int(x) for x in mag[~big].max(axis=0, initial=0)]
        S = W + rx
        L, kf = (ry + H - 1) * S + rx + W, self.kernel(rx, ry)
        kpos = (np.arange(2 * ry + 1)[:, None] * S + np.arange(2 * rx + 1)).ravel()
        vpos = (self.cells // W) * S + self.cells % W
        yv = [x for y in ys for x in y]
        nb = digit_bytes(max(map(abs, tv)).bit_length() + max(map(abs, yv)).bit_length()
                         + (ny * n).bit_length())
        blocks = np.arange(J)[:, None]
        a = pack_signed(tv, (kf.ravel()[None, :] * J + blocks).ravel(), (blocks * L + kpos).ravel(), J * L, nb)
        v = pack_signed(yv, np.arange(len(yv)), (np.arange(ny)[:, None] * L + vpos).ravel(), ny * L, nb)
        digits = biased_digits(a, v, (J + ny) * L, nb)
        del a, v
        out = signed_values(digits[(np.arange(J + ny - 1)[:, None] * L + vpos + ry * S + rx).ravel()])
        return np.array(out, dtype=object).reshape(J + ny - 1, n), err

    def candidates(self, rhs: tuple[Fraction, ...], mids: fmpz_mat, K: int, sy: int = SY
                   ) -> list[list[int]] | None:
        """Taylor vectors y_0..y_K on 2^-sy (:func:`~exactdp.kernel.threshold_taylor.taylor_candidates`)
        by float CG preconditioned by Strang's (else T. Chan's) level-2 circulant of Φ_0 on
        the H×W torus."""
        W, H, n, cells = self.shape.width, self.shape.height, self.n, self.cells
        size = (next_fast_len(2 * H - 1), next_fast_len(2 * W - 1))  # no wrap onto the kept rows
        kc = self.kernel(W - 1, H - 1)

        def grid(v: np.ndarray) -> np.ndarray:
            pad = np.zeros(H * W)
            pad[cells] = v
            return pad.reshape(H, W)

        def setup(tab: np.ndarray) -> tuple[Callable[..., Any], Callable[..., Any]]:
            kk = [tab[:, j][kc] for j in range(K + 1)]
            kfs = [rfft2(k, size) for k in kk]

            def op(j: int, v: np.ndarray) -> np.ndarray:
                out = irfft2(rfft2(grid(v), size) * kfs[j], size)
                return np.asarray(out[H - 1:2 * H - 1, W - 1:2 * W - 1].ravel()[cells])

            eig = np.ones((H, W // 2 + 1))
            for chan in (False, True):  # first column: offsets j and n − j, weights w and 1 − w
                (wy, oy), (wx, ox) = [((n_ - j) / n_ if chan else (2 * j <= n_) * 1.0, j)
                                      for n_, j in ((H, np.arange(H)), (W, np.arange(W)))]
                c = sum(u[:, None] * t[None, :] * kk[0][H - 1 + p][:, W - 1 + q]
                        for u, p in ((wy, oy), (1 - wy, (H - oy) % H))
                        for t, q in ((wx, ox), (1 - wx, (W - ox) % W)))
                lam = rfft2(c).real
                if np.all(lam > 1e-12 * np.max(np.abs(lam))):
                    eig = lam
                    break

            def solve(v: np.ndarray) -> np.ndarray:  # preconditioned CG; sums, not BLAS (its threads spin)
                x, r = np.zeros(n), v.copy()
                z = irfft2(rfft2(grid(r)) / eig, (H, W)).ravel()[cells]
                p, rz, stop = z.copy(), (r * z).sum(), _CG_TOL**2 * (v * v).sum()
                for _ in range(2 * W + 2 * H + 500):
                    q = op(0, p) if (r * r).sum() > stop else p * 0
                    if not (p * q).sum() > 0:
                        break
                    alpha = rz / (p * q).sum()
                    x, r = x + alpha * p, r - alpha * q
                    z = irfft2(rfft2(grid(r)) / eig, (H, W)).ravel()[cells]
                    rz, rz0 = (r * z).sum(), rz
                    p = z + rz / rz0 * p
                return x
            return solve, op

        return taylor_candidates(self, rhs, mids, K, sy, setup)


def shape_ok(shape: Any, rhs: Any, norms: tuple[str, ...] = GRID_NORMS) -> bool:
    """A grid of ``norms`` with 0 < n ≤ :data:`MAX_GRID_POINTS` points, a rational spacing
    h > 0, and b a tuple of n rationals."""
    return (isinstance(shape, GridShape) and shape.norm in norms
            and isinstance(shape.spacing, Fraction) and shape.spacing > 0
            and 0 < shape.n <= MAX_GRID_POINTS and isinstance(rhs, tuple)
            and len(rhs) == shape.n and all_rational(*rhs))


def _eps_bracket(level: PrivacyLevel) -> tuple[Fraction, Fraction]:
    """[lo, hi] ∋ ε, 0 < lo: ε's 128-bit ball rounded outward to multiples of 2^-b, b = 64 + max(0, 1 − ⌊log₂ lo⌋)
    (lo the ball's lower end: 65–66 significant bits when ε < 1, 64–65 bits after the point when ε ≥ 1).

    >>> from exactdp.spaces.levels import parse_level
    >>> lo, hi = _eps_bracket(parse_level(eps=Fraction(1, 2**70)))
    >>> 0 < lo <= Fraction(1, 2**70) <= hi < Fraction(1, 2**69)
    True
    """
    with workprec(128):
        lo, hi = arb_to_fraction_interval(level.eps_ball())
    if lo <= 0:
        raise PrecisionLimitReached(f"ε = {level.eps} is not proved > 0 at 128 bits; no λ_min "
                                    "bound can be proved for it (use method='ball').")
    bits = 64 + max(0, lo.denominator.bit_length() - lo.numerator.bit_length() + 1)
    return dyadic_down(lo, bits), dyadic_up(hi, bits)


@proved_by("grid_point_bounds")
def manhattan_lambda_lower(level: PrivacyLevel, spacing: Fraction) -> Fraction:
    """((1 − t)/(1 + t))² with t ≥ e^{-ε·spacing} rounded up: a lower bound of λ_min(Φ) for
    every finite set of points of spacing·Z² under the Manhattan distance
    (``proofs/grid_point_bounds.py``).

    >>> from exactdp.spaces.levels import parse_level
    >>> manhattan_lambda_lower(parse_level(t="1/2"), Fraction(1))
    Fraction(1, 9)
    """
    if level.t is not None and spacing.denominator == 1 and spacing.numerator <= 64:
        t = level.t ** spacing.numerator  # exact
    else:
        with workprec(128):
            ball = (-level.eps_ball() * arb(spacing.numerator) / spacing.denominator).exp()
            tiny = bool(ball < arb(2) ** -96)
            # t < 2^-96: round t up to 2^-96 without converting a ball of huge exponent
            t_hi = Fraction(1, 1 << 96) if tiny else arb_to_fraction_interval(ball)[1]
        t = min(dyadic_up(t_hi, 96), Fraction(1))
    return ((1 - t) / (1 + t)) ** 2


def grid_lambda_bound(shape: GridShape, level: PrivacyLevel,
                      lattice_lambda: LatticeLambda | None) -> Fraction:
    """A λ ≤ λ_min(Φ(ε)) for the grid, for the search: Manhattan closed form, Euclidean by
    ``lattice_lambda`` on a rational bracket of ε (InvalidArgument without it). The check
    never trusts it: :func:`lambda_proved` re-proves the stored λ."""
    if shape.norm == "manhattan":
        return manhattan_lambda_lower(level, shape.spacing)
    if shape.norm == "euclidean" and lattice_lambda is not None:
        lo, hi = _eps_bracket(level)
        return Fraction(lattice_lambda(lo, hi, shape.spacing))
    raise InvalidArgument(f"no proved λ_min bound for a {shape.norm} grid here (Manhattan: "
                          "closed form; Euclidean: pass lattice_lambda).")


def lambda_proved(shape: GridShape, level: PrivacyLevel, lam: Fraction,
                  eps_range: tuple[Fraction, Fraction] | None = None) -> bool:
    """True only if λ_min(Φ(ε)) ≥ ``lam`` is proved for the grid (and every subset of its
    lattice) at the level — with ``eps_range`` = (level's ε, b), for every ε in it (False
    when the level's ε is not exactly the range's lower end):
    Manhattan by the closed form at the level (the largest t of the range), Euclidean by
    :func:`~exactdp.kernel.lattice.euclidean_lambda_ok` on ``eps_range`` or a rational
    bracket of ε.

    >>> from exactdp.spaces.levels import parse_level
    >>> sh = GridShape(3, 3, "euclidean", Fraction(1))
    >>> lambda_proved(sh, parse_level(eps=1), Fraction(1, 3)), lambda_proved(sh, parse_level(eps=1), Fraction(1, 2))
    (True, False)
    """
    if eps_range is not None and level.eps_rational != eps_range[0]:
        return False  # one ε: the level's must be the range's lower end
    if shape.norm == "manhattan":
        return lam <= manhattan_lambda_lower(level, shape.spacing)
    return shape.norm == "euclidean" and euclidean_lambda_ok(*(eps_range or _eps_bracket(level)),
                                                             shape.spacing, lam)


def grid_table(shape: GridShape, level: PrivacyLevel, bits: int) -> tuple[GridProducts, list[int], int]:
    """(the grid's :class:`GridProducts`, integer lower ends A_k, max radius): the length
    of offset key k is h·√k (Euclidean) or h·k (Manhattan), the definition of
    :func:`~exactdp.spaces.distances.grid_offset_distance` (compared in
    ``proofs/grid_point_bounds.py``); e^{-ε·length}·2^bits is enclosed in arb and its
    lower and upper ends rounded down and up to integers."""
    op, lows, radmax = GridProducts(shape), [], 0
    with workprec(bits + 64):
        eh, scale = level.eps_ball() * arb(shape.spacing.numerator) / shape.spacing.denominator, arb(2) ** bits
        for key in op.keys:
            a, b = int_ends((-eh * (arb(key).sqrt() if shape.norm == "euclidean" else arb(key))).exp() * scale)
            lows.append(a)
            radmax = max(radmax, b - a)
    return op, lows, radmax


@proved_by("grid_point_bounds")
def grid_residual(shape: GridShape, level: PrivacyLevel, rhs: tuple[Fraction, ...],
                  mantissas: tuple[int, ...], exponent: int, table_bits: int) -> ResidualBound:
    """A rigorous bound of ‖b − Φy‖₂ for y = mantissas·2^-exponent (step 2 of the module
    docstring), and the exact centre of the residual (``proofs/grid_point_bounds.py``)."""
    n = shape.n
    if len(rhs) != n or len(mantissas) != n:
        raise InvalidArgument(f"grid_residual: rhs has {len(rhs)} and y {len(mantissas)} "
                              f"entries; the grid has n = {n} points.")
    if not (0 <= exponent <= MAX_BITS and 1 <= table_bits <= MAX_BITS):
        raise InvalidArgument(f"grid_residual: exponent={exponent}, table_bits={table_bits}; "
                              f"both must lie in [0, {MAX_BITS}] (table_bits ≥ 1).")
    op, lows, radmax = grid_table(shape, level, table_bits)
    prod = op.sums(fmpz_mat(len(lows), 1, lows), [[int(m) for m in mantissas]])[0][0]
    sh = table_bits + exponent
    nums = [(b.numerator << sh) - b.denominator * int(p) for b, p in zip(rhs, prod)]
    dens = [b.denominator for b in rhs]
    total = sum((-(-abs(d) // q)) ** 2 for d, q in zip(nums, dens))
    l1 = sum(abs(int(m)) for m in mantissas)
    bound = math.isqrt(total) + 1 + (math.isqrt(n) + 1) * radmax * l1
    return ResidualBound(Fraction(bound, 1 << sh), nums, dens, sh)


def radius(res: ResidualBound, lam: Fraction) -> Fraction:
    """ρ = ‖r‖₂ bound / λ: every |z_i − y_i| ≤ ρ."""
    return res.norm_bound / lam


def verdict_ok(c: GridHeader, values: Sequence[int], bound: Fraction) -> bool:
    """``holds``: no witness and every value ≥ bound; fails: the value at the witness (an
    index) is < −bound."""
    if c.holds:
        return c.witness is None and min(values) >= bound
    return is_index(c.witness, c.shape.n) and values[c.witness] < -bound


def require_point_work(shape: GridShape, rhs: tuple[Fraction, ...], lam: Fraction,
                       mantissas: tuple[int, ...], exponent: int, table_bits: int) -> None:
    """Refuse (:class:`~exactdp.errors.InstanceTooLarge`) evidence far larger than a genuine
    y needs — before any product. A genuine y is z (|z_i| ≤ ‖b‖₂/λ_min ≤ ‖b‖₁/λ) rounded to
    2^-s, so max|Y| < 2^(s + 64)·(‖b‖₁/λ + 1) (the writer's y: 52 significant bits, then
    40 more per round); λ ≥ 2^-MAX_BITS; and each factor of the exact product (2·(2W − 1)·
    (2H − 1) slots of T + bits(Y) + bits(n) bits) within :data:`MAX_POINT_BYTES`.

    >>> sh = GridShape(2, 1, "manhattan", Fraction(1))
    >>> require_point_work(sh, (Fraction(1),) * 2, Fraction(1, 9), (3, 3), 2, 64)
    >>> require_point_work(sh, (Fraction(1),) * 2, Fraction(1, 9), (10**100, 3), 2, 64)
    Traceback (most recent call last):
    ...
    exactdp.errors.InstanceTooLarge: evidence.mantissas: a 333-bit mantissa; a genuine y ...
    """
    W, H, n = shape.width, shape.height, shape.n
    ybits = max(abs(m) for m in mantissas).bit_length()
    need = exponent + math.ceil(sum(abs(b) for b in rhs) / lam).bit_length() + 64
    size = 2 * (2 * W - 1) * (2 * H - 1) * ((table_bits + ybits + n.bit_length() + 16) // 8)
    if ybits > need:
        raise InstanceTooLarge(f"evidence.mantissas: a {ybits}-bit mantissa; a genuine y on "
                               f"2^-{exponent} needs at most {need} bits (s + bits(‖b‖₁/λ) + "
                               "64); re-certify with the library writer.")
    if lam < Fraction(1, 1 << MAX_BITS) or size > MAX_POINT_BYTES:
        lb = lam.numerator.bit_length() - lam.denominator.bit_length()
        raise InstanceTooLarge(f"evidence: checking a {W}×{H} grid with {ybits}-bit mantissas, "
                               f"T = {table_bits} and λ ≈ 2^{lb} needs ≈ {size} bytes per integer "
                               f"(limits: {MAX_POINT_BYTES} bytes, λ ≥ 2^-{MAX_BITS}); certify a "
                               "smaller grid or a larger ε.")


def check_grid_point(claim: GridPointClaim) -> bool:
    """Re-check a grid-point claim from its question (module docstring); False, never an
    exception, on tampered or malformed data (mantissas must be ints); InstanceTooLarge
    (undecided) beyond :func:`require_point_work`. λ is re-proved in the kernel for both
    norms (:func:`lambda_proved`); y_i ≥ ρ ⟺ Y_i ≥ ρ·2^s (exact)."""
    try:
        c, Y = claim, claim.mantissas
        if (not shape_ok(c.shape, c.rhs) or not isinstance(c.lam, Fraction) or c.lam <= 0
                or not isinstance(Y, tuple) or len(Y) != c.shape.n
                or not all(type(m) is int for m in Y) or not is_index(c.exponent, MAX_BITS + 1)
                or not is_index(c.table_bits, MAX_BITS + 1)):
            return False
        require_point_work(c.shape, c.rhs, c.lam, Y, c.exponent, c.table_bits)
        if not lambda_proved(c.shape, c.level, c.lam):
            return False
        res = grid_residual(c.shape, c.level, c.rhs, Y, c.exponent, c.table_bits)
        return verdict_ok(c, Y, radius(res, c.lam) * (1 << c.exponent))
    except InstanceTooLarge:
        raise
    except REJECTED_ERRORS:
        return False


# ----------------------------------------------------------------------------- JSON


def read_grid_shape(value: Any) -> GridShape:
    """Read ``question.metric`` of a grid document (strict; InvalidArgument if malformed)."""
    w = "question.metric"
    obj = read_object(value, w, ("encoding", "width", "height", "norm", "spacing", "mask"))
    read_str(obj["encoding"], w + ".encoding", ("grid",))
    W = read_int(obj["width"], w + ".width", 1)
    H = read_int(obj["height"], w + ".height", 1)
    if W * H > MAX_GRID_POINTS:  # a work limit on a well-formed question: undecided (exit 2)
        raise InstanceTooLarge(f"{w}: a {W}×{H} grid exceeds the kernel's {MAX_GRID_POINTS} points.")
    norm = read_str(obj["norm"], w + ".norm", MASK_NORMS)
    h = read_rational(obj["spacing"], w + ".spacing")
    if h <= 0:
        raise InvalidArgument(f"{w}.spacing: got {h}; it must be > 0.")
    if obj["mask"] is None:
        return GridShape(W, H, norm, h, None)
    rows = read_list(obj["mask"], w + ".mask", length=H)
    cells: list[int] = []
    for y, r in enumerate(rows):
        text = read_str(r, f"{w}.mask[{y}]")
        if len(text) != W or set(text) - {"0", "1"}:
            raise InvalidArgument(f"{w}.mask[{y}]: expected {W} characters '0'/'1'.")
        cells.extend(y * W + x for x, ch in enumerate(text) if ch == "1")
    if not cells or len(cells) == W * H:
        raise InvalidArgument(f"{w}.mask: keeps {len(cells)} of {W * H} cells; write null "
                              "for the full grid and keep at least one cell.")
    return GridShape(W, H, norm, h, tuple(cells))


def read_grid_question(doc: Any, kind: str) -> tuple[Envelope, dict[str, Any], GridShape, bool,
                                                   tuple[Fraction, ...]]:
    """(envelope, question object, shape, b = 1 written as "ones", b) of a grid document of
    ``kind`` (strict, InvalidArgument if malformed)."""
    env = read_envelope(doc)
    if env.kind != kind:
        raise InvalidArgument(f"kind: {env.kind!r} is not {kind!r}.")
    q = read_object(env.question, "question", ("metric", "property", "rhs", "level"))
    shape = read_grid_shape(q["metric"])
    ones = q["rhs"] == ONES
    return env, q, shape, ones, (Fraction(1),) * shape.n if ones else read_rationals(
        q["rhs"], "question.rhs", shape.n)


def read_grid_header(doc: Any, kind: str) -> tuple[Envelope, GridShape, tuple[Fraction, ...],
                                                 PrivacyLevel, bool, int | None]:
    """(envelope, shape, rhs, level, holds, witness): a one-ε grid document of ``kind``, its
    question and claim (``grid-point`` and ``grid-point-exact`` share them; strict,
    InvalidArgument if malformed)."""
    env, q, shape, ones, rhs = read_grid_question(doc, kind)
    prop = read_str(q["property"], "question.property", [p.value for p in LINEAR_PROPS])
    n = shape.n
    want = linear_property(rhs).value
    if prop != want or (want == Property.TIGHT_CONSTRAINTS and not ones):
        raise InvalidArgument(f"question.property: {prop!r} does not fit the right-hand side "
                              f"(expected {want!r}, with \"ones\" for b = 1).")
    level = read_level(q["level"])
    assert isinstance(level, PrivacyLevel)
    claim = read_object(env.claim, "claim", ("verdict", "witness"))
    holds = read_verdict(claim["verdict"], "claim.verdict") is Verdict.HOLDS
    wit = None if claim["witness"] is None else read_int(claim["witness"], "claim.witness", 0,
                                                           n - 1)
    return env, shape, rhs, level, holds, wit


def read_grid_point(doc: Any) -> GridPointClaim:
    """Read a ``grid-point`` document back into a claim (strict; InvalidArgument if
    malformed). The claim is only as good as :func:`check_grid_point`."""
    env, shape, rhs, level, holds, wit = read_grid_header(doc, GRID_POINT)
    ev = read_object(env.evidence, "evidence", ("exponent", "table_bits", "lam", "mantissas"))
    mans = read_list(ev["mantissas"], "evidence.mantissas", length=shape.n)
    mant = tuple(int(read_rational(x, f"evidence.mantissas[{k}]", integer=True))
                 for k, x in enumerate(mans))
    s, lam = read_int(ev["exponent"], "evidence.exponent", 0, MAX_BITS), read_rational(ev["lam"], "evidence.lam")
    T = read_int(ev["table_bits"], "evidence.table_bits", 1, MAX_BITS)
    if lam > 0:  # else check_grid_point rejects it
        require_point_work(shape, rhs, lam, mant, s, T)
    return GridPointClaim(shape, level, rhs, holds, wit, mant, s, lam, T)


def check_grid_point_document(doc: Any) -> bool:
    """:func:`check_grid_point` of a parsed document, for ``exactdp verify`` (Euclidean and
    Manhattan grids, masked or not; InvalidArgument if malformed)."""
    return check_grid_point(read_grid_point(doc))
