"""The exact polynomial root and sign checks of threshold claims.

The exact root counting used by the threshold checks
(:mod:`exactdp.kernel.threshold`, :mod:`exactdp.kernel.threshold_structured`,
:mod:`exactdp.kernel.threshold_quotient`) and the real-set checks
(:mod:`exactdp.kernel.sets_real`): Sturm counts (:func:`count_roots`), Descartes' rule with
bisection on (0, 1) (:func:`roots_01`), "no root in (0, b]" (:func:`no_root_upto`), sign runs of
N_k/D (:func:`sign_run_ok`), minimal polynomials (:func:`min_poly_ok`) and the rational
enclosure of s = e^{-ε/q} (:func:`s_enclosure`). It imports only the claim frame
(:mod:`exactdp.kernel.threshold_claim`, re-exported here), so a kind that needs only these
does not pull in the linear-system, SPD or cover checks.

Examples
--------
>>> count_roots(flint.fmpz_poly([-2, 0, 1]), Fraction(0), Fraction(2))  # √2 in (0, 2]
1
>>> no_root_upto(flint.fmpz_poly([-1, 2]), Fraction(1, 2))  # the root 1/2 is the end b
False
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import flint

from exactdp.arithmetic.ball import arb_to_fraction_interval, workprec
from exactdp.arithmetic.rationals import to_fmpq
from exactdp.errors import InvalidArgument
from exactdp.kernel.threshold_claim import ThresholdClaim, frame_ok, guarded, is_index

__all__ = ["ThresholdClaim", "guarded", "frame_ok", "is_index", "int_poly", "sqfree", "count_roots",
           "sign_at", "lowest_sign", "strip", "odd_part", "min_poly_ok", "roots_01", "roots_01_within",
           "scaled_poly", "no_root_upto", "sign_run_ok", "s_enclosure", "S_EXACT_LIMIT",
           "CHECK_PRECISIONS"]


#: Precisions (bits) at which e^{-ε/q} is enclosed, in turn, until a side is proved.
CHECK_PRECISIONS = (128, 512, 2048, 8192)
#: Beyond eps/q > this, :func:`s_enclosure` encloses s = e^{-eps/q} by [0, e^{-4096}]
#: (e^{-4096} < 2^{-5909}) instead of by exact ends with ~1.44·eps/q bits.
S_EXACT_LIMIT = Fraction(4096)


def int_poly(coeffs: Any) -> flint.fmpz_poly:
    """An integer polynomial from descending coefficients ((0,) is zero); raises
    InvalidArgument (read as "not proved") for anything else, a leading 0 included."""
    if (not isinstance(coeffs, tuple) or not coeffs or (coeffs[0] == 0 and len(coeffs) > 1)
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in coeffs)):
        raise InvalidArgument("a polynomial is a nonempty tuple of int coefficients, the first nonzero.")
    return flint.fmpz_poly(list(reversed(coeffs)))


# ------------------------------------------------------------------- exact root counting
def sqfree(p: flint.fmpz_poly) -> flint.fmpz_poly:
    """The squarefree part: the same real roots, each simple (p ≠ 0)."""
    return p if p.degree() < 1 else p // p.gcd(p.derivative())


def _changes(values: Any) -> int:
    """Sign changes of a sequence (zeros skipped)."""
    s = [v > 0 for v in values if v != 0]
    return sum(x != y for x, y in zip(s, s[1:]))


def count_roots(p: flint.fmpz_poly, a: Fraction, b: Fraction) -> int:
    """The number of distinct real roots of p ≠ 0 in (a, b], a < b (Sturm's theorem,
    V(a) − V(b) for the Sturm sequence p, p', −rem(p, p'), … of the squarefree part; exact)."""
    if p.degree() < 0 or not a < b:
        raise InvalidArgument(f"count_roots needs p ≠ 0 and a < b; got p = {p}, (a, b] = "
                              f"({a}, {b}]: pass a nonzero polynomial and a proper interval.")
    sq = sqfree(p)
    if sq.degree() < 1:
        return 0
    seq = [flint.fmpq_poly(sq), flint.fmpq_poly(sq.derivative())]
    while seq[-1].degree() > 0:
        seq.append(-(seq[-2] % seq[-1]))
    return _changes([s(to_fmpq(a)) for s in seq]) - _changes([s(to_fmpq(b)) for s in seq])


def sign_at(p: flint.fmpz_poly, x: Fraction) -> int:
    v = p(to_fmpq(x))
    return (v > 0) - (v < 0)


def lowest_sign(p: flint.fmpz_poly) -> int:
    """The sign of p(s) as s → 0+ (its lowest nonzero coefficient; 0 for p = 0)."""
    return next(((1 if c > 0 else -1) for c in p.coeffs() if c != 0), 0)


def strip(p: flint.fmpz_poly, g: flint.fmpz_poly) -> tuple[int, flint.fmpz_poly]:
    """(k, P) with p = g^k·P and g ∤ P (p ≠ 0, deg g ≥ 1)."""
    k = 0
    while p.degree() >= g.degree():
        quo, rem = divmod(p, g)
        if rem.degree() >= 0:
            break
        p, k = quo, k + 1
    return k, p


def odd_part(p: flint.fmpz_poly) -> flint.fmpz_poly:
    """The product of p's squarefree factors of odd multiplicity (where p changes sign)."""
    out = flint.fmpz_poly([1])
    for g, e in p.factor_squarefree()[1]:
        if int(e) % 2:
            out *= g
    return out


