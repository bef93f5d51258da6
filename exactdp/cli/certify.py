"""CLI subcommand ``certify``: the mechanism you deploy, on your metric, as a CI gate.

::

    exactdp certify --mechanism H.csv --metric line --n 20 --eps 1 --slack 1e-12
    exactdp certify --mechanism H.npy --metric D.csv --eps 4/5 --json

Exit codes (:mod:`exactdp.cli.exitcodes`): with ``--eps``, 0 when the loaded matrix is
certified (ε + slack)·d-private, 1 when it is certified not to be (the witness (y, y', z)
and the exact excess level − ε are printed), 2 when the comparison was not decided within
the precision limits, 3 for bad input (the message names the file, row and column).
Without ``--eps`` it prints the exact least ε and exits 0. ``--json`` writes one document in
the certificate schema (``docs/readme/certificate_schema.md``), result tag ``privacy-check``
or ``privacy-level``.
"""

from __future__ import annotations

import argparse
import hashlib
import os
from typing import Any

from exactdp.cli.common import add_metric_option, metric_from_option
from exactdp.cli.exitcodes import ExitCode, HandlerResult, checked_verdict
from exactdp.errors import InvalidArgument, InvalidMechanism
from exactdp.kernel.jsonio import dumps, envelope, write_closed_form, write_rational
from exactdp.kinds import Verdict
from exactdp.mechanisms.files import LoadedMechanism, from_csv, load_mechanism
from exactdp.mechanisms.mechanism import ROW_POLICIES
from exactdp.mechanisms.privacy import is_private, privacy_level
from exactdp.spaces.metrics import FiniteMetric

__all__ = ["register"]


def register(sub: Any) -> None:
    """Add ``certify`` to an argparse subparsers object."""
    c = sub.add_parser(
        "certify", help="certify a deployed mechanism file on a metric (CI gate)",
        description="Certify the mechanism in FILE (read exactly: floats as their exact binary "
                    "values) on a metric. Exit 0 private, 1 not private (witness printed), "
                    "2 undecided, 3 bad input.")
    c.add_argument("--mechanism", required=True, metavar="FILE",
                   help="the deployed matrix: .csv, .npy or .json (rows = the metric's points)")
    add_metric_option(c)
    c.add_argument("--eps", help="decide privacy at this ε (exact: '1', '4/5', 'log(2)')")
    c.add_argument("--slack", help="accept ε + SLACK (an exact rational ≥ 0, e.g. 1e-12)")
    c.add_argument("--rows", choices=ROW_POLICIES, default=None,
                   help="rows that do not sum to exactly 1: refuse (exact, default), certify "
                        "the exactly normalised matrix (normalize), or the entries as loaded "
                        "(as-is); unset, a JSON file's own row_policy is used, and a --rows "
                        "that contradicts it is an error")
    c.add_argument("--decimals", choices=("float", "exact"), default=None,
                   help="CSV decimals: the binary float a program reads (float, default) or "
                        "the exact decimal (exact)")
    c.add_argument("--no-verify", action="store_true",
                   help="skip the independent brute-force re-check of the level")
    c.add_argument("--json", action="store_true", help="one JSON document (certificate schema)")
    c.set_defaults(func=_certify)


def _load(args: argparse.Namespace, metric: FiniteMetric) -> LoadedMechanism:
    path = args.mechanism
    if args.decimals is not None:
        if not path.lower().endswith(".csv"):
            raise InvalidArgument(f"--decimals applies to a .csv mechanism; {path} is not one.")
        loaded = from_csv(path, rows=args.rows, decimals=args.decimals)
    else:
        loaded = load_mechanism(path, rows=args.rows)
    H = loaded.mechanism
    if H.n_inputs != metric.n:
        raise InvalidMechanism(
            f"{path}: the matrix has {H.n_inputs} rows but the metric {metric.name} has "
            f"{metric.n} points; row y must be the distribution of the outputs at point y.")
    return loaded


def _sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _certify(args: argparse.Namespace) -> HandlerResult:
    if args.slack is not None and args.eps is None:
        raise InvalidArgument("--slack is a margin on --eps; give --eps too.")
    metric = metric_from_option(args)
    loaded = _load(args, metric)
    H = loaded.mechanism
    question: dict[str, Any] = {
        "mechanism": {"file": os.path.basename(args.mechanism),
                      "sha256": _sha256(args.mechanism), "inputs": H.n_inputs,
                      "outputs": H.n_outputs, "rows": loaded.rows.to_json()},
        "metric": {"name": metric.name, "points": metric.n},
    }
    if args.eps is None:
        r = privacy_level(H, metric)
        ok = None if args.no_verify else r.verify()
        if args.json:
            print(dumps(envelope("privacy-level", {**question, "property": "least-eps"},
                                 {"level": r.to_json()}, {"verified": ok})))
        else:
            print(f"{args.mechanism} on {metric.name}: least ε = {r.short()}")
            _print_rows(loaded)
            print(f"  witness (y, y', z) = {r.witness}; {r.pairs_checked} pairs checked "
                  f"({r.method}); verify() = {ok}")
        return ExitCode.INTERNAL_ERROR if ok is False else ExitCode.OK
    c = is_private(H, metric, eps=args.eps, slack=args.slack)
    ok = None if args.no_verify else c.verify()
    verdict = Verdict.from_bool(c.private)
    if args.json:
        doc = envelope(
            "privacy-check",
            {**question, "property": "private", "eps": write_closed_form(c.eps),
             "slack": write_rational(c.slack)},
            c.to_json(), {"verified": ok})
        print(dumps(doc))
        return checked_verdict(verdict, ok)
    said = "PRIVATE" if c.private else "NOT private"
    print(f"{args.mechanism} on {metric.name}: {said} at {c.at_text()}")
    print(f"  least ε = {c.level.short()}")
    print(f"  {c.excess_text()}")
    if c.violation is not None:
        y, y2, z = c.violation
        print(f"  witness: h[{y}][{z}] > e^(ε·d({y},{y2}))·h[{y2}][{z}]")
    _print_rows(loaded)
    print(f"  verify() = {ok}")
    return checked_verdict(verdict, ok)


def _print_rows(loaded: LoadedMechanism) -> None:
    rep = loaded.rows
    if rep.rows_off:
        print(f"  rows: {rep.rows_off} row(s) of the file do not sum to exactly 1 (largest "
              f"defect {rep.max_defect_text()}); certified with rows={rep.policy}")
