"""Mutation survivors of ``exactdp/kernel/sets.py`` (session 13, task 11M): the documented
limits of the set checks, each tested at its exact boundary.

* the exact sign at a rational t (``_exact_sign``) is used up to span ≤ MAX_DEGREE = 100,000
  and (span / d)·bits(u) ≤ MAX_EXACT_BITS = 4,000,000; beyond either the kernel decides in
  arb balls up to MAX_PREC = 4,096 bits. A ``set-capacity`` enclosure whose lower end lies
  2^-10000 below the true value is decided exactly inside the limits (it verifies) and is
  undecided in balls outside them (PrecisionLimitReached, exit 2, never verified);
* the capacity grids' MAX_WORK = 2,000,000 cell-box tests and MAX_TERMS = 100,000 product
  terms (:func:`exactdp.kernel.sets.capacity_work`), and the pair work
  MAX_PAIR_WORK = 10,000,000 (:func:`exactdp.kernel.sets.pair_work`): exactly at the limit
  accepted, one unit above refused.

Ground truth is independent of the kernel: the capacity of X = {0} and K = ∪ [a_i, b_i]
(0 ≤ a_i) is Σ ½(t^{a_i} − t^{b_i}) (the Laplace mass of [a, b] ⊂ [0, ∞)), evaluated in exact
rationals; the grid sizes are counted by hand from the points (box [0, 1]^3, coordinates
0, −1, −2, … give one cell per coordinate value on that axis).
"""

from __future__ import annotations

import itertools
from fractions import Fraction as F

import pytest

from exactdp.errors import InstanceTooLarge, InvalidArgument, PrecisionLimitReached
from exactdp.kernel.sets import capacity_work, exponent_check, pair_work
from exactdp.kernel.verify import verify_document
from exactdp.spaces.levels import parse_level

NARROW = F(1, 2**10_000)  # far below what 4,096-bit balls can separate


def _capacity_doc(boxes: list[tuple[F, F]], t: F, lo: F, hi: F) -> dict:
    T: dict[F, F] = {}
    for a, b in boxes:
        T[a] = T.get(a, F(0)) + F(1, 2)
        T[b] = T.get(b, F(0)) - F(1, 2)
    return {"schema": "exactdp-certificate", "version": 1, "kind": "set-capacity",
            "question": {"X": [["0"]], "K": [{"lower": [str(a)], "upper": [str(b)]} for a, b in boxes],
                         "level": {"t": str(t)}},
            "claim": {"T": [[str(r), str(c)] for r, c in sorted(T.items()) if c],
                      "enclosure": {"lo": str(lo), "hi": str(hi)}},
            "evidence": {}}


def _narrow_case(far: F, t: F, s: F, step: F = F(1), above: bool = False) -> dict:
    """X = {0}, K = [0, step] ∪ [far − step, far] (step = 1/q, s = t^step = e^{−ε·step}):
    T = ½(1 − s) + ½(t^{far − step} − t^{far}); lo = ½(1 − s) ∓ 2^-10000, below the true
    value by ≈ 2^-10000 (above it when ``above``); hi = ½ (true)."""
    boxes = [(F(0), step), (far - step, far)]
    value = F(1, 2) * (1 - s) + F(1, 2) * (s ** int((far - step) / step) - s ** int(far / step))
    lo = F(1, 2) * (1 - s) + (NARROW if above else -NARROW)
    assert (lo <= value) is not above and value <= F(1, 2)
    assert abs(value - lo) < 2 * NARROW  # within 2^-9999: no 4,096-bit ball separates them
    return _capacity_doc(boxes, t, lo, F(1, 2))


def test_exact_sign_at_both_limits_verifies():
    # span = MAX_DEGREE and span·bits(t) = 100,000 · 40 = MAX_EXACT_BITS: both inside
    t = F(1, 2**39)
    assert verify_document(_narrow_case(F(100_000), t, t)).verified
    assert not verify_document(_narrow_case(F(100_000), t, t, above=True)).verified


def test_just_beyond_the_exact_bits_is_undecided_not_verified():
    # span·bits(t) = 97,561 · 41 = 4,000,001 > MAX_EXACT_BITS: balls, undecided at 4,096 bits
    assert 97_561 * 41 == 4_000_001
    with pytest.raises(PrecisionLimitReached):
        verify_document(_narrow_case(F(97_561), F(1, 2**40), F(1, 2**40)))


