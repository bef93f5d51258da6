"""Session 11 (11K4): the checks merged while shrinking the kernel's linear, privacy, Pufferfish,
sets, axioms and remap files each still reject. One test per merged check whose rejection no
other test pinned: the Pufferfish bracket/θ* = 0/tol helper (``brackets``), the witness rule of
ball and symbolic linear claims (``_verdict_shown``), the regrouped privacy-level and
privacy-check branches, the shared ball-sign ladder (``sign_in_balls``) and the shared integer
sweep (``integer_sweep``, now also behind the discrete Rényi moments). Small instances only
(the whole file runs in a few seconds).
"""

from __future__ import annotations

import copy
import random
from fractions import Fraction as F

import pytest
from flint import arb

from exactdp.arithmetic.interval import Enclosure
from exactdp.engine.documents import write_scale
from exactdp.engine.questions import question_of
from exactdp.kernel.linear import LinearClaim, check_linear
from exactdp.kernel.privacy import CheckClaim, LevelClaim, LogValue, check_privacy, check_privacy_level, sign_in_balls
from exactdp.kernel.pufferfish import check_pufferfish, integer_sweep
from exactdp.kernel.pufferfish_integrals import discrete_renyi_moment
from exactdp.kernel.pufferfish_more import check_pufferfish_more
from exactdp.pufferfish import DistributionPair
from exactdp.pufferfish.class_pairs import class_pair_scale
from exactdp.pufferfish.discrete import discrete_laplace_scale
from exactdp.pufferfish.distributions import DiscreteDistribution
from exactdp.pufferfish.documents import to_document
from exactdp.spaces.distances import Distance
from exactdp.spaces.levels import parse_level
from exactdp.spaces.metrics import line

HALF = parse_level(t="1/2")
ONE = Distance.rational(1)
COIN = {F(0): F(1, 2), F(1): F(1, 2)}
POINT = {F(0): F(1)}


# ----------------------------------------------------------------- Pufferfish brackets
def test_scale_bracket_wider_than_tol_is_rejected_for_one_and_two_releases():
    # θ* = 1/ln(2e − 1) ≈ 0.6736 for one release; k releases need k·θ*
    for k in (1, 2):
        br = (F(67, 100) * k, F(68, 100) * k)  # relative width 1/68
        assert check_pufferfish(write_scale(COIN, POINT, parse_level(eps=1), k, br, None, F(1, 50), 64))
        assert not check_pufferfish(write_scale(COIN, POINT, parse_level(eps=1), k, br, None, F(1, 100), 64))
        # a bracket that misses θ* is rejected whatever the tol
        off = (F(68, 100) * k, F(69, 100) * k)
        assert not check_pufferfish(write_scale(COIN, POINT, parse_level(eps=1), k, off, None, F(1, 2), 64))


def test_scale_zero_claim_is_rejected_when_noise_is_needed():
    assert not check_pufferfish(write_scale(COIN, POINT, parse_level(eps=1), 1, None, None, F(1, 10), 64))
    assert check_pufferfish(write_scale(COIN, COIN, parse_level(eps=1), 1, None, None, F(1, 10), 64))


def test_class_pair_tol_and_zero_claim_are_checked():
    doc = to_document(class_pair_scale(["1/2", "1/3"], ["1/2", "1/4"], "1/10"))
    assert check_pufferfish_more(doc)
    enc = doc["claim"]["least"]
    lo, hi = F(enc["lo"]), F(enc["hi"])
    tight = copy.deepcopy(doc)
    tight["evidence"]["tol"] = str((hi - lo) / hi / 2)  # half the bracket's relative width
    assert not check_pufferfish_more(tight)
    loose = copy.deepcopy(doc)
    loose["evidence"]["tol"] = None  # no width claimed: the bracket alone is checked
    assert check_pufferfish_more(loose)
    zero = copy.deepcopy(doc)
    zero["claim"]["least"], zero["claim"]["witness"] = "0", None  # θ* > 0 here
    assert not check_pufferfish_more(zero)


