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
Providers with fast exact products (grids: :mod:`exactdp.linalg.grid_exact_conv`) bound
them *exactly*: integer tables at 2^-100, vectors on integer grids (:func:`on_column_grids`),
exact products, one rounded division per entry (``proofs/grid_exact_convolution.py``).

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
from exactdp.arithmetic.rounding import ETA, U, float_down, float_up, gamma_up, pred, require_subnormals, succ
from exactdp.errors import InvalidArgument, PrecisionLimitReached
from exactdp.kinds import proved_by
from exactdp.linalg.verified import float_enclosure
from exactdp.threshold.float_bounds import ABS_SLACK, TINY, norm2_up, sum_up
from exactdp.threshold.providers import PhiProvider
from exactdp.threshold.taylor_exact import (
    MAX_Y0_BITS,
    TABLE_BITS,
    Y0_BITS,
    ExactTables,
    exact_residual,
    exact_residual_bound,
    exact_rho_bounds,
    exact_taylor_tables,
    far_square,
    on_column_grids,
    on_residual_grid,
    refined_y0,
)
from exactdp.threshold.value_powers import value_powers

# ExactTables, exact_taylor_tables, exact_residual_bound, on_residual_grid, on_column_grids and
# MAX_Y0_BITS live in :mod:`exactdp.threshold.taylor_exact` (re-exported here)
__all__ = ["TaylorTables", "ExactTables", "taylor_tables", "exact_taylor_tables", "TaylorBounds",
           "taylor_vectors", "taylor_piece", "point_bounds", "exact_residual_bound", "on_residual_grid",
           "on_column_grids", "MAX_Y0_BITS"]

#: the names these had before the split (proofs and tests read them)
_exact_rho_bounds, _far_square = exact_rho_bounds, far_square



@dataclass(frozen=True)
class TaylorTables:
    """Tables of the Taylor coefficients, one entry per distinct distance value."""

    mids: np.ndarray      # (K+1, k) floats: Φ_j entry values
    radmax: np.ndarray    # (K+1,) max radius of the entries
    rem_up: np.ndarray    # (k,) ≥ d^{K+1} e^{−ad}/(K+1)!
    #: integer enclosures at scale 2^-100 (for providers with fast exact products):
    #: Φ_j entries in [lo[j], hi[j]]·2^-100, remainder entries ≤ rem[·]·2^-100
    exact: ExactTables | None = None


def taylor_tables(values: list[Any], c: Fraction, a: Fraction, K: int,
                  exact: bool = False) -> TaylorTables:
    """Float tables of Φ_0..Φ_K at centre ``c`` and of the remainder bound from ``a``
    (with ``exact``, also the integer tables of :func:`exact_taylor_tables`).

    Entries below 2^-330 are set to 0 (mids) or raised to 2^-330 (upper bounds), and the
    radius grows by 2^-330: products then never reach the (very slow) subnormal range.
    With ``exact`` the float tables are read off the integer ones (one arb pass):
    mid = fl((lo + hi)/2^101), |Φ_j − mid| ≤ (hi − lo)/2^101 + |mid|·2^-53 + η.
    """
    if exact:  # kept with the values' ValuePowers, like the integer tables it is read from
        with workprec(TABLE_BITS + 64):
            vp = value_powers(values, K + 1)
        build = lambda: _from_exact(exact_taylor_tables(values, c, a, K), K)  # noqa: E731
        return vp.tables(("float", c, a, K), build)  # type: ignore[no-any-return]
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
    return _tiny_tables(np.array(mids), rads, np.asarray(succ(np.asarray(rm) + np.asarray(rr))), None)


def _from_exact(ex: ExactTables, K: int) -> TaylorTables:
    """The float tables of :func:`taylor_tables` read off the integer ones (its docstring)."""
    den = 1 << (TABLE_BITS + 1)
    mids_e = np.array([[(lo + hi) / den for lo, hi in zip(ex.lo[j], ex.hi[j])] for j in range(K + 1)])
    widths = ex.widths()
    rads_e = [float(succ(succ(float_up(Fraction(widths[j], den))
                              + float_up(Fraction(float(np.max(np.abs(mids_e[j])))) * U)) + ETA))
              for j in range(K + 1)]
    rem_e = np.asarray(succ(np.array([r / (1 << TABLE_BITS) for r in ex.rem])))
    return _tiny_tables(mids_e, rads_e, rem_e, ex)


