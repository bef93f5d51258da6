"""Fields of kernel documents a reviewer could edit with the document still verifying (task 11U).

* Kronecker factor labels (``evidence.factors[k].question.metric.points``): labels are names,
  outside the fingerprint, and the factor claims are index-based, so nothing bound them —
  any label verified. Now the factors must carry the labels of the question metric's own
  (constructor) factors (:func:`exactdp.kernel.metricio.factor_labels_ok`), for ``kronecker``
  and ``kronecker-threshold`` alike.
* ``spd-taylor-cover`` / ``grid-threshold`` evidence bounds (``fail…upper``, node λ): each is
  re-proved by the check, and a weaker bound that still holds (upper ≥ the true z_w, λ ≤
  λ_min) is a true statement, so it may verify; a false one is rejected. The tests below pin
  both sides.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

import exactdp
from exactdp import metrics
from exactdp.errors import ExactDPError
from exactdp.kernel.verify import verify_document


def _doc(cert: Any) -> dict[str, Any]:
    d = cert.to_json()
    return json.loads(d) if isinstance(d, str) else copy.deepcopy(d)


def _verifies(doc: dict[str, Any]) -> bool:
    try:
        return verify_document(copy.deepcopy(doc)).verified
    except ExactDPError:  # malformed: refused, never verified
        return False


@pytest.fixture(scope="module")
def kron() -> dict[str, Any]:
    return _doc(exactdp.tight_constraints(metrics.grid(4, 4, "manhattan"), eps=1).certificate)


@pytest.fixture(scope="module")
def kron_threshold() -> dict[str, Any]:
    return _doc(exactdp.epsilon_threshold(metrics.grid(3, 3, "manhattan")).certificate)


@pytest.fixture(scope="module")
def spd_cover() -> dict[str, Any]:
    return _doc(exactdp.epsilon_threshold(metrics.grid(8, 8)).certificate)


def _label(doc: dict[str, Any], k: int, value: Any) -> dict[str, Any]:
    out = copy.deepcopy(doc)
    out["evidence"]["factors"][0]["question"]["metric"]["points"][k] = value
    return out


@pytest.mark.parametrize("value", [{"rational": "7"}, "0", {"rational": "1"}, [0, 0], {"rational": "-0"}])
def test_kronecker_factor_label_is_bound(kron: dict[str, Any], value: Any) -> None:
    assert kron["kind"] == "kronecker" and _verifies(kron)
    assert not _verifies(_label(kron, 0, value))


def test_kronecker_factor_labels_swapped_rejected(kron: dict[str, Any]) -> None:
    pts = kron["evidence"]["factors"][1]["question"]["metric"]["points"]
    out = copy.deepcopy(kron)
    out["evidence"]["factors"][1]["question"]["metric"]["points"] = pts[::-1]
    assert not _verifies(out)


def test_kronecker_threshold_factor_label_is_bound(kron_threshold: dict[str, Any]) -> None:
    assert kron_threshold["kind"] == "kronecker-threshold" and _verifies(kron_threshold)
    assert not _verifies(_label(kron_threshold, 0, {"rational": "5"}))
    assert not _verifies(_label(kron_threshold, 0, "0"))


def test_kronecker_factor_label_equal_value_may_verify(kron: dict[str, Any]) -> None:
    """The integer 0 and the rational 0/1 name the same point (labels compare by value, as the
    library's ``line`` factors, labelled 0..n−1, stand for a grid's rational coordinates in
    older genuine documents: tests/kernel/kernel_corpus.jsonl, ``kron-crafted``)."""
    assert _verifies(_label(kron, 0, 0))


def test_spd_cover_fail_upper_weaker_is_true(spd_cover: dict[str, Any]) -> None:
    """The fail point's claim is z_w < 0 and z_w ≤ upper, both re-proved: upper = 5/3 is a
    weaker TRUE bound (z_w < 0 is still proved), so it may verify; an upper below z_w may not."""
    assert spd_cover["kind"] == "spd-taylor-cover" and _verifies(spd_cover)
    out = copy.deepcopy(spd_cover)
    out["evidence"]["fail"]["claim"]["upper"] = "5/3"
    assert _verifies(out)
    out["evidence"]["fail"]["claim"]["upper"] = "-1"
    assert not _verifies(out)


def test_spd_cover_node_lambda_weaker_is_true(spd_cover: dict[str, Any]) -> None:
    """A node's λ is re-proved as λ ≤ λ_min(Φ(ε)); a smaller λ (even negative) is a weaker TRUE
    bound, and the chord lemma only ever uses it to bound piece λs from below, so lowering it can
    make the check fail, never pass wrongly. A λ above λ_min is rejected."""
    low = copy.deepcopy(spd_cover)
    low["evidence"]["nodes"][0]["lam"] = "-" + "1" + "0" * 99_999
    assert _verifies(low)
    for k in range(len(spd_cover["evidence"]["nodes"])):
        high = copy.deepcopy(spd_cover)
        high["evidence"]["nodes"][k]["lam"] = "2"  # λ_min(Φ) ≤ 1 (trace/n = 1)
        assert not _verifies(high)


def test_spd_cover_used_node_lambda_lowered_rejected(spd_cover: dict[str, Any]) -> None:
    """Lowering the λ of a node the chord lemma uses below the pieces' λ makes a false chord bound."""
    out = copy.deepcopy(spd_cover)
    for node in out["evidence"]["nodes"]:
        node["lam"] = "-1"
    assert not _verifies(out)


def test_grid_threshold_fail_upper_weaker_is_true() -> None:
    """``grid-threshold`` (31×31 Euclidean): ``evidence.fail.upper`` is re-proved as z_w ≤ upper
    beside z_w < 0, so 5/3 is a weaker TRUE bound; -1 (below z_w) and a non-positive piece λ
    are rejected."""
    doc = _doc(exactdp.epsilon_threshold(metrics.grid(31, 31)).certificate)
    assert doc["kind"] == "grid-threshold" and _verifies(doc)
    out = copy.deepcopy(doc)
    out["evidence"]["fail"]["upper"] = "5/3"
    assert _verifies(out)
    out["evidence"]["fail"]["upper"] = "-1"
    assert not _verifies(out)
    out = copy.deepcopy(doc)
    out["evidence"]["pieces"][0]["lam"] = "-" + "1" + "0" * 99_999
    assert not _verifies(out)
