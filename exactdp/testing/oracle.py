"""An independent ground-truth oracle for small instances (tests and users' own checks).

Nothing here calls exactdp's solvers: the questions are read from the objects' exact data
(distances, prior, level) and answered by textbook exact arithmetic on Python
:class:`~fractions.Fraction` — Gaussian elimination, Cramer's rule with polynomial
interpolation — and by sympy's exact real-root isolation; where a transcendental number
must be located among algebraic ones, by mpmath at :data:`DPS` digits. It is slow
(cubic in n with big rationals, n ≤ 8 or so) and meant for small instances only.

The question is always the engine's: does Φx = b have a solution x ≥ 0, where
Φ_ij = e^{-ε d_ij}? With rational distances of common denominator q, s = e^{-ε/q} and
Φ_ij = s^{k_ij} with integers k_ij = q·d_ij.

Examples
--------
>>> from fractions import Fraction as F
>>> from exactdp.spaces.metrics import line, from_matrix
>>> solve_exact([[F(1), F(1, 2)], [F(1, 2), F(1)]], [F(1), F(1)])
(Fraction(2, 3), Fraction(2, 3))
>>> holds_at_t(line(3), None, F(1, 2))
True
>>> star = from_matrix([[0, 1, 1, 1], [1, 0, 2, 2], [1, 2, 0, 2], [1, 2, 2, 0]])
>>> truth = threshold_truth(star, None)
>>> round(float(truth.eps_star), 12)     # ln 2
0.69314718056
>>> truth.holds_at_eps(F(1, 2)), truth.holds_at_eps(F(1))
(False, True)
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import lcm
from typing import Any

import mpmath
import sympy

from exactdp.errors import InvalidArgument, PrecisionLimitReached

__all__ = [
    "DPS",
    "exponent_matrix",
    "rational_distance_matrix",
    "solve_exact",
    "det_exact",
    "mat_vec",
    "phi_at_s",
    "holds_at_t",
    "solution_at_t",
    "ThresholdTruth",
    "threshold_truth",
    "is_private_exact",
    "exact_level_upper",
    "LinearTruth",
    "linear_truth",
    "level_t_eps",
    "compare",
    "contains",
]

#: mpmath digits used to place a transcendental s among algebraic roots.
DPS = 50


def rational_distance_matrix(metric: Any) -> list[list[Fraction]]:
    """The exact distances d_ij as Fractions (every distance must be rational)."""
    out = []
    for row in metric.index.tolist():
        r = []
        for k in row:
            d = metric.values[k]
            if d.radicand != 1:
                raise InvalidArgument(f"Got distance {d}, which is irrational; the oracle needs rational "
                                      "distances (use a metric built from integers or Fractions).")
            r.append(Fraction(d.coef))
        out.append(r)
    return out


def exponent_matrix(metric: Any) -> tuple[int, list[list[int]]]:
    """(q, k) with q the least common denominator of the distances and k_ij = q·d_ij."""
    D = rational_distance_matrix(metric)
    q = 1
    for row in D:
        for v in row:
            q = lcm(q, v.denominator)
    return q, [[int(v * q) for v in row] for row in D]


def solve_exact(A: Sequence[Sequence[Fraction]], b: Sequence[Fraction]) -> tuple[Fraction, ...] | None:
    """The unique solution of Ax = b by exact Gaussian elimination, or None if A is singular."""
    n = len(A)
    M = [[Fraction(v) for v in A[i]] + [Fraction(b[i])] for i in range(n)]
    for c in range(n):
        p = next((r for r in range(c, n) if M[r][c] != 0), None)
        if p is None:
            return None
        M[c], M[p] = M[p], M[c]
        piv = M[c][c]
        for r in range(n):
            if r != c and M[r][c] != 0:
                f = M[r][c] / piv
                M[r] = [x - f * y for x, y in zip(M[r], M[c])]
    return tuple(M[i][n] / M[i][i] for i in range(n))


def det_exact(A: Sequence[Sequence[Fraction]]) -> Fraction:
    """det A by exact Gaussian elimination."""
    n = len(A)
    M = [[Fraction(v) for v in row] for row in A]
    det = Fraction(1)
    for c in range(n):
        p = next((r for r in range(c, n) if M[r][c] != 0), None)
        if p is None:
            return Fraction(0)
        if p != c:
            M[c], M[p] = M[p], M[c]
            det = -det
        det *= M[c][c]
        for r in range(c + 1, n):
            if M[r][c] != 0:
                f = M[r][c] / M[c][c]
                M[r] = [x - f * y for x, y in zip(M[r], M[c])]
    return det


def mat_vec(A: Sequence[Sequence[Fraction]], x: Sequence[Fraction]) -> list[Fraction]:
    """A·x exactly."""
    return [sum((Fraction(a) * Fraction(v) for a, v in zip(row, x)), Fraction(0)) for row in A]


def phi_at_s(k: list[list[int]], s: Fraction) -> list[list[Fraction]]:
    """Φ(s)_ij = s^{k_ij}."""
    return [[Fraction(s) ** e for e in row] for row in k]


def _rhs(metric: Any, rhs: Sequence[Any] | None) -> tuple[Fraction, ...]:
    return tuple(Fraction(1) for _ in range(metric.n)) if rhs is None else tuple(Fraction(v) for v in rhs)


def _s_of_t(t: Fraction, q: int) -> Fraction | None:
    """s = t^{1/q} when it is rational."""
    if q == 1:
        return Fraction(t)
    num, den = sympy.integer_nthroot(t.numerator, q), sympy.integer_nthroot(t.denominator, q)
    if num[1] and den[1]:
        return Fraction(int(num[0]), int(den[0]))
    return None


def solution_at_t(metric: Any, rhs: Sequence[Any] | None, t: Fraction) -> tuple[Fraction, ...] | None:
    """The unique exact solution of Φx = b at rational t = e^{-ε} (None if Φ is singular or
    s = t^{1/q} is irrational)."""
    q, k = exponent_matrix(metric)
    s = _s_of_t(Fraction(t), q)
    if s is None:
        return None
    return solve_exact(phi_at_s(k, s), _rhs(metric, rhs))


def holds_at_t(metric: Any, rhs: Sequence[Any] | None, t: Fraction) -> bool | None:
    """Whether Φx = b has x ≥ 0 at rational t, when Φ is nonsingular there (else None)."""
    x = solution_at_t(metric, rhs, t)
    return None if x is None else all(v >= 0 for v in x)


def _interpolate(xs: list[int], ys: list[Fraction]) -> list[Fraction]:
    """Coefficients (ascending) of the polynomial through (xs, ys), exactly (Newton form)."""
    n = len(xs)
    coef = list(ys)
    for j in range(1, n):
        for i in range(n - 1, j - 1, -1):
            coef[i] = (coef[i] - coef[i - 1]) / (xs[i] - xs[i - j])
    poly = [Fraction(0)] * n
    for i in range(n - 1, -1, -1):  # Horner on the Newton basis
        new = [Fraction(0)] * n
        for d in range(n - 1):
            new[d + 1] += poly[d]
            new[d] -= xs[i] * poly[d]
        new[0] += coef[i]
        poly = new
    return poly


@dataclass(frozen=True)
class ThresholdTruth:
    """Ground truth of one question over every ε > 0, from exact z(s) = N(s)/D(s).

    Attributes
    ----------
    q : int
        s = e^{-ε/q}.
    roots : tuple of mpmath.mpf
        Every root in (0, 1) of D and of each N_i, sorted, to :data:`DPS` digits.
    signs_ok : tuple of bool
        Whether z(s) ≥ 0 on each open interval between consecutive roots (len(roots) + 1).
    d_roots : frozenset of int
        Positions in ``roots`` that are roots of D (Φ singular there).
    """

    q: int
    roots: tuple[Any, ...]
    signs_ok: tuple[bool, ...]
    d_roots: frozenset[int]

    def _interval(self, s: Any) -> int | None:
        for i, r in enumerate(self.roots):
            if abs(s - r) < mpmath.mpf(10) ** (-(DPS - 10)):
                return None  # too close to call
            if s < r:
                return i
        return len(self.roots)

    def holds_at_eps(self, eps: Any) -> bool | None:
        """Whether the property holds at ε > 0 (None when s lies within 10^-40 of a root)."""
        with mpmath.workdps(DPS):
            e = mpmath.mpf(Fraction(eps).numerator) / Fraction(eps).denominator
            if e <= 0:
                return None
            i = self._interval(mpmath.exp(-e / self.q))
        return None if i is None else self.signs_ok[i]

    @property
    def s_star(self) -> Any:
        """sup{s0 : the property holds for every s in (0, s0)}."""
        for i, ok in enumerate(self.signs_ok):
            if not ok:
                return mpmath.mpf(0) if i == 0 else self.roots[i - 1]
        return mpmath.mpf(1)

    @property
    def eps_star(self) -> Any:
        """ε* = −q ln s* (mpmath, :data:`DPS` digits; +inf when it fails near s = 0)."""
        with mpmath.workdps(DPS):
            s = self.s_star
            return mpmath.inf if s == 0 else -self.q * mpmath.log(s)

    @property
    def singular_in_run(self) -> bool:
        """True when D vanishes inside the holding run (0, s*): the oracle cannot decide there."""
        star = self.s_star
        return any(self.roots[i] <= star for i in self.d_roots)

    def claim_true(self, eps_lower: Any, eps_upper: Any) -> bool | None:
        """Truth of "fails at eps_lower (or eps_lower = 0 and nothing fails) and holds for
        every ε ≥ eps_upper" (None when too close to call)."""
        lo, hi = Fraction(eps_lower), Fraction(eps_upper)
        if self.singular_in_run:
            return None
        with mpmath.workdps(DPS):
            star = self.eps_star
            h = mpmath.mpf(hi.numerator) / hi.denominator
            if star == 0:
                holds_above = h >= 0
            elif abs(h - star) < mpmath.mpf(10) ** (-(DPS - 10)):
                return None
            else:
                holds_above = h >= star
        if lo == 0:
            fails_low = star == 0  # "nothing fails": ε* = 0
        else:
            at = self.holds_at_eps(lo)
            if at is None:
                return None
            fails_low = not at
        return holds_above and fails_low and lo <= hi


