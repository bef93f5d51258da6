"""Theorem (closed forms of the least Laplace scale for Bernoulli secret pairs).

Let D ~ Bern(p) under s and D ~ Bern(q) under s', 1 ≥ p > q ≥ 0, E = e^ε > 1,
u = e^{1/θ} > 1. By proofs/pufferfish_supremum.py the privacy loss is the maximum of
|ln g_P/g_Q| over the support points {0, 1}. Then:

 (a) at x = 1: g_P/g_Q = (1 − p + p u)/(1 − q + q u)  =: R_A(u) ≥ 1;
     at x = 0: g_Q/g_P = (q + (1 − q) u)/(p + (1 − p) u) =: R_B(u) ≥ 1;
     the two other directions are ≤ 1, so only R_A ≤ E and R_B ≤ E matter;
 (b) R_A, R_B are increasing in u, with R_A(1) = R_B(1) = 1, R_A(∞) = p/q,
     R_B(∞) = (1 − q)/(1 − p);
 (c) R_A(u) ≤ E ⟺ u ≤ u_A = (E(1 − q) − (1 − p))/(p − qE) when p > qE (and always
     when p ≤ qE); R_B(u) ≤ E ⟺ u ≤ u_B = (Ep − q)/((1 − q) − (1 − p)E) when
     1 − q > (1 − p)E (and always otherwise); u_A − 1 = (E − 1)/(p − qE) > 0 and
     u_B − 1 = (E − 1)/((1 − q) − (1 − p)E) > 0;
 (d) so θ* = 1/ln min(u_A, u_B) (θ* = 0, i.e. no noise at all, when neither
     condition holds: then p/q ≤ E and (1 − q)/(1 − p) ≤ E), and the bound is
     attained: at u = min(u_A, u_B) the binding ratio equals E exactly, which a
     point-mass rest realises at an output y (necessity);
 (e) S_{P,⊥} (q = 0): u_A ≤ u_B always (u_A(denominator) − … = −(E − 1)²(1 − p) ≤ 0),
     so θ* = 1/ln(1 + (E − 1)/p), as SPEC states;
 (f) S_{a,b} (p = 1, q = 0 on {b, a}): u_A = u_B = E, θ* = 1/ε; for a support
     {a, a + h} the scale is h times that on {0, 1} (substitute x = a + h x'):
     θ* = |a − b|/ε, equal to the conservative W_∞/ε; S_{a,⊥} is the case b = 0.
 (h) the W_1 calibration θ = W_1/ε is NOT sufficient: for S_{P,⊥} with P = Bern(p),
     0 < p < 1, W_1 = p and at θ = p/ε the right-tail ratio is 1 − p + p e^{ε/p} > e^ε
     (h(ε) = 1 − p + p e^{ε/p} − e^ε has h(0) = 0 and h'(ε) = e^{ε/p} − e^ε > 0).
 (g) the expressions returned by exactdp.pufferfish.bernoulli_forms.closed_forms() are
     the ones derived here.
 (i) checking a closed form (ExactScale.verify, closed_form_solves): by (a) the loss at θ
     is L(θ) = ln max(R_A(u), R_B(u)) with u = e^{h/θ} on a support {a, a + h} (scaling (f));
     by (b) R_A, R_B are strictly increasing in u, and u = e^{h/θ} is strictly decreasing in
     θ > 0, so L is strictly decreasing wherever it is > 0. Hence a θ₀ > 0 with
     max(R_A, R_B)(e^{h/θ₀}) = E exactly has L(θ₀) = ε and L(θ) > ε for every θ < θ₀:
     θ₀ = θ* (the least θ with L(θ) ≤ ε). A candidate that is not a root (e.g. the rational
     upper end of the bracket) is rejected, because R(u) − E is then not zero.

SPEC section E's formulas are confirmed (no difference found).
"""

from __future__ import annotations

import sys

import sympy as sp

