"""Session 24: survivors of the first complete ``scripts/mutation.py`` run on
exactdp/kernel/pufferfish_mechanisms.py — the work limits and the break points.
Each test names the mutants it kills.

Ground truth is the documented arithmetic, worked out by hand in each comment:
- staircase_work = cand · m · (1 + (cand // m) · bits(b) // 4096) · (1 + size // 512), with
  cand = 4 · m · (⌈span/Δ⌉ + 4), bits(b) = bits of b's numerator + denominator (0 when b is
  irrational), size = Σ bits of the distinct denominators of the points, Δ and γΔ, plus Σ bits
  of the distinct denominators of the masses; refused when cand > MAX_PIECES = 200,000 or
  work > MAX_STAIR_WORK = 4,000,000 (the limits are written out as numbers in the tests: the
  mutation tool rebinds the module's constants, and an imported constant would move with them);
- gaussian_work = 2 · sigmas · m · (PIECES_PER_LEVEL · (S + 1) · (72 + bits(R)) + R // 2),
  R = ⌈span/σ + 2·TAIL⌉, S = sign_changes (1 without a level); refused past MAX_SUPPORT = 64 points,
  span/σ > MAX_RANGE = 10,000 or work > MAX_GAUSS_WORK = 1,000,000;
- the break points of the staircase window (lo, hi) = (s_0 − Δ, s_m + Δ) are every d + (k, k ± γ)Δ
  inside it, enumerated here over a range of k far wider than needed.
"""

from __future__ import annotations

from fractions import Fraction as F

import mpmath
import pytest

from exactdp.arithmetic.ball import workprec
from exactdp.errors import InstanceTooLarge
from exactdp.kernel.pufferfish_mechanisms import (
    gaussian_hockey,
    gaussian_work,
    sign_changes,
    staircase_key,
    staircase_mids,
    staircase_work,
)
from exactdp.spaces.levels import parse_level

ONE = F(1)


def _point(x) -> dict[F, F]:
    return {F(x): ONE}


# kills the staircase_work formula mutants "line 119: 4 -> 5" (both), "line 119: Sub -> Add",
# "line 120: Mult -> Div", "line 120: Add -> Sub", "line 120: 1 -> 2" (both), "line 116: 0 -> 1",
# "line 117: Add -> Sub", "line 120: 512 -> 513", "line 120: 4096 -> 4097"
@pytest.mark.parametrize("P,Q,delta,b,gamma,work", [
    # pts {0, 1, 3}, m = 3, ⌈3/(1/2)⌉ = 6: cand = 4·3·10 = 120; bits(1/2^300) = 1 + 301 = 302,
    # (120 // 3)·302 // 4096 = 12080 // 4096 = 2; size = bits{1, 2, 6} + bits{2, 1} = 6 + 3 = 9:
    # 120·3·3·1 = 1080
    ({F(0): F(1, 2), F(3): F(1, 2)}, _point(1), F(1, 2), F(1, 2**300), F(1, 3), 1080),
    # b irrational (bits 0): ⌈1020/1⌉ = 1020, cand = 8·1024 = 8192, cand // m = 4096; a bits(b) of 1
    # would double the work: 8192·2·1·1 = 16384
    (_point(0), _point(1020), ONE, None, F(0), 16384),
    # cand = 8·32 = 256, (256 // 2)·bits(1/2^30) = 128·32 = 4096 exactly: factor 2; 256·2·2 = 1024
    (_point(0), _point(28), ONE, F(1, 2**30), F(0), 1024),
    # size = bits{1} (points, Δ, γΔ = 0) + bits{2^509, 1} (masses) = 1 + 510 + 1 = 512 exactly:
    # factor 2; ⌈1/1⌉ = 1, cand = 4·2·5 = 40: 40·2·1·2 = 160
    ({F(0): F(1, 2**509), F(1): 1 - F(1, 2**509)}, _point(0), ONE, None, F(0), 160),
    # masses over 2^600 (601 bits): size = 1 + 601 + 1 = 603, factor 2; a size of 1 − 602 < 0
    # would make the work negative: 40·2·1·2 = 160
    ({F(0): F(1, 2**600), F(1): 1 - F(1, 2**600)}, _point(0), ONE, None, F(0), 160),
    # min(pts) = 5, span = 2 (a span of 5 + 7 = 12 would give ⌈12/1⌉): cand = 4·2·6 = 48, 48·2 = 96
    (_point(5), _point(7), ONE, None, F(0), 96),
])
def test_staircase_work_is_the_documented_product(P, Q, delta, b, gamma, work):
    assert staircase_work(P, Q, delta, b, gamma) == work


