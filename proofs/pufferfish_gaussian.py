"""Theorem (Gaussian noise, (ε, δ) Pufferfish: the worst population is a point mass).

Release Y = R + D + N(0, σ²) with D ~ P or Q (finite laws), R independent (any finite law).
Put g_P(y) = Σ_d P(d) φ_σ(y − d) and δ_{P,Q}(σ) = ∫ (g_P − e^ε g_Q)_+. Then

 (1) [worst case] f_s(y) = Σ_r w_r g_P(y − r), so by subadditivity and positive homogeneity
     of (·)_+, ∫ (f_s − e^ε f_s')_+ ≤ Σ_r w_r ∫ (g_P(· − r) − e^ε g_Q(· − r))_+ = δ_{P,Q}(σ)
     (shift invariance of the integral); a point-mass rest attains it. So the least δ for
     every population is δ(σ) = max(δ_{P,Q}, δ_{Q,P});
 (2) [monotone] N(0, σ₂²) = N(0, σ₁²) + N(0, σ₂² − σ₁²) for σ₁ < σ₂, and the hockey-stick
     divergence ∫(f − e^ε f')_+ never grows under a Markov kernel (post-processing), so δ(σ)
     is non-increasing and the least σ for a target δ is found by bisection on certified
     verdicts;
 (4) [no noise] δ(σ) ≤ δ₀ := max over the two directions of Σ_d (P(d) − e^ε Q(d))_+, the
     hockey-stick divergence of the laws themselves (the release X with no noise): Y is X
     passed through a Markov kernel (add R, add noise), and the divergence never grows under
     a kernel (as in (2)); δ(σ) → δ₀ as σ → 0. So a target δ ≥ δ₀ needs NO noise
     (``gaussian_scale`` raises NoNoiseNeeded up front; P = Q gives δ₀ = 0);
 (3) [point masses] for P = δ_Δ, Q = δ₀: δ = Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ)
     (the classical analytic Gaussian formula), a check of the integration route.

Steps (1) and (2) use only that the noise is a location family closed under adding
independent noise of the same family (Laplace is not, but (1) alone — the worst case — needs
only the location structure), so (1) holds verbatim for Laplace noise (``laplace_delta``).
Checked with sympy and mpmath (quadrature). Exits non-zero on failure.
"""

from __future__ import annotations

import random
import sys

import mpmath
import sympy as sp

PROVES = [
    "exactdp.pufferfish.approximate.laplace_delta",
    "exactdp.pufferfish.gaussian.gaussian_delta",
    "exactdp.pufferfish.gaussian.gaussian_scale",
    "exactdp.pufferfish.gaussian.noiseless_delta",
]

failures: list[str] = []


def check(name: str, ok: bool) -> None:
    print(("ok   " if ok else "FAIL ") + name)
    if not ok:
        failures.append(name)


# (1) (a + b)_+ ≤ a_+ + b_+ and (c a)_+ = c a_+ for c ≥ 0, checked on every sign pattern.
c = sp.Symbol("c", positive=True)
u, v, w = sp.symbols("u v w", positive=True)


def pos(x: sp.Expr) -> sp.Expr:
    return sp.Max(x, 0)


def gap(x: sp.Expr, y: sp.Expr) -> sp.Expr:
    return sp.simplify(pos(x) + pos(y) - pos(x + y))


# both ≥ 0, both ≤ 0, and mixed signs with either magnitude larger (v = u + w or u = v + w)
cases = [gap(u, v), gap(-u, -v), gap(u, -(u + w)), gap(v + w, -v), gap(-u, u + w), gap(-(v + w), v)]
check("(1) (a + b)_+ ≤ a_+ + b_+ on every sign pattern (gap is 0, u or v)",
      [sp.simplify(x) for x in cases] == [0, 0, u, v, u, v])
check("(1) (c·a)_+ = c·a_+ for c > 0",
      all(sp.simplify(pos(c * s * sp.Symbol("u", positive=True)) - c * pos(s * sp.Symbol("u", positive=True))) == 0
          for s in (1, -1)))

# (2) variances add under convolution: characteristic functions multiply.
t = sp.Symbol("t", real=True)
s1, s2 = sp.symbols("sigma1 sigma2", positive=True)
check("(2) e^{−σ₁²t²/2}·e^{−(σ₂² − σ₁²)t²/2} = e^{−σ₂²t²/2}",
      sp.simplify(sp.exp(-s1**2 * t**2 / 2) * sp.exp(-(s2**2 - s1**2) * t**2 / 2)
                  - sp.exp(-s2**2 * t**2 / 2)) == 0)


