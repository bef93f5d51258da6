"""Theorem (exact one-ε grid certificate, kind ``grid-point-exact``).

Setting. S is a finite subset of h·Z² (a W×H grid with spacing h = a/c in lowest terms,
masked or not) under the Manhattan distance, or of one row or column (there the Euclidean
distance is the same), so every distance is k·h with k = |Δx| + |Δy| ∈ {0, …, K},
K = W + H − 2. Let t = e^{−ε} be rational and u = e^{−ε/c} = t^{1/c}.

Lemma 1 (when Φ is rational). T = e^{−ε·h} = u^a. If u is rational, so is T and
Φ = [T^{k_ij}] is a rational matrix. (If gcd(a, c) = 1 and t is not a perfect c-th power,
T is irrational: T^c = t^a with c ∤ a·v_p(t) for some prime p. The code then answers None:
not rational, never wrong.)

Lemma 2 (the integer identity). Let T = p/q, A_k = p^k·q^{K−k} (integers, k ≤ K), X ∈ Z^n,
D ≥ 1 and b_i = num_i/den_i. Then (A·X)_i := Σ_j A_{k_ij} X_j = q^K·Σ_j T^{k_ij} X_j
= q^K·D·(Φz)_i for z = X/D, so Φz = b ⇔ den_i·(A·X)_i = D·q^K·num_i for every i. The kernel
computes A·X exactly (the zero-padded 2-D convolution of :class:`GridProducts` with the
tolerance 0: every A_k > 0, so nothing is cropped and the error term is 0;
``proofs/kernel_grid_kronecker.py``, ``proofs/grid_cropped_stride.py``).
With a step g (every occurring k a multiple of g; the entries t^{k/g}): A_k = p^{k/g}q^{K/g−k/g}
for g | k and 0 otherwise, the same identity with K/g (the other offsets are never read back).

Lemma 3 (the verdict). If Φz = b and z ≥ 0, then x = z is a solution x ≥ 0. If Φz = b and
z_w < 0: Φ is positive definite for 0 < T < 1 on every S (``proofs/grid_point_bounds.py``,
Lemma 2: λ_min ≥ ((1 − T)/(1 + T))² > 0), so z is the only solution and no x ≥ 0 exists.
Exactly-zero entries of z are decided like any other (z_i = 0 ≥ 0): no enclosure is involved.

Checked below: Lemma 1 (u^a against arb, and the irrational cases answered None); Lemma 2
symbolically (sympy, symbolic p, q, k) and on random masked grids against an independent
dense exact solve (flint fmpq_mat), at T ∈ {1/2, 1/3, 2/3, 3/5}, spacings 1, 2 and 1/2,
thin Euclidean grids; the kernel accepts the true claims and rejects every tampered one
(one numerator, the denominator, b, the shape, t, the verdict, the witness); the engine's
``grid_exact_z`` (with step 1 and 2) equals the dense solve.

Justifies: exactdp.kernel.grid_point_exact.check_grid_point_exact,
exactdp.engine.grid_exact.grid_exact_z.
"""

import math
import random
import sys
from fractions import Fraction

import sympy as sp
from flint import arb, fmpq, fmpq_mat

from exactdp.arithmetic.ball import workprec
from exactdp.engine.grid_exact import grid_exact_z
from exactdp.kernel.grid_point_exact import (
    GridPointExactClaim,
    check_grid_point_exact,
    exact_unit_t,
)
from exactdp.spaces.levels import parse_level
from exactdp.spaces.metrics.masked import GridShape

PROVES = [
    "exactdp.kernel.grid_point_exact.check_grid_point_exact",
    "exactdp.engine.grid_exact.grid_exact_z",
]

ok = True


def check(cond, what):
    global ok
    if not cond:
        print("FAILED:", what)
        ok = False


# Lemma 2 symbolically: q^K·T^k = p^k·q^(K−k)
p_, q_, k_, K_ = sp.symbols("p q k K", positive=True)
check(sp.simplify(q_**K_ * (p_ / q_) ** k_ - p_**k_ * q_ ** (K_ - k_)) == 0, "table identity")

# Lemma 1: T = u^a = e^{−ε·h} (arb), None when irrational
for tv, h, want in [("1/3", Fraction(2), Fraction(1, 9)), ("1/4", Fraction(1, 2), Fraction(1, 2)),
                    ("4/9", Fraction(3, 2), Fraction(8, 27)), ("1/2", Fraction(1, 2), None)]:
    lvl = parse_level(t=tv)
    unit = exact_unit_t(GridShape(3, 2, "manhattan", h), lvl)
    T = None if unit is None else unit[0] ** unit[1]
    check(T == want, f"T for t={tv}, h={h}")
    if T is not None:
        with workprec(200):
            e = (-lvl.eps_ball() * arb(h.numerator) / h.denominator).exp()
            check(abs(e - arb(T.numerator) / T.denominator) < arb(2) ** -150, f"arb T {tv} {h}")
check(exact_unit_t(GridShape(3, 2, "euclidean", Fraction(1)), parse_level(t="1/2")) is None,
      "Euclidean 3×2 refused")
check(exact_unit_t(GridShape(1, 5, "euclidean", Fraction(1)), parse_level(t="1/2")) is not None,
      "one column accepted")


def cells_of(mask, W):
    return tuple(y * W + x for y, row in enumerate(mask) for x, ch in enumerate(row) if ch == "1")


