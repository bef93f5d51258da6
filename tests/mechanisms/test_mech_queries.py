"""Queries (the paper's Def. 2, Thm. 1, Cor. 1): induced graphs of the sum, count, modular and
2-count queries equal the built-in metrics; uniform sensitivity with witnesses; the level of H∘f
from Thm. 1 / Cor. 1 equals the direct privacy level of H∘f on small instances."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
import sympy

from exactdp.errors import InvalidArgument, InvalidMechanism
from exactdp.mechanisms.constructors import from_rows, randomized_response, truncated_geometric
from exactdp.mechanisms.privacy import privacy_level
from exactdp.queries import (
    bounded_databases,
    database_metric,
    dp_epsilon,
    induced_metric,
    oblivious_level,
    oblivious_mechanism,
    unbounded_databases,
    uniform_sensitivity,
)
from exactdp.spaces.metrics import count_queries, cycle, from_matrix, hamming, line, sum_query
from exactdp.spaces.metrics.claims import same_distances


def _random_H(n: int, m: int, seed: int):
    rng = random.Random(seed)
    rows = []
    for _ in range(n):
        w = [rng.randint(1, 9) for _ in range(m)]
        rows.append([Fraction(x, sum(w)) for x in w])
    return from_rows(rows)


def test_database_metric_bounded_is_hamming_and_unbounded_counts_records():
    X = bounded_databases([0, 1, 2], 2)
    assert same_distances(database_metric(X), hamming(3, 2))
    U = unbounded_databases([0, 1], 2)
    dU = database_metric(U, "unbounded")
    assert dU.distance(U.index(()), U.index((0, 1))).coef == 2
    assert dU.distance(U.index((0, 0)), U.index((1, 1))).coef == 4


def test_induced_graphs_of_the_papers_queries():
    assert same_distances(induced_metric(sum, bounded_databases([0, 1], 4)), line(5))
    assert same_distances(induced_metric(sum, bounded_databases([0, 1, 2, 3], 3)),
                          sum_query(3, 3))
    mod = induced_metric(lambda x: sum(x) % 4, bounded_databases([0, 1], 4))
    assert same_distances(mod, cycle(4))
    two = induced_metric(lambda x: (sum(v & 1 for v in x), sum(v >> 1 for v in x)),
                         bounded_databases([0, 1, 2, 3], 2))
    assert same_distances(two, count_queries(2, 2))
    assert same_distances(induced_metric(sum, unbounded_databases([0, 1], 3), "unbounded"),
                          line(4))


def test_uniform_sensitivity_witnesses():
    X = bounded_databases([0, 1], 3)
    dX = database_metric(X)
    assert uniform_sensitivity(sum, dX, line(4)).holds
    bad = uniform_sensitivity(lambda x: 3 * x[0], dX, line(4))
    assert not bad.holds and bad.expansion_witness is not None
    a, b = bad.expansion_witness
    assert a[0] != b[0]
    # λ = 3 makes the first condition hold, but answers 1 and 2 are never produced: no chain
    chain = uniform_sensitivity(lambda x: 3 * x[0], dX, line(4), lam=3)
    assert not chain.holds and chain.chain_witness == (0, 1)
    with pytest.raises(InvalidArgument, match="not uniformly"):
        oblivious_level(truncated_geometric(4, eps=1), lambda x: 3 * x[0], dX, line(4), lam=3)


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize(
    ("values", "size", "neighbours", "query"),
    [
        ([0, 1], 3, "bounded", sum),
        ([0, 1, 2], 2, "bounded", sum),
        ([0, 1], 3, "unbounded", sum),
        ([0, 1], 4, "bounded", lambda x: sum(x) % 3),
    ],
)
def test_cor1_matches_the_direct_level(seed, values, size, neighbours, query):
    X = (bounded_databases(values, size) if neighbours == "bounded"
         else unbounded_databases(values, size))
    df = induced_metric(query, X, neighbours)
    H = _random_H(df.n, 3, seed)
    via_cor1 = dp_epsilon(H, query, X, neighbours)
    Hl = from_rows(H.rows_fraction(), inputs=df.points)
    direct = privacy_level(oblivious_mechanism(Hl, query, X), database_metric(X, neighbours))
    assert direct.verify()
    assert sympy.simplify(via_cor1.value - direct.value) == 0


def test_thm1_with_lambda_two_matches_direct():
    X = bounded_databases([0, 1], 2)
    dX = database_metric(X)
    # f = 2·count reaches 0, 2, 4 only: d_Y is |y − y'| on those answers
    dY = from_matrix([[abs(a - b) for b in (0, 2, 4)] for a in (0, 2, 4)], points=[0, 2, 4])
    H = from_rows(_random_H(3, 3, 7).rows_fraction(), inputs=[0, 2, 4])

    def f(x):
        return 2 * sum(x)

    r = oblivious_level(H, f, dX, dY, lam=2)
    direct = privacy_level(oblivious_mechanism(H, f, X), dX)
    assert r.sensitivity.holds and sympy.simplify(r.value - direct.value) == 0


def test_textbook_epsilons_exactly():
    X = bounded_databases([0, 1], 4)
    assert dp_epsilon(truncated_geometric(5, eps="7/10"), sum, X).value == sympy.Rational(7, 10)
    parity = dp_epsilon(randomized_response(2, eps="1/2"), lambda x: sum(x) % 2, X)
    assert parity.value == sympy.Rational(1, 2)


def test_oblivious_mechanism_bad_answer():
    H = from_rows([["1/2", "1/2"], ["1/2", "1/2"]], inputs=[0, 1])
    with pytest.raises(InvalidMechanism, match="is not an input of H"):
        oblivious_mechanism(H, sum, bounded_databases([0, 1], 2))
    with pytest.raises(InvalidArgument, match="neighbours"):
        database_metric(bounded_databases([0, 1], 2), "sideways")
