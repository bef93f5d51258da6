"""Laplace CDF, box probabilities and capacity functionals of M(X) = X + w are exact.

Theorem. Let w = (w_1..w_n) with w_i i.i.d. Laplace(0, 1/ε), density (ε/2)e^{-ε|t|}.
  (1) F(x) = P[w_i ≤ x] = ½e^{εx} for x < 0 and 1 − ½e^{−εx} for x ≥ 0.
  (2) P[w_i ∈ [l, u]] = F(u) − F(l), and for a box B = Π[l_i, u_i],
      P[w ∈ B] = Π_i (F(u_i) − F(l_i))   (independence / Fubini).
  (3) T_{M(X)}(K) = P[(X + w) ∩ K ≠ ∅] = P[w ∈ ∪_{x∈X, B∈K} (B − x)], because
      (x + w ∈ B) ⇔ (w ∈ B − x); and the measure of a finite union of boxes equals the
      sum over the cells of any grid refining all box endpoints that lie in the union,
      of the cell probabilities (the cells are disjoint up to null faces) — this is the
      "grid" algorithm; "sweep" groups the same cells slab by slab (distributivity of the
      product over the sum), and inclusion–exclusion is the classical identity.
  (4) For rational x every such value is a finite sum Σ c_r e^{−εr} with rational c_r,
      r ≥ 0, and the representation with distinct r is unique (the functions e^{−εr},
      r distinct, are linearly independent: order r_1 < r_2 < …; multiply by e^{εr_1}
      and let ε → ∞). So exact equality of capacity functionals for all ε is equality
      of normalised term dictionaries.
  (5) Signs: with q the lcm of the exponents' denominators, Σ c_r e^{−εr} =
      s^k·p(s), s = e^{−ε/q}, p ∈ Q[s]. For algebraic (e.g. rational) ε ≠ 0, s is
      transcendental (Lindemann), so p ≠ 0 ⇒ p(s) ≠ 0, and ball evaluation at rising precision
      terminates with the sign. For t = e^{−ε} rational, s = t^{1/q} is algebraic and
      p(s) = 0 ⇔ minpoly(s) | p.

This script checks (1)–(2) symbolically with sympy integration, (3) on instances by
integrating the density over hand-merged unions, and (4)–(5) on examples against the
library. Exits non-zero if a step fails.
"""

from __future__ import annotations

import sys
from fractions import Fraction

import sympy

PROVES = [
    "exactdp.sets._capacity.laplace_cdf",
    "exactdp.sets._capacity.interval_probability",
    "exactdp.sets._capacity.box_probability",
    "exactdp.sets._capacity.union_probability",
    "exactdp.sets._capacity.capacity_functional",
    "exactdp.sets._exppoly.exp_poly_sign",
    "exactdp.kernel.sets.capacity",
]

eps = sympy.Symbol("epsilon", positive=True)
t = sympy.Symbol("t", real=True)


def integral(lo: sympy.Expr, hi: sympy.Expr, var: sympy.Symbol = t) -> sympy.Expr:
    """∫_lo^hi (ε/2)e^{−ε|var|} d var, split at 0 so that |var| is resolved on each piece."""
    lo, hi = sympy.sympify(lo), sympy.sympify(hi)
    total = sympy.Integer(0)
    if lo < 0:
        total += sympy.integrate(eps / 2 * sympy.exp(eps * var), (var, lo, sympy.Min(hi, 0)))
    if hi > 0:
        total += sympy.integrate(eps / 2 * sympy.exp(-eps * var), (var, sympy.Max(lo, 0), hi))
    return total


def check(name: str, ok: bool) -> None:
    print(("ok   " if ok else "FAIL ") + name)
    if not ok:
        sys.exit(1)


