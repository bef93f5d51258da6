"""``exactdp threshold`` and ``exactdp epsilons``: certified thresholds and exact ε-sets.

Examples (shell)::

    exactdp threshold sum-query --u 30 --v 5
    exactdp threshold hamming --values 4 --individuals 5 --prior product:3/10,27/100,23/100,1/5
    exactdp threshold count-queries --u 30 --tol 1e-6 --json
    exactdp epsilons sum-query --u 3 --v 5
    exactdp threshold sum-query --u 2 --v 2 --sympy      # log(1/2 + sqrt(5)/2)
    exactdp epsilons count-queries --u 2 --latex

``--sympy`` / ``--latex`` print only the exact closed form (ε* = q·ln(1/s*), or the ε-set as
a union of intervals) on stdout, as a sympy expression or LaTeX; with ``--json`` they add
``"sympy"`` / ``"latex"`` fields. A threshold certified without an exact value has no closed
form: exit 3 (bad input) with a message naming ``--method exact``.

Progress of long runs goes to stderr (``--quiet`` silences it), never to stdout. Exit codes
(:mod:`exactdp.cli.exitcodes`): ``threshold`` 0 when the enclosure of ε* is certified (and its
certificate re-checks), 2 when it cannot be decided within the limits, 4 when the
certificate fails its own re-check; ``epsilons`` 0.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import sympy

from exactdp.cli.common import add_metric_arguments, emit_json, metric_from_args, prior_from_args
from exactdp.cli.exitcodes import ExitCode, HandlerResult, checked_verdict
from exactdp.errors import ExactnessRequired
from exactdp.progress import Progress, stderr_progress
from exactdp.threshold import (
    DEFAULT_TOL,
    THRESHOLD_METHODS,
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
    p.add_argument("--method", default="auto", choices=THRESHOLD_METHODS)
    p.add_argument("--max-exact-n", type=int, default=160,
                   help="size limit of the exact algebraic route under --method auto")
    p.add_argument("--no-verify", action="store_true", help="skip re-checking the certificate")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.add_argument("--json", action="store_true")
    _closed_form_flags(p)
    p.set_defaults(func=_threshold)

    e = sub.add_parser("epsilons", help="exact set of ε where the property holds (polynomial case)")
    add_metric_arguments(e)
    e.add_argument("--prior", default=None)
    e.add_argument("--quiet", action="store_true", help="no progress on stderr")
    e.add_argument("--json", action="store_true")
    _closed_form_flags(e)
    e.set_defaults(func=_epsilons)


def _closed_form_flags(p: argparse.ArgumentParser) -> None:
    g = p.add_mutually_exclusive_group()
    g.add_argument("--sympy", action="store_true", help="print the exact closed form (sympy)")
    g.add_argument("--latex", action="store_true", help="print the exact closed form (LaTeX)")


def _closed_form(args: argparse.Namespace, expr: Any, latex: str) -> dict[str, str]:
    """The closed-form fields asked for (--sympy / --latex)."""
    if args.sympy:
        return {"sympy": sympy.sstr(expr)}
    if args.latex:
        return {"latex": latex}
    return {}


def _progress(args: argparse.Namespace) -> Progress:
    """Progress lines on stderr (never stdout), silenced by ``--quiet``."""
    return None if args.quiet else stderr_progress()


def _threshold(args: argparse.Namespace) -> HandlerResult:
    metric = metric_from_args(args)
    prior = None if args.prior is None else prior_from_args(metric, args.prior)
    # the tolerance string is read exactly ('1e-9' is the decimal 10^-9) by epsilon_threshold
    res = epsilon_threshold(metric, prior, args.tol, method=args.method,
                            max_exact_n=args.max_exact_n, progress=_progress(args))
    closed = {}
    if args.sympy or args.latex:
        if res.exact is None and not res.holds_everywhere:
            raise ExactnessRequired(
                f"{res.metric_name}: the threshold was certified by the {res.method!r} route "
                "and has no exact value, so --sympy/--latex cannot print it; rerun with "
                "--method exact (polynomial-case metrics) or drop --sympy/--latex.")
        closed = _closed_form(args, res.as_sympy(), res.latex())
    verified = None
    if not args.no_verify:
        t0 = time.perf_counter()
        verified = res.verify()
        vt = time.perf_counter() - t0
    if args.json:
        payload = res.summary()
        payload["n"] = metric.n
        payload["certificate"] = str(res.certificate.kind)
        payload["certificate_verified"] = verified
        payload["verdict"] = res.verdict.value
        payload.update(closed)
        emit_json(payload)
        return checked_verdict(res.verdict, verified)
    if closed:
        print(next(iter(closed.values())))
        return checked_verdict(res.verdict, verified)
    print(str(res))
    if verified is not None:
        print(f"  certificate ({res.certificate.kind}) verify() = {verified} [{vt:.2f} s]")
    if res.eps_set is not None:
        print(f"  exact set: {res.eps_set}  (monotone: {res.eps_set.monotone})")
    return checked_verdict(res.verdict, verified)


def _epsilons(args: argparse.Namespace) -> HandlerResult:
    metric = metric_from_args(args)
    prog = _progress(args)
    if args.prior is None:
        S = tight_constraints_epsilons(metric, progress=prog)
    else:
        S = regular_epsilons(metric, prior_from_args(metric, args.prior), progress=prog)
    closed = _closed_form(args, S.as_sympy(), S.latex()) if (args.sympy or args.latex) else {}
    if args.json:
        emit_json({"metric": metric.name, "n": metric.n, **S.to_json(), **closed})
        return ExitCode.OK
    if closed:
        print(next(iter(closed.values())))
        return ExitCode.OK
    print(f"{metric.name} (n = {metric.n}): {S}")
    print(f"  monotone: {S.monotone}; singular points: {len(S.singular_points)}; "
          f"{S.seconds:.2f} s")
    return ExitCode.OK
