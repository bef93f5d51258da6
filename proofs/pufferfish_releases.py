"""Theorem (k Laplace releases of the same sum are exactly one release at the harmonic scale).

Setting as in ``proofs/pufferfish_supremum.py``: one user's contribution D has finite law P
under secret s and Q under s'; the other users' sum R is independent of D (any finite law);
X = R + D is released k times with independent noise, Y_i = X + Lap(θ_i), θ_i > 0.
Put Λ = Σ_i 1/θ_i, θ_eff = 1/Λ, K(x) = e^{-Λ|x|}, g_P(s) = Σ_d P(d) K(s − d) (the
single-release kernel sum at scale θ_eff) and L(θ) = sup_s |ln g_P(s) − ln g_Q(s)| (the
single-release loss, a maximum over the support points of P ∪ Q). For y ∈ R^k put
w_y(d) = exp(−φ_y(d)), φ_y(d) = Σ_i |y_i − d|/θ_i, and G_P(y) = Σ_d P(d) w_y(d). Then

 (1) [reduction to G] the joint density is f(y|s) = Σ_x P(X = x) Π_i e^{-|y_i − x|/θ_i}/(2θ_i)
     = Σ_r P(R = r) G_P(y − r·1)/Π(2θ_i); by the mediant inequality the loss of every
     population is ≤ sup_y |ln G_P(y) − ln G_Q(y)|, and a point-mass rest attains it;
 (2) [lower bound on the diagonal] for y = (s, …, s), w_y(d) = K(s − d), so G_P(y) = g_P(s)
     and sup_y ≥ L(θ_eff);
 (3) [mixture of Laplace kernels] for every y, w_y = ∫ c_y(t) K(· − t) dt with
     c_y = (Λ² w_y − w_y'')/(2Λ) a NON-NEGATIVE measure: between kinks φ' = σ with |σ| ≤ Λ
     and φ'' = 0, so Λ²w − w'' = (Λ² − σ²) w ≥ 0; at a kink y_i, w' jumps by
     −(2/θ_i) w(y_i) < 0, so −w'' has a point mass (2/θ_i) w(y_i) > 0; K is the Green
     function, (Λ² − ∂²)K = 2Λδ, and w − K*c solves h'' = Λ²h and vanishes at ±∞ (both decay
     like e^{-Λ|x|}, c has compact support), hence is 0;
 (4) [upper bound] G_P(y) = ∫ c_y(t) g_P(t) dt (finite sum, Fubini), so
     G_P(y)/G_Q(y) ≤ sup_t g_P(t)/g_Q(t) ≤ e^{L(θ_eff)}, and the same for Q/P;

so the exact privacy loss of the k releases, for every population, is L(θ_eff), attained at
the diagonal output y = (s*, …, s*) with s* a worst support point at θ_eff. Consequences:

 (5) with a common θ, θ_eff = θ/k, and the least common θ keeping the total loss ≤ ε is
     exactly k·θ*(ε) (θ*(ε) the single-release least scale);
 (6) the Wasserstein scale composes linearly: L(θ_eff) ≤ W_∞·Λ, so k releases at
     θ = W_∞/ε lose at most kε; but k releases at θ*(ε) lose L(θ*/k), e.g. for
     Bern(p) against absent ln(1 − p + p e^{k/θ*}) — far above kε for p = 1/10.

Each step is checked below with sympy (exits non-zero on failure); the last step compares
with a brute-force maximum over a fine grid of R² and R³ (mpmath, 40 digits).
"""

from __future__ import annotations

import itertools
import random
import sys

import mpmath
import sympy as sp

PROVES = [
    "exactdp.kernel.pufferfish.check_pufferfish",
    "exactdp.pufferfish.releases.release_loss",
    "exactdp.pufferfish.releases.effective_scale",
    "exactdp.pufferfish.calibration.exact_scale",
]

failures: list[str] = []


def check(name: str, ok: bool) -> None:
    print(("ok   " if ok else "FAIL ") + name)
    if not ok:
        failures.append(name)


x, t, s, d = sp.symbols("x t s d", real=True)
lam, th1, th2, th3 = sp.symbols("Lambda theta1 theta2 theta3", positive=True)

