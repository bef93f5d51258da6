"""Issue 11 (task 11R): huge numbers and error locations in the kernel's shared readers.

Policy under test (exactdp/kernel/jsonio.py, ``document_numbers``): an integer of a document
(numerator, denominator, coefficient) has at most MAX_DIGITS = 10⁵ digits; up to that it is
read exactly (also beyond Python's own 4,300-digit int↔str limit), above it the reader refuses
with an InvalidArgument naming the field, the digit count and the limit, and the writers refuse
to write it. Checks and messages run inside a scope where any one such number can be printed;
every message leaving the kernel has long digit runs shortened. Ground truth here is plain
integer arithmetic (10**k) and the JSON text edited by hand, never the kernel's own output.
"""

from __future__ import annotations

import copy
import sys
from fractions import Fraction as F

import pytest
import sympy

from exactdp import tight_constraints
from exactdp.cli import main
from exactdp.errors import ExactDPError, InvalidArgument
from exactdp.kernel import jsonio as J
from exactdp.kernel.metricio import MAX_GRAPH_NODES, read_metric_json
from exactdp.kernel.verify import verify_document, verify_json
from exactdp.mechanisms.constructors import from_rows
from exactdp.mechanisms.privacy import is_private, privacy_level
from exactdp.mechanisms.privacy_json import check_document, level_document
from exactdp.spaces.metrics import grid, line

PY_LIMIT = sys.int_info.default_max_str_digits  # 4300


def _big(digits: int) -> int:
    return 10 ** (digits - 1) + 7  # exactly `digits` digits, coprime to 3


@pytest.fixture(scope="module")
def line_doc() -> dict:
    return tight_constraints(line(4), t="1/2").to_json()


@pytest.fixture(scope="module")
def kron_doc() -> dict:
    doc = tight_constraints(grid(3, 3, "manhattan"), eps="1/2").to_json()
    assert doc["kind"] == "kronecker"
    return doc


# ------------------------------------------------------------------ one number, read alone
@pytest.mark.parametrize("digits", [PY_LIMIT - 1, PY_LIMIT + 1, J.MAX_DIGITS])
@pytest.mark.parametrize("sign", [1, -1])
def test_numbers_up_to_the_limit_are_read_exactly(digits, sign):
    p = sign * _big(digits)
    text = ("-" if sign < 0 else "") + "1" + "0" * (digits - 2) + "7"
    assert J.read_rational(text + "/3", "f") == F(p, 3)
    assert J.read_rational("1/" + text.lstrip("-"), "f") == F(1, abs(p))
    assert J.write_rational(F(p, 3)) == text + "/3"  # and written back (flint, no str() limit)


@pytest.mark.parametrize("part", ["numerator", "denominator"])
def test_one_digit_over_the_limit_names_field_count_and_limit(part):
    over = "1" + "0" * J.MAX_DIGITS
    text = over + "/3" if part == "numerator" else "1/" + over
    with pytest.raises(InvalidArgument) as info:
        J.read_rational(text, "claim.solution[3]")
    msg = str(info.value)
    assert msg.startswith("claim.solution[3]: the " + part)
    assert f"{J.MAX_DIGITS + 1} digits" in msg and f"limit of {J.MAX_DIGITS}" in msg
    assert len(msg) < 300


@pytest.mark.parametrize("bad", ["1/0", "0/0", "01/2", "1/02", " 1/2", "1/2 ", "1 /2", "+1", "1.5", "1e3",
                                 "-0", "2/4", "3/1", "1/-2", "", "/2", "½", "NaN", "inf"])
def test_non_canonical_rationals_name_the_field(bad):
    with pytest.raises(InvalidArgument, match=r"^question\.rhs\[0\]: "):
        J.read_rational(bad, "question.rhs[0]")


@pytest.mark.parametrize("text, what", [
    ('{"a": 1.5}', "inexact number"), ('{"a": NaN}', "inexact number"),
    ('{"a": Infinity}', "inexact number"), ('{"a": -Infinity}', "inexact number"),
    ('{"a": 1e400}', "inexact number"), ('{"a": 1, "a": 1}', "appears twice"),
    ('{"a": {"b": 1, "b": 2}}', "appears twice"), ('{"a": 1234567890123456789}', "JSON integer has 19 digits")])
