"""Benchmark (issue 12): certify a deployed float mechanism vs. the numpy float computation.

A user's mechanism F = row-normalised exp(−0.5·D) in float64 on a Manhattan grid, loaded with
``from_numpy(F, rows="as-is")`` (the exact dyadic matrix deployed) and certified with
``privacy_level`` (exact level ln(R)/d and witness). Side by side, in the same run, the float
computation a user would write: max over the metric's edges of max over outputs of
|log H[x,y] − log H[x',y]| / d(x,x'), vectorised with numpy. Reports load time, certify time,
the numpy baseline, the ratio (load + certify)/numpy, and the peak memory traced by ``tracemalloc`` in a
separate untimed pass (Python and numpy allocations; the input matrix itself excluded), over ``--runs``
runs (min–max).

Run: ``python benchmarks/bench_deployed.py [--runs 3] [--sizes 20x20,25x40] [--cycles 1000]``.
``--cycles N`` adds the same float mechanism on ``cycle(N)``: every row is a rotation of the
first, so thousands of privacy ratios tie *exactly* (the case the dyadic tie-breaker of
``exactdp/mechanisms/dyadic.py`` is for). The ratio is
(load + certify) / numpy within each run; on a shared machine the numpy time (tens of ms)
varies most, so the median ratio is printed beside the range.
"""

from __future__ import annotations

import argparse
import statistics
import time
import tracemalloc
import warnings

import numpy as np

from exactdp.errors import InexactInputWarning
from exactdp.mechanisms import from_numpy, privacy_level
from exactdp.spaces.metrics import FiniteMetric, cycle, grid


def numpy_level(F: np.ndarray, edges: np.ndarray, dist: np.ndarray) -> float:
    """The float level a user would compute (vectorised over edges and outputs)."""
    L = np.log(F)
    a, b = edges[:, 0], edges[:, 1]
    return float((np.abs(L[a] - L[b]).max(axis=1) / dist).max())


def one_run(metric: FiniteMetric) -> dict[str, float]:
    D = metric.distance_matrix_float()
    F = np.exp(-0.5 * D)
    F /= F.sum(axis=1, keepdims=True)
    edges = np.asarray(metric.check_edges(), dtype=np.int64)
    dist = D[edges[:, 0], edges[:, 1]]
    t0 = time.perf_counter()
    lv_float = numpy_level(F, edges, dist)
    t_np = time.perf_counter() - t0
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InexactInputWarning)
        loaded = from_numpy(F, rows="as-is")
    t_load = time.perf_counter() - t0
    t0 = time.perf_counter()
    res = privacy_level(loaded, metric)
    t_cert = time.perf_counter() - t0
    # peak memory in a separate, untimed pass (tracing slows allocation-heavy code ~10×)
    tracemalloc.start()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InexactInputWarning)
        privacy_level(from_numpy(F, rows="as-is"), metric)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert res.enclosure is not None
    assert abs(float(res.enclosure.mid) - lv_float) <= 1e-9 * max(1.0, lv_float)
    return {"load": t_load, "certify": t_cert, "numpy": t_np,
            "ratio": (t_load + t_cert) / t_np, "peak_mb": peak / 2**20,
            "level": float(res.enclosure.mid)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--sizes", default="20x20,25x40",
                    help="grid sizes WxH (20x20 = 400 points, 25x40 = 1000 points)")
    ap.add_argument("--cycles", default="",
                    help="cycle sizes N, comma-separated (exact ratio ties), e.g. 1000")
    args = ap.parse_args()
    metrics = [grid(*(int(x) for x in s.split("x")), "manhattan")
               for s in args.sizes.split(",") if s]
    metrics += [cycle(int(s)) for s in args.cycles.split(",") if s]
    print(f"{'metric':>18} {'n×n':>11} {'load s':>13} {'certify s':>13} {'numpy s':>15} "
          f"{'ratio':>13} {'median ratio':>12} {'peak MB':>9}")
    for metric in metrics:
        rs = [one_run(metric) for _ in range(args.runs)]

        def rng(k: str, fmt: str, rs: list[dict[str, float]] = rs) -> str:
            lo, hi = min(r[k] for r in rs), max(r[k] for r in rs)
            return f"{lo:{fmt}}–{hi:{fmt}}"

        n = metric.n
        print(f"{metric.name:>18} {f'{n}×{n}':>11} {rng('load', '.3f'):>13} {rng('certify', '.3f'):>13} "
              f"{rng('numpy', '.4f'):>15} {rng('ratio', '.1f'):>13} "
              f"{statistics.median(r['ratio'] for r in rs):>12.1f} {rng('peak_mb', '.0f'):>9}"
              f"   level ≈ {rs[0]['level']:.6g}")


if __name__ == "__main__":
    main()
