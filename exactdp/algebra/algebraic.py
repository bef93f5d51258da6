"""Real algebraic numbers: a minimal polynomial and an isolating interval.

An :class:`AlgebraicNumber` is the unique root of an irreducible, primitive integer
polynomial (constant term first, positive leading coefficient) in an isolating
interval with rational endpoints. Rational numbers have a degree-one polynomial and a
degenerate interval ``(r, r)``.

Roots are found by :func:`real_roots_between`: factor over Z (``fmpz_poly.factor``),
isolate the roots of every irreducible factor with flint's certified complex root
isolation (real roots come back with an exactly zero imaginary part), then shrink the
intervals by exact bisection (sign of the polynomial at rational points). Floats are
never used to locate a root.

:meth:`AlgebraicNumber.verify` re-checks the claim independently: irreducibility by a
fresh factorisation, one sign change across the interval, and *exactly one* root inside
by Descartes' rule of signs on the Möbius transform (bisecting when the count is not
yet conclusive), so the check does not reuse flint's root isolation.

Examples
--------
>>> r = real_roots_between([-2, 0, 1], Fraction(0), Fraction(2))
>>> [(a.minimal_polynomial, m) for a, m in r]
[((-2, 0, 1), 1)]
>>> a = r[0][0].refine(Fraction(1, 10**6))
>>> a.verify(), float(a)
(True, 1.414213...)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import flint
import sympy
from flint import arb, fmpq, fmpq_poly, fmpz_poly

from exactdp.arithmetic.ball import arb_to_fraction_interval, workprec
from exactdp.arithmetic.rationals import to_fmpq, to_fraction, to_sympy
from exactdp.arithmetic.validate import read_tol
from exactdp.errors import InvalidArgument

__all__ = [
    "S_SYMBOL",
    "lowest_sign",
    "AlgebraicNumber",
    "real_roots_between",
    "poly_sign_at",
    "descartes_root_count",
    "count_roots_between",
    "log_enclosure",
    "isolate_roots_01",
    "irreducible_roots_between",
    "primitive_positive",
    "separate_roots",
]


#: The variable of threshold polynomials: s = e^{-ε/q} (positive real).
S_SYMBOL = sympy.Symbol("s", positive=True)


def poly_sign_at(poly: fmpz_poly, x: Fraction) -> int:
    """Exact sign (-1, 0, 1) of an integer polynomial at a rational point.

    >>> poly_sign_at(fmpz_poly([-2, 0, 1]), Fraction(3, 2))
    1
    """
    v = poly(to_fmpq(x))
    return (v > 0) - (v < 0)


def _variations(coeffs: list[Any]) -> int:
    signs = [c > 0 for c in coeffs if c != 0]
    return sum(1 for a, b in zip(signs, signs[1:]) if a != b)


def descartes_root_count(poly: fmpz_poly, lo: Fraction, hi: Fraction) -> int:
    """Descartes' bound for the roots of ``poly`` in the open interval (lo, hi).

    The count of sign variations of (1+x)^d·f((lo + hi·x)/(1 + x)) bounds the number
    of roots in (lo, hi) from above and has the same parity; 0 or 1 is exact.

    >>> descartes_root_count(fmpz_poly([-2, 0, 1]), Fraction(1), Fraction(2))
    1
    """
    d = poly.degree()
    f = fmpq_poly(poly)
    # f(lo + (hi - lo) y) maps (0, 1) to (lo, hi); then y = 1/(1 + x)
    g = f(fmpq_poly([to_fmpq(lo), to_fmpq(hi - lo)]))
    coeffs = g.coeffs() + [fmpq(0)] * (d + 1 - len(g.coeffs()))
    rev = fmpq_poly(list(reversed(coeffs)))
    h = rev(fmpq_poly([1, 1]))
    return _variations(h.coeffs())


def count_roots_between(poly: fmpz_poly, lo: Fraction, hi: Fraction, depth: int = 0) -> int:
    """Exact number of distinct roots of a *squarefree* ``poly`` in the open interval (lo, hi).

    Descartes' rule with bisection (Vincent–Collins–Akritas); a rational midpoint that is
    itself a root is counted.

    >>> count_roots_between(fmpz_poly([-2, 0, 1]), Fraction(-2), Fraction(2))
    2
    """
    v = descartes_root_count(poly, lo, hi)
    if v <= 1:
        return v
    if depth > 200:
        raise InvalidArgument("root counting did not terminate; is the polynomial squarefree?")
    mid = (lo + hi) / 2
    at_mid = 1 if poly_sign_at(poly, mid) == 0 else 0
    return (
        count_roots_between(poly, lo, mid, depth + 1)
        + at_mid
        + count_roots_between(poly, mid, hi, depth + 1)
    )


def primitive_positive(poly: fmpz_poly) -> fmpz_poly:
    """``poly`` divided by its content, with a positive leading coefficient.

    >>> primitive_positive(fmpz_poly([4, -6]))
    3*x + (-2)
    """
    c = poly.content()
    p = poly / c if c != 0 else poly
    p = fmpz_poly(p) if not isinstance(p, fmpz_poly) else p
    if p.leading_coefficient() < 0:
        p = -p
    return p


@dataclass(frozen=True)
class AlgebraicNumber:
    """The unique real root of ``minimal_polynomial`` in ``isolating_interval``.

    Attributes
    ----------
    minimal_polynomial : tuple of int
        Integer coefficients, **constant term first** (flint's order; the reverse of
        sympy/numpy); primitive, positive leading coefficient, irreducible over Q.
        :meth:`minimal_poly` gives it as a ``sympy.Poly`` (descending order).
    isolating_interval : tuple of Fraction
        ``(lo, hi)``: the root is the only root in the open interval (lo, hi), or
        ``lo == hi`` is the (rational) root itself.

    Examples
    --------
    >>> a = AlgebraicNumber((-2, 0, 1), (Fraction(1), Fraction(2)))
    >>> a.verify(), a.degree
    (True, 2)
    >>> a.compare(Fraction(7, 5)), a.compare(Fraction(3, 2))
    (1, -1)
    """

    minimal_polynomial: tuple[int, ...]
    isolating_interval: tuple[Fraction, Fraction]

    # -- construction -------------------------------------------------------------
    @staticmethod
    def from_rational(value: Any) -> AlgebraicNumber:
        """The rational ``value`` as an algebraic number of degree 1.

        >>> AlgebraicNumber.from_rational("3/4").minimal_polynomial
        (-3, 4)
        """
        r = to_fraction(value, "value")
        return AlgebraicNumber((-r.numerator, r.denominator), (r, r))

    @property
    def poly(self) -> fmpz_poly:
        """The minimal polynomial as ``flint.fmpz_poly``."""
        return fmpz_poly(list(self.minimal_polynomial))

    @property
    def degree(self) -> int:
        return len(self.minimal_polynomial) - 1

    @property
    def is_rational(self) -> bool:
        return self.degree == 1

    @property
    def width(self) -> Fraction:
        lo, hi = self.isolating_interval
        return hi - lo

    def as_fraction(self) -> Fraction:
        """The exact value when rational (degree 1)."""
        if not self.is_rational:
            raise InvalidArgument(f"{self} is irrational (degree {self.degree}).")
        c0, c1 = self.minimal_polynomial
        return Fraction(-c0, c1)

    # -- closed forms ----------------------------------------------------------------
    def minimal_poly(self, var: sympy.Symbol = S_SYMBOL) -> sympy.Poly:
        """The minimal polynomial as a ``sympy.Poly`` over ZZ (descending order, as sympy).

        >>> AlgebraicNumber((-1, 1, 1), (Fraction(1, 2), Fraction(1))).minimal_poly()
        Poly(s**2 + s - 1, s, domain='ZZ')
        """
        return sympy.Poly(list(reversed(self.minimal_polynomial)), var, domain="ZZ")

    def real_root_index(self) -> int:
        """How many real roots of the minimal polynomial lie below this one (exact count).

        This is the index of the number among the real roots in increasing order, the
        index ``sympy.CRootOf`` uses for real roots.

        >>> AlgebraicNumber((-2, 0, 1), (Fraction(1), Fraction(2))).real_root_index()
        1
        """
        if self.is_rational:
            return 0
        c = self.minimal_polynomial
        bound = 1 + max(Fraction(abs(x), c[-1]) for x in c[:-1])  # Cauchy: every root |r| < bound
        lo = self.isolating_interval[0]  # not a root: an irrational number has lo < root < hi
        return count_roots_between(self.poly, -bound, lo)

    def as_sympy(self) -> sympy.Expr:
        """The exact number as a sympy expression, the root selected unambiguously.

        Rational: a ``Rational``; degree 2: radicals (the smaller or larger root by
        :meth:`real_root_index`, exact); higher degree: ``sympy.CRootOf(poly, index)``.

        >>> AlgebraicNumber((-1, 1, 1), (Fraction(1, 2), Fraction(1))).as_sympy()
        -1/2 + sqrt(5)/2
        >>> AlgebraicNumber((-2, 0, 0, 1), (Fraction(1), Fraction(2))).as_sympy()
        CRootOf(s**3 - 2, 0)
        """
        if self.is_rational:
            return to_sympy(self.as_fraction())
        k = self.real_root_index()
        if self.degree == 2:
            c, b, a = (sympy.Integer(x) for x in self.minimal_polynomial)
            sign = 1 if k == 1 else -1  # a > 0: index 0 is the smaller root
            return sympy.expand((-b + sign * sympy.sqrt(b * b - 4 * a * c)) / (2 * a))
        return sympy.CRootOf(self.minimal_poly(), k)

    def latex(self) -> str:
        """LaTeX of :meth:`as_sympy` (``sympy.latex``).

        >>> print(AlgebraicNumber((-1, 1, 1), (Fraction(1, 2), Fraction(1))).latex())
        - \\frac{1}{2} + \\frac{\\sqrt{5}}{2}
        """
        return str(sympy.latex(self.as_sympy()))

    # -- refinement and comparison ---------------------------------------------------
    def refine(self, tol: Any) -> AlgebraicNumber:
        """A copy whose isolating interval has width ≤ ``tol`` (exact bisection).

        >>> a = AlgebraicNumber((-2, 0, 1), (Fraction(1), Fraction(2))).refine(Fraction(1, 100))
        >>> a.width <= Fraction(1, 100), a.verify()
        (True, True)
        """
        tol_q = read_tol(tol)
        lo, hi = self.isolating_interval
        if self.is_rational:
            r = self.as_fraction()
            return AlgebraicNumber(self.minimal_polynomial, (r, r))
        f = self.poly
        s_lo = poly_sign_at(f, lo)
        while hi - lo > tol_q:
            # split at a short dyadic-ish point near the middle to keep denominators small
            mid = _simple_between(lo + (hi - lo) / 4, hi - (hi - lo) / 4)
            s = poly_sign_at(f, mid)
            if s == 0:  # impossible for irreducible degree ≥ 2, kept for safety
                return AlgebraicNumber(self.minimal_polynomial, (mid, mid))
            if s == s_lo:
                lo = mid
            else:
                hi = mid
        return AlgebraicNumber(self.minimal_polynomial, (lo, hi))

    def compare(self, x: Any) -> int:
        """Exact sign of (self − x) for a rational x.

        >>> AlgebraicNumber.from_rational(1).compare(1)
        0
        """
        r = to_fraction(x, "x")
        if self.is_rational:
            v = self.as_fraction()
            return (v > r) - (v < r)
        a = self
        while True:
            lo, hi = a.isolating_interval
            if r <= lo:
                return 1
            if r >= hi:
                return -1
            # r strictly inside: compare signs
            f = a.poly
            s_r, s_lo = poly_sign_at(f, r), poly_sign_at(f, lo)
            if s_r == 0:
                return 0
            return 1 if s_r == s_lo else -1

    def ball(self, prec: int = 64) -> arb:
        """A ball containing the number (refined to about ``prec`` bits first)."""
        a = self.refine(Fraction(1, 2 ** (prec + 2)))
        lo, hi = a.isolating_interval
        with workprec(prec + 20):
            return arb.union(arb(to_fmpq(lo)), arb(to_fmpq(hi)))

    def __float__(self) -> float:
        lo, hi = self.refine(Fraction(1, 2**60)).isolating_interval
        return float((lo + hi) / 2)

    def __str__(self) -> str:
        if self.is_rational:
            return str(self.as_fraction())
        lo, hi = self.isolating_interval
        return f"root of {self.minimal_poly().as_expr()} in ({lo}, {hi}) ≈ {float(self):.15g}"

    def to_json(self) -> dict[str, Any]:
        """Exact JSON: integer coefficients as strings, interval endpoints as "p/q"."""
        lo, hi = self.isolating_interval
        return {
            "minimal_polynomial": [str(c) for c in self.minimal_polynomial],
            "isolating_interval": [str(lo), str(hi)],
            "approx": float(self),
        }

    # -- verification ---------------------------------------------------------------
    def verify(self) -> bool:
        """Independently re-check every claim (irreducible, primitive, one root inside)."""
        c = self.minimal_polynomial
        if len(c) < 2 or not all(isinstance(x, int) for x in c) or c[-1] <= 0:
            return False
        if math.gcd(*c) != 1:
            return False
        f = self.poly
        lo, hi = self.isolating_interval
        if not (isinstance(lo, Fraction) and isinstance(hi, Fraction)) or lo > hi:
            return False
        if len(c) == 2:
            r = Fraction(-c[0], c[1])
            return lo <= r <= hi if lo < hi else r == lo
        if lo == hi:
            return False  # an irrational number has no degenerate interval
        _, factors = f.factor()
        if len(factors) != 1 or factors[0][1] != 1 or factors[0][0].degree() != f.degree():
            return False
        s_lo, s_hi = poly_sign_at(f, lo), poly_sign_at(f, hi)
        if s_lo * s_hi >= 0:
            return False
        return count_roots_between(f, lo, hi) == 1


def _simple_between(a: Fraction, b: Fraction) -> Fraction:
    """A dyadic rational in [a, b] with a short denominator."""
    if a > b:
        a, b = b, a
    w = b - a
    if w == 0:
        return a
    k = max(0, w.denominator.bit_length() - w.numerator.bit_length() + 1)
    while True:
        num = -((-a.numerator * 2**k) // a.denominator)  # ceil(a * 2^k)
        cand = Fraction(num, 2**k)
        if cand <= b:
            return cand
        k += 1


def real_roots_between(
    poly: Any, lo: Fraction, hi: Fraction
) -> list[tuple[AlgebraicNumber, int]]:
    """Distinct real roots of an integer polynomial in the open interval (lo, hi).

    Parameters
    ----------
    poly : fmpz_poly or sequence of int
        Coefficients constant term first.
    lo, hi : Fraction
        The open interval searched.

    Returns
    -------
    list of (AlgebraicNumber, multiplicity), sorted increasingly.

    Examples
    --------
    >>> f = fmpz_poly([1, -3, 1]) * fmpz_poly([-1, 2]) ** 2
    >>> [(str(a), m) for a, m in real_roots_between(f, Fraction(0), Fraction(1))]
    [('root of s**2 - 3*s + 1 in (3/8, 13/32) ≈ 0.381966011250105', 1), ('1/2', 2)]
    """
    f = poly if isinstance(poly, fmpz_poly) else fmpz_poly([int(c) for c in poly])
    if f.is_zero():
        raise InvalidArgument("the zero polynomial has every number as a root")
    lo, hi = Fraction(lo), Fraction(hi)
    out: list[tuple[AlgebraicNumber, int]] = []
    if f.degree() <= 0:
        return out
    _, factors = f.factor()
    for g, mult in factors:
        for num in irreducible_roots_between(g, lo, hi):
            out.append((num, int(mult)))
    out.sort(key=lambda am: _sort_key(am[0]))
    separate_roots(out)
    return out


def _snap(a: AlgebraicNumber) -> AlgebraicNumber:
    """Replace ball-derived endpoints by short dyadics when that stays isolating."""
    lo, hi = a.isolating_interval
    w = hi - lo
    if w <= 0:
        return a
    k_max = max(0, -math.floor(math.log2(w)) + 2)
    f = a.poly
    k = 4
    while k < k_max:
        lo2 = Fraction(math.floor(lo * 2**k), 2**k)
        hi2 = Fraction(math.ceil(hi * 2**k), 2**k)
        if poly_sign_at(f, lo2) * poly_sign_at(f, hi2) < 0 and count_roots_between(
            f, lo2, hi2
        ) == 1:
            return AlgebraicNumber(a.minimal_polynomial, (lo2, hi2))
        k *= 2
    return a


_X_PLUS_1 = fmpz_poly([1, 1])


def _var01(p: fmpz_poly) -> int:
    """Descartes' bound for roots in (0, 1): variations of (x+1)^d p(1/(x+1))."""
    d = p.degree()
    c = p.coeffs()
    c = c + [flint.fmpz(0)] * (d + 1 - len(c))
    return _variations(fmpz_poly(list(reversed(c)))(_X_PLUS_1).coeffs())