def _key(metric: Any, rhs: Sequence[Any] | None) -> tuple[Any, ...]:
    q, k = exponent_matrix(metric)
    return (q, tuple(map(tuple, k)), _rhs(metric, rhs))


@functools.lru_cache(maxsize=256)
def _truth(key: tuple[Any, ...]) -> ThresholdTruth:
    q, k, b = key
    k = [list(r) for r in k]
    n = len(k)
    deg = n * max(max(r) for r in k)
    xs = list(range(2, deg + 3))
    dets: list[Fraction] = []
    nums: list[list[Fraction]] = [[] for _ in range(n)]
    for x in xs:
        A = phi_at_s(k, Fraction(x))
        dets.append(det_exact(A))
        for i in range(n):
            Ai = [row[:i] + [b[r]] + row[i + 1:] for r, row in enumerate(A)]
            nums[i].append(det_exact(Ai))
    s = sympy.Symbol("s")
    D = sympy.Poly(list(reversed(_interpolate(xs, dets))), s, domain="QQ")
    Ns = [sympy.Poly(list(reversed(_interpolate(xs, v))), s, domain="QQ") for v in nums]
    if D.is_zero:
        raise InvalidArgument("det Φ(s) vanishes identically on this metric; the oracle needs a "
                              "generically nonsingular Φ (repeated points?).")
    roots: list[tuple[Any, bool]] = []
    for p, is_d in [(D, True)] + [(N, False) for N in Ns]:
        if p.is_zero or p.degree() < 1:
            continue
        for (lo, hi), _mult in p.intervals(eps=Fraction(1, 10**60)):
            with mpmath.workdps(DPS):
                r = (mpmath.mpf(Fraction(lo).numerator) / Fraction(lo).denominator
                     + mpmath.mpf(Fraction(hi).numerator) / Fraction(hi).denominator) / 2
            if 0 < r < 1:
                roots.append((r, is_d))
    roots.sort(key=lambda rv: rv[0])
    # merging, midpoints and gaps at DPS digits whatever mpmath's global precision (tests
    # change it; at its default 15 digits the midpoint of two roots closer than ~1e-15 can
    # land outside them, and the oracle read the sign of the wrong gap)
    with mpmath.workdps(DPS):
        merged: list[Any] = []
        d_pos: set[int] = set()
        for r, is_d in roots:
            if merged and abs(r - merged[-1]) < mpmath.mpf(10) ** (-(DPS - 5)):
                if is_d:
                    d_pos.add(len(merged) - 1)
                continue
            merged.append(r)
            if is_d:
                d_pos.add(len(merged) - 1)
        edges = [mpmath.mpf(0)] + merged + [mpmath.mpf(1)]
        signs = []
        for a, c in zip(edges, edges[1:]):
            mid = Fraction(mpmath.nstr((a + c) / 2, DPS - 5)) if c - a > mpmath.mpf(10) ** -30 else None
            if mid is None:
                raise PrecisionLimitReached(f"two roots of z(s) are closer than 1e-30; raise DPS (now {DPS}).")
            z = solve_exact(phi_at_s(k, mid), list(b))
            if z is None:
                raise PrecisionLimitReached(f"Φ is singular at the sample point s = {mid}; raise DPS (now {DPS}).")
            signs.append(all(v >= 0 for v in z))
    return ThresholdTruth(q, tuple(merged), tuple(signs), frozenset(d_pos))


