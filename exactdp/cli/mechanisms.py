"""CLI subcommands for mechanisms: ``privacy-level``, ``utility``, ``optimal``, ``bounds``.

Register with ``register(subparsers)``. Examples::

    exactdp privacy-level sum-query --u 150 --v 5 --mechanism geometric --t 1/32
    exactdp utility line --n 5 --mechanism tight-constraints --eps 4/5 --prior uniform
    exactdp bounds hamming --values 4 --individuals 2 --t 1/2 --prior product:3/10,27/100,23/100,1/5

Exit codes (:mod:`exactdp.cli.exitcodes`): ``optimal`` exits with its verdict (0 optimal,
1 not optimal); ``privacy-level --at-eps E`` (or ``--at-t``) decides privacy at that level and
exits with the verdict (0 private, 1 not private), with ``--slack S`` deciding ε + S instead
(``--slack`` without ``--at-eps``/``--at-t`` is an error, never ignored); ``privacy-level``
without it, ``utility``,
and ``bounds`` compute values and exit 0 on success.

``privacy-level --json`` prints the level's kernel document (kind ``privacy-level``;
``exactdp verify`` re-checks it in a fresh process) when the mechanism is exact; for a
certified (ball) mechanism, rows loaded ``as-is``, or a question beyond the kernel's work
limit no such document exists: stderr says why, and stdout carries the result's own JSON
(``"kernel_document": null``), exit 0. ``--at-eps ... --json`` prints the verdict's kernel
document (kind ``privacy-check``, its level ε + slack; ``exactdp verify`` re-checks it) and
exits with the verdict; ``--verdict-json`` prints the verdict's own JSON instead (verdict, ε,
slack, excess, ``verified``; the ``--json`` output before session 9), as does ``--json`` when
no kernel document exists (stderr says why, ``"kernel_document": null``). ``--json`` with
``--verdict-json`` is an error (exit 3); under either, errors print the JSON error object.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from exactdp.arithmetic.rationals import unlimited_int_digits
from exactdp.cli.certify import register as register_certify
from exactdp.cli.common import (
    accept_negative_numbers,
    add_level_arguments,
    add_metric_arguments,
    emit_json,
    level_kwargs,
    metric_from_args,
    prior_from_args,
)
from exactdp.cli.exitcodes import ExitCode, HandlerResult, checked_verdict
from exactdp.errors import (
    ExactnessRequired,
    InstanceTooLarge,
    InvalidArgument,
    InvalidMechanism,
    NotRegular,
)
from exactdp.kernel.jsonio import dumps
from exactdp.kinds import Verdict
from exactdp.mechanisms.bounds import LeakageBound, leakage_bound, uniform_leakage_bound
from exactdp.mechanisms.constructors import (
    count_queries_geometric,
    exponential_mechanism,
    randomized_response,
    sum_query_geometric,
    tight_constraints_mechanism,
    truncated_geometric,
)
from exactdp.mechanisms.files import load_mechanism
from exactdp.mechanisms.gain import min_entropy_leakage
from exactdp.mechanisms.mechanism import ROW_POLICIES, Mechanism
from exactdp.mechanisms.optimality import RemapCertificate, is_optimal
from exactdp.mechanisms.privacy import is_private, privacy_level
from exactdp.mechanisms.privacy_result import PrivacyLevelResult
from exactdp.spaces.metrics import FiniteMetric

__all__ = ["register"]

_MECHANISMS = ("tight-constraints", "geometric", "randomized-response", "exponential", "file")


def register(sub: Any) -> None:
    """Add this module's subcommands to an argparse subparsers object."""
    p = sub.add_parser("privacy-level", help="exact least ε for which a mechanism is private")
    _common(p)
    at = p.add_mutually_exclusive_group()
    at.add_argument("--at-eps", help="decide ε·d0-privacy at this level (exit 0 private, 1 not)")
    at.add_argument("--at-t", help="… or at t = e^-ε")
    p.add_argument("--slack", help="with --at-eps/--at-t: accept ε + SLACK (an exact "
                                   "rational ≥ 0, e.g. 1e-12); recorded in the output")
    p.add_argument("--verdict-json", action="store_true",
                   help="with --at-eps/--at-t: print the verdict's own JSON (verdict, ε, slack, "
                        "excess, verified) instead of its kernel document")
    p.set_defaults(func=_privacy_level)
    u = sub.add_parser("utility", help="utility and min-entropy leakage of a mechanism")
    _common(u)
    u.add_argument("--prior", default="uniform", help="'uniform', 'p1,p2,…' or 'product:…'")
    u.set_defaults(func=_utility)
    o = sub.add_parser("optimal", help="Thm. 4: is a mechanism optimal for every regular prior?")
    _common(o)
    o.add_argument("--at-eps", help="privacy level to decide at (default: the mechanism's --eps)")
    o.add_argument("--at-t", help="… or as t = e^-ε")
    o.set_defaults(func=_optimal)
    b = sub.add_parser("bounds", help="Thm. 2 / Prop. 5 / Cor. 2 bounds for a prior")
    add_metric_arguments(b)
    add_level_arguments(b)
    b.add_argument("--prior", default="uniform")
    b.add_argument("--json", action="store_true")
    b.set_defaults(func=_bounds)
    register_certify(sub)  # ``certify``: a deployed mechanism file as a CI gate
    for name in ("privacy-level", "utility", "optimal", "bounds", "certify"):
        accept_negative_numbers(sub.choices[name])  # "--slack -1/10" reaches its check


