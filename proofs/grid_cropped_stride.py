"""Cropped kernels in the exact grid products: a constant far tail, a shorter stride, exactly.

Setting (``proofs/grid_exact_convolution.py``): on a W×H grid, (Mv)[y, x] =
Σ_{y', x'} K[y − y', x − x'] v[y', x'] with K[a, b] = table[code(|b|, |a|)], |a| ≤ H − 1,
|b| ≤ W − 1 (every offset of two grid points lies in that window).

Lemma 1 (constant tail, exact). Let 0 ≤ Ry ≤ H − 1, 0 ≤ Rx ≤ W − 1 and c an integer with
K[a, b] = c whenever |a| > Ry or |b| > Rx. With K' = K − c on the box |a| ≤ Ry, |b| ≤ Rx
(zero outside), (Mv)[y, x] = Σ K'[y − y', x − x'] v[y', x'] + c·Σ_{y', x'} v[y', x'].
Proof: every offset (y − y', x − x') lies in the window, where K = K' + c (inside the box by
definition of K', outside it because K = c and K' = 0); sum over (y', x'). ∎
So the far entries need no error bound at all: the tables of ``taylor.exact_taylor_tables``
take one constant integer for every entry below 2^-100 (``proofs/grid_taylor_blocks.py``,
Lemma 6: 0 or −1 for Φ_j, 1 for the remainder), and ``GridConvolution.crop`` takes the
smallest box outside which every table equals its value at the corner offset (W − 1, H − 1)
— a check on the actual integers, not a property assumed of them.

Lemma 2 (cropped stride). Let S ≥ W + Rx, p_v = Σ v[y, x] z^{yS + x} and
p_K' = Σ_{|a| ≤ Ry, |b| ≤ Rx} K'[a, b] z^{(a + Ry)S + b + Rx}. For 0 ≤ y < H, 0 ≤ x < W the
coefficient of z^{(y + Ry)S + x + Rx} in p_K'·p_v is Σ K'[y − y', x − x'] v[y', x'].
Proof: the term (a, b, y', x') lands on (y' + a + Ry)S + x' + b + Rx; it equals the read
exponent iff (y' + a − y)S = x − x' − b. The right side lies in [−(W − 1) − Rx, W − 1 + Rx],
so its absolute value is < S; a multiple of S below S in absolute value is 0, hence
x' + b = x and y' + a = y: exactly the convolution terms. ∎ (S = 2W − 1, Ry = H − 1,
Rx = W − 1 is Lemma 2 of ``proofs/grid_exact_convolution.py``.)

Lemma 3 (cropped blocks). Every exponent of p_K'·p_v lies in [0, D], D = (2Ry + H − 1)S +
2Rx + W − 1; the read exponents lie in [w0, w1], w0 = Ry·S + Rx, w1 = (Ry + H − 1)S + Rx + W − 1.
With L = (Ry + H − 1)S + Rx + W, P_M = Σ_j z^{jL} p_{K'_j}, P_v = Σ_k z^{kL} p_{v_k}, the
coefficient of P_M·P_v at mL + (y + Ry)S + x + Rx is Σ_{j+k=m} (M'_j v_k)[y, x].
Proof: as Lemma 4 of ``proofs/grid_taylor_blocks.py``: a pair with j + k = m' < m reaches at
most m'L + D ≤ mL − L + D < mL + w0 since L > D − w0 = w1; a pair with m' > m starts at
m'L ≥ mL + L > mL + w1. ∎ With Lemma 1 the Cauchy sums are
C_m = Σ_{j+k=m} M'_j v_k + (Σ_{j+k=m} c_j·Σ v_k)·1, all exact integers.

Cost: the kernel has (2Ry + 1)(2Rx + 1) entries instead of (2H − 1)(2W − 1) and the stride
is W + Rx instead of 2W − 1: on a 1000×1000 grid with ε ≈ 0.67 the entries fall below
2^-100 beyond d ≈ 150, so the polynomials are ≈ 4× shorter.

Checked below: Lemmas 1–3 by brute force against ``direct_grid_product`` (random boxes,
random constant tails, big signed integers, W or H = 1), the library's crop and blocked
product on the same data, the tightness of S and L (S − 1 and L − 1 alias), and the crop
on real Taylor tables with far entries.

Justifies: exactdp.linalg.grid_exact_conv.GridConvolution.block_products and .products
(the cropped layout), and the same layout in
exactdp.threshold.providers.GridProvider.exact_block_products (byte-packed digits:
``proofs/packed_products.py``).
"""

import random
import sys
from fractions import Fraction

from flint import fmpz_poly

from exactdp.linalg.grid_exact_conv import GridConvolution, direct_grid_product
from exactdp.spaces.metrics import grid
from exactdp.threshold import taylor as T
from exactdp.threshold.providers import GridProvider

PROVES = [
    "exactdp.linalg.grid_exact_conv.GridConvolution.block_products",
    "exactdp.linalg.grid_exact_conv.GridConvolution.products",
    "exactdp.threshold.providers.GridProvider.exact_block_products",
]

ok = True


def check(cond, what):
    global ok
    if not cond:
        print("FAILED:", what)
        ok = False


