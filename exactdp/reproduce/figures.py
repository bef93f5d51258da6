"""The report's figures, drawn from the report dict (:func:`exactdp.reproduce.report.build_report`).

Each function takes the whole report and returns a :class:`matplotlib.figure.Figure` (no pyplot
state, no backend chosen here: save it with ``fig.savefig`` or display it in a notebook).
Every plotted data series carries ``gid = "figure/key/..."``, the path of its points in
``report["figures"]`` (the test compares the drawn coordinates with ``report.json``), and
its marker says what kind of number it is (:data:`KIND_STYLE`): exact (filled circle),
certified (open square at the midpoint of an enclosure narrower than the marker) or
float (cross).

>>> pt = {"x": 1.0, "y": 2.0, "kind": "exact", "exact": "2", "holds": False}
>>> rep = {"figures": {"sets_ratio": {"ratio": [pt], "paper_bound": [pt], "points_bound": [pt]}}}
>>> sorted({a.get_gid() for a in draw("sets_ratio", rep).axes[0].lines if a.get_gid()})
['sets_ratio/paper_bound', 'sets_ratio/paper_bound!fails', 'sets_ratio/points_bound', 'sets_ratio/ratio']
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

import matplotlib
import sympy
from matplotlib import ft2font
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from mpl_toolkits.mplot3d.art3d import Poly3DCollection

from exactdp.arithmetic.expressions import parse_closed_form
from exactdp.errors import InvalidArgument

__all__ = ["FIGURES", "KIND_STYLE", "draw", "save", "drawing_versions", "ternary", "kind_legend",
           "math_text"]

#: Marker style of each kind of number.
KIND_STYLE: dict[str, dict[str, Any]] = {
    "exact": {"marker": "o", "markersize": 6},
    "certified": {"marker": "s", "markersize": 6, "markerfacecolor": "none"},
    "float": {"marker": "x", "markersize": 8},
}
_KIND_LABEL = {"exact": "exact", "certified": "certified (enclosure ⊂ marker)",
               "certified-bar": "certified (enclosure = error bar)",
               "float": "float (paper / display)", "check failed": "check failed"}
KIND_STYLE["certified-bar"] = {"marker": "_", "markersize": 11, "markeredgewidth": 2}
KIND_STYLE["check failed"] = {"marker": "X", "markersize": 9, "color": "red"}
_SQ3 = math.sqrt(3) / 2


def ternary(p: Sequence[float]) -> tuple[float, float]:
    """Barycentric (p1, p2, p3) → the plane; vertices (0, 0), (1, 0), (1/2, √3/2).

    >>> ternary((1, 0, 0)), ternary((0, 0, 1))[0]
    ((0.0, 0.0), 0.5)
    """
    s = sum(p)
    return (p[1] + p[2] / 2) / s, p[2] * _SQ3 / s


def kind_legend(ax: Any, kinds: Sequence[str], **kw: Any) -> Any:
    """A second legend naming the marker of each kind used."""
    handles = [Line2D([], [], color="0.3", linestyle="none", **KIND_STYLE[k],
                      label=_KIND_LABEL[k]) for k in kinds]
    leg = ax.legend(handles=handles, title="kind of number", fontsize=7, title_fontsize=7, **kw)
    ax.add_artist(leg)
    return leg


def _xy(points: Sequence[dict[str, Any]]) -> tuple[list[float], list[float]]:
    pts = [p for p in points if p.get("y") is not None]
    return [p["x"] for p in pts], [p["y"] for p in pts]


def math_text(closed_form: str) -> str:
    r"""A report's sympy string (e.g. ``"log(1/2 + sqrt(5)/2)"``) as mathtext ``$…$``.

    >>> print(math_text("log(2)"))
    $\log{\left(2 \right)}$
    """
    expr = parse_closed_form(closed_form, "closed_form", InvalidArgument)
    return "$" + sympy.latex(expr) + "$"


def _series(ax: Any, points: Sequence[dict[str, Any]], gid: str, label: str, color: str,
            bars: bool = False, **kw: Any) -> None:
    """A data series: a line through every point (``gid``), then each kind's markers
    (``gid@kind``, styled point by point), and with ``bars`` each enclosure [lo, hi] as a
    vertical error bar (``gid!enclosures``)."""
    xs, ys = _xy(points)
    pts = [p for p in points if p.get("y") is not None]
    ax.plot(xs, ys, color=color, label=label, gid=gid, **kw)
    for kind in sorted({p["kind"] for p in pts}):
        sel = [p for p in pts if p["kind"] == kind]
        style = kind + "-bar" if bars and kind == "certified" else kind
        ax.plot([p["x"] for p in sel], [p["y"] for p in sel], linestyle="none", color=color,
                gid=f"{gid}@{style}", **KIND_STYLE[style])
    if bars:
        enc = [p for p in pts if p.get("lo") is not None]
        ax.vlines([p["x"] for p in enc], [float(Fraction(p["lo"])) for p in enc],
                  [float(Fraction(p["hi"])) for p in enc], color=color, lw=2,
                  gid=f"{gid}!enclosures")


def _regions2(rep: dict[str, Any]) -> Figure:
    panels = rep["figures"]["fig2_regions"]["panels"]
    fig = Figure(figsize=(10, 3.8), layout="constrained")
    axes = fig.subplots(1, len(panels))
    tri = [ternary(v) for v in ((1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 0, 0))]
    for k, (ax, p) in enumerate(zip(axes, panels)):
        ax.plot(*zip(*tri), color="0.4", lw=1)
        pts = [ternary(c) for c in p["corners"]]
        ax.fill(*zip(*pts), color="tab:blue", alpha=0.25, label="regular priors (Prop. 3)")
        ax.plot([q[0] for q in pts], [q[1] for q in pts], linestyle="none", color="tab:blue",
                gid=f"fig2_regions/panels/{k}/corners", label="corner priors",
                **KIND_STYLE[p["kind"]])
        u = ternary((1, 1, 1))
        ax.plot(*u, linestyle="none", color="tab:green" if p["uniform_regular"] else "tab:red",
                marker="*", markersize=9, label="uniform prior: green regular, red not "
                "(certified verdict)")
        for v, name in zip(tri[:3], ("$x_1$", "$x_2$", "$x_3$")):
            ax.annotate(name, v, textcoords="offset points", xytext=(0, 4 if v[1] else -12),
                        ha="center", fontsize=8)
        ax.set_title(p["label"].replace("ε", r"$\varepsilon$"), fontsize=9)
        ax.set_aspect("equal")
        ax.set_axis_off()
    handles, labels = axes[0].get_legend_handles_labels()
    for k in sorted({p["kind"] for p in panels}):  # the kind of the corner markers
        handles.append(Line2D([], [], color="0.3", linestyle="none", **KIND_STYLE[k]))
        labels.append(f"kind: {_KIND_LABEL[k]}")
    fig.legend(handles, labels, loc="outside lower center", ncols=4, fontsize=8)
    fig.suptitle("Fig. 2: regular priors on 3 points (line / cycle) — ternary plot", fontsize=10)
    return fig


def _regions3(rep: dict[str, Any]) -> Figure:
    panels = rep["figures"]["fig3_regions"]["panels"]
    fig = Figure(figsize=(9, 4.2), layout="constrained")
    for k, p in enumerate(panels):
        ax = fig.add_subplot(1, len(panels), k + 1, projection="3d")
        simplex = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)]
        for a in range(4):
            for b in range(a + 1, 4):
                ax.plot(*zip(simplex[a], simplex[b]), color="0.6", lw=0.8)
        c = [tuple(x[:3]) for x in p["corners"]]
        faces = [[c[i] for i in range(4) if i != j] for j in range(4)]
        ax.add_collection3d(Poly3DCollection(faces, alpha=0.25, facecolor="tab:blue",
                                             edgecolor="tab:blue"))
        ax.plot([q[0] for q in c], [q[1] for q in c], [q[2] for q in c], linestyle="none",
                color="tab:blue", gid=f"fig3_regions/panels/{k}/corners",
                label="corner priors (first 3 coords)", **KIND_STYLE[p["kind"]])
        ax.zaxis.set_rotate_label(False)
        ax.set_xlabel("$x_1$", labelpad=-4)
        ax.set_ylabel("$x_2$", labelpad=-4)
        ax.set_zlabel("$x_3$", labelpad=-4, rotation=0)
        ax.tick_params(labelsize=6, pad=-2)
        ax.view_init(elev=22, azim=35)
        ax.set_title(f"{p['label']}, $\\varepsilon$ = {p['eps']} (uniform prior "
                     f"{'regular' if p['uniform_regular'] else 'not regular'})", fontsize=9)
        if k == 0:
            ax.legend(fontsize=7, loc="upper left")
        else:
            kind_legend(ax, sorted({q["kind"] for q in panels}), loc="upper left")
    fig.suptitle("Fig. 3: regular priors on 4 points at distance D, projected on the first "
                 "three coordinates", fontsize=10)
    return fig


def _fig4(rep: dict[str, Any]) -> Figure:
    d = rep["figures"]["fig4_leakage"]
    fig = Figure(figsize=(7, 4.2), layout="constrained")
    ax = fig.subplots()
    xmax = max(p["x"] for p in d["thm3"])
    rf = d["regular_from"]
    ax.axvspan(rf["x"], xmax, color="tab:green", alpha=0.12, gid="fig4_leakage/regular_from",
               label=r"prior regular: $\varepsilon \geq$ " + math_text(rf["exact"])
               + f" ({rf['kind']})")
    ax.axvline(rf["x"], color="tab:green", lw=1, gid="fig4_leakage/regular_from/x")
    _series(ax, d["thm3"], "fig4_leakage/thm3", "Thm. 3 bound (every prior)", "tab:blue")
    _series(ax, d["prop5"], "fig4_leakage/prop5", "Prop. 5 bound (Example 3's prior; only "
            "where regular)", "tab:orange")
    pp = d["paper_prop5"]
    ax.plot(pp["x"], pp["y"], color="tab:red", linestyle="none", gid="fig4_leakage/paper_prop5",
            label=f"paper: {pp['y']} bits at ε = {pp['x']}", **KIND_STYLE["float"])
    ax.set_xlabel(r"$\varepsilon$")
    ax.set_ylabel("min-entropy leakage bound (bits)")
    ax.set_title("Fig. 4: leakage bounds, Example 3 (5 individuals, 4 values)", fontsize=10)
    kind_legend(ax, ["certified", "float"], loc="lower right")
    ax.legend(fontsize=7, loc="upper left")
    return fig


def _nonexistence_span(ax: Any, points: Sequence[dict[str, Any]], gid: str) -> None:
    no = [p["x"] for p in points if not p.get("exists", True)]
    yes = [p["x"] for p in points if p.get("exists", True)]
    if no:
        right = (max(no) + min((x for x in yes if x > max(no)), default=max(no))) / 2
        ax.axvspan(min(no), right, color="0.85", gid=f"{gid}!nonexistence",
                   label="no tight-constraints mechanism (certified)")


def _fig6(rep: dict[str, Any]) -> Figure:
    d = rep["figures"]["fig6_utility"]
    fig = Figure(figsize=(10, 4), layout="constrained")
    axes = fig.subplots(1, 2)
    for ax, key in zip(axes, ("sum", "count")):
        s = d[key]
        _nonexistence_span(ax, s["tight_constraints"], f"fig6_utility/{key}/tight_constraints")
        _series(ax, s["tight_constraints"], f"fig6_utility/{key}/tight_constraints",
                "tight constraints", "tab:blue")
        _series(ax, s["geometric"], f"fig6_utility/{key}/geometric", "geometric (closed form)",
                "tab:orange")
        ax.set_xlabel(r"$\varepsilon$")
        ax.set_ylabel("utility (uniform prior, optimal remap)")
        ax.set_title(s["instance"], fontsize=9)
        kind_legend(ax, ["certified"], loc="lower right")
        ax.legend(fontsize=7, loc="upper left")
    fig.suptitle("Fig. 6: tight constraints vs geometric", fontsize=10)
    return fig


def _fig7(rep: dict[str, Any]) -> Figure:
    d = rep["figures"]["fig7_grid"]
    fig = Figure(figsize=(10, 4), layout="constrained")
    a, b = fig.subplots(1, 2)
    _series(a, d["tight_constraints"], "fig7_grid/tight_constraints", "tight constraints",
            "tab:blue")
    _series(a, d["planar_laplace"], "fig7_grid/planar_laplace", "planar Laplace (discretised)",
            "tab:orange", bars=True)
    a.set_title(f"utility on the {d['utility_grid']} grid", fontsize=9)
    a.set_xlabel(r"$\varepsilon$")
    a.set_ylabel("utility (uniform prior, optimal remap)")
    kind_legend(a, ["certified", "certified-bar"], loc="lower right")
    a.legend(fontsize=7, loc="upper left")
    ex = d["existence"]
    b.plot([p["x"] for p in ex], [1 if p["exists"] else 0 for p in ex], linestyle="none",
           color="tab:blue", gid="fig7_grid/existence", label="exists? (1 yes, 0 no)",
           **KIND_STYLE["certified"])
    t = d["threshold"]
    b.axvspan(t["lo"], t["hi"], color="tab:green", alpha=0.5, gid="fig7_grid/threshold/span")
    b.axvline(t["y"], color="tab:green", lw=1.5, gid="fig7_grid/threshold/y",
              label=f"certified ε* ∈ [{t['lo']:.6f}, {t['hi']:.6f}] ({t['instance']})")
    b.axvline(t["paper"], color="tab:red", linestyle="--", lw=1,
              gid="fig7_grid/threshold/paper", label=f"paper: plotted from ε = {t['paper']}")
    b.set_ylim(-0.2, 1.35)
    b.set_yticks([0, 1], ["no", "yes"])
    b.set_xlabel(r"$\varepsilon$")
    b.set_title(f"tight-constraints existence on the {d['existence_grid']} grid", fontsize=9)
    kind_legend(b, ["certified"], loc="center right")
    b.legend(fontsize=7, loc="upper left")
    fig.suptitle("Fig. 7: Euclidean grid", fontsize=10)
    return fig


def _thresholds(rep: dict[str, Any]) -> Figure:
    rows = rep["figures"]["thresholds_paper_vs_true"]["rows"]
    fig = Figure(figsize=(8, 0.6 * len(rows) + 1.6), layout="constrained")
    ax = fig.subplots()
    ys = list(range(len(rows)))[::-1]
    for kind in ("exact", "certified"):
        sel = [(r, y) for r, y in zip(rows, ys) if r["kind"] == kind]
        ax.plot([r["y"] for r, _ in sel], [y for _, y in sel], linestyle="none",
                color="tab:green", gid=f"thresholds_paper_vs_true/rows/{kind}",
                label=f"true ε* ({kind})", **KIND_STYLE[kind])
    paper = [(r, y) for r, y in zip(rows, ys) if r["paper"] is not None]
    ax.plot([r["paper"] for r, _ in paper], [y for _, y in paper], linestyle="none",
            color="tab:red", gid="thresholds_paper_vs_true/rows/paper",
            label="paper's value (float, step 0.01)", **KIND_STYLE["float"])
    for r, y in paper:
        ax.annotate("", (r["y"], y), (r["paper"], y),
                    arrowprops={"arrowstyle": "->", "color": "0.5", "lw": 0.8})
    for r, y in zip(rows, ys):
        txt = math_text(r["closed_form"]) if r["closed_form"] else f"{r['y']:.9f}"
        ax.annotate(txt, (r["y"], y), textcoords="offset points", xytext=(6, 5), fontsize=7,
                    gid=f"thresholds_paper_vs_true/rows/{len(rows) - 1 - y}/label")
    ax.set_yticks(ys, [r["instance"] for r in rows], fontsize=8)
    ax.set_ylim(-0.7, len(rows) - 0.3)
    ax.set_xlim(0.3, max(max(r["y"] for r in rows), 1.0) + 0.25)
    ax.set_xlabel(r"threshold $\varepsilon^*$")
    ax.set_title("Thresholds: the paper's value against the true value", fontsize=10)
    ax.legend(fontsize=7, loc="lower right")
    return fig


def _pufferfish(rep: dict[str, Any]) -> Figure:
    d = rep["figures"]["pufferfish_theta"]
    fig = Figure(figsize=(7, 4.2), layout="constrained")
    ax = fig.subplots()
    cons = d["conservative"]
    ax.plot(*_xy(cons), color="0.4", linestyle="--", gid="pufferfish_theta/conservative",
            label=r"conservative $W_\infty/\varepsilon$", **KIND_STYLE["exact"])
    for k, (pair, color) in enumerate(zip(d["pairs"], ("tab:blue", "tab:orange"))):
        _series(ax, pair["points"], f"pufferfish_theta/pairs/{k}/points",
                rf"$\theta^*$: {pair['name']}", color)
    ax.set_xlabel(r"$\varepsilon$")
    ax.set_ylabel(r"least Laplace scale $\theta^*$ (0: no noise needed)")
    ax.set_title("Pufferfish: exact least scale vs the conservative calibration", fontsize=10)
    kind_legend(ax, ["exact", "certified"], loc="center right")
    ax.legend(fontsize=7, loc="upper right")
    return fig


def _sets(rep: dict[str, Any]) -> Figure:
    d = rep["figures"]["sets_ratio"]
    fig = Figure(figsize=(7, 4.2), layout="constrained")
    ax = fig.subplots()
    values = sorted({p["exact"] for p in d["ratio"]})
    ax.plot(*_xy(d["ratio"]), color="tab:blue", gid="sets_ratio/ratio",
            label=r"$T_{M(X)}(K)/T_{M(Y)}(K)$" + (f" (= {values[0]})" if len(values) == 1
                                                   else ""), **KIND_STYLE["exact"])
    ax.plot(*_xy(d["paper_bound"]), color="tab:red", gid="sets_ratio/paper_bound",
            label=r"Theorem 1: $e^{\varepsilon(d_H + \mathrm{diam}\,K)}$", **KIND_STYLE["exact"])
    ax.plot(*_xy(d["points_bound"]), color="tab:green", gid="sets_ratio/points_bound",
            label=r"proved bound: $|X|\,e^{\varepsilon d_H}$", **KIND_STYLE["exact"])
    fails = [p for p in d["paper_bound"] if not p["holds"]]
    ax.plot([p["x"] for p in fails], [p["y"] for p in fails], linestyle="none", marker="o",
            markersize=13, gid="sets_ratio/paper_bound!fails", markerfacecolor="none", markeredgecolor="tab:red",
            label="Theorem 1 fails here (bound < ratio; exact verdict)")
    ax.set_xlabel(r"$\varepsilon$")
    ax.set_ylabel("ratio / bound")
    ax.set_title(r"Sets: X = {0, 1/4}, Y = {0}, K = [0, 1/4]", fontsize=10)
    kind_legend(ax, ["exact"], loc="lower right")
    ax.legend(fontsize=7, loc="upper left")
    return fig


_DRAW: dict[str, Callable[[dict[str, Any]], Figure]] = {
    "fig2_regions": _regions2,
    "fig3_regions": _regions3,
    "fig4_leakage": _fig4,
    "fig6_utility": _fig6,
    "fig7_grid": _fig7,
    "thresholds_paper_vs_true": _thresholds,
    "pufferfish_theta": _pufferfish,
    "sets_ratio": _sets,
}

#: The report's figures (PNG file stems), in drawing order.
FIGURES: tuple[str, ...] = tuple(_DRAW)


def drawing_versions() -> dict[str, str]:
    """The matplotlib and FreeType versions that draw the PNGs (recorded in report.json)."""
    return {"matplotlib": matplotlib.__version__,
            "freetype": str(getattr(ft2font, "__freetype_version__", "unknown"))}


def save(name: str, rep: dict[str, Any], path: Any) -> None:
    """Draw figure ``name`` from ``rep`` and write it as a PNG (110 dpi, no version metadata)
    to ``path`` (a file path or a binary file object)."""
    target = path if hasattr(path, "write") else Path(path)
    draw(name, rep).savefig(target, dpi=110, format="png", metadata={"Software": None})


def draw(name: str, rep: dict[str, Any]) -> Figure:
    """Draw one report figure (``name`` in :data:`FIGURES`) from the report dict."""
    if name not in _DRAW:
        raise InvalidArgument(f"Got figure {name!r}; use one of {', '.join(FIGURES)}.")
    return _DRAW[name](rep)
