"""Theorem (a whole class against absent: the loss is the log moment generating function).

Let the class total X have a finite law P on [0, ∞) (a sum of non-negative contributions) and
the second secret be "class absent" (Q = δ₀). With g_P(x) = Σ_d P(d) e^{-|x−d|/θ} (as in
``proofs/pufferfish_supremum.py``) and M(t) = E[e^{tX}]:

 (1) g_P(x)/g_Q(x) = Σ_d P(d) e^{(|x| − |x − d|)/θ};
 (2) for d ≥ 0, −d ≤ |x| − |x − d| ≤ d, with = d when x ≥ d and = −d when x ≤ 0; so
     sup_x g_P/g_Q = M(1/θ) (attained at x ≥ max supp P) and inf_x g_P/g_Q = M(−1/θ)
     (attained at x ≤ 0);
 (3) M(t)·M(−t) ≥ 1 (Cauchy–Schwarz: 1 = E[e^{tX/2} e^{-tX/2}]² ≤ M(t) M(−t)), so
     ln M(1/θ) ≥ −ln M(−1/θ) and L(θ) = ln M(1/θ);
 (4) M is increasing on t > 0 (X ≥ 0), so θ* = 1/t* with ln M(t*) = ε; for independent
     members with Bernoulli p_i, ln M(t) = Σ_i ln(1 − p_i + p_i e^t);
 (5) for Binomial(n, p): t* = ln(1 + (e^{ε/n} − 1)/p), i.e.
     θ* = 1/ln(1 + (e^{ε/n} − 1)/p) (n = 1 is the S_{P,⊥} Bernoulli closed form).

Each step is checked below with sympy, and (6) against the maximum over support points of
the exact law for random small classes (mpmath, 40 digits). Exits non-zero on failure.
"""

from __future__ import annotations

import random
import sys

import mpmath
import sympy as sp

PROVES = [
    "exactdp.pufferfish.class_laws.class_vs_absent_scale",
    "exactdp.pufferfish.class_laws.class_log_mgf",
    "exactdp.kernel.pufferfish_more.class_loss_sign",
]

failures: list[str] = []


def check(name: str, ok: bool) -> None:
    print(("ok   " if ok else "FAIL ") + name)
    if not ok:
        failures.append(name)


x, d, th, t = sp.symbols("x d theta t", real=True)
dp = sp.Symbol("d", nonnegative=True)
pos_th = sp.Symbol("theta", positive=True)

# (1) g_Q(x) = e^{-|x|/θ}: the ratio is Σ P(d) e^{(|x| − |x−d|)/θ}.
check("(1) e^{-|x−d|/θ}/e^{-|x|/θ} = e^{(|x| − |x−d|)/θ}",
      sp.simplify(sp.exp(-sp.Abs(x - d) / th) / sp.exp(-sp.Abs(x) / th)
                  - sp.exp((sp.Abs(x) - sp.Abs(x - d)) / th)) == 0)

# (2) the exponent on the three regions, for d ≥ 0.
regions_ok = True
for _region, expr_expected, pick in (
    ("x ≤ 0", -dp, -sp.Symbol("u", nonnegative=True)),
    ("x ≥ d", dp, dp + sp.Symbol("u", nonnegative=True)),
):
    val = sp.Abs(pick) - sp.Abs(pick - dp)
    regions_ok &= sp.simplify(val - expr_expected) == 0
# 0 ≤ x ≤ d: x = λd, exponent (2λ − 1)d ∈ [−d, d]
lam = sp.Symbol("lambda", nonnegative=True)
mid = (lam * dp) - (dp - lam * dp)
regions_ok &= sp.simplify(sp.Abs(lam * dp) - sp.Abs(lam * dp - dp) - mid).subs(lam, sp.Rational(1, 3)) == 0
regions_ok &= sp.simplify(mid.subs(lam, 0) + dp) == 0 and sp.simplify(mid.subs(lam, 1) - dp) == 0
check("(2) |x| − |x−d| = −d (x ≤ 0), = d (x ≥ d), linear in between (d ≥ 0)", regions_ok)

# (3) Cauchy–Schwarz for two-point laws checked symbolically: M(t)M(−t) − 1 = Σ_{i<j} ... ≥ 0.
p1, p2 = sp.symbols("p1 p2", positive=True)
a1, a2 = sp.symbols("a1 a2", real=True)
Mt = p1 * sp.exp(a1 * t) + p2 * sp.exp(a2 * t)
Mmt = p1 * sp.exp(-a1 * t) + p2 * sp.exp(-a2 * t)
expanded = sp.expand((Mt * Mmt).subs(p2, 1 - p1) - 1)
target = 2 * p1 * (1 - p1) * (sp.cosh((a1 - a2) * t) - 1)
check("(3) M(t)M(−t) − 1 = 2p(1−p)(cosh((a₁−a₂)t) − 1) ≥ 0 for a two-point law",
      sp.simplify(expanded - target.rewrite(sp.exp)) == 0)

# (4) d/dt ln(1 − p + p e^t) = p e^t/(1 − p + p e^t) > 0: increasing.
pp = sp.Symbol("p", positive=True)
deriv = sp.diff(sp.log(1 - pp + pp * sp.exp(t)), t)
check("(4) d/dt ln(1 − p + p e^t) = p e^t / (1 − p + p e^t)",
      sp.simplify(deriv - pp * sp.exp(t) / (1 - pp + pp * sp.exp(t))) == 0)

# (5) the binomial closed form solves n ln(1 − p + p e^{t*}) = ε.
n = sp.Symbol("n", positive=True, integer=True)
eps = sp.Symbol("epsilon", positive=True)
tstar = sp.log(1 + (sp.exp(eps / n) - 1) / pp)
inner = sp.simplify(1 - pp + pp * sp.exp(tstar))
check("(5) 1 − p + p e^{t*} = e^{ε/n}, so n ln(...) = ε",
      sp.simplify(inner - sp.exp(eps / n)) == 0)


def _numeric() -> bool:
    mpmath.mp.dps = 40
    rng = random.Random(3)
    for _ in range(15):
        ps = [mpmath.mpf(rng.randint(1, 9)) / 10 for _ in range(rng.randint(1, 6))]
        law = [mpmath.mpf(1)]
        for p in ps:  # Poisson-binomial pmf by convolution
            law = [(law[j] if j < len(law) else 0) * (1 - p) + (law[j - 1] * p if j else 0)
                   for j in range(len(law) + 1)]
        theta = mpmath.mpf(rng.randint(1, 8)) / 4
        g = [mpmath.fsum(w * mpmath.exp(-abs(s - j) / theta) for j, w in enumerate(law))
             for s in range(len(law))]
        support_max = max(abs(mpmath.log(g[s]) - mpmath.log(mpmath.exp(-s / theta)))
                          for s in range(len(law)))
        mgf = mpmath.fsum(mpmath.log(1 - p + p * mpmath.exp(1 / theta)) for p in ps)
        if abs(support_max - mgf) > mpmath.mpf(10) ** -30:
            return False
    return True


check("(6) ln M(1/θ) equals the maximum over support points for 15 random classes", _numeric())

if failures:
    print(f"{len(failures)} step(s) failed")
    sys.exit(1)
print("all steps verified")
