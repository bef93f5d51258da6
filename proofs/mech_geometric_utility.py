"""Uniform-prior optimal utility of the truncated geometric mechanism, and of products.

Theorem. For the truncated geometric mechanism on 0..N (N ≥ 1) with parameter a in (0,1)
(h[y,z] = a^{|y−z|} c_z, c_0 = c_N = 1/(1+a), c_z = (1−a)/(1+a) inside):

1. the column maximum max_y h[y, z] is the diagonal entry h[z, z] = c_z (a^{|y−z|} ≤ 1);
2. so under the uniform prior U* = (1/(N+1)) Σ_z c_z = (2/(1+a) + (N−1)(1−a)/(1+a))/(N+1);
3. for k independent copies on {0..N}^k (uniform prior, product columns) the column
   maximum factorises, max_{y} Π_i g(y_i, z_i) = Π_i max_{y_i} g(y_i, z_i), hence
   U* = (U*_1)^k.
4. For the tight-constraints mechanism H = Φ·diag(z), z ≥ 0, entries Φ ≤ 1: the column max
   is z_z, so the uniform-prior utility is Σ z / n.

``exactdp.reproduce.fig6`` evaluates these closed forms (checked here symbolically, and
against brute-force column maxima on concrete sizes).
"""

import itertools
import sys

import sympy as sp

PROVES = [
    "exactdp.reproduce.fig6.geometric_uniform_utility",
    "exactdp.reproduce.fig6.tight_constraints_uniform_utility",
]

a = sp.symbols("a", positive=True)


def check(cond: bool, what: str) -> None:
    if not cond:
        print("FAILED:", what)
        sys.exit(1)


def geometric(npts: int, aa):
    def c(z):
        return 1 / (1 + aa) if z in (0, npts - 1) else (1 - aa) / (1 + aa)

    return [[aa ** abs(y - z) * c(z) for z in range(npts)] for y in range(npts)]


for npts in range(2, 9):
    N = npts - 1
    closed = (2 / (1 + a) + (N - 1) * (1 - a) / (1 + a)) / (N + 1)
    for aa in (sp.Rational(1, 7), sp.Rational(1, 2), sp.Rational(9, 10)):
        H = geometric(npts, aa)
        brute = sum(max(H[y][z] for y in range(npts)) for z in range(npts)) / npts
        check(sp.simplify(brute - closed.subs(a, aa)) == 0, f"1D, n={npts}, a={aa}")
        # 3. product of two copies
        pts = list(itertools.product(range(npts), repeat=2))
        brute2 = sum(
            max(H[y1][z1] * H[y2][z2] for (y1, y2) in pts) for (z1, z2) in pts
        ) / len(pts)
        check(sp.simplify(brute2 - closed.subs(a, aa) ** 2) == 0, f"2D, n={npts}")
# 1. in general: a^{|y−z|} ≤ 1 for 0 < a < 1 and c_z ≥ 0, so h[y,z] ≤ c_z = h[z,z]
#    (the brute-force column maxima above agree with it on every size tried).

# 4. tight constraints on a small metric (cycle 5, t = 1/3): column max is the diagonal
t = sp.Rational(1, 3)
n = 5
Phi = sp.Matrix(n, n, lambda i, j: t ** min(abs(i - j), n - abs(i - j)))
z = Phi.solve(sp.ones(n, 1))
H = Phi * sp.diag(*z)
check(all(max(H[:, j]) == z[j] for j in range(n)), "TC column max is z")
print("geometric and tight-constraints uniform utilities: all steps verified")
