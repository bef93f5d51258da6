"""The one progress facility: long questions report through ``progress(stage, message)``, the
CLI prints those lines on stderr only, and ``--quiet`` silences them."""

import json
import subprocess
import sys

from exactdp import epsilon_threshold, is_regular, metrics, tight_constraints
from exactdp.errors import InvalidArgument
from exactdp.progress import report, stderr_progress


def test_engine_questions_report_each_backend_and_precision():
    seen = []
    tight_constraints(metrics.line(4), eps=1, method="ball", progress=lambda st, msg: seen.append((st, msg)))
    assert seen[0] == ("engine", "ball backend on line(4) (n = 4) at ε = 1")
    assert ("engine", "ball solve at 64 bits") in seen
    seen.clear()
    is_regular(metrics.line(3), "uniform", t="1/2", progress=lambda st, msg: seen.append(st))
    assert seen and set(seen) == {"engine"}


def test_report_and_stderr_progress(capsys):
    report(None, "x", "nothing")
    emit = stderr_progress()
    emit("cover", "3 ranges")
    out, err = capsys.readouterr()
    assert out == "" and err.endswith("cover: 3 ranges\n") and err.startswith("[")


def test_cli_progress_goes_to_stderr_and_quiet_silences_it():
    cmd = [sys.executable, "-m", "exactdp", "tight-constraints", "line", "--n", "5", "--eps", "1", "--json"]
    loud = subprocess.run(cmd, capture_output=True, text=True)
    quiet = subprocess.run([*cmd, "--quiet"], capture_output=True, text=True)
    assert loud.returncode == quiet.returncode == 0
    assert "engine:" in loud.stderr and "engine:" not in loud.stdout
    assert quiet.stderr == ""
    # stdout holds only the JSON result, with or without progress
    assert json.loads(quiet.stdout)["verdict"] == json.loads(loud.stdout)["verdict"] == "holds"


def test_progress_true_prints_to_stderr_false_is_silent(capsys):
    # progress=True used to fail with "'bool' object is not callable" at the first report,
    # after minutes of work; now it prints like the CLI, and False is silent
    report(False, "x", "nothing")
    report(True, "cover", "2 ranges")
    out, err = capsys.readouterr()
    assert out == "" and err.endswith("cover: 2 ranges\n")
    epsilon_threshold(metrics.line(4), progress=True)
    assert capsys.readouterr().out == ""
    try:
        report("loud", "x", "y")
    except InvalidArgument as e:
        assert "progress='loud'" in str(e)
    else:
        raise AssertionError("a non-callable progress was accepted")
