"""Benchmark: class size n against time for whole-class laws and the class-vs-absent scale.

For Binomial(n, p) classes (p = the Adult 'Black' class's share, 267/2114) and growing n:

1. ``fraction law``  - the exact law by ``Fraction`` convolution (``binomial``), small n only;
2. ``flint law``     - the exact law as one ``fmpz_poly`` power (``class_law``);
3. ``support check`` - the certified loss over all n + 1 support points of the flint law at
   one θ (running sums of balls, ``class_law_loss``);
4. ``root finding``  - ``exact_scale`` on the Fraction law (certified bisection), small n only;
5. ``closed form``   - ``class_vs_absent_scale`` (θ* = 1/ln(1 + (e^{ε/n} − 1)/p), certified
   bracket and ``verify()``), every n up to the largest Adult class (38903).

Run: python benchmarks/bench_pufferfish_class_size.py [--max-law 9899] [--max-fraction 400]
"""

from __future__ import annotations

import argparse
import sys
import time
from fractions import Fraction

sys.path.insert(0, ".")

from exactdp.pufferfish import DistributionVsAbsent, binomial, exact_scale  # noqa: E402
from exactdp.pufferfish.class_laws import (  # noqa: E402
    class_law,
    class_law_loss,
    class_vs_absent_scale,
)

P = Fraction(267, 2114)
SIZES = (72, 222, 435, 1303, 4228, 9899, 14695, 30527, 38903)


def _t(fn):  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-law", type=int, default=9899, help="largest n for the flint law")
    parser.add_argument("--max-fraction", type=int, default=435,
                        help="largest n for Fraction laws and root finding")
    args = parser.parse_args(argv)
    print("| n | fraction law | root finding | flint law | support check (n+1 points) "
          "| closed form + verify | θ* (ε = 1) |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for n in SIZES:
        cells = []
        if n <= args.max_fraction:
            law_f, t_f = _t(lambda n=n: binomial(n, P))
            ex, t_r = _t(lambda law_f=law_f: exact_scale(DistributionVsAbsent(law_f), 1))
            cells += [f"{t_f:.2f} s", f"{t_r:.2f} s"]
        else:
            ex = None
            cells += ["—", "—"]
        closed, t_c = _t(lambda n=n: class_vs_absent_scale((n, P), 1))
        ok, t_v = _t(closed.verify)
        if n <= args.max_law:
            law, t_l = _t(lambda n=n: class_law((n, P)))
            (lo_loss, hi_loss), t_s = _t(lambda law=law, c=closed: (class_law_loss(law, c.lo),
                                                                    class_law_loss(law, c.hi)))
            agree = lo_loss > 1 and hi_loss < 1
            cells += [f"{t_l:.2f} s", f"{t_s:.2f} s ({'agrees' if agree else 'DISAGREES'})"]
        else:
            cells += ["—", "—"]
        if ex is not None and not (ex.lo < closed.hi and closed.lo < ex.hi):
            cells[1] += " (DISAGREES)"
        cells.append(f"{t_c + t_v:.3f} s ({'verified' if ok else 'NOT verified'})")
        print(f"| {n} | " + " | ".join(cells) + f" | {closed.float():.10g} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
