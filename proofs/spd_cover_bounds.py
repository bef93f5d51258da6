"""The bounds behind the SPD cover (exactdp.threshold): Taylor pieces, chord lemma, Cholesky λ_min bounds.

Notation: d ≥ 0 a distance, Φ(ε)[i, l] = e^{−ε d(i,l)} (symmetric), a ≤ b the ends of an
ε-range, u = 2^-53, γ_k = k u/(1 − k u), ≤ and |·| entrywise.

Theorem A (Lagrange remainder). For c, c + h ∈ [a, b] and K ≥ 0,
    |e^{−(c+h)d} − Σ_{j≤K} (−d)^j h^j e^{−cd}/j!| ≤ |h|^{K+1} d^{K+1} e^{−ad}/(K+1)!.
Proof. f(ε) = e^{−εd} has f^{(j)} = (−d)^j e^{−εd} (induction, checked by sympy for a
symbolic j), so the sum is the Taylor polynomial of f at c and the remainder is
∫_c^{c+h} f^{(K+1)}(s)(c+h−s)^K/K! ds (identity checked by sympy for K ≤ 4). On the
segment s ≥ a so |f^{(K+1)}(s)| ≤ d^{K+1}e^{−ad}, and ∫|c+h−s|^K/K! ds = |h|^{K+1}/(K+1)!.

Theorem B (residual identity). With Φ(c+h) = Σ_{j≤K} h^jΦ_j + h^{K+1}Q and any vectors
y_0..y_K, y(h) = Σ h^k y_k:  b − Φ(c+h)y(h) = Σ_{m≤2K} h^m ρ_m − h^{K+1}Q y(h) with
ρ_m = [m = 0]b − Σ_{j+k=m} Φ_j y_k (polynomial identity, expanded by sympy on symbolic
3×3 matrices for K = 1, 2, 3). If the y_k solve the Taylor recurrence exactly, ρ_m = 0
for m ≤ K (checked). With |Q| ≤ P (Theorem A), |r(h)| ≤ Σ ω^m|ρ_m| + ω^{K+1}P Σ ω^k|y_k|
=: r̄ for |h| ≤ ω; for SPD Φ with λ_min ≥ λ > 0, z − y = Φ⁻¹r gives
‖z − y‖∞ ≤ ‖z − y‖₂ ≤ ‖r‖₂/λ ≤ ‖r̄‖₂/λ; and h^k y_k ≥ −ω^k|y_k| (k odd),
≥ −ω^k max(0, −y_k) (k even, h^k ≥ 0): the componentwise lower bound of taylor_piece.

Theorem C (chord lemma). f(ε) = e^{−εd} is convex (f'' = d²e^{−εd} ≥ 0); on [e0, e1],
w = e1 − e0, with ℓ the chord and M = d²e^{−e0 d} = max f'':
0 ≤ ℓ(ε) − f(ε) ≤ (M/2)(ε − e0)(e1 − ε) ≤ M w²/8. Proof: φ = ℓ − f − (M/2)(ε−e0)(e1−ε)
has φ'' = M − f'' ≥ 0 and φ(e0) = φ(e1) = 0, so φ ≤ 0 (symbolic). Hence Φ(ε) = L(ε) − E
with L(ε) = (1−θ)Φ(e0) + θΦ(e1) and 0 ≤ E ≤ (w²/8)d²e^{−e0 d}. λ_min is concave
(min of the Rayleigh quotients, each affine in θ): λ_min(L) ≥ (1−θ)λ_min(Φ(e0)) +
θλ_min(Φ(e1)) ≥ min(l0, l1); E is symmetric, so ‖E‖₂ ≤ ‖E‖∞ ≤ (w²/8)max_i Σ_l d²e^{−e0 d}
and λ_min(Φ(ε)) ≥ λ_min(L) − ‖E‖₂ ≥ chord_bound. Checked numerically (eigvalsh) on
random metrics at many ε of the interval.

Theorem D (Cholesky criterion; Demmel 1989, Higham Thm 10.3, Rump BIT 46 (2006)). If a
float Cholesky factorisation of the symmetric float matrix A runs to completion, then
R̂ᵀR̂ = A + ΔA with |ΔA| ≤ γ_{n+1}|R̂ᵀ||R̂|. Cauchy–Schwarz: with r_i the i-th column of R̂,
(|R̂ᵀ||R̂|)_{ij} = Σ_k |r_ki||r_kj| ≤ ‖r_i‖‖r_j‖, and ‖r_i‖² = (R̂ᵀR̂)_{ii} = a_ii + Δa_ii ≤
a_ii + γ‖r_i‖², so ‖r_i‖² ≤ a_ii/(1 − γ). Hence |ΔA| ≤ α·ddᵀ, d_i = √a_ii,
α = γ/(1 − γ), and ‖ΔA‖₂ ≤ ‖α ddᵀ‖₂ = α‖d‖² = α·tr(A) (a nonnegative matrix dominates
in 2-norm). A + ΔA = R̂ᵀR̂ ⪰ 0 gives λ_min(A) ≥ −α·tr(A). With A = fl(Φ_mid − σI) and
|Φ − Φ_mid| ≤ rad entrywise: λ_min(Φ) ≥ σ − α·tr(A) − (shift rounding) − n·rad.
Assumption (as for every BLAS-based bound of linalg.verified): the LAPACK/OpenBLAS
factorisation computes each entry by classical sums of products and one division or
square root (blocked/recursive variants only reorder the sums). Checked here exactly:
R̂ᵀR̂ − A is computed over the integers for scipy's Cholesky (n up to 300, above the
blocking threshold) and compared with γ_{n+1}|R̂ᵀ||R̂| entry by entry; and
dense_lambda_node's λ ≤ the true λ_min on sum_query, count_queries, line, grids and
random metrics (eigvalsh with a margin far below the bound's own slack, and 40-digit
mpmath eigenvalues for the small ones).

Theorem E (exact re-check). Each distinct entry e^{−εd_k} is enclosed by an arb ball,
rounded outward to a rational interval [lo_k, hi_k], and represented by the integer A_k
nearest its centre on the grid 2^−2bits, with r_k := max(hi_k − A_k2^−2bits,
A_k2^−2bits − lo_k) ≥ |e^{−εd_k} − A_k2^−2bits| (exact rationals, no float). For ANY
matrix L with entries on the grid 2^−bits and Ã := (A_{k(i,j)})2^−2bits − σI, E := LLᵀ − Ã
is an exact integer matrix (scaled) and symmetric; Ã = LLᵀ − E ⪰ −E (congruence:
xᵀLLᵀx = ‖Lᵀx‖² ≥ 0), so λ_min(Ã) ≥ −λ_max(E) ≥ −‖E‖∞; Φ − σI = Ã + Δ with
|Δ_ij| ≤ max_k r_k, so ‖Δ‖₂ ≤ ‖Δ‖∞ ≤ n·max_k r_k and
λ_min(Φ) ≥ σ − ‖E‖∞ − n·max_k r_k (Weyl). Checked on
random and tampered inputs: exact_lambda_check never accepts a claim above the true
λ_min (claims λ_min + 10⁻³ and σ-based claims with σ above λ_min are rejected).

Theorem F (exact piece re-check). exact_piece_check evaluates the r̄ and the lower bound
of Theorem B with integers only: Φ_j and P entries are enclosed at scale 2^110 (integer
lo ≤ truth ≤ lo + rad), the y_k are rounded to dyadics (any y_k are allowed by
Theorem B), and every Φ_j y_k is formed exactly through per-row histograms over the
distinct distances, (Φ_j y)_i = Σ_d Φ_j[d]·Σ_{d(i,l)=d} y_l. Checked: the histogram
product equals the plain integer matrix product (negative and 200-bit entries); on
random metrics (rational and √ distances, priors, ε up to 200, widths 10⁻⁶…10⁻¹) every
accepted piece has z > 0 at sampled ε (40 digits) and the verdict agrees with
taylor_piece; ranges around a sign change are refused.

Exits non-zero on the first failed step (all steps run; failures are listed).
"""

