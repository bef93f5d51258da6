"""``exactdp reproduce`` with no figure: the report folder, and figures that show report.json.

The module fixture runs ``exactdp reproduce --output DIR`` in the default QUICK profile
(the README's sizes, not the test-only tiny one): ≈ 21 s CPU on the 2-core CI machine
(20 s computing, 1 s drawing), below the 60 s limit, so it is not marked slow.
"""

from __future__ import annotations

import contextlib
import io
import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import matplotlib
import pytest

from exactdp.cli.app import main
from exactdp.reproduce import figures
from exactdp.reproduce.figures import FIGURES, math_text, ternary

matplotlib.use("Agg")  # the test draws into memory only

REQUIRED = ("fig2_regions", "fig3_regions", "fig4_leakage", "fig6_utility", "fig7_grid",
            "thresholds_paper_vs_true")
KINDS = ("exact", "certified", "float")


@pytest.fixture(scope="module")
def report_dir(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    out = tmp_path_factory.mktemp("report") / "new" / "folder"  # created by the command
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = main(["reproduce", "--output", str(out), "--quiet"])  # quick: the default
    assert code == 0
    return out, buf.getvalue()


def test_report_folder_contents_quick(report_dir: tuple[Path, str]) -> None:
    out, stdout = report_dir
    assert (out / "report.md").read_text().startswith("# exactdp reproduction report")
    rep = json.loads((out / "report.json").read_text())
    pngs = sorted(p.stem for p in out.glob("*.png"))
    assert set(REQUIRED) <= set(pngs) and len(pngs) >= 6
    assert set(pngs) == set(FIGURES)
    for p in out.glob("*.png"):
        assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (out / "readme_section.md").read_text().startswith("## Results")
    # the sizes used are printed and recorded; the quick profile is the default
    assert stdout.startswith("sizes: profile quick: sum_query(150, 5), count_queries(30)")
    assert rep["sizes"]["sum_query"] == [150, 5] and rep["profile"] == "quick"
    assert "computed in" in stdout and "drawn in" in stdout
    assert set(rep["drawn_with"]) == {"matplotlib", "freetype"}
    md = (out / "report.md").read_text()
    for c in rep["claims"]:
        assert c["claim"] in md and c["kind"] in KINDS, c  # a failed check fails here
        assert "CHECK FAILED" not in c["exactdp"] and not c["agreement"].startswith("check")


def test_claims_agree_with_the_threshold_rows(report_dir: tuple[Path, str]) -> None:
    rep = json.loads((report_dir[0] / "report.json").read_text())
    rows = {r["instance"]: r for r in rep["figures"]["thresholds_paper_vs_true"]["rows"]}
    sq = rows["sum_query(150, 5)"]
    claim = next(c for c in rep["claims"] if c["id"] == "sum_query")
    assert f"{sq['lo']:.12f}" in claim["exactdp"] and claim["agreement"].startswith("no")
    assert 0.968 < sq["lo"] <= sq["hi"] < 0.9682  # the README's ε* of sum_query(150, 5)
    assert rows["sum_query(2, 2)"]["closed_form"] == "log(1/2 + sqrt(5)/2)"
    # derived, not typed in: Example 3's boundary is the Fig. 4 shading and the claim's text
    reg = rep["figures"]["fig4_leakage"]["regular_from"]
    assert reg["exact"] == rows["Example 3 (regular prior)"]["closed_form"] == "log(2)"
    ex3 = next(c for c in rep["claims"] if c["id"] == "example3")
    assert ex3["agreement"] == "no: not regular on [0.48, ln(2))"
    sets = next(c for c in rep["claims"] if c["id"] == "sets_theorem1")
    assert {p["exact"] for p in rep["figures"]["sets_ratio"]["ratio"]} == {"2"}
    assert "ratio exactly 2 " in sets["exactdp"]
    # the pufferfish θ* prints e as exp(1), never sympy's bare E (read as E = e^ε)
    puff = next(c for c in rep["claims"] if c["id"] == "pufferfish")
    assert "exp(1)" in puff["exactdp"] and "E" not in puff["exactdp"].replace("W∞", "")
    for name, fig in rep["figures"].items():
        assert '"kind"' in json.dumps(fig), name


def _points(node: Any) -> list[dict[str, Any]]:
    return [p for p in node if p.get("y") is not None]


def _node(rep: dict[str, Any], path: str) -> Any:
    node: Any = rep["figures"]
    for p in path.split("/"):
        node = node[int(p)] if isinstance(node, list) else node[p]
    return node


def _expected(rep: dict[str, Any], gid: str) -> tuple[list[float], ...]:
    """The coordinates report.json says the line ``gid`` shows (navigated independently)."""
    gid, _, kind = gid.partition("@")
    kind = kind.removesuffix("-bar")  # "certified-bar": certified points drawn with a bar
    parts = gid.split("/")
    if parts[0] == "thresholds_paper_vs_true":
        rows = rep["figures"]["thresholds_paper_vs_true"]["rows"]
        ys = list(range(len(rows)))[::-1]
        if parts[-1] == "paper":
            sel = [(r["paper"], y) for r, y in zip(rows, ys) if r["paper"] is not None]
        else:
            sel = [(r["y"], y) for r, y in zip(rows, ys) if r["kind"] == parts[-1]]
        return [a for a, _ in sel], [b for _, b in sel]
    if gid == "sets_ratio/paper_bound!fails":
        pts = [p for p in rep["figures"]["sets_ratio"]["paper_bound"] if not p["holds"]]
        return [p["x"] for p in pts], [p["y"] for p in pts]
    node = _node(rep, gid)
    if parts[0] == "fig2_regions":
        pts = [ternary(c) for c in node]
        return [x for x, _ in pts], [y for _, y in pts]
    if parts[0] == "fig3_regions":
        return [c[0] for c in node], [c[1] for c in node], [c[2] for c in node]
    if gid == "fig7_grid/existence":
        return [p["x"] for p in node], [1 if p["exists"] else 0 for p in node]
    if gid.startswith("fig7_grid/threshold/") or gid == "fig4_leakage/regular_from/x":
        return [], []  # vertical lines: checked in _check_vertical
    if isinstance(node, dict):
        return [node["x"]], [node["y"]]
    pts = [p for p in _points(node) if not kind or p["kind"] == kind]
    return [p["x"] for p in pts], [p["y"] for p in pts]


def _check_vertical(rep: dict[str, Any], gid: str, xs: list[float]) -> None:
    want = {"fig4_leakage/regular_from/x": lambda: rep["figures"]["fig4_leakage"]
            ["regular_from"]["x"],
            "fig7_grid/threshold/y": lambda: rep["figures"]["fig7_grid"]["threshold"]["y"],
            "fig7_grid/threshold/paper": lambda: rep["figures"]["fig7_grid"]["threshold"]
            ["paper"]}[gid]()
    assert [float(x) for x in xs] == [want, want], gid


def _check_span(rep: dict[str, Any], gid: str, x0: float, x1: float) -> None:
    if gid == "fig4_leakage/regular_from":
        d = rep["figures"]["fig4_leakage"]
        assert (x0, x1) == (d["regular_from"]["x"], max(p["x"] for p in d["thm3"]))
    elif gid == "fig7_grid/threshold/span":
        t = rep["figures"]["fig7_grid"]["threshold"]
        assert (x0, x1) == (t["lo"], t["hi"])
    else:  # fig6 non-existence: covers every certified "no", no certified "yes"
        pts = _node(rep, gid.split("!")[0])
        assert all(x0 <= p["x"] <= x1 for p in pts if not p["exists"]), gid
        assert not any(x0 <= p["x"] <= x1 for p in pts if p["exists"]), gid


def _check_figure(rep: dict[str, Any], name: str) -> int:
    """Compare every artist with a gid to report.json; return how many were checked."""
    fig = figures.draw(name, rep)
    checked = 0
    for ax in fig.axes:
        for line in ax.lines:
            gid = line.get_gid()
            if not gid:
                continue
            if gid in ("fig4_leakage/regular_from/x", "fig7_grid/threshold/y",
                       "fig7_grid/threshold/paper"):
                _check_vertical(rep, gid, list(line.get_xdata()))
            else:
                want = _expected(rep, gid)
                got = line.get_data_3d() if len(want) == 3 else line.get_data()
                assert [list(map(float, g)) for g in got] == [list(w) for w in want], gid
            checked += 1
        for patch in ax.patches:
            if patch.get_gid():
                bb = patch.get_bbox()
                _check_span(rep, patch.get_gid(), bb.x0, bb.x1)
                checked += 1
        for coll in ax.collections:
            gid = coll.get_gid() or ""
            if gid.endswith("!enclosures"):
                pts = _points(_node(rep, gid.split("!")[0]))
                segs = [[tuple(map(float, v)) for v in s] for s in coll.get_segments()]
                assert segs == [[(p["x"], float(Fraction(p["lo"]))),
                                 (p["x"], float(Fraction(p["hi"])))] for p in pts], gid
                assert all(float(Fraction(p["lo"])) <= p["y"] <= float(Fraction(p["hi"]))
                           for p in pts)
                checked += 1
        for text in ax.texts:
            gid = text.get_gid() or ""
            if gid.endswith("/label"):
                rows = rep["figures"]["thresholds_paper_vs_true"]["rows"]
                i = int(gid.split("/")[2])
                r = rows[i]
                assert text.xy == (r["y"], len(rows) - 1 - i), gid
                assert text.get_text() == (math_text(r["closed_form"]) if r["closed_form"]
                                           else f"{r['y']:.9f}"), gid
                checked += 1
    return checked


@pytest.mark.parametrize("name", FIGURES)
def test_figure_shows_report_json(report_dir: tuple[Path, str], name: str) -> None:
    out, _ = report_dir
    rep = json.loads((out / "report.json").read_text())
    assert _check_figure(rep, name) >= 1
    # the written PNG is this drawing of report.json (same pixels)
    buf = io.BytesIO()
    figures.save(name, rep, buf)
    assert buf.getvalue() == (out / f"{name}.png").read_bytes()


def test_planar_laplace_enclosures_drawn_as_bars(report_dir: tuple[Path, str]) -> None:
    """Review 14 #5: the planar-Laplace enclosures are wider than a marker: error bars."""
    rep = json.loads((report_dir[0] / "report.json").read_text())
    fig = figures.draw("fig7_grid", rep)
    gids = {c.get_gid() for ax in fig.axes for c in ax.collections}
    assert "fig7_grid/planar_laplace!enclosures" in gids


def test_a_changed_value_is_detected(report_dir: tuple[Path, str]) -> None:
    # the comparison can fail: perturb reported values and the drawing no longer matches
    rep = json.loads((report_dir[0] / "report.json").read_text())
    for name, change in (
        ("fig6_utility", lambda r: r["figures"]["fig6_utility"]["sum"]["geometric"][0]
         .__setitem__("y", r["figures"]["fig6_utility"]["sum"]["geometric"][0]["y"] + 1e-3)),
        ("fig7_grid", lambda r: r["figures"]["fig7_grid"]["threshold"].__setitem__("lo", 0.5)),
        ("fig4_leakage", lambda r: r["figures"]["fig4_leakage"]["regular_from"]
         .__setitem__("x", 0.7)),
    ):
        fig_rep = json.loads(json.dumps(rep))
        drawn = figures.draw(name, fig_rep)
        change(fig_rep)
        with pytest.raises(AssertionError):
            for ax in drawn.axes:
                for line in ax.lines:
                    gid = line.get_gid()
                    if gid and "@" not in gid and gid in (
                            "fig6_utility/sum/geometric", "fig4_leakage/regular_from/x"):
                        if gid.endswith("/x"):
                            _check_vertical(fig_rep, gid, list(line.get_xdata()))
                        else:
                            assert list(map(float, line.get_data()[1])) == \
                                _expected(fig_rep, gid)[1]
                for patch in ax.patches:
                    if patch.get_gid() == "fig7_grid/threshold/span":
                        bb = patch.get_bbox()
                        _check_span(fig_rep, patch.get_gid(), bb.x0, bb.x1)


def test_unknown_profile_is_a_usage_error() -> None:
    assert main(["reproduce", "--profile", "huge"]) == 3
