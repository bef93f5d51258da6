"""Review 15RC of 15C (kernel readers split, dispatch table KIND_CHECKS, scripts/kernel_closure.py).

The split itself (readers.py -> read_common / limits / linear_json / threshold_spd_json /
threshold_json / privacy_json, threshold_roots.py, the table-driven dispatch) was compared
document by document against the old kernel (see /work/notes/15RC.md): no outcome differs. The
findings below are about ``scripts/kernel_closure.py``, the measure of "the kernel code an
auditor must read to trust one kind's verdict": its import walk (``imports_of``) skips two
kinds of import that load a kernel module, so a closure can silently miss a module that a
kind's verdict runs. Each test builds a copy of the real ``exactdp`` package in ``tmp_path``
(the walk only reads source files: nothing is imported from the copy), adds one import to
``exactdp/kernel/linear_json.py`` (the linear kinds' reader) and asks the walk whether the
imported module is in the linear reader's closure. The repository's own import walk
(``tests/repo/test_repo_structure.py::_imports``) resolves both kinds of import; the closure
script does not reuse it.
"""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("kernel_closure_review15", ROOT / "scripts" / "kernel_closure.py")
assert _spec is not None and _spec.loader is not None
kc = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = kc
_spec.loader.exec_module(kc)

READER = "exactdp.kernel.linear_json"
EXTRA = "exactdp.kernel.privacy"  # not in the linear kinds' closure today (test_kernel_closure15)


def _copy_with(tmp_path: Path, add: str, *, top: bool) -> Path:
    """A copy of ``exactdp`` under ``tmp_path`` whose linear_json.py has ``add`` (an import
    statement) at module level (``top``) or in a function that is never called."""
    shutil.copytree(ROOT / "exactdp", tmp_path / "exactdp", ignore=shutil.ignore_patterns("__pycache__"))
    path = tmp_path / "exactdp" / "kernel" / "linear_json.py"
    src = path.read_text(encoding="utf-8")
    anchor = "\n\ndef read_linear("
    assert anchor in src
    if top:
        src = src.replace(anchor, f"\n{add}  # noqa: F401\n{anchor}", 1)
    else:
        src = src.replace(anchor, f"\n\ndef _unused() -> None:\n    {add}  # deferred: review\n{anchor}", 1)
    path.write_text(src, encoding="utf-8")
    return tmp_path


def test_walk_sees_an_absolute_import(tmp_path):
    """Control: the walk follows an absolute import of the same module (it must, for the two
    findings below to be about the import's form, not about the module)."""
    root = _copy_with(tmp_path, f"from {EXTRA} import PRIVACY_KINDS", top=True)
    assert EXTRA not in kc.closure(ROOT, {READER})
    assert EXTRA in kc.closure(root, {READER})


def test_walk_sees_a_relative_import(tmp_path):
    root = _copy_with(tmp_path, "from .privacy import PRIVACY_KINDS", top=True)
    assert EXTRA in kc.closure(root, {READER})


def test_walk_sees_a_relative_package_import_in_a_function(tmp_path):
    root = _copy_with(tmp_path, "from . import privacy", top=False)
    assert EXTRA in kc.closure(root, {READER})


def test_walk_sees_a_literal_dynamic_import(tmp_path):
    root = _copy_with(tmp_path, f"__import__({EXTRA!r})", top=False)
    assert EXTRA in kc.closure(root, {READER})
