"""Review of task 11L (exactdp/kernel/qif_log.py): regression tests for what the review found.

F1 (major): the ``qif-bayes-risk`` checker re-validates the whole channel once per column
(``_channel(C, ...)`` sits inside the per-column comprehension), so its work is
rows·cols² exact additions while :func:`~exactdp.kernel.qif_log.log_work` charges rows·cols.
A 1×4000 document takes ~25 s, a 300×300 identity channel ~50 s, and a 1×190,000 document
(inside MAX_LOG_WORK) would take hours. The ``qif-entropy`` checker on the same shape is
linear (~66 calls per entry), which is the yardstick used below (no timing: call counts).
"""

from fractions import Fraction

import pytest

from exactdp.kernel.qif_log import MAX_LOG_WORK, log_work
from exactdp.kernel.verify import verify_document
from exactdp.qif.entropy import mutual_information
from exactdp.qif.measures import bayes_risk
from exactdp.testing.budget import OverBudget, call_budget

#: Calls per channel entry allowed to the kernel; the entropy checker needs ~66 on these shapes.
PER_ENTRY = 250


def _one_hot_rows(rows: int, cols: int) -> list[list[str]]:
    return [["1" if y == x % cols else "0" for y in range(cols)] for x in range(rows)]


def _calls(doc) -> int | None:
    """Calls the kernel makes verifying ``doc`` (None: over the budget); asserts it verifies."""
    entries = len(doc["question"]["channel"]) * len(doc["question"]["channel"][0])
    try:
        with call_budget(PER_ENTRY * entries) as made:
            assert verify_document(doc).verified
    except OverBudget:
        return None
    return made[0]


@pytest.mark.parametrize("rows, cols", [(1, 400), (4, 300)])
def test_entropy_checker_is_linear_yardstick(rows, cols):
    """The yardstick holds for the entropy checker on the same channels (so F1's test can fail
    only through the Bayes-risk checker)."""
    doc = mutual_information(_one_hot_rows(rows, cols), "uniform", prec=53).to_document()
    assert _calls(doc) is not None


@pytest.mark.parametrize("rows, cols", [(1, 400), (4, 300)])
def test_bayes_risk_checker_is_linear_in_the_channel(rows, cols):
    """Review 11L F1 (fixed): the channel was re-validated once per column (rows·cols² work,
    uncounted by log_work); now once."""
    doc = bayes_risk(_one_hot_rows(rows, cols), "uniform").to_document()
    assert _calls(doc) is not None, f"the {rows}×{cols} Bayes-risk document needs over {PER_ENTRY} calls per entry"


def test_quadratic_shape_is_inside_the_work_limit():
    """F1's worst case is not refused up front: a 1×190,000 channel is within MAX_LOG_WORK."""
    n = 190_000
    assert log_work(0, n, ([Fraction(1)], [Fraction(1)] + [Fraction(0)] * (n - 1))) <= MAX_LOG_WORK