def test_discrete_zero_claim_needs_the_limit_to_hold():
    p3 = DiscreteDistribution.from_lists([0, 1, 3], ["1/2", "1/4", "1/4"])
    q3 = DiscreteDistribution.from_lists([0, 2], ["1/3", "2/3"])
    same = to_document(discrete_laplace_scale(DistributionPair(p3, p3), 1))
    assert same["claim"]["least"] == "0" and check_pufferfish_more(same)
    with_ratios = copy.deepcopy(same)
    with_ratios["claim"]["ratios"] = ["1", "1"]
    assert not check_pufferfish_more(with_ratios)
    pair = to_document(discrete_laplace_scale(DistributionPair(p3, q3), 1))
    assert check_pufferfish_more(pair)
    pair["claim"].update(least="0", ratios=None, closed_form=None)
    assert not check_pufferfish_more(pair)


# ------------------------------------------------------------------------ linear claims
def _ball(holds: bool, rhs, enc, witness):
    ev = {"enclosure": tuple(Enclosure(F(a), F(b)) for a, b in enc), "precision": 64, "witness": witness}
    return LinearClaim("ball", line(2), HALF, rhs, holds, ev)


def test_ball_claim_witness_rule():
    ones, signed = (F(1), F(1)), (F(1), F(-1))  # x = (2/3, 2/3) and x = (2, -2) at t = 1/2
    assert check_linear(_ball(True, ones, [(F(1, 2), 1), (F(1, 2), 1)], None))
    assert not check_linear(_ball(True, ones, [(F(1, 2), 1), (F(1, 2), 1)], 0))  # "holds" names no witness
    assert not check_linear(_ball(False, ones, [(F(1, 2), 1), (F(1, 2), 1)], 0))  # x_0 < 0 not shown
    assert not check_linear(_ball(True, signed, [(1, 3), (-3, -1)], None))  # x_1 ≥ 0 not shown
    assert check_linear(_ball(False, signed, [(1, 3), (-3, -1)], 1))
    for bad in (0, None, True, 2, -1, 1.0):
        assert not check_linear(_ball(False, signed, [(1, 3), (-3, -1)], bad)), bad


def test_symbolic_claim_witness_rule():
    # x = Φ(s)⁻¹(1, −1) on line(2) is (1, −1)/(1 − s): at s = 1/2, (2, −2)
    def claim(holds, witness, rhs=(F(1), F(-1))):
        return LinearClaim("symbolic", line(2), HALF, rhs, holds, {
            "numerators": ((1,), (-1,)), "denominator": (-1, 1), "precision": 64, "witness": witness})
    assert check_linear(claim(False, 1))
    for holds, witness in ((False, 0), (False, None), (False, True), (False, 2), (True, None), (True, 1)):
        assert not check_linear(claim(holds, witness)), (holds, witness)
    assert not check_linear(claim(False, 1, (F(1), F(1))))  # the identity fails for another b


def test_kronecker_claim_with_no_factors_is_rejected():
    claim = LinearClaim("kronecker", line(2), HALF, (F(1), F(1)), True, {"factors": ()})
    assert not check_linear(claim)


# ----------------------------------------------------------------------- privacy claims
def _level_q(rows):
    return question_of(line(2), "privacy-level", mechanism=rows)


def test_privacy_level_branches():
    q = _level_q([["3/4", "1/4"], ["1/4", "3/4"]])  # level ln 3
    ln3 = LogValue(F(3), ONE)
    assert check_privacy_level(LevelClaim(q, ln3, (0, 1, 0), Enclosure(F(1), F(2))))
    assert not check_privacy_level(LevelClaim(q, ln3, None, Enclosure(F(1), F(2))))
    assert not check_privacy_level(LevelClaim(q, ln3, (0, 1, 0), None))
    assert not check_privacy_level(LevelClaim(q, ln3, (0, 1, 0), Enclosure(F(11, 10), F(2))))  # misses ln 3
    assert not check_privacy_level(LevelClaim(q, LogValue(F(2), ONE), (0, 1, 0), Enclosure(F(1, 2), F(2))))
    assert not check_privacy_level(LevelClaim(q, "0", None, Enclosure(F(0), F(0))))
    flat = _level_q([["1/2", "1/2"], ["1/2", "1/2"]])
    assert check_privacy_level(LevelClaim(flat, "0", None, Enclosure(F(0), F(0))))
    assert not check_privacy_level(LevelClaim(flat, "0", (0, 1, 0), Enclosure(F(0), F(0))))
    assert not check_privacy_level(LevelClaim(flat, "0", None, None))
    assert not check_privacy_level(LevelClaim(flat, "0", None, Enclosure(F(1, 10), F(1))))
    inf = _level_q([["1", "0"], ["1/2", "1/2"]])
    assert check_privacy_level(LevelClaim(inf, "infinite", (1, 0, 1), None))
    assert not check_privacy_level(LevelClaim(inf, "infinite", (1, 0, 1), Enclosure(F(0), F(1))))
    assert not check_privacy_level(LevelClaim(inf, "infinite", None, None))
    assert not check_privacy_level(LevelClaim(inf, "infinite", (0, 1, 0), None))  # a finite ratio
    assert not check_privacy_level(LevelClaim(inf, "0", None, Enclosure(F(0), F(0))))


