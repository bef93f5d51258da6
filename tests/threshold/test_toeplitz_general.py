"""The general Toeplitz exact solve (exactdp.algebra.toeplitz_general) against the generic one."""

import math
import random
from dataclasses import replace
from fractions import Fraction

import numpy as np
import pytest
from flint import fmpz_poly

from exactdp.algebra.symbolic import solve_symbolic
from exactdp.algebra.toeplitz import toeplitz_step
from exactdp.algebra.toeplitz_general import solve_toeplitz_general, toeplitz_runs
from exactdp.errors import InvalidArgument
from exactdp.spaces.distances import Distance
from exactdp.spaces.metrics import from_matrix, line, sum_query
from exactdp.spaces.metrics.space import FiniteMetric


def toeplitz(f: list[int], name: str) -> FiniteMetric:
    n = len(f)
    ar = np.arange(n)
    vals = sorted(set(f))
    pos = {v: k for k, v in enumerate(vals)}
    idx = np.array([pos[v] for v in f])[np.abs(ar[:, None] - ar[None, :])]
    return FiniteMetric(name, range(n), [Distance.rational(v) for v in vals], idx, toeplitz=True)


def random_concave(n: int, seed: int) -> list[int]:
    """f(k) = ⌈g(k)⌉ with g concave increasing (random decreasing increments), g(0) = 0: g is
    subadditive, so is its ceiling, and f is monotone, so d(i, j) = f(|i − j|) is a metric."""
    rng = random.Random(seed)
    inc = sorted((Fraction(rng.randint(20, 150), 100) for _ in range(n)), reverse=True)
    g, out = Fraction(0), [0]
    for k in range(1, n):
        g += inc[k]
        out.append(math.ceil(g))
    return out


NON_REPEATING = {
    "ceil-sqrt": [0] + [math.isqrt(k - 1) + 1 for k in range(1, 41)],
    "line-then-2sqrt": [min(k, math.isqrt(4 * k - 1) + 1 if k else 0) for k in range(36)],
    "concave-1": random_concave(34, 1),
    "concave-2": random_concave(30, 7),
}


def same(m: FiniteMetric) -> None:
    a, b = solve_toeplitz_general(m), solve_symbolic(m)
    assert a.denominator == b.denominator
    assert tuple(a.numerators) == tuple(b.numerators)
    assert a.verify()


@pytest.mark.parametrize("name", sorted(NON_REPEATING))
def test_non_repeating_matches_generic(name: str) -> None:
    f = NON_REPEATING[name]
    m = toeplitz(f, name)
    from_matrix(m.distance_matrix_float().astype(int).tolist())  # really a metric
    assert toeplitz_step(m) is None  # the banded route does not apply
    same(m)


@pytest.mark.parametrize("m", [line(25), sum_query(8, 3), sum_query(6, 5)], ids=str)
def test_repeating_matches_generic(m: FiniteMetric) -> None:
    same(m)


def test_tampered_numerator_fails_verify() -> None:
    sol = solve_toeplitz_general(toeplitz(NON_REPEATING["ceil-sqrt"][:20], "t"))
    bad = list(sol.numerators)
    bad[3] = bad[3] + fmpz_poly([0, 1])
    assert not replace(sol, numerators=tuple(bad)).verify()


def test_not_toeplitz_is_refused() -> None:
    with pytest.raises(InvalidArgument, match="not a symmetric Toeplitz"):
        solve_toeplitz_general(from_matrix([[0, 1, 1], [1, 0, 2], [1, 2, 0]]))


def test_runs() -> None:
    r = toeplitz_runs((0, 2, 1, 1, 3))
    assert (r.lo, r.hi, r.exp) == ((1, 2, 4), (1, 3, 4), (2, 1, 3))
    with pytest.raises(InvalidArgument):
        toeplitz_runs((0, 0, 1))
