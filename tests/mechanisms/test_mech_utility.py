"""Utility (binary gain) and min-entropy leakage, against independent computations."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction as F

import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp.mechanisms import (
    count_queries_geometric,
    from_rows,
    min_entropy_leakage,
    randomized_response,
    sum_query_geometric,
    truncated_geometric,
    utility,
)


@st.composite
def matrix_and_prior(draw: st.DrawFn) -> tuple[list[list[F]], list[F]]:
    n = draw(st.integers(1, 4))
    m = draw(st.integers(1, 4))
    rows = []
    for _ in range(n):
        w = [draw(st.integers(0, 6)) for _ in range(m)]
        if sum(w) == 0:
            w[-1] = 1
        rows.append([F(x, sum(w)) for x in w])
    p = [draw(st.integers(0, 5)) for _ in range(n)]
    if sum(p) == 0:
        p[0] = 1
    return rows, [F(x, sum(p)) for x in p]


@settings(max_examples=40, deadline=None)
@given(mp=matrix_and_prior())
def test_optimal_remap_beats_every_deterministic_remap(mp: tuple) -> None:
    rows, pi = mp
    n, m = len(rows), len(rows[0])
    # brute force over all n^m deterministic remaps z ↦ y
    best = max(
        sum((pi[g[z]] * rows[g[z]][z] for z in range(m)), F(0))
        for g in itertools.product(range(n), repeat=m)
    )
    U = utility(from_rows(rows), pi)
    assert U.value == best and U.exact and U.verify()
    # the same value through a given remap (the optimal one as a 0/1 matrix)
    R = [[1 if U.remap[z] == y else 0 for y in range(n)] for z in range(m)]
    assert utility(from_rows(rows), pi, remap=R).value == best


@settings(max_examples=30, deadline=None)
@given(mp=matrix_and_prior())
def test_leakage_is_log2_of_utility_over_max_prior(mp: tuple) -> None:
    rows, pi = mp
    L = min_entropy_leakage(from_rows(rows), pi)
    U = utility(from_rows(rows), pi).value
    assert L.ratio == U / max(pi)
    assert L.enclosure.lo <= F(math.log2(U / max(pi))) + F(1, 10**12)
    assert abs(float(L) - math.log2(U / max(pi))) < 1e-12
    assert L.verify()


def test_identity_remap_utility_by_hand() -> None:
    H = from_rows([["1/2", "1/3", "1/6"], ["1/4", "1/2", "1/4"], [0, "1/3", "2/3"]])
    pi = ["1/2", "1/4", "1/4"]
    # Σ π_y h[y,y] = 1/2·1/2 + 1/4·1/2 + 1/4·2/3 = 1/4 + 1/8 + 1/6 = 13/24
    assert utility(H, pi, remap=[[1, 0, 0], [0, 1, 0], [0, 0, 1]]).value == F(13, 24)
    # randomised remap: output 2 guessed as 1 or 2 with probability 1/2 each
    R = [[1, 0, 0], [0, 1, 0], [0, "1/2", "1/2"]]
    # = 1/2·1/2 + 1/4·(1/2 + 1/4·1/2) + 1/4·(2/3·1/2) = 1/4 + 5/32 + 1/12
    assert utility(H, pi, remap=R).value == F(1, 4) + F(5, 32) + F(1, 12)


def test_geometric_uniform_utility_closed_form() -> None:
    # uniform prior on 0..N: U* = (1/(N+1))·[2/(1+α) + (N−1)(1−α)/(1+α)] (diagonal is the
    # column maximum)
    for N, a in ((1, F(1, 2)), (4, F(1, 3)), (9, F(2, 5))):
        expected = (2 / (1 + a) + (N - 1) * (1 - a) / (1 + a)) / (N + 1)
        assert utility(truncated_geometric(N + 1, t=a)).value == expected


def test_two_count_utility_is_a_square() -> None:
    # independent coordinates, uniform prior → U* factorises
    a = F(1, 2)  # t = 1/4, α = e^{-ε/2} = 1/2
    one = (2 / (1 + a) + 2 * (1 - a) / (1 + a)) / 4  # line 0..3
    assert utility(count_queries_geometric(3, t="1/4")).value == one**2


def test_randomized_response_leakage_closed_form() -> None:
    # uniform prior: U* = e^ε/(e^ε + n − 1), L = log2(n e^ε/(e^ε + n − 1))
    n, t = 5, F(1, 3)
    L = min_entropy_leakage(randomized_response(n, t=t))
    assert L.ratio == F(n * 3, 3 + n - 1)
    assert sympy.simplify(L.value - sympy.log(sympy.Rational(15, 7), 2)) == 0


def test_certified_utility_encloses_the_exact_closed_form() -> None:
    # ε = 4/5 on the sum query (u=3, v=2): α = e^{-2/5}; U* closed form as above
    H = sum_query_geometric(3, 2, eps="4/5")
    U = utility(H)
    assert not U.exact
    a = math.exp(-0.4)
    N = 6
    expected = (2 / (1 + a) + (N - 1) * (1 - a) / (1 + a)) / (N + 1)
    assert float(U.enclosure.lo) - 1e-12 <= expected <= float(U.enclosure.hi) + 1e-12
    assert U.enclosure.hi - U.enclosure.lo < F(1, 10**20)


def test_certified_utility_with_a_given_remap() -> None:
    # identity remap on a certified geometric: Σ_y π_y h[y,y] encloses the closed form
    H = truncated_geometric(3, eps="4/5")
    a = math.exp(-0.8)
    expected = (1 / (1 + a) + (1 - a) / (1 + a) + 1 / (1 + a)) / 3
    U = utility(H, "uniform", remap=[[1, 0, 0], [0, 1, 0], [0, 0, 1]])
    assert not U.exact
    assert float(U.enclosure.lo) - 1e-12 <= expected <= float(U.enclosure.hi) + 1e-12


def test_json_round_trip() -> None:
    H = randomized_response(3, t="1/2")
    again = from_rows(H.to_json()["rows"])
    assert again.rows_fraction() == H.rows_fraction()
