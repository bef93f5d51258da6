"""Mechanism construction, validation and bad input."""

from __future__ import annotations

import itertools
from fractions import Fraction as F

import pytest
import sympy
from flint import arb
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp.errors import InvalidArgument, InvalidMechanism, InvalidPrior, InvalidPrivacyLevel
from exactdp.mechanisms import (
    count_queries_geometric,
    exponential_mechanism,
    from_balls,
    from_rows,
    geometric_line,
    min_entropy_leakage,
    randomized_response,
    sum_query_geometric,
    tight_constraints_mechanism,
    truncated_geometric,
    utility,
)
from exactdp.spaces.metrics import cycle, discrete, hamming, line

rational_t = st.builds(F, st.integers(1, 9), st.integers(2, 10)).filter(lambda x: 0 < x < 1)


def geometric_by_hand(n: int, a: F) -> list[list[F]]:
    """Ghosh–Roughgarden–Sundararajan truncated geometric, written independently."""
    rows = []
    for y in range(n):
        row = []
        for z in range(n):
            if n == 1:
                row.append(F(1))
            elif z in (0, n - 1):
                row.append(a ** abs(y - z) / (1 + a))
            else:
                row.append(a ** abs(y - z) * (1 - a) / (1 + a))
        rows.append(row)
    return rows


def test_geometric_rows_by_hand() -> None:
    # n = 3, α = 1/2: row 0 = (1/(3/2), (1/2)(1/2)/(3/2), (1/4)/(3/2)) = (2/3, 1/6, 1/6)
    H = geometric_line(3, "1/2")
    assert H.rows_fraction()[0] == [F(2, 3), F(1, 6), F(1, 6)]
    assert H.rows_fraction()[1] == [F(1, 3), F(1, 3), F(1, 3)]


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 8), t=rational_t)
def test_tight_constraints_on_a_line_is_truncated_geometric(n: int, t: F) -> None:
    H = tight_constraints_mechanism(line(n), t=t)
    assert H.rows_fraction() == geometric_by_hand(n, t)
    assert truncated_geometric(n, t=t).rows_fraction() == geometric_by_hand(n, t)


@settings(max_examples=15, deadline=None)
@given(n=st.integers(2, 6), t=rational_t)
def test_randomized_response_is_tight_constraints_of_discrete(n: int, t: F) -> None:
    # RR: truth with probability 1/(1 + (n−1)t), each other value t/(1 + (n−1)t)
    rr = randomized_response(n, t=t).rows_fraction()
    for y, z in itertools.product(range(n), repeat=2):
        expected = (F(1) if y == z else t) / (1 + (n - 1) * t)
        assert rr[y][z] == expected
    assert tight_constraints_mechanism(discrete(n), t=t).rows_fraction() == rr


def test_count_queries_geometric_is_a_product() -> None:
    # t = 1/4 → each coordinate uses α = e^{-ε/2} = 1/2
    H = count_queries_geometric(2, t="1/4").rows_fraction()
    g = geometric_by_hand(3, F(1, 2))
    pts = list(itertools.product(range(3), repeat=2))
    for i, (y1, y2) in enumerate(pts):
        for j, (z1, z2) in enumerate(pts):
            assert H[i][j] == g[y1][z1] * g[y2][z2]


def test_sum_query_geometric_parameter() -> None:
    # u = 2, v = 2, t = 1/4: α = e^{-ε/2} = 1/2 on the line 0..4
    H = sum_query_geometric(2, 2, t="1/4")
    assert H.rows_fraction() == geometric_by_hand(5, F(1, 2))
    assert H.inputs == tuple(range(5))


def test_exponential_mechanism_rows() -> None:
    # cycle(4), t = 1/4: weights e^{-ε d/2} = (1/2)^d for d = 0, 1, 2, 1 → sum 1 + 1/2 + 1/4 + 1/2
    H = exponential_mechanism(cycle(4), t="1/4").rows_fraction()
    total = F(1) + F(1, 2) + F(1, 4) + F(1, 2)
    assert H[0] == [F(1) / total, F(1, 2) / total, F(1, 4) / total, F(1, 2) / total]


