"""Small-ε preconditioning of the float grid solves (issue 15, session 8, builder 15D).

At small ε Strang's circulant is indefinite (the route used plain CG); T. Chan's optimal
circulant stays positive and cuts the iterations. The candidates are re-proved by the
certified routes, so these tests check the float solver and that the certified one-ε
answer on a masked grid (now preconditioned) still matches the dense route.
"""

from fractions import Fraction

import numpy as np

from exactdp.engine.core import solve_nonnegative
from exactdp.engine.grid_point import solve_grid_point
from exactdp.linalg.grid_pcg import (
    circulant_preconditioner,
    grid_fft_matvec,
    grid_pcg_solver,
    strang_eigenvalues,
    tchan_eigenvalues,
)
from exactdp.spaces.levels import parse_level
from exactdp.spaces.metrics.masked import masked_grid


def _kernel(W: int, H: int, eps: float) -> np.ndarray:
    return np.exp(-eps * np.hypot(*np.meshgrid(np.arange(W), np.arange(H), indexing="ij")))


def _plain_cg(mv, b, iters):
    x = np.zeros_like(b)
    r = b.copy()
    p = r.copy()
    rr = r @ r
    for _ in range(iters):
        Ap = mv(p)
        al = rr / (p @ Ap)
        x += al * p
        r -= al * Ap
        rn = r @ r
        p = r + rn / rr * p
        rr = rn
    return x


def test_tchan_is_positive_where_strang_is_not_and_cuts_iterations():
    k = _kernel(30, 24, 0.001)
    assert strang_eigenvalues(k) is None
    lam = tchan_eigenvalues(k)
    assert lam is not None and np.min(lam) > 0
    mv = grid_fft_matvec(k)
    b = np.ones(30 * 24)
    x = grid_pcg_solver(k, 1e-14, 60)(b)
    assert np.linalg.norm(b - mv(x)) / np.linalg.norm(b) < 1e-9
    y = _plain_cg(mv, b, 60)  # the same budget without a preconditioner does not get there
    assert np.linalg.norm(b - mv(y)) / np.linalg.norm(b) > 1e-8


def test_tchan_eigenvalues_are_rayleigh_quotients():
    # T. Chan's circulant has eigenvalue F*ΦF at each Fourier vector: check against dense Φ
    W, H = 5, 4
    k = _kernel(W, H, 0.3)
    pts = [(y, x) for y in range(H) for x in range(W)]
    phi = np.array([[k[abs(x1 - x2), abs(y1 - y2)] for (y2, x2) in pts] for (y1, x1) in pts])
    lam = np.fft.fft2(np.fft.irfft2(tchan_eigenvalues(k), s=(H, W)))
    for fy in range(H):
        for fx in range(W):
            v = np.array([np.exp(2j * np.pi * (fy * y / H + fx * x / W)) for (y, x) in pts]) / np.sqrt(W * H)
            assert abs(np.vdot(v, phi @ v).real - lam[fy, fx].real) < 1e-12


def test_identity_fallback_and_preconditioner_shape():
    k = _kernel(6, 5, 0.7)
    prec = circulant_preconditioner(k)
    r = np.arange(30.0)
    assert prec(r).shape == (30,)


def test_masked_small_eps_matches_dense():
    mask = ["1111111", "1110111", "1111111", "0111110", "1111111"]
    m = masked_grid(7, 5, mask=mask)
    lvl = parse_level(eps="1/100")
    sol = solve_grid_point(m, lvl)
    dense = solve_nonnegative(m, lvl, [Fraction(1)] * m.n, method="ball")
    assert sol.holds == dense.holds
    assert sol.certificate.verify()