def cropped(W, H, code, tables, consts, cols, Ry, Rx, S, L):
    """Lemmas 1–3 written out with plain lists (explicit S and L, no library code)."""
    pm = [0] * (len(tables) * L + 4 * H * S + 4 * W)
    for j, (t, c) in enumerate(zip(tables, consts)):
        for a in range(-Ry, Ry + 1):
            for b in range(-Rx, Rx + 1):
                pm[j * L + (a + Ry) * S + b + Rx] += t[code[abs(b)][abs(a)]] - c
    pv = [0] * (len(cols) * L + 4 * H * S + 4 * W)
    for k, v in enumerate(cols):
        for y in range(H):
            for x in range(W):
                pv[k * L + y * S + x] = v[y * W + x]
    co = [int(t) for t in (fmpz_poly(pm) * fmpz_poly(pv)).coeffs()]
    co += [0] * ((len(tables) + len(cols) + 2) * L + 8 * H * S + 8 * W)
    out = []
    for m in range(len(tables) + len(cols) - 1):
        add = sum(consts[j] * sum(cols[m - j]) for j in range(len(tables)) if 0 <= m - j < len(cols))
        out.append([co[m * L + (y + Ry) * S + x + Rx] + add for y in range(H) for x in range(W)])
    return out


def cauchy_direct(W, H, code, tables, cols):
    out = []
    for m in range(len(tables) + len(cols) - 1):
        acc = [0] * (W * H)
        for j, t in enumerate(tables):
            if 0 <= m - j < len(cols):
                acc = [x + y for x, y in zip(acc, direct_grid_product(W, H, code, t, cols[m - j]))]
        out.append(acc)
    return out


def tailed_tables(W, H, Ry, Rx, J, rng):
    """Codes with one code (0) for every offset outside the box, and tables (code 0 = c_j)."""
    code = [[0 if (dx > Rx or dy > Ry) else rng.randrange(1, 6) for dy in range(H)] for dx in range(W)]
    tables = [[rng.randrange(-3, 3)] + [rng.randrange(-(2**110), 2**110) for _ in range(5)]
              for _ in range(J)]
    return code, tables


rng = random.Random(9159)
for W, H in ((1, 1), (1, 6), (6, 1), (3, 4), (5, 5), (7, 3)):
    for Ry, Rx in ((0, 0), (H - 1, W - 1), (min(1, H - 1), min(2, W - 1)), (H // 2, W // 3)):
        for J, K in ((1, 1), (4, 4), (2, 3)):
            code, tables = tailed_tables(W, H, Ry, Rx, J, rng)
            cols = [[rng.randrange(-(2**70), 2**70) for _ in range(W * H)] for _ in range(K)]
            want = cauchy_direct(W, H, code, tables, cols)
            consts = [t[0] for t in tables]
            S = W + Rx
            L = (Ry + H - 1) * S + Rx + W
            for SS, LL in ((S, L), (S + 1, L + S + 1), (S, 2 * L)):
                LL = max(LL, (Ry + H - 1) * SS + Rx + W)
                check(cropped(W, H, code, tables, consts, cols, Ry, Rx, SS, LL) == want,
                      f"lemmas 1-3 {W}x{H} box ({Ry},{Rx}) S={SS} L={LL} J={J} K={K}")
            conv = GridConvolution(W, H, code)
            cy, ry, rx = conv.crop(tables)
            check(ry <= Ry and rx <= Rx, f"crop box within the true box {W}x{H}")
            check(conv.block_products(tables, cols) == want, f"library cropped blocks {W}x{H} ({Ry},{Rx})")
            check(conv.products(tables[0], cols) == [direct_grid_product(W, H, code, tables[0], v)
                                                      for v in cols], f"library products {W}x{H}")

# tightness: S − 1 and L − 1 alias (all-ones data, box (1, 1) on a 4×4 grid)
W, H, Ry, Rx = 4, 4, 1, 1
code = [[0 if (dx > Rx or dy > Ry) else 1 for dy in range(H)] for dx in range(W)]
tabs, cols = [[0, 1], [0, 1]], [[1] * 16, [1] * 16]
want = cauchy_direct(W, H, code, tabs, cols)
S = W + Rx
L = (Ry + H - 1) * S + Rx + W
check(cropped(W, H, code, tabs, [0, 0], cols, Ry, Rx, S - 1, L) != want, "stride W + Rx − 1 must alias")
check(cropped(W, H, code, tabs, [0, 0], cols, Ry, Rx, S, L - 1) != want, "block stride L − 1 must alias")

# the crop on real Taylor tables with far entries (grid 20×20, c = 6: entries below 2^-100
# beyond d ≈ 14), against the direct product over Python integers
m = grid(20, 20, "euclidean")
prov = GridProvider(m)
ex = T.exact_taylor_tables(list(m.values), Fraction(6), Fraction(6), 3)
cy, ry, rx = prov.conv.crop(ex.lo)
check(ry < 19 and rx < 19 and cy[1] == -1 and cy[0] == 0, f"Taylor tables crop to a box ({ry}, {rx}), consts {cy}")
cols = [[rng.randrange(-(2**80), 2**80) for _ in range(m.n)] for _ in range(4)]
check(prov.conv.block_products(ex.lo, cols) == cauchy_direct(20, 20, prov.code, ex.lo, cols),
      "cropped blocked product of real Taylor tables")
check(prov.conv.products(ex.rem, cols[:1])[0] == direct_grid_product(20, 20, prov.code, ex.rem, cols[0]),
      "cropped product of the remainder table (constant 1 tail)")

print("grid_cropped_stride:", "all checks passed" if ok else "FAILED")
sys.exit(0 if ok else 1)
