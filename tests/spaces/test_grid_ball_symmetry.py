"""Grid ball-size symmetry is decided from the shape, without the n×n index (issue 15)."""

import numpy as np
import pytest

from exactdp.spaces.metrics import from_matrix, grid


@pytest.mark.parametrize("norm", ["euclidean", "manhattan", "chebyshev"])
@pytest.mark.parametrize("W, H", [(1, 1), (1, 2), (2, 2), (3, 1), (2, 3), (4, 4), (5, 2)])
def test_grid_shape_rule_matches_the_per_point_counts(norm, W, H):
    g = grid(W, H, norm)
    fast = g.ball_size_symmetric
    assert "index" not in g.__dict__
    counts = np.stack([np.bincount(row, minlength=len(g.values)) for row in g.index])
    assert fast == bool(np.all(counts == counts[0]))
    if norm != "euclidean":  # the generic rule on the same integer distances, no grid claim
        m = from_matrix(np.rint(g.distance_matrix_float()).astype(int).tolist())
        assert m.ball_size_symmetric == fast


def test_large_grid_is_decided_in_constant_time():
    g = grid(120, 90)
    assert g.ball_size_symmetric is False and "index" not in g.__dict__
