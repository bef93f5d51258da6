"""Thm. 4's remap LP has a closed form: Σ_z max_y c_y·H[y, z] = n, with explicit certificates.

Setting: a metric d on Y = {0..n−1}, t = e^{-ε}, Φ[y, y'] = t^{d(y, y')} (symmetric, Φ[y, y] = 1),
H an ε·d-private mechanism (n × m), c = Φᵀ1 (c_y = Σ_{y'} Φ[y', y]). The LP (*) of
``exactdp.mechanisms.optimality``: find R (m × n) with R ≥ 0, R·1 = 1, Φ·diag(HR) = 1.

Lemma 1 (row bound). For every row-stochastic R, every row of Φ·diag(HR) is ≤ 1.
  Proof. K = HR is ε·d-private (post-processing). Privacy at output y' gives
  K[y, y'] ≥ t^{d(y, y')}·K[y', y']; summing over y', 1 = Σ_{y'} K[y, y'] ≥ (Φ·diag K)_y. ∎

Theorem 2 (closed form). With μ_z = max_y c_y·H[y, z], (*) is feasible iff Σ_z μ_z = n
(and Σ_z μ_z ≤ n always).
  Proof. Σ_y (Φ·diag(HR))_y = Σ_{z, y} c_y H[y, z] R[z, y] ≤ Σ_z μ_z (each row R[z, ·] is a
  distribution), with equality for the 0/1 remap R*[z, argmax_y c_y H[y, z]] = 1. By Lemma 1
  the left side is ≤ n; it equals n iff every row equals 1. So (*) is feasible iff
  max_R Σ_y(...) = Σ_z μ_z reaches n, and then R* is a solution. ∎

Theorem 3 (Farkas certificate). Write (*) as A x = b, x ≥ 0 (x[z·n + y] = R[z, y]; rows: the
n equations of Φ·diag(HR) = 1, then the m row sums; b = 1). For w = (−1, …, −1, μ̄_1, …, μ̄_m):
(Aᵀw)[z, y] = μ̄_z − c_y·H[y, z] and b·w = Σ_z μ̄_z − n. So any rational μ̄_z ≥ μ_z with
Σ_z μ̄_z < n proves infeasibility (Farkas), with no appeal to Lemma 1. ∎

Theorem 4 (structure). If H = Φ·diag(z) with Φz = 1, z ≥ 0 (the tight-constraints mechanism),
the identity remap solves (*): diag(H)_y = Φ[y, y]·z_y = z_y, so Φ·diag(H) = Φz = 1 — an
identity whatever closed form z has. ∎

Remark (termination at irrational t). For ε ≠ 0 rational and q ≥ 1, x = e^{-ε/(q·b)} is
transcendental (Lindemann–Weierstrass), so a rational function in Q(x) that is not identically
zero does not vanish at x: equalities are decided as identities in Q(x), inequalities by ball
arithmetic at increasing precision, which terminates. Soundness needs none of this (identities
imply equality at any x; certified signs are signs).

This script checks Lemma 1 and Theorem 2 against the exact simplex on random private
mechanisms (rational t), Theorem 3's formula for Aᵀw symbolically, and Theorem 4 symbolically
on the line (n = 4) with t a symbol.
"""

import random
import sys
from fractions import Fraction

import sympy as sp

from exactdp.algebra.lp import solve_lp

PROVES = [
    "exactdp.mechanisms.optimality.is_optimal",
    "exactdp.mechanisms.optimality.RemapCertificate",
    "exactdp.mechanisms.optimality.FarkasRemapCertificate",
    "exactdp.mechanisms.optimality_field.exact_phi_values",
]


def check(cond: bool, what: str) -> None:
    if not cond:
        print("FAILED:", what)
        sys.exit(1)


