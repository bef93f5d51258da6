"""Exact privacy level and the privacy verdict."""

from __future__ import annotations

import dataclasses
import itertools
import math
from fractions import Fraction as F

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp.arithmetic.interval import Enclosure
from exactdp.errors import InvalidMechanism
from exactdp.mechanisms import (
    count_queries_geometric,
    exponential_mechanism,
    from_rows,
    is_private,
    privacy_level,
    randomized_response,
    sum_query_geometric,
    tight_constraints_mechanism,
    truncated_geometric,
)
from exactdp.spaces.metrics import (
    count_queries,
    cycle,
    discrete,
    from_graph,
    from_matrix,
    hamming,
    line,
    sum_query,
)

rational_t = st.builds(F, st.integers(1, 9), st.integers(2, 10)).filter(lambda x: 0 < x < 1)


def brute_force_level(rows: list[list[F]], D: list[list[F]]) -> float:
    """max over ALL ordered pairs and outputs of ln(h[y,z]/h[y',z]) / d, in floats."""
    best = 0.0
    n = len(rows)
    for y, y2 in itertools.permutations(range(n), 2):
        for z in range(len(rows[0])):
            a, b = rows[y][z], rows[y2][z]
            if a == 0:
                continue
            if b == 0:
                return math.inf
            best = max(best, math.log(a / b) / float(D[y][y2]))
    return best


@st.composite
def stochastic_matrix(draw: st.DrawFn, n: int, m: int, zeros: bool = False) -> list[list[F]]:
    lo = 0 if zeros else 1
    rows = []
    for _ in range(n):
        w = [draw(st.integers(lo, 9)) for _ in range(m)]
        if sum(w) == 0:
            w[0] = 1
        rows.append([F(x, sum(w)) for x in w])
    return rows


@settings(max_examples=30, deadline=None)
@given(data=st.data(), n=st.integers(2, 5), m=st.integers(1, 4))
def test_exact_level_matches_brute_force_on_all_pairs(data: st.DataObject, n: int, m: int) -> None:
    rows = data.draw(stochastic_matrix(n, m, zeros=True))
    metric = line(n)
    res = privacy_level(from_rows(rows), metric)
    D = [[F(abs(i - j)) for j in range(n)] for i in range(n)]
    bf = brute_force_level(rows, D)  # all pairs, not only edges: checks the path argument
    if math.isinf(bf):
        assert res.value is sympy.oo
    else:
        assert res.value is not sympy.oo
        assert abs(float(res) - bf) < 1e-9
        # the exact value is log(ratio)/d at the witness
        y, y2, z = res.witness
        assert res.ratio == rows[y][z] / rows[y2][z]
    assert res.verify()


@settings(max_examples=20, deadline=None)
@given(data=st.data(), n=st.integers(2, 4))
def test_edges_only_equals_all_pairs(data: st.DataObject, n: int) -> None:
    # cycle(n) checks only its edges; the same distances as a plain matrix check all pairs
    rows = data.draw(stochastic_matrix(n, 3))
    g = cycle(n)
    full = from_matrix([[g.distance(i, j).coef for j in range(n)] for i in range(n)])
    assert full.graph_edges is None
    a = privacy_level(from_rows(rows), g)
    b = privacy_level(from_rows(rows), full)
    assert sympy.simplify(a.value - b.value) == 0


@settings(max_examples=15, deadline=None)
@given(t=rational_t)
def test_tight_constraints_level_is_exactly_eps(t: F) -> None:
    eps = -sympy.log(sympy.Rational(t.numerator, t.denominator))
    for metric in (line(4), cycle(5), sum_query(2, 2), hamming(2, 2), discrete(3)):
        try:
            H = tight_constraints_mechanism(metric, t=t)
        except Exception as exc:  # no mechanism at this level: nothing to check
            assert type(exc).__name__ == "PropertyNeverHolds"
            continue
        for method in ("monomial", "exact"):
            r = privacy_level(H, metric, method=method)
            assert sympy.simplify(r.value - eps) == 0, (metric, method, r.value)
        assert r.verify()


