"""Issue 15: precision escalation (exact integer residuals) and the matrix-free route's memory."""

from fractions import Fraction

import numpy as np
import pytest

import exactdp.threshold.taylor as taylor_mod
from exactdp.errors import PrecisionLimitReached
from exactdp.linalg.exact_products import exact_table_matvec, limb_bits
from exactdp.spaces.metrics import grid
from exactdp.threshold import epsilon_threshold
from exactdp.threshold.float_bounds import rhs_float
from exactdp.threshold.providers import DenseProvider, GridProvider
from exactdp.threshold.spd_cover import lambda_for
from exactdp.threshold.taylor import exact_residual_bound, on_residual_grid, taylor_piece

TIGHT = Fraction(1, 10**12)


def _spy(monkeypatch):
    calls = []
    orig = taylor_mod.exact_residual_bound

    def spy(*a, **kw):
        calls.append(1)
        return orig(*a, **kw)

    monkeypatch.setattr(taylor_mod, "exact_residual_bound", spy)
    return calls


def test_default_call_escalates_where_double_precision_cannot_decide(monkeypatch):
    calls = _spy(monkeypatch)
    r = epsilon_threshold(grid(12, 12), tol=TIGHT)
    assert calls, "the exact residual (precision escalation) did not run"
    assert r.eps_upper - r.eps_lower <= TIGHT
    assert r.verify()


def test_without_escalation_the_same_call_gives_up(monkeypatch):
    def refuse(*a, **kw):
        raise PrecisionLimitReached("escalation switched off for this test")

    monkeypatch.setattr(taylor_mod, "exact_residual_bound", refuse)
    with pytest.raises(PrecisionLimitReached):
        epsilon_threshold(grid(12, 12), tol=TIGHT)


@pytest.mark.parametrize("W, H", [(5, 8), (9, 4)])
def test_exact_products_match_python_integers_on_rectangular_grids(W, H):
    m = grid(W, H, "euclidean")
    rng = np.random.default_rng(W * H)
    table = [int(x) << 70 | int(y) for x, y in zip(rng.integers(0, 2**40, len(m.values)),
                                                    rng.integers(0, 2**60, len(m.values)))]
    col = [int(x) << 40 for x in rng.integers(-(2**50), 2**50, m.n)]
    want = [sum(table[int(m.index[i, j])] * col[j] for j in range(m.n)) for i in range(m.n)]
    for prov in (GridProvider(m), DenseProvider(m)):
        assert exact_table_matvec(prov.matvec, m.n, table, [col])[0] == want
    assert limb_bits(m.n) >= 17


def test_exact_product_contract_is_checked():
    with pytest.raises(Exception, match="exact integer"):
        exact_table_matvec(lambda t, V: V * 0.5, 2, [1, 1], [[1, 1]])


def test_matrix_free_piece_escalates_and_agrees_with_the_dense_route():
    """Just above ε* of the 12×12 grid, tol 1e-12: the float bound of the matrix-free piece
    cannot decide; with the exact right-hand side it can, and z agrees with the dense solve."""
    m = grid(12, 12, "euclidean")
    r = epsilon_threshold(m, tol=TIGHT)
    prov = GridProvider(m)
    prov.fast_exact = False  # the float-rounding bounds (exact grid products decide it directly)
    a, bb = r.eps_upper, r.eps_upper + TIGHT
    lam = lambda_for(prov, a, bb)
    rhs = tuple(Fraction(1) for _ in range(m.n))
    b, brad = rhs_float(rhs)
    plain, _ = taylor_piece(prov, list(m.values), b, brad, a, bb, 3, lam)
    esc, Y = taylor_piece(prov, list(m.values), b, brad, a, bb, 3, lam, rhs=rhs)
    assert not plain.ok and esc.ok and esc.err < plain.err / 10
    D = m.distance_matrix_float()
    z = np.linalg.solve(np.exp(-float((a + bb) / 2) * D), np.ones(m.n))
    assert np.max(np.abs(z - Y[:, 0])) <= 1e-9


def test_exact_residual_bound_contains_the_dense_residual():
    m = grid(7, 6, "euclidean")
    prov = GridProvider(m)
    rhs = tuple(Fraction(1, 1 + i % 4) for i in range(m.n))
    c = Fraction(1, 2)
    y = on_residual_grid(np.linspace(-1, 1, m.n))
    center, upper = exact_residual_bound(prov, list(m.values), rhs, c, y)
    D = m.distance_matrix_float()
    res = np.array([float(x) for x in rhs]) - np.exp(-0.5 * D) @ y
    assert np.all(np.abs(res) <= upper + 1e-13) and np.all(upper < 1e-12 + np.abs(res) * 2)
    assert np.allclose(center, res, atol=1e-13)


def test_matrix_free_route_never_forms_the_index():
    g = grid(51, 51)  # n = 2601: the matrix-free size rule
    assert g.ball_size_symmetric is False
    prov = GridProvider(g)
    lam = lambda_for(prov, Fraction(1), Fraction(1))
    rhs = tuple(Fraction(1) for _ in range(g.n))
    b, brad = rhs_float(rhs)
    res, _ = taylor_piece(prov, list(g.values), b, brad, Fraction(1), Fraction(1001, 1000), 3, lam,
                          rhs=rhs)
    assert res.ok
    assert "index" not in g.__dict__, "an n×n index was built on the matrix-free route"


@pytest.mark.parametrize("W, H", [(9, 4), (3, 11)])
def test_rectangular_grid_matrix_free_stages_agree_with_the_dense_route(W, H):
    """Threshold of a rectangular grid (dense route), then each matrix-free stage at its ends:
    the fail point fails and the first cover range holds on both providers."""
    from exactdp.threshold.spd_cover import spd_fail_point

    m = grid(W, H, "euclidean")
    r = epsilon_threshold(m, tol=Fraction(1, 10**8))
    rhs = tuple(Fraction(1) for _ in range(m.n))
    b, brad = rhs_float(rhs)
    for prov in (GridProvider(m), DenseProvider(m)):
        fail = spd_fail_point(m, rhs, r.eps_lower, prov)
        assert fail is not None and fail.upper < 0
        a, bb = r.eps_upper, r.eps_upper + Fraction(1, 10**7)
        if isinstance(prov, DenseProvider):
            prov.start_chain(a)
        res, _ = taylor_piece(prov, list(m.values), b, brad, a, bb, 3, lambda_for(prov, a, bb),
                              rhs=rhs)
        assert res.ok
