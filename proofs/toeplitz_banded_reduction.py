"""Theorem (banded reduction of an eventually repeating symmetric Toeplitz Φ; issue 18).

Let Φ[i, j] = a_{|i−j|} (0 ≤ i, j < n) with a_{k+v} = s^c·a_k for every k ≥ k0 (v ≥ 1,
k0 ≥ 0, c ≥ 0), and let L = I − s^c·S^v, S the down-shift (L[i, i] = 1, L[i, i−v] = −s^c).
Then

1. (LΦ)[i, j] = 0 whenever i − j ≥ v + k0, so M = LΦLᵀ is symmetric with M[i, j] = 0 for
   |i − j| ≥ v + k0 (half-bandwidth v + k0 − 1), and
   M[i, j] = Φ[i, j] − s^c Φ[i−v, j] − s^c Φ[i, j−v] + s^{2c} Φ[i−v, j−v]
   (terms with a negative index dropped);
2. L is unit lower triangular (also for c = 0, L = I − S^v), so Φz = b ⇔ M w = L b with
   z = Lᵀ w;
3. for the sum query (a_k = s^⌈k/v⌉, c = 1, k0 = 0):
   M = (1 − s)·[(1 + s)·I + s·(ones where 0 < |i − j| < v)] + s²·(ones on the top-left v×v block),
   and (Lb)_i = 1 − s for i ≥ v, 1 for i < v (b = 1): every row i ≥ v of (M, L1) has the
   factor 1 − s;
4. for the band metric (a_k = s^min(k, w): v = 1, c = 0, k0 = w) every row i ≥ 1 of M is
   the second difference of a, M[i, j] = 2a_{|i−j|} − a_{|i−j−1|} − a_{|i−j+1|} for
   i, j ≥ 1, which vanishes for |i − j| > w, and (L1)_i = 0 for i ≥ 1.

Proof of 1: for i − j ≥ v + k0, (LΦ)[i, j] = a_{i−j} − s^c a_{i−j−v} = 0 (i − v ≥ j ≥ 0, the
hypothesis at k = i − j − v ≥ k0). M[i, j] = Σ_k (LΦ)[i, k]·L[j, k] with L[j, k] ≠ 0 only
for k ∈ {j, j − v}, so k ≤ j and i − k ≥ i − j ≥ v + k0 gives 0 when i − j ≥ v + k0; M is
symmetric (Φ is), which covers j − i ≥ v + k0. 2 is immediate (det L = 1 for every c).
4: for i, j ≥ v = 1, M[i, j] = a_d(1 + s^0·s^0) − a_{|d−1|} − a_{|d+1|} with d = i − j,
which is 0 for |d| > w (all three equal s^w). Everything is also checked below exactly
(sympy, symbolic s) for v = 1…5, k0 = 0…3, c = 0…2, several n and exponent sequences, and
the code's banded system (:func:`exactdp.algebra.toeplitz.solve_toeplitz_ones`) is
compared with M.
"""

import random

import sympy as sp

from exactdp.algebra.toeplitz import ToeplitzStep, _banded_system
from exactdp.spaces.metrics import band, sum_query

PROVES = ["exactdp.algebra.toeplitz.solve_toeplitz_ones"]

s = sp.symbols("s", positive=True)
rng = random.Random(18)


def phi(e, n):
    return sp.Matrix(n, n, lambda i, j: s ** e[abs(i - j)])


def ell(n, v, c):
    return sp.Matrix(n, n, lambda i, j: 1 if i == j else (-(s**c) if i - j == v else 0))


def repeating(base, v, c, n):
    e = list(base)
    while len(e) < n:
        e.append(e[len(e) - v] + c)
    return e[:n]


checked = 0
for v in range(1, 6):
    for k0 in range(4):
        for c in (0, 1, 2):
            if c == 0 and k0 == 0:
                continue  # e_v = e_0 = 0: not a metric
            base = [0] + sorted(rng.randint(1, 3) for _ in range(v + k0 - 1))
            for n in (2 * (v + k0) + 1, 3 * (v + k0) + 2):
                e = repeating(base, v, c, n)
                bw = v + k0 - 1
                P, L = phi(e, n), ell(n, v, c)
                assert L.det() == 1
                LP = (L * P).expand()
                assert all(LP[i, j] == 0 for i in range(n) for j in range(n) if i - j > bw)
                M = (LP * L.T).expand()
                assert M == M.T
                assert all(M[i, j] == 0 for i in range(n) for j in range(n) if abs(i - j) > bw)
                # the code's rows are M's rows divided by a common polynomial factor with L·1
                rows, rhs = _banded_system(ToeplitzStep(tuple(e), v, c, k0))
                r1 = (L * sp.ones(n, 1)).expand()
                for i in range(n):
                    assert set(rows[i]) <= set(range(max(0, i - bw), min(n, i + bw + 1)))
                    code = [sp.Poly(list(reversed([int(x) for x in rows[i][j].coeffs()]))
                                    or [0], s).as_expr() if j in rows[i] else 0
                            for j in range(n)]
                    code_r = sp.Poly(list(reversed([int(x) for x in rhs[i].coeffs()])) or [0],
                                     s).as_expr()
                    j0 = next(j for j in range(n) if code[j] != 0)
                    ratio = sp.cancel(M[i, j0] / code[j0])
                    assert sp.expand(r1[i] - ratio * code_r) == 0
                    assert all(sp.expand(M[i, j] - ratio * code[j]) == 0 for j in range(n))
                checked += 1

# 3: the sum query's closed form
for v in range(2, 7):
    for u in (2, 3, 4):
        n = u * v + 1
        e = [-(-k // v) for k in range(n)]
        assert [int(x) for x in sum_query(u, v).exponent_matrix()[0]] == e
        M = (ell(n, v, 1) * phi(e, n) * ell(n, v, 1).T).expand()
        closed = sp.Matrix(n, n, lambda i, j, v=v: (1 - s) * ((1 + s) if i == j else
                                                              (s if abs(i - j) < v else 0))
                           + (s**2 if i < v and j < v else 0))
        assert (M - closed).expand() == sp.zeros(n, n)
        checked += 1

# 4: the band metric
for w in range(1, 5):
    for n in (2 * w + 2, 3 * w + 3):
        e = [min(k, w) for k in range(n)]
        assert [int(x) for x in band(n, w).exponent_matrix()[0]] == e
        L = ell(n, 1, 0)
        M = (L * phi(e, n) * L.T).expand()
        for i in range(1, n):
            for j in range(1, n):
                d = i - j
                assert sp.expand(M[i, j] - (2 * s ** e[abs(d)] - s ** e[abs(d - 1)]
                                            - s ** e[abs(d + 1)])) == 0
                assert abs(d) <= w or M[i, j] == 0
        assert list(L * sp.ones(n, 1)) == [1] + [0] * (n - 1)
        checked += 1

print(f"banded reduction: {checked} cases checked exactly")
