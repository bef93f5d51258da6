"""Session 11 (15F): ``grid_exact_z`` at a tiny t = 10⁻⁴⁰⁰ (q^K has ≈ 10⁵ bits at 40×40).

Before: three exact products of 10⁵-bit entries, ≈ 56 s (idle) / 108 s (loaded) at 40×40,
then None. Now the refinement's residual uses the table rounded to 2^−F and each guess is
first checked exactly on a few rows: a guess failing one row cannot pass the full check, so
no full product runs. Where z has small denominators, it is still found exactly.
"""

from fractions import Fraction as F

import exactdp.engine.grid_exact as GE
from exactdp.spaces.metrics import grid
from exactdp.spaces.metrics.masked import grid_shape, masked_grid

TINY = F(1, 10**400)


def _counting(monkeypatch):
    calls = []

    class Counting(GE.GridProducts):
        def sums(self, table, *args, **kwargs):
            calls.append(max(int(table[i, 0]).bit_length() for i in range(table.nrows())))
            return super().sums(table, *args, **kwargs)

    monkeypatch.setattr(GE, "GridProducts", Counting)
    return calls


def test_tiny_t_bails_out_without_an_exact_product(monkeypatch):
    calls = _counting(monkeypatch)
    k = 24
    m = masked_grid(k, k, "manhattan", mask=["1" * k] * (k // 2) + ["1" * (k // 2) + "0" * (k // 2)] * (k // 2))
    assert GE.grid_exact_z(grid_shape(m), TINY, [F(1)] * m.n) is None
    assert len(calls) == 1 and calls[0] < 400   # only the rounded refinement product


def test_tiny_t_still_exact_where_z_is_simple(monkeypatch):
    calls = _counting(monkeypatch)
    # two points: z = 1/(1 + t) each, found by the direction guess, then checked in full
    assert GE.grid_exact_z(grid_shape(grid(2, 1, "manhattan")), TINY, [F(1)] * 2) == (1 / (1 + TINY),) * 2
    assert len(calls) == 2 and calls[1] > 1000
    # a 3×3 grid at t = 1/2: b = Φ·α with integer α is solved exactly (row tests pass)
    m, t = grid(3, 3, "manhattan"), F(1, 2)
    alpha = [F(v) for v in (1, 2, 3, 0, 5, 1, 1, 2, 7)]
    b = [sum(t ** int(abs(p[0] - c[0]) + abs(p[1] - c[1])) * a for c, a in zip(m.points, alpha))
         for p in m.points]
    assert list(GE.grid_exact_z(grid_shape(m), t, b)) == alpha
