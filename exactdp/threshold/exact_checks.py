"""Independent re-proofs with exact integer arithmetic: λ_min nodes and Taylor pieces (dense).

The verifier of the SPD cover certificate (:mod:`exactdp.threshold.certificates`) re-proves
what the search found with the floating-point rounding model, here with no rounding
analysis at all: only ball enclosures of the entries (python-flint ``arb``) and exact
integers (``fmpz_mat``). Same mathematics as :mod:`exactdp.threshold.lambda_bounds` and
:mod:`exactdp.threshold.taylor`, independent arithmetic (``proofs/spd_cover_bounds.py``).

Examples
--------
>>> from fractions import Fraction
>>> from exactdp.spaces.metrics import line
>>> from exactdp.threshold.lambda_bounds import dense_lambda_node
>>> m = line(5)
>>> sigma, lam = dense_lambda_node(m, Fraction(1))
>>> exact_lambda_check(m, Fraction(1), sigma, lam)
True
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from flint import arb, fmpz_mat

from exactdp.arithmetic.ball import arb_to_fraction_interval, workprec
from exactdp.arithmetic.rationals import to_fmpq
from exactdp.kinds import proved_by
from exactdp.spaces.metrics import FiniteMetric

__all__ = ["exact_lambda_check", "exact_hist_product", "exact_piece_check"]


@proved_by("spd_cover_bounds")
def exact_lambda_check(metric: FiniteMetric, eps: Fraction, sigma: Fraction,
                       claimed: Fraction, bits: int = 60) -> bool:
    """Independent re-proof of λ_min(Φ(eps)) ≥ claimed, by exact integer arithmetic.

    Each distinct entry e^{-eps·d} is enclosed by an arb ball, rounded outward to a
    rational interval, and represented by the integer A_k nearest its centre on the grid
    2^−2bits with an exact rational bound r_k ≥ |e^{-eps·d} − A_k·2^−2bits|. A float
    Cholesky factor of Φ_mid − σI, rounded to the grid 2^−bits, is only a candidate (any
    lower triangular L will do): E = LLᵀ − (A − σI) is computed exactly over the integers,
    and A − σI = LLᵀ − E ⪰ −E gives λ_min(Φ) ≥ σ − ‖E‖∞·2^−2bits − n·max_k r_k. No
    floating-point rounding analysis is involved (so it does not depend on subnormals
    being kept), only ball enclosures and integer arithmetic (python-flint). The
    congruence argument is in ``proofs/spd_cover_bounds.py``.
    """
    n = metric.n
    sigma = Fraction(sigma)
    if sigma.denominator > 2**bits or n < 1:
        return False
    scale = 1 << (2 * bits)
    ints: list[int] = []
    rmax = Fraction(0)
    with workprec(2 * bits + 64):
        e = arb(to_fmpq(eps))
        for v in metric.values:
            lo, hi = arb_to_fraction_interval((-e * v.ball()).exp())
            a_k = round((lo + hi) / 2 * scale)
            ints.append(a_k)
            rmax = max(rmax, hi - Fraction(a_k, scale), Fraction(a_k, scale) - lo)
    A = np.ldexp(np.array(ints, dtype=np.float64), -2 * bits)[metric.index]
    As = A.copy()
    np.fill_diagonal(As, np.diagonal(A) - float(sigma))
    try:
        L = np.linalg.cholesky(As)
    except np.linalg.LinAlgError:
        return False
    if not np.all(np.isfinite(L)):
        return False
    Lm = fmpz_mat(n, n, [int(x) for x in np.rint(L * 2.0**bits).ravel()])
    idx = np.asarray(metric.index)
    Ai = [ints[int(k)] for k in idx.ravel()]
    shift = int(sigma * scale)  # exact: σ has denominator ≤ 2^bits
    for i in range(n):
        Ai[i * n + i] -= shift
    E = Lm * Lm.transpose() - fmpz_mat(n, n, Ai)
    ent = [abs(int(x)) for x in E.entries()]
    worst = max(sum(ent[i * n:(i + 1) * n]) for i in range(n))
    bound = sigma - Fraction(worst, scale) - n * rmax
    return bound >= claimed


_SY = 58    # Taylor vectors are rounded to the grid 2^-58
_ST = 110   # table entries are enclosed by integers at scale 2^110
_LIMB = 30  # histogram limbs: n·2^30 < 2^53 keeps every float partial sum exact


def exact_hist_product(codes: np.ndarray, n: int, k: int, v: list[int],
                       counts: fmpz_mat, table: fmpz_mat) -> fmpz_mat:
    """H·table exactly, where H[i, d] = Σ_{l : idx[i,l] = d} v[l] (v integers of any size).

    v is shifted to v + off ≥ 0 and cut into 30-bit limbs; each limb's histogram is a
    float bincount whose partial sums stay below n·2^30 < 2^53 (so it is exact); the limb
    products are recombined over the integers and off·(distance counts)·table subtracted.
    """
    off = max(0, -min(v))
    vp = [x + off for x in v]
    top = max(vp)
    out = fmpz_mat(n, table.ncols())
    shift = 0
    mask = (1 << _LIMB) - 1
    while top >> shift:
        limb = np.array([(x >> shift) & mask for x in vp], dtype=np.float64)
        h = np.bincount(codes, weights=np.tile(limb, n), minlength=n * k)
        out += (fmpz_mat(n, k, h.astype(np.int64).tolist()) * table) * (1 << shift)
        shift += _LIMB
    if off:
        out -= (counts * table) * off
    return out


@proved_by("spd_cover_bounds")
def exact_piece_check(metric: FiniteMetric, rhs: tuple[Fraction, ...], a: Fraction,
                      b: Fraction, K: int, lam: Fraction, Y: np.ndarray,
                      upper_index: int | None = None, upper: Fraction | None = None) -> bool:
    """Re-prove a Taylor piece with exact integer arithmetic (no rounding analysis).

    The Taylor vectors are rounded to dyadics y_k (grid 2^-58); the entries of Φ_j and
    of the remainder table are enclosed by integers at scale 2^110 (arb balls, outward);
    every Φ_j·y_k is computed exactly through per-row histograms of y_k over the
    distinct distances (H[i, d] = Σ_{d(i,l)=d} y_l, float sums of 30-bit limbs, exact);
    the entry radii contribute ≤ max radius·‖y_k‖₁ and the remainder P·Σ_k ω^k|y_k| uses
    that vector rounded up. Then r̄, ‖r̄‖₂² and the lower bound of y(h) are exact
    rationals and min_i lower_i > ‖r̄‖₂/λ is decided exactly (squares). Same mathematics
    as :func:`exactdp.threshold.taylor.taylor_piece` (``proofs/spd_cover_bounds.py``), independent arithmetic.

    With ``upper_index = i`` (a point, K = 0) it decides instead y_i + ‖r̄‖₂/λ < 0, i.e.
    that z_i(a) < 0; with ``upper`` as well, also that y_i + ‖r̄‖₂/λ ≤ upper, i.e. that
    z_i(a) ≤ upper.
    """
    n = metric.n
    if n > 1 << 22 or lam <= 0 or K < 0 or b < a:
        return False
    values = list(metric.values)
    k = len(values)
    codes = (np.arange(n, dtype=np.int64)[:, None] * k + metric.index).ravel()
    counts = fmpz_mat(n, k, np.bincount(codes, minlength=n * k).tolist())
    c = (a + b) / 2
    omega = (b - a) / 2
    yint = [[int(v) for v in np.rint(np.ldexp(Y[:, j], _SY))] for j in range(K + 1)]
    om = [omega**m for m in range(2 * K + 3)]
    # Σ_k ω^k |y_k|, rounded up to the grid 2^-SY
    ysum = [sum(om[kk] * abs(yint[kk][i]) for kk in range(K + 1)) for i in range(n)]
    ysum_int = [math.ceil(x) for x in ysum]
    # tables: integer enclosures at scale 2^_ST (lo, and hi − lo as radius)
    fact = [math.factorial(j) for j in range(K + 2)]
    S = 1 << _ST
    mid_tab: list[list[int]] = [[] for _ in range(K + 1)]
    radmax = [0] * (K + 1)
    rem_tab: list[int] = []
    with workprec(192):
        ca, aa = arb(to_fmpq(c)), arb(to_fmpq(a))
        for v in values:
            d = v.ball()
            e = (-ca * d).exp()
            p = arb(1)
            for j in range(K + 1):
                lo, hi = arb_to_fraction_interval(p * e / fact[j])
                lo_i, hi_i = math.floor(lo * S), math.ceil(hi * S)
                mid_tab[j].append(lo_i)
                radmax[j] = max(radmax[j], hi_i - lo_i)
                p = p * (-d)
            _, hi = arb_to_fraction_interval(abs(p) * (-aa * d).exp() / fact[K + 1])
            rem_tab.append(math.ceil(hi * S))
    mids = fmpz_mat(k, K + 1, [mid_tab[j][d] for d in range(k) for j in range(K + 1)])
    rems = fmpz_mat(k, 1, rem_tab)
    signed = []  # signed[kk][j][i] = (M_j y_kk)_i at scale 2^(ST+SY)
    for kk in range(K + 1):
        P = exact_hist_product(codes, n, k, yint[kk], counts, mids)
        signed.append([[int(P[i, j]) for i in range(n)] for j in range(K + 1)])
    Pr = exact_hist_product(codes, n, k, ysum_int, counts, rems)
    remprod = [int(Pr[i, 0]) for i in range(n)]
    l1 = [sum(abs(x) for x in yint[kk]) for kk in range(K + 1)]
    # all in integers: r̄_i = R_i / Zden, lower_i = L_i / (2^SY·oq^K)
    op, oq = omega.numerator, omega.denominator
    bq = [Fraction(x) for x in rhs]
    B = math.lcm(*(x.denominator for x in bq))
    bint = [x.numerator * (B // x.denominator) << (_ST + _SY) for x in bq]  # b·B·2^(ST+SY)
    zm = [op**m * oq ** (2 * K + 2 - m) for m in range(2 * K + 3)]
    pairs_m = [[(j, m - j) for j in range(K + 1) if 0 <= m - j <= K] for m in range(2 * K + 1)]
    rad_m = [sum(radmax[j] * l1[kk] for j, kk in pm) for pm in pairs_m]
    sum_r2 = 0
    for i in range(n):
        T = 0
        for m in range(2 * K + 1):
            sgn = sum(signed[kk][j][i] for j, kk in pairs_m[m])
            if m == 0:  # ρ_0 = b − Σ M_j y_k; for m ≥ 1 the residual has no b term
                val = abs(bint[i] - sgn * B) + rad_m[m] * B
            else:
                val = (abs(sgn) + rad_m[m]) * B
            T += zm[m] * val
        T += zm[K + 1] * remprod[i] * B
        sum_r2 += T * T
    zden = B * oq ** (2 * K + 2) << (_ST + _SY)
    lam_n, lam_d = lam.numerator, lam.denominator
    if upper_index is not None:
        if K != 0 or a != b:
            return False
        neg = -yint[0][upper_index]
        if not (neg > 0 and neg * neg * zden * zden * lam_n * lam_n >
                sum_r2 * (1 << _SY) ** 2 * lam_d * lam_d):
            return False
        if upper is None:
            return True
        g = Fraction(upper) - Fraction(yint[0][upper_index], 1 << _SY)  # upper − y_i ≥ ‖r̄‖₂/λ
        return g >= 0 and g * g * zden * zden * lam_n * lam_n >= sum_r2 * lam_d * lam_d
    lmin = None
    for i in range(n):
        L = yint[0][i] * oq**K
        if K >= 1:
            L -= op * oq ** (K - 1) * abs(yint[1][i])
        for kk in range(2, K + 1):
            yk = yint[kk][i]
            L -= op**kk * oq ** (K - kk) * (abs(yk) if kk % 2 else max(0, -yk))
        lmin = L if lmin is None else min(lmin, L)
    if lmin is None or lmin <= 0:
        return False
    # (lmin / (2^SY oq^K))² > Σ R² / (zden² λ²)
    return bool(lmin * lmin * zden * zden * lam_n * lam_n > sum_r2 * ((oq**K) << _SY) ** 2 * lam_d * lam_d)
