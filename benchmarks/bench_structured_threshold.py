"""Benchmark: the structured exact threshold route (issue 18) against the other three answers.

Run: ``python benchmarks/bench_structured_threshold.py [--quick] [--max-generic N]``

For sum_query(u, 5), n = 5u + 1 = 101 … 1,501, in one run, each measurement in a fresh
subprocess (peak resident memory = the child's ``ru_maxrss``, which includes FLINT's
allocations that ``tracemalloc`` does not see):

(a) structured exact: :func:`exactdp.threshold.structured.structured_route` (minimal
    polynomial of s*, isolating interval, complete certificate), then its kernel
    ``verify()`` timed separately;
(b) today's generic exact route (:func:`exactdp.threshold.exact.exact_route`), only up to
    ``--max-generic`` (default 251: its cost grows like n^3.3, ~100 s at n = 501);
(c) the certified enclosure (``epsilon_threshold(..., method="certified")``, width 1e-9);
(d) the paper's float sweep ε = 0.01, 0.02, … (dense numpy solves; uncertified).

Prints a table and the fitted growth exponents (least squares of log time on log n).
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

HERE = Path(__file__).resolve().parent

CHILD = r"""
import json, resource, sys, time
from fractions import Fraction
sys.path.insert(0, {here!r})
from exactdp.spaces.metrics import sum_query
route, u = sys.argv[1], int(sys.argv[2])
m = sum_query(u, 5)
tol = Fraction(1, 10**9)
out = {{}}
t0 = time.perf_counter()
if route == "structured":
    from exactdp.threshold.structured import structured_route
    r = structured_route(m, tol)
    out["seconds"] = time.perf_counter() - t0
    t1 = time.perf_counter()
    out["verified"] = bool(r.certificate.verify())
    out["verify_seconds"] = time.perf_counter() - t1
    out["degree"] = r.exact.degree
    out["bits"] = max(abs(c) for c in r.exact.minimal_polynomial).bit_length()
    out["eps"] = [str(r.eps_lower), str(r.eps_upper)]
    out["minpoly"] = list(r.exact.minimal_polynomial)
elif route == "generic":
    from exactdp.threshold.exact import exact_route
    r, _ = exact_route(m, None, tol, None, [], m.n)
    out["seconds"] = time.perf_counter() - t0
    out["minpoly"] = list(r.exact.minimal_polynomial)
    out["eps"] = [str(r.eps_lower), str(r.eps_upper)]
elif route == "certified":
    from exactdp.threshold import epsilon_threshold
    r = epsilon_threshold(m, method="certified")
    out["seconds"] = time.perf_counter() - t0
    out["eps"] = [str(r.eps_lower), str(r.eps_upper)]
else:
    from bench_threshold import paper_sweep
    eps, steps = paper_sweep(m)
    out["seconds"] = time.perf_counter() - t0
    out["eps"] = eps
out["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(out))
"""


def run(route: str, u: int, timeout: float) -> dict | None:
    try:
        proc = subprocess.run([sys.executable, "-c", CHILD.format(here=str(HERE)), route, str(u)],
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    if proc.returncode != 0:
        print(proc.stderr[-2000:], file=sys.stderr)
        return None
    return json.loads(proc.stdout.strip().splitlines()[-1])


def fit(points: list[tuple[int, float]]) -> float | None:
    pts = [(math.log(n), math.log(t)) for n, t in points if t > 0]
    if len(pts) < 2:
        return None
    mx = sum(x for x, _ in pts) / len(pts)
    my = sum(y for _, y in pts) / len(pts)
    den = sum((x - mx) ** 2 for x, _ in pts)
    return sum((x - mx) * (y - my) for x, y in pts) / den if den else None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="n = 101 … 501 only")
    ap.add_argument("--max-generic", type=int, default=251)
    ap.add_argument("--timeout", type=float, default=600.0)
    args = ap.parse_args()
    us = [20, 50, 100] if args.quick else [20, 50, 100, 150, 200, 300]
    rows = []
    series: dict[str, list[tuple[int, float]]] = {k: [] for k in
                                                  ("structured", "verify", "generic",
                                                   "certified", "paper")}
    for u in us:
        n = 5 * u + 1
        st = run("structured", u, args.timeout)
        ge = run("generic", u, min(args.timeout, 300)) if n <= args.max_generic else None
        ce = run("certified", u, args.timeout)
        pa = run("paper", u, args.timeout)
        same = None if (st is None or ge is None) else st["minpoly"] == ge["minpoly"]
        rows.append((n, st, ge, ce, pa, same))
        for key, res, field in (("structured", st, "seconds"), ("verify", st, "verify_seconds"),
                                ("generic", ge, "seconds"), ("certified", ce, "seconds"),
                                ("paper", pa, "seconds")):
            if res is not None:
                series[key].append((n, res[field]))

        def cell(r: dict | None, key: str = "seconds") -> str:
            return "—" if r is None else f"{r[key]:7.2f} s ({r['peak_mb']:.0f} MB)"

        print(f"n = {n:5d} | structured {cell(st)} verify "
              f"{'—' if st is None else format(st['verify_seconds'], '6.2f') + ' s'}"
              f" deg {st and st['degree']} ({st and st['bits']}-bit) | generic {cell(ge)}"
              f"{'' if same is None else (' same minpoly' if same else ' DIFFERENT')}"
              f" | certified {cell(ce)} | paper sweep {cell(pa)} ε = {pa and pa['eps']}",
              flush=True)
    print("\nfitted growth exponents (time ~ n^k):")
    for key, pts in series.items():
        k = fit(pts)
        print(f"  {key:10s} k = {'—' if k is None else format(k, '.2f')}  ({len(pts)} sizes)")
    st751 = next((r[1] for r in rows if r[0] == 751), None)
    if st751 is not None:
        print(f"\nsum_query(150, 5): ε* ∈ [{float(Fraction(st751['eps'][0])):.12f}, "
              f"{float(Fraction(st751['eps'][1])):.12f}], degree {st751['degree']}")


if __name__ == "__main__":
    main()
