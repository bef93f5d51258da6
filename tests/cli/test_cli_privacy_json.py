"""``exactdp privacy-level ... --json`` prints a kernel document that ``exactdp verify``
accepts in a fresh process (exact mechanisms); a certified (ball) mechanism gets the
result's own JSON on stdout and the reason on stderr. Everything through subprocesses."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from exactdp.cli.app import main
from exactdp.kernel.jsonio import loads


def _cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "exactdp", *args], capture_output=True,
                          text=True, input=stdin, timeout=120)


def test_level_document_verifies_in_a_fresh_process(tmp_path):
    """privacy-level --json in one process, exactdp verify in another (exit 0), a tampered
    level (ln 2 instead of ln 3) rejected (exit 1)."""
    out = _cli("privacy-level", "line", "--n", "4", "--mechanism", "geometric", "--t", "1/3",
               "--json")
    assert out.returncode == 0, out.stderr
    doc = loads(out.stdout)  # the kernel's strict reader: a canonical document
    assert doc["kind"] == "privacy-level" and doc["claim"]["value"] == {"t": "1/3"}
    path = tmp_path / "level.json"
    path.write_text(out.stdout)
    ver = _cli("verify", str(path), "--json")
    assert ver.returncode == 0 and json.loads(ver.stdout)["outcome"] == "verified", ver.stdout
    doc["claim"]["value"] = {"t": "1/2"}
    path.write_text(json.dumps(doc))
    assert main(["verify", str(path)]) == 1


@pytest.mark.parametrize("args, value", [
    (("cycle", "--n", "3", "--mechanism", "randomized-response", "--t", "1/4"), {"t": "1/4"}),
    (("line", "--n", "3", "--t", "8/27"), {"t": "8/27"}),  # tight-constraints mechanism
    (("sum-query", "--u", "3", "--v", "2", "--mechanism", "geometric", "--t", "1/4"),
     {"t": "1/4"}),
])
def test_level_documents_verify(args, value, tmp_path, capsys):
    """More routes (monomial on a cycle, tight constraints, sum-query), in this process."""
    assert main(["privacy-level", *args, "--json"]) == 0
    text = capsys.readouterr().out
    assert loads(text)["claim"]["value"] == value
    path = tmp_path / "level.json"
    path.write_text(text)
    assert main(["verify", str(path)]) == 0


def test_file_mechanism_document(tmp_path, capsys):
    f = tmp_path / "H.json"
    f.write_text(json.dumps([["3/4", "1/4"], ["1/4", "3/4"]]))
    assert main(["privacy-level", "line", "--n", "2", "--file", str(f), "--json"]) == 0
    (tmp_path / "doc.json").write_text(capsys.readouterr().out)
    assert main(["verify", str(tmp_path / "doc.json")]) == 0


def test_ball_mechanism_explains_and_prints_result_json(tmp_path):
    """exponential(line(3), t=1/2) has entries in Q(√2): no kernel document exists (its
    level is exact, by the row-monomial form, and re-checked in the process)."""
    out = _cli("privacy-level", "line", "--n", "3", "--mechanism", "exponential", "--t",
               "1/2", "--json")
    assert out.returncode == 0, out.stderr
    assert "no kernel document" in out.stderr and "does not accept" in out.stderr
    assert "verified in this process: True" in out.stderr
    res = json.loads(out.stdout)
    assert res["kernel_document"] is None and res["method"] == "row-monomial"
    assert res["value"] is not None and "schema" not in res
    (tmp_path / "res.json").write_text(out.stdout)
    assert main(["verify", str(tmp_path / "res.json")]) == 3  # not a certificate document


def test_fallback_exits_4_when_its_recheck_fails(monkeypatch, capsys):
    """Review F5: the fallback result's in-process verify() failing is an internal error
    (exit 4, cli/exitcodes.py), not a success."""
    from exactdp.mechanisms.privacy_result import PrivacyLevelResult
    args = ["privacy-level", "line", "--n", "3", "--mechanism", "exponential", "--t", "1/2",
            "--json"]
    assert main(args) == 0
    monkeypatch.setattr(PrivacyLevelResult, "verify", lambda self: False)
    assert main(args) == 4
    assert "verified in this process: False" in capsys.readouterr().err