def _tiny_tables(mid_arr: np.ndarray, rads: list[float], rem_up: np.ndarray,
                 ex: ExactTables | None) -> TaylorTables:
    """Entries below 2^-330: mids to 0, radii and remainder bounds up (docstring above)."""
    small = np.abs(mid_arr) < TINY
    mid_arr[small] = 0.0
    rad_arr = np.asarray(succ(np.array(rads) + TINY))
    rem_up = np.where((rem_up > 0) & (rem_up < TINY), TINY, rem_up)
    return TaylorTables(mid_arr, rad_arr, rem_up, ex)


@dataclass(frozen=True)
class TaylorBounds:
    """Result of one Taylor piece: componentwise lower bound of z on the range."""

    ok: bool
    min_lower: float       # min_i of the certified lower bound (may be ≤ 0)
    err: float             # ‖r̄‖₂/λ
    lam: Fraction


def _solve_taylor(prov: PhiProvider, tab: TaylorTables, b: np.ndarray, K: int,
                  accurate: bool = False, c: Fraction | None = None) -> np.ndarray:
    # candidates only: with a centre c, warm starts from the last piece, loose corrections
    solve = prov.taylor_solver(tab.mids[0])
    G = prov.taylor_guess(c, b, K) if c is not None else None
    ys = [np.asarray(solve(b, None if G is None else G[:, 0]))]
    # one refinement step for y0 (with an accurate residual when asked, or when the
    # provider's exact products are cheap)
    if accurate or prov.fast_exact:
        ys[0] = on_residual_grid(ys[0])
        r0 = _accurate_residual(prov, tab.mids[0], b, ys[0])
    else:
        r0 = b - prov.matvec(tab.mids[0], ys[0][:, None])[:, 0]
    ys[0] = ys[0] + np.asarray(solve(r0, None, c is not None))
    for k in range(1, K + 1):
        acc = np.zeros(prov.n)
        for j in range(1, k + 1):
            acc += prov.approx_matvec(tab.mids[j], ys[k - j])
        ys.append(-np.asarray(solve(acc, None if G is None else -G[:, k], c is not None)))
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
    tint = [int(v) for v in np.rint(np.ldexp(table, TABLE_BITS))]
    yint = [int(v) for v in np.ldexp(y, Y0_BITS)]
    prod = prov.exact_matvec(tint, [yint])[0]
    sh = TABLE_BITS + Y0_BITS
    bint = {bi: round(Fraction(bi) * (1 << sh)) for bi in set(b.tolist())}
    return np.array([(bint[bi] - p) / (1 << sh) for bi, p in zip(b.tolist(), prod)])


@proved_by("spd_cover_bounds", "grid_exact_convolution", "grid_taylor_blocks")
def taylor_piece(prov: PhiProvider, values: list[Any], b: np.ndarray, b_rad: float,
                 a: Fraction, bb: Fraction, K: int, lam: Fraction,
                 Y: np.ndarray | None = None,
                 rhs: tuple[Fraction, ...] | None = None) -> tuple[TaylorBounds, np.ndarray]:
    """Certify z(ε) > 0 for all ε in [a, bb] (module docstring; ``proofs/spd_cover_bounds.py``;
    with exact grid products ``proofs/grid_exact_convolution.py``, all Cauchy sums of the
    piece in one blocked product and the far-entry tables: ``proofs/grid_taylor_blocks.py``).

    ``b`` is the float right-hand side, exact up to ``b_rad`` per entry; ``lam`` a proved
    lower bound of λ_min(Φ(ε)) on [a, bb]. Returns the bounds and the Taylor vectors.

    Precision escalation: when the float bound fails and at least a quarter of the error
    comes from the rounding floor of ρ_0 = b − Φ_0y_0 (the a priori γ_N|Φ_0||y_0| term),
    and the exact right-hand side ``rhs`` is given, ρ_0 is recomputed *exactly*
    (:func:`exact_residual_bound`: integer limb products, no rounding analysis), with y_0
    refined by that exact residual while undecided: on grids (fast exact products) y_0 is
    kept exactly in integers down to 2^-``MAX_Y0_BITS`` (double-double and beyond; the
    returned column 0 is then its nearest double).
    """
    if lam <= 0 or K < 0 or bb < a:
        return TaylorBounds(False, -math.inf, math.inf, lam), np.zeros((prov.n, 0))
    require_subnormals("Taylor range check")
    c = (a + bb) / 2
    omega = float_up((bb - a) / 2)
    tab = taylor_tables(values, c, a, K, exact=prov.fast_exact)
    if Y is None:
        Y = _solve_taylor(prov, tab, b, K, c=c)
        prov.keep_taylor(c, b, Y)
    if prov.fast_exact:
        Y = on_column_grids(Y)
    res, share0 = _piece(prov, tab, b, b_rad, omega, K, lam, Y, None)
    if res.ok or rhs is None or not share0 >= 0.25:
        return res, Y
    res, Y, _ = _escalate(prov, values, tab, b, b_rad, omega, K, lam, Y, rhs, c,
                          lambda r, _y, _d: r.ok)
    return res, Y