def _common(p: argparse.ArgumentParser) -> None:
    add_metric_arguments(p)
    p.add_argument("--mechanism", choices=_MECHANISMS, default=None,
                   help="built-in mechanism at the given level (default tight-constraints), "
                        "or 'file' (implied by --file)")
    p.add_argument("--file", help="the mechanism's matrix: .csv (floats or p/q), .npy, or "
                                  ".json (rows of 'p/q' strings)")
    p.add_argument("--rows", choices=ROW_POLICIES, default=None,
                   help="--file rows that do not sum to exactly 1: refuse (exact, default), "
                        "normalize exactly, or certify as loaded (as-is)")
    group = p.add_mutually_exclusive_group()
    group.add_argument("--eps", help="ε of the built-in mechanism: '4/5', 'ln(2)'")
    group.add_argument("--t", help="t = e^-ε (rational) of the built-in mechanism")
    p.add_argument("--json", action="store_true", help="exact JSON output")


def _mechanism(args: argparse.Namespace, metric: FiniteMetric) -> Mechanism:
    """The mechanism the options name; every option given is used or refused by name."""
    kind = args.mechanism
    if args.file is not None:
        if kind not in (None, "file"):
            raise InvalidArgument(
                f"--file gives the mechanism's matrix; --mechanism {kind} names a built-in "
                "one: use one or the other.")
        if args.eps is not None or args.t is not None:
            opt = "--eps" if args.eps is not None else "--t"
            raise InvalidArgument(
                f"{opt} sets the level of a built-in mechanism; a --file mechanism has its "
                "own entries. To decide privacy at a level use --at-eps (privacy-level) or "
                "exactdp certify --eps.")
        return load_mechanism(args.file, rows=args.rows,
                              inputs=metric.points).mechanism
    if kind == "file":
        raise InvalidArgument("--mechanism file needs --file H.csv (or .npy, .json)")
    if args.rows is not None:
        raise InvalidArgument("--rows applies to a --file mechanism only.")
    kind = kind or "tight-constraints"
    if args.eps is None and args.t is None:
        raise InvalidArgument(f"--mechanism {kind} needs --eps or --t")
    lv = level_kwargs(args)
    if kind == "tight-constraints":
        return tight_constraints_mechanism(metric, **lv)
    if kind == "exponential":
        return exponential_mechanism(metric, **lv)
    if kind == "randomized-response":
        return randomized_response(metric.n, **lv)
    name = args.metric
    if name == "line":
        return truncated_geometric(metric.n, **lv)
    if name == "sum-query":
        return sum_query_geometric(args.u, args.v, **lv)
    if name == "count-queries":
        return count_queries_geometric(args.u, k=args.k or 2, **lv)
    raise InvalidArgument(
        f"no geometric comparator for metric {name!r} (line, sum-query, count-queries)"
    )