def dense_z(W, H, cells, T, b):
    """Independent exact solve: Φ from the points' coordinates, flint fmpq_mat."""
    pts = [(c % W, c // W) for c in cells]
    tq = fmpq(T.numerator, T.denominator)
    A = fmpq_mat(len(pts), len(pts), [tq ** (abs(a[0] - e[0]) + abs(a[1] - e[1]))
                                      for a in pts for e in pts])
    z = A.solve(fmpq_mat(len(pts), 1, [fmpq(v.numerator, v.denominator) for v in b]))
    return [Fraction(int(e.p), int(e.q)) for e in z.entries()]


rng = random.Random(15)
cases = []
for trial in range(24):
    W, H = rng.randint(1, 6), rng.randint(2, 6)
    norm = "euclidean" if W == 1 else "manhattan"
    mask = ["".join("1" if rng.random() < 0.75 else "0" for _ in range(W)) for _ in range(H)]
    cells = cells_of(mask, W)
    if not cells:
        continue
    tv = rng.choice(["1/2", "1/3", "2/3", "3/5"])
    h = rng.choice([Fraction(1), Fraction(2), Fraction(1, 2)])
    if h == Fraction(1, 2):
        tv = {"1/2": "1/4", "1/3": "1/9", "2/3": "4/9", "3/5": "9/25"}[tv]
    lvl = parse_level(t=tv)
    shape = GridShape(W, H, norm, h, None if len(cells) == W * H else cells)
    u, a = exact_unit_t(shape, lvl)
    T = u**a
    b = tuple(Fraction(rng.randint(1, 6), rng.randint(1, 4)) for _ in cells)
    if trial % 3 == 0:
        b = (Fraction(1),) * len(cells)
    z = dense_z(W, H, cells, T, b)
    D = math.lcm(*(v.denominator for v in z))
    X = tuple(v.numerator * (D // v.denominator) for v in z)
    holds = min(X) >= 0
    wit = None if holds else min(range(len(X)), key=X.__getitem__)
    claim = GridPointExactClaim(shape, lvl, b, holds, wit, X, D)
    check(check_grid_point_exact(claim), f"true claim accepted {W}x{H} {tv} h={h}")
    cases.append((claim, z))
    # tampered claims: every one rejected
    bad = list(X)
    bad[rng.randrange(len(bad))] += rng.choice([-1, 1])
    check(not check_grid_point_exact(GridPointExactClaim(shape, lvl, b, holds, wit, tuple(bad), D)),
          "one numerator changed")
    check(not check_grid_point_exact(GridPointExactClaim(shape, lvl, b, holds, wit, X, D + 1)),
          "denominator changed")
    if len(set(b)) > 1:
        check(not check_grid_point_exact(GridPointExactClaim(shape, lvl, b[::-1], holds, wit, X, D))
              or list(b[::-1]) == list(b), "b swapped")
    check(not check_grid_point_exact(GridPointExactClaim(shape, parse_level(t="1/7"), b, holds,
                                                         wit, X, D)), "t changed")
    moved = tuple(c + c // W for c in cells[:-1]) + (cells[-1] + cells[-1] // W + 1,)
    wider = GridShape(W + 1, H, "manhattan", h, moved)   # the last cell moved one step right
    check(not check_grid_point_exact(GridPointExactClaim(wider, lvl, b, holds, wit, X, D))
          or len(cells) == 1, "shape changed")
    check(not check_grid_point_exact(GridPointExactClaim(
        GridShape(W, H, norm, 2 * h, shape.cells), lvl, b, holds, wit, X, D)), "spacing changed")
    if not holds:
        ok_w = max(range(len(X)), key=X.__getitem__)
        check(not check_grid_point_exact(GridPointExactClaim(shape, lvl, b, False, ok_w, X, D)),
              "witness at a nonnegative entry")
    check(not check_grid_point_exact(GridPointExactClaim(shape, lvl, b, not holds,
                                                         None if not holds else 0, X, D)),
          "verdict flipped")
    # the engine's exact z (step 1 with T; step 2 with T^(1/2) when h = 2 and T a square)
    gz = grid_exact_z(shape, T, b)   # None (never a wrong z) only past 2^40 denominators
    check((gz is None and D.bit_length() > 40) or list(gz or []) == z,
          f"grid_exact_z {W}x{H} {tv} h={h}")

# step 2: a mask whose occurring offsets are all even (a checkerboard): entries t^(k/2)
W, H = 5, 5
mask = ["".join("1" if (x + y) % 2 == 0 else "0" for x in range(W)) for y in range(H)]
cells = cells_of(mask, W)
sh = GridShape(W, H, "manhattan", Fraction(1), cells)
z2 = grid_exact_z(sh, Fraction(1, 3), (Fraction(1),) * len(cells), step=2)
pts = [(c % W, c // W) for c in cells]
A = sp.Matrix(len(pts), len(pts), lambda i, j: sp.Rational(1, 3) ** (
    (abs(pts[i][0] - pts[j][0]) + abs(pts[i][1] - pts[j][1])) // 2))
check(all((abs(a[0] - e[0]) + abs(a[1] - e[1])) % 2 == 0 for a in pts for e in pts), "even offsets")
zs = A.LUsolve(sp.ones(len(pts), 1))
check(z2 is not None and [sp.Rational(v.numerator, v.denominator) for v in z2] == list(zs),
      "step 2 against sympy")

print("grid_point_exact: all checks passed" if ok else "grid_point_exact: FAILED")
sys.exit(0 if ok else 1)
