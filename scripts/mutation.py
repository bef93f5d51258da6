"""Mutation testing of the kernel: mutate one operator or constant at a time, re-run the
kernel's tests, count the mutants they kill.

    python scripts/mutation.py [FILE ...] [--pytest] [--tests T ...] [--no-corpus]
                               [--sample N] [--timeout S] [--json OUT]

FILE defaults to every module of exactdp/kernel/ (any module of the package can be named).
A mutant is one change at one place:
a comparison flipped or made (non-)strict (< ↔ <=, == ↔ !=, is ↔ is not, in ↔ not in),
``and`` ↔ ``or``, a ``not`` dropped, + ↔ -, * ↔ /, ** → *, an integer constant k → k + 1,
True ↔ False, and ``return True`` for every other return of a function that returns a bool. Docstrings,
annotations, ``__all__`` and strings are not mutated.

How (an equivalent of mutmut, fast enough for a 2-core machine): the library and the
corpus are imported once; each mutant runs in a forked child that swaps the mutated code
objects into the live functions (``f.__code__``; module-level constants and plain-data
tables — lists, dicts of numbers — are rebound), so every caller — also code that
imported a function by name — runs the mutant. Since session 25 it also applies what a
code swap cannot reach: a changed ``@dataclass`` option (the methods the option writes are
copied onto the live class), a changed module-level value built by a call or holding lambdas
(re-evaluated in the live module; a dict or list is updated in place), and the code of every
live function compiled from a mutated body — lambdas in tables, closures built at import —
found through the garbage collector (tests/repo/test_mutation_tool25.py); a changed constant
is also written into the package modules that imported it by name. Still out of reach: a value
another module computed from a constant at import (threshold_spd.Y_LEVELS from
threshold_taylor.SY, a default argument ``sy=SY`` there), and the body of ``if __name__ ==
"__main__"``, which runs only in a program of its own (the tool skips fresh-process tests).
The child first replays tests/kernel/kernel_corpus.jsonl (genuine and edited certificates with outcomes decided
independently of the kernel); with ``--pytest`` a mutant that survives the corpus is then
run against the module's own tests (:func:`own_tests`: tests/kernel/test_*<module>*.py) and the
kernel's unit tests (:data:`PYTEST_TARGETS`), or only ``--tests``, in the same child.
``--timeout S`` bounds each mutant (S for the corpus, 10·S for pytest; a timeout counts as
killed). Example (session 12)::

    python scripts/mutation.py exactdp/kernel/lattice.py --pytest --no-corpus --timeout 30 \
        --equivalent scripts/mutation_equivalent.txt --json lattice.json
With ``--pytest`` the tests run once on the unmutated module first: a test that fails there would
count every mutant killed, so the tool stops (exit 3; session 27). A file outside this checkout's
package, or a package imported from another checkout, is refused too.
A child that times out (an endless loop) or crashes (flint aborts) counts as killed; the
report says how many of each. The report lists every survivor (file, line,
change) so each can be judged equivalent or turned into a test.
"""

from __future__ import annotations

import argparse
import ast
import copy
import functools
import gc
import importlib
import importlib.util
import json
import os
import random
import signal
import sys
import time
import types
from fractions import Fraction
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
KERNEL = ROOT / "exactdp" / "kernel"

_CMP = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq,
        ast.NotEq: ast.Eq, ast.Is: ast.IsNot, ast.IsNot: ast.Is, ast.In: ast.NotIn,
        ast.NotIn: ast.In}
_BIN = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult, ast.Pow: ast.Mult}


