"""The mean-value Krawczyk argument: "z(ε) = Φ(ε)⁻¹b > 0 for every ε in [a, b]".

Setting. Φ(ε) = (e^{-ε·d(i,j)}), 0 < a < b, centre c = (a + b)/2, h = ε − c, |h| ≤ w = (b − a)/2.

Step 1 (Taylor with Lagrange remainder). For each distance d ≥ 0 and ε in [a, b]:
e^{-εd} = e^{-cd} + h·(−d e^{-cd}) + h²·(d²/2)e^{-ξd} for some ξ between c and ε, so
Φ(ε) = Φ0 + hΦ1 + h²Φ2 with Φ0 = (e^{-cd}), Φ1 = (−d e^{-cd}) and
0 ≤ Φ2 ≤ P2 := (d²/2)e^{-ad} entrywise (d²e^{-ξd} is decreasing in ξ ≥ a > 0).

Step 2 (residual). For any vectors x, u put y(h) = x + h·u and e = z(ε) − y(h). Then
Φ(ε)e = ρ(h) := (b − Φ0x) − h(Φ0u + Φ1x) − h²(Φ1u + Φ2x) − h³Φ2u (polynomial identity),
so |ρ| ≤ ρ̄ := |b − Φ0x| + w|Φ0u + Φ1x| + w²(|Φ1||u| + P2|x|) + w³P2|u|.

Step 3 (Krawczyk / Rump). For any matrix R, |I − RΦ(ε)| ≤ G := |I − RΦ0| + w|RΦ1| + w²|R|P2.
If β := ‖G‖∞ < 1 then RΦ(ε) is invertible (Neumann series), so Φ(ε) is; and from
e = Rρ + (I − RΦ(ε))e: |e| ≤ |R|ρ̄ + G|e|, hence ‖e‖∞ ≤ δ := ‖|R|ρ̄‖∞/(1 − β) and
|e| ≤ |R|ρ̄ + (G·1)δ componentwise.

Conclusion. z(ε) = x + hu + e ≥ x − w|u| − |R|ρ̄ − (G·1)δ componentwise for every ε in
[a, b]; if that lower bound is > 0 then z(ε) > 0 on the whole range.

Checked below: step 1 symbolically (the remainder and its monotonicity); step 2 as an exact
polynomial identity in h on random rational matrices; step 3 on random exact instances
(β < 1 ⇒ the bounds hold for the true error); and the implementations — the kernel's
:func:`exactdp.kernel.threshold_cover.arb_mean_value_check` and the search's
:func:`exactdp.threshold.krawczyk.mean_value_piece` — only accept ranges on which z > 0 at
40 digits, and refuse ranges that contain a sign change of z.

Justifies: exactdp.threshold.krawczyk.mean_value_piece (the search) and the
``certified-cover`` check of the kernel (exactdp.kernel.threshold_cover), which
:class:`exactdp.threshold.certificates.CoverCertificate` runs.
"""

import random
import sys
from fractions import Fraction

import mpmath
import sympy as sp

from exactdp.kernel.threshold_cover import arb_mean_value_check
from exactdp.spaces.metrics import count_queries, from_matrix, line, sum_query
from exactdp.threshold.krawczyk import mean_value_piece

PROVES = [
    "exactdp.threshold.krawczyk.mean_value_piece",
    "exactdp.threshold.certificates.CoverCertificate",
]

ok = True


def check(cond, what):
    global ok
    if not cond:
        print("FAILED:", what)
        ok = False


# ---- step 1: Taylor with Lagrange remainder ---------------------------------------------
eps, c, d, xi, a = sp.symbols("epsilon c d xi a", positive=True)
f = sp.exp(-eps * d)
f2 = sp.diff(f, eps, 2)
check(sp.simplify(f2 - d**2 * sp.exp(-eps * d)) == 0, "f'' = d² e^{-εd} ≥ 0")
check(sp.simplify(sp.diff(d**2 * sp.exp(-xi * d), xi) + d**3 * sp.exp(-xi * d)) == 0,
      "d² e^{-ξd} is decreasing in ξ (derivative −d³e^{-ξd} ≤ 0)")
taylor1 = sp.exp(-c * d) - (eps - c) * d * sp.exp(-c * d)
check(sp.simplify(sp.series(f, eps, c, 2).removeO() - taylor1) == 0, "first-order Taylor polynomial")
# numerically: the remainder lies in [0, (h²/2) d² e^{-ad}] at 40 digits
mpmath.mp.dps = 40
rng = random.Random(7)
rem_ok = True
for _ in range(400):
    av = mpmath.mpf(rng.uniform(0.01, 5))
    bv = av + mpmath.mpf(rng.uniform(1e-6, 2))
    cv = (av + bv) / 2
    ev = av + (bv - av) * mpmath.mpf(rng.random())
    dv = mpmath.mpf(rng.choice([0, 1, 2, 3, 1.5, 7, 40])) * mpmath.sqrt(rng.choice([1, 2, 5]))
    h = ev - cv
    rem = mpmath.e**(-ev * dv) - (mpmath.e**(-cv * dv) - h * dv * mpmath.e**(-cv * dv))
    rem_ok &= -mpmath.mpf(10)**-35 <= rem <= h**2 * dv**2 * mpmath.e**(-av * dv) / 2 + mpmath.mpf(10)**-35
