"""Mutation survivors of exactdp/kernel/qif_log.py (task 11M2): tests that kill them.

* The work count :func:`~exactdp.kernel.qif_log.log_work` is re-computed here from its
  docstring (lcm charged step by step, w·(1 + w//64) per exact step of w words, each term
  256 + (1 + prec//64)² + two exact steps on 2·bits(L) + 3·B + 64 bits), and its limit is
  hit exactly: MAX_LOG_WORK is accepted, one more operation refused.
* Each checker charges the right number of terms: documents whose work (by the formula
  here) lies just under the limit verify, and ones just over are refused. Their entries
  have huge denominators, so the work is large while the arithmetic stays cheap.
* A null (+∞) ratio claimed for a finite multiplicative TV is a false claim, rejected (not
  malformed).

Ground truth comes from exact rationals and 50-digit mpmath, never from the kernel.
"""

import math
from fractions import Fraction as F

import mpmath
import pytest

from exactdp.errors import InstanceTooLarge
from exactdp.kernel.jsonio import write_rational
from exactdp.kernel.qif_log import MAX_LOG_WORK, capacity_ends, entropy_enclosure, log_work
from exactdp.kernel.verify import verify_document
from exactdp.qif.distances import multiplicative_total_variation
from exactdp.qif.entropy import conditional_entropy, shannon_entropy
from exactdp.qif.measures import bayes_risk
from exactdp.qif.shannon import shannon_capacity


