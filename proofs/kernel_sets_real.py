"""The certified set kernel (``exactdp.kernel.sets_real``) encloses what its documents state.

Theorem. (a) Coordinates. Let g ∈ Z[x] be primitive with leading coefficient > 0,
      irreducible over Q, of degree ≥ 2, and let lo < hi be rationals such that (lo, hi]
      holds exactly one real root α of g. Then g has no rational root (an irreducible
      polynomial of degree ≥ 2 has no linear factor), every root is simple
      (gcd(g, g') = 1: g' ≠ 0 has lower degree and g is irreducible), so g changes sign at α
      and nowhere else in [lo, hi], and g(lo), g(hi), g(m) ≠ 0 at every rational m. Bisection
      keeps α ∈ (lo, hi): at m = (lo + hi)/2, sign g(m) = sign g(lo) means no sign change on
      [lo, m] — an odd number of simple roots in (lo, m) would flip it, and α is the only
      candidate — so α ∈ (m, hi); else α ∈ (lo, m). The ball arb(lo) ∪ arb(hi) contains
      [lo, hi] ∋ α (a ball is convex). Equality: the primitive minimal polynomial with
      positive leading coefficient is unique, so two such coordinates are equal iff their
      polynomials agree and the intersection (L, H] = (max lo, min hi] of their intervals
      holds a root (it is then the one root of each interval); as (L, H] lies inside the first
      interval, where g has exactly one root and it is simple, that holds iff g(L) and g(H)
      differ in sign. A rational is never equal to an algebraic number of degree ≥ 2.
  (b) Laplace CDF on a ball. F(x) = ½e^{εx} (x < 0), 1 − ½e^{−εx} (x ≥ 0) equals
      ½ + ½·sgn(x)·g(|x|), g(r) = 1 − e^{−εr} ∈ [0, 1) increasing in r ≥ 0. For a ball of
      positive (negative) points this is (1 + g)/2 ((1 − g)/2) evaluated in ball arithmetic.
      For a ball B ∋ 0 with R = max |B|: F is increasing, so F(B) ⊂ [F(−R), F(R)] =
      [½ − ½g(R), ½ + ½g(R)] ⊂ (1 + [−1, 1]·g(|B|))/2, as g(|B|) ∋ g(R).
  (c) Union probability. For boxes A_1..A_m, P[∪A_i] = Σ_{∅≠S} (−1)^{|S|+1} P[∩_{i∈S} A_i]
      (inclusion–exclusion); ∩_{i∈S} A_i = Π_d [max lo, min hi] and, the coordinates of w
      being independent (``proofs/sets_laplace_capacity.py``), its probability is
      Π_d max(0, F(min hi) − F(max lo)) (F increasing: the difference is ≤ 0 exactly when
      the interval is empty or a point). max, min and max(0, ·) of balls enclose the max,
      min and max(0, ·) of their members, so the ball sum encloses the probability. The
      depth-first walk visits every nonempty S once (indices increasing) with sign
      (−1)^{|S|+1}.
  (d) d_H(X, Y) = max(max_{x} min_{y} d(x, y), max_{y} min_{x} d(x, y)), so the balls'
      max/min enclose it; every ℓp distance is a continuous function of the coordinates
      evaluated in ball arithmetic; diam of a union of boxes as ``region_diameter``.

This script checks (a) by bisecting random irreducible polynomials' isolating intervals with
the kernel's function and comparing with mpmath roots at 50 digits, and the equality test on
equal and distinct pairs; (b) symbolically and on sample points of straddling balls; (c) by
comparing the kernel's ball with the exact capacity of ``exactdp.kernel.sets.capacity`` on
random rational instances and counting the walk's subsets; (d) against exact rational
Hausdorff distances. Exits non-zero if a step fails.
"""

from __future__ import annotations

import random
import sys
from fractions import Fraction

import mpmath
import sympy
from flint import arb, fmpq

from exactdp.arithmetic.ball import workprec
from exactdp.arithmetic.interval import Enclosure
from exactdp.kernel.sets import capacity
from exactdp.kernel.sets_real import _hausdorff, _same, coordinate_ball, laplace_cdf_ball, union_probability_ball

PROVES = [
    "exactdp.kernel.sets_real.coordinate_ball",
    "exactdp.kernel.sets_real._same",
    "exactdp.kernel.sets_real.laplace_cdf_ball",
    "exactdp.kernel.sets_real.union_probability_ball",
]

FAILURES: list[str] = []
x = sympy.Symbol("x")


def check(ok: bool, what: str) -> None:
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        FAILURES.append(what)


def _root(coeffs: list[int], lo: sympy.Rational, hi: sympy.Rational) -> mpmath.mpf:
    """The root of the polynomial in (lo, hi), at 50 digits."""
    with mpmath.workdps(50):
        return mpmath.findroot(lambda v: mpmath.polyval(coeffs, v), (mpmath.mpf(lo), mpmath.mpf(hi)),
                               solver="anderson")