from __future__ import annotations

import math
import random
import sys
import time
from fractions import Fraction

import mpmath
import numpy as np
import sympy as sp

from exactdp.spaces.metrics import count_queries, from_matrix, grid, line, sum_query
from exactdp.threshold.exact_checks import exact_hist_product, exact_lambda_check, exact_piece_check
from exactdp.threshold.lambda_bounds import (
    cholesky_lambda,
    chord_bound,
    dense_lambda_node,
    phi_mid_rad,
    second_derivative_row_bound,
)
from exactdp.threshold.providers import DenseProvider
from exactdp.threshold.taylor import point_bounds, taylor_piece, taylor_tables, taylor_vectors

PROVES = [
    "exactdp.threshold.taylor.taylor_piece",
    "exactdp.threshold.lambda_bounds.chord_bound",
    "exactdp.threshold.lambda_bounds.dense_lambda_node",
    "exactdp.threshold.exact_checks.exact_lambda_check",
    "exactdp.threshold.exact_checks.exact_piece_check",
]

FAILS: list[str] = []


def check(cond: bool, what: str) -> None:
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        FAILS.append(what)


def dist_matrix_mp(metric, dps: int = 50):
    """Exact distances as mpmath numbers (coef·√radicand)."""
    with mpmath.workdps(dps):
        vals = [mpmath.mpf(v.coef.numerator) / v.coef.denominator * mpmath.sqrt(v.radicand)
                for v in metric.values]
    n = metric.n
    return [[vals[metric.index[i, j]] for j in range(n)] for i in range(n)]


def _mp_phi(Dmp, eps: Fraction):
    """Φ(eps) as an mpmath matrix at the current working precision."""
    e = mpmath.mpf(eps.numerator) / eps.denominator
    n = len(Dmp)
    Phi = mpmath.matrix(n, n)
    for i in range(n):
        for j in range(n):
            Phi[i, j] = mpmath.exp(-e * Dmp[i][j])
    return Phi


