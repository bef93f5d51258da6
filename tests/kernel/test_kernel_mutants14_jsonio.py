"""Session 14 (task 14M): tests for the survivors of ``scripts/mutation.py`` on
exactdp/kernel/jsonio.py. Each test names the mutant(s) it kills ("line N: change", the tool's
description at the time of the run).

The limits are pinned as the numbers jsonio.py documents (64 Mi characters, degree ≤ 10⁵),
written out here, not read back from the module: a test that reads the mutated constant moves
with it.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy

from exactdp.errors import InstanceTooLarge, InvalidArgument
from exactdp.kernel import jsonio as J

MI = 2**20
MAX_CHARS = 64 * MI  # "Longest document loads reads (characters): 64 Mi."
MAX_DEGREE = 100_000  # "Highest polynomial degree read" (10⁵)
F0 = Fraction(0)  # a falsy value that is not JSON


# kills "line 78: 64 -> 65" (MAX_DOCUMENT_CHARS = 65 Mi)
def test_document_length_limit_is_64_mebi_characters():
    assert J.loads(" " * (MAX_CHARS - 2) + "{}") == {}  # exactly at the limit: read
    with pytest.raises(InvalidArgument, match=f"{MAX_CHARS + 1} characters, over the limit of {MAX_CHARS}"):
        J.loads(" " * (MAX_CHARS - 1) + "{}")


# kills "line 84: 100000 -> 100001" (MAX_POLY_DEGREE): degree 10⁵ + 1 is refused on the count
def test_polynomial_degree_limit():
    top = ["1"] + ["0"] * MAX_DEGREE  # x^100000: degree exactly at the limit
    assert len(J.read_poly(top, "p", integer=True)) == MAX_DEGREE + 1
    # a work limit (session 15): InstanceTooLarge, exit 2
    with pytest.raises(InstanceTooLarge,
                       match=f"has {MAX_DEGREE + 2} items; the kernel checks at most {MAX_DEGREE + 1}"):
        J.read_poly(["1"] + top, "p", integer=True)


# kills "line 205: Gt -> GtE": a document of exactly 64 Mi characters is read (see above)
# (test_document_length_limit_is_64_mebi_characters)


# kills "line 356: Gt -> GtE": the longest rational text, "-" + 10⁵ digits + "/" + 10⁵ digits
# (2·10⁵ + 2 characters), is read, exactly
def test_longest_rational_text_is_read():
    k = J.MAX_DIGITS - 1
    p, q = 10**k + 7, 10**k + 1  # 10⁵ digits each; gcd(p, q) = gcd(6, q) = 1 (q odd, q ≡ 2 mod 3)
    text = "-" + J.write_rational(p) + "/" + J.write_rational(q)
    assert len(text) == 2 * 100_000 + 2
    value = J.read_rational(text, "f")
    assert (value.numerator, value.denominator) == (-p, q)


# kills "line 443: Gt -> GtE" and "line 471: Gt -> GtE": a closed form holding a number of
# exactly 4,300 digits (Python's int<->str limit) is not "over the limit"; it is refused for
# its length (write) or as not canonical (read). Those two mutants only change which of two
# InvalidArgument refusals fires (no closed form of ≤ 2,000 characters can hold a 4,300-digit
# number in canonical form), so this test pins the message: the 4,300-digit boundary.
def test_closed_form_digit_limit_is_4300():
    with pytest.raises(InvalidArgument, match="cannot be read back"):
        J.write_closed_form(sympy.Integer(10) ** 4299)  # 4,300 digits
    with pytest.raises(InvalidArgument, match="over the 4300 digits"):
        J.write_closed_form(sympy.Integer(10) ** 4300)  # 4,301 digits
    with pytest.raises(InvalidArgument, match="not in canonical form"):
        J.read_closed_form("10**4299", "f")
    with pytest.raises(InvalidArgument, match=r"over 4300 digits \(4301\)"):
        J.read_closed_form("10**4300", "f")


# kills "line 105: Gt -> GtE": an int of exactly 200 bits is shown by its (shortened) digits;
# from 201 bits on only its size is shown
def test_bad_integers_in_messages_are_shown_by_digits_up_to_200_bits():
    with pytest.raises(InvalidArgument) as small:
        J.read_str(2**199, "s")  # 200 bits, 60 digits
    assert "(60 digits)" in str(small.value) and "bits>" not in str(small.value)
    with pytest.raises(InvalidArgument, match="<an integer of 201 bits>"):
        J.read_str(2**200, "s")


# kills "line 113: LtE -> Lt": a bad value whose repr has exactly 60 characters is shown whole;
# 61 characters are cut to 40 and the length
def test_bad_values_in_messages_are_cut_after_60_characters():
    with pytest.raises(InvalidArgument) as whole:
        J.read_int("x" * 58, "i")  # repr: 60 characters
    assert "'" + "x" * 58 + "'" in str(whole.value) and "characters)" not in str(whole.value)
    with pytest.raises(InvalidArgument) as cut:
        J.read_int("x" * 59, "i")  # repr: 61 characters, cut to its first 40 (also kills "line 113: 40 -> 41")
    assert "'" + "x" * 39 + "...' (61 characters)" in str(cut.value) and "x" * 40 not in str(cut.value)


# kills "line 566: NotIn -> In": a kind of the table is read, one outside it refused
def test_read_tabled_reads_its_kinds_only():
    doc = J.envelope("farkas", {"a": "1"}, {"b": "2"}, {})
    kind, q, c, e, check = J.read_tabled(doc, {"farkas": (("a",), ("b",), (), len)})
    assert (kind, q, c, e, check) == ("farkas", {"a": "1"}, {"b": "2"}, {}, len)
    with pytest.raises(InvalidArgument, match="kind: 'farkas' is not one of"):
        J.read_tabled(doc, {"ball": (("a",), ("b",), (), len)})


# kills "line 573: Pow -> Mult" (default limit 10*7 = 70 entries instead of 10**7) and
# "line 579: Or -> And" (an empty first row, or too many entries, let through)
def test_rows_of_limits():
    rows = [["1"] * 71] * 2  # 142 entries: far below the default 10^7
    assert J.rows_of(rows, "r") == rows
    with pytest.raises(InvalidArgument, match="need ≥ 1 column"):
        J.rows_of([[]], "r")
    with pytest.raises(InstanceTooLarge, match="at most 5"):  # a work limit since session 15
        J.rows_of([["1", "2"]] * 3, "r", max_entries=5)
    assert J.rows_of([["1", "2"]] * 3, "r", max_entries=6) == [["1", "2"]] * 3


# kills "line 573: 10 -> 11" and "line 573: 7 -> 8" (default limit 11^7 or 10^8 instead of
# 10^7) and "line 579: Gt -> GtE": exactly 10^7 entries pass, one row more is refused; the
# count is taken before any row is read, so the rows here are shared references (cheap)
def test_rows_of_default_limit_is_ten_million_entries():
    row = ["1"] * 5_000_000
    assert len(J.rows_of([row, row], "r")) == 2  # 10^7 entries
    with pytest.raises(InstanceTooLarge, match="3×5000000 entries; the kernel checks at most 10000000"):
        J.rows_of([row, row, row], "r")  # 1.5·10^7
    wide = ["1"] * 10_000_001
    with pytest.raises(InstanceTooLarge, match="1×10000001 entries"):
        J.rows_of([wide], "r")


# kills "line 257: 0 -> 1": _unwritable tested the found value instead of its path, so a
# falsy unwritable part (0.0, an int key 0, an empty tuple) nested one level down was missed
# and dumps wrote a document loads would not read back (or a key that changed type)
@pytest.mark.parametrize("doc", [{"a": {"b": 0.0}}, {"a": {0: "x"}}, {"a": [()]}, {"a": [[F0]]}])
def test_dumps_refuses_falsy_unwritable_parts_nested(doc):
    with pytest.raises(InvalidArgument, match="is not a value of the schema"):
        J.dumps(doc)


# kills both "line 356: 2 -> 3" (3·MAX_DIGITS + 2 or 2·MAX_DIGITS + 3 characters let through to
# the regex): one character over the longest valid text is refused on its length, before the
# regex and the digit count run (the mutants refuse it later, with the digit message)
def test_rational_text_one_character_over_is_refused_on_length():
    text = "-" + "1" * 100_000 + "/" + "3" * 100_001  # 200,003 characters
    with pytest.raises(InvalidArgument, match="a number of 200003 characters exceeds the limit"):
        J.read_rational(text, "f")


# kills "line 129: 1 -> 2": a denominator is shown unless it is 1 ("1/2" stayed "1" under the
# mutant, "3" became "3/1")
def test_show_writes_the_denominator_unless_one():
    assert (J.show(Fraction(3)), J.show(Fraction(1, 2)), J.show(-7)) == ("3", "1/2", "-7")


# kills "line 154: NotIn -> In": inside document_numbers a digit-limit ValueError becomes an
# InvalidArgument (malformed, exit 3, no traceback); any other ValueError is not hidden
def test_document_numbers_turns_only_digit_limit_errors_into_invalid_argument():
    with pytest.raises(InvalidArgument, match="more than 4300 digits"), J.document_numbers(10):
        int("1" * 5000)
    with pytest.raises(ValueError, match="not a digit error") as info, J.document_numbers(10):
        raise ValueError("not a digit error")
    assert not isinstance(info.value, InvalidArgument)


# kills both "line 231: True -> False" (sort_keys, ensure_ascii): the canonical text has sorted
# keys and is ASCII only (non-ASCII as \uXXXX escapes), and reads back as the same document
def test_dumps_is_canonical_sorted_and_ascii():
    doc = {"b": ["é", "1/3"], "a": {"d": 1, "c": None}}
    text = J.dumps(doc)
    assert text == '{"a":{"c":null,"d":1},"b":["\\u00e9","1/3"]}'
    assert text.isascii() and J.loads(text) == doc


# kills "line 251: LtE -> Lt": an integer of exactly 18 digits is writable, so the error names
# the part that is not (the mutant blamed the 18-digit integer before it)
def test_dumps_names_the_unwritable_part_not_an_18_digit_int():
    with pytest.raises(InvalidArgument, match=r"^document\.b: float 0\.5 is not a value"):
        J.dumps({"a": -(10**18 - 1), "b": 0.5})
    assert J.loads(J.dumps({"a": -(10**18 - 1)})) == {"a": -(10**18 - 1)}
