"""Review 15c of the blocked grid products: independent high-precision checks of the exact
Cauchy sums, the ρ_m bounds and the far-entry cut, the shared provider cache, and the
far cut on huge / tiny rational ε and high Taylor orders."""

import gc
import math
import random
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest

from exactdp.linalg.grid_exact_conv import GridConvolution, direct_grid_product
from exactdp.spaces.grid import offset_value_codes
from exactdp.spaces.metrics import grid
from exactdp.threshold.providers import GridProvider, provider_for
from exactdp.threshold.taylor import (
    _exact_rho_bounds,
    _far_square,
    exact_residual_bound,
    exact_taylor_tables,
    on_column_grids,
    on_residual_grid,
)

#: signed integers at and around the 60-bit limb boundaries of the fast builders
EDGES = [0, 1, -1, 2**60 - 1, 2**60, -(2**60), 2**60 + 1, -(2**60) - 1, 2**62 - 1, 2**62,
         -(2**62), -(2**62) - 1, 2**120 + 1, -(2**120) - 1, 2**120 - 1, 2**63, -(2**63), 3**300, -(7**200)]


def _mp(x):
    q = Fraction(x)
    return mp.mpf(q.numerator) / q.denominator


@pytest.mark.parametrize("W,H", [(1, 1), (1, 6), (6, 1), (2, 2), (3, 5), (5, 3)])
def test_block_products_at_limb_boundaries_equal_direct_sums(W, H):
    rng = random.Random(31 * W + H)
    m = grid(W, H, "euclidean")
    code = offset_value_codes(m)
    conv = GridConvolution(W, H, code)
    nv = len(m.values)
    for J, K in ((1, 4), (4, 1), (3, 3)):
        tables = [[rng.choice(EDGES) for _ in range(nv)] for _ in range(J)]
        cols = [[rng.choice(EDGES) for _ in range(m.n)] for _ in range(K)]
        cols[0] = [0] * m.n  # a zero vector among them
        got = conv.block_products(tables, cols)
        for mm in range(J + K - 1):
            want = [0] * m.n
            for j in range(J):
                if 0 <= mm - j < K:
                    p = direct_grid_product(W, H, code.tolist(), tables[j], cols[mm - j])
                    want = [a + b for a, b in zip(want, p)]
            assert got[mm] == want


def test_rho_bounds_contain_the_true_residual_sums_to_60_digits():
    """|ρ_m| ≤ bound for every m ≤ 2K against true Φ_j entries in 60-digit mpmath, with
    signed columns spanning 10^-40 … 10^40, a zero column, and far entries in the tables."""
    mp.mp.dps = 60
    rng = np.random.default_rng(15)
    W, H, K = 7, 2, 3
    m = grid(W, H, "euclidean")
    prov = GridProvider(m)
    vals = list(m.values)
    idx = np.asarray(m.index)
    dist = [mp.sqrt(_mp(v.square)) for v in vals]
    for c, a in ((Fraction(7, 10), Fraction(13, 20)), (Fraction(12), Fraction(23, 2))):
        ex = exact_taylor_tables(vals, c, a, K)
        phi = [[(-d) ** j * mp.exp(-_mp(c) * d) / math.factorial(j) for d in dist] for j in range(K + 1)]
        rem = [d ** (K + 1) * mp.exp(-_mp(a) * d) / math.factorial(K + 1) for d in dist]
        Y = rng.uniform(-1, 1, (m.n, K + 1)) * 10.0 ** rng.integers(-40, 41, (m.n, K + 1))
        Y[:, 2] = 0.0
        Y = on_column_grids(Y)
        b = rng.uniform(0.5, 2, m.n)
        Ysum = np.sum(np.abs(Y), axis=1)
        bounds, PY = _exact_rho_bounds(prov, ex, b, 0.0, K, Y, Ysum)
        for i in range(m.n):
            for mm in range(2 * K + 1):
                s = _mp(b[i]) if mm == 0 else mp.mpf(0)
                for j in range(K + 1):
                    if 0 <= mm - j <= K:
                        s -= mp.fsum(phi[j][idx[i, k]] * _mp(Y[k, mm - j]) for k in range(m.n))
                assert abs(s) <= _mp(bounds[mm][i])
            assert mp.fsum(rem[idx[i, k]] * _mp(Ysum[k]) for k in range(m.n)) <= _mp(PY[i])


