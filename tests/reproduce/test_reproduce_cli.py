"""The ``reproduce`` CLI subcommand (exactdp.cli.reproduce), through the registered parser."""

from __future__ import annotations

from pathlib import Path

import pytest

from exactdp.cli.app import main
from exactdp.errors import InvalidOutputPath
from exactdp.reproduce import report as report_mod


def test_reproduce_fig4_quick(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["reproduce", "fig4", "--quick", "--quiet"]) == 0
    assert "| 0.50 |" in capsys.readouterr().out


def test_reproduce_unknown_figure_is_a_usage_error() -> None:
    assert main(["reproduce", "fig99"]) == 3


def test_reproduce_figure_default_is_quick(capsys: pytest.CaptureFixture[str]) -> None:
    """Review 14 #3: ``reproduce FIG`` defaults to quick sizes, like ``reproduce``."""
    assert main(["reproduce", "fig4", "--quiet"]) == 0
    assert capsys.readouterr().out.startswith("sizes: hamming(4, 5), ε ∈ {0.5, 0.7, 1}")


def test_reproduce_figure_with_output_is_rejected(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Review 14 #3: ``--output`` with one figure was silently ignored."""
    assert main(["reproduce", "fig4", "--output", str(tmp_path / "x"), "--quiet"]) == 3
    err = capsys.readouterr().err
    assert "--output" in err and "fig4" in err and not (tmp_path / "x").exists()


@pytest.mark.parametrize("bad", ["file", "under_file"])
def test_reproduce_bad_output_fails_before_computing(
    tmp_path: Path, bad: str, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str]
) -> None:
    """Review 14 #4: a bad --output is a specific error naming the path, before any work."""
    afile = tmp_path / "afile"
    afile.write_text("x")
    target = afile if bad == "file" else afile / "sub"

    def no_compute(*_a: object, **_k: object) -> None:
        raise AssertionError("computed before checking --output")

    monkeypatch.setattr(report_mod, "build_report", no_compute)
    assert main(["reproduce", "--output", str(target), "--quiet"]) == 3
    err = capsys.readouterr().err
    assert str(target) in err and "--output" in err and "folder" in err
    with pytest.raises(InvalidOutputPath, match="afile"):
        report_mod.check_output_dir(target)
