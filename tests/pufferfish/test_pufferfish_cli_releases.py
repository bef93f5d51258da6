"""CLI: ``exactdp pufferfish scale … --releases K``, ``--noise discrete-laplace|gaussian``."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from fractions import Fraction as F

import pytest

from exactdp.cli import pufferfish as cli
from exactdp.cli.exitcodes import exit_code_for_exception, exit_code_for_result
from exactdp.errors import ExactDPError


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    parser = argparse.ArgumentParser(prog="exactdp")
    cli.register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    try:
        code = exit_code_for_result(args.func(args))
    except ExactDPError as exc:
        code = exit_code_for_exception(exc)
    return code, capsys.readouterr().out


def test_releases_scale_k_times_the_single_release_bracket(capsys):
    code1, out1 = run(["pufferfish", "scale", "--p", "1/10", "--eps", "1", "--json"], capsys)
    code3, out3 = run(["pufferfish", "scale", "--p", "1/10", "--eps", "1", "--releases", "3",
                       "--json"], capsys)
    one, three = json.loads(out1), json.loads(out3)
    assert code1 == code3 == 0 and three["verified"] and three["releases"] == 3
    assert F(three["exact"]["theta_lo"]) == 3 * F(one["exact"]["theta_lo"])
    assert three["conservative_theta"] == "3"


def test_single_release_human_output_warns(capsys):
    code, out = run(["pufferfish", "scale", "--p", "1/10", "--eps", "1"], capsys)
    assert code == 0 and "ONE release" in out
    code, out = run(["pufferfish", "scale", "--p", "1/10", "--eps", "1", "--releases", "2"], capsys)
    assert code == 0 and "ONE release" not in out and "TOTAL over 2 releases" in out


def test_discrete_laplace_noise(capsys):
    code, out = run(["pufferfish", "scale", "--p", "1/2", "--eps", "ln(2)", "--noise",
                     "discrete-laplace", "--json"], capsys)
    data = json.loads(out)
    assert code == 0 and data["alpha_expr"] == "1/3" and data["verified"]
    assert F(data["alpha_lo"]) < F(1, 3) <= F(data["alpha_hi"])
    code, _ = run(["pufferfish", "scale", "--values", "1/2", "absent", "--eps", "1", "--noise",
                   "discrete-laplace"], capsys)
    assert code == 3  # non-integer support: bad input


def test_bad_releases_exit_3():
    proc = subprocess.run([sys.executable, "-m", "exactdp", "pufferfish", "scale", "--p", "1/10",
                           "--eps", "1", "--releases", "0"], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 3 and "K must be an integer ≥ 1" in proc.stderr


def test_gaussian_flags_need_each_other(capsys):
    code, _ = run(["pufferfish", "scale", "--values", "1", "0", "--eps", "1", "--noise",
                   "gaussian"], capsys)
    assert code == 3  # --delta missing
    code, _ = run(["pufferfish", "scale", "--values", "1", "0", "--eps", "1", "--delta",
                   "1/100"], capsys)
    assert code == 3  # --delta without gaussian noise
    code, _ = run(["pufferfish", "scale", "--values", "1", "0", "--eps", "1", "--noise",
                   "gaussian", "--delta", "2"], capsys)
    assert code == 3  # δ outside (0, 1)
    code, _ = run(["pufferfish", "scale", "--values", "1", "0", "--eps", "1", "--noise",
                   "discrete-laplace", "--releases", "2"], capsys)
    assert code == 3


def test_every_noise_of_the_scale_command_runs(capsys):
    """The issue's CLI list: --noise laplace|discrete-laplace|gaussian --delta D, --releases K."""
    code, out = run(["pufferfish", "scale", "--p", "1/10", "--eps", "1", "--noise", "laplace",
                     "--releases", "2", "--json"], capsys)
    assert code == 0 and json.loads(out)["verified"]
    code, out = run(["pufferfish", "scale", "--values", "1", "0", "--eps", "1", "--noise",
                     "gaussian", "--delta", "1/100", "--json"], capsys)
    data = json.loads(out)
    assert code == 0 and data["verified"] and 1.87 < float(F(data["sigma_lo"])) < 1.88


def test_staircase_renyi_and_class_pair_commands(capsys):
    code, out = run(["pufferfish", "staircase", "--values", "3", "1", "--sensitivity", "2",
                     "--eps0", "ln(3)", "--gamma", "1/3", "--eps", "ln(3)", "--json"], capsys)
    data = json.loads(out)
    assert code == 0 and data["ratio_exact"] == "3" and data["verdict"] == "holds"
    code, _ = run(["pufferfish", "staircase", "--values", "3", "1", "--sensitivity", "3/2",
                   "--eps0", "ln(3)", "--eps", "ln(3)"], capsys)
    assert code == 1  # not private: the gap spans two steps
    code, out = run(["pufferfish", "renyi", "--values", "1", "0", "--order", "2",
                     "--noise", "discrete-laplace", "--alpha", "1/2", "--json"], capsys)
    assert code == 0 and json.loads(out)["moment_forward"] == "3/2"
    code, _ = run(["pufferfish", "renyi", "--values", "1", "0", "--order", "5/2",
                   "--theta", "1"], capsys)
    assert code == 3
    code, out = run(["pufferfish", "class-pair", "--a", "30:1/3", "--b", "40:1/4", "--eps", "1",
                     "--json"], capsys)
    data = json.loads(out)
    assert code == 0 and data["verified"] and F(data["theta_lo"]) < F(data["theta_hi"])
    code, _ = run(["pufferfish", "class-pair", "--a", "30", "--b", "40:1/4", "--eps", "1"], capsys)
    assert code == 3
