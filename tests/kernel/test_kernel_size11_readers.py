"""Issue 11 (kernel size, builder 11K1): the reader checks that were merged or made
table-driven (exactdp/kernel/readers.py, jsonio.py, metricio.py, question.py, __main__.py)
still reject — one test per merged check whose rejection path no other test covered."""

from __future__ import annotations

import copy
from fractions import Fraction as F

import numpy as np
import pytest

from exactdp.arithmetic.interval import Enclosure
from exactdp.engine.documents import write_privacy_level, write_threshold
from exactdp.engine.questions import question_of
from exactdp.errors import InvalidArgument
from exactdp.kernel import jsonio as J
from exactdp.kernel.__main__ import main
from exactdp.kernel.metricio import build_builtin, fingerprint
from exactdp.kernel.privacy_json import read_privacy_check, read_privacy_level
from exactdp.kernel.question import ALL_EPS, ONES, Question
from exactdp.kernel.read_common import MAX_DEPTH
from exactdp.kernel.threshold import ThresholdClaim
from exactdp.kernel.threshold_json import read_threshold
from exactdp.spaces.distances import Distance
from exactdp.spaces.levels import parse_level
from exactdp.spaces.metrics import cycle, from_matrix, line


# ------------------------------------------------------------------------------- jsonio
@pytest.mark.parametrize("doc", [{"a": (1, 2)}, {1: "a"}, {True: 1}, {"a": float("nan")}, {"a": np.int64(1)},
                                 {"a": F(1, 2)}, {"a": 1.0}, {"a": 10**18}, {"a": {1, 2}}, {"a": [1, (2,)]}])
def test_dumps_refuses_what_loads_would_not_read_back(doc):
    with pytest.raises(InvalidArgument):
        J.dumps(doc)


def test_dumps_writes_every_schema_value():
    doc = {"b": [True, False, None, "1/3", -(10**18 - 1)], "a": {"c": {}}}
    assert J.loads(J.dumps(doc)) == doc


@pytest.mark.parametrize("text", ["[1.5]", "[NaN]", "[Infinity]", "[-Infinity]", "[1e3]"])
def test_inexact_numbers_in_text(text):
    with pytest.raises(InvalidArgument, match="inexact number"):
        J.loads(text)


def test_one_type_check_for_every_plain_reader_and_writer():
    for bad in (0, 1, "true", None):
        with pytest.raises(InvalidArgument, match="true or false"):
            J.read_bool(bad, "b")
    assert J.read_bool(False, "b") is False and J.read_str("x", "s") == "x" and J.read_list([], "l") == []
    for call, what in ((lambda: J.write_rational(True), "an int or a Fraction"),
                       (lambda: J.write_rational(0.5), "an int or a Fraction"),
                       (lambda: J.write_enclosure((0, 1)), "an Enclosure"),
                       (lambda: J.write_verdict("holds"), "a Verdict"),
                       (lambda: J.write_closed_form("log(2)"), "a sympy expression"),
                       (lambda: J.envelope("farkas", [], {}, {}), "a JSON object"),
                       (lambda: J.read_str(1, "s"), "a string"),
                       (lambda: J.read_list({}, "l"), "a JSON array"),
                       (lambda: J.read_int("1", "i"), "an integer")):
        with pytest.raises(InvalidArgument, match=what):
            call()
    doc = J.envelope("farkas", {}, {}, {})
    for part in ("question", "claim", "evidence"):
        bad = dict(doc, **{part: []})
        with pytest.raises(InvalidArgument, match=f"{part}: expected a JSON object"):
            J.read_envelope(bad)


@pytest.mark.parametrize("text, fix", [("2/1", "'2'"), ("-6/3", "'-2'"), ("2/4", "'1/2'"), ("-10/15", "'-2/3'")])
def test_one_canonical_form_check(text, fix):
    with pytest.raises(InvalidArgument, match=f"not in lowest terms; write {fix}"):
        J.read_rational(text)


