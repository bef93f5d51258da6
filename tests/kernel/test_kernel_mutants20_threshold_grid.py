"""Session 20: tests for the survivors of the first complete ``scripts/mutation.py`` run on
exactdp/kernel/threshold_grid.py (57 mutants). Each test names the mutants it kills.

The limits are written out as the module documents them (at most 2,000 pieces, 8·10⁷ units
W·H·(pieces + 1)·(K + 1), 510,000 distinct distances, the exact count deciding above the
closed-form bound); the distinct-distance count of a 1250×1000 Euclidean grid (431,715) is
the exact count of ``exactdp.spaces.grid``, and of a W×1 grid it is W (dx² are distinct).
"""

from __future__ import annotations

import copy
from dataclasses import FrozenInstanceError
from fractions import Fraction as F

import pytest

from exactdp.arithmetic.interval import Enclosure
from exactdp.engine.grid_threshold_documents import write_grid_threshold
from exactdp.errors import InstanceTooLarge, InvalidArgument
from exactdp.kernel.threshold_grid import (
    GridThresholdClaim,
    check_grid_threshold,
    grid_fail_ok,
    read_grid_threshold,
    require_grid_work,
)
from exactdp.spaces.metrics.masked import GridShape

LINE2 = GridShape(2, 1, "manhattan", F(1))
ONES2 = (F(1), F(1))


# kills "line 91: 2000 -> 2001" and "line 128: Gt -> GtE": 2,000 pieces are allowed, 2,001 not
def test_pieces_limit_is_2000():
    require_grid_work(LINE2, 2000, 0)
    with pytest.raises(InstanceTooLarge, match="2001 pieces"):
        require_grid_work(LINE2, 2001, 0)


# kills "line 126: LtE -> Lt": at exactly 8·10⁷ units (1250·1000·16·4) the closed-form bound
# (750,500 distances) is over the limit, so the exact count (431,715) must decide: accepted
def test_exact_count_decides_at_exactly_the_work_limit():
    shape = GridShape(1250, 1000, "euclidean", F(1))
    assert 1250 * 1000 * (15 + 1) * (3 + 1) == 80_000_000
    require_grid_work(shape, 15, 3)
    with pytest.raises(InstanceTooLarge, match="85000000 units"):
        require_grid_work(shape, 16, 3)  # 1250·1000·17·4: over the work limit


# kills one "line 125: Sub -> Add" (m(m + 1)/2 for m(m − 1)/2: a closed form below the true
# count): a 510,001×1 Euclidean grid has 510,001 distinct distances, one over the limit
def test_distance_limit_on_a_line_of_510001_points():
    require_grid_work(GridShape(510_000, 1, "euclidean", F(1)), 0, 0)
    with pytest.raises(InstanceTooLarge, match="510001 distinct distances"):
        require_grid_work(GridShape(510_001, 1, "euclidean", F(1)), 0, 0)


# kills "line 161: return True": an error inside the fail-side check is a rejection
def test_fail_side_error_is_rejected():
    assert grid_fail_ok(LINE2, ONES2, F(1), 0, F(0), F(1, 9), op=object()) is False  # type: ignore[arg-type]


# kills "line 182: Add -> Sub" (the except clause's tuple arithmetic raises TypeError when an
# error reaches it): a claim that is not a GridThresholdClaim is rejected, never an exception
@pytest.mark.parametrize("claim", [object(), None, 3])
def test_malformed_claim_is_rejected_not_raised(claim):
    assert check_grid_threshold(claim) is False


# "line 137: True -> False" (the claim's frozen option) is not applied by the tool: applied by
# hand to the source, this test fails (session 20)
def test_claim_is_frozen():
    claim = GridThresholdClaim(LINE2, ONES2, None, (0, F(0), F(1, 9)), F(1, 2), 0, ())  # type: ignore[arg-type]
    with pytest.raises(FrozenInstanceError):
        claim.order = 1  # type: ignore[misc]


# kills "line 203: Sub -> Add" and "line 203: 1 -> 2": the fail index is read in [0, n − 1]
# (a claim written in memory, not a genuine one: only the reader is exercised)
def test_fail_index_range_is_zero_to_n_minus_one():
    claim = GridThresholdClaim(LINE2, ONES2, Enclosure(F(1, 2), F(1)), (1, F(0), F(1, 9)), F(1, 2), 0,
                               ((F(1, 2), F(1), F(1, 9)),))
    doc = write_grid_threshold(claim)
    assert read_grid_threshold(doc) == claim  # index n − 1 = 1 is read
    for bad in (2, 3, -1):
        edited = copy.deepcopy(doc)
        edited["evidence"]["fail"]["index"] = bad
        with pytest.raises(InvalidArgument, match=r"evidence.fail.index: got -?\d; it must lie in \[0, 1\]"):
            read_grid_threshold(edited)
