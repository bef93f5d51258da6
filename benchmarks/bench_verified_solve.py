"""Benchmark: certified float solve (verified_solve) against its baselines, side by side.

Systems Phi z = 1 (the regularity question of the library's engine):

* sum-query metric, Phi[i, j] = t^ceil(|i - j| / 5), n = 751 (u = 150, v = 5);
* 2-count metric, Phi = t^(Chebyshev distance) on {0..30}^2, n = 961;

at the rational t = 2/5 and at the irrational t = exp(-1) (matrix entries are arb balls,
passed to verified_solve through float_enclosure). Baselines: numpy.linalg.solve (float,
uncertified), flint arb_mat.solve at 64 bits (certified), fmpq_mat.solve (exact; n = 751
at rational t only, it takes seconds). Times are wall-clock seconds (best of a few runs
for the fast methods); ratios are relative to numpy.linalg.solve.

Run: python benchmarks/bench_verified_solve.py [--quick]
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable
from typing import Any

import flint
import numpy as np

from exactdp.linalg import check_enclosure_arb, float_enclosure, verified_solve


def sum_query_distances(u: int, v: int) -> np.ndarray:
    n = u * v + 1
    idx = np.arange(n)
    return np.ceil(np.abs(idx[:, None] - idx[None, :]) / v).astype(np.int64)


def chebyshev_grid_distances(side: int) -> np.ndarray:
    pts = np.array([(i, j) for i in range(side) for j in range(side)])
    d = np.abs(pts[:, None, :] - pts[None, :, :]).max(axis=2)
    return d.astype(np.int64)


def timed(fn: Callable[[], Any], repeat: int = 1) -> tuple[Any, float]:
    best = math.inf
    out = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return out, best


def describe_signs(lo: np.ndarray, hi: np.ndarray) -> str:
    pos = int(np.sum(lo > 0))
    neg = int(np.sum(hi < 0))
    und = len(lo) - pos - neg
    return f"+{pos} -{neg} ?{und}"


def describe_arb(x: flint.arb_mat) -> str:
    ent = [x[i, 0] for i in range(x.nrows())]
    pos = sum(1 for e in ent if e > 0)
    neg = sum(1 for e in ent if e < 0)
    return f"+{pos} -{neg} ?{len(ent) - pos - neg}"


def run_case(name: str, dist: np.ndarray, t_kind: str, *, exact: bool, arb_solve: bool) -> None:
    n = dist.shape[0]
    kmax = int(dist.max())
    with flint.ctx.workprec(128):
        if t_kind == "2/5":
            t_q = flint.fmpq(2, 5)
            t_ball = flint.arb(t_q)
        else:  # exp(-1), irrational
            t_q = None
            t_ball = flint.arb(-1).exp()
        powers = [t_ball**k for k in range(kmax + 1)]
    # float enclosure of the distinct entries, then the matrix by indexing (exact copy)
    (p_mid, p_rad), t_enc = timed(lambda: float_enclosure(powers))
    A_mid = p_mid[dist]
    A_rad = p_rad[dist]
    b = np.ones(n)

    rows: list[tuple[str, str, float, str]] = []
    x_np, t_np = timed(lambda: np.linalg.solve(A_mid, b), repeat=3)
    rows.append(("numpy.linalg.solve", "float (uncertified)", t_np, describe_signs(x_np, x_np)))

    def certified() -> Any:
        return verified_solve(A_mid, A_rad, b, 0.0)

    enc, t_vs = timed(certified, repeat=3)
    if enc is None:
        rows.append(("verified_solve", "certified", t_vs, "NOT VERIFIED"))
    else:
        width = float(np.max((enc.hi - enc.lo) / np.maximum(np.abs(enc.x_approx), 1e-300)))
        rows.append(
            (
                "verified_solve",
                f"certified (beta={enc.beta:.2e}, max rel width {width:.1e})",
                t_vs,
                describe_signs(enc.lo, enc.hi),
            )
        )

    plain, t_plain = timed(lambda: verified_solve(A_mid, A_rad, b, 0.0, accurate=False), repeat=3)
    if plain is None:
        rows.append(("verified_solve(accurate=False)", "certified", t_plain, "NOT VERIFIED"))
    else:
        width = float(np.max((plain.hi - plain.lo) / np.maximum(np.abs(plain.x_approx), 1e-300)))
        rows.append(
            (
                "verified_solve(accurate=False)",
                f"certified, plain residual (max rel width {width:.1e})",
                t_plain,
                describe_signs(plain.lo, plain.hi),
            )
        )

    if arb_solve:
        with flint.ctx.workprec(64):
            entries = [powers[int(k)] for k in dist.ravel()]
            A_arb = flint.arb_mat(n, n, entries)
            b_arb = flint.arb_mat(n, 1, [1] * n)
            x_arb, t_arb = timed(lambda: A_arb.solve(b_arb))
        rows.append(("flint arb_mat.solve (64 bits)", "certified", t_arb, describe_arb(x_arb)))
    if exact and t_q is not None:
        pw = [t_q**k for k in range(kmax + 1)]
        A_q = flint.fmpq_mat(n, n, [pw[int(k)] for k in dist.ravel()])
        b_q = flint.fmpq_mat(n, 1, [1] * n)
        x_q, t_q_solve = timed(lambda: A_q.solve(b_q))
        ent = [x_q[i, 0] for i in range(n)]
        exact_desc = f"+{sum(1 for e in ent if e > 0)} -{sum(1 for e in ent if e < 0)} ?0"
        rows.append(("flint fmpq_mat.solve", "exact", t_q_solve, exact_desc))
        if enc is not None:
            inside = all(
                flint.fmpq(*float(lo).as_integer_ratio()) <= e <= flint.fmpq(*float(hi).as_integer_ratio())
                for e, lo, hi in zip(ent, enc.lo, enc.hi)
            )
            print(f"   exact solution inside the verified box: {inside}")

    print(f"\n== {name}, n = {n}, t = {t_kind} (float_enclosure of {kmax + 1} powers: {t_enc:.3f} s)")
    header = f"   {'method':32s} {'kind':58s} {'time [s]':>9s} {'ratio':>8s}"
    print(header + "  signs (+pos -neg ?undecided)")
    for meth, kind, secs, signs in rows:
        print(f"   {meth:32s} {kind:58s} {secs:9.4f} {secs / t_np:8.1f}  {signs}")

    if enc is not None and n <= 400:
        with flint.ctx.workprec(64):
            entries = [powers[int(k)] for k in dist.ravel()]
            A_arb = flint.arb_mat(n, n, entries)
            b_arb = flint.arb_mat(n, 1, [1] * n)
            ok, t_chk = timed(lambda: check_enclosure_arb(A_arb, b_arb, np.linalg.inv(A_mid), enc, 64))
        print(f"   check_enclosure_arb (64 bits): {ok}  ({t_chk:.2f} s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="skip the slow arb/fmpq baselines")
    parser.add_argument(
        "--large", action="store_true", help="also time n = 2001 and 4001 sum-query systems (float/verified only)"
    )
    args = parser.parse_args()
    slow = not args.quick
    print(f"python-flint {flint.__version__}, numpy {np.__version__}")
    cases = [
        ("sum-query (u=150, v=5)", sum_query_distances(150, 5), True),
        ("2-count (Chebyshev on {0..30}^2)", chebyshev_grid_distances(31), False),
    ]
    for t_kind in ("2/5", "exp(-1)"):
        for name, dist, exact in cases:
            run_case(name, dist, t_kind, exact=exact and slow, arb_solve=slow)
    if args.large:
        for u in (400, 800):
            run_case(f"sum-query (u={u}, v=5)", sum_query_distances(u, 5), "2/5", exact=False, arb_solve=False)


if __name__ == "__main__":
    main()
