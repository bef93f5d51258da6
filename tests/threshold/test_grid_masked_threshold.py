"""The certified ε* threshold on masked and rectangular grids, matrix-free (issue 15, builder 15C).

A masked grid's Φ is the principal submatrix of its full grid's Φ on the kept cells: the
grid provider multiplies the zero-padded vector and reads the kept cells back, and the full
lattice's λ_min bound holds (Cauchy interlacing). Checked here against the dense route.
"""

from __future__ import annotations

import random
from fractions import Fraction as F

import numpy as np
import pytest

from exactdp.arithmetic.interval import Enclosure
from exactdp.errors import InvalidArgument, InvalidMetric
from exactdp.kernel.threshold_grid import GridThresholdClaim, check_grid_threshold
from exactdp.spaces.grid import (
    force_matrix_free,
    is_large_grid,
    matrix_free_shape,
    offset_count_row,
    offset_value_codes,
    use_matrix_free,
)
from exactdp.spaces.metrics import FiniteMetric, grid, line
from exactdp.spaces.metrics.masked import grid_shape, masked_grid
from exactdp.threshold.api import epsilon_threshold
from exactdp.threshold.certificates import SpdCoverCertificate, SpdPointCertificate
from exactdp.threshold.float_bounds import rhs_float
from exactdp.threshold.lemmas import distance_count_rows
from exactdp.threshold.providers import DenseProvider, GridProvider, provider_for
from exactdp.threshold.spd_certificates import grid_form
from exactdp.threshold.taylor import taylor_piece


def disc(w: int, h: int) -> list[str]:
    cx, cy, r = (w - 1) / 2, (h - 1) / 2, min(w, h) / 2
    return ["".join("1" if (x - cx) ** 2 + (y - cy) ** 2 <= r * r else "0" for x in range(w))
            for y in range(h)]


