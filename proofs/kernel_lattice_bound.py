"""Theorem (the kernel's λ_min bound for Euclidean lattice metrics, all ε in a range).

Let S be a finite set of points of h·Z², Φ_S(ε) = [e^{-ε|x_i - x_j|}], ε ∈ [ε_lo, ε_hi],
a = ε_lo·h > 0, b = ε_hi·h. Write g_e(q) = e/(e² + 4π²q)^{3/2} and, for φ ∈ R²,
F_e(φ) = 2π Σ_{m∈Z²} g_e(|φ + m|²). Then λ_min(Φ_S(ε)) ≥ min_φ F_{εh}(φ), and for every φ
in a box B ⊂ [0, 1/2]² and every e ∈ [a, b]

  F_e(φ) ≥ 2π Σ_{m∈N} min(g_a, g_b)(q_m) + 2π Σ_{m∈G} min(g_a, g_b)(|m|² + 1/2)
           + (a/S)(1 − √2π/(S + U)),                                          (★)

with N = {-M..M}², G = {m ∉ N : |m| ≤ R}, q_m = max_{φ∈B} |φ + m|², U = 2π(R + √2),
S = √(c² + 2π² + U²), c = a if 4π²R² ≥ 2b² else c = b. Also F_e ≥ 1 − Σ_{0<|k|≤6} e^{-a|k|}
− 2π e^{-a(6−√2)}(1 + a(6 − √2/2))/a² (diagonal dominance).

Proof.
0. λ_min(Φ_S(ε)) ≥ min_θ f_{εh}(θ) with f the lattice symbol, f_e(2πφ) = F_e(φ) (Poisson
   summation, every term positive), F is 1-periodic, even in each coordinate and symmetric
   in (φ1, φ2), so its minimum is taken on the triangle 0 ≤ φ2 ≤ φ1 ≤ 1/2; g_e decreases in
   q, and e ↦ g_e(q) is unimodal with d/de of the sign of 4π²q − 2e², so its minimum over
   [a, b] is at an endpoint and it is ≥ g_a when 4π²q ≥ 2b²; the diagonal-dominance bound.
   All proved and checked in proofs/lattice_spectrum_bound.py (steps 1–5, (a)–(g)).
1. (Near images.) g_e(|φ + m|²) ≥ g_e(q_m) ≥ min(g_a, g_b)(q_m) (g decreasing in q, step 0).
2. (Pairing.) g_e is convex in q: d²/dq² g_e = 15·16π⁴ e (e² + 4π²q)^{-7/2}/4 > 0 [(a)]. N, G
   and T = {|m| > R} are each invariant under m → −m, and |φ + m|² + |φ − m|² = 2(|m|² + |φ|²),
   so by convexity Σ_{m∈G} g_e(|φ + m|²) = ½ Σ_{m∈G} [g_e(|φ + m|²) + g_e(|φ − m|²)]
   ≥ Σ_{m∈G} g_e(|m|² + |φ|²) ≥ Σ_{m∈G} g_e(|m|² + 1/2) (|φ|² ≤ 1/2 on B) [(b)]; the same
   holds on T. Then each G-term is ≥ min(g_a, g_b)(|m|² + 1/2) (step 0).
3. (Tail.) On T, g_e(q) ≥ H(q) := a/(c² + 4π²q)^{3/2}: with c = b since e ≥ a and e² ≤ b²;
   with c = a when 4π²R² ≥ 2b², because then 4π²(|m|² + 1/2) ≥ 2b² and g_e ≥ g_a (step 0).
   For x in the unit cell of m, |m| ≤ |x| + √2/2, and H is decreasing, so
   H(|m|² + 1/2) ≥ ∫_cell H((|x| + √2/2)² + 1/2) dx; the cells of T cover {|x| > R + √2/2},
   so 2π Σ_T H(|m|² + 1/2) ≥ 2π·2π ∫_{R+√2/2}^∞ r H((r + √2/2)² + 1/2) dr
   = (a/S)(1 − √2π/(S + U))  (closed form, [(c)]: symbolic antiderivative, limit, quadrature).
   Adding 1–3 gives (★). The lattice sums are also compared with (★) numerically [(d)].

The code (exactdp.kernel.lattice.euclidean_lambda_ok) evaluates (★) in arb on dyadic boxes
of the triangle, and the diagonal-dominance bound once, and accepts λ only if every box's
ball (or the dominance ball) has lower end ≥ λ. (e) checks it against numpy's λ_min on
grids, subsets and ranges: accepted below, rejected above (a counterexample S exists).
"""

import math
import sys
from fractions import Fraction

import mpmath
import numpy as np
import sympy as sp
from flint import arb

import exactdp.kernel.lattice as kl
from exactdp.arithmetic.ball import workprec
from exactdp.kernel.lattice import euclidean_lambda_ok

PROVES = ["exactdp.kernel.lattice.euclidean_lambda_ok"]

ok = True


def check(cond, what):
    global ok
    if not cond:
        print("FAILED:", what)
        ok = False
    else:
        print("ok:", what)


