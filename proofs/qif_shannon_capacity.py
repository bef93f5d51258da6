"""Shannon capacity: the dual (upper) bound used by ``exactdp.qif.shannon``.

Notation: C a channel (rows x, columns y), p a prior, r = pC its output distribution,
D(a ‖ b) = Σ_y a_y log(a_y / b_y), I(p; C) = Σ_x p_x D(C_x ‖ r). Capacity C_Sh = max_p I(p; C).

Theorem (dual bound). For every prior p and every output distribution q > 0,
    Σ_x p_x D(C_x ‖ q) = I(p; C) + D(r ‖ q),
hence I(p; C) ≤ Σ_x p_x D(C_x ‖ q) ≤ max_x D(C_x ‖ q) (D(r ‖ q) ≥ 0, Gibbs), and so
    I(p'; C) ≤ C_Sh ≤ max_x D(C_x ‖ q)   for any prior p' and any q > 0.
  Proof. log(C_xy / q_y) = log(C_xy / r_y) + log(r_y / q_y); multiply by p_x C_xy and sum:
  the first part is I(p; C), the second Σ_y (Σ_x p_x C_xy) log(r_y / q_y) = D(r ‖ q). ∎
Zero columns. If column y of C is all zero, then r_y = 0 for every p and no term of
D(C_x ‖ q) or D(r ‖ q) involves q_y (0·log(0/·) = 0), so the theorem holds with q_y = 0 there;
the kernel accepts q_y = 0 exactly where the whole column is zero and rejects it under any
C_xy > 0 (where D(C_x ‖ q) = +∞ and the bound says nothing).
(The bound is tight: at a capacity-achieving p and q = r it is an equality — Gallager's
Kuhn–Tucker condition D(C_x ‖ r) ≤ C_Sh with equality where p_x > 0.)

This script checks the identity symbolically (sympy, generic 2×3 and 3×2 channels, logs
expanded), Gibbs' inequality and the sandwich on random exact channels in 60-digit mpmath,
and the closed forms the tests use: BSC(e) has capacity 1 − h(e) with the uniform prior
and q uniform making both ends equal; the erasure channel BEC(e) has capacity 1 − e.
"""

import random
import sys
from fractions import Fraction

import mpmath as mp
import sympy as sp

PROVES = ["exactdp.qif.shannon.shannon_capacity", "exactdp.qif.shannon.ShannonCapacity",
          "exactdp.kernel.qif_log._capacity"]


def check(cond: bool, what: str) -> None:
    if not cond:
        print("FAILED:", what)
        sys.exit(1)


# the identity, symbolically
for n, m in ((2, 3), (3, 2)):
    p = sp.symbols(f"p0:{n}", positive=True)
    q = sp.symbols(f"q0:{m}", positive=True)
    C = [[sp.Symbol(f"c{x}{y}", positive=True) for y in range(m)] for x in range(n)]
    r = [sum(p[x] * C[x][y] for x in range(n)) for y in range(m)]
    lhs = sum(p[x] * C[x][y] * sp.log(C[x][y] / q[y]) for x in range(n) for y in range(m))
    mi = sum(p[x] * C[x][y] * sp.log(C[x][y] / r[y]) for x in range(n) for y in range(m))
    d = sum(r[y] * sp.log(r[y] / q[y]) for y in range(m))
    check(sp.simplify(sp.expand_log(lhs - mi - d, force=True)) == 0, f"identity {n}x{m}")

mp.mp.dps = 60
rng = random.Random(7)


def f(v):
    return mp.mpf(v.numerator) / v.denominator if isinstance(v, Fraction) else mp.mpf(v)


def kl(a, b):
    return mp.fsum(f(ai) * mp.log(f(ai) / f(bi)) for ai, bi in zip(a, b) if ai)


def rand_dist(k, positive=False):
    w = [rng.randint(1 if positive else 0, 9) for _ in range(k)]
    if not sum(w):
        w[0] = 1
    return [Fraction(v, sum(w)) for v in w]


for _ in range(200):
    n, m = rng.randint(1, 4), rng.randint(1, 4)
    C = [rand_dist(m) for _ in range(n)]
    p = rand_dist(n)
    q = rand_dist(m, positive=True)
    r = [sum(p[x] * C[x][y] for x in range(n)) for y in range(m)]
    mi = mp.fsum(f(p[x]) * kl(C[x], r) for x in range(n) if p[x])
    mix = mp.fsum(f(p[x]) * kl(C[x], q) for x in range(n) if p[x])
    check(abs(mix - mi - kl(r, q)) < mp.mpf(10) ** -50, "identity (numeric)")
    check(kl(r, q) >= -mp.mpf(10) ** -50, "Gibbs")
    check(mi <= max(kl(C[x], q) for x in range(n)) + mp.mpf(10) ** -50, "sandwich")

# closed forms: BSC(e) and BEC(e), in bits
for e in (Fraction(1, 10), Fraction(1, 3), Fraction(2, 5)):
    bsc = [[1 - e, e], [e, 1 - e]]
    h = -(f(e) * mp.log(f(e), 2) + f(1 - e) * mp.log(f(1 - e), 2))
    u = [Fraction(1, 2)] * 2
    lower = mp.fsum(kl(row, u) / 2 for row in bsc) / mp.log(2)
    upper = max(kl(row, u) for row in bsc) / mp.log(2)
    check(abs(lower - (1 - h)) < mp.mpf(10) ** -50 and abs(upper - (1 - h)) < mp.mpf(10) ** -50,
          "BSC: 1 − h(e) at the uniform prior, both ends")
    bec = [[1 - e, e, 0], [0, e, 1 - e]]
    r = [(1 - e) / 2, e, (1 - e) / 2]
    lower = mp.fsum(kl(row, r) / 2 for row in bec) / mp.log(2)
    upper = max(kl(row, r) for row in bec) / mp.log(2)
    check(abs(lower - f(1 - e)) < mp.mpf(10) ** -50 and abs(upper - f(1 - e)) < mp.mpf(10) ** -50,
          "BEC: 1 − e, both ends")

# review 16b. (i) C ≥ 0 (I(p; C) ≥ 0 for every p), so max(0, lower end) is still a lower
# bound. (ii) All rows equal to a row c: with q = c every D(C_x ‖ q) = Σ_y c_y log(c_y/c_y)
# = 0 exactly, so the dual bound gives C ≤ 0 and the enclosure is exactly [0, 0].
for _ in range(50):
    m = rng.randint(1, 4)
    c = rand_dist(m)
    rows = [c] * rng.randint(1, 4)
    check(all(kl(row, c) == 0 for row in rows), "equal rows: D(C_x ‖ c) = 0 exactly")
    p = rand_dist(len(rows))
    r = [sum(p[x] * rows[x][y] for x in range(len(rows))) for y in range(m)]
    check(r == c and mp.fsum(f(p[x]) * kl(rows[x], r) for x in range(len(rows))) == 0,
          "equal rows: I(p; C) = 0 for every prior")

print("qif_shannon_capacity: all checks passed")
