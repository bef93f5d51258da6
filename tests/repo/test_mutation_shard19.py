"""``scripts/mutation.py --shard I/N``: N processes share one complete mutation run.

The shards must split the mutants without overlap or gap, refuse a malformed ``I/N`` with a
specific message, and refuse to be combined with ``--survivors`` / ``--sample`` (whose counts
assume one report of the whole run or a drawn sample)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("mutation_script19", ROOT / "scripts" / "mutation.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("bad", ["2/2", "1", "a/2", "-1/2", "0/0", "1/2/3"])
def test_malformed_shard_is_refused_with_its_value(bad: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        _script().main([f"--shard={bad}", "exactdp/kernel/limits.py"])
    assert e.value.code == 2
    assert repr(bad) in capsys.readouterr().err


def test_shard_does_not_combine_with_sample_or_survivors(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    mod = _script()
    for extra in (["--sample", "3"], ["--survivors", str(tmp_path / "r.json")]):
        with pytest.raises(SystemExit):
            mod.main(["--shard", "0/2", *extra, "exactdp/kernel/limits.py"])
        assert "does not combine" in capsys.readouterr().err


def test_a_shard_report_is_refused_by_survivors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = {"files": {"exactdp/kernel/limits.py": {"mutants": 1, "killed": 1, "shard": "0/2 of 2"}},
              "survivors": []}
    path = tmp_path / "r.json"
    path.write_text(json.dumps(report))
    with pytest.raises(SystemExit):
        _script().main(["--survivors", str(path), "exactdp/kernel/limits.py"])
    assert "merge the --shard reports first" in capsys.readouterr().err


def test_shards_partition_the_mutants() -> None:
    import ast

    mod = _script()
    found = mod.sites(ast.parse((ROOT / "exactdp" / "kernel" / "sets_real.py").read_text()))
    for n in (2, 3, 5):
        parts = [mod.shard_of(found, (i, n)) for i in range(n)]
        joined = sorted(x for p in parts for x in p)
        assert joined == sorted(found) and sum(map(len, parts)) == len(found) > 100
        assert all(abs(len(a) - len(b)) <= 1 for a in parts for b in parts)
