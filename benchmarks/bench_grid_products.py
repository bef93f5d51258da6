"""Benchmark: one rigorous product Φ·y on a k×k Euclidean grid — direct vs exact convolution.

Run: ``python benchmarks/bench_grid_products.py [--sizes 100 200 400] [--limb-max 200]``

Per size, each method in a fresh child process (peak RSS per method, ``resource``):

* ``float_direct``: ``GridProvider.matvec`` on 8 columns (what one Taylor coefficient of
  a piece costs in the float-rounding route: [Y, |Y|] for K = 3), block-Toeplitz BLAS,
  O(n²) flops per column;
* ``limb_exact``: the former exact product (``exact_table_matvec``: the float
  block-Toeplitz product on 19-bit limbs, about 6 × 4 limb products) for a 100-bit table
  and a 64-bit vector — the exact ρ₀ of the precision escalation before this change;
* ``flint_exact``: the exact integer 2-D convolution
  (:class:`exactdp.linalg.grid_exact_conv.GridConvolution`, one ``fmpz_poly`` product)
  for the same 100-bit table and 64-bit vector: kernel build, product and read-back;
* ``flint_16``: what the exact bounds of one Taylor piece (K = 3) needed before the blocked
  product: the 16 products Φ_j·y_k (4 tables × 4 vectors) summed into the 7 Cauchy sums;
* ``flint_blocked``: the same 7 Cauchy sums in ONE blocked product
  (:meth:`~exactdp.linalg.grid_exact_conv.GridConvolution.block_products`).

The exact methods are checked against each other where both run.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

CHILD = r"""
import json, resource, sys, time
import numpy as np
from exactdp.spaces.metrics import grid
from exactdp.threshold.providers import GridProvider
method, k = sys.argv[1], int(sys.argv[2])
m = grid(k, k, "euclidean")
prov = GridProvider(m)
rng = np.random.default_rng(k)
vals = np.array([float(v.ball().mid()) for v in m.values])
table_f = np.exp(-0.66 * vals)
table_i = [int(v) for v in np.rint(np.ldexp(table_f, 52))]
table_i = [t << 48 for t in table_i]                       # 100-bit integers
y = rng.uniform(-1, 1, m.n)
yint = [int(v) for v in np.rint(np.ldexp(y, 63))]          # 64-bit integers
rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.perf_counter()
out = {}
if method == "float_direct":
    prov.matvec(table_f, np.stack([y] * 8, axis=1))
    res = None
elif method == "limb_exact":
    from exactdp.linalg.exact_products import exact_table_matvec
    res = exact_table_matvec(prov.matvec, m.n, table_i, [yint])[0]
elif method == "flint_exact":
    res = prov.exact_matvec(table_i, [yint])[0]
else:
    tabs = [[t >> (3 * j) for t in table_i] for j in range(4)]
    cols = [[v >> (5 * k) for v in yint] for k in range(4)]
    if method == "flint_blocked":
        sums = prov.exact_block_products(tabs, cols)
    else:
        sums = [[0] * m.n for _ in range(7)]
        for j in range(4):
            for kk, col in enumerate(prov.exact_matvec(tabs[j], cols)):
                sums[j + kk] = [a + b for a, b in zip(sums[j + kk], col)]
    res = [x for s_ in sums for x in s_]
out["seconds"] = time.perf_counter() - t0
out["rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
out["rss_before_mb"] = rss0 / 1024
if res is not None:
    out["digest"] = hash(tuple(res[:: max(1, len(res) // 997)])) % 10**12
print(json.dumps(out))
"""


def run(method: str, k: int) -> dict:
    p = subprocess.run([sys.executable, "-c", CHILD, method, str(k)], capture_output=True, text=True)
    if p.returncode:
        return {"error": p.stderr.strip().splitlines()[-1] if p.stderr else "failed"}
    return dict(json.loads(p.stdout))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[100, 200, 400])
    ap.add_argument("--limb-max", type=int, default=200, help="largest k for the (slow) limb method")
    args = ap.parse_args()
    print(f"{'k×k':>8} {'method':>13} {'seconds':>9} {'peak RSS MB':>12}  note")
    for k in args.sizes:
        rows = {}
        for method in ("float_direct", "limb_exact", "flint_exact", "flint_16", "flint_blocked"):
            if method in ("limb_exact", "float_direct") and k > args.limb_max:
                continue
            rows[method] = r = run(method, k)
            if "error" in r:
                print(f"{k:>4}x{k:<3} {method:>13} error: {r['error']}")
                continue
            note = {"float_direct": "8 columns (float, γ-bounded)", "flint_16": "one piece, 16 products",
                    "flint_blocked": "one piece, 1 blocked product"}.get(method, "1 column, exact")
            print(f"{k:>4}x{k:<3} {method:>13} {r['seconds']:9.2f} {r['rss_mb']:12.0f}  {note}", flush=True)
        if "digest" in rows.get("limb_exact", {}) and "digest" in rows.get("flint_exact", {}):
            same = rows["limb_exact"]["digest"] == rows["flint_exact"]["digest"]
            print(f"{'':>8} exact products agree: {same}")
        if "digest" in rows.get("flint_16", {}) and "digest" in rows.get("flint_blocked", {}):
            same = rows["flint_16"]["digest"] == rows["flint_blocked"]["digest"]
            print(f"{'':>8} blocked Cauchy sums agree with the 16 products: {same}")


if __name__ == "__main__":
    main()