def _escalate(prov: PhiProvider, values: list[Any], tab: TaylorTables, b: np.ndarray,
              b_rad: float, omega: float, K: int, lam: Fraction, Y: np.ndarray,
              rhs: tuple[Fraction, ...], c: Fraction,
              decided: Any) -> tuple[TaylorBounds, np.ndarray, float]:
    """Exact ρ_0 for y_0 on 2^-Y0_BITS, y_0 refined by it until ``decided(res, Y, dev)``: with
    fast exact products y_0 = Y·2^-s exactly, s += 52 a step up to ``MAX_Y0_BITS``; column 0
    of Y is then the nearest double, within 2^-52|y| (max: dev). Else one more step."""
    Y = Y.copy()
    Y[:, 0] = on_residual_grid(Y[:, 0])
    s, yint, dev, last = Y0_BITS, [int(v) for v in np.ldexp(Y[:, 0], Y0_BITS)], 0.0, False
    solve = prov.solver(tab.mids[0])
    while True:
        center, upper = (exact_residual_bound(prov, values, rhs, c, Y[:, 0]) if s == Y0_BITS
                         else exact_residual(prov, values, rhs, c, yint, s).bounds())
        y0x = None
        if s > Y0_BITS:
            Y[:, 0] = np.array([v / (1 << s) for v in yint])  # correctly rounded
            devs = np.asarray(succ(np.abs(Y[:, 0]) * float(2 * U)))  # nearest: ≤ U|y|/(1 − U)
            dev, y0x = float(np.max(devs)), (yint, s, devs)
        res, _ = _piece(prov, tab, b, b_rad, omega, K, lam, Y, upper, y0x)
        if decided(res, Y, dev) or last:
            return res, Y, dev
        corr = np.asarray(solve(center))
        if not np.all(np.isfinite(corr)):
            return res, Y, dev
        if not prov.fast_exact:  # dense: once more on the double grid, then stop
            Y[:, 0] = on_residual_grid(Y[:, 0] + corr)
            yint, last = [int(v) for v in np.ldexp(Y[:, 0], Y0_BITS)], True
        else:
            yint, s = refined_y0(yint, s, corr)
            last = s + 52 > MAX_Y0_BITS


