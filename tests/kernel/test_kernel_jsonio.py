"""The exact JSON primitives of certificates (exactdp.kernel.jsonio): round trips and strict,
fast rejection of every malformed input."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
import sympy
from hypothesis import example, given, settings
from hypothesis import strategies as st

from exactdp.arithmetic.interval import Enclosure
from exactdp.errors import InvalidArgument
from exactdp.kernel import jsonio as J
from exactdp.kinds import CertificateKind, Verdict

rationals = st.fractions(max_denominator=10**30).filter(lambda f: abs(f.numerator) < 10**40)
big_ints = st.integers(min_value=-(10**5000), max_value=10**5000)


# ------------------------------------------------------------------ round trips
@given(rationals)
@example(Fraction(0))
@example(Fraction(-7, 3))
@settings(max_examples=200, deadline=None)
def test_rational_round_trip(q):
    text = J.write_rational(q)
    assert J.read_rational(text) == q
    assert J.write_rational(J.read_rational(text)) == text


@given(big_ints, st.integers(min_value=1, max_value=10**4500))
@settings(max_examples=30, deadline=None)
def test_rationals_beyond_pythons_int_str_limit(p, q):
    f = Fraction(p, q)  # > 4300 digits: str(int) would refuse; flint converts them
    assert J.read_rational(J.write_rational(f)) == f


def test_integer_only_and_enclosure_round_trip():
    assert J.read_rational("12", integer=True) == 12
    with pytest.raises(InvalidArgument, match="integer"):
        J.read_rational("1/2", integer=True)
    enc = Enclosure(Fraction(-1, 3), Fraction(5, 2))
    assert J.read_enclosure(J.loads(J.dumps(J.write_enclosure(enc)))) == enc


def test_polynomials_are_descending_like_sympy():
    x = sympy.Symbol("x")
    p = sympy.Poly(3 * x**3 - x + sympy.Rational(1, 2), x)
    coeffs = [J.write_rational(Fraction(int(c.p), int(c.q))) for c in p.all_coeffs()]
    assert coeffs == ["3", "0", "-1", "1/2"]
    back = J.read_poly(coeffs)
    assert sympy.Poly([sympy.Rational(c.numerator, c.denominator) for c in back], x) == p
    with pytest.raises(InvalidArgument, match="integer"):
        J.read_poly(coeffs, integer=True)
    for bad in ([], ["0", "1"], [1, 2], "x**2", None, ["1", 2.5]):
        with pytest.raises(InvalidArgument):
            J.read_poly(bad)
    with pytest.raises(InvalidArgument, match="leading"):
        J.read_poly(["0", "1"])


def test_closed_forms_use_the_whitelist_parser_only():
    for e in (sympy.log(2) / 3, sympy.sqrt(2) * sympy.pi, sympy.exp(-1), sympy.Rational(4, 5)):
        assert J.read_closed_form(J.write_closed_form(e)) == e
    for bad in ("__import__('os').system('true')", "x", "log(2).evalf()", "lambda: 1", "2^3",
                "1" * 3000, 1.5, None):
        with pytest.raises(InvalidArgument):
            J.read_closed_form(bad)
    with pytest.raises(InvalidArgument, match="canonical"):
        J.read_closed_form("ln(2)")  # reads as log(2): one spelling per value
    with pytest.raises(InvalidArgument):
        J.write_closed_form(sympy.sin(1))
    with pytest.raises(InvalidArgument):
        J.read_closed_form("10**10**10")


def test_verdicts_and_kinds_by_value():
    for v in Verdict:
        assert J.read_verdict(J.write_verdict(v)) is v
    assert J.read_kind("kronecker") == CertificateKind.KRONECKER.value
    assert J.read_kind("result-x", extra=["result-x"]) == "result-x"
    for bad in ("HOLDS", True, 1, None, "yes"):
        with pytest.raises(InvalidArgument):
            J.read_verdict(bad)
    for bad in ("nope", "Farkas", 3, "", "a" * 70):
        with pytest.raises(InvalidArgument):
            J.read_kind(bad)


# ------------------------------------------------------------------ rejections
@pytest.mark.parametrize("text", [
    "1.5", "1/0", "0/1", "2/4", "1/1", "+1", " 1", "1 ", "1/-2", "-0", "01", "1e5", "NaN", "nan",
    "inf", "Infinity", "0x10", "1_000", "١٢", "1//2", "", "/", "1/", "-", "3/2/1", "½",
])
def test_bad_rational_strings(text):
    with pytest.raises(InvalidArgument):
        J.read_rational(text)


@pytest.mark.parametrize("value", [1, 0, True, False, None, 1.5, float("nan"), [], {}, b"1"])
def test_rationals_are_strings(value):
    with pytest.raises(InvalidArgument, match="rational string"):
        J.read_rational(value)


@pytest.mark.parametrize("value", [True, 1.0, "1", None, [1]])
def test_ints_are_json_ints(value):
    with pytest.raises(InvalidArgument):
        J.read_int(value, "n")


def test_write_refuses_floats_and_bools():
    for bad in (0.5, True, "1/2", sympy.Rational(1, 2), None):
        with pytest.raises(InvalidArgument):
            J.write_rational(bad)
    with pytest.raises(InvalidArgument):
        J.dumps({"a": [1, {"b": 0.1}]})
    with pytest.raises(InvalidArgument):
        J.dumps({"a": Fraction(1, 2)})
    with pytest.raises(InvalidArgument):
        J.dumps({"a": 10**30})


@pytest.mark.parametrize("text", [
    '{"a": 1, "a": 1}', '{"a": {"b": 1, "b": 2}}', '{"a": 1.0}', '{"a": 1e3}', '{"a": NaN}',
    '{"a": Infinity}', '{"a": -Infinity}', '{"a": 1234567890123456789012}', "{", "", "[1,]",
    b'{"a": "\xff"}', "[" * 100_000 + "]" * 100_000, '{"a": 1} x',
])
def test_bad_documents(text):
    with pytest.raises(InvalidArgument):
        J.loads(text)


def test_huge_numbers_fail_fast():
    """Size limits turn gigantic inputs into quick, specific errors (never a hang)."""
    cases = [
        "1/1" + "0" * J.MAX_DIGITS,  # "1/10**100000" written out
        "9" * (J.MAX_DIGITS + 1),
        "1/" + "7" * (3 * J.MAX_DIGITS),
        "1" * (5 * 10**6),
    ]
    for text in cases:
        with pytest.raises(InvalidArgument, match="limit|exceeds"):
            J.read_rational(text)
    with pytest.raises(InvalidArgument):
        J.loads(" " * (J.MAX_DOCUMENT_CHARS + 1))
    with pytest.raises(InvalidArgument):
        J.loads('{"n": ' + "9" * 10**6 + "}")
    # the largest allowed integer still reads
    assert J.read_rational("1/1" + "0" * (J.MAX_DIGITS - 1)) == Fraction(1, 10 ** (J.MAX_DIGITS - 1))
    with pytest.raises(InvalidArgument, match="limit"):
        J.write_rational(Fraction(1, 10**J.MAX_DIGITS))


def test_read_object_keys():
    assert J.read_object({"a": 1}, "x", ("a",), ("b",)) == {"a": 1}
    with pytest.raises(InvalidArgument, match="missing"):
        J.read_object({}, "x", ("a",))
    with pytest.raises(InvalidArgument, match="unexpected"):
        J.read_object({"a": 1, "c": 2}, "x", ("a",), ("b",))
    with pytest.raises(InvalidArgument, match="object"):
        J.read_object([("a", 1)], "x", ("a",))


# ------------------------------------------------------------------ envelope
def _doc():
    return J.envelope(CertificateKind.FARKAS, {"property": "regular"}, {"verdict": "fails"},
                      {"y": ["1/2", "-1"]})


def test_envelope_round_trip():
    doc = _doc()
    env = J.read_envelope(J.loads(J.dumps(doc)))
    assert (env.kind, env.claim, env.evidence) == ("farkas", {"verdict": "fails"},
                                                   {"y": ["1/2", "-1"]})
    assert json.loads(J.dumps(doc)) == doc
    assert J.dumps(doc) == J.dumps(json.loads(J.dumps(doc)))  # canonical text


@pytest.mark.parametrize("edit", [
    lambda d: d.update(schema="exactdp"),
    lambda d: d.update(version=2),
    lambda d: d.update(version="1"),
    lambda d: d.update(version=True),
    lambda d: d.update(kind="unknown"),
    lambda d: d.update(kind=None),
    lambda d: d.update(extra=1),
    lambda d: d.pop("evidence"),
    lambda d: d.pop("schema"),
    lambda d: d.update(claim=[]),
    lambda d: d.update(question="regular"),
])
def test_envelope_rejects_edits(edit):
    doc = _doc()
    edit(doc)
    with pytest.raises(InvalidArgument):
        J.read_envelope(doc)
    with pytest.raises(InvalidArgument):
        J.read_envelope(J.loads(json.dumps(doc)))


def test_envelope_refuses_bad_parts():
    with pytest.raises(InvalidArgument):
        J.envelope("Bad Tag", {}, {}, {})
    with pytest.raises(InvalidArgument):
        J.envelope("farkas", {}, [], {})
    with pytest.raises(InvalidArgument):
        J.read_envelope([])


def test_rows_of():
    assert J.rows_of([["1"], ["2"]], "m", n_rows=2) == [["1"], ["2"]]
    for bad in ([], [[]], [["1"], ["1", "2"]], [["1"]] * 3, "rows"):
        with pytest.raises(InvalidArgument):
            J.rows_of(bad, "m", n_rows=2 if bad != [] else None)


def test_giant_python_ints_get_specific_errors():
    huge = 10**5000  # beyond Python's int->str limit: messages must not call str() on it
    with pytest.raises(InvalidArgument, match="bits"):
        J.read_int(huge, "n", 0, 10)
    with pytest.raises(InvalidArgument):
        J.dumps({"a": huge})
    with pytest.raises(InvalidArgument, match="rational string"):
        J.read_rational(huge)
