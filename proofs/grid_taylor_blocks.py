"""All Cauchy sums of a Taylor piece in one exact product (blocked Kronecker substitution).

Setting (``proofs/grid_exact_convolution.py``, Lemma 2): on a W×H grid with stride
S = 2W − 1, p_K (degree ≤ (2H − 2)S + 2W − 2) and p_v (degree ≤ (H − 1)S + W − 1), and the
product (Φv)[y, x] is the coefficient of p_K·p_v at w(y, x) = (y + H − 1)S + x + W − 1;
every read exponent lies in the window [w0, w1], w0 = (H − 1)S + W − 1,
w1 = 2(H − 1)S + 2W − 2, and every exponent of p_K·p_v lies in [0, D], D = 3(H − 1)S + 3W − 3.

Lemma 4 (blocks). Let L ≥ 2(H − 1)S + 2W − 1 (``block_stride``), P_M = Σ_j z^{jL} p_{K_j},
P_v = Σ_k z^{kL} p_{v_k}. Then P_M·P_v = Σ_{j,k} z^{(j+k)L} p_{K_j}p_{v_k}, and the coefficient
at mL + w(y, x) is exactly Σ_{j+k=m} (Φ_j v_k)[y, x] (the Cauchy sum C_m).
Proof: a pair (j, k) with j + k = m' contributes only to exponents m'L + [0, D]. For
m' < m: m'L + D ≤ mL − L + D < mL + w0 because L > D − w0 = 2(H − 1)S + 2W − 2. For m' > m:
m'L ≥ mL + L > mL + w1 because L > w1. So only the pairs with j + k = m reach the window
of block m, and there the coefficient is the sum of their Lemma-2 coefficients. Integer
polynomial products are exact, so the read values are the exact integers C_m. ∎
The bound is tight: L = 2(H − 1)S + 2W − 2 aliases (checked below).

Lemma 5 (the m > K sums, ``taylor._exact_rho_bounds``). With Φ_j ∈ [A_j, A_j + R_j]·2^-T
entrywise (0 ≤ R_j ≤ r_j), ρ_m = −Σ_{j+k=m} Φ_jy_k for K < m ≤ 2K satisfies, exactly as for
m ≤ K, |ρ_m| ≤ |Σ A_jy_k|·2^-T + Σ r_j‖y_k‖₁·2^-T: write Φ_j = (A_j + Δ_j)2^-T with
0 ≤ Δ_j ≤ R_j; |(Δ_jy_k)_i| ≤ Σ_l R_j[i, l]|y_k[l]| ≤ r_j‖y_k‖₁. (The previous bound used
Σ U_j|y_k|; both are valid, the signed one keeps the cancellation.)

Lemma 6 (far entries, ``taylor._far_square``). Let 0 < a ≤ c, J ≥ 0 and d0 ≥ J/a with
d0^j e^{−a d0}/j! < 2^-100 for every j ≤ J (proved in arb). For j ≤ J, d ↦ d^j e^{−ad} has
derivative d^{j−1}e^{−ad}(j − ad) ≤ 0 for d ≥ j/a, so every d ≥ d0 (i.e. d² ≥ d0², exact
on the Distance's square) has 0 < d^j e^{−cd}/j! ≤ d^j e^{−ad}/j! < 2^-100: the Taylor entry
(−d)^j e^{−cd}/j! lies in [0, 1]·2^-100 (j even) or [−1, 0]·2^-100 (j odd), and the
remainder entry d^{J}e^{−ad}/J! ≤ 1·2^-100: the tables take exactly these integers, no arb.

Checked below: Lemma 4 by brute force (random signed big integers, square, non-square,
W or H = 1, several block counts), its tightness, and Lemma 5 end to end against exact
rational ρ_m on a small grid through ``taylor._exact_rho_bounds``.

Justifies: exactdp.linalg.grid_exact_conv.GridConvolution.block_products and the blocked
exact branch of exactdp.threshold.taylor.taylor_piece.
"""

import math
import random
import sys
from fractions import Fraction

import numpy as np
from flint import arb, fmpz_poly

from exactdp.arithmetic.ball import workprec
from exactdp.linalg.grid_exact_conv import GridConvolution, block_stride, direct_grid_product
from exactdp.spaces.metrics import grid
from exactdp.threshold import taylor as T
from exactdp.threshold.providers import GridProvider

PROVES = [
    "exactdp.linalg.grid_exact_conv.GridConvolution.block_products",
    "exactdp.threshold.taylor.taylor_piece",
    "exactdp.threshold.taylor_exact.exact_residual_bound",
    "exactdp.threshold.taylor_exact.far_square",
]

ok = True


def check(cond, what):
    global ok
    if not cond:
        print("FAILED:", what)
        ok = False


def blocked(W, H, code, tables, cols, L):
    """Lemma 4 written out with an explicit block stride L (plain lists, no library code)."""
    S = 2 * W - 1
    pm = [0] * (len(tables) * L + 4 * H * S)
    for j, t in enumerate(tables):
        for a in range(-(H - 1), H):
            for b in range(-(W - 1), W):
                pm[j * L + (a + H - 1) * S + b + W - 1] += t[code[abs(b)][abs(a)]]
    pv = [0] * (len(cols) * L + 4 * H * S)
    for k, v in enumerate(cols):
        for y in range(H):
            for x in range(W):
                pv[k * L + y * S + x] = v[y * W + x]
    c = [int(t) for t in (fmpz_poly(pm) * fmpz_poly(pv)).coeffs()]
    c += [0] * ((len(tables) + len(cols) + 2) * L + 8 * H * S)
    return [[c[m * L + (y + H - 1) * S + x + W - 1] for y in range(H) for x in range(W)]
            for m in range(len(tables) + len(cols) - 1)]


