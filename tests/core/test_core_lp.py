"""Exact LP: feasibility with certificates, checked against independent exact solves."""

from fractions import Fraction

import flint
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp.algebra.lp import solve_lp

H = Fraction(1, 2)
PHI3 = [[1, H, H * H], [H, 1, H], [H * H, H, 1]]


def test_infeasible_equality_system_gets_farkas():
    # sympy 1.14's linprog returned x = (1, 0, 0) here, which does not satisfy Ax = b.
    r = solve_lp(PHI3, [1, 0, 0])
    assert not r.feasible
    y = r.farkas
    aty = [sum(Fraction(PHI3[i][j]) * y[i] for i in range(3)) for j in range(3)]
    assert all(v >= 0 for v in aty) and Fraction(1) * y[0] < 0


def test_singular_system_feasible_and_infeasible():
    A = [[1, 1, 2], [1, 1, 2], [0, 1, 1]]  # rank 2
    r = solve_lp(A, [3, 3, 1])
    assert r.feasible and [sum(a * x for a, x in zip(row, r.x)) for row in A] == [3, 3, 1]
    assert not solve_lp(A, [3, 2, 1]).feasible


def test_objective_minimised():
    # min x0 + 2 x1 s.t. x0 + x1 = 1
    r = solve_lp([[1, 1]], [1], [1, 2])
    assert r.value == 1 and r.x == (1, 0)


rationals = st.fractions(min_value=-3, max_value=3, max_denominator=7)


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 5).flatmap(
    lambda n: st.tuples(st.lists(st.lists(rationals, min_size=n, max_size=n), min_size=n,
                                 max_size=n), st.lists(rationals, min_size=n, max_size=n))))
def test_agrees_with_exact_solve_when_nonsingular(data):
    A, b = data
    M = flint.fmpq_mat([[flint.fmpq(v.numerator, v.denominator) for v in row] for row in A])
    if M.rank() < len(A):
        return
    x = M.solve(flint.fmpq_mat([[flint.fmpq(v.numerator, v.denominator)] for v in b]))
    xs = [Fraction(int(e.p), int(e.q)) for e in x.entries()]
    r = solve_lp(A, b)
    assert r.feasible == all(v >= 0 for v in xs)
    if r.feasible:
        assert list(r.x) == xs


def test_unbounded_objective_raises_a_specific_error():
    from exactdp.errors import UnboundedObjective

    with pytest.raises(UnboundedObjective, match="unbounded"):
        solve_lp([[1, -1]], [0], [-1, 0])  # x1 = x2 ≥ 0, minimise -x1
