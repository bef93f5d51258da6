"""The package layout obeys its rules (issue 10), checked by an ``ast``/``tokenize`` walk.

Each rule is a function over a package folder, run on ``exactdp/`` (must find nothing) and
on a throwaway package written in ``tmp_path`` that breaks the rule (must find it), so a
rule that cannot fail cannot pass either.

1. No import cycle between modules; no module imports another module's ``_private`` name.
2. Imports at the top of the module, except lines that say why: ``# deferred: <reason>``.
3. No module over 600 lines.
4. One home of each numeric primitive (``arithmetic/``): no copy of the unit roundoff,
   ``nextafter``, γ_k or an inline Fraction→fmpq conversion elsewhere (code only, not prose).
5. No bare ``ValueError``/``TypeError``/… raised outside ``errors.py``; one validator of each
   kind (tolerances, priors, probabilities) in ``arithmetic/validate.py`` / ``spaces/priors.py``.
6. ``kernel/`` imports nothing from the package but ``arithmetic/``, ``spaces/``, ``kinds``
   and ``errors``.
"""

from __future__ import annotations

import ast
import io
import re
import textwrap
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PKG = ROOT / "exactdp"
MAX_LINES = 600
PRIMITIVE_HOME = "arithmetic"
KERNEL_ALLOWED = ("arithmetic", "spaces", "kinds", "errors")
BUILTIN_ERRORS = {"ValueError", "TypeError", "RuntimeError", "AssertionError", "KeyError",
                  "IndexError", "ArithmeticError", "ZeroDivisionError", "OverflowError",
                  "Exception", "NotImplementedError", "LookupError", "OSError", "StopIteration"}
# validator functions that must exist only in their one home
VALIDATOR_NAMES = re.compile(r"^_?(read_tol|tol|read_prior|prior|parse_prior|validate_prior|"
                             r"read_probability|read_precision|read_positive|check_tol)$")
VALIDATOR_HOMES = ("arithmetic/validate.py", "spaces/priors.py")
# code patterns that betray a copy of a numeric primitive
PRIMITIVE_PATTERNS = [
    (re.compile(r"2(\.0?)?\s*\*\*\s*\(?\s*-\s*5[23]\b"), "unit roundoff 2**-53"),
    (re.compile(r"0?\.5\s*\*\*\s*5[23]\b|\bpow\(\s*2(\.0?)?\s*,\s*-\s*5[23]\s*\)"), "unit roundoff 2**-53"),
    (re.compile(r"1\s*<<\s*5[23]\b"), "2**53"),
    (re.compile(r"\bmath\.ulp\(|float_info\.epsilon|finfo\([^)]*\)\.eps\b"),
     "unit roundoff from math.ulp / float_info / finfo"),
    (re.compile(r"1\.1102230246251565[eE]-16|2\.220446049250313[01]?[eE]-16"), "2**-53 / 2**-52 spelled out"),
    (re.compile(r"\bfmpq\(\s*int\(|\bfmpq\(\s*\*|as_integer_ratio\(\)"),
     "inline conversion to fmpq (use arithmetic.rationals.to_fmpq)"),
    (re.compile(r"Rational\(\s*([\w.\[\]]+)\.numerator\s*,\s*\1\.denominator\s*\)"),
     "inline Fraction→sympy.Rational (use arithmetic.rationals.to_sympy)"),
    (re.compile(r"Fraction\(\s*int\(\s*([\w.\[\]]+)\.p\s*\)\s*,\s*int\(\s*\1\.q\s*\)\s*\)"),
     "inline fmpq→Fraction (use arithmetic.rationals.fmpq_to_fraction)"),
    (re.compile(r"\bman_exp\(|\.mid_rad_10exp\(|\.lower\(\)\.man_exp"), "arb endpoint conversion"),
    (re.compile(r"2\s*\*\*\s*53\b"), "2**53"),
    (re.compile(r"9007199254740992|1\.1102230246251565e-16"), "2**53 / 2**-53 spelled out"),
    (re.compile(r"\bldexp\(\s*1(\.0)?\s*,\s*-\s*(53|1074)\s*\)"), "ldexp(1, -53/-1074)"),
    (re.compile(r"\bnextafter\b"), "nextafter (use arithmetic.rounding.succ/pred/float_up)"),
    (re.compile(r"\bspacing\("), "np.spacing"),
    (re.compile(r"\bfmpq\(\s*([\w.\[\]]+)\.numerator\s*,\s*\1\.denominator\s*\)"),
     "inline Fraction→fmpq (use arithmetic.rationals.to_fmpq)"),
    (re.compile(r"\(?\s*\b(\w+)\s*\*\s*(_?u\w*|eps)\s*\)?\s*/\s*\(\s*1\s*-\s*\1\s*\*\s*\2", re.I), "γ_k formula"),
    (re.compile(r"\(?\s*\b(_?u\w*|eps)\s*\*\s*(\w+)\s*\)?\s*/\s*\(\s*1\s*-\s*\1\s*\*\s*\2", re.I), "γ_k formula"),
]


