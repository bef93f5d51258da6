"""Session 21: survivors of the first complete ``scripts/mutation.py`` run on
exactdp/kernel/threshold_spd.py (the SPD threshold checks: λ_min proofs by Cholesky and by the
chord lemma, the Taylor piece bound, the ε range). Each test names the mutants it kills.

Ground truth is computed here: λ_min(Φ(ε)) of line(3) (Φ = [[1, t, t²], [t, 1, t],
[t², t, 1]], t = e^{−ε}) with numpy's eigvalsh, used only through rationals 10⁻⁹ below it and
in claims with margins of at least 0.05; the 4-point star's z = Φ⁻¹·1 in closed form
(z_0 = (1 − 2t)/(1 + t): negative exactly below ε* = ln 2); and the documented ε limit
ε·max d ≤ 2²², max d bounded by c·(⌊√r⌋ + 1).
"""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction as F

import numpy as np
import pytest

from exactdp.kernel.threshold_spd import (
    DenseProducts,
    SpdPointClaim,
    chord_ok,
    eps_in_range,
    lambda_ok,
    piece_ok,
    pieces_in_order,
)
from exactdp.spaces.metrics import grid, line
from exactdp.spaces.metrics.explicit import from_matrix

LINE3 = line(3)


def _lam_min(eps: float) -> float:
    t = math.exp(-eps)
    phi = np.array([[1, t, t * t], [t, 1, t], [t * t, t, 1]])
    return float(np.linalg.eigvalsh(phi)[0])


def _below(x: float) -> F:
    """A rational a little below the float x (a safe lower bound of λ_min)."""
    return F(x * (1 - 1e-9)).limit_denominator(10**12) - F(1, 10**12)


# kills "line 77: 2 -> 3" (a limit of 3²² instead of 2²²) and "line 112: Mult -> Div"
# (max d bounded by c/(⌊√r⌋ + 1) instead of c·(⌊√r⌋ + 1)): the documented limit at its edge.
# On line(2) and grid(2, 2) the bound of max d is 1·(1 + 1) = 2 (d = 1) and 1·(⌊√2⌋ + 1) = 2
# (d = √2), so ε = 2²¹ sits exactly on the limit
def test_eps_limit_at_its_edge():
    for m in (line(2), grid(2, 2)):
        assert eps_in_range(m, F(2**21))
        assert not eps_in_range(m, F(2**21) + F(1, 10**9))
        assert not eps_in_range(m, F(2**21), F(3 * 2**20))  # every ε of the list is checked
    assert not eps_in_range(LINE3, F(0)) and not eps_in_range(LINE3, 1)  # ε > 0, a Fraction


# kills "line 305: Or -> And": nodes that start above a leave [a, ε_0) unproved. Here
# λ = 1/2 is below λ_min on [2, 3] (≥ 0.81) but above λ_min(Φ(1/10)) ≈ 0.066, so
# accepting would prove a false bound
def test_chord_nodes_must_reach_down_to_a():
    nodes = [(F(2), _below(_lam_min(2))), (F(3), _below(_lam_min(3)))]
    assert _lam_min(0.1) < 0.2 < 0.5 < _lam_min(2) - 0.2
    assert not chord_ok(LINE3, nodes, F(1, 10), F(3), F(1, 2))
    assert chord_ok(LINE3, nodes, F(2), F(3), F(1, 2))  # the covered range is proved


# kills "line 305: Lt -> LtE": nodes ending exactly at b reach b ("from ≤ a to ≥ b"); the
# chord bound λ ≤ min(λ_0, λ_1) − ((ε_1 − ε_0)²/8)·max_i Σ_l d² e^{−ε_0 d} holds here with
# room: at ε_0 = 1 the largest row sum is an end row's e^{−1} + 4e^{−2} ≈ 0.909, so the step
# costs ≈ 0.114, and λ_min(Φ(1)) ≈ 0.543: the bound is ≈ 0.429 and λ = 3/8 passes by 0.054
def test_chord_nodes_ending_exactly_at_b():
    nodes = [(F(1), _below(_lam_min(1))), (F(2), _below(_lam_min(2)))]
    lam = F(3, 8)
    row = max(math.exp(-1) + 4 * math.exp(-2), 2 * math.exp(-1))
    assert float(lam) < min(_lam_min(1), _lam_min(2)) - row / 8 - 0.05
    assert min(_lam_min(e) for e in np.linspace(1, 2, 50)) > 0.5  # a true claim on [1, 2]
    assert chord_ok(LINE3, nodes, F(1), F(2), lam)
    assert not chord_ok(LINE3, nodes, F(1), F(2) + F(1, 10**9), lam)  # one step past the nodes