def test_tight_constraints_level_at_transcendental_t() -> None:
    # ε = 4/5 is rational, so t = e^{-4/5} is transcendental; the entries are balls,
    # yet the level is exactly 4/5 (monomial form), and the ball enclosure agrees
    m = line(6)
    H = tight_constraints_mechanism(m, eps="4/5")
    assert H.kind == "certified"
    r = privacy_level(H, m)
    assert r.value == sympy.Rational(4, 5) and r.exact
    rb = privacy_level(H, m, method="ball")
    assert rb.enclosure.lo <= F(4, 5) <= rb.enclosure.hi
    assert rb.enclosure.hi - rb.enclosure.lo < F(1, 10**10)
    assert r.verify() and rb.verify()


def test_geometric_comparators_levels() -> None:
    # sum query: α = e^{-ε/v} per unit, neighbours up to v apart → level exactly ε
    m = sum_query(3, 2)
    for H in (sum_query_geometric(3, 2, t="1/4"), sum_query_geometric(3, 2, eps="7/10")):
        r = privacy_level(H, m)
        expected = sympy.log(4) if H.kind == "exact" else sympy.Rational(7, 10)
        assert sympy.simplify(r.value - expected) == 0
    # 2-count: ε/2 per coordinate, a king move changes both → level exactly ε
    c = count_queries(3)
    r = privacy_level(count_queries_geometric(3, t="1/9"), c)
    assert sympy.simplify(r.value - sympy.log(9)) == 0
    assert privacy_level(count_queries_geometric(3, t="1/9"), c, method="exact").value == r.value


def test_exponential_mechanism_is_private_at_eps() -> None:
    for metric in (line(5), cycle(6), hamming(2, 3)):
        H = exponential_mechanism(metric, t="1/4")
        r = privacy_level(H, metric)
        assert float(r) <= math.log(4) + 1e-12
        assert is_private(H, metric, t="1/4").private
        assert r.verify()


def test_randomized_response_level() -> None:
    r = privacy_level(randomized_response(4, t="2/7"), discrete(4))
    assert sympy.simplify(r.value - sympy.log(sympy.Rational(7, 2))) == 0


def test_infinite_level_has_witness() -> None:
    H = from_rows([[1, 0], ["1/2", "1/2"]])
    r = privacy_level(H, line(2))
    assert r.value is sympy.oo and r.is_infinite
    y, y2, z = r.witness
    assert H.entry(y, z) > 0 and H.entry(y2, z) == 0
    assert r.verify()
    chk = is_private(H, line(2), eps=100)
    assert not chk.private and chk.violation == r.witness


def test_is_private_boundaries() -> None:
    H = truncated_geometric(5, t="1/3")
    m = line(5)
    assert is_private(H, m, t="1/3").private  # exactly at its level
    assert is_private(H, m, eps="11/10").private  # ln 3 ≈ 1.0986 < 1.1
    no = is_private(H, m, eps="109/100")  # 1.09 < ln 3
    assert not no.private and no.violation is not None
    assert no.verify()
    y, y2, z = no.violation
    assert H.entry(y, z) / H.entry(y2, z) == 3


def test_levels_with_different_distances_compared_exactly() -> None:
    # d(0,1) = 1, d(1,2) = 2, d(0,2) = 3 (a weighted line; all pairs checked)
    metric = from_matrix([[0, 1, 3], [1, 0, 2], [3, 2, 0]])
    rows = [["1/2", "1/4", "1/4"], ["1/4", "1/2", "1/4"], ["1/16", "1/8", "13/16"]]
    # by hand: pair (0,1) ratio 2 → ln2/1; pair (1,2) ratio 4 → ln4/2; pair (0,2) ratio 8
    # → ln8/3; reversed ratios are smaller (13/4 over distances 2 and 3): a three-way
    # exact tie at ln 2
    r = privacy_level(from_rows(rows), metric)
    assert sympy.simplify(r.value - sympy.log(2)) == 0
    assert r.verify()


