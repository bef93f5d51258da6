"""Theorem (the staircase and Gaussian re-checks of the kernel, ``exactdp/kernel/pufferfish_mechanisms.py``).

Staircase (b = e^{−ε₀}, e(r) = k + [r − kΔ ≥ γΔ] on [kΔ, (k + 1)Δ), G_D(y) = Σ_d D(d) b^{e(|y − d|)}):

 (a) [break points] y ↦ e(|y − d|) is constant on every open interval free of the points
     d + kΔ and d + (k ± γ)Δ (k ∈ Z): |y − d|/Δ crosses an integer only at d ± kΔ and an
     integer plus γ only at d ± (k + γ)Δ; so on each piece between consecutive such points
     of the window [s_0 − Δ, s_m + Δ] the ratio G_P/G_Q is one ratio of polynomials in b,
     the same at every point of the piece (its value at the midpoint), and by
     ``proofs/pufferfish_staircase.py`` (2)–(3) L = max over the pieces of |ln R|;
 (b) [equal pieces] |ln R_k| = |ln R_w| when R_k = R_w or R_k = 1/R_w as rational functions
     (cross-multiplied polynomials equal), whatever b is;
 (a') [integers] with L a common denominator of the points, y, Δ and γΔ, divmod(L|y − d|, LΔ)
     = (k, L·rest) with |y − d| = kΔ + rest, 0 ≤ rest < Δ, so e = k + [rest ≥ γΔ] is read off in
     integers (``staircase_keys``; the masses summed over a common denominator, the same sums).

Gaussian (y = s_0 + σz, c_d = (d − s_0)/σ, v_d = A(d) − e^ε B(d), h(z) = Σ_d v_d e^{−(z − c_d)²/2},
so g_A − e^ε g_B = h/(σ√(2π)) in y, and ∫ (g_A − e^ε g_B)_+ dy = ∫ (h)_+ dz/√(2π)):

 (c) [same sign] for any real s (the kernel takes the center nearest the piece),
     h(m + u) = e^{−u²/2 − u(m − s)}·k(m, u), k(m, u) = Σ_d v_d e^{u(c_d − s) − (m − c_d)²/2}:
     the factor is > 0, so h and k have one sign; k(m, u) ∈ k(m, 0) + k_u(m, [−r, r])·[−r, r]
     for |u| ≤ r (mean value theorem, k_u = Σ_d (c_d − s) v_d e^{u(c_d − s) − (m − c_d)²/2});
 (d) [pieces] where h > 0 on [a, b] the piece adds Σ_d v_d (Φ(b − c_d) − Φ(a − c_d)), written
     Q(a − c) − Q(b − c) (a ≥ c) or Q(c − b) − Q(c − a), Q(x) = 1 − Φ(x) = erfc(x/√2)/2 (no
     cancellation of values near 1); where the sign is open it adds at most
     (b − a)·max|h|/√(2π) ≤ (b − a)·|k|·e^{|m − s|r} (|u| ≤ r, and −u²/2 − u(m − s) ≤ |m − s|r);
 (d') [clip] 0 ≤ ∫ (g_A − e^ε g_B)_+ ≤ ∫ g_A = 1, so an enclosure's ends may be clipped to [0, 1];
 (e) [tails] beyond [−T, ⌈c_m⌉ + T] it adds at most Σ_d A(d)(Q(T + c_d) + Q(⌈c_m⌉ + T − c_d))
     ≤ 2Q(T), and Q(48) < 2^−1660 (below every precision of the ladder);
 (f) [equal laws] P = Q gives (g_P − e^ε g_P)_+ = ((1 − e^ε) g_P)_+ = 0 for ε > 0: δ(σ) = 0 exactly.
The kernel's work estimate (``gaussian_work``: S = sign changes of v_d in d bounds the roots of
h = e^{−z²/2} Σ_d v_d e^{−c_d²/2} e^{c_d z}, Laguerre's rule of signs) only decides when to refuse
(InstanceTooLarge); no verdict rests on it.

Checked below: (c)–(d) symbolically with sympy, (e) with mpmath, and the kernel's functions
against 60-digit mpmath computations from the DEFINITIONS: the staircase maximum against a
scan of the density ratio (including points beyond the window), the Gaussian enclosure
against quadrature of (g_A − e^ε g_B)_+ between its roots, and the point-mass closed form
(``proofs/pufferfish_gaussian.py`` (3)). Exits non-zero on failure.
"""

