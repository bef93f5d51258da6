"""Regression tests for the reviewer's findings on exactdp.pufferfish (each failed before its fix)."""

from __future__ import annotations

import argparse
from fractions import Fraction as F
from pathlib import Path

import pytest

from exactdp.arithmetic.ball import Sign
from exactdp.cli import pufferfish as cli
from exactdp.cli.exitcodes import exit_code_for_result
from exactdp.errors import InvalidArgument, InvalidDistribution
from exactdp.pufferfish import DistributionPair, DistributionVsAbsent, bernoulli
from exactdp.pufferfish.bernoulli_forms import exact_sign
from exactdp.pufferfish.calibration import ExactScale, exact_scale


def _payload(marker: Path) -> str:
    return f"__import__('pathlib').Path({str(marker)!r}).touch()"


def test_from_json_theta_expr_is_not_evaluated(tmp_path: Path) -> None:
    data = exact_scale(DistributionVsAbsent(bernoulli("1/2")), "ln(2)").to_json()
    marker = tmp_path / "pwned"
    data["theta_expr"] = _payload(marker)
    with pytest.raises(InvalidArgument, match="theta_expr"):
        ExactScale.from_json(data)
    assert not marker.exists()


def test_from_json_round_trip_still_works() -> None:
    r = exact_scale(DistributionVsAbsent(bernoulli("1/2")), "ln(2)")
    again = ExactScale.from_json(r.to_json())
    assert again.theta_expr == r.theta_expr and again.verify()


def test_exact_sign_string_is_not_evaluated(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    with pytest.raises(InvalidArgument):
        exact_sign(_payload(marker))  # type: ignore[arg-type]
    assert not marker.exists()
    assert exact_sign("E - 27/10") is Sign.POSITIVE  # type: ignore[arg-type]


def test_closed_form_near_threshold() -> None:
    """ε = ln 3 − 10⁻³⁰ sits just below the pmf-ratio threshold ln 3 of Bern(3/4) vs
    Bern(1/4): the closed form's 64-bit ball is NaN there; precision must rise."""
    pair = DistributionPair(bernoulli("3/4"), bernoulli("1/4"))
    eps = "ln(3) - 1/10**30"
    closed = exact_scale(pair, eps)
    assert closed.method == "closed_form"
    assert closed.verify()
    # independent route: certified bisection on the loss, no closed form
    roots = exact_scale(pair, eps, method="root_finding")
    assert roots.verify()
    assert max(closed.lo, roots.lo) < min(closed.hi, roots.hi)  # the brackets overlap
    assert F(142738, 10**7) < closed.hi and closed.lo < F(142739, 10**7)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser()
    cli.register(parser.add_subparsers(dest="command", required=True))
    return parser


def _run(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    return exit_code_for_result(args.func(args))


def test_cli_dist_sum_message_passed_on() -> None:
    with pytest.raises(InvalidDistribution, match="sum to 5/6"):
        _run(["pufferfish", "scale", "--dist=-1:1/2,1:1/3", "--eps", "1"])


def test_cli_dist_shape_message() -> None:
    with pytest.raises(InvalidArgument, match="value:probability"):
        _run(["pufferfish", "scale", "--dist=-1,1:1/3", "--eps", "1"])


def test_cli_dist_bad_number_named() -> None:
    with pytest.raises(InvalidArgument, match="abc"):
        _run(["pufferfish", "scale", "--dist=abc:1/2,1:1/2", "--eps", "1"])
