"""Thm. 1 and Cor. 1 of the paper (oblivious mechanisms H∘f), as used by exactdp/queries.py.

Def. 2. A chain y_1..y_n is tight when d_Y(y_1, y_n) = Σ d_Y(y_i, y_{i+1}); y, y' are
λ-expansive when d_Y(y, y') = λ·d_X(x, x') for some x ∈ f⁻¹(y), x' ∈ f⁻¹(y'); f is uniformly
λ-sensitive when (a) d_Y(f x, f x') ≤ λ·d_X(x, x') for all x, x', and (b) all y, y' are joined
by a tight λ-expansive chain.

Thm. 1 (with ε): if f is uniformly λ-sensitive, H is ε·d_Y-private iff H∘f is (ελ)·d_X-private.
Hence the least level of H∘f for d_X is λ·(least level of H for d_Y).

Proof. (⇒) h[f x, z] ≤ e^{ε d_Y(f x, f x')} h[f x', z] ≤ e^{ελ d_X(x, x')} h[f x', z] by (a).
(⇐) Take a tight λ-expansive chain y = y_1, …, y_n = y'. Each step has x_i ∈ f⁻¹(y_i),
x_i' ∈ f⁻¹(y_{i+1}) with d_Y(y_i, y_{i+1}) = λ d_X(x_i, x_i'), so privacy of H∘f gives
h[y_i, z] ≤ e^{ελ d_X(x_i, x_i')} h[y_{i+1}, z] = e^{ε d_Y(y_i, y_{i+1})} h[y_{i+1}, z];
multiplying along the chain and using tightness, h[y, z] ≤ e^{ε d_Y(y, y')} h[y', z]. ∎
"Least level" follows: the two sets {ε : H ε·d_Y-private} and {ε : H∘f ελ·d_X-private}
coincide, and their infima are L_H and L_{H∘f}/λ.

Cor. 1: for a graph metric d_X and the induced metric d_f, (a) holds with λ = 1 (a path in X
maps to an f-path, steps inside one fibre have length 0) and (b) holds (a shortest f-path is
tight, each f-edge has d_f = 1 = d_X of its adjacent witnesses), provided the induced graph
is connected. So the least ε of ε-DP for H∘f equals the least level of H for d_f.

Checked below by exhaustive exact enumeration on small instances (random exact H, the count,
sum and a non-uniform query; bounded and unbounded neighbours): the level of H∘f computed by
brute force over all pairs of databases equals λ·level(H, d_Y) whenever Def. 2 holds.
"""

import itertools
import random
import sys
from fractions import Fraction

PROVES = ["exactdp.queries.oblivious_level"]

failures = []


def check(name, ok):
    print(("ok   " if ok else "FAIL ") + name)
    if not ok:
        failures.append(name)


def graph_dist(nodes, adj):
    """All-pairs shortest path (BFS) on an unweighted graph; None when disconnected."""
    D = {}
    for s in nodes:
        D[(s, s)] = 0
        frontier, seen, k = [s], {s}, 0
        while frontier:
            k += 1
            nxt = []
            for u in frontier:
                for v in nodes:
                    if v not in seen and adj(u, v):
                        seen.add(v)
                        D[(s, v)] = k
                        nxt.append(v)
            frontier = nxt
    return D


def level_key_max(pairs):
    """Max of ln(r)/d over (r, d) with r ≥ 1 rational, d a positive integer, compared exactly:
    ln r1/d1 ≤ ln r2/d2 ⟺ r1^d2 ≤ r2^d1. Returns (r, d) or None (level 0)."""
    best = None
    for r, d in pairs:
        if r < 1:
            continue
        if best is None or r ** best[1] > best[0] ** d:
            best = (r, d)
    return best


def same_level(k1, k2, lam):
    """ln r1/d1 == λ·ln r2/d2 exactly (λ rational p/q): r1^(q·d2) == r2^(p·d1)."""
    if k1 is None or k2 is None:
        return (k1 is None or k1[0] == 1) and (k2 is None or k2[0] == 1)
    p, q = lam.numerator, lam.denominator
    return k1[0] ** (q * k2[1]) == k2[0] ** (p * k1[1])


