"""Session 24: survivors of the first complete ``scripts/mutation.py`` run on
exactdp/kernel/pufferfish_mechanisms.py — staircase and Gaussian documents.
Each test names the mutants it kills.

Ground truth is worked out in the test:
- a staircase piece's ratio R(b) = num(b)/den(b) at b = e^{−ε₀} is built here from the
  staircase's definition at each midpoint (the midpoints are pinned against an enumeration in
  test_kernel_mutants24_mechanisms_work.py) and evaluated with mpmath (40 digits), so the
  largest |ln R| is known;
- a Gaussian δ(σ) for far-apart laws, or with the positive part of g_A − e^ε g_B beyond the
  kernel's range, is bounded in the comments; genuine documents come from the library's search.
"""

from __future__ import annotations

import copy
import math
from fractions import Fraction as F

import mpmath
import pytest

from exactdp.engine.documents import write_dist
from exactdp.errors import InvalidArgument, PrecisionLimitReached
from exactdp.kernel.jsonio import envelope
from exactdp.kernel.pufferfish_mechanisms import (
    check_pufferfish_mechanisms,
    ladder,
    staircase_mids,
    staircase_work,
)
from exactdp.pufferfish import DiscreteDistribution, ValuePair
from exactdp.pufferfish.documents import to_document
from exactdp.pufferfish.gaussian import gaussian_delta, gaussian_scale
from exactdp.pufferfish.staircase import staircase_loss

P3 = DiscreteDistribution.from_lists([0, 1, 3], ["1/2", "1/4", "1/4"])
Q3 = DiscreteDistribution.from_lists([0, 2], ["1/3", "2/3"])


def _stair_mix() -> dict:
    """Mixtures at b = e^{−1} (irrational), Δ = 1/2, γ = 1/4: the claimed key is not a monomial."""
    return to_document(staircase_loss((P3, Q3), "1/2", "1", "1/4"))


# kills "line 200: Div -> Mult" (ln(num·den) for ln(num/den)): the worst piece's denominator
# is (1/3)·b^4 + 2/3, not 1, so the loss ball moves and the genuine document fails
def test_a_mixture_at_an_irrational_b_verifies():
    doc = _stair_mix()
    assert len(doc["claim"]["denominator"]) > 1
    assert check_pufferfish_mechanisms(doc) is True


def _key(P: dict, Q: dict, delta: F, gamma: F, y: F) -> tuple[dict[int, F], dict[int, F]]:
    """G_P(y)/G_Q(y) as {exponent: mass} in b, from the staircase's definition: the mass at d is
    weighted b^e with e = k + [r/Δ − k ≥ γ], r = |y − d|, k = ⌊r/Δ⌋; lowest exponent shifted to 0."""
    def e(d: F) -> int:
        k = math.floor(abs(y - d) / delta)
        return k + (abs(y - d) / delta - k >= gamma)
    parts = [{}, {}]
    for part, D in zip(parts, (P, Q)):
        for d, w in D.items():
            part[e(d)] = part.get(e(d), F(0)) + w
    low = min(min(p) for p in parts)
    return tuple({k - low: w for k, w in p.items()} for p in parts)  # type: ignore[return-value]


def _descending(key) -> list[list[str]]:
    """A key's numerator and denominator as the document's descending coefficient lists."""
    return [[str(part.get(k, F(0))) for k in range(max(part), -1, -1)] for part in key]


def _abs_log(key, b: mpmath.mpf) -> mpmath.mpf:
    num, den = (sum(mpmath.mpf(w.numerator) / w.denominator * b**k for k, w in part.items()) for part in key)
    return abs(mpmath.log(num / den))


