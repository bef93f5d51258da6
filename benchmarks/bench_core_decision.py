"""Certified decision of tight-constraints existence vs one plain numpy float solve.

Run:  python benchmarks/bench_core_decision.py
Prints, side by side in one run, for the paper's case-study sizes: one numpy float solve
(uncertified), the library's certified decision (auto: verified float, balls if needed),
flint ball Gaussian elimination at 64 bits, and (sum query only) the exact fmpq solve,
with ratios against the numpy solve. Timings are medians of a few runs on this machine.
"""

from __future__ import annotations

import statistics
import sys
import time

import flint
import numpy as np

from exactdp import metrics as M
from exactdp import tight_constraints
from exactdp.algebra.phi import phi_ball, phi_exact, phi_float
from exactdp.arithmetic.ball import workprec
from exactdp.spaces.levels import parse_level


def median_time(fn, repeat: int = 3) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def main(quick: bool = False) -> None:
    cases = [(M.sum_query(150, 5), "2/5"), (M.sum_query(150, 5), None),
             (M.count_queries(30), "1/3"), (M.count_queries(30), None)]
    if quick:
        cases = [(M.sum_query(30, 5), "2/5"), (M.count_queries(8), None)]
    print(f"{'case':34} {'numpy solve':>12} {'certified':>10} {'ratio':>7} {'arb64':>8} {'ratio':>7}"
          f" {'exact fmpq':>11} {'ratio':>7}  verdict (method)")
    for metric, t in cases:
        bench_case(metric, t)


def bench_case(metric: M.FiniteMetric, t: str | None) -> None:
    level = parse_level(t=t) if t else parse_level(eps="4/5")
    kw = {"t": t} if t else {"eps": "4/5"}
    _ = metric.index  # build the index once, outside the timings
    ones = np.ones(metric.n)
    t_np, _ = median_time(lambda: np.linalg.solve(phi_float(metric, level), ones))
    t_cert, res = median_time(lambda: tight_constraints(metric, **kw))

    def arb_solve() -> object:
        with workprec(64):
            return phi_ball(metric, level).solve(flint.arb_mat([[1]] * metric.n))

    t_arb, _ = median_time(arb_solve, repeat=1)
    t_exact_s = r_exact_s = "—"
    if t and metric.n <= 800:
        t_exact, _ = median_time(
            lambda: phi_exact(metric, level).solve(flint.fmpq_mat([[1]] * metric.n)), repeat=1)
        t_exact_s, r_exact_s = f"{t_exact:.3f}s", f"{t_exact / t_np:.0f}×"
    label = f"{metric.name} {'t=' + t if t else 'ε=4/5'}"
    print(f"{label:34} {t_np:11.3f}s {t_cert:9.3f}s {t_cert / t_np:6.0f}× {t_arb:7.2f}s "
          f"{t_arb / t_np:6.0f}× {t_exact_s:>11} {r_exact_s:>7}  "
          f"{'exists' if res.exists else 'none'} ({res.method})", flush=True)


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