def isolate_roots_01(p: fmpz_poly) -> list[tuple[Fraction, Fraction]]:
    """Isolating intervals of the roots in (0, 1) of a squarefree integer polynomial.

    Vincent–Collins–Akritas bisection with exact integer Taylor shifts: each returned
    (a, b) is either a degenerate interval (a rational root) or an open interval with
    exactly one root (Descartes count 1). Dyadic endpoints.

    >>> isolate_roots_01(fmpz_poly([1, -3, 1]) * fmpz_poly([-1, 2]))
    [(Fraction(0, 1), Fraction(1, 2)), (Fraction(1, 2), Fraction(1, 2))]
    """
    out: list[tuple[Fraction, Fraction]] = []
    stack: list[tuple[fmpz_poly, Fraction, Fraction]] = [(p, Fraction(0), Fraction(1))]
    while stack:
        q, a, w = stack.pop()
        if q.degree() <= 0:
            continue
        v = _var01(q)
        if v == 0:
            continue
        if v == 1:
            out.append((a, a + w))
            continue
        d = q.degree()
        c = q.coeffs()
        left = fmpz_poly([ci * 2 ** (d - i) for i, ci in enumerate(c)])  # 2^d q(x/2)
        right = left(_X_PLUS_1)  # 2^d q((x+1)/2)
        if right.coeffs()[0] == 0:
            out.append((a + w / 2, a + w / 2))
            right = fmpz_poly(right.coeffs()[1:])
        stack.append((right, a + w / 2, w / 2))
        stack.append((left, a, w / 2))
    out.sort()
    # the open interval of a root can touch a rational root's point: fine (disjoint as sets)
    return out