def mp_solve(Dmp, rhs, eps: Fraction, dps: int = 50):
    with mpmath.workdps(dps):
        bb = mpmath.matrix([mpmath.mpf(x.numerator) / x.denominator for x in rhs])
        return mpmath.lu_solve(_mp_phi(Dmp, eps), bb)


def mp_lambda_min(Dmp, eps: Fraction, dps: int = 40):
    with mpmath.workdps(dps):
        Phi = _mp_phi(Dmp, eps)
        return min(mpmath.eigsy(Phi, eigvals_only=True))


def float_D(metric) -> np.ndarray:
    return np.array([float(v) for v in metric.values])[metric.index]


def random_metric(rng: random.Random, n: int, vals=(1, 2, 3)):
    while True:
        D = [[0] * n for _ in range(n)]
        for i in range(n):
            for j in range(i + 1, n):
                D[i][j] = D[j][i] = rng.choice(vals)
        try:
            return from_matrix(D)
        except Exception:  # triangle inequality failed: draw again
            continue


# =====================================================================================
def part_a() -> None:
    print("\n(a) Taylor/Lagrange remainder of e^{-εd}")
    eps, d, c, h, s, j = sp.symbols("epsilon d c h s j", real=True)
    f = sp.exp(-eps * d)
    check(sp.simplify(f - ((-d) ** j * sp.exp(-eps * d)).subs(j, 0)) == 0,
          "f = (−d)^0 e^{−εd}: the derivative formula holds for j = 0 (induction base)")
    # f^{(j)} = (−d)^j e^{−εd}: the derivative of the claimed j-th derivative is the (j+1)-th
    dj = (-d) ** j * sp.exp(-eps * d)
    check(sp.simplify(sp.diff(dj, eps) - (-d) ** (j + 1) * sp.exp(-eps * d)) == 0,
          "d/dε[(−d)^j e^{−εd}] = (−d)^{j+1} e^{−εd} (symbolic j: induction step)")
    for K in range(0, 5):
        T = sum((-d) ** m * h ** m * sp.exp(-c * d) / sp.factorial(m) for m in range(K + 1))
        fK1 = (-d) ** (K + 1) * sp.exp(-s * d)
        R_int = sp.integrate(fK1 * (c + h - s) ** K / sp.factorial(K), (s, c, c + h))
        ident = sp.simplify(sp.exp(-(c + h) * d) - T - R_int)
        check(ident == 0, f"K={K}: f(c+h) − T_K(h) = ∫_c^(c+h) f^(K+1)(s)(c+h−s)^K/K! ds")
        kern = sp.integrate((c + h - s) ** K / sp.factorial(K), (s, c, c + h))
        check(sp.simplify(kern - h ** (K + 1) / sp.factorial(K + 1)) == 0,
              f"K={K}: ∫_c^(c+h) (c+h−s)^K/K! ds = h^(K+1)/(K+1)! (sign of h^(K+1) only)")
    # max of |f^{(K+1)}| on s ≥ a is at s = a: derivative of d^{K+1}e^{−sd} in s is ≤ 0
    K_ = sp.symbols("K", integer=True, nonnegative=True)
    g = d ** (K_ + 1) * sp.exp(-s * d)
    check(sp.simplify(sp.diff(g, s) + d ** (K_ + 2) * sp.exp(-s * d)) == 0,
          "∂_s d^(K+1)e^(−sd) = −d^(K+2)e^(−sd) ≤ 0 for d ≥ 0: max on [a, b] is at s = a")
    # numeric: the bound at random (d, a, b, c, h), 40 digits
    rng = random.Random(1)
    worst = mpmath.mpf(0)
    with mpmath.workdps(40):
        for _ in range(400):
            dd = mpmath.mpf(rng.uniform(0, 6))
            a0 = mpmath.mpf(rng.uniform(0.01, 3))
            b0 = a0 + mpmath.mpf(rng.uniform(1e-6, 1.5))
            cc = a0 + (b0 - a0) * mpmath.mpf(rng.random())
            hh = a0 + (b0 - a0) * mpmath.mpf(rng.random()) - cc
            K = rng.randint(0, 5)
            T = sum((-dd) ** m * hh ** m * mpmath.exp(-cc * dd) / mpmath.factorial(m)
                    for m in range(K + 1))
            lhs = abs(mpmath.exp(-(cc + hh) * dd) - T)
            rhs = abs(hh) ** (K + 1) * dd ** (K + 1) * mpmath.exp(-a0 * dd) / mpmath.factorial(K + 1)
            if rhs > 0:
                worst = max(worst, lhs / rhs)
            elif lhs > mpmath.mpf(10) ** -35:
                worst = mpmath.inf
    check(worst <= 1, f"Lagrange bound at 400 random points (max lhs/rhs = {float(worst):.4f})")
    # the code's tables enclose the Taylor coefficients and the remainder constant
    m = grid(3, 3, "euclidean")
    ok = True
    for c_, a0_, K in [(Fraction(1, 3), Fraction(1, 4), 3), (Fraction(7, 5), Fraction(6, 5), 2)]:
        tab = taylor_tables(list(m.values), c_, a0_, K)
        with mpmath.workdps(40):
            for vi, v in enumerate(m.values):
                dv = mpmath.mpf(v.coef.numerator) / v.coef.denominator * mpmath.sqrt(v.radicand)
                cm = mpmath.mpf(c_.numerator) / c_.denominator
                am = mpmath.mpf(a0_.numerator) / a0_.denominator
                for jj in range(K + 1):
                    true = (-dv) ** jj * mpmath.exp(-cm * dv) / mpmath.factorial(jj)
                    ok &= abs(true - mpmath.mpf(float(tab.mids[jj][vi]))) <= tab.radmax[jj]
                rem = dv ** (K + 1) * mpmath.exp(-am * dv) / mpmath.factorial(K + 1)
                ok &= mpmath.mpf(float(tab.rem_up[vi])) >= rem
    check(bool(ok), "taylor_tables: |Φ_j − mid| ≤ radmax and rem_up ≥ d^(K+1)e^(−ad)/(K+1)!")


