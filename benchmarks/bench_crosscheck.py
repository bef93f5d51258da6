"""Throughput of the regression oracle: cases/second of crosscheck at n = 10, 100, 500 for
tight constraints and privacy level, in-process and on a 2-thread executor, beside the float
function alone; peak Python memory (tracemalloc) of each run.

Run: ``python benchmarks/bench_crosscheck.py [--sizes 10 100 500] [--cases 4] [--dask]``
(``--dask`` adds a column on a dask.distributed LocalCluster with 2 in-process workers).
"""

from __future__ import annotations

import argparse
import time
import tracemalloc
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction
from typing import Any

from exactdp.mechanisms import truncated_geometric
from exactdp.spaces.metrics import line
from exactdp.testing import crosscheck
from exactdp.testing.float_reference import privacy_level_float, tight_z_float
from exactdp.testing.questions import read_question


def _cases(question: str, n: int, k: int) -> list[Any]:
    if question == "tight-constraints":
        return [(line(n), Fraction(j + 1, 3)) for j in range(k)]
    # the truncated geometric mechanism at t = 1/(j+2) (level ln(j+2), exact monomial form),
    # asked at ε = 1
    return [(truncated_geometric(n, t=Fraction(1, j + 2)), line(n), 1) for j in range(k)]


def _timed(fn: Callable[[], Any]) -> tuple[float, float]:
    tracemalloc.start()
    t0 = time.perf_counter()
    fn()
    dt = time.perf_counter() - t0
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return dt, peak


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[10, 100, 500])
    ap.add_argument("--cases", type=int, default=4)
    ap.add_argument("--dask", action="store_true")
    a = ap.parse_args()
    client = None
    if a.dask:
        from distributed import Client, LocalCluster

        client = Client(LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                     dashboard_address=None))
    print("| question | n | cases | float alone (cases/s) | crosscheck in-process (cases/s, peak MiB) "
          "| crosscheck, 2 threads (cases/s, peak MiB) |"
          + (" crosscheck, dask 2 workers (cases/s) |" if client else ""))
    print("| --- | --- | --- | --- | --- | --- |" + (" --- |" if client else ""))
    for question, fn in (("tight-constraints", tight_z_float), ("privacy-level", privacy_level_float)):
        q = read_question(question)
        for n in a.sizes:
            k = 1 if question == "privacy-level" and n > 100 else a.cases  # float ref: Python O(n³) loop
            cases = _cases(question, n, k)
            args = [q.float_args(q.read_case(c)) for c in cases]
            t_float, _ = _timed(lambda fn=fn, args=args: [fn(*x) for x in args])
            t_in, m_in = _timed(lambda fn=fn, q=question, c=cases: crosscheck(fn, q, c))
            with ThreadPoolExecutor(2) as ex:
                t_ex, m_ex = _timed(lambda fn=fn, q=question, c=cases, ex=ex: crosscheck(fn, q, c, executor=ex,
                                                                                    chunksize=1))
            extra = ""
            if client is not None:
                dex = client.get_executor()
                t0 = time.perf_counter()
                crosscheck(fn, question, cases, executor=dex, chunksize=1)
                extra = f" {k / (time.perf_counter() - t0):.3g} |"
            print(f"| {question} | {n} | {k} | {k / t_float:.3g} | {k / t_in:.3g} ({m_in:.0f}) "
                  f"| {k / t_ex:.3g} ({m_ex:.0f}) |" + extra, flush=True)
    if client is not None:
        client.close()


if __name__ == "__main__":
    main()