def irreducible_roots_between(g: fmpz_poly, lo: Fraction, hi: Fraction) -> list[AlgebraicNumber]:
    """Roots in the open interval (lo, hi) of an *irreducible* integer polynomial."""
    g = primitive_positive(g)
    coeffs = tuple(int(x) for x in g.coeffs())
    out: list[AlgebraicNumber] = []
    if g.degree() == 1:
        r = Fraction(-coeffs[0], coeffs[1])
        if lo < r < hi:
            out.append(AlgebraicNumber(coeffs, (r, r)))
        return out
    if lo == 0 and hi == 1:
        h = g
    else:
        hq = fmpq_poly(g)(fmpq_poly([to_fmpq(lo), to_fmpq(hi - lo)]))
        h = hq.numer()
    w = hi - lo
    for a, b in isolate_roots_01(h):
        ia, ib = lo + w * a, lo + w * b
        if ia == ib:  # a rational root of an irreducible polynomial of degree ≥ 2: impossible
            continue
        out.append(AlgebraicNumber(coeffs, (ia, ib)))
    return out


def _sort_key(a: AlgebraicNumber) -> Fraction:
    lo, hi = a.isolating_interval
    return (lo + hi) / 2


def separate_roots(items: list[tuple[AlgebraicNumber, int]]) -> None:
    """Refine neighbouring intervals until they are disjoint (distinct roots), in place.

    ``items`` are (root, multiplicity) pairs sorted by the midpoints of their intervals.
    """
    changed = True
    while changed:
        changed = False
        for k in range(len(items) - 1):
            a, ma = items[k]
            b, mb = items[k + 1]
            if a.isolating_interval[1] > b.isolating_interval[0] or (
                a.isolating_interval[1] == b.isolating_interval[0]
                and not (a.is_rational and b.is_rational)
            ):
                items[k] = (a.refine(max(a.width / 4, Fraction(1, 2**2000))), ma)
                items[k + 1] = (b.refine(max(b.width / 4, Fraction(1, 2**2000))), mb)
                changed = True
        items.sort(key=lambda am: _sort_key(am[0]))


