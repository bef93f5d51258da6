"""Exact integer products through float structured products, and the exact residual bound.

Lemma 1 (exact float sums). Let every term t_l = a_l·v_l be a product of integers with
|a_l|, |v_l| ≤ 2^L − 1 and N·(2^L − 1)² < 2^53. Any algorithm that forms Σ_l t_l by
floating-point multiplications, additions and fused multiply-adds, in any order and with
any blocking, where every intermediate value is a sum of a subset of the terms, computes
each intermediate exactly: each is an integer of magnitude ≤ N·(2^L − 1)² < 2^53, every
integer of that size is a binary64 number, and a correctly rounded operation whose exact
result is representable returns it. By induction over the operations the result is the
exact sum. (GridProvider.matvec: per row offset a W×W Toeplitz BLAS product, then
accumulation over the H rows: every output sums the n = W·H products once. DenseProvider:
one BLAS product of the gathered matrix. Both satisfy the hypothesis with N = n.)

Lemma 2 (limb recombination). With a = Σ_i a_i 2^{iL}, v = sign(v)·Σ_j v_j 2^{jL},
0 ≤ a_i, v_j < 2^L, the product is a·v = Σ_{i,j} a_i·(sign(v) v_j)·2^{(i+j)L}; so
M·v = Σ_{i,j} 2^{(i+j)L}·(M_i v_j) with M_i the i-th limb table, each M_i v_j exact by
Lemma 1.

Lemma 3 (the exact residual bound). Let e^{−cd_k} ∈ [A_k, A_k + r_k]·2^−S (A_k, r_k
integers), y = Y·2^−T (Y integers), b_i = β_i/B (β_i, B integers). Then, exactly,
b_i − (Φy)_i = (β_i·2^{S+T} − B·(A Y)_i)/(B·2^{S+T}) − Σ_l δ_il y_l with
0 ≤ δ_il ≤ r_{k(i,l)}·2^−S, so |b_i − (Φy)_i| ≤ (|β_i 2^{S+T} − B(AY)_i| + B·max r·‖Y‖₁)/(B 2^{S+T}).

Checked below: Lemma 2 and 3 symbolically (sympy), Lemma 1 + 2 end to end against exact
Python-integer products on random grids through both providers, with integers far beyond
2^53, and the residual bound of exact_residual_bound against an exact rational residual.

Justifies: exactdp.linalg.exact_products.exact_table_matvec and
exactdp.threshold.taylor.exact_residual_bound (the precision escalation of the SPD cover).
"""

import random
import sys
from fractions import Fraction

import numpy as np
import sympy as sp
from flint import arb

from exactdp.arithmetic.ball import arb_to_fraction_interval, workprec
from exactdp.arithmetic.rationals import to_fmpq
from exactdp.linalg.exact_products import exact_table_matvec, limb_bits
from exactdp.spaces.metrics import grid
from exactdp.threshold.providers import DenseProvider, GridProvider
from exactdp.threshold.taylor import exact_residual_bound, on_residual_grid

PROVES = [
    "exactdp.linalg.exact_products.exact_table_matvec",
    "exactdp.threshold.taylor_exact.exact_residual_bound",
    "exactdp.threshold.taylor_exact.exact_residual",
]

ok = True


def check(cond, what):
    global ok
    if not cond:
        print("FAILED:", what)
        ok = False


# Lemma 1: the bound on partial sums
for N in (1, 100, 10_000, 10**6):
    L = limb_bits(N)
    check(N * (2**L - 1) ** 2 < 2**53 <= N * (2 ** (L + 1) - 1) ** 2, f"limb_bits({N}) = {L} maximal")
    check(all(float(k) == k for k in (N * (2**L - 1) ** 2, N * (2**L - 1) ** 2 - 1)),
          "integers below 2^53 are floats")

# Lemma 2 symbolically (three limbs each)
Ls = sp.symbols("L", positive=True, integer=True)
a_l = sp.symbols("a0:3")
v_l = sp.symbols("v0:3")
sg = sp.symbols("sg")
a = sum(a_l[i] * 2 ** (i * Ls) for i in range(3))
v = sg * sum(v_l[j] * 2 ** (j * Ls) for j in range(3))
rec = sum(a_l[i] * sg * v_l[j] * 2 ** ((i + j) * Ls) for i in range(3) for j in range(3))
check(sp.expand(a * v - rec) == 0, "limb recombination identity")

# Lemma 3 symbolically: residual identity with δ
beta, B, S, T, AY, dy = sp.symbols("beta B S T AY dy")
lhs = beta / B - (AY * 2**-S * 2**-T + dy)
rhs = (beta * 2 ** (S + T) - B * AY) / (B * 2 ** (S + T)) - dy
check(sp.simplify(lhs - rhs) == 0, "exact residual identity")

# Lemmas 1 + 2 end to end, both providers, random big integers
rng = random.Random(7)
for W, H in ((3, 4), (7, 5), (9, 9)):
    m = grid(W, H, "euclidean")
    k = len(m.values)
    idx = m.index
    table = [rng.randrange(0, 2**120) for _ in range(k)]
    cols = [[rng.randrange(-(2**90), 2**90) for _ in range(m.n)] for _ in range(2)]
    want = [[sum(table[int(idx[i, l])] * col[l] for l in range(m.n)) for i in range(m.n)] for col in cols]
    for prov in (GridProvider(m), DenseProvider(m)):
        got = exact_table_matvec(prov.matvec, m.n, table, cols)
        check(got == want, f"exact products {W}x{H} {type(prov).__name__}")

# Lemma 3 end to end: the bound holds against an exact rational residual (the entries
# e^{-cd} enclosed at 300 bits, far tighter than the 2^-100 of the bound)
m = grid(6, 5, "euclidean")
prov = GridProvider(m)
c = Fraction(2, 3)
rhs = tuple(Fraction(1, 1 + (i % 3)) for i in range(m.n))
y = on_residual_grid(np.array([rng.uniform(-1, 2) for _ in range(m.n)]))
center, upper = exact_residual_bound(prov, list(m.values), rhs, c, y)
with workprec(300):
    ca = arb(to_fmpq(c))
    ents = [arb_to_fraction_interval((-ca * v.ball()).exp()) for v in m.values]
for i in range(m.n):
    lo = hi = Fraction(rhs[i])
    for l in range(m.n):
        e_lo, e_hi = ents[int(m.index[i, l])]
        yl = Fraction(float(y[l]))
        lo, hi = (lo - e_hi * yl, hi - e_lo * yl) if yl >= 0 else (lo - e_lo * yl, hi - e_hi * yl)
    check(max(abs(lo), abs(hi)) <= Fraction(float(upper[i])), f"residual bound row {i}")
    check(abs(Fraction(float(center[i])) - (lo + hi) / 2) <= Fraction(1, 10**15) + (hi - lo),
          f"residual centre row {i}")

print("grid_exact_products:", "all checks passed" if ok else "FAILED")
sys.exit(0 if ok else 1)
