"""Exact levels of built mechanisms at their own boundary: tight constraints and merged columns.

Theorem T (tight-constraints mechanism). Let d be a metric on n ≥ 2 points, ε > 0, z ≥ 0 with
Φz = 1 where Φ[y, x] = e^{-ε d(y, x)}, and H = Φ·diag(z). For a pair (a, b) and an output x with
z_x > 0: h[a,x]/h[b,x] = e^{ε(d(b,x) − d(a,x))} ≤ e^{ε d(a,b)} by the triangle inequality
d(b,x) ≤ d(b,a) + d(a,x); outputs with z_x = 0 are never produced and give no constraint. At
x = a the exponent is ε(d(b,a) − 0) = ε d(a,b): equality. Hence, whenever some checked pair
(a, b) has z_a > 0, the least ε' with H ε'·d-private (on the checked pairs, which for a graph
metric give the same level by the path argument of proofs/mech_geometric_rows.py) is exactly ε,
attained by the witness (a, b, a). No arithmetic on the (transcendental) entries is needed.

Theorem M (merged monomial columns). Let G have h_G[y, v] = c_v s^{E[y,v]} with c_v ≥ 0,
0 < s < 1, and let H merge disjoint groups g_j of G's columns: h[y, j] = Σ_{v ∈ g_j} h_G[y, v].
(Upper) With κ(a,b) = max over produced v of E[b,v] − E[a,v]: h_G[a,v] = s^{E[a,v]−E[b,v]}
h_G[b,v] ≤ s^{-κ} h_G[b,v] for every v; summing over g_j gives h[a,j] ≤ s^{-κ} h[b,j], so the
level is ≤ max over pairs of κ(a,b)·(−ln s)/d(a,b) (post-processing). (Lower) If a group has
E[b,v] − E[a,v] = κ for all its produced v, then h[a,j] = Σ c_v s^{E[b,v]−κ} = s^{-κ} h[b,j]:
the ratio is exactly s^{-κ}. When the largest uniform κ/d equals the upper bound, the level is
exactly that value, with witness (a, b, j).

Construction R (libqif's rectangular/offset geometric). Secrets 0..n−1 (after shifting by
first_x), outputs f..f+m−1 (m ≥ 2). On the range [lo, hi] = [min(f, 0), max(f+m−1, n−1)], the
truncated geometric h_G[x, v] = c_v s^{|v−x|} (c = 1/(1+s) at lo and hi, (1−s)/(1+s) inside)
has rows summing to 1 for x ∈ [lo, hi] (proofs/mech_geometric_rows.py, step 1), hence for the
secrets; merging v < f into f and v > f+m−1 into f+m−1 keeps row sums 1 and is Theorem M's form.
Its level on line(n) is ε when a group is uniform with κ = 1 on some neighbouring pair: e.g. an
unmerged or merged end column lying entirely on one side of both secrets.

Checked below: T's identity and triangle step symbolically and on Euclidean grids (exact √
distances), the routes against brute force and against ball enclosures; M's two inequalities
symbolically; R's row sums symbolically in s, its entries against libqif's own test recipe
(remap a 20×20 geometric, crop) exactly at rational s, and its exact level against the exact
brute-force level of the same rational matrix.
"""

from __future__ import annotations

import itertools
import sys
from fractions import Fraction

import numpy as np
import sympy as sp

sys.path.insert(0, ".")
from exactdp.mechanisms.constructors import (  # noqa: E402
    from_rows,
    tight_constraints_mechanism,
    truncated_geometric,
)
from exactdp.mechanisms.privacy import is_private, privacy_level  # noqa: E402
from exactdp.mechanisms.rectangular import geometric_rectangular  # noqa: E402
from exactdp.spaces.metrics import grid, line  # noqa: E402

PROVES = [
    "exactdp.mechanisms.privacy_structured.level_tight",
    "exactdp.mechanisms.privacy_structured.level_merged",
    "exactdp.mechanisms.rectangular.geometric_rectangular",
]

failures: list[str] = []


def check(name: str, ok: bool) -> None:
    print(("ok   " if ok else "FAIL ") + name)
    if not ok:
        failures.append(name)


# --- Theorem T -------------------------------------------------------------------------
eps, dax, dbx, dab, zx = sp.symbols("epsilon d_ax d_bx d_ab z_x", positive=True)
ratio = (sp.exp(-eps * dax) * zx) / (sp.exp(-eps * dbx) * zx)
check("T: h[a,x]/h[b,x] = e^{ε(d(b,x) − d(a,x))} (z_x cancels)",
      sp.simplify(ratio - sp.exp(eps * (dbx - dax))) == 0)
check("T: at x = a the ratio is e^{ε d(a,b)} (d(a,a) = 0, d(b,a) = d(a,b))",
      sp.simplify(ratio.subs({dax: 0, dbx: dab}) - sp.exp(eps * dab)) == 0)
# e^{ε u} is increasing in u, so d(b,x) − d(a,x) ≤ d(a,b) gives the bound; check the triangle
# step exactly on Euclidean grids (distances √k as exact sympy numbers)
ok = True
for w, h in ((3, 3), (2, 4)):
    m = grid(w, h, "euclidean")
    D = [[m.distance(i, j).to_sympy() for j in range(m.n)] for i in range(m.n)]
    for a, b, x in itertools.product(range(m.n), repeat=3):
        diff = D[a][b] - (D[b][x] - D[a][x])
        ok &= bool(sp.N(diff, 50) >= -sp.Float("1e-45")) and (x != a or sp.simplify(diff) == 0)
