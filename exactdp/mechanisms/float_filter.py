"""Float to find, exact (or balls) to prove: the float pre-filters of the privacy-level routes.

Every filter here only *chooses what to compare*; no answer rests on a float. Each is sound
for every representable input — underflow, overflow, subnormals, huge rationals — as proved
in ``proofs/mech_float_filter.py``:

* :func:`float_and_masks` / :func:`column_argmax_exact` (exact rational entries, all in
  [0, 1] since rows are stochastic): entries are rounded to the nearest float; an entry whose
  float is below :data:`TINY` (this includes every entry that underflows to 0 or to a
  subnormal) is *unknown* and always kept; every other float is normal, within a relative
  2⁻⁵³ of its entry, so a candidate within a relative :data:`REL_MARGIN` of the float
  maximum is kept and the true maximum is among the kept ones (lemmas E1, E2).
* :func:`log_bounds` / :func:`log_ratio_candidates` (ball entries, the certified route):
  directed float bounds L ≤ ln x ≤ U of each entry's logarithm (each float checked against
  the ball's end by an exact comparison) (−∞ when the ball reaches 0:
  unknown), ratio bounds by one subtraction rounded outwards (``pred``/``succ``), and the kept
  pairs are those whose upper bound reaches the largest lower bound (lemma B). No margin,
  no absolute floor: an entry of 10⁻⁸⁰⁰ has an ordinary float logarithm.
"""

from __future__ import annotations

import math

import numpy as np
from flint import arb

from exactdp.arithmetic.rationals import fmpq_to_float
from exactdp.arithmetic.rounding import pred, require_subnormals, succ
from exactdp.kinds import proved_by
from exactdp.mechanisms.mechanism import Mechanism

__all__ = [
    "REL_MARGIN",
    "TINY",
    "float_and_masks",
    "column_argmax_exact",
    "log_bounds",
    "log_ratio_upper",
    "log_ratio_candidates",
    "float_below",
    "float_above",
]

#: Relative margin below a float maximum within which every candidate is kept.
REL_MARGIN = 1e-12
#: Floats below this are "unknown" (an entry that underflowed, or lost relative accuracy):
#: always candidates. Every float ≥ TINY is normal (TINY = 2⁻¹⁰⁰⁰ > 2⁻¹⁰²²).
TINY = 2.0**-1000


