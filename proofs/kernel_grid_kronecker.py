"""The kernel's grid products: Kronecker digits, biased read-back and the crop bound.

Setting: ``exactdp.kernel.threshold_grid.GridProducts.sums`` gets an integer table T
(one row per distinct offset distance, J columns T_0..T_{J−1}), ny integer vectors y_k on
the n kept cells of a W×H grid and a threshold tau ≥ 0. It returns S_m = Σ_{j+k=m} T'_j·y_k
(T'_j: T_j on the offsets |dx| ≤ rx, |dy| ≤ ry of the smallest box holding every offset whose
row has an entry above tau, 0 outside) and err_j. The layout of the two polynomials (stride
S = W + rx, blocks of length L) is ``proofs/grid_cropped_stride.py``, Lemmas 2–3: slots are
distinct inside each polynomial and block m of the product at the read positions is S_m.

Lemma 1 (digit bound). Let bT = bits(max|T|), by = bits(max|y|), bN = bits(ny·n) and
nb = ⌊(bT + by + bN + 8)/8⌋. Every coefficient c of p_T·p_Y satisfies |c| < 2^(8nb − 1).
Proof: fix an exponent e. Each of the ≤ ny·n slots of p_Y pairs with at most one slot of
p_T (slots of p_T are distinct), so c is a sum of ≤ ny·n products with |T·y| ≤ max|T|·max|y|:
|c| ≤ ny·n·max|T|·max|y| ≤ (2^bN − 1)(2^bT − 1)(2^by − 1) < 2^(bT+by+bN) when all three are
≥ 1 (else c = 0); and 8nb ≥ 8·((B + 8) − 7)/8 = B + 1 for B = bT + by + bN, so
2^B ≤ 2^(8nb − 1). Also every |T|, |y| < 2^B ≤ 2^(8nb − 1): each fits in nb bytes
(``exactdp.arithmetic.packed.pack_signed``). ∎

Lemma 2 (biased read-back). Let z = 2^(8nb), nout = (J + ny)·L and c_e (0 ≤ e < nout) the
coefficients of p_T·p_Y (no exponent reaches nout: the largest is (J + ny − 2)L + D with
D = (2ry + H − 1)S + 2rx + W − 1 < 2L). Then q = p_T(z)p_Y(z) + Σ_{e<nout} (z/2)z^e has the
base-z digits d_e = c_e + z/2, so c_e = d_e − z/2 read from q's nb-byte little-endian words.
Proof: q = Σ_e (c_e + z/2) z^e and by Lemma 1 each c_e + z/2 ∈ [1, z − 1]; base-z digits are
unique, so these are q's digits (and 0 < q < z^nout fits in nout·nb bytes). ∎

Lemma 3 (crop bound). Call a code big when its row has an entry |T| > tau; rx, ry are the
largest dx, dy of an offset with a big code, err_j the largest |T_j| over the codes that are
not big (0 if none). Then err_j ≤ tau and, entrywise,
|Σ_{j+k=m} T_j·y_k − S_m| ≤ Σ_{j+k=m} err_j·‖y_k‖₁.
Proof: every offset outside the box has a code that is not big (the box holds all big
offsets), so |T_j − T'_j| ≤ err_j at every offset; for cell i,
|((T_j − T'_j)y_k)_i| = |Σ_l (T_j − T'_j)[i, l] y_k[l]| ≤ err_j·‖y_k‖₁; sum over j + k = m.
With tau = 0 only zero rows are left out and S is exact. ∎

Checked below with the REAL kernel function (``GridProducts.sums``): (a) the inequality
8⌊(B + 8)/8⌋ − 1 ≥ B for every B ≤ 10⁴ and its equality cases; (b) Lemmas 1–2 at their
tightest points (every |T| = 2^bT − 1, every |y| = 2^by − 1, all signs, with
8nb − 1 = bT + by + bN exactly) against the closed value count·n·T·y; (c) Lemma 2 by brute
force on the digits (z = 2^8: every c ∈ (−128, 128)); (d) Lemma 3 against a brute-force
double loop on random tables, full and masked grids, both norms, tau ∈ {0, 2^10, 2^200}.

Justifies: exactdp.kernel.threshold_grid.GridProducts.sums (the digit width nb, the bias,
the read-back) and the err terms that exactdp.kernel.threshold_spd.piece_ok adds.
"""

import itertools
import random
import sys
from fractions import Fraction as F

from flint import fmpz_mat

from exactdp.kernel.threshold_grid import GridProducts
from exactdp.spaces.metrics.masked import GridShape, grid_shape, masked_grid

PROVES = ["exactdp.kernel.threshold_grid.GridProducts.sums"]

ok = True


