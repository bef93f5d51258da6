"""Exact z(s): agrees with sympy's LU solve and with exact rational solves; verify() bites."""

import random
from fractions import Fraction

import flint
import pytest
import sympy
from flint import fmpz_poly

from exactdp.algebra.phi import phi_symbolic
from exactdp.algebra.symbolic import RationalSolution, sign_pattern, solve_symbolic
from exactdp.errors import InstanceTooLarge, InvalidArgument
from exactdp.spaces.metrics import cycle, discrete, from_graph, grid, hamming, line, sum_query

F = Fraction


def _sympy_z(metric, rhs=None):
    s = sympy.Symbol("s", positive=True)
    P = phi_symbolic(metric, s)
    b = sympy.Matrix([1] * metric.n if rhs is None else [sympy.Rational(str(v)) for v in rhs])
    return s, P.LUsolve(b)


def _as_sympy(p: fmpz_poly, s):
    return sum(int(c) * s**k for k, c in enumerate(p.coeffs()))


def _same(N, D, zi):
    """N/D == zi as rational functions (cross-multiplied, expanded)."""
    num, den = sympy.fraction(sympy.cancel(sympy.together(zi)))
    return sympy.expand(N * den - num * D) == 0


@pytest.mark.parametrize("metric", [line(4), cycle(5), sum_query(2, 2),
                                    hamming(2, 2), discrete(3, "1/2")])
def test_matches_sympy(metric):
    sol = solve_symbolic(metric)
    s, z = _sympy_z(metric)
    D = _as_sympy(sol.denominator, s)
    for i in range(metric.n):
        assert _same(_as_sympy(sol.numerators[i], s), D, z[i])
    assert sol.verify()


def test_prior_rhs_matches_sympy():
    m = sum_query(2, 2)
    prior = [F(1, 10), F(2, 10), F(4, 10), F(2, 10), F(1, 10)]
    sol = solve_symbolic(m, prior)
    s, z = _sympy_z(m, prior)
    D = _as_sympy(sol.denominator, s)
    for i in range(m.n):
        assert _same(_as_sympy(sol.numerators[i], s), D, z[i])


def test_value_at_matches_exact_rational_solve():
    rng = random.Random(3)
    for _ in range(5):
        edges = [(i, rng.randrange(i)) for i in range(1, 7)] + [(0, 6)]
        m = from_graph(edges)
        sol = solve_symbolic(m)
        for sv in (F(1, 3), F(2, 5), F(7, 9)):
            P = flint.fmpq_mat([[flint.fmpq(sv.numerator, sv.denominator) ** int(k) for k in row]
                                for row in m.exponent_matrix().tolist()])
            x = P.solve(flint.fmpq_mat([[1]] * m.n))
            expect = tuple(F(int(v.p), int(v.q)) for v in x.entries())
            assert sol.value_at(sv) == expect


def test_verify_rejects_tampered_solution():
    sol = solve_symbolic(sum_query(2, 2))
    bad_nums = list(sol.numerators)
    bad_nums[0] = bad_nums[0] + fmpz_poly([0, 1])
    bad = RationalSolution(sol.metric, tuple(bad_nums), sol.denominator, sol.q, sol.rhs)
    assert not bad.verify()


def test_errors():
    with pytest.raises(InvalidArgument):
        solve_symbolic(grid(2, 2, "euclidean"))
    with pytest.raises(InstanceTooLarge):
        solve_symbolic(line(50), max_n=10)


def test_sign_pattern_line_always_positive():
    pat = sign_pattern(solve_symbolic(line(6)))
    assert pat.gaps == (True,) and pat.breakpoints == ()
