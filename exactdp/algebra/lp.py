"""Exact rational linear programming (dense two-phase simplex, Bland's rule).

Used where Φ is singular at a rational level (an LP feasibility question) and for
LP bounds. Written here rather than taken from a library because the answer must be
exact *and* come with a certificate: sympy 1.14's ``linprog`` returned infeasible
points for infeasible equality systems in our tests (``tests/core`` pins the case),
and float LP solvers give no proof. The sizes that reach this module are small
(singular Φ happens only at isolated algebraic levels), so a dense tableau suffices.

Every answer is checked exactly before it is returned: a feasible ``x`` satisfies
Ax = b, x ≥ 0; an infeasibility certificate ``y`` satisfies Aᵀy ≥ 0 and b·y < 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from exactdp.errors import CertificateInvalid, UnboundedObjective
from exactdp.kinds import Verdict

__all__ = ["LPResult", "solve_lp"]


@dataclass(frozen=True)
class LPResult:
    """Outcome of min c·x s.t. Ax = b, x ≥ 0 in exact arithmetic.

    ``feasible``: x is an optimal vertex and ``value`` = c·x. Otherwise ``farkas`` is a y
    with Aᵀy ≥ 0 and b·y < 0 (so no x ≥ 0 solves Ax = b). Unbounded objectives raise
    :class:`~exactdp.errors.UnboundedObjective` (an ``ArithmeticError``).
    """

    feasible: bool
    x: tuple[Fraction, ...] | None
    value: Fraction | None
    farkas: tuple[Fraction, ...] | None

    @property
    def verdict(self) -> Verdict:
        """``HOLDS`` when Ax = b has a solution x ≥ 0, else ``FAILS`` (exact either way)."""
        return Verdict.from_bool(self.feasible)


def _pivot(T: list[list[Fraction]], r: int, c: int) -> None:
    pr = T[r]
    inv = 1 / pr[c]
    T[r] = pr = [v * inv for v in pr]
    for i, row in enumerate(T):
        if i != r and row[c] != 0:
            f = row[c]
            T[i] = [a - f * b for a, b in zip(row, pr)]


def _simplex(T: list[list[Fraction]], basis: list[int], cost_row: int, allowed: int) -> bool:
    """Minimise the objective in T[cost_row] (reduced costs); columns < allowed may enter.

    Returns False when unbounded. Bland's rule: smallest entering and leaving index.
    """
    m = len(basis)
    while True:
        obj = T[cost_row]
        enter = next((j for j in range(allowed) if obj[j] < 0), None)
        if enter is None:
            return True
        best: tuple[Fraction, int, int] | None = None
        for i in range(m):
            a = T[i][enter]
            if a > 0:
                ratio = T[i][-1] / a
                key = (ratio, basis[i], i)
                if best is None or key < best:
                    best = key
        if best is None:
            return False
        _pivot(T, best[2], enter)
        basis[best[2]] = enter


def solve_lp(A: Sequence[Sequence[Fraction]], b: Sequence[Fraction],
             c: Sequence[Fraction] | None = None) -> LPResult:
    """Exact min c·x s.t. Ax = b, x ≥ 0 (c = 0: pure feasibility).

    >>> h = Fraction(1, 2)
    >>> A = [[1, h, h * h], [h, 1, h], [h * h, h, 1]]
    >>> solve_lp(A, [1, 1, 1]).x
    (Fraction(2, 3), Fraction(1, 3), Fraction(2, 3))
    >>> r = solve_lp(A, [1, 0, 0]); r.feasible, r.farkas is not None
    (False, True)
    """
    m, n = len(A), len(A[0]) if A else 0
    rows = [[Fraction(v) for v in row] for row in A]
    rhs = [Fraction(v) for v in b]
    sign = [(-1 if v < 0 else 1) for v in rhs]
    rows = [[s * v for v in row] for s, row in zip(sign, rows)]
    rhs = [s * v for s, v in zip(sign, rhs)]
    # tableau: x (n) | artificials (m) | rhs ; then phase-II cost row, phase-I cost row
    T = [row + [Fraction(int(i == k)) for k in range(m)] + [r]
         for i, (row, r) in enumerate(zip(rows, rhs))]
    cost = [Fraction(v) for v in c] if c is not None else [Fraction(0)] * n
    T.append(cost + [Fraction(0)] * m + [Fraction(0)])
    T.append([-sum((rows[i][j] for i in range(m)), Fraction(0)) for j in range(n)]
             + [Fraction(0)] * m + [-sum(rhs, Fraction(0))])
    basis = list(range(n, n + m))
    _simplex(T, basis, m + 1, n + m)
    if T[m + 1][-1] != 0:
        # Phase-I optimum w* > 0: its dual y (Aᵀy ≤ 0, b·y = w* > 0 for the sign-flipped
        # system) is read from the artificial columns' reduced costs: d_a = 1 − y.
        y_flipped = [1 - T[m + 1][n + i] for i in range(m)]
        y = tuple(-s * v for s, v in zip(sign, y_flipped))
        _check_farkas(A, b, y)
        return LPResult(False, None, None, y)
    # drive artificial variables out of the basis where possible, then phase II
    for i, bv in enumerate(basis):
        if bv >= n:
            col = next((j for j in range(n) if T[i][j] != 0), None)
            if col is not None:
                _pivot(T, i, col)
                basis[i] = col
    # the pivots kept T[m] in reduced form; artificial columns may no longer enter
    if not _simplex(T, basis, m, n):
        raise UnboundedObjective(
            "the LP objective c·x is unbounded below on {x ≥ 0 : Ax = b}; bound the variables "
            "or change c."
        )
    x = [Fraction(0)] * n
    for i, bv in enumerate(basis):
        if bv < n:
            x[bv] = T[i][-1]
    xt = tuple(x)
    if any(sum((Fraction(a) * v for a, v in zip(row, xt)), Fraction(0)) != Fraction(bb)
           for row, bb in zip(A, b)) or any(v < 0 for v in xt):
        raise CertificateInvalid("exact simplex produced an infeasible point (bug)")
    value = sum((Fraction(ci) * v for ci, v in zip(cost, xt)), Fraction(0))
    return LPResult(True, xt, value, None)


def _check_farkas(A: Sequence[Sequence[Fraction]], b: Sequence[Fraction],
                  y: tuple[Fraction, ...]) -> None:
    n = len(A[0])
    aty = [sum((Fraction(A[i][j]) * y[i] for i in range(len(A))), Fraction(0)) for j in range(n)]
    by = sum((Fraction(bi) * yi for bi, yi in zip(b, y)), Fraction(0))
    if any(v < 0 for v in aty) or not by < 0:
        raise CertificateInvalid("exact simplex produced an invalid Farkas vector (bug)")