# (1) product of Laplace densities at y − x = the weight w_y(x − r) times 1/Π(2θ_i).
y1, y2, r = sp.symbols("y1 y2 r", real=True)
dens = sp.exp(-sp.Abs(y1 - (r + d)) / th1) / (2 * th1) * sp.exp(-sp.Abs(y2 - (r + d)) / th2) / (2 * th2)
w_shift = sp.exp(-(sp.Abs((y1 - r) - d) / th1 + sp.Abs((y2 - r) - d) / th2)) / (4 * th1 * th2)
check("(1) Π_i Lap density at y_i − (r + d) = w_{y − r·1}(d)/Π(2θ_i)",
      sp.simplify(dens - w_shift) == 0)

# (2) on the diagonal Σ_i |s − d|/θ_i = Λ|s − d| with Λ = Σ 1/θ_i.
diag = sp.Abs(s - d) / th1 + sp.Abs(s - d) / th2 + sp.Abs(s - d) / th3
check("(2) diagonal output: φ_(s,…,s)(d) = Λ|s − d| (the kernel at θ_eff = 1/Λ)",
      sp.simplify(diag - (1 / th1 + 1 / th2 + 1 / th3) * sp.Abs(s - d)) == 0)

# (3a) between kinks w = C e^{-σ x}: Λ² w − w'' = (Λ² − σ²) w, ≥ 0 when |σ| ≤ Λ.
C, sig = sp.symbols("C sigma", real=True)
w_piece = C * sp.exp(-sig * x)
check("(3a) Λ²w − w'' = (Λ² − σ²) w on a piece with slope σ of φ",
      sp.simplify(lam**2 * w_piece - sp.diff(w_piece, x, 2) - (lam**2 - sig**2) * w_piece) == 0)
# the slopes of φ are Σ_i ±1/θ_i, so |σ| ≤ Λ: checked over every sign pattern for k = 3
slopes_ok = True
for signs in itertools.product((-1, 1), repeat=3):
    sg = sum(e / v for e, v in zip(signs, (th1, th2, th3)))
    lam3 = 1 / th1 + 1 / th2 + 1 / th3
    slopes_ok &= sp.simplify(lam3**2 - sg**2 - (lam3 - sg) * (lam3 + sg)) == 0
    # each factor Λ ∓ σ is a sum of non-negative terms 2/θ_i (or 0)
    slopes_ok &= all(sp.expand(f).is_nonnegative for f in (lam3 - sg, lam3 + sg))
check("(3a) every slope σ = Σ ±1/θ_i of φ has Λ − σ ≥ 0 and Λ + σ ≥ 0", slopes_ok)

# (3b) at a kink y_i, φ' jumps by +2/θ_i, so w' = −φ' w jumps by −(2/θ_i) w(y_i).
a, bb = sp.symbols("a b", real=True)
w_left = sp.exp(-(a * x))          # slope a of φ left of the kink at 0
w_right = sp.exp(-((a + 2 / th1) * x))  # slope a + 2/θ_1 right of it
jump = (sp.diff(w_right, x) - sp.diff(w_left, x)).subs(x, 0)
check("(3b) w' jumps by −(2/θ_i)·w(y_i) at a kink: −w'' has a positive point mass",
      sp.simplify(jump + 2 / th1) == 0)

# (3c) K is the Green function of Λ² − ∂²: zero off 0 and K' jumps by −2Λ at 0.
K_right, K_left = sp.exp(-lam * x), sp.exp(lam * x)
check("(3c) (Λ² − ∂²)K = 0 off 0, K'(0+) − K'(0−) = −2Λ (so (Λ² − ∂²)K = 2Λδ)",
      sp.simplify(lam**2 * K_right - sp.diff(K_right, x, 2)) == 0
      and sp.simplify(lam**2 * K_left - sp.diff(K_left, x, 2)) == 0
      and sp.simplify((sp.diff(K_right, x) - sp.diff(K_left, x)).subs(x, 0) + 2 * lam) == 0)


# (3d) the representation itself, checked exactly on concrete cases: w = K * c on every region.
def _mid(lo: sp.Expr, hi: sp.Expr) -> sp.Expr:
    """A point inside (lo, hi), either end possibly infinite."""
    if lo == -sp.oo:
        return hi - 1
    if hi == sp.oo:
        return lo + 1
    return (lo + hi) / 2


