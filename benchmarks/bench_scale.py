"""Benchmark: certified thresholds on large Euclidean grids — time and peak memory per size.

Run: ``python benchmarks/bench_scale.py [--sizes 50 100 200] [--verify] [--timeout S] [--progress]``
(``--piece --sizes 200 400``: only the fail point and two cover pieces next to ε* per size —
CPU seconds and peak RSS of each, cumulative RSS, the CPU of the pieces' exact grid products
and their bounds in hex — the per-piece cost without the whole run; ``--baseline --repeat 3``
alternates each run with session 11's flint-polynomial product, bounds bit-identical)
(default sizes 50, 100, 200; 400×400 costs minutes of CPU and ≈ 1 GB: run it alone, e.g.
``--sizes 400 --timeout 1800``).

For each k (k×k Euclidean grid, n = k²), in fresh child processes (so the peak RSS is
per size and per task):

(a) the certified threshold ``epsilon_threshold(grid(k, k))`` (default tol 1e-9): wall
    time, peak RSS (``resource.getrusage``), the stage timings, the peak RSS reached by the
    end of each stage (read at its progress lines), and how often the precision escalation
    (exact integer residuals) ran;
(b) the uncertified baseline the paper uses: ε = 0.01, 0.02, … with FFT + CG float solves
    of Φ(ε)z = 1 until min z ≥ 0 (a tight-constraints mechanism exists in float); the
    solver is the same Strang-preconditioned FFT CG the certified route uses to *find*
    its candidates (:mod:`exactdp.linalg.grid_pcg`), so the baseline is not handicapped.

Then the fitted growth exponents (least squares on log time / log RSS against log n), the
certified/float CPU-time ratio per size, and what the time fit extrapolates to at 1000×1000
(n = 10⁶). CPU seconds are printed next to wall seconds: on a shared machine the CPU time
is the fairer number. ``--verify`` times ``verify()`` of each certificate *after* the
search's time, CPU and RSS are read, and reports it on its own line (never in the certified
time, the ratio or the fits); ``--progress`` only shows the progress lines. A size that
exceeds ``--timeout`` is reported as stopped, with the CPU seconds, peak RSS and stage of the
child's last progress line (the child prints them at each stage and at most once a second);
stopped sizes are not fitted.
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
task, k, flags = sys.argv[1], int(sys.argv[2]), set(sys.argv[3:])
unknown = flags - {"verify", "progress", "old"}
if unknown:
    raise SystemExit(f"bench_scale child: unknown flags {sorted(unknown)}")
t0 = time.perf_counter()
out = {}
def usage():
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024
last = [0.0]
def partial(stage, msg, force=False):  # a stopped run still reports CPU / RSS at its last stage
    now = time.perf_counter()
    if force or now - last[0] >= 1.0:
        last[0] = now
        cpu, rss = usage()
        print(json.dumps({"partial": True, "stage": stage, "message": msg, "seconds": now - t0,
                          "cpu": cpu, "rss_mb": rss}), flush=True)
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
    from exactdp.progress import stderr_progress
    show = stderr_progress() if "progress" in flags else None
    stage_rss = {}
    def spy_progress(stage, msg):  # peak RSS (MB) seen at each stage's last progress line
        stage_rss[stage] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
        partial(stage, msg, force=stage not in stage_rss_seen)
        stage_rss_seen.add(stage)
        if show is not None:
            show(stage, msg)
    stage_rss_seen = set()
    r = epsilon_threshold(g, progress=spy_progress)
    out = {"eps_lower": float(r.eps_lower), "eps_upper": float(r.eps_upper),
           "timings": [(s, round(t, 2)) for s, t in r.timings], "escalations": len(calls),
           "index_formed": "index" in g.__dict__, "stage_rss": stage_rss}
elif task == "piece":  # the cost of the fail point and of two cover pieces next to ε*
    from fractions import Fraction
    from exactdp.spaces.metrics import grid
    from exactdp.threshold.certificates import TAYLOR_ORDER
    from exactdp.threshold.float_bounds import rhs_float
    from exactdp.threshold.providers import provider_for
    from exactdp.threshold.spd_cover import lambda_for, spd_fail_point
    from exactdp.threshold.taylor import taylor_piece
    from exactdp.threshold.providers import GridProvider
    if "old" in flags:  # the baseline: session 11's flint-polynomial product, Python lists (full grids)
        GridProvider.exact_block_products = lambda self, tables, columns: self.conv.block_products(tables, columns)
        GridProvider.exact_matvec = lambda self, table, columns: self.conv.products(table, columns)
    prod_cpu, depth = [0.0], [0]
    def timed(inner):  # CPU of the exact grid products (blocked and single), blocks read included
        def run(self, tables, columns):
            depth[0] += 1
            c0 = usage()[0]
            try:
                res = [list(b) for b in inner(self, tables, columns)]
            finally:
                depth[0] -= 1
            if depth[0] == 0:  # the new exact_matvec calls exact_block_products: count once
                prod_cpu[0] += usage()[0] - c0
            return res
        return run
    GridProvider.exact_block_products = timed(GridProvider.exact_block_products)
    GridProvider.exact_matvec = timed(GridProvider.exact_matvec)
    g = grid(k, k, "euclidean")
    prov = provider_for(g)
    rhs = tuple(Fraction(1) for _ in range(g.n))
    b, brad = rhs_float(rhs)
    out = {"setup": usage()}
    c0 = usage()[0]
    fail = spd_fail_point(g, rhs, Fraction(665351582, 10**9), prov)
    out["fail"] = [usage()[0] - c0, usage()[1], fail is not None]
    a, w = Fraction(6653516, 10**7), Fraction(8, 10**9)  # above ε* of every k ≥ 200 (≈ 0.66535158)
    for i in range(2):
        c0 = usage()[0]
        res, _ = taylor_piece(prov, list(g.values), b, brad, a, a + w, TAYLOR_ORDER,
                              lambda_for(prov, a, a + w), rhs=rhs)
        out[f"piece{i}"] = [usage()[0] - c0, usage()[1], res.ok, prod_cpu[0]]
        out[f"bounds{i}"] = [res.min_lower.hex(), res.err.hex()]  # bit-identical old / new
        prod_cpu[0] = 0.0
        a, w = a + w, 16 * w
else:
    import numpy as np
    from exactdp.linalg.grid_pcg import grid_pcg_solver
    d = np.hypot(*np.meshgrid(np.arange(k), np.arange(k), indexing="ij"))
    b = np.ones(k * k)
    j = 1
    while j <= 500:
        partial("float sweep", f"solve {j} (eps = {j / 100})")
        z = grid_pcg_solver(np.exp(-(j / 100) * d), 1e-12)(b)
        if z.min() >= 0:
            break
        j += 1
    out = {"eps_float": j / 100, "solves": j}
# the search alone: read BEFORE any verify, so verify time never enters these numbers
out["seconds"] = time.perf_counter() - t0
out["cpu"], out["rss_mb"] = usage()
if task == "piece":
    print(json.dumps(out))
    raise SystemExit(0)
if task == "certified" and "verify" in flags:
    t1, c1 = time.perf_counter(), out["cpu"]
    out["verify"] = r.verify()
    out["verify_s"] = time.perf_counter() - t1
    cpu2, rss2 = usage()
    out["verify_cpu"] = cpu2 - c1
    out["verify_rss_mb"] = rss2  # peak of the whole child (search, then verify)
print(json.dumps(out))
"""


