"""Shared CLI pieces: choosing a built-in metric, levels and priors, exact JSON output."""

from __future__ import annotations

import argparse
import json
import sys
from fractions import Fraction
from typing import Any

from exactdp.arithmetic.interval import Interval
from exactdp.errors import InvalidArgument
from exactdp.spaces.metrics import BUILTIN_METRICS, FiniteMetric

__all__ = [
    "add_metric_arguments",
    "add_level_arguments",
    "metric_from_args",
    "level_kwargs",
    "prior_from_args",
    "to_jsonable",
    "emit_json",
]


def add_metric_arguments(parser: argparse.ArgumentParser) -> None:
    """Positional metric name plus the parameters the built-in constructors take."""
    parser.add_argument("metric", help=f"one of: {', '.join(BUILTIN_METRICS)}")
    parser.add_argument("--n", type=int, help="points (line, cycle, discrete)")
    parser.add_argument("--u", type=int, help="sum-query: u; count-queries: u")
    parser.add_argument("--v", type=int, help="sum-query: v")
    parser.add_argument("--k", type=int, default=2, help="count-queries: number of queries")
    parser.add_argument("--values", type=int, help="hamming: |V|")
    parser.add_argument("--individuals", type=int, help="hamming: u")
    parser.add_argument("--width", type=int, help="grid width")
    parser.add_argument("--height", type=int, help="grid height")
    parser.add_argument("--norm", default="euclidean", help="grid norm")


def add_level_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--eps", help="ε, exact: '4/5', '0.8', 'ln(2)'")
    group.add_argument("--t", help="t = e^-ε, a rational in (0, 1), e.g. '1/2'")


def metric_from_args(args: argparse.Namespace) -> FiniteMetric:
    """Build the named built-in metric, with a clear error for unknown names or missing params."""
    name = args.metric
    if name not in BUILTIN_METRICS:
        raise InvalidArgument(
            f"unknown metric {name!r}; choose one of: {', '.join(BUILTIN_METRICS)}"
        )
    ctor, params = BUILTIN_METRICS[name]
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
    """'uniform', a comma list of n probabilities, or 'product:p1,p2,…' for Hamming spaces."""
    import itertools

    if text == "uniform":
        return [Fraction(1, metric.n)] * metric.n
    if text.startswith("product:"):
        if metric.kronecker_factors is None:
            raise InvalidArgument("a product prior needs a product space (hamming)")
        p = [Fraction(x) for x in text[len("product:"):].split(",")]
        k = len(metric.kronecker_factors)
        out = []
        for combo in itertools.product(p, repeat=k):
            v = Fraction(1)
            for c in combo:
                v *= c
            out.append(v)
        return out
    return [x.strip() for x in text.split(",")]


def to_jsonable(value: Any) -> Any:
    """Exact JSON: Fractions as "p/q" strings, intervals as [lo, hi] strings."""
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
    return str(value)


def emit_json(payload: dict[str, Any]) -> None:
    json.dump(to_jsonable(payload), sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")
