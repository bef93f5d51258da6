"""Session 26: adversarial candidates for the arb mean-value Krawczyk check
(:func:`exactdp.kernel.threshold_cover.arb_mean_value_check`, ``candidates=``).

The check's docstring claims that floats are candidates only: whatever R, x and u are,
a false claim is refused. Until session 26 the candidates were always the kernel's own
float solves, so that claim was untestable and eleven mutants of the proof's bounds
survived as "open gaps" (a smaller bound is unsound in principle, but good candidates
never come near it). Here the candidates are chosen by an adversary, and each
construction below makes one mutant accept a **false** claim that the kernel refuses.

Ground truth, computed here: sum_query(2, 2) (five points, distances 0, 1, 2) with b = 1
has ε* = ln φ ≈ 0.48121; below it the middle point's z_2(ε) is negative. Each false
claim [a, b] starts at an a where a 50-digit mpmath solve gives z_2(a) < −10⁻⁶, so
"z > 0 on all of [a, b]" is false.

The constructions (h = ε − c, w the half-width, Ri ≈ Φ0⁻¹ at the centre c, z ≈ Ri·1):
- a residual placed where the bound |R|·|b − Φ0x| is tight: x = z − r·Ri[:, 2] makes
  b − Φ0x = r·e_2, and |R|·|r e_2| is exactly the shift of x_2; a scaled inverse R = s·Ri
  leaves β ≈ 1 − s, so the whole error bound rests on the Neumann factor 1/(1 − β);
- residuals that cancel a term the mutant subtracts, row by row, turned into a shift of x_2
  (``_cancel_rows``);
- a row-scaled inverse R = diag(s)·Ri with s chosen so that the mutant's G·1 vanishes.
"""

from __future__ import annotations

from fractions import Fraction as F

import mpmath as mp
import numpy as np
import pytest

from exactdp.kernel.threshold_cover import arb_mean_value_check
from exactdp.spaces.metrics import line, sum_query

SQ = sum_query(2, 2)
ONES5 = (F(1),) * 5
DIST = np.array([0.0, 1.0, 2.0])[np.asarray(SQ.index)]


def _z_mp(eps: F) -> list[mp.mpf]:
    """z = Φ(ε)⁻¹·1 for sum_query(2, 2), at 50 digits."""
    with mp.workdps(50):
        e = mp.mpf(eps.numerator) / eps.denominator
        phi = mp.matrix([[mp.exp(-e * int(d)) for d in row] for row in DIST])
        return list(mp.lu_solve(phi, mp.matrix([1] * 5)))


def _false_claim(a: F) -> None:
    """The claim "z > 0 on [a, ...]" is false: z_2(a) < −10⁻⁶ at 50 digits."""
    assert _z_mp(a)[2] < mp.mpf("-1e-6")


def _frame(a: F, b: F) -> tuple[float, float, np.ndarray, np.ndarray, np.ndarray]:
    """w, Φ0, Φ1 and P2 = d²e^{−ad}/2 in floats (the candidates' own arithmetic)."""
    c, w = float((a + b) / 2), float((b - a) / 2)
    p0 = np.exp(-c * DIST)
    return c, w, p0, -DIST * p0, DIST * DIST * np.exp(-float(a) * DIST) / 2


def _neumann(a: F, b: F, s: float, r: float):
    _, _, p0, p1, _ = _frame(a, b)
    ri = np.linalg.inv(p0)
    x = ri @ np.ones(5) - r * ri[:, 2]
    return s * ri, x, -ri @ (p1 @ x)


def _line3_candidates():
    """The good float candidates of line(3), b = 1, at the centre 1.05 of [1, 11/10]."""
    dist = np.array([[0, 1, 2], [1, 0, 1], [2, 1, 0]], dtype=float)
    p0 = np.exp(-1.05 * dist)
    ri = np.linalg.inv(p0)
    x = ri @ np.ones(3)
    return ri, x, -ri @ ((-dist * p0) @ x)