def main() -> None:
    # (0) the density integrates to 1
    check("density integrates to 1", sympy.simplify(integral(-sympy.oo, sympy.oo)) == 1)

    # (1) CDF on each side of 0
    a = sympy.Symbol("a", positive=True)
    neg = sympy.integrate(eps / 2 * sympy.exp(eps * t), (t, -sympy.oo, -a))  # x = -a < 0
    check("F(-a) = ½e^{-εa}", sympy.simplify(neg - sympy.exp(-eps * a) / 2) == 0)
    pos = sympy.Rational(1, 2) + sympy.integrate(eps / 2 * sympy.exp(-eps * t), (t, 0, a))
    check("F(a) = 1 − ½e^{−εa}", sympy.simplify(pos - (1 - sympy.exp(-eps * a) / 2)) == 0)

    from exactdp.sets import Box, capacity_functional, laplace_cdf, union_probability
    from exactdp.sets._exppoly import ExpPoly, exp_poly_sign

    for x in [Fraction(-7, 3), Fraction(-1, 2), Fraction(0), Fraction(5, 4), Fraction(3)]:
        X = sympy.Rational(x.numerator, x.denominator)
        want = integral(-sympy.oo, X)
        check(
            f"library F({x}) matches the integral",
            sympy.simplify(laplace_cdf(x).to_sympy(eps) - want) == 0,
        )

    # (2) box probability = product of CDF differences (2-D, explicit double integral)
    # (independence: the joint density is the product, so the double integral factorises)
    t2 = sympy.Symbol("t2", real=True)
    B = Box((-1, Fraction(1, 2)), (2, 3))
    want = integral(-1, 2) * integral(sympy.Rational(1, 2), 3, t2)
    got = capacity_functional([(0, 0)], B, eps=1).value.to_sympy(eps)
    check("2-D box probability = double integral", sympy.simplify(got - want) == 0)

    # (3) unions of translates: integrate the density over the merged union
    # X = {0, 2}, K = [0, 1] ∪ [3/2, 5/2]: translates [0,1],[3/2,5/2],[-2,-1],[-1/2,1/2]
    # merged: [-2,-1] ∪ [-1/2, 1] ∪ [3/2, 5/2]
    pieces = [(-2, -1), (sympy.Rational(-1, 2), 1), (sympy.Rational(3, 2), sympy.Rational(5, 2))]
    want = sum(integral(lo, hi) for lo, hi in pieces)
    K = [Box(0, 1), Box(Fraction(3, 2), Fraction(5, 2))]
    for method in ("sweep", "grid", "inclusion-exclusion"):
        got = capacity_functional([0, 2], K, eps=1, method=method).value.to_sympy(eps)  # type: ignore[arg-type]
        check(
            f"1-D union by {method} = integral over merged pieces", sympy.simplify(got - want) == 0
        )
    # 2-D: an L-shape as two disjoint rectangles, integrated directly
    L = [Box((0, 0), (2, 1)), Box((0, 0), (1, 2))]
    want = integral(0, 2) * integral(0, 1, t2) + integral(0, 1) * integral(1, 2, t2)
    got = union_probability(L).to_sympy(eps)
    check("2-D L-shape union = integral over a disjoint split", sympy.simplify(got - want) == 0)

    # (4) normal form: equal functions have equal dictionaries (example: e^{-ε}·e^{-ε} = e^{-2ε})
    check(
        "normal form combines equal exponents", ExpPoly({1: 1}) * ExpPoly({1: 1}) == ExpPoly({2: 1})
    )

    # (5) signs: rational ε (Lindemann) and rational t (minimal polynomial)
    from exactdp.arithmetic.ball import Sign
    from exactdp.spaces.levels import parse_level

    p = ExpPoly({0: 1, 1: -2})  # 1 − 2e^{−ε}: zero exactly at ε = ln 2
    check(
        "1 − 2e^{−ε} = 0 at ε = ln 2 (exact)",
        exp_poly_sign(p, parse_level(eps="ln(2)"))[0] is Sign.ZERO,
    )
    check("1 − 2e^{−ε} > 0 at ε = 1", exp_poly_sign(p, parse_level(eps=1))[0] is Sign.POSITIVE)
    q = ExpPoly({0: 1, Fraction(1, 2): 0, 1: Fraction(-1, 2)})  # 1 − ½e^{−ε}
    r = ExpPoly({0: 1, Fraction(1, 2): -1}) * ExpPoly(
        {0: 1, Fraction(1, 2): 1}
    )  # (1−√t)(1+√t) = 1 − t
    check("(1 − s)(1 + s) − (1 − s²) = 0 exactly", (r - ExpPoly({0: 1, 1: -1})).is_zero())
    check(
        "1 − ½e^{−ε} > 0 at ε = ln 3",
        exp_poly_sign(q, parse_level(eps="ln(3)"))[0] is Sign.POSITIVE,
    )
    # algebraic s = e^{−ε/2} = 2^{−1/2} at ε = ln 2 (q = 2, s irrational): minimal polynomial
    z = ExpPoly({0: 1, 1: -2}) * ExpPoly({0: 1, Fraction(1, 2): 1})  # (1 − 2s²)(1 + s)
    sign, _, how = exp_poly_sign(z, parse_level(eps="ln(2)"))
    check(
        "(1 − 2s²)(1 + s) = 0 at s = 2^{-1/2}, by the minimal polynomial",
        sign is Sign.ZERO and how == "zero",
    )
    w = ExpPoly({0: 1, 1: -4}) * ExpPoly({0: 1, Fraction(1, 2): 1})  # (1 − 4s²)(1 + s) < 0
    sign, _, how = exp_poly_sign(w, parse_level(eps="ln(2)"))
    check(
        "(1 − 4s²)(1 + s) < 0 at s = 2^{-1/2} (minpoly + ball)",
        sign is Sign.NEGATIVE and how == "minpoly+ball",
    )
    print("all steps verified")


if __name__ == "__main__":
    main()