def l_shape(w: int, h: int) -> list[str]:
    return ["".join("1" if (x < w // 2 or y >= h // 2) else "0" for x in range(w))
            for y in range(h)]


def overlap(a, b) -> bool:
    return a.eps_lower <= b.eps_upper and b.eps_lower <= a.eps_upper


def kernel_claim(metric, cert) -> GridThresholdClaim:
    """The kernel's grid-threshold claim of a matrix-free cover (any size)."""
    return GridThresholdClaim(grid_shape(metric), tuple(cert.rhs),
                              Enclosure(cert.eps_lower, cert.eps_upper), cert.fail.grid_fail(),
                              cert.t0, cert.order, tuple(cert.pieces))


# -- the provider on masked grids against the dense one ---------------------------------

@pytest.mark.parametrize("norm, mask", [("euclidean", disc(7, 5)), ("manhattan", l_shape(6, 6)),
                                        ("euclidean", ["1001", "0110", "1001"])])
def test_masked_provider_matches_dense(norm, mask):
    m = masked_grid(len(mask[0]), len(mask), norm, mask=mask)
    gp, dp = GridProvider(m), DenseProvider(m)
    assert np.array_equal(gp.code, offset_value_codes(m))
    d = np.array([float(v) for v in m.values])
    table = np.exp(-0.7 * d)
    rng = np.random.default_rng(3)
    V = rng.standard_normal((m.n, 3))
    assert np.allclose(gp.matvec(table, V), dp.matvec(table, V), atol=1e-12)
    assert np.allclose(gp.approx_matvec(table, V[:, 0]), dp.matvec(table, V)[:, 0], atol=1e-12)
    x = gp.solver(table)(np.ones(m.n))
    assert np.allclose(dp.matvec(table, x[:, None])[:, 0], 1, atol=1e-9)
    tint = [int(v) for v in rng.integers(-2**40, 2**40, len(m.values))]
    py = random.Random(3)
    cols = [[py.randint(-2**70, 2**70) for _ in range(m.n)] for _ in range(2)]
    assert gp.exact_matvec(tint, cols) == dp.exact_matvec(tint, cols)
    tabs = [tint, [int(v) for v in rng.integers(-9, 9, len(m.values))]]
    assert gp.exact_block_products(tabs, cols) == dp.exact_block_products(tabs, cols)
    # the lattice / Manhattan bound holds for the subset (float sanity of the proved bound)
    lam = gp.lambda_lower(F(7, 10), F(7, 10))
    assert 0 < lam <= np.linalg.eigvalsh(np.exp(-0.7 * m.distance_matrix_float()))[0]


def test_masked_grid_rules():
    big = masked_grid(40, 40, mask=disc(40, 40))
    assert big.n > 900 and use_matrix_free(big) and is_large_grid(big)
    assert isinstance(provider_for(big), GridProvider)
    man = masked_grid(40, 40, "manhattan", mask=disc(40, 40))
    assert matrix_free_shape(man) is not None and use_matrix_free(man)
    assert not use_matrix_free(masked_grid(12, 12, mask=disc(12, 12)))
    assert use_matrix_free(grid(20, 60)) and not use_matrix_free(grid(31, 31, "chebyshev"))
    small = masked_grid(5, 4, "manhattan", mask=l_shape(5, 4))
    with force_matrix_free(small):
        assert use_matrix_free(small) and isinstance(provider_for(small), GridProvider)
    assert not use_matrix_free(small) and isinstance(provider_for(small), DenseProvider)
    # the search's rule and the certificate's kernel form agree (no masked grid taken for
    # its full grid: both read the exact shape)
    for m in (big, man, small, grid(31, 31), grid(30, 30), grid(20, 60), grid(31, 31, "manhattan"),
              masked_grid(31, 31, mask=["1" * 31] * 30 + ["0" * 31])):
        assert matrix_free_shape(m, above_n=0) == grid_form(m) == grid_shape(m)
        assert not use_matrix_free(m) or grid_form(m) is not None
    with pytest.raises(InvalidMetric):
        with force_matrix_free(grid(4, 4, "chebyshev")):
            pass
    with pytest.raises(InvalidMetric):
        epsilon_threshold(line(5), matrix_free=True)
    with pytest.raises(InvalidArgument):
        epsilon_threshold(small, matrix_free="yes")
    with pytest.raises(InvalidArgument):
        epsilon_threshold(small, method="exact", matrix_free=True)


def test_masked_count_row_and_ball_symmetry():
    """The full window's offset counts dominate every kept cell's; ball-size symmetry
    without the n×n index agrees with the per-point counts."""
    rng = random.Random(7)
    for _ in range(60):
        w, h = rng.randint(1, 6), rng.randint(1, 6)
        rows = ["".join(rng.choice("01") for _ in range(w)) for _ in range(h)]
        if "1" not in "".join(rows):
            continue
        m = masked_grid(w, h, rng.choice(["euclidean", "manhattan", "chebyshev"]), mask=rows)
        assert np.all(distance_count_rows(m) <= offset_count_row(m))
        if hasattr(m, "shape"):
            from exactdp.spaces.metrics.masked import _shifted_ball_symmetry
            assert _shifted_ball_symmetry(m.shape, m._offset_code) == \
                FiniteMetric.ball_size_symmetric.func(m)
    big = masked_grid(40, 40, mask=disc(40, 40))
    assert big.ball_size_symmetric is False and "index" not in big.__dict__


# -- the threshold: matrix-free forced on small masked grids vs the dense route ----------

def test_masked_euclidean_forced_matrix_free_matches_dense():
    m = masked_grid(12, 12, "euclidean", mask=disc(12, 12))
    dense = epsilon_threshold(m)
    assert "Cholesky" in dense.method
    mf = epsilon_threshold(m, matrix_free=True)
    assert "lattice symbol" in mf.method and overlap(dense, mf)
    assert mf.eps_upper - mf.eps_lower <= F(1, 10**9)
    c = mf.certificate
    assert isinstance(c, SpdCoverCertificate) and c.nodes == ()
    assert isinstance(c.fail, SpdPointCertificate)
    assert "index" not in m.__dict__ or dense is not None  # the dense run formed it, not mf
    # the kernel's grid-threshold check (exact convolutions, lattice λ) accepts it ...
    assert check_grid_threshold(kernel_claim(m, c)) and c.verify()
    # ... and rejects a fail point moved above the threshold (where z > 0)
    import dataclasses
    bad_fail = dataclasses.replace(c.fail, eps=dense.eps_upper + F(1, 100))
    bad = dataclasses.replace(c, fail=bad_fail, eps_lower=bad_fail.eps,
                              eps_upper=dense.eps_upper + F(2, 100))
    assert not check_grid_threshold(kernel_claim(m, bad)) and not bad.verify()


def test_masked_manhattan_forced_matrix_free_contains_exact():
    """Masked Manhattan grids are not Kronecker: the exact route gives ε* = ln 2 on an L;
    the matrix-free route (Manhattan λ bound ((1 − t)/(1 + t))²) encloses it."""
    m = masked_grid(12, 12, "manhattan", mask=l_shape(12, 12))
    exact = epsilon_threshold(m)
    assert exact.method == "exact"
    mf = epsilon_threshold(m, matrix_free=True)
    assert overlap(exact, mf) and mf.eps_upper - mf.eps_lower <= F(1, 10**9)
    c = mf.certificate
    assert c.nodes == () and isinstance(c.fail, SpdPointCertificate) and not c.fail.holds
    assert c.verify()  # the kernel's grid-threshold check, Manhattan λ ((1 − t)/(1 + t))²
    # and the search's own re-run of the first pieces (exact-product grid provider)
    prov = GridProvider(m)
    b, brad = rhs_float(c.rhs)
    for a, bb, lam in c.pieces[:4]:
        assert lam <= prov.lambda_lower(a, bb)
        assert taylor_piece(prov, list(m.values), b, brad, a, bb, c.order, lam, rhs=c.rhs)[0].ok


# -- above the size switch: by default matrix-free, certified by the kernel --------------

def test_masked_disc_40_default_matrix_free():
    m = masked_grid(40, 40, mask=disc(40, 40))
    r = epsilon_threshold(m)
    assert "lattice symbol" in r.method and r.eps_upper - r.eps_lower <= F(1, 10**9)
    assert "index" not in m.__dict__          # no n×n table on the way
    assert r.certificate.verify()
    # float sanity on the same grid (n = 1,264: a dense float solve is cheap here)
    D = np.hypot(*(np.subtract.outer(c, c) for c in np.array(
        [(float(x), float(y)) for x, y in m.points]).T))
    for eps, sign in ((float(r.eps_lower) - 1e-4, -1), (float(r.eps_upper) + 1e-4, 1)):
        assert np.sign(np.linalg.solve(np.exp(-eps * D), np.ones(m.n)).min()) == sign


def test_masked_manhattan_disc_40_default_matrix_free():
    """Not Kronecker (cells removed): above the size switch the auto route goes matrix-free
    with the Manhattan λ bound; ε* = ln 2 (the inner corners' z changes sign at t = 1/2)."""
    m = masked_grid(40, 40, "manhattan", mask=disc(40, 40))
    r = epsilon_threshold(m)
    assert r.method.startswith("certified") and r.certificate.nodes == ()
    assert r.eps_lower < F(6931471805599453, 10**16) < r.eps_upper  # ln 2 = 0.69314718055994530…
    assert r.certificate.verify()


def test_rectangular_grid_20x60_matrix_free():
    g = grid(20, 60)
    r = epsilon_threshold(g)
    assert "lattice symbol" in r.method and r.certificate.verify()
    D = g.distance_matrix_float()
    for eps, sign in ((float(r.eps_lower) - 1e-4, -1), (float(r.eps_upper) + 1e-4, 1)):
        assert np.sign(np.linalg.solve(np.exp(-eps * D), np.ones(g.n)).min()) == sign
    # full Manhattan grids keep the Kronecker route (ε* = 0: every line factor holds)
    assert epsilon_threshold(grid(31, 31, "manhattan")).method.startswith("kronecker")


def test_dense_route_first_then_matrix_free_certificate_verifies():
    """Review R15BC M1: the count-row cache is per route, so the matrix-free search picks t0
    from the W×H window counts the kernel uses, not from rows the dense route cached."""
    m = masked_grid(7, 3, mask=["1100011", "1100011", "0000000"])
    dense = epsilon_threshold(m)  # fills the dense per-row counts
    r = epsilon_threshold(m, matrix_free=True, verify=True)  # raised CertificateInvalid before
    assert r.certificate.verify() and r.verify()
    assert overlap(dense, r)
    with force_matrix_free(m):
        assert np.array_equal(distance_count_rows(m), offset_count_row(m))


def test_matrix_free_on_grids_with_zero_threshold_answers_like_default():
    """Review R15BC m3: ε* = 0 (1×n, n×1: the float search sees no failure) is proved "for
    every ε" exactly, as the default route does, instead of raising PrecisionLimitReached."""
    for m in (grid(1, 5), grid(6, 1), grid(1, 7, "manhattan")):
        d = epsilon_threshold(m)
        r = epsilon_threshold(m, matrix_free=True, verify=True)
        assert (r.eps_lower, r.eps_upper) == (d.eps_lower, d.eps_upper) == (0, 0), m.name
        assert r.verify()