@proved_by("mech_float_filter")
def float_and_masks(mech: Mechanism) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Float matrix (correctly rounded), exact-zero mask, and 'unknown' (tiny) mask.

    For a float-backed mechanism the matrix is its own floats, scaled by one power of two
    into [0, 1] (ratios unchanged; proofs/mech_float_filter.py, lemma E3).

    An entry > 0 whose float is < :data:`TINY` — in particular one that underflows to 0 —
    is marked unknown, never read as small (proofs/mech_float_filter.py, lemma E1).
    """
    B = mech.binary_floats
    if B is not None:
        # the floats ARE the exact entries (δ = 0 in lemma E1); one common power-of-two
        # scaling brings them into [0, 1] without changing any ratio (exact while normal;
        # an entry scaled below TINY is unknown, like an underflow) — lemma E3
        Z = B == 0
        top = float(B.max())
        k = math.frexp(top)[1] if top > 1 else 0
        F = np.ldexp(B, -k) if k else B
        return F, Z, (~Z) & (F < TINY)
    ents = mech.entries_object()
    n, m = ents.shape
    F = np.empty((n, m), dtype=float)
    Z = np.zeros((n, m), dtype=bool)
    for i in range(n):
        row = ents[i]
        F[i, :] = [fmpq_to_float(v) for v in row]
        Z[i, :] = [v == 0 for v in row]
    unsafe = (~Z) & (F < TINY)
    return F, Z, unsafe


@proved_by("mech_float_filter")
def column_argmax_exact(weighted: np.ndarray, Fw: np.ndarray) -> np.ndarray:
    """Exact argmax per column of an fmpq object matrix in [0, 1], float-guided.

    ``Fw`` holds the correctly rounded floats of ``weighted``; the kept candidates (within
    :data:`REL_MARGIN` of the float maximum, or below :data:`TINY`) contain every exact
    maximiser (proofs/mech_float_filter.py, lemma E2); they are compared exactly.
    """
    m = weighted.shape[1]
    out = np.empty(m, dtype=np.int64)
    fmax = Fw.max(axis=0)
    for z in range(m):
        cand = np.nonzero((Fw[:, z] >= fmax[z] * (1 - REL_MARGIN)) | (Fw[:, z] < TINY))[0]
        best = int(cand[0])
        bv = weighted[best, z]
        for y in cand[1:].tolist():
            v = weighted[y, z]
            if v > bv:
                best, bv = y, v
        out[z] = best
    return out


def float_below(x: arb) -> float:
    """A float ≤ every point of the ball ``x`` (−∞ when x is not finite)."""
    lo = x.lower()
    if not lo.is_finite():
        return -np.inf
    f = float(lo)
    while math.isfinite(f) and not arb(f) <= lo:  # exact comparison of two exact points
        f = float(pred(f))
    return f if math.isfinite(f) or f < 0 else float(pred(f))


def float_above(x: arb) -> float:
    """A float ≥ every point of the ball ``x`` (+∞ when x is not finite)."""
    hi = x.upper()
    if not hi.is_finite():
        return np.inf
    f = float(hi)
    while math.isfinite(f) and not arb(f) >= hi:
        f = float(succ(f))
    return f if math.isfinite(f) or f > 0 else float(succ(f))


@proved_by("mech_float_filter")
def log_bounds(balls: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Directed float bounds of the logarithms of ball entries: ``(L, U)``.

    For every probability x in the ball of entry (i, j): ``L[i, j] ≤ ln x ≤ U[i, j]``, with
    L = −∞ when the ball reaches 0 (ln unknown below: never read as "small") and U = −∞ when
    0 is the only probability in the ball (its upper end is ≤ 0). The float of each end of the
    ball of ln(entry) is stepped outwards until an exact comparison with the ball's end
    confirms the direction; no float ever holds an entry itself, so nothing underflows
    (ln 10⁻⁸⁰⁰ ≈ −1842 is an ordinary float). Call inside the working precision of the balls
    (proofs/mech_float_filter.py, lemma B).
    """
    n, m = balls.shape
    L = np.full((n, m), -np.inf)
    U = np.full((n, m), -np.inf)
    for (i, j), v in np.ndenumerate(balls):
        if v.lower() > 0:
            lg = v.log()
            L[i, j], U[i, j] = float_below(lg), float_above(lg)
            continue
        up = v.upper()
        if up > 0:
            U[i, j] = float_above(up.log())
    return L, U


@proved_by("mech_float_filter")
def log_ratio_upper(L: np.ndarray, U: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Float upper bounds ru ≥ ln(h[a,z]/h[b,z]) of directed pairs (rows) × outputs (columns).

    One subtraction rounded outwards (``succ``); −∞ where h[a, z] = 0 (no constraint), +∞
    where the ratio is unbounded or unknown (proofs/mech_float_filter.py, lemma B).
    """
    require_subnormals("privacy level (ball route)")
    Ua = U[a]
    with np.errstate(invalid="ignore", over="ignore"):
        ru = succ(Ua - L[b])
    ru = np.where(np.isnan(ru), np.inf, ru)  # never drop what cannot be bounded
    return np.where(np.isneginf(Ua), -np.inf, ru)  # 0 / anything: no constraint


@proved_by("mech_float_filter")
def log_ratio_candidates(
    L: np.ndarray, U: np.ndarray, a: np.ndarray, b: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(rows, outputs) of the directed pairs (a[r] → b[r], z) that may attain the class maximum.

    With ``rl ≤ ln(h[a,z]/h[b,z]) ≤ ru`` rounded outwards (``pred``/``succ`` of one rounded
    subtraction; ±∞ kept), every pair with ru ≥ max rl is kept: the maximiser always is
    (proofs/mech_float_filter.py, lemma B). Pairs with an exactly zero numerator never
    constrain the level (U = −∞) and are dropped; everything unknown is kept (ru = +∞).
    """
    ru = log_ratio_upper(L, U, a, b)
    Ua = U[a]
    with np.errstate(invalid="ignore", over="ignore"):
        rl = pred(L[a] - U[b])
    rl = np.where(np.isnan(rl) | np.isneginf(Ua), -np.inf, rl)
    floor = float(rl.max()) if rl.size else -np.inf
    keep = (ru >= floor) & ~np.isneginf(Ua)
    rows, zs = np.nonzero(keep)
    return rows, zs
