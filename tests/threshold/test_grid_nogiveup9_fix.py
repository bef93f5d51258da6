"""Review 15C9 fixes: a certified failing point found when the bracket moves up is kept and
the bracket climbs from it geometrically (M1/M2); the float search stops relatively in
t (ε* ≈ 18 has t ≈ 1e-8); a low bracket is not reported as a precision limit; spacings
≠ 1 are scanned in units of the smallest distance (M3); exact_grid_z is scale-invariant
and names bad input; library grids pickle."""

from __future__ import annotations

import pickle
from fractions import Fraction as F

import pytest

from exactdp.errors import InvalidArgument, PrecisionLimitReached
from exactdp.spaces.metrics.builtin import grid
from exactdp.spaces.metrics.masked import masked_grid
from exactdp.threshold import certified
from exactdp.threshold.api import epsilon_threshold
from exactdp.threshold.rational_point import exact_grid_z

#: ln 2 to 40 digits; ε* of the 8×8 L with a uniform prior is exactly ln 2 (exact route)
LN2 = F(6931471805599453094172321214581765680755, 10**40)
TOL = F(1, 10**12)


def l_shape(w: int, h: int) -> list[str]:
    return ["".join("1" if (x < w // 2 or y >= h // 2) else "0" for x in range(w))
            for y in range(h)]


def _low_estimate(monkeypatch, below: F) -> None:
    monkeypatch.setattr(certified, "float_find", lambda *a, **k: float(LN2 - below))


def test_estimate_300_tol_low_climbs_to_a_tol_bracket(monkeypatch):
    """Session 9 moved the bracket by tol, 2tol, 4tol (then raised) and dropped the
    failing point it had just certified; now it keeps it and climbs geometrically."""
    _low_estimate(monkeypatch, 300 * TOL)
    m = masked_grid(8, 8, "manhattan", mask=l_shape(8, 8))
    r = epsilon_threshold(m, tol=TOL, matrix_free=True)
    assert r.eps_lower < LN2 < r.eps_upper
    assert r.eps_upper - r.eps_lower <= TOL
    assert r.certificate.verify()


def test_low_bracket_is_not_blamed_on_double_precision(monkeypatch):
    _low_estimate(monkeypatch, 300 * TOL)
    monkeypatch.setattr(certified, "_BRACKET_ROUNDS", 1)
    m = masked_grid(8, 8, "manhattan", mask=l_shape(8, 8))
    with pytest.raises(PrecisionLimitReached, match="the bracket is low, not a precision"):
        epsilon_threshold(m, tol=TOL, matrix_free=True)


def test_float_search_is_relative_in_t_at_large_eps():
    """One prior entry 10⁸ times the others: ε* ≈ 18.4206807639 (exact route), t ≈ 1e-8.
    The absolute stop 2e-14 in t left the estimate 2.3e-7 low (230 tol)."""
    m = masked_grid(10, 10, "manhattan", mask=l_shape(10, 10))
    p = [F(1)] * m.n
    p[0] = F(10**8)
    s = sum(p)
    est = certified.float_find(m, tuple(v / s for v in p), None, 1e-9)
    assert abs(est - 18.42068076395) < 1e-9


@pytest.mark.parametrize("spacing", [F(40), F(64)])
def test_spacing_40_and_64_are_searched_in_units_of_the_spacing(spacing):
    """Session 9 rescanned only for spacings > 64 and raised 'found no failure … (u = 1 and
    u = the smallest distance)' for these, though u = d_min was never tried."""
    mask = ["11111", "11011", "10001", "11111"]
    one = epsilon_threshold(masked_grid(5, 4, "euclidean", mask=mask), tol=F(1, 10**9))
    r = epsilon_threshold(masked_grid(5, 4, "euclidean", spacing, mask=mask),
                          tol=F(1, 10**9) / spacing)
    assert r.certificate.verify()
    assert r.eps_lower * spacing < one.eps_upper and one.eps_lower < r.eps_upper * spacing


def test_exact_grid_z_is_scale_invariant():
    """Review m1: 10^±30·ones returned None at every t; z(c·b) = c·z(b)."""
    m = masked_grid(4, 4, "manhattan", mask=["1100", "1100", "1111", "1111"])
    z = exact_grid_z(m, F(1, 2))
    for c in (F(1, 10**30), F(10**30), F(10**400)):
        assert exact_grid_z(m, F(1, 2), [c] * m.n) == tuple(c * v for v in z)
    assert exact_grid_z(m, F(1, 2), [0] * m.n) == (F(0),) * m.n


@pytest.mark.parametrize("kw, word", [
    ({"t": float("nan")}, "t=nan"), ({"rhs": [float("inf")] * 8}, "rhs"),
    ({"rhs": ["a"] * 8}, "rhs"), ({"max_den_bits": -1}, "max_den_bits"),
    ({"max_den_bits": 1.5}, "max_den_bits")])
def test_exact_grid_z_names_bad_input(kw, word):
    m = masked_grid(4, 4, "manhattan", mask=["1100", "1100", "1111", "1111"])
    kw = {"t": F(1, 2), **kw}
    with pytest.raises(InvalidArgument, match=word):
        exact_grid_z(m, **kw)


@pytest.mark.parametrize("norm", ["euclidean", "manhattan", "chebyshev"])
def test_library_grids_pickle(norm):
    g = grid(3, 3, norm)
    g2 = pickle.loads(pickle.dumps(g))
    assert g2.name == g.name and (g2.index == g.index).all()


def _skewed_10x10():
    m = masked_grid(10, 10, "manhattan", mask=l_shape(10, 10))
    p = [F(1)] * m.n
    p[0] = F(10**8)
    s = sum(p)
    return m, [v / s for v in p]


def test_prior_weight_1e8_is_certified_at_tol_1e8():
    """Review M1 (ε* = 18.4206807639…, exact route): session 9 raised at every tol."""
    m, p = _skewed_10x10()
    r = epsilon_threshold(m, prior=p, tol=F(1, 10**8), matrix_free=True)
    assert r.eps_lower < F(184206807640, 10**10) and F(184206807639, 10**10) < r.eps_upper
    assert r.eps_upper - r.eps_lower <= F(1, 10**8) and r.certificate.verify()


def test_fail_side_within_the_double_floor_is_now_certified():
    """At tol 1e-9 the failing side lies where |min z| < 2^-52·max|z|: session 9 raised
    PrecisionLimitReached here (the fail point's rounding was one scalar bound). Since the
    per-entry bound of session 10 (proofs/fail_point_per_entry.py) the fail point is
    certified; the bracket must overlap the dense route's exact threshold and verify."""
    m, p = _skewed_10x10()
    r = epsilon_threshold(m, prior=p, tol=F(1, 10**9), matrix_free=True)
    d = epsilon_threshold(m, prior=p, tol=F(1, 10**9))
    assert r.eps_upper - r.eps_lower <= F(1, 10**9)
    assert max(r.eps_lower, d.eps_lower) <= min(r.eps_upper, d.eps_upper)
    assert r.certificate.verify()


def test_spacing_1e9_manhattan_holds_everywhere_not_fails_everywhere():
    """Review M3: the u = 1 scan saw near-singular float noise (ε·h ≈ 4e-9) and claimed
    'failing for every t'; on grids the scan is in units of the spacing only."""
    mask = ["11111", "11011", "10001", "11111"]
    r = epsilon_threshold(masked_grid(5, 4, "manhattan", F(1, 10**9), mask=mask),
                          matrix_free=True)
    one = epsilon_threshold(masked_grid(5, 4, "manhattan", mask=mask))
    assert r.eps_lower == r.eps_upper == 0 == one.eps_upper  # holds for every ε > 0
    assert str(r.eps_set) == str(one.eps_set) == "tight constraints exist: ε ∈ (0, ∞)"
