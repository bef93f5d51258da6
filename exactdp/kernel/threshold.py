"""The kernel's checks of threshold claims "ε* ∈ [lo, hi]" (where a property starts to hold for good).

ε* is the least ε such that Φ(ε')x = b has a solution x ≥ 0 for every ε' ≥ ε (b = 1:
tight constraints; b = a prior: regularity). A claim states the question (metric, b),
the enclosure [lo, hi] of ε* and the evidence; each check re-proves it from the metric's
exact distances with exact polynomial arithmetic (``flint.fmpz_poly``/``fmpq_poly``,
Sturm sequences) and arb enclosures of e^{-ε/q}; nothing is taken from a search result:

===================  ========================================================================
kind                 what is checked
===================  ========================================================================
exact                (polynomial case, s = e^{-ε/q}) Φ(s)N(s) = D(s)b over Q[s]; **holds on
                     [hi, ∞)**: D has no root in (0, s_hi] and no N_i changes sign there
                     (odd-multiplicity roots, Sturm counts), every N_i/D ≥ 0 as s → 0+;
                     **fails at lo > 0**: on a rational interval around s_lo = e^{-lo/q}
                     (with exact ends: a huge lo, enclosed by (0, h], is not proved),
                     N_w and D have no root and N_w/D < 0 (Φ(s_lo) is nonsingular: s_lo is
                     transcendental by Lindemann and det Φ(s) is an integer polynomial
                     with det Φ(0) = 1); **s\\*** (optional): its minimal polynomial g is
                     primitive and irreducible (flint factorisation), its isolating interval
                     holds exactly one root in (0, 1), g divides N_w to an odd power and not
                     D, and no other sign-change root of any N_i nor root of D lies in
                     (0, s*] — so the property holds on (0, s*] and fails just after:
                     ε* = −q·ln s* exactly (and then lo ≤ ε* ≤ hi follows)
prop9                every row of the distance matrix has the same multiset of distances
                     and b is constant > 0 (``proofs/prop9_ball_symmetric.py``): holds for
                     every ε, so the claim is [0, 0]
kronecker-threshold  d((a_k), (b_k)) = Σ_k d_k(a_k, b_k) for every pair, b = ⊗ b_k with
                     b_k ≥ 0 nonzero, every factor claim checked recursively; ε* = max_k
                     ε*_k (``proofs/threshold_lemmas.py``, Lemma 2; every Φ_k is
                     nonsingular at a rational lo > 0 as above): hi ≥ max_k hi_k and
                     lo = lo_b for the stated binding factor b
certified-cover      0 < lo < hi; **fails at lo**: the evidence's linear or spd-point claim is
                     about this metric (same exact distances), this b and ε = lo, says
                     "fails" and re-checks (:func:`~exactdp.kernel.threshold_spd.fail_side_ok`); **holds on
                     [hi, ∞)**: the perturbation lemma at t0 (exact row sums) covers
                     ε ≥ −ln t0 and the ranges cover [hi, −ln t0], each proved by the
                     mean-value Krawczyk argument in arb balls
                     (:mod:`exactdp.kernel.threshold_cover`)
spd-taylor-cover     the same frame; ranges proved by the SPD Taylor bound with λ_min
                     bounds re-proved exactly (:mod:`exactdp.kernel.threshold_spd`)
===================  ========================================================================

Examples
--------
>>> from exactdp.spaces.metrics import line
>>> count_roots(flint.fmpz_poly([-2, 0, 1]), Fraction(0), Fraction(2))  # √2 in (0, 2]
1
>>> check_threshold(ThresholdClaim("prop9", line(2), (Fraction(1),) * 2,
...                                Enclosure(Fraction(0), Fraction(0)), {}))
True
>>> check_threshold(ThresholdClaim("prop9", line(3), (Fraction(1),) * 3,
...                                Enclosure(Fraction(0), Fraction(0)), {}))
False
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import flint
import numpy as np

from exactdp.arithmetic.ball import arb_to_fraction_interval, workprec
from exactdp.arithmetic.interval import Enclosure
from exactdp.arithmetic.rationals import to_fmpq
from exactdp.errors import REJECTED_ERRORS, InvalidArgument
from exactdp.kernel.linear import identity_holds
from exactdp.kernel.metricio import factor_labels_ok
from exactdp.kernel.threshold_cover import arb_mean_value_check, cover_frame_ok
from exactdp.kernel.threshold_spd import SPD_COVER, check_spd_cover, fail_side_ok
from exactdp.spaces.metrics import FiniteMetric
from exactdp.spaces.metrics.claims import kronecker_claim_error

__all__ = ["ThresholdClaim", "THRESHOLD_KINDS", "check_threshold", "count_roots",
           "roots_01", "roots_01_within", "no_root_upto", "scaled_poly", "DESCARTES_BUDGET",
           "identity_holds", "s_enclosure", "CHECK_PRECISIONS", "MAX_BISECTIONS",
           "S_EXACT_LIMIT", "sign_at", "lowest_sign", "odd_part", "guarded", "frame_ok",
           "int_poly", "is_index", "strip", "min_poly_ok", "sign_run_ok"]

#: The kinds of claim this module checks (``CertificateKind`` values).
THRESHOLD_KINDS = ("exact", "prop9", "kronecker-threshold", "certified-cover", SPD_COVER)
#: Precisions (bits) at which e^{-ε/q} is enclosed, in turn, until a side is proved.
CHECK_PRECISIONS = (128, 512, 2048, 8192)
#: Most bisections of s*'s isolating interval when separating it from another root.
MAX_BISECTIONS = 512
#: Beyond eps/q > this, :func:`s_enclosure` encloses s = e^{-eps/q} by [0, e^{-4096}]
#: (e^{-4096} < 2^{-5909}) instead of by exact ends with ~1.44·eps/q bits.
S_EXACT_LIMIT = Fraction(4096)
#: Pieces :func:`no_root_upto` bisects with Descartes' rule before the exact check falls
#: back to Sturm (its ``budget``).
DESCARTES_BUDGET = 64


@dataclass(frozen=True)
class ThresholdClaim:
    """The claim ε* ∈ [eps.lo, eps.hi] about Φ(ε)x = rhs (rhs all ones: tight constraints).

    ``evidence`` per kind (module table): ``exact`` — ``numerators`` (tuples of integer
    coefficients, descending; ``(0,)`` is the zero polynomial), ``denominator``,
    ``witness`` (index or None), ``s_star`` (None or (q, minimal polynomial descending,
    isolating Enclosure)); ``prop9`` — nothing; ``kronecker-threshold`` — ``factors``
    (tuple of ThresholdClaim) and ``binding`` (index); ``certified-cover`` — ``fail`` (a
    :class:`~exactdp.kernel.linear.LinearClaim`), ``t0`` (Fraction), ``pieces`` (tuple of
    Enclosure).
    """

    kind: str
    metric: FiniteMetric
    rhs: tuple[Fraction, ...]
    eps: Enclosure
    evidence: Mapping[str, Any]


def guarded(check: Callable[[Any], bool], claim: Any) -> bool:
    """``check(claim)``, or False when malformed evidence makes it raise (never raises)."""
    try:
        return bool(check(claim))
    except REJECTED_ERRORS + (AssertionError,):
        return False


def frame_ok(c: Any, kinds: Sequence[str]) -> bool:
    """The claim's fields have their types: a kind of ``kinds``, a FiniteMetric, an
    Enclosure with 0 ≤ lo ≤ hi, rhs a tuple of n Fractions, evidence a Mapping."""
    return bool(isinstance(c, ThresholdClaim) and c.kind in kinds and isinstance(c.metric, FiniteMetric)
                and isinstance(c.eps, Enclosure) and 0 <= c.eps.lo <= c.eps.hi
                and isinstance(c.rhs, tuple) and len(c.rhs) == c.metric.n
                and all(isinstance(v, Fraction) for v in c.rhs) and isinstance(c.evidence, Mapping))


def check_threshold(claim: ThresholdClaim) -> bool:
    """True when every part of ``claim`` is re-proved (module table); False otherwise.

    Never raises on malformed evidence: a value of the wrong type or size is "not proved".
    """
    return guarded(lambda c: frame_ok(c, THRESHOLD_KINDS) and _CHECKS[c.kind](c), claim)


def is_index(x: Any, n: int) -> bool:
    """x is an int (not a bool) in [0, n)."""
    return isinstance(x, int) and not isinstance(x, bool) and 0 <= x < n


def int_poly(coeffs: Any) -> flint.fmpz_poly:
    """An integer polynomial from descending coefficients ((0,) is zero); raises
    InvalidArgument (read as "not proved") for anything else, a leading 0 included."""
    if (not isinstance(coeffs, tuple) or not coeffs or (coeffs[0] == 0 and len(coeffs) > 1)
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in coeffs)):
        raise InvalidArgument("a polynomial is a nonempty tuple of int coefficients, the first nonzero.")
    return flint.fmpz_poly(list(reversed(coeffs)))


# ------------------------------------------------------------------- exact root counting
def _sqfree(p: flint.fmpz_poly) -> flint.fmpz_poly:
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
    sq = _sqfree(p)
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
    total, stack = 0, [_sqfree(p)]
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


# ------------------------------------------------------------------------------ exact
def _check_exact(c: ThresholdClaim) -> bool:
    m, ev, n = c.metric, c.evidence, c.metric.n
    raw, w, star = ev["numerators"], ev["witness"], ev["s_star"]
    if m.q is None or not isinstance(raw, tuple) or len(raw) != n:
        return False
    nums, den = [int_poly(p) for p in raw], int_poly(ev["denominator"])
    if den.degree() < 0:
        return False
    if w is None:
        if c.eps.lo != 0 or star is not None:
            return False  # no failure witnessed: the claim can only be ε* ∈ [0, hi]
    elif not is_index(w, n) or c.eps.lo <= 0 or nums[w].degree() < 0:
        return False
    if not identity_holds(m, nums, den, c.rhs):
        return False
    if star is not None and not _s_star_ok(nums, den, w, m.q, star):
        return False
    return any(_sides_ok(c, nums, den, w, m.q, prec) for prec in CHECK_PRECISIONS)


def _sides_ok(c: ThresholdClaim, nums: list[Any], den: Any, w: int | None, q: int, prec: int) -> bool:
    """Holds on (0, s_hi] (s_hi ≥ e^{-hi/q}; (0, 1) for hi = 0) and, with a witness, fails at e^{-lo/q}."""
    s_up = Fraction(1) if c.eps.hi == 0 else s_enclosure(c.eps.hi, q, prec)[1]
    if not 0 < s_up <= 1 or not sign_run_ok(nums, den, s_up, c.eps.hi != 0, budget=DESCARTES_BUDGET):
        return False
    if w is None:
        return True
    lo, hi = s_enclosure(c.eps.lo, q, prec)
    # lo = 0 (a huge ε_lo) is never proved: N_w/D has the sign it has as s → 0+, ≥ 0 above
    if not 0 < lo <= hi < 1:
        return False
    for p in (nums[w], den):
        if sign_at(p, lo) == 0 or (lo < hi and count_roots(p, lo, hi) != 0):
            return False
    return sign_at(nums[w], lo) * sign_at(den, lo) < 0


def _s_star_ok(nums: list[Any], den: Any, w: int | None, q: int, star: Any) -> bool:
    """s* is the end of the holding run (0, s*]: module table."""
    if not isinstance(star, tuple) or len(star) != 3:
        return False
    sq, coeffs, iv = star
    g = int_poly(coeffs)
    if (w is None or isinstance(sq, bool) or sq != q or not min_poly_ok(g) or not isinstance(iv, Enclosure)
            or not 0 <= iv.lo <= iv.hi <= 1):
        return False
    lo, hi = iv.lo, iv.hi
    if lo == hi:
        if sign_at(g, lo) != 0 or not 0 < lo < 1:
            return False
    elif sign_at(g, lo) == 0 or sign_at(g, hi) == 0 or count_roots(g, lo, hi) != 1:
        return False
    if strip(nums[w], g)[0] % 2 == 0 or strip(den, g)[0] != 0:
        return False
    others = {tuple(r.coeffs()): r for r in (strip(p, g)[1] for p in (
        *(odd_part(p) for p in nums if p != 0), _sqfree(den))) if r.degree() >= 1}
    for r in others.values():  # no root of r in (0, s*]: shrink (lo, hi) until (0, hi] has none
        a, b = lo, hi
        for _ in range(MAX_BISECTIONS):
            if a == b or count_roots(r, Fraction(0), b) == 0:
                break
            mid = (a + b) / 2
            if sign_at(g, mid) == 0:
                a = b = mid
            elif sign_at(g, a) * sign_at(g, mid) < 0:
                b = mid
            else:
                a = mid
        if (a == b and sign_at(r, a) == 0) or count_roots(r, Fraction(0), b) != 0:
            return False
    return True


# ------------------------------------------------------------------------------ prop9
def _check_prop9(c: ThresholdClaim) -> bool:
    m = c.metric
    if c.eps.hi != 0 or m.n < 1 or len(set(c.rhs)) != 1 or not c.rhs[0] > 0:
        return False
    canon: dict[Any, int] = {}
    ids = np.array([canon.setdefault(v, len(canon)) for v in m.values], dtype=np.int64)
    counts = np.stack([np.bincount(r, minlength=len(canon)) for r in ids[np.asarray(m.index)]])
    return bool(np.all(counts == counts[0]))


# ------------------------------------------------------------------------------ kronecker
def _check_kronecker(c: ThresholdClaim) -> bool:
    factors, b = c.evidence["factors"], c.evidence["binding"]
    if (not isinstance(factors, tuple) or not factors or not all(isinstance(f, ThresholdClaim) for f in factors)
            or not is_index(b, len(factors))
            or kronecker_claim_error(c.metric, tuple(f.metric for f in factors)) is not None
            or not factor_labels_ok(c.metric, [f.metric for f in factors])):
        return False
    product: list[Fraction] = [Fraction(1)]
    for f in factors:
        if any(v < 0 for v in f.rhs) or all(v == 0 for v in f.rhs):
            return False
        product = [x * y for x in product for y in f.rhs]  # row-major ⊗
    return bool(product == list(c.rhs) and all(check_threshold(f) for f in factors)
                and c.eps.hi >= max(f.eps.hi for f in factors) and c.eps.lo == factors[b].eps.lo)


# ------------------------------------------------------------------------------ cover
def _check_cover(c: ThresholdClaim) -> bool:
    fail, t0, pieces = c.evidence["fail"], c.evidence["t0"], c.evidence["pieces"]
    if (not 0 < c.eps.lo < c.eps.hi or not isinstance(t0, Fraction) or not isinstance(pieces, tuple)
            or not pieces or not all(isinstance(p, Enclosure) for p in pieces)):
        return False
    ranges = tuple((p.lo, p.hi) for p in pieces)
    return (fail_side_ok(fail, c.metric, c.rhs, c.eps.lo)  # a linear claim or an spd-point
            and cover_frame_ok(c.metric, c.rhs, c.eps.hi, t0, ranges)
            and all(arb_mean_value_check(c.metric, c.rhs, a, b) for a, b in ranges))


_CHECKS = {"exact": _check_exact, "prop9": _check_prop9, "kronecker-threshold": _check_kronecker,
           "certified-cover": _check_cover, SPD_COVER: check_spd_cover}
