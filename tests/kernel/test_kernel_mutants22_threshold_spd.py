"""Session 22: the rounding-slack survivors of exactdp/kernel/threshold_spd.py that session 21
left as open test gaps. Each was unsound in principle but no test reached it, because a
false claim that only a slack term refuses must be false by less than that term: 2^-60 for
the Cholesky proof, 2^-110 for the Taylor tables, ω^{K+1} for the remainder. The claims
here are built at those scales. Each test names the mutants it kills.

Ground truth is computed here, in closed form at 80 digits (mpmath), never by the kernel:
- the 4-point star (centre 0, leaves at 1, leaves 2 apart) with right-hand side
  b = (ρ, 1, 1, 1). Solving u + 3tw = ρ, tu + (1 + 2t²)w = 1 gives
  z_0 = (ρ(1 + 2t²) − 3t)/(1 − t²), t = e^{−ε}. So z_0 < 0 exactly below
  ε*(ρ) = −ln t*, where t* = (3 − √(9 − 8ρ²))/(4ρ) is the smaller root of 2ρt² − 3t + ρ = 0
  (ρ = 1 is the issue's star, ε* = ln 2);
- λ_min(Φ(ε)) of small line metrics by mpmath's symmetric eigensolver at 60 digits;
- the star's λ_min > 0.12 on [1/4, 5] (numpy on 2,000 points; it moves by < 0.01 between
  them; 0.1275 at ε = 1/4 by mpmath), so the λ = 1/10 and 1/20 given to piece_ok are true
  lower bounds.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction as F

import mpmath as mp
import numpy as np
import pytest

from exactdp.kernel.grid_point import GridProducts
from exactdp.kernel.threshold_spd import lambda_ok, piece_ok
from exactdp.spaces.metrics import grid, line
from exactdp.spaces.metrics.explicit import from_matrix
from exactdp.spaces.metrics.masked import GridShape

STAR = from_matrix([[0, 1, 1, 1], [1, 0, 2, 2], [1, 2, 0, 2], [1, 2, 2, 0]])
ONE_POINT = from_matrix([[0]])
_DPS = 80


@pytest.fixture(autouse=True)
def _digits():
    """Every mpmath operation of this module at 80 digits (the default is 15)."""
    with mp.workdps(_DPS):
        yield


def _mpf(x: F) -> mp.mpf:
    return mp.mpf(x.numerator) / x.denominator


def _z0_real(e: mp.mpf, r: mp.mpf) -> mp.mpf:
    """z_0 of the star with b = (r, 1, 1, 1) at a real ε, closed form (also for mpmath's
    derivatives)."""
    t = mp.exp(-e)
    return (r * (1 + 2 * t * t) - 3 * t) / (1 - t * t)


def _z0(eps: F, rho: F) -> mp.mpf:
    """z_0(ε) at rational ε and ρ, at 80 digits."""
    with mp.workdps(_DPS):
        return _z0_real(_mpf(eps), _mpf(rho))


def _threshold(rho: F) -> mp.mpf:
    """ε*(ρ) = −ln t*, t* the smaller root of 2ρt² − 3t + ρ (ρ ≤ 1)."""
    with mp.workdps(_DPS):
        r = _mpf(rho)
        return -mp.log((3 - mp.sqrt(9 - 8 * r * r)) / (4 * r))


def _dyadic(x: mp.mpf, up: bool) -> F:
    """A rational on the 2^-200 grid just above (up) or below x."""
    with mp.workdps(_DPS):
        v = x * mp.mpf(2) ** 200
        return F(int(mp.ceil(v) if up else mp.floor(v)), 2**200)


def _rhs(rho: F) -> tuple[F, ...]:
    return (rho, F(1), F(1), F(1))


def test_the_star_ground_truth():
    """The closed forms agree with an 80-digit solve of Φz = b, and λ = 1/10 is safe."""
    with mp.workdps(_DPS):
        for eps, rho in ((F(1, 2), F(1)), (F(2), F(2, 5)), (F(7, 3), F(1, 10))):
            t = mp.exp(-_mpf(eps))
            phi = mp.matrix([[1, t, t, t], [t, 1, t * t, t * t], [t, t * t, 1, t * t],
                             [t, t * t, t * t, 1]])
            z = mp.lu_solve(phi, mp.matrix([_mpf(rho), 1, 1, 1]))
            assert abs(z[0] - _z0(eps, rho)) < mp.mpf(10) ** -70
        for rho in (F(1, 10), F(1, 2), F(1)):
            assert abs(_z0(_dyadic(_threshold(rho), True), rho)) < mp.mpf(2) ** -190
        assert abs(_threshold(F(1)) - mp.log(2)) < mp.mpf(10) ** -70
    # λ_min on [1/4, 5]: > 0.12 at 2,000 points (numpy), and |dλ_min/dε| ≤ ‖Φ'‖∞ ≤ 3 moves it
    # by < 0.01 between them; at ε = 1/4 (the smallest ε used, with λ = 1/10) 60 digits
    t = np.exp(-np.linspace(0.25, 5, 2000))[:, None, None]
    d = np.array([[0, 1, 1, 1], [1, 0, 2, 2], [1, 2, 0, 2], [1, 2, 2, 0]], dtype=float)
    assert np.linalg.eigvalsh(t ** d).min() > 0.12
    assert _lambda_min(STAR, F(1, 4)) > 0.127


# kills "line 267: 0 -> 1" (the m = j table widths, 2^-110·‖y‖₁, left out of r̄) and "line
# 282: Mult -> Div" (y_i/y_i·X > e2: any negative y_i with ‖r̄‖/λ < 1 accepted). At ε just
# above ε*(ρ), z_0 > 0 by about 2^-126, while the kernel's y_0 (solved against the 2^-110
# table ends) is off by about 2^-110 in either sign: "z_0(ε) < 0" is false and only the
# width term refuses it. The two mutants accepted 7 and 7 of these 40 claims
def test_point_claims_just_above_the_threshold_are_refused():
    for k in range(1, 41):
        rho = F(k, 40)
        eps = _dyadic(_threshold(rho), True) + F(1, 2**125)
        assert _z0(eps, rho) > 0
        assert not piece_ok(STAR, _rhs(rho), eps, eps, 0, F(1, 10), 0, None), rho
        assert not piece_ok(STAR, _rhs(rho), eps, eps, 0, F(1, 10), 0, F(0)), rho
    # the same claims 2^-100 below ε* are true and proved: the refusals above are not blanket
    for k in (10, 20, 40):
        rho = F(k, 40)
        eps = _dyadic(_threshold(rho), False) - F(1, 2**100)
        assert _z0(eps, rho) < 0
        assert piece_ok(STAR, _rhs(rho), eps, eps, 0, F(1, 10), 0, None), rho


# kills "line 281: Mult -> Div" (g/g·X ≥ e2: an upper claim accepted whenever g ≥ 0 and
# ‖r̄‖/λ ≤ 1): "z_0(ε) ≤ upper" with upper 2^-112…2^-120 below the true z_0(ε) is false;
# y_0 can sit below upper by its 2^-110 error, and only ‖r̄‖/λ, which counts that error,
# refuses it. The mutant accepted 37 of these 90 claims
def test_upper_claims_just_below_the_true_value_are_refused():
    for k in range(10, 40):
        eps = F(k, 40)
        z = _z0(eps, F(1))
        for j in (112, 116, 120):
            upper = _dyadic(z - mp.mpf(2) ** -j, False)
            assert upper < _dyadic(z, False)
            assert not piece_ok(STAR, _rhs(F(1)), eps, eps, 0, F(1, 10), 0, upper), (eps, j)
        if z < -mp.mpf(2) ** -80:  # a true upper claim 2^-90 above is proved
            assert piece_ok(STAR, _rhs(F(1)), eps, eps, 0, F(1, 10), 0,
                            _dyadic(z + mp.mpf(2) ** -90, True)), eps


def _thin_pieces():
    """Pieces [a, a + 2ω], ω = 2^-60 or 2^-70, from 2^-125 below ε*(ρ): z_0(a) < 0."""
    for k in range(2, 41, 2):
        rho = F(k, 40)
        a = _dyadic(_threshold(rho), False) - F(1, 2**125)
        assert _z0(a, rho) < 0
        for w in (60, 70):
            for K in (1, 2, 3):
                yield rho, a, a + F(2, 2**w), K


# kills "line 267: 0 -> 1" again and "line 267: Add -> Sub" in range(K + 1) (range(K − 1):
# no widths at K = 1): pieces at most 2^-59 wide, starting 2^-125 below ε*. Their Taylor terms
# are far below 2^-110, so only the table widths refuse them. The mutants accepted 54 and 18
# of these 120 pieces
def test_thin_pieces_from_just_below_the_threshold_are_refused():
    for rho, a, b, K in _thin_pieces():
        assert not piece_ok(STAR, _rhs(rho), a, b, K, F(1, 20)), (rho, K)
    # control: the same pieces moved to start 2^-90 above ε* are true and proved
    for rho, a, b, K in _thin_pieces():
        shift = _dyadic(_threshold(rho), True) + F(1, 2**90) - a
        assert _z0(a + shift, rho) > 0
        assert piece_ok(STAR, _rhs(rho), a + shift, b + shift, K, F(1, 20)), (rho, K)


# kills "line 260: Pow -> Mult" (both: the weights ω^k of Σ_k ω^k|y_k| in the remainder become
# ω·k or ω^k·(K − k), 0 at K = 0), "line 196: Mult -> Div" (the remainder table divided by
# 2^110 instead of scaled) and "line 271: 1 -> 2" (ω^{K+2} for ω^{K+1}): at order 0 the lower
# bound is y_0 = z(c) alone, so a piece straddling ε* with z_0(c) > 0 is refused only by the
# remainder ω·P·Σ|y|. Widths from 10^-6 to 1/2 around ε*(ρ); the mutants accepted 20–41
# of these 80 pieces
def test_order_zero_and_one_pieces_straddling_the_threshold_are_refused():
    for k in range(2, 41, 4):
        rho = F(k, 40)
        star = _threshold(rho)
        for below, above in ((F(1, 100), F(1, 10)), (F(1, 1000), F(1, 2)),
                             (F(1, 10**6), F(1, 1000)), (F(1, 10**9), F(1, 10**6))):
            a = _dyadic(star, False) - below
            b = a + below + above
            assert _z0(a, rho) < 0 < _z0((a + b) / 2, rho)
            for K in (0, 1):
                assert not piece_ok(STAR, _rhs(rho), a, b, K, F(1, 20)), (rho, below, K)
    # above ε* the same orders prove pieces: the remainder does not refuse everything
    for K in (0, 1):
        assert _z0(F(1), F(1)) > 0.19
        assert piece_ok(STAR, _rhs(F(1)), F(1), F(1) + F(1, 1000), K, F(1, 20))


def _odd_term_pieces():
    """Pieces [a, a + 2ω] at orders 3–8 whose z_0(a) < 0 is smaller than ω³·y_3.

    For ρ < 1 the star's z_0 has y_1 > 0, y_2 < 0 and y_3 > 0 at ε* (y_k = z_0^(k)/k!, by
    mpmath's numerical derivative; only used to choose a, the falsity is the closed form).
    Then y_0 − ω|y_1| − ω²|y_2| exceeds z_0(a) by about ω³y_3, and only the odd term
    −ω³|y_3| brings the bound below 0."""
    for k in range(4, 37, 4):
        rho = F(k, 40)
        star = _threshold(rho)
        z = functools.partial(_z0_real, r=_mpf(rho))
        y1, y2, y3 = (mp.diff(z, star, j) / math.factorial(j) for j in (1, 2, 3))
        assert y1 > 0 > y2 and y3 > 0
        for w in (32, 64, 128):
            for frac in (1, 2, 3):
                a = _dyadic(star - (mp.mpf(1) / w) ** 3 * y3 / y1 * frac / 4, False)
                assert _z0(a, rho) < 0
                # control: a piece of the same width starting past ε* by more than the
                # ω²|y_2| + ω³y_3 the bound subtracts (times 2) is true and proved
                c = _dyadic(star + 2 * ((mp.mpf(1) / w) ** 2 * abs(y2) + (mp.mpf(1) / w) ** 3 * y3) / y1,
                            True)
                for K in (3, 4, 8):
                    yield rho, a, a + F(2, w), K, c


# kills "line 289: 2 -> 3" (k % 3: the odd term k = 3 read as even, max(0, −y_3) for |y_3|).
# The mutant accepted 201 of these 243 false pieces
def test_pieces_refused_only_by_the_odd_third_term():
    for rho, a, b, K, c in _odd_term_pieces():
        assert not piece_ok(STAR, _rhs(rho), a, b, K, F(1, 20)), (rho, b - a, K)
        assert _z0(c, rho) > 0
        assert piece_ok(STAR, _rhs(rho), c, c + (b - a), K, F(1, 20)), (rho, b - a, K)


# kills "line 291: Gt -> GtE" and "line 282: Gt -> GtE": a tie proves only z ≥ 0 (or ≤ 0).
# On one point, Φ = [1], λ_min = 1 and b = 0, so z = 0 exactly. The candidate y = ±2^-80 has
# residual r̄ = 2^-80 and, at λ = 1, y ∓ ‖r̄‖/λ = 0 exactly: "z > 0" and "z < 0" are both
# false and must be refused; λ = 1/2 < λ_min changes nothing
def test_exact_ties_prove_nothing():
    tiny = np.array([[2.0**-80]])
    for lam in (F(1), F(1, 2)):
        assert not piece_ok(ONE_POINT, (F(0),), F(1), F(1), 0, lam, Y=tiny)
        assert not piece_ok(ONE_POINT, (F(0),), F(1), F(1), 0, lam, 0, None, Y=-tiny)
    # b = 2^-78 > 0 and y = 2^-78: residual 0, z > 0 proved
    assert piece_ok(ONE_POINT, (F(1, 2**78),), F(1), F(1), 0, F(1), Y=4 * tiny)


def _lambda_min(metric, eps: F) -> mp.mpf:
    with mp.workdps(60):
        e = _mpf(eps)
        phi = mp.matrix([[mp.exp(-e * _mpf(metric.values[metric.index[i][j]].coef)
                                 * mp.sqrt(metric.values[metric.index[i][j]].radicand))
                          for j in range(metric.n)] for i in range(metric.n)])
        return min(mp.eigsy(phi, eigvals_only=True))


#: (metric, ε) where float Cholesky of A − σI succeeded with σ above λ_min (numpy 2.x,
#: OpenBLAS): the float factor of a matrix indefinite by less than its rounding
_INDEFINITE = ((line(3), F(69, 200)), (line(3), F(73, 50)), (STAR, F(39, 40)),
               (line(8), F(3, 40)), (grid(3, 3), F(391, 200)), (line(20), F(59, 100)))


# Soundness when the float Cholesky factor succeeds for σ above λ_min(Φ): then only
# ‖E‖∞ = ‖LLᵀ − (A − σI)‖∞ pulls the bound below λ_min. Every claim λ > λ_min here is false
# (60-digit eigenvalues). These refusals kill no listed mutant (‖E‖∞ ≈ 2^-52 is far above the
# 2^-100 margin); they pin the case a mutant dropping ‖E‖∞ altogether would get wrong
def _refused_indefinite_shifts(metric, eps: F) -> int:
    """Assert every false claim λ = σ − 2^-100 > λ_min is refused for σ up to 40·2^-60
    above λ_min; return how many of those σ the float Cholesky factored."""
    lam_min = _lambda_min(metric, eps)
    base = int(mp.floor(lam_min * 2**60))
    factored = 0
    for k in range(1, 41):
        sigma = F(base + k, 2**60)
        try:
            ok = lambda_ok(metric, eps, sigma, sigma - F(1, 2**100))
            factored += 1
        except np.linalg.LinAlgError:
            continue
        assert _mpf(sigma - F(1, 2**100)) > lam_min and not ok, k
    below = F(base - 2**20, 2**60)  # control: 2^-40 below λ_min proves λ_min ≥ σ − 2^-45
    assert lambda_ok(metric, eps, below, below - F(1, 2**45))
    return factored


@pytest.mark.parametrize("metric,eps", _INDEFINITE)
def test_cholesky_factors_of_indefinite_shifts_prove_nothing(metric, eps):
    _refused_indefinite_shifts(metric, eps)


# kills "line 154: Add -> Sub": with (i − 1)·n the row slices are ent[0:−n] (rows 0…n−2
# summed) for i = 0 and empty after, so ‖E‖∞ becomes the sum of n − 1 rows (2^-48.7 on
# line(8), 2^-47.7 on line(20); the true largest row sum is about 2^-51). A genuine claim
# 2^-49 below σ = λ_min − 2^-40 is then refused; the kernel proves it with room 4×
def test_the_cholesky_residual_is_the_largest_row_sum():
    for metric, eps in ((line(8), F(3, 40)), (line(12), F(1, 3)), (line(20), F(59, 100))):
        sigma = F(int(mp.floor(_lambda_min(metric, eps) * 2**60)) - 2**20, 2**60)
        assert lambda_ok(metric, eps, sigma, sigma - F(1, 2**49)), metric.n
        assert not lambda_ok(metric, eps, sigma, sigma), metric.n  # λ = σ never


def test_some_indefinite_shift_is_factored():
    """Not vacuous: the float Cholesky does succeed above λ_min on some of these (all 6 on
    the machine that wrote the test; another LAPACK may round differently)."""
    assert sum(_refused_indefinite_shifts(m, e) for m, e in _INDEFINITE) > 0


# Adversarial candidates. piece_ok documents that any candidate Y is sound ("a bad one makes
# r̄ large"); the search passes its own (exactdp.threshold.exact_checks.exact_piece_check).
# Each term of r̄ is |residual| + slack, all ≥ 0, so a sign slip there is squared away
# unless the residual equals the slack. These tests choose Y, then the right-hand side b
# that makes the two equal. Then the slip cancels r̄ to 0, a false claim follows, and only
# the right sign refuses it. The tables are recomputed here at 80 digits: lower ends
# ⌊e^{−εd}·2^110⌋ (width 1, 0 at d = 0), remainder upper ends ⌈d·e^{−ad}·2^110⌉ at K = 0,
# and entries ≤ 2^10 left out of grid products. The claims' falsity is an 80-digit solve
# of Φz = b.


def _solve(dist: list[list[int]], eps: F, b: tuple[F, ...]) -> list[mp.mpf]:
    e = _mpf(eps)
    phi = mp.matrix([[mp.exp(-e * d) for d in row] for row in dist])
    return list(mp.lu_solve(phi, mp.matrix([_mpf(x) for x in b])))


def _floor110(x: mp.mpf) -> int:
    return int(mp.floor(x * mp.mpf(2) ** 110))


# kills "line 271: Add -> Sub" in A + rad_m (residual minus the table widths). On line(2) at
# ε = 1, y = (−2^-80, 2^40) and b = mids·y ± width·‖y‖₁ (scale 2^-190), the mutant's r̄ is 0
# and it proves z_0(1) < 0 from y_0 < 0. Here z_0(1) ≈ +1.1·10^-21
def test_a_residual_equal_to_the_widths_does_not_cancel():
    m = _floor110(mp.exp(-1))
    y = (-1, 2**120)  # units of 2^-80
    l1 = abs(y[0]) + abs(y[1])
    s0 = (2**110 * y[0] + m * y[1], m * y[0] + 2**110 * y[1])
    b = (F(s0[0] + l1, 2**190), F(s0[1] - l1, 2**190))
    assert _solve([[0, 1], [1, 0]], F(1), b)[0] > 0
    Y = np.array([[-(2.0**-80)], [2.0**40]])
    assert not piece_ok(line(2), b, F(1), F(1), 0, F(1, 2), 0, None, Y=Y)
    # control: y_0 = −2^-60 and b = the exact products (residual 0): z_0(1) < 0 is true
    # and proved from the same kind of candidate
    y = (-(2**20), 2**120)
    b = (F(2**110 * y[0] + m * y[1], 2**190), F(m * y[0] + 2**110 * y[1], 2**190))
    assert _solve([[0, 1], [1, 0]], F(1), b)[0] < 0
    Y = np.array([[-(2.0**-60)], [2.0**40]])
    assert piece_ok(line(2), b, F(1), F(1), 0, F(1, 2), 0, None, Y=Y)


# kills "line 271: Add -> Sub" between the remainder and the residual terms (remainder
# minus residual): an order-0 piece [1, 3] on line(2) with y = (2^-60, 2^40) and b chosen so
# that the residual term equals the remainder ω·P·|y|. z_0 < −10^11 on the whole piece
# (λ = 1/2 ≤ λ_min = 1 − e^{−ε} on [1, 3])
def test_a_residual_equal_to_the_remainder_does_not_cancel():
    mid = _floor110(mp.exp(-2))
    rem = int(mp.ceil(mp.exp(-1) * mp.mpf(2) ** 110))  # d·e^{−a·d}, d = 1, a = 1
    y = (2**20, 2**120)
    l1 = y[0] + y[1]
    s0 = (2**110 * y[0] + mid * y[1], mid * y[0] + 2**110 * y[1])
    gap = (rem * y[1] - l1, rem * y[0] - l1)
    assert min(gap) > 0
    b = (F(s0[0] - gap[0], 2**190), F(s0[1] + gap[1], 2**190))
    for eps in (F(1), F(2), F(3)):
        assert _solve([[0, 1], [1, 0]], eps, b)[0] < -10**11
    Y = np.array([[2.0**-60], [2.0**40]])
    assert not piece_ok(line(2), b, F(1), F(3), 0, F(1, 2), Y=Y)


def _grid_line(width: int, spacing: int) -> tuple[object, list[list[int]]]:
    shape = GridShape(width, 1, "manhattan", F(spacing))
    dist = [[spacing * abs(i - j) for j in range(width)] for i in range(width)]
    return GridProducts(shape), dist


# kills "line 267: Add -> Sub" in radmax[j] + err[j] (the entries a grid product leaves out,
# err ≤ 2^10, subtracted): a 9-point line grid at ε = 10 leaves out offsets ≥ 7
# (⌊e^{−70}·2^110⌋ = 516 ≤ 2^10). With y = (−2^-80, 2^-80, …, 2^40) and b = S ± (err − 1)·‖y‖₁
# the mutant's r̄ is 0 and it proves z_0(10) < 0, false (z_0 ≈ +4.4·10^-19)
def test_grid_entries_left_out_are_added_not_subtracted():
    prods, dist = _grid_line(9, 1)
    mid = [_floor110(mp.exp(-10 * d)) for d in range(9)]
    box = max(d for d in range(9) if mid[d] > 2**10)
    err = max(mid[box + 1:])
    assert box == 6 and err == 516
    y = [-1] + [1] * 7 + [2**120]
    l1 = sum(map(abs, y))
    S = [sum(mid[abs(i - j)] * y[j] for j in range(9) if abs(i - j) <= box) for i in range(9)]
    b = tuple(F(S[i] + (err - 1) * l1, 2**190) for i in range(9))
    assert _solve(dist, F(10), b)[0] > 0
    Y = np.ldexp(np.array(y, dtype=float), -80)[:, None]
    assert not piece_ok(prods, b, F(10), F(10), 0, F(1, 2), 0, None, Y=Y)


# kills "line 271: Add -> Sub" in Pr + perr·Σ|y| (the remainder entries a grid product
# leaves out, subtracted): 4 points 8 apart, piece [9, 11] of order 0. Every off-diagonal
# remainder entry ⌈8k·e^{−72k}·2^110⌉ (559, 1, 1) is left out, so Pr = 0. With b = y·2^110 ±
# (perr − 1)·‖y‖₁ the mutant's r̄ is 0 and it proves z > 0 from y > 0, false (z_0 < 0)
def test_grid_remainder_entries_left_out_are_added_not_subtracted():
    prods, dist = _grid_line(4, 8)
    rem = [int(mp.ceil(8 * k * mp.exp(-72 * k) * mp.mpf(2) ** 110)) for k in range(4)]
    assert rem == [0, 559, 1, 1] and _floor110(mp.exp(-80)) == 0
    perr = max(rem)
    y = [1, 1, 1, 2**112]
    l1 = sum(y)
    b = tuple(F(2**110 * y[i] + (-1 if i == 0 else 1) * (perr - 1) * l1, 2**190) for i in range(4))
    for eps in (F(9), F(10), F(11)):
        assert _solve(dist, eps, b)[0] < 0
    Y = np.ldexp(np.array(y, dtype=float), -80)[:, None]
    assert not piece_ok(prods, b, F(9), F(11), 0, F(1, 2), Y=Y)