def modules(pkg: Path) -> dict[str, Path]:
    """Dotted module name -> file, for every module under ``pkg``."""
    out = {}
    for p in sorted(pkg.rglob("*.py")):
        parts = list(p.relative_to(pkg.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = p
    return out


def _type_checking_lines(tree: ast.AST) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and ast.unparse(node.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING"):
            for sub in node.body:
                for n in ast.walk(sub):
                    if hasattr(n, "lineno"):
                        lines.add(n.lineno)
    return lines


def _imports(name: str, path: Path, mods: dict[str, Path]):
    """Yield (target module, imported name or None, node, at_top) for package imports."""
    root = name.split(".")[0]
    tree = ast.parse(path.read_text())
    tc = _type_checking_lines(tree)
    top: set[int] = set()

    def mark_top(stmts: list[ast.stmt]) -> None:  # module level, and module-level if/try/with blocks
        for st in stmts:
            top.add(id(st))
            if isinstance(st, (ast.If, ast.Try, ast.With)):
                for block in ("body", "orelse", "finalbody"):
                    mark_top(getattr(st, block, []))
                for h in getattr(st, "handlers", []):
                    mark_top(h.body)

    mark_top(tree.body)
    is_pkg = path.name == "__init__.py"
    base = name.split(".") if is_pkg else name.split(".")[:-1]
    for node in ast.walk(tree):
        if node.lineno in tc if hasattr(node, "lineno") else False:
            continue
        if isinstance(node, ast.ImportFrom):
            if node.level:
                mod = ".".join(base[: len(base) - node.level + 1] + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            if mod.split(".")[0] != root:
                yield None, None, node, id(node) in top
                continue
            for a in node.names:
                sub = f"{mod}.{a.name}"
                if sub in mods:
                    yield sub, None, node, id(node) in top
                else:
                    yield mod, a.name, node, id(node) in top
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] == root:
                    yield a.name, None, node, id(node) in top
                else:
                    yield None, None, node, id(node) in top
        elif isinstance(node, ast.Call) and _dynamic_import(node):
            arg = node.args[0] if node.args else None
            target = arg.value if isinstance(arg, ast.Constant) and isinstance(arg.value, str) else None
            yield (target if target and target.split(".")[0] == root else None), None, node, False


def _dynamic_import(node: ast.Call) -> bool:
    """``importlib.import_module(...)``, ``import_module(...)`` or ``__import__(...)``."""
    f = node.func
    name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
    return name in ("import_module", "__import__")


def import_graph(pkg: Path) -> dict[str, set[str]]:
    mods = modules(pkg)
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for name, path in mods.items():
        for target, _, _, _ in _imports(name, path, mods):
            if target is not None and target in mods and target != name:
                graph[name].add(target)
    return graph


def find_cycles(pkg: Path) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    graph = import_graph(pkg)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def private_imports(pkg: Path) -> list[str]:
    mods = modules(pkg)
    bad = []
    for name, path in mods.items():
        for target, imported, node, _ in _imports(name, path, mods):
            if target is None:
                continue
            names = [imported] if imported else [target.rsplit(".", 1)[-1]]
            for nm in names:
                if nm.startswith("_") and not nm.startswith("__"):
                    bad.append(f"{path.relative_to(pkg.parent)}:{node.lineno} imports {target}.{nm}"
                               if imported else f"{path.relative_to(pkg.parent)}:{node.lineno} imports {target}")
    return bad


def late_imports(pkg: Path) -> list[str]:
    bad = []
    mods = modules(pkg)
    for name, path in mods.items():
        lines = path.read_text().splitlines()
        for _target, _, node, at_top in _imports(name, path, mods):
            if at_top:
                continue
            text = " ".join(lines[node.lineno - 1: (node.end_lineno or node.lineno)])
            if not re.search(r"#\s*deferred:\s*\S{3,}", text):
                bad.append(f"{path.relative_to(pkg.parent)}:{node.lineno}: {lines[node.lineno - 1].strip()}")
    return sorted(set(bad))


def long_modules(pkg: Path) -> list[str]:
    return [f"{p.relative_to(pkg.parent)} has {n} lines" for p in sorted(pkg.rglob("*.py"))
            if (n := len(p.read_text().splitlines())) > MAX_LINES]


def code_only(text: str) -> str:
    """The source with comments and string literals (docstrings included) blanked."""
    out = []
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type in (tokenize.COMMENT, tokenize.STRING) or tok.type == getattr(tokenize, "FSTRING_MIDDLE", -1):
            continue
        out.append(tok.string)
    # "fmpq ( x . numerator" -> "fmpq(x.numerator": tokens are joined by spaces
    return re.sub(r"\s*([.(])\s*", r"\1", " ".join(out))


def primitive_copies(pkg: Path) -> list[str]:
    bad = []
    for p in sorted(pkg.rglob("*.py")):
        rel = p.relative_to(pkg)
        if rel.parts[0] == PRIMITIVE_HOME:
            continue
        code = code_only(p.read_text())
        for pat, what in PRIMITIVE_PATTERNS:
            if pat.search(code):
                bad.append(f"{p.relative_to(pkg.parent)}: {what}")
    return bad


def bare_builtin_raises(pkg: Path) -> list[str]:
    bad = []
    for p in sorted(pkg.rglob("*.py")):
        if p.name == "errors.py" and p.parent == pkg:
            continue
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, ast.Raise) and node.exc is not None:
                exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
                name = exc.id if isinstance(exc, ast.Name) else (
                    exc.attr if isinstance(exc, ast.Attribute) and ast.unparse(exc.value) == "builtins" else "")
                if name in BUILTIN_ERRORS:
                    bad.append(f"{p.relative_to(pkg.parent)}:{node.lineno} raises {name}")
    return bad


def duplicate_validators(pkg: Path) -> list[str]:
    bad = []
    for p in sorted(pkg.rglob("*.py")):
        if p.relative_to(pkg).as_posix() in VALIDATOR_HOMES:
            continue
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and VALIDATOR_NAMES.match(node.name):
                bad.append(f"{p.relative_to(pkg.parent)}:{node.lineno} defines validator {node.name}()")
    return bad


def kernel_boundary(pkg: Path) -> list[str]:
    mods = modules(pkg)
    root = pkg.name
    allowed = tuple(f"{root}.{a}" for a in KERNEL_ALLOWED)
    bad = []
    for name, path in mods.items():
        if not name.startswith(f"{root}.kernel"):
            continue
        for target, _, node, _ in _imports(name, path, mods):
            if target is None or target == root and False:
                continue
            if target.startswith(f"{root}.kernel"):
                continue
            if not any(target == a or target.startswith(a + ".") for a in allowed):
                bad.append(f"{path.relative_to(pkg.parent)}:{node.lineno} imports {target}")
    return bad


RULES = {
    "cycles": find_cycles,
    "private": private_imports,
    "late": late_imports,
    "long": long_modules,
    "primitives": primitive_copies,
    "raises": bare_builtin_raises,
    "validators": duplicate_validators,
    "kernel": kernel_boundary,
}


# ------------------------------------------------------------------ the real package
def _assert_clean(rule: str) -> None:
    found = RULES[rule](PKG)
    assert not found, f"rule {rule!r} broken:\n" + "\n".join(map(str, found))


def test_no_import_cycles():
    _assert_clean("cycles")


def test_no_private_imports():
    _assert_clean("private")


def test_imports_at_top():
    _assert_clean("late")


def test_no_module_over_600_lines():
    _assert_clean("long")


def test_one_home_per_numeric_primitive():
    _assert_clean("primitives")


def test_no_bare_builtin_errors():
    _assert_clean("raises")


def test_one_home_per_validator():
    _assert_clean("validators")


def test_kernel_boundary():
    assert (PKG / "kernel" / "__init__.py").exists()
    _assert_clean("kernel")


# ------------------------------------------------------------------ each rule can fail
def _write(root: Path, files: dict[str, str]) -> Path:
    pkg = root / "toypkg"
    for rel, text in files.items():
        p = pkg / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text))
    for d in [pkg, *[p for p in pkg.rglob("*") if p.is_dir()]]:
        (d / "__init__.py").touch()
    return pkg


