"""A certificate's question (exactdp.kernel.question / metricio / axioms): exact binding by
fingerprint, JSON round trips for every metric constructor, structure metadata that only the
library can set, and tamper resistance of the JSON form.

Ground truth of the tampering suite: an edited ``question`` document is either rejected with
a specific error (``InvalidArgument`` and its subclasses for malformed or inconsistent
content, ``CertificateInvalid`` when the stated fingerprint does not match the metric), or it
is accepted as a question whose canonical JSON is exactly the edited document. Edits inside
the metric (other than point labels, which are names and not part of the question) must be
rejected; an accepted question ``matches`` the original only if the edit changed nothing but
labels.
"""

from __future__ import annotations

import copy
import json
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp.engine.questions import canonical_metric, make_question, question_of, same_question
from exactdp.errors import (
    CertificateInvalid,
    InstanceTooLarge,
    InvalidArgument,
    InvalidMechanism,
    InvalidMetric,
    InvalidPrior,
    InvalidPrivacyLevel,
)
from exactdp.kernel.axioms import check_axioms, metric_from_distances
from exactdp.kernel.jsonio import dumps, loads
from exactdp.kernel.metricio import CONSTRUCTORS, fingerprint
from exactdp.kernel.question import ALL_EPS, ONES, EpsRange, Property, Question
from exactdp.spaces import metrics as M
from exactdp.spaces.distances import Distance
from exactdp.spaces.levels import parse_level

STAR = [[0, 1, 1, 1], [1, 0, 2, 2], [1, 2, 0, 2], [1, 2, 2, 0]]

BUILTINS = {
    "line": M.line(4),
    "cycle": M.cycle(5),
    "discrete": M.discrete(3, "1/2"),
    "sum_query": M.sum_query(2, 3),
    "count_queries": M.count_queries(2, 2),
    "hamming": M.hamming(["a", "b"], 2),
    "grid": M.grid(3, 2),
    "band": M.band(6, 2),
    "from_graph": M.from_graph([("a", "b", 2), ("b", "c"), ("c", "a", "5/2")], nodes=["c"]),
}
MORE = [M.hamming(3, 2), M.grid(2, 3, "manhattan", "1/2"), M.grid(3, 3, "chebyshev"),
        M.count_queries(1, 3), M.line(1)]
RAW = [
    M.from_matrix([[0, "sqrt(2)", 1], ["sqrt(2)", 0, 1], [1, 1, 0]]),
    M.from_matrix([[0, "sqrt(8)", "3/2"], ["sqrt(8)", 0, "sqrt(3)"], ["3/2", "sqrt(3)", 0]],
                  points=["x", "y", "z"]),
    M.from_matrix(STAR),
    M.line_scaled(3, Fraction(1, 2)),  # a library metric without a JSON constructor
]


def _star(**meta):
    return M.FiniteMetric("star", range(4), [Distance.rational(k) for k in range(3)],
                          np.array(STAR), **meta)


def _round_trip(q: Question) -> Question:
    back = Question.from_json(loads(dumps(q.to_json())))
    assert same_question(back, q) and back == q
    assert dumps(back.to_json()) == dumps(q.to_json())
    return back


# ------------------------------------------------------------------ round trips
def test_every_constructor_is_covered():
    assert set(BUILTINS) == set(CONSTRUCTORS)


@pytest.mark.parametrize("metric", [*BUILTINS.values(), *MORE], ids=lambda m: m.name)
def test_builtin_round_trip(metric):
    q = question_of(metric, "regular", prior="uniform", eps="4/5")
    doc = q.to_json()
    assert doc["metric"]["encoding"] == "builtin"
    back = _round_trip(q)
    assert back.metric.name == metric.name
    assert back.metric.points == metric.points
    assert (back.metric.kronecker_factors is None) == (metric.kronecker_factors is None)
    assert back.metric.grid == metric.grid
    assert len(dumps(doc)) < 1000  # parameters travel, not distances


@pytest.mark.parametrize("metric", RAW, ids=lambda m: m.name)
def test_raw_round_trip(metric):
    q = question_of(metric, "tight-constraints", t="1/3")
    assert q.to_json()["metric"]["encoding"] == "distances"
    back = _round_trip(q)
    for i in range(metric.n):
        for j in range(metric.n):
            assert back.metric.distance(i, j).square == metric.distance(i, j).square
    assert back.metric.kronecker_factors is None and back.metric.grid is None