from __future__ import annotations

import math
import random
import sys
from fractions import Fraction as F

import mpmath
import sympy as sp

from exactdp.arithmetic.ball import arb_to_fraction_interval, workprec
from exactdp.kernel.jsonio import envelope
from exactdp.kernel.pufferfish_mechanisms import (
    check_pufferfish_mechanisms,
    gaussian_hockey,
    staircase_key,
    staircase_keys,
    staircase_mids,
)
from exactdp.spaces.levels import parse_level

PROVES = [
    "exactdp.kernel.pufferfish_mechanisms.staircase_mids",
    "exactdp.kernel.pufferfish_mechanisms.gaussian_hockey",
]

failures: list[str] = []
mpmath.mp.dps = 60
TOL = mpmath.mpf(10) ** -50  # the accuracy claimed of the 60-digit reference values


def check(name: str, ok: bool) -> None:
    print(("ok   " if ok else "FAIL ") + name)
    if not ok:
        failures.append(name)


def mp(x: F) -> mpmath.mpf:
    return mpmath.mpf(x.numerator) / x.denominator


# (c) the factorisation and the derivative of k in u.
m, u, c, r, s = sp.symbols("m u c r s", real=True)
check("(c) e^{−(m + u − c)²/2} = e^{−u²/2 − u(m − s)}·e^{u(c − s) − (m − c)²/2}",
      sp.simplify(sp.expand(-(m + u - c) ** 2 / 2 - (-u**2 / 2 - u * (m - s) + u * (c - s) - (m - c) ** 2 / 2))) == 0)
check("(c) ∂/∂u e^{u(c − s) − (m − c)²/2} = (c − s)·e^{u(c − s) − (m − c)²/2}",
      sp.simplify(sp.diff(sp.exp(u * (c - s) - (m - c) ** 2 / 2), u)
                  - (c - s) * sp.exp(u * (c - s) - (m - c) ** 2 / 2)) == 0)
# −u²/2 ≤ 0 and −u·(m − s) ≤ |u|·|m − s| ≤ r·|m − s|; spot-checked in exact rationals:
check("(d) |u| ≤ r ⇒ −u²/2 − u(m − s) ≤ |m − s|·r (mm = m − s)", all(
    -uu**2 / 2 - uu * mm <= abs(mm) * rr
    for mm in (F(-5), F(-1, 2), F(0), F(2), F(40)) for rr in (F(1, 1000), F(1, 2), F(3))
    for uu in (-rr, -rr / 3, F(0), rr / 2, rr)))

# (d) Φ differences without cancellation.
x, y = sp.symbols("x y", real=True)
Phi = (1 + sp.erf(x / sp.sqrt(2))) / 2
Qf = sp.erfc(x / sp.sqrt(2)) / 2
check("(d) Φ(y) − Φ(x) = Q(x) − Q(y) = Q(−y) − Q(−x)",
      sp.simplify(((Phi.subs(x, y) - Phi) - (Qf - Qf.subs(x, y))).rewrite(sp.erf)) == 0
      and sp.simplify(((Phi.subs(x, y) - Phi) - (Qf.subs(x, -y) - Qf.subs(x, -x))).rewrite(sp.erf)) == 0)

# (e) the tail beyond 48 scales.
check("(e) Q(48) < 2^−1660", mpmath.ncdf(-48) < mpmath.mpf(2) ** -1660)


