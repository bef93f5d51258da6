"""Theorem (hand-derived threshold family: regularity on the discrete metric).

Let Y have k ≥ 2 points at mutual distance 1 (randomized response), t = e^{-ε}, and let
p be a prior with smallest entry p_min > 0. Then Φ = (1-t)I + tJ,

    Φ⁻¹ = (I - t/(1 + (k-1)t) J) / (1 - t),
    α = pΦ⁻¹ = (p - t/(1 + (k-1)t)·1) / (1 - t),

so p is regular iff p_min ≥ t/(1 + (k-1)t), i.e. iff t ≤ t* = p_min / (1 - (k-1)p_min)
(every t when p_min ≥ 1/k, i.e. p uniform). The regular ε-set is [ε*, ∞) with

    ε* = ln((1 - (k-1) p_min) / p_min)   (ε* = 0 for the uniform prior).

Consequence (Kronecker lemma, proofs/threshold_lemmas.py): on V^u under the Hamming
metric with the product prior p^{⊗u}, the threshold is the same ε*. For Example 3 of
the paper (k = 4, p = (3/10, 27/100, 23/100, 1/5)): t* = (1/5)/(1 - 3/5) = 1/2, so
ε* = ln 2 ≈ 0.6931, not 0.48 as the paper reports (at ε = 0.6, α has the negative entry
(1/5 - t/(1+3t))/(1-t) < 0, checked exactly below).

Justifies the expected values of tests/threshold/test_thr_exact.py and the example of
exactdp.threshold.api.regular_epsilons.
"""

import sys

import sympy as sp

PROVES = ["exactdp.threshold.api.regular_epsilons"]

ok = True


def check(cond, what):
    global ok
    if not cond:
        print("FAILED:", what)
        ok = False


t = sp.symbols("t", positive=True)
k = sp.symbols("k", positive=True, integer=True)
# (aI + bJ)(cI + dJ) = acI + (ad + bc + k bd)J since J² = kJ: check the inverse for symbolic k
a, b = 1 - t, t
c, d = 1 / (1 - t), -t / ((1 - t) * (1 + (k - 1) * t))
check(sp.simplify(a * c - 1) == 0, "I-part of Φ Φ⁻¹")
check(sp.simplify(a * d + b * c + k * b * d) == 0, "J-part of Φ Φ⁻¹")
# α_y = (p_y - t/(1+(k-1)t) Σp) / (1-t) with Σp = 1
pm = sp.symbols("p_min", positive=True)
alpha_min = (pm - t / (1 + (k - 1) * t)) / (1 - t)
tstar = pm / (1 - (k - 1) * pm)
check(sp.simplify(alpha_min.subs(t, tstar)) == 0, "α_min vanishes at t*")
# t/(1+(k-1)t) is increasing in t, so α_min ≥ 0 ⇔ t ≤ t*
check(sp.simplify(sp.diff(t / (1 + (k - 1) * t), t) - 1 / (1 + (k - 1) * t) ** 2) == 0,
      "t/(1+(k-1)t) increasing")
# concrete matrices
for kk in (2, 3, 4, 5):
    P = (1 - t) * sp.eye(kk) + t * sp.ones(kk, kk)
    Pinv = (sp.eye(kk) - t / (1 + (kk - 1) * t) * sp.ones(kk, kk)) / (1 - t)
    check(sp.simplify(P * Pinv - sp.eye(kk)) == sp.zeros(kk, kk), f"inverse formula, k={kk}")
# Example 3
p = [sp.Rational(3, 10), sp.Rational(27, 100), sp.Rational(23, 100), sp.Rational(1, 5)]
ts = min(p) / (1 - 3 * min(p))
check(ts == sp.Rational(1, 2), "Example 3: t* = 1/2")
P4 = (1 - t) * sp.eye(4) + t * sp.ones(4, 4)
al = sp.Matrix([p]) * P4.inv()
at06 = [sp.simplify(e.subs(t, sp.exp(-sp.Rational(3, 5)))) for e in al]
check(sp.N(at06[3], 50) < 0, "Example 3: α_4 < 0 at ε = 0.6 (not regular)")
check(all(sp.N(e.subs(t, sp.Rational(1, 2)), 50) >= 0 for e in al), "regular at t = 1/2")
check(sp.simplify(al[3].subs(t, sp.Rational(1, 2))) == 0, "α_4 = 0 exactly at t = 1/2")

if not ok:
    sys.exit(1)
print("discrete-metric prior threshold: ε* = ln((1-(k-1)p_min)/p_min); Example 3: ln 2. Proved")
