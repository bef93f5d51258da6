"""The four routes of :func:`exactdp.mechanisms.privacy.privacy_level`.

* :func:`level_monomial` — h = c_z·s^E: integer exponent differences only, exact for any s;
* :func:`level_rownorm` — h = s^E/S_y(s) (the exponential mechanism): balls of rising
  precision, ties decided as polynomial identities in s;
* :func:`level_exact` — exact rational entries: float pre-filter, then exact ``fmpz``
  cross-multiplication;
* :func:`level_ball` — certified (ball) entries: an enclosure of the level.

Each takes the pairs to check as index arrays (I, J) and returns a
:class:`~exactdp.mechanisms.privacy_result.PrivacyLevelResult`.
"""

from __future__ import annotations

from fractions import Fraction

import flint
import numpy as np
import sympy
from flint import arb

from exactdp.arithmetic.ball import arb_to_fraction_interval, sympy_to_arb, workprec
from exactdp.arithmetic.interval import Enclosure
from exactdp.arithmetic.rationals import floats_to_fmpq, fmpq_to_fraction
from exactdp.errors import PrecisionLimitReached
from exactdp.kinds import proved_by
from exactdp.mechanisms.dyadic import DyadicRatios
from exactdp.mechanisms.float_filter import (
    REL_MARGIN,
    float_and_masks,
    log_bounds,
    log_ratio_candidates,
)
from exactdp.mechanisms.level_compare import (
    compare_kappa,
    compare_log_ratio,
    log_ratio_points,
    log_ratio_value,
    monomial_value,
    poly_value_ball,
    rownorm_equal,
    rownorm_value,
    rownorm_value_ball,
)
from exactdp.mechanisms.mechanism import Mechanism
from exactdp.mechanisms.privacy_result import PrivacyLevelResult, enclose_value, zero_level
from exactdp.spaces.distances import Distance
from exactdp.spaces.metrics import FiniteMetric

__all__ = ["level_monomial", "level_rownorm", "level_exact", "level_ball"]


