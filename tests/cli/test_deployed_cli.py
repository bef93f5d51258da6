"""CLI gaps of issue 12: ``privacy-level --at-eps --slack`` (never ignored), exact excess in
the output, and the README's CI commands run verbatim from the docs on small files."""

from __future__ import annotations

import json
import math
import re
import shlex
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from exactdp.cli.app import main

ROOT = Path(__file__).resolve().parents[2]


def _proc(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-W", "ignore", "-m", "exactdp", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120)


@pytest.fixture()
def rr(tmp_path: Path) -> Path:
    (tmp_path / "rr.csv").write_text("3/4,1/4\n1/4,3/4\n")  # level exactly log(3)
    return tmp_path


def test_privacy_level_slack_decides_eps_plus_slack(rr: Path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(rr)
    base = ["privacy-level", "line", "--n", "2", "--file", "rr.csv", "--at-eps", "1"]
    assert main(base) == 1  # log 3 ≈ 1.0986 > 1
    assert "exceeds ε by -1 + log(3) exactly" in capsys.readouterr().out
    assert main([*base, "--slack", "1/10"]) == 0  # ≤ 1.1
    out = capsys.readouterr().out
    assert "private at ε = 1 + slack 1/10" in out
    assert main([*base, "--slack", "1/100"]) == 1
    capsys.readouterr()
    assert main([*base, "--slack", "1/10", "--verdict-json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["slack"] == "1/10" and doc["excess"] == "-1 + log(3)" and doc["verified"] is True


def test_privacy_level_slack_without_at_eps_is_an_error(rr: Path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(rr)
    assert main(["privacy-level", "line", "--n", "2", "--file", "rr.csv", "--slack", "1"]) == 3
    assert "--slack is a margin on --at-eps" in capsys.readouterr().err


def test_exact_level_prints_exact_zero_excess(rr: Path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(rr)
    assert main(["certify", "--mechanism", "rr.csv", "--metric", "line", "--n", "2",
                 "--eps", "log(3)"]) == 0
    out = capsys.readouterr().out
    assert "the level equals ε exactly" in out and "≈ 0 (" not in out


def _ci_commands() -> list[str]:
    """Every ``exactdp certify`` command of the README's and the guide's CI recipes."""
    cmds: list[str] = []
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    sec = readme.split("### Certify the mechanism you deploy", 1)
    if len(sec) == 2:
        block = sec[1].split("\n### ", 1)[0]
        cmds += re.findall(r"^(exactdp certify [^\n]+)$", block, flags=re.M)
    guide = (ROOT / "docs" / "readme" / "deployed.md").read_text(encoding="utf-8")
    for yaml in re.findall(r"```yaml\n(.*?)```", guide, flags=re.S):
        cmds += [c.strip() for c in re.findall(r"run:\s*(exactdp certify .+)", yaml)]
    return cmds


def _deployed_matrix(args: list[str]) -> str:
    """A small deployed matrix for the command's metric: the truncated geometric mechanism at
    ε = 1 in floats (level 1 up to rounding) on line(n), or randomized response (level exactly
    log 3) for the discrete metric."""
    metric = args[args.index("--metric") + 1]
    n = int(args[args.index("--n") + 1])
    if metric == "line":
        s = math.exp(-1.0)
        c = [1 / (1 + s) if z in (0, n - 1) else (1 - s) / (1 + s) for z in range(n)]
        H = np.array([[c[z] * s ** abs(y - z) for z in range(n)] for y in range(n)])
        return "\n".join(",".join(repr(x) for x in row) for row in H.tolist()) + "\n"
    if metric == "discrete":
        e = 3  # level log(3)
        return "\n".join(",".join(f"{e if i == j else 1}/{e + n - 1}" for j in range(n))
                         for i in range(n)) + "\n"
    raise AssertionError(f"the CI recipe uses metric {metric!r}: add a matrix for it here")


def test_readme_ci_commands_run_verbatim(tmp_path: Path) -> None:
    cmds = _ci_commands()
    assert len(cmds) >= 2, "the README / guide lost their CI recipe"
    for cmd in cmds:
        args = shlex.split(cmd)[1:]
        path = tmp_path / args[args.index("--mechanism") + 1]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_deployed_matrix(args))
        res = _proc(args, tmp_path)
        assert res.returncode == 0, (cmd, res.stdout, res.stderr)
        assert "PRIVATE at" in res.stdout
