"""Review of 15G (byte-packed exact grid products): the digit width at its boundary, masked /
rectangular / one-row grids against naive exact sums, the kernel's ``GridProducts.sums`` at
digit boundaries, the lazy blocks after their inputs change, the input checks the old
``GridConvolution`` route made on the vectors (now ``read_integers``, shared by both routes),
and the packing primitives' own preconditions."""

import math
import random
from fractions import Fraction

import numpy as np
import pytest
from flint import fmpz, fmpz_mat

import exactdp.threshold.providers as providers
from exactdp.arithmetic.packed import biased_digits, digit_bytes, pack_signed
from exactdp.arithmetic.validate import read_integers
from exactdp.errors import InvalidArgument
from exactdp.kernel.grid_point import GridProducts
from exactdp.linalg.grid_exact_conv import GridConvolution
from exactdp.spaces.metrics import grid
from exactdp.spaces.metrics.masked import GridShape, masked_grid
from exactdp.threshold.providers import GridProvider


def naive(prov: GridProvider, tables: list[list[int]], cols: list[list[int]]) -> list[list[int]]:
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


METRICS = [grid(1, 1, "euclidean"), grid(9, 1, "manhattan"), grid(1, 9, "euclidean"),
           grid(12, 2, "euclidean"), grid(2, 12, "manhattan"),
           masked_grid(5, 3, "manhattan", mask=["10001", "00000", "00100"]),
           masked_grid(9, 2, "euclidean", mask=["100000001", "000000000"])]


@pytest.mark.parametrize("metric", METRICS, ids=lambda m: m.name)
@pytest.mark.parametrize("bits", [7, 8, 64, 129])
def test_extreme_same_sign_and_digit_boundary_values(metric, bits):
    prov = GridProvider(metric)
    nv, n = int(prov.code.max()) + 1, prov.n
    M, lo = (1 << bits) - 1, -(1 << bits)
    rng = random.Random(bits)
    cases = [([[M] * nv] * 3, [[M] * n] * 2),                                     # one sign, maximal
             ([[lo] * nv, [M] + [lo] * (nv - 1)], [[lo] * n] * 3),                # −2^k, crop real
             ([[rng.choice([M, lo, 0]) for _ in range(nv)] for _ in range(4)],
              [[rng.choice([M, lo]) for _ in range(n)] for _ in range(4)]),
             ([[M] * nv], [[0] * n])]                                             # zero vector
    for tables, cols in cases:
        assert [list(b) for b in prov.exact_block_products(tables, cols)] == naive(prov, tables, cols)
        assert prov.exact_matvec(tables[0], cols) == [naive(prov, tables[:1], [c])[0] for c in cols]


def test_coefficients_at_exactly_8nb_minus_1_bits_read_back(monkeypatch):
    """max|c| with exactly 8nb − 1 bits (no spare bit) is read back; one byte less is caught."""
    seen = []
    orig = providers.digit_bytes
    monkeypatch.setattr(providers, "digit_bytes", lambda b: seen.append(orig(b)) or orig(b))
    prov = GridProvider(grid(1, 1, "euclidean"))
    at_edge = 0
    for B in range(7, 200, 8):                       # |c| < 2^B, B ≡ 7 (mod 8): no spare bit
        M = math.isqrt((1 << B) - 1)
        for J, K in ((1, 1), (2, 3)):
            tables, cols = [[M]] * J, [[-M]] * K
            want = naive(prov, tables, cols)
            assert [list(b) for b in prov.exact_block_products(tables, cols)] == want
            at_edge += max(abs(c) for r in want for c in r).bit_length() == 8 * seen[-1] - 1
    assert at_edge >= 10
    monkeypatch.setattr(providers, "digit_bytes", lambda b: max(1, orig(b) - 1))
    M = math.isqrt((1 << 63) - 1)
    try:
        got = [list(b) for b in prov.exact_block_products([[M]], [[-M]])]
    except InvalidArgument:
        got = None
    assert got != [[-M * M]]                          # the harness sees a too-narrow digit


def test_blocks_not_stale_after_inputs_change_and_buffers_reused():
    prov = GridProvider(grid(7, 5, "euclidean"))
    nv, n = int(prov.code.max()) + 1, prov.n
    rng = random.Random(3)
    tables = [[rng.randint(-2**90, 2**90) for _ in range(nv)] for _ in range(3)]
    cols = [[rng.randint(-2**70, 2**70) for _ in range(n)] for _ in range(4)]
    want = naive(prov, tables, cols)
    pb = prov.exact_block_products(tables, cols)
    for c in cols:
        c[:] = [0] * n
    for t in tables:
        t[:] = [1] * nv
    prov.exact_block_products(tables, cols)
    assert [list(b) for b in pb] == want and pb[-1] == want[-1] and pb[1::2] == want[1::2]


@pytest.mark.parametrize("shape", [GridShape(1, 1, "manhattan", Fraction(1)),
                                   GridShape(12, 2, "euclidean", Fraction(1)),
                                   GridShape(1, 9, "manhattan", Fraction(1)),
                                   GridShape(7, 3, "euclidean", Fraction(1), (1, 2, 3, 17, 20))],
                         ids=str)