def _exp_integral(f: sp.Expr, lo: sp.Expr, hi: sp.Expr) -> sp.Expr | None:
    """∫_lo^hi f(t) dt for f = A·e^{b t} (A, b constants; b real), by an antiderivative F that is
    CHECKED exactly (F' − f simplifies to 0); an infinite end needs b of the sign that makes
    F vanish there (else None: the integral diverges). Replaces ``sp.integrate`` (same exact
    value, ~100× faster)."""
    b = sp.simplify(sp.diff(f, t) / f)
    if b.has(t) or not b.is_real:
        return None
    F = t * f if b == 0 else f / b
    if sp.simplify(sp.diff(F, t) - f) != 0:
        return None
    total = sp.Integer(0)
    for end, sign in ((hi, 1), (lo, -1)):
        if end in (sp.oo, -sp.oo):
            # F = (A/b)·e^{b t} → 0 at +∞ iff b < 0, at −∞ iff b > 0
            if b == 0 or (b > 0) != (end == -sp.oo):
                return None
            continue
        total += sign * F.subs(t, end)
    return total


def representation_holds(thetas: list[sp.Rational], ys: list[sp.Rational]) -> bool:
    """w_y(x) = Σ atoms + ∫ density, with c_y from (3a)/(3b), at probes in every region."""
    L = sum(1 / v for v in thetas)
    kinks = sorted(set(ys))

    def phi_at(u: sp.Expr) -> sp.Expr:
        return sum(abs(u - yi) / v for yi, v in zip(ys, thetas))

    edges = [-sp.oo, *kinks, sp.oo]
    pieces = []  # (lo, hi, density of c on (lo, hi) as a function of t)
    for lo, hi in zip(edges, edges[1:]):
        m = _mid(lo, hi)
        signs = [sp.sign(m - yi) for yi in ys]
        sigma = sum(e / v for e, v in zip(signs, thetas))
        w_t = sp.exp(-sum(e * (t - yi) / v for e, yi, v in zip(signs, ys, thetas)))
        pieces.append((lo, hi, (L**2 - sigma**2) * w_t / (2 * L)))
    atoms = [(yk, sum(2 / v for yi, v in zip(ys, thetas) if yi == yk)
              * sp.exp(-phi_at(yk)) / (2 * L)) for yk in kinks]
    probes = [kinks[0] - 2, kinks[0] - sp.Rational(1, 3), kinks[-1] + sp.Rational(5, 2), *kinks]
    probes += [(u + v) / 2 for u, v in zip(kinks, kinks[1:])]
    for xv in probes:
        total = sum(mass * sp.exp(-L * abs(xv - yk)) for yk, mass in atoms)
        for lo, hi, dens_c in pieces:
            if dens_c == 0:
                continue
            inner = [c for c in (xv,) if (lo == -sp.oo or c > lo) and (hi == sp.oo or c < hi)]
            cuts = [lo, *inner, hi]
            for u, v in zip(cuts, cuts[1:]):
                sgn = sp.sign(xv - _mid(u, v))
                part = _exp_integral(dens_c * sp.exp(-L * sgn * (xv - t)), u, v)
                if part is None:
                    return False
                total += part
        if sp.simplify(total - sp.exp(-phi_at(xv))) != 0:
            return False
    return True


cases = [
    ([sp.Integer(1), sp.Integer(2)], [sp.Integer(0), sp.Integer(1)]),
    ([sp.Integer(1), sp.Integer(1)], [sp.Integer(0), sp.Integer(0)]),
    ([sp.Rational(1, 2), sp.Integer(1), sp.Integer(3)], [sp.Integer(-1), sp.Integer(2), sp.Integer(0)]),
    ([sp.Integer(1), sp.Integer(1), sp.Integer(1)], [sp.Integer(0), sp.Integer(3), sp.Integer(3)]),
]
check("(3d) w_y = ∫ c_y(t) K(· − t) dt exactly (continuous part + atoms) on four cases",
      all(representation_holds(th, ys) for th, ys in cases))

# (4) mediant for a non-negative mixture: ∫c g_P ≤ M ∫c g_Q when g_P ≤ M g_Q pointwise.
cc, gp, gq, MM = sp.symbols("c g_P g_Q M", positive=True)
check("(4) M∫c g_Q − ∫c g_P = ∫ c (M g_Q − g_P) ≥ 0 termwise",
      sp.simplify(MM * cc * gq - cc * gp - cc * (MM * gq - gp)) == 0)

# (5) common θ: Λ = k/θ, so θ_eff = θ/k and L_k(θ) ≤ ε iff θ/k ≥ θ*, i.e. θ ≥ kθ*.
k = sp.Symbol("k", positive=True, integer=True)
th = sp.Symbol("theta", positive=True)
check("(5) k equal scales θ give θ_eff = θ/k", sp.simplify(1 / (k * (1 / th)) - th / k) == 0)

