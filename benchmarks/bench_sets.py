"""Benchmark: exact capacity functionals (sweep vs grid vs inclusion–exclusion) and a
float Monte Carlo baseline, side by side, with ratios.

Run: python benchmarks/bench_sets.py
"""

from __future__ import annotations

import time
from fractions import Fraction

import numpy as np

from exactdp.errors import InstanceTooLarge
from exactdp.sets import Box, capacity_functional, capacity_monte_carlo_float


def timed(f, repeat: int = 1):
    best = float("inf")
    out = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = f()
        best = min(best, time.perf_counter() - t0)
    return best, out


def instance(m: int, dim: int, seed: int):
    rng = np.random.default_rng(seed)
    X = [tuple(Fraction(int(c), 4) for c in rng.integers(-8, 9, dim)) for _ in range(m)]
    K = [Box((0,) * dim, (Fraction(3, 4),) * dim), Box((1,) * dim, (Fraction(5, 2),) * dim)]
    return X, K


def main() -> None:
    print(
        f"{'|X|':>4} {'n':>2} {'boxes':>5} | {'sweep s':>9} {'grid s':>9} {'incl-excl s':>11} "
        f"{'MC(1e5) s':>9} | {'grid/sweep':>10} {'MC err':>9}"
    )
    for m, dim in [(2, 1), (8, 1), (4, 2), (8, 2), (16, 2), (4, 3), (8, 3)]:
        X, K = instance(m, dim, seed=m * 10 + dim)
        ts, r = timed(lambda X=X, K=K: capacity_functional(X, K, 1, method="sweep"))
        try:
            tg, _ = timed(lambda X=X, K=K: capacity_functional(X, K, 1, method="grid"))
        except InstanceTooLarge:
            tg = float("nan")
        if m * len(K) <= 16:
            ti, _ = timed(lambda X=X, K=K: capacity_functional(X, K, 1, method="inclusion-exclusion"))
        else:
            ti = float("nan")
        tm, mc = timed(lambda X=X, K=K: capacity_monte_carlo_float(X, K, 1, n_samples=100_000, seed=0))
        err = abs(mc.estimate_float - r.value_float)
        print(
            f"{m:>4} {dim:>2} {m * len(K):>5} | {ts:9.4f} {tg:9.4f} {ti:11.4f} {tm:9.4f} | {tg / ts:10.1f} {err:9.2e}"
        )


if __name__ == "__main__":
    main()
