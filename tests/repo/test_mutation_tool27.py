"""``scripts/mutation.py`` mutates any module of the package named on its command line (session 27).

The kernel's three-way sign decisions now read :func:`exactdp.arithmetic.ball.ball_sign`
(one home for the primitive); its tie mutants are the ones the inline copies had as open gaps.
Until session 27 the tool derived every module name as ``exactdp.kernel.<stem>`` and could not
mutate an ``arithmetic/`` primitive. Here it runs ``ball_sign``'s four mutants (the only sites in
its body) against the tests written for it, in a real subprocess, and each is killed.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BALL = "exactdp/arithmetic/ball.py"


def _script() -> types.ModuleType:
    spec = importlib.util.spec_from_file_location("mutation_script27", ROOT / "scripts" / "mutation.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _ball_sign_sites(tool: types.ModuleType) -> list[str]:
    tree = ast.parse((ROOT / BALL).read_text())
    fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "ball_sign")
    lines = range(fn.lineno, (fn.end_lineno or fn.lineno) + 1)
    return [d for _, _, d in tool.sites(tree) if int(d.split()[1].rstrip(":")) in lines]


def _rerun_ball_sign(tmp_path: Path, sites: list[str], env: dict[str, str]) -> dict:
    """The tool's report of a --survivors run of ``sites`` (ball_sign's) against its tests, in a subprocess."""
    previous = tmp_path / "prev.json"
    previous.write_text(json.dumps({"files": {BALL: {"mutants": 0, "killed": 0}}, "total": 0, "killed": 0,
                                    "survivors": [f"{BALL} {d}" for d in sorted(set(sites))], "how": {}}))
    out = tmp_path / "out.json"
    run = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "mutation.py"), BALL, "--pytest", "--no-corpus", "--timeout", "60",
         "--survivors", str(previous), "--json", str(out), "--tests", "tests/core/test_core_ball_sign27.py"],
        cwd=ROOT, capture_output=True, text=True, timeout=600, env={**os.environ, **env})
    assert run.returncode == 0, run.stderr[-2000:]
    return json.loads(out.read_text())


def test_ball_sign_mutants_are_all_killed_by_its_tests(tmp_path: Path) -> None:
    tool = _script()
    sites = _ball_sign_sites(tool)
    # the two comparisons made non-strict, and their 0 → 1
    assert sorted(d.split(": ", 1)[1] for d in sites) == ["0 -> 1", "0 -> 1", "Gt -> GtE", "Lt -> LtE"]
    report = _rerun_ball_sign(tmp_path, sites, {"PYTHONHASHSEED": "0"})
    assert report["survivors"] == []
    assert report["how"] == {"killed by unit tests": 4}  # the four sites ran, and each was killed


def _run(args: list[str], cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(cwd / "scripts" / "mutation.py"), *args], cwd=cwd,
                          capture_output=True, text=True, timeout=600)


def test_files_outside_the_package_are_refused(tmp_path: Path) -> None:
    stray = tmp_path / "stray.py"
    stray.write_text("X = 1\n")
    for target in (str(stray), "exactdp/kernel/no_such_module.py", "exactdp/kernel", "exactdp/py.typed"):
        run = _run([target, "--no-corpus"])
        assert run.returncode == 2 and "name a module (a .py file) of this checkout's package" in run.stderr, target


def test_a_module_outside_the_kernel_needs_its_tests_named() -> None:
    run = _run([BALL, "--no-corpus", "--pytest"])
    assert run.returncode == 2 and "is not a kernel module" in run.stderr and "--tests" in run.stderr


def test_tests_that_fail_unmutated_stop_the_run(tmp_path: Path) -> None:
    failing = tmp_path / "test_fails27.py"
    failing.write_text("def test_fails():\n    assert False\n")
    run = _run(["exactdp/kernel/limits.py", "--no-corpus", "--pytest", "--tests", str(failing)])
    assert run.returncode == 3 and "does not pass its tests (killed by unit tests)" in run.stderr
    assert "mutants" not in run.stdout  # no mutant ran, none counted


def test_the_tool_mutates_its_own_checkout_whatever_is_first_on_the_path(tmp_path: Path) -> None:
    # another copy of the package, with a broken ball_sign, first on PYTHONPATH (as a
    # non-editable install would be): the tool must still import and mutate this checkout's
    # module — else the unmutated run of the tests fails and the tool stops with exit 3
    other = tmp_path / "other"
    shutil.copytree(ROOT / "exactdp", other / "exactdp", ignore=shutil.ignore_patterns("__pycache__"))
    ball = other / "exactdp" / "arithmetic" / "ball.py"
    assert ball.read_text().count("    if x > 0:\n") == 1
    ball.write_text(ball.read_text().replace("    if x > 0:\n", "    if x >= 0:\n"))
    report = _rerun_ball_sign(tmp_path, _ball_sign_sites(_script()), {"PYTHONPATH": str(other)})
    assert report["how"] == {"killed by unit tests": 4}


def test_a_constant_re_exported_by_an_importer_moves_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # limits.MAX_PIECES reaches threshold_cover_claims through read_common (a re-export):
    # the tool wrote the mutant only into direct importers, so 100000 -> 100001 survived
    tool = _script()
    pkg = tmp_path / "mutation_pkg27"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "limits.py").write_text("LIMIT = 8\n")
    (pkg / "common.py").write_text("from mutation_pkg27.limits import LIMIT\n")
    (pkg / "user.py").write_text("from mutation_pkg27.common import LIMIT as CAP\n\n\n"
                                 "def capped(v):\n    return min(v, CAP)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    names = ("mutation_pkg27", "mutation_pkg27.limits", "mutation_pkg27.common", "mutation_pkg27.user")
    for name in names:
        monkeypatch.delitem(sys.modules, name, raising=False)
    limits = importlib.import_module("mutation_pkg27.limits")
    common = importlib.import_module("mutation_pkg27.common")
    user = importlib.import_module("mutation_pkg27.user")
    assert user.capped(100) == 8
    tool.install(limits, ast.parse("LIMIT = 9\n"))
    assert (limits.LIMIT, common.LIMIT, user.CAP, user.capped(100)) == (9, 9, 9, 9)
    for name in names:
        sys.modules.pop(name, None)