# kills "line 121: Gt -> GtE" twice (cand = MAX_PIECES and work = MAX_STAIR_WORK accepted)
def test_staircase_limits_are_inclusive():
    # ⌈24996⌉ + 4 = 25000: cand = 8·25000 = 200,000 = MAX_PIECES; work 200,000·2 = 400,000
    assert staircase_work(_point(0), _point(24996), ONE, None) == 400_000
    with pytest.raises(InstanceTooLarge, match="MAX_PIECES"):
        staircase_work(_point(0), _point(24997), ONE, None)  # cand 200,008
    # cand = 8·1000 = 8000, (8000 // 2)·255 // 4096 = 1,020,000 // 4096 = 249: 8000·2·250 = 4,000,000
    assert staircase_work(_point(0), _point(996), ONE, F(1, 2**253)) == 4_000_000
    with pytest.raises(InstanceTooLarge, match="MAX_STAIR_WORK"):  # bits 256: 8000·2·251
        staircase_work(_point(0), _point(996), ONE, F(1, 2**254))


def _cuts_by_enumeration(pts, delta, gamma):
    lo, hi = min(pts) - delta, max(pts) + delta
    cuts = {lo, hi}
    for d in pts:
        for k in range(-200, 201):
            cuts.update(x for x in (d + k * delta, d + (k + gamma) * delta, d + (k - gamma) * delta) if lo < x < hi)
    c = sorted(cuts)
    return [(u + v) / 2 for u, v in zip(c, c[1:])]


# kills "line 134: Div -> Mult" (both: the range of k read as (lo − d)·Δ), "line 134: Sub -> Add"
# (both: lo + d, hi + d) and "line 135: Add -> Sub": each narrows the range of k for some point
# (Δ < 1, or d < 0) and cuts are lost; the mids must be those of the full enumeration
@pytest.mark.parametrize("delta,gamma", [(F(1, 3), F(1, 4)), (F(2, 7), F(1, 2)), (F(5, 2), F(1, 3)),
                                         (F(2, 7), F(1, 5)), (F(3, 10), F(2, 3))])
def test_staircase_mids_are_every_break_point(delta, gamma):
    P = {F(-2): F(1, 2), F(3): F(1, 2)}  # a negative point, and points on different lattices mod Δ
    Q = {F(1, 7): F(1, 3), F(5, 2): F(2, 3)}
    assert staircase_mids(P, Q, delta, gamma) == _cuts_by_enumeration({*P, *Q}, delta, gamma)


# kills "line 158: GtE -> Gt" (the exponent at |y − d| = (k + γ)Δ exactly): e(r) = k + [r/Δ − k ≥ γ]
# is k + 1 there. P = δ_0, Q = δ_{21/5}, Δ = 1, γ = 1/2: at y = 3/2, |y − 0| = 1 + 1/2 gives e = 2 and
# |y − 21/5| = 2 + 7/10 gives e = 3: lowest exponent 2, so G_P/G_Q = b^0/b^1 (e = 1 at the break
# point would give b^0/b^2)
def test_staircase_key_at_a_break_point():
    assert staircase_key(_point(0), _point(F(21, 5)), ONE, F(1, 2), F(3, 2)) == (((0, ONE),), ((1, ONE),))
    # just inside the piece: |y| = 7/5 → e = 1; |y − 21/5| = 14/5 → e = 3
    assert staircase_key(_point(0), _point(F(21, 5)), ONE, F(1, 2), F(7, 5)) == (((0, ONE),), ((2, ONE),))


def _laws(n: int, gap=1):
    return ({F(gap * i): F(1, n) for i in range(n)}, {F(gap * i) + F(1, 2): F(1, n) for i in range(n)})


# kills the gaussian_work formula mutants "line 242: 1 -> 2", "line 243: 2 -> 3", "line 243: Add -> Sub",
# "line 243: Mult -> Div", "line 244: 72 -> 73", "line 244: Add -> Sub", "line 244: Mult -> Div",
# "line 244: 2 -> 3" (both), "line 238: Sub -> Add", "line 83: 4 -> 5", "line 87: 48 -> 49"
def test_gaussian_work_is_the_documented_product():
    # m = 2, span 1, no level (S = 1): R = ⌈1 + 96⌉ = 97 (7 bits): 2·1·2·(4·2·79 + 48) = 4·680 = 2720
    assert gaussian_work(_point(0), _point(1), ONE) == 2720
    # min 4, span 3/(1/2) = 6 (span (4 + 7)/(1/2) = 22 would change R): R = 102 (7 bits),
    # 2 σ's: 2·2·2·(4·2·79 + 51) = 8·683 = 5464
    assert gaussian_work(_point(4), _point(7), F(1, 2), sigmas=2) == 5464
    # laws on 0, 2, 4 and 1, 3, 5 at ε = 1: S = 5 (sign_changes' doctest); m = 6, span 5/(1/2) = 10,
    # R = 106 (7 bits), 2 σ's: 2·2·6·(4·6·79 + 53) = 24·1949 = 46,776
    law = [{F(x): F(1, 3) for x in xs} for xs in ((0, 2, 4), (1, 3, 5))]
    assert sign_changes(*law, parse_level(eps=1)) == 5
    assert gaussian_work(*law, F(1, 2), parse_level(eps=1), 2) == 46_776