# kills "line 208: return True" and "line 208: False -> True" (a piece above the claimed one
# not rejecting): the claim names the piece with the second-largest |ln R| — every piece's ratio
# built here from the definition (the midpoints are those the enumeration test pins) — and a
# loss enclosure of that piece; the kernel must find the larger piece and reject
def test_a_piece_below_the_worst_is_rejected():
    doc = _stair_mix()
    q = doc["question"]
    P, Q = ({F(x): F(p) for x, p in zip(q[k]["support"], q[k]["probs"])} for k in ("P", "Q"))
    delta, gamma = F(q["delta"]), F(q["gamma"])
    keys = {y: _key(P, Q, delta, gamma, y) for y in staircase_mids(P, Q, delta, gamma)}
    with mpmath.workdps(40):
        b = mpmath.exp(-1)
        ranked = sorted(keys, key=lambda y: _abs_log(keys[y], b))
        top, y = _abs_log(keys[ranked[-1]], b), ranked[-1]
        second = next(x for x in reversed(ranked) if _abs_log(keys[x], b) < top - mpmath.mpf(10) ** -5)
        v2 = _abs_log(keys[second], b)
        lo, hi = (F(mpmath.nstr(v2 + s * mpmath.mpf(10) ** -30, 40)) for s in (-1, 1))
    num, den = _descending(keys[second])
    doc["claim"].update(worst_output=str(second), numerator=num, denominator=den, loss={"lo": str(lo), "hi": str(hi)})
    assert y != second and check_pufferfish_mechanisms(doc) is False


# kills "line 184: 1 -> 2" (a claim of one piece malformed instead of false): the window always
# holds at least two pieces (every support point is a break point inside it), so "1" is false
def test_a_one_piece_claim_is_false_not_malformed():
    doc = _stair_mix()
    doc["claim"]["pieces"] = 1
    assert check_pufferfish_mechanisms(doc) is False


# kills "line 176: 2 -> 3" (the writer's precision note read with other bounds): 2 and 2^16
# are accepted, 2^16 + 1 refused
def test_the_staircase_precision_note_bounds():
    for prec in (2, 2**16):
        doc = _stair_mix()
        doc["evidence"]["prec"] = prec
        assert check_pufferfish_mechanisms(doc) is True
    doc["evidence"]["prec"] = 2**16 + 1
    with pytest.raises(InvalidArgument, match="evidence.prec"):
        check_pufferfish_mechanisms(doc)


# kills "line 113: 0 -> 1" (the default γ read as 1): points over 2, Δ = 1/2, γΔ = 0 (over 1):
# size = bits{2, 1} + bits{2^507, 1} = 3 + 509 = 512 exactly, factor 2; cand = 4·2·(2 + 4) = 48:
# 48·2·1·2 = 192 (with γ = 1, γΔ = 1/2 adds no new denominator: size 511, work 96)
def test_staircase_work_default_gamma_is_zero():
    P = {F(1, 2): F(1, 2**507), F(3, 2): 1 - F(1, 2**507)}
    assert staircase_work(P, {F(1, 2): F(1)}, F(1, 2), None) == 192


# kills "line 103: 0 -> 1" (the message of an empty ladder)
def test_an_empty_ladder_is_undecided_at_0_bits():
    with pytest.raises(PrecisionLimitReached, match="undecided at 0 bits"):
        ladder([], lambda p: [], precs=())


def _gauss(P, Q, sigma, eps) -> dict:
    laws = [DiscreteDistribution.from_lists([x for x, _ in D], [p for _, p in D]) for D in (P, Q)]
    return to_document(gaussian_delta(tuple(laws), sigma, eps))


# kills "line 296: Eq -> NotEq" (positive pieces merged across a gap): with P = {0, 10} halves,
# Q = δ_5, σ = 3, ε = 1, g_P − e·g_Q is positive on two runs, z < −0.544 and z > 10.544 (in
# units of the support), and negative between; merging the runs adds the negative middle, and
# δ(P, Q) ≈ 0.253 is the larger direction
# (δ(Q, P) ≈ 0.095), so the lower end drops below the genuine claim (the mutant already fails
# the library's own kernel check while the document is built)
def test_two_separate_positive_runs_verify():
    doc = _gauss([(0, "1/2"), (10, "1/2")], [(5, "1")], 3, 1)
    assert check_pufferfish_mechanisms(doc) is True


