"""The ``reproduce`` CLI subcommand (exactdp.cli.reproduce), through the registered parser."""

from __future__ import annotations

import pytest

from exactdp.cli.app import main


def test_reproduce_fig4_quick(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["reproduce", "fig4", "--quick", "--quiet"]) == 0
    assert "| 0.50 |" in capsys.readouterr().out


def test_reproduce_unknown_figure_is_a_usage_error() -> None:
    assert main(["reproduce", "fig99"]) == 3
