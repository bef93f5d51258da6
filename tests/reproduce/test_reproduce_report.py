"""``exactdp reproduce`` with no figure: the report folder, and figures that show report.json."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import matplotlib
import pytest

from exactdp.cli.app import main
from exactdp.reproduce import figures
from exactdp.reproduce.figures import FIGURES, ternary

matplotlib.use("Agg")  # the test draws into memory only

REQUIRED = ("fig2_regions", "fig3_regions", "fig4_leakage", "fig6_utility", "fig7_grid",
            "thresholds_paper_vs_true")


@pytest.fixture(scope="module")
def report_dir(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    out = tmp_path_factory.mktemp("report")
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = main(["reproduce", "--profile", "tiny", "--output", str(out), "--quiet"])
    assert code == 0
    return out, buf.getvalue()


def test_report_folder_contents(report_dir: tuple[Path, str]) -> None:
    out, stdout = report_dir
    assert (out / "report.md").read_text().startswith("# exactdp reproduction report")
    rep = json.loads((out / "report.json").read_text())
    pngs = sorted(p.stem for p in out.glob("*.png"))
    assert set(REQUIRED) <= set(pngs) and len(pngs) >= 6
    for p in out.glob("*.png"):
        assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # the sizes used are printed and recorded
    assert stdout.startswith("sizes: profile tiny: sum_query(30, 5), count_queries(10)")
    assert rep["sizes"]["sum_query"] == [30, 5] and rep["profile"] == "tiny"
    md = (out / "report.md").read_text()
    for c in rep["claims"]:
        assert c["claim"] in md and c["kind"] in ("exact", "certified", "float")


def test_claims_agree_with_the_threshold_rows(report_dir: tuple[Path, str]) -> None:
    rep = json.loads((report_dir[0] / "report.json").read_text())
    rows = {r["instance"]: r for r in rep["figures"]["thresholds_paper_vs_true"]["rows"]}
    sq = rows["sum_query(30, 5)"]
    claim = next(c for c in rep["claims"] if c["id"] == "sum_query")
    assert f"{sq['lo']:.12f}" in claim["exactdp"] and claim["agreement"].startswith("no")
    assert 0.968 < sq["lo"] <= sq["hi"] < 0.9682  # same ε* as sum_query(150, 5) (README)
    assert rows["sum_query(2, 2)"]["closed_form"] == "log(1/2 + sqrt(5)/2)"
    # every plotted point says what kind of number it is
    for name, fig in rep["figures"].items():
        text = json.dumps(fig)
        assert '"kind"' in text, name


def _expected(rep: dict[str, Any], gid: str, line: Any) -> tuple[list[float], ...]:
    """The coordinates report.json says the artist ``gid`` shows (navigated independently)."""
    parts = gid.split("/")
    if parts[0] == "thresholds_paper_vs_true":
        rows = rep["figures"]["thresholds_paper_vs_true"]["rows"]
        ys = list(range(len(rows)))[::-1]
        if parts[-1] == "paper":
            sel = [(r["paper"], y) for r, y in zip(rows, ys) if r["paper"] is not None]
        else:
            sel = [(r["y"], y) for r, y in zip(rows, ys) if r["kind"] == parts[-1]]
        return [a for a, _ in sel], [b for _, b in sel]
    node: Any = rep["figures"]
    for p in parts:
        node = node[int(p)] if isinstance(node, list) else node[p]
    if parts[0] == "fig2_regions":
        pts = [ternary(c) for c in node]
        return [x for x, _ in pts], [y for _, y in pts]
    if parts[0] == "fig3_regions":
        return [c[0] for c in node], [c[1] for c in node], [c[2] for c in node]
    if gid == "fig7_grid/existence":
        return [p["x"] for p in node], [1 if p["exists"] else 0 for p in node]
    if isinstance(node, dict):
        return [node["x"]], [node["y"]]
    pts = [p for p in node if p.get("y") is not None]
    return [p["x"] for p in pts], [p["y"] for p in pts]


@pytest.mark.parametrize("name", FIGURES)
def test_figure_shows_report_json(report_dir: tuple[Path, str], name: str) -> None:
    out, _ = report_dir
    rep = json.loads((out / "report.json").read_text())
    fig = figures.draw(name, rep)
    checked = 0
    for ax in fig.axes:
        for line in ax.lines:
            gid = line.get_gid()
            if not gid:
                continue
            want = _expected(rep, gid, line)
            got = line.get_data_3d() if len(want) == 3 else line.get_data()
            assert [list(map(float, g)) for g in got] == [list(w) for w in want], gid
            checked += 1
    assert checked >= 1
    # the committed PNG is this drawing of report.json (same pixels)
    buf = io.BytesIO()
    fig.savefig(buf, dpi=110, format="png")
    assert buf.getvalue() == (out / f"{name}.png").read_bytes()


def test_a_changed_value_is_detected(report_dir: tuple[Path, str]) -> None:
    # the comparison can fail: perturb one reported utility and the drawing no longer matches
    rep = json.loads((report_dir[0] / "report.json").read_text())
    fig = figures.draw("fig6_utility", rep)
    pts = rep["figures"]["fig6_utility"]["sum"]["geometric"]
    pts[0]["y"] += 1e-3
    line = next(ln for ax in fig.axes for ln in ax.lines
                if ln.get_gid() == "fig6_utility/sum/geometric")
    assert list(map(float, line.get_data()[1])) != _expected(rep, line.get_gid(), line)[1]


def test_unknown_profile_is_a_usage_error() -> None:
    assert main(["reproduce", "--profile", "huge"]) == 3
