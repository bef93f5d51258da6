"""Benchmark: thresholds ε*, the paper's float sweep versus exactdp's exact/certified answers.

Run: ``python benchmarks/bench_threshold.py [--quick] [--no-grid]``

Part 1  exact algebraic thresholds for sum_query(u, 5) from u = 2 upward (exact route:
        z(s) exactly, every root of every numerator isolated); stops before an instance
        would exceed 60 s and reports the largest n reached.
Part 2  side by side, in one run, for sum_query(150, 5) and count_queries(30):
        (a) the paper's method: float64 sweep ε = 0.01, 0.02, ... until Φz = 1 has z ≥ 0
            (dense numpy solves; uncertified);
        (b) libqif (the authors' C++ library, ``pip install qif``):
            ``mechanism.d_privacy.tight_constraints`` on the same sweep (float; it returns
            an empty matrix when no tight-constraints mechanism exists);
        (c) exactdp.epsilon_threshold: certified enclosure of width ≤ 1e-9 (+ verify()).
Part 3  Example 3 (hamming(4, 5), product prior): exact via Kronecker.
Part 4  100×100 Euclidean grid (n = 10⁴): the paper's sweep with FFT+CG float solves (dense
        numpy solves at n = 10⁴ take minutes each) vs the certified threshold (matrix-free:
        lattice-symbol λ_min bound, block-Toeplitz products with rigorous rounding bounds).
"""

from __future__ import annotations

import argparse
import itertools
import math
import time
from fractions import Fraction

import numpy as np

from exactdp.algebra.structure import grid_cg_solve_float
from exactdp.spaces.metrics import count_queries, grid, hamming, sum_query
from exactdp.threshold import epsilon_threshold


def paper_sweep(metric, step: float = 0.01, eps_max: float = 5.0) -> tuple[float | None, int]:
    """The paper's method: smallest ε on the 0.01 grid where the float z is ≥ 0."""
    D = metric.distance_matrix_float()
    b = np.ones(metric.n)
    k = 1
    while k * step <= eps_max:
        eps = k * step
        z = np.linalg.solve(np.exp(-eps * D), b)
        if z.min() >= 0:
            return eps, k
        k += 1
    return None, k


def qif_sweep(metric, step: float = 0.01, eps_max: float = 5.0) -> tuple[float | None, int]:
    import qif

    D = metric.distance_matrix_float()
    k = 1
    while k * step <= eps_max:
        eps = k * step
        C = np.asarray(qif.mechanism.d_privacy.tight_constraints(
            metric.n, lambda i, j, e=eps: e * float(D[i, j])))
        if C.size > 0:
            return eps, k
        k += 1
    return None, k


def part1(limit: float) -> None:
    print("== Part 1: exact algebraic thresholds, sum_query(u, 5) ==")
    print(f"{'u':>4} {'n':>5} {'deg s*':>7} {'ε* (approx)':>16} {'seconds':>8}  method")
    us = [2, 3, 4, 6, 8, 10, 15, 20, 25, 30, 35, 40, 50, 60, 70, 80, 100, 120, 150]
    best = None
    for u in us:
        m = sum_query(u, 5)
        t0 = time.perf_counter()
        r = epsilon_threshold(m, method="exact")
        dt = time.perf_counter() - t0
        ok = r.certificate.verify()
        deg = r.exact.degree if r.exact is not None else 0
        mid = float((r.eps_lower + r.eps_upper) / 2)
        print(f"{u:>4} {m.n:>5} {deg:>7} {mid:>16.12f} {dt:>8.2f}  {r.method}, verify={ok}",
              flush=True)
        if dt <= limit:
            best = (u, m.n, dt)
        if dt > limit / 2.5:
            break
    if best:
        print(f"largest instance with an exact threshold within {limit:.0f} s: "
              f"u = {best[0]}, n = {best[1]} ({best[2]:.1f} s)")


