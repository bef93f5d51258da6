"""Theorem (size-independent spectral lower bound for Euclidean lattice metrics).

Let g_ε(x) = e^{-ε|x|} on R² (|.| Euclidean), ε > 0, and f_ε(θ) = Σ_{k∈Z²} g_ε(k) e^{-ik·θ}
(absolutely convergent). For every finite S ⊂ Z², Φ_S(ε) = [g_ε(k - l)]_{k,l∈S} satisfies

    λ_min(Φ_S(ε)) ≥ min_θ f_ε(θ) > 0,

and on the lattice h·Z² the kernel e^{-ε h|k - l|} is the unit-lattice kernel at ε' = εh.

Proof.
1. (Fourier transform.) ĝ_ε(ω) = ∫ g_ε(x) e^{-iω·x} dx. In polar coordinates, with
   J0(z) = (1/2π)∫_0^{2π} e^{-iz cos φ} dφ, ĝ_ε(ω) = 2π ∫_0^∞ e^{-εr} J0(|ω|r) r dr.
   Since ∫_0^∞ e^{-εr} J0(ωr) dr = 1/√(ε² + ω²) and differentiation in ε under the
   integral is allowed (|J0| ≤ 1, r e^{-εr} ≤ r e^{-ε0 r} integrable for ε ≥ ε0 > 0),
   ∫_0^∞ e^{-εr} J0(ωr) r dr = -d/dε (ε² + ω²)^{-1/2} = ε (ε² + ω²)^{-3/2}, so
   ĝ_ε(ω) = 2πε / (ε² + |ω|²)^{3/2} > 0.                              [checked in (a)]
2. (Poisson summation.) g_ε and ĝ_ε are continuous and O((1 + |x|)^{-3}), so the Poisson
   summation formula holds pointwise (Stein & Weiss, Introduction to Fourier Analysis on
   Euclidean Spaces, Ch. VII, Cor. 2.6: decay (1 + |x|)^{-d-δ} of both suffices):
   f_ε(θ) = Σ_{m∈Z²} ĝ_ε(θ + 2πm) > 0.                            [checked in (b)]
3. (Quadratic form.) g_ε(k) = (2π)^{-2} ∫_{[-π,π]²} f_ε(θ) e^{ik·θ} dθ (Fourier
   coefficients of an absolutely convergent series), hence for real v on S
   v^T Φ_S v = (2π)^{-2} ∫ |Σ_k v_k e^{ik·θ}|² f_ε(θ) dθ ≥ min f_ε · ‖v‖² (Parseval).
                                                                        [checked in (c)]
4. (Rigorous lower bound used by the code, for all ε ∈ [a, b] at once.) f is
   2π-periodic, even in each coordinate and symmetric in (θ1, θ2), so min over R² is the
   min over 0 ≤ θ2 ≤ θ1 ≤ π. Write θ = 2πφ. All Poisson terms are positive, so any subset
   gives a lower bound. ĝ_ε(ω) decreases in |ω|, and d/dε ε(ε² + Q)^{-3/2} =
   (Q - 2ε²)(ε² + Q)^{-5/2} (unimodal in ε), so for ε ∈ [a, b] and φ in a box B
   ĝ_ε(2π(φ + m)) ≥ min(ĝ_a, ĝ_b)(4π² q_m), q_m = max_{φ∈B} |φ + m|² (exact rational,
   attained at box endpoints coordinatewise), = ĝ_a(4π² q_m) when 4π² q_m ≥ 2b².
                                                                  [checked in (g)]
   For the images |m| > R (Tail lemma): with ρ ≥ max_B |φ| and c = b, or c = a when
   4π²(R - ρ)² ≥ 2b² (then |ω|² > 4π²(R - ρ)² ≥ 2b² for every tail image, so
   ĝ_ε ≥ ĝ_a there), ψ(s) = 2πa / (c² + 4π²(s + ρ)²)^{3/2} is decreasing and
   ĝ_ε(2π(φ + m)) ≥ ψ(|m|) (as |φ + m| ≤ |m| + ρ and 2πa/(b² + |ω|²)^{3/2} ≤ ĝ_ε(ω));
   for x in the cell m + [-1/2, 1/2]², |m| ≤ |x| + √2/2, so
   ψ(|m|) ≥ ∫_cell ψ(|x| + √2/2) dx; the cells with |m| > R are disjoint and cover
   {|x| > R + √2/2}; hence
   Σ_{|m|>R} ψ(|m|) ≥ 2π ∫_{R+√2/2}^∞ ψ(r + √2/2) r dr = (a/S)(1 - 2π(√2/2 + ρ)/(S + U0)),
   U0 = 2π(R + √2 + ρ), S = √(c² + U0²) (below, b stands for c). [checked in (e)]
5. (Large ε, diagonal dominance.) f_ε(θ) = 1 + Σ_{k≠0} e^{-ε|k|} cos(k·θ)
   ≥ 1 - Σ_{k≠0} e^{-a|k|} for ε ≥ a, and by the same cell argument (|x| ≤ |k| + √2/2 on
   the cell of k) Σ_{|k|>K} e^{-a|k|} ≤ e^{a√2/2} 2π e^{-aK'}(1 + aK')/a², K' = K - √2/2.
                                                                        [checked in (f)]
The code (exactdp.algebra.lattice_spectrum) evaluates 4 on a cover of the triangle by dyadic boxes
(and 5 for a ≥ 3) in arb ball arithmetic and returns the lower end, rounded down.
(d) checks the returned bound against numpy's λ_min on grids, subsets and ranges.
"""

