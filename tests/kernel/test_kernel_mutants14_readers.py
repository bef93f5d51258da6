"""Session 14 (task 14M): tests for the survivors of ``scripts/mutation.py`` on
exactdp/kernel/readers.py. Each test names the mutant(s) it kills ("line N: change", the
tool's description at the time of the run).

The limits are pinned as the numbers the kernel documents (readers.py: nesting ≤ 8 levels,
≤ 100,000 pieces; its messages: radicands < 2^64), not read back from the module: a test that reads the
mutated constant moves with it (test_kernel_size11_readers.py builds its nesting from
``readers.MAX_DEPTH`` and so cannot see "MAX_DEPTH = 9").
"""

from __future__ import annotations

import copy
from fractions import Fraction as F

import pytest

from exactdp.arithmetic.interval import Enclosure
from exactdp.engine.documents import write_linear, write_spd_point, write_threshold
from exactdp.errors import InstanceTooLarge, InvalidArgument
from exactdp.kernel.linear import LinearClaim
from exactdp.kernel.linear_json import read_linear
from exactdp.kernel.privacy_json import read_privacy_level
from exactdp.kernel.threshold import ThresholdClaim
from exactdp.kernel.threshold_json import read_threshold
from exactdp.kernel.threshold_spd import SpdPointClaim
from exactdp.kernel.threshold_spd_json import read_spd_point
from exactdp.mechanisms.constructors import from_rows
from exactdp.mechanisms.privacy import privacy_level
from exactdp.mechanisms.privacy_json import level_document
from exactdp.spaces.levels import parse_level
from exactdp.spaces.metrics import cycle, grid, line

DEPTH = 8  # readers.MAX_DEPTH as documented: at most 8 levels of factor documents
PIECES = 100_000  # readers.MAX_PIECES: at most 100,000 ranges of a cover
RADICAND = 2**64  # the log_ratio message: 1 ≤ radicand < 2^64


def _kron_threshold(depth: int) -> dict:
    ones = (F(1),) * 4
    claim = ThresholdClaim("prop9", cycle(4), ones, Enclosure(F(0), F(0)), {})
    for _ in range(depth):
        claim = ThresholdClaim("kronecker-threshold", cycle(4), ones, Enclosure(F(0), F(0)),
                               {"factors": (claim,), "binding": 0})
    return write_threshold(claim)


def _kron_linear(depth: int) -> dict:
    c = LinearClaim("exact-solution", line(2), parse_level(eps="1/2"), (F(1), F(1)), True,
                    {"x": (F(2, 3), F(2, 3))})
    for _ in range(depth):
        c = LinearClaim("kronecker", line(2), parse_level(eps="1/2"), c.rhs, True, {"factors": (c,)})
    return write_linear(c)


def _levels(doc: dict) -> int:
    """Nesting depth of a document, counted by hand from its JSON (not by the kernel)."""
    factors = doc["evidence"].get("factors")
    return 0 if not factors else 1 + max(_levels(f) for f in factors)


# kills "line 155: 8 -> 9" (MAX_DEPTH) and "line 354: 0 -> 1" (read_linear's top level
# starting at depth 1 refuses a genuine 8-level linear document)
@pytest.mark.parametrize("build, read", [(_kron_threshold, read_threshold), (_kron_linear, read_linear)])
def test_nesting_limit_is_eight_levels(build, read):
    ok, over = build(DEPTH), build(DEPTH + 1)
    assert (_levels(ok), _levels(over)) == (DEPTH, DEPTH + 1)
    read(ok)
    with pytest.raises(InvalidArgument, match="nested more than"):
        read(over)


def _cover(pieces: int) -> dict:
    """A certified-cover document whose ``pieces`` are ``pieces`` nulls (not enclosures)."""
    fail = LinearClaim("exact-solution", line(2), parse_level(eps="1/2"), (F(1), F(1)), True,
                       {"x": (F(2, 3), F(2, 3))})
    doc = write_threshold(ThresholdClaim("certified-cover", line(2), (F(1), F(1)), Enclosure(F(0), F(1)),
                                         {"fail": fail, "t0": F(1, 2), "pieces": (Enclosure(F(0), F(1)),)}))
    doc["evidence"]["pieces"] = [None] * pieces
    return doc