def level(H, points, D):
    return level_key_max(
        (H[a][z] / H[b][z], D[(a, b)])
        for a, b in itertools.permutations(points, 2) for z in range(len(H[a])))


def bounded(a, b):
    return len(a) == len(b) and sum(x != y for x, y in zip(a, b)) == 1


def unbounded(a, b):
    if abs(len(a) - len(b)) != 1:
        return False
    s, t = (a, b) if len(a) < len(b) else (b, a)
    rest = list(t)
    for x in s:
        if x not in rest:
            return False
        rest.remove(x)
    return True


rng = random.Random(12)


def random_H(ys, m):
    H = {}
    for y in ys:
        w = [Fraction(rng.randint(1, 9)) for _ in range(m)]
        H[y] = [x / sum(w) for x in w]
    return H


def run_cor1(name, X, adj, f, trials=5):
    DX = graph_dist(X, adj)
    ys = sorted({f(x) for x in X})
    fadj = {(f(a), f(b)) for a in X for b in X if f(a) != f(b) and adj(a, b)}
    Df = graph_dist(ys, lambda u, v: (u, v) in fadj)
    ok = len(Df) == len(ys) ** 2
    for _ in range(trials):
        H = random_H(ys, 3)
        HF = {x: H[f(x)] for x in X}
        ok &= same_level(level(HF, X, DX), level(H, ys, Df), Fraction(1))
    check(f"Cor. 1 on {name}: level(H∘f, d_X) = level(H, d_f), {trials} random H", ok)


Xb = list(itertools.product([0, 1, 2], repeat=2))
run_cor1("sum query, bounded, V={0,1,2}, u=2", Xb, bounded, sum)
run_cor1("count query, bounded, V={0,1}, u=3", list(itertools.product([0, 1], repeat=3)),
         bounded, sum)
Xu = [tuple(c) for k in range(3) for c in itertools.combinations_with_replacement([0, 1], k)]
run_cor1("count query, unbounded, multisets of ≤ 2 bits", Xu, unbounded, sum)
run_cor1("2-count query, bounded", list(itertools.product([0, 1, 2, 3], repeat=2)), bounded,
         lambda x: (sum(v & 1 for v in x), sum(v >> 1 for v in x)))

# Thm. 1 with λ = 2: f(x) = 2·sum(x) on the integer line d_Y = |y − y'|
X = list(itertools.product([0, 1], repeat=2))
DX = graph_dist(X, bounded)
ys = [0, 2, 4]
DY = {(a, b): abs(a - b) for a in ys for b in ys}
ok = True
for _ in range(5):
    H = random_H(ys, 3)
    HF = {x: H[2 * sum(x)] for x in X}
    ok &= same_level(level(HF, X, DX), level(H, ys, DY), Fraction(2))
check("Thm. 1, λ = 2: level(H∘f, d_X) = 2·level(H, d_Y)", ok)

# Necessity of (b): f = 3·x_0 is 3-Lipschitz but has no 3-expansive chain from 0 to 3 inside a
# line with an unreachable middle; the theorem's equality can fail
X = list(itertools.product([0, 1], repeat=1))
DX = graph_dist(X, bounded)
ys = [0, 1, 3]
DY = {(a, b): abs(a - b) for a in ys for b in ys}
H = {0: [Fraction(1, 2), Fraction(1, 2)], 1: [Fraction(1, 100), Fraction(99, 100)],
     3: [Fraction(1, 4), Fraction(3, 4)]}
HF = {x: H[3 * x[0]] for x in X}
check("without (b) the levels can differ (answer 1 is never produced)",
      not same_level(level(HF, X, DX), level(H, ys, DY), Fraction(3)))

if failures:
    print(f"{len(failures)} step(s) failed")
    sys.exit(1)
print("all steps verified")