def _cost(bits: int) -> int:
    w = 1 + bits // 64
    return w * (1 + w // 64)


def work(prec: int, terms: int, parts) -> int:
    """The documented count of :func:`log_work`, computed independently."""
    vals = [F(v) for p in parts for v in p]
    big = max(v.numerator.bit_length() + v.denominator.bit_length() for v in vals)
    total, lcm = 0, 1
    for d in sorted({v.denominator for v in vals}):
        total += _cost(lcm.bit_length() + d.bit_length())
        lcm = math.lcm(lcm, d)
    w = 1 + prec // 64
    return total + terms * (256 + w * w + 2 * _cost(2 * lcm.bit_length() + 3 * big + 64))


def _mp(x: F) -> mpmath.mpf:
    return mpmath.mpf(x.numerator) / x.denominator


# ------------------------------------------------------------------ the work formula
def _shapes():
    """Inputs where every constant of the formula shows: word boundaries at 64 bits and at
    64 words (4,096 bits), several denominators with a non-trivial lcm, precisions 0–4096."""
    out = []
    for prec in (0, 53, 63, 64, 127, 128, 4095, 4096):
        for terms in (1, 3, 1000):
            out.append((prec, terms, [[F(1, 2), F(1, 2)]]))
            out.append((prec, terms, [[F(1, 3), F(2, 3)], [F(5, 6), F(1, 6)]]))
            out.append((prec, terms, [[F(1, 2**63)], [F(2**63 - 1, 2**63)]]))
            out.append((prec, terms, [[F(1, 3**2600)], [F(7, 5**1800)], [F(1)]]))
            out.append((prec, terms, [[F(2**4100 + 1, 2**4200)]]))
    for k in range(1, 130):                          # odd D = 2^k + 1: the lcm starts at 1 (k = 61, 125: a word edge)
        out.append((0, 1, [[F(1, 2**k + 1), 1 - F(1, 2**k + 1)]]))
    for j in range(1, 41):                           # 2·bits(L) + 3·B = 5j + 3m + 5: every residue mod 64
        out += [(0, 1, [[F(2**m - 1, 2**j)]]) for m in range(1, 41)]
    return out


def test_log_work_is_the_documented_formula():
    checked = 0
    for prec, terms, parts in _shapes():
        expect = work(prec, terms, parts)
        if expect > MAX_LOG_WORK:
            with pytest.raises(InstanceTooLarge, match="MAX_LOG_WORK"):
                log_work(prec, terms, parts)
        else:
            assert log_work(prec, terms, parts) == expect, (prec, terms, parts)
            checked += 1
    assert checked >= 100


def test_log_work_limit_is_inclusive():
    """Exactly MAX_LOG_WORK counted operations are allowed; one term more is refused."""
    for b in range(1, 2000):                       # the first fit: 303 bits, prec 3584, 13,947 terms
        parts = [[F(1, 2**b + 1), 1 - F(1, 2**b + 1)]]
        for prec in range(0, 4097, 64):
            fixed, per = work(prec, 0, parts), work(prec, 1, parts) - work(prec, 0, parts)
            if (MAX_LOG_WORK - fixed) % per == 0:
                terms = (MAX_LOG_WORK - fixed) // per
                assert log_work(prec, terms, parts) == MAX_LOG_WORK
                with pytest.raises(InstanceTooLarge, match="MAX_LOG_WORK"):
                    log_work(prec, terms + 1, parts)
                return
    raise AssertionError("no exact fit found")


# ------------------------------------------------------------------ +∞ claims
def test_null_ratio_for_a_finite_mtv_is_rejected_not_malformed():
    """claim.ratio = claim.enclosure = evidence.precision = null (+∞) on two distributions with
    the same support: a well-formed, false claim (the true ratio is 3/2, by hand)."""
    p, q = ["1/2", "1/2"], ["1/3", "2/3"]
    doc = multiplicative_total_variation(p, q).to_document()
    assert F(doc["claim"]["ratio"]) == F(3, 2)               # max(p/q, q/p) = (1/2)/(1/3)
    with mpmath.workdps(50):
        lo, hi = (_mp(F(v)) for v in doc["claim"]["enclosure"].values())
        assert min(lo, hi) <= mpmath.log(mpmath.mpf(3) / 2) <= max(lo, hi)
    assert verify_document(doc).verified
    doc["claim"]["ratio"] = doc["claim"]["enclosure"] = doc["evidence"]["precision"] = None
    assert verify_document(doc).verified is False


def test_finite_ratio_for_different_supports_is_rejected():
    """p = (1/2, 1/2, 0), q = (1/4, 1/4, 1/2): q has mass where p has none, so the ratio is +∞;
    a finite ratio 2 with an enclosure [0, 1] that holds ln 2 is a false claim."""
    p, q = ["1/2", "1/2", "0"], ["1/4", "1/4", "1/2"]
    doc = multiplicative_total_variation(p, q).to_document()
    assert doc["claim"]["ratio"] is None and verify_document(doc).verified
    with mpmath.workdps(50):
        assert 0 < mpmath.log(2) < 1
    doc["claim"]["ratio"], doc["claim"]["enclosure"], doc["evidence"]["precision"] = "2", {"lo": "0", "hi": "1"}, 53
    assert verify_document(doc).verified is False


# ------------------------------------------------------------------ terms charged per checker
HALF = [F(1, 2), F(1, 2)]
SQUARE = [HALF, HALF]                                    # a 2×2 channel: 4 entries


def _big(b: int) -> list[F]:
    """(1 − 1/D, 1/D) with D = 2^b + 1: cheap logs, exact steps on ~8·b bits."""
    return [1 - F(1, 2**b + 1), F(1, 2**b + 1)]


def _first_over(count) -> int:
    """The least b with count(b) > MAX_LOG_WORK (count grows with b)."""
    lo, hi = 1, 330_000                                  # 2^330000 has 99,340 digits: readable
    assert count(lo) <= MAX_LOG_WORK < count(hi)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if count(mid) <= MAX_LOG_WORK else (lo, mid)
    return hi


def _strs(v):
    return [_strs(x) for x in v] if isinstance(v, list) else write_rational(v)


def test_entropy_charges_prior_times_columns():
    """H(X|Y) on a 2×2 channel: 4 terms over (prior, rows)."""
    b = _first_over(lambda b: work(128, 4, [_big(b), *SQUARE]))
    under = conditional_entropy(SQUARE, _big(b - 1), prec=128)   # the writer takes it ...
    assert verify_document(under.to_document()).verified                       # ... and so does the kernel
    with mpmath.workdps(50):                                                   # H(X|Y) = H(X): C is useless
        e = mpmath.mpf(1) / (mpmath.mpf(2) ** (b - 1) + 1)
        h = -(e * mpmath.log(e, 2) + (1 - e) * mpmath.log(1 - e, 2))
        assert _mp(under.enclosure.lo) <= h <= _mp(under.enclosure.hi)
    with pytest.raises(InstanceTooLarge, match="MAX_LOG_WORK"):
        entropy_enclosure("conditional-entropy", tuple(_big(b)), (tuple(HALF),) * 2, 128)
    doc = under.to_document()
    doc["question"]["prior"] = _strs(_big(b))
    with pytest.raises(InstanceTooLarge, match="MAX_LOG_WORK"):
        verify_document(doc)


def test_capacity_charges_twice_rows_times_columns():
    """Capacity of a 2×2 channel: 2·2·2 terms over (witness, rows, output)."""
    b = _first_over(lambda b: work(128, 8, [_big(b), *SQUARE, HALF]))
    assert work(128, 8, [_big(b - 1), *SQUARE, HALF]) <= MAX_LOG_WORK
    lo, hi = capacity_ends((tuple(HALF),) * 2, tuple(_big(b - 1)), tuple(HALF), 128)
    assert lo == hi == 0                                  # identical rows: I = D = 0 exactly
    with pytest.raises(InstanceTooLarge, match="MAX_LOG_WORK"):
        capacity_ends((tuple(HALF),) * 2, tuple(_big(b)), tuple(HALF), 128)
    doc = shannon_capacity(SQUARE, prec=128).to_document()
    assert verify_document(doc).verified
    doc["evidence"]["witness"] = _strs(_big(b - 1))       # a worse witness: lower end 0 still holds
    assert verify_document(doc).verified
    doc["evidence"]["witness"] = _strs(_big(b))
    with pytest.raises(InstanceTooLarge, match="MAX_LOG_WORK"):
        verify_document(doc)


def test_mtv_charges_twice_the_length():
    """Multiplicative TV of two 2-point distributions: 4 terms over (p, q)."""
    b = _first_over(lambda b: work(128, 4, [_big(b), HALF]))
    under = multiplicative_total_variation(_big(b - 1), HALF)
    doc = under.to_document()
    assert doc["evidence"]["precision"] == 128 and verify_document(doc).verified
    assert under.ratio == F(2**(b - 1) + 1, 2)           # max(p/q, q/p) = (1/2)/(1/D), by hand
    doc["question"]["p"] = _strs(_big(b))
    with pytest.raises(InstanceTooLarge, match="MAX_LOG_WORK"):
        verify_document(doc)


def test_bayes_risk_charges_prior_times_columns():
    """Bayes risk on a 2×2 channel: 4 terms over (prior, rows), at no precision."""
    b = _first_over(lambda b: work(0, 4, [_big(b), *SQUARE]))
    under = bayes_risk(SQUARE, _big(b - 1))
    doc = under.to_document()
    assert verify_document(doc).verified
    assert under.value == F(1, 2**(b - 1) + 1)           # 1 − Σ_y max_x π_x/2 = 1/D, by hand
    doc["question"]["prior"] = _strs(_big(b))
    with pytest.raises(InstanceTooLarge, match="MAX_LOG_WORK"):
        verify_document(doc)


def test_shannon_entropy_charges_one_term_per_entry():
    """H(X) (no channel): 2 terms over the prior; the writer and the kernel both allow it."""
    b = _first_over(lambda b: work(128, 2, [_big(b)]))
    under = shannon_entropy(_big(b - 1), prec=128)
    assert verify_document(under.to_document()).verified
    assert work(128, 4, [_big(b - 1)]) > MAX_LOG_WORK    # so counting 2 terms per entry would refuse it
    doc = under.to_document()
    doc["question"]["prior"] = _strs(_big(b))
    with pytest.raises(InstanceTooLarge, match="MAX_LOG_WORK"):
        verify_document(doc)
    with pytest.raises(InstanceTooLarge, match="MAX_LOG_WORK"):
        entropy_enclosure("shannon-entropy", tuple(_big(b)), None, 128)


def test_prior_bayes_risk_charges_one_term_per_entry():
    """The prior Bayes risk (no channel): 2 terms over the prior, at no precision."""
    b = _first_over(lambda b: work(0, 2, [_big(b)]))
    under = bayes_risk(prior=_big(b - 1), n=2)
    assert under.value == F(1, 2**(b - 1) + 1)           # 1 − max π = 1/D, by hand
    assert verify_document(under.to_document()).verified
    assert work(0, 4, [_big(b - 1)]) > MAX_LOG_WORK
    doc = under.to_document()
    doc["question"]["prior"] = _strs(_big(b))
    with pytest.raises(InstanceTooLarge, match="MAX_LOG_WORK"):
        verify_document(doc)


def test_one_row_channel_capacity_is_zero():
    """A channel with a single secret has capacity 0 exactly (I = D = 0 for its only prior)."""
    r = shannon_capacity([["1/3", "2/3"]])
    assert (r.enclosure.lo, r.enclosure.hi) == (0, 0)
    assert verify_document(r.to_document()).verified


# ------------------------------------------------------------------ the lower end of the claim
def test_point_claim_at_the_balls_upper_end_is_rejected():
    """H(1/3, 2/3) = log2 3 − 2/3 is irrational: the point enclosure [hi, hi] (hi the writer's
    upper end) is a false claim; the ball [lo, hi] does not fit in it."""
    r = shannon_entropy(["1/3", "2/3"])
    doc = r.to_document()
    with mpmath.workdps(50):
        h = mpmath.log(3, 2) - mpmath.mpf(2) / 3
        assert _mp(r.enclosure.lo) < h < _mp(r.enclosure.hi)          # the hi is strictly above the truth
    doc["claim"]["enclosure"] = {"lo": doc["claim"]["enclosure"]["hi"], "hi": doc["claim"]["enclosure"]["hi"]}
    assert verify_document(doc).verified is False


def test_capacity_lower_end_above_the_capacity_is_rejected():
    """BSC(1/10): the uniform witness is optimal, so capacity = I(uniform; C) = 1 − h(1/10)
    (irrational). A lower end at the upper end of the ball of I is above the capacity: false."""
    bsc = [["9/10", "1/10"], ["1/10", "9/10"]]
    doc = shannon_capacity(bsc, prec=128).to_document()
    assert doc["evidence"]["witness"] == ["1/2", "1/2"]
    C = tuple(tuple(F(x) for x in row) for row in bsc)
    lo = entropy_enclosure("mutual-information", (F(1, 2), F(1, 2)), C, 128).hi
    hi = max(lo, F(doc["claim"]["enclosure"]["hi"]))
    with mpmath.workdps(50):
        e = mpmath.mpf(1) / 10
        cap = 1 + e * mpmath.log(e, 2) + (1 - e) * mpmath.log(1 - e, 2)
        assert _mp(lo) > cap + mpmath.mpf(10) ** -45                  # the claimed lower end is false
    doc["claim"]["enclosure"] = {"lo": write_rational(lo), "hi": write_rational(hi)}
    assert verify_document(doc).verified is False
