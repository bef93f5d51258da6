"""An exact threshold's s* must be the least root of its minimal polynomial (session 28, tie attack 28A).

The ``exact`` check (``exactdp/kernel/threshold_exact.py``, ``_s_star_ok``) proves that the
claimed s* ends the holding run (0, s*]: g is irreducible, its isolating interval holds one
root, g divides N_w to an odd power, and no root of the *other* factors of the N_i or of D lies
in (0, s*]. It never looked at g's own other roots. Each of them is a sign change of N_w (g is
squarefree and coprime to N_w / g^k, k odd), so when g has a root r₁ below the claimed one the
run ends at r₁ already. A forged isolating interval around the second root r₂ of g verified,
with the genuine ε enclosure untouched, and ``ThresholdResult.from_json`` reported the false
exact value ε* = −ln r₂ as verified; nested in ``exact-scaled`` it verified too, and so did
a ``kronecker-threshold`` document whose ``exact`` factor carried the forged interval (session 29). The kernel now
also requires that g has no root in (0, lo].

Ground truth, exact (sympy): z = Φ(s)⁻¹b at a rational s strictly between r₁ and r₂ has a
negative entry, so the property fails at ε = −ln s > −ln r₂: ε* = −ln r₂ is false.
"""

from __future__ import annotations

import copy
from fractions import Fraction

import numpy as np
import pytest
import sympy

import exactdp
from exactdp.kernel.jsonio import dumps, loads
from exactdp.kernel.verify import verify_document
from exactdp.spaces.distances import Distance
from exactdp.spaces.metrics import from_matrix, line
from exactdp.spaces.metrics.space import FiniteMetric

CASES = {
    "four points, g of degree 5": (
        [[0, 1, 2, 2], [1, 0, 1, 2], [2, 1, 0, 3], [2, 2, 3, 0]], ["8/31", "8/31", "8/31", "7/31"],
        [16, 0, -7, -15, 0, 8], ("41/50", "87/100"), sympy.Rational(21, 25)),
    "four points, g of degree 4": (
        [[0, 3, 2, 4], [3, 0, 1, 3], [2, 1, 0, 2], [4, 3, 2, 0]], ["2/9", "7/27", "7/27", "7/27"],
        [14, -7, -6, -7, 7], ("4/5", "19/20"), sympy.Rational(3, 4)),
}


def _genuine(distances: list[list[int]], prior: list[str], scale: int = 1) -> dict:
    metric = from_matrix([[d * scale for d in row] for row in distances])
    method = "exact" if scale == 1 else "auto"
    return loads(dumps(exactdp.epsilon_threshold(metric, prior, method=method).to_json()))


def _roots_01(coeffs: list[int]) -> list[sympy.Expr]:
    s = sympy.Symbol("s")
    return [r for r in sympy.Poly(coeffs, s).real_roots() if 0 < r < 1]


@pytest.mark.parametrize("case", list(CASES))
def test_the_second_root_of_the_minimal_polynomial_is_refused(case: str) -> None:
    distances, prior, g, (lo, hi), between = CASES[case]
    doc = _genuine(distances, prior)
    assert doc["kind"] == "exact" and doc["claim"]["s_star"]["minimal_polynomial"] == [str(c) for c in g]
    assert verify_document(doc).verified
    r1, r2 = _roots_01(g)  # two roots in (0, 1); the forged interval isolates the larger one
    assert sympy.Rational(lo) < r2 < sympy.Rational(hi) and not sympy.Rational(lo) < r1 < sympy.Rational(hi)
    assert r1 < between < r2  # the property fails between the roots: exact solve
    phi = sympy.Matrix(4, 4, lambda i, j: between ** distances[i][j])
    z = phi.LUsolve(sympy.Matrix([sympy.Rational(p) for p in prior]))
    assert min(z) < 0
    forged = copy.deepcopy(doc)
    forged["claim"]["s_star"]["isolating_interval"] = {"lo": lo, "hi": hi}
    assert not verify_document(forged).verified


def test_the_forgery_nested_in_a_scaled_document_is_refused() -> None:
    distances, prior, _, (lo, hi), _ = CASES["four points, g of degree 5"]
    doc = _genuine(distances, prior, scale=2**30)
    assert doc["kind"] == "exact-scaled" and doc["evidence"]["inner"]["kind"] == "exact"
    assert verify_document(doc).verified
    forged = copy.deepcopy(doc)
    forged["evidence"]["inner"]["claim"]["s_star"]["isolating_interval"] = {"lo": lo, "hi": hi}
    assert not verify_document(forged).verified


def test_the_forgery_as_a_kronecker_factor_is_refused() -> None:
    # the degree-5 metric times line(2) (distances add), with the product prior (8, 8, 8, 7)/31 ⊗ (1/2, 1/2)
    distances, prior, _, (lo, hi), _ = CASES["four points, g of degree 5"]
    index = np.array([[distances[i // 2][j // 2] + abs(i % 2 - j % 2) for j in range(8)] for i in range(8)])
    metric = FiniteMetric("m4 x line(2)", range(8), [Distance.rational(k) for k in range(5)], index,
                          kronecker_factors=(from_matrix(distances), line(2)))
    product = [Fraction(prior[i // 2]) / 2 for i in range(8)]
    doc = loads(dumps(exactdp.epsilon_threshold(metric, product).to_json()))
    assert doc["kind"] == "kronecker-threshold" and doc["evidence"]["factors"][0]["kind"] == "exact"
    assert verify_document(doc).verified
    forged = copy.deepcopy(doc)
    forged["evidence"]["factors"][0]["claim"]["s_star"]["isolating_interval"] = {"lo": lo, "hi": hi}
    assert not verify_document(forged).verified
