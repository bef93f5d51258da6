"""Theorem (one-ε grid certificate: the λ_min bound for Manhattan grids and the residual enclosure).

Lemma 1 (line symbol). For 0 < t < 1, f(θ) = Σ_{k∈Z} t^{|k|} e^{ikθ} = (1 − t²)/(1 − 2t cos θ + t²),
and f(θ) ≥ (1 − t²)/(1 + t)² = (1 − t)/(1 + t) (the denominator is ≤ (1 + t)²).

Lemma 2 (Manhattan grids, any subset). Let S be a finite set of points of h·Z² and
Φ_S[i, j] = e^{−ε·h(|Δx| + |Δy|)}; put t = e^{−εh}. The doubly infinite matrix t^{|Δx|+|Δy|}
on Z² is a Laurent operator with symbol F(θ1, θ2) = f(θ1)·f(θ2) (the entry factorises).
For v supported on S, vᵀΦ_S v = (2π)^{-2} ∫ |v̂(θ)|² F(θ) dθ ≥ min F · ‖v‖² (Parseval), so
λ_min(Φ_S) ≥ min F = ((1 − t)/(1 + t))². Because (1 − t)/(1 + t) decreases in t, any
upper bound t_hi ≥ t gives a valid (smaller) bound: the code rounds t up.
(For Euclidean grids the same argument with the lattice symbol is
proofs/lattice_spectrum_bound.py; a masked grid's Φ is a principal submatrix of the full
grid's, i.e. Φ_S with S the kept cells, so both bounds hold for it unchanged.)

Lemma 3 (the enclosure). Let Φ be SPD with λ_min(Φ) ≥ λ > 0, z = Φ⁻¹b, y any vector and
r = b − Φy. Then z − y = Φ⁻¹r, ‖z − y‖∞ ≤ ‖z − y‖₂ ≤ ‖Φ⁻¹‖₂‖r‖₂ ≤ ‖r‖₂/λ. With the
entries enclosed as Φ = (A + Δ)·2^{−T}, 0 ≤ Δ_il ≤ R (integers A, R) and y = Y·2^{−s}:
2^{T+s} r = (2^{T+s} b − AY) − ΔY, |(ΔY)_i| ≤ R‖Y‖₁, so
‖r‖₂ ≤ (√(Σ_i ⌈|2^{T+s}b_i − (AY)_i|⌉²) + √n·R‖Y‖₁)·2^{−(T+s)}, and isqrt(·) + 1 bounds the
square root above. Hence every z_i ∈ [y_i − ρ, y_i + ρ], ρ = that bound / λ; "z ≥ 0" follows
from min y_i ≥ ρ and "some z_w < 0" (unique solution, Φ nonsingular) from y_w + ρ < 0.

Checked below: Lemma 1 symbolically (sympy sums the geometric series) and its minimum;
Lemma 2 numerically on full, rectangular and randomly masked Manhattan grids (eigvalsh ≥
bound, and the bound is approached on large grids); Lemma 3 exactly on small grids at
rational t (exact z by Fractions; every |z_i − y_i| ≤ ρ for perturbed y, and the kernel's
norm bound ≥ the exact ‖r‖₂); the kernel's exact convolution against the direct product.

Justifies: exactdp.kernel.grid_point.manhattan_lambda_lower, exactdp.kernel.grid_point.grid_residual.
"""

import random
import sys
from fractions import Fraction

import numpy as np
import sympy as sp
from flint import fmpz_mat

from exactdp.arithmetic.ball import workprec
from exactdp.kernel.grid_point import grid_residual, grid_table, manhattan_lambda_lower
from exactdp.spaces.distances import grid_offset_distance
from exactdp.spaces.levels import parse_level
from exactdp.spaces.metrics import grid
from exactdp.spaces.metrics.masked import GridShape, masked_grid

PROVES = [
    "exactdp.kernel.grid_point.manhattan_lambda_lower",
    "exactdp.kernel.grid_point.grid_residual",
    "exactdp.threshold.rational_point.exact_grid_z",  # uniqueness: Φ ≻ 0 on every lattice subset
]

ok = True


def check(cond, what):
    global ok
    if not cond:
        print("FAILED:", what)
        ok = False


# Lemma 1: the symbol in closed form, symbolically
t, th, zz = sp.symbols("t theta z", positive=True)
# with z = e^{iθ}: Σ_{k≥0} (tz)^k + Σ_{k≥1} (t/z)^k and cos θ = (z + 1/z)/2 (|t| < 1 = |z|)
series = 1 / (1 - t * zz) + (t / zz) / (1 - t / zz)
check(sp.cancel(series - (1 - t**2) / (1 - t * (zz + 1 / zz) + t**2)) == 0,
      "line symbol identity")
closed = (1 - t**2) / (1 - 2 * t * sp.cos(th) + t**2)
check(sp.simplify(closed.subs(th, sp.pi) - (1 - t) / (1 + t)) == 0, "minimum at θ = π")
for tv in (Fraction(1, 10), Fraction(1, 2), Fraction(9, 10)):
    vals = [float(closed.subs({t: tv, th: x})) for x in np.linspace(0, 2 * np.pi, 721)]
    check(min(vals) >= float((1 - tv) / (1 + tv)) - 1e-12, f"symbol ≥ (1-t)/(1+t) at t={tv}")