def log_enclosure(
    x_lo: Fraction, x_hi: Fraction, scale: Fraction = Fraction(-1), prec: int = 128
) -> tuple[Fraction, Fraction]:
    """Rational bounds (a, b) with a ≤ scale·ln(x) ≤ b for every x in [x_lo, x_hi] (x > 0).

    Used to turn an enclosure of s = e^(-ε/q) into one of ε = -q·ln s.

    >>> a, b = log_enclosure(Fraction(1, 2), Fraction(1, 2))
    >>> Fraction(6931471805599453, 10**16) < a < b < Fraction(6931471805599454, 10**16)
    True
    """
    if x_lo <= 0 or x_hi < x_lo:
        raise InvalidArgument(f"need 0 < x_lo ≤ x_hi, got ({x_lo}, {x_hi})")
    with workprec(prec):
        lo_b = arb(to_fmpq(x_lo)).log() * arb(to_fmpq(scale))
        hi_b = arb(to_fmpq(x_hi)).log() * arb(to_fmpq(scale))
        a1, b1 = arb_to_fraction_interval(lo_b)
        a2, b2 = arb_to_fraction_interval(hi_b)
    return min(a1, a2), max(b1, b2)


def lowest_sign(p: fmpz_poly) -> int:
    """Sign of the lowest-order nonzero coefficient: the sign of p(s) as s → 0+ (0 for p = 0).

    >>> lowest_sign(fmpz_poly([0, -3, 1]))
    -1
    """
    for c in p.coeffs():
        if c != 0:
            return 1 if c > 0 else -1
    return 0