def check(cond: bool, what: str) -> None:
    global ok
    print(("ok: " if cond else "FAILED: ") + what)
    ok = ok and cond


# (a) the arithmetic of nb
check(all(8 * ((B + 8) // 8) - 1 >= B for B in range(10_001)), "(a) 8·⌊(B + 8)/8⌋ − 1 ≥ B, B ≤ 10⁴")
check(all((8 * ((B + 8) // 8) - 1 == B) == (B % 8 == 7) for B in range(10_001)),
      "(a) equality exactly when B ≡ 7 (mod 8): the bound is tight there")

# (b) tightest points through the kernel: 8nb − 1 = bT + by + bN
bad = tight = 0
for W, H in ((1, 1), (3, 1), (1, 3), (3, 5)):
    g = GridProducts(GridShape(W, H, "euclidean", F(1)))
    nv, n = len(g.values), g.n
    for J, ny in ((1, 1), (3, 2), (7, 7), (8, 8)):
        bN = (ny * n).bit_length()
        for bT in (1, 5, 64, 127):
            by = (7 - bT - bN) % 8 + 80  # makes B ≡ 7 (mod 8)
            tight += (bT + by + bN) % 8 == 7
            for sT, sy in itertools.product((1, -1), repeat=2):
                T, y = sT * ((1 << bT) - 1), sy * ((1 << by) - 1)
                S, err = g.sums(fmpz_mat(nv, J, [T] * (nv * J)), [[y] * n for _ in range(ny)])
                for m in range(J + ny - 1):
                    cnt = sum(1 for j in range(J) if 0 <= m - j < ny)
                    bad += any(int(s) != cnt * n * T * y for s in S[m])
check(bad == 0 and tight > 0, f"(b) Lemmas 1–2 at {tight} tight digit widths × signs: exact")

# (c) the biased digits, z = 2^8, by brute force
rng = random.Random(3)
good = True
for _ in range(200):
    cs = [rng.randint(-127, 127) for _ in range(rng.randint(1, 12))]
    q = sum(c * 256**e for e, c in enumerate(cs)) + sum(128 * 256**e for e in range(len(cs)))
    digits = list(q.to_bytes(len(cs), "little"))
    good = good and 0 < q < 256 ** len(cs) and [d - 128 for d in digits] == cs
check(good, "(c) Lemma 2: biased base-2^8 digits read back every c ∈ (−128, 128)")


# (d) the crop bound against a brute-force double loop
def brute(g: GridProducts, tab: list[list[int]], ys: list[list[int]]) -> list[list[int]]:
    W = g.shape.width
    xy = [(c % W, c // W) for c in g.cells.tolist()]
    out = [[0] * g.n for _ in range(len(tab[0]) + len(ys) - 1)]
    for i, (x, y) in enumerate(xy):
        for l, (u, v) in enumerate(xy):
            row = tab[int(g.code[abs(x - u), abs(y - v)])]
            for j, t in enumerate(row):
                for k, yk in enumerate(ys):
                    out[j + k][i] += t * yk[l]
    return out


shapes = [GridShape(7, 6, "euclidean", F(1)), GridShape(9, 2, "manhattan", F(2)),
          GridShape(1, 7, "euclidean", F(1, 3)),
          grid_shape(masked_grid(6, 4, mask=["110111", "111111", "011110", "100001"]))]
bad = crops = 0
for trial in range(40):
    g = GridProducts(shapes[trial % len(shapes)])
    J, ny, tau = rng.randint(1, 4), rng.randint(1, 3), rng.choice((0, 2**10, 2**200))
    near = rng.randint(0, 3)
    dist = [float(v) for v in g.values]
    tab = [[rng.randint(-2**130, 2**130) if d <= near else rng.randint(-2**10, 2**10)
            for _ in range(J)] for d in dist]
    ys = [[rng.randint(-2**90, 2**90) for _ in range(g.n)] for _ in range(ny)]
    S, err = g.sums(fmpz_mat(len(tab), J, [x for r in tab for x in r]), ys, tau)
    full = brute(g, tab, ys)
    l1 = [sum(map(abs, y)) for y in ys]
    small = [r for r in tab if max(map(abs, r)) <= tau]
    crops += any(err)
    bad += not (all(e <= tau for e in err)
                and all(err[j] >= max((abs(r[j]) for r in small), default=0) for j in range(J))
                and all(abs(int(S[m][i]) - full[m][i])
                        <= sum(err[j] * l1[m - j] for j in range(J) if 0 <= m - j < ny)
                        for m in range(J + ny - 1) for i in range(g.n))
                and (tau != 0 or S.tolist() == full))
check(bad == 0 and crops > 5, f"(d) Lemma 3 on 40 random tables ({crops} with a real crop)")

sys.exit(0 if ok else 1)