# (6) Bern(p) against absent at θ_eff: the right end ratio is (1 − p) + p e^{1/θ_eff}.
p = sp.Rational(1, 10)
eps = sp.Integer(1)
theta_star = 1 / sp.log(1 + (sp.E**eps - 1) / p)
losses = {kk: sp.log((1 - p) + p * sp.exp(kk / theta_star)) for kk in (2, 3, 5)}
vals = {kk: float(sp.N(v, 20)) for kk, v in losses.items()}
check("(6) Bern(1/10) vs absent at θ*(ε = 1): 3.525, 6.400, 12.20 after 2, 3, 5 releases",
      round(vals[2], 3) == 3.525 and round(vals[3], 3) == 6.400 and round(vals[5], 2) == 12.20)
winf = sp.Symbol("W", positive=True)
check("(6) W_∞ Λ with θ_i = W_∞/ε for k releases is kε",
      sp.simplify(winf * k / (winf / sp.Symbol("e", positive=True)) - k * sp.Symbol("e", positive=True)) == 0)


def _law(rng: random.Random, pts: list[int]) -> list[tuple[mpmath.mpf, mpmath.mpf]]:
    ws = [rng.randint(0, 4) for _ in pts]
    ws[rng.randrange(len(pts))] += 1
    return [(mpmath.mpf(v), mpmath.mpf(w) / sum(ws)) for v, w in zip(pts, ws) if w]


def _G(dist: list[tuple[mpmath.mpf, mpmath.mpf]], ys: tuple[mpmath.mpf, ...],
       thetas: list[mpmath.mpf]) -> mpmath.mpf:
    """Σ_d P(d) exp(−Σ_i |y_i − d|/θ_i): the k-dimensional output density up to Π 2θ_i
    (the one-coordinate factors e^{−|y_i − d|/θ_i} are cached: the grid repeats them)."""
    total = mpmath.mpf(0)
    for v, w in dist:
        term = w
        for yi, tv in zip(ys, thetas):
            term *= _factor(yi, v, tv)
        total += term
    return total


_FACTORS: dict[tuple[mpmath.mpf, mpmath.mpf, mpmath.mpf], mpmath.mpf] = {}


def _factor(y: mpmath.mpf, v: mpmath.mpf, th: mpmath.mpf) -> mpmath.mpf:
    key = (y, v, th)
    if key not in _FACTORS:
        _FACTORS[key] = mpmath.exp(-abs(y - v) / th)
    return _FACTORS[key]


def _brute_force() -> bool:
    """Max over a fine grid of R^k plus the support points equals L(θ_eff) (mpmath, 40 digits)."""
    mpmath.mp.dps = 40
    rng = random.Random(17)
    for trial in range(8):
        pts = sorted(rng.sample(range(-3, 4), rng.randint(2, 3)))
        P, Q = _law(rng, pts), _law(rng, pts)
        kk = 2 if trial < 6 else 3
        thetas = [mpmath.mpf(rng.randint(1, 6)) / rng.randint(1, 3) for _ in range(kk)]
        eff = [1 / sum(1 / v for v in thetas)]

        def loss(ys: tuple[mpmath.mpf, ...], ths: list[mpmath.mpf],
                 P: list[tuple[mpmath.mpf, mpmath.mpf]] = P,
                 Q: list[tuple[mpmath.mpf, mpmath.mpf]] = Q) -> mpmath.mpf:
            return abs(mpmath.log(_G(P, ys, ths)) - mpmath.log(_G(Q, ys, ths)))

        diagonal = max(loss((mpmath.mpf(v),) * kk, thetas) for v in pts)
        single_eff = max(loss((mpmath.mpf(v),), eff) for v in pts)  # one release at θ_eff
        step = 4 if kk == 2 else 2
        grid = sorted({mpmath.mpf(v) for v in pts}
                      | {mpmath.mpf(i) / step for i in range(-5 * step, 5 * step + 1)})
        brute = max(loss(ys, thetas) for ys in itertools.product(grid, repeat=kk))
        tol = mpmath.mpf(10) ** -30
        if abs(diagonal - single_eff) > tol or abs(brute - single_eff) > tol:
            return False
    return True


check("(7) brute force over a grid of R² / R³ ∪ supports equals L(θ_eff) (8 random cases)",
      _brute_force())

if failures:
    print(f"{len(failures)} step(s) failed")
    sys.exit(1)
print("all steps verified")
