"""Session 25, first complete mutation run of exactdp/kernel/privacy_json.py (40 mutants): the
forms of a privacy level's ``claim.value`` that the writers do not produce but the schema
admits — ``{"t": …}`` and ``{"log_ratio": {"ratio", "distance"}}`` — read at their bounds.

Ground truth from the schema (the reader's own messages): t ∈ (0, 1) is the level ln(1/t)
with distance 1; a log_ratio is ln(R)/d with R > 1, coef > 0 and an integer radicand in
[1, 2^64) (2^64 − 59 = 18446744073709551557 is the largest prime below 2^64).
"""

from __future__ import annotations

import copy
from fractions import Fraction as F

import pytest

from exactdp.arithmetic.interval import Enclosure
from exactdp.engine.documents import write_privacy_level
from exactdp.engine.questions import question_of
from exactdp.errors import InvalidArgument
from exactdp.kernel.privacy import LogValue
from exactdp.kernel.privacy_json import read_privacy_level
from exactdp.spaces.distances import Distance
from exactdp.spaces.metrics import line

Q = question_of(line(2), "privacy-level", mechanism=[["3/4", "1/4"], ["1/4", "3/4"]])
DOC = write_privacy_level(Q, F(3), (0, 1, 0), Enclosure(F(1), F(2)))  # ratio 3 at distance 1


def _value(v):
    doc = copy.deepcopy(DOC)
    doc["claim"]["value"] = v
    return read_privacy_level(doc).value


def _log_ratio(ratio, coef="1", radicand="1"):
    return _value({"log_ratio": {"ratio": ratio, "distance": {"coef": coef, "radicand": radicand}}})


# kills "line 77: 1 -> 2" (t < 2 admitted: t = 1 would be the level 0 written as ln 1, and
# t = 3/2 a "level" ln(2/3) < 0)
def test_a_t_value_is_a_level_in_zero_one():
    assert _value({"t": "1/3"}) == LogValue(F(3), Distance.rational(1))
    assert _value({"t": "2/7"}) == LogValue(F(7, 2), Distance(F(1), 1))
    for t in ("1", "3/2", "0", "-1/2"):
        with pytest.raises(InvalidArgument, match="lies in \\(0, 1\\)"):
            _value({"t": t})


# kills the two "line 95: LtE -> Lt" (a ratio of 1 admitted; a coef of 0 admitted) and the
# two "line 95: 1 -> 2" (ratios up to 2 refused; a radicand of 1 refused)
def test_log_ratio_bounds():
    assert _log_ratio("2") == LogValue(F(2), Distance.rational(1))
    assert _log_ratio("3/2", coef="1/5") == LogValue(F(3, 2), Distance(F(1, 5), 1))
    assert _log_ratio("3", radicand="1") == LogValue(F(3), Distance.rational(1))
    assert _log_ratio("3", radicand=str(2**64 - 59)) == LogValue(F(3), Distance(F(1), 2**64 - 59))
    for ratio, coef, radicand in (("1", "1", "1"), ("1/2", "1", "1"), ("3", "0", "1"), ("3", "-1", "1"),
                                  ("3", "1", "0"), ("3", "1", str(2**64))):
        with pytest.raises(InvalidArgument, match="need ratio > 1, coef > 0 and 1 ≤ radicand < 2\\^64"):
            _log_ratio(ratio, coef, radicand)


# kills "line 94: True -> False" (a radicand "5/2" read as int(5/2) = 2)
def test_a_radicand_must_be_an_integer():
    with pytest.raises(InvalidArgument, match="radicand: got '5/2'; an integer"):
        _log_ratio("3", radicand="5/2")


# kills "line 99: 40 -> 41": an unknown key is quoted by its first 40 characters only (a
# hostile document cannot fill the message)
def test_an_unknown_key_is_quoted_short():
    key = "k" * 40 + "XYZ"
    with pytest.raises(InvalidArgument, match="unexpected key") as err:
        _value({key: "1"})
    assert repr("k" * 40) in str(err.value) and "kX" not in str(err.value)
