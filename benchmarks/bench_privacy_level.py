"""Benchmark: exact privacy level of 751×751 mechanisms on the sum-query metric (u=150, v=5).

Library (exact, edges only — the graph has 3 755 edges):
  * ``method="monomial"``: integer exponent arithmetic on the monomial form h = c_z s^E;
  * ``method="exact"``: float search + exact fmpq confirmation of every near-maximal ratio.
Baselines (float64, uncertified):
  * edge-only float check (the same pairs);
  * dense float check over all n² ordered pairs (what one writes without the path argument).

Mechanism construction is not timed. Run: ``python benchmarks/bench_privacy_level.py``.
"""

from __future__ import annotations

import math
import time

import numpy as np

from exactdp.mechanisms import privacy_level, sum_query_geometric, tight_constraints_mechanism
from exactdp.spaces.metrics import sum_query


def float_edge_level(F: np.ndarray, metric) -> float:
    I, J = np.asarray(metric.check_edges()).T
    d = metric.distance_matrix_float()[I, J]
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.log(F[I] / F[J]).max(axis=1) / d
        b = np.log(F[J] / F[I]).max(axis=1) / d
    return float(max(a.max(), b.max()))


def float_dense_level(F: np.ndarray, metric) -> float:
    D = metric.distance_matrix_float()
    L = np.log(F)
    best = 0.0
    for y in range(F.shape[0]):
        diff = (L[y][None, :] - L).max(axis=1)  # over z, for every y'
        with np.errstate(divide="ignore", invalid="ignore"):
            v = np.where(D[y] > 0, diff / np.where(D[y] > 0, D[y], 1), 0.0)
        best = max(best, float(v.max()))
    return best


def timed(f, repeat: int = 1):
    best = math.inf
    out = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = f()
        best = min(best, time.perf_counter() - t0)
    return out, best


def main() -> None:
    metric = sum_query(150, 5)
    print(f"metric {metric.name}: n = {metric.n}, edges checked = {len(metric.check_edges())}")
    cases = []
    t0 = time.perf_counter()
    cases.append(("geometric comparator, t = 1/32 (exact)", sum_query_geometric(150, 5, t="1/32")))
    cases.append(("tight-constraints, t = 1/3 (exact)", tight_constraints_mechanism(metric, t="1/3")))
    cases.append(("tight-constraints, ε = 1 (certified entries)",
                  tight_constraints_mechanism(metric, eps=1)))
    print(f"(construction of the three mechanisms: {time.perf_counter() - t0:.1f} s, not timed)")
    print()
    header = f"{'mechanism':46s} {'method':10s} {'level':>14s} {'time':>8s} {'vs float edges':>15s}"
    print(header)
    print("-" * len(header))
    for label, H in cases:
        F = H.to_float()
        fe, t_fe = timed(lambda F=F: float_edge_level(F, metric), 3)
        fd, t_fd = timed(lambda F=F: float_dense_level(F, metric))
        methods = ["monomial", "exact"] if H.kind == "exact" else ["monomial", "ball"]
        for method in methods:
            r, t = timed(lambda H=H, method=method: privacy_level(H, metric, method=method))
            shown = str(r.value) if r.value is not None else f"[{float(r.enclosure.lo):.6f}..]"
            print(f"{label:46s} {method:10s} {shown:>14s} {t:7.3f}s {t / t_fe:14.1f}x")
        print(f"{'':46s} {'float-edge':10s} {fe:14.10f} {t_fe:7.3f}s {1:14.1f}x")
        print(f"{'':46s} {'float-dense':10s} {fd:14.10f} {t_fd:7.3f}s {t_fd / t_fe:14.1f}x")
        print()


if __name__ == "__main__":
    main()
