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

Then Thm. 4's ``is_optimal`` (closed form, no LP): the truncated geometric mechanism on
line(n) at t = 1/2 (exact) and at ε = 1 (t = e^-1, identities in Q(x)), and the
tight-constraints mechanism of sum_query(u, 2) at ε = 1 (by structure); decide and verify times.
"""

from __future__ import annotations

import resource
import sys
import time
import tracemalloc

from exactdp.errors import LPNotCertified
from exactdp.mechanisms.constructors import truncated_geometric
from exactdp.mechanisms.optimality import is_optimal
from exactdp.qif.optimal import float_optimal_lp, optimal_mechanism
from exactdp.qif.optimal_lp import build_problem
from exactdp.spaces.levels import parse_level
from exactdp.spaces.metrics import line, sum_query
from exactdp.tight import tight_constraints

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
    optimality(quick)


def optimality(quick: bool) -> None:
    """Thm. 4's test ``is_optimal`` (closed form, any size): decide + verify, rational and e^-1."""
    print(f"\n{'is_optimal':34} {'n':>5} {'unknowns':>9} {'decide s':>9} {'verify s':>9}  optimal")
    sizes = [50, 100] if quick else [50, 100, 200, 400]
    for n in sizes:
        for kw, lab in (({"t": "1/2"}, "t=1/2"), ({"eps": 1}, "eps=1")):
            H, metric = truncated_geometric(n, **kw), line(n)
            _time_optimal(H, metric, kw, f"geometric line({n}) {lab}")
    for u in ([25] if quick else [25, 50, 100]):
        metric = sum_query(u, 2)
        H = tight_constraints(metric, eps=1).mechanism
        _time_optimal(H, metric, {"eps": 1}, f"tight sum_query({u}, 2) eps=1")


def _time_optimal(H, metric, kw, label: str) -> None:
    t0 = time.perf_counter()
    r = is_optimal(H, metric, **kw)
    t1 = time.perf_counter()
    ok = r.verify()
    t2 = time.perf_counter()
    print(f"{label:34} {metric.n:5} {metric.n * H.n_outputs:9} {t1 - t0:9.2f} {t2 - t1:9.2f}  "
          f"{r.optimal} (verified {ok})")


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
