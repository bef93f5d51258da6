"""Theorem (θ* for Bernoulli secret pairs as one Piecewise expression in p, q, ε).

Let θ*(p, q, ε) be the least Laplace scale for D ~ Bern(p) against D ~ Bern(q) on {0, 1},
0 ≤ p, q ≤ 1, ε > 0, E = e^ε. Then θ* equals the expression returned by
exactdp.pufferfish.bernoulli_forms.bernoulli_theta_piecewise():

  Piecewise((T(p, q), p > q), (T(q, p), q > p), (0, True)),
  T(a, b) = Piecewise((θ_B, c_A ∧ c_B ∧ x > 0), (θ_A, c_A), (θ_B, c_B), (0, True)),

with c_A: a − bE > 0, c_B: (1 − b) − (1 − a)E > 0, θ_A = 1/ln u_A, θ_B = 1/ln u_B and
u_A = n_A/d_A, u_B = n_B/d_B the expressions of proofs/pufferfish_bernoulli.py (c) with
(p, q) = (a, b) (d_A, d_B the left sides of c_A, c_B) and x = n_A·d_B − n_B·d_A.

Proof.
 (1) Symmetry: the privacy loss sup_x |ln g_P(x) − ln g_Q(x)| is symmetric in (P, Q), so
     θ*(p, q) = θ*(q, p); for p > q proofs/pufferfish_bernoulli.py (d) gives
     θ* = 1/ln min(u_A, u_B) over the binding ends, ∞-valued ends dropped, and θ* = 0 when
     neither binds. p = q: the secrets are identical, θ* = 0.
 (2) When both bind, d_A > 0 and d_B > 0, so u_A > u_B ⟺ n_A·d_B > n_B·d_A ⟺ x > 0;
     hence 1/ln min(u_A, u_B) is θ_B when x > 0 and θ_A otherwise (u_A = u_B: the two
     agree). Hence the first branch gives θ_B exactly when both bind and x > 0, the second
     θ_A when c_A holds and (c_B fails or x ≤ 0), the third θ_B when only c_B holds.
     (x is a polynomial in E, so the choice is exact; a Max of the two θ would be
     compared numerically by sympy and divides by zero for ε ≤ 1e-10.)
 (3) The branch expressions and conditions of T(p, q) are exactly closed_forms()' u_A, u_B,
     cond_A, cond_B (checked below symbolically), and T(q, p) is T(p, q) with p, q swapped.
 (4) Spot check: at rational (p, q, ε) the expression evaluates to
     bernoulli_theta_expr(p, q, ε) (which decides the branch with certified signs).
"""

from __future__ import annotations

import sys
from fractions import Fraction

import sympy as sp

PROVES = ["exactdp.pufferfish.bernoulli_forms.bernoulli_theta_piecewise"]

failures: list[str] = []


def check(name: str, ok: bool) -> None:
    print(("ok   " if ok else "FAIL ") + name)
    if not ok:
        failures.append(name)


sys.path.insert(0, ".")
from exactdp.pufferfish.bernoulli_forms import (  # noqa: E402
    bernoulli_theta_expr,
    bernoulli_theta_piecewise,
    closed_forms,
)

theta, validity = bernoulli_theta_piecewise()
cf = closed_forms()
eps, p, q = sorted(theta.free_symbols, key=str)
check("(0) the symbols are p, q, epsilon", (str(eps), str(p), str(q)) == ("epsilon", "p", "q"))
half = sp.Rational(1, 2)
check("(0) validity holds at p = 1/2, q = 0, ε = 1",
      validity.subs({p: half, q: 0, eps: 1}) is sp.true)
for bad in ({p: -1, q: 0, eps: 1}, {p: 2, q: 0, eps: 1}, {p: half, q: -1, eps: 1},
            {p: half, q: 2, eps: 1}, {p: half, q: 0, eps: -1}, {p: half, q: 0, eps: 0}):
    check(f"(0) validity fails at {bad}", validity.subs(bad) is sp.false)