def test_far_cut_tables_enclose_the_entries_on_both_sides_of_the_cut():
    mp.mp.dps = 60
    vals = list(grid(45, 1, "euclidean").values)  # distances 0 … 44
    for c, a, K in ((Fraction(5), Fraction(9, 2), 3), (Fraction(30), Fraction(29), 2),
                    (Fraction(1, 100), Fraction(1, 100), 3)):
        q = _far_square(min(a, c), K + 1)
        ex = exact_taylor_tables(vals, c, a, K)
        for i, v in enumerate(vals):
            d = mp.sqrt(_mp(v.square))
            for j in range(K + 1):
                t = (-d) ** j * mp.exp(-_mp(c) * d) / math.factorial(j) * mp.mpf(2) ** 100
                assert ex.lo[j][i] <= t <= ex.hi[j][i]
            assert d ** (K + 1) * mp.exp(-_mp(a) * d) / math.factorial(K + 1) * mp.mpf(2) ** 100 <= ex.rem[i]
        if c >= 5:  # the cut falls inside the line: entries on both sides are checked above
            assert q is not None and 0 < q < 44**2


@pytest.mark.parametrize("a,J", [(Fraction(1, 10**400), 0), (Fraction(1, 10**400), 3),
                                 (Fraction(1, 10**310), 2), (Fraction(10**400), 3),
                                 (Fraction(1, 100), 80), (Fraction(10**9 + 1, 10**9), 60),
                                 # J/a just above 1: a float ceil gave d0 = 1 < J/a (Lemma 6 needs ≥)
                                 (Fraction(71 * 10**18 - 1, 10**18), 71)])
def test_far_cut_never_crashes_on_extreme_rationals_or_orders(a, J):
    q = _far_square(a, J)  # was ZeroDivisionError / OverflowError
    if q is not None:
        d0 = math.isqrt(q.numerator)
        assert d0 * d0 == q and d0 >= Fraction(J) / a
        mp.mp.dps = 60
        for d in (d0, d0 + 1, 2 * d0):
            for j in range(J + 1):
                assert mp.mpf(d) ** j * mp.exp(-_mp(a) * d) / math.factorial(j) < mp.mpf(2) ** -100


@pytest.mark.parametrize("c", [Fraction(1, 10**400), Fraction(10**400)])
def test_exact_residual_bound_at_extreme_eps(c):
    mp.mp.dps = 60
    m = grid(3, 2, "euclidean")
    vals = list(m.values)
    idx = np.asarray(m.index)
    y0 = on_residual_grid(np.array([1.0, -2.0, 0.5, 3.0, -1.0, 0.25]))
    rhs = tuple(Fraction(k + 1, 7) for k in range(m.n))
    _, upper = exact_residual_bound(GridProvider(m), vals, rhs, c, y0)
    for i in range(m.n):
        r = _mp(rhs[i]) - mp.fsum(mp.exp(-_mp(c) * mp.sqrt(_mp(vals[idx[i, k]].square))) * _mp(y0[k])
                                  for k in range(m.n))
        assert abs(r) <= _mp(upper[i])


def test_provider_cache_never_serves_another_metric():
    """The cache compares identities and keeps its metrics alive, so a freed metric's id
    can never be reused by a new metric while its provider is cached."""
    for k in range(40):
        g = grid(3 + k % 4, 2 + k % 3, "euclidean")
        p = provider_for(g, prefer_grid=True)
        assert p.metric is g and p.n == g.n
        assert np.array_equal(p.code, offset_value_codes(g))
        del g, p
        gc.collect()