# (a) staircase: the kernel's maximum over pieces against a 60-digit scan of the definition.
def step(rr: F, delta: F, gamma: F) -> int:
    q = abs(rr) / delta
    kk = math.floor(q)
    return kk + (1 if q - kk >= gamma else 0)


def ratio(P: dict, Q: dict, yy: F, delta: F, gamma: F, b: mpmath.mpf) -> mpmath.mpf:
    g = [mpmath.fsum(mp(w) * b ** step(yy - d, delta, gamma) for d, w in D.items()) for D in (P, Q)]
    return abs(mpmath.log(g[0] / g[1]))


def law(rng: random.Random) -> dict:
    pts = sorted(rng.sample(range(-4, 5), rng.randint(1, 3)))
    ws = [rng.randint(1, 5) for _ in pts]
    return {F(p, 2): F(w, sum(ws)) for p, w in zip(pts, ws)}


rng = random.Random(11)
ok_a = ok_scan = True
for _ in range(12):
    P, Q = law(rng), law(rng)
    delta, gamma = F(rng.randint(1, 6), rng.randint(1, 4)), F(rng.randint(0, 4), 4)
    b = mpmath.exp(-mp(F(rng.randint(1, 9), rng.randint(1, 4))))
    mids = staircase_mids(P, Q, delta, gamma)
    best = max(ratio(P, Q, yy, delta, gamma, b) for yy in mids)
    lo, hi = mids[0], mids[-1]
    for _ in range(60):  # random points of the window lie in a piece with the same ratio
        yy = lo + (hi - lo) * F(rng.randint(0, 10**6), 10**6)
        near = min(mids, key=lambda t: abs(t - yy))
        val = ratio(P, Q, yy, delta, gamma, b)
        ok_scan &= val <= best + mpmath.mpf(10) ** -50
        if staircase_key(P, Q, delta, gamma, yy) == staircase_key(P, Q, delta, gamma, near):
            ok_a &= abs(val - ratio(P, Q, near, delta, gamma, b)) < mpmath.mpf(10) ** -50
    for far in (F(-40), F(37, 3), F(55)):  # beyond the window: periodic, never above the maximum
        ok_scan &= ratio(P, Q, far, delta, gamma, b) <= best + mpmath.mpf(10) ** -50
check("(a) equal exact keys give equal 60-digit ratios", ok_a)
check("(a) no scanned point (window or beyond) exceeds the maximum over the kernel's pieces", ok_scan)


def key_ok() -> bool:
    """Every sampled point of each piece has the exact key of its midpoint."""
    rr = random.Random(5)
    for _ in range(15):
        P, Q = law(rr), law(rr)
        delta, gamma = F(rr.randint(1, 5), rr.randint(1, 3)), F(rr.randint(0, 3), 3)
        mids = staircase_mids(P, Q, delta, gamma)
        bounds = [min(set(P) | set(Q)) - delta]  # the window's left end; each midpoint gives the next cut
        for mid in mids:
            bounds.append(2 * mid - bounds[-1])
        for k, mid in enumerate(mids):
            a, b = bounds[k], bounds[k + 1]
            for j in range(1, 8):
                if staircase_key(P, Q, delta, gamma, a + (b - a) * F(j, 8)) != staircase_key(P, Q, delta, gamma, mid):
                    return False
    return True


check("(a) each piece's exact ratio is constant on the piece", key_ok())


def keys_ok() -> bool:
    """(a') the integer keys equal the rule e = ⌊r⌋ + [r − ⌊r⌋ ≥ γ] applied in Fractions."""
    rr = random.Random(8)
    for _ in range(15):
        P, Q = law(rr), law(rr)
        delta, gamma = F(rr.randint(1, 7), rr.randint(1, 5)), F(rr.randint(0, 5), 5)
        mids = staircase_mids(P, Q, delta, gamma)
        for yy, (num, den) in zip(mids, staircase_keys(P, Q, delta, gamma, mids)):
            es: list[dict[int, F]] = [{}, {}]
            for e, D in zip(es, (P, Q)):
                for d, w in D.items():
                    e[step(yy - d, delta, gamma)] = e.get(step(yy - d, delta, gamma), F(0)) + w
            low = min(min(es[0]), min(es[1]))
            if (num, den) != tuple(tuple(sorted((k - low, w) for k, w in e.items())) for e in es):
                return False
    return True


