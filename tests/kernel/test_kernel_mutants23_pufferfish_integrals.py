"""Session 23: tests for the survivors of the first complete ``scripts/mutation.py`` run on
exactdp/kernel/pufferfish_integrals.py (160 mutants; never run before). Each test names the
mutants it kills ("line N: change", the tool's description at the time of the run).

Ground truth is by hand, from the documented formulas:

* ``renyi_work``: α·span/θ ≤ MAX_STEEP = 20,000, points + ⌈span/θ⌉ ≤ MAX_WORK = 20,000, at most
  MAX_SUPPORT = 64 points and order MAX_ORDER = 10,000; the precision ladder (128, 256, 512,
  1024) stops at the last p with unit·Σ_{p' ≤ p} (p'/128)² ≤ MAX_WORK: 1 + 4 + 16 + 64 = 85, so
  1024 needs unit ≤ 235 (235·85 = 19,975; 236·85 = 20,060 leaves 512: 236·21 = 4,956);
* ``discrete_renyi_work``: (span + 1)·(m + α)·bits ≤ 2^22, bits = span·(bits(num a) +
  bits(den a)) + bits(lcm P) + bits(lcm Q);
* the discrete moment Σ_y p_A(y)² / p_B(y) for A = δ_{−1}, B = δ_1, a = 1/2,
  p(y) = c·a^{|y − x|} with c = (1 − a)/(1 + a) = 1/3: the exponent 2|y + 1| − |y − 1| is y + 3
  for y ≥ 1 (sum a⁴/(1 − a) = 1/8), 1 at y = 0 (1/2), −2 at y = −1 (4), −y − 3 for y ≤ −2
  (sum a^{−1}/(1 − a) = 4): c·(1/8 + 1/2 + 4 + 4) = 69/24 = 23/8. Every support so far
  started at 0, so a span written pts[−1] + pts[0] went unseen.
"""

from __future__ import annotations

import copy
from fractions import Fraction as F

import pytest

from exactdp.errors import InstanceTooLarge, InvalidArgument
from exactdp.kernel.pufferfish_integrals import (
    MAX_DISCRETE_BITS,
    discrete_renyi_moment,
    discrete_renyi_work,
    renyi_work,
)
from exactdp.kernel.verify import verify_document
from exactdp.pufferfish.documents import to_document
from exactdp.pufferfish.renyi import laplace_renyi
from exactdp.pufferfish.secrets import ValuePair

ONE = F(1)


def _at(*points):
    return {F(x): ONE / len(points) for x in points}


# kills "line 72: 64 -> 65": 64 support points are read, 65 refused
def test_support_limit_at_its_edge():
    assert renyi_work(_at(*range(32)), _at(*range(32, 64)), F(100), 2) == 1024
    with pytest.raises(InstanceTooLarge, match="65 points"):
        renyi_work(_at(*range(33)), _at(*range(33, 65)), F(100), 2)


# kills "line 74: 10000 -> 10001": order 10,000 is read, 10,001 refused (span/θ = 1, so the
# steepness 10,001 stays under its own limit)
def test_order_limit_at_its_edge():
    assert renyi_work(_at(0), _at(1), ONE, 10_000) == 1024
    with pytest.raises(InstanceTooLarge, match="order 10001"):
        renyi_work(_at(0), _at(1), ONE, 10_001)


