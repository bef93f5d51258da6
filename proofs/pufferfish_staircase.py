"""Theorem (staircase noise for a Pufferfish secret pair: a finite maximum of exact ratios).

Staircase law (Geng–Viswanath) with Δ > 0, ε₀ > 0, γ ∈ [0, 1], b = e^{−ε₀}: density
f(x) = a·b^{e(|x|)}, e(r) = k + [r − kΔ ≥ γΔ] for r ∈ [kΔ, (k + 1)Δ). For finite laws P, Q
put G_P(y) = Σ_d P(d) b^{e(|y − d|)} (so the density of X + Z is a·G_P(y) when X ~ P).

 (0) [normalizer] ∫ f = 1 iff a = (1 − b)/(2Δ(γ + (1 − γ)b));
 (1) [every population] for any independent rest R, the ratio of output densities is a
     mediant of the ratios G_P(x)/G_Q(x), so it is ≤ sup_x G_P/G_Q, attained for a
     point-mass rest (the mediant argument of proofs/pufferfish_supremum.py (1)–(2) uses
     nothing about the noise but its density);
 (2) [periodic tails] e(r + Δ) = e(r) + 1, so for y ≥ s_m (largest support point) every
     exponent rises by 1 from y to y + Δ and G_P(y + Δ)/G_Q(y + Δ) = G_P(y)/G_Q(y); the same
     for y ≤ s_0; hence sup over R = sup over [s_0 − Δ, s_m + Δ];
 (3) [pieces] e(|y − d|) is constant in y between consecutive points of
     {d ± kΔ, d ± (k + γ)Δ}, so on each piece of the window G_P/G_Q is the constant ratio
     of two polynomials in b with the masses as coefficients; L = max over the pieces;
 (4) [conservative] e is non-decreasing with e(r + Δ) = e(r) + 1 and ||x + t| − |x|| ≤ |t|,
     so |e(|x + t|) − e(|x|)| ≤ 1 for |t| ≤ Δ: with Δ ≥ W∞(P, Q) the monotone coupling and
     the mediant give L ≤ ε₀.

(Output densities are defined up to null sets, so the loss is an ESSENTIAL supremum: the
values at the break points themselves do not count.) Checked below with sympy, by brute
force on random rationals, and the maximum over pieces
against a 50-digit mpmath scan of the density ratio (built from the definition, normalized
by (0)). Exits non-zero on failure.
"""

from __future__ import annotations

import math
import random
import sys
from fractions import Fraction

import mpmath
import sympy as sp

PROVES = ["exactdp.pufferfish.staircase.staircase_loss"]

failures: list[str] = []


def check(name: str, ok: bool) -> None:
    print(("ok   " if ok else "FAIL ") + name)
    if not ok:
        failures.append(name)


b, D, g = sp.symbols("b Delta gamma", positive=True)
k = sp.Symbol("k", integer=True, nonnegative=True)
a = (1 - b) / (2 * D * (g + (1 - g) * b))
mass = 2 * a * D * (g + (1 - g) * b) * sp.Sum(b**k, (k, 0, sp.oo)).doit().args[0][0]
check("(0) 2Σ_k a(γΔ b^k + (1 − γ)Δ b^{k+1}) = 1", sp.simplify(mass - 1) == 0)


def step(r: Fraction, delta: Fraction, gamma: Fraction) -> int:
    q = abs(r) / delta
    kk = math.floor(q)
    return kk + (1 if q - kk >= gamma else 0)


def grid(start: Fraction, span: Fraction) -> list[Fraction]:
    """Step 1/97 shifted by 1/1000003: no grid point is a break point."""
    return [start + Fraction(j, 97) + Fraction(1, 1000003) for j in range(97 * int(span) * 2)]


rng = random.Random(11)
ok2 = ok4 = True
for _ in range(3000):
    delta = Fraction(rng.randint(1, 9), rng.randint(1, 4))
    gamma = Fraction(rng.randint(0, 8), 8)
    r = Fraction(rng.randint(0, 400), rng.randint(1, 30))
    ok2 &= step(r + delta, delta, gamma) == step(r, delta, gamma) + 1
    x = Fraction(rng.randint(-400, 400), rng.randint(1, 30))
    t = delta * Fraction(rng.randint(-100, 100), 100)
    ok4 &= abs(step(x + t, delta, gamma) - step(x, delta, gamma)) <= 1
