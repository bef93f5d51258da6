"""Theorem (Rényi divergence of integer order for Laplace and discrete Laplace noise).

Let P, Q be finite laws (one user's contribution under two secrets), R the independent
rest of the population, N the noise (Lap(θ), or two-sided geometric P(N = z) ∝ a^{|z|}
on integer data), α ≥ 2 an integer, D_α(F ‖ G) = ln ∫ f^α g^{1−α} / (α − 1). Then

 (1) [worst population] D_α(P ∗ R ∗ N ‖ Q ∗ R ∗ N) ≤ D_α(P ∗ N ‖ Q ∗ N), with equality when
     R is a point mass: adding the independent R is one Markov kernel applied to both laws,
     and D_α obeys data processing; a point mass is a shift, a bijection;
 (2) [Laplace tails] with g(y) = Σ_d P(d) e^{−|y − d|/θ}: for y ≤ s_0 (the least support
     point), g(y) = e^{(y − s_0)/θ} g(s_0), so ∫_{−∞}^{s_0} g_P^α g_Q^{1−α} = θ g_P(s_0)^α
     g_Q(s_0)^{1−α}; the same at the largest point s_m on the right;
 (3) [Laplace pieces] on [s_k, s_{k+1}], y = s_k + θt: g(y) = L_k e^{−t} + R_k e^{t} with
     L_k = Σ_{d ≤ s_k} P(d) e^{−(s_k − d)/θ} and R_k = Σ_{d > s_k} P(d) e^{−(d − s_k)/θ};
     the integrand (L e^{−t} + R e^t)^α/(L' e^{−t} + R' e^t)^{α−1} is meromorphic in t (the
     denominator vanishes only where e^{2t} = −L'/R' < 0, i.e. off the real axis), so arb's
     certified integration applies; and D_α = ln(I/(2θ))/(α − 1) with the density g/(2θ);
     reflecting a piece, t → W − t (W = its width/θ), keeps this form with (L, R) replaced by
     (R e^W, L e^{−W}) and the same integral;
 (4) [discrete] with h(y) = Σ_d P(d) a^{|y − d|} and c = (1 − a)/(1 + a):
     Σ_{y∈Z} (c h_P)^α (c h_Q)^{1−α} = c [Σ_{y=s_0}^{s_m} h_P^α h_Q^{1−α}
     + (h_P(s_0)^α h_Q(s_0)^{1−α} + h_P(s_m)^α h_Q(s_m)^{1−α}) · a/(1 − a)], a rational at
     rational a.

Checked below with sympy and against 50-digit mpmath quadrature / summation. Exits
non-zero on failure.
"""

from __future__ import annotations

import random
import sys
from fractions import Fraction

import mpmath
import sympy as sp

PROVES = [
    "exactdp.pufferfish.renyi.laplace_renyi",
    "exactdp.pufferfish.renyi.discrete_laplace_renyi",
]

failures: list[str] = []


def check(name: str, ok: bool) -> None:
    print(("ok   " if ok else "FAIL ") + name)
    if not ok:
        failures.append(name)


y, s, th, t = sp.symbols("y s theta t", real=True)
th = sp.Symbol("theta", positive=True)
A, B = sp.symbols("A B", positive=True)
al = sp.Symbol("alpha", positive=True, integer=True)
# (2) the tail integral: g_P = A e^{(y−s)/θ}, g_Q = B e^{(y−s)/θ}
tail = sp.integrate(A**al * B ** (1 - al) * sp.exp((y - s) / th), (y, -sp.oo, s))
check("(2) ∫_{−∞}^{s} A^α B^{1−α} e^{(y−s)/θ} dy = θ A^α B^{1−α}",
      sp.simplify(tail - th * A**al * B ** (1 - al)) == 0)
