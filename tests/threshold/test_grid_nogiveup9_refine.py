"""Issue 15 "never give up" (session 9): a Taylor piece or fail point whose exact residual
with the best double y_0 cannot decide is refined further, y_0 kept exactly in integers
finer than one double (``taylor.MAX_Y0_BITS``); a cover that fails at a certified failing
point moves the bracket up; spacing 10⁶ is searched in units of the smallest distance;
masked grids pickle."""

from __future__ import annotations

import pickle
from fractions import Fraction as F

import numpy as np

from exactdp.spaces.metrics.masked import masked_grid
from exactdp.threshold.api import epsilon_threshold
from exactdp.threshold.float_bounds import rhs_float
from exactdp.threshold.providers import GridProvider
from exactdp.threshold.taylor import point_bounds, taylor_piece

#: ln 2 to 40 digits (|error| < 10⁻⁴⁰); ε* of the L below is exactly ln 2 (exact route)
LN2 = F(6931471805599453094172321214581765680755, 10**40)
DELTA = F(1, 10**15)


def l_shape(w: int, h: int) -> list[str]:
    return ["".join("1" if (x < w // 2 or y >= h // 2) else "0" for x in range(w))
            for y in range(h)]


def _setup():
    m = masked_grid(12, 12, "manhattan", mask=l_shape(12, 12))
    prov = GridProvider(m)
    rhs = tuple(F(1) for _ in range(m.n))
    b, brad = rhs_float(rhs)
    return m, prov, rhs, b, brad


def test_piece_at_1e15_above_ln2_is_decided_by_a_refined_y0():
    """min z ≈ 4·10⁻¹⁶ on [ln 2 + 10⁻¹⁵, ln 2 + 2·10⁻¹⁵]: the double-precision y_0 (even with
    its exact residual) leaves an error ≈ 5·10⁻¹⁵ and the piece failed (session 8: the
    cover then raised PrecisionLimitReached); the integer-refined y_0 decides it."""
    m, prov, rhs, b, brad = _setup()
    ex = epsilon_threshold(m)
    assert ex.method == "exact" and ex.eps_lower <= LN2 <= ex.eps_upper
    a, bb = LN2 + DELTA, LN2 + 2 * DELTA
    lam = prov.lambda_lower(a, bb)
    res, Y = taylor_piece(prov, list(m.values), b, brad, a, bb, 3, lam, rhs=rhs)
    assert res.ok and 0 < res.min_lower < 1e-15 and res.err < 1e-25
    # soundness: the mirrored piece below ln 2 (z < 0 there) is never certified
    a2, b2 = LN2 - 2 * DELTA, LN2 - DELTA
    bad, _ = taylor_piece(prov, list(m.values), b, brad, a2, b2, 3, prov.lambda_lower(a2, b2),
                          rhs=rhs)
    assert not bad.ok and bad.min_lower < 0


def test_fail_point_1e15_below_ln2_is_decided():
    m, prov, rhs, b, brad = _setup()
    e = LN2 - DELTA
    y, err = point_bounds(prov, list(m.values), b, brad, e, prov.lambda_lower(e, e), rhs)
    i = int(np.argmin(y))
    assert y[i] + err < 0 and err < 2e-16  # session 8: err ≈ 1.1·10⁻¹⁵ > |y_i| ≈ 4.4·10⁻¹⁶
    e2 = LN2 + DELTA  # above ε*: no failure may be claimed
    y2, err2 = point_bounds(prov, list(m.values), b, brad, e2, prov.lambda_lower(e2, e2), rhs)
    assert not float(np.min(y2)) + err2 < 0


def test_low_float_estimate_moves_the_bracket_up():
    """A prior with one entry 10⁶ times the others: the float search lands 5·10⁻¹⁰ *below*
    ε* ≈ 13.8155, the cover then met z < 0 and raised PrecisionLimitReached (session 8);
    now the failure at the cover's start is certified and the bracket moves up."""
    m = masked_grid(12, 12, "manhattan", mask=l_shape(12, 12))
    prior = [F(1)] * m.n
    prior[-1] = F(10**6)
    tot = sum(prior)
    prior = [p / tot for p in prior]
    ex = epsilon_threshold(m, prior=prior)
    r = epsilon_threshold(m, prior=prior, matrix_free=True)
    assert r.eps_lower <= ex.eps_upper and ex.eps_lower <= r.eps_upper
    assert r.eps_upper - r.eps_lower <= F(1, 10**9) and r.verify()


def test_spacing_1e6_is_searched_in_units_of_the_spacing():
    """Review 15BC8 m2: spacing 10⁶ said "found no failure"; ε*·h is the same as at h = 1."""
    mask = ["11111", "11011", "10001", "11111"]
    one = epsilon_threshold(masked_grid(5, 4, "euclidean", 1, mask=mask))
    big = masked_grid(5, 4, "euclidean", 10**6, mask=mask)
    for mf in (False, True):
        r = epsilon_threshold(big, matrix_free=mf)
        assert r.eps_lower * 10**6 <= one.eps_upper and one.eps_lower <= r.eps_upper * 10**6
        assert r.verify()


def test_masked_grids_pickle():
    """Review 15BC8 m4: masked_grid built its index in a closure (not picklable)."""
    m = masked_grid(5, 4, "manhattan", mask=["11111", "11011", "10001", "11111"])
    m2 = pickle.loads(pickle.dumps(m))
    assert m2.shape == m.shape and m2.points == m.points and np.array_equal(m2.index, m.index)
    assert epsilon_threshold(m2).eps_lower == epsilon_threshold(m).eps_lower