def run(task: str, k: int, verify: bool, timeout: float | None = None, progress: bool = False,
        extra: list[str] | None = None) -> dict:
    args = ([sys.executable, "-c", CHILD, task, str(k)] + (["verify"] if verify else [])
            + (["progress"] if progress else []) + (extra or []))
    t0 = time.perf_counter()
    try:
        # with progress the child's stderr (progress lines with the ETA) goes to ours
        p = subprocess.run(args, stdout=subprocess.PIPE, stderr=None if progress else subprocess.PIPE,
                           text=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        # the child's last partial line: CPU / peak RSS / stage when it was stopped
        return {"error": [f"stopped after {timeout:.0f} s (--timeout)"], "seconds": time.perf_counter() - t0,
                "stopped_at": last_json(e.stdout)}
    if p.returncode != 0:
        err = (p.stderr or "").strip().splitlines()[-1:] or [f"exit code {p.returncode}"]
        return {"error": err, "seconds": time.perf_counter() - t0, "stopped_at": last_json(p.stdout)}
    return last_json(p.stdout) or {"error": ["no result line"], "seconds": time.perf_counter() - t0}


def last_json(text: str | bytes | None) -> dict | None:
    """The last complete JSON line the child printed (None when there is none)."""
    if isinstance(text, bytes):  # TimeoutExpired carries bytes even with text=True
        text = text.decode(errors="replace")
    for line in reversed((text or "").strip().splitlines()):
        try:
            return json.loads(line)
        except ValueError:  # a line cut by the kill
            continue
    return None


_last_json = last_json  # the name tests/threshold/test_grid_speed9b.py reads


def fit(ns: list[int], ys: list[float]) -> float:
    if len(ns) < 2:
        return math.nan
    return float(np.polyfit(np.log(ns), np.log(ys), 1)[0])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[50, 100, 200],
                    help="grid sides k (default 50 100 200; 400 costs minutes of CPU and ≈ 1 GB: "
                         "run it alone, e.g. --sizes 400 --timeout 1800)")
    ap.add_argument("--verify", action="store_true",
                    help="also time verify() of each certificate (reported apart, not in the fits)")
    ap.add_argument("--timeout", type=float, default=None, help="stop a size's run after S seconds")
    ap.add_argument("--progress", action="store_true", help="show the certified runs' progress on stderr")
    ap.add_argument("--piece", action="store_true",
                    help="instead: per size (k ≥ 200), the CPU seconds and peak RSS of the fail point "
                         "at ε = 0.665351582 and of two cover pieces next to ε* (one child each)")
    ap.add_argument("--baseline", action="store_true",
                    help="with --piece: also run each size with session 11's blocked product (flint "
                         "polynomials, Python lists) as the baseline, alternating new / old")
    ap.add_argument("--repeat", type=int, default=1, help="with --piece: runs per size (and variant)")
    a = ap.parse_args()
    if a.piece:
        for k in a.sizes:
            for rep in range(a.repeat):
                for old in ((False, True) if a.baseline else (False,)):
                    r = run("piece", k, False, a.timeout, extra=["old"] if old else [])
                    label = f"{k:>5} {'old' if old else 'new'} #{rep + 1}" if a.baseline else f"{k:>5}"
                    if "fail" not in r:
                        print(f"{label}: {r.get('error')}", flush=True)
                        continue
                    print(f"{label}: set-up {r['setup'][0]:.1f} s cpu / {r['setup'][1]:.0f} MB; fail point "
                          f"{r['fail'][0]:.1f} s / {r['fail'][1]:.0f} MB (certified: {r['fail'][2]}); pieces "
                          + "; ".join(f"{r[p][0]:.1f} s / {r[p][1]:.0f} MB (ok: {r[p][2]}, exact "
                                      f"products {r[p][3]:.1f} s)" for p in ("piece0", "piece1"))
                          + f"; bounds (min lower, err) {r['bounds0']} {r['bounds1']}", flush=True)
        return
    rows = []
    print(f"{'k':>5} {'n':>7} | {'cert s':>8} {'cert cpu':>8} {'cert MB':>8} {'esc':>4} "
          f"{'ε* enclosure':>32} | {'float s':>8} {'float cpu':>9} {'float MB':>8} {'ε float':>7} | "
          f"{'cpu ratio':>9}")
    for k in a.sizes:
        c = run("certified", k, a.verify, a.timeout, a.progress)
        f = run("float", k, False, a.timeout)
        rows.append((k * k, c, f))
        enc = (f"[{c['eps_lower']:.12f}, {c['eps_upper']:.12f}]" if "eps_lower" in c
               else f"ERROR {c.get('error')}")
        # CPU seconds: on a shared machine the wall ratio mostly measures the load
        ratio = c["cpu"] / f["cpu"] if "rss_mb" in c and "rss_mb" in f else math.nan
        print(f"{k:>5} {k * k:>7} | {c['seconds']:>8.1f} {c.get('cpu', math.nan):>8.1f} "
              f"{c.get('rss_mb', math.nan):>8.0f} {c.get('escalations', '-'):>4} {enc:>32} | "
              f"{f['seconds']:>8.1f} {f.get('cpu', math.nan):>9.1f} {f.get('rss_mb', math.nan):>8.0f} "
              f"{f.get('eps_float', math.nan):>7} | {ratio:>9.2f}", flush=True)
        if "timings" in c:
            print(f"        stages: {c['timings']}; peak RSS (MB) at each stage's last progress line: "
                  f"{c.get('stage_rss')}", flush=True)
        if "verify" in c:  # timed apart: never part of the certified time, ratio or fits
            print(f"        verify(): {c['verify']} in {c['verify_s']:.1f} s ({c['verify_cpu']:.1f} s cpu), "
                  f"peak RSS search + verify {c['verify_rss_mb']:.0f} MB", flush=True)
        for label, r in (("certified", c), ("float", f)):
            st = r.get("stopped_at")
            if st:  # a stopped run: what it had used by its last progress line (not fitted)
                print(f"        {label} stopped; last progress at {st['seconds']:.0f} s: "
                      f"{st['stage']}: {st['message']} — {st['cpu']:.1f} s cpu, peak RSS "
                      f"{st['rss_mb']:.0f} MB", flush=True)
    # certified and float fitted separately: a size whose float sweep was stopped still counts
    okc = [(n, c) for n, c, _ in rows if "rss_mb" in c]
    okf = [(n, f) for n, _, f in rows if "rss_mb" in f]
    nc, nf = [n for n, _ in okc], [n for n, _ in okf]
    tc = fit(nc, [c["cpu"] for _, c in okc])
    tf = fit(nf, [f["cpu"] for _, f in okf])
    rc = fit(nc, [c["rss_mb"] for _, c in okc])
    print(f"fitted exponents (vs n, least squares on logs): certified ({len(okc)} sizes) time "
          f"{fit(nc, [c['seconds'] for _, c in okc]):.2f} (cpu {tc:.2f}), RSS {rc:.2f}; float "
          f"({len(okf)} sizes) time {fit(nf, [f['seconds'] for _, f in okf]):.2f} (cpu {tf:.2f}), "
          f"RSS {fit(nf, [f['rss_mb'] for _, f in okf]):.2f}")
    if len(okc) >= 2 and math.isfinite(tc):
        # the last two sizes carry the large-n trend; fit them alone as well
        (n2, c2), (n_last, c_last) = okc[-2], okc[-1]
        tc2 = math.log(c_last["cpu"] / c2["cpu"]) / math.log(n_last / n2)
        for label, e in (("all sizes", tc), ("last two sizes", tc2)):
            at_million = c_last["cpu"] * (10**6 / n_last) ** e
            print(f"extrapolated by the cpu fit ({label}, exponent {e:.2f}): 1000×1000 certified ≈ "
                  f"{at_million:.0f} s cpu ({at_million / 600:.1f}× the 10-minute aim), RSS ≈ "
                  f"{c_last['rss_mb'] * (10**6 / n_last) ** rc / 1024:.1f} GB")
    if len(okf) >= 2 and math.isfinite(tf):
        n_f, f_last = okf[-1]
        print(f"float sweep at 1000×1000 by its fit ≈ {f_last['cpu'] * (10**6 / n_f) ** tf:.0f} s cpu")


if __name__ == "__main__":
    main()
