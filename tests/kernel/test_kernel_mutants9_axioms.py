"""The kernel's exact metric-axiom check (exactdp.kernel.axioms) on the cases its mutation run
found unguarded: integer overflow at the int32 / int64 limits of the rational triangle check,
rational distances with a common denominator, irrational distances whose triangle holds with
equality (decided exactly, past the float filter) or fails by a little, malformed index shapes
and the position named in each error.

Ground truth is by hand: each metric below is three or four points whose distances are
written out, and whether d(i, k) ≤ d(i, j) + d(j, k) holds is decided here by exact integer
or Fraction arithmetic (irrational distances c·√r compared through their squares).
"""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pytest

from exactdp.errors import InvalidMetric
from exactdp.kernel.axioms import check_axioms, metric_from_distances
from exactdp.spaces.distances import Distance

TRI = np.array([[0, 1, 2], [1, 0, 3], [2, 3, 0]])  # d01 = v1, d02 = v2, d12 = v3


def _tri(d01, d02, d12):
    vals = [Distance.rational(0), *(v if isinstance(v, Distance) else Distance.rational(v)
                                    for v in (d01, d02, d12))]
    return vals, TRI


def _sqrt(c, r) -> Distance:
    return Distance(F(c), r)


@pytest.mark.parametrize("big", [2**30, 2**31 - 2**29, 2**62, 2**63 - 2**61])
def test_integer_sums_at_the_dtype_limits_do_not_overflow(big):
    """d01 = d12 = big, d02 = big: a valid (equilateral) metric whose sums d01 + d12 = 2·big
    reach or pass 2³¹ / 2⁶³ — a wrong dtype choice wraps them negative and rejects it."""
    assert 2 * big >= 2**31
    check_axioms(*_tri(big, big, big))
    vals, idx = _tri(big, 2 * big + 1, big)  # d02 = 2·big + 1 > d01 + d12: rejected
    with pytest.raises(InvalidMetric, match="triangle"):
        check_axioms(vals, idx)


def test_rational_distances_are_compared_over_a_common_denominator():
    check_axioms(*_tri(F(1, 2), F(1), F(1, 2)))  # equality: d02 = d01 + d12 holds
    check_axioms(*_tri(F(1, 3), F(2, 3), F(1, 3)))
    with pytest.raises(InvalidMetric, match=r"d\[0\]\[2\] = 3/2 > d\[0\]\[1\] \+ d\[1\]\[2\]"):
        check_axioms(*_tri(F(1, 2), F(3, 2), F(1, 2)))  # 3/2 > 1
    with pytest.raises(InvalidMetric, match="triangle"):
        check_axioms(*_tri(F(1, 3), F(7, 10), F(1, 3)))  # 7/10 > 2/3


def test_irrational_triangles_decided_exactly():
    s2 = _sqrt(1, 2)
    # equality with irrational sides: √2 + √2 = 2√2 (the float filter cannot accept it)
    check_axioms(*_tri(s2, _sqrt(2, 2), s2))
    check_axioms(*_tri(1, _sqrt(1, 5), 2))  # √5 ≤ 1 + 2
    # d02 irrational and too long: √5 > 1 + 1, (3/2)√2 > 1 + 1 (radicand 2)
    for long in (_sqrt(1, 5), _sqrt(F(3, 2), 2)):
        assert long.square > 4
        with pytest.raises(InvalidMetric, match=r"d\[0\]\[2\]"):
            check_axioms(*_tri(1, long, 1))
    # d01, d12 irrational, d02 rational and too long: 3 > 2√2 (3² = 9 > 8)
    with pytest.raises(InvalidMetric, match=r"d\[0\]\[2\] = 3 > d\[0\]\[1\] \+ d\[1\]\[2\]"):
        check_axioms(*_tri(s2, 3, s2))
    # and just short of it: 2√2 ≥ 2.828 (2.828² = 7.997584 < 8)
    check_axioms(*_tri(s2, F(2828, 1000), s2))


def test_four_points_irrational_every_triple():
    """A 4-point metric with several distinct irrational values: the unit square with its
    diagonals √2 (valid), then one diagonal stretched to √5 > 1 + 1 (invalid: d[0][2])."""
    vals = [Distance.rational(0), Distance.rational(1), _sqrt(1, 2)]
    idx = np.array([[0, 1, 2, 1], [1, 0, 1, 2], [2, 1, 0, 1], [1, 2, 1, 0]])
    m = metric_from_distances(vals, idx)
    assert m.n == 4 and m.distance(0, 2) == _sqrt(1, 2)
    bad = [*vals, _sqrt(1, 5)]
    idx2 = idx.copy()
    idx2[0, 2] = idx2[2, 0] = 3
    with pytest.raises(InvalidMetric, match=r"d\[0\]\[2\] = √5|d\[0\]\[2\] = sqrt"):
        check_axioms(bad, idx2)


def test_shapes_and_the_positions_named():
    zero, one = Distance.rational(0), Distance.rational(1)
    check_axioms([zero], np.array([[0]]))  # one point is a metric
    for idx in (np.zeros((0, 0), dtype=np.int64), np.array([0]), np.zeros((2, 3), dtype=np.int64)):
        with pytest.raises(InvalidMetric, match="shape"):
            check_axioms([zero, one], idx)
    vals = [zero, one, Distance.rational(2)]
    with pytest.raises(InvalidMetric, match=r"diagonal entry d\[1\]\[1\] = 1 is not 0"):
        check_axioms(vals, np.array([[0, 1, 1], [1, 1, 1], [1, 1, 0]]))
    with pytest.raises(InvalidMetric, match=r"d\[0\]\[2\] = 0 for distinct points 0 and 2"):
        check_axioms(vals, np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]]))
    with pytest.raises(InvalidMetric, match=r"not symmetric: d\[0\]\[2\] = 2 but d\[2\]\[0\] = 1"):
        check_axioms(vals, np.array([[0, 1, 2], [1, 0, 1], [1, 1, 0]]))


def test_metric_from_distances_labels():
    vals = [Distance.rational(0), Distance.rational(1)]
    idx = [[0, 1], [1, 0]]
    assert metric_from_distances(vals, idx).points == (0, 1)
    assert metric_from_distances(vals, idx, points=["a", "b"]).points == ("a", "b")
    with pytest.raises(InvalidMetric, match="3 point labels for 2 points"):
        metric_from_distances(vals, idx, points=["a", "b", "c"])