@pytest.mark.parametrize("bits", [7, 8, 63, 64, 300])
def test_kernel_sums_at_digit_boundaries(shape, bits):
    op = GridProducts(shape)
    nv, W, cells = len(op.keys), shape.width, list(shape.cells)
    M, lo = (1 << bits) - 1, -(1 << bits)
    for J, ny, tv, yv in ((1, 1, M, M), (3, 2, lo, lo), (2, 4, M, lo)):
        tab = [[tv] * J for _ in range(nv)]
        ys = [[yv] * len(cells) for _ in range(ny)]
        S, err = op.sums(fmpz_mat(nv, J, [x for r in tab for x in r]), ys)
        want = [[0] * len(cells) for _ in range(J + ny - 1)]
        for i, ci in enumerate(cells):
            for l_, cl in enumerate(cells):
                code = int(op.code[abs(ci % W - cl % W), abs(ci // W - cl // W)])
                for j in range(J):
                    for k in range(ny):
                        want[j + k][i] += tab[code][j] * ys[k][l_]
        assert [[int(x) for x in row] for row in S] == want and not any(err)


_BAD = {"half": 2.5, "nan": float("nan"), "none": None, "text": "1", "bool": True}


@pytest.mark.parametrize("bad", list(_BAD), ids=str)
def test_non_integer_vector_entry_refused_with_invalid_argument(bad):
    prov = GridProvider(grid(3, 2, "manhattan"))
    nv = int(prov.code.max()) + 1
    with pytest.raises(InvalidArgument):
        prov.exact_block_products([[3] + [1] * (nv - 1)], [[_BAD[bad]] + [1] * 5])
    with pytest.raises(InvalidArgument):
        prov.exact_matvec([3] + [1] * (nv - 1), [[_BAD[bad]] + [1] * 5])


def test_numpy_integer_vectors_still_accepted():
    prov = GridProvider(grid(3, 2, "manhattan"))
    nv = int(prov.code.max()) + 1
    table = [3] + [1] * (nv - 1)
    want = prov.exact_matvec(table, [list(range(6))])
    assert prov.exact_matvec(table, [np.arange(6)]) == want
    assert [list(b) for b in prov.exact_block_products([table], [np.arange(6)])] == want


def test_generator_vector_refused_with_invalid_argument():
    prov = GridProvider(grid(3, 2, "manhattan"))
    nv = int(prov.code.max()) + 1
    with pytest.raises(InvalidArgument):
        prov.exact_block_products([[3] + [1] * (nv - 1)], [(x for x in range(6))])


def test_true_and_numpy_values_in_vectors_match_their_int_reading():
    prov = GridProvider(grid(3, 2, "euclidean"))
    nv = int(prov.code.max()) + 1
    table = list(range(1, nv + 1))
    ok = [Fraction(3), 2.0, np.int64(-5), np.uint8(7), 1, 0]
    want = naive(prov, [table], [[3, 2, -5, 7, 1, 0]])
    assert [list(b) for b in prov.exact_block_products([table], [ok])] == want
    assert prov.exact_matvec(table, [np.array([3, 2, -5, 7, 1, 0])]) == want
    with pytest.raises(InvalidArgument, match=r"vector \[1\] has entry \[2\]"):
        prov.exact_block_products([table], [[0] * 6, [1, 1, np.float64(0.5), 1, 1, 1]])


def test_read_integers_is_the_one_check_of_both_routes():
    assert read_integers(np.arange(3), "v", "f") == [0, 1, 2]
    assert read_integers((2.0, Fraction(-4)), "v", "f") == [2, -4]
    for bad in ([True], [float("inf")], [None], ["1"], iter([1])):
        with pytest.raises(InvalidArgument):
            read_integers(bad, "v", "f")
    conv = GridConvolution(2, 1, [[0], [1]])
    with pytest.raises(InvalidArgument, match="GridConvolution"):
        conv.products([2, -1], [[3, True]])


# ------------------------------------------------------------------ m1: the primitives' preconditions
def test_pack_signed_refuses_repeated_negative_and_out_of_range_positions():
    a = np.array
    assert pack_signed([1, 2], a([0, 1]), a([0, 1]), 2, 1) == 1 + 2 * 256
    for idx, pos, nslots in ((a([0, 1]), a([0, 0]), 1),       # repeated slot (was: overwrite → 2)
                             (a([0]), a([-1]), 2),             # negative slot (was: wrap → 256)
                             (a([0]), a([2]), 2),              # slot ≥ nslots (was: IndexError)
                             (a([-1]), a([0]), 1),             # negative index (was: wrap)
                             (a([2]), a([0]), 1),              # index past vals
                             (a([0, 1]), a([0]), 2),           # lengths differ
                             (a([0.0]), a([0]), 1)):           # float index
        with pytest.raises(InvalidArgument):
            pack_signed([1, 2], idx, pos, nslots, 1)


@pytest.mark.parametrize("nb", [1, 3])
def test_pack_signed_refuses_values_wider_than_the_digit_and_non_ints(nb):
    top = (1 << (8 * nb)) - 1
    one = (np.array([0]), np.array([0]), 1, nb)
    assert pack_signed([top], *one) == top and pack_signed([-top], *one) == -top
    for bad in (top + 1, -(top + 1), 2.5, "1", None):
        with pytest.raises(InvalidArgument):
            pack_signed([bad], *one)


def test_digit_width_and_counts_are_whole_numbers():
    assert digit_bytes(np.int64(7)) == 1 and digit_bytes(8) == 2
    for bad in (2.5, -1, True, "8", None):
        with pytest.raises(InvalidArgument):
            digit_bytes(bad)
    for nb in (0, -1, 1.0, True):
        with pytest.raises(InvalidArgument):
            biased_digits(fmpz(1), fmpz(1), 1, nb)
        with pytest.raises(InvalidArgument):
            pack_signed([1], np.array([0]), np.array([0]), 1, nb)
    for nout in (-1, 1.5):
        with pytest.raises(InvalidArgument):
            biased_digits(fmpz(1), fmpz(1), nout, 1)
    with pytest.raises(InvalidArgument):
        pack_signed([1], np.array([0]), np.array([0]), 1.0, 1)
