"""Theorem (Kronecker split of the engine's question).

Let the metric be the ℓ1-sum of factor metrics, d((a_1..a_m), (b_1..b_m)) = Σ_k d_k(a_k, b_k),
with points ordered row-major. Then

  (1) Φ = Φ_1 ⊗ … ⊗ Φ_m, since e^{-ε Σ d_k} = Π e^{-ε d_k};
  (2) if b = b_1 ⊗ … ⊗ b_m and Φ_k x_k = b_k, then x = x_1 ⊗ … ⊗ x_m solves Φx = b
      (mixed-product property), and Φ is invertible iff every Φ_k is
      (det(A ⊗ B) = det(A)^{n_B} det(B)^{n_A});
  (3) if every Φ_k is invertible and entrywise positive and every b_k ≥ 0 is nonzero, then
      the unique x is ≥ 0 iff every x_k ≥ 0.
      Proof of (3): ⇐ products of nonnegative numbers. ⇒ each x_k has a positive entry
      (if x_k ≤ 0 then b_k = Φ_k x_k ≤ 0 because Φ_k > 0, so b_k = 0, excluded); if some
      x_j has a negative entry, multiply it by positive entries of the other factors to get
      a negative entry of x.

Used by exactdp.engine.core._kronecker_backend (Hamming databases, Manhattan grids, product
priors) and certified per instance by exactdp.engine.certificates.KroneckerCertificate.
Steps (1) and (2) are checked symbolically on generic matrices; step (3)'s combinatorial
part is checked exhaustively on sign patterns.
"""

import itertools

import sympy as sp

PROVES = ["exactdp.engine.core._kronecker_backend", "exactdp.engine.certificates.KroneckerCertificate"]

eps = sp.symbols("epsilon", positive=True)

# (1) e^{-ε(d1 + d2)} = e^{-ε d1} e^{-ε d2}, entrywise for generic distances, 2×2 and 3×2 factors
for n1, n2 in [(2, 2), (3, 2)]:
    D1 = sp.Matrix(n1, n1, lambda i, j: 0 if i == j else sp.Symbol(f"a{min(i, j)}{max(i, j)}"))
    D2 = sp.Matrix(n2, n2, lambda i, j: 0 if i == j else sp.Symbol(f"b{min(i, j)}{max(i, j)}"))
    P1 = D1.applyfunc(lambda d: sp.exp(-eps * d))
    P2 = D2.applyfunc(lambda d: sp.exp(-eps * d))
    # row-major multi-index (i1, i2) ↦ i1·n2 + i2
    Dsum = sp.Matrix(n1 * n2, n1 * n2,
                     lambda a, b, D1=D1, D2=D2, n2=n2: D1[a // n2, b // n2] + D2[a % n2, b % n2])
    Phi = Dsum.applyfunc(lambda d: sp.exp(-eps * d))
    K = sp.kronecker_product(P1, P2)
    assert sp.simplify(Phi - K) == sp.zeros(n1 * n2, n1 * n2)

# (2) mixed product and determinant, generic symbolic 2×2 ⊗ 3×3
A = sp.Matrix(2, 2, sp.symbols("A0:4"))
B = sp.Matrix(3, 3, sp.symbols("B0:9"))
x = sp.Matrix(2, 1, sp.symbols("x0:2"))
y = sp.Matrix(3, 1, sp.symbols("y0:3"))
assert sp.expand(sp.kronecker_product(A, B) * sp.kronecker_product(x, y)
                 - sp.kronecker_product(A * x, B * y)) == sp.zeros(6, 1)
assert sp.expand(sp.kronecker_product(A, B).det() - A.det() ** 3 * B.det() ** 2) == 0

# (3) combinatorial part: with each factor having a positive entry, the product vector is ≥ 0
# iff every factor is ≥ 0 — exhaustively over sign patterns of up to 3 factors of size ≤ 3.
signs = (-1, 0, 1)
for m in (1, 2, 3):
    for sizes in itertools.product((1, 2, 3), repeat=m):
        pats = [[p for p in itertools.product(signs, repeat=s) if 1 in p] for s in sizes]
        for combo in itertools.product(*pats):
            prod_nonneg = all(
                sp.prod(c) >= 0 for c in itertools.product(*combo)
            )
            factors_nonneg = all(all(v >= 0 for v in f) for f in combo)
            assert prod_nonneg == factors_nonneg, combo
print("kronecker split: (1) Φ = ⊗Φ_k, (2) mixed product & det, (3) sign lemma: checked")
