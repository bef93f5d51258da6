"""Session 25, first complete mutation run of exactdp/kernel/threshold_cover_claims.py (49
mutants: the certified-cover and spd-taylor-cover checks and their reader). Each test names
the mutants it kills.

Ground truth:

* the fail side of a certified cover that says "holds" (killing "line 149: And -> Or") is
  tested in tests/kernel/test_kernel_threshold.py, next to the other cover edits, where the
  cover builder lives;
* documents nest at most 8 levels (exactdp/kernel/limits.py; written here as the number 8):
  a cover's fail side is read one level down, so a linear Kronecker document nested 7 deep
  reads inside a cover and 8 deep does not (alone it reads at 8);
* the spd-taylor-cover of sum_query(3, 3) (the library's certified route): order 3, 7 nodes
  in increasing ε.
"""

from __future__ import annotations

import copy
import dataclasses
from fractions import Fraction as F

import pytest

from exactdp.engine.documents import write_linear
from exactdp.errors import InvalidArgument
from exactdp.kernel.linear import LinearClaim
from exactdp.kernel.linear_json import read_linear
from exactdp.kernel.threshold_cover_claims import check_spd_cover, read_cover_threshold
from exactdp.kernel.verify import verify_document
from exactdp.metrics import sum_query
from exactdp.spaces.levels import parse_level
from exactdp.spaces.metrics import line
from exactdp.threshold import epsilon_threshold


@pytest.fixture(scope="module")
def spd():
    return epsilon_threshold(sum_query(3, 3), method="certified").certificate.to_json()


def _linear_kronecker(levels):
    """A linear Kronecker document nested ``levels`` deep (reading only: line(2) at t = 1/2,
    x = (2/3, 2/3) at the bottom)."""
    level = parse_level(t="1/2")
    c = LinearClaim("exact-solution", line(2), level, (F(1), F(1)), True, {"x": (F(2, 3), F(2, 3))})
    for _ in range(levels):
        c = LinearClaim("kronecker", line(2), level, (F(1), F(1)), True, {"factors": (c,)})
    return write_linear(c)


# kills "line 110: Add -> Sub" and "line 110: 1 -> 2" (the fail side read at depth d − 1 or
# d + 2 instead of d + 1) and "line 125: 0 -> 1" (a cover read as if nested already)
def test_a_fail_side_is_one_level_down(spd):
    assert read_linear(_linear_kronecker(8)).kind == "kronecker"  # alone: 8 levels read
    inside = copy.deepcopy(spd)
    inside["evidence"]["fail"] = _linear_kronecker(7)
    assert read_cover_threshold(inside).evidence["fail"].kind == "kronecker"
    inside["evidence"]["fail"] = _linear_kronecker(8)
    with pytest.raises(InvalidArgument, match="evidence.fail.*nested more than 8 deep"):
        read_cover_threshold(inside)


# kills "line 120: 0 -> 1" (order 0 refused by the reader; the schema admits 0 … 8)
def test_order_zero_is_read(spd):
    d = copy.deepcopy(spd)
    d["evidence"]["order"] = 0
    assert read_cover_threshold(d).evidence["order"] == 0
    assert not verify_document(d).verified  # read, then not proved with these pieces
    d["evidence"]["order"] = 9
    with pytest.raises(InvalidArgument, match="evidence.order"):
        read_cover_threshold(d)


# kills "line 177: Add -> Sub" (the except clause itself raises TypeError) and "line 178:
# return True" / "line 178: False -> True" (an error inside read as proved)
def test_a_claim_missing_evidence_is_not_proved_and_never_raises(spd):
    c = read_cover_threshold(spd)
    assert check_spd_cover(c)
    for key in ("order", "nodes", "t0", "fail"):
        assert check_spd_cover(dataclasses.replace(c, evidence={k: v for k, v in c.evidence.items() if k != key})) \
            is False, key


# kills "line 169: GtE -> Gt" and "line 169: 1 -> 2": nodes must increase strictly — a node
# repeated (the same (ε, σ, λ) twice) is refused, as nodes out of order are
def test_nodes_must_strictly_increase(spd):
    nodes = spd["evidence"]["nodes"]
    assert len(nodes) == 7 and verify_document(spd).verified
    for edited in ([nodes[0], nodes[1], nodes[1], *nodes[2:]], [nodes[1], nodes[0], *nodes[2:]],
                   [nodes[0], nodes[2], nodes[1], *nodes[3:]]):
        d = copy.deepcopy(spd)
        d["evidence"]["nodes"] = edited
        assert not verify_document(d).verified