def part2() -> None:
    print("\n== Part 2: paper's float sweep vs libqif vs certified exactdp ==")
    try:
        import qif  # noqa: F401

        have_qif = True
    except ImportError:
        have_qif = False
        print("(libqif not installed: pip install qif)")
    for m, paper_value in ((sum_query(150, 5), 0.8), (count_queries(30), 0.9)):
        _ = m.index
        t0 = time.perf_counter()
        eps_sweep, solves = paper_sweep(m)
        t_sweep = time.perf_counter() - t0
        if have_qif:
            t0 = time.perf_counter()
            eps_qif, _k = qif_sweep(m)
            t_qif = time.perf_counter() - t0
        t0 = time.perf_counter()
        r = epsilon_threshold(m)
        t_cert = time.perf_counter() - t0
        t0 = time.perf_counter()
        ok = r.certificate.verify()
        t_ver = time.perf_counter() - t0
        print(f"{m.name} (n = {m.n}); paper reports ε* = {paper_value}")
        print(f"  paper method (float sweep, step 0.01): ε = {eps_sweep} after {solves} solves, "
              f"{t_sweep:.2f} s   [uncertified]")
        if have_qif:
            print(f"  libqif sweep (float, step 0.01):       ε = {eps_qif}, {t_qif:.2f} s   "
                  "[uncertified]")
        print(f"  exactdp certified: ε* ∈ [{float(r.eps_lower):.12f}, {float(r.eps_upper):.12f}]"
              f" (width {float(r.eps_upper - r.eps_lower):.1e}), {t_cert:.2f} s; "
              f"verify() = {ok} in {t_ver:.2f} s")
        print(f"  time ratio certified / paper sweep = {t_cert / t_sweep:.2f}"
              + (f";  certified / libqif = {t_cert / t_qif:.2f}" if have_qif else ""))
        print(f"  method: {r.method}")


def part3() -> None:
    print("\n== Part 3: Example 3, hamming(4, 5), product prior ==")
    p = [Fraction(3, 10), Fraction(27, 100), Fraction(23, 100), Fraction(1, 5)]
    prior = [math.prod(c) for c in itertools.product(p, repeat=5)]
    t0 = time.perf_counter()
    r = epsilon_threshold(hamming(4, 5), prior)
    dt = time.perf_counter() - t0
    print(f"  ε* = -ln(t*), t* = {r.exact} exactly: ε* = ln 2 ∈ [{float(r.eps_lower):.12f}, "
          f"{float(r.eps_upper):.12f}]  ({r.method}, {dt:.3f} s, verify = "
          f"{r.certificate.verify()}); the paper reports regularity from 0.48")


def cg_sweep(metric, step: float = 0.01, eps_max: float = 5.0) -> tuple[float | None, int]:
    """The paper's sweep with FFT+CG solves (dense solves at n = 10⁴ take minutes each)."""
    b = np.ones(metric.n)
    k = 1
    while k * step <= eps_max:
        x, _res = grid_cg_solve_float(metric, k * step, b, tol=1e-12)
        if x.min() >= 0:
            return k * step, k
        k += 1
    return None, k


def part4(width: int) -> None:
    print(f"\n== Part 4: {width}×{width} Euclidean grid (n = {width * width}) ==")
    g = grid(width, width, "euclidean")
    t0 = time.perf_counter()
    eps_sweep, steps = cg_sweep(g)
    t_sweep = time.perf_counter() - t0
    print(f"  paper's sweep (step 0.01, FFT+CG float solves): ε = {eps_sweep} after {steps} "
          f"solves, {t_sweep:.1f} s   [uncertified]")
    t0 = time.perf_counter()
    r = epsilon_threshold(g, method="certified")
    t_cert = time.perf_counter() - t0
    t0 = time.perf_counter()
    ok = r.certificate.verify()
    t_ver = time.perf_counter() - t0
    print(f"  exactdp certified: ε* ∈ [{float(r.eps_lower):.12f}, {float(r.eps_upper):.12f}] "
          f"(width {float(r.eps_upper - r.eps_lower):.1e}), {t_cert:.1f} s; verify() = {ok} "
          f"in {t_ver:.1f} s")
    print(f"  time ratio certified / paper sweep = {t_cert / t_sweep:.2f}")
    print(f"  method: {r.method}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="part 1 with a 20 s limit")
    ap.add_argument("--no-grid", action="store_true")
    ap.add_argument("--grid-width", type=int, default=100)
    args = ap.parse_args()
    part1(20.0 if args.quick else 60.0)
    part2()
    part3()
    if not args.no_grid:
        part4(args.grid_width)


if __name__ == "__main__":
    main()