check("T: d(b,x) − d(a,x) ≤ d(a,b) on Euclidean grids (the metric axiom, which FiniteMetric "
      "validates exactly; shown at 50 digits), equality at x = a exactly", ok)

for spec in ((grid(3, 3, "euclidean"), "9/10"), (grid(2, 3, "euclidean"), "1/2"),
             (grid(3, 3, "manhattan"), "9/10")):
    m, e = spec
    H = tight_constraints_mechanism(m, eps=e)
    r = privacy_level(H, m)
    ball = privacy_level(H, m, method="ball")
    assert ball.enclosure is not None
    check(f"T on {m.name} at ε = {e}: level exactly ε, verified, inside the ball enclosure",
          r.value == sp.Rational(e) and r.verify() and ball.enclosure.lo <= Fraction(e)
          <= ball.enclosure.hi and r.witness is not None and r.witness[0] == r.witness[2])

# --- Theorem M -------------------------------------------------------------------------
s, k = sp.symbols("s kappa", positive=True)
c1, c2, e1, e2 = sp.symbols("c1 c2 e1 e2", positive=True)
hb = c1 * s**e1 + c2 * s**e2
ha_uniform = c1 * s ** (e1 - k) + c2 * s ** (e2 - k)
check("M lower: a uniform group has ratio exactly s^{-κ}",
      sp.simplify(ha_uniform / hb - s ** (-k)) == 0)
# upper: each term h_G[a,v] = s^{-Δ_v} h_G[b,v] with Δ_v ≤ κ and s < 1, so s^{-Δ_v} ≤ s^{-κ};
# checked on random exact instances
rng = np.random.default_rng(3)
ok = True
for _ in range(200):
    sv = Fraction(int(rng.integers(1, 9)), 10)
    Ea, Eb = rng.integers(0, 6, 4), rng.integers(0, 6, 4)
    cs = [Fraction(int(c), 7) for c in rng.integers(0, 5, 4)]
    kap = int((Eb - Ea).max())
    lhs = sum((c * sv ** int(x) for c, x in zip(cs, Ea)), Fraction(0))
    rhs = sum((c * sv ** int(x) for c, x in zip(cs, Eb)), Fraction(0)) * sv ** (-kap)
    ok &= lhs <= rhs
check("M upper: Σ c_v s^{E[a,v]} ≤ s^{-κ} Σ c_v s^{E[b,v]} (random exact instances)", ok)

# --- Construction R --------------------------------------------------------------------
ok = True
for n_, m_, f_ in ((3, 2, 1), (4, 3, -2), (3, 5, 0), (5, 2, 7)):
    G = geometric_rectangular(n_, t="1/3", n_cols=m_, first_y=f_)
    ok &= all(x == 1 for x in G.row_sums())
check("R: rows sum to exactly 1 (exact at s = 1/3, several offsets)", ok)
ss = sp.Symbol("s", positive=True)
lo_, hi_ = 0, 4
cs_sym = [1 / (1 + ss) if v in (lo_, hi_) else (1 - ss) / (1 + ss) for v in range(5)]
check("R: the extended rows sum to 1 symbolically in s (range 0..4, every row)",
      all(sp.simplify(sum(cs_sym[v] * ss ** abs(v - x) for v in range(5)) - 1) == 0
          for x in range(5)))

# libqif's recipe (tests_cpp d_privacy.cpp): remap a 20×20 geometric, crop rows 5..14
G0 = truncated_geometric(20, t="1/2").rows_fraction()
ok = True
for lo_y, hi_y in ((0, 9), (10, 19), (1, 18), (7, 12)):
    T = [[Fraction(0)] * 20 for _ in range(20)]
    for x in range(20):
        for v in range(20):
            T[x][min(max(v, lo_y), hi_y)] += G0[x][v]
    crop = [row[lo_y:hi_y + 1] for row in T[5:15]]
    D = geometric_rectangular(10, t="1/2", n_cols=hi_y - lo_y + 1, first_x=5,
                              first_y=lo_y).rows_fraction()
    ok &= crop == D
check("R: equals libqif's remap-and-crop recipe exactly (4 truncations, s = 1/2)", ok)

ok = True
for n_, m_, f_ in ((10, 20, 0), (20, 10, 0), (6, 4, 1), (5, 2, 7), (4, 3, -3)):
    G = geometric_rectangular(n_, t="1/2", n_cols=m_, first_y=f_)
    plain = from_rows(G.rows_fraction())
    r_s, r_p = privacy_level(G, line(n_)), privacy_level(plain, line(n_))
    ok &= r_s.value == r_p.value and r_s.verify()
check("R/M: the structured level equals the exact brute-force level (s = 1/2)", ok)

ok = True
for n_, m_ in ((10, 20), (20, 10)):
    G = geometric_rectangular(n_, eps="9/10", n_cols=m_)
    r = privacy_level(G, line(n_))
    ok &= (r.value == sp.Rational(9, 10) and r.verify()
           and bool(is_private(G, line(n_), eps="9/10"))
           and not is_private(G, line(n_), eps="89/100"))
check("R: libqif's 10×20 and 20×10 at ε = 0.9 — private, level exactly 9/10", ok)

if failures:
    print(f"{len(failures)} step(s) failed")
    sys.exit(1)
print("all steps verified")
