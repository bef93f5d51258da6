"""The class writers (``to_document`` of a ClassLaw, ClassScale or ClassPairScale) refuse, before
writing, the class sizes the kernel refuses (task 15FP; review 15RP finding 3), with
InstanceTooLarge (exit 2, as the kernel); the result itself is still returned and verifies.

Ground truth (exactdp/kernel/pufferfish_more.py): at most MAX_POINTS = 1000 groups per class
(``_groups``: read_list(limit=MAX_POINTS)); a class pair's class law of degree at most
MAX_POINTS − 1 = 999, the degree being the number of members with p > 0 (p = 0 gives a constant
factor). Every document written at the bound is re-checked by the kernel.
"""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from exactdp.errors import InstanceTooLarge
from exactdp.kernel.pufferfish import MAX_POINTS
from exactdp.kernel.verify import verify_document
from exactdp.pufferfish import class_law, class_pair_scale, class_vs_absent_scale, to_document


def _ps(k: int) -> list[str]:
    return [str(F(i, 2000)) for i in range(1, k + 1)]  # k distinct p's: k groups


def test_the_limit_is_the_kernels():
    assert MAX_POINTS == 1000


@pytest.mark.parametrize("make", [class_law, lambda ps: class_vs_absent_scale(ps, 1)],
                         ids=["class_law", "class_vs_absent_scale"])
def test_one_group_over_is_refused_at_the_writer_and_the_answer_stays(make):
    result = make(_ps(MAX_POINTS + 1))
    assert result.verify()                                   # the answer itself is returned and correct
    with pytest.raises(InstanceTooLarge) as info:
        to_document(result)
    msg = str(info.value)
    assert "question.groups: 1001 groups" in msg and "MAX_POINTS = 1000" in msg and "without a document" in msg


@pytest.mark.parametrize("make", [class_law, lambda ps: class_vs_absent_scale(ps, 1)],
                         ids=["class_law", "class_vs_absent_scale"])
def test_the_bound_is_written_and_verified(make):
    doc = to_document(make(_ps(MAX_POINTS)))
    assert len(doc["question"]["groups"]) == MAX_POINTS
    assert verify_document(doc).verified


@pytest.mark.parametrize("side", ["a", "b"])
def test_a_class_pair_of_one_member_too_many_is_refused_either_side(side):
    big, small = (MAX_POINTS, "1/2"), (MAX_POINTS - 1, "1/2")   # degree 1000 > 999
    a, b = (big, small) if side == "a" else (small, big)
    result = class_pair_scale(a, b, 1)
    assert result.verify()
    with pytest.raises(InstanceTooLarge) as info:
        to_document(result)
    msg = str(info.value)
    assert f"question.{side}: a class of 1000 members" in msg and "MAX_POINTS − 1 = 999" in msg
    assert "without a document" in msg


def test_a_class_pair_at_the_bound_is_written_and_verified():
    doc = to_document(class_pair_scale((MAX_POINTS - 1, "1/2"), (MAX_POINTS - 2, "1/2"), 1))
    assert verify_document(doc).verified


def test_members_with_p_zero_do_not_count():
    # 1000 members at p = 0 and one at 1/2: the class law has degree 1 (kernel: accepted)
    result = class_pair_scale(["0"] * MAX_POINTS + ["1/2"], ["0", "1/3"], 1)
    doc = to_document(result)
    assert doc["question"]["a"] == [{"p": "0", "count": MAX_POINTS}, {"p": "1/2", "count": 1}]
    assert verify_document(doc).verified


def test_a_class_pair_with_over_max_points_groups_is_refused():
    with pytest.raises(InstanceTooLarge, match="question.a: "):
        to_document(class_pair_scale(_ps(MAX_POINTS + 1), (1, "1/2"), 1))
