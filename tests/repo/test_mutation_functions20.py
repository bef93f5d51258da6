"""``scripts/mutation.py`` swaps the code of every function a kernel class holds: plain and
static methods, properties, ``functools.cached_property`` bodies (session 20: mutants of
``GridProducts.values`` were silently not applied) and the function a wrapper wraps (a
dataclass ``__repr__`` is wrapped by ``reprlib.recursive_repr``: mutants of a field's
``repr=`` option were silently not applied)."""

from __future__ import annotations

import ast
import importlib.util
import sys
import textwrap
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

SOURCE = textwrap.dedent('''
    import functools
    from dataclasses import dataclass, field

    @dataclass(frozen=True)
    class Box:
        a: int
        b: int = field(repr=False)

        @functools.cached_property
        def twice(self) -> int:
            return self.a + self.a

        @property
        def half(self) -> int:
            return self.a // 2
''')


def _script() -> types.ModuleType:
    spec = importlib.util.spec_from_file_location("mutation_script20", ROOT / "scripts" / "mutation.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _module(source: str, monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    mod = types.ModuleType("mutation_target20")
    mod.__file__ = "<mutation_target20>"
    monkeypatch.setitem(sys.modules, mod.__name__, mod)  # dataclasses look their module up
    exec(compile(source, mod.__file__, "exec"), mod.__dict__)  # noqa: S102 - a test fixture
    return mod


def test_cached_property_property_and_wrapped_repr_are_found(monkeypatch: pytest.MonkeyPatch) -> None:
    found = _script()._functions(vars(_module(SOURCE, monkeypatch)), "mutation_target20")
    assert {"Box.twice", "Box.half", "Box.__repr__", "Box.__repr__.__wrapped__"} <= set(found)


def test_mutants_of_each_reach_the_live_class(monkeypatch: pytest.MonkeyPatch) -> None:
    tool, mod = _script(), _module(SOURCE, monkeypatch)
    box_type = mod.Box
    tree = ast.parse(SOURCE.replace("self.a + self.a", "self.a - self.a").replace("// 2", "// 3")
                     .replace("field(repr=False)", "field(repr=True)"))
    tool.install(mod, tree)
    box = box_type(6, 7)  # an instance of the class the module had before the mutant
    assert box.twice == 0 and box.half == 2
    assert repr(box) == "Box(a=6, b=7)"


# Session 23: a module-level function behind a wrapper (``@contextmanager``, or a context
# manager used as a decorator, as ``verify_document`` is) kept the wrapper's code and never
# got the mutant: verify.py's "return KernelVerdict(True…)" survived every test.
WRAPPED = textwrap.dedent('''
    from contextlib import contextmanager

    @contextmanager
    def scope(k: int):
        yield k + 1

    @scope(0)
    def answer() -> int:
        return 41 + 1
''')


def test_mutants_reach_functions_behind_a_wrapper(monkeypatch: pytest.MonkeyPatch) -> None:
    tool, mod = _script(), _module(WRAPPED, monkeypatch)
    assert {"scope", "scope.__wrapped__", "answer", "answer.__wrapped__"} <= set(
        tool._functions(vars(mod), "mutation_target20"))
    scope, answer = mod.scope, mod.answer  # the live objects the tests imported
    tool.install(mod, ast.parse(WRAPPED.replace("k + 1", "k + 2").replace("41 + 1", "41 - 1")))
    with scope(0) as got:
        assert got == 2
    assert answer() == 40
