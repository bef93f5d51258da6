"""Benchmark: certified thresholds on large Euclidean grids — time and peak memory per size.

Run: ``python benchmarks/bench_scale.py [--sizes 50 100 200] [--verify]``

For each k (k×k Euclidean grid, n = k²), in fresh child processes (so the peak RSS is
per size and per task):

(a) the certified threshold ``epsilon_threshold(grid(k, k))`` (default tol 1e-9): wall
    time, peak RSS (``resource.getrusage``), the stage timings, and how often the
    precision escalation (exact integer residuals) ran;
(b) the uncertified baseline the paper uses: ε = 0.01, 0.02, … with FFT + CG float solves
    of Φ(ε)z = 1 until min z ≥ 0 (a tight-constraints mechanism exists in float); the
    solver is the same Strang-preconditioned FFT CG the certified route uses to *find*
    its candidates (:mod:`exactdp.linalg.grid_pcg`), so the baseline is not handicapped.

Then the fitted growth exponents (least squares on log time / log RSS against log n).
The machine may be shared: run big sizes once, with ``nice``, and report ranges.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import time

import numpy as np

CHILD = r"""
import json, resource, sys, time
task, k = sys.argv[1], int(sys.argv[2])
t0 = time.perf_counter()
out = {}
if task == "certified":
    import exactdp.threshold.taylor as T
    from exactdp.spaces.metrics import grid
    from exactdp.threshold import epsilon_threshold
    calls = []
    orig = T.exact_residual_bound
    def spy(*a, **kw):
        calls.append(1)
        return orig(*a, **kw)
    T.exact_residual_bound = spy
    g = grid(k, k, "euclidean")
    r = epsilon_threshold(g)
    out = {"eps_lower": float(r.eps_lower), "eps_upper": float(r.eps_upper),
           "timings": [(s, round(t, 2)) for s, t in r.timings], "escalations": len(calls),
           "index_formed": "index" in g.__dict__}
    if len(sys.argv) > 3:
        t1 = time.perf_counter()
        out["verify"] = r.verify()
        out["verify_s"] = time.perf_counter() - t1
else:
    import numpy as np
    from exactdp.linalg.grid_pcg import grid_pcg_solver
    d = np.hypot(*np.meshgrid(np.arange(k), np.arange(k), indexing="ij"))
    b = np.ones(k * k)
    j = 1
    while j <= 500:
        z = grid_pcg_solver(np.exp(-(j / 100) * d), 1e-12)(b)
        if z.min() >= 0:
            break
        j += 1
    out = {"eps_float": j / 100, "solves": j}
out["seconds"] = time.perf_counter() - t0
out["rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(out))
"""


def run(task: str, k: int, verify: bool) -> dict:
    args = [sys.executable, "-c", CHILD, task, str(k)] + (["verify"] if verify else [])
    t0 = time.perf_counter()
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode != 0:
        return {"error": p.stderr.strip().splitlines()[-1:] or ["?"], "seconds": time.perf_counter() - t0}
    return json.loads(p.stdout.strip().splitlines()[-1])


def fit(ns: list[int], ys: list[float]) -> float:
    if len(ns) < 2:
        return math.nan
    return float(np.polyfit(np.log(ns), np.log(ys), 1)[0])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[50, 100, 200])
    ap.add_argument("--verify", action="store_true", help="also time verify() of each certificate")
    a = ap.parse_args()
    rows = []
    print(f"{'k':>5} {'n':>7} | {'cert s':>8} {'cert MB':>8} {'esc':>4} {'ε* enclosure':>32} | "
          f"{'float s':>8} {'float MB':>8} {'ε float':>7}")
    for k in a.sizes:
        c = run("certified", k, a.verify)
        f = run("float", k, False)
        rows.append((k * k, c, f))
        enc = (f"[{c['eps_lower']:.12f}, {c['eps_upper']:.12f}]" if "eps_lower" in c
               else f"ERROR {c.get('error')}")
        print(f"{k:>5} {k * k:>7} | {c['seconds']:>8.1f} {c.get('rss_mb', math.nan):>8.0f} "
              f"{c.get('escalations', '-'):>4} {enc:>32} | {f['seconds']:>8.1f} "
              f"{f.get('rss_mb', math.nan):>8.0f} {f.get('eps_float', math.nan):>7}", flush=True)
        if "timings" in c:
            print(f"        stages: {c['timings']}" + (f"; verify {c['verify']} in {c['verify_s']:.1f} s"
                                                        if "verify" in c else ""), flush=True)
    ok = [(n, c, f) for n, c, f in rows if "rss_mb" in c and "rss_mb" in f]
    ns = [n for n, _, _ in ok]
    print(f"fitted exponents (vs n): certified time {fit(ns, [c['seconds'] for _, c, _ in ok]):.2f}, "
          f"certified RSS {fit(ns, [c['rss_mb'] for _, c, _ in ok]):.2f}; float time "
          f"{fit(ns, [f['seconds'] for _, _, f in ok]):.2f}, float RSS "
          f"{fit(ns, [f['rss_mb'] for _, _, f in ok]):.2f}")


if __name__ == "__main__":
    main()
