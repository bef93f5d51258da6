"""Session 25, complete mutation run of exactdp/kernel/axioms.py (43 mutants; session 13 ran
the 57 of its earlier form). The exact triangle check sums two distances in a numpy integer
type chosen by the largest distance: int32 below 2^30, int64 below 2^61, Python ints above.

Ground truth: an equilateral triangle is a metric at every side length T; a side of
2T + 1 against two sides of T is not. With T = 2^30 the sum T + T = 2^31 does not fit int32
(whose largest value is 2^31 − 1), so choosing int32 at exactly 2^30 would wrap the sum to
−2^31 and call the triangle invalid.
"""

from __future__ import annotations

import numpy as np
import pytest

from exactdp.errors import InvalidMetric
from exactdp.kernel.axioms import metric_from_distances
from exactdp.spaces.distances import Distance

TRIANGLE = np.array([[0, 1, 1], [1, 0, 1], [1, 1, 0]])
BROKEN = np.array([[0, 1, 2], [1, 0, 1], [2, 1, 0]])


# kills "line 86: Lt -> LtE" (int32 chosen at a largest distance of exactly 2^30: the sum
# 2^30 + 2^30 wraps and a true metric is refused)
@pytest.mark.parametrize("side", [2**30 - 1, 2**30, 2**30 + 1, 2**61 - 1, 2**61, 2**80])
def test_equilateral_triangles_at_the_integer_type_edges(side):
    values = [Distance.rational(0), Distance.rational(side)]
    assert metric_from_distances(values, TRIANGLE).n == 3
    broken = [Distance.rational(0), Distance.rational(side), Distance.rational(2 * side + 1)]
    with pytest.raises(InvalidMetric, match="triangle inequality fails"):
        metric_from_distances(broken, BROKEN)
