"""Session 23: tests for the survivors of the first complete ``scripts/mutation.py`` run on
exactdp/kernel/privacy.py (248 mutants; session 9 had run a sample of 30 and 34 targeted sites).
Each test names the mutants it kills ("line N: change", the tool's description at the run).

Ground truth is by hand, written next to each case:

* the sufficient-pair reduction (``edges_suffice``): a metric's graph edges replace the pairs
  only when every pair (a, b) has an edge (a, c) with d(a, c) + d(c, b) = d(a, b). A metric
  whose stated edges do not satisfy this — built the way a library constructor builds it,
  because the public constructor refuses such a claim — must get the all-pairs check;
* the mechanisms below violate privacy on a non-edge pair only: on the triangle with sides
  1, 1, √2 the column (4, 2, 1)/10 keeps every edge ratio at 2 = e^ε (t = 1/2) while
  H[0, z]/H[2, z] = 4 > 2^√2 ≈ 2.665 = e^{ε√2};
* equal logarithms past the exact-power limit: balls can never show two equal values equal,
  so ``log_sign`` answers None (not decided), never a wrong sign.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction as F

import numpy as np
import pytest
import sympy

from exactdp.arithmetic.interval import Enclosure
from exactdp.engine.questions import question_of
from exactdp.errors import CertificateInvalid, InvalidMetric
from exactdp.kernel.privacy import (
    MAX_EXACT_BITS,
    CheckClaim,
    LevelClaim,
    LogValue,
    check_privacy,
    check_privacy_level,
    edges_suffice,
    log_form,
    log_sign,
)
from exactdp.spaces.distances import Distance
from exactdp.spaces.metrics import FiniteMetric, line, line_scaled

ONE = Distance.rational(1)
S2 = Distance(F(1), 2)
# the triangle d(0, 1) = d(1, 2) = 1, d(0, 2) = √2 (a metric: √2 < 2), codes 0, 1, √2
TRI_VALUES = (Distance.rational(0), ONE, S2)
TRI_INDEX = np.array([[0, 1, 2], [1, 0, 1], [2, 1, 0]])
# private on the edges at t = 1/2 (every edge ratio ≤ 2), not on the pair (0, 2): ratio 4 > 2^√2
H_TRI = [["2/5", "1/2", "1/10"], ["1/5", "3/5", "1/5"], ["1/10", "1/2", "2/5"]]


def _library_metric(values, index, edges) -> FiniteMetric:
    """A metric whose graph_edges claim is false, built as a library constructor builds its
    metrics (no claim check): the kernel must not trust the claim."""
    return FiniteMetric._from_library("false-edges", list(range(len(index))), values, index, graph_edges=edges)


def _holds(metric, mechanism, **level) -> bool:
    """check_privacy of "holds" at ``level`` (t = 1/2 unless eps= or t= is given)."""
    level = level or {"t": "1/2"}
    return check_privacy(CheckClaim(question_of(metric, "private", mechanism=mechanism, **level), True, None))


# kills "line 189: return True" (edges_suffice with an irrational distance): the edges (0, 1),
# (1, 2) of the triangle reach 2 = 1 + 1 ≠ √2 = d(0, 2), and the reduction is proved for
# rational distances only
def test_edges_never_suffice_on_irrational_distances():
    tri = _library_metric(TRI_VALUES, TRI_INDEX, ((0, 1), (1, 2)))
    assert edges_suffice(tri, ((0, 1), (1, 2))) is False
    assert edges_suffice(tri, ((0, 1), (1, 2), (0, 2))) is False  # even all pairs: rational only
    assert _holds(tri, H_TRI) is False  # the (0, 2) violation is found on all pairs
    rational = line(3)  # control: the same edges on 1, 1, 2 suffice and the check passes
    assert edges_suffice(rational, ((0, 1), (1, 2))) is True


# kills "line 202: return True" (a point without an edge, n > 1): on line(3) with the one edge
# (0, 1), point 2 has no edge; the mechanism is private on (0, 1) and infinitely not on (1, 2)
def test_a_point_without_an_edge_means_all_pairs():
    m = _library_metric(line(3).values, np.asarray(line(3).index), ((0, 1),))
    assert edges_suffice(m, ((0, 1),)) is False
    h = [["1/2", "1/2"], ["1/2", "1/2"], ["1", "0"]]  # H[1, 1] > 0 = H[2, 1]: level ∞
    assert _holds(m, h) is False
    assert _holds(line(3), [["1/2", "1/2"], ["1/2", "1/2"], ["1/2", "1/2"]]) is True  # control
    one = _library_metric((Distance.rational(0),), np.zeros((1, 1), dtype=np.int64), ())
    assert edges_suffice(one, ()) is True  # a lone point needs no edge


# kills "line 130: Or -> And": r = 1 < T gives ln r/d = 0 < ln T/e exactly, whatever d and e.
# With "and" only r = T = 1 is answered directly; r = 1, T = 1 + 2^-20000 with d/e = √2
# irrational goes to balls, and ln T ≈ 2^-20000 is below the 2^14-bit limit: None, not −1
def test_log_sign_with_one_zero_logarithm_is_exact():
    tiny = 1 + F(1, 2**20000)
    assert log_sign(F(1), S2, tiny, ONE) == -1
    assert log_sign(tiny, S2, F(1), ONE) == 1
    assert log_sign(F(1), S2, F(1), ONE) == 0
    assert log_sign(tiny, S2, tiny * tiny, ONE) is None  # control: balls cannot decide this pair


# kills "line 65: 22 -> 23" and "line 65: 1 -> 2" (MAX_EXACT_BITS = 2^22 → 2^23): equal
# logarithms whose powers need 2^22 + 2 bits are past the documented limit: not decided (None);
# at exactly 2^22 bits they are decided equal (session 9's test)
def test_equal_logarithms_past_the_exact_limit_are_undecided():
    assert MAX_EXACT_BITS == 1 << 22
    L = (1 << 21) - 1  # r = 2^L: bits(num) + bits(den) = L + 2 = 2^21 + 1, twice that is 2^22 + 2
    r = F(2**L)
    assert 2 * (r.numerator.bit_length() + r.denominator.bit_length()) == (1 << 22) + 2
    assert log_sign(r, ONE, r, ONE) is None
    assert log_sign(r, ONE, r * 2, ONE) == -1  # unequal: the balls separate them


# kills "line 311: Or -> And" and "line 333: Or -> And": a claim on a question of another
# property is refused as CertificateInvalid — a level claim on a 'private' question (which has a
# mechanism), a check claim on a 'privacy-level' question (a mechanism, no level)
def test_a_claim_on_another_property_is_refused():
    h = [["2/3", "1/3"], ["1/3", "2/3"]]  # level ln 2 on line(2): private at t = 1/2 exactly
    private = question_of(line(2), "private", t="1/2", mechanism=h)
    level = question_of(line(2), "privacy-level", mechanism=h)
    assert check_privacy(CheckClaim(private, True, None))
    genuine = LevelClaim(level, LogValue(F(2), ONE), (0, 1, 0), Enclosure(F(69, 100), F(7, 10)))
    assert check_privacy_level(genuine)  # ln 2 ≈ 0.6931 in (0.69, 0.70)
    with pytest.raises(CertificateInvalid, match="needs a privacy-level question"):
        check_privacy_level(replace(genuine, question=private))
    with pytest.raises(CertificateInvalid, match="needs a 'private' question"):
        check_privacy(CheckClaim(level, True, None))


def _two_clusters() -> FiniteMetric:
    """Points 0, 1 at distance 0 and 2, 3 at distance 0, every cross pair at 1 (a pseudometric,
    built as a library constructor would; the public constructor refuses a zero off-diagonal)."""
    index = np.array([[0, 0, 1, 1], [0, 0, 1, 1], [1, 1, 0, 0], [1, 1, 0, 0]])
    return _library_metric((Distance.rational(0), ONE), index, ((0, 1), (2, 3)))


# kills "line 197: LtE -> Lt" (a zero-length edge accepted): with the edges (0, 1), (2, 3) every
# pair (a, b) has an edge (a, c) with d(a, c) + d(c, b) = 0 + 1 = d(a, b), yet no edge joins the
# clusters: the reduction's induction needs d(a, c) > 0. A question refuses the pseudometric
# itself (InvalidMetric), so edges_suffice's own refusal is what a direct caller relies on.
def test_a_zero_length_edge_never_suffices():
    m = _two_clusters()
    assert edges_suffice(m, ((0, 1), (2, 3))) is False
    with pytest.raises(InvalidMetric, match="separates points"):
        question_of(m, "private", t="1/2", mechanism=[["1", "0"], ["1", "0"], ["0", "1"], ["0", "1"]])


# kills "line 197: Or -> And" (a self-loop or an out-of-range edge accepted): a self-loop (a, a)
# gives d(a, a) + d(a, b) = d(a, b) for every b, so with loops on every point the kernel would
# read no pair at all and call any mechanism private
def test_self_loops_and_outside_edges_never_suffice():
    base = line(3)
    loops = ((0, 0), (1, 1), (2, 2))
    m = _library_metric(base.values, np.asarray(base.index), loops)
    assert edges_suffice(m, loops) is False
    assert edges_suffice(base, ((0, 1), (1, 2), (2, 3))) is False  # point 3 does not exist
    assert edges_suffice(base, ((0, 1), (1, 2), (-1, 0))) is False
    assert _holds(m, [["1", "0"], ["1", "0"], ["0", "1"]]) is False  # H[1, 0] > 0 = H[2, 0]: level ∞


# kills "line 268: 0 -> 1" (the output count read from row 1): a one-point metric has a
# one-row mechanism, whose level is 0 (no pair) and which is private at every ε
def test_a_one_point_mechanism_has_level_zero():
    h = [["1/3", "2/3"]]
    level = question_of(line(1), "privacy-level", mechanism=h)
    assert check_privacy_level(LevelClaim(level, "0", None, Enclosure(F(0), F(0))))
    assert _holds(line(1), h)


# kills "line 135: Add -> Sub" and "line 136: Add -> Sub" (the bit count of r^b, T^a with a
# denominator's bits subtracted): r = (2^L + 1)/2^L has L + 1 bits above and below, so r = T
# needs 2·(2L + 2) = 2^22 + 4 bits at L = 2^20, past the limit: undecided (None), never formed
def test_the_exact_limit_counts_denominator_bits():
    L = 1 << 20
    r = F(2**L + 1, 2**L)
    assert 2 * (r.numerator.bit_length() + r.denominator.bit_length()) == (1 << 22) + 4 > MAX_EXACT_BITS
    assert log_sign(r, ONE, r, ONE) is None
    small = F(2**20 + 1, 2**20)  # control: far below the limit, decided exactly
    assert log_sign(small, ONE, small, ONE) == 0


# kills "line 294: 0 -> 1" (the witness's output range read from row 1): on a one-point metric
# no witness exists (y ≠ y' is impossible), and a claimed one is rejected, not an IndexError
def test_a_one_point_witness_is_rejected_not_raised():
    h = [["1/3", "2/3"]]
    level = question_of(line(1), "privacy-level", mechanism=h)
    for w in ((0, 0, 0), (0, 0, 1), (0, 1, 0)):
        assert check_privacy_level(LevelClaim(level, "infinite", w, None)) is False
        assert check_privacy(CheckClaim(question_of(line(1), "private", t="1/2", mechanism=h), False, w)) is False


# kills "line 168: 0 -> 1" (log_form refusing ln T for T ≤ 1): ε = −ln(2/3)/2 has t = √(2/3)
# irrational, so the check compares against log_form's ln(3/2)/2. H on two points at distance 2
# has the ratio 3/2: ln(3/2)/2 = ε exactly, private with equality — which balls can never show
def test_a_level_written_with_a_logarithm_below_one_is_exact():
    eps = "-log(2/3)/2"
    assert log_form(sympy.sympify(eps)) == LogValue(F(3, 2), Distance.rational(2))
    h = [["3/5", "2/5"], ["2/5", "3/5"]]
    q = question_of(line_scaled(2, 2), "private", eps=eps, mechanism=h)
    assert getattr(q.level, "t", None) is None  # not a rational t: the log form decides
    assert _holds(line_scaled(2, 2), h, eps=eps)
    worse = [["5/8", "3/8"], ["3/8", "5/8"]]  # control: ratio 5/3 > 3/2, not private
    assert not _holds(line_scaled(2, 2), worse, eps=eps)


# kills "line 193: 2 -> 3" (int64 kept for distances up to 3^61): line_scaled(3, 2^63) has graph
# edges of length 2^63 and the pair (0, 2) at 2^64, past int64; the reduction must still be decided
# (object ints)
def test_edges_with_distances_past_int64():
    m = line_scaled(3, 2**63)
    assert m.graph_edges == ((0, 1), (1, 2))
    assert edges_suffice(m, m.graph_edges) is True
    assert _holds(m, [["1/2", "1/2"]] * 3)


# kills "line 202: 1 -> 2" (two points without an edge accepted): line(2) with no edge at all
# would leave no pair to read
def test_two_points_without_an_edge_mean_all_pairs():
    m = _library_metric(line(2).values, np.asarray(line(2).index), ())
    assert edges_suffice(m, ()) is False
    assert _holds(m, [["1", "0"], ["0", "1"]]) is False


# a witness (y, y', z) with H[y', z] = 0 has no finite ratio; a finite level claimed with it is
# rejected (False), not a TypeError. ("line 323: 0 -> 1" survives this and is equivalent: such a
# witness makes the level infinite, so the scan has already returned an infinite pair.)
def test_a_finite_level_with_an_infinite_witness_is_rejected():
    h = [["1", "0"], ["1/2", "1/2"]]  # H[1, 1] > 0 = H[0, 1]: level ∞
    q = question_of(line(2), "privacy-level", mechanism=h)
    assert check_privacy_level(LevelClaim(q, "infinite", (1, 0, 1), None))
    assert check_privacy_level(LevelClaim(q, LogValue(F(2), ONE), (1, 0, 1), Enclosure(F(0), F(1)))) is False


# kills "line 323: LtE -> Lt": a level claim ln(T)/e with a witness whose ratio R is exactly 1 is
# rejected. The JSON reader only writes T > 1, but an in-memory claim can state T = 1/2, the false
# level −ln 2 of a level-0 mechanism; with "R < 1" it would pass (log_sign(1/2, 1, 1, 1) = 0)
def test_a_witness_of_ratio_one_proves_no_finite_level():
    h = [["1/2", "1/2"], ["1/2", "1/2"]]  # every ratio 1: level 0
    q = question_of(line(2), "privacy-level", mechanism=h)
    assert check_privacy_level(LevelClaim(q, "0", None, Enclosure(F(-1), F(1))))
    for T in (F(1, 2), F(1)):
        assert not check_privacy_level(LevelClaim(q, LogValue(T, ONE), (0, 1, 0), Enclosure(F(-1), F(1))))
