"""Theorem (θ* for Bernoulli secret pairs as one Piecewise expression in p, q, ε).

Let θ*(p, q, ε) be the least Laplace scale for D ~ Bern(p) against D ~ Bern(q) on {0, 1},
0 ≤ p, q ≤ 1, ε > 0, E = e^ε. Then θ* equals the expression returned by
exactdp.pufferfish.bernoulli_forms.bernoulli_theta_piecewise():

  Piecewise((T(p, q), p > q), (T(q, p), q > p), (0, True)),
  T(a, b) = Piecewise((Max(θ_A, θ_B), c_A ∧ c_B), (θ_A, c_A), (θ_B, c_B), (0, True)),

with c_A: a − bE > 0, c_B: (1 − b) − (1 − a)E > 0, θ_A = 1/ln u_A, θ_B = 1/ln u_B and
u_A, u_B the expressions of proofs/pufferfish_bernoulli.py (c) with (p, q) = (a, b).

Proof.
 (1) Symmetry: the privacy loss sup_x |ln g_P(x) − ln g_Q(x)| is symmetric in (P, Q), so
     θ*(p, q) = θ*(q, p); for p > q proofs/pufferfish_bernoulli.py (d) gives
     θ* = 1/ln min(u_A, u_B) over the binding ends, ∞-valued ends dropped, and θ* = 0 when
     neither binds. p = q: the secrets are identical, θ* = 0.
 (2) When both bind, u_A > 1 and u_B > 1 (pufferfish_bernoulli.py (c): u − 1 = (E − 1)/den
     with den > 0), and t ↦ 1/ln t is strictly decreasing on (1, ∞), so
     1/ln min(u_A, u_B) = max(1/ln u_A, 1/ln u_B) = Max(θ_A, θ_B).
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
check("(0) validity is 0 ≤ p, q ≤ 1",
      validity == sp.And(p >= 0, p <= 1, q >= 0, q <= 1))

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
check("(3) first branch condition is c_A ∧ c_B", c_both == sp.And(c_a, c_b))
check("(3) θ_A = 1/ln u_A", sp.simplify(th_a - cf["theta_A"]) == 0)
check("(3) θ_B = 1/ln u_B", sp.simplify(th_b - cf["theta_B"]) == 0)
check("(2) both bind: Max(θ_A, θ_B)", both == sp.Max(th_a, th_b))
uA, uB = cf["u_A"], cf["u_B"]
E = sp.exp(eps)
check("(2) u_A − 1 = (E − 1)/(p − qE)", sp.simplify(uA - 1 - (E - 1) / (p - q * E)) == 0)
check("(2) u_B − 1 = (E − 1)/((1 − q) − (1 − p)E)",
      sp.simplify(uB - 1 - (E - 1) / ((1 - q) - (1 - p) * E)) == 0)

# (4) spot checks against the certified-branch function
cases = [(Fraction(1, 2), Fraction(0), sp.log(2)), (Fraction(3, 4), Fraction(1, 4), sp.Integer(1)),
         (Fraction(1, 10), Fraction(2, 3), sp.Rational(1, 2)),
         (Fraction(9, 10), Fraction(1, 10), sp.Integer(2)),
         (Fraction(1, 5), Fraction(1, 4), sp.Integer(3)), (Fraction(1), Fraction(0), sp.Integer(1))]
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
