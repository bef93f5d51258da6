"""The exactly optimal mechanism by LP: duality certificates, Thm. 4's link, the geometric mechanism."""

import random
from fractions import Fraction as F

import pytest

from exactdp.errors import ExactnessRequired, InvalidGainFunction, InvalidPrior, LPNotCertified
from exactdp.mechanisms.bounds import utility_bound
from exactdp.mechanisms.constructors import truncated_geometric
from exactdp.mechanisms.gain import utility
from exactdp.mechanisms.privacy import is_private
from exactdp.qif import GainFunction, optimal_mechanism, posterior_vulnerability
from exactdp.qif.optimal_lp import DualityCertificate
from exactdp.regularity import is_regular
from exactdp.spaces.metrics import cycle, line, sum_query


@pytest.mark.parametrize("n", [3, 5, 8, 12])
def test_uniform_line_optimum_is_sigma_alpha_and_geometric(n):
    r = optimal_mechanism(line(n), "uniform", t="1/2")
    assert r.verify() and r.method == "float-basis"
    # Thm. 4 link: for a regular prior the LP optimum is the tight-constraints utility Σα
    assert r.value == utility_bound(line(n), "uniform", t="1/2").value
    # the truncated geometric mechanism is optimal here (Thm. 4 on the line)
    assert utility(truncated_geometric(n, t="1/2")).value == r.value
    assert is_private(r.mechanism, line(n), t="1/2").private


@pytest.mark.parametrize("seed", range(4))
def test_regular_random_priors_meet_sigma_alpha(seed):
    rng = random.Random(seed)
    n = rng.randint(3, 7)
    w = [rng.randint(5, 12) for _ in range(n)]
    pi = [F(v, sum(w)) for v in w]
    assert is_regular(line(n), pi, t="1/5").regular
    r = optimal_mechanism(line(n), pi, t="1/5")
    assert r.verify() and r.value == utility_bound(line(n), pi, t="1/5").value
    assert utility(truncated_geometric(n, t="1/5"), pi).value <= r.value


@pytest.mark.parametrize("seed", range(5))
def test_float_basis_agrees_with_exact_simplex(seed):
    rng = random.Random(50 + seed)
    n = rng.randint(3, 5)
    w = [rng.randint(1, 9) for _ in range(n)]
    pi = [F(v, sum(w)) for v in w]
    gains = [None, GainFunction.distance_loss(line(n)), GainFunction.distance_gain(line(n), 2)]
    g = gains[seed % 3]
    a = optimal_mechanism(line(n), pi, t="1/3", gain=g)
    b = optimal_mechanism(line(n), pi, t="1/3", gain=g, method="exact-simplex")
    assert a.verify() and b.verify() and a.value == b.value and b.method == "exact-simplex"
    # the value is the optimal mechanism's own g-vulnerability (identity remap)
    gf = g if g is not None else GainFunction.identity(n)
    got = posterior_vulnerability(gf, a.mechanism, pi)
    assert (got.value <= a.value) if not gf.is_loss else (got.value >= a.value)


def test_geometric_with_remap_is_optimal_on_the_line_for_any_prior():
    # Ghosh–Roughgarden–Sundararajan: the geometric mechanism (plus the best remap) is
    # universally optimal on the line — also for non-regular priors, where Σα does not apply,
    # and for the expected-distance loss. Here it comes out of two exact computations.
    pi = [F(1, 2), F(1, 8), F(1, 8), F(1, 8), F(1, 8)]
    assert not is_regular(line(5), pi, t="1/2").regular
    r = optimal_mechanism(line(5), pi, t="1/2")
    assert r.verify() and utility(truncated_geometric(5, t="1/2"), pi).value == r.value
    loss = GainFunction.distance_loss(line(5))
    rl = optimal_mechanism(line(5), pi, t="1/2", gain=loss)
    geo_loss = posterior_vulnerability(loss, truncated_geometric(5, t="1/2"), pi).value
    assert rl.verify() and geo_loss == rl.value


def test_loss_matches_libqif_value():
    # libqif's min_loss_given_d on line(6), ε = ln 2, expected |x − y|: 0.8958333333333337
    r = optimal_mechanism(line(6), "uniform", t="1/2", gain=GainFunction.distance_loss(line(6)))
    assert r.value == F(43, 48) and r.verify()


def test_larger_and_graph_metrics():
    r = optimal_mechanism(line(30), "uniform", t="1/2")
    assert r.verify() and r.value == utility_bound(line(30), "uniform", t="1/2").value
    assert optimal_mechanism(cycle(6), "uniform", t="1/2").verify()
    assert optimal_mechanism(sum_query(4, 2), "uniform", t="1/2").verify()


def test_tampered_certificates_are_rejected():
    r = optimal_mechanism(line(4), "uniform", t="1/2")
    c = r.certificate
    assert c.verify()
    low_u = tuple(v - F(1, 100) for v in c.u)               # dual no longer feasible
    assert not DualityCertificate(c.problem, c.mechanism, low_u, c.lam).verify()
    K = [list(row) for row in c.mechanism]
    K[0][0], K[0][1] = K[0][0] + F(1, 100), K[0][1] - F(1, 100)   # privacy or objective breaks
    assert not DualityCertificate(c.problem, tuple(map(tuple, K)), c.u, c.lam).verify()
    assert not DualityCertificate(c.problem, c.mechanism, c.u, {}).verify()


def test_bad_inputs():
    with pytest.raises(ExactnessRequired):
        optimal_mechanism(line(3), "uniform", eps=1)
    with pytest.raises(InvalidPrior):
        optimal_mechanism(line(3), ["1/2", "-1/2", 1], t="1/2")
    with pytest.raises(InvalidGainFunction):
        optimal_mechanism(line(3), "uniform", t="1/2", gain=[[1, 0], [0, 1]])
    assert issubclass(LPNotCertified, ArithmeticError)


def test_all_pairs_metric_gives_randomized_response():
    # discrete metric (no graph edges recorded → all pairs): randomized response is optimal,
    # utility 1/(1 + (n − 1) t) for the uniform prior
    from exactdp.spaces.metrics import discrete
    r = optimal_mechanism(discrete(4), "uniform", t="1/2")
    assert r.verify() and r.value == F(1, 1 + 3 * F(1, 2))


def test_json_of_certificate_is_exact_strings():
    doc = optimal_mechanism(line(3), "uniform", t="1/2").to_json()
    assert doc["value"] == "5/9" and doc["method"] == "float-basis"
    assert all(isinstance(v, str) for row in doc["mechanism"] for v in row)


@pytest.mark.parametrize("t, weights", [
    ("7/10", [7, 1, 2, 2, 4, 5, 8, 7, 9, 1, 4]),
    ("9/10", [2, 4, 4, 7, 2, 5, 9, 6, 5, 1, 6]),
])
def test_degenerate_cycle_instances_are_certified(t, weights):
    # degenerate optima (fewer used columns than secrets): the dual u is pinned by the unused
    # columns HiGHS's dual treats as usable; these two failed before that step existed
    pi = [F(v, sum(weights)) for v in weights]
    r = optimal_mechanism(cycle(11), pi, t=t)
    assert r.verify() and r.method == "float-basis"
