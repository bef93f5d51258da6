"""Toeplitz exact solve (:mod:`exactdp.algebra.toeplitz_general`) vs the generic exact solve.

Both compute z(s) = Φ(s)⁻¹·1 exactly (numerators and denominator over Z[s], identity
verified); the run checks they are identical, coefficient for coefficient, and reports
wall time, peak memory (resident set of a fresh child process per case) and the fitted
growth exponent of each (least squares on log t vs log n over the sizes both reached).

Metric: d(i, j) = f(|i − j|) with f(k) = ⌈√k⌉ (exponents do not repeat: the banded
route of :mod:`exactdp.algebra.toeplitz` does not apply).

    nice -n 10 python benchmarks/bench_toeplitz_general.py [--sizes 50 100 200 300 400]
        [--extra 500 600] [--timeout 900]
"""

from __future__ import annotations

import argparse
import math
import multiprocessing as mp
import resource
import time
from typing import Any

import numpy as np


def sqrt_metric(n: int) -> Any:
    """d(i, j) = ⌈√|i − j|⌉ (subadditive, so a metric)."""
    from exactdp.spaces.distances import Distance
    from exactdp.spaces.metrics.space import FiniteMetric

    f = [0] + [math.isqrt(k - 1) + 1 for k in range(1, n)]
    ar = np.arange(n)
    e = np.asarray(f, dtype=np.int64)
    return FiniteMetric(f"ceil-sqrt({n})", range(n),
                        [Distance.rational(v) for v in range(max(f) + 1)],
                        e[np.abs(ar[:, None] - ar[None, :])], toeplitz=True)


def _case(which: str, n: int, out: Any) -> None:
    import scipy.sparse  # noqa: F401  (both solvers use it; keep its import out of the timing)

    from exactdp.algebra.symbolic import solve_symbolic
    from exactdp.algebra.toeplitz_general import solve_toeplitz_general

    m = sqrt_metric(n)
    t0 = time.perf_counter()
    sol = (solve_toeplitz_general(m) if which == "toeplitz"
           else solve_symbolic(m, max_n=10**4))
    dt = time.perf_counter() - t0
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # MB (Linux: KB)
    key = (str(sol.denominator), hash(tuple(str(p) for p in sol.numerators)))
    out.put((dt, rss, key, sol.denominator.degree(),
             max(p.height_bits() for p in sol.numerators)))


def run(which: str, n: int, timeout: float) -> tuple[float, float, Any, int, int] | None:
    q: Any = mp.get_context("fork").Queue()
    proc = mp.get_context("fork").Process(target=_case, args=(which, n, q))
    proc.start()
    proc.join(timeout)
    if proc.is_alive():
        proc.terminate()
        proc.join()
        return None
    return q.get() if not q.empty() else None


def slope(points: list[tuple[int, float]]) -> float:
    if len(points) < 2:
        return float("nan")
    x = np.log([p[0] for p in points])
    y = np.log([p[1] for p in points])
    return float(np.polyfit(x, y, 1)[0])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="*", default=[50, 100, 200, 300, 400])
    ap.add_argument("--extra", type=int, nargs="*", default=[500, 600],
                    help="sizes for the Toeplitz solver only")
    ap.add_argument("--timeout", type=float, default=900.0)
    a = ap.parse_args()
    fits: dict[str, list[tuple[int, float]]] = {"toeplitz": [], "generic": []}
    print(f"{'n':>5} {'deg D':>6} {'bits':>5} {'toeplitz s':>10} {'MB':>6} "
          f"{'generic s':>10} {'MB':>6} {'same':>5}", flush=True)
    for n in a.sizes + a.extra:
        r1 = run("toeplitz", n, a.timeout)
        r2 = run("generic", n, a.timeout) if n in a.sizes else None
        same = "-" if r1 is None or r2 is None else str(r1[2] == r2[2])
        if r1:
            fits["toeplitz"].append((n, r1[0]))
        if r2:
            fits["generic"].append((n, r2[0]))
        def cell(r: Any) -> str:
            return f"{r[0]:10.2f} {r[1]:6.0f}" if r else f"{'timeout':>10} {'-':>6}"
        info = r1 or r2
        gen = cell(r2) if n in a.sizes else "{:>10} {:>6}".format("-", "-")
        deg, bits = (info[3], info[4]) if info else ("-", "-")
        print(f"{n:5d} {deg:>6} {bits:>5} {cell(r1)} {gen} {same:>5}", flush=True)
    for k, pts in fits.items():
        big = [p for p in pts if p[0] >= 100]
        print(f"growth exponent {k}: {slope(big):.2f} (n ≥ 100, {len(big)} sizes)")


if __name__ == "__main__":
    main()
