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
>>> import flint
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

from fractions import Fraction
from typing import Any

import numpy as np

from exactdp.arithmetic.interval import Enclosure
from exactdp.kernel.linear import identity_holds
from exactdp.kernel.metricio import factor_labels_ok
from exactdp.kernel.threshold_cover import arb_mean_value_check, cover_frame_ok
from exactdp.kernel.threshold_poly import (
    CHECK_PRECISIONS,
    S_EXACT_LIMIT,
    ThresholdClaim,
    count_roots,
    frame_ok,
    guarded,
    int_poly,
    is_index,
    lowest_sign,
    min_poly_ok,
    no_root_upto,
    odd_part,
    roots_01,
    roots_01_within,
    s_enclosure,
    scaled_poly,
    sign_at,
    sign_run_ok,
    sqfree,
    strip,
)
from exactdp.kernel.threshold_spd import SPD_COVER, check_spd_cover, fail_side_ok
from exactdp.spaces.metrics.claims import kronecker_claim_error

__all__ = ["ThresholdClaim", "THRESHOLD_KINDS", "check_threshold", "count_roots",
           "roots_01", "roots_01_within", "no_root_upto", "scaled_poly", "DESCARTES_BUDGET",
           "identity_holds", "s_enclosure", "CHECK_PRECISIONS", "MAX_BISECTIONS",
           "S_EXACT_LIMIT", "sign_at", "lowest_sign", "odd_part", "guarded", "frame_ok",
           "int_poly", "is_index", "strip", "min_poly_ok", "sign_run_ok"]

#: The kinds of claim this module checks (``CertificateKind`` values).
THRESHOLD_KINDS = ("exact", "prop9", "kronecker-threshold", "certified-cover", SPD_COVER)
#: Most bisections of s*'s isolating interval when separating it from another root.
MAX_BISECTIONS = 512
#: Pieces :func:`no_root_upto` bisects with Descartes' rule before the exact check falls
#: back to Sturm (its ``budget``).
DESCARTES_BUDGET = 64


def check_threshold(claim: ThresholdClaim) -> bool:
    """True when every part of ``claim`` is re-proved (module table); False otherwise.

    Never raises on malformed evidence: a value of the wrong type or size is "not proved".
    """
    return guarded(lambda c: frame_ok(c, THRESHOLD_KINDS) and _CHECKS[c.kind](c), claim)


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
        *(odd_part(p) for p in nums if p != 0), sqfree(den))) if r.degree() >= 1}
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
