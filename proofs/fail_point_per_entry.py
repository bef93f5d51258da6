"""A per-entry upper bound of z_i at a fail point, and the kernel's refined y_0 (issue 15).

Lemma 1 (per entry). Let Φ be symmetric with λ_min(Φ) ≥ λ > 0, Φz = b, and y_0 any vector
with r̄ ≥ |b − Φy_0| entrywise. Then for every i, z_i ≤ y_{0,i} + ‖r̄‖₂/λ.
Proof: z − y_0 = Φ⁻¹(b − Φy_0), so |z_i − y_{0,i}| ≤ ‖z − y_0‖₂ ≤ ‖Φ⁻¹‖₂‖b − Φy_0‖₂ ≤ ‖r̄‖₂/λ.
Nothing about how y_0 was obtained enters: y_0 = Y·2^-s kept exactly (s = 64 + 52k), never
rounded to doubles, so the term max_j 2^-52|y_j| that ``point_bounds`` adds to *every*
entry (the rounding of the refined y_0 to doubles) does not appear at entry i.

Lemma 2 (integers). With e^{−εd_k} ∈ [A_k, A_k + r_k]·2^-100 and b_i = β_i/B, the integer
R_i = β_i·2^(100+s) − B·(A·Y)_i satisfies |b − Φy_0|_i ≤ (|R_i| + B·max r·‖Y‖₁)/(B·2^(100+s))
(``proofs/grid_exact_products.py``, Lemma 3, with 2^-64 replaced by 2^-s); and
isqrt(N) + 1 ≥ √N for every integer N ≥ 0, so (isqrt(Σ(|R_i| + B·max r·‖Y‖₁)²) + 1)/(B·2^(100+s))
≥ ‖r̄‖₂. ``float_up`` rounds the exact rational bound up. Hence
``spd_cover.per_entry_upper`` ≥ z_i.

Lemma 3 (the kernel's refinement, ``kernel.threshold_spd.taylor_candidates`` and ``piece_ok`` over
``Y_LEVELS``). The kernel's Taylor bound holds for every candidate vector (its residuals
are computed exactly), so refining y_0 on finer grids 2^-sy only changes the candidate,
never the soundness; the bound uses 2^(ST+sy) consistently (b, the products and zden).

Checked below on the masked Manhattan L (12×12, ε* = ln 2 exactly, min z ≈ 4.4·10⁻¹⁶·10^-k
at ε = ln 2 − 10^-k): the per-entry bound against z from an arb solve at 400 bits
(flint ``arb_mat.solve``, an independent enclosure) — it lies above z_i and within
10⁻²⁵ of it, where the scalar bound (≈ 10⁻¹⁶) does not decide; and it stays ≥ 0 above ln 2.
"""

import sys
from fractions import Fraction

import numpy as np
from flint import arb, arb_mat, ctx

from exactdp.arithmetic.ball import arb_to_fraction_interval
from exactdp.arithmetic.rationals import to_fmpq
from exactdp.spaces.metrics.masked import masked_grid
from exactdp.threshold.float_bounds import rhs_float
from exactdp.threshold.providers import GridProvider
from exactdp.threshold.spd_cover import lambda_for, per_entry_upper
from exactdp.threshold.taylor import point_bounds

PROVES = ["exactdp.threshold.spd_cover.per_entry_upper"]

ok = True


def check(cond, what):
    global ok
    if not cond:
        print("FAILED:", what)
        ok = False


check(all((__import__("math").isqrt(N) + 1) ** 2 > N for N in list(range(2000)) + [10**40 + 7, 2**200 - 1]),
      "isqrt(N) + 1 > √N")
LN2 = Fraction(6931471805599453094172321214581765680755, 10**40)
mask = ["".join("1" if (x < 6 or y >= 6) else "0" for x in range(12)) for y in range(12)]
m = masked_grid(12, 12, "manhattan", mask=mask)
prov = GridProvider(m)
rhs = tuple(Fraction(1) for _ in range(m.n))
b, brad = rhs_float(rhs)
idx = np.asarray(m.index)
for k, sign in ((16, -1), (20, -1), (24, -1), (20, 1)):
    eps = LN2 + sign * Fraction(1, 10**k)
    lam = lambda_for(prov, eps, eps)
    y, err = point_bounds(prov, list(m.values), b, brad, eps, lam, rhs)
    i = int(np.argmin(y))
    up = Fraction(per_entry_upper(prov, list(m.values), rhs, eps, lam, y, i))
    old = ctx.prec
    ctx.prec = 400
    try:
        e = arb(to_fmpq(eps))
        ents = [(-e * v.ball()).exp() for v in m.values]
        Phi = arb_mat([[ents[int(idx[r, c])] for c in range(m.n)] for r in range(m.n)])
        z = Phi.solve(arb_mat([[1] for _ in range(m.n)]))
        zlo, zhi = arb_to_fraction_interval(z[i, 0])
    finally:
        ctx.prec = old
    check(zhi - zlo < Fraction(1, 10**60), f"k={k}: arb enclosure of z_i too wide")
    check(up >= zhi, f"k={k}: per-entry bound {float(up)} below z_i {float(zhi)}")
    check(up - zhi < Fraction(1, 10**25), f"k={k}: per-entry bound not within 1e-25 of z_i")
    if sign < 0:
        check(zhi < 0 and up < 0 and not y[i] + err < 0, f"k={k}: decided only per entry")
    else:
        check(zlo > 0 and up > 0, f"k={k}: above ln 2 no failure")

print("fail_point_per_entry:", "all checks passed" if ok else "FAILED")
sys.exit(0 if ok else 1)
