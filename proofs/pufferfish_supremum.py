"""Theorem (exact least Laplace scale for multi-user Pufferfish privacy).

Let D be one user's contribution to a sum query, with finite law P under secret s and
Q under secret s' (absence is the point mass at 0), let R be the sum of the other
users (independent of D, any finite law, any presence probabilities), and release
Y = R + D + Lap(θ), density e^{-|x|/θ}/(2θ). Put g_P(x) = Σ_d P(d) e^{-|x-d|/θ} and
L(θ) = sup_x |ln g_P(x) − ln g_Q(x)|. Then

 (1) [mediant, sufficiency] for every R and y, f(y|s)/f(y|s') ≤ sup_x g_P(x)/g_Q(x);
 (2) [necessity] for R = r a.s. (e.g. no other user, or all absent) the ratio at y is
     exactly g_P(y − r)/g_Q(y − r), so sup_y attains sup_x;
 (3) [finite maximum] between consecutive support points of P ∪ Q the ratio
     g_P/g_Q is a Möbius function of z = e^{2x/θ}, hence monotone, and on each tail it
     is constant and equal to its value at the extreme support point; so
     L(θ) = max over the support points of P ∪ Q;
 (4) [monotone in θ] for θ₁ < θ₂, Lap(θ₂) = Lap(θ₁) + Z with Z independent
     (Z = 0 w.p. θ₁²/θ₂², else Lap(θ₂)); by post-processing L is non-increasing;
     as a maximum of finitely many analytic non-constant functions at level ε, it is
     strictly below ε for every θ > θ*;
 (5) [conservative is sufficient] L(θ) ≤ W_∞(P, Q)/θ, so θ* ≤ W_∞/ε;
 (6) [zero noise] lim_{θ→0} L(θ) = max_d |ln P(d)/Q(d)| (∞ if the supports differ),
     so θ* = 0 iff e^-ε ≤ P(d)/Q(d) ≤ e^ε on the whole union of supports.

Hence the population-independent least scale θ* = min{θ : L(θ) ≤ ε} depends on P, Q
and ε only (never on other users or on any ζ), and is found by bisection on the
certified sign of max_k |ln g_P(s_k) − ln g_Q(s_k)| − ε.

Each step is checked below with sympy (exits non-zero on failure).
"""

from __future__ import annotations

import itertools
import random
import sys

import sympy as sp

PROVES = [
    "exactdp.kernel.pufferfish.decide_laplace",
    "exactdp.pufferfish.calibration.exact_scale",
    "exactdp.pufferfish.calibration.conservative_scale",
    "exactdp.pufferfish.loss.decide_loss",
    "exactdp.pufferfish.certification.certify",
]

failures: list[str] = []


def check(name: str, ok: bool) -> None:
    print(("ok   " if ok else "FAIL ") + name)
    if not ok:
        failures.append(name)


x, th, r, y = sp.symbols("x theta r y", real=True)
A, B, C, D, z = sp.symbols("A B C D z", positive=True)

# (1) mediant: sum a_i / sum b_i <= max_i a_i/b_i. With M = max a_i/b_i,
# M*sum(b) - sum(a) = sum(b_i*(M - a_i/b_i)) >= 0 termwise.
a1, a2, a3, b1, b2, b3 = sp.symbols("a1 a2 a3 b1 b2 b3", positive=True)
M = sp.Symbol("M", positive=True)
lhs = M * (b1 + b2 + b3) - (a1 + a2 + a3)
rhs = b1 * (M - a1 / b1) + b2 * (M - a2 / b2) + b3 * (M - a3 / b3)
check("(1) mediant identity M*Σb − Σa = Σ b_i (M − a_i/b_i)", sp.simplify(lhs - rhs) == 0)

# f(y|s) = Σ_r P(R=r) g_s(y − r)/(2θ): a ratio of two sums with the same weights P(R=r),
# termwise ratio g_P(y−r)/g_Q(y−r) <= sup_x g_P/g_Q; ζ of other users only changes P(R=r).

# (2) necessity: with R = r a.s., f(y|s)/f(y|s') = g_P(y-r)/g_Q(y-r) (one term).
gP = sp.Function("gP")
gQ = sp.Function("gQ")
ratio_point_mass = (1 * gP(y - r) / (2 * th)) / (1 * gQ(y - r) / (2 * th))
check("(2) point-mass rest gives exactly g_P(y−r)/g_Q(y−r)",
      sp.simplify(ratio_point_mass - gP(y - r) / gQ(y - r)) == 0)

# (3) Between support points: g(x) = A e^{x/θ} + B e^{-x/θ} (A from points right of x,
# B from points left). Ratio h(z) = (A z + B)/(C z + D), z = e^{2x/θ} > 0.
h = (A * z + B) / (C * z + D)
dh = sp.simplify(sp.diff(h, z) - (A * D - B * C) / (C * z + D) ** 2)
check("(3a) d/dz (Az+B)/(Cz+D) = (AD − BC)/(Cz+D)²: constant sign, no interior extremum",
      dh == 0)
# explicit piece decomposition for a 3-point support {d1 < d2 < d3} on (d1, d2)
d1, d2, d3 = sp.Rational(-1, 2), sp.Integer(1), sp.Rational(7, 3)
p1, p2, p3 = sp.symbols("p1 p2 p3", positive=True)
xin = sp.Symbol("xin")
g_piece = p1 * sp.exp(-(xin - d1) / th) + p2 * sp.exp(-(d2 - xin) / th) + p3 * sp.exp(
    -(d3 - xin) / th
)
A_ = p2 * sp.exp(-d2 / th) + p3 * sp.exp(-d3 / th)
B_ = p1 * sp.exp(d1 / th)
check("(3b) on (d1, d2): g = A e^{x/θ} + B e^{−x/θ} with A = Σ_{d>x} P(d)e^{−d/θ}, "
      "B = Σ_{d<x} P(d)e^{d/θ}",
      sp.simplify(g_piece - (A_ * sp.exp(xin / th) + B_ * sp.exp(-xin / th))) == 0)