check("(a') the integer keys equal the Fraction rule", keys_ok())


# Gaussian: the kernel's enclosure against 60-digit quadrature between the roots.
def gauss_truth(A: dict, B: dict, sigma: F, eps: F) -> mpmath.mpf:
    E, s = mpmath.exp(mp(eps)), mp(sigma)

    def h(t: mpmath.mpf) -> mpmath.mpf:
        return mpmath.fsum(mp(w) * mpmath.npdf(t, mp(d), s) for d, w in A.items()) - E * mpmath.fsum(
            mp(w) * mpmath.npdf(t, mp(d), s) for d, w in B.items())
    pts = sorted(set(A) | set(B))
    grid = [mp(pts[0]) - 30 * s + k * (mp(pts[-1] - pts[0]) + 60 * s) / 800 for k in range(801)]
    roots = [mpmath.findroot(h, (p, q), solver="anderson") for p, q in zip(grid, grid[1:]) if h(p) * h(q) < 0]
    ends = [mp(pts[0]) - 40 * s, *roots, mp(pts[-1]) + 40 * s]  # beyond: mass < 1e−340, far below TOL
    return mpmath.fsum(mpmath.quad(h, [p, q]) for p, q in zip(ends, ends[1:]) if h((p + q) / 2) > 0)


ok_g = True
cases = [({F(1): F(1)}, {F(0): F(1)}, F(1), F(1)), ({F(1): F(1)}, {F(0): F(1)}, F(3, 2), F(1, 3))]
rg = random.Random(7)
for _ in range(3):
    cases.append((law(rg), law(rg), F(rg.randint(1, 8), 4), F(rg.randint(1, 6), 4)))
for A, B, sigma, eps in cases:
    with workprec(128):
        lo, hi = gaussian_hockey(A, B, sigma, parse_level(eps=eps), 128)
        low, high = arb_to_fraction_interval(lo)[0], arb_to_fraction_interval(hi)[1]
    truth = gauss_truth(A, B, sigma, eps)
    ok_g &= mp(low) - TOL <= truth <= mp(high) + TOL and high - low < F(1, 10**30)
check("(c)–(e) the kernel's Gaussian enclosure contains 60-digit quadrature, width < 1e−30", ok_g)

d0, s0, e0 = 1, mpmath.mpf(1), 1
closed = mpmath.ncdf(d0 / (2 * s0) - e0 * s0 / d0) - mpmath.e ** e0 * mpmath.ncdf(-d0 / (2 * s0) - e0 * s0 / d0)
with workprec(256):
    lo, hi = gaussian_hockey({F(1): F(1)}, {F(0): F(1)}, F(1), parse_level(eps=1), 256)
    low, high = arb_to_fraction_interval(lo)[0], arb_to_fraction_interval(hi)[1]
check("point masses: the enclosure contains the closed form (proofs/pufferfish_gaussian.py (3))",
      mp(low) - TOL <= closed <= mp(high) + TOL and high - low < F(1, 10**60))

same = {"support": ["0", "3/2", "5"], "probs": ["1/2", "1/3", "1/6"]}
zero = envelope("pufferfish-gaussian-delta", {"P": same, "Q": same, "level": {"eps": "1/1000"}, "sigma": "1/7"},
                {"delta": {"lo": "0", "hi": "0"}}, {"prec": 128, "rel_tol": "1/1000"})
check("(f) P = Q: the claim δ = 0 verifies exactly", check_pufferfish_mechanisms(zero) is True)

if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print("all checks passed")
