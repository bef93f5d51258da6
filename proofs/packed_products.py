"""Byte-packed Kronecker products: the ℓ1 digit bound, the packing, and the search's blocked sums.

Setting: ``exactdp.arithmetic.packed`` puts signed integers v_t at slots p_t of one integer
P = Σ_t v_t·z^{p_t}, z = 2^(8nb), multiplies two such integers once and reads the base-z
digits back with the bias z/2 (``proofs/kernel_grid_kronecker.py``, Lemma 2: when every
coefficient c_e of the polynomial product has |c_e| < z/2, digit e of
P_a·P_b + Σ_{e<nout} (z/2)z^e is c_e + z/2).

Lemma 1 (ℓ1 coefficient bound). For integer polynomials a = Σ a_s x^s, b = Σ b_t x^t, every
coefficient c_e = Σ_{s+t=e} a_s b_t of a·b satisfies
|c_e| ≤ P := min(‖a‖₁·max|b|, ‖b‖₁·max|a|).
Proof: for fixed e each s pairs with exactly one t = e − s, so
|c_e| ≤ Σ_s |a_s|·|b_{e−s}| ≤ ‖a‖₁·max|b|; symmetrically with a and b swapped. ∎
With B = bits(max(P, max|a|, max|b|)) and nb = ⌊(B + 8)/8⌋ (``digit_bytes(B)``):
8nb − 1 ≥ B (``proofs/kernel_grid_kronecker.py`` (a)), so every |c_e| and every packed |v|
is < 2^B ≤ 2^(8nb − 1) = z/2: the biased digits read back every coefficient (Lemma 2 there),
and every value fits in nb bytes. P never exceeds the kernel's count bound
max|a|·max|b|·#slots(b), so nb never grows; it shrinks when a's mass is small (Taylor tables
decay: 24 → 22 bytes at 400×400).

Lemma 2 (packing). Let buf be an nslots × nb byte array, zero except row p_t = the nb
little-endian bytes of |v_t| (|v_t| < z, the p_t distinct), read as one little-endian
integer. Then it equals Σ_t |v_t|·z^{p_t}: byte i·nb + r of the buffer has weight
2^(8(i·nb + r)) = z^i·2^(8r), and row i holds the base-256 digits of |v_t| (or 0). With one
buffer for the values ≥ 0 and one for the values < 0, pos − neg = Σ_t v_t z^{p_t}. ∎

Lemma 3 (the search's layout). ``GridProvider.exact_block_products`` places the cropped
kernels K'_j = K_j − c_j and the vectors v_k (kept cells only: a cell of a masked grid that
is zero-padded in ``proofs/grid_cropped_stride.py`` contributes a zero coefficient, so it
may be left out) in the layout of ``proofs/grid_cropped_stride.py`` (Lemmas 1–3), one
product of (J + K)L digits (largest exponent (J + K − 2)L + D < (J + K)L, D < 2L), and adds
Σ_{j+k=m} c_j·Σv_k per block: C_m = Σ_{j+k=m} M_j v_k exactly. ∎

Checked below: (a) Lemma 1 by brute force on random signed polynomials and at its equality
case (all coefficients maximal and of one sign), where one byte less misreads; (b) Lemma 2
against the direct sum (signs, huge values, unsorted positions); (c) the biased read-back
on random products at the Lemma 1 width; (d) Lemma 3: the provider's blocks equal the direct
Cauchy sums on random small grids — rectangular, masked, both norms, negative and huge
integers, constant tails (a real crop), one table and one vector — and
``GridConvolution.block_products``.

Justifies: exactdp.arithmetic.packed (pack_signed, biased_digits, signed_values,
digit_bytes) and exactdp.threshold.providers.GridProvider.exact_block_products.
"""

import random
import sys

import numpy as np
from flint import fmpz

from exactdp.arithmetic.packed import biased_digits, digit_bytes, pack_signed, signed_values
from exactdp.errors import InvalidArgument
from exactdp.spaces.metrics import grid
from exactdp.spaces.metrics.masked import masked_grid
from exactdp.threshold.providers import DenseProvider, GridProvider

PROVES = [
    "exactdp.arithmetic.packed.digit_bytes",
    "exactdp.arithmetic.packed.pack_signed",
    "exactdp.arithmetic.packed.biased_digits",
    "exactdp.arithmetic.packed.signed_values",
    "exactdp.threshold.providers.GridProvider.exact_block_products",
]

ok = True


def check(cond: bool, what: str) -> None:
    global ok
    print(("ok: " if cond else "FAILED: ") + what)
    ok = ok and cond


def polymul(a: list[int], b: list[int]) -> list[int]:
    out = [0] * (len(a) + len(b) - 1)
    for s, x in enumerate(a):
        for t, y in enumerate(b):
            out[s + t] += x * y
    return out


def l1_bound(a: list[int], b: list[int]) -> int:
    am, bm = max(map(abs, a)), max(map(abs, b))
    return max(min(sum(map(abs, a)) * bm, sum(map(abs, b)) * am), am, bm)


def via_digits(a: list[int], b: list[int], nb: int) -> list[int] | None:
    pa = pack_signed(a, np.arange(len(a)), np.arange(len(a)), len(a), nb)
    pb = pack_signed(b, np.arange(len(b)), np.arange(len(b)), len(b), nb)
    nout = len(a) + len(b)
    try:
        return signed_values(biased_digits(pa, pb, nout, nb))[: nout - 1]
    except InvalidArgument:  # the product overflowed the digits: refused, never misread silently
        return None


