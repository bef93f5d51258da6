"""The kernel's privacy kinds (``privacy-level``, ``privacy-check``) against an independent
oracle: generated exact mechanisms on rational metrics, every claim tampered (value, witness,
enclosure, verdict, violation, level, metric and mechanism swapped, JSON text edited), and
the tampered claim's truth decided here with exact Fractions (integer powers) — the kernel
must verify exactly the true claims."""

from __future__ import annotations

import copy
import os
import random
from fractions import Fraction as F

import mpmath
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from exactdp.arithmetic.interval import Enclosure
from exactdp.engine.documents import write_level_value
from exactdp.engine.questions import question_of
from exactdp.errors import CertificateInvalid, ExactDPError
from exactdp.kernel.jsonio import dumps, envelope, loads, write_enclosure
from exactdp.kernel.privacy import (
    MAX_WORK,
    LogValue,
    edges_suffice,
    log_form,
    log_sign,
    sufficient_pairs,
)
from exactdp.kernel.privacy_json import read_privacy_check, read_privacy_level
from exactdp.kernel.verify import verify_document
from exactdp.mechanisms.constructors import from_rows
from exactdp.mechanisms.privacy import is_private, privacy_level
from exactdp.mechanisms.privacy_json import check_document, level_document
from exactdp.spaces.distances import Distance
from exactdp.spaces.metrics import cycle, from_matrix, hamming, line
from exactdp.testing.mechanism_strategies import (
    mechanism_rows,
    nonprivate_mechanism_rows,
    private_mechanism_rows,
)
from exactdp.testing.oracle import rational_distance_matrix
from exactdp.testing.strategies import matrix_metrics