PROVES = [
    "exactdp.kernel.pufferfish.closed_form_is_least",
    "exactdp.pufferfish.bernoulli_forms.closed_forms",
    "exactdp.pufferfish.bernoulli_forms.bernoulli_theta_expr",
    "exactdp.pufferfish.calibration.exact_scale",
    "exactdp.pufferfish.bernoulli_forms.closed_form_solves",
]

failures: list[str] = []


def check(name: str, ok: bool) -> None:
    print(("ok   " if ok else "FAIL ") + name)
    if not ok:
        failures.append(name)


p, q, E, u, th = sp.symbols("p q E u theta", positive=True)
x = sp.Symbol("x", real=True)


def g(prob_one: sp.Expr, at: sp.Expr) -> sp.Expr:
    """g(x) = (1 − p) e^{-|x|/θ} + p e^{-|x − 1|/θ} with e^{1/θ} = u, at x ∈ {0, 1}."""
    return (1 - prob_one) * u ** (-abs(at)) + prob_one * u ** (-abs(at - 1))


# (a)
RA = sp.simplify(g(p, 1) / g(q, 1))
RB = sp.simplify(g(q, 0) / g(p, 0))
check("(a) ratio at x = 1 is (1 − p + p u)/(1 − q + q u)",
      sp.simplify(RA - (1 - p + p * u) / (1 - q + q * u)) == 0)
check("(a) ratio Q/P at x = 0 is (q + (1 − q) u)/(p + (1 − p) u)",
      sp.simplify(RB - (q + (1 - q) * u) / (p + (1 - p) * u)) == 0)
# other directions: g_P(0)/g_Q(0) − 1 and g_Q(1)/g_P(1) − 1 have numerators (p − q)(1 − u) ≤ 0
other1 = sp.factor(sp.together(g(p, 0) - g(q, 0)) * u)
other2 = sp.factor(sp.together(g(q, 1) - g(p, 1)) * u)
check("(a) g_P(0) − g_Q(0) = (p − q)(1 − u)/u ≤ 0 for u ≥ 1, p > q",
      sp.simplify(other1 - (p - q) * (1 - u)) == 0)
check("(a) g_Q(1) − g_P(1) = (q − p)(u − 1)/u ≤ 0",
      sp.simplify(other2 - (q - p) * (u - 1)) == 0)

# (b) monotone in u: derivative numerators are (p − q) > 0
dRA = sp.factor(sp.together(sp.diff((1 - p + p * u) / (1 - q + q * u), u)))
dRB = sp.factor(sp.together(sp.diff((q + (1 - q) * u) / (p + (1 - p) * u), u)))
check("(b) d R_A/du = (p − q)/(1 − q + q u)²",
      sp.simplify(dRA - (p - q) / (1 - q + q * u) ** 2) == 0)
check("(b) d R_B/du = (p − q)/(p + (1 − p) u)²",
      sp.simplify(dRB - (p - q) / (p + (1 - p) * u) ** 2) == 0)
check("(b) R_A(1) = R_B(1) = 1",
      sp.simplify(RA.subs(u, 1) - 1) == 0 and sp.simplify(RB.subs(u, 1) - 1) == 0)
check("(b) R_A(∞) = p/q, R_B(∞) = (1 − q)/(1 − p)",
      sp.simplify(sp.limit((1 - p + p * u) / (1 - q + q * u), u, sp.oo) - p / q) == 0
      and sp.simplify(sp.limit((q + (1 - q) * u) / (p + (1 - p) * u), u, sp.oo)
                      - (1 - q) / (1 - p)) == 0)

