"""Kernel threshold checks on the cases the mutation run found missing: root counting at the
ends of half-open intervals, the enclosure of s = e^{-ε/q} on both sides of its huge-ε
cut-off, and an exact threshold whose s* is rational (isolating "interval" a point).

Ground truth is independent of the kernel: root counts from polynomials built as products of
known factors, e^{-ε/q} from 60-digit mpmath, and the threshold of the instance below by hand:
on line(3) with b = (1/2, 1, 1/2) the unique solution is x(s) = (1 − 2s, 2s² − 2s + 2, 1 − 2s)
/ (2(1 − s²)), s = e^{-ε}: x ≥ 0 exactly when s ≤ 1/2, so ε* = ln 2 and s* = 1/2.
"""

from __future__ import annotations

import random
from fractions import Fraction as F

import flint
import mpmath
import pytest

from exactdp.arithmetic.interval import Enclosure
from exactdp.kernel.threshold import S_EXACT_LIMIT, ThresholdClaim, check_threshold, count_roots, s_enclosure
from exactdp.spaces.metrics import line


def _from_roots(roots, extra=()):
    """∏ (den·s − num)^mult · ∏ extra (integer factors with no real root), and the roots."""
    p = flint.fmpz_poly([1])
    for r, mult in roots:
        p *= flint.fmpz_poly([-r.numerator, r.denominator]) ** mult
    for g in extra:
        p *= g
    return p


def test_count_roots_against_known_roots():
    rng = random.Random(11)
    no_real = (flint.fmpz_poly([1, 0, 1]), flint.fmpz_poly([3, -2, 1]))  # s² + 1, s² − 2s + 3
    for _ in range(60):
        roots = {F(rng.randint(-6, 6), rng.randint(1, 4)) for _ in range(rng.randint(0, 4))}
        mults = [(r, rng.randint(1, 3)) for r in sorted(roots)]
        p = _from_roots(mults, no_real[:rng.randint(0, 2)]) * rng.choice([1, -1, 3])
        ends = sorted({*roots, F(rng.randint(-9, 9), 3), F(rng.randint(-9, 9), 2)})
        for a in ends:
            for b in ends:
                if a < b:
                    assert count_roots(p, a, b) == sum(a < r <= b for r in roots), (p, a, b)
    with pytest.raises(Exception):  # noqa: B017 - an InvalidArgument naming the fix
        count_roots(flint.fmpz_poly([1, 1]), F(1), F(1))
    with pytest.raises(Exception):  # noqa: B017
        count_roots(flint.fmpz_poly([]), F(0), F(1))


def _mp(x: F):
    return mpmath.mpf(x.numerator) / x.denominator


@pytest.mark.parametrize("eps,q", [(F(0), 1), (F(1, 3), 1), (F(7), 2), (F(1000), 3),
                                   (S_EXACT_LIMIT, 1), (2 * S_EXACT_LIMIT, 2),
                                   (S_EXACT_LIMIT + F(1, 10**6), 1), (F(10**6), 1)])
def test_s_enclosure_contains_the_truth(eps, q):
    mpmath.mp.dps = 60
    truth = mpmath.exp(-mpmath.mpf(eps.numerator) / eps.denominator / q)
    lo, hi = s_enclosure(eps, q, 128)
    assert _mp(lo) <= truth <= _mp(hi)
    if eps / q <= S_EXACT_LIMIT:  # exact ends, about 128 bits wide
        assert lo > 0 and _mp(hi - lo) <= truth * mpmath.mpf(2) ** -100
    else:  # past the cut-off: [0, h] with h ≥ e^{-4096} (and tiny)
        assert lo == 0 and 0 < hi < F(1, 2**5900)
        assert _mp(hi) >= mpmath.exp(-4096)


NUMS = ((-2, 1), (2, -2, 2), (-2, 1))
DEN = (-2, 0, 2)
B = (F(1, 2), F(1), F(1, 2))
LN2 = mpmath.log(2)  # ≈ 0.693 (53 bits: used only to place rationals 10^-2 away)


STAR = (1, (2, -1), Enclosure(F(1, 2), F(1, 2)))  # s* = 1/2, minimal polynomial 2s − 1


def _claim(lo, hi, star=STAR, witness=0, nums=NUMS):
    return ThresholdClaim("exact", line(3), B, Enclosure(F(lo), F(hi)),
                          {"numerators": nums, "denominator": DEN, "witness": witness,
                           "s_star": star})


