"""Review 16RS of ea15b42 (threshold split): the code moved to threshold_exact.py, but two
safety-net tests still monkeypatch the old module (exactdp.kernel.threshold), whose names are
now only re-exports: the patches no longer reach the moved exact check, so those tests lost
their power (no outcome of the kernel changed: 32,237 documents compared old vs new, 0 differences).
Both now patch threshold_exact; these tests run them and check that the patches reach the
bindings the exact check calls."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import exactdp.kernel.threshold_exact as kte


def _load(name: str, file: str):
    spec = importlib.util.spec_from_file_location(name, Path(__file__).parent.parent / file)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_mutants9_descartes_budget_patch_reaches_the_exact_check(monkeypatch):
    mod = _load("mutants9_review16", "kernel/test_kernel_mutants9_threshold.py")
    seen = []
    real = kte.sign_run_ok

    def spy(*args, **kwargs):
        seen.append(kwargs.get("budget"))
        return real(*args, **kwargs)

    monkeypatch.setattr(kte, "sign_run_ok", spy)
    mod.test_exact_claims_with_and_without_descartes(-1, monkeypatch)
    assert seen and set(seen) == {-1}, seen


def test_review18c_count_roots_patch_reaches_the_exact_check(monkeypatch):
    mod = _load("review18c_review16", "threshold/test_structured_review18c.py")
    real = kte.count_roots
    mod.test_exact_kernel_no_root_needs_no_sturm_on_band(monkeypatch)
    # still patched (monkeypatch undoes at teardown): the check ran with Sturm forbidden
    assert kte.count_roots is not real and kte.count_roots.__name__ == "no_sturm"