def threshold_truth(metric: Any, rhs: Sequence[Any] | None) -> ThresholdTruth:
    """Ground truth of "Φ(ε)x = b has x ≥ 0" for every ε > 0 (rational distances, small n).

    z_i(s) = N_i(s)/D(s) by Cramer's rule, each determinant a polynomial found by exact
    interpolation at integer points; their roots in (0, 1) are isolated exactly by sympy
    and the sign of z is read exactly at a rational point of every gap.
    """
    return _truth(_key(metric, rhs))


def is_private_exact(rows: Sequence[Sequence[Fraction]], metric: Any, t: Fraction) -> bool:
    """Whether a mechanism (rows, exact) is ε·d-private at rational t = e^{-ε}, integer d:
    p(y|x) ≥ t^{d(x,x')} p(y|x') for all x, x', y (exact)."""
    D = rational_distance_matrix(metric)
    n = len(rows)
    for x in range(n):
        for x2 in range(n):
            if x == x2:
                continue
            d = D[x][x2]
            if d.denominator != 1:
                raise InvalidArgument(f"Got distance {d}; is_private_exact needs integer distances.")
            f = Fraction(t) ** int(d)
            if any(Fraction(a) < f * Fraction(b) for a, b in zip(rows[x], rows[x2])):
                return False
    return True


