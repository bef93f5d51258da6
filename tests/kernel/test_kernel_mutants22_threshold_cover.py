"""Session 22: survivors of the first complete ``scripts/mutation.py`` run on
exactdp/kernel/threshold_cover.py: the arb mean-value Krawczyk range check
(:func:`arb_mean_value_check`) and the perturbation-lemma frame of the SPD and grid covers
(:func:`cover_frame_ok`). Each test names the mutants it kills.

Ground truth is computed here:
- the 4-point star (centre 0, leaves at 1, leaves 2 apart) with b = (ρ, 1, 1, 1) has
  z_0 = (ρ(1 + 2t²) − 3t)/(1 − t²), t = e^{−ε}, negative exactly below ε*(ρ) = −ln t*, where
  t* = (3 − √(9 − 8ρ²))/(4ρ) (see test_kernel_mutants22_threshold_spd.py, which checks the
  closed form against an 80-digit solve). ρ = 1 gives ε* = ln 2, ρ = 1/10 gives t* ≈ 0.0334;
- the perturbation lemma's row sums by hand: the star's rows are 3t (centre) and t + 2t²
  (leaves).
"""

from __future__ import annotations

from fractions import Fraction as F

import mpmath as mp
from flint import arb

from exactdp.arithmetic.ball import arb_to_fraction_interval, workprec
from exactdp.arithmetic.rationals import to_fmpq
from exactdp.kernel.threshold_cover import arb_mean_value_check, cover_frame_ok
from exactdp.spaces.metrics import line
from exactdp.spaces.metrics.explicit import from_matrix

STAR = from_matrix([[0, 1, 1, 1], [1, 0, 2, 2], [1, 2, 0, 2], [1, 2, 2, 0]])
ONES3, ONES4 = (F(1),) * 3, (F(1),) * 4


def _z0(eps: mp.mpf, rho: mp.mpf) -> mp.mpf:
    t = mp.exp(-eps)
    return (rho * (1 + 2 * t * t) - 3 * t) / (1 - t * t)


def _threshold(rho: mp.mpf) -> mp.mpf:
    return -mp.log((3 - mp.sqrt(9 - 8 * rho * rho)) / (4 * rho))


# kills "line 79: And -> Or" (a float end passes the type check, and the check then proves
# [1, 1.1] from the float), "line 79: Or -> And" (the four-way `or` of the guard read as
# `and`), "line 79: 1 -> 2" (n < 2: a one-point metric refused, although z = b > 0 there for
# every ε) and "line 79: Lt -> LtE" (a = b). The range must be a proper interval of exact
# rationals (docstring); a = b is not one
def test_ranges_must_be_proper_exact_intervals():
    assert arb_mean_value_check(line(3), ONES3, F(1), F(11, 10))  # control: a true claim
    assert not arb_mean_value_check(line(3), ONES3, F(1), 1.1)  # type: ignore[arg-type]
    assert not arb_mean_value_check(line(3), ONES3, 1.0, F(11, 10))  # type: ignore[arg-type]
    assert not arb_mean_value_check(line(3), ONES3, F(1), F(1))
    assert not arb_mean_value_check(line(3), ONES3[:2], F(1), F(11, 10))
    assert not arb_mean_value_check(line(3), ONES3 + (F(1),), F(1), F(11, 10))
    one = from_matrix([[0]])
    assert arb_mean_value_check(one, (F(1),), F(1), F(2))
    assert not arb_mean_value_check(one, (F(-1),), F(1), F(2))  # z = −1 < 0


# kills "line 96: return False -> return True" (a float Φ0 that numpy cannot invert accepted):
# at ε ≈ 2^-60 every e^{−ε·d} rounds to 1.0, the float Φ0 is the all-ones matrix, and the
# claim z > 0 is false there (z_0 → −1/2 as ε → 0)
def test_a_float_centre_matrix_numpy_cannot_invert_proves_nothing():
    with mp.workdps(40):
        assert _z0(mp.mpf(2) ** -60, mp.mpf(1)) < -0.49
    assert not arb_mean_value_check(STAR, ONES4, F(1, 2**61), F(3, 2**61))