check("(2) e(r + Δ) = e(r) + 1 (3000 random rationals)", ok2)
check("(4) |e(|x + t|) − e(|x|)| ≤ 1 for |t| ≤ Δ (3000 random rationals)", ok4)

# (0) numerically, (1) mediant and (3) pieces against a 50-digit scan
mpmath.mp.dps = 50
for trial in range(4):
    delta = Fraction(rng.randint(2, 5), 2)
    gamma = Fraction(rng.randint(1, 3), 4)
    eps0 = mpmath.mpf(rng.randint(1, 3)) / 2
    bb = mpmath.exp(-eps0)
    an = (1 - bb) / (2 * mpmath.mpf(delta.numerator) / delta.denominator
                     * (mpmath.mpf(gamma.numerator) / gamma.denominator
                        + (1 - mpmath.mpf(gamma.numerator) / gamma.denominator) * bb))
    dm, gm = mpmath.mpf(delta.numerator) / delta.denominator, mpmath.mpf(gamma.numerator) / gamma.denominator
    total = 2 * sum(an * (gm * dm * bb**kk + (1 - gm) * dm * bb ** (kk + 1)) for kk in range(400))
    check(f"(0) the density integrates to 1 at 50 digits (trial {trial})",
          abs(total - 1) < mpmath.mpf(10) ** -40)
    P = {Fraction(d): Fraction(rng.randint(1, 3)) for d in rng.sample(range(0, 4), 2)}
    Q = {Fraction(d): Fraction(rng.randint(1, 3)) for d in rng.sample(range(0, 4), 2)}
    P = {d: w / sum(P.values()) for d, w in P.items()}
    Q = {d: w / sum(Q.values()) for d, w in Q.items()}

    def G(dist: dict, y: Fraction, an: mpmath.mpf = an, bb: mpmath.mpf = bb,
          delta: Fraction = delta, gamma: Fraction = gamma) -> mpmath.mpf:
        return sum(mpmath.mpf(w.numerator) / w.denominator * an * bb ** step(y - d, delta, gamma)
                   for d, w in dist.items())

    pts = sorted(set(P) | set(Q))
    lo, hi = pts[0] - delta, pts[-1] + delta
    breaks = {lo, hi}
    for d in pts:
        for kk in range(-20, 21):
            for off in (Fraction(kk), kk + gamma, kk - gamma):
                x = d + off * delta
                if lo < x < hi:
                    breaks.add(x)
    cuts = sorted(breaks)
    pieces = max(abs(mpmath.log(G(P, (u + v) / 2) / G(Q, (u + v) / 2)))
                 for u, v in zip(cuts, cuts[1:]))
    scan = max(abs(mpmath.log(G(P, y) / G(Q, y)))
               for y in grid(lo - 3 * delta, 6 + hi - lo))
    check(f"(2)+(3) max over pieces = 50-digit scan of a wider range (trial {trial})",
          abs(pieces - scan) < mpmath.mpf(10) ** -40)
    rest = {Fraction(0): Fraction(1, 3), Fraction(1, 2): Fraction(2, 3)}
    PR = {d + r: Fraction(0) for d in P for r in rest}
    QR = {d + r: Fraction(0) for d in Q for r in rest}
    for d, w in P.items():
        for r, v in rest.items():
            PR[d + r] += w * v
    for d, w in Q.items():
        for r, v in rest.items():
            QR[d + r] += w * v
    scan_r = max(abs(mpmath.log(G(PR, y) / G(QR, y)))
                 for y in grid(lo - 3 * delta, 7 + hi - lo))
    check(f"(1) a non-degenerate rest does not exceed the pieces' maximum (trial {trial})",
          scan_r <= pieces + mpmath.mpf(10) ** -40)

if failures:
    sys.exit(f"{len(failures)} check(s) failed")
print("all checks passed")
