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

from exactdp.arithmetic.ball import arb_to_fraction_interval, workprec
from exactdp.arithmetic.rationals import to_fmpq
from exactdp.arithmetic.rounding import ETA, float_down, float_up, gamma_up, pred, require_subnormals, succ
from exactdp.errors import InvalidArgument, PrecisionLimitReached
from exactdp.kinds import proved_by
from exactdp.linalg.exact_products import exact_table_matvec
from exactdp.linalg.verified import float_enclosure
from exactdp.threshold.float_bounds import ABS_SLACK, TINY, norm2_up, sum_up
from exactdp.threshold.providers import PhiProvider

__all__ = ["TaylorTables", "taylor_tables", "TaylorBounds", "taylor_vectors", "taylor_piece",
           "point_bounds", "exact_residual_bound", "on_residual_grid"]

_S_TAB = 100  # exact residual: table entries enclosed by integers at scale 2^100
_S_Y = 64     # ... and y_0 on the grid 2^-64


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


def _solve_taylor(prov: PhiProvider, tab: TaylorTables, b: np.ndarray, K: int,
                  accurate: bool = False) -> np.ndarray:
    solve = prov.solver(tab.mids[0])
    ys = [np.asarray(solve(b))]
    # one refinement step for y0 (with an accurate residual when asked)
    if accurate:
        ys[0] = on_residual_grid(ys[0])
        r0 = _accurate_residual(prov, tab.mids[0], b, ys[0])
    else:
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
    """Float Taylor vectors y_0..y_K at the centre of [a, bb] (columns; uncertified).

    y_0 is refined with an accurate residual (:func:`_accurate_residual`), so these
    candidates are as good as the escalated ones of the search (the exact re-checks of
    the certificates use them).
    """
    tab = taylor_tables(values, (a + bb) / 2, a, K)
    return _solve_taylor(prov, tab, b, K, accurate=True)


def _accurate_residual(prov: PhiProvider, table: np.ndarray, b: np.ndarray,
                       y: np.ndarray) -> np.ndarray:
    """b − M y to about double precision, M the float table rounded to 2^-100, y on the
    grid 2^-64 (exact limb products; a candidate's refinement, no rigour needed)."""
    tint = [int(v) for v in np.rint(np.ldexp(table, _S_TAB))]
    yint = [int(v) for v in np.ldexp(y, _S_Y)]
    prod = exact_table_matvec(prov.matvec, prov.n, tint, [yint])[0]
    sh = _S_TAB + _S_Y
    bint: dict[float, int] = {}
    out = np.empty(prov.n)
    for i, (bi, p) in enumerate(zip(b.tolist(), prod)):
        if bi not in bint:
            bint[bi] = round(Fraction(bi) * (1 << sh))
        out[i] = (bint[bi] - p) / (1 << sh)
    return out


@proved_by("spd_cover_bounds")
def taylor_piece(prov: PhiProvider, values: list[Any], b: np.ndarray, b_rad: float,
                 a: Fraction, bb: Fraction, K: int, lam: Fraction,
                 Y: np.ndarray | None = None,
                 rhs: tuple[Fraction, ...] | None = None) -> tuple[TaylorBounds, np.ndarray]:
    """Certify z(ε) > 0 for all ε in [a, bb] (module docstring; ``proofs/spd_cover_bounds.py``).

    ``b`` is the float right-hand side, exact up to ``b_rad`` per entry; ``lam`` a proved
    lower bound of λ_min(Φ(ε)) on [a, bb]. Returns the bounds and the Taylor vectors.

    Precision escalation: when the float bound fails and at least a quarter of the error
    comes from the rounding floor of ρ_0 = b − Φ_0y_0 (the a priori γ_N|Φ_0||y_0| term),
    and the exact right-hand side ``rhs`` is given, ρ_0 is recomputed *exactly*
    (:func:`exact_residual_bound`: integer limb products, no rounding analysis), with y_0
    refined once by that exact residual if needed.
    """
    if lam <= 0 or K < 0 or bb < a:
        return TaylorBounds(False, -math.inf, math.inf, lam), np.zeros((prov.n, 0))
    require_subnormals("Taylor range check")
    c = (a + bb) / 2
    omega = float_up((bb - a) / 2)
    tab = taylor_tables(values, c, a, K)
    if Y is None:
        Y = _solve_taylor(prov, tab, b, K)
    res, share0 = _piece(prov, tab, b, b_rad, omega, K, lam, Y, None)
    if res.ok or rhs is None or not share0 >= 0.25:
        return res, Y
    return _escalate(prov, values, tab, b, b_rad, omega, K, lam, Y, rhs, c,
                     lambda r, _y: r.ok)


