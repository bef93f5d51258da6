"""Theorem (the Rényi re-checks of the kernel, ``exactdp/kernel/pufferfish_integrals.py``).

Let P, Q be finite laws with union support s_0 < … < s_m, θ > 0, α ≥ 2 an integer, and
g_D(y) = Σ_d D(d) e^{−|y − d|/θ}. By ``proofs/pufferfish_renyi.py`` (1)–(3),
D_α(P ∗ Lap(θ) ‖ Q ∗ Lap(θ)) = ln(I/(2θ))/(α − 1), I = ∫ g_P^α g_Q^{1−α}. Then:

 (a) [pieces from the definition] for s_k ≤ y = s_k + θt ≤ s_{k+1}, no support point lies
     strictly between, so g_D(y) = L e^{−t} + R e^{t} with L = Σ_{d ≤ s_k} D(d) e^{−(s_k − d)/θ}
     and R = Σ_{d > s_k} D(d) e^{−(d − s_k)/θ} (summed directly, term by term); the tails are
     θ·g_P(s)^α g_Q(s)^{1−α} at s = s_0 and s = s_m;
 (b) [poles] L_Q, R_Q ≥ 0, not both 0, so L_Q e^{−t} + R_Q e^{t} = 0 only where
     e^{2t} = −L_Q/R_Q < 0: never on the real segment, and the integrand is meromorphic
     (arb's integrator returns a non-finite ball when a box meets a pole);
 (c) [scaling, log form] ∫ f = c·∫ exp(log f − log c) for any exact constant c > 0, and
     log f = α·log g_P − (α − 1)·log g_Q on the real segment, where g_P, g_Q > 0 (the
     principal log is analytic off the cut (−∞, 0]; the kernel passes arb's analytic flag,
     so a box meeting the cut gives a non-finite ball and is bisected); the kernel takes c
     the midpoint of the larger end value (steep pieces: order 10⁴ at gap/θ = 1 returns a
     non-finite ball in the plain power form, a finite one here; and order 10⁴ at
     gap/θ = 100 matches the closed form);
 (d) [clip] D_α ≥ 0 (Rényi divergence), so raising a ball's lower end to 0 keeps the truth;
 (e) [discrete, integers] for integer laws, a = u/v, S = s_m − s_0, masses W_D(d)/den_D:
     for s_0 ≤ y ≤ s_m every |y − d| ≤ S, so h_D(y) = Σ_d D(d) a^{|y−d|} = H_D(y)/(den_D v^S)
     with H_D(y) = Σ_d W_D(d) u^{|y−d|} v^{S−|y−d|} an integer, and
     h_P^α h_Q^{1−α} = (H_P^α / H_Q^{α−1}) · den_Q^{α−1}/(den_P^α v^S); with
     ``proofs/pufferfish_renyi.py`` (4), e^{(α−1)D_α} = c·K·[Σ_{y=s_0}^{s_m} H_P^α/H_Q^{α−1}
     + (ends)·a/(1 − a)], c = (1 − a)/(1 + a) = (v − u)/(v + u), a/(1 − a) = u/(v − u),
     K = den_Q^{α−1}/(den_P^α v^S).

Checked below: (e) symbolically with sympy, (c) on the steep case, and the kernel's own
functions against 50-digit mpmath quadrature / summation of the DEFINITIONS (not the piece
formulas) and against the closed form of two point masses. Exits non-zero on failure.
"""

from __future__ import annotations

import random
import sys
from fractions import Fraction

import mpmath
import sympy as sp
from flint import acb, arb

from exactdp.arithmetic.ball import arb_to_fraction_interval, workprec
from exactdp.kernel.pufferfish_integrals import discrete_renyi_moment, laplace_renyi_ball

PROVES = [
    "exactdp.kernel.pufferfish_integrals.laplace_renyi_ball",
    "exactdp.kernel.pufferfish_integrals.discrete_renyi_moment",
]

failures: list[str] = []


def check(name: str, ok: bool) -> None:
    print(("ok   " if ok else "FAIL ") + name)
    if not ok:
        failures.append(name)


# (e) the integer scaling, symbolically (j = |y − d| ≤ S)
u, v, W, den, S, j = sp.symbols("u v W den S j", positive=True)
al = sp.Symbol("alpha", positive=True, integer=True)
term = W / den * (u / v) ** j
check("(e) W/den·(u/v)^j = W·u^j·v^(S−j)/(den·v^S)",
      sp.simplify(term - W * u**j * v ** (S - j) / (den * v**S)) == 0)
Hp, Hq, dp_, dq = sp.symbols("H_P H_Q den_P den_Q", positive=True)
lhs = (Hp / (dp_ * v**S)) ** al * (Hq / (dq * v**S)) ** (1 - al)
rhs = Hp**al / Hq ** (al - 1) * dq ** (al - 1) / (dp_**al * v**S)
check("(e) h_P^α h_Q^(1−α) = H_P^α/H_Q^(α−1) · den_Q^(α−1)/(den_P^α v^S)",
      sp.simplify(sp.powsimp(sp.expand_power_base(lhs / rhs, force=True), force=True)) == 1)
a = u / v
check("(e) (1 − a)/(1 + a) = (v − u)/(v + u) and a/(1 − a) = u/(v − u)",
      sp.simplify((1 - a) / (1 + a) - (v - u) / (v + u)) == 0
      and sp.simplify(a / (1 - a) - u / (v - u)) == 0)

