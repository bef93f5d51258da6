"""The public FiniteMetric constructor refuses a distance table that is not a metric's
(session 22, found by review 22R2: an asymmetric index was accepted, and the library
answered questions about it). Checked: an n×n table of valid codes, d(i, i) = 0,
d(i, j) > 0 for i ≠ j, d(i, j) = d(j, i), exactly; a lazily built table when it is built."""

from __future__ import annotations

import numpy as np
import pytest

from exactdp.errors import InvalidMetric
from exactdp.spaces.distances import Distance
from exactdp.spaces.metrics import FiniteMetric, line

VALUES = [Distance.rational(k) for k in range(3)]
GOOD = np.array([[0, 1, 2], [1, 0, 1], [2, 1, 0]])


def _bent(edit):
    idx = GOOD.copy()
    edit(idx)
    return idx


@pytest.mark.parametrize("idx,match", [
    (_bent(lambda t: t.__setitem__((0, 1), 2)), r"d\(0, 1\) = 2 but d\(1, 0\) = 1: a metric is symmetric"),
    (_bent(lambda t: t.__setitem__((1, 1), 1)), r"d\(1, 1\) = 1: a metric has d\(i, i\) = 0"),
    (_bent(lambda t: (t.__setitem__((0, 1), 0), t.__setitem__((1, 0), 0))), r"d\(0, 1\) = 0 for two different points"),
    (_bent(lambda t: t.__setitem__((2, 2), 7)), r"codes outside 0\.\.2"),
    (GOOD[:2], r"not an n×n integer table"),
    (GOOD.astype(float), r"not an n×n integer table"),
])
def test_tables_that_are_not_a_metric_are_refused(idx, match):
    with pytest.raises(InvalidMetric, match=match):
        FiniteMetric("bent", [0, 1, 2], VALUES, idx)
    lazy = FiniteMetric("bent", [0, 1, 2], VALUES, lambda: idx)  # checked when built
    with pytest.raises(InvalidMetric, match=match):
        _ = lazy.index


def test_a_metric_table_is_accepted_and_equal_values_count_as_equal():
    assert FiniteMetric("line", [0, 1, 2], VALUES, GOOD).index.tolist() == line(3).index.tolist()
    # two codes for the same distance 1 (written 1 and 2/2) are one value: still symmetric
    values = VALUES + [Distance.rational(1)]
    idx = np.array([[0, 1, 2], [3, 0, 1], [2, 1, 0]])
    assert FiniteMetric("twice", [0, 1, 2], values, idx).n == 3
    assert FiniteMetric("empty", [], [], np.zeros((0, 0), dtype=np.int64)).n == 0
