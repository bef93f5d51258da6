"""``scripts/mutation.py`` applies the mutants that swapping function code cannot reach
(session 25). Before, each of these was a "tool limit" in scripts/mutation_equivalent.txt,
applied to the source by hand instead:

- a ``@dataclass`` option (``frozen=True`` → ``False``): the live class kept its
  ``__setattr__`` and the mutant never existed;
- a module-level value built by a call (``ALL = Span(1, None)``): only plain data was rebound;
- a lambda inside a module-level table, and a closure a factory built at import: only named
  functions had their code swapped, so the table and the closure kept the original code;
- a constant another module of the package imported by name (``from …limits import
  MAX_DEPTH``): that module kept its own copy.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import importlib.util
import sys
import textwrap
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

SOURCE = textwrap.dedent('''
    from dataclasses import dataclass

    @dataclass(frozen=True)
    class Span:
        lo: int
        hi: int | None

    ALL = Span(1, None)

    COUNTS = {"line": lambda k: k + 1, "cycle": lambda k: k}

    def limit(top):
        def check(v):
            return v <= top
        return check

    CHECKS = {"small": limit(10)}

    def count(kind, k):
        return COUNTS[kind](k)
''')


def _script() -> types.ModuleType:
    spec = importlib.util.spec_from_file_location("mutation_script25", ROOT / "scripts" / "mutation.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    """The source as a module loaded from a real file (the tool re-reads the original)."""
    path = tmp_path / "mutation_target25.py"
    path.write_text(SOURCE)
    spec = importlib.util.spec_from_file_location("mutation_target25", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "mutation_target25", mod)  # dataclasses look it up
    spec.loader.exec_module(mod)
    return mod


def _mutant(old: str, new: str) -> ast.Module:
    assert SOURCE.count(old) == 1, old
    return ast.parse(SOURCE.replace(old, new))


def test_unmutated_install_changes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tool, mod = _script(), _module(tmp_path, monkeypatch)
    span, counts, check = mod.Span, mod.COUNTS, mod.CHECKS["small"]
    tool.install(mod, ast.parse(SOURCE))
    with pytest.raises(dataclasses.FrozenInstanceError):
        span(1, 2).lo = 3
    assert hash(span(1, 2)) == hash(span(1, 2))
    assert mod.ALL == span(1, None) and type(mod.ALL) is span
    assert counts["line"](4) == 5 and counts["cycle"](4) == 4 and mod.count("line", 4) == 5
    assert check(10) and not check(11)


def test_a_dataclass_option_reaches_the_live_class(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tool, mod = _script(), _module(tmp_path, monkeypatch)
    span = mod.Span  # the class object a test imported before the mutant
    before = span(1, 2)
    tool.install(mod, _mutant("frozen=True", "frozen=False"))
    before.lo = 5  # FrozenInstanceError before the mutant
    after = span(3, 4)
    after.hi = 7
    assert (before.lo, after.hi) == (5, 7)
    with pytest.raises(TypeError):  # eq without frozen: unhashable, as the mutant source makes it
        hash(after)


def test_a_value_built_by_a_call_is_rebuilt_with_the_live_class(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tool, mod = _script(), _module(tmp_path, monkeypatch)
    span = mod.Span
    tool.install(mod, _mutant("Span(1, None)", "Span(2, None)"))
    assert mod.ALL == span(2, None) and type(mod.ALL) is span  # the live class, not the mutant's


def test_a_lambda_in_a_table_gets_the_mutant(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tool, mod = _script(), _module(tmp_path, monkeypatch)
    counts = mod.COUNTS  # the table object another module imported
    tool.install(mod, _mutant("k + 1", "k - 1"))
    assert counts["line"](4) == 3 and counts["cycle"](4) == 4
    assert mod.count("line", 4) == 3


def test_a_closure_built_at_import_gets_the_mutant(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tool, mod = _script(), _module(tmp_path, monkeypatch)
    check = mod.CHECKS["small"]  # built by limit(10) when the module loaded
    tool.install(mod, _mutant("v <= top", "v < top"))
    assert not check(10) and check(9)
    assert not mod.limit(3)(3)  # and closures built after the mutant


IMPORTER = textwrap.dedent('''
    from mutation_pkg25.target import LIMIT as CAP

    def capped(v):
        return min(v, CAP)
''')


def test_a_constant_imported_by_name_moves_in_the_importer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tool = _script()
    pkg = tmp_path / "mutation_pkg25"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "target.py").write_text("LIMIT = 8\n")
    (pkg / "importer.py").write_text(IMPORTER)
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in ("mutation_pkg25", "mutation_pkg25.target", "mutation_pkg25.importer"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    target = importlib.import_module("mutation_pkg25.target")
    importer = importlib.import_module("mutation_pkg25.importer")
    assert importer.capped(100) == 8
    tool.install(target, ast.parse("LIMIT = 9\n"))
    assert target.LIMIT == 9 and importer.CAP == 9 and importer.capped(100) == 9
    for name in ("mutation_pkg25", "mutation_pkg25.target", "mutation_pkg25.importer"):
        sys.modules.pop(name, None)


def test_the_cli_module_has_its_own_tests() -> None:
    own = _script().own_tests("__main__")
    assert [Path(p).name for p in own] == ["test_kernel_mutants25_main.py"]
    assert any(Path(p).name == "test_kernel_mutants25_linear.py" for p in _script().own_tests("linear"))


def test_a_pytest_run_that_did_not_run_the_tests_is_no_kill(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """pytest's exit codes 3–5 (internal error, a node id not found, nothing collected) say
    nothing about a mutant: the child reports "tests not run", which counts as a survivor."""
    tool, mod = _script(), _module(tmp_path, monkeypatch)
    missing = str(tmp_path / "test_nothing_here.py") + "::test_absent"
    assert tool.run_child(mod, ast.parse(SOURCE), [], None, True, 60, [missing]) == "tests not run"
    failing = tmp_path / "test_fails25.py"
    failing.write_text("def test_fails():\n    assert False\n")
    assert tool.run_child(mod, ast.parse(SOURCE), [], None, True, 60, [str(failing)]) == "killed by unit tests"
    passing = tmp_path / "test_passes25.py"
    passing.write_text("def test_passes():\n    assert 1 + 1 == 2\n")
    assert tool.run_child(mod, ast.parse(SOURCE), [], None, True, 60, [str(passing)]) == "survived"


def test_node_ids_keep_their_parameters() -> None:
    tool = _script()
    jsonio = str(ROOT / "tests" / "kernel" / "." / "test_kernel_jsonio.py")
    got = tool.resolve_target(jsonio + "::test_bad_rational_strings[1//2]")
    assert got == str(ROOT / "tests" / "kernel" / "test_kernel_jsonio.py") + "::test_bad_rational_strings[1//2]"
    assert tool.resolve_target(jsonio + "::t[/]").endswith("test_kernel_jsonio.py::t[/]")
    assert tool.resolve_target(str(ROOT / "tests" / "kernel")) == str(ROOT / "tests" / "kernel")
