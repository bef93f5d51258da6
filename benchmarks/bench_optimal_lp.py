"""The exactly optimal d-private mechanism by LP vs the float LP alone (scipy HiGHS).

Run:  python benchmarks/bench_optimal_lp.py [--quick]

For the line metric line(n) and the sum-query metric sum_query(u, 2) (n = 2u + 1 points),
prior uniform, binary gain, t = 1/2, n ≈ 10, 20, 50, 100 (n² LP unknowns), it prints in one
run: the float LP alone (HiGHS, uncertified), the exact route of
:func:`exactdp.qif.optimal_mechanism` (HiGHS to *find*, exact fmpq arithmetic to *prove*,
``verify()`` of the duality certificate included), the method used, the peak Python heap
(tracemalloc) of the exact route and the process's peak RSS; and the largest n solved
exactly within 60 s. A size whose float active set does not give an exact certificate is
reported as "not certified" (the exact simplex fallback is limited to n·m ≤ 100).
"""

from __future__ import annotations

import resource
import sys
import time
import tracemalloc

from exactdp.errors import LPNotCertified
from exactdp.qif.optimal import float_optimal_lp, optimal_mechanism
from exactdp.qif.optimal_lp import build_problem
from exactdp.spaces.levels import parse_level
from exactdp.spaces.metrics import line, sum_query

BUDGET = 60.0


def run(metric, label: str) -> tuple[bool, float]:
    level = parse_level(t="1/2")
    P = build_problem(metric, "uniform", level, None)
    t0 = time.perf_counter()
    res = float_optimal_lp(P)
    t_float = time.perf_counter() - t0
    tracemalloc.start()
    t0 = time.perf_counter()
    try:
        r = optimal_mechanism(metric, "uniform", t="1/2")
        ok = r.verify()
        method = r.method
        value = f"{float(r.value):.10f}"
    except LPNotCertified:
        ok, method, value = False, "not certified", "-"
    t_exact = time.perf_counter() - t0
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{label:18} {metric.n:5} {metric.n ** 2:8} {t_float:10.3f} {t_exact:10.3f} "
          f"{t_exact / t_float:7.1f} {method:14} {ok!s:6} {peak:9.1f} {rss:9.0f}  "
          f"{value} (float {-res.fun:.10f})")
    return ok, t_exact


def main(quick: bool = False) -> None:
    sizes = [10, 20] if quick else [10, 20, 50, 100]
    print(f"{'metric':18} {'n':>5} {'unknowns':>8} {'HiGHS s':>10} {'exact s':>10} {'ratio':>7} "
          f"{'method':14} {'ok':6} {'heap MB':>9} {'RSS MB':>9}  value")
    for family in ("line", "sum-query"):
        best = 0
        for n in sizes:
            metric = line(n) if family == "line" else sum_query(n // 2, 2)
            label = f"line({n})" if family == "line" else f"sum_query({n // 2}, 2)"
            ok, t = run(metric, label)
            if ok and t <= BUDGET:
                best = max(best, metric.n)
        print(f"  largest n solved exactly within {BUDGET:.0f} s ({family}): {best}")


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
