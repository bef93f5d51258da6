"""The mechanisms CLI, through a parser built here (the lead wires it into exactdp.cli.app)."""

from __future__ import annotations

import argparse
import json

import pytest

from exactdp.cli.exitcodes import exit_code_for_result
from exactdp.cli.mechanisms import register


def run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return exit_code_for_result(args.func(args))


def test_privacy_level_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["privacy-level", "sum-query", "--u", "3", "--v", "2", "--mechanism",
                "geometric", "--t", "1/4", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)  # the kernel document: level ln 4, t = 1/4
    assert out["kind"] == "privacy-level" and out["claim"]["value"] == {"t": "1/4"}


def test_privacy_level_human(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["privacy-level", "line", "--n", "4", "--eps", "4/5"]) == 0
    assert "least ε = 4/5" in capsys.readouterr().out


def test_utility_and_bounds(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["utility", "line", "--n", "3", "--t", "1/2", "--json"]) == 0
    u = json.loads(capsys.readouterr().out)
    assert run(["bounds", "line", "--n", "3", "--t", "1/2", "--json"]) == 0
    b = json.loads(capsys.readouterr().out)
    # tight constraints attains Thm. 2's bound Σα = 5/9 (α = (2/9, 1/9, 2/9), by hand)
    assert u["utility"] == b["utility_bound"] == "5/9"


def test_file_mechanism(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "H.json"
    f.write_text(json.dumps([["3/4", "1/4"], ["1/4", "3/4"]]))
    assert run(["privacy-level", "line", "--n", "2", "--mechanism", "file", "--file",
                str(f), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["claim"]["value"] == {"t": "1/3"}


def test_optimal(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["optimal", "line", "--n", "3", "--mechanism", "geometric", "--t", "1/2",
                "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["optimal"] is True and out["certificate"] == "remap" and out["verdict"] == "holds"
    # exit code 1: not optimal, proved by the Farkas certificate
    assert run(["optimal", "sum-query", "--u", "2", "--v", "2", "--mechanism", "geometric",
                "--t", "1/4"]) == 1
    assert "NOT optimal" in capsys.readouterr().out