# (2) g(y) = e^{(y − s_0)/θ} g(s_0) below every support point
d1, d2, w1 = sp.Rational(1), sp.Rational(3), sp.Rational(1, 3)
yy = sp.Symbol("yy", negative=True)
g = w1 * sp.exp(-sp.Abs(yy - d1) / th) + (1 - w1) * sp.exp(-sp.Abs(yy - d2) / th)
check("(2) g(y) = e^{(y − s_0)/θ} g(s_0) for y ≤ s_0",
      sp.simplify(g - sp.exp((yy - d1) / th) * g.subs(yy, d1)) == 0)
# (3) the piece form: for s_k ≤ y ≤ s_{k+1}, y = s_k + θ t
tt = sp.Symbol("tt", positive=True)
yk = d1 + th * tt  # between 1 and 3 when θ t < 2
gk = (w1 * sp.exp(-(yk - d1) / th) + (1 - w1) * sp.exp(-(d2 - yk) / th))
L, R = w1, (1 - w1) * sp.exp(-(d2 - d1) / th)
check("(3) g = L e^{−t} + R e^{t} on a piece", sp.simplify(gk - (L * sp.exp(-tt) + R * sp.exp(tt))) == 0)
# (3) reflection t → W − t (used when the integrand falls steeply): same form, (L, R) → (R e^W, L e^−W)
W, Ls, Rs = sp.symbols("W L R", positive=True)
check("(3) L e^{−(W−t)} + R e^{W−t} = (R e^W) e^{−t} + (L e^{−W}) e^{t}",
      sp.simplify(Ls * sp.exp(-(W - tt)) + Rs * sp.exp(W - tt)
                  - (Rs * sp.exp(W) * sp.exp(-tt) + Ls * sp.exp(-W) * sp.exp(tt))) == 0)
# (4) the geometric pmf sums to 1 and the tail sum is a/(1 − a)
a = sp.Symbol("a", positive=True)
j = sp.Symbol("j", integer=True, positive=True)
check("(4) Σ_{j≥1} a^j = a/(1 − a) for 0 < a < 1",
      sp.simplify(sp.summation(a**j, (j, 1, sp.oo)).args[0][0] - a / (1 - a)) == 0)
check("(4) c(1 + 2a/(1 − a)) = 1", sp.simplify((1 - a) / (1 + a) * (1 + 2 * a / (1 - a)) - 1) == 0)

# numeric: (1) data processing on examples, (3)+(2) and (4) against brute force at 50 digits
mpmath.mp.dps = 50
rng = random.Random(5)


def g_of(dist: list[tuple[int, mpmath.mpf]], yv: mpmath.mpf, theta: mpmath.mpf) -> mpmath.mpf:
    return sum(w * mpmath.exp(-abs(yv - d) / theta) for d, w in dist) / (2 * theta)


def renyi_quad(P: list, Q: list, theta: mpmath.mpf, order: int) -> mpmath.mpf:
    pts = sorted({d for d, _ in P} | {d for d, _ in Q})
    f = lambda v: g_of(P, v, theta) ** order * g_of(Q, v, theta) ** (1 - order)  # noqa: E731
    return mpmath.log(mpmath.quad(f, [-mpmath.inf] + pts + [mpmath.inf])) / (order - 1)


def closed(P: list, Q: list, theta: mpmath.mpf, order: int) -> mpmath.mpf:
    """(2)+(3): tails in closed form, pieces by 50-digit quadrature in t."""
    pts = sorted({d for d, _ in P} | {d for d, _ in Q})

    def lr(dist: list, k: int) -> tuple:
        sk = pts[k]
        return (sum(w * mpmath.exp(-(sk - d) / theta) for d, w in dist if d <= sk),
                sum(w * mpmath.exp(-(d - sk) / theta) for d, w in dist if d > sk))

    tot = mpmath.mpf(0)
    for k in (0, len(pts) - 1):
        gp, gq = sum(lr(P, k)), sum(lr(Q, k))
        tot += theta * gp**order * gq ** (1 - order)
    for k in range(len(pts) - 1):
        (lp, rp), (lq, rq) = lr(P, k), lr(Q, k)
        h = (pts[k + 1] - pts[k]) / theta
        def piece(u: mpmath.mpf, lp: mpmath.mpf = lp, rp: mpmath.mpf = rp, lq: mpmath.mpf = lq,
                  rq: mpmath.mpf = rq) -> mpmath.mpf:
            return ((lp * mpmath.exp(-u) + rp * mpmath.exp(u)) ** order
                    / (lq * mpmath.exp(-u) + rq * mpmath.exp(u)) ** (order - 1))

        tot += theta * mpmath.quad(piece, [0, h])
    return mpmath.log(tot / (2 * theta)) / (order - 1)