def min_poly_ok(g: flint.fmpz_poly) -> bool:
    """g is a minimal polynomial: degree ≥ 1, primitive, leading coefficient > 0,
    irreducible (flint factorisation)."""
    content, factors = g.factor()
    return bool(g.degree() >= 1 and content == 1 and factors == [(g, 1)])


_X_PLUS_1 = flint.fmpz_poly([1, 1])


def _var01(p: flint.fmpz_poly) -> int:
    """Descartes' bound on the roots in (0, 1): variations of (1+x)^d p(1/(1+x))."""
    return _changes(flint.fmpz_poly(p.coeffs()[::-1])(_X_PLUS_1).coeffs())


def roots_01(p: flint.fmpz_poly) -> int:
    """The exact number of distinct roots of p ≠ 0 in (0, 1) (squarefree part, Descartes +
    bisection: a count of 0 or 1 is exact).

    >>> roots_01(flint.fmpz_poly([1, -4, 4, 0]) * flint.fmpz_poly([-1, 3]))  # 1/3, 1/2 (double)
    2
    """
    count = roots_01_within(p, None)
    assert count is not None  # no budget: the bisection runs to the end (Vincent's theorem)
    return count


def roots_01_within(p: flint.fmpz_poly, budget: int | None) -> int | None:
    """:func:`roots_01`, or None once more than ``budget`` pieces were bisected (None: no
    limit). Each piece of (0, 1) whose Descartes bound is 0 or 1 holds exactly that many
    roots of the squarefree part, so a count returned is exact."""
    if p.degree() < 1:
        return 0
    total, stack = 0, [sqfree(p)]
    while stack:
        if budget is not None:
            if budget < 0:
                return None
            budget -= 1
        q = stack.pop()
        if q.degree() < 1:
            continue
        v = _var01(q)
        if v <= 1:
            total += v
            continue
        d = q.degree()
        left = flint.fmpz_poly([ci * 2 ** (d - i) for i, ci in enumerate(q.coeffs())])
        right = left(_X_PLUS_1)
        if right.coeffs()[0] == 0:  # the midpoint is a root
            total += 1
            right = flint.fmpz_poly(right.coeffs()[1:])
        stack += [left, right]
    return total


