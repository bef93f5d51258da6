"""The search's blocked exact grid product on byte-packed digits (exactdp.arithmetic.packed).

GridProvider.exact_block_products packs the cropped Taylor tables and the vectors into the
base-2^(8nb) digits of two integers, multiplies once and reads the digits back
(proofs/packed_products.py). These tests compare it with a naive exact product, with
session 11's flint-polynomial product (GridConvolution.block_products) and with the dense
provider, check that the Taylor pieces' bounds are bit-identical either way, and that the
blocks stay bytes until read.
"""

from __future__ import annotations

import random
import sys
from fractions import Fraction

import numpy as np
import pytest
from flint import fmpz

from exactdp.arithmetic.packed import PackedBlocks, biased_digits, digit_bytes, pack_signed, signed_values
from exactdp.errors import InvalidArgument
from exactdp.spaces.metrics import grid
from exactdp.spaces.metrics.masked import masked_grid
from exactdp.testing.budget import call_budget
from exactdp.threshold.float_bounds import rhs_float
from exactdp.threshold.providers import DenseProvider, GridProvider
from exactdp.threshold.spd_cover import lambda_for
from exactdp.threshold.taylor import exact_taylor_tables, taylor_piece


def naive(prov: GridProvider, tables: list[list[int]], cols: list[list[int]]) -> list[list[int]]:
    """Σ_{j+k=m} M_j v_k by the double loop over the kept cells (Python integers)."""
    W = prov.W
    cells = list(range(prov.n)) if prov.cells is None else prov.cells.tolist()
    out = [[0] * prov.n for _ in range(len(tables) + len(cols) - 1)]
    for i, ci in enumerate(cells):
        for l_, cl in enumerate(cells):
            code = int(prov.code[abs(ci % W - cl % W), abs(ci // W - cl // W)])
            for j, t in enumerate(tables):
                for k, v in enumerate(cols):
                    out[j + k][i] += t[code] * v[l_]
    return out


METRICS = [
    grid(6, 3, "euclidean"),                       # rectangular
    grid(1, 7, "euclidean"),                       # one column
    grid(4, 5, "manhattan"),
    masked_grid(5, 4, "euclidean", mask=["10111", "11111", "01110", "11001"]),
    masked_grid(4, 3, "manhattan", mask=["1101", "0111", "1010"]),
]


@pytest.mark.parametrize("which", range(len(METRICS)))
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_blocked_product_equals_the_naive_product(which, seed):
    m = METRICS[which]
    prov = GridProvider(m)
    rng = random.Random(100 * which + seed)
    nv = int(prov.code.max()) + 1
    J, K = (1, 1) if seed == 1 else (rng.randint(2, 4), rng.randint(1, 4))  # one block too
    near = rng.randint(0, nv - 1)
    tail = [rng.choice((0, -1, 3, -(2**90))) for _ in range(J)]  # constant far tails: a real crop
    tables = [[rng.randint(-2**200, 2**200) if c <= near else tail[j] for c in range(nv)]
              for j in range(J)]
    cols = [[rng.randint(-2**150, 2**150) for _ in range(m.n)] for _ in range(K)]
    got = prov.exact_block_products(tables, cols)
    want = naive(prov, tables, cols)
    assert isinstance(got, PackedBlocks) and len(got) == J + K - 1
    assert [list(b) for b in got] == want
    assert got == want == DenseProvider(m).exact_block_products(tables, cols)
    if prov.cells is None:  # session 11's product on the same input
        assert prov.conv.block_products(tables, cols) == want
    assert prov.exact_matvec(tables[0], cols) == [naive(prov, [tables[0]], [v])[0] for v in cols]


def test_blocked_product_refuses_bad_input():
    prov = GridProvider(grid(3, 2))
    nv = int(prov.code.max()) + 1
    with pytest.raises(InvalidArgument):
        prov.exact_block_products([], [[1] * 6])
    with pytest.raises(InvalidArgument):
        prov.exact_block_products([[1] * nv], [[1] * 5])
    with pytest.raises(InvalidArgument):
        prov.exact_block_products([[0.5] * nv], [[1] * 6])  # type: ignore[list-item]


def test_packing_primitives_against_direct_sums():
    rng = random.Random(7)
    for _ in range(50):
        a = [rng.randint(-2**rng.randint(0, 130), 2**rng.randint(0, 130)) for _ in range(rng.randint(1, 9))]
        b = [rng.randint(-2**rng.randint(0, 130), 2**rng.randint(0, 130)) for _ in range(rng.randint(1, 9))]
        want = [sum(a[s] * b[e - s] for s in range(len(a)) if 0 <= e - s < len(b))
                for e in range(len(a) + len(b) - 1)]
        bound = max(min(sum(map(abs, a)) * max(map(abs, b)), sum(map(abs, b)) * max(map(abs, a))),
                    max(map(abs, a)), max(map(abs, b)))
        nb = digit_bytes(bound.bit_length())
        pa = pack_signed(a, np.arange(len(a)), np.arange(len(a)), len(a), nb)
        assert pa == fmpz(sum(v * 2**(8 * nb * s) for s, v in enumerate(a)))
        pb = pack_signed(b, np.arange(len(b)), np.arange(len(b)), len(b), nb)
        assert signed_values(biased_digits(pa, pb, len(a) + len(b), nb))[:-1] == want


def test_digits_too_narrow_are_refused_or_differ():
    a = [2**40 - 1] * 4
    want = [(2**40 - 1) ** 2 * min(e + 1, 7 - e) for e in range(7)]
    nb = digit_bytes(max(want).bit_length())
    pa = pack_signed(a, np.arange(4), np.arange(4), 4, nb)
    assert signed_values(biased_digits(pa, pa, 8, nb))[:7] == want
    narrow = nb - 1
    pn = pack_signed(a, np.arange(4), np.arange(4), 4, narrow)
    try:
        got = signed_values(biased_digits(pn, pn, 8, narrow))[:7]
    except InvalidArgument:
        got = None
    assert got != want


def _piece(k: int):
    g = grid(k, k, "euclidean")
    prov = GridProvider(g)
    rhs = tuple(Fraction(1) for _ in range(g.n))
    b, brad = rhs_float(rhs)
    a, w = Fraction(2, 5), Fraction(1, 10**4)
    return taylor_piece(prov, list(g.values), b, brad, a, a + w, 3, lambda_for(prov, a, a + w), rhs=rhs)[0]


@pytest.mark.parametrize("k", [31, 40])
def test_taylor_piece_bounds_bit_identical_to_the_polynomial_product(k, monkeypatch):
    new = _piece(k)
    with monkeypatch.context() as mp:  # session 11's product: flint polynomials, Python lists
        mp.setattr(GridProvider, "exact_block_products",
                   lambda self, tables, columns: self.conv.block_products(tables, columns))
        mp.setattr(GridProvider, "exact_matvec",
                   lambda self, table, columns: self.conv.products(table, columns))
        old = _piece(k)
    assert new.ok == old.ok
    assert (new.min_lower, new.err, new.lam) == (old.min_lower, old.err, old.lam)


def test_blocks_stay_bytes_until_read():
    g = grid(40, 40, "euclidean")
    prov = GridProvider(g)
    ex = exact_taylor_tables(list(g.values), Fraction(2, 3), Fraction(2, 3), 3)
    rng = np.random.default_rng(5)
    cols = [[int(x) for x in rng.integers(-2**62, 2**62, g.n)] for _ in range(4)]
    pb = prov.exact_block_products(ex.lo, cols)
    ref = prov.conv.block_products(ex.lo, cols)
    assert pb == ref
    # what the result keeps: nb bytes per value, against a Python int (and a list slot) each
    as_lists = sum(sys.getsizeof(b) + sum(map(sys.getsizeof, b)) for b in ref)
    assert pb.digits.nbytes == 7 * g.n * pb.digits.shape[2] < as_lists / 2
    # reading one block builds that block only
    with call_budget(10**6) as one:
        pb[3]
    with call_budget(10**6) as every:
        list(pb)
    assert 0 < 3 * one[1] < every[1]
