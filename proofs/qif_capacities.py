"""Bayes capacities: the closed form of the multiplicative one, the sub-uniform rule of the additive one.

Notation: C a channel (rows x, columns y), π a prior, V(π) = max_x π_x,
V[π, C] = Σ_y max_x π_x C[x][y], u_S the prior uniform on a non-empty set S of secrets.

Theorem 1 (multiplicative Bayes capacity). max_π V[π, C] / V(π) = Σ_y max_x C[x][y],
attained at the uniform prior.
  Proof. π_x C[x][y] ≤ V(π)·max_x C[x][y]; sum over y. At π uniform, V[π, C] = (1/n)Σ_y max_x C,
  V(π) = 1/n. ∎

Theorem 2 (sub-uniform rule). max_π (V[π, C] − V(π)) = max_{∅≠S} f(u_S), with
f(u_S) = (Σ_y max_{x∈S} C[x][y] − 1) / |S|.
  Proof. Sort π: π_(1) ≥ … ≥ π_(n) ≥ π_(n+1) := 0, S_k the k largest. Then
  (a) π = Σ_k λ_k u_{S_k} with λ_k = k(π_(k) − π_(k+1)) ≥ 0 and Σ_k λ_k = Σ_k π_(k) = 1;
  (b) V(π) = π_(1) = Σ_k (π_(k) − π_(k+1)) = Σ_k λ_k V(u_{S_k}) (V(u_{S_k}) = 1/k): V is
      *linear* along this nested decomposition;
  (c) V[·, C] is convex (a sum of maxima of linear forms), so V[π, C] ≤ Σ_k λ_k V[u_{S_k}, C];
  (d) hence f(π) ≤ Σ_k λ_k f(u_{S_k}) ≤ max_k f(u_{S_k}) ≤ max_S f(u_S); and every u_S is a
      prior, so the maximum is attained. ∎
  Used by ``exactdp.qif.capacity.subuniform_value`` (the capacity is the best subset value).

This script checks (a), (b) symbolically for n ≤ 5, and (c)/(d) and Theorem 1 on random
exact channels and priors (the inequality and the attainment, in exact rationals).
"""

import itertools
import random
import sys
from fractions import Fraction

import sympy as sp

PROVES = ["exactdp.qif.capacity.subuniform_value", "exactdp.kernel.qif._subuniform"]


def check(cond: bool, what: str) -> None:
    if not cond:
        print("FAILED:", what)
        sys.exit(1)


# (a), (b) symbolically: p1 ≥ p2 ≥ … ≥ pn (sorted), λ_k = k (p_k − p_{k+1}).
for n in range(1, 6):
    p = sp.symbols(f"p1:{n + 1}")
    pp = list(p) + [0]
    lam = [(k + 1) * (pp[k] - pp[k + 1]) for k in range(n)]
    for i in range(n):  # coordinate i (the i-th largest) of Σ λ_k u_{S_k}
        coord = sum(lam[k] / (k + 1) for k in range(i, n))
        check(sp.simplify(coord - p[i]) == 0, f"(a) coordinate {i}, n={n}")
    check(sp.simplify(sum(lam[k] / (k + 1) for k in range(n)) - p[0]) == 0, f"(b) n={n}")
    check(sp.simplify(sum(lam) - sum(p)) == 0, f"Σλ = Σπ, n={n}")

rng = random.Random(16)


def rand_dist(k: int) -> list[Fraction]:
    w = [rng.randint(0, 6) for _ in range(k)]
    if not any(w):
        w[0] = 1
    return [Fraction(v, sum(w)) for v in w]


def post(C, pi):
    return sum(max(pi[x] * C[x][y] for x in range(len(C))) for y in range(len(C[0])))


def f_sub(C, S):
    return (sum(max(C[x][y] for x in S) for y in range(len(C[0]))) - 1) / Fraction(len(S))


for _trial in range(300):
    n, m = rng.randint(1, 5), rng.randint(1, 5)
    C = [rand_dist(m) for _ in range(n)]
    best = max(f_sub(C, S) for k in range(1, n + 1) for S in itertools.combinations(range(n), k))
    ml = sum(max(C[x][y] for x in range(n)) for y in range(m))
    uni = [Fraction(1, n)] * n
    check(post(C, uni) / max(uni) == ml, "Theorem 1: attained at uniform")
    for _ in range(10):
        pi = rand_dist(n)
        check(post(C, pi) <= max(pi) * ml, "Theorem 1: upper bound")
        # (c): the decomposition inequality
        order = sorted(range(n), key=lambda x: -pi[x])
        ps = [pi[x] for x in order] + [Fraction(0)]
        total = Fraction(0)
        for k in range(n):
            lam = (k + 1) * (ps[k] - ps[k + 1])
            if lam:
                total += lam * f_sub(C, order[:k + 1])
        check(post(C, pi) - max(pi) <= total <= best, "(c)/(d) decomposition bound")
    for k in range(1, n + 1):
        for S in itertools.combinations(range(n), k):
            u = [Fraction(1, k) if x in S else Fraction(0) for x in range(n)]
            check(post(C, u) - max(u) == f_sub(C, S), "f(u_S) closed form")

print("qif_capacities: all checks passed")