def _escalate(prov: PhiProvider, values: list[Any], tab: TaylorTables, b: np.ndarray,
              b_rad: float, omega: float, K: int, lam: Fraction, Y: np.ndarray,
              rhs: tuple[Fraction, ...], c: Fraction,
              decided: Any) -> tuple[TaylorBounds, np.ndarray]:
    """Exact ρ_0 for y_0 on the grid 2^-_S_Y, then once more after refining y_0 by it."""
    Y = Y.copy()
    res = TaylorBounds(False, -math.inf, math.inf, lam)
    for attempt in range(2):
        Y[:, 0] = on_residual_grid(Y[:, 0])
        center, upper = exact_residual_bound(prov, values, rhs, c, Y[:, 0])
        res, _ = _piece(prov, tab, b, b_rad, omega, K, lam, Y, upper)
        if decided(res, Y) or attempt == 1:
            break
        Y[:, 0] = Y[:, 0] + np.asarray(prov.solver(tab.mids[0])(center))
    return res, Y


def _piece(prov: PhiProvider, tab: TaylorTables, b: np.ndarray, b_rad: float, omega: float,
           K: int, lam: Fraction, Y: np.ndarray,
           rho0_up: np.ndarray | None) -> tuple[TaylorBounds, float]:
    """The bounds of :func:`taylor_piece` for given Taylor vectors, and the share of the
    error due to the ρ_0 term; ``rho0_up`` (≥ |b − Φ_0y_0| exactly) replaces that term."""
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
    bound0 = np.zeros(n)
    for m in range(2 * K + 1):
        pairs = [(j, m - j) for j in range(K + 1) if 0 <= m - j <= K]
        mag = np.zeros(n)
        rt = 0.0
        for j, k in pairs:
            mag = succ(mag + AB[j][k])
            rt = float(succ(rt + RT[j][k]))
        if m == 0 and rho0_up is not None:
            bound = np.asarray(rho0_up)
        elif m <= K:
            # |ρ_m| ≤ |fl(ρ_m)| + γ(|b|[m=0] + Σ|M_j||y_k|) + tails + Σ radius terms (+ b radius)
            fl = (b if m == 0 else np.zeros(n)).copy()
            for j, k in pairs:
                fl = fl - prods[j][:, k]
            base = np.abs(b) if m == 0 else np.zeros(n)
            bound = succ(np.abs(fl) + succ(g * succ(mag + base)))
            bound = succ(bound + float(succ(rt + tail * (K + 2) + (b_rad if m == 0 else 0.0))))
        else:
            bound = succ(mag + rt)
        if m == 0:
            bound0 = bound
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
        return TaylorBounds(False, -math.inf, math.inf, lam), 0.0
    lam_f = float_down(lam)
    err = float(succ(norm2_up(rbar) / lam_f))
    share0 = float(np.linalg.norm(bound0)) / float(lam) / err if err > 0 else 0.0
    low = Y[:, 0].copy()
    low = pred(low - succ(omegas[1] * absY[:, 1])) if K >= 1 else low
    for k in range(2, K + 1):
        term = absY[:, k] if k % 2 else np.maximum(0.0, -Y[:, k])
        low = pred(low - succ(omegas[k] * term))
    low = pred(low - err)
    mn = float(np.min(low))
    return TaylorBounds(bool(np.all(np.isfinite(low)) and mn > 0), mn, err, lam), share0


def on_residual_grid(y: np.ndarray) -> np.ndarray:
    """y rounded to the grid 2^-64 (exact in float): the y_0 of :func:`exact_residual_bound`."""
    return np.asarray(np.ldexp(np.rint(np.ldexp(y, _S_Y)), -_S_Y))