def _delta(P: list[tuple[float, float]], Q: list[tuple[float, float]], sigma: mpmath.mpf,
           eps: mpmath.mpf) -> mpmath.mpf:
    """∫ (g_P − e^ε g_Q)_+ by quadrature, split at the roots (found by bisection)."""

    def g(dist: list[tuple[float, float]], y: mpmath.mpf) -> mpmath.mpf:
        return mpmath.fsum(w * mpmath.npdf(y, d, sigma) for d, w in dist)

    def h(y: mpmath.mpf) -> mpmath.mpf:
        return g(P, y) - mpmath.e**eps * g(Q, y)

    lo = min(d for d, _ in P + Q) - 10 * sigma
    hi = max(d for d, _ in P + Q) + 10 * sigma
    grid = [lo + (hi - lo) * k / 60 for k in range(61)]
    roots = [mpmath.findroot(h, (x0, x1), solver="bisect")
             for x0, x1 in zip(grid, grid[1:]) if h(x0) * h(x1) < 0]
    cuts = sorted({lo, hi, *roots} | {d + k * sigma for d, _ in P + Q for k in (-2, 0, 2)
                                      if lo < d + k * sigma < hi})
    return mpmath.fsum(mpmath.quad(h, [x0, x1]) for x0, x1 in zip(cuts, cuts[1:])
                       if h((x0 + x1) / 2) > 0)


def _numeric() -> bool:
    mpmath.mp.dps = 25
    # (3) the analytic formula for point masses
    for delta_, sigma, eps in ((1, 1, 1), (2, mpmath.mpf("0.7"), mpmath.mpf("0.5"))):
        analytic = (mpmath.ncdf(delta_ / (2 * sigma) - eps * sigma / delta_)
                    - mpmath.e**eps * mpmath.ncdf(-delta_ / (2 * sigma) - eps * sigma / delta_))
        if abs(_delta([(delta_, 1)], [(0, 1)], sigma, eps) - analytic) > mpmath.mpf(10) ** -12:
            return False
    # (1) random populations never beat the point-mass rest
    rng = random.Random(4)
    for _ in range(2):
        P = [(0, mpmath.mpf(1) / 2), (2, mpmath.mpf(1) / 2)]
        Q = [(1, mpmath.mpf(1) / 2), (2, mpmath.mpf(1) / 2)]
        rest = [(r, mpmath.mpf(rng.randint(1, 5))) for r in (0, 1, 3)]
        tot = sum(w for _, w in rest)
        rest = [(r, w / tot) for r, w in rest]
        cp = [(d + r, wd * wr) for d, wd in P for r, wr in rest]
        cq = [(d + r, wd * wr) for d, wd in Q for r, wr in rest]
        sigma, eps = mpmath.mpf(rng.randint(2, 8)) / 4, mpmath.mpf(1) / 2
        if _delta(cp, cq, sigma, eps) > _delta(P, Q, sigma, eps) + mpmath.mpf(10) ** -15:
            return False
    return True


def _no_noise() -> bool:
    """(4) δ(σ) ≤ δ₀ at several σ and δ(σ) → δ₀ (Bern(1/10) against absent: δ₀ = 1/10 at ε = 1)."""
    mpmath.mp.dps = 25
    cases = [([(0, mpmath.mpf(9) / 10), (1, mpmath.mpf(1) / 10)], [(0, mpmath.mpf(1))]),
             ([(0, mpmath.mpf(1) / 2), (2, mpmath.mpf(1) / 2)], [(1, mpmath.mpf(1) / 2), (2, mpmath.mpf(1) / 2)])]
    eps = mpmath.mpf(1)
    for P, Q in cases:
        d0 = max(mpmath.fsum(max(mpmath.mpf(0), dict(A).get(x, 0) - mpmath.e**eps * dict(B).get(x, 0))
                             for x in {d for d, _ in A + B}) for A, B in ((P, Q), (Q, P)))
        vals = [max(_delta(P, Q, sg, eps), _delta(Q, P, sg, eps)) for sg in
                (mpmath.mpf(2), mpmath.mpf(1) / 2, mpmath.mpf(1) / 50)]
        if any(v > d0 + mpmath.mpf(10) ** -15 for v in vals) or abs(vals[-1] - d0) > mpmath.mpf(10) ** -12:
            return False
    return True


check("(4) δ(σ) ≤ δ₀ (noiseless hockey stick) and δ(σ) → δ₀ as σ → 0", _no_noise())

check("(1, 3) quadrature: analytic point-mass formula; populations never beat the point mass",
      _numeric())

if failures:
    print(f"{len(failures)} step(s) failed")
    sys.exit(1)
print("all steps verified")
