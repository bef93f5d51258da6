"""A forged s* that only the "no other root in (0, s*]" separation of the exact kernel
rejects (threshold_exact._s_star_ok): the session-16 mutation sample of threshold_exact.py
left ``return False`` → ``return True`` at the end of that separation, the never-taken
"g(mid) = 0" branch of its bisection mutated to be taken, and the filter "degree ≥ 1" of the
other numerators' factors made "> 1" (a linear factor dropped), unkilled; these documents kill
them.

The instance: line(5) with the prior π = (9, 4, 4, 12, 8)/37. The solution of Φx = π,
Φ_ij = s^|i−j| (s = e^{−ε}), is x = N/D with D = 37(1 − s²) > 0 on (0, 1) and
N_1 = 4s² − 13s + 4 (roots (13 ± √105)/8: 0.3441…, 2.906…) and N_2 = 4(s² − 4s + 1) (roots
2 ± √3: 0.2679…, 3.732…). So x_2 < 0 for s ∈ (2 − √3, 1): the true s* is 2 − √3 (ε* = ln(2 + √3)),
which the genuine certificate states. The forgery claims s* = (13 − √105)/8, a root of the
witness's numerator N_1 with ε = 1 as the failing end (e^{−1} = 0.3679 > 0.3441: x_1 < 0 there)
and the genuine upper end: its ε-enclosure [1, ε_hi] still contains ε* (a true claim, which the
kernel accepts without an s*), only its s* is false — x_2 < 0 at s = 3/10, inside (0, s*].
The second instance (for the linear factor): line(3) with π = (12, 5, 2)/19, x = (12 − 5s,
5s² − 14s + 5, 2 − 5s)/(19(1 − s²)): x_2 < 0 for s > 2/5, so s* = 2/5 (rational); the forgery
claims s* = (7 − 2√6)/5 = 0.4202…, a root of N_1, above the linear root 2/5 of N_2.
Ground truth here is an exact rational solve of Φx = π at rational s, independent of the kernel
and of the polynomials the document carries.
"""

from __future__ import annotations

import copy
from fractions import Fraction as F

import pytest

from exactdp import epsilon_threshold
from exactdp.kernel.verify import verify_document
from exactdp.spaces.metrics import line

PRIOR = [F(k, 37) for k in (9, 4, 4, 12, 8)]


def _solve_at(s: F, prior: list[F] = PRIOR) -> list[F]:
    """x with Φx = π at a rational s, Φ_ij = s^|i−j| (Gauss–Jordan over Q)."""
    n = len(prior)
    rows = [[s ** abs(i - j) for j in range(n)] + [prior[i]] for i in range(n)]
    for c in range(n):
        p = next(r for r in range(c, n) if rows[r][c] != 0)
        rows[c], rows[p] = rows[p], rows[c]
        rows[c] = [v / rows[c][c] for v in rows[c]]
        for r in range(n):
            if r != c and rows[r][c] != 0:
                f = rows[r][c]
                rows[r] = [a - f * b for a, b in zip(rows[r], rows[c])]
    return [rows[i][n] for i in range(n)]


@pytest.fixture(scope="module")
def genuine():
    res = epsilon_threshold(line(5), prior=PRIOR)
    doc = res.certificate.to_json()
    assert doc["kind"] == "exact" and doc["evidence"]["witness"] == 2
    assert doc["claim"]["s_star"]["minimal_polynomial"] == ["1", "-4", "1"]  # 2 − √3
    return doc


def _forged(doc, interval):
    bad = copy.deepcopy(doc)
    bad["evidence"]["witness"] = 1
    bad["claim"]["eps"]["lo"] = "1"
    bad["claim"]["s_star"] = None if interval is None else {
        "q": 1, "minimal_polynomial": ["4", "-13", "4"],
        "isolating_interval": {"lo": interval[0], "hi": interval[1]}}
    return bad


def test_ground_truth_of_the_instance():
    assert all(v >= 0 for v in _solve_at(F(1, 4)))   # below 2 − √3: every x_k ≥ 0
    x = _solve_at(F(3, 10))                           # between the two roots
    assert x[2] < 0 and x[1] > 0                      # (0, 0.3441] is not a holding run
    assert _solve_at(F(37, 100))[1] < 0              # e^{-1} > 37/100 > 0.3441: x_1 fails
    assert F(34, 100) ** 2 * 4 - 13 * F(34, 100) + 4 > 0 > F(35, 100) ** 2 * 4 - 13 * F(35, 100) + 4


def test_genuine_certificate_verifies(genuine):
    assert verify_document(genuine).verified


def test_true_claim_without_s_star_verifies(genuine):
    # ε* = ln(2 + √3) ∈ [1, ε_hi], witness 1 fails at ε = 1: true, and accepted
    assert verify_document(_forged(genuine, None)).verified


@pytest.mark.parametrize("interval", [
    ("17/50", "7/20"),   # tight around (13 − √105)/8: the separation never leaves (0, s*]
    ("3/20", "7/20"),    # midpoint 1/4 < 2 − √3: a bisection stopped there sees no root of N_2
])
def test_forged_s_star_is_rejected(genuine, interval):
    verdict = verify_document(_forged(genuine, interval))
    assert not verdict.verified and verdict.kind == "exact"


PRIOR3 = [F(k, 19) for k in (12, 5, 2)]


def test_forged_s_star_above_a_linear_root_is_rejected():
    assert all(v >= 0 for v in _solve_at(F(2, 5), PRIOR3))
    assert _solve_at(F(41, 100), PRIOR3)[2] < 0            # below the claimed 0.4202: x_2 fails
    assert _solve_at(F(45, 100), PRIOR3)[1] < 0            # e^{-4/5} = 0.449…: x_1 fails
    doc = epsilon_threshold(line(3), prior=PRIOR3).certificate.to_json()
    assert doc["claim"]["s_star"]["minimal_polynomial"] == ["5", "-2"]   # s* = 2/5
    assert verify_document(doc).verified
    bad = copy.deepcopy(doc)
    bad["evidence"]["witness"] = 1
    bad["claim"]["eps"]["lo"] = "4/5"                      # ε* = ln(5/2) ∈ [4/5, ε_hi]: true
    bad["claim"]["s_star"] = None
    assert verify_document(bad).verified
    bad["claim"]["s_star"] = {"q": 1, "minimal_polynomial": ["5", "-14", "5"],
                              "isolating_interval": {"lo": "41/100", "hi": "43/100"}}
    assert not verify_document(bad).verified
