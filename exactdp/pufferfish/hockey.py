"""Certified hockey-stick integrals ∫ (g_P − e^ε g_Q)_+ for location mixtures of a noise kernel.

g_P(y) = Σ_d P(d) k((y − d)/s)/s for a kernel k with CDF K (Gaussian: φ, Φ; Laplace:
½e^{−|z|}, its CDF). [−M, M] (M beyond every support point by 40 scales; the tails add at
most [0, 2·K(−40)]) is split adaptively until the sign of g_P − e^ε g_Q is certain on each
piece (ball evaluation over the piece); there the integral is a finite sum of CDF differences,
and the pieces left undecided (around the roots, width ≤ ``min_width``) add [0, ∫ g_P].
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

from flint import arb

from exactdp.arithmetic.rationals import to_fmpq
from exactdp.errors import PrecisionLimitReached
from exactdp.pufferfish.distributions import DiscreteDistribution
from exactdp.pufferfish.loss import union_points
from exactdp.spaces.levels import PrivacyLevel

__all__ = ["Kernel", "GAUSSIAN", "LAPLACE", "hockey_stick", "TAIL_SCALES"]

#: Half-width of the integration range beyond the support, in noise scales.
TAIL_SCALES = 40


@dataclass(frozen=True)
class Kernel:
    """A noise law on R: its density up to a constant factor, the factor, and its CDF."""

    name: str
    shape: Callable[[arb], arb]
    cdf: Callable[[arb], arb]
    constant_tails: bool = False  # g_P/g_Q is constant beyond the support (Laplace)


def _phi(x: arb) -> arb:
    """Standard normal CDF Φ(x) = erfc(−x/√2)/2."""
    return (-x / arb(2).sqrt()).erfc() / 2


def _laplace_cdf(x: arb) -> arb:
    """CDF of the standard Laplace law at an exact point x (½e^x below 0, 1 − ½e^{−x} above)."""
    if x < 0:
        return x.exp() / 2
    if x >= 0:
        return 1 - (-x).exp() / 2
    return (-abs(x)).exp() / 2 + (x > 0) * 0  # pragma: no cover - called at exact points only


GAUSSIAN = Kernel("gaussian", lambda z: (-(z * z) / 2).exp(), _phi)
LAPLACE = Kernel("laplace", lambda z: (-abs(z)).exp(), _laplace_cdf, constant_tails=True)

#: Largest number of pieces before giving up (a tie g_P = e^ε g_Q on a whole interval).
MAX_PIECES = 200_000


_Balls = list[tuple[arb, arb]]


def _balls(dist: DiscreteDistribution) -> _Balls:
    """(d, P(d)) as exact balls, converted once per call (not once per piece)."""
    return [(arb(to_fmpq(d)), arb(to_fmpq(w))) for d, w in zip(dist.support, dist.probs)]


def _mass(dist: _Balls, kernel: Kernel, a: arb, b: arb, s: arb) -> arb:
    """Σ_d P(d)(K((b − d)/s) − K((a − d)/s))."""
    total = arb(0)
    for db, w in dist:
        total += w * (kernel.cdf((b - db) / s) - kernel.cdf((a - db) / s))
    return total


def _shape(dist: _Balls, kernel: Kernel, y: arb, s: arb) -> arb:
    total = arb(0)
    for db, w in dist:
        total += w * kernel.shape((y - db) / s)
    return total


def hockey_stick(P: DiscreteDistribution, Q: DiscreteDistribution, kernel: Kernel, scale: Fraction,
                 level: PrivacyLevel, min_width: Fraction) -> tuple[arb, arb]:
    """(lower, upper) balls with ∫ (g_P − e^ε g_Q)_+ in [lower, upper] (inside ``workprec``).

    >>> from exactdp.arithmetic.ball import workprec
    >>> from exactdp.pufferfish.distributions import point_mass
    >>> from exactdp.spaces.levels import parse_level
    >>> with workprec(64):
    ...     lo, hi = hockey_stick(point_mass(1), point_mass(0), LAPLACE, Fraction(1),
    ...                           parse_level(eps="1/2"), Fraction(1, 2**30))
    >>> exact = 1 - (arb(-1) / 4).exp()   # 1 − e^{(ε − Δ/θ)/2} for Lap(1), Δ = 1, ε = 1/2
    >>> bool(lo.overlaps(exact) and hi > exact)
    True
    """
    s = arb(to_fmpq(scale))
    big_e = level.eps_ball().exp()
    pts = union_points(P, Q)
    bp, bq = _balls(P), _balls(Q)
    lower, slack = arb(0), arb(0)
    if kernel.constant_tails:  # exact tails: (c − e^ε)_+ times the Q-mass of the tail
        stack = [_piece(pts[0], pts[-1])] if len(pts) > 1 else []
        for y, side in ((pts[0], -1), (pts[-1], 1)):
            yb = arb(to_fmpq(y))
            c = _shape(bp, kernel, yb, s) / _shape(bq, kernel, yb, s) - big_e
            qmass = _tail_mass(bq, kernel, yb, s, side)
            if c > 0:
                lower += c * qmass
            elif not c < 0:
                slack += abs(c) * qmass
        tail = arb(0)
    else:
        M = max(abs(pts[0]), abs(pts[-1])) + TAIL_SCALES * scale
        stack = [_piece(-M, M)]
        tail = 2 * kernel.cdf(arb(-TAIL_SCALES))
    pieces = 0
    while stack:
        pieces += 1
        if pieces > MAX_PIECES:
            raise PrecisionLimitReached(
                f"g_P − e^ε g_Q has no certain sign on many pieces ({kernel.name} noise at "
                f"scale {scale}): it may vanish on an interval; move ε or the scale slightly.")
        a, b, ab, bb = stack.pop()
        span = ab.union(bb)
        h = _shape(bp, kernel, span, s) - big_e * _shape(bq, kernel, span, s)
        if h > 0:
            lower += _mass(bp, kernel, ab, bb, s) - big_e * _mass(bq, kernel, ab, bb, s)
        elif h < 0:
            continue
        elif b - a <= min_width:
            slack += _mass(bp, kernel, ab, bb, s)
        else:
            mid = (a + b) / 2
            mb = arb(to_fmpq(mid))
            stack += [(a, mid, ab, mb), (mid, b, mb, bb)]
    return lower, lower + slack + tail


def _piece(a: Fraction, b: Fraction) -> tuple[Fraction, Fraction, arb, arb]:
    """An interval [a, b] with its end points as exact balls (converted once)."""
    return a, b, arb(to_fmpq(a)), arb(to_fmpq(b))


def _tail_mass(dist: _Balls, kernel: Kernel, y: arb, s: arb, side: int) -> arb:
    """Σ_d P(d)·P(d + noise beyond y) on the given side (−1: below y, +1: above y)."""
    total = arb(0)
    for db, w in dist:
        F = kernel.cdf((y - db) / s)
        total += w * (F if side < 0 else 1 - F)
    return total