def test_json_text_that_is_not_exact(text, what):
    with pytest.raises(InvalidArgument, match=what):
        J.loads(text)


# -------------------------------------------------------------------- whole documents
@pytest.mark.parametrize("digits", [PY_LIMIT - 1, PY_LIMIT + 1, J.MAX_DIGITS])
def test_huge_level_is_a_specific_error_with_the_path(line_doc, digits):
    doc = copy.deepcopy(line_doc)
    doc["question"]["level"]["t"] = J.write_rational(F(_big(digits), 3))  # t > 1: not a level
    with pytest.raises(InvalidArgument) as info:
        verify_document(doc)
    msg = str(info.value)
    assert msg.startswith("question.level.t: ") and f"({digits} digits)" in msg and len(msg) < 400


@pytest.mark.parametrize("digits", [PY_LIMIT + 1, J.MAX_DIGITS])
def test_huge_numbers_anywhere_never_escape_as_valueerror(line_doc, digits):
    """Every rational leaf of a genuine document replaced by a huge one: the kernel answers
    rejected or a specific error with a short message, never Python's int↔str ValueError."""
    big = J.write_rational(F(-_big(digits), 3))
    paths = [("question", "level", "t"), ("claim", "solution", 0), ("claim", "solution", 3)]
    for path in paths:
        doc = copy.deepcopy(line_doc)
        node = doc
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = big
        try:
            verdict = verify_document(doc)
        except ExactDPError as exc:
            assert isinstance(exc, InvalidArgument) and len(str(exc)) < 600, (path, str(exc)[:200])
        else:
            assert not verdict.verified, path
    assert sys.get_int_max_str_digits() == PY_LIMIT  # the scope restored Python's limit


def test_genuine_documents_with_numbers_over_python_limit_verify():
    x = F(1, 10**5000)
    H = from_rows([[x, 1 - x], ["1/2", "1/2"]])
    for doc in (level_document(privacy_level(H, line(2))), check_document(is_private(H, line(2), eps=1))):
        text = J.dumps(doc)
        assert max(len(s) for s in text.split('"')) > PY_LIMIT  # really carries a 5000-digit number
        assert verify_json(text).verified


def test_writers_refuse_what_readers_refuse():
    x = F(1, 10**J.MAX_DIGITS)  # 1 - x has a 100,001-digit denominator
    H = from_rows([[x, 1 - x], ["1/2", "1/2"]])
    with pytest.raises(InvalidArgument, match=f"over the limit of {J.MAX_DIGITS} digits"):
        level_document(privacy_level(H, line(2)))
    with pytest.raises(InvalidArgument, match=f"over the limit of {J.MAX_DIGITS} digits"):
        J.write_rational(F(10**J.MAX_DIGITS), "claim.value")
    # a closed form holding a 5000-digit number: refused by name, not Python's ValueError
    with pytest.raises(InvalidArgument, match="5000 digits"):
        J.write_closed_form(sympy.log(sympy.Integer(10) ** 4999 + 1), "level.eps")
    with J.document_numbers(), pytest.raises(InvalidArgument, match="over 4300 digits"):
        J.read_closed_form("log(7**6000)", "question.level.eps")  # 5,071 digits: refused inside the scope too


def test_cli_verify_exits_3_with_the_field_and_no_traceback(line_doc, tmp_path, capsys):
    doc = copy.deepcopy(line_doc)
    doc["claim"]["solution"][2] = "1" + "0" * (J.MAX_DIGITS + 4)
    path = tmp_path / "huge.json"
    path.write_text(J.dumps(doc))
    assert main(["verify", str(path)]) == 3
    err = capsys.readouterr().err
    assert "Traceback" not in err and "claim.solution[2]: the numerator has 100005 digits" in err
    doc = copy.deepcopy(line_doc)
    doc["question"]["level"]["t"] = J.write_rational(F(_big(PY_LIMIT + 1)))
    path.write_text(J.dumps(doc))
    assert main(["verify", str(path)]) == 3
    err = capsys.readouterr().err
    assert "Traceback" not in err and "question.level.t" in err and "(4301 digits)" in err and len(err) < 600


