"""Two lemmas behind the threshold search (exactdp.threshold.lemmas, exactdp.algebra.structure).

Lemma 1 (perturbation near t = 0). Let Φ = I + E with E ≥ 0 entrywise,
e = ‖E‖∞ < 1 and b > 0. Then Φ is invertible, z = Φ⁻¹b satisfies
‖z − b‖∞ ≤ e‖b‖∞/(1 − e), and z > 0 whenever e < min b / (min b + ‖b‖∞)
(e < 1/2 for b = 1). Proof: z − b = −Ez, so ‖z − b‖ ≤ e‖z‖ ≤ e(‖b‖ + ‖z − b‖), and
z_i ≥ b_i − ‖z − b‖ ≥ min b − e‖b‖/(1 − e) > 0 under the condition (algebra checked below).
Every row sum of E is Σ_j t^{d(i,j)}, increasing in t, so one t0 covers (0, t0].

Lemma 2 (Kronecker signs). If Φ = Φ_1 ⊗ … ⊗ Φ_m with every Φ_k > 0 entrywise and
invertible, and b = b_1 ⊗ … ⊗ b_m with b_k ≥ 0, b_k ≠ 0, then z = Φ⁻¹b = ⊗ z_k
(mixed-product property) and z ≥ 0 iff every z_k ≥ 0. (Each z_k has a positive entry,
else b_k = Φ_k z_k ≤ 0; a negative entry of one factor times positive entries of the
others is a negative entry of z.) Checked below on exact rational instances, including
ones where a factor has a negative entry.

Justifies: exactdp.algebra.structure.kronecker_split, exactdp.threshold.lemmas.lemma_holds (the
lemma at t0 of the certified route), and the Kronecker route of
exactdp.threshold.api.epsilon_threshold with its KroneckerThresholdCertificate.
"""

import itertools
import random
import sys
from fractions import Fraction

import flint
import sympy as sp

PROVES = [
    "exactdp.algebra.structure.kronecker_split",
    "exactdp.threshold.api.epsilon_threshold",
    "exactdp.threshold.lemmas.lemma_holds",
    "exactdp.threshold.certificates.KroneckerThresholdCertificate",
]

ok = True


def check(cond, what):
    global ok
    if not cond:
        print("FAILED:", what)
        ok = False


# ---- Lemma 1: algebra ---------------------------------------------------------------------
e, B, bmin, D = sp.symbols("e B b_min D", positive=True)
# from D ≤ e (B + D) with e < 1:  D ≤ e B / (1 - e)
check(sp.simplify(sp.solve(sp.Eq(D, e * (B + D)), D)[0] - e * B / (1 - e)) == 0,
      "fixed point of D = e(B + D)")
# b_min − eB/(1−e) > 0  ⇔  e < b_min/(b_min + B)  (for 0 < e < 1)
lhs = bmin * (1 - e) - e * B  # (1 − e) times the margin
check(sp.simplify(lhs.subs(e, bmin / (bmin + B))) == 0, "margin vanishes at the bound")
check(sp.simplify(sp.diff(lhs, e) + bmin + B) == 0, "margin decreasing in e")
# exact random instances
rng = random.Random(1)
for _ in range(30):
    n = rng.randint(2, 6)
    E = [[Fraction(0) if i == j else Fraction(rng.randint(0, 9), 100) for j in range(n)]
         for i in range(n)]
    ee = max(sum(r) for r in E)
    b = [Fraction(rng.randint(1, 9), 10) for _ in range(n)]
    Phi = flint.fmpq_mat([[flint.fmpq(int((Fraction(i == j) + E[i][j]).numerator),
                                      int((Fraction(i == j) + E[i][j]).denominator))
                           for j in range(n)] for i in range(n)])
    z = Phi.solve(flint.fmpq_mat([[flint.fmpq(v.numerator, v.denominator)] for v in b]))
    zf = [Fraction(int(v.p), int(v.q)) for v in z.entries()]
    dev = max(abs(zf[i] - b[i]) for i in range(n))
    if ee < 1:
        check(dev <= ee * max(b) / (1 - ee), "‖z − b‖ bound")
        if ee < min(b) / (min(b) + max(b)):
            check(min(zf) > 0, "z > 0 under the condition")

# ---- Lemma 2: Kronecker signs --------------------------------------------------------------
def kron_vec(vs):
    out = [Fraction(1)]
    for v in vs:
        out = [a * b for a in out for b in v]
    return out


def mat(rows):
    return flint.fmpq_mat([[flint.fmpq(x.numerator, x.denominator) for x in r] for r in rows])


def solve(rows, b):
    z = mat(rows).solve(mat([[v] for v in b]))
    return [Fraction(int(v.p), int(v.q)) for v in z.entries()]


def kron_mat(A, B):
    return [[a * b for a in ra for b in rb] for ra in A for rb in B]


seen_negative = False
for _trial in range(40):
    m1, m2 = rng.randint(2, 3), rng.randint(2, 3)
    t1, t2 = Fraction(rng.randint(1, 9), 10), Fraction(rng.randint(1, 9), 10)
    P1 = [[t1 ** abs(i - j) for j in range(m1)] for i in range(m1)]  # line factors, > 0
    P2 = [[t2 ** min(1, abs(i - j)) for j in range(m2)] for i in range(m2)]
    b1 = [Fraction(rng.randint(1, 9)) for _ in range(m1)]
    b2 = [Fraction(rng.randint(1, 9)) for _ in range(m2)]
    z1, z2 = solve(P1, b1), solve(P2, b2)
    z = solve(kron_mat(P1, P2), kron_vec([b1, b2]))
    check(z == kron_vec([z1, z2]), "z = z1 ⊗ z2")
    check(any(v > 0 for v in z1) and any(v > 0 for v in z2), "each factor has a positive entry")
    check((min(z) >= 0) == (min(z1) >= 0 and min(z2) >= 0), "z ≥ 0 iff all factors ≥ 0")
    seen_negative |= min(z1) < 0 or min(z2) < 0
check(seen_negative, "the test instances include a factor with a negative entry")

if not ok:
    sys.exit(1)
print("threshold lemmas (perturbation near t = 0, Kronecker signs): proved")
_ = itertools
