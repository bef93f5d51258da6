"""Mutation survivors of ``exactdp/kernel/threshold_grid.py`` (session 13, task 11M, a sample
of 16 of its 57 mutants): the distinct-distance limit at its exact boundary on a Manhattan
grid, and the canonical ``"ones"`` right-hand side of a grid question.

Ground truth: a W×H Manhattan grid has exactly W + H − 1 distinct offset distances
(|dx| + |dy| takes every value 0 … W + H − 2); b = (1, …, 1) must be written ``"ones"``.
"""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from exactdp.errors import InstanceTooLarge, InvalidArgument, InvalidPrior
from exactdp.kernel.threshold_grid import MAX_GRID_DISTANCES, read_grid_threshold_claim, require_grid_work
from exactdp.spaces.metrics.masked import GridShape

LEVEL = {"eps_range": {"lo": "0", "hi": None}}


def test_manhattan_distance_limit_at_the_boundary():
    assert MAX_GRID_DISTANCES == 510_000
    require_grid_work(GridShape(509_999, 2, "manhattan", F(1)), 1, 1)  # 510,000 distances
    with pytest.raises(InstanceTooLarge, match="510001 distinct distances"):
        require_grid_work(GridShape(510_000, 2, "manhattan", F(1)), 1, 1)


def test_an_explicit_rhs_of_ones_is_not_canonical():
    q = {"property": "threshold-regular", "level": LEVEL}
    with pytest.raises(InvalidArgument, match="write b = 1 as"):
        read_grid_threshold_claim(None, q, False, (F(1),) * 4)
    env = type("Env", (), {"claim": {"verdict": "holds", "eps": {"lo": "1/2", "hi": "1"}}})()
    eps = read_grid_threshold_claim(env, q, False, (F(1, 4),) * 4)  # the uniform prior: written out, fine
    assert (eps.lo, eps.hi) == (F(1, 2), F(1))
    with pytest.raises(InvalidPrior, match="sums to 8"):  # b = 2 is no prior (session 29: it was read)
        read_grid_threshold_claim(env, q, False, (F(2),) * 4)
    with pytest.raises(InvalidArgument, match="write b = 1 as"):  # the level must be canonical
        read_grid_threshold_claim(env, {**q, "level": {"eps_range": {"lo": "0", "hi": "5"}}}, False, (F(1, 4),) * 4)
