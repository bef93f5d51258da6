"""An exact zero Hausdorff distance is portable (session 18).

For finite sets d_H(X, Y) = 0 iff X = Y. The certified result already said ``value = 0``, but
its kernel document claimed only a ball around 0 (lo = −2^-255): the kernel's ball of a
difference of two equal algebraic coordinates straddles 0, so it could never prove lo = 0.
The writer now claims [0, 0] and the kernel proves it by exact point equality (the same
equality it uses for an undecided privacy margin with X = Y). Ground truth is by hand: the
sets below are equal or not by construction (the same number written with different isolating
intervals is equal; the conjugate root −√2 of x² − 2 is not √2).
"""

from __future__ import annotations

import copy

import pytest

from exactdp.kernel.verify import verify_document
from exactdp.sets._real import CertifiedHausdorffResult, hausdorff_distance_certified


def _alg(lo: str, hi: str) -> dict:
    return {"minimal_polynomial": ["1", "0", "-2"], "isolating_interval": {"lo": lo, "hi": hi}}


def _doc(X, Y, lo="0", hi="0", norm="l1") -> dict:
    return {"schema": "exactdp-certificate", "version": 1, "kind": "set-hausdorff-real",
            "question": {"X": X, "Y": Y, "norm": norm},
            "claim": {"enclosure": {"lo": lo, "hi": hi}}, "evidence": {"precision": 128}}


@pytest.mark.parametrize(("X", "Y", "norm"), [
    ([("sqrt(2)", 0)], [("sqrt(2)", 0)], "l2"),
    ([("sqrt(2)",), (1,)], [(1,), ("sqrt(2)",)], "l1"),                 # another order
    ([("sqrt(2)", "sqrt(3)"), (0, "1/3")], [(0, "1/3"), ("sqrt(2)", "sqrt(3)")], "linf"),
])
def test_equal_sets_are_written_and_verified_as_exactly_zero(X, Y, norm):
    res = hausdorff_distance_certified(X, Y, norm)
    assert res.value == 0
    doc = res.to_document()
    assert doc["claim"]["enclosure"] == {"lo": "0", "hi": "0"}
    assert verify_document(doc).verified is True
    assert CertifiedHausdorffResult.from_document(doc).value == 0


def test_the_same_number_with_another_isolating_interval_is_equal():
    X = [[_alg("1", "2")], ["1/2"]]
    Y = [["1/2"], [_alg("7/5", "3/2")]]
    assert verify_document(_doc(X, Y)).verified is True
    assert verify_document(_doc(X, Y, "-1", "1/10")).verified is True   # a wider true claim


@pytest.mark.parametrize("Y", [
    [[_alg("-2", "-1")], ["1/2"]],      # −√2, the conjugate: d_H = 2√2 > 0
    [[_alg("1", "2")], ["1/3"]],        # one point differs: d_H = 1/6
    [[_alg("1", "2")]],                 # Y ⊂ X: d_H = √2 − 1/2
    [[_alg("1", "2")], ["1/2"], ["0"]],  # X ⊂ Y: d_H = 1/2
])
def test_a_zero_claim_for_different_sets_is_rejected(Y):
    X = [[_alg("1", "2")], ["1/2"]]
    assert verify_document(_doc(X, Y)).verified is False
    assert verify_document(_doc(Y, X)).verified is False


def test_nonzero_distance_documents_are_unchanged():
    res = hausdorff_distance_certified([("sqrt(2)",)], [(1,)], "l1")
    doc = res.to_document()
    assert doc["claim"]["enclosure"]["lo"] != "0" and verify_document(doc).verified is True
    bad = copy.deepcopy(doc)
    bad["claim"]["enclosure"] = {"lo": "0", "hi": "0"}
    assert verify_document(bad).verified is False


@pytest.mark.parametrize(("lo", "hi"), [("1/1000", "1"), ("-1", "-1/1000"), ("1/2", "1/2")])
def test_a_claim_excluding_zero_for_equal_sets_is_rejected(lo, hi):
    X = [[_alg("1", "2")], ["1/2"]]
    Y = [["1/2"], [_alg("7/5", "3/2")]]
    assert verify_document(_doc(X, Y, lo, hi)).verified is False
