"""Theorem 1 of arXiv 1710.01114 is false under the reconstructed Definition 4.

Claim checked (Definition 4, reconstructed from the proof of Theorem 1): for all finite
X, Y ⊂ Rⁿ and compact K,  T_{M(X)}(K) ≤ e^{ε(d_H(X, Y) + diam K)} · T_{M(Y)}(K),
where M(X) = X + w, w_i i.i.d. Laplace(0, 1/ε), T the capacity functional.

Counterexample (ε = 1, n = 1): X = {0, 1/4}, Y = {0}, K = [0, 1/4].
  d_H(X, Y) = 1/4 and diam K = 1/4 (in ℓ1 = ℓ2 = ℓ∞, since n = 1).
  T_{M(X)}(K) = P[w ∈ [0, 1/4] ∪ [−1/4, 0]] = 1 − e^{−1/4},
  T_{M(Y)}(K) = P[w ∈ [0, 1/4]]            = (1 − e^{−1/4})/2,
  ratio = 2 exactly, bound e^{1/2} < 2 because e < 4 (proved below twice: the series
  Σ 1/k! with k! ≥ 2^{k−1} by induction gives e ≤ 3, and a certified arb enclosure of e
  has an exact rational upper end below 4).

Family: X = {0, a}, Y = {0}, K = [0, δ], 0 < δ ≤ a: ratio = 1 + e^{−ε(a−δ)}, which
exceeds e^{ε(a+δ)} iff the claim fails; at δ = a iff εa < (ln 2)/2. With K = [a, a+δ]
instead, ratio/bound → 1 + e^{−εa} as δ → 0: every ε > 0 and a > 0 give a violation.

Minimality: n = 1 is the least dimension; if |X| = 1 the claim holds for every Y and K
(proofs/sets_correct_bound.py, Theorem C), so a counterexample needs |X| ≥ 2 and
|Y| ≥ 1: three points, as here.

Where the paper's proof breaks: it bounds P[(X+w) ∩ K ≠ ∅] as if it were the density
at one pair (k, x); the event is a union over x ∈ X of {w ∈ K − x}, whose probability can
be up to |X| times that of any single translate.

Exits non-zero if a step fails.
"""

from __future__ import annotations

import sys

import sympy

PROVES = [
    "exactdp.sets._privacy.theorem1_counterexample",
    "exactdp.sets._privacy.check_set_privacy",
]

eps = sympy.Symbol("epsilon", positive=True)
t = sympy.Symbol("t", real=True)


def integral(lo: sympy.Expr, hi: sympy.Expr) -> sympy.Expr:
    """∫_lo^hi (ε/2)e^{−ε|t|} dt, split at 0."""
    lo, hi = sympy.sympify(lo), sympy.sympify(hi)
    total = sympy.Integer(0)
    if lo < 0:
        total += sympy.integrate(eps / 2 * sympy.exp(eps * t), (t, lo, sympy.Min(hi, 0)))
    if hi > 0:
        total += sympy.integrate(eps / 2 * sympy.exp(-eps * t), (t, sympy.Max(lo, 0), hi))
    return total


def check(name: str, ok: bool) -> None:
    print(("ok   " if ok else "FAIL ") + name)
    if not ok:
        sys.exit(1)


