"""The kernel's checks of threshold claims "ε* ∈ [lo, hi]" (where a property starts to hold for good).

ε* is the least ε such that Φ(ε')x = b has a solution x ≥ 0 for every ε' ≥ ε (b = 1:
tight constraints; b = a prior: regularity). A claim states the question (metric, b),
the enclosure [lo, hi] of ε* and the evidence; each check re-proves it from the metric's
exact distances with exact polynomial arithmetic (``flint.fmpz_poly``/``fmpq_poly``,
Sturm sequences) and arb enclosures of e^{-ε/q}; nothing is taken from a search result:

===================  ========================================================================
kind                 what is checked
===================  ========================================================================
exact, prop9         :mod:`exactdp.kernel.threshold_exact` (their own reader and dispatch row)
kronecker-threshold  d((a_k), (b_k)) = Σ_k d_k(a_k, b_k) for every pair, b = ⊗ b_k with
                     b_k ≥ 0 nonzero, every factor claim checked recursively; ε* = max_k
                     ε*_k (``proofs/threshold_lemmas.py``, Lemma 2; every Φ_k is
                     nonsingular at a rational lo > 0 as above): hi ≥ max_k hi_k and
                     lo = lo_b for the stated binding factor b
certified-cover,     :mod:`exactdp.kernel.threshold_cover_claims` (their own reader and
spd-taylor-cover     dispatch row)
===================  ========================================================================

Examples
--------
>>> import flint
>>> from exactdp.arithmetic.interval import Enclosure
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

from exactdp.kernel.linear import identity_holds
from exactdp.kernel.metricio import factor_labels_ok
from exactdp.kernel.threshold_cover_claims import COVER_KINDS, check_cover_threshold
from exactdp.kernel.threshold_exact import DESCARTES_BUDGET, EXACT_KINDS, MAX_BISECTIONS, check_exact_threshold
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
    strip,
)
from exactdp.spaces.metrics.claims import kronecker_claim_error

__all__ = ["ThresholdClaim", "THRESHOLD_KINDS", "check_threshold", "count_roots",
           "roots_01", "roots_01_within", "no_root_upto", "scaled_poly", "DESCARTES_BUDGET",
           "identity_holds", "s_enclosure", "CHECK_PRECISIONS", "MAX_BISECTIONS",
           "S_EXACT_LIMIT", "sign_at", "lowest_sign", "odd_part", "guarded", "frame_ok",
           "int_poly", "is_index", "strip", "min_poly_ok", "sign_run_ok"]

#: The kinds of claim this module checks (``CertificateKind`` values), in the order of the
#: ``CertificateKind`` table: a kronecker-threshold factor may be of any of them.
THRESHOLD_KINDS = (*EXACT_KINDS, "kronecker-threshold", *COVER_KINDS)


def check_threshold(claim: ThresholdClaim) -> bool:
    """True when every part of ``claim`` is re-proved (module table); False otherwise.

    Never raises on malformed evidence: a value of the wrong type or size is "not proved".
    """
    return guarded(lambda c: frame_ok(c, THRESHOLD_KINDS) and _CHECKS[c.kind](c), claim)


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


_CHECKS = {**dict.fromkeys(EXACT_KINDS, check_exact_threshold), "kronecker-threshold": _check_kronecker,
           **dict.fromkeys(COVER_KINDS, check_cover_threshold)}