def system(H, Phi):
    n, m = len(H), len(H[0])
    A, b = [], []
    for y in range(n):
        row = [Fraction(0)] * (m * n)
        for y2 in range(n):
            for z in range(m):
                row[z * n + y2] += Phi[y][y2] * H[y2][z]
        A.append(row)
        b.append(Fraction(1))
    for z in range(m):
        A.append([Fraction(int(k // n == z)) for k in range(m * n)])
        b.append(Fraction(1))
    return A, b


def private(H, Phi):
    n, m = len(H), len(H[0])
    return all(H[a][z] >= Phi[a][b] * H[b][z] for a in range(n) for b in range(n) for z in range(m))


rng = random.Random(16)
# Theorem 4, symbolically: line(4), H = Φ diag(Φ^{-1} 1), identity remap
ts = sp.Symbol("t", positive=True)
P4 = sp.Matrix(4, 4, lambda i, j: ts ** abs(i - j))
z4 = sp.simplify(P4.inv() * sp.ones(4, 1))
H4 = P4 * sp.diag(*z4)
check(sp.simplify(P4 * sp.Matrix([H4[i, i] for i in range(4)]) - sp.ones(4, 1)) == sp.zeros(4, 1),
      "Theorem 4 on line(4)")
# Theorem 3, symbolically: n = 3, m = 2, generic H, Φ, μ̄
n, m = 3, 2
Hs = [[sp.Symbol(f"h{y}{z}") for z in range(m)] for y in range(n)]
Ps = [[sp.Integer(1) if y == y2 else sp.Symbol(f"p{min(y, y2)}{max(y, y2)}") for y2 in range(n)]
      for y in range(n)]
mus = [sp.Symbol(f"mu{z}") for z in range(m)]
w = [-1] * n + mus
for z in range(m):
    for y in range(n):
        col = [Ps[yr][y] * Hs[y][z] for yr in range(n)] + [int(k == z) for k in range(m)]
        lhs = sum(wi * ci for wi, ci in zip(w, col))
        cy = sum(Ps[yr][y] for yr in range(n))
        check(sp.expand(lhs - (mus[z] - cy * Hs[y][z])) == 0, "Theorem 3: (Aᵀw)[z, y]")
# Lemma 1 and Theorem 2 against the exact simplex
feasible_seen = infeasible_seen = 0
for trial in range(120):
    n = rng.randint(2, 4)
    t = Fraction(rng.randint(1, 4), 5)
    kind = rng.choice(["line", "cycle", "discrete"])
    if kind == "line":
        D = [[abs(i - j) for j in range(n)] for i in range(n)]
    elif kind == "cycle":
        D = [[min(abs(i - j), n - abs(i - j)) for j in range(n)] for i in range(n)]
    else:
        D = [[int(i != j) for j in range(n)] for i in range(n)]
    Phi = [[t ** D[i][j] for j in range(n)] for i in range(n)]
    # a private H: the truncated-geometric-like kernel K[y][z] ∝ t^{D}, post-processed
    # and mixed with uniform
    K = [[t ** D[y][z] for z in range(n)] for y in range(n)]
    K = [[v / sum(r) for v in r] for r in K]
    m = rng.randint(1, n + 1)
    P = [[Fraction(rng.randint(0, 2)) for _ in range(m)] for _ in range(n)]
    P = [[v / sum(r) for v in r] if sum(r) else [Fraction(1, m)] * m for r in P]
    if rng.random() < 0.4:
        P = [[Fraction(int(z == y % m)) for z in range(m)] for y in range(n)]
    H = [[sum(K[y][k] * P[k][z] for k in range(n)) for z in range(m)] for y in range(n)]
    lam = Fraction(rng.choice([0, 0, 1, 2]), 7)
    H = [[(1 - lam) * v + lam / m for v in r] for r in H]
    if not private(H, Phi):
        continue
    c = [sum(Phi[yr][y] for yr in range(n)) for y in range(n)]
    mu = [max(c[y] * H[y][z] for y in range(n)) for z in range(m)]
    for _ in range(5):  # Lemma 1 on random remaps
        R = [[Fraction(rng.randint(0, 3)) for _ in range(n)] for _ in range(m)]
        R = [[v / sum(r) for v in r] if sum(r) else [Fraction(1, n)] * n for r in R]
        diag = [sum(H[y][z] * R[z][y] for z in range(m)) for y in range(n)]
        rows = [sum(Phi[y][y2] * diag[y2] for y2 in range(n)) for y in range(n)]
        check(all(r <= 1 for r in rows) and sum(rows) <= sum(mu), "Lemma 1 / Σ bound")
    A, b = system(H, Phi)
    res = solve_lp(A, b)
    check(sum(mu) <= n, "Σ μ ≤ n")
    check(res.feasible == (sum(mu) == n), f"Theorem 2 on trial {trial}")
    feasible_seen += res.feasible
    infeasible_seen += not res.feasible
check(feasible_seen >= 5 and infeasible_seen >= 5, "both outcomes exercised")
# review 16b, exact_phi_values: Φ entries are s^k (s = e^{-ε/q}, k the exponents). With
# g = gcd(k) and r = s^g, s^k = r^{k/g} (k/g a whole number), so r rational makes every
# entry rational; conversely g = Σ a_i k_i (Bézout) gives r = Π (s^{k_i})^{a_i}.
eps_, q_ = sp.log(2) / 2, 1
for ks in ([0, 2, 4], [0, 6, 4, 10], [0, 3, 9]):
    g = 0
    for k in ks:
        g = sp.gcd(g, k)
    s_ = sp.exp(-eps_ / q_)
    r = sp.exp(-eps_ * g / q_)
    for k in ks:
        check(sp.simplify(s_**k - r ** (k // g)) == 0, f"s^{k} = (s^g)^(k/g)")
    check(isinstance(r, sp.Rational) == (g % 2 == 0), "s^g rational iff g even at ε = ln(2)/2")

print(f"qif_optimality_reduction: all checks passed ({feasible_seen} feasible, "
      f"{infeasible_seen} infeasible instances)")