# ---------------------------------------------------------------- (a) convexity in q
e, q, a_s, c_s, r, R_s = sp.symbols("e q a c r R", positive=True)
g = e / (e**2 + 4 * sp.pi**2 * q) ** sp.Rational(3, 2)
d2 = sp.diff(g, q, 2)
check(sp.simplify(d2 - 60 * sp.pi**4 * e / (e**2 + 4 * sp.pi**2 * q) ** sp.Rational(7, 2)) == 0,
      "d²/dq² e(e²+4π²q)^{-3/2} = 60π⁴e(e²+4π²q)^{-7/2} > 0 (convex)")
check(sp.simplify(sp.diff(g, q) + 6 * sp.pi**2 * e / (e**2 + 4 * sp.pi**2 * q) ** sp.Rational(5, 2))
      == 0, "d/dq g = -6π²e(e²+4π²q)^{-5/2} < 0 (decreasing)")

# ---------------------------------------------------------------- (b) pairing, the sets
p1, p2, m1, m2 = sp.symbols("p1 p2 m1 m2", real=True)
plus = (p1 + m1) ** 2 + (p2 + m2) ** 2
minus = (p1 - m1) ** 2 + (p2 - m2) ** 2
check(sp.expand(plus + minus - 2 * (m1**2 + m2**2 + p1**2 + p2**2)) == 0,
      "|φ+m|² + |φ−m|² = 2(|m|² + |φ|²)")
near = set(kl._NEAR)
ring_pts = [(i, j) for i in range(-kl._R, kl._R + 1) for j in range(-kl._R, kl._R + 1)
            if (i, j) not in near and i * i + j * j <= kl._R**2]
check(near == {(-i, -j) for i, j in near} and set(ring_pts) == {(-i, -j) for i, j in ring_pts},
      "N and G are invariant under m → −m (so is T = {|m| > R})")
check(sorted(kl._RING) == sorted(i * i + j * j for i, j in ring_pts),
      f"the code's ring is G = {{m ∉ N, |m| ≤ {kl._R}}} ({len(ring_pts)} images)")
check(near == {(i, j) for i in range(-kl._M, kl._M + 1) for j in range(-kl._M, kl._M + 1)},
      f"the code's near images are N = {{-{kl._M}..{kl._M}}}²")
rng = np.random.default_rng(20261201)
worst = math.inf
for _ in range(2000):  # Jensen for the pair, at random φ ∈ [0, 1/2]², m, e
    ph = rng.uniform(0, 0.5, 2)
    mm = rng.integers(-9, 10, 2)
    ev = rng.uniform(0.001, 8)

    def gf(qq, ev=ev):
        return ev / (ev * ev + 4 * math.pi**2 * qq) ** 1.5
    lhs = gf(float(np.sum((ph + mm) ** 2))) + gf(float(np.sum((ph - mm) ** 2)))
    rhs = 2 * gf(float(np.sum(mm**2)) + 0.5)
    worst = min(worst, lhs - rhs * (1 - 1e-12))
check(worst >= 0, "g(|φ+m|²) + g(|φ−m|²) ≥ 2g(|m|² + 1/2) (2000 random cases)")

# ---------------------------------------------------------------- (c) tail closed form
s2 = sp.sqrt(2) / 2
C2 = c_s**2 + 2 * sp.pi**2  # c² + 4π²·(1/2)
u = sp.symbols("u", positive=True)  # u = r + √2/2
integrand = 4 * sp.pi**2 * (u - s2) * a_s / (C2 + 4 * sp.pi**2 * u**2) ** sp.Rational(3, 2)
anti = -a_s / sp.sqrt(C2 + 4 * sp.pi**2 * u**2) - 4 * sp.pi**2 * a_s * s2 * u / (
    C2 * sp.sqrt(C2 + 4 * sp.pi**2 * u**2))
check(sp.simplify(sp.diff(anti, u) - integrand) == 0, "tail: antiderivative in u = r + √2/2")
lim = sp.limit(anti, u, sp.oo)
check(sp.simplify(lim + 2 * sp.pi * a_s * s2 / C2) == 0, "tail: limit at ∞ is −2π(√2/2)a/C²")
U = 2 * sp.pi * (R_s + sp.sqrt(2))
S = sp.sqrt(C2 + U**2)
closed = (a_s / S) * (1 - sp.sqrt(2) * sp.pi / (S + U))
value = lim - anti.subs(u, R_s + sp.sqrt(2))  # lower limit r = R + √2/2 ⇒ u = R + √2
for av, cv, Rv in (("2/3", "2/3", 24), ("1/100", "3/2", 24), ("5", "7", 3), ("1", "40", 10)):
    sub = {a_s: sp.Rational(av), c_s: sp.Rational(cv), R_s: Rv}
    check(abs((closed - value).evalf(50, subs=sub)) < 1e-45,
          f"tail: closed form = integral value (50 digits) at a={av}, c={cv}, R={Rv}")
    A, Cc = mpmath.mpf(sp.Rational(av)), mpmath.mpf(sp.Rational(cv))
    h2 = mpmath.sqrt(2) / 2
    num = 4 * mpmath.pi**2 * mpmath.quad(
        lambda t, A=A, Cc=Cc, h2=h2: t * A / (Cc**2 + 4 * mpmath.pi**2 * ((t + h2) ** 2 + 0.5))
        ** 1.5, [Rv + h2, mpmath.inf])
    check(abs(num - float(closed.subs(sub))) < 1e-12, f"tail: quadrature = closed form ({av}, {cv})")