import math
import sys

import mpmath
import numpy as np
import sympy as sp

PROVES = ["exactdp.algebra.lattice_spectrum.euclidean_lattice_lambda_lower"]

ok = True


def check(cond, what):
    global ok
    if not cond:
        print("FAILED:", what)
        ok = False
    else:
        print("ok:", what)


# ---------------------------------------------------------------- (a) Fourier transform
e, w, r, x, y, c = sp.symbols("epsilon omega r x y c", positive=True)
hankel0 = sp.integrate(sp.exp(-e * r) * sp.besselj(0, w * r), (r, 0, sp.oo))
check(sp.simplify(hankel0 - 1 / sp.sqrt(e**2 + w**2)) == 0,
      "∫_0^∞ e^{-εr} J0(ωr) dr = 1/√(ε²+ω²) (sympy)")
hankel1 = sp.integrate(sp.exp(-e * r) * sp.besselj(0, w * r) * r, (r, 0, sp.oo))
ghat = 2 * sp.pi * e / (e**2 + w**2) ** sp.Rational(3, 2)
check(sp.simplify(2 * sp.pi * hankel1 - ghat) == 0,
      "2π ∫_0^∞ e^{-εr} J0(ωr) r dr = 2πε/(ε²+ω²)^{3/2} (sympy)")
check(sp.simplify(-sp.diff(1 / sp.sqrt(e**2 + w**2), e) - e / (e**2 + w**2) ** sp.Rational(3, 2))
      == 0, "-d/dε (ε²+ω²)^{-1/2} = ε(ε²+ω²)^{-3/2}")
# inversion sanity: (2π)^{-2} ∫_{R²} ĝ = g(0) = 1
mass = sp.integrate(ghat * 2 * sp.pi * w, (w, 0, sp.oo)) / (4 * sp.pi**2)
check(sp.simplify(mass - 1) == 0, "(2π)^{-2} ∫ ĝ dω = g(0) = 1")

mpmath.mp.dps = 35
for z in (mpmath.mpf("0.7"), mpmath.mpf("5.25")):
    ang = mpmath.quad(lambda p, z=z: mpmath.cos(z * mpmath.cos(p)), [0, mpmath.pi / 2, mpmath.pi,
                      3 * mpmath.pi / 2, 2 * mpmath.pi]) / (2 * mpmath.pi)
    check(abs(ang - mpmath.besselj(0, z)) < mpmath.mpf(10) ** -30,
          f"J0({z}) = (1/2π)∫ cos(z cos φ) dφ to 30 digits")