def _privacy_level(args: argparse.Namespace) -> HandlerResult:
    if args.verdict_json:  # a JSON mode too: errors print the JSON error object on stdout
        if args.json:
            raise InvalidArgument("--json (the kernel document) and --verdict-json (the "
                                  "verdict's own JSON) print different things; give one.")
        args.json = True  # _privacy_at reads args.verdict_json first
    if args.slack is not None and args.at_eps is None and args.at_t is None:
        raise InvalidArgument("--slack is a margin on --at-eps (or --at-t); give one of them.")
    if args.verdict_json and args.at_eps is None and args.at_t is None:
        raise InvalidArgument("--verdict-json prints the verdict at --at-eps (or --at-t); give "
                              "one of them, or use --json for the level's kernel document.")
    metric = metric_from_args(args)
    H = _mechanism(args, metric)
    if args.at_eps is not None or args.at_t is not None:
        return _privacy_at(args, H, metric)
    r = privacy_level(H, metric)
    if args.json:
        return _level_json(r, H, metric)
    enc = r.enclosure
    what = r.value if r.value is not None or enc is None else f"in [{float(enc.lo)}, {float(enc.hi)}]"
    print(f"{H.name} on {metric.name}: least ε = {what}")
    if enc is not None:
        print(f"  enclosure ≈ {float(r)!r} (certified interval width {float(enc.width):.1e})")
    print(f"  witness (y, y', z) = {r.witness}, ratio = {r.ratio}, d0 = {r.distance}; "
          f"{r.pairs_checked} pairs checked ({r.method})")
    return ExitCode.OK


def _level_json(r: PrivacyLevelResult, H: Mechanism, metric: FiniteMetric) -> HandlerResult:
    """The kernel document of the level (``exactdp verify`` re-checks it), or — for a
    mechanism no portable question describes (certified entries, rows='as-is', beyond the
    kernel's work limit) — the result's own JSON, with the reason on stderr. Exit 0: the
    document was written (``exactdp verify`` re-checks it), or the fallback result passed
    its in-process ``verify()``; exit 4 (internal error, :mod:`exactdp.cli.exitcodes`) when
    that re-check fails."""
    try:
        doc = r.to_document()
    except (ExactnessRequired, InvalidMechanism, InstanceTooLarge) as exc:
        print(f"exactdp privacy-level --json: no kernel document for {H.name} ({exc}) "
              "Printed instead: the result's own JSON (value, enclosure, witness, method), "
              "which `exactdp verify` does not accept; verified in this process: "
              f"{(ok := r.verify())}.", file=sys.stderr)
        emit_json({"mechanism": H.name, "metric": metric.name, "kernel_document": None,
                   **r.to_json()})
        return ExitCode.OK if ok else ExitCode.INTERNAL_ERROR
    with unlimited_int_digits():
        print(dumps(doc))
    return ExitCode.OK


def _privacy_at(args: argparse.Namespace, H: Mechanism, metric: FiniteMetric) -> HandlerResult:
    """Decide privacy at --at-eps / --at-t: the verdict, re-checked (exit 0, 1; 4 if the check fails)."""
    lv = {"eps": args.at_eps} if args.at_eps is not None else {"t": args.at_t}
    c = is_private(H, metric, **lv, slack=args.slack)
    verdict = Verdict.from_bool(c.private)
    ok = c.verify()
    summary = {"mechanism": H.name, "metric": metric.name, **c.to_json(), "eps": str(c.eps),
               "verified": ok}
    if args.verdict_json:
        emit_json(summary)
        return checked_verdict(verdict, ok)
    if args.json:
        try:
            doc = c.to_document()
        except (ExactnessRequired, InvalidMechanism, InstanceTooLarge, InvalidArgument) as exc:
            print(f"exactdp privacy-level --at-eps --json: no kernel document for {H.name} "
                  f"({exc}) Printed instead: the verdict's own JSON (as --verdict-json), which "
                  "`exactdp verify` does not accept.", file=sys.stderr)
            emit_json({**summary, "kernel_document": None})
            return checked_verdict(verdict, ok)
        with unlimited_int_digits():
            print(dumps(doc))
        return checked_verdict(verdict, ok)
    at = c.at_text()
    if c.private:
        print(f"{H.name} is private at {at} on {metric.name} (its least ε is "
              f"{c.level.short()}); {c.excess_text()}.")
    else:
        print(f"{H.name} is NOT private at {at} on {metric.name}: violation "
              f"(y, y', z) = {c.violation}; {c.excess_text()}.")
    return checked_verdict(verdict, ok)


