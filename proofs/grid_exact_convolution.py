"""Exact grid products by Kronecker substitution, and the exact bounds of a Taylor piece.

Lemma 1 (2-D convolution). On a W×H grid (point i = y·W + x) with Φ[i, l] =
t(|x_i − x_l|, |y_i − y_l|), (Φv)[y, x] = Σ_{y', x'} K[y − y', x − x'] v[y', x'] with the
(2H − 1)×(2W − 1) kernel K[a, b] = t(|b|, |a|).

Lemma 2 (Kronecker substitution, stride S ≥ 2W − 1). Put p_v = Σ v[y', x'] z^{y'S + x'}
and p_K = Σ_{|a|<H, |b|<W} K[a, b] z^{(a+H−1)S + (b+W−1)}. A term v[y', x']·K[a, b] of
p_K·p_v lands on the exponent Y·S + X with Y = y' + a + H − 1 and X = x' + b + W − 1,
0 ≤ X ≤ 3W − 3. For a target (y, x), 0 ≤ x < W, the target exponent is
(y+H−1)·S + X₀ with W − 1 ≤ X₀ = x + W − 1 ≤ 2W − 2. A term with Y·S + X = (y+H−1)·S + X₀
and Y ≠ y + H − 1 needs X − X₀ = ±S·q for some q ≥ 1: X₀ + S ≥ 3W − 2 > 3W − 3 ≥ X, and
X₀ − S ≤ 2W − 2 − (2W − 1) < 0 ≤ X, so no such term exists: the coefficient of the target
exponent is exactly Σ over terms with Y = y + H − 1 and X = X₀, i.e. y − y' = a and
x − x' = b — the convolution sum of Lemma 1. Integer polynomial products (flint fmpz_poly)
are exact for any signed integers, so the read coefficient *is* (Φv)[y, x].

Lemma 3 (exact bounds of a piece, ``taylor._exact_rho_bounds``). With
Φ_j ∈ [A_j, A_j + R_j]·2^-T entrywise, y_k = Y_k·2^{−s_k} (integer Y_k), b exactly a float
up to b_rad: ρ_m = [m=0]b − Σ_{j+k=m} Φ_j y_k = [m=0]b − Σ (A_jY_k + Δ_jY_k)·2^{−T−s_k},
0 ≤ Δ_j ≤ R_j, so |ρ_m| ≤ |[m=0]b − Σ A_jY_k 2^{−T−s_k}| + Σ max R_j ‖Y_k‖₁ 2^{−T−s_k}
(+ b_rad); |Φ_j y_k| ≤ U_j|Y_k| 2^{−T−s_k} with U_j = max(|A_j|, |A_j + R_j|); and for the
remainder with P ≥ 0 entrywise, P·Ysum ≤ P·⌈Ysum·2^s⌉·2^{−s}. Each final quotient is a
correctly rounded Python int/int division followed by one step up.

Checked below: Lemma 2 by brute force on random grids (square, non-square, W or H = 1,
signed integers far beyond 2^53, also with a larger stride), the stride bound at
S = 2W − 2 failing (the lemma is tight), Lemma 3 against an exact rational evaluation on a
small grid (every |ρ_m| below its bound), and the provider's exact products against the
dense limb products.

Justifies: exactdp.linalg.grid_exact_conv.GridConvolution (products, matvec_poly) and the
exact branch of exactdp.threshold.taylor.taylor_piece / exact_residual_bound on grids.
"""

import random
import sys
from fractions import Fraction

import numpy as np
from flint import fmpz_poly

from exactdp.linalg.grid_exact_conv import GridConvolution, direct_grid_product
from exactdp.spaces.grid import offset_value_codes
from exactdp.spaces.metrics import grid
from exactdp.threshold import taylor as T
from exactdp.threshold.providers import DenseProvider, GridProvider

PROVES = [
    "exactdp.linalg.grid_exact_conv.GridConvolution.products",
    "exactdp.linalg.grid_exact_conv.GridConvolution.matvec_poly",
    "exactdp.threshold.taylor.taylor_piece",
    "exactdp.threshold.taylor_exact.exact_residual_bound",
    "exactdp.threshold.rational_point.exact_grid_z",  # its exact check of Φz = b
]

ok = True


def check(cond, what):
    global ok
    if not cond:
        print("FAILED:", what)
        ok = False


