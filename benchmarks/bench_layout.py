"""Before/after timing of the headline workload of every benchmark, for a refactor.

Run:  python benchmarks/bench_layout.py BEFORE_TREE [AFTER_TREE] [--repeats 3]

Each workload below is the central computation of one file in ``benchmarks/`` written with
the public API only (identical before and after the layout move), so the same code runs on
both trees. Every repeat runs the two trees alternately (before, after, before, …), each in a
fresh subprocess with ``PYTHONPATH`` set to that tree, so machine noise hits both alike
(the workload's imports run first and are not timed). It
prints, per workload, the range of times of each tree, the range of after/before ratios
(pairwise, same repeat) and the peak RSS of each subprocess.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

WORKLOADS = {
    "core_decision": """
from fractions import Fraction
from exactdp import metrics, tight_constraints
for m in (metrics.sum_query(150, 5), metrics.count_queries(30)):
    assert tight_constraints(m, eps=Fraction(6, 5)).exists
""",
    "privacy_level": """
from exactdp import metrics, privacy_level
from exactdp.mechanisms import sum_query_geometric, tight_constraints_mechanism
m = metrics.sum_query(150, 5)
privacy_level(sum_query_geometric(150, 5, t="1/32"), m)
privacy_level(tight_constraints_mechanism(m, t="1/3"), m)
""",
    "pufferfish": """
from fractions import Fraction
from exactdp.pufferfish import DistributionVsAbsent, bernoulli, binomial, exact_scale, conservative_scale
for k in range(2, 12):
    for p in (Fraction(1, 10), Fraction(1, 3), Fraction(1, 2)):
        exact_scale(DistributionVsAbsent(bernoulli(p)), Fraction(k, 4))
    conservative_scale(DistributionVsAbsent(binomial(40, Fraction(1, k))), 1)
    exact_scale(DistributionVsAbsent(binomial(40, Fraction(1, k))), 1)
""",
    "sets": """
from fractions import Fraction
import numpy as np
from exactdp.sets import Box, capacity_functional
rng = np.random.default_rng(83)
for m, dim in [(8, 1), (16, 2), (8, 3)] * 8:
    X = [tuple(Fraction(int(c), 4) for c in rng.integers(-8, 9, dim)) for _ in range(m)]
    K = [Box((0,) * dim, (Fraction(3, 4),) * dim), Box((1,) * dim, (Fraction(5, 2),) * dim)]
    capacity_functional(X, K, 1, method="sweep")
""",
    "threshold": """
from exactdp import epsilon_threshold, metrics
epsilon_threshold(metrics.sum_query(150, 5))
epsilon_threshold(metrics.count_queries(30))
epsilon_threshold(metrics.sum_query(40, 5), method="exact")
""",
    "verified_solve": """
from fractions import Fraction
from exactdp import metrics, tight_constraints
m = metrics.count_queries(30)
for e in (Fraction(6, 5), Fraction(3, 2), Fraction(2)):
    tight_constraints(m, eps=e, method="verified-float").exists
""",
    # issue 11: the engine certificates' verify() moved into exactdp/kernel (solves + 3 re-checks)
    "engine_verify": """
from fractions import Fraction
from exactdp import metrics, tight_constraints, is_regular
rs = [tight_constraints(metrics.sum_query(40, 3), eps=Fraction(4, 5)),
      tight_constraints(metrics.count_queries(8), eps=Fraction(6, 5), method="ball"),
      is_regular(metrics.line(30), [1] + [0] * 29, t="1/2"),
      tight_constraints(metrics.grid(6, 6, "manhattan"), eps=Fraction(1, 2)),
      tight_constraints(metrics.line(12), eps=Fraction(1, 2), method="symbolic")]
for _ in range(3):
    assert all(r.certificate.verify() for r in rs)
""",
}

RUNNER = r"""
import json, resource, sys, time
code = sys.stdin.read()
lines = code.splitlines()
imports = "\n".join(x for x in lines if x.startswith(("from ", "import ")))
body = "\n".join(x for x in lines if not x.startswith(("from ", "import ")))
g = {}
exec(compile(imports, "<imports>", "exec"), g)  # imports are not timed
t0 = time.perf_counter()
exec(compile(body, "<workload>", "exec"), g)
dt = time.perf_counter() - t0
print(json.dumps({"time": dt, "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def run(tree: Path, code: str) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=str(tree))
    out = subprocess.run([sys.executable, "-c", RUNNER], input=code, capture_output=True, text=True,
                         env=env, cwd=tree, check=False)
    if out.returncode:
        raise RuntimeError(f"workload failed in {tree}:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("before", type=Path)
    ap.add_argument("after", type=Path, nargs="?", default=Path(__file__).resolve().parents[1])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--only", nargs="*", default=None)
    args = ap.parse_args()
    names = args.only or list(WORKLOADS)
    print(f"before = {args.before}\nafter  = {args.after}\nrepeats = {args.repeats} (alternating)\n")
    print(f"{'workload':15s} {'before s':>15s} {'after s':>15s} {'after/before':>15s} {'RSS MB b/a':>13s}")
    worst = 0.0
    for name in names:
        tb, ta, ratios, rb, ra = [], [], [], 0.0, 0.0
        for _ in range(args.repeats):
            b = run(args.before, WORKLOADS[name])
            a = run(args.after, WORKLOADS[name])
            tb.append(b["time"])
            ta.append(a["time"])
            ratios.append(a["time"] / b["time"])
            rb, ra = max(rb, b["rss_mb"]), max(ra, a["rss_mb"])
        worst = max(worst, sorted(ratios)[len(ratios) // 2])
        print(f"{name:15s} {min(tb):6.2f}–{max(tb):6.2f}  {min(ta):6.2f}–{max(ta):6.2f}  "
              f"{min(ratios):6.2f}–{max(ratios):6.2f}  {rb:6.0f}/{ra:6.0f}", flush=True)
    print(f"\nlargest median ratio: {worst:.2f}")


if __name__ == "__main__":
    main()