for trial in range(4):
    P = [(d, mpmath.mpf(rng.randint(1, 4))) for d in sorted(rng.sample(range(0, 4), 2))]
    Q = [(d, mpmath.mpf(rng.randint(1, 4))) for d in sorted(rng.sample(range(0, 4), 2))]
    P = [(d, w / sum(v for _, v in P)) for d, w in P]
    Q = [(d, w / sum(v for _, v in Q)) for d, w in Q]
    theta, order = mpmath.mpf(rng.choice([1, 2])) / 2 + 1, rng.choice([2, 3])
    q, c = renyi_quad(P, Q, theta, order), closed(P, Q, theta, order)
    check(f"(2)+(3) tails + pieces = direct quadrature (trial {trial})",
          abs(q - c) < mpmath.mpf(10) ** -30)
    rest = [(0, mpmath.mpf(1) / 3), (2, mpmath.mpf(2) / 3)]
    PR = [(d + r, w * v) for d, w in P for r, v in rest]
    QR = [(d + r, w * v) for d, w in Q for r, v in rest]
    check(f"(1) a non-degenerate rest never increases D_α (trial {trial})",
          renyi_quad(PR, QR, theta, order) <= q + mpmath.mpf(10) ** -30)

# (4) exact finite sum + tails against a long direct sum at 50 digits
for trial in range(4):
    P = {Fraction(d): Fraction(rng.randint(1, 3)) for d in rng.sample(range(-2, 3), 2)}
    Q = {Fraction(d): Fraction(rng.randint(1, 3)) for d in rng.sample(range(-2, 3), 2)}
    P = {d: w / sum(P.values()) for d, w in P.items()}
    Q = {d: w / sum(Q.values()) for d, w in Q.items()}
    aq, order = Fraction(rng.choice([1, 2]), 3), rng.choice([2, 3])
    cc = (1 - aq) / (1 + aq)
    h = lambda dist, yv, aq=aq: sum(w * aq ** abs(yv - int(d)) for d, w in dist.items())  # noqa: E731
    pts = sorted(set(P) | set(Q))
    lo, hi = int(pts[0]), int(pts[-1])
    exact = cc * (sum(h(P, v) ** order / h(Q, v) ** (order - 1) for v in range(lo, hi + 1))
                  + (h(P, lo) ** order / h(Q, lo) ** (order - 1)
                     + h(P, hi) ** order / h(Q, hi) ** (order - 1)) * aq / (1 - aq))
    am = mpmath.mpf(aq.numerator) / aq.denominator
    hm = lambda dist, yv, am=am: sum(mpmath.mpf(w.numerator) / w.denominator  # noqa: E731
                                     * am ** abs(yv - int(d)) for d, w in dist.items())
    brute = (1 - am) / (1 + am) * mpmath.nsum(
        lambda v, hm=hm, P=P, Q=Q, order=order: hm(P, int(v)) ** order / hm(Q, int(v)) ** (order - 1),
        [-mpmath.inf, mpmath.inf])
    check(f"(4) exact geometric-tail sum = 50-digit summation (trial {trial})",
          abs(mpmath.mpf(exact.numerator) / exact.denominator - brute) < mpmath.mpf(10) ** -30)

if failures:
    sys.exit(f"{len(failures)} check(s) failed")
print("all checks passed")