def test_exact_threshold_with_a_rational_s_star():
    assert check_threshold(_claim(F(69, 100), F(7, 10)))
    assert check_threshold(_claim(F(69, 100), F(7, 10), star=None))
    assert check_threshold(_claim(F(69, 100), F(7, 10), (1, (2, -1), Enclosure(F(1, 4), F(3, 4)))))
    assert check_threshold(_claim(F(1, 2), F(2)))  # wider, still true
    # each of these states something false about ε* = ln 2 or s* = 1/2
    for lo, hi in ((F(7, 10), F(8, 10)), (F(6, 10), F(69, 100)), (F(0), F(7, 10))):
        assert not (_mp(lo) <= LN2 <= _mp(hi)) or lo == 0
        assert not check_threshold(_claim(lo, hi)), (lo, hi)
    for star in ((1, (3, -1), Enclosure(F(1, 3), F(1, 3))),  # s* = 1/3: not the end of the run
                 (1, (2, -1), Enclosure(F(1, 3), F(1, 3))),  # not a root of g
                 (1, (4, -2), Enclosure(F(1, 2), F(1, 2))),  # g not primitive
                 (1, (-2, 1), Enclosure(F(1, 2), F(1, 2))),  # negative leading coefficient
                 (2, (2, -1), Enclosure(F(1, 2), F(1, 2))),  # another q
                 (1, (4, 0, -1), Enclosure(F(1, 4), F(3, 4))),  # reducible g
                 (1, (2, -1), Enclosure(F(1, 2), F(3, 4))),  # root at an end of the interval
                 (1, (1, -1), Enclosure(F(1), F(1)))):  # s* = 1 is not in (0, 1)
        assert not check_threshold(_claim(F(69, 100), F(7, 10), star)), star
    # witness 1 never changes sign (2s² − 2s + 2 > 0): no failure there
    assert not check_threshold(_claim(F(69, 100), F(7, 10), witness=1, star=None))


def test_sides_at_the_edge_of_the_enclosure_of_s():
    """Claims whose ε sits where e^{-ε} is enclosed too widely at 128 bits: the enclosure of
    e^{-10^-50} pokes above 1, that of e^{-(ln 2 + 10^-45)} still holds the root s = 1/2 of
    N_0, and ε = 5000 is enclosed by (0, h]. Each claim below is false, so none may pass at
    any precision."""
    tiny = F(1, 10**50)
    assert s_enclosure(tiny, 1, 128)[1] > 1
    # holds on [10^-50, ∞) is false: ε* = ln 2
    assert not check_threshold(_claim(0, tiny, star=None, witness=None))
    # fails at 10^-50 on line(2) with b = 1 is false: x = (1, 1)/(1 + s) ≥ 0 for every ε
    ones = ThresholdClaim("exact", line(2), (F(1), F(1)), Enclosure(tiny, F(1)),
                          {"numerators": ((1,), (1,)), "denominator": (1, 1), "witness": 0,
                           "s_star": None})
    assert not check_threshold(ones)
    assert check_threshold(ThresholdClaim("exact", line(2), (F(1), F(1)), Enclosure(F(0), F(1)),
                                          {**ones.evidence, "witness": None}))
    # fails at ln 2 + 10^-45 (> ε*, where x ≥ 0) is false; ln 2 − 10^-45 is true
    with mpmath.workdps(80):
        ln2 = int(mpmath.log(2) * mpmath.mpf(10) ** 60)  # ⌊10^60 ln 2⌋ to 80 digits
        above, below = F(ln2 + 10**15, 10**60), F(ln2 - 10**15, 10**60)
        assert _mp(below) < mpmath.log(2) < _mp(above)
    assert not check_threshold(_claim(above, 1, star=None))
    assert check_threshold(_claim(below, 1, star=None))
    # fails at ε = 5000 (a huge lo) is false here: x ≥ 0 for every ε ≥ ln 2
    assert not check_threshold(_claim(5000, 5001, star=None))


def test_malformed_exact_evidence_is_not_proved():
    """Evidence built in memory must have the documented types: a witness is an int index in
    range (not a bool, not a negative Python index), coefficients are ints with a nonzero
    leading one. Each edit below turns the true claim of the first line into a rejected one."""
    good = _claim(F(69, 100), F(7, 10), star=None)
    assert check_threshold(good)
    for w in (True, -1, -3, 3):
        assert not check_threshold(_claim(F(69, 100), F(7, 10), star=None, witness=w)), w
    for nums in (((-2, True), (2, -2, 2), (-2, 1)),     # a bool coefficient
                 ((0, -2, 1), (2, -2, 2), (-2, 1)),     # a leading zero
                 ((0, 1), (2, -2, 2), (-2, 1)),         # a leading zero, two coefficients
                 ((-2.0, 1), (2, -2, 2), (-2, 1)),      # a float
                 ([-2, 1], (2, -2, 2), (-2, 1))):       # not a tuple
        assert not check_threshold(_claim(F(69, 100), F(7, 10), star=None, nums=nums)), nums
    # line(2), b = 1: x = (1, 1)/(1 + s) holds for every ε; (0, 1) spells the constant 1
    ones = ThresholdClaim("exact", line(2), (F(1), F(1)), Enclosure(F(0), F(1)),
                          {"numerators": ((1,), (1,)), "denominator": (1, 1), "witness": None,
                           "s_star": None})
    assert check_threshold(ones)
    for nums in (((0, 1), (1,)), ((1,), (0, 0, 1))):
        assert not check_threshold(ThresholdClaim(ones.kind, ones.metric, ones.rhs, ones.eps,
                                                  {**ones.evidence, "numerators": nums}))
