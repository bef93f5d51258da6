"""Planar Laplace cell masses by quadrant integrals (``exactdp.mechanisms.planar``).

Density p(w) = ε²/(2π)·e^{−ε‖w‖₂} on R². Q(a, b) := ∫_0^a ∫_0^b p, for a, b > 0.

Lemma 1 (radial integral). ∫_0^R ε² r e^{−εr} dr = 1 − (1 + εR)e^{−εR}.
  Proof. d/dR [1 − (1 + εR)e^{−εR}] = −ε e^{−εR} + ε(1 + εR)e^{−εR} = ε²R e^{−εR}, and both
  sides vanish at R = 0. ∎ (sympy re-derives it below.)

Lemma 2 (triangle). The triangle {0 ≤ y ≤ x tanθ₁, 0 ≤ x ≤ a} (θ₁ < π/2) has, in polar
coordinates, θ ∈ [0, θ₁] and r ∈ [0, a secθ]; with dA = r dr dθ and Lemma 1 its mass is
  T(α, θ₁) = (1/2π) ∫_0^{θ₁} [1 − (1 + α secθ) e^{−α secθ}] dθ,   α = εa.
Lemma 3 (quadrant). The diagonal from 0 to (a, b) splits [0, a] × [0, b] into the triangle of
Lemma 2 with θ₁ = atan(b/a) and its mirror image (x ↔ y) with a ↔ b, so
  Q(a, b) = T(εa, atan(b/a)) + T(εb, atan(a/b)).
Lemma 4 (cells). p is even in x and in y, so with G(x, y) = sign(x)sign(y)Q(|x|, |y|) (the
oriented integral from the origin) a rectangle [x₀, x₁] × [y₀, y₁] has mass
G(x₁, y₁) − G(x₀, y₁) − G(x₁, y₀) + G(x₀, y₀); for a cell centred at 0 in x the x-part is
2·Q(h/2, ·), otherwise Q((i + ½)h, ·) − Q((i − ½)h, ·) — what ``planar_laplace_border`` sums.

The integrand of Lemma 2 is holomorphic on a neighbourhood of [0, θ₁] ⊂ [0, π/2) (sec has
poles only at ±π/2 + kπ), so ``acb.integral`` encloses it rigorously.

This script checks Lemma 1 symbolically, and Lemmas 2–4 numerically: Q and two cell masses
against an independent 2-D mpmath quadrature of the density (25 digits, agreement to 1e-18).
"""

import sys

import mpmath
import sympy as sp

PROVES = ["exactdp.mechanisms.planar._quadrant_mass"]


def check(cond: bool, what: str) -> None:
    if not cond:
        print("FAILED:", what)
        sys.exit(1)


def main() -> None:
    eps, R, r = sp.symbols("epsilon R r", positive=True)
    lhs = sp.integrate(eps**2 * r * sp.exp(-eps * r), (r, 0, R))
    check(sp.simplify(lhs - (1 - (1 + eps * R) * sp.exp(-eps * R))) == 0, "Lemma 1")

    mpmath.mp.dps = 25

    def T(alpha, th):
        return mpmath.quad(lambda t: 1 - (1 + alpha / mpmath.cos(t))
                           * mpmath.exp(-alpha / mpmath.cos(t)), [0, th]) / (2 * mpmath.pi)

    def Q(e, a, b):
        a, b = mpmath.mpf(a), mpmath.mpf(b)
        return T(e * a, mpmath.atan(b / a)) + T(e * b, mpmath.atan(a / b))

    def direct(e, x0, x1, y0, y1):
        return mpmath.quad(lambda x, y: e**2 / (2 * mpmath.pi)
                           * mpmath.exp(-e * mpmath.sqrt(x * x + y * y)),
                           [x0, x1], [y0, y1])

    for e, a, b in ((1, 1.5, 0.5), (mpmath.mpf("0.7"), 2.5, 1.5)):
        check(abs(Q(e, a, b) - direct(e, 0, a, 0, b)) < mpmath.mpf(10) ** -18,
              f"Lemma 3 at ε={e}, a={a}, b={b}")
    e = mpmath.mpf(1)
    strip = 2 * (Q(e, 1.5, 0.5) - Q(e, 0.5, 0.5))           # cell (1, 0): x-part 2·Q(h/2, ·)
    check(abs(strip - 2 * direct(e, 0.5, 1.5, 0, 0.5)) < mpmath.mpf(10) ** -18,
          "Lemma 4, cell (1, 0)")
    cell = (Q(e, 1.5, 1.5) - Q(e, 0.5, 1.5) - Q(e, 1.5, 0.5) + Q(e, 0.5, 0.5))
    check(abs(cell - direct(e, 0.5, 1.5, 0.5, 1.5)) < mpmath.mpf(10) ** -18,
          "Lemma 4, cell (1, 1)")
    print("qif_planar_laplace: all checks passed")


if __name__ == "__main__":
    main()