for eps_s, om_s in (("0.665", "0"), ("0.665", "3.3"), ("2", "1.5"), ("0.5", "4"), ("0.665", "0.5")):
    ev, om = mpmath.mpf(eps_s), mpmath.mpf(om_s)
    t_max = mpmath.mpf(90) / ev  # the omitted ∫_{t_max}^∞ is < e^{-90}(1 + 90)/ε² ≈ 1e-37
    if om == 0:
        val = 2 * mpmath.pi * mpmath.quad(lambda t, ev=ev: mpmath.exp(-ev * t) * t,
                                          [0, mpmath.inf])
    else:
        per = 2 * mpmath.pi / om  # split at periods of the oscillation
        nodes = [per * j for j in range(int(t_max / per) + 2)]
        val = 2 * mpmath.pi * mpmath.quad(
            lambda t, ev=ev, om=om: mpmath.exp(-ev * t) * mpmath.besselj(0, om * t) * t, nodes)
    closed = 2 * mpmath.pi * ev / (ev**2 + om**2) ** mpmath.mpf(1.5)
    check(abs(val - closed) < mpmath.mpf(10) ** -30 * closed,
          f"ĝ({eps_s}, {om_s}) by quadrature = closed form (30 digits)")
# a genuinely 2-D check (Cartesian directions via the polar integral with the cosine)
ev, om = mpmath.mpf("0.665"), mpmath.mpf("2.1")
mpmath.mp.dps = 12
two_d = mpmath.quad(lambda t, p: mpmath.exp(-ev * t) * mpmath.cos(om * t * mpmath.cos(p)) * t,
                    [0, 10, 30, 80], [0, mpmath.pi / 2, mpmath.pi])
two_d *= 2  # φ ∈ [π, 2π] by symmetry
check(abs(two_d - 2 * mpmath.pi * ev / (ev**2 + om**2) ** 1.5) < 1e-9,
      "2-D transform of e^{-ε|x|} (polar double integral) = closed form (1e-9)")
mpmath.mp.dps = 30


# ---------------------------------------------------------------- (b) Poisson summation
def direct_sum(eps, t1, t2, k_max):
    """Σ_{|k|_∞ ≤ K} e^{-ε|k|} cos(k·θ) and a rigorous bound of the omitted part."""
    k = np.arange(k_max + 1.0)
    wt = np.where(k == 0, 1.0, 2.0)
    val = float((wt * np.cos(k * t1)) @ np.exp(-eps * np.hypot(k[:, None], k[None, :]))
                @ (wt * np.cos(k * t2)))
    q = math.exp(-eps)
    n = k_max + 1  # Σ_{j≥n} 8j q^j, ring j has 8j points with |k| ≥ j
    tail = 8 * q**n * (n - (n - 1) * q) / (1 - q) ** 2
    return val, tail


def image_sum(eps, t1, t2, m_max):
    """Σ_{|m|_∞ ≤ M} ĝ(θ + 2πm) (a lower bound: all terms > 0), a rigorous upper bound
    of the omitted terms, and a midpoint-rule estimate of them (integral of ĝ outside the
    union of the cells, exact via the antiderivative atan(xy/(c√(c²+x²+y²)))/c)."""
    m = np.arange(-m_max, m_max + 1)
    w2 = (t2 + 2 * np.pi * m) ** 2
    total = 0.0
    for mi in m:
        total += float(np.sum(2 * np.pi * eps / (eps**2 + (t1 + 2 * np.pi * mi) ** 2 + w2) ** 1.5))
    # ring j: 8j images with |θ + 2πm| ≥ π(2j - 1); Σ_{j>M} 8j/(2j-1)³ ≤ ∫_M^∞ = 2(1/U + 1/(2U²))
    u = 2 * m_max - 1
    upper_tail = 2 * np.pi * eps / np.pi**3 * 2 * (1 / u + 1 / (2 * u * u))

    def anti(a1, a2):
        return math.atan(a1 * a2 / (eps * math.sqrt(eps**2 + a1**2 + a2**2))) / eps

    half = (2 * m_max + 1) * math.pi
    x0, x1, y0, y1 = t1 - half, t1 + half, t2 - half, t2 + half
    inside = 2 * math.pi * eps * (anti(x1, y1) - anti(x0, y1) - anti(x1, y0) + anti(x0, y0))
    estimate = (4 * math.pi**2 - inside) / (4 * math.pi**2)
    return total, upper_tail, estimate


