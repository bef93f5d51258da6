"""Theorem (discrete Laplace noise on integer data: exact rational ratios, same supremum).

Let P, Q be finite laws on the integers and release X + Z with Z two-sided geometric
(discrete Laplace), P(Z = z) = (1 − α)/(1 + α) · α^{|z|}, 0 < α < 1. Put
h_P(y) = Σ_d P(d) α^{|y − d|} for integers y. Then

 (1) [mediant, necessity] as for Laplace (``proofs/pufferfish_supremum.py`` (1), (2)), the loss
     of every population is ≤ sup_{y ∈ Z} |ln h_P(y) − ln h_Q(y)|, attained by a point-mass rest;
 (2) [same function] with θ = −1/ln α, α^{|y−d|} = e^{−|y−d|/θ}: h_P is the Laplace kernel
     sum g_P restricted to integers;
 (3) [finite maximum] between consecutive support points the continuous ratio g_P/g_Q is
     monotone (Möbius in e^{2x/θ}) and constant on the tails, so its restriction to the
     integers of each interval is monotone too and the supremum over Z is the maximum over
     the support points (integers themselves) — the same value as for Laplace(θ);
 (4) [exact] at a rational α every h_P(s) is a rational number: the loss is ln of an exact
     rational maximum ratio R(α), and R(α) ≤ e^ε is decided exactly (rational e^ε) or by a
     certified sign of ln R − ε;
 (5) [least α] L is non-increasing in θ, hence in α = e^{−1/θ}; the least private α is
     α* = e^{−1/θ*} (θ* the least Laplace scale); for a Bernoulli pair with θ* = 1/ln u*,
     α* = 1/u*, algebraic over Q(e^ε).

Checked below with sympy and by brute-force summation at 50 digits. Exits non-zero on failure.
"""

from __future__ import annotations

import random
import sys
from fractions import Fraction

import mpmath
import sympy as sp

PROVES = [
    "exactdp.pufferfish.discrete.discrete_laplace_scale",
    "exactdp.pufferfish.discrete.discrete_laplace_ratio",
    "exactdp.kernel.pufferfish_more.discrete_ratio",
]

failures: list[str] = []


def check(name: str, ok: bool) -> None:
    print(("ok   " if ok else "FAIL ") + name)
    if not ok:
        failures.append(name)


al = sp.Symbol("alpha", positive=True)
n = sp.Symbol("n", nonnegative=True, integer=True)
th = sp.Symbol("theta", positive=True)

# the pmf sums to 1: (1 − α)/(1 + α) (1 + 2 Σ_{z≥1} α^z) = 1 for 0 < α < 1
total = (1 - al) / (1 + al) * (1 + 2 * al / (1 - al))
check("(0) the two-sided geometric pmf sums to 1", sp.simplify(total - 1) == 0)

# (2) α^{|z|} = e^{−|z|/θ} with θ = −1/ln α
z = sp.Symbol("z", integer=True)
check("(2) α^{|z|} = exp(−|z|/θ) with θ = −1/ln α",
      sp.simplify(sp.exp(-sp.Abs(z) / (-1 / sp.log(al))) - al ** sp.Abs(z)) == 0)

# (5) α* = e^{−1/θ*} with θ* = 1/ln u gives α* = 1/u
u = sp.Symbol("u", positive=True)
check("(5) θ* = 1/ln u ⇒ α* = e^{−1/θ*} = 1/u", sp.simplify(sp.exp(-1 / (1 / sp.log(u))) - 1 / u) == 0)


def _numeric() -> bool:
    """Brute-force sup over y ∈ [−60, 60] ∩ Z equals the exact rational maximum at support points."""
    mpmath.mp.dps = 50
    rng = random.Random(11)
    for _ in range(20):
        pts = sorted(rng.sample(range(-4, 5), rng.randint(1, 3)))
        pts_q = sorted(rng.sample(range(-4, 5), rng.randint(1, 3)))
        wp = [rng.randint(1, 5) for _ in pts]
        wq = [rng.randint(1, 5) for _ in pts_q]
        a = Fraction(rng.randint(1, 9), 10)

        def h(y: int, sup: list[int], w: list[int], a: Fraction = a) -> Fraction:
            return sum((Fraction(wi, sum(w)) * a ** abs(y - d) for d, wi in zip(sup, w)), Fraction(0))

        exact = max(max(h(s, pts, wp) / h(s, pts_q, wq), h(s, pts_q, wq) / h(s, pts, wp))
                    for s in sorted(set(pts) | set(pts_q)))
        brute = max(max(mpmath.mpf(h(y, pts, wp).numerator) / h(y, pts, wp).denominator
                        / (mpmath.mpf(h(y, pts_q, wq).numerator) / h(y, pts_q, wq).denominator),
                        mpmath.mpf(h(y, pts_q, wq).numerator) / h(y, pts_q, wq).denominator
                        / (mpmath.mpf(h(y, pts, wp).numerator) / h(y, pts, wp).denominator))
                    for y in range(-60, 61))
        if abs(brute - mpmath.mpf(exact.numerator) / exact.denominator) > mpmath.mpf(10) ** -40:
            return False
    return True


check("(3, 4) brute-force sup over integers = exact rational max over support points (20 cases)",
      _numeric())

if failures:
    print(f"{len(failures)} step(s) failed")
    sys.exit(1)
print("all steps verified")
