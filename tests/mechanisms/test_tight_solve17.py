"""``solve_ones_zx`` (the flint fraction-free solve of Φ(x)z = 1 that replaced sympy's
``DomainMatrix.solve_den`` in the tight-constraints remap writer) against sympy's solve over
QQ(x), an independent implementation: the same rational functions z_j = N_j/D on random
metrics (distances 1 … 6, n ≤ 6) and on built-in ones."""

from __future__ import annotations

import random

import flint
import pytest
import sympy
from sympy.polys.matrices import DomainMatrix

from exactdp.mechanisms.optimality_json import solve_ones_zx
from exactdp.spaces.metrics import cycle, from_matrix, grid, line

X = sympy.Symbol("x")


def _sympy_z(ks):
    n = len(ks)
    K = sympy.ZZ[X]
    phi = DomainMatrix([[K.from_sympy(X**k) for k in row] for row in ks], (n, n), K)
    num, den = phi.solve_den(DomainMatrix([[K.one]] * n, (n, 1), K))
    return [K.to_sympy(num[i, 0].element) for i in range(n)], K.to_sympy(den)


def _sym(p: flint.fmpz_poly) -> sympy.Expr:
    return sum((int(c) * X**e for e, c in enumerate(p.coeffs())), sympy.Integer(0))


def _random_metric(rng: random.Random, n: int) -> list[list[int]]:
    while True:  # distances 1 … 6 until the triangle inequality holds
        d = [[0] * n for _ in range(n)]
        for i in range(n):
            for j in range(i + 1, n):
                d[i][j] = d[j][i] = rng.randint(1, 6)
        if all(d[i][j] <= d[i][k] + d[k][j] for i in range(n) for j in range(n) for k in range(n)):
            return d


def _agree(ks):
    N, D = solve_ones_zx(ks)
    SN, SD = _sympy_z(ks)
    assert _sym(D) != 0
    for a, b in zip(N, SN):
        assert sympy.expand(_sym(a) * SD - b * _sym(D)) == 0


@pytest.mark.parametrize("seed", range(12))
def test_random_metrics_agree_with_sympy(seed):
    rng = random.Random(seed)
    n = rng.randint(1, 6)
    ks = _random_metric(rng, n)
    from_matrix(ks)  # a metric indeed
    _agree(ks)


@pytest.mark.parametrize("metric", [line(5), cycle(6), grid(2, 3, norm="manhattan")], ids=str)
def test_builtin_metrics_agree_with_sympy(metric):
    _agree([[int(k) for k in row] for row in metric.exponent_matrix().tolist()])


def test_one_point_and_the_denominator_is_det_phi():
    assert solve_ones_zx([[0]]) == ([flint.fmpz_poly([1])], flint.fmpz_poly([1]))
    N, D = solve_ones_zx([[0, 2, 1], [2, 0, 1], [1, 1, 0]])
    M = sympy.Matrix([[1, X**2, X], [X**2, 1, X], [X, X, 1]])
    assert sympy.expand(_sym(D) - M.det()) == 0  # Bareiss: the last pivot is det Φ itself
