"""The kernel's float filter in the irrational triangle check (exactdp.kernel.axioms) must use
the LOWER float bounds of d(i, j) and d(j, k): session 9's survivor (``b[0] → b[1]`` at the
line that builds ``lo``, i.e. lo := hi, at most 2 ulp apart) is killed by a triangle that
fails by less than one ulp of the sum.

Construction, decided by hand in exact Fractions (u = 2⁻⁵¹, the float spacing on [2, 4)):
x = 5/2 − 0.9u, y = 5/4 − 0.9u/2, z = 15/4 − 1.25u, so z − (x + y) = 0.1u > 0: the triangle
d(0, 2) ≤ d(0, 1) + d(1, 2) fails. With upper bounds in place of lower ones the filter
would pass it: float_up(x) = 5/2, float_up(y) = 5/4, their float sum is 15/4 exactly and
pred(15/4) = 15/4 − u = float_up(z). A fourth point at distance 2√2 from the others (every
triangle through it holds: 2·2√2 > 15/4) sends the metric down the irrational route.
"""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pytest

from exactdp.errors import InvalidMetric
from exactdp.kernel.axioms import check_axioms
from exactdp.spaces.distances import Distance

U = F(1, 2**51)
X, Y, Z = F(5, 2) - F(9, 10) * U, F(5, 4) - F(9, 20) * U, F(15, 4) - F(5, 4) * U
IDX = np.array([[0, 1, 3, 4], [1, 0, 2, 4], [3, 2, 0, 4], [4, 4, 4, 0]])


def _values(z: F):
    return [Distance.rational(0), Distance.rational(X), Distance.rational(Y),
            Distance.rational(z), Distance(F(2), 2)]


def test_construction_is_as_stated():
    assert Z > X + Y and Z - (X + Y) == U / 10
    # the floats just below 5/2, 5/4, 15/4 − u: x, y, z lie strictly inside one float gap
    below = [F(float(np.nextafter(v, 0))) for v in (2.5, 1.25, float(F(15, 4) - U))]
    assert below[0] == F(5, 2) - U < X < F(5, 2)
    assert below[1] == F(5, 4) - U / 2 < Y < F(5, 4)
    assert below[2] == F(15, 4) - 2 * U < Z < F(15, 4) - U
    assert 32 > Z * Z  # (2√2 + 2√2)² = 32 > z²: every triangle through the fourth point holds


def test_a_triangle_failing_by_a_tenth_of_an_ulp_is_rejected():
    with pytest.raises(InvalidMetric, match="triangle inequality fails"):
        check_axioms(_values(Z), IDX)


def test_the_same_metric_with_equality_is_accepted():
    check_axioms(_values(X + Y), IDX)  # z = x + y exactly: the triangle holds