# kills "line 271: Sub -> Add" and "line 271: 0 -> 1" (centers not measured from s_0): with
# s_0 = −50 the centers would start at −100σ, below the range [−48, …], and the tail bound
# of g_A there is about 1/2: the genuine narrow claim is then not contained
def test_a_negative_support_verifies():
    doc = _gauss([(-50, "1/2"), (50, "1/2")], [(-50, "1/2"), (51, "1/2")], 1, 1)
    assert check_pufferfish_mechanisms(doc) is True


def _delta_doc(P: dict, Q: dict, sigma: str, eps: str, lo: str, hi: str) -> dict:
    """A pufferfish-gaussian-delta document claiming δ ∈ [lo, hi] (decimal or p/q texts)."""
    question = {"P": write_dist(P), "Q": write_dist(Q), "sigma": sigma, "level": {"eps": eps}}
    return envelope("pufferfish-gaussian-delta", question, {"delta": {"lo": str(F(lo)), "hi": str(F(hi))}},
                    {"prec": 128, "rel_tol": "1/100"})


def _far_doc(lo: str, hi: str) -> dict:
    return _delta_doc({1: 1}, {0: 1}, "1", "60", lo, hi)


# kills "line 303: Add -> Sub" (the tail subtracted from the upper end) and "line 301: Add -> Sub"
# (a negative tail): δ_1 against δ_0 at σ = 1, ε = 60: g_A − e^60 g_B > 0 only for z > 60.5
# (and, reversed, z < −59.5), beyond the kernel's range [−48, 49], so the lower end is 0 and
# the upper end is the tail bound ≥ Φ(−48) > 0; the true δ = Φ(−59.5) − e^60 Φ(−60.5) ≈ 1.9·10^-773 > 0, so the
# claim δ = 0 is false: never accepted (undecided), while [0, 2^−100] is true and verifies
def test_a_positive_part_beyond_the_range_is_counted_in_the_tail():
    with pytest.raises(PrecisionLimitReached):
        check_pufferfish_mechanisms(_far_doc("0", "0"))
    assert check_pufferfish_mechanisms(_far_doc("0", str(F(1, 2**100)))) is True


def _scale_doc() -> dict:
    return to_document(gaussian_scale(ValuePair(1, 0), 1, "1/100", rel_tol=F(1, 100)))


# kills "line 330: GtE -> Gt" (a bracket lo = hi accepted), "line 325: Lt -> LtE" (rel_tol = 1
# accepted) and "line 325: 2 -> 3" (the precision note's bounds)
def test_gaussian_notes_and_bracket_are_validated():
    doc = _scale_doc()
    assert check_pufferfish_mechanisms(copy.deepcopy(doc)) is True
    flat = copy.deepcopy(doc)
    flat["claim"]["least"]["hi"] = flat["claim"]["least"]["lo"]
    with pytest.raises(InvalidArgument, match="0 < lo < hi"):
        check_pufferfish_mechanisms(flat)
    one = copy.deepcopy(doc)
    one["evidence"]["rel_tol"][0] = "1"
    with pytest.raises(InvalidArgument, match="rel_tol"):
        check_pufferfish_mechanisms(one)
    for prec, ok in ((2, True), (2**16, True), (2**16 + 1, False)):
        d = copy.deepcopy(doc)
        d["evidence"]["prec"][0] = prec
        if ok:
            assert check_pufferfish_mechanisms(d) is True
        else:
            with pytest.raises(InvalidArgument, match="evidence.prec"):
                check_pufferfish_mechanisms(d)


# kills "line 282: 1 -> 2" (the range ending TAIL past the second-to-last center): P = {0, 100}
# halves against δ_0 at σ = 1, ε = 1: δ ≈ 1/2 comes from the mode at 100; a range ending at 48
# would leave it to the tail bound (about 1/2 more on the upper end), and the genuine claim fails
def test_a_far_last_point_is_inside_the_range():
    doc = _gauss([(0, "1/2"), (100, "1/2")], [(0, "1")], 1, 1)
    assert check_pufferfish_mechanisms(doc) is True


