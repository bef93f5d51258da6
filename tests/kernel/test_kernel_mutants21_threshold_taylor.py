"""Session 21: ``taylor_candidates`` (exactdp/kernel/threshold_taylor.py), the float Taylor
vectors that ``verify()`` of a threshold document builds before proving them exactly, for
right-hand sides other than the all-ones b of the earlier tests: fractions, b of size 10³ and
10³⁰⁰ (``rhs_shift`` > 0: the solve runs on b/2^e, then is shifted back exactly) and a b with
entries of mixed sign, on a dense metric (:class:`DenseProducts`) and a grid
(:class:`GridProducts`).

Ground truth here: Σ_{j+k=m} Φ_j·y_k = δ_{m0}·b (m = 0..K) checked in dense float64 from the
metric's distances, relative to the size of the terms that cancel, and — for b far beyond
a double — exactly: y_0 scaled back by 2^-e against b/2^e with integer arithmetic. A search
that solves for a wrongly scaled b (session 17's survivor "line 95: Div -> Mult", b·2^e in
place of b/2^e) or reads its float table at the wrong scale ("line 96: 1 -> 2") gives
vectors off by 2^{2e} or a y_0 of 0 here.
"""

from __future__ import annotations

from fractions import Fraction as F

import mpmath
import numpy as np
import pytest

from exactdp.kernel.grid_point import GridProducts
from exactdp.kernel.threshold_spd import Y_LEVELS, DenseProducts, _tables
from exactdp.kernel.threshold_taylor import SY, all_rational, rhs_shift
from exactdp.spaces.metrics import cycle, grid
from exactdp.spaces.metrics.masked import grid_shape

N = 12  # both metrics below have 12 points
RHS = {
    "ones": tuple(F(1) for _ in range(N)),
    "fractions": tuple(F(2 * i + 1, 7) for i in range(N)),
    "thousands": tuple(F(1000 * (i + 3), 7) for i in range(N)),
    "mixed-sign": tuple(F((-1) ** i * (i + 1) * 5000, 3) for i in range(N)),
}
HUGE = tuple(F(10**300 * (i + 2), 3) for i in range(N))  # beyond a double: checked exactly


def _metrics():
    g = grid(4, 3)
    return [("cycle-dense", cycle(N), DenseProducts(cycle(N))),
            ("grid-dense", g, DenseProducts(g)),
            ("grid-fft", g, GridProducts(grid_shape(g)))]


def _residuals(D: np.ndarray, c: F, ys: list[list[int]], b: tuple[F, ...]) -> list[float]:
    """max_i |Σ_{j+k=m} (Φ_j y_k)_i − δ_{m0} b_i| / max_i Σ_{j+k=m} (|Φ_j|·|y_k|)_i, m = 0..K,
    Φ_j = (−D)^j/j! ∘ e^{−cD} in float64 (no kernel code)."""
    y = [np.array([float(F(v, 1 << SY)) for v in yk]) for yk in ys]
    phis = [np.exp(-float(c) * D)]
    for j in range(1, len(y)):
        phis.append(phis[-1] * (-D) / j)
    bf = np.array([float(x) for x in b])
    out = []
    for m in range(len(y)):
        s = sum(phis[j] @ y[m - j] for j in range(m + 1)) - (bf if m == 0 else 0.0)
        scale = max(sum(np.abs(phis[j]) @ np.abs(y[m - j]) for j in range(m + 1)))
        out.append(float(np.max(np.abs(s)) / scale))
    return out


@pytest.mark.parametrize("which", sorted(RHS))
@pytest.mark.parametrize("case", range(3), ids=["cycle-dense", "grid-dense", "grid-fft"])
def test_candidates_solve_for_every_right_hand_side(case, which):
    name, metric, prods = _metrics()[case]
    b, c = RHS[which], F(1, 2)
    assert (rhs_shift(b) >= 10) == (which in ("thousands", "mixed-sign"))  # the scaled solve is used
    mids, _, _ = _tables(prods.values, c, c, 2)
    ys = prods.candidates(b, mids, 2)
    assert ys is not None
    r = _residuals(np.array(metric.distance_matrix_float()), c, ys, b)
    assert max(r) < 1e-10, (name, which, r)


@pytest.mark.parametrize("case", range(3), ids=["cycle-dense", "grid-dense", "grid-fft"])
def test_candidates_for_a_right_hand_side_beyond_a_double(case):
    """b ≈ 10³⁰⁰·(i + 2)/3 (rhs_shift = 999): y·2^-e solves the Taylor system for b/2^e to
    float accuracy, checked in float64 on the scaled system."""
    name, metric, prods = _metrics()[case]
    c, e = F(1, 2), rhs_shift(HUGE)
    assert e > 990
    mids, _, _ = _tables(prods.values, c, c, 1)
    ys = prods.candidates(HUGE, mids, 1)
    assert ys is not None
    scaled = [[v >> e for v in yk] for yk in ys]
    r = _residuals(np.array(metric.distance_matrix_float()), c, scaled, tuple(x / (1 << e) for x in HUGE))
    assert max(r) < 1e-10, (name, r)


@pytest.mark.parametrize("case", range(3), ids=["cycle-dense", "grid-dense", "grid-fft"])
def test_finer_levels_refine_y0_further(case):
    """At the finer grids 2^-132 and 2^-184 (``Y_LEVELS``, used while y_0's residual decides a
    piece) y_0 is refined 2 + (sy − 80)//26 times with exact residuals: b − Φ_0·y_0 is then
    limited by the 2^-110 table, not by a double. Checked at 50 digits with mpmath from the
    exact distances. Kills "line 99: Add -> Sub" (2 − (sy − 80)//26 ≤ 0 refinements: y_0 = 0)."""
    name, metric, prods = _metrics()[case]
    b, c = RHS["fractions"], F(1, 3)
    mids, _, _ = _tables(prods.values, c, c, 0)
    with mpmath.workdps(50):
        vals = [mpmath.mpf(v.coef.numerator) / v.coef.denominator * mpmath.sqrt(v.radicand)
                for v in metric.values]
        phi = [[mpmath.exp(-mpmath.mpf(1) / 3 * vals[k]) for k in row] for row in metric.index]
        for sy in Y_LEVELS:
            ys = prods.candidates(b, mids, 0, sy)
            assert ys is not None
            y0 = [mpmath.ldexp(mpmath.mpf(v), -sy) for v in ys[0]]
            res = max(abs(mpmath.mpf(x.numerator) / x.denominator - mpmath.fsum(p * y for p, y in zip(row, y0)))
                      for x, row in zip(b, phi))
            assert res < (1e-20 if sy == SY else 1e-28), (name, sy, res)  # 2^-80 vs the 2^-110 table


def test_all_rational_accepts_fractions_only():
    """The guard of every threshold claim's numbers: a float, an int or a string is not an
    exact rational here (kills "line 39: return True")."""
    assert all_rational(F(1), F(-2, 3)) and all_rational()
    assert not all_rational(F(1), 0.5)
    assert not all_rational(1)
    assert not all_rational(F(1), "1/2")