# kills "line 116: 1 -> 2" (β < 2 accepted: then 1 − β ≤ 0 and the error bound δ changes
# sign): wide ranges [a, a + 2w], w = 1/4 … 1, starting below ε*(ρ), claim z > 0 where
# z_0(a) < 0. The mutant accepted 30 of a family of 1,651 such ranges, all of them wide
def test_wide_ranges_starting_below_the_threshold_are_refused():
    refused = 0
    with mp.workdps(40):
        for k in range(4, 41, 4):
            rho = F(k, 40)
            star = _threshold(mp.mpf(k) / 40)
            for w in (F(1, 4), F(1, 2), F(1)):
                for below in (F(1, 100), F(1, 10), F(1, 4)):
                    a = F(int(mp.floor(star * 2**64)), 2**64) - below
                    if a <= 0:
                        continue
                    assert _z0(mp.mpf(a.numerator) / a.denominator, mp.mpf(k) / 40) < 0
                    assert not arb_mean_value_check(STAR, (rho, F(1), F(1), F(1)), a, a + 2 * w)
                    refused += 1
    assert refused > 60
    assert arb_mean_value_check(STAR, ONES4, F(1), F(3, 2))  # control: above ln 2, width 1/2


def _end(t0: F) -> F:
    """The upper end of the kernel's 128-bit enclosure of −ln t0 (what the pieces must reach)."""
    with workprec(128):
        return arb_to_fraction_interval(-arb(to_fmpq(t0)).log())[1]


# kills "line 175: And -> Or": the perturbation lemma needs both e < 1 and e·max|b| <
# min b·(1 − e). With b = (1/10, 1, 1, 1) and t0 = 1/10, e = max(3t0, t0 + 2t0²) = 3/10 < 1
# but 3/10 ≥ (1/10)(7/10): the lemma fails, and so does its claim z > 0 on (0, t0] (t* ≈
# 0.0334 < 1/10: z_0 < 0 at t = 1/20). At t0 = 1/100 (e = 3/100) it holds
def test_the_lemma_needs_both_conditions():
    rhs = (F(1, 10), F(1), F(1), F(1))
    with mp.workdps(40):
        assert _z0(-mp.log(mp.mpf(1) / 20), mp.mpf(1) / 10) < 0
    assert not cover_frame_ok(STAR, rhs, _end(F(1, 10)), F(1, 10), ())
    assert cover_frame_ok(STAR, rhs, _end(F(1, 100)), F(1, 100), ())


# kills "line 175: 1 -> 2" ((2 − e)), "line 175: Sub -> Add" ((1 + e)) and "line 175:
# Mult -> Div" (bmin/(1 − e), e/bmax): lemma failures by a small margin. b = (1/10, 1, 1, 1)
# at t0 = 36/1000: e·max b = 0.108 ≥ min b·(1 − e) = 0.0892 (but < 0.1108, 0.1121, 0.188);
# b = (1/5, 2, 2, 2) at t0 = 1/25: e·max b = 0.24 ≥ 0.176 (but e/max b = 0.06). Both claims
# "z > 0 for every t ≤ t0" are false: t* ≈ 0.0334 (b/2 has the signs of (1/10, 1, 1, 1)),
# and z_0 < 0 at t = 35/1000
def test_lemma_failures_by_a_small_margin_are_refused():
    with mp.workdps(40):
        assert _z0(-mp.log(mp.mpf(35) / 1000), mp.mpf(1) / 10) < 0
    assert not cover_frame_ok(STAR, (F(1, 10), F(1), F(1), F(1)), _end(F(36, 1000)), F(36, 1000), ())
    assert not cover_frame_ok(STAR, (F(1, 5), F(2), F(2), F(2)), _end(F(1, 25)), F(1, 25), ())


# kills "line 184: GtE -> Gt": ranges that reach exactly the upper end of the enclosure of
# −ln t0 cover [hi, −ln t0] (the docstring's "covering … without gaps"). One unit of 2^-200
# short they still cover −ln t0 itself (the end is ≈ 3·10^-38 above it), but the kernel asks
# for the whole enclosure and refuses: conservative, as documented
def test_a_cover_ending_exactly_at_the_enclosure_is_complete():
    t0, rhs = F(1, 100), (F(1), F(1), F(1), F(1))
    end = _end(t0)
    assert cover_frame_ok(STAR, rhs, end, t0, ())
    assert cover_frame_ok(STAR, rhs, F(4), t0, ((F(4), end),))
    assert not cover_frame_ok(STAR, rhs, F(4), t0, ((F(4), end - F(1, 2**200)),))


