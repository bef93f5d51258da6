"""The set-privacy kernel decides p(s) = 0 exactly by one reduction modulo x^d − u.

Setting (``exactdp.kernel.sets._exact_sign``). A margin Σ_r c_r e^{−εr} with rational c_r, r
is, with q the lcm of the exponents' denominators and lo = min r, equal to
s^{q·lo}·p(s), p(x) = Σ_r c_r x^{q(r − lo)} ∈ Q[x], s = e^{−ε/q} = t^{1/q} > 0. At a rational
level t ∈ (0, 1):

Theorem. Let k be the largest divisor of q with u = t^{1/k} rational, d = q/k (so s^d = u).
  (a) k ≤ bits(t): a rational v = t^{1/k} ≠ 1 has max(num, den) ≥ 2, so max(num t, den t) ≥ 2^k.
  (b) x^d − u is irreducible over Q. Capelli: x^d − a is reducible iff a = b^p for some prime
      p | d, or 4 | d and a = −4b⁴. u > 0 rules out the second case; if u = b^p (b > 0
      rational, p | d) then s^{d/p} = b, i.e. t^{1/(kp)} = b is rational with kp | q,
      contradicting the maximality of k.
  (c) So x^d − u is the minimal polynomial of s, and p(s) = 0 iff (x^d − u) | p iff the
      remainder of p modulo x^d − u is 0. With x^e = u^{⌊e/d⌋}·x^{e mod d} (mod x^d − u), the
      remainder is Σ_e c_e u^{⌊e/d⌋} x^{e mod d}; a nonzero remainder means p(s) ≠ 0 (the caller
      then decides its sign in balls, which terminates because the value is nonzero).
  (d) d = 1: s = u is rational and the remainder is the number p(s) itself, its sign exact.

This script checks (a) and (b) against sympy's factorisation and root extraction on many
(t, q), and (c)–(d) by comparing the kernel's function with sympy's exact evaluation of p at
the algebraic number s on random margins, including margins built to vanish (multiples of
the minimal polynomial). Exits non-zero if a step fails.
"""

from __future__ import annotations

import math
import random
import sys
from fractions import Fraction

import sympy

from exactdp.kernel.sets import _exact_sign
from exactdp.spaces.levels import parse_level

PROVES = ["exactdp.kernel.sets._exact_sign"]

FAILURES: list[str] = []


def check(cond: bool, what: str) -> None:
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        FAILURES.append(what)


def rational_root(t: Fraction, k: int) -> Fraction | None:
    """t^{1/k} when rational (sympy's exact root, independent of the library)."""
    r = sympy.root(sympy.Rational(t.numerator, t.denominator), k)
    return Fraction(int(r.p), int(r.q)) if r.is_Rational else None


def split(t: Fraction, q: int) -> tuple[int, Fraction]:
    k = max(k for k in range(1, q + 1) if q % k == 0 and rational_root(t, k) is not None)
    u = rational_root(t, k)
    assert u is not None
    return q // k, u


def main() -> None:
    rng = random.Random(9)
    x = sympy.Symbol("x")
    bases = [Fraction(1, 2), Fraction(2, 3), Fraction(1, 4), Fraction(4, 9), Fraction(1, 8),
             Fraction(8, 27), Fraction(1, 16), Fraction(1, 64), Fraction(3, 5), Fraction(9, 16)]
    # (a), (b): for every (t, q) the maximal k is at most bits(t) and x^d − u is irreducible.
    ok_a = ok_b = True
    for t in bases + [Fraction(1, 2) ** 6, Fraction(2, 3) ** 4, Fraction(1, 3) ** 12]:
        for q in range(1, 13):
            d, u = split(t, q)
            k = q // d
            ok_a &= k <= max(t.numerator.bit_length(), t.denominator.bit_length())
            poly = sympy.Poly(x**d - sympy.Rational(u.numerator, u.denominator), x)
            ok_b &= len(sympy.factor_list(poly)[1]) == 1 and sympy.factor_list(poly)[1][0][1] == 1
    check(ok_a, "(a) the largest k with t^{1/k} rational is at most bits(t)")
    check(ok_b, "(b) x^d − u is irreducible over Q for every t, q tried (Capelli)")

    # (c), (d): the kernel's answer against sympy's exact evaluation at s = t^{1/q}.
    n_zero = n_nonzero = 0
    ok_c = True
    for trial in range(160):
        t = rng.choice(bases)
        q = rng.choice([1, 2, 3, 4, 6])
        d, u = split(t, q)
        s = sympy.root(sympy.Rational(t.numerator, t.denominator), q)
        coeffs = [sympy.Rational(rng.randint(-5, 5), rng.randint(1, 4)) for _ in range(rng.randint(1, 6))]
        p = sum((c * x**i for i, c in enumerate(coeffs)), sympy.Integer(0))
        if trial % 2 == 0 and d > 1:  # force p(s) = 0: a multiple of the minimal polynomial
            p = sympy.expand(p * (x**d - sympy.Rational(u.numerator, u.denominator)))
        poly = sympy.Poly(p, x)
        if poly.is_zero:
            continue
        lo = Fraction(rng.randint(0, 3), q)
        margin = {lo + Fraction(e, q): Fraction(int(c.p), int(c.q))
                  for (e,), c in poly.terms() if c != 0}
        got = _exact_sign(margin, t, parse_level(t=str(t)))
        value = sympy.nsimplify(sympy.expand(p.subs(x, s)))
        truth = 0 if sympy.simplify(value) == 0 else (1 if value > 0 else -1)
        n_zero += truth == 0
        n_nonzero += truth != 0
        # the kernel takes q from the margin's own exponents (it may be a divisor of ours):
        # exact zero ⇒ 0; nonzero ⇒ its sign when that s is rational (d = 1), else None (balls)
        d_kernel, _ = split(t, math.lcm(*(r.denominator for r in margin)))
        expected = truth if (truth == 0 or d_kernel == 1) else None
        if got != expected:
            ok_c = False
            print(f"   mismatch: t={t} q={q} d={d} margin={margin} kernel={got} truth={truth}")
    check(ok_c and n_zero > 20 and n_nonzero > 20,
          f"(c)-(d) the kernel's exact sign equals sympy's on {n_zero} zero and {n_nonzero} nonzero margins")
    if FAILURES:
        sys.exit(1)
    print("all steps verified")


if __name__ == "__main__":
    main()
