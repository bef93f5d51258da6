"""Deliberately wrong float implementations are caught by the oracle and shrunk to small cases;
a correct float implementation near a threshold is not reported wrong."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import strategies as st

from exactdp.errors import CrosscheckFailed
from exactdp.mechanisms import from_rows
from exactdp.spaces.metrics import FiniteMetric, from_matrix, line
from exactdp.testing import assert_matches_exact, check_case, crosscheck
from exactdp.testing.float_reference import (
    leakage_float,
    privacy_level_float,
    pufferfish_theta_float,
    tight_z_float,
)
from exactdp.testing.pufferfish_strategies import bernoulli_pairs
from exactdp.testing.strategies import line_metrics, rational_eps, rational_t

STAR = from_matrix([[0, 1, 1, 1], [1, 0, 2, 2], [1, 2, 0, 2], [1, 2, 2, 0]])  # ε* = ln 2


def _points(case: object) -> int:
    parts = case if isinstance(case, tuple) else (case,)
    sizes = [p.n for p in parts if isinstance(p, FiniteMetric)]
    sizes += [len(p) for p in parts if isinstance(p, tuple) and p and isinstance(p[0], tuple)]
    return max(sizes)


def test_off_by_one_in_the_metric_is_caught_and_shrunk() -> None:
    def off_by_one(D: np.ndarray, eps: float) -> np.ndarray:
        n = len(D)
        Dw = D + (D > 0)  # every distance one too large
        return np.linalg.solve(np.exp(-eps * Dw), np.ones(n))

    # lines of up to 30 points: the generator can draw n > 10, so "shrunk to ≤ 10 points" is tested
    with pytest.raises(CrosscheckFailed) as info:
        assert_matches_exact(off_by_one, "tight-constraints",
                             st.tuples(line_metrics(max_n=30), rational_t()), max_examples=40)
    err = info.value
    assert _points(err.case) <= 10
    assert err.result.within_tol is False
    assert "exact" in str(err) and "float" in str(err) and "<-- worst" in str(err)


def test_sign_error_in_leakage_is_caught() -> None:
    def wrong_sign(H: np.ndarray, prior: np.ndarray) -> float:
        return -leakage_float(H, prior)

    with pytest.raises(CrosscheckFailed) as info:  # up to 6 inputs drawn: shrinking must reach 2
        assert_matches_exact(wrong_sign, "min-entropy-leakage", max_examples=20, max_points=6)
    assert _points(info.value.case) == 2
    # the shrunk case has a nonzero leakage (zero leakage is the one case the sign cannot matter)
    assert info.value.result.abs_error > 0


def test_relative_error_1e7_near_a_threshold_flips_the_verdict_and_is_caught() -> None:
    eps = Fraction(math.log(2)) * (1 - Fraction(5, 10**8))  # 5e-8 below ε* = ln 2: no z ≥ 0

    def eps_off(D: np.ndarray, e: float) -> tuple[np.ndarray, bool]:
        return tight_z_float(D, e * (1 + 1e-7))  # a relative error of 1e-7 in ε: lands above ln 2

    r = check_case(eps_off, "tight-constraints", (STAR, eps), tol_level=Fraction(1, 10**9))
    assert r.exact_verdict.value == "fails" and r.float_verdict is True
    assert r.outcome == "disagrees" and r.failed
    # default tol_level 1e-6: the flip is excused, but z misses tol 1e-9, so it still fails
    rd = check_case(eps_off, "tight-constraints", (STAR, eps))
    assert rd.outcome == "within-tolerance-of-boundary" and rd.within_tol is False and rd.failed
    # the same float with a 1e-7 relative error in the privacy level
    rows = ((Fraction(2, 3), Fraction(1, 3)), (Fraction(1, 3), Fraction(2, 3)))  # level ln 2
    just_below = Fraction(math.log(2)) * (1 - Fraction(5, 10**8))

    def level_off(H: np.ndarray, D: np.ndarray, e: float | None) -> float:
        return privacy_level_float(H, D) * (1 - 1e-7)

    r2 = check_case(level_off, "privacy-level", (rows, line(2), just_below), tol_level=Fraction(1, 10**9))
    assert r2.outcome == "disagrees" and r2.within_tol is False
    # with the default tol_level 1e-6 the flip is excused, but the value is still outside tol
    r3 = check_case(level_off, "privacy-level", (rows, line(2), just_below))
    assert r3.outcome == "within-tolerance-of-boundary" and r3.failed


def test_pufferfish_theta_from_a_sampled_supremum_is_too_small_and_caught() -> None:
    def sampled(pp: np.ndarray, ppr: np.ndarray, qp: np.ndarray, qpr: np.ndarray, eps: float) -> float:
        lo, hi = min(pp.min(), qp.min()), max(pp.max(), qp.max())
        xs = np.linspace(lo, hi, 7)[1:-1] if hi > lo else [lo + 0.5]  # misses the support points
        return pufferfish_theta_float(pp, ppr, qp, qpr, eps, sample=xs)

    with pytest.raises(CrosscheckFailed) as info:
        assert_matches_exact(sampled, "pufferfish-theta", max_examples=30)
    r = info.value.result
    assert r.exact_verdict.value == "fails" and r.float_verdict is True and r.outcome == "disagrees"
    assert r.float_value[0] < float(r.exact_value[0].enclosure.lo)


def test_the_correct_pufferfish_float_passes_on_bernoulli_pairs() -> None:
    assert_matches_exact(pufferfish_theta_float, "pufferfish-theta",
                         st.tuples(bernoulli_pairs(), rational_eps(max_value=2)), max_examples=25)


def test_correct_float_near_a_threshold_is_within_tolerance_of_the_boundary() -> None:
    rows = ((Fraction(2, 3), Fraction(1, 3)), (Fraction(1, 3), Fraction(2, 3)))  # level = ln 2 exactly
    f = Fraction(math.log(2))  # fl(ln 2) < ln 2 < fl(ln 2) + 2.3e-17
    assert from_rows(rows).n_inputs == 2
    # ε on either side of ln 2, all within 1e-16 of it: every fl(ε) is fl(ln 2), so the float
    # verdict cannot follow the exact one on both sides; the oracle must excuse the flip
    sides = [f + Fraction(1, 10**17), f + Fraction(3, 10**17)]  # below, above ln 2
    report = crosscheck(privacy_level_float, "privacy-level", [(rows, line(2), e) for e in sides])
    assert [r.exact_verdict.value for r in report.results] == ["fails", "holds"]
    assert len({r.float_verdict for r in report.results}) == 1  # same float input, same answer
    assert report.ok, report.table()
    flipped = [r for r in report.results if r.outcome == "within-tolerance-of-boundary"]
    assert len(flipped) == 1 and flipped[0].boundary is not None
    assert flipped[0].boundary.lo < Fraction(6931471805599454, 10**16) and flipped[0].boundary.hi > f
    # tight constraints on the star, at rationals within 1e-12 of ε* = ln 2 on both sides
    near = [f + Fraction(k, 10**13) for k in range(-6, 7)]
    report = crosscheck(tight_z_float, "tight-constraints", [(STAR, e) for e in near])
    assert report.ok, report.table()
    assert report.counts["agrees"] >= 6 and report.counts["disagrees"] == 0
    assert report.counts["agrees"] + report.counts["within-tolerance-of-boundary"] == len(near)