# =====================================================================================
def part_b() -> None:
    print("\n(b) residual identity and the z lower bound")
    h = sp.symbols("h")
    n = 3
    for K in (1, 2, 3):
        Phis = [sp.Matrix(n, n, lambda i, l, j=j: sp.Symbol(f"p{j}_{min(i, l)}{max(i, l)}"))
                for j in range(K + 1)]
        Q = sp.Matrix(n, n, lambda i, l: sp.Symbol(f"q_{min(i, l)}{max(i, l)}"))
        ys = [sp.Matrix(n, 1, lambda i, _l, k=k: sp.Symbol(f"y{k}_{i}")) for k in range(K + 1)]
        bv = sp.Matrix(n, 1, lambda i, _l: sp.Symbol(f"b_{i}"))
        Phi_h = sum((h ** j * Phis[j] for j in range(K + 1)), sp.zeros(n, n)) + h ** (K + 1) * Q
        y_h = sum((h ** k * ys[k] for k in range(K + 1)), sp.zeros(n, 1))
        r = bv - Phi_h * y_h
        rho = []
        for mm in range(2 * K + 1):
            v = bv if mm == 0 else sp.zeros(n, 1)
            for j in range(K + 1):
                if 0 <= mm - j <= K:
                    v = v - Phis[j] * ys[mm - j]
            rho.append(v)
        rhs = sum((h ** mm * rho[mm] for mm in range(2 * K + 1)), sp.zeros(n, 1)) \
            - h ** (K + 1) * Q * y_h
        check((r - rhs).expand() == sp.zeros(n, 1),
              f"K={K}: b − Φ(c+h)y(h) = Σ_m h^m ρ_m − h^(K+1) Q y(h) (symbolic 3×3)")
    # exact recurrence ⇒ ρ_m = 0 for m ≤ K (rational 3×3 example)
    K = 3
    rng = random.Random(2)
    Phis = [sp.Matrix(3, 3, lambda i, l: sp.Rational(rng.randint(-9, 9), 7)) + (6 if j == 0 else 0)
            * sp.eye(3) for j in range(K + 1)]
    bv = sp.Matrix([1, 2, 3])
    ys = [Phis[0].LUsolve(bv)]
    for k in range(1, K + 1):
        acc = sum((Phis[j] * ys[k - j] for j in range(1, k + 1)), sp.zeros(3, 1))
        ys.append(-Phis[0].LUsolve(acc))
    allzero = True
    for mm in range(K + 1):
        v = bv if mm == 0 else sp.zeros(3, 1)
        for j in range(mm + 1):
            v = v - Phis[j] * ys[mm - j]
        allzero &= v == sp.zeros(3, 1)
    check(bool(allzero), "exact Taylor recurrence ⇒ ρ_m = 0 for m ≤ K (exact rationals)")
    # 2-norm error bound for SPD matrices: ‖Φ⁻¹r‖∞ ≤ ‖Φ⁻¹r‖₂ ≤ ‖r‖₂/λ_min
    nrng = np.random.default_rng(3)
    ok = True
    for _ in range(200):
        B = nrng.standard_normal((6, 6))
        S = B @ B.T + 0.05 * np.eye(6)
        r = nrng.standard_normal(6)
        lam = np.linalg.eigvalsh(S)[0]
        ok &= np.max(np.abs(np.linalg.solve(S, r))) <= np.linalg.norm(r) / lam * (1 + 1e-9)
    check(bool(ok), "‖S⁻¹r‖∞ ≤ ‖r‖₂/λ_min(S) on 200 random SPD matrices")
    # end to end: taylor_piece's bound never exceeds the 50-digit min_i z_i(ε) on the range
    for metric, a, bb in [(sum_query(4, 3), Fraction(1), Fraction(11, 10)),
                          (count_queries(3), Fraction(13, 10), Fraction(7, 5)),
                          (grid(4, 4, "euclidean"), Fraction(4, 5), Fraction(9, 10)),
                          (line(6), Fraction(1, 5), Fraction(1, 4))]:
        prov = DenseProvider(metric)
        lam = prov.lambda_lower(a, bb)
        bvec = np.ones(metric.n)
        res, _ = taylor_piece(prov, list(metric.values), bvec, 0.0, a, bb, 3, lam)
        Dmp = dist_matrix_mp(metric)
        ones = [Fraction(1)] * metric.n
        zmins = [min(mp_solve(Dmp, ones, a + (bb - a) * Fraction(k, 8))) for k in range(9)]
        zmin = min(zmins)
        check(lam > 0 and res.min_lower <= zmin,
              f"{metric.name} on [{a}, {bb}]: taylor lower {res.min_lower:.6g} ≤ "
              f"min z = {float(zmin):.6g} (ok={res.ok}, λ={float(lam):.3g})")
        # point enclosure
        e = (a + bb) / 2
        y, err = point_bounds(prov, list(metric.values), bvec, 0.0, e, prov.lambda_lower(e, e))
        z = mp_solve(Dmp, ones, e)
        inside = all(abs(z[i] - mpmath.mpf(float(y[i]))) <= err for i in range(metric.n))
        check(bool(inside), f"{metric.name} at ε={e}: |z − y| ≤ err = {err:.3g} (50 digits)")


