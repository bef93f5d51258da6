"""The committed report (docs/readme/report/) is what its own report.json regenerates.

report.md, readme_section.md and docs/readme/results_generated.md are compared as text; each
PNG is redrawn from the committed report.json and compared byte for byte, skipped (with the
reason) when this machine's matplotlib/FreeType differ from the versions recorded in
report.json under ``drawn_with`` (other versions rasterise text differently).
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import matplotlib
import pytest

from exactdp.reproduce import figures
from exactdp.reproduce.figures import drawing_versions
from exactdp.reproduce.report import readme_section, report_markdown

matplotlib.use("Agg")

DOCS = Path(__file__).resolve().parents[2] / "docs" / "readme"
REPORT = DOCS / "report"


@pytest.fixture(scope="module")
def committed() -> dict[str, Any]:
    return json.loads((REPORT / "report.json").read_text())


def test_committed_markdown_is_generated(committed: dict[str, Any]) -> None:
    assert (REPORT / "report.md").read_text() == report_markdown(committed)
    assert (REPORT / "readme_section.md").read_text() == readme_section(committed)
    assert (DOCS / "results_generated.md").read_text() == readme_section(
        committed, "docs/readme/report")


def test_committed_report_lists_its_files(committed: dict[str, Any]) -> None:
    pngs = {p.name for p in REPORT.glob("*.png")}
    assert pngs == {f for f in committed["files"] if f.endswith(".png")}
    assert pngs == {f"{name}.png" for name in figures.FIGURES}
    assert set(committed["drawn_with"]) == {"matplotlib", "freetype"}


@pytest.mark.parametrize("name", figures.FIGURES)
def test_committed_png_is_redrawn_from_report_json(committed: dict[str, Any], name: str) -> None:
    here = drawing_versions()
    if committed.get("drawn_with") != here:
        pytest.skip(f"the committed PNGs were drawn with {committed.get('drawn_with')}, this "
                    f"machine has {here}: text rasterises differently, bytes cannot match")
    buf = io.BytesIO()
    figures.save(name, committed, buf)
    assert buf.getvalue() == (REPORT / f"{name}.png").read_bytes(), (
        f"{name}.png is not the drawing of report.json: regenerate with "
        "exactdp.reproduce.report.write_files('docs/readme/report', report)")
