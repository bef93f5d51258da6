"""Kernel quotient-threshold checks on the cases the mutation run (session 8, 11F) found
missing: partitions with badly numbered cells, quotient identities with surplus numerators or
right-hand sides, one-point metrics, and a claim whose numerators break the identity.

Ground truth by hand, independent of the kernel: on line(3) the two ends form an equitable
cell (cells (0, 1, 0)); the quotient is Φ̃(s) = [[1 + s², s], [2s, 1]], whose solution of
Φ̃N = D·1 is N = (1 − s, (1 − s)²), D = 1 − s² (check: (1 + s²)(1 − s) + s(1 − s)² = 1 − s²
and 2s(1 − s) + (1 − s)² = 1 − s²). So z = (1/(1 + s), (1 − s)/(1 + s), 1/(1 + s)) ≥ 0 on
(0, 1): tight constraints hold for every ε, ε* = 0. With the prior b = (1/4, 1/2, 1/4) the
quotient solution is N = (1 − 2s, 2s² − 2s + 2), D = 4(1 − s²) (same check, b̃ = (1/4, 1/2)):
z_0 < 0 for s > 1/2, so the prior is regular only for ε ≥ ln 2 — "holds for every ε" is false.
"""

from __future__ import annotations

from fractions import Fraction as F

import flint

from exactdp.arithmetic.interval import Enclosure
from exactdp.kernel.threshold import ThresholdClaim
from exactdp.kernel.threshold_quotient import (
    QUOTIENT_KIND,
    check_quotient,
    quotient_identity_holds,
    quotient_terms,
)
from exactdp.spaces.metrics import line

N = [flint.fmpz_poly([1, -1]), flint.fmpz_poly([1, -2, 1])]  # ascending: 1 − s, (1 − s)²
D = flint.fmpz_poly([1, 0, -1])                                # 1 − s²
ONE2 = [F(1), F(1)]


def _claim(numerators=((-1, 1), (1, -2, 1)), denominator=(-1, 0, 1), rhs=(F(1),) * 3):
    ev = {"cells": (0, 1, 0), "numerators": numerators, "denominator": denominator,
          "witness": None, "s_star": None}
    return ThresholdClaim(QUOTIENT_KIND, line(3), rhs, Enclosure(F(0), F(0)), ev)


def test_labels_must_be_numbered_by_first_appearance():
    # kills `_labels`: "lab.min() != 0 or lab.max() != len(first) - 1 or np.any(...)"
    # Or -> And (the mutant accepts a skipped label, or labels out of first-use order)
    assert quotient_terms(line(3), (0, 2, 0)) is None
    assert quotient_terms(line(3), (1, 0, 1)) is None
    assert quotient_terms(line(3), (1, 2, 1)) is None
    assert quotient_terms(line(3), (0, 1, 0)) is not None


def test_labels_of_the_wrong_length_are_no_partition():
    assert quotient_terms(line(3), (0, 1)) is None
    assert quotient_terms(line(3), (0, 1, 0, 1)) is None


def test_one_point_metric_has_a_quotient():
    # kills `n == 0` -> `n == 1` in `_labels` (one point is its own equitable cell)
    t = quotient_terms(line(1), (0,))
    assert t is not None and t.size == 1


def test_identity_needs_one_numerator_and_one_rhs_per_cell():
    t = quotient_terms(line(3), (0, 1, 0))
    assert quotient_identity_holds(t, N, D, ONE2)
    # kills `len(nums) != m or len(rhs_cells) != m`: Or -> And, `return False` -> True
    # (a surplus numerator or rhs entry was ignored by the mutants)
    assert not quotient_identity_holds(t, [*N, N[1]], D, ONE2)
    assert not quotient_identity_holds(t, N, D, [*ONE2, F(1)])
    assert not quotient_identity_holds(t, N[:1], D, ONE2)


def test_identity_is_exact():
    t = quotient_terms(line(3), (0, 1, 0))
    assert not quotient_identity_holds(t, [N[0], N[1] + flint.fmpz_poly([0, 0, 0, 1])], D, ONE2)
    assert not quotient_identity_holds(t, N, D, [F(1), F(1, 2)])


def test_claim_with_a_broken_identity_is_rejected():
    assert check_quotient(_claim())
    # kills `if not quotient_identity_holds(...): return False` -> `return True`
    assert not check_quotient(_claim(numerators=((-1, 1), (2, -2, 1))))
    assert not check_quotient(_claim(denominator=(-1, 0, 2)))


def test_holds_everywhere_needs_every_entry_nonnegative():
    prior = (F(1, 4), F(1, 2), F(1, 4))
    false = _claim(numerators=((-2, 1), (2, -2, 2)), denominator=(-4, 0, 4), rhs=prior)
    t = quotient_terms(line(3), (0, 1, 0))
    assert quotient_identity_holds(t, [flint.fmpz_poly([1, -2]), flint.fmpz_poly([2, -2, 2])],
                                   flint.fmpz_poly([4, 0, -4]), [F(1, 4), F(1, 2)])
    # kills the witness-less branch's `return (s_star is None and ... roots_01 ...)` ->
    # `return True`: the identity holds, but z_0 = (1 − 2s)/D changes sign at s = 1/2
    assert not check_quotient(false)
