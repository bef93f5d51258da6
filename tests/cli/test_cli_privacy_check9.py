"""``exactdp privacy-level --at-eps E --json`` prints the verdict's kernel document (kind
``privacy-check``), which ``exactdp verify`` re-checks in a fresh process; the verdict's own
JSON stays available as ``--verdict-json``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from exactdp.cli.app import main
from exactdp.kernel.verify import verify_document


def _verify(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-W", "ignore", "-m", "exactdp", "verify", str(path)],
                          capture_output=True, text=True, timeout=120)


@pytest.fixture()
def rr(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "rr.csv").write_text("3/4,1/4\n1/4,3/4\n")  # least ε exactly log(3)
    monkeypatch.chdir(tmp_path)
    return tmp_path


BASE = ["privacy-level", "line", "--n", "2", "--file", "rr.csv"]


def test_at_eps_json_is_a_kernel_document_verify_accepts(rr: Path, capsys) -> None:
    for at, code, verdict in (("1", 1, "fails"), ("6/5", 0, "holds")):
        assert main([*BASE, "--at-eps", at, "--json"]) == code
        doc = json.loads(capsys.readouterr().out)
        assert doc["kind"] == "privacy-check" and doc["claim"]["verdict"] == verdict
        path = rr / f"check{code}.json"
        path.write_text(json.dumps(doc))
        run = _verify(path)  # a fresh process: only the document travels
        assert run.returncode == 0, run.stdout + run.stderr
        doc["claim"]["verdict"] = "holds" if verdict == "fails" else "fails"  # flipped
        if verdict == "holds":
            doc["claim"]["violation"] = [0, 1, 0]
        assert not verify_document(doc).verified


def test_at_eps_slack_json_documents_eps_plus_slack(rr: Path, capsys) -> None:
    assert main([*BASE, "--at-eps", "1", "--slack", "1/10", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["question"]["level"] == {"eps": "11/10"} and doc["claim"]["verdict"] == "holds"


def test_verdict_json_keeps_the_old_output(rr: Path, capsys) -> None:
    assert main([*BASE, "--at-eps", "1", "--slack", "1/10", "--verdict-json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["slack"] == "1/10" and out["excess"] == "-1 + log(3)" and out["verified"] is True
    assert main([*BASE, "--verdict-json"]) == 3  # needs --at-eps/--at-t
    assert "--verdict-json prints the verdict at --at-eps" in capsys.readouterr().err


def test_no_kernel_document_falls_back_to_the_verdict_json(rr: Path, capsys) -> None:
    (rr / "rrf.csv").write_text("0.75,0.25\n0.25,0.75\n")
    args = ["privacy-level", "line", "--n", "2", "--file", "rrf.csv", "--rows", "as-is"]
    assert main([*args, "--at-eps", "6/5", "--json"]) == 0
    got = capsys.readouterr()
    out = json.loads(got.out)
    assert out["kernel_document"] is None and out["verdict"] == "holds"
    assert "no kernel document" in got.err and "rows='as-is'" in got.err


def test_json_and_verdict_json_together_is_an_error(rr: Path, capsys) -> None:
    assert main([*BASE, "--at-eps", "1", "--json", "--verdict-json"]) == 3
    io = capsys.readouterr()
    assert "--json (the kernel document) and --verdict-json" in io.err
    assert json.loads(io.out)["exit_code"] == 3  # one JSON error object, as --json


def test_verdict_json_errors_print_the_json_error_object(rr: Path, capsys) -> None:
    for flag in ("--json", "--verdict-json"):
        assert main([*BASE, "--at-eps", "-1", flag]) == 3
        out = json.loads(capsys.readouterr().out)
        assert (out["exit_code"], out["outcome"]) == (3, "error"), flag
