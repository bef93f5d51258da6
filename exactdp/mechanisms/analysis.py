"""Exact analysis of a mechanism: privacy level, utility, min-entropy leakage.

* :func:`privacy_level` — the least ε such that H is ε·d0-private:
  max over checked pairs (y, y') and outputs z of ln(h[y,z]/h[y',z]) / d0(y, y'),
  with the witness (y, y', z). Only the graph's edges are checked for graph metrics
  (``metric.check_edges()``; the path argument: if the inequality holds on every edge
  it holds along every shortest path, whose lengths add up to d0).
* :func:`is_private` — the verdict at a given ε, with a violation witness.
* :func:`utility` — U(H, π, R) = Σ_y π_y (HR)[y, y], with the optimal remap by default
  (U* = Σ_z max_y π_y h[y, z]).
* :func:`min_entropy_leakage` — L(H, π) = log2 U* − log2 max_y π_y, exactly.

How the privacy level is computed exactly
-----------------------------------------
*Monomial mechanisms* (h[y,z] = c_z s^{E[y,z]}, see :class:`exactdp.mechanisms.core.MonomialForm`):
the ratio is s^{E[y,z] − E[y',z]}, so the level is (−ln s)·max Δ/d0 over integer Δ —
integer arithmetic only, exact for any s, even when the entries are only certified.

*Exact rational mechanisms*: float to find, exact to prove. Entries are converted to
floats with correct rounding, ratios are formed with one correctly rounded division,
so a float ratio is within a relative 2⁻⁵⁰ of the true ratio (entries below 2⁻¹⁰⁰⁰,
where floats lose relative accuracy, are always treated as candidates). For each
distance class, every (pair, z) whose float ratio is within a relative 10⁻¹² of the
class's float maximum is a *candidate*; the true maximum is among them. Candidates are
then compared exactly (``fmpq`` cross-multiplication), and the classes' maxima are
compared exactly as ln(R1)/d1 vs ln(R2)/d2 (certified balls, and exact integer powers
R1^a vs R2^b when the balls cannot separate them).

*Row-normalized mechanisms* (h = s^E / S_y(s), the exponential mechanism): the level is
max over edges of (Δ·(−ln s) + ln S_b(s) − ln S_a(s))/d; candidates are separated with balls of
rising precision and ties are decided exactly as polynomial identities in s (s transcendental)
or as identities of rationals (s rational).

*Certified mechanisms* (ball entries): the same search with balls; the result is an
enclosure, not an exact value.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import flint
import numpy as np
import sympy
from flint import arb

from exactdp.arithmetic.ball import (
    Sign,
    arb_from_fraction,
    arb_to_fraction_interval,
    certified_sign,
    sympy_to_arb,
    workprec,
)
from exactdp.arithmetic.rationals import to_fraction
from exactdp.errors import (
    InvalidArgument,
    InvalidMechanism,
    InvalidPrior,
    PrecisionLimitReached,
)
from exactdp.mechanisms.core import Mechanism, fmpq_to_float, from_rows
from exactdp.spaces.distances import Distance
from exactdp.spaces.levels import parse_level
from exactdp.spaces.metrics import FiniteMetric

__all__ = [
    "PrivacyLevelResult",
    "PrivacyCheck",
    "UtilityResult",
    "LeakageResult",
    "privacy_level",
    "is_private",
    "utility",
    "min_entropy_leakage",
    "parse_prior",
]

_REL_MARGIN = 1e-12
_TINY = 2.0**-1000


# =============================================================================
# privacy level
@dataclass(frozen=True)
class PrivacyLevelResult:
    """The least ε for which a mechanism is ε·d0-private.

    Attributes
    ----------
    value : sympy.Expr
        Exact value (``log(R)/d`` or ``κ·(−log s)``), ``sympy.oo`` when no ε works,
        ``None`` when only an enclosure is known (certified mechanisms).
    enclosure : tuple[Fraction, Fraction] | None
        Rational interval containing the level (None when infinite).
    witness : tuple[int, int, int] | None
        (y, y', z) attaining the maximum: h[y, z] = e^{level·d0(y, y')}·h[y', z]
        (or h[y, z] > 0 = h[y', z] when the level is infinite). None for a one-point space.
    ratio : Fraction | None
        h[y, z]/h[y', z] at the witness (exact mechanisms).
    distance : Distance | None
        d0(y, y') at the witness.
    exact : bool
        True when ``value`` is exact; False for a certified enclosure.
    method : str
        "monomial", "exact" or "ball".
    pairs_checked : int
        Number of unordered pairs examined (edges of the graph, or all pairs).
    """

    value: sympy.Expr | None
    enclosure: tuple[Fraction, Fraction] | None
    witness: tuple[int, int, int] | None
    ratio: Fraction | None
    distance: Distance | None
    exact: bool
    method: str
    pairs_checked: int
    _mechanism: Mechanism = field(repr=False, compare=False)
    _metric: FiniteMetric = field(repr=False, compare=False)

    @property
    def is_infinite(self) -> bool:
        return self.value is sympy.oo

    def __float__(self) -> float:
        if self.is_infinite:
            return float("inf")
        assert self.enclosure is not None
        return float((self.enclosure[0] + self.enclosure[1]) / 2)

    def verify(self) -> bool:
        """Re-check the claim by brute force over every checked pair and output.

        Independent of the search: checks that the witness attains the value, and that
        no (y, y', z) exceeds it (exact rationals; balls for certified mechanisms).
        Cost is O(pairs × outputs) Python operations: meant for small and medium sizes.
        """
        return _verify_level(self)

    def to_json(self) -> dict[str, Any]:
        return {
            "value": None if self.value is None else str(self.value),
            "enclosure": None if self.enclosure is None else [str(x) for x in self.enclosure],
            "witness": None if self.witness is None else list(self.witness),
            "ratio": None if self.ratio is None else str(self.ratio),
            "distance": None if self.distance is None else str(self.distance),
            "exact": self.exact,
            "method": self.method,
            "pairs_checked": self.pairs_checked,
        }


def _check_shapes(mechanism: Mechanism, metric: FiniteMetric) -> None:
    if not isinstance(mechanism, Mechanism):
        raise InvalidMechanism(
            f"Got {type(mechanism).__name__}; pass an exactdp Mechanism "
            "(exactdp.mechanisms.core.from_rows(...) turns a matrix into one)."
        )
    if mechanism.n_inputs != metric.n:
        raise InvalidMechanism(
            f"The mechanism has {mechanism.n_inputs} inputs but {metric.name} has "
            f"{metric.n} points; rows must correspond to the metric's points."
        )


def _pairs(metric: FiniteMetric) -> tuple[np.ndarray, np.ndarray]:
    edges = metric.check_edges()
    if not edges:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    arr = np.asarray(edges, dtype=np.int64).reshape(len(edges), 2)
    return arr[:, 0], arr[:, 1]


def privacy_level(
    mechanism: Mechanism, metric: FiniteMetric, *, method: str = "auto"
) -> PrivacyLevelResult:
    """The smallest ε such that ``mechanism`` is ε·d0-private for ``metric``, exactly.

    The monomial closed form and the edges-only path argument: proofs/mech_geometric_rows.py.

    Parameters
    ----------
    mechanism : Mechanism
        Rows indexed by the metric's points.
    metric : FiniteMetric
        The metric d0; for graph metrics only the graph's edges are checked.
    method : {"auto", "monomial", "row-monomial", "exact", "ball"}
        "auto" uses the monomial form (h = c_z s^E) or the row-normalized form
        (h = s^E / S_y(s), the exponential mechanism) when the mechanism has one — both
        exact for any s — else "exact" for exact mechanisms and "ball" for certified ones.

    Returns
    -------
    PrivacyLevelResult

    Examples
    --------
    >>> from exactdp.spaces.metrics import line
    >>> from exactdp.mechanisms.core import from_rows, truncated_geometric
    >>> H = from_rows([["3/4", "1/4"], ["1/4", "3/4"]])
    >>> r = privacy_level(H, line(2))
    >>> r.value, r.witness, r.verify()
    (log(3), (0, 1, 0), True)
    >>> privacy_level(truncated_geometric(5, eps="4/5"), line(5)).value
    4/5
    >>> privacy_level(from_rows([[1, 0], [0, 1]]), line(2)).value
    oo
    """
    _check_shapes(mechanism, metric)
    if method not in ("auto", "monomial", "row-monomial", "exact", "ball"):
        raise InvalidArgument(
            f"Got method={method!r}; choose 'auto', 'monomial', 'row-monomial', 'exact' "
            "or 'ball'."
        )
    I, J = _pairs(metric)
    if method == "auto":
        if mechanism.monomial is not None:
            method = "monomial"
        elif mechanism.row_normalized is not None:
            method = "row-monomial"
        else:
            method = "exact" if mechanism.kind == "exact" else "ball"
    if method == "row-monomial":
        if mechanism.row_normalized is None:
            raise InvalidArgument(f"{mechanism.name} has no row-normalized form.")
        return _level_rownorm(mechanism, metric, I, J)
    if method == "monomial":
        if mechanism.monomial is None:
            raise InvalidArgument(f"{mechanism.name} has no monomial form; use method='exact'.")
        return _level_monomial(mechanism, metric, I, J)
    if method == "exact":
        if mechanism.kind != "exact":
            raise InvalidMechanism(
                f"{mechanism.name} is certified (balls): its level can only be enclosed; "
                "use method='ball'."
            )
        return _level_exact(mechanism, metric, I, J)
    return _level_ball(mechanism, metric, I, J)


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


def _compare_kappa(k1: Fraction, d1: Distance, k2: Fraction, d2: Distance) -> int:
    """Exact sign of k1/d1 − k2/d2 for k ≥ 0 rational, d > 0 of the form c·√r."""
    lhs = k1 * k1 * d2.square  # compare (k1 d2)^2 with (k2 d1)^2, all nonnegative
    rhs = k2 * k2 * d1.square
    return (lhs > rhs) - (lhs < rhs)


def _level_monomial(
    mech: Mechanism, metric: FiniteMetric, I: np.ndarray, J: np.ndarray
) -> PrivacyLevelResult:
    form = mech.monomial
    assert form is not None
    E = form.exponents
    active = ~form.zero_columns
    A, B = _directed(I, J)
    npairs = len(I)
    if len(A) == 0 or not active.any():
        return _zero_level(mech, metric, npairs, "monomial")
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
        if best is None or _compare_kappa(kappa, d, best[0], best[1]) > 0:
            best = (kappa, d, top[1], top[2], top[3])
    assert best is not None
    kappa, d, y, y2, z = best
    neg_log_s = sympy.simplify(-sympy.log(form.s))
    value = sympy.nsimplify(kappa) * neg_log_s / d.to_sympy() if kappa else sympy.Integer(0)
    value = sympy.simplify(value)
    s_rat = form.s_rational
    ratio = s_rat ** (-int(kappa)) if s_rat is not None else None
    return PrivacyLevelResult(
        value=value, enclosure=_enclose(value), witness=(y, y2, z), ratio=ratio,
        distance=d, exact=True, method="monomial", pairs_checked=npairs,
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


def _poly_value_ball(coeffs: np.ndarray, s_ball: arb) -> arb:
    total = arb(0)
    p = arb(1)
    for c in coeffs.tolist():
        if c:
            total += c * p
        p *= s_ball
    return total


def _rownorm_equal(
    form: Any, metric: FiniteMetric, k1: tuple[int, int, int, int], k2: tuple[int, int, int, int]
) -> bool:
    """Exact equality of two edge values (Δ L + ln S_b − ln S_a)/d, L = −ln s.

    With d1 = c1/D, d2 = c2/D (integers c1, c2): equality ⇔
    s^(c1·Δ2)·S_b1^c2·S_a2^c1 = s^(c2·Δ1)·S_b2^c1·S_a1^c2 — a polynomial identity when s is
    transcendental (rational coefficients), an identity of rationals when s is rational.
    """
    polys, _ = form.row_polynomials
    d1 = metric.values[k1[3]].coef
    d2 = metric.values[k2[3]].coef
    D = d1.denominator * d2.denominator
    c1, c2 = int(d1 * D), int(d2 * D)
    s_rat = form.s_rational
    if s_rat is not None:
        def ev(v: np.ndarray) -> Fraction:
            return sum((int(c) * s_rat**k for k, c in enumerate(v.tolist()) if c), Fraction(0))

        lhs = s_rat ** (c1 * k2[0]) * ev(polys[k1[2]]) ** c2 * ev(polys[k2[1]]) ** c1
        rhs = s_rat ** (c2 * k1[0]) * ev(polys[k2[2]]) ** c1 * ev(polys[k1[1]]) ** c2
        return lhs == rhs

    def P(v: np.ndarray) -> flint.fmpz_poly:
        return flint.fmpz_poly([int(c) for c in v.tolist()])

    x = flint.fmpz_poly([0, 1])
    lhs_p = x ** (c1 * k2[0]) * P(polys[k1[2]]) ** c2 * P(polys[k2[1]]) ** c1
    rhs_p = x ** (c2 * k1[0]) * P(polys[k2[2]]) ** c1 * P(polys[k1[1]]) ** c2
    return bool(lhs_p == rhs_p)


def _rownorm_value_ball(form: Any, metric: FiniteMetric, key: tuple[int, int, int, int]) -> arb:
    """Ball of (Δ·(−ln s) + ln S_b(s) − ln S_a(s))/d at the current precision."""
    polys, _ = form.row_polynomials
    s_ball = sympy_to_arb(form.s)
    lnb = _poly_value_ball(polys[key[2]], s_ball).log()
    lna = _poly_value_ball(polys[key[1]], s_ball).log()
    return (key[0] * (-s_ball.log()) + lnb - lna) / metric.values[key[3]].ball()


def _verify_rownorm(res: PrivacyLevelResult) -> bool:
    """Independent re-check: every directed edge's value is ≤ the witness's, exactly."""
    mech, metric = res._mechanism, res._metric
    form = mech.row_normalized
    if form is None or res.witness is None or res.distance is None:
        return False
    E = form.exponents.tolist()
    polys, pid = form.row_polynomials
    # the witness's own key, recomputed from scratch
    a0, b0, z0 = res.witness
    m = len(E[0])
    d0 = metric.index[a0, b0]
    k0 = (max(E[b0][z] - E[a0][z] for z in range(m)), int(pid[a0]), int(pid[b0]), int(d0))
    if E[b0][z0] - E[a0][z0] != k0[0]:
        return False
    with workprec(256):
        if res.value is None or not sympy_to_arb(res.value).overlaps(
            _rownorm_value_ball(form, metric, k0)
        ):
            return False
    seen = set()
    for a, b in metric.check_edges():
        for x, y in ((a, b), (b, a)):
            key = (max(E[y][z] - E[x][z] for z in range(m)), int(pid[x]), int(pid[y]),
                   int(metric.index[x, y]))
            if key in seen or key == k0:
                continue
            seen.add(key)
            if _rownorm_equal(form, metric, key, k0):
                continue
            prec = 128
            while True:
                with workprec(prec):
                    diff = _rownorm_value_ball(form, metric, key) - _rownorm_value_ball(
                        form, metric, k0)
                    if diff < 0:
                        break
                    if diff > 0:
                        return False
                prec *= 2
                if prec > 4096:
                    return False
    return True


def _level_rownorm(
    mech: Mechanism, metric: FiniteMetric, I: np.ndarray, J: np.ndarray
) -> PrivacyLevelResult:
    form = mech.row_normalized
    assert form is not None
    A, B = _directed(I, J)
    npairs = len(I)
    if len(A) == 0:
        return _zero_level(mech, metric, npairs, "row-monomial")
    keys = _rownorm_keys(mech, metric, A, B)
    polys, _ = form.row_polynomials
    klist = list(keys)
    prec = 128
    while True:
        with workprec(prec):
            s_ball = sympy_to_arb(form.s)
            L = -s_ball.log()
            lnS = [_poly_value_ball(v, s_ball).log() for v in polys]
            vals = [
                (k[0] * L + lnS[k[2]] - lnS[k[1]]) / metric.values[k[3]].ball() for k in klist
            ]
            ib = max(range(len(klist)), key=lambda i: vals[i].lower())
            best_lo = vals[ib].lower()
            rivals = [i for i in range(len(klist)) if i != ib and not (vals[i].upper() < best_lo)]
            unresolved = [i for i in rivals if not _rownorm_equal(form, metric, klist[i],
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
    sv = form.s

    def S(v: np.ndarray) -> sympy.Expr:
        return sympy.Add(*[int(c) * sv**k for k, c in enumerate(v.tolist()) if c])

    value = (key[0] * (-sympy.log(sv)) + sympy.log(S(polys[key[2]])) - sympy.log(S(polys[key[1]])))
    value = value / d.to_sympy()
    if isinstance(sv, sympy.Rational) or polys[key[1]].tolist() == polys[key[2]].tolist():
        value = sympy.simplify(value)
    s_rat = form.s_rational
    ratio = None
    if s_rat is not None:
        def ev(v: np.ndarray) -> Fraction:
            return sum((int(c) * s_rat**k for k, c in enumerate(v.tolist()) if c), Fraction(0))

        ratio = s_rat ** (-key[0]) * ev(polys[key[2]]) / ev(polys[key[1]])
    with workprec(128):
        enc = arb_to_fraction_interval(_rownorm_value_ball(form, metric, key))
    return PrivacyLevelResult(
        value=value, enclosure=(max(enc[0], Fraction(0)), enc[1]), witness=(a, b, z),
        ratio=ratio, distance=d, exact=True, method="row-monomial", pairs_checked=npairs,
        _mechanism=mech, _metric=metric,
    )


def _zero_level(mech: Mechanism, metric: FiniteMetric, npairs: int, method: str) -> Any:
    return PrivacyLevelResult(
        value=sympy.Integer(0), enclosure=(Fraction(0), Fraction(0)), witness=None,
        ratio=None, distance=None, exact=True, method=method, pairs_checked=npairs,
        _mechanism=mech, _metric=metric,
    )


def _enclose(value: sympy.Expr, prec: int = 128) -> tuple[Fraction, Fraction]:
    with workprec(prec):
        return arb_to_fraction_interval(sympy_to_arb(value))


def _float_and_masks(mech: Mechanism) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Float matrix (correctly rounded), exact-zero mask, and 'unsafe' (tiny) mask."""
    ents = mech.entries_object()
    n, m = ents.shape
    F = np.empty((n, m), dtype=float)
    Z = np.zeros((n, m), dtype=bool)
    for i in range(n):
        row = ents[i]
        F[i, :] = [fmpq_to_float(v) for v in row]
        Z[i, :] = [v == 0 for v in row]
    unsafe = (~Z) & (F < _TINY)
    return F, Z, unsafe


def _numerators_denominators(ents: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Object arrays of the fmpz numerators and (positive) denominators of fmpq entries."""
    n, m = ents.shape
    P = np.empty((n, m), dtype=object)
    Q = np.empty((n, m), dtype=object)
    for i in range(n):
        row = ents[i]
        P[i, :] = [v.p for v in row]
        Q[i, :] = [v.q for v in row]
    return P, Q


def _level_exact(
    mech: Mechanism, metric: FiniteMetric, I: np.ndarray, J: np.ndarray
) -> PrivacyLevelResult:
    ents = mech.entries_object()
    A, B = _directed(I, J)
    npairs = len(I)
    if len(A) == 0:
        return _zero_level(mech, metric, npairs, "exact")
    F, Z, unsafe = _float_and_masks(mech)
    P = ~Z
    # infinite level: h[a,z] > 0 = h[b,z]
    bad = P[A] & Z[B]
    if bad.any():
        r, z = np.argwhere(bad)[0]
        a, b = int(A[r]), int(B[r])
        return PrivacyLevelResult(
            value=sympy.oo, enclosure=None, witness=(a, b, int(z)), ratio=None,
            distance=metric.distance(a, b), exact=True, method="exact",
            pairs_checked=npairs, _mechanism=mech, _metric=metric,
        )
    best: tuple[Fraction, Distance, int, int, int] | None = None
    m = F.shape[1]
    chunk = max(1, 4_000_000 // max(1, m))
    Pm, Qm = _numerators_denominators(ents)
    for v, members in _group_by_distance(metric, A, B).items():
        d = metric.values[v]
        # float maximum of the class
        fmax = 0.0
        for start in range(0, len(members), chunk):
            sel = members[start : start + chunk]
            with np.errstate(divide="ignore", invalid="ignore"):
                R = F[A[sel]] / F[B[sel]]
            R[~P[B[sel]]] = 0.0  # both zero: no constraint
            R[unsafe[A[sel]] | unsafe[B[sel]]] = 0.0
            fmax = max(fmax, float(R.max()))
        threshold = fmax * (1 - _REL_MARGIN)
        cls_best: tuple[flint.fmpq, int, int, int] | None = None
        for start in range(0, len(members), chunk):
            sel = members[start : start + chunk]
            with np.errstate(divide="ignore", invalid="ignore"):
                R = F[A[sel]] / F[B[sel]]
            R[~P[B[sel]]] = -1.0
            forced = (unsafe[A[sel]] | unsafe[B[sel]]) & P[B[sel]]
            cand = (R >= threshold) | forced
            rows, zs = np.nonzero(cand)
            if len(rows) == 0:
                continue
            a_idx = A[sel][rows]
            b_idx = B[sel][rows]
            # h[a,z]/h[b,z] = (Pa/Qa)/(Pb/Qb): compare Pa·Qb·q with p·Pb·Qa in integers
            # (fmpz products, no gcd canonicalisation: ~10× faster than fmpq arithmetic)
            Pa, Qa = Pm[a_idx, zs], Qm[a_idx, zs]
            Pb, Qb = Pm[b_idx, zs], Qm[b_idx, zs]
            lhs_base = Pa * Qb
            rhs_base = Pb * Qa
            if cls_best is None:
                k = int(np.argmax(R[rows, zs]))
                cls_best = (
                    ents[a_idx[k], zs[k]] / ents[b_idx[k], zs[k]],
                    int(a_idx[k]), int(b_idx[k]), int(zs[k]),
                )
            # exact: find candidates with ratio > current best; iterate until none
            while True:
                cur = cls_best[0]
                exceed = np.nonzero(lhs_base * cur.q > rhs_base * cur.p)[0]
                if len(exceed) == 0:
                    break
                k = int(exceed[int(np.argmax(R[rows, zs][exceed]))])
                cls_best = (
                    ents[a_idx[k], zs[k]] / ents[b_idx[k], zs[k]],
                    int(a_idx[k]), int(b_idx[k]), int(zs[k]),
                )
        if cls_best is None:
            continue
        ratio = Fraction(int(cls_best[0].p), int(cls_best[0].q))
        if best is None or _compare_log_ratio(ratio, d, best[0], best[1]) > 0:
            best = (ratio, d, cls_best[1], cls_best[2], cls_best[3])
    if best is None:
        return _zero_level(mech, metric, npairs, "exact")
    ratio, d, a, b, z = best
    value = sympy.log(sympy.Rational(ratio.numerator, ratio.denominator)) / d.to_sympy()
    return PrivacyLevelResult(
        value=value, enclosure=_enclose(value), witness=(a, b, z), ratio=ratio,
        distance=d, exact=True, method="exact", pairs_checked=npairs,
        _mechanism=mech, _metric=metric,
    )


def _compare_log_ratio(r1: Fraction, d1: Distance, r2: Fraction, d2: Distance) -> int:
    """Exact sign of ln(r1)/d1 − ln(r2)/d2 for rationals r ≥ 1 and distances d > 0.

    Balls separate distinct values; equality is decided exactly: when d1/d2 is rational
    (same radicand) it is r1^{a} = r2^{b} for integers a, b; when d1/d2 is irrational,
    Gelfond–Schneider makes equality impossible unless r1 = r2 = 1.
    """
    if r1 == 1 and r2 == 1:
        return 0
    if d1.radicand == d2.radicand or (d1.is_rational and d2.is_rational):
        # ln r1 / (c1 √r) vs ln r2 / (c2 √r): compare c2 ln r1 vs c1 ln r2
        c = d2.coef / d1.coef  # ln r1 · c vs ln r2  ⇔  r1^(c) vs r2
        a, b = c.numerator, c.denominator  # r1^a vs r2^b
        if a * max(r1.numerator.bit_length(), 1) < 200_000 and b * max(
            r2.numerator.bit_length(), 1
        ) < 200_000:
            lhs, rhs = r1**a, r2**b
            return (lhs > rhs) - (lhs < rhs)

    def diff(prec: int) -> arb:
        return (
            arb_from_fraction(r1).log() / d1.ball() - arb_from_fraction(r2).log() / d2.ball()
        )

    sign, _ = certified_sign(diff, what="difference of log-ratios")
    return {Sign.POSITIVE: 1, Sign.NEGATIVE: -1}.get(sign, 0)


def _level_ball(
    mech: Mechanism, metric: FiniteMetric, I: np.ndarray, J: np.ndarray
) -> PrivacyLevelResult:
    A, B = _directed(I, J)
    npairs = len(I)
    if len(A) == 0:
        return _zero_level(mech, metric, npairs, "ball")
    balls = mech.to_balls()
    n, m = balls.shape
    prec = mech.precision or 128
    with workprec(prec):
        lo = np.empty((n, m))
        hi = np.empty((n, m))
        for (i, j), v in np.ndenumerate(balls):
            lo[i, j] = max(0.0, float(v.lower()))
            hi[i, j] = float(v.upper())
        # float bounds inflated to cover the rounding of the float conversions
        lo_f = lo * (1 - 1e-15)
        hi_f = hi * (1 + 1e-15) + 1e-300
        best_lo: arb | None = None
        best_hi: arb | None = None
        best_w: tuple[int, int, int] | None = None
        best_d: Distance | None = None
        for v, members in _group_by_distance(metric, A, B).items():
            d = metric.values[v]
            a, b = A[members], B[members]
            with np.errstate(divide="ignore", invalid="ignore"):
                r_hi = hi_f[a] / lo_f[b]  # upper bound of each ratio (inf if lo = 0)
                r_lo = lo_f[a] / hi_f[b]
            r_hi = np.where(hi_f[a] <= 1e-300, 0.0, r_hi)
            if np.isinf(r_hi).any():
                rr, zz = np.argwhere(np.isinf(r_hi))[0]
                ya, yb = int(a[rr]), int(b[rr])
                if balls[ya, zz] > 0 and balls[yb, zz].is_zero():
                    return PrivacyLevelResult(
                        value=sympy.oo, enclosure=None, witness=(ya, yb, int(zz)),
                        ratio=None, distance=d, exact=True, method="ball",
                        pairs_checked=npairs, _mechanism=mech, _metric=metric,
                    )
                raise PrecisionLimitReached(
                    f"entry [{yb}][{zz}] = {balls[yb, zz]} is a ball containing 0: cannot "
                    "bound the privacy ratio; build the mechanism at higher precision."
                )
            floor = float(np.nanmax(r_lo)) * (1 - 1e-12)
            rows, zs = np.nonzero(r_hi >= floor)
            for rr, zz in zip(rows.tolist(), zs.tolist()):
                ya, yb = int(a[rr]), int(b[rr])
                ratio_ball = balls[ya, zz] / balls[yb, zz]
                lval = ratio_ball.log() / d.ball()
                if best_lo is None or best_hi is None:
                    best_lo, best_hi, best_w, best_d = lval, lval, (ya, yb, zz), d
                    continue
                if lval.lower() > best_lo.lower():
                    best_lo, best_w, best_d = lval, (ya, yb, zz), d
                if lval.upper() > best_hi.upper():
                    best_hi = lval
        if best_lo is None or best_hi is None:
            return _zero_level(mech, metric, npairs, "ball")
        lo_q = arb_to_fraction_interval(best_lo)[0]
        hi_q = arb_to_fraction_interval(best_hi)[1]
    return PrivacyLevelResult(
        value=None, enclosure=(max(lo_q, Fraction(0)), hi_q), witness=best_w, ratio=None,
        distance=best_d, exact=False, method="ball", pairs_checked=npairs,
        _mechanism=mech, _metric=metric,
    )


def _verify_level(res: PrivacyLevelResult) -> bool:
    mech, metric = res._mechanism, res._metric
    if res.method == "row-monomial":
        return _verify_rownorm(res)
    edges = metric.check_edges()
    if res.value is sympy.oo:
        assert res.witness is not None
        a, b, z = res.witness
        if mech.kind == "exact":
            return mech.entry(a, z) > 0 and mech.entry(b, z) == 0
        return bool(mech.entry(a, z) > 0 and mech.entry(b, z).is_zero())
    if mech.kind == "exact" and res.exact and res.value is not None:
        # every ratio r on a pair at distance d must satisfy ln r / d ≤ value
        rows = mech.rows_fraction()
        if res.witness is None:
            return all(
                rows[a][z] == rows[b][z]
                for a, b in edges
                for z in range(mech.n_outputs)
            )
        a0, b0, z0 = res.witness
        if rows[b0][z0] == 0:
            return False
        r0 = rows[a0][z0] / rows[b0][z0]
        d0 = metric.distance(a0, b0)
        with workprec(256):
            if not sympy_to_arb(res.value).overlaps(arb_from_fraction(r0).log() / d0.ball()):
                return False
        for a, b in edges:
            d = metric.distance(a, b)
            for x, y in ((a, b), (b, a)):
                for z in range(mech.n_outputs):
                    hx, hy = rows[x][z], rows[y][z]
                    if hx == 0:
                        continue
                    if hy == 0:
                        return False
                    if _compare_log_ratio(hx / hy, d, r0, d0) > 0:
                        return False
        return True
    if mech.monomial is not None and res.method == "monomial":
        # exact integer re-check: every Δ/d ≤ κ/d* with Δ = E[y,z] − E[x,z] on active columns
        form = mech.monomial
        if res.witness is None or res.distance is None:
            return False
        a0, b0, z0 = res.witness
        E = form.exponents
        kappa = Fraction(int(E[b0, z0]) - int(E[a0, z0]))
        with workprec(256):
            claim = sympy_to_arb(-sympy.log(form.s)) * int(kappa) / res.distance.ball()
            if res.value is None or not sympy_to_arb(res.value).overlaps(claim):
                return False
        active = [z for z in range(mech.n_outputs) if not form.zero_columns[z]]
        for a, b in edges:
            d = metric.distance(a, b)
            for x, y in ((a, b), (b, a)):
                delta = max(int(E[y, z]) - int(E[x, z]) for z in active)
                if _compare_kappa(Fraction(delta), d, kappa, res.distance) > 0:
                    return False
        return True
    # certified entries: every ratio's ball must lie below the enclosure's upper end
    if res.enclosure is None:
        return False
    hi = res.enclosure[1]
    balls = mech.to_balls()
    with workprec(mech.precision or 128):
        bound = arb_from_fraction(hi)
        for a, b in edges:
            db = metric.distance(a, b).ball()
            for x, y in ((a, b), (b, a)):
                for z in range(mech.n_outputs):
                    hx, hy = balls[x, z], balls[y, z]
                    if hx.is_zero():
                        continue
                    if not ((hx / hy).log() / db <= bound):
                        return False
    return True


# =============================================================================
# privacy verdict
@dataclass(frozen=True)
class PrivacyCheck:
    """Verdict of :func:`is_private`.

    Attributes
    ----------
    private : bool
        Certified verdict: H is ε·d0-private.
    eps : sympy.Expr
        The level asked about.
    level : PrivacyLevelResult
        The mechanism's own (least) level.
    violation : tuple[int, int, int] | None
        (y, y', z) with h[y, z] > e^{ε·d0(y, y')}·h[y', z] when not private.
    precision : int | None
        Bits used by the ball comparison that settled the verdict (None if exact).
    """

    private: bool
    eps: sympy.Expr
    level: PrivacyLevelResult
    violation: tuple[int, int, int] | None
    precision: int | None

    def __bool__(self) -> bool:
        return self.private

    def verify(self) -> bool:
        """Re-verify the level, and the comparison with ε."""
        if not self.level.verify():
            return False
        if self.level.is_infinite:
            return not self.private
        return self.private == (_level_le_eps(self.level, self.eps)[0])


def _level_le_eps(level: PrivacyLevelResult, eps: sympy.Expr) -> tuple[bool, int | None]:
    if level.is_infinite:
        return False, None
    # exact route: level = ln(R)/d with R, d rational and ε = −ln t with t rational:
    # ln(R)/d ≤ −ln t ⇔ R ≤ t^(−d) ⇔ R^q ≤ (1/t)^p for d = p/q
    t_val = sympy.exp(-eps)
    if (
        level.ratio is not None and level.distance is not None and level.distance.is_rational
        and isinstance(t_val, sympy.Rational) and level.method in ("exact", "monomial")
    ):
        d = level.distance.coef
        tq = Fraction(int(t_val.p), int(t_val.q))
        return level.ratio ** d.denominator <= (1 / tq) ** d.numerator, None
    if level.value is not None:
        diff = sympy.simplify(level.value - eps)
        if diff == 0:
            return True, None
        if diff.is_number and diff.is_comparable:
            sign, prec = certified_sign(lambda p: sympy_to_arb(diff), what="level − ε")
            return sign is not Sign.POSITIVE, prec
    assert level.enclosure is not None
    lo, hi = level.enclosure

    def ev_hi(prec: int) -> arb:
        return sympy_to_arb(eps) - arb_from_fraction(hi)

    sign, prec = certified_sign(ev_hi, what="ε − level upper bound")
    if sign in (Sign.POSITIVE, Sign.ZERO):
        return True, prec
    sign2, prec2 = certified_sign(
        lambda p: arb_from_fraction(lo) - sympy_to_arb(eps), what="level lower bound − ε"
    )
    if sign2 is Sign.POSITIVE:
        return False, prec2
    raise PrecisionLimitReached(
        f"the certified level enclosure [{lo}, {hi}] contains ε = {eps}; rebuild the "
        "mechanism at a higher precision to decide."
    )


def is_private(
    mechanism: Mechanism, metric: FiniteMetric, eps: Any = None, *, t: Any = None
) -> PrivacyCheck:
    """Decide whether ``mechanism`` is ε·d0-private, with a violation witness if not.

    >>> from exactdp.spaces.metrics import line
    >>> from exactdp.mechanisms.core import truncated_geometric
    >>> H = truncated_geometric(4, t="1/2")
    >>> bool(is_private(H, line(4), t="1/2")), bool(is_private(H, line(4), t="3/4"))
    (True, False)
    >>> is_private(H, line(4), t="3/4").violation     # h[0,0] = 2·h[1,0] > e^ε·h[1,0]
    (0, 1, 0)
    """
    lv = parse_level(eps=eps, t=t)
    level = privacy_level(mechanism, metric)
    ok, prec = _level_le_eps(level, lv.eps)
    return PrivacyCheck(
        private=ok, eps=lv.eps, level=level, violation=None if ok else level.witness,
        precision=prec,
    )


# =============================================================================
# priors, utility, leakage
def parse_prior(prior: Any, n: int) -> tuple[Fraction, ...]:
    """Exact prior of length n: nonnegative rationals summing to 1 (``"uniform"`` allowed).

    >>> parse_prior("uniform", 2)
    (Fraction(1, 2), Fraction(1, 2))
    >>> parse_prior(["1/2", "1/2", 0], 2)
    Traceback (most recent call last):
    ...
    exactdp.errors.InvalidPrior: Got a prior of length 3 for 2 points; it needs one ...
    """
    if isinstance(prior, str) and prior == "uniform":
        return tuple([Fraction(1, n)] * n)
    try:
        vals = list(prior)
    except TypeError as exc:
        raise InvalidPrior(f"Got prior={prior!r}; pass a sequence of probabilities.") from exc
    if len(vals) != n:
        raise InvalidPrior(
            f"Got a prior of length {len(vals)} for {n} points; it needs one probability "
            f"per point (input) of the mechanism."
        )
    out = []
    for i, v in enumerate(vals):
        try:
            f = to_fraction(v, f"prior[{i}]")
        except InvalidArgument as exc:
            raise InvalidPrior(str(exc)) from exc
        if f < 0:
            raise InvalidPrior(f"prior[{i}] = {f} is negative; probabilities are ≥ 0.")
        out.append(f)
    total = sum(out, Fraction(0))
    if total != 1:
        raise InvalidPrior(f"The prior sums to {total}, not 1 (normalise it).")
    return tuple(out)


@dataclass(frozen=True)
class UtilityResult:
    """U(H, π, R) = Σ_y π_y (HR)[y, y] (binary gain).

    Attributes
    ----------
    value : Fraction | None
        Exact utility (exact mechanisms), else None.
    enclosure : tuple[Fraction, Fraction]
        Interval containing the utility (degenerate when exact).
    remap : tuple[int, ...] | None
        The optimal deterministic remap (output z ↦ guessed input) when R was not given.
    optimal_remap : bool
        True when the optimal remap was used.
    exact : bool
    """

    value: Fraction | None
    enclosure: tuple[Fraction, Fraction]
    remap: tuple[int, ...] | None
    optimal_remap: bool
    exact: bool
    _mechanism: Mechanism = field(repr=False, compare=False)
    _prior: tuple[Fraction, ...] = field(repr=False, compare=False)

    def __float__(self) -> float:
        return float((self.enclosure[0] + self.enclosure[1]) / 2)

    def verify(self) -> bool:
        """Recompute Σ_z π_{R(z)} h[R(z), z] (optimal remap) and the optimality of R."""
        if not (self.exact and self.optimal_remap and self.remap is not None):
            return True
        rows = self._mechanism.rows_fraction()
        pi = self._prior
        total = Fraction(0)
        for z, y in enumerate(self.remap):
            g = pi[y] * rows[y][z]
            if any(pi[x] * rows[x][z] > g for x in range(len(pi))):
                return False
            total += g
        return total == self.value


def _column_argmax_exact(weighted: np.ndarray, Fw: np.ndarray) -> np.ndarray:
    """Exact argmax per column of an fmpq object matrix, float-guided."""
    m = weighted.shape[1]
    out = np.empty(m, dtype=np.int64)
    fmax = Fw.max(axis=0)
    for z in range(m):
        cand = np.nonzero((Fw[:, z] >= fmax[z] * (1 - _REL_MARGIN)) | (Fw[:, z] < _TINY))[0]
        best = int(cand[0])
        bv = weighted[best, z]
        for y in cand[1:].tolist():
            v = weighted[y, z]
            if v > bv:
                best, bv = y, v
        out[z] = best
    return out


def utility(mechanism: Mechanism, prior: Any = "uniform", remap: Any = None) -> UtilityResult:
    """Utility of a mechanism under binary gain, with the optimal or a given remap.

    Parameters
    ----------
    mechanism : Mechanism
    prior : sequence or "uniform"
        Exact probabilities over the mechanism's inputs.
    remap : None, Mechanism, or matrix (outputs × inputs)
        None for the optimal remap z ↦ argmax_y π_y h[y, z]; otherwise a row-stochastic
        matrix from outputs to inputs.

    Examples
    --------
    >>> from exactdp.mechanisms.core import from_rows
    >>> H = from_rows([["3/4", "1/4"], ["1/4", "3/4"]])
    >>> utility(H, ["1/2", "1/2"]).value
    Fraction(3, 4)
    >>> utility(H, ["1/2", "1/2"], remap=[[0, 1], [1, 0]]).value
    Fraction(1, 4)
    """
    n, m = mechanism.shape
    pi = parse_prior(prior, n)
    if remap is not None:
        R = remap if isinstance(remap, Mechanism) else _remap_from(remap)
        if R.shape != (m, n):
            raise InvalidMechanism(
                f"the remap has shape {R.shape}; it must map the {m} outputs to the {n} "
                f"inputs (shape ({m}, {n}))."
            )
        HR = mechanism.compose(R)
        if HR.kind == "exact":
            val = sum((pi[y] * HR.entry(y, y) for y in range(n)), Fraction(0))
            return UtilityResult(val, (val, val), None, False, True, mechanism, pi)
        with workprec(HR.precision or 128):
            tot = arb(0)
            for y in range(n):
                tot += arb_from_fraction(pi[y]) * HR.entry(y, y)
            enc = arb_to_fraction_interval(tot)
        return UtilityResult(None, enc, None, False, False, mechanism, pi)
    if mechanism.kind == "exact":
        ents = mechanism.entries_object()
        pif = [flint.fmpq(p.numerator, p.denominator) for p in pi]
        weighted = np.empty(ents.shape, dtype=object)
        for y in range(n):
            weighted[y, :] = ents[y, :] * pif[y]
        Fw = np.array([[fmpq_to_float(v) for v in row] for row in weighted], dtype=float)
        arg = _column_argmax_exact(weighted, Fw)
        total = sum((weighted[int(arg[z]), z] for z in range(m)), flint.fmpq(0))
        val = Fraction(int(total.p), int(total.q))
        return UtilityResult(
            val, (val, val), tuple(int(x) for x in arg), True, True, mechanism, pi
        )
    balls = mechanism.to_balls()
    with workprec(mechanism.precision or 128):
        pib = [arb_from_fraction(p) for p in pi]
        lo_tot = arb(0)
        hi_tot = arb(0)
        arg_l = []
        for z in range(m):
            col = [pib[y] * balls[y, z] for y in range(n)]
            lowers = [c.lower() for c in col]
            k = max(range(n), key=lambda y: lowers[y])
            lo_tot += lowers[k]
            hi_tot += max((c.upper() for c in col), key=lambda x: x)
            arg_l.append(k)
        lo_q = arb_to_fraction_interval(lo_tot)[0]
        hi_q = arb_to_fraction_interval(hi_tot)[1]
    return UtilityResult(None, (lo_q, hi_q), tuple(arg_l), True, False, mechanism, pi)


def _remap_from(remap: Any) -> Mechanism:
    try:
        return from_rows(remap, name="remap")
    except InvalidMechanism as exc:
        raise InvalidMechanism(f"the remap is not a stochastic matrix: {exc}") from exc


@dataclass(frozen=True)
class LeakageResult:
    """Min-entropy leakage L(H, π) = log2(U*/max π), exactly.

    Attributes
    ----------
    ratio : Fraction | None
        The exact rational U*/max_y π_y (so L = log2(ratio)).
    value : sympy.Expr | None
        ``log(ratio)/log(2)`` exactly.
    enclosure : tuple[Fraction, Fraction]
        Interval containing L in bits.
    utility : UtilityResult
    """

    ratio: Fraction | None
    value: sympy.Expr | None
    enclosure: tuple[Fraction, Fraction]
    utility: UtilityResult

    def __float__(self) -> float:
        return float((self.enclosure[0] + self.enclosure[1]) / 2)

    def verify(self) -> bool:
        if not self.utility.verify():
            return False
        if self.ratio is None:
            return True
        pmax = max(self.utility._prior)
        return self.utility.value is not None and self.ratio == self.utility.value / pmax


def min_entropy_leakage(mechanism: Mechanism, prior: Any = "uniform") -> LeakageResult:
    """Min-entropy leakage L(H, π) = log2 Σ_z max_y π_y h[y, z] − log2 max_y π_y.

    >>> from exactdp.mechanisms.core import from_rows
    >>> L = min_entropy_leakage(from_rows([["3/4", "1/4"], ["1/4", "3/4"]]))
    >>> L.ratio, L.value
    (Fraction(3, 2), log(3/2)/log(2))
    """
    U = utility(mechanism, prior)
    pmax = max(U._prior)
    if U.exact and U.value is not None:
        ratio = U.value / pmax
        value = sympy.log(sympy.Rational(ratio.numerator, ratio.denominator)) / sympy.log(2)
        with workprec(128):
            enc = arb_to_fraction_interval(
                arb_from_fraction(ratio).log() / arb(2).log()
            )
        return LeakageResult(ratio, value, enc, U)
    with workprec(128):
        lo = arb_from_fraction(U.enclosure[0] / pmax)
        hi = arb_from_fraction(U.enclosure[1] / pmax)
        lo_q = arb_to_fraction_interval(lo.log() / arb(2).log())[0]
        hi_q = arb_to_fraction_interval(hi.log() / arb(2).log())[1]
    return LeakageResult(None, None, (lo_q, hi_q), U)
