"""Every document of the kernel corpus (scripts/kernel_corpus.py: genuine certificates and
edited ones, the expected outcome decided there independently of the kernel) gets exactly
its expected outcome: verified, rejected, or refused as malformed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from exactdp.errors import InvalidArgument
from exactdp.kernel.jsonio import dumps
from exactdp.kernel.verify import verify_json

CORPUS = Path(__file__).with_name("kernel_corpus.jsonl")
ROWS = [json.loads(line) for line in CORPUS.read_text().splitlines()]


def outcome(row: dict) -> str:
    """The kernel's outcome on one corpus row (also used by scripts/mutation.py)."""
    text = row["text"] if "text" in row else dumps(row["doc"])
    try:
        return "verified" if verify_json(text).verified else "rejected"
    except InvalidArgument:
        return "malformed"


def test_corpus_covers_every_outcome_and_kind():
    kinds = {r["doc"]["kind"] for r in ROWS if r["expected"] == "verified"}
    assert kinds == {"exact-solution", "farkas", "ball", "verified-float", "symbolic", "kronecker"}
    assert {r["expected"] for r in ROWS} == {"verified", "rejected", "malformed"}


@pytest.mark.parametrize("row", ROWS, ids=[r["name"] for r in ROWS])
def test_corpus_document(row):
    assert outcome(row) == row["expected"], row["why"]
