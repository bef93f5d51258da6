"""Exact z(s) for symmetric Toeplitz Φ whose symbol eventually repeats (banded reduction).

Φ[i, j] = a_{|i−j|} with a_k = s^{e_k} (s = e^{-ε/q}). When e_{k+v} = e_k + c for every
k ≥ k0 (c ≥ 0; the sum query: v, c = 1, k0 = 0; the line: v = c = 1, k0 = 0; the band
metric min(|i − j|, w): v = 1, c = 0, k0 = w), L = I − s^c·S^v (S the down-shift) turns Φ
into a banded matrix: M = LΦLᵀ has half-bandwidth v + k0 − 1, and Φz = b ⇔ M w = L b,
z = Lᵀ w (``proofs/toeplitz_banded_reduction.py``). Each row of (M, Lb) is divided by the
gcd of its polynomials (for the sum query every row i ≥ v by 1 − s).

The banded system is solved exactly by *shooting*: the last bw = v + k0 − 1 unknowns are
kept as symbols u, every other w_j is an affine function of u found by walking the rows
from the bottom up (each step divides by a sub-diagonal entry, ±s^a or ±s^a·π with one
fixed polynomial π, so the denominators stay ±s^a·π^b — ``proofs/toeplitz_recurrence.py``),
and the bw top rows give a small system G u = h solved by fraction-free elimination (exact
determinants). Then D·z_i = N_i over Z[s] for the persymmetric half (z_i = z_{n−1−i}: Φ
and b = 1 are persymmetric and Φ(s) is invertible over Q(s)), with the common factor removed.

Nothing here is trusted by a certificate: the kernel re-checks Φ(s)N(s) = D(s)·1 exactly
(:mod:`exactdp.kernel.threshold_structured`).

Examples
--------
>>> from exactdp.spaces.metrics import sum_query
>>> sol = solve_toeplitz_ones(sum_query(2, 2))
>>> sol.step, sol.shift, sol.denominator          # z_2 = (1 − s − s²)/(1 + 3s + s²): ε* = ln φ
(2, 1, x^2 + 3*x + 1)
>>> sol.numerators
[x + 1, 1, (-1)*x^2 + (-1)*x + 1]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from flint import fmpz_poly

from exactdp.kinds import proved_by
from exactdp.spaces.metrics import FiniteMetric
from exactdp.spaces.metrics.space import GridInfo

__all__ = ["ToeplitzStep", "ToeplitzSolution", "toeplitz_step", "solve_toeplitz_ones",
           "MAX_STEP"]

#: Largest v + k0 handled (half-bandwidth v + k0 − 1; the shooting system is bw×bw).
MAX_STEP = 16

_ZERO = fmpz_poly([])
_ONE = fmpz_poly([1])


def _mono(k: int) -> fmpz_poly:
    return fmpz_poly([0] * k + [1])


@dataclass(frozen=True)
class ToeplitzStep:
    """e_k = q·d(0, k) (Φ[i, j] = s^{e_|i−j|}) with e_{k+v} = e_k + c for every k ≥ k0
    (``offset``; 0 for a symbol that repeats from the start)."""

    exponents: tuple[int, ...]
    step: int
    shift: int
    offset: int = 0

    @property
    def bandwidth(self) -> int:
        """Half-bandwidth v + k0 − 1 of M = LΦLᵀ."""
        return self.step + self.offset - 1


def toeplitz_step(metric: FiniteMetric, max_step: int = MAX_STEP) -> ToeplitzStep | None:
    """The step v, shift c and offset k0 of a symmetric Toeplitz Φ with the least
    half-bandwidth v + k0 − 1 (v + k0 ≤ min(``max_step``, n/2); k0 = 0 first), or None.

    Checks exactly that Φ[i, j] = a_{|i−j|} for every pair (the metric's own exponents)
    and that e_{k+v} = e_k + c (c ≥ 0; c ≥ 1 when k0 = 0) for every k ≥ k0 with k + v < n;
    k0 is the least offset for that v.

    >>> from exactdp.spaces.metrics import band, line, sum_query, cycle
    >>> toeplitz_step(sum_query(3, 4)).step, toeplitz_step(line(5)).shift
    (4, 1)
    >>> st = toeplitz_step(band(12, 3))          # d = min(|i − j|, 3): constant beyond 3
    >>> st.step, st.shift, st.offset, st.bandwidth
    (1, 0, 3, 3)
    >>> toeplitz_step(cycle(6)) is None
    True
    """
    if metric.q is None or metric.n < 2:
        return None
    n = metric.n
    ar = np.arange(n)
    if metric.grid is not None and not _grid_may_be_toeplitz(metric.grid, n):
        return None  # decided from the (checked) grid claim, without the n×n index
    exps = metric.exponent_array()
    idx = metric.index
    e = exps[idx[0]]
    for i in range(1, n):  # row by row: O(n) memory beyond the metric's own index
        if not np.array_equal(exps[idx[i]], e[np.abs(ar - i)]):
            return None
    for total in range(1, min(max_step, n // 2) + 1):  # 2(v + k0) ≤ n: else no band to gain
        for k0 in range(total):
            v = total - k0
            c = int(e[k0 + v] - e[k0])
            if c >= (1 if k0 == 0 else 0) and np.all(e[k0 + v:] == e[k0:n - v] + c):
                return ToeplitzStep(tuple(int(x) for x in e), v, c, k0)
    return None


def _grid_may_be_toeplitz(info: GridInfo, n: int) -> bool:
    """False when d(1, 1 + k) ≠ d(0, k) for some k (then Φ is not Toeplitz), from the grid's
    coordinates (points row-major, x = i mod W): O(n), exact integer norms (the spacing is
    common to all distances, and for the Euclidean norm d² = spacing²·(dx² + dy²))."""
    k = np.arange(1, n - 1)
    W = info.width

    def norm(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        dx, dy = np.abs(a % W - b % W), np.abs(a // W - b // W)
        if info.norm == "euclidean":
            return dx * dx + dy * dy
        return dx + dy if info.norm == "manhattan" else np.maximum(dx, dy)

    return bool(np.array_equal(norm(np.zeros_like(k), k), norm(np.ones_like(k), k + 1)))


@dataclass(frozen=True)
class ToeplitzSolution:
    """z_i = N_i/D for i < ⌈n/2⌉ (the rest by persymmetry), b = 1; D > 0 near s = 0+."""

    n: int
    q: int
    step: int
    shift: int
    numerators: list[fmpz_poly]
    denominator: fmpz_poly
    offset: int = 0

    def numerator(self, i: int) -> fmpz_poly:
        """N_i for any 0 ≤ i < n (persymmetry: N_i = N_{n−1−i})."""
        return self.numerators[min(i, self.n - 1 - i)]


def _banded_system(st: ToeplitzStep) -> tuple[list[dict[int, fmpz_poly]], list[fmpz_poly]]:
    """Rows of M = LΦLᵀ (band v + k0 − 1) and of L·1, each divided by its polynomial gcd."""
    e, v, c = st.exponents, st.step, st.shift
    n = len(e)
    bw = st.bandwidth
    sc = _mono(c)

    def a(k: int) -> fmpz_poly:
        return _mono(e[abs(k)])

    rows: list[dict[int, fmpz_poly]] = []
    rhs: list[fmpz_poly] = []
    for i in range(n):
        row: dict[int, fmpz_poly] = {}
        for j in range(max(0, i - bw), min(n, i + bw + 1)):
            p = a(i - j)
            if i >= v:
                p -= sc * a(i - v - j)
            if j >= v:
                p -= sc * a(i - j + v)
            if i >= v and j >= v:
                p += sc * sc * a(i - j)
            row[j] = p
        r = _ONE - sc if i >= v else _ONE
        g = r
        for p in row.values():
            g = g.gcd(p)
        if g.degree() > 0 or g != _ONE:
            row = {j: p // g for j, p in row.items()}
            r = r // g
        rows.append(row)
        rhs.append(r)
    return rows, rhs


def _bareiss_solve(G: list[list[fmpz_poly]], h: list[fmpz_poly]
                   ) -> tuple[fmpz_poly, list[fmpz_poly]]:
    """(δ, δ·G⁻¹h) over Z[s] with δ = ±det G (fraction-free, pivoting on nonzero entries)."""
    m = len(G)
    A = [list(G[i]) + [h[i]] for i in range(m)]
    prev = _ONE
    for k in range(m):
        piv = next((i for i in range(k, m) if A[i][k] != 0), None)
        if piv is None:
            return _ZERO, []
        if piv != k:
            A[k], A[piv] = A[piv], A[k]
        for i in range(k + 1, m):
            for j in range(k + 1, m + 1):
                A[i][j] = (A[k][k] * A[i][j] - A[i][k] * A[k][j]) // prev
            A[i][k] = _ZERO
        prev = A[k][k]
    det = A[m - 1][m - 1] if m else _ONE
    x: list[fmpz_poly] = [_ZERO] * m
    for i in range(m - 1, -1, -1):
        acc = det * A[i][m]
        for j in range(i + 1, m):
            acc -= A[i][j] * x[j]
        x[i] = acc // A[i][i]
    return det, x  # row swaps change det's sign and det·x alike: x/det is unchanged


class _Pivots:
    """Denominators ±s^a·π^b: π is the first pivot's non-monomial part (fixed thereafter)."""

    def __init__(self) -> None:
        self.pi: fmpz_poly | None = None
        self._pow = [_ONE]

    def split(self, p: fmpz_poly) -> tuple[int, int, int] | None:
        """(sign, a, b) with p = sign·s^a·π^b, b ∈ {0, 1}, or None."""
        cs = p.coeffs()
        a = next((k for k, x in enumerate(cs) if x != 0), None)
        if a is None:
            return None
        rest = fmpz_poly(cs[a:])
        if rest.degree() == 0:
            return (1, a, 0) if cs[a] == 1 else (-1, a, 0) if cs[a] == -1 else None
        if self.pi is None:
            self.pi = rest
        if rest == self.pi:
            return 1, a, 1
        if rest == -self.pi:
            return -1, a, 1
        return None

    def power(self, b: int) -> fmpz_poly:
        """π^b."""
        while len(self._pow) <= b:
            assert self.pi is not None
            self._pow.append(self._pow[-1] * self.pi)
        return self._pow[b]

    def scale(self, a: int, b: int) -> fmpz_poly:
        """s^a·π^b."""
        return _mono(a) * self.power(b) if b else _mono(a)


@proved_by("toeplitz_banded_reduction", "toeplitz_recurrence")
def solve_toeplitz_ones(metric: FiniteMetric, st: ToeplitzStep | None = None
                        ) -> ToeplitzSolution | None:
    """Exact z(s) with Φ(s)z = 1 for an (eventually) repeating symmetric Toeplitz Φ (module
    doc), or None.

    None when the metric has no such structure or a shooting pivot is not ±s^a·π^b.
    The reduction Φz = 1 ⇔ M w = L·1, z = Lᵀw is ``proofs/toeplitz_banded_reduction.py``;
    persymmetry z_i = z_{n−1−i} (only half is computed) is ``proofs/toeplitz_recurrence.py``.

    >>> from exactdp.spaces.metrics import band
    >>> sol = solve_toeplitz_ones(band(6, 2))
    >>> sol.offset, sol.denominator, sol.numerators
    (2, (-1)*x^4 + 4*x^3 + 5*x^2 + 3*x + 1, [2*x + 1, (-1)*x^2 + x + 1, x + 1])
    """
    st = st if st is not None else toeplitz_step(metric)
    if st is None:
        return None
    n = metric.n
    bw = st.bandwidth
    rows, rhs = _banded_system(st)
    if bw == 0:  # M diagonal: w_j = r_j / M_jj
        return _finish(metric, st, _diagonal(rows, rhs), _Pivots())
    # shooting from the bottom: unknowns u_m = w_{n−1−m} (m < bw); W[j] = (const, coeffs of u)
    # with w_j = W[j] / (sgn_j · s^{a_j} · π^{b_j})
    piv_of = _Pivots()
    W: list[list[fmpz_poly] | None] = [None] * n
    den: list[tuple[int, int, int]] = [(1, 0, 0)] * n
    for m in range(bw):
        vec = [_ZERO] * (bw + 1)
        vec[m + 1] = _ONE
        W[n - 1 - m] = vec
    for i in range(n - 1, bw - 1, -1):
        j = i - bw  # the unknown this row determines
        piv = piv_of.split(rows[i][j])
        if piv is None:
            return None
        known = [k for k in rows[i] if k != j]
        ta = max((den[k][1] for k in known), default=0)
        tb = max((den[k][2] for k in known), default=0)
        acc = [rhs[i] * piv_of.scale(ta, tb)] + [_ZERO] * bw
        for k in known:
            sk, ak, bk = den[k]
            Wk = W[k]
            assert Wk is not None
            f = rows[i][k] * piv_of.scale(ta - ak, tb - bk) * sk
            for t in range(bw + 1):
                if Wk[t] != 0:
                    acc[t] -= f * Wk[t]
        W[j] = acc
        den[j] = (piv[0], ta + piv[1], tb + piv[2])
    # the top bw rows: G u = h (denominators cleared with s^A·π^B)
    G: list[list[fmpz_poly]] = []
    h: list[fmpz_poly] = []
    for i in range(bw):
        A = max(den[k][1] for k in rows[i])
        B = max(den[k][2] for k in rows[i])
        row = [_ZERO] * (bw + 1)
        for k, p in rows[i].items():
            sk, ak, bk = den[k]
            Wk = W[k]
            assert Wk is not None
            f = p * piv_of.scale(A - ak, B - bk) * sk
            for t in range(bw + 1):
                if Wk[t] != 0:
                    row[t] += f * Wk[t]
        G.append(row[1:])
        h.append(rhs[i] * piv_of.scale(A, B) - row[0])
    det, U = _bareiss_solve(G, h)
    if det == 0:
        return None
    g0 = det
    for p in U:
        g0 = g0.gcd(p)
    det, U = det // g0, [p // g0 for p in U]

    def num(j: int) -> fmpz_poly:
        Wj = W[j]
        assert Wj is not None
        acc = det * Wj[0]
        for m in range(bw):
            if Wj[m + 1] != 0:
                acc += U[m] * Wj[m + 1]
        return acc

    return _finish(metric, st, (num, den, det), piv_of)


def _diagonal(rows: list[dict[int, fmpz_poly]], rhs: list[fmpz_poly]) -> tuple:  # type: ignore[type-arg]
    lcm = _ONE
    for i, row in enumerate(rows):
        d = row[i]
        lcm = lcm * (d // lcm.gcd(d))
    return (lambda j: rhs[j] * (lcm // rows[j][j]), [(1, 0, 0)] * len(rows), lcm)


def _finish(metric: FiniteMetric, st: ToeplitzStep, parts: tuple,  # type: ignore[type-arg]
            piv_of: _Pivots) -> ToeplitzSolution:
    num, den, det = parts
    n, v, c = metric.n, st.step, st.shift
    # w_j = (det·W0 + Σ U_m W_m+1) / (det · sgn_j s^{a_j} π^{b_j}); z_i = w_i − s^c w_{i+v}
    half = (n + 1) // 2
    # z_k = z_{n−1−k}: the bottom half is where the shooting's W_j are smallest
    idx = [n - 1 - k for k in range(half)]
    need = sorted({j for i in idx for j in (i, i + v) if j < n})
    ta = max(den[j][1] for j in need)
    tb = max(den[j][2] for j in need)
    num_w: dict[int, fmpz_poly] = {}
    for j in need:
        num_w[j] = num(j) * piv_of.scale(ta - den[j][1], tb - den[j][2]) * den[j][0]
    D = det * piv_of.scale(ta, tb)
    sc = _mono(c)
    nums = [num_w[i] - (sc * num_w[i + v] if i + v < n else _ZERO) for i in idx]
    g = D
    for p in nums:
        if g.degree() <= 0:
            break
        g = g.gcd(p)
    if g.degree() > 0 or abs(int(g.coeffs()[0])) != 1:
        D = D // g
        nums = [p // g for p in nums]
    low = next(x for x in D.coeffs() if x != 0)
    if low < 0:
        D, nums = -D, [-p for p in nums]
    return ToeplitzSolution(n, metric.q or 1, v, c, nums, D, st.offset)
