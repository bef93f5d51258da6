"""Size-independent lower bounds on λ_min(Φ(ε)) for Euclidean lattice metrics.

For a finite set S of points of the lattice ``h·Z²`` with the Euclidean distance,
Φ_S(ε)[i, j] = exp(-ε·|x_i - x_j|). Every such matrix (every grid
``exactdp.spaces.metrics.grid(W, H, "euclidean", spacing=h)``, every subset of it) satisfies

    λ_min(Φ_S(ε)) ≥ min_θ f_{εh}(θ),   f_ε(θ) = Σ_{k ∈ Z²} e^{-ε|k|} e^{-ik·θ},

and by Poisson summation f_ε(θ) = Σ_{m ∈ Z²} ĝ_ε(θ + 2πm) with
ĝ_ε(ω) = 2πε / (ε² + |ω|²)^{3/2} > 0, the 2-D Fourier transform of e^{-ε|x|}.
:func:`euclidean_lattice_lambda_lower` turns this into a rigorous rational lower bound,
valid for a whole range of ε at once, in ball arithmetic (python-flint ``arb``), without
touching any matrix. The theorem, each identity it uses and the tail bound below are
checked in ``proofs/lattice_spectrum_bound.py``.

How the bound is computed (write φ = θ/2π ∈ [0, 1/2]², a = ε_lo·h, b = ε_hi·h):

* symmetry: f is 2π-periodic, even in each coordinate and symmetric under θ1 ↔ θ2, so
  the minimum over R² is the minimum over the triangle 0 ≤ φ2 ≤ φ1 ≤ 1/2;
* the triangle is covered by dyadic boxes B (adaptively refined where the bound is low);
* on a box B and for every ε ∈ [a, b], each Poisson term is at least
  min(ĝ_a, ĝ_b) at |ω|² = 4π² q_m, with the exact rational q_m = max_{φ∈B} |φ + m|²
  (ĝ_ε(ω) decreases in |ω|, and ε ↦ ε(ε² + Q)^{-3/2} increases for ε² < Q/2 and
  decreases after, so its minimum over [a, b] is at an endpoint; when 4π² q_m ≥ 2b² it
  is at a); images with |m| ≤ R are summed, and the remaining images (|m| > R, all
  positive) are bounded below by the integral
  ``(a/S)(1 - 2π(√2/2 + ρ)/(S + U0))``, U0 = 2π(R + √2 + ρ), S = √(c² + U0²),
  ρ = max_{φ∈B} |φ| (comparison of the lattice sum of the radially decreasing
  ψ(s) = 2πa/(c² + 4π²(s + ρ)²)^{3/2} with its integral over |x| > R + √2/2), where
  c = a if 4π²(R - ρ)² ≥ 2b² (then every tail term is ≥ ĝ_a) and c = b otherwise
  (ĝ_ε(ω) ≥ 2πa/(b² + |ω|²)^{3/2} always);
* the answer is the minimum over boxes of the lower end of the ball, rounded down;
* for ε_lo·h ≥ 3 also f_ε(θ) ≥ 1 - Σ_{k≠0} e^{-a|k|} (diagonal dominance), with the
  terms |k| ≤ 6 summed in ``arb`` and the rest bounded above by
  e^{a√2/2}·2π e^{-aK'}(1 + aK')/a² = 2π e^{-a(6 - √2)}(1 + aK')/a², K' = 6 - √2/2;
  the larger bound is returned.

A float pass decides the box partition and how many images each box needs; it affects
only speed and tightness, never validity: every box of the cover is bounded in ``arb``.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction
from typing import Any

import flint
import numpy as np
from flint import arb

from exactdp.arithmetic.ball import arb_lower_dyadic, workprec
from exactdp.arithmetic.rationals import to_fmpq, to_fraction
from exactdp.arithmetic.rounding import round_down_bits
from exactdp.errors import InvalidArgument, InvalidMetric, InvalidPrivacyLevel, PrecisionLimitReached
from exactdp.kinds import proved_by

__all__ = ["euclidean_lattice_lambda_lower", "euclidean_lattice_symbol_float"]

# Tuning (affects tightness and speed only, never validity).
_R_CHOICES = (0, 1, 2, 3, 4, 6, 8)  # image-disk radii tried per box (largest for the minimum)
_TOL = 0.02  # a box is refined while its bound is below (1 - _TOL)·(best point value)
_MAX_DEPTH = 12  # boxes have side 2^-(depth+1) in φ; dyadic denominators 2^(_MAX_DEPTH+1)
_DEN = 2 ** (_MAX_DEPTH + 1)  # box corners are integers / _DEN
_KEEP_BITS = 40  # the returned Fraction keeps this many significant bits (rounded down)
_PRECISIONS = (64, 128, 256, 1024)


@proved_by("lattice_spectrum_bound")
def euclidean_lattice_lambda_lower(eps_lo: Any, eps_hi: Any, spacing: Any = 1) -> Fraction:
    """Rigorous lower bound of λ_min(Φ_S(ε)) for all ε in a range and all finite S ⊂ h·Z².

    Returns a positive rational ``L`` such that for every ε ∈ [eps_lo, eps_hi] and every
    finite set S of points of the lattice spacing·Z² with the Euclidean distance, the
    matrix Φ_S(ε) = [exp(-ε|x_i - x_j|)] satisfies λ_min(Φ_S(ε)) ≥ L. In particular it
    holds for ``exactdp.spaces.metrics.grid(W, H, "euclidean", spacing=h)`` of every size, and
    for every sub-grid or subset of it. No matrix is formed: the bound is the minimum of
    the lattice symbol f_ε(θ) = Σ_k e^{-ε h|k|} e^{-ik·θ}, bounded below in ball
    arithmetic through its positive Poisson image sum (see the module docstring; proof
    and numerical checks of every step in ``proofs/lattice_spectrum_bound.py``).

    Measured: within about 4 % of min_θ f, which is itself within 0.1 % of λ_min of a
    40×40 grid at ε = 0.665 (0.26265 vs 0.27194); a range such as [0.6, 0.7] costs little
    more (the bound is then ≥ 96 % of the smallest min_θ f over the range). For
    ε·h ≥ 3 the diagonal-dominance bound 1 - Σ_{k≠0} e^{-ε_lo h|k|} (rigorous, with an
    integral tail) is used when it is larger. Results are cached on the exact
    (ε_lo·h, ε_hi·h); a fresh call takes about 20 ms.

    Parameters
    ----------
    eps_lo, eps_hi : int, Fraction, str or fmpq
        The ε-range, 0 < eps_lo ≤ eps_hi, read exactly (``to_fraction``; a float is taken
        as its exact binary value with a warning). For an irrational ε pass a rational
        range enclosing it.
    spacing : int, Fraction, str or fmpq
        Lattice spacing h > 0 (distances are h·|k - l|), default 1.

    Returns
    -------
    Fraction
        ``L > 0`` with λ_min(Φ_S(ε)) ≥ L for all ε in the range and all finite S.

    Raises
    ------
    InvalidPrivacyLevel
        eps_lo ≤ 0 or eps_lo > eps_hi.
    InvalidMetric
        spacing ≤ 0.
    InvalidArgument
        non-numeric or non-finite input.
    PrecisionLimitReached
        positivity could not be proved (not expected for any representable input).

    Examples
    --------
    >>> import numpy as np
    >>> L = euclidean_lattice_lambda_lower("0.665", "0.665")
    >>> L > 0, round(float(L), 2)
    (True, 0.26)
    >>> x, y = np.meshgrid(np.arange(12), np.arange(12))
    >>> P = np.stack([x.ravel(), y.ravel()], 1)
    >>> D = np.hypot(*(P[:, None, :] - P[None, :, :]).transpose(2, 0, 1))
    >>> lam = np.linalg.eigvalsh(np.exp(-0.665 * D))[0]
    >>> bool(L <= lam), bool(L >= 0.9 * lam)
    (True, True)

    A range of ε and a spacing (the kernel only depends on ε·h):

    >>> euclidean_lattice_lambda_lower("1/2", "7/10", spacing=2) == (
    ...     euclidean_lattice_lambda_lower(1, "7/5"))
    True
    """
    lo = to_fraction(eps_lo, "eps_lo")
    hi = to_fraction(eps_hi, "eps_hi")
    h = to_fraction(spacing, "spacing")
    if lo <= 0:
        raise InvalidPrivacyLevel(
            f"Got eps_lo={eps_lo!r}; ε must be > 0 (pass e.g. Fraction('1/10') for an exact tenth)."
        )
    if lo > hi:
        raise InvalidPrivacyLevel(
            f"Got eps_lo={eps_lo!r} > eps_hi={eps_hi!r}; pass the range as eps_lo ≤ eps_hi."
        )
    if h <= 0:
        raise InvalidMetric(f"Got spacing={spacing!r}; the lattice spacing must be > 0.")
    return _unit_lattice_bound(lo * h, hi * h)


def euclidean_lattice_symbol_float(
    eps: Any, theta1: float, theta2: float, *, cutoff: int | None = None
) -> float:
    """UNCERTIFIED float value of the lattice symbol f_ε(θ) (for cross-checks only).

    f_ε(θ) = Σ_{k ∈ Z²} e^{-ε|k|} cos(k·θ), by direct summation over |k|_∞ ≤ cutoff in
    float64 (no rounding control). The default cutoff ⌈46/ε⌉ makes the neglected tail,
    at most Σ_{j > K} 8j e^{-εj}, below about 1e-12 for ε ≥ 0.02; it is refused above
    4000 (pass ``cutoff`` yourself to force a coarser sum).

    Parameters
    ----------
    eps : float, Fraction, int or str
        ε > 0 (unit lattice; for spacing h pass ε·h).
    theta1, theta2 : float
        The frequency θ.
    cutoff : int, optional
        Truncation K of the lattice sum.

    Returns
    -------
    float
        Approximation of f_ε(θ); uncertified.

    Examples
    --------
    >>> round(euclidean_lattice_symbol_float("0.665", math.pi, math.pi), 5)
    0.2717
    >>> # at θ = 0 the symbol is Σ_k e^{-ε|k|}; check against a longhand sum:
    >>> s = sum(math.exp(-2 * math.hypot(i, j)) for i in range(-40, 41) for j in range(-40, 41))
    >>> abs(euclidean_lattice_symbol_float(2, 0, 0) - s) < 1e-12
    True
    """
    e = float(to_fraction(eps, "eps")) if not isinstance(eps, float) else eps
    if not math.isfinite(e) or e <= 0:
        raise InvalidPrivacyLevel(f"Got eps={eps!r}; ε must be finite and > 0.")
    if not (math.isfinite(theta1) and math.isfinite(theta2)):
        raise InvalidArgument(f"Got theta=({theta1!r}, {theta2!r}); θ must be finite.")
    if cutoff is None:
        k_max = math.ceil(46.0 / e)
        if k_max > 4000:
            raise InvalidArgument(
                f"Got eps={eps!r}: the direct sum would need |k| ≤ {k_max}; pass cutoff=... "
                f"explicitly (neglected tail ≈ 2π(1 + εK)e^(-εK)/ε²)."
            )
    else:
        k_max = int(cutoff)
        if k_max < 0:
            raise InvalidArgument(f"Got cutoff={cutoff!r}; it must be ≥ 0.")
    k = np.arange(k_max + 1, dtype=float)
    weight = np.where(k == 0, 1.0, 2.0)  # k and -k (the sin parts cancel)
    c1 = weight * np.cos(k * theta1)
    c2 = weight * np.cos(k * theta2)
    kernel = np.exp(-e * np.hypot(k[:, None], k[None, :]))
    return float(c1 @ kernel @ c2)


# ---------------------------------------------------------------------------------------
# implementation
# ---------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=16)
def _images(radius: int) -> tuple[np.ndarray, np.ndarray]:
    """Integer images m with |m|² ≤ radius² (m1, m2 arrays)."""
    r = np.arange(-radius, radius + 1)
    m1, m2 = np.meshgrid(r, r, indexing="ij")
    keep = m1 * m1 + m2 * m2 <= radius * radius
    return m1[keep].astype(np.int64), m2[keep].astype(np.int64)


def _qmax_scaled(box: tuple[int, int, int, int], radius: int) -> np.ndarray:
    """_DEN² · max_{φ∈box} |φ + m|² for the images of ``radius`` (exact int64)."""
    l1, h1, l2, h2 = box
    m1, m2 = _images(radius)
    a1 = np.maximum(np.abs(l1 + m1 * _DEN), np.abs(h1 + m1 * _DEN))
    a2 = np.maximum(np.abs(l2 + m2 * _DEN), np.abs(h2 + m2 * _DEN))
    return a1 * a1 + a2 * a2


_PI2_LOW = 9.8696  # < π² = 9.869604…: safe side of the tests below


def _increasing_at(qs: np.ndarray, b: float) -> np.ndarray:
    """True where 4π²q ≥ 2b² certainly (q = qs/_DEN²): there ε ↦ ĝ_ε(ω) is increasing on
    [0, b], so its minimum over [a, b] is at ε = a. (d/dε ε(ε² + Q)^{-3/2} has the sign of
    Q - 2ε²; float test with a 1e-6 relative margin, far above its rounding error.)"""
    return qs / float(_DEN * _DEN) * (2.0 * _PI2_LOW) >= b * b * (1.0 + 1e-6)


def _tail_increasing(radius: int, rho: float, b: float) -> bool:
    """True when every image |m| > radius has 4π²|φ + m|² ≥ 2b² (|φ + m| > radius - ρ)."""
    gap = radius - rho * (1.0 + 1e-9) - 1e-12
    return gap > 0 and 2.0 * _PI2_LOW * gap * gap >= b * b * (1.0 + 1e-6)


def _float_box_bound(box: tuple[int, int, int, int], radius: int, a: float, b: float) -> float:
    """Float estimate of the box bound (guides the search only; never returned)."""
    qs = _qmax_scaled(box, radius)
    q = qs / float(_DEN * _DEN)
    two_pi = 2.0 * math.pi
    at_a = two_pi * a / (a * a + two_pi * two_pi * q) ** 1.5
    at_b = two_pi * b / (b * b + two_pi * two_pi * q) ** 1.5
    main = float(np.sum(np.where(_increasing_at(qs, b), at_a, np.minimum(at_a, at_b))))
    rho = math.hypot(box[1], box[3]) / _DEN
    c = a if _tail_increasing(radius, rho, b) else b
    u0 = two_pi * (radius + math.sqrt(2.0) + rho)
    s = math.sqrt(c * c + u0 * u0)
    tail = (a / s) * (1.0 - two_pi * (math.sqrt(0.5) + rho) / (s + u0))
    return main + tail


def _arb_box_bound(
    box: tuple[int, int, int, int], radius: int, a: arb, b: arb, b_float: float
) -> arb:
    """Ball whose lower end is ≤ the box lower bound (see the module docstring).

    Each image contributes min(ĝ_a, ĝ_b) evaluated at the largest |ω| of the box: ĝ_ε(ω)
    is unimodal in ε, so that is its minimum over ε ∈ [a, b]; where the minimum is
    certainly at ε = a (``_increasing_at``) only that endpoint is evaluated, elsewhere
    the union (hull) of the two balls is added, whose lower end is ≤ the smaller one.
    """
    two_pi = 2 * arb.pi()
    scale = two_pi * two_pi / (_DEN * _DEN)  # 4π²/_DEN² so that 4π² q = scale · (int)
    a2, b2 = a * a, b * b
    qs = _qmax_scaled(box, radius)
    increasing = _increasing_at(qs, b_float).tolist()
    at_a_only = arb(0)
    mixed = arb(0)
    for q, inc in zip(qs.tolist(), increasing):
        term_a = (a2 + scale * q).rsqrt() ** 3
        if inc:
            at_a_only += term_a
        else:
            mixed += (a * term_a).union(b * (b2 + scale * q).rsqrt() ** 3)
    main = two_pi * (a * at_a_only + mixed)
    rho = arb(flint.fmpq(box[1] * box[1] + box[3] * box[3], _DEN * _DEN)).sqrt()
    rho_float = math.hypot(box[1], box[3]) / _DEN
    c2 = a2 if _tail_increasing(radius, rho_float, b_float) else b2
    half_sqrt2 = arb(flint.fmpq(1, 2)).sqrt()
    u0 = two_pi * (radius + 2 * half_sqrt2 + rho)
    s = (c2 + u0 * u0).sqrt()
    tail = (a / s) * (1 - two_pi * (half_sqrt2 + rho) / (s + u0))
    return main + tail


def _children(box: tuple[int, int, int, int]) -> list[tuple[int, int, int, int]]:
    l1, h1, l2, h2 = box
    c1, c2 = (l1 + h1) // 2, (l2 + h2) // 2
    kids = [(l1, c1, l2, c2), (c1, h1, l2, c2), (l1, c1, c2, h2), (c1, h1, c2, h2)]
    # keep boxes meeting the triangle φ2 ≤ φ1 (f(θ1, θ2) = f(θ2, θ1) covers the rest)
    return [k for k in kids if k[2] < k[1]]


def _partition(
    a: float, b: float
) -> tuple[list[tuple[tuple[int, int, int, int], int]], float]:
    """Float branch-and-bound: boxes covering the triangle with their image radius, and
    the float point value of the bound at the corner (an upper estimate of the result)."""
    r_max = _R_CHOICES[-1]
    half = _DEN // 2
    corner = (half, half, half, half)
    best = _float_box_bound(corner, r_max, a, b)  # a point value: no box bound can beat it
    todo = [((0, half, 0, half), 0)]
    done: list[tuple[tuple[int, int, int, int], float]] = []
    while todo:
        box, depth = todo.pop()
        value = _float_box_bound(box, r_max, a, b)
        mid = ((box[0] + box[1]) // 2, (box[0] + box[1]) // 2,
               (box[2] + box[3]) // 2, (box[2] + box[3]) // 2)
        best = min(best, _float_box_bound(mid, r_max, a, b))
        if value >= (1.0 - _TOL) * best or depth >= _MAX_DEPTH:
            done.append((box, value))
        else:
            todo.extend((kid, depth + 1) for kid in _children(box))
    floor = min(v for _, v in done) * (1.0 + 1e-6)
    out = []
    for box, _ in done:
        radius = next(
            (r for r in _R_CHOICES[:-1] if _float_box_bound(box, r, a, b) >= floor), r_max
        )
        out.append((box, radius))
    return out, best


_GERSHGORIN_FROM = 3  # below ε·h = 3 the diagonal-dominance bound is useless (≤ 0.73)
_GERSHGORIN_RADIUS = 6


def _gershgorin_ball(a: arb) -> arb:
    """Ball whose lower end bounds 1 - Σ_{k≠0} e^{-a|k|} from below (see the module doc)."""
    m1, m2 = _images(_GERSHGORIN_RADIUS)
    total = arb(0)
    for n in (m1 * m1 + m2 * m2).tolist():
        if n:
            total += (-a * arb(n).sqrt()).exp()
    k = _GERSHGORIN_RADIUS - arb(flint.fmpq(1, 2)).sqrt()  # K' = K - √2/2
    # e^{a√2/2}·e^{-aK'} = e^{-a(K - √2)}: one exponential, no overflow for huge a
    tail = 2 * arb.pi() * (-a * (_GERSHGORIN_RADIUS - arb(2).sqrt())).exp()
    tail *= (1 + a * k) / (a * a)
    return 1 - total - tail


def _poisson_low(pieces: list[tuple[tuple[int, int, int, int], int]], a: Fraction,
                 b: Fraction) -> Fraction | None:
    """Lower end of the Poisson box bound over the cover (None if not finite)."""
    a_ball = arb(to_fmpq(a))
    b_ball = arb(to_fmpq(b))
    try:
        b_float = float(b)
    except OverflowError:
        b_float = math.inf
    lowest: Fraction | None = None
    for box, radius in pieces:
        low = arb_lower_dyadic(_arb_box_bound(box, radius, a_ball, b_ball, b_float))
        if low is None:
            return None
        lowest = low if lowest is None else min(lowest, low)
    return lowest


@functools.lru_cache(maxsize=4096)
def _unit_lattice_bound(a: Fraction, b: Fraction) -> Fraction:
    """The bound for the unit lattice and ε·h ∈ [a, b] (cached on exact a, b)."""
    try:
        fa, fb = float(a), float(b)
        usable = math.isfinite(fa) and math.isfinite(fb * fb) and fa > 1e-300
    except OverflowError:
        usable = False
    if usable:
        pieces, poisson_estimate = _partition(fa, fb)
    else:  # extreme magnitudes: no float guidance, one box with the most images
        pieces, poisson_estimate = [((0, _DEN // 2, 0, _DEN // 2), _R_CHOICES[-1])], math.inf
    last: Fraction | None = None
    for prec in _PRECISIONS:
        with workprec(prec):
            best: Fraction | None = None
            if a >= _GERSHGORIN_FROM:
                ball = _gershgorin_ball(arb(to_fmpq(a)))
                best = arb_lower_dyadic(ball)
            # the float Poisson estimate is a point value: no box bound exceeds it by more
            # than rounding, so skip the Poisson cover when the Gershgorin bound already wins
            if best is None or best <= 0 or float(best) < poisson_estimate * (1 + 1e-9):
                low = _poisson_low(pieces, a, b)
                if low is not None and (best is None or low > best):
                    best = low
            last = best
        if best is not None and best > 0:
            return round_down_bits(best, _KEEP_BITS)
    raise PrecisionLimitReached(
        f"could not prove λ_min > 0 for ε·h in [{a}, {b}] up to {_PRECISIONS[-1]} bits "
        f"(last lower end {last}); split the ε-range"
    )



