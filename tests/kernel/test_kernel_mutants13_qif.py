"""Mutation survivors of ``exactdp/kernel/qif.py`` (session 13, task 11M): the documented
limits of the QIF checks, each tested at its exact boundary — MAX_QIF_WORK = 4,000,000
counted operations, MAX_PHI_BITS = 2^16 bits of one φ = s^k, MAX_SUBSET_SECRETS = 18 secrets
of the exact sub-uniform search — and the documents just inside them verify.

Ground truth is independent of the kernel: a one-column channel leaks nothing (every
capacity is 0: V[π, C] = max π = V(π)); φ = s^k has k·bits(s) bits by definition.
"""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from exactdp.errors import InstanceTooLarge
from exactdp.kernel.qif import check_phi, check_qif_work
from exactdp.kernel.verify import verify_document


def test_counted_work_at_the_limit_and_one_over():
    check_qif_work(4_000_000)
    check_qif_work(3_999_999, 1)
    with pytest.raises(InstanceTooLarge, match="MAX_QIF_WORK = 4000000"):
        check_qif_work(4_000_000, 1)


def test_phi_bits_at_the_limit_and_one_over():
    check_phi(F(1, 2), [0, 1, 32_768], 2, 2)  # 32,768 · 2 bits = 65,536 = MAX_PHI_BITS
    with pytest.raises(InstanceTooLarge, match="MAX_PHI_BITS = 65536"):
        check_phi(F(1, 2**65_536), [0, 1], 2, 2)  # 1 · 65,537 bits (65,537 is prime)


def _one_column_capacity(n: int) -> dict:
    """The additive Bayes capacity of an n × 1 channel (0) by the exact sub-uniform search."""
    return {"schema": "exactdp-certificate", "version": 1, "kind": "qif-capacity",
            "question": {"measure": "additive-bayes", "channel": [["1"]] * n, "gain": None},
            "claim": {"value": "0", "bounds": {"lo": "0", "hi": "0"}, "witness": ["1"] + ["0"] * (n - 1)},
            "evidence": {"method": "subsets", "duals": None}}


def test_subset_search_at_the_secret_limit_verifies_and_one_more_is_refused():
    assert verify_document(_one_column_capacity(18)).verified  # 2^18 subsets: MAX_SUBSET_SECRETS
    bad = _one_column_capacity(18)
    bad["claim"] = {"value": "1/18", "bounds": {"lo": "1/18", "hi": "1/18"}, "witness": ["1/18"] * 18}
    assert not verify_document(bad).verified
    with pytest.raises(InstanceTooLarge, match="≤ 18 secrets"):
        verify_document(_one_column_capacity(19))
