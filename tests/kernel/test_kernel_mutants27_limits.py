"""The kernel's two reader limits, written out (session 27).

``limits.MAX_PIECES`` (100,000) survived the tool's re-run of ``exactdp/kernel/limits.py``
as ``100000 -> 100001``: ``test_exit_codes15.py`` builds ``MAX_PIECES + 1`` items from the
imported name, so under the mutant it builds 100,002 and still sees a refusal. (Session 25
counted the mutant killed; that run's tests are unknown, and the tool did not yet check that
its tests pass unmutated.) Here the limit is a literal, as the README states it: 100,001 nodes
or pieces are refused on their count, and 100,000 are read (then refused as a claim: the
copies of one piece do not cover the range). The same holds for ``MAX_DEPTH`` (8):
``test_kernel_mut_linear.py`` nests factor documents ``MAX_DEPTH + 1`` deep from the imported
name; here 8 levels of Kronecker factors verify and 9 are refused as nested too deeply.
"""

from __future__ import annotations

import copy
from fractions import Fraction

import pytest

from exactdp import metrics
from exactdp.engine.documents import write_linear
from exactdp.errors import InstanceTooLarge, InvalidArgument
from exactdp.kernel.linear import LinearClaim, check_linear
from exactdp.kernel.linear_json import read_linear
from exactdp.kernel.verify import verify_document
from exactdp.spaces.levels import parse_level
from exactdp.threshold import epsilon_threshold


@pytest.fixture(scope="module")
def doc() -> dict:
    d = epsilon_threshold(metrics.sum_query(3, 3), method="certified").certificate.to_json()
    assert d["kind"] == "spd-taylor-cover" and verify_document(d).verified
    return d


@pytest.mark.parametrize("key", ["nodes", "pieces"])
def test_one_more_than_100000_ranges_is_refused_on_its_count(doc: dict, key: str) -> None:
    d = copy.deepcopy(doc)
    d["evidence"][key] = d["evidence"][key][:1] * 100_001  # copies of one object: cheap to build
    with pytest.raises(InstanceTooLarge, match=f"evidence.{key}: has 100001 items; the kernel checks at most 100000"):
        verify_document(d)


@pytest.mark.parametrize("key", ["nodes", "pieces"])
def test_100000_ranges_are_read(doc: dict, key: str) -> None:
    d = copy.deepcopy(doc)
    d["evidence"][key] = d["evidence"][key][:1] * 100_000
    got = verify_document(d)  # read in full, then refused as a claim (about a second)
    assert got.verified is False and got.kind == "spd-taylor-cover" and got.reason == "the claim does not re-check"


def _nested(depth: int) -> dict:
    # Φ = [[1, 1/2], [1/2, 1]] at t = 1/2: x = (2/3, 2/3) for b = (1, 1); each level wraps the
    # claim as the one factor of a Kronecker claim (the same question)
    c = LinearClaim("exact-solution", metrics.line(2), parse_level(t="1/2"), (Fraction(1), Fraction(1)), True,
                    {"x": (Fraction(2, 3), Fraction(2, 3))})
    for _ in range(depth):
        c = LinearClaim("kronecker", metrics.line(2), parse_level(t="1/2"), c.rhs, True, {"factors": (c,)})
    return write_linear(c)


def test_factor_documents_nested_8_deep_verify() -> None:
    assert check_linear(read_linear(_nested(8)))


def test_factor_documents_nested_9_deep_are_refused() -> None:
    with pytest.raises(InvalidArgument, match="nested"):
        read_linear(_nested(9))
