"""The kernel's checks of the threshold kinds ``exact`` and ``prop9``, and their reader.

The claim "ε* ∈ [lo, hi]" is the one of :mod:`exactdp.kernel.threshold` (ε* the least ε such
that Φ(ε')x = b has a solution x ≥ 0 for every ε' ≥ ε; b = 1: tight constraints, b = a prior:
regularity). These two kinds need neither a cover nor a factor, so they have their own row
of the dispatch table ``verify.KIND_CHECKS`` and their own reader: an auditor of such a
document reads this module, :mod:`exactdp.kernel.threshold_poly` (exact root counting) and
the shared readers, not the covers' machinery.

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
                     holds exactly one root in (0, 1) and g none below it (each root of g is a
                     sign change of N_w: session 28), g divides N_w to an odd power and not
                     D, and no other sign-change root of any N_i nor root of D lies in
                     (0, s*] — so the property holds on (0, s*] and fails just after:
                     ε* = −q·ln s* exactly (and then lo ≤ ε* ≤ hi follows)
prop9                every row of the distance matrix has the same multiset of distances
                     and b is constant > 0 (``proofs/prop9_ball_symmetric.py``): holds for
                     every ε, so the claim is [0, 0]
===================  ========================================================================

The documents (the envelope of :mod:`exactdp.kernel.jsonio`; the table of
:mod:`exactdp.kernel.threshold_json`): ``exact`` claims ``eps`` and ``s_star`` (null or
{``q``, ``minimal_polynomial``, ``isolating_interval``}) with evidence ``numerators``,
``denominator``, ``witness``; ``prop9`` claims ``eps`` = [0, 0] with no evidence.

Examples
--------
>>> from exactdp.spaces.metrics import cycle, line
>>> claim = ThresholdClaim("prop9", cycle(4), (Fraction(1),) * 4, Enclosure(Fraction(0), Fraction(0)), {})
>>> check_exact_threshold(claim)
True
>>> check_exact_threshold(ThresholdClaim("prop9", line(3), (Fraction(1),) * 3,
...                                      Enclosure(Fraction(0), Fraction(0)), {}))
False
>>> from exactdp.engine.documents import write_threshold
>>> doc = write_threshold(claim)
>>> write_threshold(read_exact_threshold(doc)) == doc
True
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from exactdp.arithmetic.interval import Enclosure
from exactdp.kernel.linear import identity_holds
from exactdp.kernel.read_common import (
    POLY_FIELDS,
    FieldReader,
    index_field,
    read_s_star,
)
from exactdp.kernel.threshold_claim import read_claim
from exactdp.kernel.threshold_poly import (
    CHECK_PRECISIONS,
    ThresholdClaim,
    count_roots,
    frame_ok,
    guarded,
    int_poly,
    is_index,
    min_poly_ok,
    odd_part,
    s_enclosure,
    sign_at,
    sign_run_ok,
    sqfree,
    strip,
)

__all__ = ["EXACT_KINDS", "EXACT_FIELDS", "check_exact_threshold", "read_exact_threshold", "MAX_BISECTIONS",
           "DESCARTES_BUDGET"]

#: The kinds of claim this module checks (``CertificateKind`` values).
EXACT_KINDS = ("exact", "prop9")
#: Most bisections of s*'s isolating interval when separating it from another root.
MAX_BISECTIONS = 512
#: Pieces :func:`~exactdp.kernel.threshold_poly.no_root_upto` bisects with Descartes' rule
#: before the exact check falls back to Sturm (its ``budget``).
DESCARTES_BUDGET = 64
#: Kind -> (claim fields, evidence fields) (:func:`~exactdp.kernel.read_common.read_fields`).
EXACT_FIELDS: dict[str, tuple[dict[str, FieldReader], dict[str, FieldReader]]] = {
    "exact": ({"verdict": None, "eps": None, "s_star": lambda v, w, n, d: read_s_star(v)},
              {**POLY_FIELDS, "witness": index_field}),
    "prop9": ({"verdict": None, "eps": None}, {}),
}


def check_exact_threshold(claim: ThresholdClaim) -> bool:
    """True when every part of an ``exact`` or ``prop9`` claim is re-proved (module table).

    Never raises on malformed evidence: a value of the wrong type or size is "not proved".
    """
    return guarded(lambda c: frame_ok(c, EXACT_KINDS) and _CHECKS[c.kind](c), claim)


def read_exact_threshold(doc: Any) -> ThresholdClaim:
    """Read an ``exact`` or ``prop9`` document into a :class:`ThresholdClaim`.

    Raises :class:`~exactdp.errors.InvalidArgument` for a malformed document and
    :class:`~exactdp.errors.CertificateInvalid` when its question was altered (fingerprint).
    """
    return read_claim(doc, EXACT_FIELDS)


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
    elif (sign_at(g, lo) == 0 or sign_at(g, hi) == 0 or count_roots(g, lo, hi) != 1
          or (lo > 0 and count_roots(g, Fraction(0), lo) != 0)):  # s* is g's least root in (0, 1)
        return False  # (a rational s* = lo = hi has an irreducible g of degree 1: no other root)
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


_CHECKS = {"exact": _check_exact, "prop9": _check_prop9}
