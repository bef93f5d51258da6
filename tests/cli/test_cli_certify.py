"""``exactdp certify`` as a CI gate: the four exit codes through real processes, the README's CI
recipe, options that conflict (never silently ignored), bad files (exit 3, one line)."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from exactdp.cli.app import main
from exactdp.kernel.jsonio import read_envelope

ROOT = Path(__file__).resolve().parents[2]


def _proc(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-W", "ignore", "-m", "exactdp", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120)


@pytest.fixture()
def files(tmp_path: Path) -> Path:
    # a float geometric mechanism on line(5), rows normalised in floats (not exactly 1)
    a = math.exp(-1.0)
    H = np.array([[a ** abs(i - j) for j in range(5)] for i in range(5)])
    H /= H.sum(axis=1, keepdims=True)
    (tmp_path / "geo.csv").write_text(
        "\n".join(",".join(repr(x) for x in row) for row in H.tolist()) + "\n")
    (tmp_path / "rr.csv").write_text("3/4,1/4\n1/4,3/4\n")
    (tmp_path / "line5.edges").write_text("0 1\n1 2\n2 3\n3 4\n")
    (tmp_path / "bad.csv").write_text("0.5,0.5\n0.5,oops\n")
    return tmp_path


def test_exit_codes_through_processes(files: Path) -> None:
    # 0: certified private; the least ε is ≈ 1.2009 (truncation at the ends)
    ok = _proc(["certify", "--mechanism", "geo.csv", "--metric", "line5.edges",
                "--rows", "normalize", "--eps", "6/5", "--slack", "1/1000"], files)
    assert ok.returncode == 0, ok.stderr
    assert "PRIVATE at ε = 6/5 + slack 1/1000" in ok.stdout
    # 1: certified NOT private, witness and excess printed
    no = _proc(["certify", "--mechanism", "geo.csv", "--metric", "line", "--n", "5",
                "--rows", "normalize", "--eps", "1", "--json"], files)
    assert no.returncode == 1, no.stderr
    env = read_envelope(json.loads(no.stdout), extra_kinds=("privacy-check",))
    assert env.claim["verdict"] == "fails" and env.claim["violation"] == [0, 1, 0]
    assert env.question["mechanism"]["rows"]["rows_off"] == 5
    assert env.evidence["verified"] is True
    # 2: ε equal to the level up to 10^-400 in a form no exact comparison applies to
    und = _proc(["certify", "--mechanism", "rr.csv", "--metric", "discrete", "--n", "2",
                 "--eps", "log(2) + log(3/2) + 1/10**400"], files)
    assert und.returncode == 2, und.stderr
    assert "undecided" in und.stderr
    # 3: a bad cell, named by file, row and column, on one line
    bad = _proc(["certify", "--mechanism", "bad.csv", "--metric", "line", "--n", "2",
                 "--eps", "1"], files)
    assert bad.returncode == 3
    assert bad.stderr.strip().count("\n") == 0
    assert "bad.csv: row 1, column 1: 'oops' is not a number" in bad.stderr
    assert "Traceback" not in bad.stderr


def test_readme_ci_recipe(files: Path) -> None:
    """The README's CI step, verbatim: a deployed matrix checked on every commit."""
    recipe = ["certify", "--mechanism", "rr.csv", "--metric", "discrete", "--n", "2",
              "--eps", "log(3)"]
    assert _proc(recipe, files).returncode == 0
    assert _proc([*recipe[:-1], "log(2)"], files).returncode == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--metric", "line", "--n", "2", "--slack", "1/10"], "--slack is a margin on --eps"),
        (["--metric", "line", "--n", "2", "--width", "3"], "does not use --width"),
        (["--metric", "line5.edges", "--n", "5"], "--n set the size of a built-in metric"),
        (["--metric", "line", "--n", "3"], "has 2 rows but the metric line(3) has 3"),
        (["--metric", "nowhere", "--n", "2"], "unknown metric 'nowhere'"),
        (["--metric", "line", "--n", "2", "--decimals", "exact", "--metric-kind", "edges"],
         "--metric-kind describes a metric file"),
    ],
)
def test_conflicts_and_bad_options_exit_3(files: Path, monkeypatch, capsys, args, message):
    monkeypatch.chdir(files)
    assert main(["certify", "--mechanism", "rr.csv", *args]) == 3
    assert message in capsys.readouterr().err


def test_unknown_option_prints_the_subcommand_usage(files, monkeypatch, capsys):
    monkeypatch.chdir(files)
    assert main(["certify", "--mechanism", "rr.csv", "--metric", "line", "--bogus"]) == 3
    err = capsys.readouterr().err
    assert err.startswith("usage: exactdp certify") and "--bogus" in err


def test_privacy_level_file_options_not_ignored(files, monkeypatch, capsys):
    monkeypatch.chdir(files)
    base = ["privacy-level", "line", "--n", "2", "--file"]
    assert main([*base, "rr.csv", "--eps", "1"]) == 3
    assert "--eps sets the level of a built-in mechanism" in capsys.readouterr().err
    assert main([*base, "rr.csv", "--mechanism", "geometric"]) == 3
    assert "use one or the other" in capsys.readouterr().err
    # a CSV file works (was a JSONDecodeError traceback), --file implies --mechanism file
    assert main([*base, "rr.csv", "--at-eps", "log(3)"]) == 0
    (files / "shape.json").write_text('{"matrix": [["1"]]}')
    assert main([*base, "shape.json"]) == 3
    assert "needs a 'rows' key" in capsys.readouterr().err
    (files / "notjson.json").write_text("3/4,1/4\n")
    assert main([*base, "notjson.json"]) == 3
    assert "not JSON (line 1" in capsys.readouterr().err


def test_certify_level_only_and_json(files, monkeypatch, capsys):
    monkeypatch.chdir(files)
    assert main(["certify", "--mechanism", "rr.csv", "--metric", "line", "--n", "2"]) == 0
    assert "least ε = log(3)" in capsys.readouterr().out
    assert main(["certify", "--mechanism", "rr.csv", "--metric", "line", "--n", "2",
                 "--json"]) == 0
    env = read_envelope(json.loads(capsys.readouterr().out), extra_kinds=("privacy-level",))
    assert env.claim["level"]["value"] == "log(3)"