def kron_product(W, H, code, table, v, S):
    """Lemma 2 with an explicit stride S (the library uses S = 2W − 1)."""
    pk = [0] * ((2 * H - 1) * S + 2 * W)
    for a in range(-(H - 1), H):
        for b in range(-(W - 1), W):
            pk[(a + H - 1) * S + b + W - 1] += table[code[abs(b)][abs(a)]]
    pv = [0] * (H * S)
    for y in range(H):
        for x in range(W):
            pv[y * S + x] = v[y * W + x]
    c = (fmpz_poly(pk) * fmpz_poly(pv)).coeffs()
    c = [int(t) for t in c] + [0] * (3 * H * S)
    return [c[(y + H - 1) * S + x + W - 1] for y in range(H) for x in range(W)]


rng = random.Random(15)
# Lemma 2 by brute force
for W, H in ((1, 1), (1, 6), (6, 1), (2, 3), (5, 4), (4, 7), (9, 9)):
    code = [[rng.randrange(0, 7) for _ in range(H)] for _ in range(W)]
    for _trial in range(3):
        table = [rng.randrange(-(2**90), 2**90) for _ in range(7)]
        v = [rng.randrange(-(2**70), 2**70) for _ in range(W * H)]
        want = direct_grid_product(W, H, code, table, v)
        check(GridConvolution(W, H, code).products(table, [v])[0] == want, f"library product {W}x{H}")
        for S in (2 * W - 1, 2 * W, 3 * W + 1):
            check(kron_product(W, H, code, table, v, S) == want, f"stride {S} on {W}x{H}")
# the stride bound is tight: S = 2W − 2 aliases (all-ones data on a 3×3 grid)
code = [[0] * 3 for _ in range(3)]
check(kron_product(3, 3, code, [1], [1] * 9, 4) != direct_grid_product(3, 3, code, [1], [1] * 9),
      "stride 2W − 2 must alias")

# the providers: grid convolution == dense limb products (signed tables)
for W, H in ((3, 5), (6, 4)):
    m = grid(W, H, "euclidean")
    table = [rng.randrange(-(2**110), 2**110) for _ in m.values]
    cols = [[rng.randrange(-(2**80), 2**80) for _ in range(m.n)] for _ in range(2)]
    check(GridProvider(m).exact_matvec(table, cols) == DenseProvider(m).exact_matvec(table, cols),
          f"grid vs dense exact products {W}x{H}")
    code = offset_value_codes(m).tolist()
    check(GridProvider(m).exact_matvec(table, cols[:1])[0] == direct_grid_product(W, H, code, table, cols[0]),
          f"grid exact product vs direct sum {W}x{H}")

# Lemma 3 end to end: exact rational ρ_m against the bounds of the exact branch
m = grid(5, 4, "euclidean")
prov = GridProvider(m)
K = 2
c, a = Fraction(7, 10), Fraction(13, 20)
ex = T.exact_taylor_tables(list(m.values), c, a, K)
Y = T.on_column_grids(np.array([[rng.uniform(-1, 1) * 10.0**-k for k in range(K + 1)] for _ in range(m.n)]))
b = np.array([1.0 + (i % 3) / 4 for i in range(m.n)])
Ysum = np.sum(np.abs(Y), axis=1) * 1.5
bounds, PY = T._exact_rho_bounds(prov, ex, b, 0.0, K, Y, Ysum)
idx = m.index
Sc = Fraction(1, 2**100)
for mm in range(2 * K + 1):
    pairs = [(j, mm - j) for j in range(K + 1) if 0 <= mm - j <= K]
    for i in range(m.n):
        lo = hi = Fraction(float(b[i])) if mm == 0 else Fraction(0)
        for j, k in pairs:
            for l_ in range(m.n):
                v = int(idx[i, l_])
                e_lo, e_hi = ex.lo[j][v] * Sc, ex.hi[j][v] * Sc
                yl = Fraction(float(Y[l_, k]))
                lo, hi = (lo - e_hi * yl, hi - e_lo * yl) if yl >= 0 else (lo - e_lo * yl, hi - e_hi * yl)
        check(max(abs(lo), abs(hi)) <= Fraction(float(bounds[mm][i])), f"rho_{mm} bound row {i}")
        check(mm > K or Fraction(float(bounds[mm][i])) <= 2 * max(abs(lo), abs(hi)) + Fraction(1, 2**80),
              f"rho_{mm} bound row {i} is tight (m ≤ K: not a vacuous bound)")
for i in range(m.n):
    exact_py = sum(ex.rem[int(idx[i, l_])] * Sc * Fraction(float(Ysum[l_])) for l_ in range(m.n))
    check(exact_py <= Fraction(float(PY[i])), f"remainder bound row {i}")
    check(Fraction(float(PY[i])) <= exact_py * (1 + Fraction(1, 2**40)) + Fraction(1, 2**80),
          f"remainder bound row {i} is tight")

print("grid_exact_convolution:", "all checks passed" if ok else "FAILED")
sys.exit(0 if ok else 1)
