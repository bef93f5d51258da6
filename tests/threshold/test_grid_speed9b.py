"""Issue 15, session 9 (search speed): cropped kernels in the exact grid products.

Outside a box each Taylor table is one constant integer (entries below 2^-100); the exact
products crop the kernel to the box, use the shorter stride W + Rx and add the constant
times Σv (``proofs/grid_cropped_stride.py``). Every value must equal the uncropped product.
"""

import random
import runpy
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from exactdp.errors import InvalidArgument
from exactdp.linalg.grid_exact_conv import GridConvolution, direct_grid_product
from exactdp.spaces.metrics import grid
from exactdp.spaces.metrics.masked import masked_grid
from exactdp.threshold.providers import DenseProvider, GridProvider
from exactdp.threshold.taylor import exact_taylor_tables


def _cauchy(W, H, code, tables, cols):
    out = []
    for m in range(len(tables) + len(cols) - 1):
        acc = [0] * (W * H)
        for j, t in enumerate(tables):
            if 0 <= m - j < len(cols):
                acc = [a + b for a, b in zip(acc, direct_grid_product(W, H, code, t, cols[m - j]))]
        out.append(acc)
    return out


@pytest.mark.parametrize("W,H,c", [(14, 9, 6), (12, 1, 10), (1, 12, 10)])
def test_cropped_taylor_tables_give_the_uncropped_products(W, H, c):
    m = grid(W, H, "euclidean")
    prov = GridProvider(m)
    ex = exact_taylor_tables(list(m.values), Fraction(c), Fraction(c), 3)
    consts, ry, rx = prov.conv.crop(ex.lo)
    # the far entries are one constant (0 for even j, −1 for odd j) and the box is cropped
    assert consts == [0, -1, 0, -1] and ry + rx < (H - 1) + (W - 1)
    rng = random.Random(W * 100 + H)
    cols = [[rng.randrange(-(2**80), 2**80) for _ in range(m.n)] for _ in range(4)]
    assert prov.conv.block_products(ex.lo, cols) == _cauchy(W, H, prov.code, ex.lo, cols)
    # the remainder table (constant 1 far away) through the single product
    assert prov.exact_matvec(ex.rem, cols[:2]) == [direct_grid_product(W, H, prov.code, ex.rem, v)
                                                   for v in cols[:2]]


def test_crop_box_is_the_smallest_and_full_box_means_no_constant():
    conv = GridConvolution(5, 4, [[dx + dy for dy in range(4)] for dx in range(5)])  # Manhattan codes
    table = [9, 7, 5, 3, 1, 1, 1, 1]  # equal to the corner's value from d = 4 on
    consts, ry, rx = conv.crop([table])
    assert consts == [1] and (ry, rx) == (3, 3)  # (dx, dy) = (3, 0) and (0, 3) still differ
    assert conv.crop([list(range(8))]) == ([0], 3, 4)  # nothing constant: full box, constant 0
    with pytest.raises(InvalidArgument):
        conv.crop([[1, 2]])  # too few entries for the codes


def test_cropped_products_on_a_masked_grid_match_the_dense_provider():
    rows = ["0111110", "1111111", "1110111", "1111111", "0111110"]
    m = masked_grid(7, 5, "euclidean", mask=rows)
    ex = exact_taylor_tables(list(m.values), Fraction(20), Fraction(20), 2)
    gp = GridProvider(m)
    assert gp.conv.crop(ex.lo)[1] < 4  # cropped
    rng = random.Random(7)
    cols = [[rng.randrange(-(2**70), 2**70) for _ in range(m.n)] for _ in range(3)]
    assert gp.exact_block_products(ex.lo, cols) == DenseProvider(m).exact_block_products(ex.lo, cols)


def test_a_cropped_taylor_piece_equals_the_uncropped_one(monkeypatch):
    """taylor_piece far above ε* (its tables crop) gives bit-identical bounds with the crop
    switched off (full box, constants 0), and the piece is certified."""
    from exactdp.threshold.taylor import taylor_piece

    m = grid(16, 16, "euclidean")
    prov = GridProvider(m)
    a, b = Fraction(6), Fraction(6) + Fraction(1, 64)
    lam = prov.lambda_lower(a, b)
    boxes = []
    crop = GridConvolution.crop

    def spy(self, tables):
        out = crop(self, tables)
        boxes.append(out[1:])
        return out

    monkeypatch.setattr(GridConvolution, "crop", spy)
    res, Y = taylor_piece(prov, list(m.values), np.ones(m.n), 0.0, a, b, 3, lam)
    assert res.ok and any(ry < 15 for ry, _ in boxes)
    monkeypatch.setattr(GridConvolution, "crop", lambda self, t: ([0] * len(t), 15, 15))
    res2, _ = taylor_piece(prov, list(m.values), np.ones(m.n), 0.0, a, b, 3, lam, Y=Y)
    assert (res2.min_lower, res2.err) == (res.min_lower, res.err)


def test_bad_tables_and_vectors_are_refused_by_name_review_m3():
    """A short table names its length (and its index), a NaN anywhere in a table is refused
    (also past the last code), an iterator is refused (crop and the kernel read a table twice)."""
    conv = GridConvolution(3, 2, [[0, 1], [1, 2], [3, 4]])  # 5 codes
    t, v = [10, -7, 5, 2, 3], [1, -2, 3, 4, 0, -5]
    assert conv.products(t + [99], [v]) == conv.products(t, [v])  # extra entries are unused
    with pytest.raises(InvalidArgument, match=r"table \[1\] has 3 entries; the offset codes need 5"):
        conv.block_products([t, t[:3]], [v])
    with pytest.raises(InvalidArgument, match=r"table \[0\] has entry \[5\] = nan"):
        conv.products(t + [float("nan")], [v])
    with pytest.raises(InvalidArgument, match=r"table \[0\] is a generator"):
        conv.products((x for x in t), [v])
    with pytest.raises(InvalidArgument, match=r"table \[0\] is a list_iterator, not a sequence"):
        conv.crop([iter(t)])
    with pytest.raises(InvalidArgument, match=r"vector \[1\] has length 5"):
        conv.block_products([t], [v, v[:5]])
    with pytest.raises(InvalidArgument, match=r"the table has 4 entries"):
        conv.kernel(t[:4])
    with pytest.raises(InvalidArgument, match="at least one table"):
        conv.block_products([], [v])


def test_bench_scale_progress_alone_does_not_verify_review_m1():
    """``--progress`` used to make the child run verify() (it tested len(argv) > 3) and the
    verify time went into the certified CPU, ratio and fits; now only ``verify`` does."""
    bench = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_scale.py"
    ns = runpy.run_path(str(bench), run_name="bench_scale")
    r = ns["run"]("certified", 4, False, None, True)  # verify=False, progress=True
    assert "eps_lower" in r and r["cpu"] > 0
    assert not any(key.startswith("verify") for key in r)
    # a stopped child's last complete line (bytes from TimeoutExpired, a cut last line)
    last = ns["_last_json"](b'{"partial": true, "cpu": 1.5}\n{"partial": tr')
    assert last == {"partial": True, "cpu": 1.5} and ns["_last_json"](None) is None
