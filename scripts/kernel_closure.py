"""The kernel code an auditor must read to trust the verdict on one document, per kind.

For every kind of :data:`exactdp.kernel.verify.SUPPORTED_KINDS`, the *closure* of the kind is
the set of kernel modules (``exactdp/kernel/*.py``) made of

1. ``verify.py`` (the entry point that dispatches the document; the file itself, not its
   imports, which are every kind's entry modules), ``__main__.py`` (``python -m
   exactdp.kernel``: exceptions to exit codes), ``jsonio.py`` (the strict JSON reader every
   document goes through), and the package ``__init__.py``;
2. the *entry modules* of the kind: the modules defining its reader and its checker, taken
   from ``verify.KIND_CHECKS`` — the very table :func:`exactdp.kernel.verify.verify_document`
   dispatches on (a function's ``__module__`` is where it is defined, so a re-exporting
   shim does not hide the module that holds the code);
3. the static import closure of those modules inside ``exactdp.kernel``: every
   ``import``/``from … import`` (absolute or relative) of a kernel module, or
   ``__import__``/``importlib.import_module`` of a literal name, anywhere in a module's source
   (module level or not) counts, and the whole imported module counts, even when only another kind
   uses the imported names — conservative, an auditor reads modules, not call graphs;
4. for a kind whose documents embed complete documents of other kinds (:func:`embeds`,
   read off the readers: Kronecker factors, the ``fail`` side of a cover, the ``inner``
   document of ``exact-scaled``), the closures of every kind it may embed.

Its size is the sum of the code lines of these modules, counted by
``scripts/code_lines.py`` (a line holding a token that is not a comment or a docstring).
Beside it, the script reports the code lines of the ``exactdp/arithmetic/``,
``exactdp/spaces/`` modules (and ``exactdp/kinds.py``, ``exactdp/errors.py``) that the closure
imports, transitively and with their packages' ``__init__.py`` — the arithmetic the kernel
trusts. Third-party imports (flint, numpy, sympy) are not counted.

Usage: ``python scripts/kernel_closure.py [--json] [--root DIR]`` (``--root``: the checkout
to measure, default this one; it must be importable, its ``verify.KIND_CHECKS`` is read).
"""

from __future__ import annotations

import argparse
import ast
import importlib
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from code_lines import code_lines  # noqa: E402  (the one home of the line counting)

KERNEL = "exactdp.kernel"
#: Packages whose modules are the trusted arithmetic of the kernel (reported apart).
TRUSTED = ("exactdp.arithmetic", "exactdp.spaces", "exactdp.kinds", "exactdp.errors")
#: Kernel modules every verdict goes through (with their closure).
ALWAYS = ("exactdp.kernel", "exactdp.kernel.jsonio")
#: The dispatcher: read, but not its imports (it imports every kind's entry modules).
ENTRY = "exactdp.kernel.verify"
#: The entry points: counted as files (their kernel imports are every kind's entry modules).
ENTRIES = (ENTRY, "exactdp.kernel.__main__")



def embeds() -> dict[str, tuple[str, ...]]:
    """kind -> the kinds of the complete documents it may embed, read off the readers and
    taken from the kernel's own kind lists: ``kronecker`` factors are linear-system documents
    (``read_linear``: LINEAR_KINDS), ``kronecker-threshold`` factors threshold documents
    (``read_threshold``: THRESHOLD_KINDS), a cover's ``fail`` an spd-point or a linear-system
    document (``threshold_cover_claims._fail``), and the ``inner`` document of ``exact-scaled`` one of
    ``threshold_scaled.INNER_KINDS``. Transitive embeddings are followed by :func:`embedded`.
    (grid-threshold's ``fail`` is an inline object, not a document.)"""
    linear = importlib.import_module("exactdp.kernel.linear").LINEAR_KINDS
    threshold = importlib.import_module("exactdp.kernel.threshold").THRESHOLD_KINDS
    spd = importlib.import_module("exactdp.kernel.threshold_spd")
    scaled = importlib.import_module("exactdp.kernel.threshold_scaled")
    return {"kronecker": linear, "kronecker-threshold": threshold,
            "certified-cover": (spd.SPD_POINT,) + linear, spd.SPD_COVER: (spd.SPD_POINT,) + linear,
            scaled.SCALED_KIND: scaled.INNER_KINDS}


def module_file(root: Path, name: str) -> Path | None:
    """The source file of module ``name`` under ``root`` (a package: its ``__init__.py``)."""
    base = root.joinpath(*name.split("."))
    for p in (base.with_suffix(".py"), base / "__init__.py"):
        if p.is_file():
            return p
    return None


