"""Issue 18: the cycle (and circulant metrics) and the line — the structured / Prop. 9
answers equal the generic exact route (``method="exact"``) wherever both run."""

from __future__ import annotations

from fractions import Fraction

import pytest

from exactdp.algebra.toeplitz import toeplitz_step
from exactdp.spaces.metrics import cycle, from_matrix, line
from exactdp.threshold import epsilon_threshold
from exactdp.threshold.exact import exact_route
from exactdp.threshold.structured import structured_everywhere, structured_route

TOL = Fraction(1, 10**9)


def circulant(n, f):
    """d(i, j) = f(min(|i − j|, n − |i − j|)): a metric on the cycle's points."""
    return from_matrix([[f(min(abs(i - j), n - abs(i - j))) for j in range(n)]
                        for i in range(n)])


@pytest.mark.parametrize("n", [3, 4, 7, 12, 25])
def test_cycle_prop9_equals_generic_exact_route(n):
    m = cycle(n)
    a = epsilon_threshold(m)
    e = epsilon_threshold(m, method="exact")
    assert a.method == "prop9" and (a.eps_lower, a.eps_upper) == (0, 0)
    assert e.method == "exact" and e.holds_everywhere and (e.eps_lower, e.eps_upper) == (0, 0)
    assert a.verify() and e.verify()
    assert toeplitz_step(m) is None          # symmetric Toeplitz, but e_k = min(k, n − k) never repeats with c ≥ 0


@pytest.mark.parametrize("n,v", [(13, 2), (21, 3), (17, 4)])
def test_circulant_sum_query_is_prop9(n, v):
    """A sum query on a cycle, d = ⌈min(k, n − k)/v⌉: every circulant metric is ball-size
    symmetric, so ε* = 0 (Prop. 9), and the generic exact route agrees."""
    m = circulant(n, lambda k, v=v: -(-k // v))
    assert m.ball_size_symmetric
    a = epsilon_threshold(m)
    e = epsilon_threshold(m, method="exact")
    assert a.method == "prop9" and a.eps_upper == 0
    assert e.holds_everywhere and e.eps_upper == 0 and e.verify()


@pytest.mark.parametrize("n", [2, 9, 40, 101])
def test_line_structured_everywhere_equals_generic_exact_route(n):
    m = line(n)
    assert structured_route(m, TOL) is None   # never fails: the route declines
    s = structured_everywhere(m)
    e, _ = exact_route(m, None, TOL, None, [], 400)
    assert s is not None and s.holds_everywhere and (s.eps_lower, s.eps_upper) == (0, 0)
    assert e.holds_everywhere and (e.eps_lower, e.eps_upper) == (0, 0)
    assert s.verify()
