"""Structure fast paths against dense computations, and the Prop. 9 closed form."""

import itertools
from fractions import Fraction

import numpy as np
import pytest

from exactdp.algebra.structure import (
    grid_cg_solve_float,
    grid_matvec_float,
    kronecker_split,
    product_marginals,
    solve_float,
)
from exactdp.algebra.symmetric import ball_symmetric_mechanism, ball_symmetric_z_symbolic
from exactdp.spaces.levels import parse_level
from exactdp.spaces.metrics import cycle, grid, hamming, line, sum_query
from exactdp.threshold.krawczyk import mean_value_piece
from exactdp.threshold.providers import DenseProvider
from exactdp.threshold.taylor import taylor_piece

F = Fraction


def test_product_marginals_roundtrip():
    p, q = [F(1, 5), F(4, 5)], [F(1, 2), F(1, 3), F(1, 6)]
    joint = [a * b for a, b in itertools.product(p, q)]
    assert product_marginals([2, 3], joint) == (tuple(p), tuple(q))
    joint[0] += F(1, 100)
    joint[1] -= F(1, 100)
    assert product_marginals([2, 3], joint) is None


def test_kronecker_split_matches_dense_phi():
    m = hamming(3, 2)
    split = kronecker_split(m, None)
    eps = 0.7
    dense = np.exp(-eps * m.distance_matrix_float())
    f = [np.exp(-eps * fm.distance_matrix_float()) for fm, _ in split.factors]
    assert np.allclose(np.kron(f[0], f[1]), dense)


def test_toeplitz_solver_matches_dense():
    m = sum_query(20, 5)
    b = np.ones(m.n)
    dense = np.linalg.solve(np.exp(-0.9 * m.distance_matrix_float()), b)
    assert np.allclose(solve_float(m, 0.9, b), dense)


def test_grid_fft_matvec_and_cg():
    g = grid(6, 5, "euclidean")
    phi = np.exp(-0.8 * g.distance_matrix_float())
    v = np.arange(g.n, dtype=float)
    assert np.allclose(grid_matvec_float(g, 0.8)(v), phi @ v)
    x, res = grid_cg_solve_float(g, 0.8, np.ones(g.n))
    assert res < 1e-10 and np.allclose(x, np.linalg.solve(phi, np.ones(g.n)))


@pytest.mark.parametrize("m", [cycle(6), hamming(2, 3)])
def test_prop9_mechanism(m):
    mech = ball_symmetric_mechanism(m, parse_level(t="1/3"))
    assert mech.verify()
    # independently: z from an exact dense solve equals the closed form
    import flint

    P = flint.fmpq_mat([[flint.fmpq(1, 3) ** int(k) for k in row]
                        for row in m.exponent_matrix().tolist()])
    z = P.solve(flint.fmpq_mat([[1]] * m.n))
    assert all(F(int(v.p), int(v.q)) == mech.z for v in z.entries())
    expr = ball_symmetric_z_symbolic(m)
    import sympy
    assert sympy.nsimplify(expr.subs(sympy.Symbol("eps", positive=True), sympy.log(3))) == (
        sympy.Rational(mech.z.numerator, mech.z.denominator))


def test_prop9_refuses_non_symmetric():
    from exactdp.errors import InvalidArgument
    with pytest.raises(InvalidArgument):
        ball_symmetric_mechanism(line(3), parse_level(t="1/2"))


def test_range_checks_never_certify_a_failing_range():
    # sum_query(2, 2): ε* = ln φ ≈ 0.4812; below it the middle component is negative
    m = sum_query(2, 2)
    b = tuple(F(1) for _ in range(m.n))
    prov = DenseProvider(m)
    ones = np.ones(m.n)
    for a, bb in [(F(40, 100), F(47, 100)), (F(47, 100), F(49, 100)), (F(48, 100), F(482, 1000))]:
        assert not mean_value_piece(m, b, a, bb, None)[0]
        lam = prov.lambda_lower(a, bb)
        assert lam > 0 and not taylor_piece(prov, list(m.values), ones, 0.0, a, bb, 3, lam)[0].ok
    assert mean_value_piece(m, b, F(50, 100), F(55, 100), None)[0]
    lam = prov.lambda_lower(F(50, 100), F(55, 100))
    assert taylor_piece(prov, list(m.values), ones, 0.0, F(50, 100), F(55, 100), 3, lam)[0].ok
