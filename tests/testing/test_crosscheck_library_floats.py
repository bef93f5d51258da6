"""exactdp's own float paths (``method="float"`` and the ``*_float`` functions) through the
oracle on generated cases (deterministic draws; about 600 cases in CI; set
EXACTDP_CROSSCHECK_CASES=2000 for a long run — 2000 per tight-constraints path)."""

from __future__ import annotations

import os
from typing import Any

import numpy as np
from hypothesis import strategies as st

from exactdp.algebra.structure import grid_cg_solve_float, solve_float, toeplitz_solve_float
from exactdp.pufferfish.loss import loss_float
from exactdp.regularity import is_regular
from exactdp.spaces.levels import PrivacyLevel
from exactdp.spaces.metrics import FiniteMetric
from exactdp.testing import crosscheck, draw_cases
from exactdp.testing.case_strategies import cases_for
from exactdp.testing.float_reference import FLOAT_REFERENCES
from exactdp.testing.strategies import euclidean_grids, levels, line_metrics
from exactdp.tight import tight_constraints

N = int(os.environ.get("EXACTDP_CROSSCHECK_CASES", "150"))
TIGHT = draw_cases(cases_for("tight-constraints", max_points=8), N)


def _at(level: PrivacyLevel) -> dict[str, Any]:
    return {"t": level.t} if level.t is not None else {"eps": level.eps}


def _tight_float(metric: FiniteMetric, level: PrivacyLevel) -> tuple[np.ndarray, bool]:
    est = tight_constraints(metric, **_at(level), method="float")
    return est.x_float, est.holds_estimate


def _regular_float(metric: FiniteMetric, prior: Any, level: PrivacyLevel) -> tuple[np.ndarray, bool]:
    est = is_regular(metric, prior, **_at(level), method="float")
    return est.x_float, est.holds_estimate


def _structured(metric: FiniteMetric, level: PrivacyLevel) -> np.ndarray:
    return solve_float(metric, level.eps_float(), np.ones(metric.n))


def _levinson(metric: FiniteMetric, level: PrivacyLevel) -> np.ndarray:
    return toeplitz_solve_float(metric, level.eps_float(), np.ones(metric.n))


def _grid_cg(metric: FiniteMetric, level: PrivacyLevel) -> np.ndarray:
    return grid_cg_solve_float(metric, level.eps_float(), np.ones(metric.n))[0]


def _theta_by_loss_float(pp: np.ndarray, ppr: np.ndarray, qp: np.ndarray, qpr: np.ndarray, eps: float) -> float:
    """θ* by bisection on exactdp's own float loss (pufferfish.loss.loss_float)."""
    pts = np.union1d(pp, qp)
    p = [float(np.sum(ppr[pp == v])) for v in pts]
    q = [float(np.sum(qpr[qp == v])) for v in pts]
    if (all(a > 0 for a in p) == all(b > 0 for b in q) and all((a > 0) == (b > 0) for a, b in zip(p, q))
            and max(abs(np.log(a) - np.log(b)) for a, b in zip(p, q) if a > 0) <= eps):
        return 0.0
    lo, hi = 0.0, 1.0
    while loss_float(list(pts), p, q, hi) > eps:
        hi *= 2
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi):
            break
        lo, hi = (mid, hi) if loss_float(list(pts), p, q, mid) > eps else (lo, mid)
    return hi


def test_tight_constraints_method_float() -> None:
    rep = crosscheck(_tight_float, "tight-constraints", TIGHT, inputs="exact")
    assert rep.ok, rep.table()
    assert rep.counts["agrees"] >= 0.8 * len(TIGHT)


def test_structured_and_levinson_float_solves() -> None:
    rep = crosscheck(_structured, "tight-constraints", TIGHT, inputs="exact")
    assert rep.ok, rep.table()
    lines = draw_cases(st.tuples(line_metrics(max_n=12), levels()), N // 2)
    rep2 = crosscheck(_levinson, "tight-constraints", lines, inputs="exact")
    assert rep2.ok, rep2.table()
    grids = draw_cases(st.tuples(euclidean_grids(max_side=4), levels()), N // 5)
    rep3 = crosscheck(_grid_cg, "tight-constraints", grids, inputs="exact")
    assert rep3.ok, rep3.table()


def test_regularity_method_float() -> None:
    cases = draw_cases(cases_for("regularity", max_points=6), N // 2)
    rep = crosscheck(_regular_float, "regularity", cases, inputs="exact")
    assert rep.ok, rep.table()


def test_pufferfish_loss_float_bisection() -> None:
    cases = draw_cases(cases_for("pufferfish-theta"), N // 3)
    rep = crosscheck(_theta_by_loss_float, "pufferfish-theta", cases)
    assert rep.ok, rep.table()


def test_reference_floats_of_value_questions() -> None:
    for q, n in (("privacy-level", N // 4), ("utility", N // 3), ("min-entropy-leakage", N // 3),
                 ("set-capacity", N // 6), ("threshold", N // 3)):
        cases = draw_cases(cases_for(q), n)
        assert len(cases) == n  # the strategy is large enough that no draw is lost
        rep = crosscheck(FLOAT_REFERENCES[q], q, cases)
        assert rep.ok, rep.table()
        assert rep.counts["agrees"] >= 0.9 * n, rep.summary()  # verdict/value agreement, not just "ran"


def test_sets_value_float_of_the_closed_form() -> None:
    """``capacity_functional(...).value_float`` (a 64-bit ball midpoint of the exact closed form)
    on generated cases and on a box far from X, where a naive float loses everything."""
    from exactdp.sets import Box, BoxUnion, capacity_functional, point_set

    cases = draw_cases(cases_for("set-capacity"), N // 6)
    cases.append((point_set([(0,)]), BoxUnion([Box((40,), (41,))]), 1))
    rep = crosscheck(lambda X, K, level: capacity_functional(X, K, level.eps).value_float, "set-capacity",
                     cases, inputs="exact")
    assert rep.ok, rep.table()
    assert rep.counts["agrees"] == len(cases) and rep.counts["within-by-abs-tol"] == 0
