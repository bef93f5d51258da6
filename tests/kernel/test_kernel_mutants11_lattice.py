"""The Euclidean lattice λ bound (exactdp.kernel.lattice) on the three kinds of mutant that
survived session 10's run (87.5 %): the refinement's coverage of the start box, the ε·h
products for a range of ε at a spacing h ≠ 1, and the depth limit at its exact boundary.

Ground truth: min_θ f_e(θ) = f_e(π, π) (proofs/lattice_spectrum_bound.py (c)) from the
search's float symbol sum (error < 1e-12, far below the 1 % and 1e-6 margins), increasing in e;
the coverage test needs no truth beyond geometry: a proof must look at every point of the
triangle 0 ≤ φ2 ≤ φ1 ≤ 1/2, so the leaf boxes it accepts must cover it (area 1/8).
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


def _in_triangle(box: tuple[int, int, int, int]) -> F:
    """Area of {φ2 ≤ φ1} inside the box (integers / _DEN), for squares on the dyadic grid."""
    l1, h1, l2, h2 = box
    side = F(h1 - l1, L._DEN) * F(h2 - l2, L._DEN)
    if h2 <= l1:
        return side
    if (l1, h1) == (l2, h2):
        return side / 2
    assert l2 >= h1, box  # dyadic squares meet the diagonal only on it
    return F(0)


def test_accepted_boxes_cover_the_triangle(monkeypatch):
    seen: list[tuple[int, int, int, int]] = []
    near = L._near

    def record(box, a, b):
        seen.append(box)
        return near(box, a, b)

    monkeypatch.setattr(L, "_near", record)
    assert L.euclidean_lambda_ok(E, E, F(1), F(_fmin(E) * 0.97))  # needs depth 6 (measured)
    boxes = set(seen)
    assert all(0 <= l1 < h1 <= L._DEN // 2 and 0 <= l2 < h2 <= L._DEN // 2 for l1, h1, l2, h2 in boxes)
    parents = {(l1, h1, l2, h2) for l1, h1, l2, h2 in boxes
               for c in boxes if c != (l1, h1, l2, h2) and l1 <= c[0] and c[1] <= h1 and l2 <= c[2] and c[3] <= h2}
    leaves = boxes - parents
    assert len(leaves) > 10
    assert sum(_in_triangle(b) for b in leaves) == F(1, 8)


@pytest.mark.parametrize("lo, hi, h", [(F(4, 3), F(7, 5), F(1, 2)), (F(1, 3), F(7, 20), F(2))])
def test_a_range_of_eps_at_spacing_other_than_one(lo, hi, h):
    """ε·h ∈ [2/3, 7/10] both times: Φ_S(ε) on h·Z² is Φ_{S/h}(ε·h) on Z²."""
    top = min(_fmin(lo * h), _fmin(hi * h))
    assert L.euclidean_lambda_ok(lo, hi, h, F(top * 0.99))
    assert not L.euclidean_lambda_ok(lo, hi, h, F(top * (1 + 1e-6)))
    assert L.euclidean_lambda_ok(lo * h, hi * h, F(1), F(top * 0.99))


def test_depth_limit_at_its_boundary(monkeypatch):
    """λ = 0.9·min f at e = 0.665 needs boxes of depth exactly 4 (measured: depth 3 leaves a
    box short); a limit of 4 proves it, a limit of 3 must not."""
    lam = F(_fmin(E) * 0.9)
    monkeypatch.setattr(L, "MAX_DEPTH", 4)
    assert L.euclidean_lambda_ok(E, E, F(1), lam)
    monkeypatch.setattr(L, "MAX_DEPTH", 3)
    assert not L.euclidean_lambda_ok(E, E, F(1), lam)
