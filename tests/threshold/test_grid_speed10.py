"""Session 10 (15C): search speed at 50×50 / 100×100 — cached distance powers, reused λ_min
bounds, warm-started and looser candidate solves — and the k-sweep benchmark. No timings."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from flint import arb

from exactdp.arithmetic.ball import workprec
from exactdp.arithmetic.rationals import to_fmpq
from exactdp.linalg.grid_pcg import grid_pcg_solver
from exactdp.spaces.metrics import grid
from exactdp.spaces.metrics.masked import masked_grid
from exactdp.threshold import epsilon_threshold
from exactdp.threshold import value_powers as VP
from exactdp.threshold.providers import GridProvider
from exactdp.threshold.taylor import exact_taylor_tables, taylor_tables

ROOT = Path(__file__).resolve().parents[2]


def _check_tables(ex, values, c, a, K):
    """Every integer enclosure at 2^-100 contains the entry computed from scratch with arb
    at 300 bits (the pre-cache formula), and is tight (width ≤ 2 units)."""
    with workprec(300):
        ca, aa = arb(to_fmpq(c)), arb(to_fmpq(a))
        for i, v in enumerate(values):
            d = v.ball()
            e = (-ca * d).exp()
            for j in range(K + 1):
                x = (-d) ** j * e / math.factorial(j) * arb(2) ** 100
                assert ex.lo[j][i] <= x.lower() and x.upper() <= ex.hi[j][i]
                assert ex.hi[j][i] - ex.lo[j][i] <= 2
            r = abs(d) ** (K + 1) * (-aa * d).exp() / math.factorial(K + 1) * arb(2) ** 100
            assert r.upper() <= ex.rem[i] <= r.upper() + 2


@pytest.mark.parametrize("c", [Fraction(2, 3), Fraction(3, 2)])
def test_cached_powers_give_enclosures_of_the_true_entries(c):
    values = list(grid(9, 7).values)
    VP._LAST.clear()
    first = exact_taylor_tables(values, c, c - Fraction(1, 100), 3)
    again = exact_taylor_tables(values, c, c - Fraction(1, 100), 3)  # cache hit
    assert (first.lo, first.hi, first.rem) == (again.lo, again.hi, again.rem)
    assert VP._LAST and VP._LAST[0] == tuple(values)
    _check_tables(first, values, c, c - Fraction(1, 100), 3)


def test_cache_is_keyed_by_values_order_and_precision():
    a = list(grid(5, 5).values)
    b = list(reversed(a))
    with workprec(80):
        pa = VP.value_powers(a, 2)
        assert VP.value_powers(a, 2) is pa
        assert VP.value_powers(a, 3) is not pa          # another order J
        pb = VP.value_powers(b, 3)
        assert pb.squares == [v.square for v in b]
    with workprec(200):
        assert VP.value_powers(b, 3) is not pb          # another precision


def test_lambda_ranges_are_lower_bounds_on_each_sub_range():
    m = grid(6, 6)
    prov = GridProvider(m)
    d = np.array([[math.dist(divmod(i, 6), divmod(j, 6)) for j in range(36)] for i in range(36)])
    a = Fraction(2, 3)
    lam1 = prov.lambda_lower(a, a)                     # computed on [a, a·33/32], kept
    assert prov._lam_ranges[0][:2] == (a, a + a / 32)
    for e in (a, a + a / 64, a + a / 32):
        sub = prov.lambda_lower(e, min(e + Fraction(1, 10**6), a + a / 32))
        assert sub == lam1                              # reused
        assert float(sub) <= np.linalg.eigvalsh(np.exp(-float(e) * d))[0]
    wide = prov.lambda_lower(Fraction(1), Fraction(2))   # a new range: a new bound
    assert 0 < float(wide) <= min(np.linalg.eigvalsh(np.exp(-e * d))[0] for e in (1.0, 1.5, 2.0))


def test_taylor_guess_recentres_and_needs_the_same_rhs():
    prov = GridProvider(grid(8, 8))
    b = np.ones(64)
    assert prov.taylor_guess(Fraction(1), b, 3) is None
    c0, c1 = Fraction(1), Fraction(101, 100)
    tab0 = taylor_tables(list(prov.metric.values), c0, c0, 3)
    Y = np.stack([np.zeros(64)] * 4, axis=1)
    Y[:, 0] = prov.solver(tab0.mids[0])(b)
    prov.keep_taylor(c0, b, Y)
    G = prov.taylor_guess(c1, b, 3)
    assert G is not None and G.shape == (64, 4)
    assert np.allclose(G[:, 0], Y[:, 0])                # y_1.. = 0 here: y_0 carried over
    assert prov.taylor_guess(c1, 2 * b, 3) is None      # another right-hand side: no guess


def test_loose_and_warm_solves_meet_their_tolerance():
    d = np.array([[math.dist(divmod(i, 12), divmod(j, 12)) for j in range(144)] for i in range(144)])
    phi = np.exp(-0.7 * d)
    ker = np.exp(-0.7 * np.hypot(*np.meshgrid(np.arange(12), np.arange(12), indexing="ij")))
    solve = grid_pcg_solver(ker, 1e-15)
    b = np.linspace(1, 2, 144)
    for rtol in (1e-6, 1e-12):
        x = solve(b, None, rtol)
        assert np.linalg.norm(b - phi @ x) <= 10 * rtol * np.linalg.norm(b)
    x = solve(b)
    warm = solve(b * 1.001, x)                          # warm start near the solution
    assert np.linalg.norm(b * 1.001 - phi @ warm) <= 1e-13 * np.linalg.norm(b)


def test_matrix_free_threshold_with_the_new_search_agrees_with_dense_and_verifies():
    metric = masked_grid(14, 14, "euclidean", mask=["1" * 14] * 7 + ["1" * 7 + "0" * 7] * 7)
    dense = epsilon_threshold(metric)
    mf = epsilon_threshold(metric, matrix_free=True)
    assert mf.eps_lower < dense.eps_upper and dense.eps_lower < mf.eps_upper
    assert mf.verify()


def test_bench_grid_sweep_runs_one_size_and_prints_its_json():
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_grid_sweep.py"),
                          "--kmin", "10", "--kmax", "10", "--timeout", "300"],
                         capture_output=True, text=True, timeout=400, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout.strip().splitlines()[-1])["bench_grid_sweep"]
    assert [r["k"] for r in rows] == [10] and rows[0]["ok"] and rows[0]["eps_lower"] < rows[0]["eps_upper"]
    assert "1 of 1 sizes succeeded" in out.stdout
