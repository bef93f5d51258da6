"""Session 26: adversarial candidates for the kernel's Krawczyk enclosure
(:func:`exactdp.kernel.linear.residual_enclosure_arb`). Its docstring says that R may be any
matrix and the midpoints any balls: the enclosure still contains A⁻¹b. The kernel's own
callers pass a good R and midpoints near the solution, where the |E|·δ term of the radius
is small. Until session 26 the mutant subtracting it ("line 403: Add -> Sub", |z| − |E|·δ) was
listed as an open gap; applied alone it is killed by an older test
(test_kernel_mut_linear.py::test_krawczyk_bound_is_tight_enough_to_matter), and the survivor
of that description is the equivalent site m − (…)·[0 ± 1]. These tests check the documented
property itself: with R = s·A⁻¹ (β = 1 − s) and midpoints moved off the solution, the |E|·δ
term is a share 1 − s of the radius (a half at s = 1/2), and without it the enclosure misses
the solution.

Ground truth: the exact solution of each system, in rationals (by hand for the 2 × 2 one,
python-flint's fmpq_mat.solve for all).
"""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np
from flint import arb, arb_mat, fmpq, fmpq_mat

from exactdp.kernel.linear import residual_enclosure_arb


def _solve(A: list[list[F]], b: list[F]) -> list[F]:
    """A⁻¹b exactly (python-flint's rational solve, fmpq_mat.solve)."""
    n = len(A)
    x = fmpq_mat(n, n, [fmpq(v.numerator, v.denominator) for row in A for v in row]).solve(
        fmpq_mat(n, 1, [fmpq(v.numerator, v.denominator) for v in b]))
    return [F(int(x[i, 0].p), int(x[i, 0].q)) for i in range(n)]


def _ball(x: F) -> arb:
    return arb(fmpq(x.numerator, x.denominator))


def _contains(balls: list[arb], exact: list[F]) -> bool:
    return all(v.contains(_ball(x)) for v, x in zip(balls, exact))


def _enclose(A: list[list[F]], b: list[F], R: np.ndarray, mid: list[F], prec: int = 128):
    n = len(A)
    Ab = arb_mat(n, n, [_ball(v) for row in A for v in row])
    bb = arb_mat(n, 1, [_ball(v) for v in b])
    Rb = arb_mat(n, n, [arb(float(v)) for v in R.ravel()])
    return residual_enclosure_arb(Ab, bb, Rb, [_ball(v) for v in mid], prec)


# kills "line 403: Add -> Sub" at the site |z| + |E|·δ: with R = A⁻¹/2 and the midpoint moved
# by d in one component, z = R(b − A·m) = −(d/2)·e_0, ‖z‖∞/(1 − β) = d, and the radius of
# component 0 is |z_0| + (1/2)·d = d; the mutant's |z_0| − (1/2)·d = 0 leaves the ball at m_0,
# a distance d from the solution
def test_a_half_inverse_and_a_moved_midpoint_still_enclose_the_solution():
    A = [[F(2), F(1)], [F(1), F(3)]]
    b = [F(1), F(7, 4)]
    x = _solve(A, b)
    assert x == [F(1, 4), F(1, 2)]  # by hand: 2/4 + 1/2 = 1, 1/4 + 3/2 = 7/4
    inv = np.array([[3, -1], [-1, 2]]) / 5.0  # A⁻¹ = [[3, −1], [−1, 2]]/5
    for s in (0.5, 0.25, 0.75):
        for d in (F(1, 8), F(-1, 3), F(5)):
            out = _enclose(A, b, s * inv, [x[0] + d, x[1]])
            assert out is not None and _contains(out, x)


def test_random_candidates_never_lose_the_solution():
    # the property itself: 200 random R (scaled, perturbed inverses) and midpoints on random
    # well-conditioned 4 × 4 systems; every enclosure returned contains the exact solution
    rng = np.random.default_rng(2026)
    returned = 0
    for _ in range(200):
        A = [[F(int(v)) for v in row] for row in rng.integers(-3, 4, (4, 4)) + 8 * np.eye(4, dtype=int)]
        b = [F(int(v)) for v in rng.integers(-5, 6, 4)]
        x = _solve(A, b)
        inv = np.linalg.inv(np.array(A, dtype=float))
        R = rng.uniform(0.2, 1.0) * inv * (1 + 0.05 * rng.standard_normal((4, 4)))
        mid = [v + F(int(rng.integers(-50, 51)), 64) for v in x]
        out = _enclose(A, b, R, mid)
        if out is not None:
            returned += 1
            assert _contains(out, x)
    assert returned > 150  # β < 1 for most of them: the check is exercised, not skipped