def _isolated(rng: random.Random) -> list[tuple[tuple[int, ...], Enclosure, mpmath.mpf]]:
    """(minimal polynomial, isolating interval, 50-digit root) of random real algebraic numbers."""
    out = []
    while len(out) < 40:
        deg = rng.randint(2, 5)
        coeffs = [rng.randint(1, 9)] + [rng.randint(-20, 20) for _ in range(deg)]
        poly = sympy.Poly(coeffs, x)
        if not poly.is_irreducible or sympy.gcd_list(coeffs) != 1:
            continue
        for (lo, hi), _ in poly.intervals():
            if lo == hi:
                continue
            root = _root(coeffs, lo, hi)
            out.append((tuple(coeffs), Enclosure(Fraction(int(lo.p), int(lo.q)), Fraction(int(hi.p), int(hi.q))),
                        root))
    return out


def main() -> None:
    rng = random.Random(20261202)
    cases = _isolated(rng)
    ok_a = True
    for coeffs, iv, root in cases:
        with workprec(160), mpmath.workdps(50):
            ball = coordinate_ball((coeffs, iv), 160)
            mid, rad = mpmath.mpf(ball.mid().str(60, radius=False)), mpmath.mpf(ball.rad().str(5, radius=False))
            ok_a &= abs(mid - root) <= rad + mpmath.mpf(10) ** -45 and rad < mpmath.mpf(2) ** -150
    check(ok_a, f"(a) bisected balls contain the 50-digit root, radius < 2^-150 ({len(cases)} numbers)")
    ok_eq = True
    for coeffs, iv, root in cases:
        m = (iv.lo + iv.hi) / 2
        inner, outer = ((Enclosure(iv.lo, m), Enclosure(m, iv.hi)) if root < mpmath.mpf(m.numerator) / m.denominator
                        else (Enclosure(m, iv.hi), Enclosure(iv.lo, m)))
        ok_eq &= _same((coeffs, iv), (coeffs, inner)) and not _same((coeffs, iv), (coeffs, outer))
        others = [(c, v) for c, v, _ in cases if (c, v) != (coeffs, iv)]
        ok_eq &= not any(_same((coeffs, iv), o) for o in others if o[0] != coeffs or o[1].hi <= iv.lo
                         or o[1].lo >= iv.hi)
        ok_eq &= not _same((coeffs, iv), Fraction(1, 3))
    check(ok_eq, "(a) equality: same number recognised, different polynomials / disjoint intervals not")
    e = sympy.Symbol("epsilon", positive=True)
    r = sympy.Symbol("r", positive=True)
    g = 1 - sympy.exp(-e * r)
    check(sympy.simplify((1 + g) / 2 - (1 - sympy.exp(-e * r) / 2)) == 0
          and sympy.simplify((1 - g) / 2 - sympy.exp(e * (-r)) / 2) == 0, "(b) F = (1 ± g(|x|))/2 on each side")
    ok_b = True
    for _ in range(200):
        mid, rad, eps = rng.uniform(-3, 3), rng.uniform(0, 2), rng.uniform(0.1, 5)
        with workprec(64):
            ball = laplace_cdf_ball(arb(mid, rad), arb(eps))
        for k in range(11):
            v = mid - rad + 2 * rad * k / 10
            f = 0.5 * mpmath.e ** (eps * v) if v < 0 else 1 - 0.5 * mpmath.e ** (-eps * v)
            ok_b &= bool(ball.overlaps(arb(float(f), 1e-12)))
    check(ok_b, "(b) the CDF ball contains F at sample points of 200 balls")
    ok_c, calls = True, 0
    for _ in range(30):
        n = rng.randint(1, 2)
        X = [tuple(Fraction(rng.randint(-8, 8), 4) for _ in range(n)) for _ in range(rng.randint(1, 3))]
        K = []
        for _ in range(rng.randint(1, 2)):
            lo = tuple(Fraction(rng.randint(-8, 8), 4) for _ in range(n))
            K.append((lo, tuple(v + Fraction(rng.randint(1, 6), 4) for v in lo)))
        X = sorted(set(X))
        exact = capacity(X, K)
        with workprec(200):
            eps = arb(fmpq(3, 2))
            ball = union_probability_ball([[arb(fmpq(c.numerator, c.denominator)) for c in p] for p in X], K, eps)
            value = sum((arb(fmpq(c.numerator, c.denominator)) * (-eps * arb(fmpq(r.numerator, r.denominator))).exp()
                         for r, c in exact.items()), arb(0))
        ok_c &= bool(ball.overlaps(value)) and ball.rad() < arb(2) ** -150
        calls += 1
    check(ok_c and calls == 30, "(c) inclusion–exclusion balls equal the exact capacity on 30 instances")
    ok_d = True
    for _ in range(50):
        X = [(Fraction(rng.randint(-9, 9), 3),) for _ in range(rng.randint(1, 4))]
        Y = [(Fraction(rng.randint(-9, 9), 3),) for _ in range(rng.randint(1, 4))]
        truth = max(max(min(abs(a[0] - b[0]) for b in Y) for a in X), max(min(abs(a[0] - b[0]) for a in X) for b in Y))
        with workprec(100):
            ball = _hausdorff([[arb(fmpq(p[0].numerator, p[0].denominator))] for p in X],
                              [[arb(fmpq(p[0].numerator, p[0].denominator))] for p in Y], "l1")
            ok_d &= bool(ball.overlaps(arb(fmpq(truth.numerator, truth.denominator))))
    check(ok_d, "(d) d_H balls contain the exact Hausdorff distance (50 instances)")
    if FAILURES:
        sys.exit(1)
    print("all steps verified")


if __name__ == "__main__":
    main()