def _optimal(args: argparse.Namespace) -> HandlerResult:
    metric = metric_from_args(args)
    H = _mechanism(args, metric)
    if args.at_eps is not None or args.at_t is not None:
        lv = {"eps": args.at_eps} if args.at_eps is not None else {"t": args.at_t}
    elif args.eps is not None or args.t is not None:
        lv = level_kwargs(args)
    else:
        raise InvalidArgument("give the level to decide at: --at-eps or --at-t")
    r = is_optimal(H, metric, **lv)
    cert = r.certificate
    if args.json:
        emit_json({
            "mechanism": H.name, "optimal": r.optimal, "verdict": r.verdict.value,
            "private": r.private.private,
            "tight_constraints_exist": r.tight_constraints_exist,
            "certificate": None if cert is None else cert.kind.value,
            "remap": cert.remap if isinstance(cert, RemapCertificate) else None,
            "farkas": None if cert is None or isinstance(cert, RemapCertificate) else cert.w,
        })
        return Verdict.from_bool(r.optimal)
    if not r.private.private:
        print(f"{H.name} is not private at this level (witness {r.private.violation}).")
    elif r.optimal:
        print(f"{H.name}: optimal for every regular prior (exact remap found).")
    else:
        print(f"{H.name}: NOT optimal for every regular prior (Farkas certificate); "
              f"tight-constraints mechanism exists at this level: {r.tight_constraints_exist}")
    return Verdict.from_bool(r.optimal)


def _utility(args: argparse.Namespace) -> HandlerResult:
    metric = metric_from_args(args)
    H = _mechanism(args, metric)
    prior = prior_from_args(metric, args.prior)
    L = min_entropy_leakage(H, prior)
    U = L.utility
    if args.json:
        emit_json({
            "mechanism": H.name, "utility": U.value, "utility_enclosure": U.enclosure,
            "leakage_ratio": L.ratio, "leakage_bits": None if L.value is None else str(L.value),
            "leakage_enclosure": L.enclosure,
        })
        return ExitCode.OK
    print(f"{H.name}: utility (optimal remap) = {U.value if U.exact else U.enclosure}"
          f" ≈ {float(U):.10g}")
    print(f"  min-entropy leakage = {L.value if L.value is not None else L.enclosure}"
          f" ≈ {float(L):.10g} bits")
    return ExitCode.OK


def _bounds(args: argparse.Namespace) -> HandlerResult:
    metric = metric_from_args(args)
    lv = level_kwargs(args)
    prior = prior_from_args(metric, args.prior)
    lb = leakage_bound(metric, prior, **lv)
    ub = lb.utility
    cor2: LeakageBound | NotRegular
    try:
        cor2 = uniform_leakage_bound(metric, **lv)
    except NotRegular as exc:  # the uniform prior is not regular: Cor. 2 does not apply
        cor2 = exc
    if args.json:
        emit_json({
            "utility_bound": ub.value, "utility_bound_enclosure": ub.enclosure,
            "leakage_bound_ratio": lb.ratio, "leakage_bound_enclosure": lb.enclosure,
            "uniform_leakage_bound_enclosure": None if isinstance(cor2, NotRegular)
            else cor2.enclosure,
            "regularity_certificate": str(ub.regularity.certificate.kind),
        })
        return ExitCode.OK
    print(f"Thm. 2: utility ≤ Σα = {ub.value if ub.value is not None else ub.enclosure}"
          f" ≈ {float(ub):.10g}  (certificate: {ub.regularity.certificate.kind})")
    print(f"Prop. 5: leakage ≤ {lb.value if lb.value is not None else lb.enclosure}"
          f" ≈ {float(lb):.10g} bits")
    if isinstance(cor2, NotRegular):
        print(f"Cor. 2: not applicable ({cor2})")
    else:
        print(f"Cor. 2 (every prior): leakage ≤ {float(cor2):.10g} bits")
    return ExitCode.OK