# tails: for x <= d1 every |x - d| = d - x
q1, q2, q3 = sp.symbols("q1 q2 q3", positive=True)
xl = sp.Symbol("xl")
gp_left = sum(pp * sp.exp(-(dd - xl) / th) for pp, dd in ((p1, d1), (p2, d2), (p3, d3)))
gq_left = sum(qq * sp.exp(-(dd - xl) / th) for qq, dd in ((q1, d1), (q2, d2), (q3, d3)))
tail_ratio = sp.simplify(gp_left / gq_left)
check("(3c) left tail: ratio independent of x", sp.diff(tail_ratio, xl).equals(0))
check("(3c) left tail value equals the value at the extreme point d1",
      sp.simplify(tail_ratio - (gp_left / gq_left).subs(xl, d1)) == 0)
xr = sp.Symbol("xr")
gp_right = sum(pp * sp.exp(-(xr - dd) / th) for pp, dd in ((p1, d1), (p2, d2), (p3, d3)))
gq_right = sum(qq * sp.exp(-(xr - dd) / th) for qq, dd in ((q1, d1), (q2, d2), (q3, d3)))
check("(3c) right tail: ratio independent of x and equal to the value at d3",
      sp.simplify(gp_right / gq_right - (gp_right / gq_right).subs(xr, d3)) == 0)

# (4) characteristic functions: Lap(θ) has φ(t) = 1/(1 + θ² t²).
t, t1, t2 = sp.symbols("t theta1 theta2", positive=True)
phi1 = 1 / (1 + t1**2 * t**2)
phi2 = 1 / (1 + t2**2 * t**2)
w = t1**2 / t2**2
phiZ = w + (1 - w) * phi2  # Z = 0 w.p. w, else Lap(θ₂): a valid law when θ₁ ≤ θ₂
check("(4) Lap(θ₂) = Lap(θ₁) + Z, φ_Z = θ₁²/θ₂² + (1 − θ₁²/θ₂²)/(1 + θ₂²t²)",
      sp.simplify(phi1 * phiZ - phi2) == 0)

# (5) triangle inequality: e^{-|x-d|/θ} <= e^{|d-d'|/θ} e^{-|x-d'|/θ}; with a coupling
# π of P and Q moving no mass further than W∞: g_P(x) = Σ π(d,d') e^{-|x-d|/θ}
# <= e^{W∞/θ} Σ π(d,d') e^{-|x-d'|/θ} = e^{W∞/θ} g_Q(x). The exponent inequality
# |d−d'| − |x−d'| + |x−d| ≥ 0 is checked in each of the 6 orders of (x, d, d'),
# writing the points as cumulative sums of positive gaps g1, g2.

g1, g2, base = sp.symbols("g1 g2 base", positive=True)
ok5 = True
for order in itertools.permutations(("x", "d", "dp")):
    pos = {order[0]: base, order[1]: base + g1, order[2]: base + g1 + g2}
    expr = (sp.Abs(pos["d"] - pos["dp"]) - sp.Abs(pos["x"] - pos["dp"])
            + sp.Abs(pos["x"] - pos["d"]))
    expr = sp.simplify(expr)
    ok5 = ok5 and bool(expr.is_nonnegative)
check("(5) |d−d'| − |x−d'| + |x−d| ≥ 0 in all 6 orders (so W∞/ε is sufficient)", ok5)

# (6) θ → 0: at a support point s, g_P(s) = P(s) + Σ_{d≠s} P(d) e^{-|s-d|/θ} -> P(s).
s_lim = sp.limit(sp.Rational(1, 3) + sp.Rational(2, 3) * sp.exp(-2 / th), th, 0, "+")
check("(6) lim_{θ→0+} g_P(s) = P(s)", s_lim == sp.Rational(1, 3))


# Numerical sanity check of (3) (not part of the proof): dense exact-ish sampling with
# mpmath at 60 digits never exceeds the maximum over support points.
def _sanity() -> bool:
    import mpmath

    mpmath.mp.dps = 60
    rng = random.Random(5)
    for _ in range(20):
        pts = sorted(rng.sample(range(-5, 6), 3))
        wp = [rng.randint(1, 9) for _ in pts]
        wq = [rng.randint(1, 9) for _ in pts]
        theta = mpmath.mpf(rng.randint(1, 8)) / 4

        def lr(xv: mpmath.mpf, pts: list[int] = pts, wp: list[int] = wp,
               wq: list[int] = wq, theta: mpmath.mpf = theta) -> mpmath.mpf:
            a = sum(wi * mpmath.e ** (-abs(xv - d) / theta) for wi, d in zip(wp, pts))
            b = sum(wi * mpmath.e ** (-abs(xv - d) / theta) for wi, d in zip(wq, pts))
            return abs(mpmath.log(a / sum(wp)) - mpmath.log(b / sum(wq)))

        at_points = max(lr(mpmath.mpf(d)) for d in pts)
        sampled = max(lr(mpmath.mpf(k) / 50) for k in range(-400, 401))
        if sampled > at_points * (1 + mpmath.mpf(10) ** -40):
            return False
    return True


check("sanity: dense sampling never beats the maximum over support points", _sanity())

if failures:
    print(f"{len(failures)} step(s) failed")
    sys.exit(1)
print("all steps verified")
