"""Session 25, first complete mutation run of exactdp/kernel/threshold_spd_json.py (6 mutants):
the claim index of an ``spd-point`` document is read in [0, n − 1] — both ends. The range
check is a lambda in the module's field table, which the mutation tool reaches since
session 25 (tests/repo/test_mutation_tool25.py).

Ground truth: the fail side of sum_query(3, 3)'s certified threshold (n = 10 points), as
tests/kernel/test_kernel_size11_readers.py builds it; reading checks the index's range only
(whether the entry really fails is the checker's business, not tested here).
"""

from __future__ import annotations

import copy

import pytest

from exactdp.errors import InvalidArgument
from exactdp.kernel.threshold_spd_json import read_spd_point
from exactdp.metrics import sum_query
from exactdp.threshold import epsilon_threshold


@pytest.fixture(scope="module")
def doc():
    return epsilon_threshold(sum_query(3, 3), method="certified").certificate.fail.to_json()


# kills "line 34: 1 -> 2" (read_int(v, w, 0, n − 2): the last point refused as an index)
def test_the_index_ranges_over_every_point(doc):
    for index in (0, 9):
        d = copy.deepcopy(doc)
        d["claim"]["index"] = index
        assert read_spd_point(d).index == index
    for index in (10, -1):
        d = copy.deepcopy(doc)
        d["claim"]["index"] = index
        with pytest.raises(InvalidArgument, match="claim.index"):
            read_spd_point(d)