# =====================================================================================
def part_c() -> None:
    print("\n(c) chord lemma")
    eps, d, e0, e1, M = sp.symbols("epsilon d e0 e1 M", real=True)
    f = sp.exp(-eps * d)
    check(sp.simplify(sp.diff(f, eps, 2) - d ** 2 * sp.exp(-eps * d)) == 0,
          "f'' = d² e^{−εd} ≥ 0: every entry is convex in ε")
    chord = f.subs(eps, e0) + (f.subs(eps, e1) - f.subs(eps, e0)) * (eps - e0) / (e1 - e0)
    phi = chord - f - M / 2 * (eps - e0) * (e1 - eps)
    check(sp.simplify(sp.diff(phi, eps, 2) - (M - d ** 2 * sp.exp(-eps * d))) == 0,
          "φ = ℓ − f − (M/2)(ε−e0)(e1−ε) has φ'' = M − f'' ≥ 0 (convex)")
    check(sp.simplify(phi.subs(eps, e0)) == 0 and sp.simplify(phi.subs(eps, e1)) == 0,
          "φ(e0) = φ(e1) = 0, so φ ≤ 0 on [e0, e1]")
    q = (eps - e0) * (e1 - eps)
    crit = sp.solve(sp.diff(q, eps), eps)
    check(len(crit) == 1 and sp.simplify(q.subs(eps, crit[0]) - (e1 - e0) ** 2 / 4) == 0
          and sp.diff(q, eps, 2) == -2,
          "max_{[e0,e1]} (ε−e0)(e1−ε) = w²/4, so ℓ − f ≤ M w²/8")
    # λ_min concave along affine families of symmetric matrices (Rayleigh quotient argument)
    nrng = np.random.default_rng(4)
    ok = True
    for _ in range(300):
        A = nrng.standard_normal((5, 5))
        A = A + A.T
        B = nrng.standard_normal((5, 5))
        B = B + B.T
        th = nrng.random()
        lhs = np.linalg.eigvalsh((1 - th) * A + th * B)[0]
        ok &= lhs >= (1 - th) * np.linalg.eigvalsh(A)[0] + th * np.linalg.eigvalsh(B)[0] - 1e-12
    check(bool(ok), "λ_min((1−θ)A + θB) ≥ (1−θ)λ_min(A) + θλ_min(B) (300 random pairs)")
    # chord_bound ≤ true λ_min at many ε of the interval, end values from nodes
    rng = random.Random(5)
    metrics = [sum_query(4, 3), count_queries(4), grid(4, 4, "euclidean"), line(8)]
    metrics += [random_metric(rng, rng.randint(4, 8)) for _ in range(6)]
    ok = True
    checked = 0
    for metric in metrics:
        Df = float_D(metric)
        for e0_, w in [(Fraction(1, 2), Fraction(1, 4)), (Fraction(1), Fraction(1, 2)),
                       (Fraction(2), Fraction(1, 10))]:
            e1_ = e0_ + w
            s0, l0 = dense_lambda_node(metric, e0_)
            s1, l1 = dense_lambda_node(metric, e1_)
            if l0 <= 0 or l1 <= 0:
                continue
            cb = chord_bound(metric, e0_, e1_, l0, l1)
            for ee in np.linspace(float(e0_), float(e1_), 41):
                lam_true = np.linalg.eigvalsh(np.exp(-ee * Df))[0]
                ok &= float(cb) <= lam_true + 1e-13
                checked += 1
            # also with the true end values (rounded down): the lemma itself, not the nodes
            t0 = Fraction(np.linalg.eigvalsh(np.exp(-float(e0_) * Df))[0] - 1e-13)
            t1 = Fraction(np.linalg.eigvalsh(np.exp(-float(e1_) * Df))[0] - 1e-13)
            cb2 = chord_bound(metric, e0_, e1_, t0, t1)
            for ee in np.linspace(float(e0_), float(e1_), 41):
                ok &= float(cb2) <= np.linalg.eigvalsh(np.exp(-ee * Df))[0] + 1e-12
    check(bool(ok) and checked > 500, f"chord_bound ≤ eigvalsh λ_min at {checked} (metric, ε)")
    # second_derivative_row_bound ≥ max_i Σ_l d² e^{−a d} (40 digits)
    ok = True
    for metric in metrics[:5]:
        for a in (Fraction(1, 3), Fraction(2)):
            Dmp = dist_matrix_mp(metric, 40)
            with mpmath.workdps(40):
                am = mpmath.mpf(a.numerator) / a.denominator
                rows = [sum(x * x * mpmath.exp(-am * x) for x in row) for row in Dmp]
                ok &= mpmath.mpf(second_derivative_row_bound(metric, a).numerator) / \
                    second_derivative_row_bound(metric, a).denominator >= max(rows)
    check(bool(ok), "second_derivative_row_bound ≥ max row sum of d²e^{−ad} (40 digits)")