# (c) solve R = E, linear in u
uA = (E * (1 - q) - (1 - p)) / (p - q * E)
uB = (E * p - q) / ((1 - q) - (1 - p) * E)
solA = sp.solve(sp.Eq((1 - p + p * u), E * (1 - q + q * u)), u)
solB = sp.solve(sp.Eq((q + (1 - q) * u), E * (p + (1 - p) * u)), u)
check("(c) R_A(u) = E ⟺ u = u_A", len(solA) == 1 and sp.simplify(solA[0] - uA) == 0)
check("(c) R_B(u) = E ⟺ u = u_B", len(solB) == 1 and sp.simplify(solB[0] - uB) == 0)
# R_A ≤ E ⟺ (1 − p + p u) − E(1 − q + q u) ≤ 0 ⟺ u (p − qE) ≤ E(1 − q) − (1 − p)
lin = sp.expand((1 - p + p * u) - E * (1 - q + q * u))
check("(c) (1−p+pu) − E(1−q+qu) = u(p − qE) − (E(1−q) − (1−p))",
      sp.simplify(lin - (u * (p - q * E) - (E * (1 - q) - (1 - p)))) == 0)
lin_b = sp.expand((q + (1 - q) * u) - E * (p + (1 - p) * u))
check("(c) (q+(1−q)u) − E(p+(1−p)u) = u((1−q) − (1−p)E) − (Ep − q)",
      sp.simplify(lin_b - (u * ((1 - q) - (1 - p) * E) - (E * p - q))) == 0)
check("(c) right-hand sides are positive: E(1−q) − (1−p) = (E−1)(1−q) + (p−q)",
      sp.simplify(E * (1 - q) - (1 - p) - ((E - 1) * (1 - q) + (p - q))) == 0)
check("(c) Ep − q = (E − 1)p + (p − q) > 0",
      sp.simplify(E * p - q - ((E - 1) * p + (p - q))) == 0)
check("(c) u_A − 1 = (E − 1)/(p − qE)", sp.simplify(uA - 1 - (E - 1) / (p - q * E)) == 0)
check("(c) u_B − 1 = (E − 1)/((1−q) − (1−p)E)",
      sp.simplify(uB - 1 - (E - 1) / ((1 - q) - (1 - p) * E)) == 0)

# (d) attained: substituting u = u_A makes R_A = E exactly (and u_B for R_B)
check("(d) R_A(u_A) = E", sp.simplify(RA.subs(u, uA) - E) == 0)
check("(d) R_B(u_B) = E", sp.simplify(RB.subs(u, uB) - E) == 0)
# zero-noise case: neither condition ⟺ p ≤ qE and 1 − q ≤ (1 − p)E ⟺ both limits ≤ E
check("(d) p − qE = q (p/q − E): for q > 0, p ≤ qE ⟺ R_A(∞) = p/q ≤ E",
      sp.simplify((p - q * E) - q * (p / q - E)) == 0)
check("(d) (1−q) − (1−p)E = (1−p)((1−q)/(1−p) − E): for p < 1, cond_B fails ⟺ R_B(∞) ≤ E",
      sp.simplify(((1 - q) - (1 - p) * E) - (1 - p) * ((1 - q) / (1 - p) - E)) == 0)

# (e) q = 0
uA0, uB0 = uA.subs(q, 0), uB.subs(q, 0)
check("(e) u_A at q = 0 is 1 + (E − 1)/p", sp.simplify(uA0 - (1 + (E - 1) / p)) == 0)
# when 1 > (1 − p)E: u_A ≤ u_B ⟺ (E − 1 + p)(1 − (1 − p)E) ≤ E p²
diff = sp.expand((E - 1 + p) * (1 - (1 - p) * E) - E * p**2)
check("(e) (E − 1 + p)(1 − (1 − p)E) − E p² = −(E − 1)²(1 − p) ≤ 0",
      sp.simplify(diff + (E - 1) ** 2 * (1 - p)) == 0)

# (f) p = 1, q = 0 and the scaling lemma
check("(f) p = 1, q = 0: u_A = u_B = E",
      sp.simplify(uA.subs({p: 1, q: 0}) - E) == 0 and sp.simplify(uB.subs({p: 1, q: 0}) - E) == 0)