def _directed(I: np.ndarray, J: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return np.concatenate([I, J]), np.concatenate([J, I])


def _group_by_distance(
    metric: FiniteMetric, A: np.ndarray, B: np.ndarray
) -> dict[int, np.ndarray]:
    vidx = metric.index[A, B]
    out: dict[int, np.ndarray] = {}
    for v in np.unique(vidx).tolist():
        out[int(v)] = np.nonzero(vidx == v)[0]
    return out


@proved_by("mech_geometric_rows")
def level_monomial(
    mech: Mechanism, metric: FiniteMetric, I: np.ndarray, J: np.ndarray
) -> PrivacyLevelResult:
    """Monomial form h = c_z·s^E: the level is (−ln s)·max Δ/d over integer Δ, exact for any s.

    h[y,z]/h[y',z] = s^{E[y,z] − E[y',z]} does not depend on c_z (outputs with c_z = 0 are
    never produced and are skipped): proofs/mech_geometric_rows.py.
    """
    form = mech.monomial
    assert form is not None
    E = form.exponents
    active = ~form.zero_columns
    A, B = _directed(I, J)
    npairs = len(I)
    if len(A) == 0 or not active.any():
        return zero_level(mech, metric, npairs, "monomial")
    Ea = E[:, active]
    cols = np.nonzero(active)[0]
    best: tuple[Fraction, Distance, int, int, int] | None = None
    for v, members in _group_by_distance(metric, A, B).items():
        d = metric.values[v]
        # ratio h[a,z]/h[b,z] = s^(E[a,z]-E[b,z]); largest where E[b,z]-E[a,z] is largest
        chunk = max(1, 4_000_000 // max(1, Ea.shape[1]))
        top = None
        for start in range(0, len(members), chunk):
            sel = members[start : start + chunk]
            diff = Ea[B[sel]] - Ea[A[sel]]
            flat = int(np.argmax(diff))
            r, c = divmod(flat, diff.shape[1])
            val = int(diff[r, c])
            if top is None or val > top[0]:
                top = (val, int(A[sel[r]]), int(B[sel[r]]), int(cols[c]))
        assert top is not None
        kappa = Fraction(top[0])
        if best is None or compare_kappa(kappa, d, best[0], best[1]) > 0:
            best = (kappa, d, top[1], top[2], top[3])
    assert best is not None
    kappa, d, y, y2, z = best
    value = monomial_value(form.s, kappa, d)
    s_rat = form.s_rational
    ratio = s_rat ** (-int(kappa)) if s_rat is not None else None
    return PrivacyLevelResult(
        value=value, enclosure=enclose_value(value), witness=(y, y2, z), ratio=ratio,
        distance=d, method="monomial", pairs_checked=npairs,
        _mechanism=mech, _metric=metric,
    )


def _rownorm_keys(
    mech: Mechanism, metric: FiniteMetric, A: np.ndarray, B: np.ndarray
) -> dict[tuple[int, int, int, int], tuple[int, int, int]]:
    """Group directed edges by (Δ, poly(a), poly(b), distance index) → one witness (a, b, z)."""
    form = mech.row_normalized
    assert form is not None
    E = form.exponents
    _, pid = form.row_polynomials
    vidx = metric.index[A, B]
    keys: dict[tuple[int, int, int, int], tuple[int, int, int]] = {}
    chunk = max(1, 4_000_000 // max(1, E.shape[1]))
    for start in range(0, len(A), chunk):
        a, b = A[start : start + chunk], B[start : start + chunk]
        diff = E[b] - E[a]
        delta = diff.max(axis=1)
        argz = diff.argmax(axis=1)
        for i in range(len(a)):
            key = (int(delta[i]), int(pid[a[i]]), int(pid[b[i]]), int(vidx[start + i]))
            if key not in keys:
                keys[key] = (int(a[i]), int(b[i]), int(argz[i]))
    return keys


def level_rownorm(
    mech: Mechanism, metric: FiniteMetric, I: np.ndarray, J: np.ndarray
) -> PrivacyLevelResult:
    """Row-normalized form h = s^E/S_y(s): max over edges of (Δ·(−ln s) + ln S_b − ln S_a)/d."""
    form = mech.row_normalized
    assert form is not None
    A, B = _directed(I, J)
    npairs = len(I)
    if len(A) == 0:
        return zero_level(mech, metric, npairs, "row-monomial")
    keys = _rownorm_keys(mech, metric, A, B)
    polys, _ = form.row_polynomials
    klist = list(keys)
    prec = 128
    while True:
        with workprec(prec):
            s_ball = sympy_to_arb(form.s)
            L = -s_ball.log()
            lnS = [poly_value_ball(v, s_ball).log() for v in polys]
            vals = [
                (k[0] * L + lnS[k[2]] - lnS[k[1]]) / metric.values[k[3]].ball() for k in klist
            ]
            ib = max(range(len(klist)), key=lambda i: vals[i].lower())
            best_lo = vals[ib].lower()
            rivals = [i for i in range(len(klist)) if i != ib and not (vals[i].upper() < best_lo)]
            unresolved = [i for i in rivals if not rownorm_equal(form, metric, klist[i],
                                                                   klist[ib])]
        if not unresolved:
            break
        if prec >= 4096:
            raise PrecisionLimitReached("could not separate the privacy-level candidates")
        prec *= 2
        klist = [klist[ib]] + [klist[i] for i in rivals]
    key = klist[ib]
    a, b, z = keys[key]
    d = metric.values[key[3]]
    value = rownorm_value(form, metric, key)
    s_rat = form.s_rational
    ratio = None
    if s_rat is not None:
        def ev(v: np.ndarray) -> Fraction:
            return sum((int(c) * s_rat**k for k, c in enumerate(v.tolist()) if c), Fraction(0))

        ratio = s_rat ** (-key[0]) * ev(polys[key[2]]) / ev(polys[key[1]])
    with workprec(128):
        lo, hi = arb_to_fraction_interval(rownorm_value_ball(form, metric, key))
    return PrivacyLevelResult(
        value=value, enclosure=Enclosure(max(lo, Fraction(0)), hi), witness=(a, b, z),
        ratio=ratio, distance=d, method="row-monomial", pairs_checked=npairs,
        _mechanism=mech, _metric=metric,
    )


def _numerators_denominators(
    mech: Mechanism, rows: np.ndarray, cols: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Object arrays of the fmpz numerators and (positive) denominators of the exact entries
    h[rows[k], cols[k]] — only those: a float-backed mechanism forms no other rational."""
    F = mech.binary_floats
    P = np.empty(len(rows), dtype=object)
    Q = np.empty(len(rows), dtype=object)
    if F is not None:
        vals = floats_to_fmpq(F[rows, cols].tolist())
    else:
        vals = mech.entries_object()[rows, cols].tolist()
    P[:] = [v.p for v in vals]
    Q[:] = [v.q for v in vals]
    return P, Q


def _entry_fmpq(mech: Mechanism, i: int, j: int) -> flint.fmpq:
    """The exact entry h[i, j] as ``fmpq`` (read from the binary float when float-backed)."""
    F = mech.binary_floats
    if F is not None:
        return floats_to_fmpq([float(F[i, j])])[0]
    v = mech.entries_object()[i, j]
    assert isinstance(v, flint.fmpq)
    return v


@proved_by("mech_float_filter", "mech_dyadic_ratio")
def level_exact(
    mech: Mechanism, metric: FiniteMetric, I: np.ndarray, J: np.ndarray
) -> PrivacyLevelResult:
    """Exact rational entries: float pre-filter per distance class, exact comparison after.

    The filter keeps every pair within a relative ``REL_MARGIN`` of the class's float maximum
    and every pair with an entry whose float is below ``TINY`` (underflow is "unknown"), so the
    exact maximiser is always kept (proofs/mech_float_filter.py, lemma E1). The kept candidates
    of a float-backed mechanism are compared exactly on their floats
    (proofs/mech_dyadic_ratio.py), the others by ``fmpz`` cross-multiplication.
    """
    A, B = _directed(I, J)
    npairs = len(I)
    if len(A) == 0:
        return zero_level(mech, metric, npairs, "exact")
    F, Z, unsafe = float_and_masks(mech)
    Bf = mech.binary_floats
    P = ~Z
    # infinite level: h[a,z] > 0 = h[b,z]
    bad = P[A] & Z[B]
    if bad.any():
        r, z = np.argwhere(bad)[0]
        a, b = int(A[r]), int(B[r])
        return PrivacyLevelResult(
            value=sympy.oo, enclosure=None, witness=(a, b, int(z)), ratio=None,
            distance=metric.distance(a, b), method="exact",
            pairs_checked=npairs, _mechanism=mech, _metric=metric,
        )
    best: tuple[Fraction, Distance, int, int, int] | None = None
    m = F.shape[1]
    chunk = max(1, 4_000_000 // max(1, m))
    has_zero, has_unsafe = bool(Z.any()), bool(unsafe.any())
    for v, members in _group_by_distance(metric, A, B).items():
        d = metric.values[v]
        # one float pass: the class's float maximum (safe pairs) and a superset of the
        # candidates (every pair above the running threshold, which only rises)
        fmax = 0.0
        found: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
        for start in range(0, len(members), chunk):
            sel = members[start : start + chunk]
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                R = F[A[sel]] / F[B[sel]]
            if has_zero:
                R[~P[B[sel]]] = -1.0  # h[b,z] = 0 (then h[a,z] = 0): no constraint
            if has_unsafe:
                forced = (unsafe[A[sel]] | unsafe[B[sel]]) & P[B[sel]]
                fmax = max(fmax, float(np.where(forced, 0.0, R).max()))
            else:
                forced = None
                fmax = max(fmax, float(R.max()))
            keep = R >= fmax * (1 - REL_MARGIN)
            if forced is not None:
                keep |= forced
            rows, zs = np.nonzero(keep)
            f_rows = (np.zeros(len(rows), dtype=bool) if forced is None
                      else forced[rows, zs])
            found.append((A[sel][rows], B[sel][rows], zs, R[rows, zs], f_rows))
        threshold = fmax * (1 - REL_MARGIN)
        a_idx = np.concatenate([f[0] for f in found])
        b_idx = np.concatenate([f[1] for f in found])
        zs = np.concatenate([f[2] for f in found])
        Rc = np.concatenate([f[3] for f in found])
        fc = np.concatenate([f[4] for f in found])
        final = (Rc >= threshold) | fc  # the candidates of lemma E1 (a subset of those kept)
        a_idx, b_idx, zs, Rc = a_idx[final], b_idx[final], zs[final], Rc[final]
        cls_best: tuple[flint.fmpq, int, int, int] | None = None
        if len(zs) and Bf is not None:
            # float-backed: the exact maximum by vectorised exact comparisons of the dyadic
            # entries (proofs/mech_dyadic_ratio.py) — ties cost numpy passes, not fmpz objects
            ratios, where = DyadicRatios.distinct(Bf[a_idx, zs], Bf[b_idx, zs])
            k = int(where[ratios.argmax(Rc[where])])
            cls_best = (
                _entry_fmpq(mech, int(a_idx[k]), int(zs[k]))
                / _entry_fmpq(mech, int(b_idx[k]), int(zs[k])),
                int(a_idx[k]), int(b_idx[k]), int(zs[k]),
            )
        elif len(zs):
            # h[a,z]/h[b,z] = (Pa/Qa)/(Pb/Qb): compare Pa·Qb·q with p·Pb·Qa in integers
            # (fmpz products, no gcd canonicalisation: ~10× faster than fmpq arithmetic)
            Pa, Qa = _numerators_denominators(mech, a_idx, zs)
            Pb, Qb = _numerators_denominators(mech, b_idx, zs)
            lhs_base = Pa * Qb
            rhs_base = Pb * Qa
            k = int(np.argmax(Rc))
            while True:  # exact: move to a candidate with a larger ratio until none is left
                cls_best = (
                    _entry_fmpq(mech, int(a_idx[k]), int(zs[k]))
                    / _entry_fmpq(mech, int(b_idx[k]), int(zs[k])),
                    int(a_idx[k]), int(b_idx[k]), int(zs[k]),
                )
                cur = cls_best[0]
                exceed = np.nonzero(lhs_base * cur.q > rhs_base * cur.p)[0]
                if len(exceed) == 0:
                    break
                k = int(exceed[int(np.argmax(Rc[exceed]))])
        if cls_best is None:
            continue
        ratio = fmpq_to_fraction(cls_best[0])
        if best is None or compare_log_ratio(ratio, d, best[0], best[1]) > 0:
            best = (ratio, d, cls_best[1], cls_best[2], cls_best[3])
    if best is None:
        return zero_level(mech, metric, npairs, "exact")
    ratio, d, a, b, z = best
    value = log_ratio_value(ratio, d)
    return PrivacyLevelResult(
        value=value, enclosure=enclose_value(value), witness=(a, b, z), ratio=ratio,
        distance=d, method="exact", pairs_checked=npairs,
        _mechanism=mech, _metric=metric,
    )


@proved_by("mech_float_filter")
def level_ball(
    mech: Mechanism, metric: FiniteMetric, I: np.ndarray, J: np.ndarray
) -> PrivacyLevelResult:
    """Certified (ball) entries: an enclosure of the level, and a witness of its lower end.

    Candidates are chosen per distance class by directed float bounds of the entries'
    logarithms (:func:`~exactdp.mechanisms.float_filter.log_ratio_candidates`): an entry whose
    ball reaches 0 is unknown and always kept, never dropped as small, so the maximiser is
    always among the candidates (proofs/mech_float_filter.py, lemma B). Each candidate's ratio
    is then enclosed with balls (:func:`~exactdp.mechanisms.level_compare.log_ratio_bounds`).
    """
    A, B = _directed(I, J)
    npairs = len(I)
    if len(A) == 0:
        return zero_level(mech, metric, npairs, "ball")
    prec = mech.precision or 128
    with workprec(prec):
        balls = mech.to_balls()
        Lg, Ug = log_bounds(balls)
        best_lo: arb | None = None
        best_hi: arb | None = None
        best_w: tuple[int, int, int] | None = None
        best_d: Distance | None = None
        for v, members in _group_by_distance(metric, A, B).items():
            d = metric.values[v]
            a, b = A[members], B[members]
            rows, zs = log_ratio_candidates(Lg, Ug, a, b)
            for rr, zz in zip(rows.tolist(), zs.tolist()):
                ya, yb = int(a[rr]), int(b[rr])
                hx, hy = balls[ya, zz], balls[yb, zz]
                if not hx.upper() > 0:
                    continue  # h[ya, zz] = 0: no constraint
                lo, hi = log_ratio_points(hx, hy, d)
                if hi is None:
                    if hx > 0 and hy.is_zero():
                        return PrivacyLevelResult(
                            value=sympy.oo, enclosure=None, witness=(ya, yb, zz),
                            ratio=None, distance=d, method="ball",
                            pairs_checked=npairs, _mechanism=mech, _metric=metric,
                        )
                    raise PrecisionLimitReached(
                        f"entry [{yb}][{zz}] = {hy} is a ball containing 0: cannot "
                        "bound the privacy ratio; build the mechanism at higher precision."
                    )
                if best_hi is None or hi > best_hi:
                    best_hi = hi
                if lo is not None and (best_lo is None or lo > best_lo):
                    best_lo, best_w, best_d = lo, (ya, yb, zz), d
        if best_hi is None:
            return zero_level(mech, metric, npairs, "ball")
        hi_q = arb_to_fraction_interval(best_hi)[1]
        lo_q = Fraction(0) if best_lo is None else arb_to_fraction_interval(best_lo)[0]
    if lo_q <= 0:
        lo_q = Fraction(0)
        best_w = best_d = None  # the lower end 0 needs no witness
    return PrivacyLevelResult(
        value=None, enclosure=Enclosure(lo_q, max(hi_q, lo_q)), witness=best_w,
        ratio=None, distance=best_d, method="ball", pairs_checked=npairs,
        _mechanism=mech, _metric=metric,
    )
