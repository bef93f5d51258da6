"""Session 23: the remap kernel's question check (exactdp.kernel.remap.check_remap).

A remap claim is about a 'private' question: H private at ε, and (*) of Thm. 4 solved by R.
An in-memory claim that carries another question — here a 'privacy-level' question about the
same H, which has a mechanism but no level — is refused as CertificateInvalid naming what it
needs, never checked against a level it does not have.
"""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from exactdp.engine.questions import question_of
from exactdp.errors import CertificateInvalid
from exactdp.kernel.remap import RemapClaim, check_remap
from exactdp.spaces.metrics import line

H = [["2/3", "1/3"], ["1/3", "2/3"]]
IDENTITY = ((F(1), F(0)), (F(0), F(1)))  # diag(HR) = (2/3, 2/3), Φ·diag = (1, 1) at t = 1/2: true


# kills "line 107: Or -> And": with "and" a question with a mechanism but another property
# passes the guard
def test_a_remap_claim_on_another_property_is_refused():
    assert check_remap(RemapClaim(question_of(line(2), "private", t="1/2", mechanism=H), True, IDENTITY))
    level_question = question_of(line(2), "privacy-level", mechanism=H)
    assert level_question.mechanism is not None and level_question.level is None
    with pytest.raises(CertificateInvalid, match="needs a 'private' question"):
        check_remap(RemapClaim(level_question, True, IDENTITY))


# kills "line 110: 0 -> 1" (m read from row 1): a one-point metric has a one-row mechanism.
# With H = [[1/2, 1/2]] the remap R = ((1), (1)) gives diag(HR) = 1/2 + 1/2 = 1 = Φ·diag (Φ = [1]):
# true; R = ((1), (0)) is refused (its second row does not sum to 1)
def test_a_one_point_metric_has_one_row():
    one = line(1)
    assert check_remap(RemapClaim(question_of(one, "private", t="1/2", mechanism=[["1"]]), True, ((F(1),),)))
    q = question_of(one, "private", t="1/2", mechanism=[["1/2", "1/2"]])
    assert check_remap(RemapClaim(q, True, ((F(1),), (F(1),))))
    assert not check_remap(RemapClaim(q, True, ((F(1),), (F(0),))))
