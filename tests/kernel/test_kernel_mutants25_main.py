"""Session 25, first complete mutation run of exactdp/kernel/__main__.py (``python -m
exactdp.kernel``): its own exit codes and lines, in-process (the fresh-process tests of the
same entry point run a separate interpreter, which no mutant reaches).

Ground truth: the exit-code table of the CLI (0 verified, 1 rejected, 2 undecided, 3
malformed; several files: the worst). The documents: the 2-point grid-point certificate of
tests/kernel/test_exit_codes15.py (Φ = [[1, 1/2], [1/2, 1]] at t = 1/2, z = (2/3, 2/3)); the
same with the first mantissa lowered by 2^20 (y_0 ≈ 0.417: the residual (1/4, 1/8) over
λ = 1/9 no longer proves z ≥ 0, so the evidence does not re-check: well formed, rejected);
and the same question on a 3,000 × 3,000 grid, over the kernel's 4·10⁶-point limit
(undecided).
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from fractions import Fraction as F

import pytest

from exactdp.engine.documents import write_grid_point
from exactdp.kernel.__main__ import main
from exactdp.kernel.grid_point import GridPointClaim
from exactdp.spaces.levels import parse_level
from exactdp.spaces.metrics.masked import GridShape


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    shape = GridShape(2, 1, "manhattan", F(1))
    claim = GridPointClaim(shape, parse_level(t="1/2"), (F(1), F(1)), True, None, (2796202, 2796203), 22,
                           F(1, 9), 64)
    good = write_grid_point(claim)
    bad = copy.deepcopy(good)
    bad["evidence"]["mantissas"][0] = str(int(bad["evidence"]["mantissas"][0]) - 2**20)
    big = copy.deepcopy(good)
    big["question"]["metric"]["width"] = big["question"]["metric"]["height"] = 3000
    root = tmp_path_factory.mktemp("cli25")
    out = {}
    for name, doc in (("good", good), ("bad", bad), ("big", big)):
        out[name] = str(root / f"{name}.json")
        with open(out[name], "w") as fh:
            json.dump(doc, fh)
    out["broken"] = str(root / "broken.json")
    with open(out["broken"], "w") as fh:
        fh.write("{}")
    return out


# kills "line 17: 0 -> 1" (worst starts at 1: a verified file exits 1), "line 32: 0 -> 1" and
# "line 32: 1 -> 2" (the verified and rejected codes), "line 24: 2 -> 3" (undecided read as
# malformed) and "line 30: Add -> Sub" (the verdict line is text + text)
def test_each_outcome_has_its_exit_code_and_line(files, capsys):
    assert main([files["good"]]) == 0
    out = capsys.readouterr().out
    assert out == f"{files['good']}: grid-point: verified\n"
    assert main([files["bad"]]) == 1
    out = capsys.readouterr().out
    assert out.startswith(f"{files['bad']}: grid-point: REJECTED (") and out.endswith(")\n")
    assert main([files["big"]]) == 2
    assert f"{files['big']}: undecided: " in capsys.readouterr().err
    assert main([files["broken"]]) == 3


@pytest.mark.parametrize(("names", "code"), [
    (["good", "good"], 0), (["good", "bad", "good"], 1), (["bad", "big"], 2), (["big", "bad"], 2),
    (["big", "broken", "good"], 3), (["broken", "big"], 3), (["good", "broken"], 3)])
def test_several_files_exit_with_the_worst(files, names, code):
    assert main([files[n] for n in names]) == code


# "line 37: 1 -> 2" (sys.argv[2:]) lives under `if __name__ == "__main__"`, which only runs in a
# program of its own: a fresh interpreter, which no in-process mutant reaches. Applied to a
# copy of the source by hand (session 25) it drops the one file named and exits 3 (usage)
def test_the_program_checks_the_file_it_is_given_fresh_process(files):
    for name, code in (("good", 0), ("bad", 1), ("big", 2), ("broken", 3)):
        run = subprocess.run([sys.executable, "-m", "exactdp.kernel", files[name]], capture_output=True, text=True)
        assert run.returncode == code, (name, run.stdout, run.stderr)
    run = subprocess.run([sys.executable, "-m", "exactdp.kernel", files["good"]], capture_output=True, text=True)
    assert run.stdout == f"{files['good']}: grid-point: verified\n"
