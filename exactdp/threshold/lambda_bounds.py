"""Proved lower bounds of λ_min(Φ(ε)) for dense metrics: Cholesky nodes and the chord lemma.

At a node ε_k a floating-point Cholesky factorisation of Φ(ε_k) − σI that runs to
completion proves λ_min(Φ(ε_k)) ≥ σ − α·tr(Φ − σI) − radii, with
α = γ_{n+1}/(1 − γ_{n+1}) (Demmel's bound R̂ᵀR̂ = A + ΔA, |ΔA| ≤ γ_{n+1}|R̂ᵀ||R̂|, and
|R̂ᵀ||R̂| ≤ dd ᵀ/(1 − γ_{n+1}) with d_i = √a_ii by Cauchy–Schwarz; Rump, BIT 46 (2006)).
Between nodes, every entry e^{−εd} is convex in ε, so Φ(ε) = chord − E with
0 ≤ E ≤ (w²/8)d²e^{−ad} entrywise; λ_min is concave on the chord, hence
λ_min(Φ(ε)) ≥ min(λ(ε_k), λ(ε_{k+1})) − (w²/8)·max_i Σ_l d²e^{−ad}. Both are checked in
``proofs/spd_cover_bounds.py``; the verifier re-proves each node with exact integer
arithmetic (:func:`exactdp.threshold.exact_checks.exact_lambda_check`).

Examples
--------
>>> from fractions import Fraction
>>> from exactdp.spaces.metrics import line
>>> sigma, lam = dense_lambda_node(line(5), Fraction(1))
>>> 0 < lam <= sigma
True
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np
from flint import arb

from exactdp.arithmetic.ball import arb_to_fraction_interval, workprec
from exactdp.arithmetic.rationals import to_fmpq
from exactdp.arithmetic.rounding import dyadic_down, gamma, gamma_up, require_subnormals, succ
from exactdp.kinds import proved_by
from exactdp.linalg.verified import float_enclosure
from exactdp.spaces.metrics import FiniteMetric
from exactdp.threshold.float_bounds import ABS_SLACK, ABS_SLACK_Q, TINY, sum_up
from exactdp.threshold.lemmas import distance_count_rows, exact_count_row_max

__all__ = [
    "chord_bound",
    "second_derivative_row_bound",
    "exact_second_derivative_row_bound",
    "phi_mid_rad",
    "cholesky_lambda",
    "dyadic_below",
    "dense_lambda_node",
]


@proved_by("spd_cover_bounds")
def chord_bound(metric: FiniteMetric, e0: Fraction, e1: Fraction, l0: Fraction,
                l1: Fraction, exact: bool = False) -> Fraction:
    """min(λ(e0), λ(e1)) − ((e1 − e0)²/8)·max_i Σ_l d²e^{−e0·d}, rounded down to 2^−60.

    A lower bound of λ_min(Φ(ε)) for every ε in [e0, e1] when l0, l1 bound λ_min at the
    ends (chord lemma, ``proofs/spd_cover_bounds.py``). ``exact=True`` (the certificates'
    ``verify()``) computes the row sums in exact rational arithmetic
    (:func:`exact_second_derivative_row_bound`).
    """
    s2 = (exact_second_derivative_row_bound(metric, e0) if exact
          else second_derivative_row_bound(metric, e0))
    v = min(l0, l1) - (e1 - e0) ** 2 / 8 * s2
    return dyadic_down(v, 60)


def exact_second_derivative_row_bound(metric: FiniteMetric, a: Fraction) -> Fraction:
    """Rational ≥ max_i Σ_l d(i,l)² e^{−a·d(i,l)}, exactly: distance-count histograms
    (integers) times rational upper bounds of d²e^{−ad} rounded outward from arb balls."""
    rows = distance_count_rows(metric)
    with workprec(96):
        aa = arb(to_fmpq(a))
        tiny = arb(2) ** -1100  # a ball certainly below it is bounded by 2^-1100 (no huge Fraction)
        ups = [Fraction(1, 2**1100) if x < tiny else arb_to_fraction_interval(x)[1]
               for x in (v.ball() * v.ball() * (-aa * v.ball()).exp() for v in metric.values)]
    return exact_count_row_max(rows, ups)


_S2_CACHE: dict[tuple[int, Fraction], tuple[FiniteMetric, Fraction]] = {}


def second_derivative_row_bound(metric: FiniteMetric, a: Fraction) -> Fraction:
    """Rational ≥ max_i Σ_l d(i,l)² e^{−a·d(i,l)} (the chord error's row sums).

    Cached per (metric object, a); the cache checks identity (ids are reused after GC).
    """
    key = (id(metric), a)
    hit = _S2_CACHE.get(key)
    if hit is not None and hit[0] is metric:
        return hit[1]
    if len(_S2_CACHE) > 256:
        _S2_CACHE.clear()
    val = _second_derivative_row_bound(metric, a)
    _S2_CACHE[key] = (metric, val)
    return val


def _second_derivative_row_bound(metric: FiniteMetric, a: Fraction) -> Fraction:
    require_subnormals("chord lemma row sums")
    rows = distance_count_rows(metric)
    with workprec(96):
        aa = arb(to_fmpq(a))
        # float enclosures, never exact rationals: e^{−ad} far below the double range (a huge
        # spacing, ε·d ≈ 10²¹) would need a 10²¹-bit Fraction; float_enclosure flushes it to 0
        # with a radius covering it
        m, r = float_enclosure([(lambda d: d * d * (-aa * d).exp())(v.ball()) for v in metric.values])
    pw = np.asarray(succ(np.asarray(m, dtype=np.float64) + np.asarray(r, dtype=np.float64)))
    s = rows.astype(np.float64) @ pw
    k = rows.shape[1]
    s = succ(succ(s * (1 + gamma_up(k + 2))) + ABS_SLACK)
    return Fraction(float(np.max(s)))


def phi_mid_rad(metric: FiniteMetric, eps: Fraction) -> tuple[np.ndarray, float]:
    """Φ(eps) midpoints (entries < 2^-330 flushed to 0) and a bound on every entry's error."""
    with workprec(96):
        e = arb(to_fmpq(eps))
        m, r = float_enclosure([(-e * v.ball()).exp() for v in metric.values])
    m = np.asarray(m)
    m[np.abs(m) < TINY] = 0.0
    return m[metric.index], float(succ(float(np.max(r)) + TINY))


def cholesky_lambda(A: np.ndarray, rad: float, sigma: Fraction) -> tuple[Fraction, Any]:
    """λ_min(true Φ) ≥ returned bound when chol(A − σI) succeeds (else (−1, None)).

    ``A`` holds the midpoints of Φ, each within ``rad`` of the true entry.
    """
    from scipy.linalg import cholesky  # deferred: scipy.linalg adds ~0.5 s to `import exactdp`

    require_subnormals("Cholesky λ_min bound")
    n = A.shape[0]
    As = A.copy()
    diag = np.diagonal(A).copy()
    sig = float(sigma)
    np.fill_diagonal(As, diag - sig)
    if np.all(diag == 1.0) and Fraction(float(1.0 - sig)) == 1 - sigma:
        shift_err = Fraction(0)  # the shifted diagonal is exact
    else:
        shift_err = max(abs(Fraction(float(x)) - sigma - Fraction(float(y)))
                        for x, y in zip(diag, np.diagonal(As)))
    try:
        L = cholesky(As, lower=True, check_finite=False)
    except np.linalg.LinAlgError:
        return Fraction(-1), None
    if not np.all(np.isfinite(np.diagonal(L))):
        return Fraction(-1), None
    g = gamma(n + 1)
    alpha = g / (1 - g)
    trace = Fraction(sum_up(np.abs(np.diagonal(As))))
    lam = sigma - alpha * trace - ABS_SLACK_Q - shift_err - n * Fraction(rad)
    return lam, L


def dyadic_below(x: Fraction) -> Fraction:
    """A shift σ ≤ x on the grid 2^-20 (so 1 − σ is exact in float), or 2^-60 when x is tiny."""
    bits = 20 if x >= Fraction(1, 256) else 60
    return dyadic_down(x, bits)


@proved_by("spd_cover_bounds")
def dense_lambda_node(metric: FiniteMetric, eps: Fraction,
                      hint: Fraction | None = None) -> tuple[Fraction, Fraction]:
    """(σ, λ) with λ ≤ λ_min(Φ(eps)) proved by a shifted float Cholesky (λ ≤ 0: failed).

    The bound (Demmel/Rump, module docstring) is checked in ``proofs/spd_cover_bounds.py``.

    σ is a dyadic (2^-20 grid, 2^-60 below 1/256): ``hint`` first (e.g. the previous
    node's σ), else 7/8, 1/2, 1/8 of an inverse-iteration estimate of λ_min.
    """
    from scipy.linalg import cho_factor, cho_solve  # deferred: scipy.linalg adds ~0.5 s to import

    A, rad = phi_mid_rad(metric, eps)
    tries: list[Fraction] = []
    if hint is not None and hint > 0:
        tries = [dyadic_below(hint * Fraction(13, 10)), hint]
    for attempt in range(2):
        for sigma in tries:
            lam, _L = cholesky_lambda(A, rad, sigma)
            if lam > 0:
                return sigma, dyadic_down(lam, 60)
        if attempt == 1:
            break
        try:
            f = cho_factor(A, lower=True, check_finite=False)
        except np.linalg.LinAlgError:
            return Fraction(0), Fraction(0)
        v = np.random.default_rng(12345).standard_normal(A.shape[0])
        v = v / float(np.linalg.norm(v))
        mu: float = 1.0
        for _ in range(8):
            w = cho_solve(f, v, check_finite=False)
            mu = float(np.linalg.norm(w))
            v = w / mu
        lam_est = 1.0 / mu  # ≥ λ_min (an upper estimate)
        tries = [dyadic_below(Fraction(lam_est) * Fraction(fr)) for fr in (0.875, 0.5, 0.125)]
        tries = [t for t in tries if t > 0]
    return Fraction(0), Fraction(0)

