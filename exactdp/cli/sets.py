"""Command-line subcommands for set privacy: ``sets-check``, ``sets-capacity``, ``sets-hausdorff``.

Points are written ``"x1,y1; x2,y2"`` (``;`` between points, ``,`` between coordinates;
rationals like ``1/4``); a box is ``"l1,l2:u1,u2"``; repeat ``--box`` for a union.

Examples (once registered in ``exactdp.cli.app``)::

    exactdp sets-check --X "0; 1/4" --Y "0" --box "0:1/4" --eps 1
    exactdp sets-capacity --X "0,0; 1,0" --box "0,0:1/2,1/2" --eps 1 --json
    exactdp sets-hausdorff --X "0,0" --Y "3,4" --norm l2

``sets-check`` exits with its verdict's code (0 holds, 1 violated); the others compute
values and exit 0 (see :mod:`exactdp.cli.exitcodes`).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from exactdp.cli.common import accept_negative_numbers
from exactdp.cli.exitcodes import ExitCode, HandlerResult
from exactdp.errors import InvalidBox, InvalidSet
from exactdp.sets._boxes import Box
from exactdp.sets._capacity import capacity_functional
from exactdp.sets._points import hausdorff_distance
from exactdp.sets._privacy import BOUNDS, check_set_privacy

__all__ = ["register", "parse_points", "parse_box"]


def parse_points(text: str) -> list[list[str]]:
    """``"0,0; 1,1/2"`` -> ``[["0", "0"], ["1", "1/2"]]`` (validated later, exactly).

    >>> parse_points("0,0; 1,1/2")
    [['0', '0'], ['1', '1/2']]
    """
    pts = [[c.strip() for c in p.split(",")] for p in text.split(";") if p.strip()]
    if not pts:
        raise InvalidSet(f"Got points {text!r}; write them like '0,0; 1,1/2'.")
    return pts


def parse_box(text: str) -> Box:
    """``"0,0:1,1/2"`` -> Box((0, 0), (1, 1/2)).

    >>> parse_box("0:1/4").upper
    (Fraction(1, 4),)
    """
    if text.count(":") != 1:
        raise InvalidBox(f"Got box {text!r}; write it as 'lower:upper', e.g. '0,0:1,1/2'.")
    lo, hi = text.split(":")
    return Box([c.strip() for c in lo.split(",")], [c.strip() for c in hi.split(",")])


def _print(payload: dict[str, Any], as_json: bool, human: str) -> None:
    print(json.dumps(payload, indent=2, ensure_ascii=False) if as_json else human)


def _check(args: argparse.Namespace) -> HandlerResult:
    K = [parse_box(b) for b in args.box]
    r = check_set_privacy(parse_points(args.X), parse_points(args.Y), K, args.eps, bound=args.bound, norm=args.norm)
    f = r.floats()
    human = (
        f"T_M(X)(K) = {r.lhs}  (≈ {f['lhs']:.6g})\n"
        f"factor    = {r.factor}  (≈ {f['factor']:.6g}; bound '{r.bound}', norm {r.norm})\n"
        f"T_M(Y)(K) = {r.T_Y.expr}\n"
        f"ratio     = {r.ratio}  (≈ {f['ratio']:.6g})\n"
        f"verdict: {'HOLDS' if r.holds else 'VIOLATED'} (exact; {r.method})"
        + ("  [guaranteed by proofs/sets_correct_bound.py]" if r.guaranteed else "")
    )
    _print(r.to_json(), args.json, human)
    return r.verdict


def _capacity(args: argparse.Namespace) -> HandlerResult:
    K = [parse_box(b) for b in args.box]
    r = capacity_functional(parse_points(args.X), K, args.eps)
    lo, hi = r.interval(128)
    payload = {
        "value": str(r.expr),
        "enclosure": [str(lo), str(hi)],
        "value_float": r.value_float,
        "eps": str(r.level.eps),
    }
    _print(payload, args.json, f"T = {r.expr}  (≈ {r.value_float:.10g})")
    return ExitCode.OK


def _hausdorff(args: argparse.Namespace) -> HandlerResult:
    r = hausdorff_distance(parse_points(args.X), parse_points(args.Y), args.norm)
    payload = {
        "value": str(r.value),
        "norm": r.norm,
        "witness": [str(c) for c in r.witness],
        "nearest": [str(c) for c in r.nearest],
        "direction": r.direction,
    }
    human = (
        f"d_H = {r.value} ({r.norm}); witness {[str(c) for c in r.witness]} "
        f"({r.direction}), nearest {[str(c) for c in r.nearest]}"
    )
    _print(payload, args.json, human)
    return ExitCode.OK


def register(subparsers: Any) -> None:
    """Add the ``sets-*`` subcommands to an argparse subparsers object."""
    p = subparsers.add_parser(
        "sets-check",
        help="exact check of T_M(X)(K) ≤ factor · T_M(Y)(K) (Laplacian Perturbation Mechanism)",
    )
    p.add_argument("--X", required=True, help="points, e.g. '0,0; 1,1/2'")
    p.add_argument("--Y", required=True, help="points, e.g. '0,0'")
    p.add_argument("--box", action="append", required=True, help="'lower:upper' (repeatable)")
    p.add_argument("--eps", required=True, help="ε, e.g. 1, 1/2, ln(2)")
    p.add_argument("--bound", default="paper", choices=BOUNDS)
    p.add_argument("--norm", default="l1", choices=["l1", "l2", "linf"])
    p.add_argument("--json", action="store_true", help="exact JSON output")
    p.set_defaults(func=_check)

    c = subparsers.add_parser("sets-capacity", help="exact capacity functional T_M(X)(K)")
    c.add_argument("--X", required=True)
    c.add_argument("--box", action="append", required=True)
    c.add_argument("--eps", required=True)
    c.add_argument("--json", action="store_true")
    c.set_defaults(func=_capacity)

    h = subparsers.add_parser("sets-hausdorff", help="exact Hausdorff distance with witness")
    h.add_argument("--X", required=True)
    h.add_argument("--Y", required=True)
    h.add_argument("--norm", default="l1", choices=["l1", "l2", "linf"])
    h.add_argument("--json", action="store_true")
    h.set_defaults(func=_hausdorff)
    for parser in (p, c, h):
        accept_negative_numbers(parser)  # "--eps -1" reaches the specific ε check
