"""The equitable-quotient exact route (issue 18): same answers as the generic exact route."""

from fractions import Fraction

import numpy as np
import pytest

from exactdp.algebra.equitable import (
    EquitablePartition,
    coarsest_equitable_partition,
    refine_partition,
    solve_quotient,
)
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
    with pytest.raises(InvalidArgument, match="must be 5 labels"):  # a partition of line(4)
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


# ---------------------------------------------------------------- review 18B regressions
def c4_plus_complete(k):
    """A 4-cycle (distances 1, 2) joined at distance 1 to K_k: 2 cells, s* = 1/2 (rational)."""
    n = 4 + k
    c4 = [[0, 2, 1, 2], [2, 0, 2, 1], [1, 2, 0, 2], [2, 1, 2, 0]]
    d = [[0 if i == j else 1 for j in range(n)] for i in range(n)]
    for i in range(4):
        for j in range(4):
            d[i][j] = c4[i][j]
    return from_matrix(d)


@pytest.mark.parametrize("k", [4, 7])
def test_rational_s_star_gives_a_kernel_checked_certificate(k):
    m = c4_plus_complete(k)
    r = epsilon_threshold(m, method="exact", max_exact_n=3, verify=True)
    assert r.method.startswith("equitable-quotient") and r.verified
    assert r.exact.minimal_polynomial == (-1, 2)  # s* = 1/2 exactly: ε* = ln 2
    a, b = r.certificate.s_star.isolating_interval
    assert a < Fraction(1, 2) < b and r.exact.verify()
    assert r.eps_lower < 0.6931471805599453 < r.eps_upper  # ln 2, float only as a sanity check
    g, _ = exact_route(m, None, TOL, None, [], 10**4)
    assert g.exact.minimal_polynomial == (-1, 2)
    assert max(r.eps_lower, g.eps_lower) <= min(r.eps_upper, g.eps_upper)
    back = type(r.certificate).from_json(r.certificate.dumps())
    assert back.verify()


def test_rational_s_star_under_auto_above_max_exact_n():
    m = c4_plus_complete(160)  # n = 164 > 160: the default route is the quotient
    r = epsilon_threshold(m)
    assert r.method == "equitable-quotient(2 cells)" and r.exact.minimal_polynomial == (-1, 2)
    assert r.certificate.verify()


def scaled_count_queries(u, num, den):
    E = count_queries(u).exponent_matrix()
    return from_matrix([[Fraction(int(x) * num, den) for x in row] for row in E])


@pytest.mark.slow
def test_cost_guard_skips_a_quotient_of_too_high_degree():
    m = scaled_count_queries(12, 101, 100)  # q = 100: degree bound 28,280 on 28 cells
    assert quotient_partition(m, None) is None
    assert quotient_partition(m, None, max_degree=None).size == 28
    assert quotient_partition(scaled_count_queries(12, 11, 10), None).size == 28  # degree 3,080
    r = epsilon_threshold(m)  # the review's reproducer: certified, as before the quotient route
    assert r.method.startswith("certified") and r.eps_upper - r.eps_lower <= TOL


def test_route_errors_fall_back_to_the_next_route(monkeypatch):
    import exactdp.threshold.api as api
    from exactdp.errors import InstanceTooLarge, PrecisionLimitReached

    for err in (InstanceTooLarge, PrecisionLimitReached):
        def boom(*args, err=err, **kwargs):
            raise err("too big")
        monkeypatch.setattr(api, "quotient_route", boom)
        r = epsilon_threshold(count_queries(4), max_exact_n=10)
        assert r.method.startswith("certified")
        e = epsilon_threshold(count_queries(4), method="exact", max_exact_n=10)
        assert e.method == "exact"


def test_hashed_refinement_agrees_with_exact_equitability():
    for m in (count_queries(7), grid(6, 7, "manhattan"), line(12), planted(7, 3), sum_query(5, 3)):
        part = coarsest_equitable_partition(m)
        assert quotient_terms(m, part.cells) is not None  # equitable, exactly
        # coarsest: merging any two cells breaks equitability or canonical labels
        for a in range(min(part.size, 4)):
            for b in range(a + 1, min(part.size, 5)):
                merged = [a if c == b else c for c in part.cells]
                _, idx = np.unique(merged, return_inverse=True)
                first = {}
                canon = tuple(first.setdefault(int(v), len(first)) for v in idx)
                assert quotient_terms(m, canon) is None


def test_public_functions_reject_bad_input():
    from exactdp.errors import ExactnessRequired, InvalidTolerance

    with pytest.raises(InvalidArgument, match="2 points"):
        quotient_route(line(1), None, TOL)
    with pytest.raises(InvalidTolerance):
        quotient_route(count_queries(3), None, Fraction(0))
    with pytest.raises(InvalidArgument, match="irrational"):
        quotient_route(grid(3, 3, "euclidean"), None, TOL)
    with pytest.raises(InvalidArgument, match="entries"):
        quotient_route(line(4), (Fraction(1, 4),) * 3, TOL)
    for bad in (float("nan"), "a", None):
        with pytest.raises((InvalidArgument, ExactnessRequired), match=r"rhs\[0\]"):
            coarsest_equitable_partition(line(3), [bad] * 3)
    with pytest.raises(InvalidArgument, match="rhs has 2 entries"):
        solve_quotient(line(4), [1, 1], partition=coarsest_equitable_partition(line(4)))
    with pytest.raises(InvalidArgument, match="numbered by first appearance"):
        solve_quotient(line(4), partition=EquitablePartition((1, 0, 0, 1), 2))
    with pytest.raises(InvalidArgument, match="not equitable"):
        solve_quotient(line(4), partition=EquitablePartition((0, 0, 1, 1), 2))
