"""Proof scripts run, and proofs and the code they justify name each other (both ways)."""

import ast
import importlib
import inspect
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROOFS = sorted((ROOT / "proofs").glob("*.py"))


def _proves(path: Path) -> list[str]:
    tree = ast.parse(path.read_text())
    for node in tree.body:
        target = node.targets[0] if isinstance(node, ast.Assign) else (
            node.target if isinstance(node, ast.AnnAssign) else None)
        if isinstance(target, ast.Name) and target.id == "PROVES":
            return list(ast.literal_eval(node.value))
    raise AssertionError(f"{path.name} has no PROVES list")


def _resolve(dotted: str):
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(dotted)


@pytest.mark.parametrize("path", PROOFS, ids=[p.name for p in PROOFS])
def test_proof_script_runs(path):
    proc = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=300,
                          cwd=ROOT)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]


@pytest.mark.parametrize("path", PROOFS, ids=[p.name for p in PROOFS])
def test_proof_names_code_that_names_it(path):
    doc = ast.get_docstring(ast.parse(path.read_text()))
    assert doc and len(doc) > 80, f"{path.name} must state its theorem in the module docstring"
    for dotted in _proves(path):
        obj = _resolve(dotted)
        text = inspect.getdoc(obj) or ""
        try:
            text += inspect.getsource(obj)
        except (TypeError, OSError):
            pass
        assert f"proofs/{path.name}" in text, f"{dotted} does not mention proofs/{path.name}"


def test_code_mentions_only_existing_proofs():
    pattern = re.compile(r"proofs/([A-Za-z0-9_]+\.py)")
    names = {p.name for p in PROOFS}
    for src in (ROOT / "exactdp").rglob("*.py"):
        for match in pattern.findall(src.read_text()):
            assert match in names, f"{src} cites missing proofs/{match}"


def _import_all_modules() -> None:
    for src in sorted((ROOT / "exactdp").rglob("*.py")):
        parts = list(src.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] in ("__init__", "__main__"):
            parts.pop()
            if src.name == "__main__.py":
                continue
        importlib.import_module(".".join(parts))


def link_problems(links: dict[str, list[str]]) -> list[str]:
    """What is wrong with a registry of ``@proved_by`` links (empty: nothing)."""
    names = {p.stem: p for p in PROOFS}
    out = []
    for stem, qualnames in links.items():
        if stem not in names:
            out.append(f"@proved_by({stem!r}) names no script in proofs/ (used by {qualnames})")
            continue
        proves = set(_proves(names[stem]))
        for q in qualnames:
            short = q.rsplit(".", 1)[-1]
            if not any(p == q or p.endswith("." + short) for p in proves):
                out.append(f"{q} is marked @proved_by({stem!r}) but proofs/{stem}.py does not list it")
    return out


def test_proved_by_links_name_existing_proofs_that_name_the_code_back():
    """``@proved_by("stem")`` at a definition: the script exists and lists that code in PROVES."""
    from exactdp.kinds import PROOF_LINKS

    _import_all_modules()
    assert len(PROOF_LINKS) >= 10, "the fast paths lost their @proved_by links"
    problems = link_problems(PROOF_LINKS)
    assert not problems, "\n".join(problems)


def test_proved_by_link_check_can_fail():
    from exactdp.kinds import proved_by

    links: dict[str, list[str]] = {}

    @proved_by("no_such_proof_script", registry=links)
    def fast_path():  # pragma: no cover - only the registry matters
        return None

    @proved_by("prop9_ball_symmetric", registry=links)
    def unlisted_fast_path():  # pragma: no cover
        return None

    problems = link_problems(links)
    assert len(problems) == 2
    assert "names no script" in problems[0] and "does not list it" in problems[1]