# Lemma 2: λ_min of Manhattan grids and masked grids ≥ ((1 − t)/(1 + t))²
rng = random.Random(5)
for (W, H, tv) in [(3, 3, "1/2"), (5, 2, "1/3"), (6, 6, "9/10"), (20, 20, "9/10"), (1, 7, "1/2")]:
    lvl = parse_level(t=tv)
    bound = float(manhattan_lambda_lower(lvl, Fraction(1)))
    tf = float(Fraction(tv))
    m = grid(W, H, "manhattan")
    lam = np.linalg.eigvalsh(tf ** m.exponent_matrix().astype(float))[0]
    check(lam >= bound - 1e-12, f"grid {W}x{H} t={tv}: λ_min {lam} ≥ {bound}")
    if W * H > 2:
        rows = [[rng.random() < 0.7 for _ in range(W)] for _ in range(H)]
        rows[0][0] = True
        rows[-1][-1] = not rows[-1][-1] or rows[-1][-1]
        mm = masked_grid(W, H, "manhattan", mask=rows)
        lam_m = np.linalg.eigvalsh(tf ** mm.exponent_matrix().astype(float))[0]
        check(lam_m >= lam - 1e-12 and lam_m >= bound - 1e-12,
              f"masked {W}x{H}: λ_min {lam_m} ≥ full {lam} ≥ bound (Cauchy interlacing)")
lvl = parse_level(t="1/2")
m = grid(30, 30, "manhattan")
lam = np.linalg.eigvalsh(0.5 ** m.exponent_matrix().astype(float))[0]
check(lam <= 1.2 * float(manhattan_lambda_lower(lvl, Fraction(1))), "the bound is nearly attained")
spacing = Fraction(3, 2)
lvl = parse_level(eps="2/5")
m = grid(6, 4, "manhattan", spacing)
lam = np.linalg.eigvalsh(np.exp(-0.4 * m.distance_matrix_float()))[0]
check(lam >= float(manhattan_lambda_lower(lvl, spacing)) - 1e-12, "spacing 3/2, irrational t")

# the kernel's convolution against the direct product (GridProducts.sums with nothing
# cropped, the product grid_residual uses; proofs/kernel_grid_kronecker.py)
for (W, H) in [(1, 1), (1, 5), (4, 1), (3, 4), (5, 3)]:
    for norm in ("euclidean", "manhattan"):
        sh = GridShape(W, H, norm, Fraction(1))
        op, lows, _ = grid_table(sh, parse_level(eps="1/3"), 40)
        lows = [rng.randint(-2**90, 2**90) for _ in lows]
        Y = [rng.randint(-2**70, 2**70) for _ in range(W * H)]
        got = [int(x) for x in op.sums(fmpz_mat(len(lows), 1, lows), [Y])[0][0]]
        want = [sum(lows[op.code[abs(i % W - j % W), abs(i // W - j // W)]] * Y[j]
                    for j in range(W * H)) for i in range(W * H)]
        check(got == want, f"kernel convolution {W}x{H} {norm}")

# the kernel's table: A_k ≤ 2^T·e^{-ε·d(dx, dy)} ≤ A_k + R, d = grid_offset_distance (the
# definition), checked at 400 bits against independent balls
for norm, h, eps in (("euclidean", Fraction(1), "1/3"), ("euclidean", Fraction(3, 2), "ln(2)"),
                     ("manhattan", Fraction(2, 3), "7/5")):
    sh = GridShape(5, 4, norm, h)
    lvl = parse_level(eps=eps)
    op, lows, radmax = grid_table(sh, lvl, 90)
    with workprec(400):
        for dx in range(5):
            for dy in range(4):
                v = (-lvl.eps_ball() * grid_offset_distance(dx, dy, norm, h).ball()).exp() * 2**90
                a = lows[op.code[dx, dy]]
                check(v >= a and v <= a + radmax, f"table entry ({dx}, {dy}) {norm}")
    check(radmax <= 2, f"table radius {radmax}")

# Lemma 3 exactly: Manhattan grids at rational t have rational Φ and z
for (W, H, tv, mask) in [(3, 2, "1/2", None), (4, 3, "2/3", ["1101", "1111", "0111"]),
                         (2, 5, "1/5", None)]:
    lvl = parse_level(t=tv)
    m = grid(W, H, "manhattan") if mask is None else masked_grid(W, H, "manhattan", mask=mask)
    sh = GridShape(W, H, "manhattan", Fraction(1), None if mask is None else
                   tuple(y * W + x for y in range(H) for x in range(W) if mask[y][x] == "1"))
    T = Fraction(tv)
    E = m.exponent_matrix()
    n = m.n
    tq = sp.Rational(T.numerator, T.denominator)
    Phi = sp.Matrix([[tq ** int(e) for e in row] for row in E.tolist()])
    b = [Fraction(rng.randint(1, 9)) for _ in range(n)]
    zs = Phi.LUsolve(sp.Matrix([sp.Rational(v.numerator, v.denominator) for v in b]))
    zf = [Fraction(int(sp.fraction(v)[0]), int(sp.fraction(v)[1])) for v in zs]
    lam = manhattan_lambda_lower(lvl, Fraction(1))
    for s_bits in (8, 20, 40):
        Y = tuple(round(v * 2**s_bits) + rng.randint(-3, 3) for v in zf)
        res = grid_residual(sh, lvl, tuple(b), Y, s_bits, 60)
        y = [Fraction(v, 2**s_bits) for v in Y]
        r = [b[i] - sum(T ** int(E[i, j]) * y[j] for j in range(n)) for i in range(n)]
        check(sum(v * v for v in r) <= res.norm_bound ** 2, f"‖r‖₂ bound {W}x{H} s={s_bits}")
        rho = res.norm_bound / lam
        check(all(abs(zf[i] - y[i]) <= rho for i in range(n)), f"|z − y| ≤ ρ {W}x{H} s={s_bits}")

print("grid_point_bounds: all checks passed" if ok else "grid_point_bounds: FAILED")
sys.exit(0 if ok else 1)
