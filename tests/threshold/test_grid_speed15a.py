"""Issue 15 (speed): blocked exact products, far-entry tables, warm starts, progress with ETA."""

import io
import random
from fractions import Fraction

import numpy as np
import pytest

from exactdp.linalg.grid_exact_conv import GridConvolution, block_stride, direct_grid_product
from exactdp.linalg.grid_pcg import grid_pcg_solver
from exactdp.progress import stderr_progress
from exactdp.spaces.grid import offset_value_codes
from exactdp.spaces.metrics import grid
from exactdp.threshold.providers import DenseProvider, GridProvider, provider_for
from exactdp.threshold.spd_cover import remaining_note, spd_cover
from exactdp.threshold.taylor import _far_square, exact_taylor_tables


@pytest.mark.parametrize("W,H", [(1, 1), (3, 2), (2, 5), (6, 4)])
def test_block_products_equal_the_cauchy_sums_of_single_products(W, H):
    rng = random.Random(W * 10 + H)
    m = grid(W, H, "euclidean")
    code = offset_value_codes(m)
    conv = GridConvolution(W, H, code)
    nv = len(m.values)
    tables = [[rng.randrange(-(2**105), 2**105) for _ in range(nv)] for _ in range(4)]
    cols = [[rng.randrange(-(2**66), 2**66) for _ in range(m.n)] for _ in range(4)]
    got = conv.block_products(tables, cols)
    assert len(got) == 7
    for mm in range(7):
        want = [0] * m.n
        for j in range(4):
            if 0 <= mm - j < 4:
                p = direct_grid_product(W, H, code.tolist(), tables[j], cols[mm - j])
                want = [a + b for a, b in zip(want, p)]
        assert got[mm] == want
    # the dense provider's generic version gives the same sums
    assert DenseProvider(m).exact_block_products(tables, cols) == got


def test_block_stride_and_limb_built_products_match_the_plain_kernel():
    conv = GridConvolution(4, 3, offset_value_codes(grid(4, 3)))
    table = [(-1) ** i * (3**i) * 2**90 for i in range(len(grid(4, 3).values))]
    v = [(-7) ** i for i in range(12)]
    # the plain uncropped kernel (one Python int per coefficient) against the limb-built,
    # cropped products, and both against the O(n²) sum
    plain = conv.read(conv.matvec_poly(conv.kernel(table), v))
    assert plain == conv.products(table, [v])[0]
    assert plain == direct_grid_product(4, 3, offset_value_codes(grid(4, 3)), table, v)
    assert block_stride(4, 3) == 2 * 2 * 7 + 7


def test_far_cut_tables_enclose_the_entries():
    vals = list(grid(40, 1).values)
    q = _far_square(Fraction(5, 2), 3)
    assert q is not None and any(v.square >= q for v in vals)  # the cut is used here
    ex = exact_taylor_tables(vals, Fraction(5, 2), Fraction(5, 2), 2)
    for i, v in enumerate(vals):
        d = float(v)
        for j in range(3):
            x = (-d) ** j * np.exp(-2.5 * d) / [1, 1, 2][j] * 2.0**100
            assert ex.lo[j][i] - 1e-6 * abs(x) - 1 <= x <= ex.hi[j][i] + 1e-6 * abs(x) + 1
            assert ex.hi[j][i] - ex.lo[j][i] <= 2


def test_warm_started_cg_agrees_with_cold():
    d = np.hypot(*np.meshgrid(np.arange(9), np.arange(7), indexing="ij"))
    b = np.ones(63)
    x0 = grid_pcg_solver(np.exp(-0.6 * d))(b)
    cold = grid_pcg_solver(np.exp(-0.65 * d))(b)
    warm = grid_pcg_solver(np.exp(-0.65 * d))(b, x0)
    assert np.max(np.abs(cold - warm)) < 1e-10


def test_provider_is_shared_between_search_and_cover():
    g = grid(51, 51)
    assert provider_for(g) is provider_for(g, prefer_grid=True)


def test_remaining_note_is_a_guess_that_counts_down():
    done = [(1.0, 8.0), (2.0, 8.0)]
    assert remaining_note(done, 1.0, 1e-3, 0.0).startswith("≈ ")
    assert remaining_note(done, 1.0, 1e-3, 0.0) != remaining_note(done, 1e-3, 1e-3, 0.0)
    assert remaining_note([], 1.0, 1e-3, 0.0) == "ETA unknown"


def test_cover_progress_on_stderr_reports_range_and_eta():
    g = grid(9, 9)
    buf = io.StringIO()
    out = spd_cover(g, (Fraction(1),) * g.n, Fraction(7, 10), Fraction(2), Fraction(1, 10**6),
                    progress=stderr_progress(buf), prov=GridProvider(g))
    assert out is not None
    lines = [ln for ln in buf.getvalue().splitlines() if "cover:" in ln]
    assert len(lines) == len(out[0])  # one line per certified range
    assert all("ranges certified, ε ∈ [" in ln for ln in lines)
    assert "ETA" in lines[0] and "peak RSS" in lines[0]
    assert lines[-1].split("; ")[1] == "done"


@pytest.mark.parametrize("W,H,h", [(5, 3, 1), (7, 7, Fraction(1, 3)), (1, 6, 2)])
def test_fast_offset_codes_equal_the_exact_ones(W, H, h):
    g = grid(W, H, "euclidean", spacing=h)
    assert np.array_equal(GridProvider(g).code, offset_value_codes(g))
