"""Theorem (tight constraints on the line; the truncated geometric mechanism).

For the line metric on points 0..n-1 (n ≥ 2), Φ[i, j] = t^{|i-j|} with t = e^{-ε} ∈ (0, 1),
the solution of Φz = 1 is

    z_0 = z_{n-1} = 1/(1+t),      z_j = (1-t)/(1+t)  for 0 < j < n-1,

so z > 0 for every ε > 0: a tight-constraints mechanism exists at every level, and
H = Φ·diag(z) is the truncated geometric mechanism. Φ is nonsingular on (0, 1)
(det Φ = (1-t²)^{n-1}, the Kac–Murdock–Szegő determinant), so z is the unique solution.

Proof (checked symbolically below, for symbolic n, i and t): row i of Φz splits into the
two end terms and two finite geometric series over the interior points.

Used by: tests/core/test_core_engine.py::test_line_closed_form (the closed form is a test
oracle, not a code fast path).
"""

import sympy as sp

PROVES: list[str] = []  # a test oracle; no library fast path relies on it

t = sp.symbols("t", positive=True)
n, i, j = sp.symbols("n i j", integer=True, positive=True)

end = 1 / (1 + t)
inner = (1 - t) / (1 + t)


m = sp.symbols("m", integer=True, nonnegative=True)


def G(k):
    """G(k) = Σ_{r=0}^{k-1} t^r = (1 - t^k)/(1 - t) for t ≠ 1 (finite geometric series)."""
    return (1 - t**k) / (1 - t)


# Lemma (geometric series, by induction on k): G(0) = 0 and G(k+1) - G(k) = t^k.
assert sp.simplify(G(0)) == 0
assert sp.simplify(G(m + 1) - G(m) - t**m) == 0

# Interior row 1 ≤ i ≤ n-2 of Φz:
#   z_0 t^i + z_{n-1} t^{n-1-i} + inner·(Σ_{j=1}^{i} t^{i-j} + Σ_{j=i+1}^{n-2} t^{j-i})
#   with Σ_{j=1}^{i} t^{i-j} = G(i) and Σ_{j=i+1}^{n-2} t^{j-i} = t·G(n-2-i).
row_interior = end * t**i + end * t ** (n - 1 - i) + inner * (G(i) + t * G(n - 2 - i))
assert sp.simplify(row_interior - 1) == 0, sp.simplify(row_interior - 1)

# End row i = 0: z_0 + t^{n-1} z_{n-1} + inner·Σ_{j=1}^{n-2} t^j, the sum being t·G(n-2).
row0 = end + t ** (n - 1) * end + inner * t * G(n - 2)
assert sp.simplify(row0 - 1) == 0, row0
# The last row is the mirror image of row 0 (Φ is persymmetric), so it also equals 1.
# n = 2 (no interior point): rows are 1/(1+t) + t/(1+t) = 1.
assert sp.simplify(end + t * end - 1) == 0

# Independent cross-check on concrete sizes: Φ·z = 1 as polynomial identities, n = 2..9.
for nn in range(2, 10):
    P = sp.Matrix(nn, nn, lambda a, b: t ** abs(a - b))
    z = sp.Matrix([end] + [inner] * (nn - 2) + [end]) if nn > 1 else sp.Matrix([1])
    assert sp.simplify(P * z - sp.ones(nn, 1)) == sp.zeros(nn, 1)

# positivity on (0, 1): both values are positive there.
assert sp.ask(sp.Q.positive(end), sp.Q.positive(t)) is True
tt = sp.symbols("tt", positive=True)
assert sp.solve_univariate_inequality((1 - tt) / (1 + tt) > 0, tt, relational=False).contains(
    sp.Rational(1, 2)
)
# determinant formula, checked for n = 2..8 exactly as a sanity check of nonsingularity
for nn in range(2, 9):
    P = sp.Matrix(nn, nn, lambda a, b: t ** abs(a - b))
    assert sp.factor(P.det() - (1 - t**2) ** (nn - 1)) == 0
print("line tight constraints: closed form z proved for all n ≥ 2; det checked for n ≤ 8")
