"""Taylor pieces: "z(ε) > 0 for every ε in [a, b]" with O(n²) work once λ_min ≥ λ > 0 is known.

With centre c, h = ε − c, |h| ≤ ω, write Φ(c + h) = Σ_{j≤K} h^jΦ_j + h^{K+1}Q, where
Φ_j[i, l] = (−d)^j e^{−cd}/j! (d = d(i, l)) and, by Lagrange's remainder,
|Q[i, l]| ≤ P[i, l] := d^{K+1}e^{−ad}/(K+1)!. Take any vectors y_0..y_K (float solves of
the Taylor recurrence Φ_0y_k = −Σ_{j≥1}Φ_jy_{k−j}, y_0 = Φ_0⁻¹b) and y(h) = Σ h^ky_k. The
residual r(h) = b − Φ(c + h)y(h) = Σ_{m≤2K} h^mρ_m − h^{K+1}Qy(h) with
ρ_m = [m = 0]b − Σ_{j+k=m} Φ_jy_k, so for every |h| ≤ ω, componentwise

    |r(h)| ≤ Σ_m ω^m|ρ_m| + ω^{K+1} P (Σ_k ω^k|y_k|) =: r̄.

Since Φ(ε) is symmetric with λ_min ≥ λ > 0, ‖z(ε) − y(h)‖∞ ≤ ‖z − y‖₂ ≤ ‖r̄‖₂/λ, and

    z(ε) ≥ y_0 − ω|y_1| − Σ_{k≥2} ω^k·(|y_k| for odd k, max(0, −y_k) for even k) − ‖r̄‖₂/λ.

If that is > 0 for every component, z(ε) > 0 on the whole range (Φ is invertible there).
The |ρ_m| (m ≤ K) are floating-point residuals, bounded with the rounding model of
:mod:`exactdp.arithmetic.rounding` (every sum of N products, in any order, is within
γ_N·Σ|terms| of the exact one), plus the radii of the entries (arb enclosures of
e^{−cd}·d^j/j!). Checked step by step in ``proofs/spd_cover_bounds.py``.

Examples
--------
>>> from fractions import Fraction
>>> import numpy as np
>>> from exactdp.spaces.metrics import line
>>> from exactdp.threshold.providers import DenseProvider
>>> m = line(6)
>>> prov = DenseProvider(m)
>>> lam = prov.lambda_lower(Fraction(1), Fraction(11, 10))
>>> res, _ = taylor_piece(prov, list(m.values), np.ones(6), 0.0, Fraction(1), Fraction(11, 10), 3, lam)
>>> res.ok
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from flint import arb

from exactdp.arithmetic.ball import workprec
from exactdp.arithmetic.rationals import to_fmpq
from exactdp.arithmetic.rounding import ETA, float_down, float_up, gamma_up, pred, require_subnormals, succ
from exactdp.errors import PrecisionLimitReached
from exactdp.kinds import proved_by
from exactdp.linalg.verified import float_enclosure
from exactdp.threshold.float_bounds import ABS_SLACK, TINY, norm2_up, sum_up
from exactdp.threshold.providers import PhiProvider

__all__ = ["TaylorTables", "taylor_tables", "TaylorBounds", "taylor_vectors", "taylor_piece",
           "point_bounds"]


@dataclass(frozen=True)
class TaylorTables:
    """Tables of the Taylor coefficients, one entry per distinct distance value."""

    mids: np.ndarray      # (K+1, k) floats: Φ_j entry values
    radmax: np.ndarray    # (K+1,) max radius of the entries
    rem_up: np.ndarray    # (k,) ≥ d^{K+1} e^{−ad}/(K+1)!


def taylor_tables(values: list[Any], c: Fraction, a: Fraction, K: int) -> TaylorTables:
    """Float tables of Φ_0..Φ_K at centre ``c`` and of the remainder bound from ``a``.

    Entries below 2^-330 are set to 0 (mids) or raised to 2^-330 (upper bounds), and the
    radius grows by 2^-330: products then never reach the (very slow) subnormal range.
    """
    with workprec(128):
        ca, aa = arb(to_fmpq(c)), arb(to_fmpq(a))
        rows: list[list[Any]] = [[] for _ in range(K + 1)]
        rem = []
        fact = [math.factorial(j) for j in range(K + 2)]
        for v in values:
            d = v.ball()
            e = (-ca * d).exp()
            p = arb(1)
            for j in range(K + 1):
                rows[j].append(p * e / fact[j])
                p = p * (-d)
            rem.append(arb((abs(p) * (-aa * d).exp() / fact[K + 1]).upper()))
        mids, rads = [], []
        for j in range(K + 1):
            m, r = float_enclosure(rows[j])
            mids.append(np.asarray(m, dtype=np.float64))
            rads.append(float(np.max(r)) if len(r) else 0.0)
        rm, rr = float_enclosure(rem)
    mid_arr = np.array(mids)
    small = np.abs(mid_arr) < TINY
    mid_arr[small] = 0.0
    rad_arr = np.asarray(succ(np.array(rads) + TINY))
    rem_up = np.asarray(succ(np.asarray(rm) + np.asarray(rr)))
    rem_up = np.where((rem_up > 0) & (rem_up < TINY), TINY, rem_up)
    return TaylorTables(mid_arr, rad_arr, rem_up)


@dataclass(frozen=True)
class TaylorBounds:
    """Result of one Taylor piece: componentwise lower bound of z on the range."""

    ok: bool
    min_lower: float       # min_i of the certified lower bound (may be ≤ 0)
    err: float             # ‖r̄‖₂/λ
    lam: Fraction


def _solve_taylor(prov: PhiProvider, tab: TaylorTables, b: np.ndarray, K: int) -> np.ndarray:
    solve = prov.solver(tab.mids[0])
    ys = [np.asarray(solve(b))]
    # one refinement step for y0
    r0 = b - prov.matvec(tab.mids[0], ys[0][:, None])[:, 0]
    ys[0] = ys[0] + np.asarray(solve(r0))
    for k in range(1, K + 1):
        acc = np.zeros(prov.n)
        for j in range(1, k + 1):
            acc += prov.matvec(tab.mids[j], ys[k - j][:, None])[:, 0]
        ys.append(-np.asarray(solve(acc)))
    return np.stack(ys, axis=1)  # (n, K+1)


def taylor_vectors(prov: PhiProvider, values: list[Any], b: np.ndarray, a: Fraction,
                   bb: Fraction, K: int) -> np.ndarray:
    """Float Taylor vectors y_0..y_K at the centre of [a, bb] (columns; uncertified)."""
    tab = taylor_tables(values, (a + bb) / 2, a, K)
    return _solve_taylor(prov, tab, b, K)


@proved_by("spd_cover_bounds")
def taylor_piece(prov: PhiProvider, values: list[Any], b: np.ndarray, b_rad: float,
                 a: Fraction, bb: Fraction, K: int, lam: Fraction,
                 Y: np.ndarray | None = None) -> tuple[TaylorBounds, np.ndarray]:
    """Certify z(ε) > 0 for all ε in [a, bb] (module docstring; ``proofs/spd_cover_bounds.py``).

    ``b`` is the float right-hand side, exact up to ``b_rad`` per entry; ``lam`` a proved
    lower bound of λ_min(Φ(ε)) on [a, bb]. Returns the bounds and the Taylor vectors.
    """
    if lam <= 0 or K < 0 or bb < a:
        return TaylorBounds(False, -math.inf, math.inf, lam), np.zeros((prov.n, 0))
    require_subnormals("Taylor range check")
    c = (a + bb) / 2
    omega = float_up((bb - a) / 2)
    tab = taylor_tables(values, c, a, K)
    if Y is None:
        Y = _solve_taylor(prov, tab, b, K)
    n = prov.n
    absY = np.abs(Y)
    g = gamma_up(prov.gamma_terms + K + 3)
    inv1g = float_up(1 / (1 - Fraction(gamma_up(prov.gamma_terms))))
    # underflow: ≤ η/2 per rounded product or sum; ABS_SLACK (1e-300) covers any count of
    # terms below 10²³, far beyond every n here
    tail = float_up(Fraction(2 * prov.gamma_terms) * ETA) + ABS_SLACK
    l1 = np.array([sum_up(absY[:, k]) for k in range(K + 1)])
    # products: S[j] = M_j [Y, |Y|]
    prods = []
    for j in range(K + 1):
        prods.append(prov.matvec(tab.mids[j], np.concatenate([Y, absY], axis=1)))
    # AB[j][k] ≥ |M_j||y_k| (float mids); RT[j][k] ≥ |Φ_j − M_j||y_k| (entry radii)
    AB = [[np.asarray(succ(succ(np.abs(prods[j][:, K + 1 + k]) + tail) * inv1g))
           for k in range(K + 1)] for j in range(K + 1)]
    RT = [[float(succ(tab.radmax[j] * l1[k])) for k in range(K + 1)] for j in range(K + 1)]
    omegas = [1.0]
    for _ in range(2 * K + 2):
        omegas.append(float(succ(omegas[-1] * omega)))
    rbar = np.zeros(n)
    for m in range(2 * K + 1):
        pairs = [(j, m - j) for j in range(K + 1) if 0 <= m - j <= K]
        mag = np.zeros(n)
        rt = 0.0
        for j, k in pairs:
            mag = succ(mag + AB[j][k])
            rt = float(succ(rt + RT[j][k]))
        if m <= K:
            # |ρ_m| ≤ |fl(ρ_m)| + γ(|b|[m=0] + Σ|M_j||y_k|) + tails + Σ radius terms (+ b radius)
            fl = (b if m == 0 else np.zeros(n)).copy()
            for j, k in pairs:
                fl = fl - prods[j][:, k]
            base = np.abs(b) if m == 0 else np.zeros(n)
            bound = succ(np.abs(fl) + succ(g * succ(mag + base)))
            bound = succ(bound + float(succ(rt + tail * (K + 2) + (b_rad if m == 0 else 0.0))))
        else:
            bound = succ(mag + rt)
        rbar = succ(rbar + succ(omegas[m] * bound))
    # remainder: ω^{K+1} P Σ ω^k |y_k|
    Ysum = np.zeros(n)
    for k in range(K + 1):
        Ysum = succ(Ysum + succ(omegas[k] * absY[:, k]))
    rem_tab = tab.rem_up
    PY = prov.matvec(rem_tab, Ysum[:, None])[:, 0]
    PY = succ(succ(PY + tail) * inv1g)
    rbar = succ(rbar + succ(omegas[K + 1] * PY))
    if not np.all(np.isfinite(rbar)) or lam <= 0:
        return TaylorBounds(False, -math.inf, math.inf, lam), Y
    lam_f = float_down(lam)
    err = float(succ(norm2_up(rbar) / lam_f))
    low = Y[:, 0].copy()
    low = pred(low - succ(omegas[1] * absY[:, 1])) if K >= 1 else low
    for k in range(2, K + 1):
        term = absY[:, k] if k % 2 else np.maximum(0.0, -Y[:, k])
        low = pred(low - succ(omegas[k] * term))
    low = pred(low - err)
    mn = float(np.min(low))
    return TaylorBounds(bool(np.all(np.isfinite(low)) and mn > 0), mn, err, lam), Y


def point_bounds(prov: PhiProvider, values: list[Any], b: np.ndarray, b_rad: float,
                 eps: Fraction, lam: Fraction) -> tuple[np.ndarray, float]:
    """(y, err): the exact z(eps) satisfies |z − y| ≤ err componentwise (err = ∞: unknown)."""
    tab = taylor_tables(values, eps, eps, 0)
    Y = _solve_taylor(prov, tab, b, 0)
    res, _ = taylor_piece(prov, values, b, b_rad, eps, eps, 0, lam, Y)
    if not math.isfinite(res.err):
        raise PrecisionLimitReached(f"no error bound at ε = {eps}")
    return Y[:, 0], res.err
