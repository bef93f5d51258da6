"""Session 11 (15E): the cover's per-piece cost — integer tables built only for the near
distances and kept per piece, one exact-residual helper (fail point and escalation), and a
huge grid spacing (10^30) that used to end in a MemoryError. No timings."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from flint import arb

from exactdp.arithmetic.ball import workprec
from exactdp.arithmetic.rationals import to_fmpq
from exactdp.spaces.metrics import grid
from exactdp.threshold import epsilon_threshold
from exactdp.threshold import value_powers as VP
from exactdp.threshold.float_bounds import rhs_float
from exactdp.threshold.providers import DenseProvider, GridProvider
from exactdp.threshold.spd_cover import lambda_for, per_entry_upper
from exactdp.threshold.taylor import point_bounds
from exactdp.threshold.taylor_exact import (
    exact_residual,
    exact_residual_bound,
    exact_taylor_tables,
    far_square,
    on_residual_grid,
)


def _reference_tables(values, c, a, K):
    """The pre-session-11 loop: every value tested against the cut by its exact square."""
    far = far_square(min(a, c), K + 1)
    lo = [[] for _ in range(K + 1)]
    hi = [[] for _ in range(K + 1)]
    rem = []
    with workprec(164):
        ca, aa = arb(to_fmpq(c)), arb(to_fmpq(a))
        for v in values:
            if far is not None and v.square >= far:
                for j in range(K + 1):
                    lo[j].append(0 if j % 2 == 0 else -1)
                    hi[j].append(1 if j % 2 == 0 else 0)
                rem.append(1)
                continue
            d = v.ball()
            e = (-ca * d).exp()
            for j in range(K + 1):
                x = (-d) ** j * e / math.factorial(j) * arb(2) ** 100
                lo[j].append(int(x.lower().floor().unique_fmpz()))
                hi[j].append(int(x.upper().ceil().unique_fmpz()))
            r = abs(d) ** (K + 1) * (-aa * d).exp() / math.factorial(K + 1) * arb(2) ** 100
            rem.append(int(r.upper().ceil().unique_fmpz()))
    return lo, hi, rem, far


@pytest.mark.parametrize("c, a", [(Fraction(2), Fraction(19, 10)), (Fraction(5, 2), Fraction(2))])
def test_near_cut_tables_match_the_per_value_loop(c, a):
    """The far values are found from float squares (exact comparisons at the edge): the same
    set as the exact loop, and enclosures that contain the reference ones' values."""
    values = list(grid(70, 40).values)                     # d up to 80: the cut (d ≈ 45–60) lies inside
    lo, hi, rem, far = _reference_tables(values, c, a, 3)
    assert far is not None and any(v.square >= far for v in values)
    ex = exact_taylor_tables(values, c, a, 3)
    for j in range(4):
        for i in range(len(values)):
            far_i = values[i].square >= far
            if far_i:
                assert (ex.lo[j][i], ex.hi[j][i]) == (lo[j][i], hi[j][i])
            else:  # both enclose the same real number; each is at most 2 units wide
                assert ex.lo[j][i] <= hi[j][i] and lo[j][i] <= ex.hi[j][i]
                assert ex.hi[j][i] - ex.lo[j][i] <= 2
    assert all((r == 1) == (v.square >= far) or r <= 1 for r, v in zip(ex.rem, values))
    assert exact_taylor_tables(values, c, a, 3) is ex       # kept for the next call


def test_near_is_exact_at_the_edge_of_the_cut():
    """Squares one part in 2^70 around the cut: floats cannot tell them apart, the exact
    comparison does (a cut decided by floats alone fails this)."""
    class Sq:
        def __init__(self, q):
            self.square = q
    far = Fraction(17689, 3)
    qs = [far * (1 + Fraction(k, 2**70)) for k in range(-3, 4)] + [far / 2, far * 2]
    vp = VP.ValuePowers(tuple(Sq(q) for q in qs), 1)
    assert vp.near(far) == [i for i, q in enumerate(qs) if q < far] == [0, 1, 2, 7]


def test_one_exact_residual_for_the_fail_point_and_the_escalation():
    """``exact_residual`` is the one home: exact_residual_bound is its bounds(), and its
    numbers are b − A·y0 exactly (A the lower table), checked against Fractions."""
    m = grid(6, 5)
    prov = GridProvider(m)
    vals = list(m.values)
    rhs = tuple(Fraction(1, 1 + i % 3) for i in range(m.n))
    c = Fraction(2, 3)
    y0 = on_residual_grid(np.linspace(0.01, 0.2, m.n))
    res = exact_residual(prov, vals, rhs, c, [int(v) for v in np.ldexp(y0, 64)], 64)
    ex = exact_taylor_tables(vals, c, c, 0)
    for i in (0, 7, m.n - 1):
        ay = sum(Fraction(ex.lo[0][int(m.index[i, l])], 2**100) * Fraction(float(y0[l])) for l in range(m.n))
        assert Fraction(res.num[i], res.den) == rhs[i] - ay
    center, upper = exact_residual_bound(prov, vals, rhs, c, y0)
    c2, u2 = res.bounds()
    assert np.array_equal(center, c2) and np.array_equal(upper, u2)
    assert np.all(upper >= np.abs(center))
    # the per-entry fail-point bound built on it stays above the point enclosure's z_i
    lam = lambda_for(prov, c, c)
    b, brad = rhs_float(rhs)
    y, err = point_bounds(prov, vals, b, brad, c, lam, rhs)
    i = int(np.argmin(y))
    assert per_entry_upper(prov, vals, rhs, c, lam, y, i) >= y[i] - err


def test_huge_spacing_is_certified_in_units_of_the_spacing():
    """grid(3, 3, spacing=10^30) ended in a bare MemoryError (2^-20 steps of the λ chain
    and of the cover's end, e^{−ε·10^30·d} turned into 10²¹-bit Fractions). Now the
    tolerance and the steps scale with ε: the same ε* as spacing 1, divided by 10^30."""
    h = 10**30
    r1 = epsilon_threshold(grid(3, 3))
    rh = epsilon_threshold(grid(3, 3, spacing=h))
    assert rh.eps_lower * h <= r1.eps_upper and r1.eps_lower <= rh.eps_upper * h
    assert (rh.eps_upper - rh.eps_lower) * h < Fraction(1, 10**6)
    assert rh.verify()


def test_lambda_chain_steps_scale_with_eps():
    """The dense λ chain at ε ≈ 10^-30 (spacing 10^30) proves a bound without leaving the
    scale (a 2^-20 step would jump to ε·d ≈ 10^24)."""
    prov = DenseProvider(grid(3, 3, spacing=10**30))
    a = Fraction(9, 10**31)
    prov.start_chain(a)
    lam = prov.lambda_lower(a, a + Fraction(1, 10**33))
    assert lam > 0
    assert max(prov.chain) < Fraction(1, 10**20)
