"""Benchmark: does the default call ``epsilon_threshold(grid(k, k))`` succeed on every k×k grid?

Run: ``python benchmarks/bench_grid_sweep.py [--kmin 10] [--kmax 60] [--step 1] [--timeout S]
[--then 80 100 150]``.

Issue 15 asks that the default call (Euclidean grid, default tol, no options) succeeds on every
k×k grid with k ≥ 10 that fits in memory: this sweeps k = kmin, kmin + step, …, kmax (every size
by default), then the sizes given after ``--then`` (larger steps). Each size runs in a fresh child
process (as in ``bench_scale.py``), so the peak RSS is per size. For each size it records success
or the exception (type and first line of its message), the route (``ThresholdResult.method``),
the ε* enclosure, wall and CPU seconds of the call (imports excluded) and the peak RSS
(``resource.getrusage``); a size that exceeds ``--timeout`` is reported as stopped. It prints a
table and, last, one JSON line with every row. CPU seconds are the fair figure on a shared
machine; run it with ``nice``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

from bench_scale import last_json  # the same directory: python puts it on sys.path

CHILD = r"""
import json, resource, sys, time
k = int(sys.argv[1])
from exactdp.spaces.metrics import grid
from exactdp.threshold import epsilon_threshold
def cpu():
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime
t0, c0 = time.perf_counter(), cpu()
try:
    r = epsilon_threshold(grid(k, k))
    out = {"ok": True, "route": r.method, "eps_lower": float(r.eps_lower),
           "eps_upper": float(r.eps_upper)}
except Exception as e:  # recorded, not raised: the sweep goes on
    out = {"ok": False, "error": f"{type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}"}
out.update(seconds=time.perf_counter() - t0, cpu=cpu() - c0,
           rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
print(json.dumps(out))
"""


def run_size(k: int, timeout: float | None) -> dict:
    """One default call on the k×k grid in a child process: its JSON result line, or the failure."""
    t0 = time.perf_counter()
    try:
        p = subprocess.run([sys.executable, "-c", CHILD, str(k)], capture_output=True, text=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"ok": False, "error": f"stopped after {timeout:.0f} s (--timeout)",
                "seconds": time.perf_counter() - t0}
    row = last_json(p.stdout)
    if row is None:  # the child died (memory, signal): its last stderr line says why
        tail = (p.stderr or "").strip().splitlines()[-1:] or [f"exit code {p.returncode}"]
        row = {"ok": False, "error": f"child failed: {tail[0][:200]}", "seconds": time.perf_counter() - t0}
    return row


def route(method: str) -> str:
    """A short route label: the method's first words, and which λ_min bound the cover used
    (the lattice symbol: the matrix-free grid route; Cholesky nodes: the dense route).

    >>> route("certified (float search, ..., λ_min bounds from lattice symbol, ...)")
    'certified/grid'
    """
    head = method.split(" (")[0]
    return head + ("/grid" if "lattice symbol" in method else "/dense" if "Cholesky" in method else "")


def sizes(kmin: int, kmax: int, step: int, then: list[int]) -> list[int]:
    """kmin, kmin + step, …, ≤ kmax, then the larger sizes (sorted, no repeats).

    >>> sizes(10, 14, 2, [20, 12, 30])
    [10, 12, 14, 20, 30]
    """
    return sorted(set(range(kmin, kmax + 1, step)) | set(then))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--kmin", type=int, default=10)
    ap.add_argument("--kmax", type=int, default=60)
    ap.add_argument("--step", type=int, default=1)
    ap.add_argument("--then", type=int, nargs="*", default=[],
                    help="larger sizes after the sweep, e.g. --then 80 100 150")
    ap.add_argument("--timeout", type=float, default=None, help="stop a size's run after S seconds")
    a = ap.parse_args()
    rows = []
    print(f"{'k':>4} {'n':>6} | {'ok':>3} {'route':>16} {'ε* enclosure':>34} | {'wall s':>7} "
          f"{'cpu s':>7} {'RSS MB':>7}", flush=True)
    for k in sizes(a.kmin, a.kmax, a.step, a.then):
        r = run_size(k, a.timeout)
        rows.append({"k": k, "n": k * k, **r})
        what = (f"[{r['eps_lower']:.12f}, {r['eps_upper']:.12f}]" if r.get("ok") else r["error"])
        print(f"{k:>4} {k * k:>6} | {'yes' if r.get('ok') else 'NO':>3} {route(r.get('route', '-')):>16} "
              f"{what:>34} | {r['seconds']:>7.1f} {r.get('cpu', float('nan')):>7.1f} "
              f"{r.get('rss_mb', float('nan')):>7.0f}", flush=True)
    failed = [row["k"] for row in rows if not row.get("ok")]
    print(f"{len(rows) - len(failed)} of {len(rows)} sizes succeeded; failed: {failed or 'none'}; "
          f"total cpu {sum(row.get('cpu', 0.0) for row in rows):.0f} s; max RSS "
          f"{max((row.get('rss_mb', 0.0) for row in rows), default=0.0):.0f} MB")
    print(json.dumps({"bench_grid_sweep": rows}))


if __name__ == "__main__":
    main()
