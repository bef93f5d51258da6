"""The sets-* CLI subcommands, through a parser built here (the lead wires exactdp.cli.app)."""

import argparse
import json
from fractions import Fraction

import pytest

from exactdp.cli import sets as cli
from exactdp.cli.exitcodes import exit_code_for_result
from exactdp.errors import InvalidBox, InvalidSet


def run(argv, capsys):
    parser = argparse.ArgumentParser()
    cli.register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    code = exit_code_for_result(args.func(args))
    return code, capsys.readouterr().out


def test_sets_check_counterexample_json(capsys):
    code, out = run(
        ["sets-check", "--X", "0; 1/4", "--Y", "0", "--box", "0:1/4", "--eps", "1", "--json"],
        capsys,
    )
    data = json.loads(out)
    assert code == 1 and data["holds"] is False and data["verdict"] == "fails"
    assert data["ratio"] == "2" and data["factor"] == "exp(1/2)"
    assert data["d_H"] == "1/4" and data["diam_K"] == "1/4"


def test_sets_check_proven_bound_human(capsys):
    code, out = run(
        ["sets-check", "--X", "0; 1/4", "--Y", "0", "--box", "0:1/4", "--eps", "1", "--bound", "points"],
        capsys,
    )
    assert code == 0 and "HOLDS" in out and "guaranteed" in out


def test_sets_capacity_and_hausdorff(capsys):
    code, out = run(["sets-capacity", "--X", "0; 1", "--box", "0:1", "--eps", "1", "--json"], capsys)
    data = json.loads(out)
    assert data["value"] == "1 - exp(-1)"  # union [-1, 1]
    lo, hi = (Fraction(x) for x in data["enclosure"])  # exact "p/q" strings
    assert 0 <= hi - lo < Fraction(1, 10**30)
    assert abs(lo - Fraction(1 - 0.36787944117144233)) < Fraction(1, 10**15)  # 1 − 1/e
    code, out = run(["sets-hausdorff", "--X", "0,0", "--Y", "3,4", "--norm", "l2", "--json"], capsys)
    assert json.loads(out)["value"] == "5"


def test_cli_bad_input():
    with pytest.raises(InvalidSet):
        cli.parse_points(" ; ")
    with pytest.raises(InvalidBox):
        cli.parse_box("0,1")
