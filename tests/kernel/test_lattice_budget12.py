"""The lattice λ check at its published work budget, ``exactdp.kernel.lattice.MAX_BOXES`` = 4,000
boxes (task 11R-fix, review finding 3 of session 12).

The budget is part of what the kernel accepts: a λ whose proof needs 4,000 boxes is proved, one
that needs 4,004 is not (it is still true: the same check proves it with a budget of 4,004). The
two λ below, at ε = 1/2 and spacing 1, were found by bisection on how many boxes the proof pops
(one ``_near`` call each); pops come in steps of about 4, so no λ needing exactly 4,001 was
found, and the budget is pinned to 4,000…4,003 (the mutant 4000 → 4001 still survives: it is a
sound budget change, not an equivalent one). Ground truth for "true λ": both are below
min_θ f_e(θ) = f_e(π, π) (proofs/lattice_spectrum_bound.py (c)) by the search's float symbol.
"""

from __future__ import annotations

import math
from fractions import Fraction as F

import pytest

import exactdp.kernel.lattice as L
from exactdp.algebra.lattice_spectrum import euclidean_lattice_symbol_float

E = F(1, 2)
LAM_4000 = F(1026101136727, 5000000000000)  # its proof pops 4,000 boxes
LAM_4004 = F(513050804553, 2500000000000)  # its proof pops 4,004 boxes


def _pops(monkeypatch: pytest.MonkeyPatch, lam: F) -> tuple[bool, int]:
    """The published check's answer on ``lam`` and how many boxes it popped."""
    calls = []
    near = L._near

    def counting(box, a, b):
        calls.append(box)
        return near(box, a, b)

    monkeypatch.setattr(L, "_near", counting)
    try:
        return L.euclidean_lambda_ok(E, E, F(1), lam), len(calls)
    finally:
        monkeypatch.setattr(L, "_near", near)


def test_both_lambdas_are_true():
    top = euclidean_lattice_symbol_float(E, math.pi, math.pi)
    assert float(LAM_4000) < float(LAM_4004) < top * (1 - 1e-4)


def test_a_proof_of_4000_boxes_goes_through_at_the_published_budget(monkeypatch):
    assert _pops(monkeypatch, LAM_4000) == (True, 4000)


def test_a_proof_of_4004_boxes_does_not_and_only_for_lack_of_budget(monkeypatch):
    ok, pops = _pops(monkeypatch, LAM_4004)
    assert not ok and pops <= 4003  # stopped by the budget (4,000 … 4,003 boxes)
    monkeypatch.setattr(L, "MAX_BOXES", 4004)
    assert _pops(monkeypatch, LAM_4004) == (True, 4004)
    monkeypatch.setattr(L, "MAX_BOXES", 4003)
    assert not L.euclidean_lambda_ok(E, E, F(1), LAM_4004)
