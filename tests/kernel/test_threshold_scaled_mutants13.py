"""Mutation survivors of ``exactdp/kernel/threshold_scaled.py`` (session 13, task 11M):
:func:`check_scaled` refuses (CertificateInvalid, never another exception, never True) an
in-memory claim with any one field of the wrong type — the question's metric, its rhs (a
list is not the document's tuple), the unit (a float is no exact rational), the inner claim
or the enclosure — and :func:`scaled_question_ok` is False for metrics of different sizes.

Ground truth: the genuine claim is the library's scaled document of the L-shaped Manhattan
grid at spacing 1000 (ε* = ln 2/1000, ``tests/threshold/test_scaled11_kernel.py``); every
edit below keeps the numbers and only breaks a type the kernel must insist on.
"""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction as F

import numpy as np
import pytest

from exactdp.errors import CertificateInvalid
from exactdp.kernel.threshold_scaled import check_scaled, read_scaled, same_scaled_metric, scaled_question_ok, size
from exactdp.spaces.metrics import FiniteMetric, from_matrix, grid, line
from exactdp.spaces.metrics.masked import GridShape, masked_grid
from exactdp.threshold import epsilon_threshold

L_MASK = ["1111", "1111", "1100", "1100"]


@pytest.fixture(scope="module")
def claim():
    r = epsilon_threshold(masked_grid(4, 4, "manhattan", 1000, mask=L_MASK))
    c = read_scaled(r.to_json())
    assert c.eps.lo < F(math.log(2)) / 1000 < c.eps.hi and c.unit == 1000
    assert check_scaled(c) is True
    return c


@pytest.mark.parametrize("field", ["metric", "rhs", "unit", "inner", "eps"])
def test_a_field_of_the_wrong_type_is_refused(claim, field):
    wrong = {"metric": "manhattan grid", "rhs": list(claim.rhs), "unit": float(claim.unit),
             "inner": object(), "eps": (claim.eps.lo, claim.eps.hi)}[field]
    with pytest.raises(CertificateInvalid):
        check_scaled(dataclasses.replace(claim, **{field: wrong}))


def test_a_zero_unit_is_refused_as_such(claim):
    with pytest.raises(CertificateInvalid, match="is not a rational > 0"):
        check_scaled(dataclasses.replace(claim, unit=F(0)))


def test_metrics_of_different_sizes_are_not_scaled_copies():
    assert not scaled_question_ok(line(3), line(4), F(1))
    assert not scaled_question_ok(line(4), line(3), F(2))
    assert scaled_question_ok(from_matrix([[0, 2, 4], [2, 0, 2], [4, 2, 0]]), line(3), F(2))
    shape = GridShape(2, 2, "manhattan", F(2))
    assert not scaled_question_ok(shape, line(3), F(2))
    assert scaled_question_ok(shape, grid(2, 2, "manhattan", 1), F(2))



def test_size_shows_numbers_of_up_to_64_bits_and_the_magnitude_beyond():
    assert size(F(2**64 - 1)) == "18446744073709551615"  # 64 bits: shown
    assert size(F(-1, 2**64 - 1)) == "-1/18446744073709551615"
    assert size(F(2**64)) == "2^64 (about)"  # 65 bits: 2^(65 − 1)
    assert size(F(-3, 2**64)) == "-2^-63 (about)"  # 2 − 65 bits
    assert size(2.5) == "2.5" and size(None) == "None"


def _one_pair_changed(m: FiniteMetric, i: int, j: int) -> FiniteMetric:
    """m with d(i, j) = d(j, i) moved to the previous distance of its table, or the next one
    when the previous is 0 (a distance table that differs from m in that pair only; the
    comparison is pair by pair, not a triangle check; since session 22 the constructor
    refuses d(i, j) = 0 for i ≠ j)."""
    idx = np.array(m.index).copy()
    code = int(idx[i, j])
    idx[i, j] = idx[j, i] = code + 1 if m.values[code - 1].coef == 0 else code - 1
    return FiniteMetric("one pair changed", list(m.points), list(m.values), idx)


def test_every_pair_of_a_large_metric_is_compared():
    # 600 points on a line at spacing 2 and 1: the check runs in blocks of 256 rows; a pair
    # changed where two blocks meet (rows 256 and 513, both ends) or in the first row is found
    d, unit = grid(600, 1, "manhattan", 2), grid(600, 1, "manhattan", 1)
    assert same_scaled_metric(d, unit, F(2))
    assert not same_scaled_metric(d, unit, F(1))
    for i, j in ((256, 513), (0, 599), (255, 256)):
        assert not same_scaled_metric(_one_pair_changed(d, i, j), unit, F(2)), (i, j)
