"""Benchmark: class size against time for a whole class replaced by another (class_pairs).

Class A ~ Binomial(n, 267/2114) (the Adult 'Black' share) replaced by class B ~
Binomial(n, 10207/38903) (the 'White' share), for growing n up to the largest Adult class:
certified θ* bracket (float search + two ball verdicts over all n + 1 totals), its
``verify()`` (both verdicts again), and the certified W∞ (CDF domination, bisection).

Run: nice -n 10 python benchmarks/bench_pufferfish_class_pairs.py [--max-n 38903]
"""

from __future__ import annotations

import argparse
import sys
import time
from fractions import Fraction

sys.path.insert(0, ".")

from exactdp.pufferfish.class_pairs import class_pair_scale, class_pair_winf  # noqa: E402

PA, PB = Fraction(267, 2114), Fraction(10207, 38903)
SIZES = (72, 435, 1303, 4228, 9899, 14695, 30527, 38903)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-n", type=int, default=38903)
    args = parser.parse_args(argv)
    print("| n | θ* bracket | verify | W∞ | θ* (ε = 1) | W∞/ε |")
    print("| --- | --- | --- | --- | --- | --- |")
    for n in SIZES:
        if n > args.max_n:
            break
        t0 = time.perf_counter()
        r = class_pair_scale((n, PA), (n, PB), 1)
        t1 = time.perf_counter()
        ok = r.verify()
        t2 = time.perf_counter()
        w = class_pair_winf((n, PA), (n, PB))
        t3 = time.perf_counter()
        print(f"| {n} | {t1 - t0:.2f} s | {t2 - t1:.2f} s ({'ok' if ok else 'FAILED'}) | "
              f"{t3 - t2:.2f} s | {r.float():.10g} | {w} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