h, a, xp = sp.symbols("h a xprime", positive=True)
lhs = sp.exp(-sp.Abs((a + h * xp) - (a + h)) / (h * th))
rhs = sp.exp(-sp.Abs(xp - 1) / th)
check("(f) scaling: e^{-|x − (a+h)|/(hθ)} at x = a + h x' equals e^{-|x' − 1|/θ}",
      sp.simplify(lhs - rhs) == 0)

# (h) W_1/ε is not sufficient
eps_ = sp.Symbol("epsilon", positive=True)
hfun = 1 - p + p * sp.exp(eps_ / p) - sp.exp(eps_)
check("(h) h(0) = 0", sp.simplify(hfun.subs(eps_, 0)) == 0)
check("(h) h'(ε) = e^{ε/p} − e^ε (> 0 for 0 < p < 1, ε > 0 since ε/p > ε)",
      sp.simplify(sp.diff(hfun, eps_) - (sp.exp(eps_ / p) - sp.exp(eps_))) == 0)
check("(h) the tail ratio at u = e^{ε/p} is 1 − p + p e^{ε/p}",
      sp.simplify((1 - p + p * u).subs(u, sp.exp(eps_ / p)) - (1 - p + p * sp.exp(eps_ / p)))
      == 0)

# (g) the code's expressions
sys.path.insert(0, ".")
from exactdp.pufferfish.bernoulli_forms import closed_forms  # noqa: E402

cf = closed_forms()
pc, qc, ec = sp.symbols("p q epsilon", positive=True)
sub = {pc: p, qc: q}
Ee = sp.exp(ec)
check("(g) code u_A matches", sp.simplify(cf["u_A"].subs(sub) - uA.subs(E, Ee)) == 0)
check("(g) code u_B matches", sp.simplify(cf["u_B"].subs(sub) - uB.subs(E, Ee)) == 0)
check("(g) code theta_absent matches 1/ln(u_A at q = 0)",
      sp.simplify(cf["theta_absent"].subs(sub) - 1 / sp.log(uA0.subs(E, Ee))) == 0)
check("(g) code theta_values = 1/ε", sp.simplify(cf["theta_values"] - 1 / ec) == 0)

# (i) strict monotonicity of the loss in θ, and the check on concrete closed forms
th0 = sp.Symbol("theta0", positive=True)
uu = sp.exp(h / th0)
check("(i) du/dθ = −(h/θ²) e^{h/θ} < 0",
      sp.simplify(sp.diff(uu, th0) + h / th0**2 * sp.exp(h / th0)) == 0)

from exactdp.pufferfish.bernoulli_forms import closed_form_solves  # noqa: E402
from exactdp.pufferfish.calibration import exact_scale  # noqa: E402
from exactdp.pufferfish.distributions import bernoulli, point_mass  # noqa: E402
from exactdp.pufferfish.secrets import DistributionPair, DistributionVsAbsent  # noqa: E402
from exactdp.spaces.levels import parse_level  # noqa: E402

for pair, eps_text in ((DistributionVsAbsent(bernoulli("1/2")), "ln(2)"),
                       (DistributionPair(bernoulli("3/4"), bernoulli("1/4")), "1"),
                       (DistributionPair(bernoulli("1/10"), bernoulli("2/3")), "1/2")):
    r = exact_scale(pair, eps_text)
    lv = parse_level(eps=eps_text)
    hi = sp.Rational(r.hi.numerator, r.hi.denominator)
    check(f"(i) closed form {r.theta_expr} solves the loss equation ({eps_text})",
          closed_form_solves(pair.P, pair.Q, lv, r.theta_expr))
    check(f"(i) the bracket end {r.hi} does not ({eps_text})",
          not closed_form_solves(pair.P, pair.Q, lv, hi))
three = DistributionPair(bernoulli("1/2"), point_mass(2))  # support {0, 1, 2}
check("(i) a three-point support has no closed form to check (rejected, never assumed)",
      not closed_form_solves(three.P, three.Q, parse_level(eps=1), sp.Integer(1)))

if failures:
    print(f"{len(failures)} step(s) failed")
    sys.exit(1)
print("all steps verified")
