"""Benchmark: the equitable-quotient exact threshold route (issue 18) on symmetric metrics.

Run: ``python benchmarks/bench_quotient.py [--quick] [--generic-upto N]``

Each measurement runs in a fresh subprocess (peak resident memory = the child's
``ru_maxrss``, FLINT's allocations included):

(a) count_queries(u), u = 16, 22, 30 (n = 289, 529, 961): the quotient route
    (:func:`exactdp.threshold.quotient.quotient_route`: cells, minimal polynomial degree and
    coefficient bits, ε* enclosure), then its kernel ``verify()`` and the JSON size;
(b) the generic exact route (:func:`exactdp.threshold.exact.exact_route`) where n ≤
    ``--generic-upto`` (default 289), with a check that both minimal polynomials agree;
(c) square Manhattan grids k×k, k = 10 … 30 (ε* = 0: the quotient proves "holds for every ε").
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

CHILD = r"""
import json, resource, sys, time
from fractions import Fraction
sys.path.insert(0, {here!r})
from exactdp.spaces.metrics import count_queries, grid
from exactdp.threshold.quotient import quotient_route
from exactdp.threshold.exact import exact_route
route, kind, u = sys.argv[1], sys.argv[2], int(sys.argv[3])
m = count_queries(u) if kind == "count" else grid(u, u, "manhattan")
tol = Fraction(1, 10**9)
out = {{"n": m.n}}
t = time.perf_counter()
if route == "quotient":
    r = quotient_route(m, None, tol)
    out["seconds"] = time.perf_counter() - t
    out["method"] = r.method
    t = time.perf_counter()
    out["verified"] = r.certificate.verify()
    out["verify_seconds"] = time.perf_counter() - t
    out["json_chars"] = len(r.certificate.dumps())
else:
    r, _ = exact_route(m, None, tol, None, [], 10**5)
    out["seconds"] = time.perf_counter() - t
g = r.exact
out["minpoly"] = None if g is None else [str(c) for c in g.minimal_polynomial]
out["degree"] = None if g is None else len(g.minimal_polynomial) - 1
out["bits"] = None if g is None else max(abs(c) for c in g.minimal_polynomial).bit_length()
out["eps"] = [str(r.eps_lower), str(r.eps_upper)]
out["rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
print(json.dumps(out))
"""


def run(route: str, kind: str, u: int) -> dict:
    code = CHILD.format(here=str(HERE.parent))
    proc = subprocess.run([sys.executable, "-c", code, route, kind, str(u)],
                          capture_output=True, text=True, check=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="count_queries(16) and grids 10, 15 only")
    ap.add_argument("--generic-upto", type=int, default=289)
    args = ap.parse_args()
    counts = (16,) if args.quick else (16, 22, 30)
    grids = (10, 15) if args.quick else (10, 15, 20, 25, 30)
    print("instance              n  route     seconds  verify  degree  bits   ε* (lower)     RSS MB")
    for u in counts:
        q = run("quotient", "count", u)
        print(f"count_queries({u:2d})  {q['n']:5d}  quotient  {q['seconds']:7.2f}  "
              f"{q['verify_seconds']:6.2f}  {q['degree']!s:>6}  {q['bits']!s:>4}   "
              f"{float(eval(q['eps'][0])):.12f}  {q['rss_mb']:6d}  ({q['method']}, "
              f"JSON {q['json_chars']:,} chars)")
        if q["n"] <= args.generic_upto:
            g = run("generic", "count", u)
            print(f"count_queries({u:2d})  {g['n']:5d}  generic   {g['seconds']:7.2f}  "
                  f"{'':6}  {g['degree']!s:>6}  {g['bits']!s:>4}   "
                  f"{float(eval(g['eps'][0])):.12f}  {g['rss_mb']:6d}  (same minimal polynomial: "
                  f"{g['minpoly'] == q['minpoly']})")
    for k in grids:
        q = run("quotient", "grid", k)
        print(f"manhattan {k:2d}×{k:<2d}     {q['n']:5d}  quotient  {q['seconds']:7.2f}  "
              f"{q['verify_seconds']:6.2f}  {'ε*=0':>6}  {'':>4}   {'0':>14}  {q['rss_mb']:6d}  "
              f"({q['method']}, verified {q['verified']})")


if __name__ == "__main__":
    main()
