"""``exactdp threshold`` and ``exactdp epsilons``: certified thresholds and exact ε-sets.

Examples (shell)::

    exactdp threshold sum-query --u 30 --v 5
    exactdp threshold hamming --values 4 --individuals 5 --prior product:3/10,27/100,23/100,1/5
    exactdp threshold count-queries --u 30 --tol 1e-6 --json
    exactdp epsilons sum-query --u 3 --v 5

Progress of long runs goes to stderr (``--quiet`` silences it).
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from exactdp.cli.common import add_metric_arguments, emit_json, metric_from_args, prior_from_args
from exactdp.threshold.core import (
    DEFAULT_TOL,
    epsilon_threshold,
    regular_epsilons,
    tight_constraints_epsilons,
)

__all__ = ["register"]


def register(sub: Any) -> None:
    """Add the ``threshold`` and ``epsilons`` subcommands."""
    p = sub.add_parser("threshold", help="certified ε* above which the property holds for good")
    add_metric_arguments(p)
    p.add_argument("--prior", default=None,
                   help="omit for tight constraints; 'uniform', 'p1,p2,...' or "
                        "'product:p1,...' (hamming) for the regularity threshold")
    p.add_argument("--tol", default=str(DEFAULT_TOL),
                   help="width of the enclosure, a positive rational ('1/10^9' style: '1e-9')")
    p.add_argument("--method", default="auto", choices=("auto", "exact", "certified"))
    p.add_argument("--max-exact-n", type=int, default=160,
                   help="size limit of the exact algebraic route under --method auto")
    p.add_argument("--no-verify", action="store_true", help="skip re-checking the certificate")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_threshold)

    e = sub.add_parser("epsilons", help="exact set of ε where the property holds (polynomial case)")
    add_metric_arguments(e)
    e.add_argument("--prior", default=None)
    e.add_argument("--quiet", action="store_true")
    e.add_argument("--json", action="store_true")
    e.set_defaults(func=_epsilons)


def _progress(args: argparse.Namespace) -> Any:
    if args.quiet:
        return None
    start = time.perf_counter()

    def show(msg: str) -> None:
        print(f"[{time.perf_counter() - start:7.1f} s] {msg}", file=sys.stderr, flush=True)

    return show


def _tol(text: str) -> Any:
    # accept '1e-9' as the exact decimal 10^-9 (Fraction reads decimal strings exactly)
    return text


def _threshold(args: argparse.Namespace) -> int:
    metric = metric_from_args(args)
    prior = None if args.prior is None else prior_from_args(metric, args.prior)
    res = epsilon_threshold(metric, prior, _tol(args.tol), method=args.method,
                            max_exact_n=args.max_exact_n, progress=_progress(args))
    verified = None
    if not args.no_verify:
        t0 = time.perf_counter()
        verified = bool(res.certificate.verify())
        vt = time.perf_counter() - t0
    if args.json:
        payload = res.to_json()
        payload["n"] = metric.n
        payload["certificate"] = res.certificate.kind
        payload["certificate_verified"] = verified
        emit_json(payload)
        return 0 if verified is not False else 1
    print(str(res))
    if verified is not None:
        print(f"  certificate ({res.certificate.kind}) verify() = {verified} [{vt:.2f} s]")
    if res.eps_set is not None:
        print(f"  exact set: {res.eps_set}  (monotone: {res.eps_set.monotone})")
    return 0 if verified is not False else 1


def _epsilons(args: argparse.Namespace) -> int:
    metric = metric_from_args(args)
    prog = _progress(args)
    if args.prior is None:
        S = tight_constraints_epsilons(metric, progress=prog)
    else:
        S = regular_epsilons(metric, prior_from_args(metric, args.prior), progress=prog)
    if args.json:
        emit_json({"metric": metric.name, "n": metric.n, **S.to_json()})
        return 0
    print(f"{metric.name} (n = {metric.n}): {S}")
    print(f"  monotone: {S.monotone}; singular points: {len(S.singular_points)}; "
          f"{S.seconds:.2f} s")
    return 0