# ----------------------------------------------------------------------------- metricio
@pytest.mark.parametrize("ctor, params, n", [
    ("hamming", {"values": [0, 0], "individuals": 1}, 2),
    ("hamming", {"values": [1, {"rational": "1"}], "individuals": 1}, 2),  # 1 and 1/1: one label
    ("from_graph", {"nodes": ["a", "a"], "edges": [["a", "a", "1"]]}, 2),
])
def test_labels_must_be_distinct(ctor, params, n):
    with pytest.raises(InvalidArgument, match="not distinct"):
        build_builtin(ctor, params, n)


def test_graph_nodes_and_edge_ends():
    assert build_builtin("from_graph", {"nodes": ["a", "b"], "edges": [["a", "b", "2"]]}, 2).n == 2
    with pytest.raises(InvalidArgument, match="an end is not in nodes"):
        build_builtin("from_graph", {"nodes": ["a", "b"], "edges": [["a", "b", "1"], ["b", "c", "1"]]}, 2)
    with pytest.raises(InvalidArgument, match="at most 300"):
        build_builtin("from_graph", {"nodes": list(range(301)), "edges": []}, 301)


@pytest.mark.parametrize("ctor, params, n, count", [
    ("line", {"n": 4}, 3, "4"), ("cycle", {"n": 2}, 3, "2"), ("band", {"n": 5, "w": 2}, 4, "5"),
    ("discrete", {"n": 3, "distance": "1/2"}, 4, "3"), ("sum_query", {"u": 2, "v": 3}, 6, "7"),
    ("grid", {"width": 2, "height": 3, "norm": "manhattan", "spacing": "1"}, 5, "6"),
    ("count_queries", {"u": 1, "k": 3}, 9, "8"), ("count_queries", {"u": 1, "k": 10_000}, 4, "more than 10000"),
    ("hamming", {"values": [0, 1, 2], "individuals": 2}, 8, "9"),
    ("hamming", {"values": [0, 1, 2], "individuals": 9_999}, 9, "more than 10000"),
    ("from_graph", {"nodes": ["a", "b", "c"], "edges": [["a", "b", "1"]]}, 2, "3"),
])
def test_sizes_are_checked_before_building(ctor, params, n, count):
    with pytest.raises(InvalidArgument, match=f"{ctor} with these params has {count} points, not n = {n}"):
        build_builtin(ctor, params, n)


def test_distance_index_entries():
    doc = question_of(from_matrix([[0, 1, 2], [1, 0, 1], [2, 1, 0]]), "threshold-tight").to_json()
    assert doc["metric"]["encoding"] == "distances"
    Question.from_json(doc)
    for edit, msg in ((lambda m: m["index"][0].__setitem__(1, True), r"index\[0\]\[1\]: expected an integer"),
                      (lambda m: m["index"][2].__setitem__(0, 3), r"index\[2\]\[0\]: got 3"),
                      (lambda m: m["index"][1].pop(), r"index\[1\]: has 2 items"),
                      (lambda m: m["index"].pop(), r"index: has 2 items"),
                      (lambda m: m["values"].append({"coef": "3", "radicand": "1"}), "never used")):
        bad = copy.deepcopy(doc)
        edit(bad["metric"])
        with pytest.raises(InvalidArgument, match=msg):
            Question.from_json(bad)


def test_fingerprint_ignores_values_no_pair_takes():
    m = line(3)
    extra = type(m)("line(3)", m.points, [*m.values, Distance.rational(7)], m.index)
    assert fingerprint(extra) == fingerprint(m)


# ----------------------------------------------------------------------------- question
def test_level_kind_fits_the_property():
    m, spec = line(3), ("line", '{"n":3}')
    fp, half, mech = fingerprint(m), parse_level(t="1/2"), [["1"]] * 3
    with pytest.raises(InvalidArgument, match="EpsRange"):
        Question.bind(m, spec, fp, "threshold-tight", ONES, half)
    with pytest.raises(InvalidArgument, match="parse_level"):
        Question.bind(m, spec, fp, "tight-constraints", ONES, ALL_EPS)
    with pytest.raises(InvalidArgument, match="it takes no level"):
        Question.bind(m, spec, fp, "privacy-level", None, half, mech)
    assert Question.bind(m, spec, fp, "privacy-level", None, None, mech).level is None


