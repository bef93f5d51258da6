"""Bad input gives specific errors (issue 6)."""

import math
from fractions import Fraction

import numpy as np
import pytest

from exactdp.errors import InvalidArgument, InvalidBox, InvalidPrivacyLevel, InvalidSet
from exactdp.sets import (
    Box,
    BoxUnion,
    capacity_functional,
    check_set_privacy,
    diameter,
    find_violation,
    hausdorff_distance,
    point_set,
    sample_mechanism_float,
    union_probability,
)


def test_empty_sets():
    with pytest.raises(InvalidSet, match="empty"):
        point_set([])
    with pytest.raises(InvalidSet, match="empty"):
        hausdorff_distance([], [0])
    with pytest.raises(InvalidSet, match="empty"):
        capacity_functional([], Box(0, 1), 1)
    with pytest.raises(InvalidSet):
        point_set([()])


def test_mixed_dimensions():
    with pytest.raises(InvalidSet, match="mixed dimensions"):
        point_set([(0, 0), (1,)])
    with pytest.raises(InvalidSet, match="same"):
        hausdorff_distance([(0, 0)], [(0, 0, 0)])
    with pytest.raises(InvalidBox, match="same Rⁿ"):
        capacity_functional([(0, 0)], Box(0, 1), 1)
    with pytest.raises(InvalidBox, match="mixed dimensions"):
        BoxUnion([Box(0, 1), Box((0, 0), (1, 1))])
    with pytest.raises(InvalidBox, match="same number"):
        Box((0, 0), (1,))


def test_nan_and_inf_coordinates():
    for bad in (math.nan, math.inf, -math.inf, np.float64("nan")):
        with pytest.raises(InvalidSet, match="finite"):
            point_set([(0, bad)])
        with pytest.raises(InvalidBox, match="finite"):
            Box((0, 0), (1, bad))


def test_non_rational_coordinates_rejected():
    import sympy

    with pytest.raises(InvalidSet, match="rational"):
        point_set([(sympy.sqrt(2), 0)])


def test_degenerate_and_inverted_boxes():
    with pytest.raises(InvalidBox, match="degenerate"):
        Box((0, 1), (1, 1))
    with pytest.raises(InvalidBox, match="inverted"):
        Box(2, 1)
    with pytest.raises(InvalidBox, match="empty union"):
        BoxUnion([])
    with pytest.raises(InvalidBox):
        capacity_functional([0], "not a box", 1)


@pytest.mark.parametrize("eps", [0, -1, Fraction(-1, 2), math.nan, math.inf, "-ln(2)"])
def test_bad_epsilon(eps):
    with pytest.raises(InvalidPrivacyLevel):
        capacity_functional([0], Box(0, 1), eps)
    with pytest.raises(InvalidPrivacyLevel):
        check_set_privacy([0], [1], Box(0, 1), eps)
    with pytest.raises(InvalidPrivacyLevel):
        sample_mechanism_float([0], eps)


def test_bad_options():
    with pytest.raises(InvalidArgument, match="norm"):
        diameter([0, 1], norm="l3")
    with pytest.raises(InvalidArgument, match="bound"):
        check_set_privacy([0], [1], Box(0, 1), 1, bound="nonsense")
    with pytest.raises(InvalidArgument, match="method"):
        union_probability([Box(0, 1)], method="magic")  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument, match="widths"):
        find_violation([0], [1], 1, widths=[0])
    with pytest.raises(InvalidArgument, match="size"):
        sample_mechanism_float([0], 1, size=0)