def test_rules_catch_a_throwaway_package_that_breaks_them(tmp_path):
    pkg = _write(tmp_path, {
        "a.py": "from toypkg.b import g\n\ndef f():\n    return g()\n",
        "b.py": "from toypkg.a import f\nfrom toypkg.c import _helper\n\ndef g():\n    return f\n",
        "c.py": ("from fractions import Fraction\nimport numpy as np\nfrom flint import fmpq\n\n"
                 "def _helper(x):\n    import math\n    return math.sqrt(x)\n\n"
                 "def ok_late():\n    import json  # deferred: start-up time of the CLI\n    return json\n\n"
                 "U = Fraction(1, 2**53)\nV = 2.0 ** -53\nW = np.nextafter(1.0, 2.0)\n"
                 "def conv(x):\n    return fmpq(x.numerator, x.denominator)\n"
                 "def gam(k):\n    return k * U / (1 - k * U)\n"
                 "def bad(x):\n    raise ValueError('no')\n"
                 "def _tol(t):\n    return t\n"),
        "long.py": "x = 1\n" * (MAX_LINES + 1),
        "kernel/check.py": "from toypkg.a import f\nfrom toypkg.arithmetic.r import q\n",
        "arithmetic/r.py": "import numpy as np\nq = np.nextafter(0.0, 1.0)  # the one home: allowed\n",
        "notes.py": '"""u = 2**-53 and nextafter in prose are fine."""\n# nextafter in a comment\n',
    })
    assert find_cycles(pkg) == [["toypkg.a", "toypkg.b"]]
    assert private_imports(pkg) == ["toypkg/b.py:2 imports toypkg.c._helper"]
    assert late_imports(pkg) == ["toypkg/c.py:6: import math"]
    assert long_modules(pkg) == [f"toypkg/long.py has {MAX_LINES + 1} lines"]
    found = primitive_copies(pkg)
    assert all(f.startswith("toypkg/c.py") for f in found), found
    assert {f.split(": ", 1)[1].split(" ")[0] for f in found} >= {"unit", "2**53", "nextafter", "inline", "γ_k"}
    assert bare_builtin_raises(pkg) == ["toypkg/c.py:21 raises ValueError"]
    assert duplicate_validators(pkg) == ["toypkg/c.py:22 defines validator _tol()"]
    assert kernel_boundary(pkg) == ["toypkg/kernel/check.py:1 imports toypkg.a"]


def test_type_checking_imports_do_not_count_as_cycles(tmp_path):
    pkg = _write(tmp_path, {
        "a.py": "from toypkg.b import g\n",
        "b.py": ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from toypkg.a import x\n"
                 "g = 1\n"),
    })
    assert find_cycles(pkg) == []
    assert late_imports(pkg) == []
