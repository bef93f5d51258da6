"""Size limits of the QIF readers are undecided (InstanceTooLarge, exit 2), like the counted-work
limits they guard (session 15, task 15P): a matrix over MAX_QIF_WORK entries (qif.py), a vector
or matrix over MAX_LOG_ENTRIES entries (qif_log.py). Malformed input stays InvalidArgument.

Ground truth: MAX_QIF_WORK = 4·10⁶ and MAX_LOG_ENTRIES = MAX_LOG_WORK // 256 = 195,312 (each
entry is charged at least 256 counted operations, so a larger one is over MAX_LOG_WORK anyway);
the sizes below are one row or entry past them, counted by hand.
"""

from __future__ import annotations

import copy

import pytest

from exactdp.errors import InstanceTooLarge, InvalidArgument
from exactdp.kernel.qif import MAX_QIF_WORK
from exactdp.kernel.qif_log import MAX_LOG_ENTRIES, MAX_LOG_WORK
from exactdp.kernel.verify import verify_document
from exactdp.qif import mutual_information, shannon_entropy


def _vulnerability(channel) -> dict:
    return {"schema": "exactdp-certificate", "version": 1, "kind": "qif-vulnerability",
            "question": {"gain": {"rows": [["1", "0"], ["0", "1"]], "loss": False, "name": "identity"},
                         "prior": ["1/2", "1/2"], "channel": channel},
            "claim": {"value": "1", "strategy": [0, 1]}, "evidence": {}}


def test_qif_matrix_over_max_qif_work_entries_is_instance_too_large():
    assert MAX_QIF_WORK == 4_000_000
    small = _vulnerability([["1", "0"], ["0", "1"]])
    assert verify_document(small).verified          # V = 1/2 + 1/2 = 1 (by hand)
    big = copy.deepcopy(small)
    big["question"]["channel"] = [["1"] + ["0"] * 2000000] * 2  # 2 × 2,000,001 = 4,000,002 entries
    with pytest.raises(InstanceTooLarge, match="question.channel: 2×2000001 entries, over MAX_QIF_WORK"):
        verify_document(big)
    ragged = copy.deepcopy(small)
    ragged["question"]["channel"] = [["1", "0"], ["1"]]  # malformed: stays exit 3
    with pytest.raises(InvalidArgument):
        verify_document(ragged)


def test_qif_log_vector_and_matrix_over_max_log_entries_are_instance_too_large():
    assert MAX_LOG_ENTRIES == MAX_LOG_WORK // 256 == 195_312
    doc = shannon_entropy(["1/2", "1/2"]).to_document()
    assert verify_document(doc).verified
    doc["question"]["prior"] = ["0"] * (MAX_LOG_ENTRIES + 1)
    with pytest.raises(InstanceTooLarge, match="question.prior: has 195313 items; the kernel checks at most 195312"):
        verify_document(doc)
    mi = mutual_information([["1/2", "1/2"], ["1/2", "1/2"]], ["1/2", "1/2"]).to_document()
    assert verify_document(mi).verified
    mi["question"]["channel"] = [["0"] * 400] * 489      # 489 × 400 = 195,600 entries
    mi["question"]["prior"] = ["0"] * 489
    with pytest.raises(InstanceTooLarge, match="question.channel: 489×400 entries, over MAX_LOG_ENTRIES"):
        verify_document(mi)
    doc["question"]["prior"] = []                         # malformed: stays exit 3
    with pytest.raises(InvalidArgument):
        verify_document(doc)