def test_privacy_check_branches():
    loose = question_of(line(2), "private", t="1/2", mechanism=[["3/4", "1/4"], ["1/4", "3/4"]])
    assert check_privacy(CheckClaim(loose, False, (0, 1, 0)))
    assert not check_privacy(CheckClaim(loose, False, None))
    assert not check_privacy(CheckClaim(loose, False, (0, 1, 1)))  # 1/4 < 3/4·2: no violation
    assert not check_privacy(CheckClaim(loose, True, None))
    tight = question_of(line(2), "private", t="1/2", mechanism=[["2/3", "1/3"], ["1/3", "2/3"]])
    assert check_privacy(CheckClaim(tight, True, None))
    assert not check_privacy(CheckClaim(tight, True, (0, 1, 0)))
    assert not check_privacy(CheckClaim(tight, False, (0, 1, 0)))  # ratio 2 = e^ε: no violation


# ---------------------------------------------------------------------- shared helpers
def test_sign_in_balls_never_reads_an_unseparated_ball_as_a_sign():
    assert sign_in_balls(lambda: arb(1) / 3 - arb(1) / 4) == 1
    assert sign_in_balls(lambda: arb(1) / 4 - arb(1) / 3) == -1
    assert sign_in_balls(lambda: arb(0)) is None  # an exact 0 is not a proved sign here
    assert sign_in_balls(lambda: arb("0 +/- 1e-10")) is None
    seen = []
    sign_in_balls(lambda: seen.append(1) or arb("0 +/- 1"), max_prec=1024)
    assert len(seen) == 3  # 64, 256, 1024: never beyond max_prec


def test_integer_sweep_and_discrete_moments_match_the_definitions():
    rng = random.Random(11)
    for _ in range(30):
        xs = sorted(rng.sample(range(-5, 6), rng.randint(1, 4)))
        w = [rng.randint(0, 5) for _ in xs]
        a, b = rng.randint(1, 6), rng.randint(7, 9)
        span = xs[-1] - xs[0]
        want = [sum(wj * a ** abs(x - y) * b ** (span - abs(x - y)) for y, wj in zip(xs, w)) for x in xs]
        assert [int(v) for v in integer_sweep(w, [y - x for x, y in zip(xs, xs[1:])], a, b)] == want
    # Σ_y p_A(y)² / p_B(y) by the definition over a long enough window (geometric tails summed)
    A, B, al = {F(1): F(1)}, {F(0): F(1)}, F(1, 2)
    assert discrete_renyi_moment(A, B, al, 2) == F(3, 2)


@pytest.mark.parametrize("order", [2, 3])
def test_discrete_moment_against_a_direct_sum(order):
    A, B, al = {F(0): F(1, 3), F(2): F(2, 3)}, {F(1): F(1)}, F(1, 3)
    c = (1 - al) / (1 + al)

    def p(D, y):
        return sum((m * c * al ** abs(y - d) for d, m in D.items()), F(0))

    # the tails beyond [0, 2] are geometric with ratio al: summed exactly
    inner = sum((p(A, y) ** order / p(B, y) ** (order - 1) for y in range(0, 3)), F(0))
    tail = sum((p(A, y) ** order / p(B, y) ** (order - 1) for y in (-1, 3)), F(0)) / (1 - al)
    assert discrete_renyi_moment(A, B, al, order) == inner + tail