# kills "line 301: Sub -> Add" (the right tail bounded by Φ(−(end + c)) instead of Φ(−(end − c))):
# P = {0: 10^-20, 2: 1 − 10^-20}, Q = {0: 10^-40, 1: 1 − 10^-40}, σ = 1, ε = 49. g_P − e^49 g_Q > 0
# only for z > z1 ≈ 50.5, beyond the range end 2 + 48 = 50, so the kernel's upper end is its tail
# bound ≈ Φ(−48) ≈ 4·10^-503; g_Q − e^49 g_P < 0 everywhere (e^49·10^-20 outweighs the other terms
# on the left, e^49·P(2) on the right), with left tails ≤ 10^-20·Φ(−48). The true δ ≈ 2.7·10^-515
# (the Φ-differences beyond z1, 80 digits), so δ ≤ 10^-520 is false and must not verify; the
# mutated tail would shrink the upper end to ≈ 4·10^-523 and accept it
def test_a_tail_beyond_the_range_end_is_bounded_from_the_end():
    P0, Q0 = F(1, 10**20), F(1, 10**40)
    P, Q = {F(0): P0, F(2): 1 - P0}, {F(0): Q0, F(1): 1 - Q0}
    m = lambda f: mpmath.mpf(f.numerator) / f.denominator  # noqa: E731
    up = lambda x: mpmath.erfc(x / mpmath.sqrt(2)) / 2  # noqa: E731
    phi = lambda z: mpmath.exp(-z * z / 2)  # noqa: E731
    with mpmath.workdps(80):
        E = mpmath.exp(49)
        z1 = mpmath.findroot(lambda z: m(P0) * phi(z) + m(1 - P0) * phi(z - 2)
                             - E * (m(Q0) * phi(z) + m(1 - Q0) * phi(z - 1)), 50.5)
        truth = m(P0) * up(z1) + m(1 - P0) * up(z1 - 2) - E * (m(Q0) * up(z1) + m(1 - Q0) * up(z1 - 1))
        assert 50 < z1 < 51 and mpmath.mpf(10) ** -516 < truth < mpmath.mpf(10) ** -514
    with pytest.raises(PrecisionLimitReached):
        check_pufferfish_mechanisms(_delta_doc(P, Q, "1", "49", "0", f"1/{10**520}"))
    assert check_pufferfish_mechanisms(_delta_doc(P, Q, "1", "49", "0", f"1/{10**500}")) is True  # true


# kills "line 276: Sub -> Add" (the mean-value slope factor c + s for c − s, wrong whenever the
# nearest center s is not the first one): P = {2: 7/11, 3: 4/11}, Q = δ_2, σ = 5/2, ε = 8/5. In
# z = (y − 2)/σ the centers are 0 and 2/5; g_Q − e^ε g_P < 0 everywhere (1 < e^{8/5}·7/11), and
# g_P − e^ε g_Q = (7/11 − e^ε)φ(z) + (4/11)φ(z − 2/5) is positive beyond its one root z*, so
# δ = (7/11 − e^ε)Φ(−z*) + (4/11)Φ(−(z* − 2/5)) ≈ 2.350·10^-11 (40 digits). The mutated slope
# misreads the sign of a piece near z* and encloses ≈ 1.599·10^-11: that false claim must fail
def test_a_piece_nearest_a_later_center_is_signed_right():
    with mpmath.workdps(40):
        E, a, b = mpmath.exp(mpmath.mpf(8) / 5), mpmath.mpf(7) / 11, mpmath.mpf(4) / 11
        h = lambda z: (a - E) * mpmath.npdf(z) + b * mpmath.npdf(z - mpmath.mpf(2) / 5)  # noqa: E731
        z = mpmath.findroot(h, 6)
        truth = (a - E) * mpmath.ncdf(-z) + b * mpmath.ncdf(-(z - mpmath.mpf(2) / 5))
    assert mpmath.mpf("2.35e-11") < truth < mpmath.mpf("2.351e-11")
    P, Q = {F(2): F(7, 11), F(3): F(4, 11)}, {F(2): F(1)}
    assert check_pufferfish_mechanisms(_delta_doc(P, Q, "5/2", "8/5", "1.5e-11", "1.7e-11")) is False
    assert check_pufferfish_mechanisms(_delta_doc(P, Q, "5/2", "8/5", "2.34e-11", "2.36e-11")) is True


