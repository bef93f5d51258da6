"""Session 20: tests for the survivors of the first complete ``scripts/mutation.py`` run on
exactdp/kernel/metricio.py (162 mutants; session 14 ran a sample of 100). Each test names the
mutants it kills.

Ground truth is independent of the kernel: the fingerprint of a one-point metric is computed
here with hashlib from the documented format (``exactdp-metric/1``, n, the distinct squares,
then the n×n index of ranks as little-endian uint64); the limits are written out as the module
documents them (at most 1,000 points by distances, labels of at most 1,000 characters, c·√r
with r squarefree).
"""

from __future__ import annotations

import hashlib
from fractions import Fraction

import numpy as np
import pytest

from exactdp.errors import InvalidArgument, InvalidMetric
from exactdp.kernel.metricio import fingerprint, portable_labels, read_metric_json, write_metric
from exactdp.spaces.distances import Distance
from exactdp.spaces.metrics import line
from exactdp.spaces.metrics.space import FiniteMetric


def _two_points(points: object = None, far: tuple[str, str] = ("1", "1")) -> dict:
    """A distances-encoded 2-point metric d(0, 1) = c·√r, written by hand."""
    return {"encoding": "distances", "n": 2, "points": points, "fingerprint": "sha256:0",
            "values": [{"coef": "0", "radicand": "1"}, {"coef": far[0], "radicand": far[1]}],
            "index": [[0, 1], [1, 0]]}


# kills "line 167: 0 -> 1" (row 0 skipped) and "line 168: 0 -> 1" (a value used once counted as
# unused) in _used: on one point the only distance, d(0, 0) = 0, is used once, in row 0
def test_one_point_fingerprint_is_the_documented_hash():
    expected = hashlib.sha256(b"exactdp-metric/1\nn=1\nsquares=0\n" + (0).to_bytes(8, "little"))
    assert fingerprint(line(1)) == "sha256:" + expected.hexdigest()


# kills "line 83: 1000 -> 1001": a metric by its distances has at most 1,000 points, refused at n
def test_distances_encoding_has_at_most_1000_points():
    doc = {"encoding": "distances", "n": 1001, "points": None, "fingerprint": "sha256:0",
           "values": [], "index": []}
    with pytest.raises(InvalidArgument, match=r"question.metric.n: got 1001; it must lie in \[1, 1000\]"):
        read_metric_json(doc)


# kills "line 195: Gt -> GtE" and "line 89: 1000 -> 1001" (reader): a label of 1,000 characters
# is read, one of 1,001 refused
def test_label_of_1000_characters_is_read_1001_refused():
    metric, _, _ = read_metric_json(_two_points(["a" * 1000, "b"]))
    assert metric.points[0] == "a" * 1000
    with pytest.raises(InvalidArgument, match="a label of 1001 characters"):
        read_metric_json(_two_points(["a" * 1001, "b"]))


# kills "line 182: LtE -> Lt" and "line 89: 1000 -> 1001" (writer): a label of 1,000 characters
# travels, one of 1,001 makes the labels not portable (written as null)
def test_label_of_1000_characters_is_written_1001_not():
    assert portable_labels(["a" * 1000, "b"]) == ["a" * 1000, "b"]
    assert portable_labels(["a" * 1001, "b"]) is None


# kills "line 319: Or -> And": a radicand that is not squarefree is refused even when c·√r has
# the right square ((1/2)·√8 = √2: the same fingerprint, not the canonical form)
def test_non_squarefree_radicand_is_refused():
    assert read_metric_json(_two_points(far=("1", "2")))[0].distance(0, 1) == Distance(1, 2)
    with pytest.raises(InvalidMetric, match="radicand 8 is not squarefree"):
        read_metric_json(_two_points(far=("1/2", "8")))


# kills "line 280: Or -> And": a zero held as 0·√5 is written as 0·√1, the only form the reader
# takes
def test_zero_is_written_with_radicand_one():
    metric = FiniteMetric("z", [0, 1], [Distance(Fraction(0), 5), Distance(Fraction(1), 1)], np.array([[0, 1], [1, 0]]))
    doc = write_metric(metric, None, fingerprint(metric))
    assert doc["values"][0] == {"coef": "0", "radicand": "1"}
    back, _, fp = read_metric_json(doc)
    assert fp == fingerprint(back) == fingerprint(metric)


# kills "line 267: LtE -> Lt": a constructor count of exactly MAX_POINTS (10,000) is shown as the
# number, only a larger one as "more than 10000" (a hamming count can have 40,000 digits)
def test_point_count_of_exactly_10000_is_shown():
    doc = {"encoding": "builtin", "constructor": "line", "params": {"n": 10_000}, "n": 5,
           "fingerprint": "sha256:0"}
    with pytest.raises(InvalidArgument, match="line with these params has 10000 points, not n = 5"):
        read_metric_json(doc)
    doc["constructor"], doc["params"] = "sum_query", {"u": 100, "v": 100}  # 100·100 + 1 points
    with pytest.raises(InvalidArgument, match="has more than 10000 points, not n = 5"):
        read_metric_json(doc)


# kills "line 319: 1 -> 2" (both: a zero written 0·√2, and a square factor of exponent 2) and
# "line 316: True -> False" (a radicand "5/2", truncated to 2): only c·√r with r a squarefree
# integer, and 0 only as 0·√1
@pytest.mark.parametrize("far, message", [
    (("1/2", "12"), "radicand 12 is not squarefree"),  # (1/2)·√12 = √3: the right square
    (("1", "5/2"), r"radicand: got '5/2'; an integer"),
])
def test_only_canonical_distances_are_read(far, message):
    with pytest.raises(InvalidArgument, match=message):
        read_metric_json(_two_points(far=far))


def test_zero_must_be_written_with_radicand_one():
    doc = _two_points()
    doc["values"][0] = {"coef": "0", "radicand": "2"}
    with pytest.raises(InvalidMetric, match="coef is 0 with radicand ≠ 1"):
        read_metric_json(doc)


# kills "line 354: Sub -> Add": an index entry must name one of the values
def test_index_must_name_a_value():
    doc = _two_points()
    doc["index"] = [[0, 2], [2, 0]]
    with pytest.raises(InvalidArgument, match=r"index\[0\]\[1\]: got 2; it must lie in \[0, 1\]"):
        read_metric_json(doc)


def _graph(nodes: list[str], edges: list[list[object]]) -> dict:
    return {"encoding": "builtin", "constructor": "from_graph", "params": {"nodes": nodes, "edges": edges},
            "n": len(nodes), "fingerprint": "sha256:0"}


# kills "line 255: LtE -> Lt" (an edge whose ends are all the nodes refused) and "line 255: 0 -> 1"
# (only the second end checked): every edge's two ends are among the nodes
def test_graph_edges_between_listed_nodes():
    metric, spec, _ = read_metric_json(_graph(["a", "b"], [["a", "b", "2"]]))
    assert metric.n == 2 and metric.distance(0, 1) == Distance(Fraction(2), 1) and spec[0] == "from_graph"
    with pytest.raises(InvalidArgument, match=r"edges\[1\]: an end is not in nodes"):
        read_metric_json(_graph(["a", "b"], [["a", "b", "2"], ["c", "b", "1"]]))