def exact_level_upper(rows: Sequence[Sequence[Fraction]], metric: Any) -> Any:
    """The mechanism's privacy level max ln(p(y|x)/p(y|x'))/d(x,x') to :data:`DPS` digits
    (mpmath; +inf when some p(y|x') = 0 < p(y|x))."""
    D = rational_distance_matrix(metric)
    best = mpmath.mpf(0)
    with mpmath.workdps(DPS):
        for x in range(len(rows)):
            for x2 in range(len(rows)):
                if x == x2:
                    continue
                for a, b in zip(rows[x], rows[x2]):
                    a, b = Fraction(a), Fraction(b)
                    if a == 0:
                        continue
                    if b == 0:
                        return mpmath.inf
                    v = mpmath.log(mpmath.mpf(a.numerator) / a.denominator
                                   / (mpmath.mpf(b.numerator) / b.denominator))
                    d = D[x][x2]
                    best = max(best, v / (mpmath.mpf(d.numerator) / d.denominator))
    return best


def _mpf(v: Fraction) -> Any:
    v = Fraction(v)
    return mpmath.mpf(v.numerator) / v.denominator


def level_t_eps(level: Any) -> tuple[Fraction | None, Fraction | None]:
    """(t, ε) of a privacy level, each when rational (read from its public fields)."""
    t = getattr(level, "t", None)
    e = getattr(level, "eps_rational", None)
    return (None if t is None else Fraction(t)), (None if e is None else Fraction(e))