def test_large_builtin_travels_by_parameters():
    q = question_of(M.grid(30, 30), "threshold-tight")
    text = dumps(q.to_json())
    assert len(text) < 400
    assert same_question(Question.from_json(loads(text)), q)


@pytest.mark.parametrize("kwargs", [
    dict(prop="tight-constraints", eps="ln(3)/2"),
    dict(prop="tight-constraints", eps="sqrt(2)"),
    dict(prop="regular", prior=["1/2", "1/4", "1/4", 0], t="9/10"),
    dict(prop="threshold-regular", prior={0: "1/2", 3: "1/2"}),
    dict(prop="threshold-tight", eps_range=("1/10", 5)),
    dict(prop="private", mechanism=[["1/2", "1/2"], ["1/3", "2/3"], [1, 0], [0, 1]], eps=1),
    dict(prop="privacy-level", mechanism=[[1]] * 4),
])
def test_every_property_round_trips(kwargs):
    prop = kwargs.pop("prop")
    q = question_of(M.line(4), prop, **kwargs)
    _round_trip(q)


def test_levels_have_one_canonical_form():
    a = question_of(M.line(2), "tight-constraints", eps="ln(2)")
    b = question_of(M.line(2), "tight-constraints", t="1/2")
    assert same_question(a, b) and a.to_json()["level"] == {"t": "1/2"}
    doc = a.to_json()
    doc["level"] = {"eps": "log(2)"}
    with pytest.raises(InvalidArgument, match="write"):
        Question.from_json(doc)
    doc["level"] = {"eps": "0.8"}
    with pytest.raises(InvalidArgument, match="canonical"):
        Question.from_json(doc)


# ------------------------------------------------------------------ fingerprints
def test_fingerprint_is_the_exact_distance_data():
    base = M.from_matrix(M.line(4).index.tolist())
    assert fingerprint(base) == fingerprint(M.line(4))
    perm = [1, 0, 2, 3]
    swapped = M.from_matrix(np.asarray(M.line(4).index)[np.ix_(perm, perm)].tolist())
    assert fingerprint(swapped) != fingerprint(base)
    changed = [[0, 1, 2, "5/2"], [1, 0, 1, 2], [2, 1, 0, 1], ["5/2", 2, 1, 0]]
    assert fingerprint(M.from_matrix(changed)) != fingerprint(base)
    g = M.grid(2, 2)  # √2 on the diagonal
    D = [[str(g.distance(i, j)) for j in range(4)] for i in range(4)]
    assert fingerprint(M.from_matrix(D)) == fingerprint(g)
    D[0][3] = D[3][0] = "3/2"
    assert fingerprint(M.from_matrix(D)) != fingerprint(g)


def test_fingerprint_ignores_value_order_and_normal_form():
    vals = [Distance.rational(0), Distance(Fraction(1), 4), Distance.rational(1)]  # √4 = 2
    m = M.FiniteMetric("x", range(3), vals, np.array([[0, 2, 1], [2, 0, 2], [1, 2, 0]]))
    assert fingerprint(m) == fingerprint(M.from_matrix([[0, 1, 2], [1, 0, 1], [2, 1, 0]]))
    q = question_of(m, "tight-constraints", t="1/2")
    assert q.metric.distance(0, 2) == Distance.rational(2)  # normalised
    _round_trip(q)


def test_fingerprint_rejects_non_distances():
    bad = M.FiniteMetric("x", range(2), [Distance.rational(0), Distance(Fraction(-1), 1)],
                         np.array([[0, 1], [1, 0]]))
    with pytest.raises(InvalidMetric):
        fingerprint(bad)
    with pytest.raises(InvalidMetric):
        fingerprint(M.FiniteMetric("x", range(2), [Distance.rational(0)], np.array([[0, 1], [1, 0]])))
    with pytest.raises(InvalidMetric):
        question_of(None, "regular")


