"""The kernel's checks of the SPD certificates of the certified threshold route (dense Φ).

Φ(ε) = (e^{-ε·d(i, j)}) is re-derived from the question's exact distances; nothing is
taken from the search (``exactdp.threshold``). Floats appear only as *candidates* (a
Cholesky factor, Taylor vectors from float solves): every bound is then proved with arb
enclosures of the entries, rounded outward to integers, and exact integer arithmetic
(``fmpz_mat``) — no floating-point rounding analysis, so no subnormal hypothesis. The
mathematics is checked step by step in ``proofs/spd_cover_bounds.py``.

================  =========================================================================
kind              what is checked
================  =========================================================================
spd-point         "fails at ε": λ ≤ λ_min(Φ(ε)) with λ > 0 by a shifted congruence
                  (:func:`lambda_ok`: A − σI = LLᵀ − E, λ_min ≥ σ − ‖E‖∞ − n·r), so Φ is
                  nonsingular; a Taylor vector y of order 0 with the exact residual bound
                  gives z_i ≤ y_i + ‖r̄‖₂/λ < 0 and ≤ ``upper`` for the stated index i
spd-taylor-cover  (checked by :func:`~exactdp.kernel.threshold_cover_claims.check_spd_cover` on
                  :func:`cover_ok`) 0 < lo < hi; **fails at lo**: the ``fail`` claim (a
                  linear-system claim or an spd-point) is about the same distances, b and ε = lo and re-checks;
                  **holds on [hi, ∞)**: the perturbation lemma at t0 and ranges covering
                  [hi, −ln t0] (:func:`~exactdp.kernel.threshold_cover.cover_frame_ok`);
                  every node (ε, σ, λ) by :func:`lambda_ok`; every range (a, b, λ): λ ≤ the
                  chord bound min(λ_k, λ_k+1) − (w²/8)·max_i Σ_l d²e^{−ε_k d} (exact
                  rational row sums over the distinct distance counts) of each node pair
                  overlapping it, and the Taylor bound of order K (:func:`piece_ok`)
================  =========================================================================

Examples
--------
>>> from exactdp.spaces.metrics import line
>>> lambda_ok(line(4), Fraction(1), Fraction(1, 4), Fraction(1, 8))
True
>>> lambda_ok(line(4), Fraction(1), Fraction(1, 4), Fraction(1))  # λ_min(Φ) < 1
False
>>> piece_ok(line(4), (Fraction(1),) * 4, Fraction(1), Fraction(11, 10), 3, Fraction(1, 8))
True
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from flint import arb, fmpq_mat, fmpz_mat

from exactdp.arithmetic.ball import arb_to_fraction_interval, workprec
from exactdp.arithmetic.rationals import fmpq_to_fraction, to_fmpq
from exactdp.errors import REJECTED_ERRORS
from exactdp.kernel.threshold_cover import cover_frame_ok
from exactdp.kernel.threshold_taylor import (
    ST,
    SY,
    Products,
    all_rational,
    int_ends,
    is_index,
    rhs_shift,
    taylor_candidates,
)
from exactdp.spaces.metrics import FiniteMetric

__all__ = ["SPD_POINT", "SPD_COVER", "SpdPointClaim", "check_spd_point",
           "lambda_ok", "piece_ok", "chord_ok", "hist_product", "eps_in_range",
           "SPD_EPS_DISTANCE_LIMIT", "MAX_ORDER", "Products", "DenseProducts", "all_rational",
           "pieces_in_order", "SY", "ST", "rhs_shift", "taylor_candidates", "Y_LEVELS", "is_index",
           "int_ends", "point_ok", "cover_ok", "cover_args_ok"]

SPD_POINT = "spd-point"
SPD_COVER = "spd-taylor-cover"
#: e^{-ε·d} is enclosed by exact rationals (about 1.44·ε·d bits): a node, range or point
#: with ε·max d above this is not proved (the check returns False fast).
SPD_EPS_DISTANCE_LIMIT = 2**22
#: Highest Taylor order K accepted.
MAX_ORDER = 8
_BITS = 60   # Cholesky candidates on the grid 2^-60, entries at scale 2^-120
#: Grids 2^-sy of y_0 tried in turn while the residual of y_0 keeps a piece undecided
#: (:func:`piece_ok`); below 2^-184 the 2^-110 tables dominate.
Y_LEVELS = (SY, SY + 52, SY + 104)
_CROP = 2**10  # grid products may leave out table entries ≤ 2^10 (2^-100 at scale 2^-110)
_LIMB = 30   # histogram limbs: n·2^30 < 2^53 keeps every float partial sum exact


@dataclass(frozen=True)
class SpdPointClaim:
    """"Φ(eps)x = rhs has no solution x ≥ 0": z_index(eps) < 0 and ≤ upper, with λ ≤ λ_min(Φ(eps))
    proved through the shift ``sigma`` (module table)."""

    metric: FiniteMetric
    rhs: tuple[Fraction, ...]
    eps: Fraction
    index: int
    upper: Fraction
    sigma: Fraction
    lam: Fraction


def pieces_in_order(pieces: Any) -> bool:
    """(a, b, λ) rational triples with a < b, increasing and without overlap."""
    return (isinstance(pieces, tuple) and all(len(p) == 3 and all_rational(*p) and p[0] < p[1]
                                              for p in pieces)
            and all(p[1] <= q[0] for p, q in zip(pieces, pieces[1:])))


def eps_in_range(metric: FiniteMetric | Products, *eps: Any) -> bool:
    """Every ε is a Fraction with 0 < ε and ε·max d ≤ :data:`SPD_EPS_DISTANCE_LIMIT`
    (max d bounded above exactly: c·(⌊√r⌋ + 1))."""
    dmax = max((v.coef * (math.isqrt(v.radicand) + 1) for v in metric.values), default=0)
    return all(isinstance(e, Fraction) and 0 < e and e * dmax <= SPD_EPS_DISTANCE_LIMIT
               for e in eps)


def _codes(metric: FiniteMetric) -> tuple[np.ndarray, fmpz_mat]:
    """(i·k + index[i, l] for every pair, the n×k matrix of distance counts per row)."""
    n, k = metric.n, len(metric.values)
    codes = (np.arange(n, dtype=np.int64)[:, None] * k + np.asarray(metric.index)).ravel()
    return codes, fmpz_mat(n, k, np.bincount(codes, minlength=n * k).tolist())


def lambda_ok(metric: FiniteMetric, eps: Fraction, sigma: Fraction, lam: Fraction) -> bool:
    """λ_min(Φ(eps)) ≥ lam, proved with integers: each e^{-eps·d} is A_k·2^-120 within an
    exact r_k (arb, outward); a float Cholesky factor of A − σI rounded to L·2^-60 is a
    candidate only: A − σI = LLᵀ − E ⪰ −E, so λ_min(Φ) ≥ σ − ‖E‖∞ − n·max r_k."""
    n = metric.n
    if (not all_rational(eps, sigma, lam) or sigma.denominator > 2**_BITS
            or sigma.denominator & (sigma.denominator - 1) or n < 1):  # σ on the 2^-60 grid
        return False
    scale = 1 << (2 * _BITS)
    ints: list[int] = []
    rmax = Fraction(0)
    with workprec(2 * _BITS + 64):
        e = arb(to_fmpq(eps))
        for v in metric.values:
            lo, hi = arb_to_fraction_interval((-e * v.ball()).exp())
            a_k = round((lo + hi) / 2 * scale)
            ints.append(a_k)
            rmax = max(rmax, hi - Fraction(a_k, scale), Fraction(a_k, scale) - lo)
    idx = np.asarray(metric.index)
    A = np.ldexp(np.array(ints, dtype=np.float64), -2 * _BITS)[idx]
    A[np.diag_indices(n)] -= float(sigma)
    L = np.linalg.cholesky(A)  # LinAlgError (a ValueError) when not positive definite
    if not np.all(np.isfinite(L)):
        return False
    Lm = fmpz_mat(n, n, [int(x) for x in np.rint(L * 2.0**_BITS).ravel()])
    Ai = [ints[int(k)] for k in idx.ravel()]
    shift = int(sigma * scale)  # exact: σ has denominator ≤ 2^_BITS
    for i in range(n):
        Ai[i * n + i] -= shift
    ent = [abs(int(x)) for x in (Lm * Lm.transpose() - fmpz_mat(n, n, Ai)).entries()]
    worst = max(sum(ent[i * n:(i + 1) * n]) for i in range(n))
    return sigma - Fraction(worst, scale) - n * rmax >= lam


def hist_product(codes: np.ndarray, n: int, k: int, v: list[int], counts: fmpz_mat,
                 table: fmpz_mat) -> fmpz_mat:
    """H·table exactly, H[i, d] = Σ_{l : index[i, l] = d} v[l] (integers v of any size):
    v + off ≥ 0 cut into 30-bit limbs, each limb's histogram an exact float bincount
    (partial sums < n·2^30 < 2^53), recombined over the integers, off·counts·table removed."""
    off = max(0, -min(v))
    vp = [x + off for x in v]
    out = fmpz_mat(n, table.ncols())
    shift, mask = 0, (1 << _LIMB) - 1
    while max(vp) >> shift:
        limb = np.array([(x >> shift) & mask for x in vp], dtype=np.float64)
        h = np.bincount(codes, weights=np.tile(limb, n), minlength=n * k)
        out += (fmpz_mat(n, k, h.astype(np.int64).tolist()) * table) * (1 << shift)
        shift += _LIMB
    if off:
        out -= (counts * table) * off
    return out


def _tables(values: list[Any], c: Fraction, a: Fraction, K: int
             ) -> tuple[fmpz_mat, list[int], fmpz_mat]:
    """Integer lower ends (scale 2^ST) of Φ_j = (−d)^j e^{−cd}/j! (k × (K+1)), their widths
    per j, and upper ends of the remainder d^{K+1}e^{−ad}/(K+1)! (k × 1)."""
    fact = [math.factorial(j) for j in range(K + 2)]
    lo_t: list[list[int]] = []
    rad = [0] * (K + 1)
    rem: list[int] = []
    with workprec(320):  # the ends ≤ 2^(ST + 200) stay exact integers
        ca, aa, S = arb(to_fmpq(c)), arb(to_fmpq(a)), arb(2) ** ST
        for v in values:
            d = v.ball()
            e, p, row = (-ca * d).exp() * S, arb(1), []
            for j in range(K + 1):
                lo, hi = int_ends(p * e / fact[j])
                row.append(lo)
                rad[j] = max(rad[j], hi - lo)
                p = p * (-d)
            lo_t.append(row)
            rem.append(int_ends(abs(p) * (-aa * d).exp() * S / fact[K + 1])[1])
    k = len(lo_t)
    return fmpz_mat(k, K + 1, [x for r in lo_t for x in r]), rad, fmpz_mat(k, 1, rem)


class DenseProducts:
    """:class:`Products` of a dense metric: histograms of its n×n index (:func:`hist_product`)."""

    def __init__(self, metric: FiniteMetric) -> None:
        self.metric, self.n, self.values = metric, metric.n, list(metric.values)
        self.codes, self.counts = _codes(metric)

    def sums(self, table: fmpz_mat, ys: list[list[int]], tau: int = 0) -> tuple[np.ndarray, list[int]]:
        """(S, err = 0): S_m = Σ_{j+k=m} T_j·ys[k] exactly (one histogram product per vector)."""
        n, J = self.n, table.ncols()
        out = np.zeros((J + len(ys) - 1, n), dtype=object)
        for kk, y in enumerate(ys):
            P = hist_product(self.codes, n, len(self.values), y, self.counts, table)
            out[kk:kk + J] += np.array([int(x) for x in P.entries()], dtype=object).reshape(n, J).T
        return out, [0] * J

    def candidates(self, rhs: tuple[Fraction, ...], mids: fmpz_mat, K: int, sy: int = SY
                   ) -> list[list[int]] | None:
        """Dense float solves (one O(n³) inverse; then every solve is a product)."""
        def setup(tab: np.ndarray) -> tuple[Callable[..., Any], Callable[..., Any]]:
            M = [tab[:, j][np.asarray(self.metric.index)] for j in range(K + 1)]
            inv = np.linalg.inv(M[0])
            return (lambda v: inv @ v), (lambda j, v: M[j] @ v)
        return taylor_candidates(self, rhs, mids, K, sy, setup)


def piece_ok(metric: FiniteMetric | Products, rhs: tuple[Fraction, ...], a: Fraction, b: Fraction, K: int,
             lam: Fraction, upper_index: int | None = None, upper: Fraction | None = None,
             Y: np.ndarray | None = None) -> bool:
    """z(ε) > 0 for every ε in [a, b], given λ ≤ λ_min(Φ(ε)) there (Taylor bound of order K).

    With h = ε − c, c = (a + b)/2, ω = (b − a)/2 and y(h) = Σ h^k y_k:
    |b − Φ(ε)y(h)| ≤ r̄ := Σ_m ω^m|ρ_m| + ω^{K+1}P·Σ_k ω^k|y_k| (ρ_m the Taylor residuals,
    P ≥ d^{K+1}e^{−ad}/(K+1)! entrywise), and ‖z − y(h)‖∞ ≤ ‖r̄‖₂/λ; so min_i of
    y_0 − ω|y_1| − Σ_{k≥2} ω^k(|y_k| odd k, max(0, −y_k) even k) > ‖r̄‖₂/λ proves z > 0.
    Every Φ_j·y_k is exact (``metric`` a FiniteMetric: :func:`hist_product` on integer
    tables; or any :class:`Products`, e.g. exact grid convolutions), the table widths add
    max width·‖y_k‖₁ (plus err_j·‖y_k‖₁ for entries ≤ 2^-100 a product leaves out, and
    err·‖ysum‖₁ for the remainder), and the comparison is exact (squares of integers).

    With ``upper_index = i`` (a point: K = 0, a = b) it decides instead
    y_i + ‖r̄‖₂/λ < 0 and (with ``upper``) ≤ ``upper``, i.e. z_i(a) < 0 and z_i(a) ≤ upper.
    ``Y`` (n × (K+1) floats) replaces the kernel's own candidates (any Y is sound: a bad
    one makes r̄ large).
    """
    prods = DenseProducts(metric) if isinstance(metric, FiniteMetric) else metric
    n = prods.n
    if not all_rational(a, b, lam) or lam <= 0 or not is_index(K, MAX_ORDER + 1) or b < a or len(rhs) != n or n < 1:
        return False
    c, omega = (a + b) / 2, (b - a) / 2
    mids, radmax, rems = _tables(prods.values, c, a, K)
    op, oq = omega.numerator, omega.denominator  # ω = op/oq; r̄_i = T_i / zden in integers
    ln, ld, B = lam.numerator, lam.denominator, math.lcm(*(x.denominator for x in rhs))
    for sy in (SY,) if Y is not None else Y_LEVELS:  # finer y_0 while its residual decides
        yint = (prods.candidates(rhs, mids, K, sy) if Y is None else
                [[int(v) for v in np.rint(np.ldexp(Y[:, j], SY))] for j in range(K + 1)])
        if yint is None:
            return False
        Yi = np.array(yint, dtype=object)  # (K + 1) × n
        wk = np.array([op**kk * oq ** (K - kk) for kk in range(K + 1)], dtype=object)
        ysum = -(-(wk @ np.abs(Yi)) // oq**K)  # ⌈Σ_k ω^k |y_k,i|⌉
        S, err = prods.sums(mids, yint, _CROP)  # S[m][i] = Σ_{j+k=m} (M_j y_k)_i at scale 2^(ST+sy)
        (Pr,), (perr,) = prods.sums(rems, [ysum.tolist()], _CROP)
        l1 = np.abs(Yi).sum(axis=1)
        bint = np.array([x.numerator * (B // x.denominator) << (ST + sy) for x in rhs], dtype=object)
        zm = np.array([op**m * oq ** (2 * K + 2 - m) for m in range(2 * K + 3)], dtype=object)
        rad_m = np.array([sum((radmax[j] + err[j]) * l1[m - j] for j in range(K + 1) if 0 <= m - j <= K)
                          for m in range(2 * K + 1)], dtype=object)
        A = np.abs(S) * B
        A[0] = np.abs(bint - S[0] * B)
        T = zm[K + 1] * B * (Pr + perr * int(np.abs(ysum).sum())) + zm[:2 * K + 1] @ (A + rad_m[:, None] * B)
        sum_r2 = int(np.dot(T, T))
        zden = B * oq ** (2 * K + 2) << (ST + sy)
        share0 = 16 * int(np.dot(zm[0] * A[0], zm[0] * A[0])) >= sum_r2  # ρ_0 ≥ 1/4 of ‖r̄‖₂
        X, e2 = zden * zden * ln * ln, sum_r2 * ld * ld  # |v| > ‖r̄‖₂/λ ⟺ v²·X > e2
        if upper_index is not None:  # y_i + ‖r̄‖₂/λ < 0 and ≤ upper (exact squares)
            yi = Fraction(yint[0][upper_index], 1 << sy)
            g = (Fraction(0) if upper is None else upper) - yi
            if K != 0 or a != b or not all_rational(g) or (upper is not None and not all_rational(upper)):
                return False
            up_ok = upper is None or (g >= 0 and g * g * X >= e2)
            if -yi > 0 and yi * yi * X > e2 and up_ok:
                return True
            if yi * yi * X > e2 and yi > 0 or (not up_ok and g < 0 and g * g * X > e2):
                return False  # z_i > 0 or z_i > upper, proved
        else:
            low = Yi[0] * oq**K
            for kk in range(1, K + 1):
                low = low - op**kk * oq ** (K - kk) * (np.abs(Yi[kk]) if kk % 2 else np.maximum(0, -Yi[kk]))
            lmin = min(low)
            if lmin * lmin * X > e2 * ((oq**K) << sy) ** 2:  # (lmin / (2^sy oq^K))² > ‖r̄‖₂²/λ²
                return bool(lmin > 0)
        if not share0:
            return False
    return False


def chord_ok(metric: FiniteMetric, nodes: list[tuple[Fraction, Fraction]], a: Fraction,
             b: Fraction, lam: Fraction) -> bool:
    """λ ≤ λ_min(Φ(ε)) on [a, b] by the chord lemma: nodes (ε_k, λ_k) (strictly increasing,
    each λ_k proved) reach from ≤ a to ≥ b, and for every consecutive pair overlapping
    [a, b], λ ≤ min(λ_k, λ_k+1) − ((ε_k+1 − ε_k)²/8)·max_i Σ_l d²e^{−ε_k d} (exact
    rational row sums: integer distance counts × rational upper bounds)."""
    eps = [e for e, _ in nodes]
    if not eps or eps[0] > a or eps[-1] < b:
        return False
    _, counts = _codes(metric)
    # Only the consecutive pairs with e0 < b and e1 > a matter: nodes are strictly increasing
    # (checked by the caller), so they are the pairs k-1, k for k from the first node > a on.
    first = max(bisect_right(eps, a), 1)
    for k in range(first, len(nodes)):
        (e0, l0), (e1, l1) = nodes[k - 1], nodes[k]
        if e0 >= b:
            break
        with workprec(96):
            ea = arb(to_fmpq(e0))
            ups = fmpq_mat(len(metric.values), 1, [
                to_fmpq(arb_to_fraction_interval(v.ball() * v.ball() * (-ea * v.ball()).exp())[1])
                for v in metric.values])
        rows = fmpq_mat(counts) * ups
        s2 = max(fmpq_to_fraction(rows[i, 0]) for i in range(metric.n))
        if not lam <= min(l0, l1) - (e1 - e0) ** 2 / 8 * s2:
            return False
    return True


def point_ok(prods: Products, rhs: tuple[Fraction, ...], eps: Any, index: Any, upper: Any,
             lam: Any, lam_ok: Callable[[], bool]) -> bool:
    """"Fails at eps" (``spd-point``, the fail side of ``grid-threshold``): index, ε, upper,
    λ > 0 and b well formed, λ ≤ λ_min(Φ(eps)) by ``lam_ok()``, and z_index(eps) < 0,
    ≤ ``upper`` by the point Taylor bound (:func:`piece_ok`, K = 0)."""
    return (is_index(index, prods.n) and all_rational(eps, upper, lam, *rhs) and len(rhs) == prods.n
            and lam > 0 and eps_in_range(prods, eps) and lam_ok()
            and piece_ok(prods, rhs, eps, eps, 0, lam, index, upper))


def check_spd_point(c: Any) -> bool:
    """The ``spd-point`` check (module table); never raises."""
    try:
        return (isinstance(c, SpdPointClaim) and isinstance(c.metric, FiniteMetric)
                and point_ok(DenseProducts(c.metric), c.rhs, c.eps, c.index, c.upper, c.lam,
                             lambda: lambda_ok(c.metric, c.eps, c.sigma, c.lam)))
    except REJECTED_ERRORS + (np.linalg.LinAlgError,):
        return False


def cover_args_ok(lo: Any, hi: Any, t0: Any, K: Any, pieces: Any) -> bool:
    """Rational 0 < lo < hi and t0, an order K ≤ :data:`MAX_ORDER`, pieces in order."""
    return all_rational(lo, hi, t0) and 0 < lo < hi and is_index(K, MAX_ORDER + 1) and pieces_in_order(pieces)


def cover_ok(prods: Products, frame: Any, rhs: tuple[Fraction, ...], lo: Any, hi: Any, t0: Any,
             K: Any, pieces: Any, side_ok: Callable[[], bool],
             lam_ok: Callable[[Fraction, Fraction, Fraction], bool]) -> bool:
    """The cover shared by ``spd-taylor-cover`` and ``grid-threshold``: :func:`cover_args_ok`,
    piece ends in range; the perturbation lemma at t0 and the pieces cover [hi, −ln t0]
    (``frame``: :func:`~exactdp.kernel.threshold_cover.cover_frame_ok`); every piece's
    λ > 0 proved by ``lam_ok(a, b, λ)``; the kind's fail side at lo (and node evidence) by
    ``side_ok()``; every piece by the Taylor bound of order K (:func:`piece_ok`)."""
    return (cover_args_ok(lo, hi, t0, K, pieces)
            and eps_in_range(prods, *(x for p in pieces for x in p[:2]))
            and cover_frame_ok(frame, rhs, hi, t0, tuple((a, b) for a, b, _ in pieces))
            and all(lam > 0 and lam_ok(a, b, lam) for a, b, lam in pieces) and side_ok()
            and all(piece_ok(prods, rhs, a, b, K, lam) for a, b, lam in pieces))