@dataclass(frozen=True)
class LinearTruth:
    """Ground truth of Φx = b at one level: the unique solution (exact or 50-digit mpmath),
    or ``singular`` (then ``x`` is None and ``holds`` may be None)."""

    exact: bool
    x: tuple[Any, ...] | None
    holds: bool | None
    singular: bool
    det_nonzero: bool | None


def linear_truth(metric: Any, rhs: Sequence[Any] | None, level: Any) -> LinearTruth:
    """The ground truth of "Φx = b has x ≥ 0" at ``level`` (rational distances).

    Rational s: exact Gaussian elimination. Otherwise Φ(e^{-ε d}) in mpmath at :data:`DPS`
    digits (ε rational), the verdict from :func:`threshold_truth` (exact root isolation)."""
    b = _rhs(metric, rhs)
    t, eps = level_t_eps(level)
    q, k = exponent_matrix(metric)
    if t is not None:
        s = _s_of_t(t, q)
        if s is not None:
            A = phi_at_s(k, s)
            x = solve_exact(A, b)
            if x is None:
                return LinearTruth(True, None, None, True, False)
            return LinearTruth(True, x, all(v >= 0 for v in x), False, True)
        with mpmath.workdps(DPS):
            e = -mpmath.log(_mpf(t))
    elif eps is not None:
        with mpmath.workdps(DPS):
            e = _mpf(eps)
    else:
        raise InvalidArgument(f"Got level={level!r}; the oracle needs a rational t or a rational ε.")
    with mpmath.workdps(DPS):
        s_mp = mpmath.exp(-e / q)
        A = mpmath.matrix([[s_mp ** kk for kk in row] for row in k])
        try:
            xs = mpmath.lu_solve(A, mpmath.matrix([_mpf(v) for v in b]))
        except ZeroDivisionError:
            return LinearTruth(False, None, None, True, False)
        x_mp = tuple(xs[i] for i in range(len(b)))
    holds = None
    if eps is not None:
        holds = threshold_truth(metric, b).holds_at_eps(eps)
    elif all(abs(v) > mpmath.mpf(10) ** (-(DPS - 15)) for v in x_mp):
        holds = all(v > 0 for v in x_mp)
    return LinearTruth(False, x_mp, holds, False, True)


def compare(a: Fraction | float, x: Any) -> int | None:
    """Sign of a − x for an exact a and a true value x (Fraction or mpmath): −1, 0, 1,
    or None when x is an mpmath value within 10^-40 of a (too close to call)."""
    a = Fraction(a)
    if isinstance(x, Fraction):
        return (a > x) - (a < x)
    with mpmath.workdps(DPS):
        d = _mpf(a) - x
        if abs(d) < mpmath.mpf(10) ** (-(DPS - 10)) * max(1, abs(x)):
            return None
        return 1 if d > 0 else -1


def contains(lo: Fraction | float, hi: Fraction | float, x: Any) -> bool | None:
    """Whether x ∈ [lo, hi] (None when too close to call)."""
    c1, c2 = compare(lo, x), compare(hi, x)
    if c1 is None or c2 is None:
        return None
    return c1 <= 0 <= c2