# kills "line 76: 64 -> 65", "line 78: 10000 -> 10001", "line 239: Gt -> GtE" (both) and
# "line 239: Or -> And": MAX_SUPPORT points and a span of exactly MAX_RANGE σ are accepted,
# one more point or half a σ more is refused (each alone)
def test_gaussian_limits_are_inclusive():
    P, Q = _laws(32)
    assert len({*P, *Q}) == 64
    assert gaussian_work(P, Q, ONE) > 0
    P = {**P, F(100): ONE}
    with pytest.raises(InstanceTooLarge, match="MAX_SUPPORT"):
        gaussian_work(P, Q, ONE)  # 65 points, a span of 100 σ
    assert gaussian_work(_point(0), _point(10_000), ONE) > 0
    with pytest.raises(InstanceTooLarge, match="MAX_RANGE"):
        gaussian_work(_point(0), _point(10_000 + F(1, 2)), ONE)  # 2 points


# kills "line 228: LtE -> Lt" (a sign open at 128 bits not counted as a change on both sides):
# Q(1) = P(1)/e to 60 digits leaves v_1 = P(1) − e·Q(1) open at 128 bits, so the signs (+, ?, −)
# count 2 changes in the direction (P, Q); (Q, P) has (−, −, −) with none
def test_an_open_sign_counts_as_a_change_on_both_sides():
    with mpmath.workdps(80):
        q1 = F(int(mpmath.nint(mpmath.mpf(1) / 3 / mpmath.e * 10**60)), 10**60)
    P = {F(0): F(1, 3), F(1): F(1, 3), F(2): F(1, 3)}
    Q = {F(0): F(1, 20), F(1): q1, F(2): 1 - F(1, 20) - q1}
    assert sign_changes(P, Q, parse_level(eps=1)) == 2


# kills "line 85: 10000 -> 10001" and "line 269: Lt -> LtE" (MAX_EPS = 10,000): ε = MAX_EPS is refused
@pytest.mark.parametrize("eps", [10_000, 10_000 + F(1, 2)])
def test_gaussian_levels_stop_below_max_eps(eps):
    with workprec(128), pytest.raises(InstanceTooLarge, match="MAX_EPS"):
        gaussian_hockey(_point(0), _point(1), ONE, parse_level(eps=eps), 128)


# kills "line 267: Is -> IsNot" (a budget passed in ignored for the default): a budget of one
# evaluation is refused at once, and a large one is spent, not replaced
def test_a_passed_gaussian_budget_is_the_one_spent():
    with workprec(128), pytest.raises(InstanceTooLarge, match="MAX_GAUSS_WORK"):
        gaussian_hockey(_point(0), _point(1), ONE, parse_level(eps=1), 128, [1])
    left = [1_000_000]
    with workprec(128):
        gaussian_hockey(_point(0), _point(1), ONE, parse_level(eps=F(1, 3)), 128, left)
    assert 0 < left[0] < 1_000_000


# kills "line 148: Mult -> Div" (the common denominator built from γ/Δ instead of γΔ): Δ = 4/3,
# γ = 11/12, γΔ = 11/9. At y = 29/24: |y − 0| = 29/24, 29/24 ÷ 4/3 = 29/32 < γ = 11/12, so e = 0;
# |y − 5| = 91/24 = 2Δ + 27/24 with 27/24 ÷ 4/3 = 27/32 < γ, so e = 2: the key is b^0/b^2. A common
# denominator of 48 (no factor 9) would round γΔ·48 = 58.67 down to 58 = (29/24)·48 and give e = 1
def test_staircase_key_keeps_gamma_delta_exact():
    assert staircase_key(_point(0), _point(5), F(4, 3), F(11, 12), F(29, 24)) == (((0, ONE),), ((2, ONE),))