# kills "line 130: Lt -> LtE" (n ≤ 1 refused): a one-point metric has Φ = [1], λ_min = 1,
# and the Cholesky proof of λ = 1/4 through σ = 1/2 holds with room
def test_lambda_of_a_one_point_metric():
    one = line(1)
    assert lambda_ok(one, F(1), F(1, 2), F(1, 4))
    assert not lambda_ok(one, F(1), F(1, 2), F(3, 4))  # above σ: not proved


# kills "line 79: 8 -> 9" and "line 248: 1 -> 2" in MAX_ORDER + 1: the highest Taylor order a
# piece may claim is 8 (the schema's limit), checked by behaviour at its edge.
# z(ε) = Φ(ε)⁻¹·1 > 0 on line(3) for every ε (its tight constraints always hold), so the same
# piece is proved at every order up to 8 and refused, not decided, at 9
def test_taylor_order_limit_at_its_edge():
    one = (F(1),) * 3
    for K in (0, 2, 8):
        assert piece_ok(LINE3, one, F(1), F(101, 100), K, F(2, 5))
    assert not piece_ok(LINE3, one, F(1), F(101, 100), 9, F(2, 5))


# kills "line 155: Sub -> Add" in σ − ‖E‖∞ (σ + ‖E‖∞): the proof gives λ_min ≥ σ − ‖E‖∞
# − n·max r_k, so λ = σ itself is never proved — although it is true here (σ = 1/2 <
# λ_min(Φ(1)) ≈ 0.54 on line(3)). The other "line 155: Sub -> Add" (+ n·max r_k) survives:
# ‖E‖∞ > 2n·max r_k here, and a claim only that term refuses needs the Cholesky bound tight
# to n·2^-119 (README, session 22)
def test_lambda_equal_to_the_shift_is_not_proved():
    assert _lam_min(1) > 0.54
    assert not lambda_ok(LINE3, F(1), F(1, 2), F(1, 2))
    assert lambda_ok(LINE3, F(1), F(1, 2), F(1, 2) - F(1, 10**6))


#: the 4-point star of the issue (centre 0, leaves at 1, leaves 2 apart): z = Φ⁻¹·1 has the
#: closed form z_0 = (1 − 2t)/(1 + t), z_leaf = 1/(1 + t), t = e^{−ε} (solve u + 3tv = 1,
#: tu + (1 + 2t²)v = 1), so z_0 < 0 exactly for ε < ln 2 ≈ 0.693 (the threshold ε* = ln 2)
STAR = from_matrix([[0, 1, 1, 1], [1, 0, 2, 2], [1, 2, 0, 2], [1, 2, 2, 0]])
ONES4 = (F(1),) * 4


def _star_lam_min(eps: float) -> float:
    t = math.exp(-eps)
    phi = np.array([[1, t, t, t], [t, 1, t * t, t * t], [t, t * t, 1, t * t], [t, t * t, t * t, 1]])
    return float(np.linalg.eigvalsh(phi)[0])


def _star_z0(eps: float) -> float:
    t = math.exp(-eps)
    return (1 - 2 * t) / (1 + t)


# kills "line 279: Or -> And" and "line 280: return True": a point claim (upper_index) is a
# K = 0 bound at a single ε; the same claim with K = 1 or with a ≠ b is malformed, not proved
def test_point_claims_need_order_zero_at_one_eps():
    assert _star_z0(0.5) < -0.13 and min(_star_lam_min(e) for e in (0.5, 0.501)) > 0.25
    assert piece_ok(STAR, ONES4, F(1, 2), F(1, 2), 0, F(1, 10), 0, F(-1, 10))  # z_0(1/2) ≤ −1/10
    assert not piece_ok(STAR, ONES4, F(1, 2), F(1, 2), 1, F(1, 10), 0, F(-1, 10))
    assert not piece_ok(STAR, ONES4, F(1, 2), F(501, 1000), 0, F(1, 10), 0, F(-1, 10))


# a piece straddling ε* = ln 2 claims z > 0 where z_0 < 0: refused at every order, while the
# piece above ε* is proved (λ = 1/10 < λ_min ≥ 0.30 on [0.6, 0.9])
def test_pieces_straddling_the_threshold_are_refused():
    assert _star_z0(0.6) < 0 < _star_z0(0.7)
    assert min(_star_lam_min(e) for e in np.linspace(0.6, 0.9, 31)) > 0.3
    for K in (2, 4, 8):
        assert not piece_ok(STAR, ONES4, F(6, 10), F(9, 10), K, F(1, 10))
        assert not piece_ok(STAR, ONES4, F(69, 100), F(9, 10), K, F(1, 10))  # 0.69 < ln 2
        assert piece_ok(STAR, ONES4, F(7, 10), F(75, 100), K, F(1, 10))


