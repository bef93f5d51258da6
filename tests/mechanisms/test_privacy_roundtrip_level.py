"""Exact privacy levels survive to_document → JSON text → from_document EQUAL to the original
(every route: exact entries, monomial, row-monomial, tight, merged-monomial), over the
generators of :mod:`exactdp.testing`; the equality is on the mathematical content and is
itself tested to tell different levels apart (exact Fractions as the oracle)."""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction as F

import pytest
import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from exactdp.errors import (
    CertificateInvalid,
    ExactnessRequired,
    InvalidArgument,
    PropertyNeverHolds,
)
from exactdp.kernel.jsonio import dumps, loads
from exactdp.mechanisms.constructors import (
    exponential_mechanism,
    from_rows,
    randomized_response,
    tight_constraints_mechanism,
    truncated_geometric,
)
from exactdp.mechanisms.mechanism import MechanismKind
from exactdp.mechanisms.privacy import privacy_level
from exactdp.mechanisms.privacy_json_read import level_from_document
from exactdp.mechanisms.privacy_result import PrivacyLevelResult
from exactdp.spaces.metrics import line
from exactdp.testing import metrics, rational_t
from exactdp.testing.mechanism_strategies import mechanism_rows

SETTINGS = settings(max_examples=40, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _roundtrip(r: PrivacyLevelResult) -> PrivacyLevelResult:
    text = dumps(r.to_document())
    back = PrivacyLevelResult.from_document(loads(text))
    assert back == r and r == back and hash(back) == hash(r)
    assert back.verify()
    assert level_from_document(text) == r  # the old path, from the JSON text itself
    return back


def _oracle_level(rows, metric) -> tuple[str, object]:
    """Independent: the least ε as ("inf"|"zero"|"log", (R, d)) from exact Fractions, where
    ε = max ln(H[y,z]/H[y',z])/d(y,y'); returns the maximising (R, d) by exact comparison of
    R^(d'/...) — integer distances only: ln R/d > ln R'/d' ⇔ R^d' > R'^d."""
    best = None
    n = len(rows)
    for y in range(n):
        for y2 in range(n):
            if y == y2:
                continue
            d = metric.distance(y, y2)
            assert d.is_rational and d.coef.denominator == 1
            d = int(d.coef)
            for a, b in zip(rows[y], rows[y2]):
                if a > 0 and b == 0:
                    return "inf", None
                if a > b > 0 and (best is None or (a / b) ** best[1] > best[0] ** d):
                    best = (a / b, d)
    return ("zero", None) if best is None else ("log", best)


@SETTINGS
@given(st.data())
def test_roundtrip_generated_rows(data):
    """Generated metrics × generated exact rows (route "exact"), with an exact oracle."""
    metric = data.draw(metrics(max_n=6))
    rows = data.draw(mechanism_rows(metric.n, outputs=data.draw(st.integers(1, 4))))
    r = privacy_level(from_rows(rows), metric)
    back = _roundtrip(r)
    kind, best = _oracle_level(rows, metric)
    if kind == "inf":
        assert back.is_infinite
    elif kind == "zero":
        assert back.value == 0
    else:
        R, d = best
        assert back.ratio is not None and back.distance is not None
        assert back.ratio ** d == R ** int(back.distance.coef)  # ln R'/d' = ln R/d exactly


def _structured(kind, metric, t):
    if kind == "geometric":
        return truncated_geometric(metric.n, t=t), line(metric.n)
    if kind == "exponential":
        return exponential_mechanism(metric, t=t), metric
    if kind == "randomized-response":
        return randomized_response(metric.n, t=t), metric
    return tight_constraints_mechanism(metric, t=t), metric


@SETTINGS
@given(st.sampled_from(("geometric", "exponential", "randomized-response", "tight")),
       metrics(max_n=6), rational_t(max_denominator=12))
def test_roundtrip_generated_structured(kind, metric, t):
    """Library mechanisms (routes monomial, row-monomial, tight, merged-monomial) on
    generated metrics and levels: the read-back says method "exact" and is still equal."""
    try:
        H, m = _structured(kind, metric, t)
    except PropertyNeverHolds:
        return  # no tight-constraints mechanism at this level
    r = privacy_level(H, m)
    if H.kind is not MechanismKind.EXACT:  # irrational entries: no portable question
        with pytest.raises(ExactnessRequired):
            r.to_document()
        return
    back = _roundtrip(r)
    assert back.method == "exact"
    if r.method != "exact":
        assert dataclasses.replace(back, method=r.method) == r


def test_monomial_method_reads_back_equal():
    """The session-7 gap: method "monomial" came back "exact" and != the original."""
    r = privacy_level(truncated_geometric(4, t="8/27"), line(4))
    assert r.method == "monomial"
    back = _roundtrip(r)
    assert r.value == -sympy.log(F(8, 27)) and back.value == sympy.log(F(27, 8))  # two forms
    assert str(r.value) != str(back.value) and back == r  # ... of one number


def test_equality_tells_levels_apart():
    """Not a trivial equality: a different value, enclosure, witness or distance is !=."""
    r = privacy_level(from_rows([["3/4", "1/4"], ["1/4", "3/4"]]), line(2))
    log3 = sympy.log(3)
    for other in (dataclasses.replace(r, value=log3 / 2),
                  dataclasses.replace(r, value=sympy.log(F(3) + F(1, 10**30))),
                  dataclasses.replace(r, enclosure=dataclasses.replace(r.enclosure, lo=F(0))),
                  dataclasses.replace(r, witness=(1, 0, 1)),
                  dataclasses.replace(r, ratio=F(2)),
                  dataclasses.replace(r, value=None)):
        assert other != r and r != other
    assert dataclasses.replace(r, method="monomial", pairs_checked=7) == r  # provenance
    assert dataclasses.replace(r, value=sympy.log(9) / 2) == r  # the same number
    assert r != "log(3)"


def test_rejected_document_is_not_read_back():
    r = privacy_level(from_rows([["3/4", "1/4"], ["1/4", "3/4"]]), line(2))
    doc = r.to_document()
    doc["claim"]["value"] = {"t": "1/2"}  # ln 2 is not the level ln 3
    with pytest.raises(CertificateInvalid):
        PrivacyLevelResult.from_document(doc)
    with pytest.raises(InvalidArgument):  # another kind
        PrivacyLevelResult.from_document(
            {**doc, "kind": "privacy-check"})


def test_huge_ratio_roundtrip():
    """A level ln(10^400) (issue 11, point 1): rebuilt from the entries, equal to the original."""
    H = from_rows([[1 - F(1, 10**400), F(1, 10**400)], [1 - F(1, 10**800), F(1, 10**800)]])
    r = privacy_level(H, line(2))
    back = _roundtrip(r)
    assert back.witness == (0, 1, 1) and back.ratio == 10**400
    assert math.isclose(float(back), 400 * math.log(10), rel_tol=1e-12)


def test_malformed_document_is_invalid():
    with pytest.raises(InvalidArgument):
        PrivacyLevelResult.from_document({"schema": "exactdp-certificate"})
    with pytest.raises(InvalidArgument):
        PrivacyLevelResult.from_document("not json")


def test_irrational_argument_form_roundtrip():
    """Review F1: rr(3, t=8/27) on line_scaled(3, 2) has the value −ln(2√6/9) (a log of an
    irrational number); its read-back says ln(27/8)/2 — the same number, so ==."""
    from exactdp.spaces.metrics import line_scaled
    r = privacy_level(randomized_response(3, t="8/27"), line_scaled(3, 2))
    back = _roundtrip(r)
    assert str(r.value) != str(back.value) and back.value == sympy.log(F(27, 8)) / 2
    log = sympy.log
    same = [(log(6) / 2, log(2) / 2 + log(3) / 2),
            (-log(2 * sympy.sqrt(6) / 9), log(F(27, 8)) / 2)]
    differ = [(-log(2 * sympy.sqrt(6) / 9), log(F(27, 8)) / 3),  # no false equality
              (log(6) / 2, log(2) / 2 + log(F(301, 100)) / 2),
              (10**400 * log(F(3, 2)), (10**400 + 1) * log(F(3, 2))),
              (log(2) + sympy.pi, log(2) + sympy.E)]
    for pairs, want in ((same, True), (differ, False)):
        for a, b in pairs:
            ra, rb = dataclasses.replace(r, value=a), dataclasses.replace(r, value=b)
            assert (ra == rb) is want and (rb == ra) is want, (a, b)


def test_negative_enclosure_end_is_cut_to_zero():
    """Review F4: the kernel accepts an enclosure [−1, 100] of a level (≥ 0); the read-back
    is cut to [0, 100], so its own verify() holds; the level 0 likewise."""
    H = from_rows([["3/4", "1/8", "1/8"], ["1/4", "1/2", "1/4"], ["1/8", "1/8", "3/4"]])
    r = privacy_level(H, line(3))
    d = r.to_document()
    d["claim"]["enclosure"] = {"lo": "-1", "hi": "100"}
    b = PrivacyLevelResult.from_document(d)
    assert b.enclosure.lo == 0 and b.enclosure.hi == 100 and b.verify()
    z = privacy_level(from_rows([["1/2", "1/2"], ["1/2", "1/2"]]), line(2))
    d = z.to_document()
    d["claim"]["enclosure"] = {"lo": "-5", "hi": "7"}
    b = PrivacyLevelResult.from_document(d)
    assert b.value == 0 and b.enclosure.lo == 0 and b.verify()
