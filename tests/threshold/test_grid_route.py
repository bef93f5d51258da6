"""The matrix-free route for large Euclidean grids (GridProvider + lattice symbol λ bound)."""

from fractions import Fraction as F

import numpy as np
import pytest

from exactdp.spaces.metrics import grid
from exactdp.threshold import SpdCoverCertificate, SpdPointCertificate, epsilon_threshold
from exactdp.threshold.providers import DenseProvider, GridProvider, provider_for
from exactdp.threshold.taylor import taylor_piece


@pytest.mark.parametrize("w,h", [(7, 5), (5, 9), (12, 12)])
def test_grid_matvec_and_solver_match_dense(w, h):
    g = grid(w, h, "euclidean")
    dp, gp = DenseProvider(g), GridProvider(g)
    d = np.array([float(v) for v in g.values])
    tab = np.exp(-0.7 * d)
    rng = np.random.default_rng(0)
    V = rng.standard_normal((g.n, 3))
    dense = np.exp(-0.7 * g.distance_matrix_float()) @ V
    assert np.allclose(gp.matvec(tab, V), dense, rtol=0, atol=1e-12)
    assert np.allclose(dp.matvec(tab, V), dense, rtol=0, atol=1e-12)
    b = np.ones(g.n)
    assert np.allclose(gp.solver(tab)(b), np.linalg.solve(np.exp(-0.7 * g.distance_matrix_float()), b),
                       atol=1e-9)


def test_grid_provider_needs_euclidean_grid():
    with pytest.raises(ValueError):
        GridProvider(grid(4, 4, "chebyshev"))
    assert isinstance(provider_for(grid(4, 4)), DenseProvider)
    assert isinstance(provider_for(grid(4, 4), prefer_grid=True), GridProvider)


def test_taylor_piece_same_verdict_both_providers():
    g = grid(10, 10)
    dp, gp = DenseProvider(g), GridProvider(g)
    b = np.ones(g.n)
    vals = list(g.values)
    a = F(7, 10)
    for w, expect in ((F(1, 100), True), (F(3), False)):
        lam = gp.lambda_lower(a, a + w)
        assert 0 < lam <= F(np.linalg.eigvalsh(np.exp(-0.7 * g.distance_matrix_float()))[0])
        r_d, _ = taylor_piece(dp, vals, b, 0.0, a, a + w, 3, lam)
        r_g, _ = taylor_piece(gp, vals, b, 0.0, a, a + w, 3, lam)
        assert r_d.ok == r_g.ok == expect
        # same candidates; the exact blocked bounds of the grid provider (signed Cauchy sums
        # for every m) are at least as sharp as the dense float rounding model
        assert abs(r_d.min_lower - r_g.min_lower) <= max(r_d.err, r_g.err)
        assert r_g.err <= 1.01 * r_d.err


@pytest.fixture(scope="module")
def big_grid_result():
    g = grid(51, 51)  # n = 2601 > 2500: the matrix-free route
    return g, epsilon_threshold(g, method="certified")


def test_large_grid_threshold_is_certified_matrix_free(big_grid_result):
    g, r = big_grid_result
    assert isinstance(r.certificate, SpdCoverCertificate)
    assert "lattice symbol" in r.method
    assert isinstance(r.certificate.fail, SpdPointCertificate)
    assert r.eps_upper - r.eps_lower <= F(1, 10**9)
    assert r.certificate.verify()
    # an independent float check on a smaller grid (the threshold is set near the corners
    # and barely moves with the size): z has a negative entry below, none above
    D = grid(20, 20).distance_matrix_float()
    for eps, sign in ((float(r.eps_lower) - 1e-4, -1), (float(r.eps_upper) + 1e-4, 1)):
        z = np.linalg.solve(np.exp(-eps * D), np.ones(400))
        assert np.sign(z.min()) == sign


def test_large_grid_certificate_rejects_tampering(big_grid_result):
    import dataclasses

    _, r = big_grid_result
    c = r.certificate
    a, b, lam = c.pieces[2]
    bad = c.pieces[:2] + ((a, b, lam * 4),) + c.pieces[3:]
    assert not dataclasses.replace(c, pieces=bad).verify()
    assert not dataclasses.replace(c, pieces=c.pieces[:3] + c.pieces[4:]).verify()


def test_fig7_existence_matrix_free_agrees_with_float_and_threshold(big_grid_result):
    from exactdp.reproduce.fig7 import existence

    g, r = big_grid_result
    eps_values = [F(3, 5), F(7, 10)]
    rows = existence(51, eps_values)
    assert [row.method for row in rows] == ["spd-point (lattice λ bound)"] * 2
    D = g.distance_matrix_float()
    for row in rows:
        z = np.linalg.solve(np.exp(-float(row.eps) * D), np.ones(g.n))
        assert row.exists == bool(z.min() > 0)
        if not row.exists:
            assert 0 < row.negative_entries <= int(np.sum(z < 0))  # certified ⊆ float negatives
    # consistent with the certified threshold of the same grid
    assert rows[0].eps < r.eps_lower and rows[1].eps > r.eps_upper