def cauchy_direct(W, H, code, tables, cols):
    out = []
    for m in range(len(tables) + len(cols) - 1):
        acc = [0] * (W * H)
        for j, t in enumerate(tables):
            k = m - j
            if 0 <= k < len(cols):
                p = direct_grid_product(W, H, code, t, cols[k])
                acc = [a + b for a, b in zip(acc, p)]
        out.append(acc)
    return out


rng = random.Random(1515)
for W, H in ((1, 1), (1, 5), (5, 1), (2, 3), (4, 4), (3, 6)):
    code = [[rng.randrange(0, 6) for _ in range(H)] for _ in range(W)]
    for J, K in ((1, 1), (4, 4), (2, 5), (4, 1)):
        tables = [[rng.randrange(-(2**110), 2**110) for _ in range(6)] for _ in range(J)]
        cols = [[rng.randrange(-(2**70), 2**70) for _ in range(W * H)] for _ in range(K)]
        want = cauchy_direct(W, H, code, tables, cols)
        L = block_stride(W, H)
        check(L == 2 * (H - 1) * (2 * W - 1) + 2 * W - 1, "block_stride formula")
        check(GridConvolution(W, H, code).block_products(tables, cols) == want,
              f"library blocked product {W}x{H} J={J} K={K}")
        for LL in (L, L + 1, 2 * L):
            check(blocked(W, H, code, tables, cols, LL) == want, f"stride {LL} on {W}x{H}")
# tight: L − 1 aliases (all-ones data, two blocks each side)
W, H = 3, 3
code = [[0] * H for _ in range(W)]
ones = [[1], [1]]
vec = [[1] * 9, [1] * 9]
L = block_stride(W, H)
check(blocked(W, H, code, ones, vec, L - 1) != cauchy_direct(W, H, code, ones, vec),
      "block stride L − 1 must alias")

# Lemma 5 end to end: exact rational ρ_m (all m ≤ 2K) against the blocked exact bounds
m = grid(4, 5, "euclidean")
prov = GridProvider(m)
K = 3
c, a = Fraction(7, 10), Fraction(13, 20)
ex = T.exact_taylor_tables(list(m.values), c, a, K)
Y = T.on_column_grids(np.array([[rng.uniform(-1, 1) * 10.0 ** (2 * k - 3) for k in range(K + 1)]
                                for _ in range(m.n)]))
b = np.array([1.0 + (i % 3) / 4 for i in range(m.n)])
Ysum = np.sum(np.abs(Y), axis=1)
bounds, _ = T._exact_rho_bounds(prov, ex, b, 0.0, K, Y, Ysum)
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
        bnd = Fraction(float(bounds[mm][i]))
        check(max(abs(lo), abs(hi)) <= bnd, f"rho_{mm} bound row {i}")
        check(bnd <= 2 * max(abs(lo), abs(hi)) + Fraction(1, 2**80), f"rho_{mm} bound row {i} is tight")

# Lemma 6: the far cut against arb on many d beyond it, and the tables it produces
for a, J in ((Fraction(2, 3), 4), (Fraction(5, 2), 4), (Fraction(1, 10), 1), (Fraction(3, 1), 0)):
    q = T._far_square(a, J)
    check(q is not None and q >= Fraction(J) ** 2 / a**2, f"far cut exists and is beyond J/a for a={a}")
    d0 = int(round(float(q) ** 0.5))
    for d in list(range(d0, d0 + 40)) + [d0 * 3, d0 * 10]:
        for j in range(J + 1):
            val = Fraction(d**j, math.factorial(j)) * Fraction(math.exp(-float(a) * d))
            check(val * 2**100 < 1.01, f"far entry d={d} j={j} a={a}")  # float sanity
# the cut's d0 is ≥ J/a exactly (Lemma 6 needs it), also for huge / tiny rationals and high
# orders, where a float search would divide by zero or overflow
for a, J in ((Fraction(1, 10**400), 3), (Fraction(10**400), 3), (Fraction(1, 100), 80),
             (Fraction(71 * 10**18 - 1, 10**18), 71)):
    q = T._far_square(a, J)
    check(q is None or (math.isqrt(q.numerator) ** 2 == q and math.isqrt(q.numerator) >= J / a),
          f"far cut d0 >= J/a for a={str(a)[:24]}, J={J}")
with_cut = T.exact_taylor_tables(list(grid(60, 1, "euclidean").values), Fraction(3), Fraction(5, 2), 3)
no_cut_vals = list(grid(60, 1, "euclidean").values)
with workprec(200):
    for idx_v, v in enumerate(no_cut_vals):
        d = v.ball()
        for j in range(4):
            ent = (-d) ** j * (-arb(3) * d).exp() / math.factorial(j) * arb(2) ** 100
            check(with_cut.lo[j][idx_v] <= ent.lower() and ent.upper() <= with_cut.hi[j][idx_v],
                  f"far table encloses entry d={v} j={j}")
        rem = d**4 * (-arb(Fraction(5, 2).numerator) / 2 * d).exp() / 24 * arb(2) ** 100
        check(rem.upper() <= with_cut.rem[idx_v], f"far table remainder d={v}")

print("grid_taylor_blocks:", "all checks passed" if ok else "FAILED")
sys.exit(0 if ok else 1)
