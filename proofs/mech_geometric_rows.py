"""Closed forms behind the mechanism constructors and the monomial privacy level.

1. Truncated geometric on 0..n−1 with parameter s in (0, 1): the row
   h[y, ·] = s^{|y−z|}·c_z with c_0 = c_{n−1} = 1/(1+s), c_z = (1−s)/(1+s) inside,
   sums to 1 for every y (it is row y of Φ·diag(c) with Φ[y,z] = s^{|y−z|}, and Φc = 1).
2. k independent copies (k-count comparator) have rows Π_i g(y_i, z_i): they sum to
   Π_i (Σ_z g(y_i, z)) = 1.
3. Randomized response on n values: (1 + (n−1)s)/(1 + (n−1)s) = 1.
4. Monomial form h[y,z] = c_z s^{E[y,z]} with c_z > 0: h[y,z]/h[y',z] = s^{E[y,z]−E[y',z]}
   (c_z cancels), so ln(h[y,z]/h[y',z]) / d = (−ln s)·(E[y',z] − E[y,z]) / d and the level is
   (−ln s)·max Δ/d, an exact closed form for any s.
5. Path argument: for a shortest-path metric, if ln h[a,z] − ln h[b,z] ≤ ε d(a,b) on every
   edge (a,b), then along a shortest path y = p_0, …, p_m = y' the differences telescope:
   ln h[y,z] − ln h[y',z] = Σ (ln h[p_i,z] − ln h[p_{i+1},z]) ≤ ε Σ d(p_i,p_{i+1}) = ε d(y,y').
   (Zeros: h[p_{i+1},z] = 0 forces h[p_i,z] = 0 on that edge, so h[y,z] = 0 by induction.)
   So checking edges only (``metric.check_edges()``) gives the same least ε as all pairs.
6. The geometric comparators' levels: the sum query's parameter s = e^{−ε/v} gives
   ratio ≤ s^{−|y−y'|} ≤ e^{ε} on an edge (|y − y'| ≤ v), attained at z = 0 for |y−y'| = v;
   the k-count comparator at ε/k per coordinate gives ≤ e^{ε/k·k} on a king move.

Steps 1–4 are checked symbolically; 5–6 on concrete instances by exact enumeration.
"""

import itertools
import math
import random
import sys
from fractions import Fraction as F

import sympy as sp

PROVES = [
    "exactdp.mechanisms.constructors.geometric_line",
    "exactdp.mechanisms.constructors.truncated_geometric",
    "exactdp.mechanisms.constructors.sum_query_geometric",
    "exactdp.mechanisms.constructors.count_queries_geometric",
    "exactdp.mechanisms.constructors.randomized_response",
    "exactdp.mechanisms.privacy.privacy_level",
    "exactdp.mechanisms.privacy_routes.level_monomial",
]

s = sp.symbols("s", positive=True)
n, y = sp.symbols("n y", integer=True, positive=True)


def check(cond: bool, what: str) -> None:
    if not cond:
        print("FAILED:", what)
        sys.exit(1)


def G(k):  # Σ_{r=0}^{k-1} s^r
    return (1 - s**k) / (1 - s)


end, inner = 1 / (1 + s), (1 - s) / (1 + s)
# 1. interior row 1 ≤ y ≤ n−2, end row y = 0 (symbolic n, y); row n−1 mirrors row 0
row = end * s**y + end * s ** (n - 1 - y) + inner * (G(y) + s * G(n - 2 - y))
check(sp.simplify(row - 1) == 0, "interior row")
check(sp.simplify(end + s ** (n - 1) * end + inner * s * G(n - 2) - 1) == 0, "end row")
for nn in range(2, 9):
    P = sp.Matrix(nn, nn, lambda a, b: s ** abs(a - b))
    c = sp.Matrix([end] + [inner] * (nn - 2) + [end])
    check(sp.simplify(P * c - sp.ones(nn, 1)) == sp.zeros(nn, 1), f"Φc = 1, n = {nn}")

# 2. products of stochastic rows
g0, g1 = sp.symbols("g0 g1")
check(sp.expand((g0 + (1 - g0)) * (g1 + (1 - g1))) == 1, "product of stochastic rows")

# 3. randomized response
check(sp.simplify((1 + (n - 1) * s) / (1 + (n - 1) * s)) == 1, "RR row")

# 4. monomial ratio
cz, e1, e2 = sp.symbols("c_z e1 e2", positive=True)
check(sp.simplify((cz * s**e1) / (cz * s**e2) - s ** (e1 - e2)) == 0, "c_z cancels")

# 5. path argument, exact enumeration on a line and a cycle with random exact rows

random.seed(1)
for npts, edges, dist in (
    (5, [(i, i + 1) for i in range(4)], lambda a, b: abs(a - b)),
    (6, [(i, (i + 1) % 6) for i in range(6)], lambda a, b: min(abs(a - b), 6 - abs(a - b))),
):
    for _ in range(20):
        rows = []
        for _ in range(npts):
            w = [random.randint(1, 9) for _ in range(3)]
            rows.append([F(x, sum(w)) for x in w])
        def lvl(pairs, rows=rows, dist=dist):
            return max(math.log(rows[a][z] / rows[b][z]) / dist(a, b)
                       for a, b in pairs for z in range(3))

        all_pairs = [(a, b) for a, b in itertools.permutations(range(npts), 2)]
        edge_pairs = edges + [(b, a) for a, b in edges]
        check(abs(lvl(all_pairs) - lvl(edge_pairs)) < 1e-12, "edges give the all-pairs level")

# 6. sum-query comparator: ratio bound s^{-v} attained on an edge of length v at z = 0
ss = F(1, 2)
for nn, v in ((7, 2), (10, 3)):
    g = [[ss ** abs(a - b) * ((1 / (1 + ss)) if b in (0, nn - 1) else (1 - ss) / (1 + ss))
          for b in range(nn)] for a in range(nn)]
    best = max(g[a][z] / g[b][z] for a in range(nn) for b in range(nn)
               if 0 < abs(a - b) <= v for z in range(nn))
    check(best == ss ** (-v), "sum-query comparator ratio")
print("geometric rows, monomial level, path argument: all steps verified")