def positive_part(rel: sp.Basic) -> sp.Expr:
    """For a strict inequality A > B (however sympy orients it), the expression A − B > 0."""
    assert isinstance(rel, (sp.StrictGreaterThan, sp.StrictLessThan)), rel
    return rel.gts - rel.lts


def same_condition(c1: sp.Basic, c2: sp.Basic) -> bool:
    return bool(sp.simplify(positive_part(c1) - positive_part(c2)) == 0)


outer = theta.args
check("(1) outer branches: p > q, q > p, otherwise 0",
      len(outer) == 3 and same_condition(outer[0][1], sp.StrictGreaterThan(p, q))
      and same_condition(outer[1][1], sp.StrictGreaterThan(q, p)) and outer[2] == (0, True))
T_pq, T_qp = outer[0][0], outer[1][0]
swap = {p: q, q: p}
check("(3) T(q, p) is T(p, q) with p and q exchanged",
      T_qp == T_pq.xreplace(swap))
inner = T_pq.args
check("(3) inner branch count 4, last is 0", len(inner) == 4 and inner[3] == (0, True))
(both, c_both), (th_a, c_a), (th_b, c_b) = inner[0], inner[1], inner[2]
check("(3) c_A is closed_forms()['cond_A']", same_condition(c_a, cf["cond_A"]))
check("(3) c_B is closed_forms()['cond_B']", same_condition(c_b, cf["cond_B"]))
x_parts = [c for c in c_both.args if c not in (c_a, c_b)]
check("(3) first branch condition is c_A ∧ c_B ∧ x > 0",
      isinstance(c_both, sp.And) and c_a in c_both.args and c_b in c_both.args
      and len(x_parts) == 1
      and sp.simplify(positive_part(x_parts[0])
                      - (positive_part(cf["cond_B"]) * positive_part(cf["cond_A"])
                         * (sp.together(cf["u_A"]) - sp.together(cf["u_B"])))) == 0)
check("(3) θ_A = 1/ln u_A", sp.simplify(th_a - cf["theta_A"]) == 0)
check("(3) θ_B = 1/ln u_B", sp.simplify(th_b - cf["theta_B"]) == 0)
check("(2) both bind and x > 0: θ_B", both == th_b)
uA, uB = cf["u_A"], cf["u_B"]
E = sp.exp(eps)
check("(2) u_A − 1 = (E − 1)/(p − qE)", sp.simplify(uA - 1 - (E - 1) / (p - q * E)) == 0)
check("(2) u_B − 1 = (E − 1)/((1 − q) − (1 − p)E)",
      sp.simplify(uB - 1 - (E - 1) / ((1 - q) - (1 - p) * E)) == 0)

# (4) spot checks against the certified-branch function
cases = [(Fraction(1, 2), Fraction(0), sp.log(2)), (Fraction(3, 4), Fraction(1, 4), sp.Integer(1)),
         (Fraction(1, 10), Fraction(2, 3), sp.Rational(1, 2)),
         (Fraction(9, 10), Fraction(1, 10), sp.Integer(2)),
         (Fraction(1, 5), Fraction(1, 4), sp.Integer(3)), (Fraction(1), Fraction(0), sp.Integer(1)),
         (Fraction(9, 10), Fraction(1, 2), sp.Integer(1)),
         (Fraction(3, 4), Fraction(1, 10), sp.Integer(1)),
         (Fraction(9, 10), Fraction(2, 5), sp.Rational(3, 10)),
         (Fraction(1, 10), Fraction(3, 4), sp.Integer(1)),
         (Fraction(1, 2), Fraction(1, 3), sp.Rational(1, 10**12)),
         (Fraction(1, 10), Fraction(2, 3), sp.Rational(1, 10**20))]
for pv, qv, ev in cases:
    want, branch = bernoulli_theta_expr(pv, qv, ev)
    got = theta.subs({p: sp.Rational(pv.numerator, pv.denominator),
                      q: sp.Rational(qv.numerator, qv.denominator), eps: ev})
    check(f"(4) p={pv}, q={qv}, ε={ev}: {got} = {want} (branch {branch})",
          sp.simplify(got - want) == 0)

if failures:
    print(f"{len(failures)} step(s) failed")
    sys.exit(1)
print("all steps verified")
