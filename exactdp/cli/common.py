"""Shared CLI pieces: choosing a built-in metric, levels and priors, exact JSON output."""

from __future__ import annotations

import argparse
import enum
import itertools
import json
import math
import re
import sys
from fractions import Fraction
from typing import Any

from exactdp.arithmetic.interval import Interval
from exactdp.arithmetic.validate import read_probability
from exactdp.errors import InvalidArgument, InvalidPrior
from exactdp.spaces.metrics import BUILTIN_METRICS, FiniteMetric
from exactdp.spaces.metrics.files import load_metric
from exactdp.spaces.priors import uniform_prior

__all__ = [
    "METRIC_PARAMS",
    "add_metric_arguments",
    "add_metric_parameters",
    "add_metric_option",
    "metric_from_option",
    "add_level_arguments",
    "metric_from_args",
    "level_kwargs",
    "prior_from_args",
    "to_jsonable",
    "emit_json",
    "accept_negative_numbers",
]

#: A negative number as an option's value: "-1", "-1/10", "-0.5", "-1e-12", "-.5E3", and
#: "-inf" / "-nan" (any case), so that each reaches its option's own check and its message.
NEGATIVE_NUMBER = re.compile(
    r"^-(\d+(/\d+)?|(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?|(?i:inf|infinity|nan))$")


def accept_negative_numbers(parser: argparse.ArgumentParser) -> None:
    """Let options of ``parser`` take negative exact numbers as values (``--slack -1/10``).

    argparse reads a value that starts with "-" as an option unless it looks like a plain
    negative number ("-1", "-0.5"), so ``--slack -1/10`` or ``--eps -1e-3`` failed with
    "expected one argument" before the value could be checked; with this they reach their
    own validation, which names the bad value (e.g. "a slack is a margin ≥ 0"). The parser's
    options never look like numbers, so nothing else changes.

    >>> p = argparse.ArgumentParser(prog="x")
    >>> _ = p.add_argument("--slack")
    >>> accept_negative_numbers(p)
    >>> p.parse_args(["--slack", "-1/10"]).slack, p.parse_args(["--slack", "-1e-12"]).slack
    ('-1/10', '-1e-12')
    >>> p.parse_args(["--slack", "-inf"]).slack
    '-inf'
    """
    parser._negative_number_matcher = NEGATIVE_NUMBER  # the hook argparse itself consults


#: The options of the built-in metrics' parameters (each used by some metric).
METRIC_PARAMS = ("n", "u", "v", "k", "values", "individuals", "width", "height", "norm")


def add_metric_parameters(parser: argparse.ArgumentParser) -> None:
    """The parameters the built-in metric constructors take (``--n``, ``--u``, …)."""
    parser.add_argument("--n", type=int, help="points (line, cycle, discrete)")
    parser.add_argument("--u", type=int, help="sum-query: u; count-queries: u")
    parser.add_argument("--v", type=int, help="sum-query: v")
    parser.add_argument("--k", type=int, help="count-queries: number of queries (default 2)")
    parser.add_argument("--values", type=int, help="hamming: |V|")
    parser.add_argument("--individuals", type=int, help="hamming: u")
    parser.add_argument("--width", type=int, help="grid width")
    parser.add_argument("--height", type=int, help="grid height")
    parser.add_argument("--norm", help="grid norm (default euclidean); point-file norm")


def add_metric_arguments(parser: argparse.ArgumentParser) -> None:
    """Positional metric name plus the parameters the built-in constructors take."""
    parser.add_argument("metric", help=f"one of: {', '.join(BUILTIN_METRICS)}")
    add_metric_parameters(parser)


def add_metric_option(parser: argparse.ArgumentParser) -> None:
    """``--metric NAME|FILE`` (a built-in name, or a metric file) with its parameters."""
    parser.add_argument(
        "--metric", required=True,
        help=f"a built-in metric ({', '.join(BUILTIN_METRICS)}) or a metric file: .edges "
             "(edge list), .csv/.npy (distance matrix), .points (points; --norm)")
    parser.add_argument("--metric-kind", choices=("auto", "edges", "matrix", "points"),
                        default=None, help="what the metric file holds (default: by extension)")
    add_metric_parameters(parser)