# ------------------------------------------------------------------ structure is never trusted
def test_false_kronecker_factors_are_refused_or_dropped():
    """Issue 11 point 5: the 4-point star with false kronecker_factors=(line(2), line(2)).

    FiniteMetric refuses the false claim at construction; a question never carries structure."""
    for meta in ({"kronecker_factors": (M.line(2), M.line(2))}, {"toeplitz": True},
                 {"grid_info": M.GridInfo(2, 2, "manhattan", Fraction(1))}):
        with pytest.raises(InvalidMetric, match="false"):
            _star(**meta)
    star = _star()
    q = question_of(star, "threshold-tight")
    assert q.metric.kronecker_factors is None and q.metric.grid is None and not q.metric.toeplitz
    doc = q.to_json()
    assert doc["metric"]["encoding"] == "distances"
    back = Question.from_json(loads(dumps(doc)))
    assert back.metric.kronecker_factors is None and same_question(back, q)
    # a structure claim cannot be smuggled into the JSON either
    doc["metric"]["kronecker_factors"] = ["line(2)", "line(2)"]
    with pytest.raises(InvalidArgument, match="unexpected"):
        Question.from_json(doc)


def test_builtin_name_on_other_distances_is_not_a_builtin():
    fake = M.FiniteMetric("hamming(2, 2)", range(4), [Distance.rational(k) for k in range(3)],
                          np.array(STAR), params={"values": [0, 1], "individuals": 2})
    m, spec, fp = canonical_metric(fake)
    assert spec is None and m.kronecker_factors is None and fp == fingerprint(fake)
    # and a builtin encoding whose constructor builds other distances is rejected
    doc = question_of(M.hamming(2, 2), "threshold-tight").to_json()
    doc["metric"]["fingerprint"] = fingerprint(fake)
    with pytest.raises(CertificateInvalid, match="fingerprint"):
        Question.from_json(doc)


def test_true_structure_comes_from_the_constructor():
    honest_name = M.FiniteMetric("line(3)", range(3), M.line(3).values, M.line(3).index,
                                 params={"n": 3})
    q = question_of(honest_name, "tight-constraints", t="1/2")
    assert q.builtin is not None and q.metric.kronecker_factors is None and q.metric.toeplitz


def test_non_metrics_are_refused_exactly():
    with pytest.raises(InvalidMetric, match="triangle"):
        question_of(M.FiniteMetric("x", range(3), [Distance.rational(k) for k in (0, 1, 3)],
                                   np.array([[0, 1, 2], [1, 0, 1], [2, 1, 0]])), "regular")
    s2, s8 = Distance.sqrt_of(2), Distance.sqrt_of(Fraction(8) + Fraction(1, 10**30))
    with pytest.raises(InvalidMetric, match="triangle"):  # 2√2 + tiny > √2 + √2
        metric_from_distances([Distance.rational(0), s2, s8], np.array([[0, 1, 2], [1, 0, 1], [2, 1, 0]]))
    metric_from_distances([Distance.rational(0), s2, Distance.sqrt_of(8)],
                          np.array([[0, 1, 2], [1, 0, 1], [2, 1, 0]]))  # equality holds
    for idx, what in (([[1, 1], [1, 0]], "diagonal"), ([[0, 0], [0, 0]], "separates"),
                      ([[0, 1, 1], [1, 0, 2], [2, 1, 0]], "symmetric")):
        with pytest.raises(InvalidMetric, match=what):
            check_axioms([Distance.rational(k) for k in range(3)], np.array(idx))
    big = [Distance.rational(0), Distance.rational(10**40), Distance.rational(3 * 10**40)]
    with pytest.raises(InvalidMetric, match="triangle"):  # exact Python ints beyond int64
        check_axioms(big, np.array([[0, 1, 2], [1, 0, 1], [2, 1, 0]]))


# ------------------------------------------------------------------ semantic checks on read
def test_priors_levels_mechanisms_are_checked_on_read():
    doc = question_of(M.line(3), "regular", prior="uniform", t="1/2").to_json()
    for rhs, err in ((["1/2", "1/2", "1/2"], InvalidPrior), (["-1/2", "1", "1/2"], InvalidPrior),
                     (["1/2", "1/2"], InvalidArgument), ("ones", InvalidArgument),
                     ([0.5, "1/4", "1/4"], InvalidArgument), (None, InvalidArgument)):
        bad = copy.deepcopy(doc)
        bad["rhs"] = rhs
        with pytest.raises(err):
            Question.from_json(bad)
    for level, err in (({"t": "1"}, InvalidPrivacyLevel), ({"t": "0"}, InvalidPrivacyLevel),
                       ({"eps": "-1"}, InvalidPrivacyLevel), ({"eps": "0"}, InvalidPrivacyLevel),
                       ({"eps_range": {"lo": "0", "hi": None}}, InvalidArgument),
                       ({"t": "1/2", "eps": "log(2)"}, InvalidArgument), ({}, InvalidArgument),
                       ({"s": "1/2"}, InvalidArgument), (None, InvalidArgument)):
        bad = copy.deepcopy(doc)
        bad["level"] = level
        with pytest.raises(err):
            Question.from_json(bad)
    mdoc = question_of(M.line(2), "private", mechanism=[[1, 0], [0, 1]], eps=1).to_json()
    for mech, err in (([["1/2", "1/2"], ["1/2", "1/3"]], InvalidMechanism),
                      ([["3/2", "-1/2"], ["1", "0"]], InvalidMechanism),
                      ([["1"]], InvalidArgument), (None, InvalidMechanism)):
        bad = copy.deepcopy(mdoc)
        bad["mechanism"] = mech
        with pytest.raises(err):
            Question.from_json(bad)


