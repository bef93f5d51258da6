"""Theorem (banded reduction of a repeating symmetric Toeplitz Φ; issue 18).

Let Φ[i, j] = a_{|i−j|} (0 ≤ i, j < n) with a_{k+v} = s^c·a_k for every k ≥ 0, and let
L = I − s^c·S^v, S the down-shift (L[i, i] = 1, L[i, i−v] = −s^c). Then

1. (LΦ)[i, j] = 0 whenever i − j ≥ v, so M = LΦLᵀ is symmetric with M[i, j] = 0 for
   |i − j| ≥ v (half-bandwidth v − 1), and
   M[i, j] = Φ[i, j] − s^c Φ[i−v, j] − s^c Φ[i, j−v] + s^{2c} Φ[i−v, j−v]
   (terms with a negative index dropped);
2. L is unit lower triangular, so Φz = b ⇔ M w = L b with z = Lᵀ w;
3. for the sum query (a_k = s^⌈k/v⌉, c = 1):
   M = (1 − s)·[(1 + s)·I + s·(ones where 0 < |i − j| < v)] + s²·(ones on the top-left v×v block),
   and (Lb)_i = 1 − s for i ≥ v, 1 for i < v (b = 1): every row i ≥ v of (M, L1) has the
   factor 1 − s.

Proof of 1: for i − j ≥ v, (LΦ)[i, j] = a_{i−j} − s^c a_{i−j−v} = 0 (i − v ≥ j ≥ 0, the
hypothesis at k = i − j − v ≥ 0). (M)[i, j] = Σ_k (LΦ)[i, k]·L[j, k] with L[j, k] ≠ 0 only
for k ∈ {j, j − v}, so k ≤ j and i − k ≥ i − j ≥ v gives 0 when i − j ≥ v; M is symmetric
(Φ is), which covers j − i ≥ v. 2 is immediate. Everything is also checked below exactly
(sympy, symbolic s) for v = 1…6, c = 1, 2, several n and exponent sequences, and the code's
banded system (:func:`exactdp.algebra.toeplitz.solve_toeplitz_ones`) is compared with M.
"""

import random

import sympy as sp

from exactdp.algebra.toeplitz import ToeplitzStep, _banded_system
from exactdp.spaces.metrics import sum_query

PROVES = ["exactdp.algebra.toeplitz.solve_toeplitz_ones"]

s = sp.symbols("s", positive=True)
rng = random.Random(18)


def phi(e, n):
    return sp.Matrix(n, n, lambda i, j: s ** e[abs(i - j)])


def ell(n, v, c):
    return sp.Matrix(n, n, lambda i, j: 1 if i == j else (-(s**c) if i - j == v else 0))


checked = 0
for v in range(1, 7):
    for c in (1, 2):
        base = [0] + sorted(rng.randint(1, 3) for _ in range(v - 1))
        for n in (2 * v, 2 * v + 1, 3 * v + 2):
            e = [base[k % v] + c * (k // v) for k in range(n)]
            P, L = phi(e, n), ell(n, v, c)
            LP = (L * P).expand()
            assert all(LP[i, j] == 0 for i in range(n) for j in range(n) if i - j >= v)
            M = (LP * L.T).expand()
            assert M == M.T
            assert all(M[i, j] == 0 for i in range(n) for j in range(n) if abs(i - j) >= v)
            # the code's rows are M's rows divided by a common polynomial factor with L·1
            rows, rhs = _banded_system(ToeplitzStep(tuple(e), v, c))
            r1 = (L * sp.ones(n, 1)).expand()
            for i in range(n):
                code = [sp.Poly(list(reversed([int(x) for x in rows[i].get(j, 0).coeffs()]))
                                or [0], s).as_expr() if j in rows[i] else 0 for j in range(n)]
                code_r = sp.Poly(list(reversed([int(x) for x in rhs[i].coeffs()])), s).as_expr()
                ratio = sp.cancel(r1[i] / code_r)
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

print(f"banded reduction: {checked} cases checked exactly")
