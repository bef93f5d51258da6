"""Every figure and claim of the reproduction in one report: ``exactdp reproduce --output DIR``.

:func:`build_report` computes the data (exact or certified; every point carries its kind:
``"exact"``, ``"certified"`` or ``"float"``) as one JSON-able dict; :func:`write_report`
writes ``report.json``, ``report.md`` (the claims table: claim, paper's value, exactdp's
value, kind, agreement, time) and the PNG figures drawn from that same dict by
:mod:`exactdp.reproduce.figures`, so a figure shows exactly what the report states.

Sizes come from a profile (:data:`PROFILES`): ``"quick"`` (default; the paper's threshold
instances, coarser ε grids, smaller grids for Fig. 7), ``"full"`` (the paper's sizes) and
``"tiny"`` (the test-suite size). The sizes used are recorded in the report and printed.

Examples
--------
>>> print(sizes_text(PROFILES["tiny"]))  # doctest: +ELLIPSIS
profile tiny: sum_query(30, 5), count_queries(10), Fig. 6 ε step 1/10, ...

``tests/reproduce/test_reproduce_report.py`` builds the tiny report and checks every figure
against its ``report.json``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import sympy
from sympy.printing.str import StrPrinter

from exactdp.arithmetic.interval import Enclosure
from exactdp.arithmetic.rationals import to_sympy
from exactdp.errors import InvalidArgument, InvalidOutputPath
from exactdp.kinds import Sign
from exactdp.mechanisms.bounds import database_leakage_bound
from exactdp.progress import Progress, report
from exactdp.pufferfish.bernoulli_forms import exact_sign
from exactdp.pufferfish.calibration import exact_scale
from exactdp.pufferfish.distributions import bernoulli
from exactdp.pufferfish.secrets import DistributionPair, DistributionVsAbsent
from exactdp.reproduce import fig4, fig6, fig7, regions
from exactdp.sets import Box, check_set_privacy
from exactdp.spaces.metrics import count_queries, grid, sum_query
from exactdp.threshold import epsilon_threshold
from exactdp.threshold.results import ThresholdResult

__all__ = ["Sizes", "PROFILES", "build_report", "write_report", "write_files", "check_output_dir",
           "claims_markdown", "sizes_text",
           "readme_section", "report_markdown"]


@dataclass(frozen=True)
class Sizes:
    """The instance sizes and ε grids of one profile (recorded in the report)."""

    name: str
    sum_query: tuple[int, int]
    count_queries: int
    fig6_step: str
    fig4_step: str
    grid_threshold: int
    grid_existence: int
    existence_eps: tuple[str, ...]
    grid_utility: int
    utility_subdivisions: int
    utility_eps: tuple[str, ...]
    pufferfish_eps: tuple[str, ...]
    sets_eps: tuple[str, ...]


PROFILES: dict[str, Sizes] = {
    "tiny": Sizes("tiny", (30, 5), 10, "1/10", "1/8", 10, 10, ("2/5", "13/10"), 4, 8,
                  ("13/10",), ("1/2", "1", "2"), ("1/2", "1", "2")),
    "quick": Sizes("quick", (150, 5), 30, "1/20", "1/50", 30, 30,
                   ("2/5", "1/2", "3/5", "7/10", "1", "13/10"), 6, 16,
                   ("7/10", "1", "13/10"), ("1/4", "1/2", "3/4", "1", "3/2", "2", "3"),
                   ("1/4", "1/2", "1", "3/2", "2", "5/2", "3")),
    "full": Sizes("full", (150, 5), 30, "1/100", "1/100", 100, 100,
                  ("2/5", "1/2", "3/5", "13/20", "7/10", "1", "13/10"), 12, 64,
                  ("2/5", "7/10", "1", "13/10"),
                  ("1/4", "1/2", "3/4", "1", "5/4", "3/2", "2", "5/2", "3", "4"),
                  ("1/4", "1/2", "3/4", "1", "5/4", "3/2", "7/4", "2", "5/2", "3")),
}

#: The paper's reported values (floating point, step 0.01) that the claims compare against.
PAPER = {"sum_query": 0.8, "count_queries": 0.9, "example3": 0.48, "thm3_bits": 2.5,
         "fig4_prop5_bits": 1.2, "fig7_from": 0.4}


def sizes_text(sizes: Sizes) -> str:
    """One line naming the sizes used (printed by the CLI and written in report.md)."""
    u, v = sizes.sum_query
    return (f"profile {sizes.name}: sum_query({u}, {v}), count_queries({sizes.count_queries}), "
            f"Fig. 6 ε step {sizes.fig6_step}, Fig. 4 ε step {sizes.fig4_step}, "
            f"grid threshold {sizes.grid_threshold}×{sizes.grid_threshold}, grid existence "
            f"{sizes.grid_existence}×{sizes.grid_existence}, grid utility "
            f"{sizes.grid_utility}×{sizes.grid_utility} ({sizes.utility_subdivisions}² sub-squares)")


def _q(x: Fraction) -> str:
    return f"{x.numerator}/{x.denominator}" if x.denominator != 1 else str(x.numerator)


def _point(x: Fraction, enc: Enclosure | None, kind: str, **extra: Any) -> dict[str, Any]:
    """A plotted point: float coordinates for the figure, exact ends for the record."""
    out: dict[str, Any] = {"x": float(x), "x_exact": _q(x), "kind": kind, **extra}
    if enc is None:
        out.update(y=None, lo=None, hi=None)
    else:
        out.update(y=float((enc.lo + enc.hi) / 2), lo=_q(enc.lo), hi=_q(enc.hi))
    return out


def _mid(v: Any) -> float:
    """Float midpoint of an enclosure (display), or the float of an exact number."""
    return float((v.lo + v.hi) / 2) if isinstance(v, Enclosure) else float(v)


def _grid(start: str, stop: str, step: str) -> list[Fraction]:
    return fig6.eps_grid(start, stop, step)


def _threshold_row(label: str, res: ThresholdResult, paper: float | None) -> dict[str, Any]:
    exact = None
    if res.exact is not None and res.exact.degree <= 2:
        exact = _s(res.as_sympy())
    return {"instance": label, "paper": paper, "eps_lower": _q(res.eps_lower),
            "eps_upper": _q(res.eps_upper), "lo": float(res.eps_lower), "hi": float(res.eps_upper),
            "y": float((res.eps_lower + res.eps_upper) / 2),
            "kind": "exact" if res.exact is not None else "certified",
            "closed_form": exact, "method": res.method, "seconds": round(res.seconds, 3)}


def _enc_text(r: ThresholdResult) -> str:
    return f"ε* ∈ [{float(r.eps_lower):.12f}, {float(r.eps_upper):.12f}]"


class _Claims:
    def __init__(self) -> None:
        self.rows: list[dict[str, Any]] = []

    def add(self, cid: str, claim: str, paper: str, value: str, kind: str, agree: str,
            seconds: float) -> None:
        self.rows.append({"id": cid, "claim": claim, "paper": paper, "exactdp": value,
                          "kind": kind, "agreement": agree, "seconds": round(seconds, 2)})


def _timed(f: Callable[[], Any]) -> tuple[Any, float]:
    t0 = time.perf_counter()
    out = f()
    return out, time.perf_counter() - t0


class _Printer(StrPrinter):
    """sympy's str printer, but e = exp(1) printed as ``exp(1)`` (sympy's ``E`` reads like
    the E = e^ε of the formulas)."""

    def _print_Exp1(self, expr: Any) -> str:
        return "exp(1)"


def _s(expr: Any) -> str:
    """A sympy expression as text for the report (``exp(1)``, never a bare ``E``)."""
    return str(_Printer().doprint(expr))


def _ln(expr: Any) -> str:
    return _s(expr).replace("log", "ln")


def _example3_threshold() -> tuple[sympy.Expr, Fraction, bool]:
    """Example 3's exact regularity threshold ε* = ln(1/t*) and whether t* checks out.

    α₁ ≥ 0 ⇔ t ≤ p_min/(1 − (k−1)p_min) (fig4's docstring); checked: regular at t* (with a
    verified certificate) and not regular just above it.
    """
    p = fig4.EXAMPLE3_P
    t_star = min(p) / (1 - (len(p) - 1) * min(p))
    reg = fig4.product_prior_regularity(p, 5, t=t_star)
    ok = reg.regular and reg.verify() and not fig4.product_prior_regularity(
        p, 5, t=t_star * Fraction(1001, 1000)).regular
    return sympy.log(to_sympy(1 / t_star)), t_star, bool(ok)


def _thresholds(sz: Sizes, claims: _Claims, progress: Progress) -> dict[str, Any]:
    u, v = sz.sum_query
    rows = []
    report(progress, "report", f"threshold of sum_query({u}, {v})")
    r, dt = _timed(lambda: epsilon_threshold(sum_query(u, v)))
    rows.append(_threshold_row(f"sum_query({u}, {v})", r, PAPER["sum_query"]))
    claims.add("sum_query", f"sum query u={u}, v={v}: tight constraints exist from ε = 0.8",
               "0.8", _enc_text(r), rows[-1]["kind"],
               "no: none exists on [0.8, ε*)" if r.eps_lower > Fraction(4, 5) else "yes", dt)
    report(progress, "report", f"threshold of count_queries({sz.count_queries})")
    r, dt = _timed(lambda: epsilon_threshold(count_queries(sz.count_queries)))
    rows.append(_threshold_row(f"count_queries({sz.count_queries})", r, PAPER["count_queries"]))
    claims.add("count_queries", f"2-count query u={sz.count_queries}: exists from ε = 0.9", "0.9",
               _enc_text(r), rows[-1]["kind"],
               "no: none exists on [0.9, ε*)" if r.eps_lower > Fraction(9, 10) else "yes", dt)
    w = sz.grid_threshold
    report(progress, "report", f"threshold of the {w}×{w} Euclidean grid")
    r, dt = _timed(lambda: epsilon_threshold(grid(w, w, "euclidean")))
    rows.append(_threshold_row(f"grid {w}×{w}", r, PAPER["fig7_from"]))
    claims.add("grid", f"Fig. 7 ({w}×{w} grid): tight-constraints utility plotted from ε = 0.4",
               "0.4", _enc_text(r), rows[-1]["kind"],
               "no: none exists below ε*" if r.eps_lower > Fraction(2, 5) else "yes", dt)
    # Example 3: α₁ ≥ 0 ⇔ t ≤ p_min/(1 − (k−1)p_min) (fig4's docstring), exact
    (eps_star, t_star, ok), dt = _timed(_example3_threshold)
    rows.append({"instance": "Example 3 (regular prior)", "paper": PAPER["example3"],
                 "eps_lower": _s(eps_star), "eps_upper": _s(eps_star),
                 "lo": float(eps_star), "hi": float(eps_star), "y": float(eps_star),
                 "kind": "exact", "closed_form": _s(eps_star), "method": "exact",
                 "seconds": round(dt, 3)})
    paper_from = Fraction(12, 25)
    if not ok:
        kind, agree = "check failed", "check failed: t* is not the exact regularity boundary"
    elif exact_sign(eps_star - to_sympy(paper_from)) is Sign.POSITIVE:
        kind, agree = "exact", f"no: not regular on [0.48, {_ln(eps_star)})"
    else:
        kind, agree = "exact", "yes"
    claims.add("example3", "Example 3: the prior is regular for all 0.48 ≤ ε ≤ 1", "0.48",
               f"regular iff ε ≥ {_ln(eps_star)} (t* = {t_star})", kind, agree, dt)
    report(progress, "report", "exact threshold of sum_query(2, 2)")
    r, dt = _timed(lambda: epsilon_threshold(sum_query(2, 2)))
    rows.append(_threshold_row("sum_query(2, 2)", r, None))
    claims.add("sum_query_2_2", "sum query u = v = 2 (no paper value): exact ε*", "—",
               _s(r.as_sympy()).replace("log", "ln"), "exact", "—", dt)
    return {"rows": rows}


def _fig6(sz: Sizes, claims: _Claims, progress: Progress) -> dict[str, Any]:
    u, v = sz.sum_query
    out: dict[str, Any] = {}
    ratios: dict[str, list[float]] = {}
    for key in ("sum", "count"):
        if key == "sum":
            rows, dt = _timed(lambda: fig6.fig6_sum_query(
                u, v, _grid("4/5", "13/10", sz.fig6_step), progress=progress))
        else:
            rows, dt = _timed(lambda: fig6.fig6_count_queries(
                sz.count_queries, _grid("9/10", "13/10", sz.fig6_step), progress=progress))
        out[key] = {
            "instance": f"sum_query({u}, {v})" if key == "sum" else
            f"count_queries({sz.count_queries})",
            "tight_constraints": [_point(r.eps, r.utility_tc, "certified", exists=r.exists)
                                  for r in rows],
            "geometric": [_point(r.eps, r.utility_geometric_enclosure, "certified",
                                 closed_form=_s(r.utility_geometric)) for r in rows],
            "seconds": round(dt, 2)}
        ratios[key] = [g for g in (r.gain for r in rows) if g is not None]
        first = next((float(r.eps) for r in rows if r.exists), float("nan"))
        claims.add(f"fig6_{key}", f"Fig. 6 ({out[key]['instance']}): tight constraints beats "
                   "geometric wherever it exists", "yes",
                   (f"ratio {min(ratios[key]):.3f}–{max(ratios[key]):.3f}× (float ratio of "
                    f"certified utilities); exists from ε = {first:.2f} on this grid")
                   if ratios[key] else "never exists on this grid",
                   "certified", "yes" if all(
                       r.utility_tc.lo > r.utility_geometric_enclosure.hi
                       for r in rows if r.utility_tc is not None) else "no", dt)
    return out


def _fig4(sz: Sizes, claims: _Claims, progress: Progress) -> dict[str, Any]:
    eps = _grid("12/25", "1", sz.fig4_step)
    rows, dt = _timed(lambda: fig4.fig4(eps, progress=progress))
    half = database_leakage_bound(4, 5, eps=Fraction(1, 2))
    paper = Fraction(5, 2)
    lo, hi = half.enclosure.lo, half.enclosure.hi
    if lo > paper:
        agree = f"no: the paper's 2.5 is below the true value ({float(lo):.4f} bits, rounded down)"
    elif hi < paper:
        agree = f"no: the paper's 2.5 is above the true value ({float(hi):.4f} bits, rounded up)"
    else:
        agree = "yes"
    claims.add("thm3", "Thm. 3 at ε = 0.5: 2.5 bits for all priors", "2.5 bits",
               f"{_ln(half.value)} ∈ [{float(lo):.6f}, {float(hi):.6f}] bits", "certified",
               agree, dt)
    eps_star, _, ok = _example3_threshold()
    # the exact range must agree with every computed point's regularity, else a failed claim
    wrong = [r.eps for r in rows
             if r.regular != (exact_sign(to_sympy(r.eps) - eps_star) is not Sign.NEGATIVE)]
    claims.add("fig4_regular", "Fig. 4 (check): every grid point is regular iff ε ≥ ε*", "—",
               f"{len(rows) - len(wrong)}/{len(rows)} grid points agree with ε ≥ {_ln(eps_star)}",
               "exact" if ok and not wrong else "check failed",
               "yes" if ok and not wrong else
               f"check failed at ε = {', '.join(str(e) for e in wrong) or 't*'}", dt)
    return {"thm3": [_point(r.eps, r.thm3, "certified") for r in rows],
            "prop5": [_point(r.eps, r.prop5, "certified", regular=r.regular) for r in rows],
            "regular_from": {"exact": _s(eps_star), "x": float(eps_star),
                             "kind": "exact" if ok and not wrong else "check failed"},
            "paper_prop5": {"x": 0.5, "y": PAPER["fig4_prop5_bits"], "kind": "float"},
            "seconds": round(dt, 2)}


def _fig7(sz: Sizes, claims: _Claims, progress: Progress,
          grid_threshold: dict[str, Any]) -> dict[str, Any]:
    w = sz.grid_utility
    eps_u = [Fraction(e) for e in sz.utility_eps]
    rows, dt_u = _timed(lambda: fig7.fig7(w, w, eps_u, subdivisions=sz.utility_subdivisions,
                                          progress=progress))
    eps_e = [Fraction(e) for e in sz.existence_eps]
    ex, dt_e = _timed(lambda: fig7.existence(sz.grid_existence, eps_e, progress=progress))
    no_at = [float(r.eps) for r in ex if not r.exists]
    claims.add("fig7_existence", f"Fig. 7 ({sz.grid_existence}×{sz.grid_existence} grid): "
               "a tight-constraints mechanism at ε = 0.4", "exists (plotted)",
               f"none at ε = {', '.join(f'{e:g}' for e in no_at)}" if no_at else "exists",
               "certified", "no" if 0.4 in no_at else "yes", dt_e)
    return {"utility_grid": f"{w}×{w}",
            "tight_constraints": [_point(r.eps, r.utility_tc, "certified", exists=r.exists)
                                  for r in rows],
            "planar_laplace": [_point(r.eps, Enclosure(r.utility_laplace.lo, r.utility_laplace.hi),
                                      "certified") for r in rows],
            "existence_grid": f"{sz.grid_existence}×{sz.grid_existence}",
            "existence": [{"x": float(r.eps), "x_exact": _q(r.eps), "exists": r.exists,
                           "method": r.method, "kind": "certified"} for r in ex],
            "threshold": grid_threshold, "seconds": round(dt_u + dt_e, 2)}


def _regions(which: str) -> dict[str, Any]:
    data = regions.fig2() if which == "fig2" else regions.fig3()
    panels = []
    for d in data:
        corners = [[_mid(v) for v in c] for c in d.corners]
        exact = all(not isinstance(v, Enclosure) for c in d.corners for v in c)
        panels.append({"label": d.label, "eps": _q(d.eps), "n": d.metric.n,
                       "corners": corners, "kind": "exact" if exact else "certified",
                       "uniform_regular": d.uniform_regular, "vertex_regular": d.vertex_regular})
    return {"panels": panels}


def _pufferfish(sz: Sizes, claims: _Claims, progress: Progress) -> dict[str, Any]:
    pairs = {"Bern(1/2) vs absent": DistributionVsAbsent(bernoulli("1/2")),
             "Bern(3/4) vs Bern(1/4)": DistributionPair(bernoulli("3/4"), bernoulli("1/4"))}
    series: list[dict[str, Any]] = []
    t0 = time.perf_counter()
    for name, pair in pairs.items():
        pts = []
        for e in sz.pufferfish_eps:
            report(progress, "pufferfish", f"{name}, ε = {e}")
            r = exact_scale(pair, e)
            enc = Enclosure(r.lo, r.hi)
            pts.append(_point(Fraction(e), enc, "certified",
                              closed_form=None if r.theta_expr is None else _s(r.theta_expr)))
        series.append({"name": name, "points": pts})
    conservative = [{"x": float(Fraction(e)), "y": float(1 / Fraction(e)), "kind": "exact"}
                    for e in sz.pufferfish_eps]
    one = exact_scale(DistributionVsAbsent(bernoulli("1/2")), "1")
    claims.add("pufferfish", "Pufferfish, Bern(1/2) vs absent at ε = 1: conservative scale "
               "W∞/ε = 1", "1 (W∞/ε)", f"θ* = {_s(one.theta_expr).replace('log', 'ln')} "
               f"≈ {float(one.lo):.6f}", "certified",
               f"sufficient, but θ* is {100 * (1 - float(one.hi)):.0f} % lower",
               time.perf_counter() - t0)
    return {"pairs": series, "conservative": conservative}


def _sets(sz: Sizes, claims: _Claims) -> dict[str, Any]:
    t0 = time.perf_counter()
    X, Y, K = [0, Fraction(1, 4)], [0], Box(0, Fraction(1, 4))
    ratio: list[dict[str, Any]] = []
    paper: list[dict[str, Any]] = []
    points: list[dict[str, Any]] = []
    for e in sz.sets_eps:
        a = check_set_privacy(X, Y, K, e, bound="paper", norm="l1")
        b = check_set_privacy(X, Y, K, e, bound="points", norm="l1")
        x = Fraction(e)
        ratio.append({"x": float(x), "y": float(a.ratio), "exact": _s(a.ratio),
                      "kind": "exact"})
        paper.append({"x": float(x), "y": float(a.factor), "exact": _s(a.factor),
                      "kind": "exact", "holds": a.holds})
        points.append({"x": float(x), "y": float(b.factor), "exact": _s(b.factor),
                       "kind": "exact", "holds": b.holds})
    fails = [i for i, p in enumerate(paper) if not p["holds"]]
    ratios = sorted({str(ratio[i]["exact"]) for i in fails})
    at = ", ".join(format(paper[i]["x"], "g") for i in fails)
    if fails:
        value = (f"fails for X = {{0, 1/4}}, Y = {{0}}, K = [0, 1/4]: ratio exactly "
                 f"{' / '.join(ratios)} (ε = {at})")
    else:
        value = "holds at every ε computed"
    claims.add("sets_theorem1", "Sets, Theorem 1: T_X(K) ≤ e^{ε(d_H + diam K)} T_Y(K)", "holds",
               value, "exact", "no" if fails else "yes", time.perf_counter() - t0)
    return {"ratio": ratio, "paper_bound": paper, "points_bound": points}


def build_report(profile: str = "quick", progress: Progress = None) -> dict[str, Any]:
    """Compute every figure's data and the claims table (a JSON-able dict)."""
    if profile not in PROFILES:
        raise InvalidArgument(f"Got profile={profile!r}; use one of {sorted(PROFILES)}.")
    sz = PROFILES[profile]
    t0 = time.perf_counter()
    claims = _Claims()
    figs: dict[str, Any] = {}
    report(progress, "report", "Figs. 2 and 3 (regions)")
    figs["fig2_regions"] = _regions("fig2")
    figs["fig3_regions"] = _regions("fig3")
    figs["thresholds_paper_vs_true"] = _thresholds(sz, claims, progress)
    grid_row = figs["thresholds_paper_vs_true"]["rows"][2]
    figs["fig4_leakage"] = _fig4(sz, claims, progress)
    figs["fig6_utility"] = _fig6(sz, claims, progress)
    figs["fig7_grid"] = _fig7(sz, claims, progress, grid_row)
    figs["pufferfish_theta"] = _pufferfish(sz, claims, progress)
    figs["sets_ratio"] = _sets(sz, claims)
    return {"profile": profile, "sizes": asdict(sz), "sizes_text": sizes_text(sz),
            "claims": claims.rows, "figures": figs,
            "seconds": round(time.perf_counter() - t0, 2)}


