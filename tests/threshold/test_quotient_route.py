"""The equitable-quotient exact route (issue 18): same answers as the generic exact route."""

from fractions import Fraction

import numpy as np
import pytest

from exactdp.algebra.equitable import coarsest_equitable_partition, refine_partition, solve_quotient
from exactdp.algebra.symbolic import solve_symbolic
from exactdp.errors import InvalidArgument
from exactdp.kernel.threshold_quotient import quotient_terms
from exactdp.spaces.metrics import count_queries, from_matrix, grid, line, sum_query
from exactdp.threshold import epsilon_threshold
from exactdp.threshold.exact import exact_route
from exactdp.threshold.quotient import quotient_partition, quotient_route

TOL = Fraction(1, 10**9)


def planted(k, seed):
    """A random integer metric on 2k points with the planted symmetry (x, a) ↦ (x, 1 − a)."""
    rng = np.random.default_rng(seed)
    n = 2 * k
    d = np.zeros((n, n), dtype=np.int64)
    for i in range(n):
        for j in range(i + 1, n):
            if d[i, j] == 0:
                w = int(rng.integers(1, 5))
                d[i, j] = d[j, i] = d[i ^ 1, j ^ 1] = d[j ^ 1, i ^ 1] = w
    for m in range(n):
        d = np.minimum(d, d[:, m][:, None] + d[m, :][None, :])
    return from_matrix(d.tolist())


def same_z(metric, rhs=None):
    q = solve_quotient(metric, rhs)
    g = solve_symbolic(metric, rhs)
    lifted = q.lift()
    assert all(a * g.denominator == b * lifted.denominator
               for a, b in zip(lifted.numerators, g.numerators))
    return q


def same_threshold(metric, rhs=None):
    qr = quotient_route(metric, rhs, TOL)
    gr, _ = exact_route(metric, rhs, TOL, None, [], 10**4)
    assert qr is not None and qr.certificate.verify()
    assert qr.holds_everywhere == gr.holds_everywhere
    if gr.exact is None:
        assert qr.exact is None and qr.eps_upper == 0
    else:
        assert qr.exact.minimal_polynomial == gr.exact.minimal_polynomial
        assert max(qr.eps_lower, gr.eps_lower) <= min(qr.eps_upper, gr.eps_upper)
    assert str(qr.eps_set).split(":")[-1] == str(gr.eps_set).split(":")[-1]
    return qr


@pytest.mark.parametrize("u", [2, 3, 5, 8])
def test_count_queries_quotient_equals_generic(u):
    m = count_queries(u)
    part = coarsest_equitable_partition(m)
    # the D4 orbits of the (u+1)×(u+1) square
    assert part.size == len({tuple(sorted((min(a, u - a), min(b, u - b)))) for a, b in m.points})
    same_z(m)
    same_threshold(m)


@pytest.mark.parametrize("metric", [line(10), sum_query(4, 3), sum_query(3, 2), grid(5, 5, "manhattan"),
                                    grid(4, 6, "manhattan"), planted(5, 1), planted(6, 2)],
                         ids=["line10", "sum4_3", "sum3_2", "manh5x5", "manh4x6", "planted5", "planted6"])
def test_quotient_equals_generic(metric):
    assert coarsest_equitable_partition(metric).size < metric.n
    same_z(metric)
    same_threshold(metric)


def test_prior_constant_on_cells_and_not():
    m = count_queries(4)
    part = coarsest_equitable_partition(m)
    w = [Fraction(1 + c) for c in part.cells]  # constant on the D4 orbits
    prior = tuple(x / sum(w) for x in w)
    assert coarsest_equitable_partition(m, prior).cells == part.cells
    same_z(m, prior)
    same_threshold(m, prior)
    w2 = [Fraction(1 + (i % 3)) for i in range(m.n)]  # breaks the symmetry
    prior2 = tuple(x / sum(w2) for x in w2)
    finer = coarsest_equitable_partition(m, prior2)
    assert finer.size > part.size and quotient_terms(m, finer.cells) is not None
    assert all(prior2[i] == prior2[j] for i in range(m.n) for j in range(m.n)
               if finer.cells[i] == finer.cells[j])
    same_z(m, prior2)
    with pytest.raises(InvalidArgument, match="not constant"):
        solve_quotient(m, prior2, partition=part)


def test_partition_limits_and_errors():
    assert refine_partition(line(9), max_cells=3) is None
    assert quotient_partition(line(10), None).size == 5
    assert quotient_partition(line(9), None) is None  # 5 cells of 9 points: does not pay
    assert quotient_partition(from_matrix([[0, 1, 2], [1, 0, 1], [2, 1, 0]]), None) is None  # 2 of 3
    assert quotient_partition(grid(3, 3, "euclidean"), None) is None  # not polynomial
    with pytest.raises(InvalidArgument, match="not equitable"):
        solve_quotient(line(5), partition=coarsest_equitable_partition(line(4)))


def test_auto_takes_the_quotient_route_above_max_exact_n():
    m = count_queries(12)  # n = 169 > 160, 28 cells
    r = epsilon_threshold(m, verify=True)
    assert r.method == "equitable-quotient(28 cells)" and r.verified
    g = epsilon_threshold(m, max_exact_n=200)
    assert g.method == "exact" and g.exact.minimal_polynomial == r.exact.minimal_polynomial
    assert epsilon_threshold(sum_query(40, 5)).method.startswith("structured-toeplitz")
    assert epsilon_threshold(count_queries(3)).method == "exact"  # small: the generic route
    e = epsilon_threshold(grid(13, 13, "manhattan"), method="exact")
    assert e.method.startswith("equitable-quotient") and e.holds_everywhere and e.verify()