# ---------------------------------------------------------------- (d) the code's pieces
mm = np.arange(-200, 201)
M1, M2 = np.meshgrid(mm, mm, indexing="ij")


def lattice_sum(ev, ph):
    """2π Σ_{|m|_∞ ≤ 200} g_e(|φ + m|²) (a lower bound of F_e(φ): all terms > 0)."""
    qq = (ph[0] + M1) ** 2 + (ph[1] + M2) ** 2
    return float(2 * np.pi * np.sum(ev / (ev * ev + 4 * np.pi**2 * qq) ** 1.5))


den = kl._DEN
for lo, hi in (("0.665", "0.665"), ("0.6", "0.7"), ("1/100", "1/50"), ("3", "5"), ("2", "9")):
    lo_f, hi_f = Fraction(lo), Fraction(hi)
    with workprec(96):
        a_b = arb(lo_f.numerator) / lo_f.denominator
        b_b = None if lo_f == hi_f else arb(hi_f.numerator) / hi_f.denominator
        far = kl._far(a_b, b_b)
        worst = math.inf
        for _ in range(8):
            side = den >> int(rng.integers(1, 6))
            i1 = int(rng.integers(0, den // 2 // side))
            i2 = int(rng.integers(0, i1 + 1))
            box = (i1 * side, (i1 + 1) * side, i2 * side, (i2 + 1) * side)
            bound = float((kl._near(box, a_b, b_b) + far).upper())
            for ev in np.linspace(float(lo_f), float(hi_f), 3):
                for _k in range(2):
                    ph = np.array([rng.uniform(box[0], box[1]), rng.uniform(box[2], box[3])]) / den
                    worst = min(worst, lattice_sum(ev, ph) - bound)
    check(worst >= -1e-12, f"(★) ≤ F_e(φ) on random boxes, ε ∈ [{lo}, {hi}] (margin {worst:.2e})")
for av in (3, 5, 20):  # diagonal dominance vs 1 − Σ e^{-a|k|}
    nrm = np.hypot(M1, M2)
    true = 1 - float(np.sum(np.exp(-av * nrm[nrm > 0])))
    with workprec(96):
        dom = float(kl._dominance(arb(av)).upper())
    check(dom <= true + 1e-15, f"dominance bound {dom:.12f} ≤ 1 − Σ e^(-a|k|) = {true:.12f} at a={av}")


# ---------------------------------------------------------------- (e) the code vs numpy
def grid_lambda(width, height, ev, spacing, keep=None):
    xs, ys = np.meshgrid(np.arange(width), np.arange(height))
    pts = np.stack([xs.ravel(), ys.ravel()], 1) * spacing
    if keep is not None:
        pts = pts[keep]
    dist = np.hypot(*(pts[:, None, :] - pts[None, :, :]).transpose(2, 0, 1))
    return float(np.linalg.eigvalsh(np.exp(-ev * dist))[0])


cases = [(20, 20, "0.665", "0.665", 1), (16, 16, "0.6", "0.7", 1), (12, 20, "1.33", "1.4", "1/2"),
         (16, 16, "3", "3", 1), (10, 10, "6", "6", 1), (16, 16, "1/10", "1/10", 1)]
for width, height, lo, hi, sp_ in cases:
    h = Fraction(sp_)
    lam = min(grid_lambda(width, height, float(Fraction(e_)), float(h)) for e_ in (lo, hi))
    below = Fraction(lam * 0.98).limit_denominator(10**12)
    above = Fraction(lam * (1 + 1e-6)).limit_denominator(10**12)
    check(euclidean_lambda_ok(Fraction(lo), Fraction(hi), h, below),
          f"{width}×{height}, ε∈[{lo},{hi}], h={sp_}: accepts 0.98·λ_min = {float(below):.6f}")
    check(not euclidean_lambda_ok(Fraction(lo), Fraction(hi), h, above),
          f"  … rejects (1+1e-6)·λ_min = {float(above):.6f} (that grid is a counterexample)")
keep = rng.random(256) < 0.5
lam = grid_lambda(16, 16, 0.665, 1.0, keep)
check(not euclidean_lambda_ok(Fraction("0.665"), Fraction("0.665"), Fraction(1),
                              Fraction(lam * (1 + 1e-6)).limit_denominator(10**12)),
      f"a random subset (λ_min {lam:.6f}): rejects just above its λ_min")

print("ALL OK" if ok else "SOME CHECKS FAILED")
sys.exit(0 if ok else 1)
