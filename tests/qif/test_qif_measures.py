"""g-vulnerability, leakage, Bayes risk, guessing and Shannon measures against hand-derived values."""

import itertools
import math
import random
from fractions import Fraction as F

import numpy as np
import pytest

from exactdp.errors import ExactnessRequired, InvalidChannel, InvalidGainFunction, InvalidPrior
from exactdp.mechanisms.constructors import randomized_response, truncated_geometric
from exactdp.mechanisms.gain import min_entropy_leakage, utility
from exactdp.qif import (
    CertifiedQuantity,
    GainFunction,
    GuessingEntropy,
    Leakage,
    Vulnerability,
    additive_leakage,
    bayes_vulnerability,
    guessing_entropy,
    multiplicative_leakage,
    mutual_information,
    posterior_vulnerability,
    prior_vulnerability,
    read_channel,
    shannon_entropy,
)
from exactdp.spaces.metrics import line

RR3 = randomized_response(3, t="1/2")          # diag 1/2, off-diagonal 1/4
GEO3 = truncated_geometric(3, t="1/2")         # [[2/3,1/6,1/6],[1/3,1/3,1/3],[1/6,1/6,2/3]]


def rand_channel(rng, n, m):
    rows = []
    for _ in range(n):
        w = [rng.randint(0, 6) for _ in range(m)]
        w[rng.randrange(m)] += 1
        rows.append([F(v, sum(w)) for v in w])
    return rows


def test_hand_values_randomized_response_and_geometric():
    assert bayes_vulnerability(RR3).value == F(1, 2)
    assert bayes_vulnerability(GEO3).value == F(5, 9)
    L = multiplicative_leakage(GainFunction.identity(3), GEO3)
    assert L.value == F(5, 3) and L.verify()
    assert L.bits is not None and 0.7369 < L.bits.lo < L.bits.hi < 0.7370   # log2(5/3) ≈ 0.73697
    assert additive_leakage(GainFunction.identity(3), GEO3).value == F(5, 9) - F(1, 3)


def test_agrees_with_mechanisms_gain_module():
    for H in (RR3, GEO3):
        for prior in ("uniform", ["1/2", "1/3", "1/6"]):
            assert bayes_vulnerability(H, prior).value == utility(H, prior).value
            assert multiplicative_leakage(GainFunction.identity(3), H, prior).value == \
                min_entropy_leakage(H, prior).ratio


def test_distance_gain_and_loss_by_hand():
    g = GainFunction.distance_gain(line(3), 2)
    assert g.rows == ((1, F(1, 2), 0), (F(1, 2), 1, F(1, 2)), (0, F(1, 2), 1))
    assert prior_vulnerability(g, "uniform" if False else [F(1, 3)] * 3).value == F(2, 3)
    loss = GainFunction.distance_loss(line(3))
    prior_risk = prior_vulnerability(loss, [F(1, 3)] * 3)
    assert prior_risk.value == F(2, 3) and prior_risk.strategy == (1,)
    post = posterior_vulnerability(loss, [[1, 0, 0], [0, 1, 0], [0, 0, 1]])
    assert post.value == 0 and post.verify()
    # loss leakage: U(π) − U[π, C] and U(π)/U[π, C]
    assert additive_leakage(loss, GEO3).value == F(2, 3) - posterior_vulnerability(loss, GEO3).value


def test_k_tries_equals_sum_of_top_k():
    pi = [F(1, 2), F(1, 4), F(1, 8), F(1, 8)]
    assert prior_vulnerability(GainFunction.k_tries(4, 2), pi).value == F(3, 4)


@pytest.mark.parametrize("seed", range(5))
def test_posterior_vulnerability_brute_force_and_properties(seed):
    rng = random.Random(seed)
    n, m, W = rng.randint(2, 4), rng.randint(1, 4), rng.randint(1, 3)
    C = rand_channel(rng, n, m)
    G = [[F(rng.randint(0, 4), 4) for _ in range(n)] for _ in range(W)]
    pi = rand_channel(rng, 1, n)[0]
    g = GainFunction.from_matrix(G)
    post = posterior_vulnerability(g, C, pi)
    # brute force over all strategies y -> w
    brute = max(sum(pi[x] * C[x][y] * G[s[y]][x] for x in range(n) for y in range(m))
                for s in itertools.product(range(W), repeat=m))
    assert post.value == brute and post.verify()
    # g-vulnerability never decreases through a channel (additive leakage ≥ 0)
    assert additive_leakage(g, C, pi).value >= 0
    # tampered strategy is rejected
    if W > 1:
        bad = Vulnerability(post.value, tuple((w + 1) % W for w in post.strategy), g, pi, post.channel)
        assert not bad.verify() or bad.strategy == post.strategy