def metric_from_option(args: argparse.Namespace) -> FiniteMetric:
    """The metric of ``--metric``: a built-in name (with its parameters) or a file.

    A parameter that the chosen metric does not use is an error naming it, never ignored.
    """
    name = args.metric
    if name in BUILTIN_METRICS:
        if args.metric_kind is not None:
            raise InvalidArgument(
                f"--metric-kind describes a metric file; --metric {name} is a built-in metric.")
        return metric_from_args(args)
    if "." not in name and not name.startswith(("/", ".")):
        raise InvalidArgument(
            f"unknown metric {name!r}; choose one of: {', '.join(BUILTIN_METRICS)}, or give a "
            "metric file (.edges, .csv, .npy, .points)")
    used = [f"--{p}" for p in METRIC_PARAMS if p != "norm" and getattr(args, p, None) is not None]
    kind = args.metric_kind or "auto"
    if used:
        raise InvalidArgument(
            f"{' '.join(used)} set the size of a built-in metric; --metric {name} is a file, "
            "whose size is the file's own: drop them.")
    if args.norm is not None and kind != "points" and not (
            kind == "auto" and name.lower().endswith(".points")):
        raise InvalidArgument(
            f"--norm applies to a grid or a point file; --metric {name} is not one.")
    return load_metric(name, kind, args.norm or "euclidean")


def add_level_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the required ``--eps`` / ``--t`` pair; negative values reach their own check
    (``--eps -1/10`` → "ε must be > 0", not argparse's "expected one argument")."""
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--eps", help="ε, exact: '4/5', '0.8', 'ln(2)'")
    group.add_argument("--t", help="t = e^-ε, a rational in (0, 1), e.g. '1/2'")
    accept_negative_numbers(parser)


def metric_from_args(args: argparse.Namespace) -> FiniteMetric:
    """Build the named built-in metric, with a clear error for unknown names or missing params."""
    name = args.metric
    if name not in BUILTIN_METRICS:
        raise InvalidArgument(
            f"unknown metric {name!r}; choose one of: {', '.join(BUILTIN_METRICS)}"
        )
    ctor, params = BUILTIN_METRICS[name]
    unused = [f"--{p}" for p in METRIC_PARAMS
              if p not in params and getattr(args, p, None) is not None]
    if unused:
        raise InvalidArgument(
            f"metric {name!r} does not use {' '.join(unused)} (it takes "
            f"{' '.join('--' + p for p in params)}); drop them.")
    kwargs: dict[str, Any] = {}
    for p in params:
        value = getattr(args, p, None)
        if value is None:
            if p in ("k", "norm"):
                continue
            raise InvalidArgument(f"metric {name!r} needs --{p}")
        kwargs[p] = value
    return ctor(**kwargs)


def level_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    return {"eps": args.eps} if args.eps is not None else {"t": args.t}


def prior_from_args(metric: FiniteMetric, text: str) -> Any:
    """'uniform', a comma list of n probabilities, or 'product:p1,p2,…' for Hamming spaces.

    The entries are read exactly; the prior reader of the question checks the sum.
    """
    if text == "uniform":
        return list(uniform_prior(metric))
    if text.startswith("product:"):
        if metric.kronecker_factors is None:
            raise InvalidPrior("a product prior needs a product space (hamming); got "
                               f"metric {metric.name!r}")
        p = [read_probability(x.strip(), f"product prior entry {i}", InvalidPrior)
             for i, x in enumerate(text[len("product:"):].split(","))]
        k = len(metric.kronecker_factors)
        return [math.prod(combo, start=Fraction(1)) for combo in itertools.product(p, repeat=k)]
    return [x.strip() for x in text.split(",")]


def to_jsonable(value: Any) -> Any:
    """Exact JSON: Fractions as "p/q" strings, intervals as [lo, hi] strings, enums by value.

    >>> from exactdp.kinds import Verdict
    >>> to_jsonable({"verdict": Verdict.FAILS, "z": [Fraction(1, 3)]})
    {'verdict': 'fails', 'z': ['1/3']}
    """
    if isinstance(value, Fraction):
        return str(value)
    if isinstance(value, Interval):
        return [str(value.lo), str(value.hi)]
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    if isinstance(value, enum.Enum):  # Verdict, Sign: their JSON values ("holds", 1, …)
        return to_jsonable(value.value)
    return str(value)


def emit_json(payload: dict[str, Any]) -> None:
    json.dump(to_jsonable(payload), sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")