check(rem_ok, "0 ≤ remainder ≤ (h²/2)d²e^{-ad} on 400 random (a, b, ε, d), 40 digits")

# ---- step 2: the residual identity (exact, polynomial in h) -------------------------------
hs = sp.Symbol("h")
def rmat(r, c):
    return sp.Matrix(r, c, lambda i, j: sp.Rational(rng.randint(-9, 9), rng.randint(1, 9)))


for _ in range(10):
    n = rng.randint(2, 4)
    F0, F1, F2 = rmat(n, n), rmat(n, n), rmat(n, n)
    x, u, z = rmat(n, 1), rmat(n, 1), rmat(n, 1)
    Phi = F0 + hs * F1 + hs**2 * F2
    # with b := Φ z (any z), Φ(z − y) = b − Φ y
    bb = Phi * z
    lhs = Phi * (z - (x + hs * u))
    rhs = (bb - F0 * x) - hs * (F0 * u + F1 * x) - hs**2 * (F1 * u + F2 * x) - hs**3 * F2 * u
    check(sp.expand(lhs - rhs) == sp.zeros(n, 1), "Φ(ε)e = ρ(h) as a polynomial identity in h")

# ---- step 3: Krawczyk / Rump bound on exact instances ---------------------------------------
k_ok, tried = True, 0
for _ in range(200):
    n = rng.randint(2, 5)
    Phi = sp.Matrix(n, n, lambda i, j: sp.Integer(1) if i == j
                    else sp.Rational(rng.randint(-30, 30), 100))
    R = Phi.inv().applyfunc(lambda v: sp.Rational(round(v * 64), 64))  # a rough inverse
    rho = sp.Matrix(n, 1, lambda i, j: sp.Rational(rng.randint(-99, 99), 1000))
    G = (sp.eye(n) - R * Phi).applyfunc(abs)
    beta = max(sum(G.row(i)) for i in range(n))
    if beta >= 1:
        continue
    tried += 1
    e_true = Phi.inv() * rho  # Φ e = ρ
    absR = R.applyfunc(abs)
    Rrho = absR * rho.applyfunc(abs)
    delta = max(Rrho) / (1 - beta)
    g1 = G * sp.ones(n, 1)
    k_ok &= max(abs(v) for v in e_true) <= delta
    k_ok &= all(abs(e_true[i]) <= Rrho[i] + g1[i] * delta for i in range(n))
check(k_ok and tried >= 100, f"‖e‖∞ ≤ δ and |e| ≤ |R|ρ̄ + (G·1)δ on {tried} exact instances with β < 1")


# ---- the implementations agree with 40-digit truth ------------------------------------------
def z_of(metric, rhs, e):
    D = [[mpmath.mpf(float(v.coef)) * mpmath.sqrt(v.radicand) for v in row]
         for row in ([metric.values[int(k)] for k in r] for r in metric.index)]
    Phi = mpmath.matrix([[mpmath.e**(-mpmath.mpf(e.numerator) / e.denominator * x) for x in row]
                         for row in D])
    return mpmath.lu_solve(Phi, mpmath.matrix([mpmath.mpf(v.numerator) / v.denominator
                                               for v in rhs]))


def random_metric(n):
    vals = [[0] * n for _ in range(n)]
    for i in range(n):
        for j in range(i + 1, n):
            vals[i][j] = vals[j][i] = rng.choice([2, 3, 4])
    return from_matrix(vals)  # distances in {2, 3, 4}: every triangle inequality holds


metrics = [line(3), line(5), sum_query(2, 2), sum_query(3, 2), count_queries(2)]
metrics += [random_metric(rng.randint(3, 5)) for _ in range(3)]
accepted = refused_bad = kernel_bad = search_bad = 0
for metric in metrics:
    ones = tuple(Fraction(1) for _ in range(metric.n))
    zmins = {}
    for k in range(1, 60):
        e = Fraction(k, 10)
        zmins[e] = min(z_of(metric, ones, e))
    for k in range(1, 58, 2):
        lo, hi = Fraction(k, 10), Fraction(k + rng.choice([1, 2]), 10)
        truth_pos = all(zmins[Fraction(j, 10)] > 0 for j in range(k, int(hi * 10) + 1)) and \
            all(min(z_of(metric, ones, lo + (hi - lo) * Fraction(s, 6))) > 0 for s in range(7))
        kern = arb_mean_value_check(metric, ones, lo, hi)
        search, _ = mean_value_piece(metric, ones, lo, hi, None)
        accepted += kern
        if kern and not truth_pos:
            kernel_bad += 1
        if search and not truth_pos:
            search_bad += 1
        if not truth_pos:
            refused_bad += not kern
check(kernel_bad == 0, f"the kernel's arb check accepted {kernel_bad} ranges where z ≤ 0 somewhere")
check(search_bad == 0, f"the search's float check accepted {search_bad} ranges where z ≤ 0 somewhere")
check(accepted >= 60, f"the kernel accepted {accepted} ranges (the check is not vacuous)")
check(refused_bad >= 3, f"{refused_bad} ranges with a sign change of z were refused")

if not ok:
    sys.exit(1)
print(f"mean-value Krawczyk argument: proved ({accepted} ranges accepted, z > 0 at 40 digits; "
      f"{refused_bad} ranges with z ≤ 0 somewhere refused)")
