"""Session 14 (task 14M): tests for the survivors of ``scripts/mutation.py`` (a random sample,
seed 14) on exactdp/kernel/metricio.py. Each test names the mutant(s) it kills ("line N:
change", the tool's description at the time of the run).

Limits are written out as the module docstring states them (radicand r < 2⁶⁴), not read
back from the module: a test that reads the mutated constant moves with it.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from exactdp.errors import InstanceTooLarge, InvalidArgument, InvalidMetric
from exactdp.kernel.metricio import build_builtin, factor_labels_ok, fingerprint, portable_labels, read_metric_json
from exactdp.spaces.distances import Distance
from exactdp.spaces.metrics import hamming, line
from exactdp.spaces.metrics.space import FiniteMetric

RADICAND = 2**64  # module docstring: "r squarefree, r < 2⁶⁴"


def _two_points(radicand: int) -> dict:
    """A distances-encoded 2-point metric d(0, 1) = √radicand, written by hand."""
    return {"encoding": "distances", "n": 2, "points": None, "fingerprint": "sha256:0",
            "values": [{"coef": "0", "radicand": "1"}, {"coef": "1", "radicand": str(radicand)}],
            "index": [[0, 1], [1, 0]]}


# kills "line 86: Pow -> Mult" (limit 128) and "line 86: 2 -> 3" (limit 3^64): the largest
# square-free radicand below 2^64 is read, the smallest square-free one above it refused
def test_radicand_limit_is_two_to_the_64():
    below, above = RADICAND - 1, RADICAND + 1  # 3·5·17·257·641·65537·6700417 and 274177·67280421310721
    metric, spec, fp = read_metric_json(_two_points(below))
    assert (metric.n, spec, fp) == (2, None, "sha256:0")
    assert metric.distance(0, 1).radicand == below and metric.distance(0, 1).coef == 1
    with pytest.raises(InvalidMetric, match="1 ≤ radicand < 2\\^64"):
        read_metric_json(_two_points(above))


# kills "line 219: return True": a Kronecker document's factor metrics must carry the labels of
# the question metric's own factors (labels are outside the fingerprint); relabelled, reordered
# or missing factors are not "ok" (test_unbound_fields12.py checks this through whole documents)
def test_factor_labels_are_bound_to_the_questions_factors():
    metric = hamming(["a", "b"], 2)  # factors: discrete(2) on labels a, b (twice)
    own = list(metric.kronecker_factors)
    assert [list(f.points) for f in own] == [["a", "b"], ["a", "b"]]
    assert factor_labels_ok(metric, own)
    relabelled = hamming(["a", "c"], 2).kronecker_factors[0]  # discrete(2) on labels a, c
    assert fingerprint(relabelled) == fingerprint(own[1])  # the same distances: only the labels differ
    assert not factor_labels_ok(metric, [own[0], relabelled])
    assert not factor_labels_ok(metric, own[:1])
    assert factor_labels_ok(line(3), [line(2), line(2)])  # no factors of its own: labels are names only


def _square_limit_metric(coef: int) -> dict:
    doc = _two_points(1)
    doc["values"][1]["coef"] = str(coef)
    return doc


# kills "line 87: 10 -> 11" (limit 11^600) and "line 322: GtE -> Gt": a distance whose square is
# exactly 10^600 is refused, one just below is read
def test_distance_square_limit_is_ten_to_the_600():
    metric, _, _ = read_metric_json(_square_limit_metric(10**300 - 1))
    assert metric.distance(0, 1).coef == 10**300 - 1
    with pytest.raises(InvalidMetric, match="exceeds 10\\^300"):
        read_metric_json(_square_limit_metric(10**300))
    # kills "line 322: Mult -> Div" (c·c/r or c/c·r): (6·10^299)²·3 = 1.08·10^600 is over the limit
    doc = _square_limit_metric(6 * 10**299)
    doc["values"][1]["radicand"] = "3"
    with pytest.raises(InvalidMetric, match="exceeds 10\\^300"):
        read_metric_json(doc)


# kills "line 125: Gt -> GtE": a metric of exactly max_points points is fingerprinted
def test_fingerprint_takes_exactly_max_points():
    assert fingerprint(line(3), max_points=3) == fingerprint(line(3))
    with pytest.raises(InstanceTooLarge, match="max_points=2"):
        fingerprint(line(3), max_points=2)


def _odd(index: np.ndarray) -> FiniteMetric:
    """A FiniteMetric whose index is not an n×n integer matrix (built around the constructors)."""
    class Odd(FiniteMetric):
        def __init__(self) -> None:  # no validation: the object a buggy caller could pass
            pass
        name, n, values = "odd", 2, [Distance(Fraction(0), 1), Distance(Fraction(1), 1)]
    Odd.index = index  # type: ignore[attr-defined]
    return Odd()


# kills "line 136: Or -> And": an index of the wrong shape, or of floats, is refused by name
# (the mutant let both through: a wrong shape was hashed, floats crashed in numpy indexing)
@pytest.mark.parametrize("index", [np.zeros((2, 3), dtype=np.int64), np.zeros((2, 2)),
                                   np.zeros((3, 3), dtype=np.int64)])
def test_fingerprint_refuses_an_index_that_is_not_n_by_n_integers(index):
    with pytest.raises(InvalidMetric, match="expected an 2×2 integer matrix"):
        fingerprint(_odd(index))
    assert fingerprint(_odd(np.array([[0, 1], [1, 0]]))) == fingerprint(line(2))


# kills "line 173: 0 -> 1" and "line 191: 0 -> 1" (label nesting counted from 1, not 0): a label
# of four nested tuples / arrays is portable and read back; five are not
def test_label_nesting_depth_is_four():
    four, five = ((((1,),),),), (((((1,),),),),)
    assert portable_labels([four, "x"]) == [[[[[1]]]], "x"]
    assert portable_labels([five, "x"]) is None
    doc = _two_points(1)
    doc["points"] = [[[[[1]]]], "x"]
    metric, _, _ = read_metric_json(doc)
    assert list(metric.points) == [four, "x"]
    doc["points"] = [[[[[[1]]]]], "x"]
    with pytest.raises(InvalidArgument, match="depth ≤ 4"):
        read_metric_json(doc)


# kills "line 180: Lt -> LtE": an integer label is portable below 10^18 only (a JSON integer has
# at most 18 digits: 10^18 could not be written)
def test_integer_labels_are_portable_below_ten_to_the_18():
    assert portable_labels([10**18 - 1, -(10**18 - 1)]) == [10**18 - 1, -(10**18 - 1)]
    assert portable_labels([10**18]) is None and portable_labels([-(10**18)]) is None


# kills "line 352: GtE -> Gt": two equal distances in values are refused (strictly increasing)
def test_repeated_distance_values_are_refused():
    doc = _two_points(1)
    doc["n"] = 3
    doc["values"].append({"coef": "1", "radicand": "1"})
    doc["index"] = [[0, 1, 2], [1, 0, 1], [2, 1, 0]]
    with pytest.raises(InvalidArgument, match="strictly increasing"):
        read_metric_json(doc)


# would kill "line 100: Mult -> Div" and "line 104: Mult -> Div" (the point counts of sum_query
# and grid): those lambdas live in the CONSTRUCTORS dict, which scripts/mutation.py never
# swaps (a tool limit), so under the tool they survive; applied by hand they fail here
@pytest.mark.parametrize("ctor, params, n", [("sum_query", {"u": 2, "v": 3}, 7),
                                             ("grid", {"width": 2, "height": 3, "norm": "manhattan",
                                                       "spacing": "1"}, 6)])
def test_builtin_point_counts(ctor, params, n):
    assert build_builtin(ctor, params, n).n == n
    with pytest.raises(InvalidArgument, match=f"has {n} points, not n = {n - 1}"):
        build_builtin(ctor, params, n - 1)


# kills "line 140: Sub -> Add": the message names the last valid position, values[0..1]
def test_index_outside_values_names_the_valid_range():
    with pytest.raises(InvalidMetric, match=r"index refers outside values\[0\.\.1\]\."):
        fingerprint(_odd(np.array([[0, 2], [2, 0]])))


# kills "line 235: LtE -> Lt": a rational parameter of 0 (discrete distance, grid spacing) is
# refused by the reader itself, before any constructor runs
@pytest.mark.parametrize("ctor, params, n", [("discrete", {"n": 2, "distance": "0"}, 2),
                                             ("grid", {"width": 2, "height": 1, "norm": "manhattan",
                                                       "spacing": "0"}, 2)])
def test_zero_rational_parameters_are_refused(ctor, params, n):
    with pytest.raises(InvalidArgument, match=r"params\.(distance|spacing): got 0; it must be > 0\."):
        build_builtin(ctor, params, n)


# kills "line 359: False -> True": the message names the unused value (values[2]), not the first used one
def test_unused_value_is_named():
    doc = _two_points(1)
    doc["values"].append({"coef": "2", "radicand": "1"})
    with pytest.raises(InvalidArgument, match=r"values\[2\] is never used"):
        read_metric_json(doc)


def _graph(nodes: int, edges: int) -> dict:
    return {"nodes": list(range(nodes)), "edges": [[0, 1, "1"]] * edges}


# kills "line 240: Gt -> GtE" and "line 245: Eq -> NotEq": exactly 300 from_graph nodes pass the
# node limit, and hamming values are not held to it (301 pass); n = 1 is wrong on purpose, so the
# params are read in full and refused on their point count before anything is built
def test_node_limits_apply_to_from_graph_only():
    with pytest.raises(InvalidArgument, match="from_graph with these params has 300 points, not n = 1"):
        build_builtin("from_graph", _graph(300, 1), 1)
    with pytest.raises(InvalidArgument, match="301 nodes; at most 300"):
        build_builtin("from_graph", _graph(301, 1), 1)
    with pytest.raises(InvalidArgument, match="hamming with these params has 301 points, not n = 1"):
        build_builtin("hamming", {"values": list(range(301)), "individuals": 1}, 1)


# kills "line 250: Pow -> Mult" (600 edges) and "line 250: 2 -> 3" (300^3): at most 300² = 90,000
# edges are read
def test_edge_limit_is_ninety_thousand():
    with pytest.raises(InvalidArgument, match="from_graph with these params has 3 points, not n = 1"):
        build_builtin("from_graph", _graph(3, 601), 1)
    with pytest.raises(InvalidArgument, match="has 90001 items; at most 90000"):
        build_builtin("from_graph", _graph(3, 90_001), 1)