def test_certified_entries_contain_exact_ones() -> None:
    # at ε = 4/5 the entries are balls; they must contain e^{-4/5·k}-based exact values
    H = truncated_geometric(3, eps="4/5")
    assert H.kind == "certified"
    a = (-arb(4) / 5).exp()
    assert H.entry(0, 0).overlaps(1 / (1 + a))
    assert H.entry(1, 1).overlaps((1 - a) / (1 + a))
    assert H.monomial is not None


def test_certified_tight_constraints_on_hamming() -> None:
    m = hamming(2, 2)
    H = tight_constraints_mechanism(m, eps=1)
    assert H.kind == "certified"
    for i in range(m.n):
        total = sum((H.entry(i, j) for j in range(m.n)), arb(0))
        assert total.contains(1)


# ------------------------------------------------------------------ bad input
def test_non_stochastic_rows() -> None:
    with pytest.raises(InvalidMechanism, match="row 1 sums to 5/6"):
        from_rows([[1, 0], ["1/2", "1/3"]])


def test_negative_entries() -> None:
    with pytest.raises(InvalidMechanism, match="negative"):
        from_rows([["3/2", "-1/2"], [0, 1]])


def test_ragged_and_empty() -> None:
    with pytest.raises(InvalidMechanism, match="row 1 has 1 entries"):
        from_rows([[1, 0], [1]])
    with pytest.raises(InvalidMechanism):
        from_rows([])


def test_non_numeric_entry() -> None:
    with pytest.raises(InvalidMechanism, match="entry"):
        from_rows([["a half", "1/2"]])


def test_balls_reject_binary_floats_and_bad_sums() -> None:
    with pytest.raises(InvalidMechanism, match="binary float"):
        from_balls([[0.5, 0.5]])
    with pytest.raises(InvalidMechanism, match="excludes 1"):
        from_balls([[arb("0.5 +/- 1e-10"), arb("0.4 +/- 1e-10")]])


def test_label_count_mismatch() -> None:
    with pytest.raises(InvalidMechanism, match="input labels"):
        from_rows([[1]], inputs=["a", "b"])


def test_bad_parameters() -> None:
    with pytest.raises(InvalidArgument):
        geometric_line(3, "3/2")
    with pytest.raises(InvalidArgument):
        truncated_geometric(0, t="1/2")
    with pytest.raises(InvalidPrivacyLevel):
        truncated_geometric(3, eps=0)


def test_remap_shape_and_stochasticity() -> None:
    H = from_rows([["1/2", "1/2"], [0, 1]])
    with pytest.raises(InvalidMechanism, match="remap"):
        utility(H, "uniform", remap=[[1, 0], [1, 1]])
    with pytest.raises(InvalidMechanism, match="shape"):
        utility(H, "uniform", remap=[[1, 0, 0], [0, 1, 0]])


def test_prior_errors() -> None:
    H = from_rows([["1/2", "1/2"], [0, 1]])
    with pytest.raises(InvalidPrior, match="3 entries"):
        utility(H, ["1/3", "1/3", "1/3"])
    with pytest.raises(InvalidPrior, match="sums to"):
        min_entropy_leakage(H, ["1/3", "1/3"])
    with pytest.raises(InvalidPrior, match="negative"):
        utility(H, ["3/2", "-1/2"])


def test_symbolic_entries_are_rational_functions_of_s() -> None:
    s = sympy.Symbol("s", positive=True)
    for H in (
        truncated_geometric(4, eps=1),
        count_queries_geometric(2, eps="1/2"),
        randomized_response(3, eps=2),
        exponential_mechanism(cycle(5), eps=1),
    ):
        M = H.as_sympy(s)
        for i in range(M.rows):
            assert sympy.simplify(sum(M.row(i)) - 1) == 0
    # substituting a rational s gives the exact mechanism
    M = truncated_geometric(4, eps=1).as_sympy(s).subs(s, sympy.Rational(1, 3))
    exact = truncated_geometric(4, t="1/3").rows_fraction()
    assert all(M[i, j] == sympy.Rational(exact[i][j].numerator, exact[i][j].denominator)
               for i in range(4) for j in range(4))
