"""Degenerate optimal-mechanism LPs: the dual vertex read from HiGHS, made exact."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

import exactdp.qif.optimal as optimal
from exactdp.errors import LPNotCertified
from exactdp.qif.optimal import optimal_mechanism
from exactdp.spaces.metrics import sum_query

# instance 19 of the random family in docs/readme/qif.md (seed 1): sum_query(6, 3), binary
# gain, t = 9/10 — a degenerate optimum whose primal tight trees leave the dual ambiguous
PRIOR = [F(v) for v in ("8/93 8/93 1/31 2/93 3/31 2/31 2/93 3/31 1/31 1/31 1/31 1/31 2/31 "
                        "5/93 2/93 3/31 5/93 1/31 4/93").split()]


def test_degenerate_instance_is_certified_through_the_float_dual() -> None:
    r = optimal_mechanism(sum_query(6, 3), PRIOR, t="9/10", method="float-basis")
    assert r.method == "float-basis" and r.verify(sum_query(6, 3), PRIOR, t="9/10")


def test_without_the_dual_reading_it_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(optimal, "_dual_from_float", lambda *_args: None)
    with pytest.raises(LPNotCertified):
        optimal_mechanism(sum_query(6, 3), PRIOR, t="9/10", method="float-basis")
