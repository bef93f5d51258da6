"""Theorem 3 (ElSalamouny et al. 2014): the min-entropy leakage bound on databases.

Let V^u be the databases of u individuals with values in a set of k elements, under the
Hamming metric, and t = e^{-ε} in (0, 1). Then

1. Φ = M^{⊗u} with M = (1 − t)I_k + tJ_k (Kronecker power), and Φ is nonsingular;
2. the constant vector α_y = 1 / (k (1 + (k − 1)t))^u solves αΦ = uniform, α > 0,
   so the uniform prior is regular at every ε > 0 and α is the unique solution;
3. Cor. 2's bound log2(n·Σα) equals u·log2(k/(1 + (k − 1)t)) = u·log2(k e^ε/(k − 1 + e^ε)).

``exactdp.mechanisms.bounds.database_leakage_bound`` returns the closed form of 3 and relies on 1–2
for the regularity certificate it carries.

Proof, checked below:
1. d_H(x, y) = Σ_i [x_i ≠ y_i], so t^{d_H(x,y)} = Π_i t^{[x_i ≠ y_i]} = Π_i M[x_i, y_i]:
   the entries of M^{⊗u}. M has eigenvalues 1 − t (multiplicity k − 1) and 1 + (k − 1)t,
   both > 0 for t in (0, 1); the eigenvalues of a Kronecker power are products of the
   factors' eigenvalues, so Φ is nonsingular.
2. M·1 = (1 + (k − 1)t)·1, and (A ⊗ B)(1 ⊗ 1) = (A1) ⊗ (B1), so every row of Φ sums to
   (1 + (k − 1)t)^u. Φ is symmetric, so (c·1)ᵀΦ = c(1 + (k − 1)t)^u·1ᵀ, which is the
   uniform prior k^{-u}·1ᵀ for c = 1/(k(1 + (k − 1)t))^u.
3. n·Σα = k^u · k^u · c = (k/(1 + (k − 1)t))^u, and k/(1 + (k − 1)t) = k e^ε/(e^ε + k − 1).
"""

import itertools
import sys

import sympy as sp

PROVES = ["exactdp.mechanisms.bounds.database_leakage_bound"]

t, eps = sp.symbols("t epsilon", positive=True)
k, u = sp.symbols("k u", integer=True, positive=True)


def check(cond: bool, what: str) -> None:
    if not cond:
        print("FAILED:", what)
        sys.exit(1)


# 1. eigenvalues of M (symbolic k): M·1 = (1 + (k−1)t)·1 and M·(e_1 − e_2) = (1 − t)(e_1 − e_2)
for kk in range(2, 7):
    M = (1 - t) * sp.eye(kk) + t * sp.ones(kk, kk)
    check(sp.simplify(M * sp.ones(kk, 1) - (1 + (kk - 1) * t) * sp.ones(kk, 1)) == sp.zeros(kk, 1),
          f"M·1 for k = {kk}")
    v = sp.zeros(kk, 1)
    v[0], v[1] = 1, -1
    check(sp.simplify(M * v - (1 - t) * v) == sp.zeros(kk, 1), f"M·(e1 − e2) for k = {kk}")
    check(sp.factor(M.det() - (1 - t) ** (kk - 1) * (1 + (kk - 1) * t)) == 0, f"det M, k = {kk}")
# both eigenvalues, 1 − t and 1 + (k − 1)t, are positive for 0 < t < 1 (k ≥ 1): Φ nonsingular.

# 1'. Φ = M^{⊗u} entrywise, and 2. row sums, on concrete sizes (independent construction)
def kron(A: sp.Matrix, B: sp.Matrix) -> sp.Matrix:
    return sp.Matrix(A.rows * B.rows, A.cols * B.cols,
                     lambda i, j: A[i // B.rows, j // B.cols] * B[i % B.rows, j % B.cols])


for kk, uu in [(2, 1), (2, 2), (3, 2), (2, 3), (4, 2)]:
    dbs = list(itertools.product(range(kk), repeat=uu))
    Phi = sp.Matrix(len(dbs), len(dbs),
                    lambda i, j, dbs=dbs: t ** sum(a != b for a, b in zip(dbs[i], dbs[j])))
    M = (1 - t) * sp.eye(kk) + t * sp.ones(kk, kk)
    P = M
    for _ in range(uu - 1):
        P = kron(P, M)
    check(sp.simplify(Phi - P) == sp.zeros(*Phi.shape), f"Φ = M^⊗u for k={kk}, u={uu}")
    c = 1 / (kk * (1 + (kk - 1) * t)) ** uu
    alpha = c * sp.ones(1, len(dbs))
    check(sp.simplify(alpha * Phi - sp.ones(1, len(dbs)) / kk**uu) == sp.zeros(1, len(dbs)),
          f"αΦ = uniform for k={kk}, u={uu}")

# 2'. symbolic k, u: c·(1 + (k−1)t)^u = k^{-u}
c = 1 / (k * (1 + (k - 1) * t)) ** u
check(sp.simplify(sp.powsimp(c * (1 + (k - 1) * t) ** u * k**u, force=True)) == 1, "α·rowsum")

# 3. n Σα = (k/(1 + (k−1)t))^u, and at t = e^{-ε}: k/(1 + (k−1)t) = k e^ε/(e^ε + k − 1)
n_sum_alpha = k**u * k**u * c
check(sp.simplify(sp.powsimp(n_sum_alpha / (k / (1 + (k - 1) * t)) ** u, force=True)) == 1,
      "n·Σα")
check(sp.simplify(k / (1 + (k - 1) * sp.exp(-eps)) - k * sp.exp(eps) / (sp.exp(eps) + k - 1))
      == 0, "e^ε form")
print("Theorem 3 closed form: all steps verified")