def claims_markdown(rep: dict[str, Any]) -> str:
    """The claims table of a report (markdown)."""
    out = ["| claim | paper | exactdp | kind | agrees | time (s) |",
           "| --- | --- | --- | --- | --- | --- |"]
    for c in rep["claims"]:
        out.append(f"| {c['claim']} | {c['paper']} | {c['exactdp']} | {c['kind']} | "
                   f"{c['agreement']} | {c['seconds']:.2f} |")
    return "\n".join(out)


def check_output_dir(outdir: Any) -> Path:
    """Create ``outdir`` if needed and prove it writable, BEFORE any computation.

    Raises :class:`~exactdp.errors.InvalidOutputPath` naming the path and the fix.

    >>> import tempfile, os
    >>> d = tempfile.mkdtemp()
    >>> check_output_dir(os.path.join(d, "new", "report")).is_dir()
    True
    """
    path = Path(outdir)
    if path.exists() and not path.is_dir():
        raise InvalidOutputPath(f"Got --output {str(path)!r}, which is an existing file, not a "
                                "folder; pass a folder path (it is created if missing).")
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / ".exactdp-write-test"
        probe.write_text("")
        probe.unlink()
    except OSError as exc:
        raise InvalidOutputPath(f"Got --output {str(path)!r}, which cannot be created or written "
                                f"({exc.strerror or exc}); pass a writable folder, e.g. "
                                "--output ./exactdp-report.") from exc
    return path


