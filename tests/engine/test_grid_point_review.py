"""Regressions for review 15B of the matrix-free one-ε grid route (grid-point): tiny and huge
ε, JSON reload of the public results, no silent dense exact solve, progress, refinement
scaling."""

from fractions import Fraction

import numpy as np
import pytest

from exactdp import regularity as regularity_mod
from exactdp import tight as tight_mod
from exactdp.algebra.lattice_spectrum import euclidean_lattice_lambda_lower
from exactdp.engine import grid_point as GP
from exactdp.engine.core import solve_nonnegative
from exactdp.engine.grid_point import (
    GridPointCertificate,
    scaled_residual,
    solve_grid_point,
)
from exactdp.errors import InstanceTooLarge, PrecisionLimitReached
from exactdp.kernel.grid_point import (
    ResidualBound,
    check_grid_point_document,
    grid_lambda_bound,
    manhattan_lambda_lower,
)
from exactdp.regularity import RegularityResult, is_regular
from exactdp.spaces.levels import parse_level
from exactdp.spaces.metrics import grid
from exactdp.spaces.metrics.masked import GridShape, masked_grid
from exactdp.testing.budget import call_budget
from exactdp.tight import TightConstraintsResult, tight_constraints

ONES2 = (Fraction(1), Fraction(1))


def test_tiny_eps_lambda_bound_is_below_lambda_min_and_forgery_rejected():
    eps = Fraction(1, 2**70)
    lvl = parse_level(eps=eps)
    lam = grid_lambda_bound(GridShape(2, 1, "euclidean", Fraction(1)), lvl,
                            euclidean_lattice_lambda_lower)
    # λ_min(grid(2, 1)) = 1 − e^{-ε} ≥ ε − ε²/2: the proved bound must not exceed it
    assert 0 < lam <= eps - eps * eps / 2
    c = 2**10  # the reviewer's forged "fails" certificate (the truth is "holds")
    forged = GridPointCertificate(grid(2, 1), lvl, ONES2, False, 1, (1 + c, -c), 0, lam, 200)
    assert not forged.verify()
    big = Fraction(2191, 10**23)  # the λ the clamped bracket used to prove
    assert not GridPointCertificate(grid(2, 1), lvl, ONES2, False, 1, (1 + c, -c), 0, big,
                                    200).verify()


def test_tiny_eps_route_never_claims_a_wrong_verdict():
    lvl = parse_level(eps=Fraction(1, 2**100))
    truth = solve_nonnegative(grid(3, 3), lvl, method="ball").holds  # False (min z < 0)
    try:
        sol = solve_grid_point(grid(3, 3), lvl)
    except PrecisionLimitReached as exc:
        assert "method='ball'" in str(exc)
    else:
        assert sol.holds == truth and sol.certificate.verify()


@pytest.mark.parametrize("eps", ["10**12", "10**400"])
def test_manhattan_huge_eps_is_fast_in_engine_and_kernel(eps):
    lvl = parse_level(eps=eps)
    with call_budget(50_000):
        lam = manhattan_lambda_lower(lvl, Fraction(1))
        assert Fraction(99, 100) < lam <= 1
        sol = solve_grid_point(grid(6, 6, "manhattan"), lvl)
        assert sol.holds and sol.certificate.verify()
        assert check_grid_point_document(sol.certificate.to_json())


@pytest.mark.parametrize("metric, eps", [(grid(3, 3), Fraction(1, 2**66)),
                                         (grid(6, 6), "10**-15")])
def test_tiny_eps_gives_a_specific_error_or_the_right_answer(metric, eps):
    lvl = parse_level(eps=eps)
    try:
        sol = solve_grid_point(metric, lvl)
    except PrecisionLimitReached as exc:
        assert "method='ball'" in str(exc) and "ε =" in str(exc)
    else:
        assert sol.certificate.verify()
        assert sol.holds == solve_nonnegative(metric, lvl, method="ball").holds


def test_euclidean_huge_eps_answers():
    sol = solve_grid_point(grid(6, 6), parse_level(eps="10**400"))
    assert sol.holds and sol.certificate.verify()


def test_public_results_reload_their_own_grid_point_documents(monkeypatch):
    monkeypatch.setattr(GP, "GRID_POINT_ABOVE_N", 1)
    mask = ["11100", "10000", "10011", "00011"]
    r = tight_constraints(masked_grid(5, 4, "manhattan", mask=mask), t="1/2")
    assert r.method == "grid-matrix-free"
    again = TightConstraintsResult.from_json(r.to_json())
    assert again.verify() and again.exists == r.exists and again.to_json() == r.to_json()
    assert again.method == "grid-matrix-free"
    q = is_regular(grid(6, 5), "uniform", eps="1")
    assert q.method == "grid-matrix-free"
    back = RegularityResult.from_json(q.to_json())
    assert back.verify() and back.regular == q.regular and back.to_json() == q.to_json()


def _big_mask(w, h):  # one hole in the middle (a mask with exact zeros in z stalls the route)
    return ["".join("0" if (x, y) == (w // 2, h // 2) else "1" for x in range(w))
            for y in range(h)]


def test_exact_solution_of_a_large_matrix_free_result_is_refused(monkeypatch):
    metric = masked_grid(31, 30, "manhattan", mask=_big_mask(31, 30))
    assert metric.n > 900
    r = tight_constraints(metric, t="1/2")
    q = is_regular(metric, "uniform", t="1/2")
    assert r.method == q.method == "grid-matrix-free"

    def boom(*args, **kwargs):
        raise AssertionError("a dense n×n exact solve was started")

    monkeypatch.setattr(tight_mod, "solve_nonnegative", boom)
    monkeypatch.setattr(regularity_mod, "solve_nonnegative", boom)
    with pytest.raises(InstanceTooLarge, match="z_enclosure"):
        _ = r.z_exact
    with pytest.raises(InstanceTooLarge, match="alpha_enclosure"):
        _ = q.alpha_exact
    assert len(r.z_enclosure) == metric.n


def test_solve_reports_progress():
    lines = []
    solve_grid_point(grid(6, 5), parse_level(eps="1"), progress=lambda s, m: lines.append(m))
    assert any("float solve done" in m for m in lines)


def test_refinement_residual_is_scaled_before_float_conversion():
    # a residual of size ~2^-3000: a plain num/(den·2^T) conversion underflows to 0
    res = ResidualBound(Fraction(0), [3, -1, 0], [1, 2, 5], 3000)
    assert all(n / (d << 3000) == 0.0 for n, d in zip(res.numerators, res.denominators))
    vec, e = scaled_residual(res)
    assert np.all(np.isfinite(vec)) and 0.5 <= np.max(np.abs(vec)) < 2
    assert [Fraction(float(v)) * Fraction(2) ** e for v in vec] == [
        Fraction(3, 2**3000), Fraction(-1, 2**3001), 0]
