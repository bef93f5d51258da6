"""One-ε existence and regularity on k×k Euclidean grids, matrix-free (issue 15).

Usage: ``python benchmarks/bench_grid_point.py K {tight|regular} EPS [--json PATH]``;
prints the verdict, the route, the bits of y, wall and CPU time of solve and of verify(),
and the process's peak RSS (CPU seconds are the fair figure on a shared machine). Small ε
(e.g. ``150 tight 1/1000``) exercises the T. Chan preconditioner of the float solve. The
regular case uses a density-like prior (a city centre: a Gaussian bump on a flat floor,
integer weights normalised exactly).
"""

import resource
import sys
import time
from fractions import Fraction

import numpy as np

from exactdp.kernel.jsonio import dumps
from exactdp.regularity import is_regular
from exactdp.spaces.metrics import grid
from exactdp.tight import tight_constraints


def density_prior(k: int) -> tuple[Fraction, ...]:
    """Integer weights 1 + round(1000·exp(−|p − c|²/(2σ²))), σ = k/6, normalised exactly."""
    xs, ys = np.meshgrid(np.arange(k), np.arange(k))  # row-major: index y·k + x
    c, sig = (k - 1) / 2, k / 6
    w = 1 + np.rint(1000 * np.exp(-((xs - c) ** 2 + (ys - c) ** 2) / (2 * sig**2))).astype(int)
    total = int(w.sum())
    return tuple(Fraction(int(v), total) for v in w.ravel())


def main() -> None:
    k, what, eps = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    m = grid(k, k)
    t0, c0 = time.perf_counter(), time.process_time()
    if what == "tight":
        r = tight_constraints(m, eps=eps)
        verdict = r.exists
    else:
        r = is_regular(m, density_prior(k), eps=eps)
        verdict = r.regular
    t1, c1 = time.perf_counter(), time.process_time()
    ok = r.verify()
    t2, c2 = time.perf_counter(), time.process_time()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{k}x{k} {what} eps={eps}: verdict={verdict} method={r.method} "
          f"bits={r.engine.precision} solve={t1 - t0:.1f}s ({c1 - c0:.1f}s CPU) verify={ok} "
          f"({t2 - t1:.1f}s, {c2 - c1:.1f}s CPU) "
          f"peak RSS={rss:.0f} MB")
    if "--json" in sys.argv:
        text = dumps(r.certificate.to_json())
        with open(sys.argv[sys.argv.index("--json") + 1], "w") as fh:
            fh.write(text)
        print(f"JSON: {len(text) / 1e6:.2f} MB")


if __name__ == "__main__":
    main()
