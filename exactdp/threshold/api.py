"""Thresholds: the exact ε at which tight constraints start to exist / a prior becomes regular.

ε* = inf{ε > 0 : the property holds for every ε' ≥ ε}, where the property is
"Φx = b has a solution x ≥ 0" with b = 1 (tight constraints, Prop. 7) or b = π
(regularity of π, Def. 4; Φ is symmetric so αΦ = π ⇔ Φα = π).

Routes (the one that ran is named in ``.method``):

``prop9``
    ball-size-symmetric space, b = 1 (or uniform π, Prop. 8): z = 1/Σ_r n_r e^{-εr} > 0
    for every ε, so ε* = 0 (``proofs/prop9_ball_symmetric.py``).
``kronecker``
    Φ = ⊗Φ_k and b = ⊗b_k: the property holds iff it holds for every factor
    (lemma in :mod:`exactdp.algebra.structure`), so ε* = max_k ε*_k; factors are solved by the
    routes below (identical factors once).
``structured-toeplitz``
    tight constraints (b = 1), ``max_exact_n`` < n ≤ ``max_structured_n`` (any n with
    ``method="exact"``), Φ symmetric Toeplitz with an eventually repeating symbol
    a_{k+v} = s^c·a_k for k ≥ k0 (the sum query; band metrics, c = 0, k0 = w):
    :mod:`exactdp.threshold.structured` (ε* as an algebraic number through the
    banded reduction; falls through when it does not apply — e.g. on the line, where no z_i
    ever turns negative).
``equitable-quotient``
    polynomial case, n > ``max_exact_n``, the coarsest equitable partition compatible with b
    has at most n/2 cells (and, under ``auto``, ≤ ``max_exact_n`` cells and a degree bound
    ≤ :data:`~exactdp.threshold.quotient.MAX_QUOTIENT_DEGREE`): the exact route on the
    quotient system (:mod:`exactdp.threshold.quotient`; count_queries(30): 136 cells); if
    its solve gives up (InstanceTooLarge, PrecisionLimitReached) the next route runs.
``exact``
    polynomial case, n ≤ ``max_exact_n``: :mod:`exactdp.threshold.exact` (the whole ε-set,
    ε* as an algebraic number, an exact certificate).
``… (distances in units of c)``
    a smallest distance outside [2⁻²⁰, 2²⁰] (off the small exact route), or a Kronecker grid
    with spacing ≠ 1: the metric d/c (a grid at spacing 1) by the routes here, ε* divided by c
    exactly, one ``exact-scaled`` certificate (:func:`exactdp.threshold.certified.scaled_route`).
``certified``
    everything else: :mod:`exactdp.threshold.certified` (float search, a certified failing
    point, a certified cover of [eps_upper, ∞) by the perturbation lemma and SPD Taylor or
    mean-value Krawczyk ranges).

Examples
--------
>>> from exactdp.spaces.metrics import line, sum_query
>>> r = epsilon_threshold(line(4))                 # geometric mechanism: every ε
>>> r.eps_lower, r.eps_upper, r.method
(Fraction(0, 1), Fraction(0, 1), 'exact')
>>> r = epsilon_threshold(sum_query(2, 2))
>>> r.exact.minimal_polynomial, r.eps_upper - r.eps_lower <= Fraction(1, 10**9)
((-1, 1, 1), True)
>>> r.certificate.verify()
True
"""

from __future__ import annotations

import dataclasses
import functools
import time
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from exactdp.algebra.structure import KroneckerSplit, kronecker_split
from exactdp.algebra.symbolic import SYMBOLIC_MAX_N
from exactdp.arithmetic.rationals import to_fraction
from exactdp.arithmetic.validate import read_tol
from exactdp.errors import (
    CertificateInvalid,
    InstanceTooLarge,
    InvalidArgument,
    PrecisionLimitReached,
    PropertyNeverHolds,
)
from exactdp.progress import Progress, report
from exactdp.spaces.grid import force_matrix_free
from exactdp.spaces.metrics import FiniteMetric
from exactdp.spaces.priors import read_prior
from exactdp.threshold.binding import same_distances
from exactdp.threshold.certificates import KroneckerThresholdCertificate, Prop9Certificate
from exactdp.threshold.certified import certified_route, far_from_one, scaled_route, unit_of
from exactdp.threshold.exact import exact_set, exact_threshold
from exactdp.threshold.quotient import MAX_QUOTIENT_DEGREE, quotient_partition, quotient_route
from exactdp.threshold.results import DEFAULT_TOL, EpsilonSet, ThresholdResult, property_name
from exactdp.threshold.structured import structured_everywhere, structured_route
from exactdp.threshold.toeplitz_general import toeplitz_general_applies, toeplitz_general_route

