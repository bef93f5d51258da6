"""Theorem (a class replaced by another class: binomial masses by recurrence, grid sums).

Let class A's total be X_A ~ Binomial(n_A, p_A) (or a Poisson-binomial total, by its exact
law) and class B's total X_B ~ Binomial(n_B, p_B); the secret pair is S_{P,Q} with P, Q the
laws of X_A, X_B, both on the integers 0…N, N = max(n_A, n_B). Then

 (1) [recurrence] for 0 < p < 1, m_0 = (1 − p)^n and m_{i+1} = m_i (n − i)/(i + 1) · p/(1 − p)
     give m_i = C(n, i) p^i (1 − p)^{n − i} exactly (so balls built by this recurrence
     contain the exact masses; every factor is positive, the relative radius grows
     additively, O(n·2^{−prec}));
 (2) [grid sums] with r = e^{−1/θ}, the running sums L_j = r L_{j−1} + m_j (L_{−1} = 0) and
     R_j = r (R_{j+1} + m_{j+1}) (R_N = 0) satisfy L_j + R_j = Σ_i m_i r^{|j − i|} = g(j);
 (3) [finite maximum, monotone in θ] by ``proofs/pufferfish_supremum.py`` (3)–(4) (any two
     finite laws), L(θ) = max_{0 ≤ j ≤ N} |ln g_A(j) − ln g_B(j)|, non-increasing in θ, so
     θ* is bracketed by a certified FAILS at lo and HOLDS at hi;
 (4) [W∞ of integer laws] sup_u |F_A^{-1}(u) − F_B^{-1}(u)| ≤ w iff F_B(x) ≤ F_A(x + w) and
     F_A(x) ≤ F_B(x + w) for every integer x (Q_A(u) ≤ y ⟺ u ≤ F_A(y); take u = F_B(x) for
     necessity, y = Q_B(u) + w for sufficiency); the condition is monotone in w, so the
     least w is found by bisection.

(1) is checked symbolically, (4) against the quantile definition on random laws, (2) and
(3) by brute force against the direct double sum and
a dense grid of real outputs at 40 digits (mpmath). Exits non-zero on failure.
"""

from __future__ import annotations

import random
import sys
from fractions import Fraction

import mpmath
import sympy as sp

PROVES = [
    "exactdp.pufferfish.class_pairs.class_masses",
    "exactdp.pufferfish.class_pairs.class_pair_loss",
    "exactdp.pufferfish.class_pairs.class_pair_scale",
    "exactdp.pufferfish.class_pairs.class_pair_winf",
]

failures: list[str] = []


def check(name: str, ok: bool) -> None:
    print(("ok   " if ok else "FAIL ") + name)
    if not ok:
        failures.append(name)


# (1) the ratio of consecutive binomial masses
n, i = sp.symbols("n i", positive=True, integer=True)
p = sp.Symbol("p", positive=True)
m = sp.binomial(n, i) * p**i * (1 - p) ** (n - i)
m_next = sp.binomial(n, i + 1) * p ** (i + 1) * (1 - p) ** (n - i - 1)
ratio = sp.simplify(sp.combsimp(m_next / m) - (n - i) / (i + 1) * p / (1 - p))
check("(1) m_{i+1}/m_i = (n − i)/(i + 1) · p/(1 − p)", ratio == 0)
check("(1) m_0 = (1 − p)^n", sp.simplify(m.subs(i, 0) - (1 - p) ** n) == 0)
for nn in (1, 5, 12):
    pp = Fraction(3, 7)
    rec, x = [], (1 - pp) ** nn
    for k in range(nn + 1):
        rec.append(x)
        x = x * (nn - k) / (k + 1) * pp / (1 - pp)
    exact = [sp.binomial(nn, k) * sp.Rational(3, 7) ** k * sp.Rational(4, 7) ** (nn - k)
             for k in range(nn + 1)]
    check(f"(1) recurrence = exact binomial masses, n = {nn}",
          all(sp.Rational(a.numerator, a.denominator) == b for a, b in zip(rec, exact)))

# (4) W∞ by CDF domination = W∞ by quantiles, on random integer laws
rng4 = random.Random(4)
ok4 = True
for _ in range(300):
    na, nb = rng4.randint(0, 6), rng4.randint(0, 6)
    A = [Fraction(rng4.randint(0, 3)) for _ in range(na + 1)]
    B = [Fraction(rng4.randint(0, 3)) for _ in range(nb + 1)]
    A[rng4.randint(0, na)] += 1
    B[rng4.randint(0, nb)] += 1
    A = [v / sum(A) for v in A]
    B = [v / sum(B) for v in B]
    size = max(na, nb) + 1
    FA = [sum(A[: j + 1]) for j in range(size)]
    FB = [sum(B[: j + 1]) for j in range(size)]
    cuts = sorted(set(FA) | set(FB) | {Fraction(0)})
    us = [(u + v) / 2 for u, v in zip(cuts, cuts[1:])]  # u in every constancy interval

    def quant(Fc: list, u: Fraction) -> int:
        return next(j for j, f in enumerate(Fc) if f >= u)

    by_quantiles = max(abs(quant(FA, u) - quant(FB, u)) for u in us)
    by_cdfs = min(w for w in range(size) if all(
        FB[x] <= FA[min(x + w, size - 1)] and FA[x] <= FB[min(x + w, size - 1)]
        for x in range(size)))
    ok4 &= by_quantiles == by_cdfs
check("(4) W∞ by CDF domination = W∞ by quantiles (300 random integer laws)", ok4)

# (2) running sums against the double sum, and (3) against a dense grid of real outputs
mpmath.mp.dps = 40
rng = random.Random(17)
for trial in range(6):
    N = rng.randint(2, 7)
    ma = [mpmath.mpf(rng.randint(0, 5)) for _ in range(N + 1)]
    mb = [mpmath.mpf(rng.randint(0, 5)) for _ in range(N + 1)]
    ma[0] += 1
    mb[N] += 1
    sa, sb = sum(ma), sum(mb)
    ma, mb = [v / sa for v in ma], [v / sb for v in mb]
    theta = mpmath.mpf(rng.choice([1, 2, 3])) / 2
    r = mpmath.exp(-1 / theta)

    def running(ms: list, r: mpmath.mpf = r) -> list:
        left, acc = [], mpmath.mpf(0)
        for v in ms:
            acc = acc * r + v
            left.append(acc)
        out, acc = left[:], mpmath.mpf(0)
        for j in range(len(ms) - 2, -1, -1):
            acc = (acc + ms[j + 1]) * r
            out[j] += acc
        return out

    def direct(ms: list, y: mpmath.mpf, theta: mpmath.mpf = theta) -> mpmath.mpf:
        return sum(v * mpmath.exp(-abs(y - k) / theta) for k, v in enumerate(ms))

    ga, gb = running(ma), running(mb)
    ok2 = all(abs(ga[j] - direct(ma, j)) < mpmath.mpf(10) ** -35 for j in range(N + 1))
    check(f"(2) running sums = double sum (trial {trial})", ok2)
    grid = max(abs(mpmath.log(direct(ma, y)) - mpmath.log(direct(mb, y)))
               for y in mpmath.linspace(-3, N + 3, 150 * (N + 6)))
    on_points = max(abs(mpmath.log(a) - mpmath.log(b)) for a, b in zip(ga, gb))
    check(f"(3) the maximum over j = 0…N bounds a dense real grid (trial {trial})",
          grid <= on_points + mpmath.mpf(10) ** -30)

if failures:
    sys.exit(f"{len(failures)} check(s) failed")
print("all checks passed")