@proved_by("grid_exact_products")
def exact_residual_bound(prov: PhiProvider, values: list[Any], rhs: tuple[Fraction, ...],
                         c: Fraction, y0: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(center, upper): |b − Φ(c)y0| ≤ upper componentwise, exactly; center ≈ b − Φ(c)y0.

    Each distinct entry e^{−cd} is enclosed by [A_k, A_k + r_k]·2^-100 (arb ball, rounded
    outward to integers); y0 (on the grid 2^-64) is an integer vector Y·2^-64; the product
    A·Y is exact (:func:`exactdp.linalg.exact_products.exact_table_matvec`, the provider's
    own structured product on integer limbs), so with B the common denominator of b,
    |b − Φy0|_i ≤ (|B·b_i·2^164 − B·(AY)_i| + B·max_k r_k·‖Y‖₁)/(B·2^164), rounded up
    (Python's int/int division is correctly rounded; one ``succ``). No float rounding
    analysis (``proofs/grid_exact_products.py``). Memory O(n), time about 25 structured
    products.
    """
    if len(rhs) != prov.n or len(y0) != prov.n:
        raise InvalidArgument(f"exact_residual_bound: rhs has {len(rhs)} and y0 {len(y0)} entries; "
                              f"Φ is {prov.n}×{prov.n}: pass vectors of length {prov.n}.")
    S = 1 << _S_TAB
    lo_int: list[int] = []
    radmax = 0
    with workprec(_S_TAB + 64):
        ca = arb(to_fmpq(c))
        for v in values:
            lo, hi = arb_to_fraction_interval((-ca * v.ball()).exp())
            lo_k, hi_k = math.floor(lo * S), math.ceil(hi * S)
            lo_int.append(lo_k)
            radmax = max(radmax, hi_k - lo_k)
    scaled = np.ldexp(np.asarray(y0, dtype=np.float64), _S_Y)
    if not np.all(scaled == np.rint(scaled)):
        raise PrecisionLimitReached("exact_residual_bound: y0 is not on the grid 2^-64 "
                                    "(round it with on_residual_grid first)")
    yint = [int(v) for v in scaled]
    prod = exact_table_matvec(prov.matvec, prov.n, lo_int, [yint])[0]
    bden = math.lcm(*(Fraction(x).denominator for x in rhs))
    sh = _S_TAB + _S_Y
    den = bden << sh
    radterm = bden * radmax * sum(abs(v) for v in yint)
    center = np.empty(prov.n)
    upper = np.empty(prov.n)
    for i, (bi, p) in enumerate(zip(rhs, prod)):
        bq = Fraction(bi)
        r = ((bq.numerator * (bden // bq.denominator)) << sh) - bden * p
        center[i] = r / den
        upper[i] = (abs(r) + radterm) / den
    return center, np.asarray(succ(upper))


def point_bounds(prov: PhiProvider, values: list[Any], b: np.ndarray, b_rad: float,
                 eps: Fraction, lam: Fraction,
                 rhs: tuple[Fraction, ...] | None = None) -> tuple[np.ndarray, float]:
    """(y, err): the exact z(eps) satisfies |z − y| ≤ err componentwise (err = ∞: unknown).

    With the exact ``rhs``, when the float bound cannot place min y below zero
    (min y < 0 ≤ min y + err) the residual is recomputed exactly (precision escalation,
    :func:`exact_residual_bound`).
    """
    tab = taylor_tables(values, eps, eps, 0)
    Y = _solve_taylor(prov, tab, b, 0)
    res, _ = _piece(prov, tab, b, b_rad, 0.0, 0, lam, Y, None)
    if not math.isfinite(res.err):
        raise PrecisionLimitReached(f"no error bound at ε = {eps}")
    mn = float(np.min(Y[:, 0]))
    if rhs is not None and mn < 0 <= mn + res.err:
        res, Y = _escalate(prov, values, tab, b, b_rad, 0.0, 0, lam, Y, rhs, eps,
                           lambda r, y: float(np.min(y[:, 0])) + r.err < 0)
    return Y[:, 0], res.err
