"""Regularity of product priors on V^u under the Hamming metric (Example 3 of the paper).

Theorem. Let k = |V| ≥ 2, u ≥ 1, t in (0, 1), M = (1 − t)I_k + tJ_k (so Φ = M^{⊗u}), and
p a distribution on V. Then for π = p^{⊗u}:

1. M⁻¹ = (I − t/(1 + (k−1)t)·J)/(1 − t), so α₁ := pM⁻¹ = (p − t/(1 + (k−1)t)·1)/(1 − t);
2. α := α₁^{⊗u} solves αΦ = π ((a⊗b)(A⊗B) = (aA)⊗(bB)), and it is the unique solution
   (Φ is nonsingular, proofs/mech_thm3_closed_form.py);
3. α ≥ 0 ⇔ α₁ ≥ 0: Σα₁ = 1/(1 + (k−1)t) > 0, so α₁ has a positive entry b; if some entry
   a < 0 then α contains a·b^{u−1} < 0; conversely products of nonnegatives are ≥ 0;
4. Σα = (Σα₁)^u = (1 + (k−1)t)^{-u} for every p, and max π = (max p)^u, so Prop. 5 reads
   L ≤ u·log2(1/((1 + (k−1)t)·max p));
5. α₁ ≥ 0 ⇔ t ≤ p_min/(1 − (k−1)p_min) (when (k−1)p_min < 1); for Example 3,
   p_min = 1/5, k = 4: t ≤ 1/2, i.e. ε ≥ ln 2.
"""

import itertools
import sys

import sympy as sp

PROVES = [
    "exactdp.reproduce.fig4.product_prior_regularity",
]

t = sp.symbols("t", positive=True)


def check(cond: bool, what: str) -> None:
    if not cond:
        print("FAILED:", what)
        sys.exit(1)


def kron(A: sp.Matrix, B: sp.Matrix) -> sp.Matrix:
    return sp.Matrix(A.rows * B.rows, A.cols * B.cols,
                     lambda i, j: A[i // B.rows, j // B.cols] * B[i % B.rows, j % B.cols])


for k in range(2, 6):
    M = (1 - t) * sp.eye(k) + t * sp.ones(k, k)
    Minv = (sp.eye(k) - t / (1 + (k - 1) * t) * sp.ones(k, k)) / (1 - t)
    check(sp.simplify(M * Minv - sp.eye(k)) == sp.zeros(k, k), f"1. M⁻¹, k = {k}")
    ps = sp.symbols(f"p0:{k}")
    p = sp.Matrix([list(ps)])
    alpha1 = p * Minv
    closed = sp.Matrix([[(pi - t / (1 + (k - 1) * t) * sum(ps)) / (1 - t) for pi in ps]])
    check(sp.simplify(alpha1 - closed) == sp.zeros(1, k), f"1. α₁, k = {k}")
    # 4. Σα₁ with Σp = 1
    s = sp.simplify(sum(alpha1).subs(ps[-1], 1 - sum(ps[:-1])))
    check(sp.simplify(s - 1 / (1 + (k - 1) * t)) == 0, f"4. Σα₁, k = {k}")

# 2. Kronecker identity on concrete sizes, with Example 3's p and symbolic t
p3 = sp.Matrix([[sp.Rational(3, 10), sp.Rational(27, 100), sp.Rational(23, 100), sp.Rational(1, 5)]])
M4 = (1 - t) * sp.eye(4) + t * sp.ones(4, 4)
a1 = p3 * M4.inv()
for u in (1, 2):
    Phi, pi, al = M4, p3, a1
    for _ in range(u - 1):
        Phi, pi, al = kron(Phi, M4), kron(pi, p3), kron(al, a1)
    check(sp.simplify(al * Phi - pi) == sp.zeros(1, pi.cols), f"2. αΦ = π, u = {u}")
# 2'. Φ = M^{⊗u} is the Hamming Φ (entry t^{#differing coordinates}), u = 2
dbs = list(itertools.product(range(4), repeat=2))
H = sp.Matrix(16, 16, lambda i, j: t ** sum(a != b for a, b in zip(dbs[i], dbs[j])))
check(sp.simplify(H - kron(M4, M4)) == sp.zeros(16, 16), "2'. Hamming Φ = M⊗M")

# 5. Example 3: the smallest α₁ entry (p = 1/5) changes sign exactly at t = 1/2
a_min = (sp.Rational(1, 5) - t / (1 + 3 * t)) / (1 - t)
check(sp.solve(sp.numer(sp.together(a_min)), t) == [sp.Rational(1, 2)], "5. root t = 1/2")
check(a_min.subs(t, sp.Rational(1, 4)) > 0 and a_min.subs(t, sp.Rational(3, 5)) < 0,
      "5. sign on each side")
check(sp.simplify(a_min.subs(t, sp.exp(-sp.Rational(1, 2)))).evalf(30) < 0, "5. ε = 1/2")
print("product priors on Hamming spaces: all steps verified")
