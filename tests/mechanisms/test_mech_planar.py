"""Discretised planar Laplace: certified cell masses against independent float quadrature."""

from __future__ import annotations

import math

from scipy import integrate

from exactdp.mechanisms import (
    planar_laplace_grid,
    privacy_level,
)
from exactdp.reproduce.fig7 import fig7
from exactdp.spaces.metrics import grid


def cell_mass(eps: float, dx: int, dy: int) -> float:
    """∫∫ over the unit cell centred at (dx, dy) of ε²/(2π)·e^{-ε|w|} (scipy, float)."""
    def f(y: float, x: float) -> float:
        return eps * eps / (2 * math.pi) * math.exp(-eps * math.hypot(x, y))

    val, _ = integrate.dblquad(f, dx - 0.5, dx + 0.5, dy - 0.5, dy + 0.5, epsabs=1e-12)
    return val


def test_cells_contain_the_quadrature_values() -> None:
    eps = 1.0
    H = planar_laplace_grid(3, 2, eps=1, subdivisions=16)
    # input 0 = (0, 0); outputs (x, y) row-major with width 3
    masses = [cell_mass(eps, j % 3, j // 3) for j in range(6)]
    total = sum(masses)
    for j in range(6):
        ball = H.entry(0, j)
        expected = masses[j] / total
        assert float(ball.lower()) - 1e-9 <= expected <= float(ball.upper()) + 1e-9
        assert float(ball.rad()) < 0.1 * expected


def test_finer_subdivision_narrows_the_enclosure() -> None:
    coarse = planar_laplace_grid(2, 2, eps=1, subdivisions=4).entry(0, 0)
    fine = planar_laplace_grid(2, 2, eps=1, subdivisions=16).entry(0, 0)
    assert fine.rad() < coarse.rad()
    assert coarse.overlaps(fine)


def test_privacy_level_is_enclosed_and_finite() -> None:
    H = planar_laplace_grid(3, 1, eps=1, subdivisions=8)
    r = privacy_level(H, grid(3, 1, "euclidean"), method="ball")
    assert not r.exact and r.enclosure.lo <= r.enclosure.hi < 10


def test_fig7_quick() -> None:
    rows = fig7(quick=True)
    assert all(r.exists for r in rows)
    assert all(r.utility_tc.lo > r.utility_laplace.hi for r in rows)