def test_euclidean_distances() -> None:
    # irrational distances: compare ln r/√2 against ln r'/1 exactly (Gelfond–Schneider)
    metric = from_matrix([[0, 1, "sqrt(2)"], [1, 0, 1], ["sqrt(2)", 1, 0]])
    rows = [["1/2", "1/4", "1/4"], ["1/4", "1/2", "1/4"], ["1/8", "1/4", "5/8"]]
    r = privacy_level(from_rows(rows), metric)
    D = [[F(0), F(1), F(2) ** 0], [F(1), F(0), F(1)], [F(1), F(1), F(0)]]
    D[0][2] = D[2][0] = F(math.sqrt(2))
    assert abs(float(r) - brute_force_level([[F(x) for x in row] for row in rows], D)) < 1e-9
    assert r.verify()


def test_shape_mismatch_with_metric() -> None:
    with pytest.raises(InvalidMechanism, match="3 points"):
        privacy_level(from_rows([[1, 0], [0, 1]]), line(3))


def test_verify_rejects_a_tampered_result() -> None:
    m = line(4)
    for H in (truncated_geometric(4, t="1/2"), truncated_geometric(4, eps="4/5")):
        r = privacy_level(H, m)
        assert r.verify()
        low = sympy.Rational(1, 2) * r.value  # claims a smaller level than the truth
        assert not dataclasses.replace(r, value=low).verify()
    # certified path: an upper end below the true level must fail
    H = truncated_geometric(4, eps="4/5")
    rb = privacy_level(H, m, method="ball")
    assert not dataclasses.replace(rb, enclosure=Enclosure(F(1, 2), F(3, 4))).verify()


@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_weighted_graphs_edges_only_match_brute_force(data: st.DataObject) -> None:
    n = data.draw(st.integers(3, 5))
    # a random connected weighted graph: a spanning path plus random chords
    edges = [(i, i + 1, data.draw(st.sampled_from(["1", "2", "3", "1/2", "3/2"])))
             for i in range(n - 1)]
    for _ in range(data.draw(st.integers(0, 3))):
        a, b = data.draw(st.integers(0, n - 1)), data.draw(st.integers(0, n - 1))
        if a != b:
            edges.append((a, b, data.draw(st.sampled_from(["1", "2", "5/2"]))))
    metric = from_graph(edges, nodes=range(n))
    rows = data.draw(stochastic_matrix(n, 3))
    r = privacy_level(from_rows(rows), metric)
    D = [[metric.distance(i, j).coef for j in range(n)] for i in range(n)]
    assert abs(float(r) - brute_force_level(rows, D)) < 1e-9
    assert r.verify()


@pytest.mark.parametrize("metric,t", [(line(4), "1/4"), (cycle(5), "1/4"), (hamming(2, 2), "1/4"),
                                      (sum_query(3, 2), "1/4"), (count_queries(2), "1/4"),
                                      (discrete(3, "1/2"), "1/16")])
def test_exponential_mechanism_level_row_normalized(metric, t) -> None:
    # rational s = e^{-ε/(2q)}: the row-normalized closed form equals the generic exact one
    H = exponential_mechanism(metric, t=t)
    fast = privacy_level(H, metric)
    assert fast.method == "row-monomial"
    slow = privacy_level(H, metric, method="exact")
    assert sympy.simplify(fast.value - slow.value) == 0
    assert fast.verify()
    # transcendental s (ε = 1): exact closed form inside the independent ball enclosure
    Hc = exponential_mechanism(metric, eps=1)
    r = privacy_level(Hc, metric)
    rb = privacy_level(Hc, metric, method="ball")
    assert rb.enclosure.lo <= r.enclosure.hi and r.enclosure.lo <= rb.enclosure.hi
    assert float(r) <= 1 + 1e-12  # the exponential mechanism is ε-private
    assert r.verify()
    assert not dataclasses.replace(r, value=r.value / 2).verify()


def test_exponential_mechanism_on_symmetric_spaces_is_half_eps() -> None:
    # ball-size symmetric: all row sums S_y agree, so the level is exactly ε/2·max Δd/d = ε/2
    for metric in (cycle(6), hamming(3, 2), discrete(4)):
        r = privacy_level(exponential_mechanism(metric, eps="4/5"), metric)
        assert r.value == sympy.Rational(2, 5)
