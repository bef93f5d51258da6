"""Theorem: a W×H planar grid (Euclidean, Manhattan or Chebyshev norm, any spacing h > 0)
is ball-size symmetric (every point sees the same multiset of distances) iff W ≤ 2 and H ≤ 2.

Proof.
(⇐) For W, H ≤ 2 the reflections x ↦ (W−1) − x and y ↦ (H−1) − y are isometries of the
grid (they preserve |dx| and |dy|, hence every one of the three norms), and together they
map (0, 0) to every point of the grid (at most 2 × 2 points). An isometry maps the
sphere of radius r around p bijectively onto the sphere of radius r around its image, so
all points have the same counts n_r.
(⇒) Say W ≥ 3 (H ≥ 3 is the same with the axes swapped). The least positive distance is
h (offsets (±1, 0), (0, ±1) under every norm; Chebyshev also the diagonals). Count the
points at distance h:
  Euclidean/Manhattan: p = (x, y) has [x > 0] + [x < W−1] + [y > 0] + [y < H−1]
  neighbours; the corner (0, 0) has 1 + [H > 1], the point (1, 0) has 2 + [H > 1].
  Chebyshev: p has (#{x' : |x'−x| ≤ 1})·(#{y' : |y'−y| ≤ 1}) − 1 neighbours; the corner has
  2·min(H, 2) − 1, the point (1, 0) has 3·min(H, 2) − 1.
Either way the counts differ, so the grid is not ball-size symmetric. ∎

Checked below: the neighbour-count formulas symbolically in the indicator values, and the
whole statement against brute-force per-point distance counts on every grid with
1 ≤ W, H ≤ 7, for every norm and two spacings.

Justifies: exactdp.spaces.metrics.space.grid_ball_size_symmetric (used by
FiniteMetric.ball_size_symmetric for grid metrics, without the n×n index).
"""

import sys
from collections import Counter
from fractions import Fraction

import sympy as sp

from exactdp.spaces.distances import grid_offset_distance
from exactdp.spaces.metrics.space import GridInfo, grid_ball_size_symmetric

PROVES = ["exactdp.spaces.metrics.space.grid_ball_size_symmetric"]

ok = True


def check(cond, what):
    global ok
    if not cond:
        print("FAILED:", what)
        ok = False


# (⇒) symbolic: with W ≥ 3 the corner has one neighbour fewer than (1, 0), for any H
hb = sp.symbols("hb", integer=True, nonnegative=True)  # hb = [H > 1] ∈ {0, 1}
m2 = sp.symbols("m2", integer=True, positive=True)     # m2 = min(H, 2) ∈ {1, 2}
corner_l, next_l = 1 + hb, 2 + hb                       # Euclidean / Manhattan
corner_c, next_c = 2 * m2 - 1, 3 * m2 - 1              # Chebyshev
check(sp.simplify(next_l - corner_l) == 1, "axis-neighbour counts differ by 1")
check(sp.simplify(next_c - corner_c - m2) == 0 and all(
    (next_c - corner_c).subs(m2, v) > 0 for v in (1, 2)), "Chebyshev counts differ by m2 ≥ 1")


def neighbours_at(W, H, norm, h, x, y, r):
    return sum(1 for x2 in range(W) for y2 in range(H) if (x2, y2) != (x, y)
               and grid_offset_distance(abs(x2 - x), abs(y2 - y), norm, h) == r)


for norm in ("euclidean", "manhattan", "chebyshev"):
    for h in (Fraction(1), Fraction(3, 7)):
        for W in range(1, 8):
            for H in range(1, 8):
                rows = []
                for y in range(H):
                    for x in range(W):
                        rows.append(Counter(grid_offset_distance(abs(x2 - x), abs(y2 - y), norm, h)
                                            for x2 in range(W) for y2 in range(H)))
                brute = all(r == rows[0] for r in rows)
                check(brute == grid_ball_size_symmetric(GridInfo(W, H, norm, h)),
                      f"{norm} {W}x{H} h={h}: brute {brute}")
                if W >= 3:  # the counting step of (⇒), on the actual grid
                    hb_v, m2_v = int(H > 1), min(H, 2)
                    want = (corner_c.subs(m2, m2_v), next_c.subs(m2, m2_v)) if norm == "chebyshev" \
                        else (corner_l.subs(hb, hb_v), next_l.subs(hb, hb_v))
                    r1 = grid_offset_distance(1, 0, norm, h)  # the least positive distance
                    got = (neighbours_at(W, H, norm, h, 0, 0, r1), neighbours_at(W, H, norm, h, 1, 0, r1))
                    check(got == tuple(int(v) for v in want), f"{norm} {W}x{H}: counts {got} vs {want}")

print("grid_ball_symmetry:", "all checks passed" if ok else "FAILED")
sys.exit(0 if ok else 1)