X, Y = sp.symbols("X Y", real=True)
anti_xy = sp.atan(X * Y / (c * sp.sqrt(c**2 + X**2 + Y**2))) / c
check(sp.simplify(sp.diff(anti_xy, X, Y) - (c**2 + X**2 + Y**2) ** sp.Rational(-3, 2)) == 0,
      "∂²/∂x∂y atan(xy/(c√(c²+x²+y²)))/c = (c²+x²+y²)^{-3/2}")
for eps_v in (0.665, 1.7):
    for th in ((math.pi, math.pi), (1.0, 2.0), (0.3, 0.0), (math.pi, 0.0)):
        d, d_tail = direct_sum(eps_v, th[0], th[1], int(60 / eps_v) + 10)
        s, s_up, s_est = image_sum(eps_v, th[0], th[1], 1000)
        check(d - d_tail >= s and d + d_tail <= s + s_up + 1e-12,
              f"rigorous: images ≤ f ≤ images + tail at ε={eps_v}, θ={th}")
        check(abs(d - (s + s_est)) < 1e-10,
              f"Poisson: direct {d:.13f} vs images {s + s_est:.13f} at ε={eps_v}, θ={th}")


# ---------------------------------------------------------------- (c) quadratic form
def symbol_on_grid(eps, n_grid, m_max=150):
    """f_ε on the n×n grid θ = 2π j/n by the image sum (with the tail estimate)."""
    th = 2 * np.pi * np.arange(n_grid) / n_grid
    out = np.zeros((n_grid, n_grid))
    m = np.arange(-m_max, m_max + 1)
    for i, t1 in enumerate(th):
        w1 = (t1 + 2 * np.pi * m)[:, None, None] ** 2
        w2 = (th[None, :] + 2 * np.pi * m[:, None]) ** 2  # (m2, θ2)
        out[i] = np.sum(2 * np.pi * eps / (eps**2 + w1 + w2[None, :, :]) ** 1.5, axis=(0, 1))
        for j, t2 in enumerate(th):
            out[i, j] += image_sum_tail_estimate(eps, t1, t2, m_max)
    return out


def image_sum_tail_estimate(eps, t1, t2, m_max):
    def anti(a1, a2):
        return math.atan(a1 * a2 / (eps * math.sqrt(eps**2 + a1**2 + a2**2))) / eps

    half = (2 * m_max + 1) * math.pi
    x0, x1, y0, y1 = t1 - half, t1 + half, t2 - half, t2 + half
    inside = 2 * math.pi * eps * (anti(x1, y1) - anti(x0, y1) - anti(x1, y0) + anti(x0, y0))
    return (4 * math.pi**2 - inside) / (4 * math.pi**2)


