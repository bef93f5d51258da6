"""Kernel threshold checks (exactdp.kernel.threshold) on cases its mutation run left
unguarded: the exact root-counting helpers at their documented values, the Sturm fallback of
the "no root" test (forced by a zero Descartes budget), an isolating interval of s* wide
enough to need bisection, a numerator negative as s → 0+, the ``prop9`` and
``kronecker-threshold`` kinds built in memory, and the claim-level type checks.

Ground truth is independent of the kernel: polynomials are products of known factors, and
the instances are solved by hand. On line(3) with b = (1/2, 1, 1/2) the solution of Φx = b is
x(s) = (1 − 2s, 2s² − 2s + 2, 1 − 2s) / (2(1 − s²)), s = e^{-ε}: x ≥ 0 exactly when s ≤ 1/2,
so ε* = ln 2 and s* = 1/2. On line(2) with b = 1, x = (1, 1)/(1 + s) ≥ 0 for every ε (ε* = 0).
On line(3) with b = (1, 0, 0), Φ⁻¹ is tridiagonal and x = (1, −s, 0)/(1 − s²): x₁ < 0 for
every ε > 0, so no "holds on [hi, ∞)" claim is true. Sums ε* of Kronecker products are
max_k ε*_k (threshold_lemmas.py, Lemma 2); the star and cycle cases are decided here by a
60-digit mpmath solve.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction as F

import flint
import mpmath
import pytest

import exactdp.kernel.threshold_exact as kte
from exactdp.arithmetic.interval import Enclosure
from exactdp.kernel.threshold import (
    ThresholdClaim,
    check_threshold,
    lowest_sign,
    no_root_upto,
    odd_part,
    roots_01,
    roots_01_within,
    scaled_poly,
    sign_at,
)
from exactdp.spaces.metrics import cycle, from_graph, from_matrix, line

mpmath.mp.dps = 60
B = (F(1, 2), F(1), F(1, 2))
LINE3 = {"numerators": ((-2, 1), (2, -2, 2), (-2, 1)), "denominator": (-2, 0, 2), "witness": 0,
         "s_star": None}
ONES2 = {"numerators": ((1,), (1,)), "denominator": (1, 1), "witness": None, "s_star": None}


def _poly(*roots, lead=1):
    """lead · ∏ (den·s − num) over rational roots (with repetition)."""
    p = flint.fmpz_poly([lead])
    for r in roots:
        p *= flint.fmpz_poly([-r.numerator, r.denominator])
    return p


def _line3(lo, hi, **ev):
    return ThresholdClaim("exact", line(3), B, Enclosure(F(lo), F(hi)), {**LINE3, **ev})


def _line2(lo, hi, **ev):
    return ThresholdClaim("exact", line(2), (F(1), F(1)), Enclosure(F(lo), F(hi)),
                          {**ONES2, **ev})


# ----------------------------------------------------------------- root-counting helpers
def test_odd_part_keeps_exactly_the_odd_multiplicity_factors():
    p = _poly(F(1, 2), F(1, 2), F(1, 3), F(2, 3), F(2, 3), F(2, 3))
    assert odd_part(p) == _poly(F(1, 3), F(2, 3))
    assert odd_part(_poly(F(1, 2), F(1, 2))) == 1
    assert odd_part(flint.fmpz_poly([5])) == 1


def test_lowest_and_exact_signs():
    assert lowest_sign(flint.fmpz_poly([0, 0, -3, 7])) == -1  # −3s² + 7s³
    assert lowest_sign(flint.fmpz_poly([0, 2, -9])) == 1
    assert lowest_sign(flint.fmpz_poly([])) == 0
    p = _poly(F(1, 2))  # 2s − 1
    assert (sign_at(p, F(1, 4)), sign_at(p, F(1, 2)), sign_at(p, F(3, 4))) == (-1, 0, 1)


def test_scaled_poly_is_den_to_the_degree_times_p_of_b_y():
    p = flint.fmpz_poly([3, -5, 0, 2])  # 2s³ − 5s + 3
    b = F(2, 3)
    y = F(7, 11)
    want = b.denominator ** 3 * (2 * (b * y) ** 3 - 5 * (b * y) + 3)
    got = scaled_poly(p, b)
    assert got.degree() == 3
    val = sum(F(int(c)) * y**k for k, c in enumerate(got.coeffs()))
    assert val == want
    assert scaled_poly(p, F(1)) == p


@pytest.mark.parametrize("roots, inside", [
    ((F(1, 3), F(1, 2), F(2, 3)), 3),  # the midpoint 1/2 of the bisection is a root
    ((F(1, 2), F(1, 2), F(1, 5)), 2),  # double root counted once
    ((F(1, 7), F(1, 6), F(1, 5), F(3, 2), F(-1, 2)), 3),  # clustered, and roots outside
    ((F(0), F(1), F(2)), 0),  # the ends of (0, 1) are not inside
    ((F(1, 2),), 1),
])
def test_roots_01_counts_distinct_roots_in_the_open_interval(roots, inside):
    p = _poly(*roots) * flint.fmpz_poly([1, 0, 1])  # times s² + 1 (no real root)
    assert roots_01(p) == inside
    assert roots_01_within(p, None) == inside
    assert roots_01_within(p, 10_000) == inside
    assert roots_01(flint.fmpz_poly([4])) == 0


def test_roots_01_within_gives_up_past_its_budget():
    p = _poly(*(F(k, 101) for k in range(40, 49)))  # nine roots within 0.09 of each other
    assert roots_01(p) == 9
    assert roots_01_within(p, 2) is None
    assert roots_01_within(p, -1) is None


def test_no_root_upto():
    p = _poly(F(1, 2), F(3, 4))
    assert no_root_upto(p, F(1, 3))
    assert not no_root_upto(p, F(1, 2))  # the root is the end b: (0, b] is closed
    assert not no_root_upto(p, F(2, 3))
    assert no_root_upto(flint.fmpz_poly([3]), F(1))
    assert not no_root_upto(flint.fmpz_poly([]), F(1))  # zero: a root everywhere
    assert no_root_upto(_poly(F(0), F(2)), F(1))  # 0 itself is outside (0, b]


# ------------------------------------------------------------------------- exact kind
@pytest.mark.parametrize("budget", [kte.DESCARTES_BUDGET, -1])  # -1: Sturm counts only
def test_exact_claims_with_and_without_descartes(budget, monkeypatch):
    # the exact check reads the budget in its own module (threshold only re-exports it)
    monkeypatch.setattr(kte, "DESCARTES_BUDGET", budget)
    assert check_threshold(_line3(F(69, 100), F(7, 10)))
    assert check_threshold(_line2(0, 1))
    assert check_threshold(_line2(0, 0))  # ε* = 0: holds on (0, 1) (open at s = 1)
    assert not check_threshold(_line3(F(7, 10), F(8, 10)))  # lo > ln 2: no failure there
    assert not check_threshold(_line3(F(6, 10), F(68, 100)))  # hi < ln 2
    # hi = ln 2 exactly is not rational; hi = 1/2 puts s_hi = e^{-1/2} > 1/2 past the root
    assert not check_threshold(_line3(F(1, 4), F(1, 2)))
    assert check_threshold(_line3(0, F(7, 10), witness=None))  # [0, 7/10] ∋ ln 2: true
    assert not check_threshold(_line3(0, F(68, 100), witness=None))  # x₁ < 0 at ε = 0.68
    assert not check_threshold(_line3(0, F(7, 10), witness=1))  # lo = 0 with a witness


def test_a_numerator_negative_near_zero_is_refused():
    """line(3), b = (1, 0, 0): x = (1, −s, 0)/(1 − s²), x₁ < 0 for every ε > 0 — its only
    root is s = 0, so only the sign of N₁/D as s → 0+ shows that it never holds."""
    ev = {"numerators": ((1,), (-1, 0), (0,)), "denominator": (-1, 0, 1), "witness": None,
          "s_star": None}
    rhs = (F(1), F(0), F(0))
    for hi in (F(1), F(10), F(0)):
        assert not check_threshold(ThresholdClaim("exact", line(3), rhs, Enclosure(F(0), hi), ev))
    # the same numerators negated with the denominator: the same x, still refused
    neg = {**ev, "numerators": ((-1,), (1, 0), (0,)), "denominator": (1, 0, -1)}
    assert not check_threshold(ThresholdClaim("exact", line(3), rhs, Enclosure(F(0), F(1)), neg))


def test_s_star_with_a_wide_isolating_interval():
    """s* = 1/2 isolated by [1/4, 1]: the denominator's root s = 1 lies in (0, 1], so the
    kernel must bisect the interval (keeping the root of g = 2s − 1) until (0, b] holds no
    other root; [1/4, 1/2) isolates nothing, [1/8, 1/4] holds no root of g."""
    for iv in (Enclosure(F(1, 4), F(1)), Enclosure(F(1, 4), F(3, 4)), Enclosure(F(0), F(1)),
               Enclosure(F(3, 8), F(9, 10))):
        assert check_threshold(_line3(F(69, 100), F(7, 10), s_star=(1, (2, -1), iv))), iv
    for iv in (Enclosure(F(1, 8), F(1, 4)), Enclosure(F(5, 8), F(1))):
        assert not check_threshold(_line3(F(69, 100), F(7, 10), s_star=(1, (2, -1), iv))), iv
    # a malformed s* entry
    for star in ((1, (2, -1)), [1, (2, -1), Enclosure(F(1, 2), F(1, 2))],
                 (True, (2, -1), Enclosure(F(1, 2), F(1, 2))),
                 (1, (2, -1), (F(1, 2), F(1, 2))), (1, (2, -1), Enclosure(F(-1), F(1, 2))),
                 (1, (2,), Enclosure(F(1, 2), F(1, 2)))):
        assert not check_threshold(_line3(F(69, 100), F(7, 10), s_star=star)), star
    # s* stated but no witness: "fails just after s*" has nothing behind it
    assert not check_threshold(_line3(0, F(7, 10), witness=None,
                                      s_star=(1, (2, -1), Enclosure(F(1, 2), F(1, 2)))))


def test_exact_evidence_shape():
    good = _line3(F(69, 100), F(7, 10))
    assert check_threshold(good)
    for change in ({"numerators": LINE3["numerators"][:2]},
                   {"numerators": [*LINE3["numerators"]]},
                   {"numerators": (*LINE3["numerators"][:2], (1.5,))},
                   {"denominator": (0,)}, {"denominator": "2"},
                   {"witness": 1},  # x₂ > 0 always: no failure there
                   {"witness": 2.0}):
        assert not check_threshold(dataclasses.replace(good, evidence={**LINE3, **change})), change
    assert check_threshold(dataclasses.replace(good, evidence={**LINE3, "witness": 2}))  # x₃ = x₁
    # a witness with lo = 0 states "fails at ε = 0", false (Φ(0)x = b has x = b/3 ≥ 0)
    assert not check_threshold(_line3(0, F(7, 10)))


# ----------------------------------------------------------------- claim-level checks
def test_claim_fields_are_checked_before_the_kind():
    good = _line3(F(69, 100), F(7, 10))
    edits = [dataclasses.replace(good, kind="linear"),
             dataclasses.replace(good, metric="line(3)"),
             dataclasses.replace(good, eps=(F(69, 100), F(7, 10))),
             dataclasses.replace(good, eps=Enclosure(F(-1, 100), F(7, 10))),
             dataclasses.replace(good, rhs=list(B)),
             dataclasses.replace(good, rhs=B[:2]),
             dataclasses.replace(good, rhs=(0.5, F(1), F(1, 2))),
             dataclasses.replace(good, evidence=list(LINE3.items())),
             dataclasses.replace(good, evidence={})]  # a missing key is "not proved"
    for bad in edits:
        assert check_threshold(bad) is False, bad


# ------------------------------------------------------------------------------ prop9
def _zmin(metric, b, eps):
    n = metric.n
    phi = mpmath.matrix([[mpmath.exp(-eps * mpmath.mpf(metric.distance(i, j).coef.numerator)
                                     / metric.distance(i, j).coef.denominator
                                     * mpmath.sqrt(metric.distance(i, j).radicand))
                          for j in range(n)] for i in range(n)])
    z = mpmath.lu_solve(phi, mpmath.matrix([mpmath.mpf(v.numerator) / v.denominator for v in b]))
    return min(z[i] for i in range(n))


def test_prop9_only_for_ball_symmetric_metrics_and_constant_b():
    c5 = cycle(5)
    ones5 = (F(1, 5),) * 5
    assert check_threshold(ThresholdClaim("prop9", c5, ones5, Enclosure(F(0), F(0)), {}))
    assert check_threshold(ThresholdClaim("prop9", line(1), (F(1),), Enclosure(F(0), F(0)), {}))
    star = from_graph([(0, 1), (0, 2), (0, 3)])  # not ball-symmetric; ε* = ln 2 > 0
    ones4 = (F(1),) * 4
    assert _zmin(star, ones4, mpmath.mpf("0.5")) < 0
    assert not check_threshold(ThresholdClaim("prop9", star, ones4, Enclosure(F(0), F(0)), {}))
    # cycle(4) with b = (1, 0, 0, 0): x has a negative entry at ε = 1/2, so [0, 0] is false
    b = (F(1), F(0), F(0), F(0))
    assert _zmin(cycle(4), b, mpmath.mpf("0.5")) < 0
    assert not check_threshold(ThresholdClaim("prop9", cycle(4), b, Enclosure(F(0), F(0)), {}))
    # a constant b ≤ 0 is outside the proposition; a claim [0, hi] with hi > 0 is not its form
    for rhs, eps in (((F(0),) * 5, Enclosure(F(0), F(0))), ((F(-1),) * 5, Enclosure(F(0), F(0))),
                     (ones5, Enclosure(F(0), F(1)))):
        assert not check_threshold(ThresholdClaim("prop9", c5, rhs, eps, {})), (rhs, eps)
    # same distance multiset per row but two values swapped between rows: not ball-symmetric
    odd = from_matrix([[0, 1, 2, 2], [1, 0, 2, 2], [2, 2, 0, 1], [2, 2, 1, 0]])
    assert check_threshold(ThresholdClaim("prop9", odd, ones4, Enclosure(F(0), F(0)), {}))
    skew = from_matrix([[0, 1, 1, 2], [1, 0, 2, 1], [1, 2, 0, 2], [2, 1, 2, 0]])
    assert not check_threshold(ThresholdClaim("prop9", skew, ones4, Enclosure(F(0), F(0)), {}))


# -------------------------------------------------------------------------- kronecker
def _product(m1, m2):
    """line-sum product metric in row-major order, built from explicit distances."""
    pts = [(a, b) for a in range(m1.n) for b in range(m2.n)]
    return from_matrix([[m1.distance(a, c).coef + m2.distance(b, d).coef for c, d in pts]
                        for a, b in pts])


def test_kronecker_claims_in_memory():
    """line(3) ⊗ line(2), b = (1/2, 1, 1/2) ⊗ (1, 1): ε* = max(ln 2, 0) = ln 2."""
    f1 = _line3(F(69, 100), F(7, 10))
    f2 = _line2(0, 0)
    prod = _product(line(3), line(2))
    rhs = tuple(x * y for x in B for y in (F(1), F(1)))

    def claim(lo, hi, factors=(f1, f2), binding=0, rhs=rhs, metric=prod):
        return ThresholdClaim("kronecker-threshold", metric, rhs, Enclosure(F(lo), F(hi)),
                              {"factors": factors, "binding": binding})

    assert check_threshold(claim(F(69, 100), F(7, 10)))  # hi = max of the factors' hi
    assert check_threshold(claim(F(69, 100), F(1)))  # wider above: still true
    assert check_threshold(claim(0, F(7, 10), binding=1))  # lo from the ε* = 0 factor: true
    false_or_unproved = [
        claim(F(1, 2), F(68, 100)),  # hi < ln 2: false
        claim(F(7, 10), F(1), factors=(dataclasses.replace(f1, eps=Enclosure(F(7, 10), F(8, 10))),
                                        f2)),  # a false factor claim
        claim(F(1, 2), F(7, 10)),  # lo is not the binding factor's lo
        claim(F(69, 100), F(7, 10), binding=1),
        claim(F(69, 100), F(7, 10), binding=2),
        claim(F(69, 100), F(7, 10), binding=True),
        claim(F(69, 100), F(7, 10), factors=(f2, f1)),  # wrong order: another product
        claim(F(69, 100), F(7, 10), factors=()),
        claim(F(69, 100), F(7, 10), factors=[f1, f2]),
        claim(F(69, 100), F(7, 10), factors=(f1, "line(2)")),
        claim(F(69, 100), F(7, 10), rhs=tuple(x * y for x in (F(1),) * 3 for y in (F(1),) * 2)),
        claim(F(69, 100), F(7, 10), metric=from_matrix(
            [[0, 1, 1, 2, 2, 2], [1, 0, 2, 1, 3, 2], [1, 2, 0, 1, 1, 2], [2, 1, 1, 0, 2, 1],
             [2, 3, 1, 2, 0, 1], [2, 2, 2, 1, 1, 0]])),  # not the ℓ1-sum: d(0, 5) = 2 ≠ 3
    ]
    for k, c in enumerate(false_or_unproved):
        assert check_threshold(c) is False, k
    # a factor b with a negative entry or all zeros is refused even if the product matches
    zero2 = dataclasses.replace(f2, rhs=(F(0), F(0)))
    assert not check_threshold(claim(0, F(7, 10), factors=(f1, zero2), binding=1,
                                     rhs=(F(0),) * 6))
    neg = dataclasses.replace(f1, rhs=(F(-1, 2), F(-1), F(-1, 2)))
    negs = dataclasses.replace(f2, rhs=(F(-1), F(-1)))
    assert not check_threshold(claim(F(69, 100), F(7, 10), factors=(neg, negs)))


def test_zero_factor_rhs_is_refused():
    """A factor with b_k = 0 has x = 0 ≥ 0 for every ε (its claim [0, 0] is true and
    verifies), but then b = ⊗ b_k = 0 and ε* = 0 for the product: the claim [69/100, 7/10]
    read off the other factor is false. Lemma 2 needs every b_k ≥ 0 nonzero."""
    zero = ThresholdClaim("exact", line(2), (F(0), F(0)), Enclosure(F(0), F(0)),
                          {"numerators": ((0,), (0,)), "denominator": (1,), "witness": None,
                           "s_star": None})
    assert check_threshold(zero)
    claim = ThresholdClaim("kronecker-threshold", _product(line(3), line(2)), (F(0),) * 6,
                           Enclosure(F(69, 100), F(7, 10)),
                           {"factors": (_line3(F(69, 100), F(7, 10)), zero), "binding": 0})
    assert not check_threshold(claim)


def test_hi_zero_is_an_open_end_at_s_one():
    """line(3), b = 1, unreduced: x = (1 − s, (1 − s)², 1 − s)/(1 − s²) = (1, 1 − s, 1)/(1 + s)
    ≥ 0 for every ε > 0, so ε* = 0. N₀ and D vanish at s = 1 (ε = 0), which the claim [0, 0]
    does not cover: the holding run is (0, 1), open at 1."""
    ev = {"numerators": ((-1, 1), (1, -2, 1), (-1, 1)), "denominator": (-1, 0, 1),
          "witness": None, "s_star": None}
    ones = (F(1),) * 3
    assert check_threshold(ThresholdClaim("exact", line(3), ones, Enclosure(F(0), F(0)), ev))
    assert check_threshold(ThresholdClaim("exact", line(3), ones, Enclosure(F(0), F(1, 10)), ev))