def test_shapes_of_direct_construction():
    lvl = parse_level(t="1/2")
    with pytest.raises(InvalidArgument):
        make_question(M.line(2), Property.REGULAR, ONES, lvl)
    with pytest.raises(InvalidArgument):
        make_question(M.line(2), Property.TIGHT_CONSTRAINTS, ONES, ALL_EPS)
    with pytest.raises(InvalidArgument):
        make_question(M.line(2), "no-such-property", ONES, lvl)
    with pytest.raises(InvalidArgument):
        make_question(M.line(2), Property.TIGHT_CONSTRAINTS, ONES, lvl, ((Fraction(1),),) * 2)
    with pytest.raises(InvalidPrivacyLevel):
        EpsRange(Fraction(1), Fraction(1))
    q = make_question(M.line(2), Property.TIGHT_CONSTRAINTS, ONES, lvl)
    assert same_question(q, question_of(M.line(2), "tight-constraints", t="1/2"))
    assert not same_question(q, question_of(M.line(2), "threshold-tight"))
    assert not same_question(q, "not a question")


def test_metric_size_limits_fail_fast():
    doc = question_of(M.line(3), "threshold-tight").to_json()
    doc["metric"]["params"]["n"] = 10**9
    doc["metric"]["n"] = 10**9
    with pytest.raises(InvalidArgument, match="lie in"):
        Question.from_json(doc)
    doc = question_of(M.hamming(2, 2), "threshold-tight").to_json()
    doc["metric"]["params"]["individuals"] = 9000
    with pytest.raises(InvalidArgument):
        Question.from_json(doc)
    raw = question_of(M.from_matrix(STAR), "threshold-tight").to_json()
    with pytest.raises(InvalidArgument):
        Question.from_json(raw, max_distance_points=3)


# ------------------------------------------------------------------ tampering (hypothesis)
DOCS = [
    question_of(M.line(3), "regular", prior=["1/2", "1/4", "1/4"], t="1/2").to_json(),
    question_of(M.hamming(["a", "b"], 2), "threshold-regular", prior="uniform",
                eps_range=("1/10", None)).to_json(),
    question_of(M.from_graph([("a", "b", 2), ("b", "c")]), "tight-constraints", eps="sqrt(2)").to_json(),
    question_of(RAW[1], "private", mechanism=[["1/2", "1/2"], [1, 0], ["1/3", "2/3"]], eps=1).to_json(),
    question_of(_star(), "threshold-tight").to_json(),
    question_of(M.grid(2, 2, "manhattan", "1/3"), "privacy-level", mechanism=[[1]] * 4).to_json(),
]


def _is_label(path):
    """Point labels are names, not part of the question."""
    return path[:2] == ("metric", "points") or path[:3] in (("metric", "params", "values"),
                                                            ("metric", "params", "nodes"))


def _paths(node, path=()):
    yield path
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _paths(v, (*path, k))
    elif isinstance(node, list):
        for k, v in enumerate(node):
            yield from _paths(v, (*path, k))


def _get(node, path):
    for p in path:
        node = node[p]
    return node