# kills "line 206: NotEq -> Eq" (below() dropping every piece of another ratio that is not
# certified below the claimed one): a near tie. P = {0: p, 1: 1 − p}, Q = {0: 1/3, 2: 2/3},
# Δ = 1/2, γ = 1/4, b = e^{-1}: the pieces at y = 17/16 and y = 39/16 have different ratios whose
# |ln R| cross at p* ≈ 0.2079109647785; at the 60-digit p below (p* + ~10^-44) the piece at 39/16
# is above the one at 17/16 by ≈ 2·10^-44 (60-digit evaluation of both ratios from the
# definition), within the 128-bit balls and outside the 256-bit ones. The claim names 17/16 as
# the worst piece: false, so it must be rejected (the 128-bit ladder step cannot tell; 256 does)
def test_a_near_tie_above_the_claimed_piece_is_found():
    p = F(207910964778512969711834738476271975875226632900639036369347, 10**60)
    P, Q, delta, gamma = {F(0): p, F(1): 1 - p}, {F(0): F(1, 3), F(2): F(2, 3)}, F(1, 2), F(1, 4)
    mids = staircase_mids(P, Q, delta, gamma)
    claimed, above = _key(P, Q, delta, gamma, F(17, 16)), _key(P, Q, delta, gamma, F(39, 16))
    with mpmath.workdps(60):
        b = mpmath.exp(-1)
        gap = _abs_log(above, b) - _abs_log(claimed, b)
        assert mpmath.mpf(10) ** -44 < gap < mpmath.mpf(10) ** -43
        assert all(_abs_log(_key(P, Q, delta, gamma, y), b) <= _abs_log(above, b) for y in mids)
        lo, hi = (F(mpmath.nstr(_abs_log(claimed, b) + s * mpmath.mpf(10) ** -30, 50)) for s in (-1, 1))
    num, den = _descending(claimed)
    question = {"P": write_dist(P), "Q": write_dist(Q), "delta": "1/2", "eps0": {"eps": "1"}, "gamma": "1/4"}
    claim = {"pieces": len(mids), "worst_output": "17/16", "numerator": num, "denominator": den, "ratio": None,
             "loss": {"lo": str(lo), "hi": str(hi)}}
    assert check_pufferfish_mechanisms(envelope("pufferfish-staircase", question, claim, {"prec": 128})) is False


# kills the "out[e − f]" site of "line 169: Add -> Sub" (and other _mul changes that break the
# recognition of a piece with the inverse ratio; "out.get(e − f)", "x / y", "− x·y" and the
# accumulator default survive it, see scripts/mutation_equivalent.txt): P = {0: 2/3, 1: 1/3}
# and its mirror Q = {0: 1/3, 1: 2/3} at b = e^{-1}, Δ = 1/2, γ = 1/4.
# The worst piece's ratio (b^2/3 + 2/3)/(2b^2/3 + 1/3) (not a monomial) has a mirror piece with the
# inverse ratio, the same |ln R|; it must be recognised exactly (no ball ever separates the two),
# else the genuine document stays undecided
def test_a_mirror_piece_with_the_inverse_ratio_is_recognised():
    laws = (DiscreteDistribution.from_lists([0, 1], ["2/3", "1/3"]),
            DiscreteDistribution.from_lists([0, 1], ["1/3", "2/3"]))
    doc = to_document(staircase_loss(laws, "1/2", "1", "1/4"))
    assert (doc["claim"]["numerator"], doc["claim"]["denominator"]) == (["1/3", "0", "2/3"], ["2/3", "0", "1/3"])
    assert check_pufferfish_mechanisms(doc) is True