def write_report(outdir: Any, profile: str = "quick", progress: Progress = None
                 ) -> dict[str, Any]:
    """Build the report and write report.json, report.md and the PNG figures into ``outdir``.

    ``outdir`` is checked (created, writable) before anything is computed. Returns the
    report dict, with ``"files"`` listing what was written and ``"draw_seconds"`` the time
    spent drawing and writing (``"seconds"`` is the computation alone).
    """
    path = check_output_dir(outdir)
    rep = build_report(profile, progress)
    return write_files(path, rep, progress)


def write_files(outdir: Any, rep: dict[str, Any], progress: Progress = None
                ) -> dict[str, Any]:
    """Draw and write every file of a report from its dict (no computation).

    Used by :func:`write_report` and to redraw a committed report from its report.json.
    The dict gains ``"files"``, ``"draw_seconds"`` and ``"drawn_with"`` (the versions).
    """
    from exactdp.reproduce import figures  # deferred: pyplot only when drawing

    path = check_output_dir(outdir)
    t0 = time.perf_counter()
    files = []
    for name in figures.FIGURES:
        report(progress, "report", f"drawing {name}.png")
        figures.save(name, rep, path / f"{name}.png")
        files.append(f"{name}.png")
    rep["files"] = files + ["report.md", "report.json", "readme_section.md"]
    rep["drawn_with"] = figures.drawing_versions()
    rep["draw_seconds"] = round(time.perf_counter() - t0, 2)
    (path / "report.json").write_text(json.dumps(rep, indent=1, ensure_ascii=False) + "\n")
    (path / "report.md").write_text(report_markdown(rep))
    (path / "readme_section.md").write_text(readme_section(rep))
    return rep


