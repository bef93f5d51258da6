"""CLI subcommands ``tight-constraints``, ``regular`` and ``example``.

``tight-constraints`` and ``regular`` exit with the verdict's code (0 holds, 1 fails; see
:mod:`exactdp.cli.exitcodes`); ``example`` exits 0 when every example ran.
"""

from __future__ import annotations

import argparse
import time
from fractions import Fraction
from typing import Any

from exactdp import metrics as M
from exactdp.cli.common import (
    add_level_arguments,
    add_metric_arguments,
    emit_json,
    level_kwargs,
    metric_from_args,
    prior_from_args,
)
from exactdp.cli.exitcodes import ExitCode, HandlerResult, checked_verdict
from exactdp.engine.core import CERTIFIED_METHODS
from exactdp.kinds import Verdict
from exactdp.progress import stderr_progress
from exactdp.regularity import RegularityResult, is_regular
from exactdp.threshold import epsilon_threshold
from exactdp.tight import TightConstraintsResult, tight_constraints

__all__ = ["register"]

_METHODS = CERTIFIED_METHODS  # the engine's one list (float estimates are not a CLI verdict)


def register(sub: Any) -> None:
    p = sub.add_parser("tight-constraints", help="does a tight-constraints mechanism exist?")
    add_metric_arguments(p)
    add_level_arguments(p)
    p.add_argument("--method", default="auto", choices=_METHODS)
    p.add_argument("--show-z", action="store_true", help="print z (exact when t is rational)")
    p.add_argument("--json", action="store_true")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.set_defaults(func=_tight)

    e = sub.add_parser("example", help="run the main job on built-in examples")
    e.add_argument("--verify", action="store_true",
                   help="also re-check every certificate (slower: arb re-checks at n ≈ 1000)")
    e.set_defaults(func=_example)

    r = sub.add_parser("regular", help="is a prior regular?")
    add_metric_arguments(r)
    add_level_arguments(r)
    r.add_argument("--prior", default="uniform",
                   help="'uniform', 'p1,p2,...', or 'product:p1,...' (hamming)")
    r.add_argument("--method", default="auto", choices=_METHODS)
    r.add_argument("--json", action="store_true")
    r.add_argument("--quiet", action="store_true", help="no progress on stderr")
    r.set_defaults(func=_regular)


def _example(args: argparse.Namespace) -> HandlerResult:
    """The main job on built-in examples: certified decisions with verified certificates."""
    print("exactdp example — every verdict below is certified; verify() re-checks it.\n")
    jobs: list[tuple[str, Any]] = [
        ("line(6), t = 1/2 (truncated geometric; exact z)",
         lambda: tight_constraints(M.line(6), t="1/2")),
        ("sum_query(150, 5), ε = 4/5  (the paper's reported minimum ε)",
         lambda: tight_constraints(M.sum_query(150, 5), eps="4/5")),
        ("sum_query(150, 5), ε = 1",
         lambda: tight_constraints(M.sum_query(150, 5), eps=1)),
        ("count_queries(30), ε = 9/10 (the paper's reported minimum ε)",
         lambda: tight_constraints(M.count_queries(30), eps="9/10")),
    ]
    ham = M.hamming(4, 5)
    prior = prior_from_args(ham, "product:3/10,27/100,23/100,1/5")
    for t in ("1/2", "51/100"):
        jobs.append((f"Example 3: hamming(4, 5), product prior, t = {t}",
                     lambda t=t: is_regular(ham, prior, t=t)))
    for label, job in jobs:
        t0 = time.perf_counter()
        res = job()
        dt = time.perf_counter() - t0
        verdict = (("EXISTS" if res.exists else "does not exist") if hasattr(res, "exists")
                   else ("REGULAR" if res.regular else "not regular"))
        t1 = time.perf_counter()
        ok = res.certificate.verify() if args.verify else None
        vt = time.perf_counter() - t1
        extra = f", verify() = {ok} ({vt:.1f} s)" if args.verify else ""
        print(f"{label}\n   → {verdict}  [{res.method}, {dt:.2f} s{extra}]")
        if label.startswith("line"):
            print("     z =", ", ".join(str(Fraction(v)) for v in res.z))
    t0 = time.perf_counter()
    thr = epsilon_threshold(M.sum_query(150, 5))
    dt = time.perf_counter() - t0
    print(f"threshold ε* of sum_query(150, 5) (the paper reports 0.8)\n   → ε* ∈ "
          f"[{float(thr.eps_lower):.12f}, {float(thr.eps_upper):.12f}]  [{thr.method}, {dt:.1f} s"
          + (f", verify() = {thr.certificate.verify()}" if args.verify else "") + "]")
    if thr.exact is not None:
        lo, hi = thr.exact.isolating_interval
        print(f"     exact: ε* = −ln s*, s* the root in ({lo}, {hi}) of an irreducible integer "
              f"polynomial of degree {thr.exact.degree} (thr.minimal_poly())")
    print("\nMore: exactdp threshold --help, exactdp tight-constraints --help, README.md")
    return ExitCode.OK


def _tight(args: argparse.Namespace) -> HandlerResult:
    metric = metric_from_args(args)
    t0 = time.perf_counter()
    res = tight_constraints(metric, **level_kwargs(args), method=args.method,
                            progress=None if args.quiet else stderr_progress())
    assert isinstance(res, TightConstraintsResult)
    elapsed = time.perf_counter() - t0
    verified = res.certificate.verify()
    verdict = Verdict.from_bool(res.exists)
    if args.json:
        payload: dict[str, Any] = {
            "metric": metric.name, "n": metric.n, **res.level.to_json(),
            "exists": res.exists, "verdict": verdict, "method": res.method, "certificate": res.certificate.kind,
            "certificate_verified": verified, "seconds": round(elapsed, 4),
        }
        if args.show_z:
            payload["z"] = list(res.z)
        emit_json(payload)
        return checked_verdict(verdict, verified)
    said = "EXISTS" if res.exists else "does NOT exist"
    print(f"{metric.name} (n = {metric.n}) at {res.level}:")
    print(f"  tight-constraints mechanism {said}  [certified: {res.method}, "
          f"certificate {res.certificate.kind}, verify() = {verified}, {elapsed:.3f} s]")
    if args.show_z:
        print("  z =", ", ".join(str(v) for v in res.z))
    return checked_verdict(verdict, verified)


def _regular(args: argparse.Namespace) -> HandlerResult:
    metric = metric_from_args(args)
    prior = prior_from_args(metric, args.prior)
    t0 = time.perf_counter()
    res = is_regular(metric, prior, **level_kwargs(args), method=args.method,
                     progress=None if args.quiet else stderr_progress())
    assert isinstance(res, RegularityResult)
    elapsed = time.perf_counter() - t0
    verified = res.certificate.verify()
    verdict = Verdict.from_bool(res.regular)
    if args.json:
        emit_json({
            "metric": metric.name, "n": metric.n, **res.level.to_json(), "prior": args.prior,
            "regular": res.regular, "verdict": verdict, "method": res.method, "certificate": res.certificate.kind,
            "certificate_verified": verified, "seconds": round(elapsed, 4),
        })
        return checked_verdict(verdict, verified)
    print(f"{metric.name} (n = {metric.n}) at {res.level}, prior {args.prior}:")
    print(f"  {'REGULAR' if res.regular else 'NOT regular'}  [certified: {res.method}, "
          f"certificate {res.certificate.kind}, verify() = {verified}, {elapsed:.3f} s]")
    return checked_verdict(verdict, verified)