def test_just_beyond_the_exact_degree_is_undecided_not_verified():
    # span = 100,001 > MAX_DEGREE (span·bits = 3,900,039 is within the bit limit): balls
    t = F(1, 2**38)
    with pytest.raises(PrecisionLimitReached):
        verify_document(_narrow_case(F(100_001), t, t))
    assert verify_document(_narrow_case(F(99_999), t, t)).verified  # the same at span 99,999


def test_the_degree_counts_powers_of_s_not_of_t():
    # exponents in halves, t = 1/4, s = t^(1/2) = 1/2: span = 2·(far − 0) powers of s
    t, s, half = F(1, 4), F(1, 2), F(1, 2)
    assert verify_document(_narrow_case(F(49_999), t, s, half)).verified  # span 99,998
    assert not verify_document(_narrow_case(F(49_999), t, s, half, above=True)).verified
    with pytest.raises(PrecisionLimitReached):  # span 120,000 > MAX_DEGREE: balls
        verify_document(_narrow_case(F(60_000), t, s, half))


def test_exponent_limit_is_strict():
    # |ε·r| < MAX_EXPONENT = 10^15 is required (ε = 1 exactly: the ball ε·r is exact)
    exponent_check([F(10**15 - 1), F(-3)], parse_level(eps=1))
    with pytest.raises(InstanceTooLarge, match="MAX_EXPONENT"):
        exponent_check([F(1), F(-(10**15))], parse_level(eps=1))


BOX3 = [((F(0),) * 3, (F(1),) * 3)]


def _pts(triples) -> list[tuple[F, ...]]:
    return [tuple(F(-c) for c in p) for p in triples]


def test_capacity_work_at_the_limit_and_one_over():
    # 20 × 20 × 10 cells (coordinates 0..19, 0..19, 0..9) × 500 points × 1 box = 2,000,000
    cover = [(i, i, i % 10) for i in range(20)]
    rest = [p for p in itertools.product(range(20), range(20), range(10)) if p not in cover]
    X = _pts(cover + rest[:480])
    assert len(set(X)) == 500
    assert capacity_work(BOX3, X) == 2_000_000
    with pytest.raises(InstanceTooLarge, match="MAX_WORK"):
        capacity_work(BOX3, X, _pts([(0, 0, 0)]))  # + 1 cell × 1 point × 1 box


def test_product_terms_exactly_at_the_limit_are_accepted():
    # (2·16+1)(2·13+1)(2·11+1) + (2·21+1)^3 = 20,493 + 79,507 = 100,000 terms = MAX_TERMS
    X = _pts((i, min(i, 12), min(i, 10)) for i in range(16))
    Y = _pts((i, i, i) for i in range(21))
    assert 33 * 27 * 23 + 43**3 == 100_000
    assert capacity_work(BOX3, X, Y) == 16 * 13 * 11 * 16 + 21**3 * 21
    with pytest.raises(InstanceTooLarge, match="MAX_TERMS"):
        capacity_work(BOX3, X, _pts((i, i, i) for i in range(22)))  # 20,493 + 45³ terms


def test_pair_work_at_the_limit_and_one_over():
    big = F(2**1550)  # 1,551 + 1 bits: (1 + 1552 // 64)² = 25² per key and coordinate
    X = [(big,) + tuple(F(i * 16 + j) for j in range(15)) for i in range(200)]
    Y = [tuple(F(-1 - i - j) for j in range(16)) for i in range(2)]
    assert pair_work(X, Y) == (2 * 200 * 2 + 200) * 16 * 25**2 == 10_000_000
    # 2 · 909,091 · 5 + 909,091 = 10,000,001 keys of one coordinate (the count reads sizes only)
    with pytest.raises(InstanceTooLarge, match="MAX_PAIR_WORK"):
        pair_work([(F(0),)] * 909_091, [(F(1),)] * 5)


