"""Session 9 (issue 11, kernel size): writers live outside the kernel, one level reader,
masked grids with unused offset distances round-trip (review 15BC8 m1)."""

from __future__ import annotations

import ast
import copy
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from exactdp.engine.documents import write_grid_point, write_scale
from exactdp.engine.questions import question_of, same_question
from exactdp.errors import InvalidArgument, InvalidPrivacyLevel
from exactdp.kernel.grid_point import GridPointClaim, check_grid_point_document
from exactdp.kernel.jsonio import dumps, loads
from exactdp.kernel.metricio import fingerprint
from exactdp.kernel.pufferfish import check_pufferfish
from exactdp.kernel.question import Question, read_level
from exactdp.kernel.verify import verify_json
from exactdp.spaces.distances import Distance
from exactdp.spaces.levels import parse_level
from exactdp.spaces.metrics import FiniteMetric, from_matrix
from exactdp.spaces.metrics.masked import GridShape, masked_grid
from exactdp.threshold import epsilon_threshold

KERNEL = Path(__file__).resolve().parents[2] / "exactdp" / "kernel"
# The only write_* functions (and envelope() callers) the kernel may hold, with why.
ALLOWED = {
    # primitives the readers re-write for their canonical-form checks (Question.to_json, remap)
    "jsonio.write_rational", "jsonio.write_enclosure", "jsonio.write_closed_form",
    "jsonio.write_verdict", "metricio.write_metric", "question.write_level",
    # sets.py's reader compares a polynomial with write_exp_poly of what it read
    "sets.write_exp_poly",
}


def _writers(tree: ast.Module, module: str) -> set[str]:
    """Top-level functions named write_* or calling envelope() (which builds a document)."""
    out = set()
    for n in tree.body:
        if isinstance(n, ast.FunctionDef) and (n.name.startswith("write_") or any(
                isinstance(c, ast.Call) and getattr(c.func, "id", None) == "envelope"
                for c in ast.walk(n))):
            out.add(f"{module}.{n.name}")
    return out


def test_document_writers_are_not_in_the_kernel():
    """No kernel module holds a document writer beyond the allow-list (the search side's
    exactdp.engine.documents does): every module is scanned, so a new writer is noticed."""
    found = set()
    for path in sorted(KERNEL.glob("*.py")):
        found |= _writers(ast.parse(path.read_text(encoding="utf-8")), path.stem)
    assert found - ALLOWED == set(), found - ALLOWED
    src = "def to_doc(q):\n    return envelope('k', q, {}, {})\ndef write_x(): pass\ndef read_x(): pass"
    assert _writers(ast.parse(src), "m") == {"m.to_doc", "m.write_x"}  # the scan can fail


@pytest.mark.parametrize("W, H, mask", [(7, 3, ["1100011", "1100011", "0000000"]),
                                        (2, 3, ["10", "00", "00"])])
def test_masked_grids_with_unused_distances_round_trip(W, H, mask):
    """Review 15BC8 m1: the dense document listed every W×H offset distance; the reader
    refuses values no pair takes. Only the distances that occur are written now."""
    m = masked_grid(W, H, mask=mask)
    assert len(set(m.values)) > len(set(np.unique(np.asarray(m.index)).tolist()))  # has unused
    r = epsilon_threshold(m)
    text = dumps(r.to_json())
    assert verify_json(text).verified
    assert type(r).from_json(loads(text)).verify()


def test_fingerprint_ignores_values_no_pair_takes():
    base = from_matrix([[0, 1], [1, 0]])
    extra = FiniteMetric("extra", range(2), [Distance.rational(0), Distance.rational(1),
                                             Distance.rational(7)], np.array([[0, 1], [1, 0]]))
    assert fingerprint(extra) == fingerprint(base)
    assert same_question(question_of(extra, "threshold-tight"), question_of(base, "threshold-tight"))


def test_the_reader_still_refuses_unused_values():
    doc = question_of(from_matrix([[0, 1, 2], [1, 0, 1], [2, 1, 0]]), "threshold-tight").to_json()
    doc["metric"]["index"] = [[0, 1, 1], [1, 0, 1], [1, 1, 0]]
    with pytest.raises(InvalidArgument, match="never used"):
        Question.from_json(doc)


@pytest.mark.parametrize("eps", ["exp(exp(exp(exp(2))))", "1 + exp(exp(exp(exp(1/2))))"])
def test_one_level_reader_for_every_kind(eps):
    """The question, grid-point and Pufferfish readers share read_level: towers (exp()
    nested over MAX_EXP_DEPTH = 3 deep) are refused by each."""
    with pytest.raises(InvalidPrivacyLevel, match="nests"):
        read_level({"eps": eps})
    sh = GridShape(2, 1, "manhattan", Fraction(1))
    claim = GridPointClaim(sh, parse_level(t="1/2"), (Fraction(1), Fraction(1)), True, None,
                           (2796202, 2796203), 22, Fraction(1, 9), 64)
    doc = write_grid_point(claim)
    assert check_grid_point_document(loads(dumps(doc)))
    bad = copy.deepcopy(doc)
    bad["question"]["level"] = {"eps": eps}
    with pytest.raises(InvalidPrivacyLevel, match="nests"):
        check_grid_point_document(bad)
    half = {Fraction(0): Fraction(1, 2), Fraction(1): Fraction(1, 2)}
    pf = write_scale(half, {Fraction(0): Fraction(1)}, parse_level(eps=1), 1,
                     (Fraction(67, 100), Fraction(68, 100)), None, Fraction(1, 10), 64)
    assert check_pufferfish(pf)
    pf["question"]["level"] = {"eps": eps}
    with pytest.raises(InvalidPrivacyLevel, match="nests"):
        check_pufferfish(pf)


def test_pufferfish_levels_keep_the_strict_limits():
    """Pufferfish levels keep their stricter guard (400 characters, numbers ≤ 64 in a log()
    factor, exp() nested at most 2 deep); question levels do not need it: huge powers such
    as 10**35*log(3/2) and exp(10**35*log(3/2)) are refused by the parser and parse_level
    (tests/kernel/test_kernel_levels9.py)."""
    assert read_level({"eps": "log(3)/100"}).eps is not None
    with pytest.raises(InvalidPrivacyLevel, match="beyond 64"):
        read_level({"eps": "log(3)/100"}, strict=True)
    with pytest.raises(InvalidPrivacyLevel, match="over 400"):
        read_level({"eps": "+".join(["sqrt(2)"] * 60)}, strict=True)
    with pytest.raises(InvalidArgument, match="write"):
        read_level({"eps": "log(2)"})  # t = 1/2 is rational: written as t
    with pytest.raises(InvalidArgument, match="one key t or eps"):
        read_level(None)
    assert read_level(None, ranges=True) is None