# (c) the steep piece: the plain power form is non-finite (order 10^4, gap/θ = 1), the
# kernel's log form is finite (its value is checked against the closed form below)
order = 10_000
f = lambda t, _: (-t).exp() ** order / ((arb(-1).exp()) * t.exp()) ** (order - 1)  # noqa: E731
raw = acb.integral(f, acb(0), acb(1)).real
with workprec(128):  # the kernel on that piece: δ_0 against δ_1, θ = 1
    mine = laplace_renyi_ball({Fraction(0): Fraction(1)}, {Fraction(1): Fraction(1)}, Fraction(1), order)
check("(c) the power form is non-finite on the steep piece; the kernel's ball is finite and tight",
      not raw.is_finite() and mine.is_finite() and mine.rad() < 1e-30)

mpmath.mp.dps = 50


def mp(x: Fraction) -> mpmath.mpf:
    return mpmath.mpf(x.numerator) / x.denominator


def renyi_definition(P: dict, Q: dict, theta: Fraction, order: int) -> mpmath.mpf:
    """ln ∫ f_P^α f_Q^{1−α} / (α − 1), f = g/(2θ), by quadrature of the definition."""
    th = mp(theta)

    def g(D: dict, y: mpmath.mpf) -> mpmath.mpf:
        return sum(mp(w) * mpmath.exp(-abs(y - mp(d)) / th) for d, w in D.items()) / (2 * th)

    pts = sorted(mp(x) for x in set(P) | set(Q))
    val = mpmath.quad(lambda y: g(P, y) ** order * g(Q, y) ** (1 - order),
                      [-mpmath.inf] + pts + [mpmath.inf])
    return mpmath.log(val) / (order - 1)


def in_ball(x: mpmath.mpf, ball: arb, slack: mpmath.mpf) -> bool:
    if not ball.is_finite():
        return False
    lo, hi = (mp(e) for e in arb_to_fraction_interval(ball))  # exact dyadic endpoints
    return lo - slack <= x <= hi + slack


rng = random.Random(11)
for trial in range(5):
    P = {Fraction(d): Fraction(rng.randint(1, 4)) for d in rng.sample(range(-2, 4), rng.randint(1, 3))}
    Q = {Fraction(d): Fraction(rng.randint(1, 4)) for d in rng.sample(range(-2, 4), rng.randint(1, 3))}
    P = {d: w / sum(P.values()) for d, w in P.items()}
    Q = {d: w / sum(Q.values()) for d, w in Q.items()}
    theta, order = Fraction(rng.choice([1, 2, 3]), 2), rng.choice([2, 3, 5])
    truth = renyi_definition(P, Q, theta, order)
    with workprec(128):
        ball = laplace_renyi_ball(P, Q, theta, order)
    check(f"(a)–(c) kernel ball ∋ 50-digit quadrature of the definition (trial {trial}, α = {order})",
          in_ball(truth, ball, mpmath.mpf(10) ** -40) and ball.rad() < 1e-25)

# the closed form of two point masses at distance b: D = ln(α/(2α−1) e^{(α−1)b/θ}
# + (α−1)/(2α−1) e^{−αb/θ})/(α − 1), including the steep case (d)
for order, b in ((2, Fraction(1)), (7, Fraction(3)), (10_000, Fraction(1)), (10_000, Fraction(100)),
                 (2, Fraction(10_000))):
    r = mp(b)
    closed = mpmath.log(mpmath.mpf(order) / (2 * order - 1) * mpmath.exp((order - 1) * r)
                        + mpmath.mpf(order - 1) / (2 * order - 1) * mpmath.exp(-order * r)) / (order - 1)
    with workprec(128):
        balls = [laplace_renyi_ball({b: Fraction(1)}, {Fraction(0): Fraction(1)}, Fraction(1), order),
                 laplace_renyi_ball({Fraction(0): Fraction(1)}, {b: Fraction(1)}, Fraction(1), order)]
    check(f"point masses at distance {b}, α = {order}: both directions ∋ the closed form",
          all(in_ball(closed, x, mpmath.mpf(10) ** -40) for x in balls))

# (e) against 50-digit summation of the definition over Z
for trial in range(5):
    P = {Fraction(d): Fraction(rng.randint(1, 3)) for d in rng.sample(range(-3, 3), rng.randint(1, 3))}
    Q = {Fraction(d): Fraction(rng.randint(1, 3)) for d in rng.sample(range(-3, 3), rng.randint(1, 3))}
    P = {d: w / sum(P.values()) for d, w in P.items()}
    Q = {d: w / sum(Q.values()) for d, w in Q.items()}
    aq, order = Fraction(rng.choice([1, 2, 3]), rng.choice([4, 5])), rng.choice([2, 3, 4])
    am = mp(aq)

    def p(D: dict, y: int, am: mpmath.mpf = am) -> mpmath.mpf:
        return (1 - am) / (1 + am) * sum(mp(w) * am ** abs(y - int(d)) for d, w in D.items())

    brute = mpmath.nsum(lambda y, P=P, Q=Q, order=order: p(P, int(y)) ** order * p(Q, int(y)) ** (1 - order),
                        [-mpmath.inf, mpmath.inf])
    exact = discrete_renyi_moment(P, Q, aq, order)
    check(f"(e) exact kernel moment = 50-digit sum of the definition (trial {trial}, α = {order})",
          abs(mp(exact) - brute) < mpmath.mpf(10) ** -30)

if failures:
    sys.exit(f"{len(failures)} check(s) failed")
print("all checks passed")