def test_sixteen_dimensions_are_within_the_dimension_limit():
    # MAX_DIM = 16 is allowed: a 16-D grid of one cell is refused for its 3^16 product terms
    # (each CDF difference has up to 3 terms), not for its dimension; 17-D is refused for both
    box16 = [((F(0),) * 16, (F(1),) * 16)]
    with pytest.raises(InstanceTooLarge, match="MAX_TERMS = 100000"):
        capacity_work(box16, [(F(0),) * 16])
    with pytest.raises(InstanceTooLarge, match="MAX_DIM = 16"):
        capacity_work([((F(0),) * 17, (F(1),) * 17)], [(F(0),) * 17])
    # 500 points and 500 boxes (MAX_POINTS) are allowed in one dimension
    X = [(F(i),) for i in range(500)]
    K = [((F(2 * i),), (F(2 * i + 1),)) for i in range(500)]
    assert capacity_work(K, X[:1]) == 999 * 1 * 500  # endpoints 0 … 999: 999 cells
    assert capacity_work(K[:1], X) == 500 * 500  # 1 − x, 0 − x: −499 … 1, 500 cells


def test_pair_work_counts_as_documented():
    # diameter: |X|(|X| + 1)/2 keys; Hausdorff: 2|X||Y| + max(|X|, |Y|); × dim × (1 + b // 64)²,
    # b = bits of numerator + denominator of the longest coordinate
    X = [(F(0), F(1)), (F(1), F(0)), (F(2**61, 3), F(5))]  # 62 + 2 = 64 bits: 2 words
    assert pair_work(X) == 6 * 2 * 2**2
    assert pair_work(X[:2]) == 3 * 2 * 1
    assert pair_work(X[:2], X[2:]) == (2 * 2 * 1 + 2) * 2 * 2**2
    assert pair_work(X[2:], X[:2]) == (2 * 1 * 2 + 2) * 2 * 2**2
    assert pair_work([(F(2**61, 3),)] * 4) == 10 * 4  # 4·5/2 keys, one coordinate, 2 words
    assert pair_work([(F(2**60, 3),)]) == 1  # 61 + 2 = 63 bits: one word


def test_no_term_means_no_exponent_to_refuse():
    exponent_check([], parse_level(eps=10**16))  # nothing to evaluate: nothing refused
    with pytest.raises(InstanceTooLarge, match="MAX_EXPONENT"):
        exponent_check([F(1)], parse_level(eps=10**16))


def test_exact_zero_margins_of_four_terms():
    # K = [0, 1] ∪ [2, 3], t = 1/2: T = ½ − ½t + ½t² − ½t³ = 5/16 exactly; lo = hi = 5/16 makes
    # both margins T − lo, hi − T the zero polynomial value at t with four exponents
    boxes = [(F(0), F(1)), (F(2), F(3))]
    t = F(1, 2)
    value = F(1, 2) * (1 - t + t**2 - t**3)
    assert value == F(5, 16)
    assert verify_document(_capacity_doc(boxes, t, value, value)).verified
    for lo, hi in ((value, value + F(1, 2**20)), (value - F(1, 2**20), value)):
        assert verify_document(_capacity_doc(boxes, t, lo, hi)).verified
    for lo, hi in ((value + F(1, 2**20), F(1)), (F(0), value - F(1, 2**20))):
        assert not verify_document(_capacity_doc(boxes, t, lo, hi)).verified


def test_a_box_flat_in_one_axis_is_malformed():
    doc = _capacity_doc([(F(0), F(1))], F(1, 2), F(0), F(1))
    doc["question"]["K"] = [{"lower": ["0"], "upper": ["0"]}]
    with pytest.raises(InvalidArgument, match="lower < upper"):
        verify_document(doc)


def test_pair_work_of_one_long_point_is_refused_with_its_reason():
    # one point (1 key), one coordinate of 210,001 bits: (1 + 210,002 // 64)² = 3,282² > 10^7
    with pytest.raises(InstanceTooLarge, match="in dimension 1 with coordinates of up to 210002 bits"):
        pair_work([(F(2**210_000),)])


def test_capacity_cells_count_the_shifted_endpoints():
    # X = {0, 1, 3}, K = [0, 2] ∪ [3, 7]: the endpoints minus the points, counted by hand,
    # {0, 2, 3, 7} ∪ {−1, 1, 2, 6} ∪ {−3, −1, 0, 4} = 9 values: 8 cells (endpoints plus points
    # would give 10 values)
    X = [(F(0),), (F(1),), (F(3),)]
    K = [((F(0),), (F(2),)), ((F(3),), (F(7),))]
    assert len({b[s][0] - x[0] for x in X for b in K for s in (0, 1)}) == 9
    assert capacity_work(K, X) == 8 * 3 * 2