rng = np.random.default_rng(20261129)
eps_c = 0.665
n_grid = 48
f_grid = symbol_on_grid(eps_c, n_grid)
f_corner = direct_sum(eps_c, math.pi, math.pi, 120)[0]
check(abs(f_grid.min() - f_corner) < 1e-8 and np.unravel_index(f_grid.argmin(), f_grid.shape)
      == (n_grid // 2, n_grid // 2), "min of f on the θ-grid is at θ = (π, π)")
for _trial in range(6):
    side = int(rng.integers(4, 14))
    pts = np.array([(i, j) for i in range(side) for j in range(side)])
    keep = rng.random(len(pts)) < 0.6
    pts = pts[keep] if keep.sum() >= 2 else pts
    dist = np.hypot(*(pts[:, None, :] - pts[None, :, :]).transpose(2, 0, 1))
    phi = np.exp(-eps_c * dist)
    v = rng.standard_normal(len(pts))
    # (2π)^{-2}∫|P|²f dθ by the n_grid² rule: exact up to aliasing e^{-ε(n_grid - side)}
    th = 2 * np.pi * np.arange(n_grid) / n_grid
    poly = np.zeros((n_grid, n_grid), dtype=complex)
    for (k1, k2), vk in zip(pts, v):
        poly += vk * np.exp(1j * (k1 * th[:, None] + k2 * th[None, :]))
    quad = float(np.mean(np.abs(poly) ** 2 * f_grid))
    qform = float(v @ phi @ v)
    check(abs(qform - quad) < 1e-8 * (v @ v), f"v^TΦv = (2π)^-2∫|P|²f  (|S|={len(pts)})")
    check(np.linalg.eigvalsh(phi)[0] >= f_corner - 1e-12,
          f"λ_min(Φ_S) = {np.linalg.eigvalsh(phi)[0]:.6f} ≥ f(π,π) = {f_corner:.6f}")


# ---------------------------------------------------------------- (e) tail lemma
a_s, b_s, rho_s, R_s = sp.symbols("a b rho R", positive=True)
u = sp.symbols("u", positive=True)
beta = sp.sqrt(2) / 2 + rho_s
integrand_u = 2 * sp.pi * a_s * (u / (2 * sp.pi) - beta) / (b_s**2 + u**2) ** sp.Rational(3, 2)
antider = 2 * sp.pi * a_s * (-1 / (2 * sp.pi * sp.sqrt(b_s**2 + u**2))
                             - beta * u / (b_s**2 * sp.sqrt(b_s**2 + u**2)))
check(sp.simplify(sp.diff(antider, u) - integrand_u) == 0, "tail: antiderivative in u = 2π(r+β)")
U0 = 2 * sp.pi * (R_s + sp.sqrt(2) + rho_s)
S = sp.sqrt(b_s**2 + U0**2)
# antider → -2πaβ/b² as u → ∞ (both terms are 1/√(b²+u²) times terms of degree ≤ 1 in u)
lim = sp.limit(antider, u, sp.oo)
check(sp.simplify(lim + 2 * sp.pi * a_s * beta / b_s**2) == 0, "tail: limit of the antiderivative")
value = lim - antider.subs(u, U0)
closed_tail = (a_s / S) * (1 - 2 * sp.pi * beta / (S + U0))
# exact identity: write S = s, U0 = U; with b² = s² - U² the difference vanishes
s_sym, U_sym = sp.symbols("s U", positive=True)
diff_su = ((a_s / s_sym) * (1 - 2 * sp.pi * beta / (s_sym + U_sym))
           - (-2 * sp.pi * a_s * beta / b_s**2 - antider.subs(u, U_sym).subs(
               sp.sqrt(b_s**2 + U_sym**2), s_sym)))
check(sp.simplify(sp.together(diff_su).subs(b_s, sp.sqrt(s_sym**2 - U_sym**2))) == 0,
      "tail: closed form = value of the integral (exact, using S² - U0² = b²)")
for av, bv, rv, Rv in (("3/5", "7/10", "7/10", 4), ("1", "1", "1/10", 8), ("1/100", "3", "1/2", 1),
                       ("5", "5", "1/2", 0), ("133/200", "133/200", "1/3", 6)):
    diff = (closed_tail - value).evalf(50, subs={a_s: sp.Rational(av), b_s: sp.Rational(bv),
                                                 rho_s: sp.Rational(rv), R_s: Rv})
    check(abs(diff) < 1e-45, f"tail: closed form = integral value (50 digits) at a={av}, b={bv}")
# the substitution: 2π∫_{R+√2/2}^∞ ψ(r+√2/2) r dr against mpmath quadrature
for av, bv, rv, Rv in (("0.665", "0.665", "0.7", 6), ("0.6", "0.7", "0.2", 2), ("5", "5", "0.5", 0)):
    A, B, P, RR = (mpmath.mpf(av), mpmath.mpf(bv), mpmath.mpf(rv), Rv)
    h2 = mpmath.sqrt(2) / 2

    def psi(s_val, A=A, B=B, P=P):
        return 2 * mpmath.pi * A / (B**2 + 4 * mpmath.pi**2 * (s_val + P) ** 2) ** 1.5

    num = 2 * mpmath.pi * mpmath.quad(lambda t, h2=h2: psi(t + h2) * t, [RR + h2, mpmath.inf])
    cl = float(closed_tail.subs({a_s: sp.Rational(av), b_s: sp.Rational(bv),
                                 rho_s: sp.Rational(rv), R_s: RR}))
    check(abs(num - cl) < 1e-12, f"tail: integral = closed form at a={av}, b={bv}, ρ={rv}, R={Rv}")
    # and the lemma itself: the true lattice tail Σ_{|m|>R} ψ(|m|) (a partial sum is
    # already a lower bound of it) is ≥ the closed form
    mm = np.arange(-400, 401)
    nrm = np.hypot(mm[:, None], mm[None, :])
    sel = nrm > RR
    part = float(np.sum(2 * np.pi * float(A) / (float(B) ** 2 + 4 * np.pi**2
                                               * (nrm[sel] + float(P)) ** 2) ** 1.5))
    check(part >= cl, f"tail lemma: lattice tail {part:.6f} ≥ bound {cl:.6f}")

# the lemma as the code uses it: the true tail Σ_{|m|>R} min_{ε∈[a,b]} ĝ_ε(2π(φ + m)) at a
# point φ (|φ| ≤ ρ) is ≥ the closed form with c = a when 4π²(R - ρ)² ≥ 2b², else c = b
for av, bv, ph1, ph2, RR in ((0.6, 0.7, 0.5, 0.5, 2), (0.3, 3.0, 0.5, 0.2, 1), (0.665, 0.665, 0.4, 0.1, 6),
                             (2.0, 9.0, 0.5, 0.5, 3), (0.05, 0.1, 0.0, 0.0, 0)):
    rho_v = math.hypot(ph1, ph2)
    mm = np.arange(-400, 401)
    nrm2 = (ph1 + mm[:, None]) ** 2 + (ph2 + mm[None, :]) ** 2
    sel = np.hypot(mm[:, None], mm[None, :]) > RR
    om2 = 4 * np.pi**2 * nrm2[sel]
    part = float(np.sum(np.minimum(2 * np.pi * av / (av**2 + om2) ** 1.5,
                                   2 * np.pi * bv / (bv**2 + om2) ** 1.5)))
    cv = av if RR > rho_v and 4 * np.pi**2 * (RR - rho_v) ** 2 >= 2 * bv**2 else bv
    u0v = 2 * np.pi * (RR + math.sqrt(2) + rho_v)
    sv = math.sqrt(cv**2 + u0v**2)
    formula = (av / sv) * (1 - 2 * np.pi * (math.sqrt(0.5) + rho_v) / (sv + u0v))
    check(part >= formula, f"tail lemma (c = {'a' if cv == av else 'b'}) at a={av}, b={bv}, "
          f"φ=({ph1},{ph2}), R={RR}: {part:.6f} ≥ {formula:.6f}")

# ---------------------------------------------------------------- (f) diagonal dominance
K_s, a_p, rr = sp.symbols("K a r", positive=True)
gint = 2 * sp.pi * sp.integrate(rr * sp.exp(-a_p * rr), (rr, K_s, sp.oo))
check(sp.simplify(gint - 2 * sp.pi * sp.exp(-a_p * K_s) * (1 + a_p * K_s) / a_p**2) == 0,
      "2π∫_K'^∞ r e^{-ar} dr = 2π e^{-aK'}(1+aK')/a²")
for av in (3.0, 5.0, 20.0):
    kk = np.arange(-200, 201)
    nrm = np.hypot(kk[:, None], kk[None, :])
    true_tail = float(np.sum(np.exp(-av * nrm[nrm > 6])))
    kp = 6 - math.sqrt(0.5)
    bound = math.exp(av * math.sqrt(0.5)) * 2 * math.pi * math.exp(-av * kp) * (1 + av * kp) / av**2
    check(true_tail <= bound, f"Gershgorin tail at a={av}: {true_tail:.3e} ≤ {bound:.3e}")


# ---------------------------------------------------------------- (g) minimum over ε
Q = sp.symbols("Q", positive=True)
term_eps = 2 * sp.pi * e / (e**2 + Q) ** sp.Rational(3, 2)
check(sp.simplify(sp.diff(term_eps, e) - 2 * sp.pi * (Q - 2 * e**2) / (e**2 + Q) ** sp.Rational(5, 2))
      == 0, "d/dε 2πε(ε²+Q)^{-3/2} = 2π(Q - 2ε²)(ε²+Q)^{-5/2}: unimodal, min at an endpoint")
check(all(sp.diff(term_eps, e).subs({e: ev, Q: qv}) > 0 for ev, qv in ((1, 3), (2, 8.5)))
      and sp.diff(term_eps, e).subs({e: 3, Q: 17}) < 0, "… sign checks on both sides of Q = 2ε²")
# brute force: min over an ε-grid equals min of the endpoints, for random Q, [a, b]
rng_g = np.random.default_rng(5)
for _ in range(200):
    lo_g, wid_g, q_g = rng_g.uniform(0.01, 5), rng_g.uniform(0, 5), rng_g.uniform(0.01, 60)
    grid_e = np.linspace(lo_g, lo_g + wid_g, 401)
    vals = 2 * np.pi * grid_e / (grid_e**2 + q_g) ** 1.5
    if vals.min() < min(vals[0], vals[-1]) * (1 - 1e-12):
        check(False, f"unimodality brute force at a={lo_g}, b={lo_g + wid_g}, Q={q_g}")
        break
else:
    check(True, "min over ε ∈ [a, b] of ĝ_ε at fixed |ω| is at an endpoint (200 random cases)")


# ---------------------------------------------------------------- (d) the code vs numpy
def grid_lambda(width, height, eps, spacing=1.0):
    xs, ys = np.meshgrid(np.arange(width), np.arange(height))
    pts = np.stack([xs.ravel(), ys.ravel()], 1) * spacing
    dist = np.hypot(*(pts[:, None, :] - pts[None, :, :]).transpose(2, 0, 1))
    return float(np.linalg.eigvalsh(np.exp(-eps * dist))[0])


try:
    from fractions import Fraction

    from exactdp.algebra.lattice_spectrum import euclidean_lattice_lambda_lower
except ImportError as exc:  # pragma: no cover
    print("FAILED: cannot import exactdp.algebra.lattice_spectrum:", exc)
    sys.exit(1)

cases = [  # (W, H, eps_lo, eps_hi, spacing, ε values to test)
    (40, 40, "0.665", "0.665", 1, [0.665]),
    (30, 30, "0.665", "0.665", 1, [0.665]),
    (25, 25, "0.6", "0.7", 1, [0.6, 0.65, 0.7]),
    (20, 30, "1.33", "1.4", "1/2", [1.33, 1.365, 1.4]),
    (30, 30, "0.1", "0.12", 1, [0.1, 0.12]),
    (15, 15, "4", "4", 1, [4.0]),
    (20, 20, "0.3", "3", 1, [0.3, 0.5, 1.0, 2.0, 3.0]),  # a wide range (unimodal minimum)
]
for width, height, lo, hi, hsp, evals in cases:
    bound = euclidean_lattice_lambda_lower(lo, hi, spacing=hsp)
    lam = min(grid_lambda(width, height, ev, float(Fraction(hsp))) for ev in evals)
    check(0 < bound <= lam, f"{width}×{height}, ε∈[{lo},{hi}], h={hsp}: bound {float(bound):.6f} "
          f"≤ λ_min {lam:.6f}")
    if float(Fraction(hi)) <= 2 * float(Fraction(lo)):
        check(bound >= 0.8 * lam, f"  … and ≥ 0.8·λ_min (ratio {float(bound) / lam:.4f})")
# every ε in the range: the bound is below f at (π, π) (≈ min f) on a fine ε-grid
bound = euclidean_lattice_lambda_lower("0.6", "0.7")
fmin = min(direct_sum(ev, math.pi, math.pi, 150)[0] for ev in np.linspace(0.6, 0.7, 21))
check(float(bound) <= fmin, f"bound on [0.6, 0.7] {float(bound):.6f} ≤ min_ε f_ε(π,π) {fmin:.6f}")

print("ALL OK" if ok else "SOME CHECKS FAILED")
sys.exit(0 if ok else 1)