# kills "line 76: 20000 -> 20001" and "line 94: Sub -> Add" (the span written as a sum): the
# support {−2500, 2500} at θ = 1/2 has span/θ = 10,000; order 2 gives α·span/θ = 20,000 (read),
# order 3 gives 30,000 (refused) — a sum of the ends would give span 0 and read both
def test_steepness_limit_at_its_edge_on_a_negative_support():
    assert renyi_work(_at(-2500), _at(2500), F(1, 2), 2) == 128  # unit 10,002: only 128 fits
    with pytest.raises(InstanceTooLarge, match="30000"):
        renyi_work(_at(-2500), _at(2500), F(1, 2), 3)
    assert renyi_work(_at(0), _at(5000), F(1, 2), 2) == 128  # the same span from 0
    with pytest.raises(InstanceTooLarge, match="20001"):  # span 6,667 at order 3: α·span/θ = 20,001
        renyi_work(_at(-3333), _at(3334), ONE, 3)
    assert renyi_work(_at(-3333), _at(3333), ONE, 3) == 128  # 3·6,666 = 19,998: read (unit 6,668)


# kills "line 79: 20000 -> 20001" and "line 95: Sub -> Add": points + ⌈span/θ⌉ = 2 + 19,998 is
# read (order 1 keeps α·span/θ = 19,998 under its limit), 2 + 19,999 refused
def test_work_limit_at_its_edge_on_a_negative_support():
    assert renyi_work(_at(-9999), _at(9999), ONE, 1) == 128
    with pytest.raises(InstanceTooLarge, match="20001"):
        renyi_work(_at(-9999), _at(10_000), ONE, 1)


# kills "line 100: 2 -> 3" (the ladder's cost (p/128)³): unit 235 still reaches 1024 bits,
# unit 236 stops at 512
def test_precision_ladder_at_its_edge():
    assert renyi_work(_at(0), _at(233), ONE, 1) == 1024  # unit 2 + 233 = 235
    assert renyi_work(_at(0), _at(234), ONE, 1) == 512   # unit 236


# kills "line 163: Sub -> Add": the discrete span of {−3000, 3000} is 6,000, so the sums need
# 6001·4·(6000·3 + 2) bits, far over 2^22; the sum of the ends would be 0
def test_discrete_span_on_a_negative_support():
    with pytest.raises(InstanceTooLarge, match=r"6001·4·\(18002\)"):
        discrete_renyi_work(_at(-3000), _at(3000), F(1, 2), 2)


# kills "line 166: Gt -> GtE" and "line 166: 1 -> 2": span 1, bits = 1·3 + bits(4) + bits(2) = 8,
# m + α = 2^18: (1 + 1)·2^18·8 = 2^22 exactly, read; one order more is refused
def test_discrete_bits_limit_at_its_edge():
    P, Q = {F(0): F(1, 4), F(1): F(3, 4)}, {F(0): F(1, 2), F(1): F(1, 2)}
    assert MAX_DISCRETE_BITS == 2**22
    assert discrete_renyi_work(P, Q, F(1, 2), 2**18 - 2) == 2**22
    with pytest.raises(InstanceTooLarge):
        discrete_renyi_work(P, Q, F(1, 2), 2**18 - 1)


# kills "line 183: Sub -> Add": the exact moment on a support that does not start at 0
def test_discrete_moment_on_a_negative_support():
    assert discrete_renyi_moment(_at(-1), _at(1), F(1, 2), 2) == F(23, 8)
    assert discrete_renyi_moment(_at(1), _at(-1), F(1, 2), 2) == F(23, 8)  # by symmetry y → −y
    assert discrete_renyi_moment(_at(0), _at(2), F(1, 2), 2) == F(23, 8)  # the same pair shifted


# kills "line 196: 2 -> 3" and "line 196: 16 -> 17": the writer's precision note is an int in
# [2, 2^16]; outside it the document is malformed (InvalidArgument), inside it is only a note
def test_the_precision_note_bounds():
    doc = to_document(laplace_renyi(ValuePair(1, 0), "1/2", 2))
    for prec in (2, 2**16):
        d = copy.deepcopy(doc)
        d["evidence"]["prec"] = prec
        assert verify_document(d).verified
    for prec in (1, 2**16 + 1):
        d = copy.deepcopy(doc)
        d["evidence"]["prec"] = prec
        with pytest.raises(InvalidArgument, match="evidence.prec"):
            verify_document(d)