def test_good_candidates_passed_explicitly_prove_what_the_kernel_proves():
    # the kernel's own float solves, passed by hand, prove the same true claim
    a, b = F(1), F(11, 10)
    ri, x, u = _line3_candidates()
    assert arb_mean_value_check(line(3), (F(1),) * 3, a, b)
    assert arb_mean_value_check(line(3), (F(1),) * 3, a, b, candidates=(ri, x, u))
    # a poor but finite R (β ≥ 1) cannot prove it: refused, never an error
    assert not arb_mean_value_check(line(3), (F(1),) * 3, a, b, candidates=(3 * ri, x, u))


@pytest.mark.parametrize("bad", [
    "shape_R", "shape_x", "shape_u", "nan", "inf", "text", "huge",
])
def test_malformed_candidates_are_refused(bad):
    a, b = F(1), F(11, 10)
    ri, x, u = _line3_candidates()
    assert arb_mean_value_check(line(3), (F(1),) * 3, a, b, candidates=(ri, x, u))
    cands = {
        "shape_R": (ri[:2], x, u), "shape_x": (ri, x[:2], u), "shape_u": (ri, x, np.append(u, 0.0)),
        "nan": (ri, np.where(np.arange(3) == 1, np.nan, x), u),
        "inf": (np.where(np.eye(3) > 0, np.inf, ri), x, u),
        "text": (ri, ["a", "b", "c"], u),
        "huge": (ri, [F(10**400), F(1), F(1)], u),  # beyond a double: OverflowError, refused
    }[bad]
    assert not arb_mean_value_check(line(3), (F(1),) * 3, a, b, candidates=cands)


# kills "line 132: Div -> Mult" (δ = max Rr·(1 − β)), "line 132: Sub -> Add"
# (δ = max Rr/(1 + β)) and "line 132: 1 -> 2" (δ = max Rr/(2 − β)): with R = s·Ri, β ≈ 1 − s and
# the true error of x_2 is the whole shift 2.78·|r|; each mutant's δ undercounts it (by about
# a third at s = 1/2, 0.54–0.64 of it at s = 0.3, 0.14–0.18 at s = 0.7), and
# x_2 − w|u_2| − (Rr_2 + g_2·δ) turns positive on a claim false by 0.0137
@pytest.mark.parametrize("s, r", [(0.5, -0.04), (0.3, -0.02), (0.7, -0.08)])
def test_a_scaled_inverse_leaves_the_error_to_the_neumann_factor(s, r):
    a, b = F(449, 1000), F(451, 1000)
    _false_claim(a)
    assert not arb_mean_value_check(SQ, ONES5, a, b, candidates=_neumann(a, b, s, r))


# kills "line 122: Add -> Sub", the site |b − Φ0x| − w|Φ0u + Φ1x|: residuals r_0 = r_4 and r_2
# (of opposite signs, both raising x_2) are cancelled row by row by a u with
# w|Φ0u + Φ1x| = |b − Φ0x|, and their effects on u_2 cancel (Ri[2,0]·|r_0| + Ri[2,2]·|r_2| +
# Ri[2,4]·|r_4| = 0), so x_2 keeps the shift and w|u_2| stays small
@pytest.mark.parametrize("rho2", [0.005, 0.01, 0.02])
def test_a_residual_cancelled_by_the_derivative_term(rho2):
    a, b = F(449, 1000), F(451, 1000)
    _false_claim(a)
    _, w, p0, p1, _ = _frame(a, b)
    ri = np.linalg.inv(p0)
    rho0 = ri[2, 2] * rho2 / (2 * -ri[2, 0])
    r = np.array([rho0, 0, -rho2, 0, rho0])
    x = ri @ np.ones(5) - ri @ r
    u = ri @ (np.abs(r) / w - p1 @ x)
    assert x.min() > 0.01  # every x_i is positive: only the residual bound refuses
    assert not arb_mean_value_check(SQ, ONES5, a, b, candidates=(ri, x, u))


