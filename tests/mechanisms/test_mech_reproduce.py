"""Fig. 6 reproduction: the shortcuts agree with the general utility computation."""

from __future__ import annotations

from fractions import Fraction as F

import sympy

from exactdp.mechanisms import (
    count_queries_geometric,
    sum_query_geometric,
    tight_constraints_mechanism,
    utility,
)
from exactdp.reproduce.fig6 import (
    eps_grid,
    fig6_count_queries,
    fig6_sum_query,
    geometric_uniform_utility,
    to_markdown,
)
from exactdp.spaces.metrics import count_queries, sum_query


def test_geometric_closed_form_matches_general_utility() -> None:
    # rational parameter: the closed form must equal the exact general computation
    for u, v, t in ((3, 2, F(1, 4)), (4, 1, F(1, 3))):
        s = sympy.sqrt(sympy.Rational(t.numerator, t.denominator)) if v == 2 else sympy.Rational(
            t.numerator, t.denominator)
        closed = geometric_uniform_utility(u * v + 1, s)
        general = utility(sum_query_geometric(u, v, t=t)).value
        assert sympy.Rational(general.numerator, general.denominator) == closed
    closed2 = geometric_uniform_utility(4, sympy.Rational(1, 2)) ** 2
    general2 = utility(count_queries_geometric(3, t="1/4")).value
    assert sympy.Rational(general2.numerator, general2.denominator) == closed2


def test_quick_sum_query_rows_agree_with_general_computation() -> None:
    rows = fig6_sum_query(quick=True)
    for r in rows:
        assert r.exists and r.certificate.verify()
        H = tight_constraints_mechanism(sum_query(6, 2), eps=r.eps)
        U = utility(H)
        # both certified: the enclosures must overlap
        assert U.enclosure.lo <= r.utility_tc.hi and r.utility_tc.lo <= U.enclosure.hi
        G = utility(sum_query_geometric(6, 2, eps=r.eps))
        e = r.utility_geometric_enclosure
        assert G.enclosure.lo <= e.hi and e.lo <= G.enclosure.hi
        # tight constraints is optimal for the (regular) uniform prior: beats the comparator
        assert r.utility_tc.lo > e.hi
    assert "| 0.80 |" in to_markdown(rows)


def test_quick_count_queries_rows() -> None:
    rows = fig6_count_queries(quick=True)
    for r in rows:
        if not r.exists:
            continue
        H = tight_constraints_mechanism(count_queries(4), eps=r.eps)
        U = utility(H)
        assert U.enclosure.lo <= r.utility_tc.hi and r.utility_tc.lo <= U.enclosure.hi
        assert r.utility_tc.lo > r.utility_geometric_enclosure.hi


def test_eps_grid_is_exact() -> None:
    g = eps_grid("4/5", "13/10")
    assert len(g) == 51 and g[0] == F(4, 5) and g[-1] == F(13, 10)
    assert all(b - a == F(1, 100) for a, b in zip(g, g[1:]))