def test_mechanism_entries_are_located():
    doc = question_of(line(2), "privacy-level", mechanism=[["3/4", "1/4"], ["1/4", "3/4"]]).to_json()
    for value, msg in ((1, r"question.mechanism\[1\]\[0\]: expected a rational string"),
                       ("2/4", r"question.mechanism\[1\]\[0\]: got '2/4'")):
        bad = copy.deepcopy(doc)
        bad["mechanism"][1][0] = value
        with pytest.raises(InvalidArgument, match=msg):
            Question.from_json(bad)


# ------------------------------------------------------------------------------ readers
def test_privacy_readers_check_kind_evidence_and_property():
    q = question_of(line(2), "privacy-level", mechanism=[["3/4", "1/4"], ["1/4", "3/4"]])
    doc = write_privacy_level(q, F(3), (0, 1, 0), Enclosure(F(1), F(2)))
    assert read_privacy_level(doc).witness == (0, 1, 0)
    with pytest.raises(InvalidArgument, match="kind: 'privacy-level' is not one of"):
        read_privacy_check(doc)
    with pytest.raises(InvalidArgument, match="unexpected key"):
        read_privacy_level(dict(doc, evidence={"x": "1"}))
    other = question_of(line(2), "private", t="1/2",
                        mechanism=[["3/4", "1/4"], ["1/4", "3/4"]]).to_json()
    with pytest.raises(InvalidArgument, match="question.property: 'private' is not one of"):
        read_privacy_level(dict(doc, question=other))


def _kron_doc(depth, width=1):
    ones = (F(1),) * 4
    claim = ThresholdClaim("prop9", cycle(4), ones, Enclosure(F(0), F(0)), {})
    for _ in range(depth):
        claim = ThresholdClaim("kronecker-threshold", cycle(4), ones, Enclosure(F(0), F(0)),
                               {"factors": (claim,) * width, "binding": width - 1})
    return write_threshold(claim)


def test_threshold_binding_and_depth():
    doc = _kron_doc(1, 2)
    assert read_threshold(doc).evidence["binding"] == 1
    for binding in (2, -1, True, "1"):
        with pytest.raises(InvalidArgument, match="evidence.binding"):
            read_threshold(dict(doc, evidence=dict(doc["evidence"], binding=binding)))
    read_threshold(_kron_doc(MAX_DEPTH))
    with pytest.raises(InvalidArgument, match=f"nested more than {MAX_DEPTH} deep"):
        read_threshold(_kron_doc(MAX_DEPTH + 1))


# -------------------------------------------------------------------------------- CLI
def test_kernel_cli_exit_codes(tmp_path, capsys):
    assert main([]) == 3
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    assert main([str(tmp_path / "missing.json"), str(bad)]) == 3
    err = capsys.readouterr().err
    assert "missing.json: malformed: FileNotFoundError" in err and "bad.json: malformed: InvalidArgument" in err


@pytest.mark.parametrize("label", [True, False, None, 1.5, [[[[["a"]]]]], {"rational": "1/2", "x": "1"}])
def test_labels_that_are_not_labels(label):
    with pytest.raises(InvalidArgument, match=r"nodes\[1\]"):
        build_builtin("from_graph", {"nodes": ["a", label], "edges": []}, 2)


def test_spd_point_index_out_of_range_is_malformed() -> None:
    # review 11K1 m5: the spd-point reader's claim.index range check had no test
    from exactdp.kernel.verify import verify_document
    from exactdp.metrics import sum_query
    from exactdp.threshold import epsilon_threshold

    m = sum_query(3, 3)
    doc = epsilon_threshold(m, method="certified").certificate.fail.to_json()
    verify_document(doc)  # the genuine document reads
    for bad in (m.n, m.n + 5, 10**17):
        forged = copy.deepcopy(doc)
        forged["claim"]["index"] = bad
        with pytest.raises(InvalidArgument, match="claim.index"):
            verify_document(forged)
