"""Planar geometric / planar Laplace on a grid with libqif's border remap (certified balls)."""

import mpmath
import pytest
from flint import arb

from exactdp.arithmetic.ball import workprec
from exactdp.errors import InstanceTooLarge
from exactdp.mechanisms.planar import planar_geometric_grid, planar_laplace_border


def test_planar_geometric_rows_and_closed_form_ratios():
    H = planar_geometric_grid(3, 3, eps=1)
    assert H.shape == (9, 9) and H.kind.value == "certified"
    c, right, corner = 4, 5, 8       # index y·3 + x: centre (1,1), (2,1), (2,2)
    with workprec(128):
        q = arb(-1).exp()
        # from the centre, output (2,1) collects offsets dx ≥ 1, dy = 0: Σ q^dx = q/(1−q)
        assert (H.entry(c, right) / H.entry(c, c)).overlaps(q / (1 - q))
        # output (2,2) collects dx, dy ≥ 1: Σ e^{-√(dx²+dy²)}, at least e^{-√2}
        assert (H.entry(c, corner) / H.entry(c, c) > (-arb(2).sqrt()).exp()) is True
        for i in range(9):
            total = sum((H.entry(i, j) for j in range(9)), arb(0))
            assert total.contains(1) and total.rad() < 1e-15


def test_planar_laplace_border_keeps_the_mass():
    H = planar_laplace_border(2, 3, eps=2, subdivisions=2)
    for i in range(6):
        total = sum((H.entry(i, j) for j in range(6)), arb(0))
        assert total.contains(1)
    # symmetric inputs have overlapping rows (the remap is symmetric)
    assert H.entry(0, 0).overlaps(H.entry(5, 5))


def test_planar_laplace_border_cells_match_independent_quadrature():
    H = planar_laplace_border(3, 3, eps=1)
    with mpmath.workdps(20):
        def dens(x, y):
            return mpmath.exp(-mpmath.sqrt(x * x + y * y)) / (2 * mpmath.pi)
        centre = 4 * mpmath.quad(dens, [0, 0.5], [0, 0.5])         # cell (0, 0)
        right = 2 * mpmath.quad(dens, [0.5, 1.5], [0, 0.5])        # cell (1, 0)
    # input = centre (index 4): output 4 is cell (0, 0); output 5 is cell (1, 0) only (the
    # border remap adds the plane beyond x = 2.5 to output 5 too, so compare the interior
    # entry exactly and the border entry as a lower bound)
    assert abs(float(H.entry(4, 4).mid()) - float(centre)) < 1e-15
    assert float(H.entry(4, 4).rad()) < 1e-12
    assert (H.entry(4, 5) > arb(str(right)) - arb("1e-15")) is True


def test_planar_laplace_border_refuses_tiny_eps_h():
    with pytest.raises(InstanceTooLarge, match="MAX_LAPLACE_BOX"):
        planar_laplace_border(2, 2, eps="1/8")