def test_json_round_trips():
    v = posterior_vulnerability(GainFunction.distance_gain(line(3), 2), GEO3, ["1/2", "1/4", "1/4"])
    assert Vulnerability.from_json(v.to_json()) == v
    L = multiplicative_leakage(GainFunction.identity(3), RR3)
    assert Leakage.from_json(L.to_json()) == L and L.to_json()["log2_ratio"] == "log(3/2)/log(2)"
    ge = guessing_entropy(["1/2", "1/4", "1/4"], GEO3)
    assert GuessingEntropy.from_json(ge.to_json()) == ge and ge.verify()
    H = mutual_information(RR3)
    assert CertifiedQuantity.from_json(H.to_json()) == H


def test_guessing_entropy_by_hand():
    # identity channel: one guess; no channel, uniform on 4: (1+2+3+4)/4
    assert guessing_entropy([F(1, 4)] * 4).value == F(5, 2)
    assert guessing_entropy("uniform", [[1, 0], [0, 1]]).value == 1
    # GEO3 uniform: columns (2/9,1/9,1/18), (1/18,1/9,1/18), (1/18,1/9,2/9)
    assert guessing_entropy("uniform", GEO3).value == \
        sum(F(1, 3) * v for v in (F(2, 3) + 2 * F(1, 3) + 3 * F(1, 6),
                                  F(1, 3) + 2 * F(1, 6) + 3 * F(1, 6),
                                  F(2, 3) + 2 * F(1, 3) + 3 * F(1, 6)))


def test_shannon_certified():
    H = shannon_entropy([F(1, 2), F(1, 4), F(1, 4)])
    assert H.enclosure.contains(F(3, 2)) and H.enclosure.width < F(1, 10**30) and H.verify()
    MI = mutual_information([[1, 0, 0], [0, 1, 0], [0, 0, 1]])
    assert abs(MI.enclosure.mid - F(math.log2(3))) < F(1, 10**15)   # log2 3
    assert mutual_information([[1], [1]]).enclosure.contains(0)
    # tampered enclosure fails verification
    bad = CertifiedQuantity(H.quantity, type(H.enclosure)(F(0), F(1)), H.precision, H.prior)
    assert not bad.verify()


def test_mutual_information_matches_float_formula():
    rng = random.Random(3)
    C = rand_channel(rng, 3, 4)
    pi = [F(1, 3)] * 3
    J = np.array([[float(pi[x] * C[x][y]) for y in range(4)] for x in range(3)])
    py = J.sum(axis=0)
    mi = sum(J[x, y] * np.log2(J[x, y] / (1 / 3 * py[y])) for x in range(3) for y in range(4) if J[x, y])
    assert abs(float(mutual_information(C, pi)) - mi) < 1e-12


def test_bad_input_errors():
    with pytest.raises(InvalidGainFunction, match="3 secrets"):
        posterior_vulnerability([[1, 0], [0, 1]], GEO3)
    with pytest.raises(InvalidChannel, match="sums to"):
        bayes_vulnerability([["1/2", "1/3"], [0, 1]])
    with pytest.raises(InvalidChannel, match="negative"):
        bayes_vulnerability([["3/2", "-1/2"], [0, 1]])
    with pytest.raises(InvalidPrior, match="negative"):
        bayes_vulnerability(GEO3, ["1/2", "-1/2", 1])
    with pytest.raises(InvalidChannel, match="rectangular"):
        read_channel([[1], [F(1, 2), F(1, 2)]])
    with pytest.raises(InvalidGainFunction, match="radius"):
        GainFunction.distance_gain(line(3), 0)
    with pytest.raises(ExactnessRequired):
        bayes_vulnerability(randomized_response(3, eps=1))
    with pytest.raises(InvalidGainFunction, match="divides"):
        multiplicative_leakage([[0, 0], [0, 0]], [[1, 0], [0, 1]])


def test_numpy_float_channels():
    C = np.array([[0.5, 0.5], [0.25, 0.75]])
    assert bayes_vulnerability(C).value == F(5, 8)
    with pytest.raises(InvalidChannel):
        bayes_vulnerability(np.array([[0.1, 0.9], [0.5, 0.5]]) * 1.0000001)
    assert read_channel(np.array([[0.1, 0.2]]), rows="normalize")[0][0] == F(0.1) / (F(0.1) + F(0.2))