# kills "line 157: 100000 -> 100001" (MAX_PIECES): 100,001 pieces are refused on their
# count, before any piece is read; 100,000 pass the count and fail on piece [0]
def test_cover_pieces_are_counted_before_they_are_read():
    # a work limit (session 15): InstanceTooLarge, exit 2
    with pytest.raises(InstanceTooLarge, match=f"has {PIECES + 1} items; the kernel checks at most {PIECES}"):
        read_threshold(_cover(PIECES + 1))
    with pytest.raises(InvalidArgument, match=r"evidence\.pieces\[0\]"):
        read_threshold(_cover(PIECES))


# kills "line 374: Or -> And": a PrivacyLevel without a rational ε (t = 1/2, ε = ln 2) passed
# the mutant's test and gave an SpdPointClaim with eps None
@pytest.mark.parametrize("level", [{"t": "1/2"}, {"t": "2/3"}])
def test_spd_point_needs_a_rational_eps(level):
    doc = write_spd_point(SpdPointClaim(line(3), (F(1),) * 3, F(1, 2), 0, F(-1), F(0), F(1)))
    assert read_spd_point(doc).eps == F(1, 2)
    bad = copy.deepcopy(doc)
    bad["question"]["level"] = level
    with pytest.raises(InvalidArgument, match="rational ε"):
        read_spd_point(bad)


@pytest.fixture(scope="module")
def level_doc() -> dict:
    H = from_rows([["1/2", "1/2"], ["3/4", "1/4"], ["1/4", "3/4"], ["1/2", "1/2"]])
    doc = level_document(privacy_level(H, grid(2, 2, "euclidean")))
    assert doc["claim"]["value"] == {"eps": "sqrt(2)*log(3)/2"}  # ln(3)/√2: ratio 3 over distance √2
    return doc


def _with_value(doc: dict, value) -> dict:
    out = copy.deepcopy(doc)
    out["claim"]["value"] = value
    return out


def _log_ratio(ratio: str, coef: str, radicand: int) -> dict:
    return {"log_ratio": {"ratio": ratio, "distance": {"coef": coef, "radicand": str(radicand)}}}


# kills "line 429: Eq -> NotEq": the mutant calls a genuine {"eps": ...} value an unexpected
# key and sends {"log_ratio": ...} into the ε branch (KeyError)
def test_every_value_form_is_read(level_doc):
    v = read_privacy_level(level_doc).value
    assert (v.T, v.e.coef, v.e.radicand) == (3, 1, 2)  # ε = ln(T)/d: sqrt(2)*log(3)/2 = ln 3 / (1·√2)
    w = read_privacy_level(_with_value(level_doc, _log_ratio("3", "1", 2))).value
    assert (w.T, w.e.coef, w.e.radicand) == (3, 1, 2)
    assert read_privacy_level(_with_value(level_doc, {"t": "1/3"})).value.T == 3


# kills "line 158: Pow -> Mult" (limit 128), "line 158: 2 -> 3" (3^64), "line 158: 64 -> 65" (2^65)
def test_radicand_limit_is_two_to_the_64(level_doc):
    v = read_privacy_level(_with_value(level_doc, _log_ratio("3", "1", RADICAND - 1))).value
    assert v.e.radicand == RADICAND - 1  # 3·5·17·257·641·65537·6700417: square-free
    with pytest.raises(InvalidArgument, match="radicand < 2\\^64"):
        read_privacy_level(_with_value(level_doc, _log_ratio("3", "1", RADICAND)))
    with pytest.raises(InvalidArgument, match="radicand is ≥ 2\\^64"):
        read_privacy_level(_with_value(level_doc, {"eps": f"sqrt({RADICAND + 1})*log(3)"}))


# kills "line 419: Or -> And": a dict of two keys reached "(key,) = value" (ValueError, a
# traceback) and a number reached len() (TypeError)
@pytest.mark.parametrize("value", [{"t": "1/3", "eps": "log(3)"}, {}, 5, ["t", "1/3"], "1/3"])
def test_value_of_the_wrong_shape_is_malformed(level_doc, value):
    with pytest.raises(InvalidArgument, match="claim.value: expected"):
        read_privacy_level(_with_value(level_doc, value))