# kills "line 172: Or -> And" in `… or not 0 < t0 < 1 or any(not a < b …)`: a degenerate
# range (a = b) is malformed, even when the proper ranges beside it cover; so are t0 = 1
# and b with a non-positive entry
def test_frame_arguments_are_checked_one_by_one():
    rhs, t0 = (F(1),) * 4, F(1, 100)
    assert cover_frame_ok(STAR, rhs, F(4), t0, ((F(4), F(5)),))  # control
    assert not cover_frame_ok(STAR, rhs, F(4), t0, ((F(4), F(4)), (F(4), F(5))))
    assert not cover_frame_ok(STAR, rhs, F(5), F(1), ())
    assert not cover_frame_ok(STAR, (F(0),) + rhs[1:], F(5), t0, ())


def _straddling_ranges():
    """Ranges [a, a + 2w] from just below ε*(ρ) (z_0(a) < 0), w = 1/4 … 1/1024."""
    with mp.workdps(40):
        for k in range(1, 41, 3):
            star = _threshold(mp.mpf(k) / 40)
            for w in (F(1, 4), F(1, 8), F(1, 16), F(1, 64), F(1, 256), F(1, 1024)):
                for below in (F(1, 10**6), F(1, 10**4), F(1, 1000), F(1, 100), F(1, 20)):
                    a = F(int(mp.floor(star * 2**200)), 2**200) - below
                    if a > 0:
                        assert _z0(mp.mpf(a.numerator) / a.denominator, mp.mpf(k) / 40) < 0
                        yield F(k, 40), a, a + 2 * w


# kills "line 120: Sub -> Add" (x + w|u|: the linear term added), "line 120: Add -> Sub" (the
# error term |R|ρ̄ − G·δ) and "line 87: 2 -> 3" (P2 = d²e^{−ad}/3, below the Lagrange
# remainder's d²e^{−ad}/2): 420 ranges straddling ε*(ρ), each claiming z > 0 where
# z_0(a) < 0. The mutants accepted 345, 5 and 44 of them
def test_ranges_straddling_the_threshold_are_refused():
    count = 0
    for rho, a, b in _straddling_ranges():
        assert not arb_mean_value_check(STAR, (rho, F(1), F(1), F(1)), a, b), (rho, a, b)
        count += 1
    assert count > 400


# kills "line 83: 2 -> 3" (the centre c = (a + b)/3, so the expansion covers [c − w, c + w],
# not [a, b]). With b = (21/20, 1, 1, 1) the numerator ρ(1 + 2t²) − 3t has two roots in (0, 1),
# so z_0 < 0 exactly on a band of ε, about (0.2043, 0.4890), and z > 0 below it. The ranges
# [22/100, 23/100] and [6/25, 1/4] lie inside the band; the mutant's ranges lie below it,
# where z > 0 is true and provable (review 22R2: [21/100, 1/4] did not tell them apart)
def test_a_range_inside_a_band_where_z_is_negative_is_refused():
    rho = F(21, 20)
    with mp.workdps(40):
        for e in (mp.mpf(21) / 100, mp.mpf(22) / 100, mp.mpf(23) / 100, mp.mpf(6) / 25, mp.mpf(1) / 4):
            assert _z0(e, mp.mpf(21) / 20) < 0
        for e in (mp.mpf(13) / 100, mp.mpf(15) / 100, mp.mpf(18) / 100, mp.mpf(1) / 2):
            assert _z0(e, mp.mpf(21) / 20) > 0
    for a, b in ((F(21, 100), F(1, 4)), (F(22, 100), F(23, 100)), (F(6, 25), F(1, 4))):
        assert not arb_mean_value_check(STAR, (rho, F(1), F(1), F(1)), a, b), (a, b)
    assert arb_mean_value_check(STAR, (rho, F(1), F(1), F(1)), F(13, 100), F(15, 100))  # control