def readme_section(rep: dict[str, Any], figure_dir: str = ".") -> str:
    """The README's results section, generated from a report (claims table and figure links).

    ``figure_dir`` is where the report's PNG files are, relative to the README.
    """
    lines = ["## Results — the true values", "",
             f"*Generated by `exactdp reproduce` from `report.json` ({rep['sizes_text']}); "
             "do not edit by hand — rerun `exactdp reproduce --output DIR` (add `--full` for "
             "the paper's sizes).* Every value is exact or certified unless marked float; the "
             "paper's values were computed in floating point with an ε step of 0.01.", "",
             claims_markdown(rep), "", "Figures (every point marked exact / certified / float): "
             + ", ".join(f"[{f[:-4]}]({figure_dir}/{f})" for f in rep.get("files", [])
                         if f.endswith(".png")) + "."]
    return "\n".join(lines) + "\n"


def report_markdown(rep: dict[str, Any]) -> str:
    """The report.md text of a report dict (claims, thresholds table, figure links)."""
    lines = ["# exactdp reproduction report", "",
             f"Generated by `exactdp reproduce` ({rep['sizes_text']}; {rep['seconds']:.1f} s). "
             "Every value is exact or certified unless marked float; the paper's values were "
             "computed in floating point.", "", "## Claims", "", claims_markdown(rep), "",
             "## Thresholds ε*", "", "| instance | paper | exactdp ε* | kind |",
             "| --- | --- | --- | --- |"]
    for r in rep["figures"]["thresholds_paper_vs_true"]["rows"]:
        val = r["closed_form"] or f"[{r['lo']:.12f}, {r['hi']:.12f}]"
        lines.append(f"| {r['instance']} | {r['paper'] if r['paper'] is not None else '—'} | "
                     f"{val} | {r['kind']} |")
    lines += ["", "## Figures", ""]
    for f in rep.get("files", []):
        if f.endswith(".png"):
            lines += [f"![{f[:-4]}]({f})", ""]
    return "\n".join(lines)
