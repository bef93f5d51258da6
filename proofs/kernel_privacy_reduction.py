"""The two lemmas the kernel's privacy checks (exactdp/kernel/privacy.py) rely on.

1. Edge reduction. Let d be a metric on {0..n−1}, E a set of pairs with d > 0 on each, such
   that every pair a ≠ b has an edge (a, c) ∈ E with d(a, c) + d(c, b) = d(a, b). If
   H[x, z] ≤ e^{L·d(x, y)}·H[y, z] for every edge (x, y) (both directions) and every z, then
   the same holds for every pair. Proof: induction on d(a, b) over its finitely many values.
   Take the edge (a, c) above; if c = b we are done, otherwise c ≠ b and
   d(c, b) = d(a, b) − d(a, c) < d(a, b), so H[c, z] ≤ e^{L d(c,b)} H[b, z] by induction and
   H[a, z] ≤ e^{L d(a,c)} H[c, z] ≤ e^{L (d(a,c) + d(c,b))} H[b, z] = e^{L d(a,b)} H[b, z]
   (multiplying by the positive e^{L d(a,c)}; zeros need no special case). Hence the least
   L over E equals the least L over all pairs, and "private at ε on E" is "private at ε".
2. Exact comparison. For rationals r, T ≥ 1 and distances d, e > 0 with d/e = a/b rational
   (a, b positive integers), sign(ln r/d − ln T/e) = sign(b·ln r − a·ln T) = sign(r^b − T^a).
   When d/e is irrational the two are never equal unless r = T = 1 (Gelfond–Schneider: for
   T > 1, ln r/ln T is rational or transcendental, never an irrational algebraic d/e), so
   balls of rising precision separate them.

Both are checked here on random instances by exact enumeration: the kernel's
``edges_suffice`` against the definition and the level over all pairs versus over the edges
(integer powers, no floats), and ``log_sign`` against r^b vs T^a.
"""

import random
import sys
from fractions import Fraction as F

from exactdp.kernel.privacy import edges_suffice, log_sign
from exactdp.spaces.distances import Distance
from exactdp.spaces.metrics import cycle, from_graph, hamming, line

PROVES = [
    "exactdp.kernel.privacy.edges_suffice",
    "exactdp.kernel.privacy.log_sign",
]


def cmp_log(r1, d1, r2, d2):
    """sign(ln r1/d1 − ln r2/d2), rational d: r1^(d2) vs r2^(d1), denominators cleared."""
    a, b = d2.numerator * d1.denominator, d1.numerator * d2.denominator
    x, y = r1**a, r2**b
    return (x > y) - (x < y)


def level(rows, D, pairs):
    """The largest ln(H[x,z]/H[y,z])/d(x,y) over ``pairs`` (both directions), as (R, d), or
    "inf", or None (level 0)."""
    best = None
    for a, b in pairs:
        for x, y in ((a, b), (b, a)):
            for z in range(len(rows[0])):
                if rows[x][z] == 0:
                    continue
                if rows[y][z] == 0:
                    return "inf"
                r = rows[x][z] / rows[y][z]
                if r > 1 and (best is None or cmp_log(r, D[x][y], *best) > 0):
                    best = (r, D[x][y])
    return best


def same(u, v):
    if u is None or v is None or u == "inf" or v == "inf":
        return u == v
    return cmp_log(*u, *v) == 0


def main() -> int:
    rng = random.Random(2026)
    checked = 0
    for metric in (line(5), cycle(6), hamming(2, 3),
                   from_graph([(0, 1, 1), (1, 2, 2), (2, 3, 1), (0, 3, 3), (1, 3, 2)])):
        n = metric.n
        D = [[F(metric.distance(i, j).coef) for j in range(n)] for i in range(n)]
        edges = metric.graph_edges
        assert edges is not None and edges_suffice(metric, edges), metric.name
        everything = [(a, b) for a in range(n) for b in range(a + 1, n)]
        for _ in range(40):
            rows = []
            for _ in range(n):
                w = [rng.randint(0 if rng.random() < 0.1 else 1, 9) for _ in range(3)]
                w[rng.randrange(3)] += 1
                rows.append([F(x, sum(w)) for x in w])
            assert same(level(rows, D, edges), level(rows, D, everything)), (metric.name, rows)
            checked += 1
        # removing an edge that carries some shortest path must break the claim
        for k in range(len(edges)):
            fewer = edges[:k] + edges[k + 1:]
            ok = all(any(c != a and D[a][c] > 0 and D[a][c] + D[c][b] == D[a][b]
                         for e in fewer for (p, c) in (e, e[::-1]) if p == a)
                     for a in range(n) for b in range(n) if a != b)
            assert edges_suffice(metric, fewer) == ok
    for _ in range(300):
        r, T = F(rng.randint(1, 50), rng.randint(1, 20)), F(rng.randint(1, 50), rng.randint(1, 20))
        r, T = max(r, 1 / r), max(T, 1 / T)
        d, e = F(rng.randint(1, 6), rng.randint(1, 4)), F(rng.randint(1, 6), rng.randint(1, 4))
        want = cmp_log(r, d, T, e)
        assert log_sign(r, Distance.rational(d), T, Distance.rational(e)) == want
        assert log_sign(r * r, Distance.rational(2 * d), r, Distance.rational(d)) == 0
        checked += 1
    print(f"kernel privacy lemmas: {checked} instances checked exactly")
    return 0


if __name__ == "__main__":
    sys.exit(main())
