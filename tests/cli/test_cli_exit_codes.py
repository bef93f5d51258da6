"""Exit codes of the command line: 0 holds, 1 fails, 2 undecided, 3 bad input/usage, 4 bug.

Each code is exercised through a real process (``python -m exactdp …``) and through
``main()``; the usage printed for a usage error is the subcommand's.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest

import exactdp.cli.sets as cli_sets
from exactdp.cli.app import build_parser, main
from exactdp.cli.exitcodes import (
    ArgumentParser,
    ExitCode,
    checked_verdict,
    exit_code_for,
    exit_code_for_exception,
    exit_code_for_result,
)
from exactdp.errors import (
    CertificateInvalid,
    InstanceTooLarge,
    InvalidPrior,
    NotRegular,
    PrecisionLimitReached,
    PropertyNeverHolds,
)
from exactdp.kinds import Verdict

ROOT = Path(__file__).resolve().parents[2]
SETS_CHECK = ["sets-check", "--X", "0; 1/4", "--Y", "0", "--box", "0:1/4", "--eps", "1"]


def run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "exactdp", *argv], capture_output=True,
                          text=True, cwd=ROOT, timeout=300)


# ------------------------------------------------------------------ through a real process
def test_exit_0_when_the_property_holds() -> None:
    res = run("tight-constraints", "line", "--n", "3", "--t", "1/3", "--json")
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["exists"] is True


def test_exit_1_when_the_property_fails() -> None:
    res = run(*SETS_CHECK, "--json")  # the counterexample to the paper's Theorem 1
    assert res.returncode == 1, res.stderr
    assert json.loads(res.stdout)["verdict"] == "fails"
    res = run("regular", "line", "--n", "3", "--t", "1/2", "--prior", "1,0,0")
    assert res.returncode == 1 and "NOT regular" in res.stdout


def test_exit_2_when_undecided() -> None:
    # no command of the CLI can be driven into an undecided case cheaply: a handler whose
    # question raises PrecisionLimitReached, in a real process
    code = (
        "import sys\n"
        "import exactdp.cli.sets as s\n"
        "from exactdp.errors import PrecisionLimitReached\n"
        "def undecided(*a, **k):\n"
        "    raise PrecisionLimitReached('sign not decided within 4096 bits')\n"
        "s.check_set_privacy = undecided\n"
        "from exactdp.cli.app import main\n"
        f"sys.exit(main({SETS_CHECK!r}))\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, timeout=300)
    assert res.returncode == 2, res.stderr
    assert "exactdp: undecided: sign not decided" in res.stderr and res.stdout == ""


def test_exit_3_bad_option_shows_the_subcommand_usage() -> None:
    res = run("regular", "line", "--n", "3", "--t", "1/2", "--bogus")
    assert res.returncode == 3
    assert res.stderr.startswith("usage: exactdp regular")
    assert "unrecognized arguments: --bogus" in res.stderr
    nested = run("pufferfish", "scale", "--p", "1/2", "--eps", "1", "--bogus")
    assert nested.returncode == 3 and nested.stderr.startswith("usage: exactdp pufferfish scale")


def test_exit_3_bad_value() -> None:
    res = run("tight-constraints", "line", "--n", "three", "--t", "1/2")  # argparse's type check
    assert res.returncode == 3
    assert res.stderr.startswith("usage: exactdp tight-constraints")
    assert "invalid int value: 'three'" in res.stderr
    res = run("tight-constraints", "line", "--n", "3", "--eps", "-1")  # the library's check
    assert res.returncode == 3 and "exactdp: error:" in res.stderr and "ε must be > 0" in res.stderr


def test_exit_3_unknown_subcommand_and_python_m_help() -> None:
    res = run("no-such-command")
    assert res.returncode == 3 and res.stderr.startswith("usage: exactdp [-h]")
    res = run("--help")
    assert res.returncode == 0 and "Exit codes" in res.stdout


# ------------------------------------------------------------------ through main()
def test_main_maps_handler_exceptions(monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    for exc, code in [(PrecisionLimitReached("p"), 2), (InstanceTooLarge("big"), 2),
                      (PropertyNeverHolds("never"), 1), (InvalidPrior("bad"), 3),
                      (CertificateInvalid("bug"), 4), (RuntimeError("bug"), 4)]:
        def raiser(*a: object, exc: Exception = exc, **k: object) -> None:
            raise exc

        monkeypatch.setattr(cli_sets, "check_set_privacy", raiser)
        assert main(SETS_CHECK) == code
        err = capsys.readouterr().err
        assert str(exc) in err
        if code == 4:
            assert "internal error" in err and "Traceback" in err


def test_main_usage_errors_return_3(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sets-check", "--X", "0"]) == 3
    assert capsys.readouterr().err.startswith("usage: exactdp sets-check")


# ------------------------------------------------------------------ the table itself
def test_the_table() -> None:
    assert [exit_code_for(v) for v in (Verdict.HOLDS, Verdict.FAILS, Verdict.UNDECIDED)] == [0, 1, 2]
    assert [int(c) for c in ExitCode] == [0, 1, 2, 3, 4] and ExitCode.OK == 0
    assert exit_code_for_exception(NotRegular("no")) == 1
    assert exit_code_for_exception(FileNotFoundError("x.json")) == 3
    assert exit_code_for_exception(json.JSONDecodeError("bad", "{", 0)) == 3
    assert exit_code_for_result(None) == 0 and exit_code_for_result(ExitCode.FAILS) == 1
    with pytest.raises(CertificateInvalid):
        exit_code_for_result(True)  # a bool is not an exit code
    with pytest.raises(CertificateInvalid):
        exit_code_for_result(7)
    assert checked_verdict(Verdict.FAILS, None) is Verdict.FAILS
    assert checked_verdict(Verdict.HOLDS, False) is ExitCode.INTERNAL_ERROR


def test_every_subparser_uses_the_exit_code_parser() -> None:
    parser = build_parser()
    assert isinstance(parser, ArgumentParser)
    stack: list[argparse.ArgumentParser] = [parser]
    seen = 0
    while stack:
        p = stack.pop()
        for action in p._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub in action.choices.values():
                    assert isinstance(sub, ArgumentParser), sub.prog
                    stack.append(sub)
                    seen += 1
    assert seen >= 15  # every command and the pufferfish subcommands


def test_json_output_on_a_negative_or_undecided_outcome_is_one_json_object():
    """With --json, stdout stays parseable even when the command ends by an exception (exit 1)."""
    import json
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "exactdp", "bounds", "line", "--n", "5", "--eps", "1",
                          "--prior", "1,0,0,0,0", "--json"], capture_output=True, text=True)
    assert out.returncode == 1
    doc = json.loads(out.stdout)
    assert doc["exit_code"] == 1 and doc["outcome"] == "fails" and doc["error"] == "NotRegular"


def test_valid_extreme_levels_and_sizes_get_a_verdict_or_undecided_not_bad_input():
    """ε = 1e400 is valid input (Φ ≈ I): decided by balls (exit 0), not 'bad input'; an
    instance beyond the machine's memory is 'undecided' (2), not an internal error."""
    import subprocess
    import sys

    big_eps = subprocess.run([sys.executable, "-m", "exactdp", "tight-constraints", "line", "--n", "5",
                              "--eps", "1e400", "--quiet"], capture_output=True, text=True)
    assert big_eps.returncode == 0 and "EXISTS" in big_eps.stdout
    huge = subprocess.run([sys.executable, "-m", "exactdp", "tight-constraints", "line", "--n", "100000000",
                           "--eps", "1", "--quiet"], capture_output=True, text=True)
    assert huge.returncode == 2 and "Traceback" not in huge.stderr
