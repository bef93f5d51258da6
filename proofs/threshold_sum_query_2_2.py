"""Theorem (hand-derived tight-constraints threshold: sum query with u = v = 2).

Y = {0,..,4}, d(i,j) = ⌈|i-j|/2⌉, s = t = e^{-ε}. By the symmetry i ↦ 4-i the solution
of Φz = 1 is z = (a, b, c, b, a), and the three distinct equations are

    (1 + s²) a + (s + s²) b + s c = 1
    (s + s²) a + (1 + s) b + s c = 1
    2s a + 2s b + c = 1.

Solving (sympy, below) gives, with Δ = s² + 3s + 1 > 0,

    a = (1 + s)/Δ,   b = 1/Δ,   c = (1 - s - s²)/Δ,

so a, b > 0 on (0, 1) and the middle component c changes sign exactly once, at
s* = (√5 - 1)/2, the positive root of s² + s - 1 (c > 0 below, c < 0 above). Hence tight
constraints exist exactly for ε ≥ ε* = ln((1 + √5)/2) ≈ 0.48121 (the golden ratio), and
the set is monotone. tests/threshold/test_thr_exact.py checks that the library's exact
route returns this minimal polynomial and an enclosure of ln φ.
"""

import sys

import sympy as sp

PROVES = ["exactdp.threshold.api.tight_constraints_epsilons"]

ok = True


def check(cond, what):
    global ok
    if not cond:
        print("FAILED:", what)
        ok = False


s = sp.symbols("s", positive=True)
a, b, c = sp.symbols("a b c")
eqs = [
    (1 + s**2) * a + (s + s**2) * b + s * c - 1,
    (s + s**2) * a + (1 + s) * b + s * c - 1,
    2 * s * a + 2 * s * b + c - 1,
]
sol = sp.solve(eqs, [a, b, c], dict=True)[0]
# the reduced system really is Φz = 1 for the full 5x5 matrix
D = [[-(-abs(i - j) // 2) for j in range(5)] for i in range(5)]
Phi = sp.Matrix(5, 5, lambda i, j: s ** D[i][j])
z = sp.Matrix([sol[a], sol[b], sol[c], sol[b], sol[a]])
check(all(sp.simplify(e) == 0 for e in Phi * z - sp.ones(5, 1)), "Φ z = 1")
golden = (sp.sqrt(5) - 1) / 2
for name, expr in (("a", sol[a]), ("b", sol[b]), ("c", sol[c])):
    num, den = sp.fraction(sp.factor(expr))
    roots = [r for r in sp.Poly(num * den, s).real_roots() if 0 < r < 1]
    if name == "c":
        check(any(sp.simplify(r - golden) == 0 for r in roots), "c changes sign at s*")
    else:
        check(not roots, f"{name} has no root in (0, 1)")
    check(all(sp.N(r) >= sp.N(golden) - sp.Rational(1, 10**12) for r in roots),
          f"{name}: no sign change below s*")
# sign of b on both sides of s*
check(sp.simplify(sol[c] - (1 - s - s**2) / (s**2 + 3 * s + 1)) == 0, "closed form of c")
check(sol[c].subs(s, sp.Rational(61, 100)) > 0, "c > 0 just below s*")
check(sol[c].subs(s, sp.Rational(62, 100)) < 0, "c < 0 just above s*")
check(sp.expand(golden**2 + golden - 1) == 0, "s* is a root of s² + s - 1")
check(abs(sp.N(sp.log((1 + sp.sqrt(5)) / 2)) - sp.Float("0.4812118250596")) < 1e-12, "ε*")
# after s*: c stays negative up to 1 (monotone set): c has no other root in (s*, 1)
num_c, den_c = sp.fraction(sp.factor(sol[c]))
others = [r for r in sp.Poly(num_c * den_c, s).real_roots() if golden < r < 1]
check(not others, "c < 0 on the whole of (s*, 1)")

if not ok:
    sys.exit(1)
print("sum query u = v = 2: ε* = ln((1+√5)/2), proved")