def main() -> None:
    q = sympy.Rational(1, 4)
    # translates of K = [0, 1/4]: K − 0 = [0, 1/4], K − 1/4 = [−1/4, 0]
    TX = integral(-q, 0) + integral(0, q)
    TY = integral(0, q)
    TX1, TY1 = TX.subs(eps, 1), TY.subs(eps, 1)
    check("T_X = 1 − e^{−1/4}", sympy.simplify(TX1 - (1 - sympy.exp(-q))) == 0)
    check("T_Y = (1 − e^{−1/4})/2", sympy.simplify(TY1 - (1 - sympy.exp(-q)) / 2) == 0)
    check("ratio = 2 for every ε", sympy.simplify(TX / TY) == 2)
    bound = sympy.exp(q + q)
    # 2 > e^{1/2} ⇔ 4 > e (both sides positive, squaring is increasing on (0, ∞)).
    # Route 1 (series): e = Σ_{k≥0} 1/k!, and k! ≥ 2^{k−1} for k ≥ 1 by induction, so
    # e ≤ 1 + Σ_{k≥1} 2^{−(k−1)} = 1 + 2 = 3 < 4.
    k = sympy.Symbol("k", integer=True, positive=True)
    m = sympy.Symbol("m", integer=True, nonnegative=True)
    check("induction base: 1! = 1 ≥ 2^0", sympy.factorial(1) >= 2**0)
    # step: k! ≥ 2^{k−1} ⇒ (k+1)! = (k+1)·k! ≥ (k+1)·2^{k−1} ≥ 2·2^{k−1} = 2^k, which needs
    # k + 1 ≥ 2 for every integer k ≥ 1; write k = m + 1 with m ≥ 0: (m + 2) − 2 = m ≥ 0
    check(
        "induction step: (k+1)·2^{k−1} − 2^k = (k−1)·2^{k−1} ≥ 0 for k ≥ 1",
        sympy.expand((k + 1) * 2 ** (k - 1) - 2**k - (k - 1) * 2 ** (k - 1)) == 0
        and ((k - 1).subs(k, m + 1) * 2 ** m).is_nonnegative is True,
    )
    tail = sympy.summation(sympy.Rational(1, 2) ** (k - 1), (k, 1, sympy.oo))
    check("Σ_{k≥1} 2^{−(k−1)} = 2 (exact geometric series)", tail == 2)
    check("e ≤ 1 + 2 = 3 < 4 (exact rational comparison)", sympy.Integer(1) + tail < 4)
    # Route 2 (certified ball): arb's exp is rigorous; its rational upper end is < 4.
    from flint import arb, ctx

    with ctx.workprec(64):
        e_ball = arb(1).exp()
    mid, rad = e_ball.mid().man_exp(), e_ball.rad().man_exp()
    upper = sympy.Integer(int(mid[0])) * sympy.Integer(2) ** int(mid[1]) + sympy.Integer(
        int(rad[0])
    ) * sympy.Integer(2) ** int(rad[1])
    check("certified enclosure of e has exact rational upper end < 4", upper < 4)
    # T_Y > 0: e^{1/4} = Σ (1/4)^k/k! ≥ 1 + 1/4 > 1 (all terms positive), so
    # lhs − bound·rhs = T_Y · (2 − e^{1/2}) > 0
    check("lhs − bound·rhs = T_Y·(2 − e^{1/2})", sympy.simplify(TX1 - bound * TY1 - TY1 * (2 - bound)) == 0)
    check("1 + 1/4 > 1 (lower bound of e^{1/4} by its first two series terms)", 1 + q > 1)
    check("numerical cross-check only: lhs > bound · rhs at 50 digits", bool((TX1 - bound * TY1).evalf(50) > 0))

    # the library gives the same exact values
    from exactdp.sets import theorem1_counterexample

    r = theorem1_counterexample()
    check("library: holds is False", r.holds is False)
    check("library lhs = T_X", sympy.simplify(r.lhs - TX1) == 0)
    check("library T_Y = T_Y", sympy.simplify(r.T_Y.expr - TY1) == 0)
    check("library factor = e^{1/2}", sympy.simplify(r.factor - bound) == 0)
    check("library witness verifies", r.verify())

    # the family X = {0, a}, Y = {0}, K = [0, δ], 0 < δ ≤ a (translates disjoint)
    # write a = δ + c with c > 0 so that [−a, −a+δ] = [−δ−c, −c] lies left of 0
    c, d = sympy.symbols("c delta", positive=True)
    a = d + c
    TXf = integral(-a, -c) + integral(0, d)
    ratio = sympy.simplify(TXf / integral(0, d))
    check(
        "family ratio = 1 + e^{−ε(a−δ)}",
        sympy.simplify(ratio - (1 + sympy.exp(-eps * (a - d)))) == 0,
    )
    # c → 0 (δ = a, translates touching at 0): ratio → 2, bound e^{2εa}
    check("δ = a: ratio → 2", sympy.limit(ratio, c, 0) == 2)
    a = sympy.Symbol("a", positive=True)
    # tiny boxes at the far point: K = [a, a+δ]; ratio/(e^{ε(a+δ)}) → 1 + e^{−εa} as δ → 0
    TXg = integral(a, a + d) + integral(0, d)
    TYg = integral(a, a + d)
    lim = sympy.limit(sympy.simplify(TXg / TYg) / sympy.exp(eps * (a + d)), d, 0)
    check(
        "tiny box at a: ratio/bound → 1 + e^{−εa} > 1",
        sympy.simplify(lim - (1 + sympy.exp(-eps * a))) == 0,
    )
    print("all steps verified: Theorem 1 (reconstructed) is false")


if __name__ == "__main__":
    main()