def _skipped(tree: ast.Module) -> set[int]:
    """ids of nodes never mutated: docstrings, annotations, __all__."""
    out: set[int] = set()

    def mark(node: ast.AST | None) -> None:
        if node is not None:
            out.update(id(n) for n in ast.walk(node))

    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) and isinstance(
                body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
            mark(body[0])
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            mark(node.returns)
            for a in node.args.args + node.args.kwonlyargs + node.args.posonlyargs:
                mark(a.annotation)
        if isinstance(node, ast.AnnAssign):
            mark(node.annotation)
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            mark(node)
    return out


def sites(tree: ast.Module) -> list[tuple[int, int, str]]:
    """(node index in ast.walk order, variant, description) of every mutant."""
    skip = _skipped(tree)
    out = []
    bool_funcs = {id(f) for f in ast.walk(tree) if isinstance(f, ast.FunctionDef)
                  and isinstance(f.returns, (ast.Name, ast.Constant))
                  and getattr(f.returns, "id", getattr(f.returns, "value", None)) == "bool"}
    returns_in_bool = set()
    for f in ast.walk(tree):
        if id(f) in bool_funcs:
            for n in ast.walk(f):
                if isinstance(n, ast.Return) and n.value is not None and not (
                        isinstance(n.value, ast.Constant) and n.value.value is True):
                    returns_in_bool.add(id(n))  # "return True" → "return True" is no mutant
    for k, node in enumerate(ast.walk(tree)):
        if id(node) in skip:
            continue
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _CMP:
            out.append((k, 0, f"line {line}: {type(node.ops[0]).__name__} -> "
                              f"{_CMP[type(node.ops[0])].__name__}"))
        elif isinstance(node, ast.BoolOp):
            out.append((k, 0, f"line {line}: {type(node.op).__name__} -> "
                              f"{'Or' if isinstance(node.op, ast.And) else 'And'}"))
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            out.append((k, 0, f"line {line}: drop not"))
        elif isinstance(node, ast.BinOp) and type(node.op) in _BIN:
            out.append((k, 0, f"line {line}: {type(node.op).__name__} -> "
                              f"{_BIN[type(node.op)].__name__}"))
        elif isinstance(node, ast.Constant) and isinstance(node.value, bool):
            out.append((k, 0, f"line {line}: {node.value} -> {not node.value}"))
        elif isinstance(node, ast.Constant) and type(node.value) is int:
            out.append((k, 0, f"line {line}: {node.value} -> {node.value + 1}"))
        elif isinstance(node, ast.Return) and id(node) in returns_in_bool:
            out.append((k, 0, f"line {line}: return True"))
    return out


def mutate(tree: ast.Module, index: int) -> ast.Module:
    """A copy of ``tree`` with the mutant at node ``index`` applied."""
    new = copy.deepcopy(tree)
    node = list(ast.walk(new))[index]
    if isinstance(node, ast.Compare):
        node.ops = [_CMP[type(node.ops[0])]()]
    elif isinstance(node, ast.BoolOp):
        node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
    elif isinstance(node, ast.UnaryOp):
        node.op = ast.UAdd()  # +x keeps the value: the "not" is gone (operands here are bools)
        node.operand = ast.Call(ast.Name("bool", ast.Load()), [node.operand], [])
    elif isinstance(node, ast.BinOp):
        node.op = _BIN[type(node.op)]()
    elif isinstance(node, ast.Constant) and isinstance(node.value, bool):
        node.value = not node.value
    elif isinstance(node, ast.Constant):
        node.value = node.value + 1
    elif isinstance(node, ast.Return):
        node.value = ast.Constant(True)
    return ast.fix_missing_locations(new)


#: What ``--pytest`` runs on a corpus survivor: the kernel's unit tests (in-memory claims of
#: every type, round trips; the fresh-process tests are skipped; the fast targeted
#: ``test_kernel_mut_*.py`` first) — the corpus covers the JSON
#: path of the linear kinds; the threshold kinds are covered by test_kernel_threshold.py only.
PYTEST_TARGETS = [*sorted(str(p) for p in (ROOT / "tests" / "kernel").glob("test_kernel_mut_*.py")),
                  str(ROOT / "tests" / "kernel" / "test_kernel_linear.py"),
                  str(ROOT / "tests" / "kernel" / "test_kernel_threshold.py"),
                  str(ROOT / "tests" / "kernel" / "test_kernel_jsonio.py"),
                  str(ROOT / "tests" / "kernel" / "test_kernel_question.py"),
                  str(ROOT / "tests" / "kernel" / "test_spd_json_kernel.py")]


def _functions(ns: dict[str, Any], module_name: str) -> dict[str, types.FunctionType]:
    """Every function defined in the module, by qualified name (methods included), and the
    function each one wraps (``__wrapped__``: a ``@contextmanager`` or ContextDecorator body, a
    dataclass ``__repr__`` under ``recursive_repr``)."""
    found: list[tuple[str, Any]] = []
    for name, obj in ns.items():
        if isinstance(obj, types.FunctionType) and obj.__module__ == module_name:
            found.append((name, obj))
        elif isinstance(obj, type) and obj.__module__ == module_name:
            found += [(f"{name}.{attr}", val.fget if isinstance(val, property) else val.func
                       if isinstance(val, functools.cached_property) else getattr(val, "__func__", val))
                      for attr, val in vars(obj).items()]
    out = {}
    for qual, fn in found:
        if isinstance(fn, types.FunctionType):
            out[qual] = fn
            inner = getattr(fn, "__wrapped__", None)
            if isinstance(inner, types.FunctionType):
                out[f"{qual}.__wrapped__"] = inner
    return out


def install(module: types.ModuleType, tree: ast.Module) -> None:
    """Swap the mutant's code objects into the live module's functions; then (session 25)
    apply what a code swap cannot reach: a dataclass option (:func:`_sync_dataclasses`), a
    module-level value built by a call or holding lambdas (:func:`_rebuild_values`), and the
    code of every other live function compiled from a mutated body — lambdas in tables,
    closures built at import (:func:`_swap_nested`)."""
    filename = module.__file__ or "<mutant>"
    code = compile(tree, filename, "exec", dont_inherit=True)  # no __future__ of this script
    ns: dict[str, Any] = {"__name__": module.__name__, "__file__": module.__file__}
    exec(code, ns)  # noqa: S102 - the point of mutation testing
    new = _functions(ns, module.__name__)
    for qual, fn in _functions(vars(module), module.__name__).items():
        if qual in new and new[qual].__code__.co_freevars == fn.__code__.co_freevars:
            fn.__code__ = new[qual].__code__
            fn.__defaults__ = new[qual].__defaults__  # default values live outside the code
            fn.__kwdefaults__ = new[qual].__kwdefaults__
    original = ast.parse(Path(filename).read_text()) if Path(filename).is_file() else None
    if original is not None:
        _sync_dataclasses(module, ns)
        _swap_nested(compile(original, filename, "exec", dont_inherit=True), code)
        _rebuild_values(module, original, tree, filename)
    for name, val in ns.items():
        if (isinstance(val, (int, str, tuple, frozenset)) or _plain(val)) and not name.startswith("__"):
            setattr(module, name, val)


#: What ``@dataclass(...)`` options write into a class: a changed option is applied to the
#: live class by copying these from the mutant's class (or deleting them).
_DATACLASS_MADE = ("__init__", "__repr__", "__eq__", "__hash__", "__setattr__", "__delattr__",
                   "__lt__", "__le__", "__gt__", "__ge__", "__match_args__", "__dataclass_params__")


def _sync_dataclasses(module: types.ModuleType, ns: dict[str, Any]) -> None:
    """A mutated ``@dataclass`` option (``frozen=True`` → ``False``) reaches the live class:
    swapping function code never changes a class, so the methods the option makes are copied."""
    for name, cls in ns.items():
        live = vars(module).get(name)
        if not (isinstance(cls, type) and isinstance(live, type) and cls.__module__ == module.__name__
                and "__dataclass_params__" in vars(cls) and "__dataclass_params__" in vars(live)):
            continue
        if repr(vars(cls)["__dataclass_params__"]) == repr(vars(live)["__dataclass_params__"]):
            continue
        for attr in _DATACLASS_MADE:
            if attr in vars(cls):
                setattr(live, attr, vars(cls)[attr])
            elif attr in vars(live):
                delattr(live, attr)


def _code_pairs(old: types.CodeType, new: types.CodeType) -> list[tuple[types.CodeType, types.CodeType]]:
    """The code objects of two compilations of one source shape, paired in the same order (a
    mutant changes an operator or a constant, never which functions exist)."""
    olds = [c for c in old.co_consts if isinstance(c, types.CodeType)]
    news = [c for c in new.co_consts if isinstance(c, types.CodeType)]
    out = [(old, new)]
    if len(olds) == len(news):
        for a, b in zip(olds, news):
            out += _code_pairs(a, b)
    return out


def _swap_nested(old: types.CodeType, new: types.CodeType) -> None:
    """Give the mutant's code to every live function (found through the garbage collector)
    whose code is an original code object that the mutant changed: a lambda in a table, a
    closure a factory built at import, a function another module holds."""
    changed: dict[tuple[str, int], list[tuple[types.CodeType, types.CodeType]]] = {}
    for a, b in _code_pairs(old, new)[1:]:  # [0] is the module body itself
        if a != b:
            changed.setdefault((a.co_qualname, a.co_firstlineno), []).append((a, b))
    if not changed:
        return
    for obj in gc.get_objects():
        if type(obj) is types.FunctionType:
            for a, b in changed.get((obj.__code__.co_qualname, obj.__code__.co_firstlineno), ()):
                code = obj.__code__
                if code == a and code.co_filename == a.co_filename and a.co_freevars == b.co_freevars:
                    obj.__code__ = b
                    break


def _rebuild_values(module: types.ModuleType, original: ast.Module, tree: ast.Module,
                    filename: str) -> None:
    """A module-level ``NAME = expression`` that the mutant changed is evaluated again in the
    live module (its classes, its swapped functions): values built by a call (``EpsRange(1,
    None)``, ``fmpz_poly([1, 1])``) and tables holding lambdas. A dict or list is updated in
    place, so modules that imported it see the mutant too."""
    for before, after in zip(original.body, tree.body):
        if not isinstance(after, (ast.Assign, ast.AnnAssign)) or after.value is None:
            continue
        if ast.dump(before) == ast.dump(after):
            continue
        targets = after.targets if isinstance(after, ast.Assign) else [after.target]
        if not all(isinstance(t, ast.Name) for t in targets):
            continue
        expr = ast.fix_missing_locations(ast.Expression(after.value))
        value = eval(compile(expr, filename, "eval", dont_inherit=True), vars(module))  # noqa: S307 - the mutant
        for t in targets:
            assert isinstance(t, ast.Name)
            live = vars(module).get(t.id)
            if type(live) is dict and type(value) is dict:
                live.clear()
                live.update(value)
            elif type(live) is list and type(value) is list:
                live[:] = value
            else:
                setattr(module, t.id, value)
                for other, alias in _importers(module.__name__, t.id):
                    setattr(other, alias, value)


def _importers(name: str, attr: str) -> list[tuple[types.ModuleType, str]]:
    """(module, local name) of every loaded module that holds ``attr`` through ``from name import
    attr [as local]`` (read from its source), and through re-exports of it (``from importer
    import local``; session 27: threshold_cover_claims takes limits.MAX_PIECES from read_common):
    an int or a string imported by name is a copy, so a mutant of the constant must be written
    there too (e.g. limits.MAX_DEPTH)."""
    out: list[tuple[types.ModuleType, str]] = []
    todo, seen = [(name, attr)], {(name, attr)}
    while todo:
        source, local = todo.pop()
        for other in list(sys.modules.values()):
            path = getattr(other, "__file__", None)
            if other is None or not path or not path.endswith(".py") or not other.__name__.startswith(
                    name.split(".")[0] + "."):
                continue
            for node in ast.parse(Path(path).read_text()).body:  # module-level imports only
                if isinstance(node, ast.ImportFrom) and node.module == source and node.level == 0:
                    for a in node.names:
                        key = (other.__name__, a.asname or a.name)
                        if a.name == local and key not in seen:
                            seen.add(key)
                            out.append((other, key[1]))
                            todo.append(key)
    return out


def _plain(val: Any) -> bool:
    """Module-level data a mutant may change: numbers, strings, and lists / tuples / sets /
    dicts of them (e.g. a table of offsets built at import; functions, classes and modules
    are swapped by code, never rebound)."""
    if isinstance(val, (bool, int, float, str, Fraction)) or val is None:
        return True
    if isinstance(val, (list, tuple, set, frozenset)):
        return all(_plain(v) for v in val)
    if isinstance(val, dict):
        return all(_plain(k) and _plain(v) for k, v in val.items())
    return False


def _corpus() -> tuple[list[dict[str, Any]], Any]:
    spec = importlib.util.spec_from_file_location(
        "kernel_corpus_test", ROOT / "tests" / "kernel" / "test_kernel_corpus.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.ROWS, mod.outcome


def own_tests(stem: str) -> list[str]:
    """The tests written for kernel module ``stem`` (tests/kernel/test_*<stem>*.py, e.g. every
    test_kernel_mutants*_lattice.py and test_lattice_mutants12.py for lattice.py), in reverse name order
    (the targeted mutant tests first: they are fast and kill most mutants with ``-x``). For
    ``__main__`` the tests are test_*_main.py (test_kernel_mutants25_main.py)."""
    pattern = f"test_*_{stem.strip('_')}.py" if stem.startswith("__") else f"test_*{stem}*.py"
    found = {p for p in (ROOT / "tests" / "kernel").glob(pattern)}
    return [str(p) for p in sorted(found, key=lambda p: p.name, reverse=True)]


def run_child(module: types.ModuleType, tree: ast.Module, rows: list[dict[str, Any]], outcome: Any,
              use_pytest: bool, timeout: int, targets: list[str] | None = None) -> str:
    """'killed' / 'survived' / 'timeout' for one mutant, in a forked child."""
    pid = os.fork()
    if pid == 0:  # child
        signal.alarm(timeout)
        code = 0
        try:
            install(module, tree)
            for row in rows:
                if outcome(row) != row["expected"]:
                    code = 1
                    break
            if code == 0 and use_pytest:
                signal.alarm(10 * timeout)  # the unit tests are slower than the corpus
                import pytest

                with open(os.devnull, "w") as devnull:
                    sys.stdout = devnull
                    rc = pytest.main(["-q", "-x", "-p", "no:cacheprovider", "--no-header",
                                      "-k", "not fresh_process", *(targets or PYTEST_TARGETS)])
                # 1: tests failed; 2: interrupted (a test module no longer imports). 3, 4, 5 (an
                # internal error, a node id not found, no tests collected) say nothing about the
                # mutant: counted as survivors, to be looked at (session 25: a mutant that renames
                # a parametrized test's id made its node id "not found", which read as a kill)
                code = 0 if rc == 0 else 2 if rc in (1, 2) else 3
        except BaseException:  # noqa: BLE001 - a mutant that crashes the tests is killed
            code = 1
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return "timeout" if os.WTERMSIG(status) == signal.SIGALRM else "crashed"
    return {0: "survived", 1: "killed", 2: "killed by unit tests", 3: "tests not run"}[os.WEXITSTATUS(status)]


def resolve_target(target: str) -> str:
    """A pytest target with its file part made absolute; a node id's part after "::" is kept
    as written (Path would fold "test[1//2]" into "test[1/2]", and pytest would answer "not
    found": every mutant of jsonio.py read as killed, session 25)."""
    path, sep, node = target.partition("::")
    return str(Path(path).resolve()) + sep + node


def shard_of(found: list[Any], shard: tuple[int, int]) -> list[Any]:
    """Shard ``I/N`` of the mutants: every N-th from the I-th, so shards 0..N-1 split a run."""
    i, n = shard
    return found[i::n]


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="*", help="kernel modules (default: all of exactdp/kernel)")
    ap.add_argument("--pytest", action="store_true", help="run pytest on corpus survivors")
    ap.add_argument("--timeout", type=int, default=60, help="seconds per mutant")
    ap.add_argument("--tests", nargs="+", help="the unit tests --pytest runs (default: "
                                                 "tests/kernel/test_kernel_mut_*.py and the kernel's)")
    ap.add_argument("--no-corpus", action="store_true",
                    help="skip the corpus (it holds linear-system documents only)")
    ap.add_argument("--sample", type=int, help="run only this many mutants per file, drawn at "
                                               "random (--seed): an estimate, reported as such")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--shard", help="I/N: run only every N-th mutant starting at the I-th (0-based), so N "
                                    "processes share a complete run; each report says which shard it is")
    ap.add_argument("--json", help="write the full report here")
    ap.add_argument("--survivors", help="a previous --json report: re-run only its survivors "
                                        "(its killed count is kept)")
    ap.add_argument("--equivalent", help="a text file of survivors judged equivalent, one "
                                         "'<file> line N: <change>' per line (after '#': the argument); "
                                         "the report adds the score without them")
    args = ap.parse_args(argv)
    shard = (0, 1)
    if args.shard is not None:
        part = args.shard.split("/")
        if len(part) != 2 or not all(x.isdigit() for x in part) or not 0 <= int(part[0]) < int(part[1]):
            ap.error(f"--shard {args.shard!r}: give I/N with 0 <= I < N, e.g. --shard 0/2 and --shard 1/2")
        shard = (int(part[0]), int(part[1]))
        if args.survivors or args.sample is not None:
            ap.error("--shard splits a complete run: it does not combine with --survivors or --sample")
    if args.tests:
        PYTEST_TARGETS[:] = [resolve_target(f) for f in args.tests]
    files = [Path(f).resolve() for f in args.files] or sorted(
        p for p in KERNEL.glob("*.py") if p.name not in ("__init__.py", "__main__.py"))
    modules: dict[Path, types.ModuleType] = {}
    sys.path.insert(0, str(ROOT))  # mutate this checkout's package, whichever exactdp is installed
    for path in files:
        if not path.is_relative_to(ROOT / "exactdp") or path.suffix != ".py" or not path.is_file():
            ap.error(f"{path}: name a module (a .py file) of this checkout's package, under {ROOT / 'exactdp'}")
        if not path.is_relative_to(KERNEL) and not args.tests:
            ap.error(f"{path.relative_to(ROOT)} is not a kernel module, so it has no own tests "
                     "(tests/kernel/test_*<stem>*.py): name them with --tests")
        # the dotted name from the file's place in the package (a kernel module, or a primitive
        # of arithmetic/ the kernel reads, with --tests; session 27); a package's __init__ is the package
        parts = path.relative_to(ROOT).with_suffix("").parts
        modules[path] = importlib.import_module(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
        if Path(modules[path].__file__ or "").resolve() != path:  # another checkout's package on sys.path
            print(f"{path.relative_to(ROOT)} was imported from {modules[path].__file__}: run the tool with "
                  f"this checkout's package first on the path (PYTHONPATH={ROOT})", file=sys.stderr)
            return 3
    rows, outcome = _corpus()
    if args.no_corpus:
        rows = []
    bad = [r["name"] for r in rows if outcome(r) != r["expected"]]
    if bad:
        print(f"the unmutated kernel fails the corpus on {bad}; fix that first", file=sys.stderr)
        return 3
    report: dict[str, Any] = {"files": {}, "total": 0, "killed": 0, "survivors": [],
                              "how": {}}
    previous = json.loads(Path(args.survivors).read_text()) if args.survivors else None
    if previous is not None and any("sampled_from" in v for v in previous["files"].values()):
        ap.error("--survivors counts every mutant not listed as killed: it needs the report of a full "
                 "run, not of a --sample run (re-run the sample: same --sample N and --seed)")
    if previous is not None and any("shard" in v for v in previous["files"].values()):
        ap.error("--survivors needs one report of the whole run: merge the --shard reports first "
                 "(sum 'mutants' and 'killed', join 'survivors', drop 'shard')")
    t0 = time.time()
    for path in files:
        module = modules[path]
        tree = ast.parse(path.read_text())
        targets = None if args.tests else [*own_tests(path.stem), *PYTEST_TARGETS]
        found = sites(tree)
        killed = 0
        rel = str(path.relative_to(ROOT))
        if previous is not None:
            alive = set(previous["survivors"])
            total = len(found)
            found = [f for f in found if f"{rel} {f[2]}" in alive]
            killed = total - len(found)
        if args.sample is not None and args.sample < len(found):
            found = sorted(random.Random(args.seed).sample(found, args.sample))
        found = shard_of(found, shard)
        if args.pytest and found:  # a test that fails unmutated would count every mutant killed
            base = run_child(module, tree, [], outcome, True, args.timeout, targets)
            if base != "survived":
                print(f"the unmutated {path.relative_to(ROOT)} does not pass its tests ({base}): fix "
                      "them, or name passing ones with --tests", file=sys.stderr)
                return 3
        for k, (index, _, desc) in enumerate(found):
            result = run_child(module, mutate(tree, index), rows, outcome, args.pytest, args.timeout, targets)
            report["how"][result] = report["how"].get(result, 0) + 1
            if result in ("survived", "tests not run"):
                report["survivors"].append(f"{path.relative_to(ROOT)} {desc}")
                note = "" if result == "survived" else " (tests not run: a node id not found?)"
                print(f"\n  survivor: {path.name} {desc}{note}", file=sys.stderr, flush=True)
            else:
                killed += 1
            print(f"\r{path.name}: {k + 1}/{len(found)} mutants, {killed} killed "
                  f"({time.time() - t0:.0f} s)", end="", file=sys.stderr, flush=True)
        print(file=sys.stderr)
        n_mutants = len(sites(tree)) if args.sample is None and shard[1] == 1 else len(found)
        report["files"][rel] = {"mutants": n_mutants, "killed": killed}
        if shard[1] > 1:
            report["files"][rel]["shard"] = f"{shard[0]}/{shard[1]} of {len(sites(tree))}"
        if args.sample is not None:
            report["files"][rel]["sampled_from"] = len(sites(tree))
        report["total"] += n_mutants
        report["killed"] += killed
    score = report["killed"] / report["total"] if report["total"] else 1.0
    report["score"] = round(score, 4)
    report["seconds"] = round(time.time() - t0)
    for f, v in report["files"].items():
        of = f" (a random sample of {v['sampled_from']})" if "sampled_from" in v else ""
        print(f"{f}: {v['killed']}/{v['mutants']} killed{of}")
    print(f"total: {report['killed']}/{report['total']} killed ({100 * score:.1f} %), "
          f"{len(report['survivors'])} survivors, {report['seconds']} s; outcomes {report['how']}")
    if args.equivalent:
        judged = {line.split("#")[0].strip() for line in Path(args.equivalent).read_text().splitlines()}
        equivalent = [s for s in report["survivors"] if s in judged]
        rest = report["total"] - len(equivalent)
        report["equivalent"] = equivalent
        report["score_without_equivalent"] = round(report["killed"] / rest, 4) if rest else 1.0
        print(f"without the {len(equivalent)} judged equivalent: {report['killed']}/{rest} killed "
              f"({100 * report['score_without_equivalent']:.1f} %)")
    for s in report["survivors"]:
        print("  survivor:", s, "(judged equivalent)" if s in report.get("equivalent", ()) else "")
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
