"""Theorem (the series of z(s) = Φ(s)⁻¹·1 for a symmetric Toeplitz Φ by run prefix sums).

Let Φ[i, j] = s^{e_|i−j|} (i, j < n) with e_0 = 0 and e_d ≥ 1 for d ≥ 1, and cut
d = 1, …, n−1 into maximal runs [l_r, h_r] on which e_d = j_r is constant. Then:

1. **Run decomposition.** For any vector w, ((Φ − I)w)_i = Σ_r s^{j_r}·(Σ_{d=l_r}^{h_r}
   w_{i−d} + Σ_{d=l_r}^{h_r} w_{i+d}) (indices outside [0, n) dropped), and with the prefix
   sums P[t] = Σ_{u<t} w_u (t = 0…n) and c(t) = min(max(t, 0), n):
   Σ_{d=l}^{h} w_{i−d} = P[c(i−l+1)] − P[c(i−h)],  Σ_{d=l}^{h} w_{i+d} = P[c(i+h+1)] − P[c(i+l)].
   Proof: (Φ − I)_{ij} = s^{e_|i−j|} for j ≠ i, and the off-diagonal j = i ± d, d ≥ 1, is
   grouped by the run containing d; a sum of w_u over the integer interval [a, b] ∩ [0, n−1]
   is P[c(b+1)] − P[c(a)] (empty when the clipped ends cross, since c is monotone).
2. **Series.** Φ(0) = I, so Φ(s) is invertible over Q[[s]] and z(s) = Σ_k z_k s^k with
   z_0 = 1 and z_k = −Σ_r Σ_{d∈run r} (shifts of) z_{k−j_r} (item 1 with w = z_{k−j_r},
   z_m = 0 for m < 0): the coefficient of s^k in Φ(s)z(s) = 1.
3. **Persymmetry.** JΦJ = Φ (J the reversal) and J1 = 1, so z = Jz: z_i = z_{n−1−i} for
   every coefficient; the first ⌈n/2⌉ entries determine z_k, and the series may be run on
   them alone (mirroring before each prefix sum).
4. **int64 exactness modulo p < 2^50, n < 2^13**: entries are reduced to [0, p); a prefix
   sum is < n·p < 2^63; each run's difference is reduced to [0, p) before the sum over the
   R < 2^13 runs (< 2^63).

The solver reconstructs N, D from these series (the generic route's Padé + CRT) and
accepts them only after the generic exact check of Φ(s)N(s) = D(s)·1 (no structure used),
so items 1–4 bear on speed and on not failing, never on the answer's truth.

Checked below: item 1 exactly (integers) on random monotone and non-monotone exponent
sequences; items 2–4 by comparing the solver's series modulo a 50-bit prime with the
integer series computed from the dense Φ; persymmetry of the exact z at rational s
(Fractions, Gaussian elimination); and the end-to-end solve against the generic route.
"""

import random
from fractions import Fraction

import numpy as np

from exactdp.algebra.symbolic import solve_symbolic
from exactdp.algebra.toeplitz_general import (
    _HalfPattern,
    solve_toeplitz_general,
    toeplitz_runs,
)
from exactdp.spaces.metrics import from_matrix, sum_query

PROVES = ["exactdp.algebra.toeplitz_general._HalfPattern.series",
          "exactdp.algebra.toeplitz_general.solve_toeplitz_general"]

rng = random.Random(18)
P = (1 << 50) - 27  # a prime below 2^50


def random_exponents(n, monotone):
    e = [0]
    for _ in range(1, n):
        e.append(max(1, e[-1] + rng.choice([0, 0, 1])) if monotone else rng.randint(1, 4))
    return e


def dense_series(e, terms):
    """z_k (integers) from Φ(s)z(s) = 1 with the dense exponent matrix."""
    n = len(e)
    E = np.array([[e[abs(i - j)] for j in range(n)] for i in range(n)], dtype=object)
    Z = [[1] * n]
    for k in range(1, terms):
        Z.append([-sum(Z[k - E[i, j]][j] for j in range(n) if i != j and E[i, j] <= k)
                  for i in range(n)])
    return Z


def run_sum(e, w):
    """Item 1's right-hand side (prefix sums), exactly, for s^j collected by j."""
    n = len(e)
    runs = toeplitz_runs(tuple(e))
    Pf = [0]
    for x in w:
        Pf.append(Pf[-1] + x)

    def c(t):
        return min(max(t, 0), n)
    out = {}
    for lo, hi, j in zip(runs.lo, runs.hi, runs.exp):
        for i in range(n):
            v = (Pf[c(i - lo + 1)] - Pf[c(i - hi)]) + (Pf[c(i + hi + 1)] - Pf[c(i + lo)])
            out.setdefault(j, [0] * n)[i] += v
    return out


checked = 0
for trial in range(120):
    n = rng.randint(1, 14)
    e = random_exponents(n, monotone=trial % 2 == 0)
    w = [rng.randint(-9, 9) for _ in range(n)]
    direct = {}
    for i in range(n):
        for j in range(n):
            if i != j:
                direct.setdefault(e[abs(i - j)], [0] * n)[i] += w[j]
    assert run_sum(e, w) == direct, (e, w)
    checked += 1
    if n >= 2:
        terms = 3 * max(e) + 6
        want = dense_series(e, terms)
        got = _HalfPattern(toeplitz_runs(tuple(e))).series(np.ones(n, dtype=np.int64), terms, P)
        H = (n + 1) // 2
        assert all(int(got[k][i]) == want[k][i] % P and want[k][i] == want[k][n - 1 - i]
                   for k in range(terms) for i in range(H)), e
        checked += 1


def solve_fraction(e, s):
    n = len(e)
    A = [[s ** e[abs(i - j)] for j in range(n)] + [Fraction(1)] for i in range(n)]
    for c in range(n):
        piv = next(r for r in range(c, n) if A[r][c] != 0)
        A[c], A[piv] = A[piv], A[c]
        for r in range(n):
            if r != c and A[r][c] != 0:
                f = A[r][c] / A[c][c]
                A[r] = [x - f * y for x, y in zip(A[r], A[c])]
    return [A[i][n] / A[i][i] for i in range(n)]


def toeplitz_metric(e):
    n = len(e)
    return from_matrix([[e[abs(i - j)] for j in range(n)] for i in range(n)])


for e in ([0, 1, 1, 2, 2, 2, 3, 3, 3], [0, 1, 2, 3, 3, 4, 5, 5, 6, 6], [0, 2, 3, 3, 4, 4, 4, 5],
          [0, 1, 2, 2, 3, 4, 4, 4, 5, 5, 6]):
    m = toeplitz_metric(e)  # from_matrix checks the triangle inequality
    sol = solve_toeplitz_general(m)
    gen = solve_symbolic(m)
    assert sol.denominator == gen.denominator and tuple(sol.numerators) == tuple(gen.numerators)
    for s in (Fraction(1, 3), Fraction(5, 7)):
        z = solve_fraction(e, s)
        assert z == z[::-1] and list(sol.value_at(s)) == z
    checked += 1
for m in (sum_query(3, 2), sum_query(4, 3)):
    sol, gen = solve_toeplitz_general(m), solve_symbolic(m)
    assert sol.denominator == gen.denominator and tuple(sol.numerators) == tuple(gen.numerators)
    checked += 1

print(f"toeplitz run prefix sums, series and persymmetry: {checked} cases checked exactly")
