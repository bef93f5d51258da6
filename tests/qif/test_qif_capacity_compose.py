"""Capacities (with witnesses) and channel algebra (refinement certificates)."""

import random
from fractions import Fraction as F

import pytest

from exactdp.errors import InstanceTooLarge, InvalidChannel, InvalidGainFunction
from exactdp.mechanisms.constructors import randomized_response, truncated_geometric
from exactdp.qif import (
    GainFunction,
    Refinement,
    additive_bayes_capacity,
    additive_leakage,
    cascade,
    g_capacity,
    is_refined_by,
    multiplicative_bayes_capacity,
    multiplicative_leakage,
    parallel,
    post_process,
)
from exactdp.qif.capacity import Capacity
from exactdp.spaces.metrics import line

GEO3 = truncated_geometric(3, t="1/2")


def rand_channel(rng, n, m):
    rows = []
    for _ in range(n):
        w = [rng.randint(0, 5) for _ in range(m)]
        w[rng.randrange(m)] += 1
        rows.append([F(v, sum(w)) for v in w])
    return rows


def prior_grid(n, den):
    """Every prior with entries k/den."""
    def rec(k, left):
        if k == 1:
            yield (left,)
            return
        for v in range(left + 1):
            for rest in rec(k - 1, left - v):
                yield (v, *rest)
    for p in rec(n, den):
        yield [F(v, den) for v in p]


def test_capacities_by_hand():
    rr = randomized_response(3, t="1/2")
    assert multiplicative_bayes_capacity(rr).value == F(3, 2)
    a = additive_bayes_capacity(rr)
    assert a.value == F(1, 6) and a.witness == (F(1, 3),) * 3 and a.verify()
    ident = [[int(i == j) for j in range(4)] for i in range(4)]
    assert additive_bayes_capacity(ident).value == F(3, 4)
    assert multiplicative_bayes_capacity(GEO3).value == F(5, 3)
    c = multiplicative_bayes_capacity(GEO3)
    assert str(c.log2_ratio) == "log(5/3)/log(2)" and c.bits is not None


@pytest.mark.parametrize("seed", range(4))
def test_additive_capacity_dominates_a_prior_grid(seed):
    rng = random.Random(seed)
    C = rand_channel(rng, 3, 3)
    cap = additive_bayes_capacity(C)
    assert cap.verify()
    g = GainFunction.identity(3)
    best = max(additive_leakage(g, C, p).value for p in prior_grid(3, 6))
    assert best <= cap.value
    # the uniform-on-subset witnesses are on the grid (den 6 covers 1, 2, 3 elements)
    assert best == cap.value


@pytest.mark.parametrize("seed", range(3))
def test_g_capacities_dominate_a_prior_grid(seed):
    rng = random.Random(100 + seed)
    C = rand_channel(rng, 3, 2)
    g = GainFunction.from_matrix([[F(rng.randint(0, 3), 3) for _ in range(3)] for _ in range(2)])
    if all(v == 0 for r in g.rows for v in r):
        g = GainFunction.identity(3)
    add = g_capacity(g, C, "additive")
    assert add.verify()
    grid = list(prior_grid(3, 6))
    assert max(additive_leakage(g, C, p).value for p in grid) <= add.value
    mul = g_capacity(g, C, "multiplicative")
    assert mul.verify()
    vals = []
    for p in grid:
        try:
            vals.append(multiplicative_leakage(g, C, p).value)
        except InvalidGainFunction:
            pass            # V_g(π) = 0
    assert max(vals) <= mul.value
    # the miracle theorem: multiplicative g-capacity ≤ multiplicative Bayes capacity
    assert mul.value <= multiplicative_bayes_capacity(C).value


def test_loss_capacity_and_errors():
    loss = GainFunction.distance_loss(line(3))
    cap = g_capacity(loss, GEO3, "additive")
    assert cap.verify() and cap.value >= additive_leakage(loss, GEO3).value
    with pytest.raises(InvalidGainFunction):
        g_capacity(loss, GEO3, "multiplicative")
    big = [[F(1, 6)] * 6 for _ in range(3)]
    with pytest.raises(InstanceTooLarge):
        g_capacity(GainFunction.identity(3), [[F(1, 13)] * 13] * 3)
    del big


def test_large_additive_capacity_gives_certified_bounds():
    rng = random.Random(5)
    C = rand_channel(rng, 16, 3)
    cap = additive_bayes_capacity(C)
    assert cap.method == "bounds" and cap.bounds.lo <= cap.bounds.hi and cap.verify()
    exact = additive_bayes_capacity(C, max_exact=16)        # 65535 subsets, still quick
    assert cap.bounds.contains(exact.value)


def test_tampered_capacity_witness_fails():
    cap = additive_bayes_capacity(GEO3)
    bad = Capacity(cap.measure, cap.value, cap.bounds, (F(1), F(0), F(0)), cap.method, cap.channel)
    assert not bad.verify()


def test_cascade_parallel_post_process():
    A = [[F(1, 2), F(1, 2)], [0, 1]]
    B = [[1, 0], [F(1, 2), F(1, 2)]]
    assert cascade(A, B).rows_fraction() == [[F(3, 4), F(1, 4)], [F(1, 2), F(1, 2)]]
    P = parallel(A, B)
    assert P.shape == (2, 4) and P.rows_fraction()[0] == [F(1, 2), 0, F(1, 2), 0]
    assert post_process(A, B).rows_fraction() == cascade(A, B).rows_fraction()
    with pytest.raises(InvalidChannel):
        cascade(A, [[1, 0, 0]])
    with pytest.raises(InvalidChannel):
        parallel(A, [[1]])


@pytest.mark.parametrize("seed", range(4))
def test_refinement_certificates(seed):
    rng = random.Random(seed)
    A = rand_channel(rng, 3, 3)
    R = rand_channel(rng, 3, 2)
    B = post_process(A, R)
    yes = is_refined_by(A, B)
    assert yes.refined and yes.verify() and yes.verdict.value == "holds"
    # data processing: every gain leaks no more through B than through A
    g = GainFunction.distance_gain(line(3), 2)
    assert additive_leakage(g, B).value <= additive_leakage(g, A).value
    no = is_refined_by(B, [[1, 0, 0], [0, 1, 0], [0, 0, 1]])
    assert not no.refined and no.verify()
    # tampering: a wrong remap or a flipped Farkas vector is rejected
    assert not Refinement(True, ((1, 0),) * 3, None, yes.A, yes.B).verify() or \
        post_process(A, [[1, 0]] * 3).rows_fraction() == [list(r) for r in yes.B]
    assert no.farkas is not None
    assert not Refinement(False, None, tuple(-v for v in no.farkas), no.A, no.B).verify()
