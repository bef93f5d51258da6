"""Session 25, first complete mutation run of exactdp/kernel/threshold_cover_claims.py (49
mutants: the certified-cover and spd-taylor-cover checks and their reader). Each test names
the mutants it kills.

Ground truth:

* sum_query(2, 2) with b = 1 has ε* = ln φ ≈ 0.4812 (φ the golden ratio;
  tests/kernel/test_kernel_threshold.py checks it against 50-digit mpmath). At ε = 49/100 > ε*
  the tight constraints hold, so a cover claiming ε* ∈ [49/100, 4913/10000] is false — and its
  fail side, the engine's certificate at 49/100, says "holds";
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

from exactdp.algebra.algebraic import log_enclosure
from exactdp.engine.core import solve_nonnegative
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
from exactdp.threshold.certificates import CoverCertificate
from exactdp.threshold.krawczyk import krawczyk_cover
from exactdp.threshold.lemmas import lemma_t0


def _cover(metric, lo, hi):
    """A Krawczyk cover built from the search's parts, its fail side the engine's certificate
    at lo (as tests/kernel/test_kernel_threshold.py builds it)."""
    b = (F(1),) * metric.n
    fail = solve_nonnegative(metric, parse_level(eps=lo), list(b)).certificate
    t0 = lemma_t0(metric, b)
    _, end = log_enclosure(t0, t0, F(-1))
    pieces = krawczyk_cover(metric, b, hi, end, F(1, 10**9), None, 400)
    return CoverCertificate(metric, b, lo, hi, fail, t0, tuple(pieces))


@pytest.fixture(scope="module")
def spd():
    return epsilon_threshold(sum_query(3, 3), method="certified").certificate.to_json()


# kills "line 149: And -> Or" (a linear fail side accepted whatever its verdict: the cover
# below, whose lower end 49/100 lies above ε*, verified under it)
def test_a_fail_side_that_holds_is_refused():
    good = _cover(sum_query(2, 2), F(48, 100), F(4813, 10000)).to_json()
    assert good["evidence"]["fail"]["claim"]["verdict"] == "fails" and verify_document(good).verified
    bad = _cover(sum_query(2, 2), F(49, 100), F(4913, 10000)).to_json()
    assert bad["evidence"]["fail"]["claim"]["verdict"] == "holds"
    assert verify_document(bad["evidence"]["fail"]).verified  # the fail side alone is a true "holds"
    assert not verify_document(bad).verified


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
