"""Issue 15 (session 9): the kernel's fast exact grid products (one flint integer product by
Kronecker substitution, cropped to the box of the non-negligible offsets) and its
preconditioned float candidates. Exact equality with brute-force products on small grids,
the crop's error term, and the work limit shared by the reader, the check and the writer."""

from __future__ import annotations

import random
from fractions import Fraction as F

import pytest
from flint import fmpz_mat

from exactdp.errors import InstanceTooLarge
from exactdp.kernel.threshold_grid import MAX_GRID_WORK, GridProducts, require_grid_work
from exactdp.kernel.threshold_spd import DenseProducts, _tables, piece_ok
from exactdp.spaces.metrics import grid
from exactdp.spaces.metrics.masked import GridShape, grid_shape, masked_grid

MASKED = masked_grid(7, 5, mask=["1110111", "1111111", "0111110", "1111111", "1101111"])


def _brute(g: GridProducts, tab: list[list[int]], ys: list[list[int]], rx: int, ry: int):
    """Σ_{j+k=m} T_j·y_k by the definition, offsets outside |dx| ≤ rx, |dy| ≤ ry left out."""
    W = g.shape.width
    xy = [(c % W, c // W) for c in g.cells.tolist()]
    J, n = len(tab[0]), g.n
    out = [[0] * n for _ in range(J + len(ys) - 1)]
    for i, (x, y) in enumerate(xy):
        for l, (u, v) in enumerate(xy):
            if abs(x - u) <= rx and abs(y - v) <= ry:
                row = tab[int(g.code[abs(x - u), abs(y - v)])]
                for j in range(J):
                    for k, yk in enumerate(ys):
                        out[j + k][i] += row[j] * yk[l]
    return out


def test_exact_products_equal_dense_and_brute_force():
    rng = random.Random(15)
    for m in (grid(5, 4), grid(4, 6, "manhattan"), MASKED, grid(1, 5), grid(4, 1), grid(1, 1)):
        g, d = GridProducts(grid_shape(m)), DenseProducts(m)
        for J, ny in ((1, 1), (4, 4), (3, 2)):
            tab = [[rng.randint(-2**130, 2**130) for _ in range(J)] for _ in g.values]
            ys = [[rng.randint(-2**90, 2**90) for _ in range(m.n)] for _ in range(ny)]
            t = fmpz_mat(len(tab), J, [x for r in tab for x in r])
            S, err = g.sums(t, ys)
            assert err == [0] * J and S.shape == (J + ny - 1, m.n)
            want = _brute(g, tab, ys, m.n, m.n)
            assert S.tolist() == want, (m.name, J, ny)
            # the dense metric's histogram products: same integers
            td = fmpz_mat(len(d.values), J, [x for v in d.values
                                             for x in tab[g.values.index(v)]])
            assert d.sums(td, ys)[0].tolist() == want


def test_cropped_products_are_the_box_product_within_err():
    """Entries ≤ tau outside a box are left out: the product is exactly the box product,
    err[j] is the largest left-out |entry|, and |full − cropped| ≤ Σ err_j‖y_k‖₁."""
    rng = random.Random(9)
    for m, near in ((grid(9, 7), 2), (MASKED, 1), (grid(8, 3, "manhattan"), 3)):
        g = GridProducts(grid_shape(m))
        dist = [float(v.coef) * float(v.radicand) ** 0.5 for v in g.values]
        tau, J, ny = 2**10, 3, 2
        tab = [[rng.randint(-2**60, 2**60) if dd <= near else rng.randint(-tau, tau)
                for _ in range(J)] for dd in dist]
        ys = [[rng.randint(-2**80, 2**80) for _ in range(m.n)] for _ in range(ny)]
        t = fmpz_mat(len(tab), J, [x for r in tab for x in r])
        S, err = g.sums(t, ys, tau)
        big = [max(abs(x) for x in r) > tau for r in tab]
        rx = max(dx for dx in range(g.shape.width) for dy in range(g.shape.height)
                 if big[int(g.code[dx, dy])])
        ry = max(dy for dx in range(g.shape.width) for dy in range(g.shape.height)
                 if big[int(g.code[dx, dy])])
        assert rx < g.shape.width - 1  # a real crop
        assert S.tolist() == _brute(g, tab, ys, rx, ry)
        assert err == [max((abs(r[j]) for r, b in zip(tab, big) if not b), default=0)
                       for j in range(J)]
        full = _brute(g, tab, ys, m.n, m.n)
        l1 = [sum(abs(x) for x in y) for y in ys]
        for mm in range(J + ny - 1):
            bound = sum(err[j] * l1[mm - j] for j in range(J) if 0 <= mm - j < ny)
            assert max(abs(a - b) for a, b in zip(full[mm], S[mm])) <= bound


def test_preconditioned_candidates_solve_the_system():
    """The kernel's PCG (Strang's circulant; T. Chan's at small ε) gives y_0 with a tiny
    exact residual, on a full and a masked grid, and Taylor vectors of the recurrence."""
    for m, c in ((grid(16, 12), F(2, 3)), (MASKED, F(1, 50)), (grid(12, 12, "manhattan"), F(1, 3))):
        g = GridProducts(grid_shape(m))
        mids, _, _ = _tables(g.values, c, c, 2)
        ys = g.candidates((F(1),) * m.n, mids, 2)
        assert ys is not None
        S, _ = g.sums(mids, ys)
        scale = 2 ** (110 + 80)
        res = max(abs(scale - int(s)) for s in S[0]) / scale  # b − Φ_0 y_0 at 2^-190
        assert res < 1e-20, (m.name, res)
        y1 = max(abs(int(s)) for s in S[1]) / scale  # Φ_0 y_1 + Φ_1 y_0 ≈ 0
        assert y1 < 1e-12 * max(abs(x) for x in ys[1]) / 2**80 + 1e-20


def test_work_limit_boundary_is_one_constant():
    """The limit is W·H·(pieces + 1)·(K + 1) ≤ MAX_GRID_WORK, checked the same way by the
    reader, the check and the writer (they all call require_grid_work)."""
    sq = GridShape(1000, 1000, "euclidean", F(1))
    per = 1000 * 1000 * 4  # K = 3
    require_grid_work(sq, MAX_GRID_WORK // per - 1, 3)
    with pytest.raises(InstanceTooLarge, match="exceeds the kernel's limits"):
        require_grid_work(sq, MAX_GRID_WORK // per, 3)
    require_grid_work(GridShape(400, 400, "euclidean", F(1)), 25, 8)


class _Inflated:
    """GridProducts with exact products (tau = 0) that declares a left-out bound ``e`` on
    call number ``which`` (0: the Taylor tables' err, 1: the remainder's perr). Still a
    valid Products: nothing is left out, so any err bounds the (zero) crop error."""

    def __init__(self, g: GridProducts, which: int, e: int) -> None:
        self.g, self.n, self.values, self.which, self.e, self.calls = g, g.n, g.values, which, e, 0
        self.candidates = g.candidates

    def sums(self, table, ys, tau=0):
        S, err = self.g.sums(table, ys, 0)
        self.calls += 1
        return S, ([self.e] * len(err) if self.calls - 1 == self.which else err)


def test_piece_ok_counts_the_crop_errors():
    """Review 15A9 m2: piece_ok adds err_j·‖y_k‖₁ and perr·‖ysum‖₁; a piece accepted with
    err = 0 is rejected when the products declare a larger err (either term), so dropping
    either term from the bound fails this test."""
    g = GridProducts(GridShape(6, 5, "euclidean", F(1)))
    args = ((F(1),) * g.n, F(1), F(11, 10), 3, F(1, 8))
    assert piece_ok(_Inflated(g, 0, 0), *args) and piece_ok(_Inflated(g, 1, 0), *args)
    for which in (0, 1):
        assert not piece_ok(_Inflated(g, which, 2**130), *args), which


def test_huge_rhs_candidates_do_not_overflow():
    """Review 15A9 m4: b = 10^400·1 has the threshold of b = 1 (z scales with b); the float
    candidates solve for b/2^e and are shifted back exactly, so the true piece is proved
    on a grid and on a dense metric (it was rejected: the floats overflowed)."""
    huge = F(10**400)
    g = GridProducts(GridShape(3, 2, "euclidean", F(1)))
    assert piece_ok(g, (huge,) * 6, F(1), F(11, 10), 3, F(1, 8))
    m = grid(3, 2)
    assert piece_ok(m, (huge,) * 6, F(1), F(11, 10), 3, F(1, 8))
    assert not piece_ok(g, (huge,) * 6, F(1, 100), F(1, 50), 3, F(1, 8))  # still decides
