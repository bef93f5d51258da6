"""same_distances decides two grid metrics from their (checked) grid claims, without the n×n
index: verify() of a matrix-free grid certificate used to build it (3.2 GB at 100×100)."""

from fractions import Fraction

import numpy as np

from exactdp.spaces.distances import Distance
from exactdp.spaces.metrics import from_matrix, grid, line
from exactdp.spaces.metrics.claims import same_distances
from exactdp.spaces.metrics.space import FiniteMetric, GridInfo


def test_equal_grids_are_decided_without_the_index():
    a, b = grid(300, 300, "euclidean"), grid(300, 300, "euclidean")
    assert same_distances(a, b)
    assert "index" not in vars(a) and "index" not in vars(b)  # the 90,000² table was never built


def test_different_claims_still_compared_in_full():
    assert same_distances(grid(1, 4, "manhattan"), grid(1, 4, "euclidean"))  # same distances
    assert same_distances(grid(1, 4, "manhattan"), line(4))
    assert not same_distances(grid(3, 3, "manhattan"), grid(3, 3, "euclidean"))
    assert not same_distances(grid(2, 3, "manhattan"), grid(3, 2, "manhattan"))


def test_a_false_grid_claim_cannot_be_built_so_the_fast_path_is_sound():
    D = [[0, 1, 5, 1], [1, 0, 1, 1], [5, 1, 0, 1], [1, 1, 1, 0]]
    m = from_matrix([[0, 1, 1, 2], [1, 0, 2, 1], [1, 2, 0, 1], [2, 1, 1, 0]])
    values = [Distance.rational(k) for k in range(6)]
    try:
        FiniteMetric("fake", m.points, values, np.array(D), grid_info=GridInfo(2, 2, "manhattan", Fraction(1)))
    except Exception as exc:  # InvalidMetric: the claim is checked against the distances
        assert "grid_info" in str(exc)
    else:  # pragma: no cover - the test fails
        raise AssertionError("a false grid claim was accepted")


def test_a_duck_typed_object_with_a_grid_attribute_is_compared_in_full():
    real = grid(2, 2, "manhattan")

    class Fake:
        n, values, grid = 4, real.values, real.grid
        index = np.zeros((4, 4), dtype=np.int64)

    assert not same_distances(Fake(), real)


def test_exact_products_refuse_non_integers_and_ragged_columns():
    import pytest

    from exactdp.errors import InvalidArgument
    from exactdp.linalg.exact_products import exact_table_matvec

    def mv(table, V):  # a 2-point "metric": M = [[t0, t1], [t1, t0]]
        t0, t1 = table[0], table[1]
        return np.array([t0 * V[0] + t1 * V[1], t1 * V[0] + t0 * V[1]])

    assert exact_table_matvec(mv, 2, [3, 2], [[1, 5]]) == [[13, 17]]
    with pytest.raises(InvalidArgument, match="1.5"):
        exact_table_matvec(mv, 2, [3, 2], [[1.5, 5]])
    with pytest.raises(InvalidArgument, match="not an integer"):
        exact_table_matvec(mv, 2, [3.25, 2], [[1, 5]])
    with pytest.raises(InvalidArgument, match="different lengths"):
        exact_table_matvec(mv, 2, [3, 2], [[1, 5], [1]])
