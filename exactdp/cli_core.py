"""CLI subcommands ``tight-constraints`` and ``regular``."""

from __future__ import annotations

import argparse
import time
from typing import Any

from exactdp.cli_common import (
    add_level_arguments,
    add_metric_arguments,
    emit_json,
    level_kwargs,
    metric_from_args,
    prior_from_args,
)
from exactdp.regularity import RegularityResult, is_regular
from exactdp.tight import TightConstraintsResult, tight_constraints

__all__ = ["register"]

_METHODS = ("auto", "exact", "ball", "verified-float")


def register(sub: Any) -> None:
    p = sub.add_parser("tight-constraints", help="does a tight-constraints mechanism exist?")
    add_metric_arguments(p)
    add_level_arguments(p)
    p.add_argument("--method", default="auto", choices=_METHODS)
    p.add_argument("--show-z", action="store_true", help="print z (exact when t is rational)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_tight)

    r = sub.add_parser("regular", help="is a prior regular?")
    add_metric_arguments(r)
    add_level_arguments(r)
    r.add_argument("--prior", default="uniform",
                   help="'uniform', 'p1,p2,...', or 'product:p1,...' (hamming)")
    r.add_argument("--method", default="auto", choices=_METHODS)
    r.add_argument("--json", action="store_true")
    r.set_defaults(func=_regular)


def _tight(args: argparse.Namespace) -> int:
    metric = metric_from_args(args)
    t0 = time.perf_counter()
    res = tight_constraints(metric, **level_kwargs(args), method=args.method)
    assert isinstance(res, TightConstraintsResult)
    elapsed = time.perf_counter() - t0
    verified = res.certificate.verify()
    if args.json:
        payload: dict[str, Any] = {
            "metric": metric.name, "n": metric.n, **res.level.to_json(),
            "exists": res.exists, "method": res.method, "certificate": res.certificate.kind,
            "certificate_verified": verified, "seconds": round(elapsed, 4),
        }
        if args.show_z:
            payload["z"] = list(res.z)
        emit_json(payload)
        return 0
    verdict = "EXISTS" if res.exists else "does NOT exist"
    print(f"{metric.name} (n = {metric.n}) at {res.level}:")
    print(f"  tight-constraints mechanism {verdict}  [certified: {res.method}, "
          f"certificate {res.certificate.kind}, verify() = {verified}, {elapsed:.3f} s]")
    if args.show_z:
        print("  z =", ", ".join(str(v) for v in res.z))
    return 0


def _regular(args: argparse.Namespace) -> int:
    metric = metric_from_args(args)
    prior = prior_from_args(metric, args.prior)
    t0 = time.perf_counter()
    res = is_regular(metric, prior, **level_kwargs(args), method=args.method)
    assert isinstance(res, RegularityResult)
    elapsed = time.perf_counter() - t0
    verified = res.certificate.verify()
    if args.json:
        emit_json({
            "metric": metric.name, "n": metric.n, **res.level.to_json(), "prior": args.prior,
            "regular": res.regular, "method": res.method, "certificate": res.certificate.kind,
            "certificate_verified": verified, "seconds": round(elapsed, 4),
        })
        return 0
    print(f"{metric.name} (n = {metric.n}) at {res.level}, prior {args.prior}:")
    print(f"  {'REGULAR' if res.regular else 'NOT regular'}  [certified: {res.method}, "
          f"certificate {res.certificate.kind}, verify() = {verified}, {elapsed:.3f} s]")
    return 0