def scaled_poly(p: flint.fmpz_poly, b: Fraction) -> flint.fmpz_poly:
    """den^d·p(b·y): its roots in (0, 1) are p's roots in (0, b) divided by b (b > 0).

    p(num·y) has the coefficients c_k·num^k; reversed (position d − k), composed with den·y
    and reversed back, c_k·num^k·den^{d−k}.
    """
    d = p.degree()
    rev = flint.fmpz_poly(p(flint.fmpz_poly([0, b.numerator])).coeffs()[::-1])(flint.fmpz_poly([0, b.denominator]))
    c = rev.coeffs()
    return flint.fmpz_poly((c + [0] * (d + 1 - len(c)))[::-1])


def no_root_upto(p: flint.fmpz_poly, b: Fraction, closed: bool = True, budget: int | None = None) -> bool:
    """p has no root in (0, b] (``closed``) or in (0, b), b > 0; False for p = 0.

    Descartes' rule with bisection: the roots of p in (0, b) are b times the roots in
    (0, 1) of the integer polynomial den(b)^d·p(b·y) (:func:`scaled_poly`), which
    :func:`roots_01_within` counts exactly (a piece whose sign-variation bound is 0 or 1
    holds exactly 0 or 1 root of the squarefree part — Descartes' bound exceeds the number
    of positive roots by an even number); b itself is decided by the exact sign p(b). Only
    when the bisection exceeds ``budget`` pieces (clustered roots; None: no limit) is the
    answer taken from the Sturm count, which is exact too, so the result is the same;
    Descartes avoids the Sturm sequence's remainder sequence over Q, whose coefficients
    grow fast with the degree (22–28 s at band(60, 3)).
    """
    if p.degree() < 1:
        return p.degree() >= 0
    at_b = sign_at(p, b) == 0
    if closed and at_b:
        return False
    sp = scaled_poly(p, b)
    count = 0 if _var01(sp) == 0 else roots_01_within(sp, budget)  # Descartes' bound 0: no root
    return (count_roots(p, Fraction(0), b) - at_b if count is None else count) == 0


def sign_run_ok(nums: Sequence[flint.fmpz_poly], den: flint.fmpz_poly, b: Fraction,
                closed: bool = True, g: flint.fmpz_poly | None = None, odd: bool = True,
                budget: int | None = None) -> bool:
    """Every z_k = N_k/D is ≥ 0 on (0, b] (``closed``) or (0, b): D has no root there;
    every nonzero N_k — with its powers of g taken out when g is given — has no root of
    odd multiplicity there (``odd``; else no root at all), and N_k/D > 0 as s → 0+."""
    if not no_root_upto(den, b, closed, budget):
        return False
    for p in {tuple(p.coeffs()): p for p in nums}.values():
        rest = p if g is None else strip(p, g)[1]
        if p.degree() >= 0 and (lowest_sign(p) * lowest_sign(den) <= 0
                       or not no_root_upto(odd_part(rest) if odd else rest, b, closed, budget)):
            return False
    return True


def s_enclosure(eps: Fraction, q: int, prec: int) -> tuple[Fraction, Fraction]:
    """A rational enclosure [lo, hi] of s = e^{-eps/q} (arb at ``prec`` bits, outward).

    When eps/q > :data:`S_EXACT_LIMIT` the enclosure is [0, h] with h ≥ e^{-S_EXACT_LIMIT}
    ≥ s (s is decreasing in eps): the exact ends of e^{-eps/q} would need about
    1.44·eps/q bits (a huge ε hung the checks, issue 11), and a polynomial with integer
    coefficients below 2^5900 has no root in (0, h], so nothing decidable is lost.

    >>> lo, hi = s_enclosure(Fraction(0), 1, 64)
    >>> lo == hi == 1
    True
    >>> lo, hi = s_enclosure(Fraction(10**1000), 1, 64)
    >>> lo == 0 < hi < Fraction(1, 2**5900)
    True
    """
    with workprec(prec):
        if Fraction(eps) / q > S_EXACT_LIMIT:
            return Fraction(0), arb_to_fraction_interval((-flint.arb(to_fmpq(S_EXACT_LIMIT))).exp())[1]
        return arb_to_fraction_interval((-flint.arb(to_fmpq(eps)) / q).exp())