# =====================================================================================
def _to_int_scaled(M: np.ndarray, shift: int) -> list[int]:
    """Exact integers M·2^shift (requires every entry to be an integer after scaling)."""
    out = []
    for x in M.ravel():
        fr = Fraction(float(x)) * 2**shift
        if fr.denominator != 1:
            raise AssertionError("scale too small")
        out.append(fr.numerator)
    return out


def part_d() -> None:
    print("\n(d) Cholesky criterion (Demmel's bound + Cauchy–Schwarz)")
    from flint import fmpz_mat
    from scipy.linalg import cholesky

    nrng = np.random.default_rng(6)
    for n in (5, 40, 150, 300):
        ok = True
        reps = 3 if n <= 150 else 1
        worst_ratio = 0.0
        for _ in range(reps):
            B = nrng.standard_normal((n, n))
            A = B @ B.T / n + 1e-3 * np.eye(n)
            A = (A + A.T) / 2
            R = cholesky(A, lower=False, check_finite=False)  # R̂ᵀR̂ ≈ A
            ex = [np.frexp(x)[1] for x in np.concatenate([R.ravel(), A.ravel()]) if x != 0]
            shift = 60 - int(min(ex))
            Ri = fmpz_mat(n, n, _to_int_scaled(R, shift))
            Ai = fmpz_mat(n, n, _to_int_scaled(A, 2 * shift))
            dA = Ri.transpose() * Ri - Ai  # exact ΔA·2^(2 shift)
            absR = fmpz_mat(n, n, [abs(int(x)) for x in Ri.entries()])
            S = absR.transpose() * absR  # |R̂ᵀ||R̂|·2^(2 shift)
            g = Fraction(n + 1, 2**53) / (1 - Fraction(n + 1, 2**53))
            dAe = dA.entries()
            Se = S.entries()
            for k in range(n * n):
                lhs = abs(int(dAe[k]))
                rhs = int(Se[k])
                if lhs * g.denominator > g.numerator * rhs:
                    ok = False
                if rhs:
                    worst_ratio = max(worst_ratio, lhs / (float(g) * rhs))
            # Cauchy–Schwarz step: (|R̂ᵀ||R̂|)_ij ≤ √(a_ii a_jj)/(1−γ), exactly checked squared
            diagA = [Fraction(float(A[i, i])) for i in range(n)]
            scale = Fraction(1, 2 ** (2 * shift))
            for i in range(0, n, max(1, n // 10)):
                for j in range(n):
                    sij = Fraction(int(Se[i * n + j])) * scale
                    if sij * sij * (1 - g) ** 2 > diagA[i] * diagA[j]:
                        ok = False
        check(bool(ok), f"n={n}: |R̂ᵀR̂ − A| ≤ γ_(n+1)|R̂ᵀ||R̂| exactly, and the Cauchy–Schwarz "
                        f"step (max used fraction of the bound {worst_ratio:.3f})")
    # the criterion λ_min(A) ≥ −α tr(A) on shifted matrices close to singular
    ok = True
    for n in (10, 60):
        for _ in range(10):
            B = nrng.standard_normal((n, n))
            A = B @ B.T / n
            lam_true = np.linalg.eigvalsh(A)[0]
            for frac in (0.5, 0.9, 0.999, 1.001, 1.1):
                sigma = Fraction(lam_true * frac)
                lam, L = cholesky_lambda(A, 0.0, sigma)
                if L is not None:
                    ok &= float(lam) <= lam_true + 1e-14 * n
    check(bool(ok), "cholesky_lambda never exceeds λ_min (σ at 0.5…1.1 × λ_min, 20 matrices)")
    # dense_lambda_node on library metrics
    rng = random.Random(7)
    cases = [(sum_query(10, 5), Fraction(1)), (sum_query(4, 3), Fraction(1, 2)),
             (count_queries(8), Fraction(6, 5)), (count_queries(3), Fraction(1, 3)),
             (line(30), Fraction(1, 10)), (line(12), Fraction(2)),
             (grid(6, 6, "euclidean"), Fraction(2, 3)), (grid(5, 4, "manhattan"), Fraction(1)),
             (grid(4, 4, "chebyshev"), Fraction(3, 2))]
    cases += [(random_metric(rng, rng.randint(4, 9)), Fraction(rng.randint(3, 30), 10))
              for _ in range(12)]
    ok = True
    count = 0
    for metric, e in cases:
        sigma, lam = dense_lambda_node(metric, e)
        if lam <= 0:
            continue
        count += 1
        lam_true = np.linalg.eigvalsh(np.exp(-float(e) * float_D(metric)))[0]
        good = float(lam) <= lam_true - 1e-13 * metric.n
        if metric.n <= 12:
            lm = mp_lambda_min(dist_matrix_mp(metric, 40), e)
            good &= mpmath.mpf(lam.numerator) / lam.denominator <= lm
        if not good:
            print("   ", metric.name, e, float(lam), lam_true)
        ok &= good
    check(bool(ok) and count >= 15, f"dense_lambda_node λ ≤ true λ_min on {count} (metric, ε)")


# =====================================================================================
def part_e() -> None:
    print("\n(e) exact re-check (congruence)")
    from flint import fmpz_mat

    # congruence: for any L on the grid, Ã = LLᵀ − E ⪰ −E ⇒ λ_min(Ã) ≥ −‖E‖∞
    nrng = np.random.default_rng(8)
    ok = True
    for _ in range(50):
        n = 6
        L = np.tril(nrng.integers(-20, 20, (n, n)))
        At = nrng.integers(-50, 50, (n, n))
        At = At + At.T
        E = fmpz_mat(n, n, [int(x) for x in (L @ L.T).ravel()]) - \
            fmpz_mat(n, n, [int(x) for x in At.ravel()])
        Ee = [abs(int(x)) for x in E.entries()]
        inf_norm = max(sum(Ee[i * n:(i + 1) * n]) for i in range(n))
        ok &= np.linalg.eigvalsh(At.astype(float))[0] >= -inf_norm - 1e-9
    check(bool(ok), "λ_min(LLᵀ − E) ≥ −‖E‖∞ for any L (50 random integer examples)")
    rng = random.Random(9)
    cases = [(sum_query(4, 3), Fraction(1)), (count_queries(4), Fraction(3, 2)),
             (grid(4, 4, "euclidean"), Fraction(2, 3)), (line(10), Fraction(1, 4))]
    cases += [(random_metric(rng, rng.randint(4, 8)), Fraction(rng.randint(5, 25), 10))
              for _ in range(6)]
    ok_own = ok_rej = ok_sig = True
    for metric, e in cases:
        sigma, lam = dense_lambda_node(metric, e)
        if lam <= 0:
            continue
        lm = mp_lambda_min(dist_matrix_mp(metric, 40), e)
        ok_own &= exact_lambda_check(metric, e, sigma, lam)
        above = Fraction(str(mpmath.nstr(lm, 30))) + Fraction(1, 1000)
        ok_rej &= not exact_lambda_check(metric, e, sigma, above)
        # σ above λ_min: any accepted claim must still be ≤ λ_min
        for fac in (Fraction(1, 2), Fraction(99, 100), Fraction(101, 100), Fraction(2)):
            s2 = Fraction(math.floor(Fraction(str(mpmath.nstr(lm, 20))) * fac * 2**20), 2**20)
            for claim in (s2 - Fraction(1, 10**6), s2 - Fraction(1, 10**12)):
                if exact_lambda_check(metric, e, s2, claim):
                    ok_sig &= mpmath.mpf(claim.numerator) / claim.denominator <= lm
    check(bool(ok_own), "exact_lambda_check accepts the Cholesky node's own claim")
    check(bool(ok_rej), "exact_lambda_check rejects claim = λ_min + 10⁻³")
    check(bool(ok_sig), "accepted claims with σ from 0.5 to 2 × λ_min are all ≤ λ_min (40 digits)")
    # the entry enclosure used by both checks
    ok = True
    for metric, e in cases[:4]:
        A, rad = phi_mid_rad(metric, e)
        Dmp = dist_matrix_mp(metric, 40)
        with mpmath.workdps(40):
            em = mpmath.mpf(e.numerator) / e.denominator
            for i in range(metric.n):
                for j in range(metric.n):
                    ok &= abs(mpmath.exp(-em * Dmp[i][j]) - mpmath.mpf(float(A[i, j]))) <= rad
    check(bool(ok), "phi_mid_rad: |Φ − Φ_mid| ≤ rad entrywise (40 digits)")


# =====================================================================================
def part_f() -> None:
    print("\n(f) exact piece re-check (integer histograms)")
    from flint import fmpz_mat

    rng = random.Random(10)
    ok = True
    for _ in range(20):
        metric = random_metric(rng, rng.randint(3, 9), vals=(1, 2, 3, 4))
        n, k = metric.n, len(metric.values)
        codes = (np.arange(n, dtype=np.int64)[:, None] * k + metric.index).ravel()
        counts = fmpz_mat(n, k, np.bincount(codes, minlength=n * k).tolist())
        cols = rng.randint(1, 4)
        table = fmpz_mat(k, cols, [rng.randint(-2**120, 2**120) for _ in range(k * cols)])
        v = [rng.randint(-2**200, 2**200) if rng.random() < 0.5 else rng.randint(-5, 5)
             for _ in range(n)]
        got = exact_hist_product(codes, n, k, v, counts, table)
        for c in range(cols):
            for i in range(n):
                direct = sum(int(table[int(metric.index[i, l]), c]) * v[l] for l in range(n))
                ok &= int(got[i, c]) == direct
    check(bool(ok), "exact_hist_product = plain integer product (20 metrics, 200-bit entries)")
    # accepted pieces have z > 0 (40 digits); verdict agrees with taylor_piece
    ok_pos = True
    agree = 0
    total = 0
    accepted = 0
    for trial in range(60):
        if trial % 3 == 0:
            pts = rng.sample([(x, y) for x in range(5) for y in range(5)], rng.randint(3, 7))
            metric = from_matrix([[f"sqrt({(p[0] - q[0])**2 + (p[1] - q[1])**2})" if p != q
                                   else 0 for q in pts] for p in pts])
        else:
            metric = random_metric(rng, rng.randint(3, 7), vals=(1, 2, 3, 4))
        prov = DenseProvider(metric)
        a = Fraction(rng.choice([rng.randint(5, 300), rng.randint(300, 20000)]), 100)
        bb = a + Fraction(1, rng.choice([10, 100, 1000, 10**6]))
        lam = prov.lambda_lower(a, bb)
        if lam <= 0:
            continue
        rhs = tuple(Fraction(rng.randint(1, 9), rng.randint(1, 9)) for _ in range(metric.n))
        K = rng.randint(0, 3)
        bvec = np.array([float(x) for x in rhs])
        brad = 2 * float(max(abs(Fraction(float(x)) - x) for x in rhs))
        res, Y = taylor_piece(prov, list(metric.values), bvec, brad, a, bb, K, lam)
        ex = exact_piece_check(metric, rhs, a, bb, K, lam, Y)
        total += 1
        agree += ex == res.ok
        accepted += ex
        if ex:
            Dmp = dist_matrix_mp(metric, 40)
            for j in range(4):
                z = mp_solve(Dmp, list(rhs), a + (bb - a) * Fraction(j, 3), 40)
                ok_pos &= min(z) > 0
    check(bool(ok_pos) and accepted >= 20,
          f"exact_piece_check accepted {accepted}/{total} pieces, z > 0 on all (40 digits)")
    check(agree == total, f"exact_piece_check agrees with taylor_piece on {agree}/{total}")
    # ranges around a sign change of z are refused
    refused = True
    tested = 0
    for metric in (sum_query(4, 3), count_queries(3)):
        D = float_D(metric)
        zmin = [float(np.min(np.linalg.solve(np.exp(-x * D), np.ones(metric.n))))
                for x in np.linspace(0.3, 3, 400)]
        xs = np.linspace(0.3, 3, 400)
        k = max(i for i in range(399) if zmin[i] < 0 <= zmin[i + 1])
        prov = DenseProvider(metric)
        ones = tuple(Fraction(1) for _ in range(metric.n))
        for w in (Fraction(1, 10), Fraction(1, 100)):
            lo, hi = Fraction(float(xs[k])) - w / 10, Fraction(float(xs[k + 1])) + w
            z_lo = min(mp_solve(dist_matrix_mp(metric, 30), list(ones), lo, 30))
            lam = prov.lambda_lower(lo, hi)
            if z_lo < 0 and lam > 0:
                Y = taylor_vectors(prov, list(metric.values), np.ones(metric.n), lo, hi, 3)
                refused &= not exact_piece_check(metric, ones, lo, hi, 3, lam, Y)
                tested += 1
    check(bool(refused) and tested >= 3,
          f"{tested} ranges containing a point with z_i < 0 (30 digits) are refused")


def main() -> int:
    t = time.perf_counter()
    part_a()
    part_b()
    part_c()
    part_d()
    part_e()
    part_f()
    print(f"\n{len(FAILS)} failures, {time.perf_counter() - t:.1f} s")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