def _piece(prov: PhiProvider, tab: TaylorTables, b: np.ndarray, b_rad: float, omega: float,
           K: int, lam: Fraction, Y: np.ndarray, rho0_up: np.ndarray | None,
           y0x: tuple[list[int], int, np.ndarray] | None = None) -> tuple[TaylorBounds, float]:
    """The bounds of :func:`taylor_piece` for given Taylor vectors, and the share of the
    error due to the ρ_0 term; ``rho0_up`` (≥ |b − Φ_0y_0| exactly) replaces that term.
    ``y0x = (Y0, s, dev)``: y_0 is exactly Y0·2^-s (exact tables only), column 0 of ``Y``
    within ``dev`` of it entrywise (Σ ω^k|y_k| and the lower bound of y_0 widen by dev).

    With exact tables (``tab.exact``) every |ρ_m| and the remainder product are bounded by
    exact integer products (:func:`~exactdp.threshold.taylor_exact.exact_rho_bounds`), else by
    the float rounding model."""
    n, absY, omegas = prov.n, np.abs(Y), [1.0]
    for _ in range(2 * K + 2):
        omegas.append(float(succ(omegas[-1] * omega)))
    Ysum = np.zeros(n)
    for k in range(K + 1):
        Ysum = succ(Ysum + succ(omegas[k] * absY[:, k]))
    if y0x is not None:
        Ysum = succ(Ysum + y0x[2])
    if tab.exact is not None:
        bounds, PY = exact_rho_bounds(prov, tab.exact, b, b_rad, K, Y, Ysum, y0x)
    elif y0x is not None:
        raise InvalidArgument("an integer y_0 needs the exact tables (providers with fast_exact)")
    else:
        bounds, PY = _float_rho_bounds(prov, tab, b, b_rad, K, Y, Ysum)
    rbar, bound0 = np.zeros(n), np.zeros(n)
    for m in range(2 * K + 1):
        bound = np.asarray(rho0_up) if m == 0 and rho0_up is not None else bounds[m]
        if m == 0:
            bound0 = bound
        rbar = succ(rbar + succ(omegas[m] * bound))
    # remainder: ω^{K+1} P Σ ω^k |y_k|
    rbar = succ(rbar + succ(omegas[K + 1] * PY))
    if not np.all(np.isfinite(rbar)) or lam <= 0:
        return TaylorBounds(False, -math.inf, math.inf, lam), 0.0
    lam_f = float_down(lam)
    err = float(succ(norm2_up(rbar) / lam_f))
    share0 = float(np.linalg.norm(bound0)) / float(lam) / err if err > 0 else 0.0
    low = Y[:, 0].copy() if y0x is None else pred(Y[:, 0] - y0x[2])
    low = pred(low - succ(omegas[1] * absY[:, 1])) if K >= 1 else low
    for k in range(2, K + 1):
        term = absY[:, k] if k % 2 else np.maximum(0.0, -Y[:, k])
        low = pred(low - succ(omegas[k] * term))
    low = pred(low - err)
    mn = float(np.min(low))
    return TaylorBounds(bool(np.all(np.isfinite(low)) and mn > 0), mn, err, lam), share0


def _float_rho_bounds(prov: PhiProvider, tab: TaylorTables, b: np.ndarray, b_rad: float,
                      K: int, Y: np.ndarray, Ysum: np.ndarray) -> tuple[list[np.ndarray], np.ndarray]:
    """bounds[m] ≥ |ρ_m| (m ≤ 2K) and PY ≥ P·Ysum from float products and the rounding model."""
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
    bounds = []
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
        bounds.append(np.asarray(bound))
    PY = prov.matvec(tab.rem_up, Ysum[:, None])[:, 0]
    return bounds, np.asarray(succ(succ(PY + tail) * inv1g))


def point_bounds(prov: PhiProvider, values: list[Any], b: np.ndarray, b_rad: float,
                 eps: Fraction, lam: Fraction,
                 rhs: tuple[Fraction, ...] | None = None) -> tuple[np.ndarray, float]:
    """(y, err): the exact z(eps) satisfies |z − y| ≤ err componentwise (err = ∞: unknown).

    With the exact ``rhs``, when the float bound cannot decide the sign of min z
    (min y − err < 0 ≤ min y + err) the residual is recomputed exactly and y_0 refined
    (precision escalation, :func:`_escalate`; on grids down to 2^-``MAX_Y0_BITS``, err then
    includes the distance 2^-52·max|y| of the returned doubles to the exact refined y_0).
    """
    tab = taylor_tables(values, eps, eps, 0, exact=prov.fast_exact)
    Y = _solve_taylor(prov, tab, b, 0)
    if prov.fast_exact:
        Y = on_column_grids(Y)
    res, _ = _piece(prov, tab, b, b_rad, 0.0, 0, lam, Y, None)
    if not math.isfinite(res.err):
        raise PrecisionLimitReached(f"no error bound at ε = {eps}")
    mn = float(np.min(Y[:, 0]))
    dev = 0.0
    if rhs is not None and mn - res.err < 0 <= mn + res.err:
        res, Y, dev = _escalate(prov, values, tab, b, b_rad, 0.0, 0, lam, Y, rhs, eps,
                                lambda r, y, d: float(np.min(y[:, 0])) + r.err + d < 0)
    return Y[:, 0], float(succ(res.err + dev)) if dev else res.err
