"""Issue 15 (session 9): an exactly-zero z entry at a rational t, decided exactly
(:func:`exactdp.threshold.rational_point.exact_grid_z`): masked Manhattan grids at t = 1/2,
where the one-ε enclosure route refines to max_bits and gives up (46 s on a 40×40 L)."""

from __future__ import annotations

from fractions import Fraction as F

import pytest
from flint import fmpq, fmpq_mat

from exactdp.errors import InvalidArgument, InvalidMetric
from exactdp.spaces.metrics import grid
from exactdp.spaces.metrics.masked import masked_grid
from exactdp.threshold.rational_point import exact_grid_z


def l_shape(w: int, h: int) -> list[str]:
    return ["".join("1" if (x < w // 2 or y >= h // 2) else "0" for x in range(w))
            for y in range(h)]


def _flint_z(m, t: F, rhs) -> list[F]:
    """Independent dense exact solve (flint fmpq_mat), small n only."""
    pts = m.points
    tq = fmpq(t.numerator, t.denominator)
    A = fmpq_mat(m.n, m.n, [tq ** int(abs(a[0] - c[0]) + abs(a[1] - c[1])) for a in pts for c in pts])
    z = A.solve(fmpq_mat(m.n, 1, [fmpq(v.numerator, v.denominator) for v in rhs]))
    return [F(int(e.p), int(e.q)) for e in z.entries()]


@pytest.mark.parametrize("t", [F(1, 2), F(1, 3), F(3, 5)])
def test_exact_z_equals_an_independent_dense_exact_solve(t):
    m = masked_grid(9, 7, "manhattan", mask=l_shape(9, 7))
    rhs = [F(1 + (i % 3), 7) for i in range(m.n)]
    assert list(exact_grid_z(m, t, rhs)) == _flint_z(m, t, rhs)


def test_l_shape_40_has_an_exact_zero_at_one_half():
    """ε = ln 2 (t = 1/2) on the 40×40 L: z ≥ 0 with z[419] = 0 exactly — the property holds
    at ε = ln 2 (the threshold ε* = ln 2 is attained there)."""
    m = masked_grid(40, 40, "manhattan", mask=l_shape(40, 40))
    z = exact_grid_z(m, F(1, 2))
    assert z is not None and min(z) == 0 and [i for i, v in enumerate(z) if v == 0] == [419]
    # just below / above in t the corner goes negative / positive (enclosures decide those)
    assert exact_grid_z(m, F(51, 100))[419] < 0 < exact_grid_z(m, F(49, 100))[419]


def test_refusals_and_none():
    with pytest.raises(InvalidMetric):
        exact_grid_z(grid(5, 5, "euclidean"), F(1, 2))
    with pytest.raises(InvalidArgument):
        exact_grid_z(grid(5, 5, "manhattan"), F(1))
    # denominators beyond the bound: no candidate passes the exact check -> None, never wrong
    # (z has denominator 9 and z/max z denominator 4: 2 bits find it by the direction guess)
    m = masked_grid(9, 7, "manhattan", mask=l_shape(9, 7))
    assert exact_grid_z(m, F(1, 2), max_den_bits=1) is None
    assert list(exact_grid_z(m, F(1, 2), max_den_bits=2)) == _flint_z(m, F(1, 2), [F(1)] * m.n)