mpmath.mp.dps = 60
#: EXACTDP_TAMPER_EXAMPLES=k multiplies the generated instances (a longer run)
SCALE = int(os.environ.get("EXACTDP_TAMPER_EXAMPLES", "1"))
#: tamperings tried, genuine documents, forgeries accepted (always 0: asserted)
COUNTS = {"tampered": 0, "genuine": 0, "malformed": 0}
EXAMPLES = settings(max_examples=8 * SCALE, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# ------------------------------------------------------------------- the oracle (exact)
def cmp_log(r1, d1, r2, d2):
    """Sign of ln(r1)/d1 − ln(r2)/d2 for rationals r ≥ 1, d > 0: r1^(d2) vs r2^(d1) with the
    common denominators cleared (exact integer powers)."""
    a = d2.numerator * d1.denominator
    b = d1.numerator * d2.denominator
    x, y = F(r1) ** a, F(r2) ** b
    return (x > y) - (x < y)


def true_level(rows, D):
    """"inf", "zero" or (R, d) with ln(R)/d the largest ln(H[i,z]/H[j,z])/d(i,j), all pairs."""
    best = None
    n = len(rows)
    for i in range(n):
        for j in range(n):
            if i == j:
                continue
            for z in range(len(rows[0])):
                a, b = rows[i][z], rows[j][z]
                if a == 0:
                    continue
                if b == 0:
                    return "inf"
                if a > b and (best is None or cmp_log(a / b, D[i][j], *best) > 0):
                    best = (a / b, D[i][j])
    return "zero" if best is None else best


def encloses(enc, R, d):
    # at 60 digits whatever mpmath's global precision (other test files change it: with 40
    # digits a 10^400 ratio's tight enclosure was judged false)
    with mpmath.workdps(60):
        v = mpmath.log(mpmath.mpf(R.numerator) / R.denominator) / (mpmath.mpf(d.numerator) / d.denominator)
        return mpmath.mpf(enc.lo.numerator) / enc.lo.denominator < v < mpmath.mpf(enc.hi.numerator) / enc.hi.denominator


def witness_ok(rows, w):
    n, m = len(rows), len(rows[0])
    return (w is not None and 0 <= w[0] < n and 0 <= w[1] < n and 0 <= w[2] < m
            and w[0] != w[1] and rows[w[0]][w[2]] > 0)


def level_claim_true(rows, D, value, witness, enc):
    lv = true_level(rows, D)
    if value == "infinite":
        return enc is None and witness_ok(rows, witness) and rows[witness[1]][witness[2]] == 0
    if value == "0":
        return lv == "zero" and witness is None and enc is not None and enc.lo <= 0 <= enc.hi
    if lv in ("inf", "zero") or enc is None or not witness_ok(rows, witness):
        return False
    if value.e.radicand != 1:
        return False  # ln T/(c√s) = ln R/d (d rational, T, R > 1): impossible (Gelfond–Schneider)
    R, d = lv
    y, y2, z = witness
    if rows[y2][z] == 0:
        return False
    r = rows[y][z] / rows[y2][z]
    return (r > 1 and cmp_log(value.T, value.e.coef, R, d) == 0
            and cmp_log(r, D[y][y2], R, d) == 0 and encloses(enc, R, d))


def check_claim_true(rows, D, T, holds, violation):
    """The truth of "H is ln(T)-private" (holds) or of the violation (fails)."""
    lv = true_level(rows, D)
    if holds:
        return violation is None and lv != "inf" and (lv == "zero" or cmp_log(*lv, T, F(1)) <= 0)
    if not witness_ok(rows, violation):
        return False
    y, y2, z = violation
    if rows[y2][z] == 0:
        return True
    r = rows[y][z] / rows[y2][z]
    return r > 1 and cmp_log(r, D[y][y2], T, F(1)) > 0


# ------------------------------------------------------------------------ tamperings
def _doc_level(q, value, witness, enc):
    claim = {"value": value, "witness": None if witness is None else list(witness),
             "enclosure": None if enc is None else write_enclosure(enc)}
    return envelope("privacy-level", q.to_json(), claim, {})


def _value_of(value_json):
    """The value read by the kernel's reader (parsing only; truth is decided above)."""
    key = dumps(value_json)
    if key not in _VALUES:
        _VALUES[key] = _parse_value(value_json)
    return _VALUES[key]


_VALUES: dict = {}


def _parse_value(value_json):
    return value_json if value_json in ("0", "infinite") else read_privacy_level(
        {"schema": "exactdp-certificate", "version": 1, "kind": "privacy-level",
         "question": _Q_JSON, "claim": {"value": value_json, "witness": None,
                                        "enclosure": None}, "evidence": {}}).value


_Q_JSON = question_of(line(2), "privacy-level", mechanism=[["1/2", "1/2"]] * 2).to_json()


def level_tamperings(rows, metric, doc, rng):
    """(question rows, metric, value JSON, witness, enclosure) variants of a genuine claim."""
    c = doc["claim"]
    n, m = len(rows), len(rows[0])
    enc = None if c["enclosure"] is None else Enclosure(F(c["enclosure"]["lo"]), F(c["enclosure"]["hi"]))
    w = None if c["witness"] is None else tuple(c["witness"])
    out = [(rows, metric, c["value"], w, enc)]  # genuine
    for y in range(n):
        for y2 in range(n):
            for z in range(m):
                out.append((rows, metric, c["value"], (y, y2, z), enc))
    out.append((rows, metric, c["value"], None, enc))
    vals = ["0", "infinite"]
    v = _value_of(c["value"])
    if isinstance(v, LogValue):
        for T in (v.T * F(1001, 1000), v.T * F(999, 1000), v.T**2, v.T + F(1, 10**30)):
            if T > 1:
                vals.append(write_level_value(T, v.e))
        vals.append(write_level_value(v.T, Distance(v.e.coef * 2, v.e.radicand)))
        vals.append(write_level_value(v.T, Distance(F(1), 2)))
    for val in vals:
        out.append((rows, metric, val, w, enc))
    if enc is not None:
        for lo, hi in ((enc.lo + F(1, 10**6), enc.hi), (enc.lo, enc.hi - F(1, 10**6)),
                       (enc.lo - 1, enc.hi + 1), (enc.hi, enc.hi + 1), (enc.lo - 1, enc.lo)):
            if lo <= hi:
                out.append((rows, metric, c["value"], w, Enclosure(lo, hi)))
    out.append((rows, metric, c["value"], w, None))
    # the same claim about another mechanism / another metric of the same shape
    other = [list(r) for r in rows]
    i = rng.randrange(n)
    j, k = rng.sample(range(m), 2) if m > 1 else (0, 0)
    delta = min(other[i][j], F(1, 7))
    other[i][j] -= delta
    other[i][k] += delta
    out.append((tuple(tuple(r) for r in other), metric, c["value"], w, enc))
    out.append((tuple(reversed(rows)), metric, c["value"], w, enc))
    for alt in (line(n), cycle(n) if n > 2 else line(n),
                from_matrix([[0 if a == b else 2 for b in range(n)] for a in range(n)])):
        out.append((rows, alt, c["value"], w, enc))
    return out


def _check_level_docs(rows, metric, rng):
    H = from_rows(rows)
    doc = level_document(privacy_level(H, metric))
    for k, (r2, m2, val, w, enc) in enumerate(level_tamperings(rows, metric, doc, rng)):
        q = question_of(m2, "privacy-level", mechanism=r2)
        d2 = _doc_level(q, val, w, enc)
        got = verify_document(loads(dumps(d2))).verified
        want = level_claim_true(r2, rational_distance_matrix(m2), _value_of(val), w, enc)
        assert got == want, (k, rows, metric.name, val, w, enc)
        COUNTS["genuine" if k == 0 else "tampered"] += 1
        if k == 0:
            assert got, "a genuine document must verify"


def _check_check_docs(rows, metric, t, rng):
    H = from_rows(rows)
    chk = is_private(H, metric, t=t)
    doc = check_document(chk)
    n, m = len(rows), len(rows[0])
    D = rational_distance_matrix(metric)
    variants = [(t, chk.private, chk.violation), (t, not chk.private, chk.violation),
                (t, not chk.private, None), (t * F(1001, 1000), chk.private, chk.violation),
                (t * F(999, 1000), chk.private, chk.violation), (t**2, chk.private, None),
                (t**2, False, chk.violation)]
    variants += [(t, False, (y, y2, z)) for y in range(n) for y2 in range(n) for z in range(m)]
    questions: dict = {}
    for k, (tt, holds, viol) in enumerate(variants):
        if not 0 < tt < 1:
            continue
        if tt not in questions:
            questions[tt] = question_of(metric, "private", t=tt, mechanism=rows).to_json()
        d2 = copy.deepcopy(doc)
        d2["question"] = questions[tt]
        d2["claim"] = {"verdict": "holds" if holds else "fails",
                       "violation": None if viol is None else list(viol)}
        got = verify_document(loads(dumps(d2))).verified
        want = check_claim_true(rows, D, 1 / tt, holds, viol)
        assert got == want, (k, rows, metric.name, tt, holds, viol)
        COUNTS["genuine" if k == 0 else "tampered"] += 1
        if k == 0:
            assert got


def _text_edits(doc, rng, count=12):
    """Edit one character of the canonical text; every edit is malformed or decided."""
    text = dumps(doc)
    digits = [i for i, ch in enumerate(text) if ch.isdigit()]
    for _ in range(count):
        i = rng.choice(digits)
        new = text[:i] + rng.choice("0123456789-/") + text[i + 1:]
        if new == text:
            continue
        try:
            d2 = loads(new)
            got = verify_document(d2).verified
        except ExactDPError:
            COUNTS["malformed"] += 1
            continue  # malformed (exit 3)
        try:
            reader = read_privacy_level if d2["kind"] == "privacy-level" else read_privacy_check
            reader(d2)
        except CertificateInvalid:  # the question was altered: its fingerprint no longer fits
            assert not got, new
            COUNTS["tampered"] += 1
            continue
        if d2["kind"] == "privacy-level":
            cl = read_privacy_level(d2)
            q = cl.question
            want = level_claim_true(q.mechanism, rational_distance_matrix(q.metric), cl.value,
                                    cl.witness, cl.enclosure)
        else:
            cl = read_privacy_check(d2)
            q = cl.question
            want = check_claim_true(q.mechanism, rational_distance_matrix(q.metric),
                                    1 / q.level.t, cl.holds, cl.violation)
        assert got == want, new
        COUNTS["tampered"] += 1


# ----------------------------------------------------------------------------- tests
@EXAMPLES
@given(st.data())
def test_tampered_level_documents_are_decided_like_the_oracle(data):
    metric = data.draw(st.sampled_from([line(3), cycle(4), hamming(2, 2)])
                       | matrix_metrics(min_n=2, max_n=4, denominators=(1, 2)))
    rows = data.draw(mechanism_rows(metric.n, outputs=data.draw(st.integers(2, 3)),
                                    max_weight=6))
    rng = random.Random(data.draw(st.integers(0, 2**30)))
    _check_level_docs(rows, metric, rng)
    _text_edits(level_document(privacy_level(from_rows(rows), metric)), rng)


@settings(EXAMPLES, max_examples=6 * SCALE)
@given(st.data())
def test_tampered_check_documents_are_decided_like_the_oracle(data):
    metric = data.draw(st.sampled_from([line(3), cycle(4), line(4)]))
    t = data.draw(st.sampled_from([F(1, 2), F(1, 3), F(2, 3)]))
    rows = data.draw(private_mechanism_rows(metric, t) | nonprivate_mechanism_rows(metric, t))
    rng = random.Random(data.draw(st.integers(0, 2**30)))
    _check_check_docs(rows, metric, t, rng)
    _text_edits(check_document(is_private(from_rows(rows), metric, t=t)), rng)


def test_fixed_cases_huge_ratios_zero_and_infinite_levels():
    rng = random.Random(5)
    cases = [
        ((F(1), F(0)), (F(0), F(1))),                                   # infinite
        ((F(1, 2), F(1, 2)), (F(1, 2), F(1, 2)), (F(1, 2), F(1, 2))),   # zero
        ((1 - F(1, 10**400), F(1, 10**400)), (1 - F(1, 10**800), F(1, 10**800))),  # issue 11 pt 1
        ((F(3, 4), F(1, 4)), (F(1, 2), F(1, 2)), (F(1, 4), F(3, 4))),   # ties: ratio 3 at d = 2
    ]
    for rows in cases:
        _check_level_docs(rows, line(len(rows)), rng)


def test_the_level_at_an_irrational_distance_and_every_closed_form_of_eps():
    from exactdp.spaces.metrics import grid
    H = from_rows([["1/2", "1/2"], ["3/4", "1/4"], ["1/4", "3/4"], ["1/2", "1/2"]])
    m = grid(2, 2, "euclidean")
    r = privacy_level(H, m)
    doc = level_document(r)
    assert doc["claim"]["value"] == {"eps": "sqrt(2)*log(3)/2"}
    assert verify_document(doc).verified
    for wrong in ({"eps": "log(3)/2"}, {"eps": "sqrt(2)*log(3)/3"}, {"t": "1/3"},
                  {"log_ratio": {"ratio": "3", "distance": {"coef": "1", "radicand": "3"}}}):
        bad = copy.deepcopy(doc)
        bad["claim"]["value"] = wrong
        assert not verify_document(bad).verified
    same = copy.deepcopy(doc)  # the same value spelled as log_ratio: a true claim
    same["claim"]["value"] = {"log_ratio": {"ratio": "3", "distance": {"coef": "1", "radicand": "2"}}}
    assert verify_document(same).verified
    # ε = the level exactly (a tie), just above and just below, in several closed forms
    for eps, private in ((r.value, True), ("sqrt(2)*log(3)/2 + 1/10**30", True),
                         ("sqrt(2)*log(3)/2 - 1/10**30", False), ("7/9", True), ("3/4", False),
                         ("log(3)/sqrt(2)", True), ("log(2)", False)):
        c = is_private(H, m, eps=eps)
        assert c.private is private
        d = check_document(c)
        assert verify_document(d).verified
        d["claim"]["verdict"] = "fails" if private else "holds"
        d["claim"]["violation"] = [1, 2, 0] if private else None
        assert not verify_document(d).verified


def test_log_sign_and_log_form():
    one = Distance.rational(1)
    assert log_sign(F(4), Distance.rational(2), F(2), one) == 0
    assert log_sign(F(9), Distance(F(1), 2), F(3), Distance(F(1, 2), 2)) == 0  # ln9/√2 = ln3/(√2/2)
    assert log_sign(F(8), Distance(F(1), 2), F(3), Distance(F(1, 2), 2)) == -1
    assert log_sign(F(1), one, F(1), one) == 0 and log_sign(F(2), one, F(1), one) == 1
    big = F(10**300 + 1, 10**300)
    assert log_sign(big, one, big, one) == 0 and log_sign(big + F(1, 10**400), one, big, one) == 1
    assert log_sign(F(2), Distance(F(1), 2), F(2), one) == -1  # irrational ratio: balls
    assert log_form(mpmath_free_log("sqrt(3)*log(5)/7")) == LogValue(F(5), Distance(F(7, 3), 3))  # 7/√3
    assert log_form(mpmath_free_log("log(2) + 1")) is None


def mpmath_free_log(text):
    from exactdp.arithmetic.expressions import parse_closed_form
    return parse_closed_form(text)


def test_the_graph_reduction_is_proved_not_trusted():
    m = line(5)
    assert edges_suffice(m, ((0, 1), (1, 2), (2, 3), (3, 4)))
    assert len(sufficient_pairs(m)) == 4
    assert not edges_suffice(m, ((0, 1), (1, 2), (3, 4)))           # a pair with no path
    assert not edges_suffice(m, ((0, 1), (1, 1), (2, 3), (3, 4)))   # a loop
    star = from_matrix([[0, 1, 1, 1], [1, 0, 2, 2], [1, 2, 0, 2], [1, 2, 2, 0]])
    assert not edges_suffice(star, ((0, 1), (1, 2), (2, 3)))        # 0–3 is not a path 0–1–2–3
    assert len(sufficient_pairs(star)) == 6                          # no claim: all pairs
    from exactdp.spaces.metrics import from_graph
    halves = from_graph([(0, 1, "1/2"), (1, 2, "3/2"), (2, 3, "1/3")])  # rational weights
    assert edges_suffice(halves, halves.graph_edges) and len(sufficient_pairs(halves)) == 3


def test_witnesses_out_of_range_are_rejected_not_raised():
    doc = level_document(privacy_level(from_rows([["3/4", "1/4"], ["1/4", "3/4"]]), line(2)))
    for w in ([2, 0, 0], [0, 2, 0], [0, 1, 2], [0, 0, 0], [1, 0, 0]):  # (1, 0, 1) also attains
        bad = copy.deepcopy(doc)
        bad["claim"]["witness"] = w
        assert not verify_document(bad).verified, w
    chk = check_document(is_private(from_rows([["3/4", "1/4"], ["1/4", "3/4"]]), line(2), eps=1))
    for w in ([2, 0, 0], [0, 2, 0], [0, 1, 2], [1, 1, 0]):
        bad = copy.deepcopy(chk)
        bad["claim"]["violation"] = w
        assert not verify_document(bad).verified, w


def test_work_limit_refuses_huge_checks():
    assert MAX_WORK >= 10**6
    H = from_rows([[F(1, 40)] * 40] * 40)
    doc = level_document(privacy_level(H, from_matrix([[0 if i == j else 1 for j in range(40)]
                                                       for i in range(40)])))
    assert verify_document(doc).verified  # 40·39·40 entries: well within the limit


@pytest.mark.parametrize("field", ["witness", "value", "enclosure"])
def test_malformed_claims_raise(field):
    doc = level_document(privacy_level(from_rows([["3/4", "1/4"], ["1/4", "3/4"]]), line(2)))
    bad = copy.deepcopy(doc)
    bad["claim"][field] = {"witness": [0, 1], "value": {"eps": "log(2) + 1"},
                           "enclosure": {"lo": "2", "hi": "1"}}[field]
    with pytest.raises(ExactDPError):
        verify_document(bad)


def test_check_documents_at_rational_t():
    from exactdp.mechanisms.constructors import truncated_geometric
    H, m = truncated_geometric(3, t="1/3"), line(3)   # level ln 3 exactly
    for t, private in ((F(1, 3), True), (F(1, 4), True), (F(1, 2), False)):
        doc = check_document(is_private(H, m, t=t))
        assert verify_document(doc).verified and (doc["claim"]["verdict"] == "holds") is private
        flipped = copy.deepcopy(doc)
        flipped["claim"] = ({"verdict": "fails", "violation": [0, 1, 0]} if private
                            else {"verdict": "holds", "violation": None})
        assert not verify_document(flipped).verified
        if not private:
            no_witness = copy.deepcopy(doc)
            no_witness["claim"]["violation"] = None
            assert not verify_document(no_witness).verified