class _NoCandidates:
    """The star's exact products, with a float search that gives up (candidates None)."""

    def __init__(self) -> None:
        self._dense = DenseProducts(STAR)
        self.n, self.values = self._dense.n, self._dense.values

    def sums(self, table, ys, tau=0):
        return self._dense.sums(table, ys, tau)

    def candidates(self, rhs, mids, K, sy=80):
        return None


# kills "line 258: return True" and "line 258: False -> True": no candidate means nothing is
# proved — for any Products (piece_ok accepts any), not only the library's two
def test_a_search_that_gives_up_proves_nothing():
    assert piece_ok(DenseProducts(STAR), ONES4, F(7, 10), F(75, 100), 4, F(1, 10))
    assert not piece_ok(_NoCandidates(), ONES4, F(7, 10), F(75, 100), 4, F(1, 10))


# kills both "line 289: Pow -> Mult" (ω·k in place of ω^k in the Taylor lower bound
# y_0 − ω|y_1| − Σ_{k≥2} ω^k(…)): pieces from just below ε* = ln 2 to 7/10, 9/10 or 2 claim
# z > 0 where z_0 < 0 (closed form), at orders 1–8; the mutants accepted 21 and 67 of these
def test_every_piece_starting_below_the_threshold_is_refused():
    for delta in (1e-2, 3e-3, 1e-3, 3e-4, 1e-4, 3e-5):
        a = F(math.log(2) - delta).limit_denominator(10**9)
        assert _star_z0(float(a)) < 0
        for b in (F(7, 10), F(9, 10), F(2)):
            assert min(_star_lam_min(e) for e in np.linspace(float(a), float(b), 41)) > 0.3
            for K in (1, 2, 3, 4, 5, 8):
                assert not piece_ok(STAR, ONES4, a, b, K, F(1, 10)), (a, b, K)


# the point bound's upper claim z_i(a) ≤ upper, at z_0(1/2) = −0.13262200639… (closed form)
def test_point_upper_claims_against_the_closed_form():
    assert -0.132623 < _star_z0(0.5) < -0.1326
    assert piece_ok(STAR, ONES4, F(1, 2), F(1, 2), 0, F(1, 10), 0, F("-0.1326"))
    for upper in ("-0.1327", "-0.13263", "-0.132623"):
        assert not piece_ok(STAR, ONES4, F(1, 2), F(1, 2), 0, F(1, 10), 0, F(upper)), upper


# kills "line 322: Sub -> Add" (the chord penalty added instead of subtracted): λ = 0.6 is
# above λ_min(Φ(1)) ≈ 0.543 on line(3), a false claim on [1, 2], within the wrong bound
# 0.543 + 0.092
def test_chord_claim_above_a_node_is_refused():
    nodes = [(F(1), _below(_lam_min(1))), (F(2), _below(_lam_min(2)))]
    assert _lam_min(1) < 0.55
    assert not chord_ok(LINE3, nodes, F(1), F(2), F(3, 5))


# kills "line 80: 60 -> 61" and "line 129: 2 -> 3" (σ off the documented 2^-60 grid accepted)
# and "line 130: 1 -> 2" in d & (d − 1) (an integer σ, denominator 1, refused): the shift σ
# is any multiple of 2^-60
def test_sigma_on_the_two_to_the_minus_60_grid():
    assert lambda_ok(LINE3, F(1), F(1, 2) - F(1, 2**60), F(1, 4))
    assert not lambda_ok(LINE3, F(1), F(1, 2) - F(1, 2**61), F(1, 4))
    assert not lambda_ok(LINE3, F(1), F(1, 3), F(1, 4))
    assert lambda_ok(LINE3, F(1), F(0), F(-1, 100))  # σ = 0: the Cholesky factor of Φ itself


# kills "line 104: Lt -> LtE": pieces are (a, b, λ) with a < b (the docstring), never a point
def test_pieces_are_proper_intervals():
    assert pieces_in_order(((F(1), F(2), F(1, 10)), (F(2), F(3), F(1, 10))))
    assert not pieces_in_order(((F(1), F(1), F(1, 10)),))
    assert not pieces_in_order(((F(1), F(2), F(1, 10)), (F(3, 2), F(3), F(1, 10))))  # overlap


# "line 88: True -> False" (SpdPointClaim not frozen) is a dataclass option the tool cannot
# apply; applied by hand it is killed here: a claim cannot be edited after it is read
def test_point_claims_are_frozen():
    claim = SpdPointClaim(LINE3, (F(1),) * 3, F(1), 0, F(0), F(1, 2), F(1, 4))
    with pytest.raises(dataclasses.FrozenInstanceError):
        claim.eps = F(2)  # type: ignore[misc]