def imports_of(root: Path, name: str) -> set[str]:
    """The ``exactdp`` modules imported anywhere in module ``name``'s source, with the
    packages that contain them (``from exactdp.kernel import x`` names ``exactdp.kernel.x``)."""
    path = module_file(root, name)
    assert path is not None, name
    found: set[str] = set()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[:len(package.split(".")) - node.level + 1] if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            names = [module] + [f"{module}.{a.name}" for a in node.names]
        elif (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)
              and isinstance(node.args[0].value, str)
              and ast.unparse(node.func) in ("__import__", "importlib.import_module", "import_module")):
            names = [node.args[0].value]  # a dynamic import of a literal name
        for n in names:
            if n.split(".")[0] != "exactdp":
                continue
            parts = n.split(".")
            for k in range(2, len(parts) + 1):  # the packages on the way are executed too
                if module_file(root, ".".join(parts[:k])) is not None:
                    found.add(".".join(parts[:k]))
    found.discard(name)
    return found


def closure(root: Path, start: set[str]) -> set[str]:
    """Every ``exactdp`` module reachable from ``start`` by imports."""
    seen: set[str] = set()
    todo = list(start)
    while todo:
        m = todo.pop()
        if m not in seen:
            seen.add(m)
            todo.extend(imports_of(root, m) - seen)
    return seen


def in_kernel(name: str) -> bool:
    return name == KERNEL or name.startswith(KERNEL + ".")


def entry_modules(kind_checks: dict[str, tuple[Any, Any]]) -> dict[str, set[str]]:
    """kind -> the modules defining its reader and its checker."""
    return {kind: {f.__module__ for f in fns if f is not None} for kind, fns in kind_checks.items()}


def embedded(kind: str, table: dict[str, tuple[str, ...]]) -> set[str]:
    """``kind`` and every kind its documents may embed (``table``: :func:`embeds`), transitively."""
    seen: set[str] = set()
    todo = [kind]
    while todo:
        k = todo.pop()
        if k not in seen:
            seen.add(k)
            todo.extend(table.get(k, ()))
    return seen


def lines(root: Path, modules: set[str]) -> int:
    total = 0
    for m in modules:
        path = module_file(root, m)
        assert path is not None, m
        total += code_lines(str(path))[1]
    return total


def measure(root: Path) -> dict[str, dict[str, Any]]:
    """kind -> {entry, kernel modules, kernel code lines, trusted modules, trusted code lines}."""
    sys.path.insert(0, str(root))
    verify = importlib.import_module("exactdp.kernel.verify")
    if not Path(verify.__file__).resolve().is_relative_to(root):
        raise SystemExit(f"exactdp was imported from {verify.__file__}, not from {root}: "
                         "measure another checkout in a fresh process (--root).")
    entries = entry_modules(verify.KIND_CHECKS)
    emb = embeds()
    out: dict[str, dict[str, Any]] = {}
    for kind in verify.SUPPORTED_KINDS:
        start = set(ALWAYS)
        for k in embedded(kind, emb):
            start |= entries[k]
        mods = closure(root, start) | set(ENTRIES)
        for e in ENTRIES:
            mods |= closure(root, {m for m in imports_of(root, e) if m.startswith(TRUSTED)})
        kernel = {m for m in mods if in_kernel(m)}
        trusted = {m for m in mods if m.startswith(TRUSTED)}
        out[kind] = {"entry": sorted(entries[kind]), "embeds": sorted(embedded(kind, emb) - {kind}),
                     "kernel_modules": sorted(kernel), "kernel_lines": lines(root, kernel),
                     "trusted_modules": sorted(trusted), "trusted_lines": lines(root, trusted)}
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true", help="print the table as JSON")
    ap.add_argument("--root", default=str(Path(__file__).resolve().parent.parent),
                    help="the checkout to measure")
    args = ap.parse_args(argv)
    table = measure(Path(args.root).resolve())
    if args.json:
        print(json.dumps(table, indent=1))
        return
    print(f"{'kind':28s} {'kernel':>6s} {'arith':>6s}  entry modules (kernel closure)")
    for kind, row in table.items():
        entry = ", ".join(m.removeprefix(KERNEL + ".") for m in row["entry"])
        mods = " ".join(m.removeprefix(KERNEL + ".") for m in row["kernel_modules"] if m != KERNEL)
        print(f"{kind:28s} {row['kernel_lines']:6d} {row['trusted_lines']:6d}  {entry} ({mods})")


if __name__ == "__main__":
    main()
