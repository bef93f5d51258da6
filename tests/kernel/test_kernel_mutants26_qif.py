"""Session 26: the two survivors of the complete ``scripts/mutation.py`` run on
exactdp/kernel/qif.py (282 of 292 killed before these tests; the other eight are judged in
scripts/mutation_equivalent.txt). Both sit in ``_matrix``'s size check, which refuses a
matrix over MAX_QIF_WORK = 4,000,000 entries (a literal here, by the project's rule) before
any entry is read.

Ground truth by hand: 2 × 2,000,000 = 4,000,000 entries is at the limit, not over it, so the
reader goes on and meets the malformed first entry (InvalidArgument, exit 3); 1 × 4,000,001
is over it (InstanceTooLarge, exit 2), and the message counts the one row's columns.
"""

from __future__ import annotations

import pytest

from exactdp.errors import InstanceTooLarge, InvalidArgument
from exactdp.kernel.verify import verify_document


def _vulnerability(channel: list[list[str]], prior: list[str], gain: list[list[str]],
                   strategy: list[int]) -> dict:
    return {"schema": "exactdp-certificate", "version": 1, "kind": "qif-vulnerability",
            "question": {"gain": {"rows": gain, "loss": False, "name": "identity"},
                         "prior": prior, "channel": channel},
            "claim": {"value": "1", "strategy": strategy}, "evidence": {}}


# kills "line 150: Gt -> GtE" (a matrix of exactly MAX_QIF_WORK entries refused as too large)
def test_a_matrix_of_exactly_max_qif_work_entries_is_read():
    ok = _vulnerability([["1", "0"], ["0", "1"]], ["1/2", "1/2"], [["1", "0"], ["0", "1"]], [0, 1])
    assert verify_document(ok).verified  # V = 1/2 + 1/2 = 1, by hand
    at_limit = _vulnerability([["x"] + ["0"] * 1_999_999, ["0"] * 2_000_000], ["1/2", "1/2"],
                              [["1", "0"], ["0", "1"]], [0, 1])
    with pytest.raises(InvalidArgument, match=r"question.channel\[0\]\[0\]: got 'x'"):
        verify_document(at_limit)
    over = _vulnerability([["x"] + ["0"] * 2_000_000, ["0"] * 2_000_001], ["1/2", "1/2"],
                          [["1", "0"], ["0", "1"]], [0, 1])
    with pytest.raises(InstanceTooLarge, match="question.channel: 2×2000001 entries, over MAX_QIF_WORK = 4000000"):
        verify_document(over)


# kills "line 151: 0 -> 1" (the message's column count read from grid[1]: an IndexError on a
# one-row matrix instead of the size refusal)
def test_a_one_row_matrix_over_the_limit_is_refused_with_its_size():
    one = _vulnerability([["1"]], ["1"], [["1"]], [0])
    assert verify_document(one).verified  # one secret, one output: V = 1
    wide = _vulnerability([["1"] + ["0"] * 4_000_000], ["1"], [["1"]], [0])
    with pytest.raises(InstanceTooLarge, match="question.channel: 1×4000001 entries, over MAX_QIF_WORK = 4000000"):
        verify_document(wide)
