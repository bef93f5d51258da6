"""The class writers refuse, before writing, the class laws the kernel refuses for their bits
(``MAX_BITS`` of exactdp/kernel/pufferfish_more.py; the gap found in session 15 by 15FP), with
InstanceTooLarge (exit 2, as the kernel); the result itself is still returned and verifies.

Ground truth (the kernel's rule, ``class_law_work``): the law Π (b − a + a·x)^count of a class
(p = a/b) is built only when (degree + 1)·bits ≤ MAX_BITS = 2^24, degree = the members with
p > 0, bits = Σ count·bitlength(b) over 0 < p < 1. For p = 1/3 (2-bit denominator):
(n + 1)·2n ≤ 2^24 ⟺ n ≤ 2,895. For p = 1/(2^40 + 1) (41 bits): (n + 1)·41n ≤ 2^24 ⟺ n ≤ 639.
Every document written at the bound is re-checked by the kernel.
"""

from __future__ import annotations

import copy
from fractions import Fraction as F

import pytest

from exactdp.errors import InstanceTooLarge
from exactdp.kernel.pufferfish_more import MAX_BITS, class_law_work
from exactdp.kernel.verify import verify_document
from exactdp.pufferfish import class_law, class_pair_scale, to_document

P41 = str(F(1, 2**40 + 1))


def test_the_edges_are_the_kernels_rule():
    assert MAX_BITS == 2**24
    assert class_law_work([(F(1, 3), 2895)]) == 2896 * 5790 <= MAX_BITS
    assert class_law_work([(F(1, 2**40 + 1), 639)]) == 640 * 639 * 41 <= MAX_BITS
    for groups in ([(F(1, 3), 2896)], [(F(1, 2**40 + 1), 640)]):
        with pytest.raises(InstanceTooLarge, match="MAX_BITS"):
            class_law_work(groups)
    assert class_law_work([(F(0), 10**6), (F(1), 5)]) == 6  # p = 0 and p = 1 carry no bits


def test_a_class_law_at_the_bound_is_written_and_verified():
    doc = to_document(class_law((2895, "1/3")))
    assert verify_document(doc).verified


def test_a_class_law_one_member_over_is_refused_at_the_writer_and_the_answer_stays():
    result = class_law((2896, "1/3"))
    assert result.verify()
    with pytest.raises(InstanceTooLarge) as info:
        to_document(result)
    msg = str(info.value)
    assert "question.groups" in msg and "MAX_BITS = 16777216" in msg and "without a document" in msg


def test_the_kernel_refuses_the_document_the_writer_refuses():
    """The writer's refusal is the kernel's: the bound's document with one member more is
    refused by the kernel with InstanceTooLarge (before any claim is compared)."""
    doc = copy.deepcopy(to_document(class_law((2895, "1/3"))))
    doc["question"]["groups"][0]["count"] = 2896
    with pytest.raises(InstanceTooLarge, match="MAX_BITS"):
        verify_document(doc)


@pytest.mark.parametrize("side", ["a", "b"])
def test_a_class_pair_over_the_bits_is_refused_either_side(side):
    big, small = (640, P41), (638, P41)
    a, b = (big, small) if side == "a" else (small, big)
    result = class_pair_scale(a, b, 1)
    assert result.verify()
    with pytest.raises(InstanceTooLarge) as info:
        to_document(result)
    msg = str(info.value)
    assert f"question.{side}: a class law of degree 640" in msg and "MAX_BITS" in msg


def test_a_class_pair_at_the_bits_bound_is_written_and_verified():
    doc = to_document(class_pair_scale((639, P41), (638, P41), 1))
    assert verify_document(doc).verified
