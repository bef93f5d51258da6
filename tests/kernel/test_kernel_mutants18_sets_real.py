"""Session 18: the first complete mutation run of ``kernel/sets_real.py`` (202 mutants, 169 killed
before these tests) left survivors that were test gaps, not missing checks. Each test below
states the mutant it kills. Ground truth is exact: rational coordinates, √2 from x² − 2, and
distances whose true value is a rational or √2.

* MAX_COEFF_BITS 256 → 257: the edge was only tested at 258 bits.
* ``_points`` ``or`` → ``and``: points of mixed dimension (or of dimension 0) were read.
* ``coordinate_ball`` ``g(lo) > 0`` → ``g(lo) > 1``: an isolating interval whose low end has
  0 < g(lo) ≤ 1 bisects the wrong way, so the ball misses the root.
* ``_dist`` (l2) ``s > 0`` → ``s > 1`` and ``arb(0)`` → ``arb(1)``: a distance below 1, and a
  sum of squares whose ball straddles 0 (the same algebraic coordinate in X and Y).
* ``_diameter`` ``A_hi − B_lo`` → ``A_hi + B_lo``: a box away from the origin.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from exactdp.errors import InstanceTooLarge, InvalidArgument
from exactdp.kernel.jsonio import write_rational
from exactdp.kernel.sets_real import MAX_COEFF_BITS, check_real_set_document
from exactdp.kernel.verify import verify_document
from exactdp.sets import Box
from exactdp.sets._real import check_set_privacy_certified


def _hausdorff(X: list[list[Any]], Y: list[list[Any]], lo: str, hi: str, norm: str = "l1") -> dict[str, Any]:
    return {"schema": "exactdp-certificate", "version": 1, "kind": "set-hausdorff-real",
            "question": {"X": X, "Y": Y, "norm": norm},
            "claim": {"enclosure": {"lo": lo, "hi": hi}}, "evidence": {"precision": 128}}


def _alg(poly: list[int], lo: Fraction, hi: Fraction) -> dict[str, Any]:
    return {"minimal_polynomial": [str(c) for c in poly],
            "isolating_interval": {"lo": write_rational(lo), "hi": write_rational(hi)}}


SQRT2 = _alg([1, 0, -2], Fraction(1), Fraction(2))


def test_coefficient_bits_exact_edge():
    assert MAX_COEFF_BITS == 256
    # x² − (2^256 + 1): 2^256 + 1 lies strictly between (2^128)² and (2^128 + 1)², so it is no
    # square and the polynomial is irreducible; the coefficient has 257 bits
    assert (2**256 + 1).bit_length() == 257
    with pytest.raises(InstanceTooLarge, match="MAX_COEFF_BITS"):
        check_real_set_document(_hausdorff([[_alg([1, 0, -(2**256 + 1)], Fraction(2**128), Fraction(2**128 + 1))]],
                                           [["0"]], "0", "0"))


@pytest.mark.parametrize("X", [[["1", "2"], ["1"]], [["1"], ["1", "2"]], [[]]])
def test_points_of_mixed_or_zero_dimension_are_malformed(X):
    with pytest.raises(InvalidArgument, match="points of one dimension"):
        check_real_set_document(_hausdorff(X, [["0"]], "0", "10"))


def test_isolating_interval_with_a_small_positive_low_end():
    # −√2 as the root of x² − 2 in (−3/2, −1]: g(−3/2) = 1/4, in (0, 1]; d_H({−√2}, {0}) = √2
    neg = _alg([1, 0, -2], Fraction(-3, 2), Fraction(-1))
    assert Fraction(-3, 2) ** 2 - 2 == Fraction(1, 4)
    doc = _hausdorff([[neg]], [["0"]], "707/500", "283/200")
    assert Fraction(707, 500) ** 2 < 2 < Fraction(283, 200) ** 2
    assert verify_document(doc).verified is True
    assert verify_document(_hausdorff([[neg]], [["0"]], "1", "707/500")).verified is False


def test_l2_distance_below_one_is_exact():
    # d_H({(1/2, 0)}, {(0, 0)}) = 1/2 exactly: the ball of √(1/4) is the point 1/2
    doc = _hausdorff([["1/2", "0"]], [["0", "0"]], "1/2", "1/2", norm="l2")
    assert verify_document(doc).verified is True


def test_l2_distance_of_a_coordinate_to_itself_stays_near_zero():
    # X = Y = {√2} in l2: the difference ball straddles 0, so the sum of squares does too and
    # _dist takes its fallback [0, √(|mid| + rad)] ∪ {0}; the true d_H is 0. (The claim's low
    # end is below 0: the union's ball is rounded outward, so the kernel cannot prove "≥ 0".)
    doc = _hausdorff([[SQRT2]], [[SQRT2]], "-1/1000", "1/1000", norm="l2")
    assert verify_document(doc).verified is True


def test_diameter_of_a_box_away_from_the_origin():
    # K = [1, 2]: diam K = 1 (not 2 + 1); the writer's genuine document must verify
    doc = check_set_privacy_certified([0, "sqrt(2)/8"], [0], Box(1, 2), eps=1).to_document()
    lo, hi = (Fraction(doc["claim"]["diam_K"][k]) for k in ("lo", "hi"))
    assert lo <= 1 <= hi < 2
    assert verify_document(doc).verified is True
