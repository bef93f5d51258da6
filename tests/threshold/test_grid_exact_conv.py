"""Issue 15: exact grid products by integer 2-D convolution (flint Kronecker substitution)."""

import random
from fractions import Fraction

import numpy as np
import pytest

import exactdp.spaces.grid as grid_mod
from exactdp.errors import InvalidArgument
from exactdp.linalg.grid_exact_conv import GridConvolution, direct_grid_product
from exactdp.spaces.grid import offset_value_codes
from exactdp.spaces.metrics import grid
from exactdp.threshold import epsilon_threshold
from exactdp.threshold.float_bounds import rhs_float
from exactdp.threshold.providers import DenseProvider, GridProvider
from exactdp.threshold.spd_cover import lambda_for
from exactdp.threshold.taylor import on_column_grids, point_bounds, taylor_piece

TIGHT = Fraction(1, 10**12)


@pytest.mark.parametrize("W,H", [(1, 1), (1, 7), (7, 1), (4, 9), (10, 3), (8, 8)])
def test_convolution_is_the_exact_direct_sum(W, H):
    rng = random.Random(W * 100 + H)
    code = [[rng.randrange(0, 5) for _ in range(H)] for _ in range(W)]
    conv = GridConvolution(W, H, code)
    for _ in range(3):
        table = [rng.randrange(-(2**120), 2**120) for _ in range(5)]
        cols = [[rng.randrange(-(2**80), 2**80) for _ in range(W * H)] for _ in range(2)]
        got = conv.products(table, cols)
        assert got == [direct_grid_product(W, H, code, table, c) for c in cols]


def test_grid_provider_exact_products_match_dense_limb_products():
    rng = random.Random(3)
    m = grid(7, 5, "euclidean")
    table = [rng.randrange(-(2**100), 2**100) for _ in m.values]
    cols = [[rng.randrange(-(2**64), 2**64) for _ in range(m.n)]]
    got = GridProvider(m).exact_matvec(table, cols)
    assert got == DenseProvider(m).exact_matvec(table, cols)
    idx = m.index
    assert got[0] == [sum(table[int(idx[i, j])] * cols[0][j] for j in range(m.n)) for i in range(m.n)]


def test_convolution_rejects_bad_shapes():
    with pytest.raises(InvalidArgument, match="shape"):
        GridConvolution(3, 2, [[0, 1], [1, 2]])
    conv = GridConvolution(3, 2, offset_value_codes(grid(3, 2)))
    with pytest.raises(InvalidArgument, match="n = 6"):
        conv.products([1] * 5, [[1, 2, 3]])


def test_exact_piece_decides_where_the_float_bound_cannot():
    """Just above ε* of the 12×12 grid (tol 1e-12): the float-rounding bound of the
    matrix-free piece fails; the exact products decide it without the exact rhs."""
    m = grid(12, 12, "euclidean")
    r = epsilon_threshold(m, tol=TIGHT)
    prov = GridProvider(m)
    a, bb = r.eps_upper, r.eps_upper + TIGHT
    lam = lambda_for(prov, a, bb)
    b, brad = rhs_float(tuple(Fraction(1) for _ in range(m.n)))
    prov.fast_exact = False
    flt, _ = taylor_piece(prov, list(m.values), b, brad, a, bb, 3, lam)
    prov.fast_exact = True
    ex, Y = taylor_piece(prov, list(m.values), b, brad, a, bb, 3, lam)
    assert not flt.ok and ex.ok and ex.err < flt.err / 10
    assert np.all(on_column_grids(Y) == Y)
    z = np.linalg.solve(np.exp(-float((a + bb) / 2) * m.distance_matrix_float()), np.ones(m.n))
    assert np.max(np.abs(z - Y[:, 0])) <= 1e-9
    # the fail point: the exact bound contains the dense solve and is sharper
    y, err = point_bounds(prov, list(m.values), b, brad, r.eps_lower, lam)
    prov.fast_exact = False
    _, err_f = point_bounds(prov, list(m.values), b, brad, r.eps_lower, lam)
    z0 = np.linalg.solve(np.exp(-float(r.eps_lower) * m.distance_matrix_float()), np.ones(m.n))
    assert np.max(np.abs(z0 - y)) <= err + 1e-12 and err < err_f


def test_matrix_free_route_result_unchanged(monkeypatch):
    """The whole matrix-free route (forced on a 12×12 grid) with exact products agrees
    with the dense route, and its certificate verifies in the kernel (not with the
    search's own products)."""
    dense = epsilon_threshold(grid(12, 12))
    monkeypatch.setattr(grid_mod, "MATRIX_FREE_ABOVE_N", 100)
    calls = []
    orig = GridProvider.exact_matvec

    def spy(self, table, columns):
        calls.append(len(columns))
        return orig(self, table, columns)

    monkeypatch.setattr(GridProvider, "exact_matvec", spy)
    mf = epsilon_threshold(grid(12, 12))
    assert calls, "the matrix-free route did not use the exact grid products"
    assert max(mf.eps_lower, dense.eps_lower) <= min(mf.eps_upper, dense.eps_upper)
    assert mf.eps_upper - mf.eps_lower <= Fraction(1, 10**9)
    n_before = len(calls)
    assert mf.verify()
    # verify() is the kernel's grid-threshold check: it never calls the search's products
    assert len(calls) == n_before