def _nudges(value):
    out = []
    if isinstance(value, str):
        try:
            f = Fraction(value)
        except (ValueError, ZeroDivisionError):
            return out
        out = [str(f + Fraction(1, 10**20)), str(-f), str(f * 2), value + ".0", value + "/1",
               f"{f.numerator * 2}/{f.denominator * 2}", " " + value]
    return out


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**25), 10**25) | st.floats(allow_nan=True)
    | st.text(max_size=8) | st.sampled_from(["1/2", "0", "1/0", "ones", "builtin", "distances",
                                              "line", "regular", "sha256:00", "NaN", "1e400"]),
    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=4), kids, max_size=2),
    max_leaves=4,
)


@st.composite
def tamperings(draw):
    doc = copy.deepcopy(draw(st.sampled_from(DOCS)))
    paths = list(_paths(doc))
    path = draw(st.sampled_from(paths[1:]))
    parent, key = _get(doc, path[:-1]), path[-1]
    op = draw(st.sampled_from(["replace", "replace", "nudge", "delete", "add"]))
    if op == "nudge" and _nudges(parent[key]):
        parent[key] = draw(st.sampled_from(_nudges(parent[key])))
    elif op == "delete" and isinstance(parent, dict):
        del parent[key]
    elif op == "add" and isinstance(parent, dict):
        parent[draw(st.text(max_size=6))] = draw(json_values)
    elif op == "add":
        parent.append(draw(json_values))
    else:
        parent[key] = draw(json_values)
    return doc, path


@given(tamperings())
@settings(max_examples=600, deadline=None)
def test_tampered_questions_are_rejected_or_exactly_what_they_say(case):
    doc, path = case
    try:
        q = Question.from_json(doc)
    except (InvalidArgument, CertificateInvalid):
        return  # rejected with a specific error
    assert dumps(q.to_json()) == dumps(doc)  # accepted only in canonical form
    assert q.fingerprint == fingerprint(q.metric)
    if path[0] == "metric" and not _is_label(path):
        # a metric edit is accepted only when it changed nothing
        assert any(dumps(d["metric"]) == dumps(doc["metric"]) for d in DOCS)


@pytest.mark.parametrize("k", range(len(DOCS)))
def test_tampered_text(k):
    text = dumps(DOCS[k])
    assert Question.from_json(loads(text)).to_json() == DOCS[k]
    fp = DOCS[k]["metric"]["fingerprint"]
    edits = [
        text.replace('"property"', '"property":"regular","property"'),  # duplicate key
        text.replace(fp, fp[:-1] + ("0" if fp[-1] != "0" else "1")),  # fingerprint edited
        text.replace('"n":', '"n":1.0,"m":', 1),  # float literal
        text.replace("sha256:", "sha256:" + "0" * 10**6),  # huge string
    ]
    for bad in edits:
        with pytest.raises((InvalidArgument, CertificateInvalid)):
            Question.from_json(loads(bad))
    with pytest.raises(InvalidArgument):
        loads(json.dumps({**DOCS[k], "rhs": 0.25}))


def test_valid_edits_give_other_questions_that_do_not_match():
    original = Question.from_json(DOCS[0])
    for key, value in (("level", {"t": "1/3"}), ("rhs", ["1/4", "1/4", "1/2"])):
        doc = copy.deepcopy(DOCS[0])
        doc[key] = value
        assert not same_question(Question.from_json(doc), original)
    doc = copy.deepcopy(DOCS[1])
    doc["metric"]["params"]["values"] = ["x", "y"]  # labels only: the same question
    assert same_question(Question.from_json(doc), Question.from_json(DOCS[1]))
    with pytest.raises(InvalidArgument, match="no prior"):
        question_of(M.line(2), "tight-constraints", prior="uniform", t="1/2")
    doc = copy.deepcopy(DOCS[2])
    doc["level"] = {"eps": "exp(exp(exp(exp(E))))"}
    with pytest.raises(InvalidPrivacyLevel, match="nests"):
        Question.from_json(doc)


def test_too_many_points_is_refused_before_reading_distances():
    def never():
        raise AssertionError("the index must not be built")

    big = M.FiniteMetric("big", range(10_001), [Distance.rational(0)], never)
    with pytest.raises(InstanceTooLarge, match="max_points"):
        question_of(big, "threshold-tight")


def test_stated_size_cannot_hide_a_larger_construction():
    doc = question_of(M.hamming(2, 2), "threshold-tight").to_json()
    doc["metric"]["params"]["individuals"] = 20  # 2^20 points
    doc["metric"]["n"] = 2**14
    with pytest.raises(InvalidArgument, match="more than"):
        Question.from_json(doc, max_points=20_000)