# ----------------------------------------------------------------------------- the scope
def test_document_numbers_scope_raises_and_restores_the_limit():
    assert sys.get_int_max_str_digits() == PY_LIMIT
    with J.document_numbers():
        assert len(str(10**(J.MAX_DIGITS - 1))) == J.MAX_DIGITS
        with pytest.raises(InvalidArgument, match="more than 100000 digits"), J.document_numbers():
            str(10**J.MAX_DIGITS)  # one digit over: Python's ValueError becomes a specific error
    assert sys.get_int_max_str_digits() == PY_LIMIT
    with J.document_numbers(size=10):  # a short document: never below Python's own limit
        assert sys.get_int_max_str_digits() == PY_LIMIT
    sys.set_int_max_str_digits(0)
    try:
        with J.document_numbers():
            assert sys.get_int_max_str_digits() == 0  # a lifted limit is not lowered
    finally:
        sys.set_int_max_str_digits(PY_LIMIT)


def test_messages_leaving_the_scope_are_shortened():
    with pytest.raises(InvalidArgument) as info, J.document_numbers():
        raise InvalidArgument(f"Got x={10**6000}")
    assert str(info.value) == "Got x=1000000000…000000 (6001 digits)"
    assert J.show(F(-(10**50), 7)) == "-1000000000…000000 (51 digits)/7"


# --------------------------------------------------------------- locations (item 2)
def test_error_in_a_factor_document_names_its_path(kron_doc):
    doc = copy.deepcopy(kron_doc)
    doc["evidence"]["factors"][1]["evidence"]["precision"] = 1
    with pytest.raises(InvalidArgument, match=r"^evidence\.factors\[1\]\.evidence\.precision: got 1"):
        verify_document(doc)
    doc = copy.deepcopy(kron_doc)
    enc = doc["evidence"]["factors"][0]["claim"]["enclosure"]
    enc[-1]["lo"] = "1/2.5"
    with pytest.raises(InvalidArgument, match=rf"^evidence\.factors\[0\]\.claim\.enclosure\[{len(enc) - 1}\]\.lo: "
                                              r"got '1/2\.5'"):
        verify_document(doc)


def test_error_in_a_factor_question_names_its_path(kron_doc):
    doc = copy.deepcopy(kron_doc)
    doc["evidence"]["factors"][1]["question"]["level"] = {"t": "3/2"}
    with pytest.raises(InvalidArgument, match=r"^evidence\.factors\[1\]\.question\.level\.t: "):
        verify_document(doc)


@pytest.mark.parametrize("doc, where", [
    ({"x": [{"y": 0.5}]}, "document.x[0].y: float 0.5"),
    ({"a": {"b": F(1, 3)}}, "document.a.b: Fraction 1/3"),
    ({"a": [1, (2, 3)]}, "document.a[1]: tuple (2, 3)"),
    ({"a": {1: "x"}}, "document.a: int 1"),
    ({"a": [10**19]}, "document.a[0]: int 10000000000000000000"),
    ({"a": 10**5000}, "document.a: int <an integer of 16610 bits>"),
    ({"a": [float("nan")]}, "document.a[0]: float nan")])
def test_dumps_names_the_path_of_what_it_cannot_write(doc, where):
    with pytest.raises(InvalidArgument) as info:
        J.dumps(doc)
    assert str(info.value).startswith(where)


def test_graph_encoding_over_its_node_limit_keeps_its_hint():
    n = MAX_GRAPH_NODES + 1
    value = {"encoding": "builtin", "constructor": "from_graph", "n": n, "fingerprint": "sha256:0",
             "params": {"nodes": list(range(n)), "edges": [[k, k + 1, "1"] for k in range(n - 1)]}}
    with pytest.raises(InvalidArgument, match=rf"params\.nodes: {n} nodes; at most {MAX_GRAPH_NODES} in a from_graph"
                                              r".*write the metric by its distances"):
        read_metric_json(value)