#: from this size on the exact route of a symmetric Toeplitz metric uses the Toeplitz solve
#: (``exactdp.algebra.toeplitz_general``; equal to the generic solve at n = 100, 2.6× faster at 200)
TOEPLITZ_GENERAL_FROM_N = 150

__all__ = ["epsilon_threshold", "regular_epsilons", "tight_constraints_epsilons", "THRESHOLD_METHODS"]

#: The values of ``method=`` accepted by :func:`epsilon_threshold`.
THRESHOLD_METHODS = ("auto", "exact", "certified")


def epsilon_threshold(
    metric: FiniteMetric,
    prior: Any = None,
    tol: Any = DEFAULT_TOL,
    *,
    method: str = "auto",
    max_exact_n: int = 160,
    max_structured_n: int = 1001,
    eps_max: Any = None,
    progress: Progress = None,
    verify: bool = False,
    matrix_free: bool = False,
) -> ThresholdResult:
    """The least ε above which the property holds for good, enclosed with a certificate.

    Parameters
    ----------
    metric : FiniteMetric
    prior : "uniform", sequence or mapping, optional
        None: tight-constraints existence (b = 1). Otherwise the threshold of the prior's
        regularity (b = π), read by :func:`exactdp.spaces.priors.read_prior`.
    tol : positive rational
        Width of [eps_lower, eps_upper] (default 10⁻⁹).
    method : {"auto", "exact", "certified"}
        ``auto`` uses Prop. 9 / Kronecker structure first, then the exact route in the
        polynomial case with n ≤ ``max_exact_n``, else the certified route.
    max_exact_n : int
        Size limit of the exact route under ``auto``.
    max_structured_n : int
        Size limit of the structured exact route (repeating Toeplitz metrics, tight
        constraints) under ``auto``: its cost grows like n^3.3 (sum_query: n = 751 in
        10–15 s, 1,001 in about 45 s, 1,501 in about 144 s), the certified route's far more
        gently. ``method="exact"`` uses the structured route at any size where it applies.
        Up to this size the structured z(s) also proves "holds for every ε" (ε* = 0) where
        the float search sees no failure and n exceeds the exact route's 400 (the line).
    eps_max : rational, optional
        Raise :class:`PropertyNeverHolds` when the property does not hold for good
        below ``eps_max`` (ε* > eps_max).
    progress : callable(stage, message), optional
        Receives progress reports (:mod:`exactdp.progress`; the CLI prints them on stderr).
    verify : bool
        Run the certificate's independent ``verify()`` before returning (raising
        :class:`CertificateInvalid` if it fails); the result then has ``verified=True``.
    matrix_free : bool
        False (default): grids and masked grids (:func:`~exactdp.spaces.metrics.masked.masked_grid`)
        under the Euclidean or Manhattan norm with more than
        :data:`~exactdp.spaces.grid.MATRIX_FREE_ABOVE_N` points take the matrix-free
        certified route when they reach the certified route
        (:func:`~exactdp.spaces.grid.use_matrix_free`; full Manhattan grids go the Kronecker
        route first). True: the matrix-free certified route on any Euclidean or Manhattan
        grid or masked grid, whatever its size (after Prop. 9; no Kronecker, structured,
        quotient or exact route, except that a grid whose float search finds no failure
        (ε* = 0, e.g. 1×n) is proved "for every ε" as the default route does) — e.g. to
        compare it with the dense route on a small grid.
        The matrix-free cover's certificate has the kernel kind ``grid-threshold`` (the grid
        travels as its shape, mask included).

    Returns
    -------
    ThresholdResult
        Before ``verify()`` runs, a certified-route enclosure rests on the search's own
        floating-point rounding analysis (Demmel's Cholesky bound, float row sums with
        subnormals kept); ``verify()`` re-proves it independently with exact arithmetic on
        dense metrics. It is not run by default because it costs more than the search
        (≈ 12 s for sum_query(150, 5)); see :class:`ThresholdResult` for what holds per
        route. The CLI ``exactdp threshold`` verifies unless ``--no-verify``.

    Notes
    -----
    The perturbation lemma (near t = 0) and the Kronecker sign lemma are proved in
    ``proofs/threshold_lemmas.py``; Prop. 9 in ``proofs/prop9_ball_symmetric.py``.

    Raises
    ------
    InvalidTolerance, InvalidPrior, PropertyNeverHolds, InstanceTooLarge, CertificateInvalid

    Examples
    --------
    >>> from exactdp.spaces.metrics import hamming
    >>> r = epsilon_threshold(hamming(4, 2), ["1/16"] * 16)
    >>> r.holds_everywhere, r.method
    (True, 'prop9')
    """
    t_start = time.perf_counter()
    tol_q = read_tol(tol)
    if not isinstance(verify, bool):
        raise InvalidArgument(f"Got verify={verify!r}; pass True or False.")
    if method not in THRESHOLD_METHODS:
        raise InvalidArgument(f"Got method={method!r}; choose one of {THRESHOLD_METHODS}.")
    for name, v in (("max_exact_n", max_exact_n), ("max_structured_n", max_structured_n)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise InvalidArgument(f"Got {name}={v!r}; pass a whole number ≥ 0 (a size limit).")
    if not isinstance(matrix_free, bool):
        raise InvalidArgument(f"Got matrix_free={matrix_free!r}; pass True (force the matrix-free "
                              "grid route) or False (the size rule).")
    if matrix_free and method == "exact":
        raise InvalidArgument("Got method='exact' with matrix_free=True; the matrix-free route is "
                              "certified (enclosures): pass method='auto' or 'certified'.")
    rhs = None if prior is None else read_prior(metric, prior)
    if matrix_free:
        with force_matrix_free(metric):  # InvalidMetric unless a Euclidean/Manhattan grid
            res = _threshold(metric, rhs, tol_q, method, max_exact_n, progress,
                             max_structured_n, matrix_free=True)
    else:
        res = _threshold(metric, rhs, tol_q, method, max_exact_n, progress, max_structured_n)
    if eps_max is not None:
        em = to_fraction(eps_max, "eps_max")
        if res.eps_lower >= em:
            raise PropertyNeverHolds(
                f"On {metric.name}, {res.question} does not hold for good below "
                f"eps_max = {em}: ε* ≥ {res.eps_lower} (certified; see .evidence).",
                evidence=res,
            )
    if res.seconds == 0:
        res = dataclasses.replace(res, seconds=time.perf_counter() - t_start)
    res = dataclasses.replace(res, metric=metric)  # what verify() binds the certificate to
    if verify and not res.verify():
        raise CertificateInvalid(
            f"the certificate of the threshold on {metric.name} ({res.method}) failed its "
            "independent re-check; this is a bug, please report it with the instance."
        )
    return res


def _is_uniform(rhs: tuple[Fraction, ...] | None) -> bool:
    return rhs is None or len(set(rhs)) == 1


def _threshold(metric: FiniteMetric, rhs: tuple[Fraction, ...] | None, tol: Fraction,
               method: str, max_exact_n: int, progress: Progress,
               max_structured_n: int = 1001, matrix_free: bool = False) -> ThresholdResult:
    t0 = time.perf_counter()
    timings: list[tuple[str, float]] = []
    prop = property_name(rhs)

    def _recurse(m1: FiniteMetric, tol1: Fraction) -> ThresholdResult:
        return _threshold(m1, rhs, tol1, method, max_exact_n, progress, max_structured_n)
    if rhs is not None and min(rhs) == 0:
        i = rhs.index(Fraction(0))
        raise PropertyNeverHolds(
            f"prior[{i}] = 0: a prior with a zero entry is regular at no ε > 0 (Prop. 1: "
            f"π_j/π_{i} ≤ e^(ε d) fails for every j with π_j > 0). Give every point a "
            "positive probability.",
            evidence={"zero_index": i},
        )
    if method == "auto" and _is_uniform(rhs) and metric.ball_size_symmetric:
        cert = Prop9Certificate(metric, rhs)
        return ThresholdResult(metric.name, rhs, Fraction(0), Fraction(0), cert, None, metric.q,
                               "prop9", time.perf_counter() - t0, (("prop9", 0.0),), prop)
    if matrix_free:  # asked for: straight to the certified route (no n×n structure checks)
        unit = unit_of(metric) if far_from_one(metric) else None
        if unit is not None:  # a spacing far from 1: the same grid at spacing 1, divided by c
            return scaled_route(metric, rhs, tol, progress, unit,
                                functools.partial(_forced, rhs=rhs, method=method, max_exact_n=max_exact_n,
                                                  progress=progress, max_structured_n=max_structured_n))
        report(progress, "threshold", f"{metric.name}: matrix-free certified route (asked for)")
        return certified_route(metric, rhs, tol, progress, timings,  # ε* = 0 (1×n): exact
                               everywhere=_everywhere(metric, rhs, tol, progress, timings,
                                                      max_exact_n, max_structured_n))
    if method == "auto":
        split = kronecker_split(metric, rhs)
        if split is not None:
            unit = unit_of(metric) if metric.q is not None else None
            if unit is not None and kronecker_split(unit[0], rhs) is not None:
                # the whole product in its unit: unit factors, one exact-scaled document
                return scaled_route(metric, rhs, tol, progress, unit, _recurse)
            return _kronecker_route(metric, rhs, split, tol, max_exact_n, progress, t0)
    small_exact = metric.q is not None and metric.n <= max_exact_n and method in ("auto", "exact")
    unit = None if small_exact or not far_from_one(metric) else unit_of(metric)
    if unit is not None:  # a smallest distance far from 1: every other route in the unit
        return scaled_route(metric, rhs, tol, progress, unit, _recurse)  # (exact: exact_threshold)
    if rhs is None and metric.n > max_exact_n and (
            method == "exact" or (method == "auto" and metric.n <= max_structured_n)):
        structured = structured_route(metric, tol, progress, timings)  # issue 18
        if structured is not None:
            return structured
    if method in ("auto", "exact") and metric.n > max_exact_n:  # issue 18: symmetry quotient
        auto = method == "auto"  # under auto: a cost guard (cells, degree bound) first
        part = quotient_partition(metric, rhs, max_exact_n if auto else metric.n,
                                  MAX_QUOTIENT_DEGREE if auto else None)
        try:
            quotient = None if part is None else quotient_route(metric, rhs, tol, progress,
                                                                timings, part)
        except (InstanceTooLarge, PrecisionLimitReached) as err:  # fall back: next route
            report(progress, "threshold", f"equitable quotient gave up ({err}); next route")
            quotient = None
        if quotient is not None:
            return quotient
    if method == "exact" or (method == "auto" and metric.q is not None
                             and metric.n <= max_exact_n):
        limit = max(max_exact_n, metric.n) if method == "exact" else max_exact_n
        if metric.n >= TOEPLITZ_GENERAL_FROM_N and toeplitz_general_applies(metric, rhs):
            general = toeplitz_general_route(metric, tol, progress, timings, max_n=limit)
            if general is not None:  # any symmetric Toeplitz metric: 2.6x at n = 200
                return general
        return exact_threshold(metric, rhs, tol, progress, timings, limit)
    if method == "auto" and metric.q is not None and metric.n > max_exact_n:
        report(progress, "threshold", f"n = {metric.n} > max_exact_n = {max_exact_n}: certified route")
    everywhere = _everywhere(metric, rhs, tol, progress, timings, max_exact_n, max_structured_n)
    return certified_route(metric, rhs, tol, progress, timings, everywhere=everywhere)


def _forced(m1: FiniteMetric, tol1: Fraction, *, rhs: tuple[Fraction, ...] | None, method: str,
            max_exact_n: int, progress: Progress, max_structured_n: int) -> ThresholdResult:
    """The matrix-free route on the unit grid ``m1`` (scaled_route's solver)."""
    with force_matrix_free(m1):
        return _threshold(m1, rhs, tol1, method, max_exact_n, progress, max_structured_n, matrix_free=True)


def _everywhere(metric: FiniteMetric, rhs: tuple[Fraction, ...] | None, tol: Fraction,
                progress: Progress, timings: list[tuple[str, float]], max_exact_n: int,
                max_structured_n: int) -> Callable[[], ThresholdResult] | None:
    """The float search may see no failure at all: then prove "for every ε" exactly."""
    limit = max(max_exact_n, SYMBOLIC_MAX_N)
    if metric.q is not None and metric.n <= limit:
        return functools.partial(_exact_result, metric, rhs, tol, progress, timings, limit)
    if rhs is None and metric.q is not None and metric.n <= max_structured_n:
        # larger: the structured z(s), if Toeplitz (the line); the kernel's check of the identity
        # is cubic (line: n = 500 in 3 s, 1,000 in 22 s, 1,500 in 81 s), hence the same cap
        return functools.partial(_structured_everywhere, metric, progress, timings)
    return None


def _structured_everywhere(metric: FiniteMetric, progress: Progress,
                           timings: list[tuple[str, float]]) -> ThresholdResult:
    res = structured_everywhere(metric, progress, timings)
    if res is None:
        raise PrecisionLimitReached(
            f"on {metric.name} the float search found no failure of 'tight constraints exist', "
            f"but neither the certified route (it covers [ε*, ∞) only), the exact route (n = "
            f"{metric.n} > {SYMBOLIC_MAX_N}) nor the structured Toeplitz route (n ≤ "
            "max_structured_n) proves it for every ε > 0.")
    return res


def _exact_result(metric: FiniteMetric, rhs: tuple[Fraction, ...] | None, tol: Fraction,
                  progress: Progress, timings: list[tuple[str, float]],
                  limit: int) -> ThresholdResult:
    return exact_threshold(metric, rhs, tol, progress, timings, limit)


def _kronecker_route(metric: FiniteMetric, rhs: tuple[Fraction, ...] | None,
                     split: KroneckerSplit, tol: Fraction, max_exact_n: int, progress: Progress,
                     t0: float) -> ThresholdResult:
    # The factors are taken from metric.kronecker_factors, which FiniteMetric checks
    # exactly at construction (and library constructors establish); the certificate's
    # verify() re-checks d(x, y) = Σ_k d_k(x_k, y_k) for every pair (O(n²), not repeated
    # here: seconds at n = 4096).
    # identical factors (same exact distances and rhs) are solved once
    cache: list[tuple[FiniteMetric, tuple[Fraction, ...], ThresholdResult]] = []
    results = []
    for fm, frhs in split.factors:
        hit = next((r for cm, crhs, r in cache
                    if crhs == tuple(frhs) and same_distances(cm, fm)), None)
        if hit is None:
            sub_rhs = None if all(v == 1 for v in frhs) else tuple(frhs)
            r = _threshold(fm, sub_rhs, tol, "auto", max_exact_n, progress)
            # factor certificates check against the factor's own rhs
            hit = ThresholdResult(
                fm.name, tuple(frhs), r.eps_lower, r.eps_upper, r.certificate, r.exact, r.q,
                r.method, r.seconds, r.timings, r.question, r.eps_set)
            cache.append((fm, tuple(frhs), hit))
        results.append(hit)
    binding = max(range(len(results)), key=lambda k: results[k].eps_upper)
    br = results[binding]
    cert = KroneckerThresholdCertificate(metric, rhs, tuple(results), binding, br.eps_lower,
                                         br.eps_upper)
    methods = sorted({r.method.split(" ")[0] for r in results})
    return ThresholdResult(
        metric.name, rhs, br.eps_lower, br.eps_upper, cert, br.exact, br.q,
        f"kronecker({len(results)} factors: {', '.join(methods)})",
        time.perf_counter() - t0, (("kronecker factors", time.perf_counter() - t0),),
        property_name(rhs), None,
    )


def regular_epsilons(metric: FiniteMetric, prior: Any, *, max_n: int = SYMBOLIC_MAX_N,
                     progress: Progress = None) -> EpsilonSet:
    """The exact set {ε > 0 : prior is ε·d0-regular} (polynomial case).

    α(s) = πΦ(s)⁻¹ is computed exactly as rational functions (Φ(s) is always
    invertible over Q(s), as Φ(0) = I), its sign changes on (0, 1) are isolated exactly,
    and the set is returned as a finite union of intervals with algebraic endpoints.

    The hand-derived family of ``proofs/threshold_discrete_prior.py``: on the discrete
    metric, p is regular iff t ≤ p_min/(1 − (k−1)p_min).

    >>> from exactdp.spaces.metrics import discrete
    >>> S = regular_epsilons(discrete(3), ["1/2", "1/4", "1/4"])
    >>> str(S), S.intervals[0].s_hi.minimal_polynomial    # t ≤ 1/2  ⇔  ε ≥ ln 2
    ('the prior is regular: ε ∈ [0.69314718056, ∞)', (-1, 2))
    """
    return exact_set(metric, read_prior(metric, prior), max_n, progress)


def tight_constraints_epsilons(metric: FiniteMetric, *, max_n: int = SYMBOLIC_MAX_N,
                               progress: Progress = None) -> EpsilonSet:
    """The exact set {ε > 0 : a tight-constraints mechanism exists} (polynomial case).

    For the sum query with u = v = 2 the set is [ln φ, ∞), φ the golden ratio
    (``proofs/threshold_sum_query_2_2.py``).

    >>> from exactdp.spaces.metrics import sum_query
    >>> S = tight_constraints_epsilons(sum_query(2, 2))
    >>> S.monotone, len(S.intervals)
    (True, 1)
    """
    return exact_set(metric, None, max_n, progress)