rng = random.Random(12)

# (a) Lemma 1, brute force and the equality case
good = True
for _ in range(300):
    a = [rng.randint(-2**rng.randint(0, 90), 2**rng.randint(0, 90)) for _ in range(rng.randint(1, 9))]
    b = [rng.randint(-2**rng.randint(0, 90), 2**rng.randint(0, 90)) for _ in range(rng.randint(1, 9))]
    good = good and all(abs(c) <= l1_bound(a, b) for c in polymul(a, b))
check(good, "(a) Lemma 1: |c_e| ≤ min(‖a‖₁·max|b|, ‖b‖₁·max|a|) on 300 random products")
tight = misread = 0
for la, lb, bits in ((3, 5, 60), (4, 4, 61), (1, 1, 7), (6, 2, 127), (5, 5, 8)):
    a, b = [(1 << bits) - 1] * la, [-((1 << bits) - 1)] * lb
    c = polymul(a, b)
    P = l1_bound(a, b)
    tight += max(map(abs, c)) == P
    nb = digit_bytes(P.bit_length())
    good = via_digits(a, b, nb) == c
    check(good, f"(a) equality case {la}×{lb} at {bits} bits: nb = {nb} reads back")
    if nb > 1 and 8 * (nb - 1) - 1 < P.bit_length():
        misread += via_digits(a, b, nb - 1) != c if P >= 1 << (8 * (nb - 1) - 1) else 0
check(tight == 5, "(a) the bound is attained (all coefficients maximal, one sign)")
check(misread >= 1, f"(a) one byte less misreads or is refused at the equality case ({misread} cases)")

# (b) Lemma 2: the packing
good = True
for _ in range(200):
    nb = rng.randint(1, 6)
    vals = [rng.randint(-(2**(8 * nb) - 1), 2**(8 * nb) - 1) for _ in range(rng.randint(1, 8))]
    nslots = rng.randint(len(vals), 3 * len(vals) + 2)
    idx = np.array([rng.randrange(len(vals)) for _ in range(rng.randint(1, nslots))])
    pos = np.array(rng.sample(range(nslots), len(idx)))
    want = sum(vals[i] * 2**(8 * nb * p) for i, p in zip(idx.tolist(), pos.tolist()))
    good = good and pack_signed(vals, idx, pos, nslots, nb) == fmpz(want)
check(good, "(b) Lemma 2: pack_signed = Σ v·z^p (signs, full-width values, any order)")

# (c) the biased read-back at the Lemma 1 width
good = True
for _ in range(200):
    a = [rng.randint(-2**rng.randint(0, 200), 2**rng.randint(0, 200)) for _ in range(rng.randint(1, 12))]
    b = [rng.randint(-2**rng.randint(0, 200), 2**rng.randint(0, 200)) for _ in range(rng.randint(1, 12))]
    good = good and via_digits(a, b, digit_bytes(l1_bound(a, b).bit_length())) == polymul(a, b)
check(good, "(c) biased read-back = the coefficients on 200 random products (Lemma 1 width)")


# (d) Lemma 3: the provider's blocked sums against the direct Cauchy sums
def direct(prov: GridProvider, tables: list[list[int]], cols: list[list[int]]) -> list[list[int]]:
    W = prov.W
    cells = list(range(prov.n)) if prov.cells is None else prov.cells.tolist()
    out = [[0] * prov.n for _ in range(len(tables) + len(cols) - 1)]
    for i, ci in enumerate(cells):
        for l_, cl in enumerate(cells):
            code = int(prov.code[abs(ci % W - cl % W), abs(ci // W - cl // W)])
            for j, t in enumerate(tables):
                for k, v in enumerate(cols):
                    out[j + k][i] += t[code] * v[l_]
    return out


metrics = [grid(5, 3, "euclidean"), grid(1, 6, "manhattan"), grid(4, 4, "manhattan"),
           masked_grid(5, 4, "euclidean", mask=["11011", "11111", "01110", "10001"]),
           masked_grid(3, 3, "manhattan", mask=["110", "011", "111"])]
bad = crops = 0
for trial in range(30):
    m = metrics[trial % len(metrics)]
    prov = GridProvider(m)
    nv = int(prov.code.max()) + 1
    J, K = (1, 1) if trial % 7 == 0 else (rng.randint(1, 4), rng.randint(1, 4))
    near = rng.randint(0, nv - 1)
    tails = [rng.choice((0, -1, 5, -(2**70))) for _ in range(J)]
    tables = [[rng.randint(-2**rng.randint(1, 160), 2**rng.randint(1, 160)) if c <= near else tails[j]
               for c in range(nv)] for j in range(J)]
    cols = [[rng.randint(-2**rng.randint(0, 120), 2**rng.randint(0, 120)) for _ in range(m.n)]
            for _ in range(K)]
    got = prov.exact_block_products(tables, cols)
    crops += prov.conv.crop(tables)[1:] != (prov.H - 1, prov.W - 1)
    want = direct(prov, tables, cols)
    bad += not (got == want and [list(b) for b in got] == want)
    if m.n == prov.W * prov.H:
        bad += prov.conv.block_products(tables, cols) != want
    if trial < 5:
        bad += DenseProvider(m).exact_block_products(tables, cols) != want
check(bad == 0 and crops >= 5, f"(d) Lemma 3: 30 random blocked products exact ({crops} with a real crop)")

sys.exit(0 if ok else 1)