def _cancel_rows(a: F, b: F, term, rounds: int = 5):
    """x and u whose residual b − Φ0x cancels, row by row, whatever part of ``term(x, u)``
    is negative (what a mutant would subtract), signed so that every cancelled row shifts
    x_2 upwards."""
    _, w, p0, p1, p2 = _frame(a, b)
    ri = np.linalg.inv(p0)
    z = ri @ np.ones(5)
    x, u = z.copy(), -ri @ (p1 @ z)
    for _ in range(rounds):
        t = term(w, p0, p1, p2, x, u)
        r = np.where(t < 0, -np.sign(ri[2]) * np.abs(t), 0.0)
        x = z - ri @ r
        u = -ri @ (p1 @ x)
    return ri, x, u


# kills "line 122: Add -> Sub", the site (…) − w²(|Φ1||u| + P2|x|): a residual as large as the
# w² term in each row, which that mutant subtracts again, moves x_2 above the truth
@pytest.mark.parametrize("b", [F(49, 100), F(52, 100), F(6, 10)])
def test_a_residual_the_size_of_the_second_order_term(b):
    a = F(4811, 10000)
    _false_claim(a)

    def term(w, p0, p1, p2, x, u):
        return w * np.abs(p0 @ u + p1 @ x) - w * w * (np.abs(p1) @ np.abs(u) + p2 @ np.abs(x))

    assert not arb_mean_value_check(SQ, ONES5, a, b, candidates=_cancel_rows(a, b, term))


# kills "line 123: Add -> Sub" (|Φ1||u| − P2|x| in the w² term): on the wide claim [0.48, 1]
# the curvature bound P2|x| dominates, and the residual cancels it in every row
def test_a_residual_the_size_of_the_curvature_term():
    a, b = F(48, 100), F(1)
    _false_claim(a)

    def term(w, p0, p1, p2, x, u):
        return (w * np.abs(p0 @ u + p1 @ x) + w * w * (np.abs(p1) @ np.abs(u) - p2 @ np.abs(x))
                + w ** 3 * (p2 @ np.abs(u)))

    assert not arb_mean_value_check(SQ, ONES5, a, b, candidates=_cancel_rows(a, b, term))


# kills "line 125: Add -> Sub", the site |I − RΦ0|·1 − w|RΦ1|·1: with R = diag(s)·Ri and
# s_j = 1/(1 + w k1_j − w² k2_j), the mutant's G·1 vanishes (so does its β), and the shift of
# x_2 along Ri[:, 2], which the true G·δ charges in full, is counted only as s_2 of itself
@pytest.mark.parametrize("b, alpha", [(F(6, 10), 0.1), (F(7, 10), 0.1)])
def test_a_row_scaled_inverse_hides_the_shift(b, alpha):
    a = F(4811, 10000)
    _false_claim(a)
    _, w, p0, p1, p2 = _frame(a, b)
    ri = np.linalg.inv(p0)
    k1, k2 = np.abs(ri @ p1).sum(1), np.abs(ri) @ p2.sum(1)
    s = 1 / (1 + w * k1 - w * w * k2)
    assert np.all((0 < s) & (s < 1))
    x = ri @ np.ones(5) + alpha * ri[:, 2]
    assert not arb_mean_value_check(SQ, ONES5, a, b, candidates=(np.diag(s) @ ri, x, -ri @ (p1 @ x)))


def test_no_random_candidate_proves_a_false_claim():
    # the property itself, beyond the constructions: 300 random candidate sets around good
    # ones (relative noise 10⁻⁸ to 1) on false claims; none may pass
    rng = np.random.default_rng(26)
    for a, b in [(F(449, 1000), F(451, 1000)), (F(4811, 10000), F(49, 100)), (F(48, 100), F(1))]:
        _false_claim(a)
        _, _, p0, p1, _ = _frame(a, b)
        ri = np.linalg.inv(p0)
        z = ri @ np.ones(5)
        for _ in range(100):
            scale = 10.0 ** rng.uniform(-8, 0)
            r2 = ri * (1 + scale * rng.standard_normal((5, 5)))
            x = z * (1 + scale * rng.standard_normal(5)) + scale * abs(rng.standard_normal())
            u = -r2 @ (p1 @ x) * (1 + scale * rng.standard_normal(5))
            assert not arb_mean_value_check(SQ, ONES5, a, b, candidates=(r2, x, u))
