"""The perturbation lemma near t = e^{-ε} = 0, and the distance-count rows it sums over.

Perturbation lemma (``proofs/threshold_lemmas.py``). Write Φ = I + E with E ≥ 0 the
off-diagonal part and e = ‖E‖∞ (max row sum). If e < 1 then z = Φ⁻¹b = Σ_k (−E)^k b and
‖z − b‖∞ ≤ e‖b‖∞/(1 − e). Hence z > 0 as soon as e‖b‖∞/(1 − e) < min b, i.e.
e < min b / (min b + ‖b‖∞) (= 1/2 for b = 1). Every row sum of E is increasing in t, so
checking it at one t0 covers all of (0, t0].

Examples
--------
>>> from fractions import Fraction
>>> from exactdp.spaces.metrics import line
>>> m = line(4)
>>> distance_count_rows(m).tolist()          # per point: how many points at each distance
[[1, 1, 1, 1], [1, 2, 1, 0]]
>>> lemma_holds(m, (Fraction(1),) * 4, Fraction(1, 8)), lemma_holds(m, (Fraction(1),) * 4, Fraction(1, 4))
(True, False)
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from fractions import Fraction

import numpy as np
from flint import arb, fmpq_mat, fmpz_mat

from exactdp.arithmetic.ball import arb_to_fraction_interval, workprec
from exactdp.arithmetic.rationals import fmpq_to_fraction, to_fmpq
from exactdp.arithmetic.rounding import float_up, require_subnormals
from exactdp.errors import PrecisionLimitReached
from exactdp.kernel.threshold_cover import lemma_row_sum_bound
from exactdp.kinds import proved_by
from exactdp.spaces.distances import Distance
from exactdp.spaces.grid import is_large_grid, offset_count_row
from exactdp.spaces.metrics import FiniteMetric
from exactdp.threshold.float_bounds import ProductBounds

__all__ = [
    "distance_count_rows",
    "off_diag_row_sums_bound",
    "exact_off_diag_row_sums_bound",
    "exact_count_row_max",
    "lemma_holds",
    "lemma_t0",
    "T0_MAX_BITS",
]

_COUNT_ROWS: dict[tuple[int, bool], tuple[FiniteMetric, np.ndarray]] = {}


def distance_count_rows(metric: FiniteMetric) -> np.ndarray:
    """Distinct rows of the per-point distance counts (cached per metric object).

    Row r, column k: how many points lie at distance ``metric.values[k]`` from some point.
    Large grids (:func:`exactdp.spaces.grid.is_large_grid`) get one row that dominates every
    row entrywise (:func:`exactdp.spaces.grid.offset_count_row`), without forming the n×n
    index. The cache key holds the route (large or not: ``force_matrix_free`` switches it),
    so the matrix-free search never reads the dense rows the kernel does not use.
    """
    large = is_large_grid(metric)
    key = (id(metric), large)
    hit = _COUNT_ROWS.get(key)
    if hit is not None and hit[0] is metric:  # identity check: ids are reused after GC
        return hit[1]
    _COUNT_ROWS.clear()
    if large:
        row = offset_count_row(metric)
        _COUNT_ROWS[key] = (metric, row)
        return row
    idx = metric.index
    k = len(metric.values)
    n = metric.n
    codes = (np.arange(n, dtype=np.int64)[:, None] * k + idx).ravel()
    counts = np.bincount(codes, minlength=n * k).reshape(n, k)
    rows = np.unique(counts, axis=0)
    _COUNT_ROWS[key] = (metric, rows)
    return rows


def off_diag_row_sums_bound(metric: FiniteMetric, t: Fraction, prec: int = 128) -> Fraction:
    """Rigorous upper bound of max_i Σ_{j≠i} t^{d(i,j)}.

    Upper bounds of t^d come from arb balls; the count-weighted sums are float products
    bounded with the F2 rounding model (nonnegative data; :mod:`exactdp.threshold.float_bounds`).
    """
    require_subnormals("perturbation lemma row sums")
    rows = distance_count_rows(metric).astype(np.float64)  # small integers: exact
    with workprec(prec):
        lt = arb(to_fmpq(t)).log()
        ups = []
        for v in metric.values:
            if v.coef == 0:
                ups.append(0.0)
                continue
            _, hi = arb_to_fraction_interval((lt * v.ball()).exp())
            ups.append(float_up(hi))
    pw = np.array(ups, dtype=np.float64)
    bound = ProductBounds(len(ups)).nonneg(rows, pw)
    return Fraction(float(np.max(bound)))


def exact_count_row_max(rows: np.ndarray, ups: list[Fraction]) -> Fraction:
    """max_r Σ_k rows[r, k]·ups[k], exactly (integer counts, rational weights; flint).

    No floating-point arithmetic: the counts are integers (``np.bincount``) and the
    product is an exact ``fmpq_mat`` product.
    """
    R, k = rows.shape
    if R == 0 or k == 0:
        return Fraction(0)
    C = fmpz_mat(R, k, [int(x) for x in rows.ravel()])
    w = fmpq_mat(k, 1, [to_fmpq(u) for u in ups])
    prod = fmpq_mat(C) * w
    return max(fmpq_to_fraction(prod[i, 0]) for i in range(R))


#: The verifier's bound of max_i Σ_{j≠i} t^{d(i,j)} in exact rational arithmetic (the same
#: distance-count histograms, outward-rounded rational upper bounds of t^d, an exact integer ×
#: rational row sum): one home, in the kernel.
exact_off_diag_row_sums_bound = lemma_row_sum_bound


@proved_by("threshold_lemmas")
def lemma_holds(metric: FiniteMetric, rhs: tuple[Fraction, ...], t0: Fraction,
                exact: bool = False) -> bool:
    """True when the perturbation lemma proves z(t) > 0 for every t = e^{-ε} in (0, t0].

    Checks e < 1 and e·‖b‖∞ < min b·(1 − e) for a rigorous e ≥ ‖E(t0)‖∞
    (``proofs/threshold_lemmas.py``). ``exact=True`` (the certificates' ``verify()``)
    bounds e in exact rational arithmetic (:func:`exact_off_diag_row_sums_bound`).
    """
    bmin, bmax = min(rhs), max(abs(v) for v in rhs)
    if bmin <= 0 or t0 <= 0:
        return False
    e = exact_off_diag_row_sums_bound(metric, t0) if exact else off_diag_row_sums_bound(metric, t0)
    return e < 1 and e * bmax < bmin * (1 - e)


def lemma_t0(metric: FiniteMetric, rhs: tuple[Fraction, ...]) -> Fraction:
    """A rational t0 where the perturbation lemma holds (float-guided, then proved).

    Scale-aware: the float guide works with u = −ln t in units of the smallest positive
    distance d_min, s = u·d_min, so the row sums Σ_k n_k e^{−s·d_k/d_min} do not depend on
    the spacing (a grid with spacing h has t0(h) ≈ t0(1)^{1/h}: 10⁻³² at h = 1/32, far
    below what a float t resolves). The t0 returned is a short rational ≈ e^{−s/d_min}
    (≈ 30 significant bits, more when s/d_min is tiny), proved by :func:`lemma_holds`;
    retries multiply s by 17/16.

    >>> from exactdp.spaces.metrics import grid
    >>> g = grid(6, 6, "euclidean", spacing=Fraction(1, 64))
    >>> t0 = lemma_t0(g, (Fraction(1),) * 36)
    >>> 0 < t0 < Fraction(1, 10**50), lemma_holds(g, (Fraction(1),) * 36, t0, exact=True)
    (True, True)
    """
    if metric.n == 1:  # one point: E = 0, the lemma holds at every t
        return Fraction(1, 2)
    values = [v for v in metric.values if v.coef != 0]
    unit_exact = min(values, key=_float_or_refuse(metric))  # the smallest positive distance
    unit = float(unit_exact)
    rows = distance_count_rows(metric).astype(np.float64)
    keep = np.array([v.coef != 0 for v in metric.values])
    ratio, rows = np.array([float(v) for v in values]) / unit, rows[:, keep]
    bmin, bmax = float(min(rhs)), float(max(abs(v) for v in rhs))

    def guide_ok(s: float) -> bool:
        e = float(np.max(rows @ np.exp(-s * ratio)))
        return e < 1 and e * bmax < 0.98 * bmin * (1 - e)

    hi = 1.0
    while not guide_ok(hi) and hi < 2.0**20:
        hi *= 2
    lo = 0.0
    for _ in range(40):
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if guide_ok(mid) else (mid, hi)
    s = hi
    for _ in range(60):
        t0 = _exp_neg_below(s / unit, metric.name, unit_exact)
        if t0 > 0 and lemma_holds(metric, rhs, t0):
            return t0
        s *= 17 / 16
    raise PrecisionLimitReached(
        f"perturbation lemma on {metric.name}: no t0 found where ‖E‖∞ is small enough "
        f"(tried e^(-u) down to u = {s / unit:.6g}, u in units of the smallest distance "
        f"{unit:.6g}); the right-hand side may be too uneven (min b / max b = {bmin / bmax:.3g}).")


#: Bit budget of t0 = m·2^{-k}: k ≤ T0_MAX_BITS (m has ≈ 30 bits). Every exact step after
#: (the row sums, the cover's range end −ln t0) works with a number of this size; a bigger k
#: means a spacing so far from 1 that the exact t0 would take megabytes (spacing 10⁻⁹:
#: 3.5·10⁹ bits, minutes and gigabytes), so the lemma refuses before building it.
T0_MAX_BITS = 1 << 16


def _float_or_refuse(metric: FiniteMetric) -> Callable[[Distance], float]:
    """A key function: float(d) of a positive distance, refusing (PrecisionLimitReached)
    a distance outside the normal double range (the float guide would silently read 0 or
    overflow).

    >>> from exactdp.spaces.metrics import grid
    >>> from exactdp.spaces.distances import Distance
    >>> _float_or_refuse(grid(2, 1))(Distance(Fraction(1, 10**400)))
    Traceback (most recent call last):
    ...
    exactdp.errors.PrecisionLimitReached: perturbation lemma on ...
    """
    def key(v: Distance) -> float:
        try:
            f = float(v)
        except OverflowError:
            f = math.inf
        if not sys.float_info.min <= f < math.inf:
            raise PrecisionLimitReached(
                f"perturbation lemma on {metric.name}: the distance {v} is outside the double "
                f"range [{sys.float_info.min:.3g}, {sys.float_info.max:.3g}] the t0 search works in. "
                "Rescale the distances to about 1 (a grid's threshold scales as ε*(h) = ε*(1)/h: "
                "compute it at spacing 1 and divide by h).")
        return f
    return key


def _exp_neg_below(u: float, name: str = "metric", unit: object = 1) -> Fraction:
    """A short dyadic m·2^{-k} ≤ e^{−u} (u ≥ 0 a float guide): m has ≈ 30 significant bits
    (plus log2(1/u) bits when u is tiny, t0 close to 1), k ≤ :data:`T0_MAX_BITS`, or
    PrecisionLimitReached before any big number is built. ``name`` and ``unit`` (the
    metric and its smallest distance) only serve the message.

    >>> t = _exp_neg_below(1.0)
    >>> 0 < math.exp(-1) - t < 1e-9, 0 < _exp_neg_below(2000.0) < Fraction(1, 10**868)
    (True, True)
    >>> 0 < 1 - _exp_neg_below(1e-12) < Fraction(2, 10**12)
    True
    >>> _exp_neg_below(1e9, "grid 3x3", Fraction(1, 10**9))
    Traceback (most recent call last):
    ...
    exactdp.errors.PrecisionLimitReached: perturbation lemma on grid 3x3: ...
    """
    extra = max(0, math.ceil(-math.log2(u))) if u > 0 else 0
    k = (math.ceil(u * math.log2(math.e)) if math.isfinite(u) else T0_MAX_BITS) + 30 + extra
    if not math.isfinite(u) or k > T0_MAX_BITS:
        raise PrecisionLimitReached(
            f"perturbation lemma on {name}: the t0 it needs is about e^(-{u:.4g}) = 2^(-{u / math.log(2):.4g}) "
            f"(the smallest distance is {unit}), beyond the {T0_MAX_BITS}-bit budget of an exact t0. "
            "Rescale the distances so that the smallest is about 1 (a grid's threshold scales as "
            "ε*(h) = ε*(1)/h: compute it at spacing 1 and divide by h).")
    # e^{k ln 2 − u} ≈ 2^{30 + extra}: a moderate number; + extra bits so that a tiny u
    # (≈ 2^-extra) is resolved against k ln 2 (review 15E11 F1: 1 − t0 was 25·u at u = 2.5e-40)
    with workprec(128 + k.bit_length() + extra):
        x = (arb(k) * arb.const_log2() - arb(to_fmpq(Fraction(u)))).exp()
        lo, _ = arb_to_fraction_interval(x)
    m = math.floor(lo)
    return Fraction(m, 1 << k) if m > 0 else Fraction(0)
