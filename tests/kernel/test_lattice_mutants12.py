"""exactdp.kernel.lattice after session 12's full mutation run (scripts/mutation.py, all 184
mutants: 182 killed, 98.9 %). The two survivors change a constant that is not part of the
claim: ``MAX_BOXES`` 4000 → 4001 (the work budget) and ``_PREC`` 96 → 97 (the arb working
precision); scripts/mutation_equivalent.txt argues them equivalent: False means "not proved",
so every budget and every precision must be sound, and the budget only moves the reach.
These tests check exactly that argument, over many budgets and precisions — they fail when
the budget loop or the precision scope is wrong (a budget that proves a false λ, a claim
proved with budget B but not with B + 1, a precision at which a false λ passes).

Ground truth: min_θ f_e(θ) = f_e(π, π) (proofs/lattice_spectrum_bound.py (c)) from the
search's float symbol sum (error < 1e-12, far below the 1e-6 and 1 % margins), and f_e(π, π)
increases with e, so over [ε_lo, ε_hi] the minimum is at ε_lo·h.
"""

from __future__ import annotations

import math
from fractions import Fraction as F

import pytest

import exactdp.kernel.lattice as L
from exactdp.algebra.lattice_spectrum import euclidean_lattice_symbol_float

E = F(665, 1000)


def _fmin(e: F) -> float:
    return euclidean_lattice_symbol_float(e, math.pi, math.pi)


def _boxes_needed(monkeypatch: pytest.MonkeyPatch, lam: F) -> int:
    """How many boxes the proof of λ at e = 0.665 pops (one _near call each), unbudgeted."""
    calls = []
    near = L._near

    def counting(box, a, b):
        calls.append(box)
        return near(box, a, b)

    monkeypatch.setattr(L, "MAX_BOXES", 10**6)
    monkeypatch.setattr(L, "_near", counting)
    assert L.euclidean_lambda_ok(E, E, F(1), lam)
    monkeypatch.setattr(L, "_near", near)
    return len(calls)


def test_box_budget_is_sound_and_moves_only_the_reach(monkeypatch):
    """λ = 0.99·min f is proved exactly when the budget covers the boxes its proof needs;
    λ above min f is refused at every budget."""
    top = _fmin(E)
    near_min, above = F(top * 0.99), F(top * (1 + 1e-6))
    needed = _boxes_needed(monkeypatch, near_min)
    assert needed > 20  # the box path, not the dominance bound
    for budget in (1, needed // 2, needed - 1, needed, needed + 1, 3 * needed):
        monkeypatch.setattr(L, "MAX_BOXES", budget)
        assert L.euclidean_lambda_ok(E, E, F(1), near_min) is (budget >= needed), budget
        assert not L.euclidean_lambda_ok(E, E, F(1), above), budget


@pytest.mark.parametrize("prec", [53, 97, 200])
@pytest.mark.parametrize("lo, hi, h", [(E, E, F(1)), (F(4, 3), F(7, 5), F(1, 2))])
def test_every_working_precision_is_sound(monkeypatch, prec, lo, hi, h):
    """A false λ is refused at any precision; at ≥ 96 bits the reach (99 % of min f) stays."""
    monkeypatch.setattr(L, "_PREC", prec)
    top = min(_fmin(lo * h), _fmin(hi * h))
    assert not L.euclidean_lambda_ok(lo, hi, h, F(top * (1 + 1e-6)))
    if prec >= 96:
        assert L.euclidean_lambda_ok(lo, hi, h, F(top * 0.99))
