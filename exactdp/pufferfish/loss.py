"""The exact privacy loss of two Laplace mixtures, decided with certified balls.

For a rational scale θ > 0 and two finite laws P, Q, let
g_P(x) = Σ_d P(d) e^{-|x−d|/θ}. The release X + Lap(θ) has density g_P(y)/(2θ)
when X ~ P, so the privacy loss is L(θ) = sup_x |ln g_P(x) − ln g_Q(x)|.

Structure that makes the supremum a finite maximum (``proofs/pufferfish_supremum.py``):
between consecutive support points s_k < x < s_{k+1} of P ∪ Q, with z = e^{2x/θ},
g_P(x)/g_Q(x) = (A z + B)/(C z + D) with A, B, C, D ≥ 0 fixed, a Möbius map of z,
hence monotone; on each unbounded tail the ratio is constant and equal to its value
at the extreme support point. So L(θ) is the maximum over the support points.

The values g(s_k) are computed by two running sums (left and right), O(m) ball
operations; :func:`loss_at_points_direct` is the independent O(m²) double sum
that certificates use to re-check a verdict.

Verdicts are :class:`exactdp.kinds.Verdict`: ``HOLDS`` means private (L(θ) ≤ ε),
``FAILS`` means not private.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import sympy
from flint import arb

from exactdp.arithmetic.ball import arb_from_fraction, arb_to_fraction_interval, workprec
from exactdp.arithmetic.rationals import to_fmpq, to_sympy
from exactdp.errors import PrecisionLimitReached
from exactdp.kinds import Verdict, proved_by
from exactdp.pufferfish.distributions import DiscreteDistribution
from exactdp.spaces.levels import PrivacyLevel

__all__ = [
    "Verdict",
    "LossDecision",
    "union_points",
    "kernel_sums",
    "kernel_sums_direct",
    "loss_float",
    "decide_loss",
    "log_ratio_expr",
    "is_worst_point",
    "WORST_POINT_REL",
]

#: Relative slack within which a stored "worst point" must attain the largest log-ratio.
WORST_POINT_REL = Fraction(1, 2**40)


def union_points(P: DiscreteDistribution, Q: DiscreteDistribution) -> list[Fraction]:
    """Sorted union of the two supports."""
    return sorted(set(P.support) | set(Q.support))


def _masses(dist: DiscreteDistribution, points: Sequence[Fraction]) -> list[Fraction]:
    d = dist.as_dict()
    return [d.get(s, Fraction(0)) for s in points]


def kernel_sums(
    points: Sequence[Fraction], masses: Sequence[Fraction | arb], theta: Fraction
) -> list[arb]:
    """Balls for g(s_k) = Σ_j m_j e^{-|s_k − s_j|/θ} at every point, by running sums.

    Call inside a ``workprec`` scope; masses are exact rationals or balls. All terms are
    positive, so the balls stay tight.

    >>> with workprec(64):
    ...     g = kernel_sums([Fraction(0), Fraction(1)], [Fraction(1, 2)] * 2, Fraction(1))
    >>> g[0].overlaps((1 + (-arb(1)).exp()) / 2)
    True
    """
    m = len(points)
    inv = arb_from_fraction(1 / theta)
    decay = [(-(arb_from_fraction(points[k + 1] - points[k]) * inv)).exp() for k in range(m - 1)]
    mass = [w if isinstance(w, arb) else arb_from_fraction(w) for w in masses]
    left: list[arb] = [arb(0)] * m
    acc = arb(0)
    for k in range(m):
        acc = (acc * decay[k - 1] if k > 0 else acc) + mass[k]
        left[k] = acc
    right: list[arb] = [arb(0)] * m
    acc = arb(0)
    for k in range(m - 2, -1, -1):
        acc = (acc + mass[k + 1]) * decay[k]
        right[k] = acc
    return [left[k] + right[k] for k in range(m)]


def loss_float(
    points: Sequence[float], masses_p: Sequence[float], masses_q: Sequence[float],
    theta: float,
) -> float:
    """L(θ) in float64 by the same running sums (UNCERTIFIED: used only to find a guess).

    Returns ``inf`` when a value underflows to 0.
    """

    def sums(masses: Sequence[float]) -> list[float]:
        m = len(points)
        decay = [math.exp(-(points[k + 1] - points[k]) / theta) for k in range(m - 1)]
        left = [0.0] * m
        acc = 0.0
        for k in range(m):
            acc = (acc * decay[k - 1] if k > 0 else acc) + masses[k]
            left[k] = acc
        acc = 0.0
        out = left[:]
        for k in range(m - 2, -1, -1):
            acc = (acc + masses[k + 1]) * decay[k]
            out[k] += acc
        return out

    gp, gq = sums(masses_p), sums(masses_q)
    if min(gp) <= 0 or min(gq) <= 0:
        return math.inf
    return max(abs(math.log(a) - math.log(b)) for a, b in zip(gp, gq))


def is_worst_point(
    P: DiscreteDistribution, Q: DiscreteDistribution, theta: Fraction, point: Fraction
) -> bool:
    """``point`` is a support point whose |ln g_P − ln g_Q| at θ is the largest to within a
    relative :data:`WORST_POINT_REL` (the search names it by float midpoints, so two points
    whose values agree to ~10⁻¹⁶ may come in either order; a point certainly further below is
    rejected). Independent O(m²) sums at 128 bits.
    """
    points = union_points(P, Q)
    if point not in points:
        return False
    with workprec(128):
        gp = kernel_sums_direct(points, _masses(P, points), theta)
        gq = kernel_sums_direct(points, _masses(Q, points), theta)
        logs = [abs(a.log() - b.log()) for a, b in zip(gp, gq)]
        mine = arb_to_fraction_interval(logs[points.index(point)])[1]
        top = max(arb_to_fraction_interval(v)[0] for v in logs)
    return mine >= top * (1 - WORST_POINT_REL)


def kernel_sums_direct(
    points: Sequence[Fraction], masses: Sequence[Fraction], theta: Fraction
) -> list[arb]:
    """The same values as :func:`kernel_sums` by the plain double sum (independent check)."""
    kernel: dict[Fraction, arb] = {}
    mass = [arb_from_fraction(w) for w in masses]
    out = []
    for s in points:
        total = arb(0)
        for d, w, wb in zip(points, masses, mass):
            if w:
                dist = abs(s - d) / theta
                if dist not in kernel:
                    kernel[dist] = (-arb(to_fmpq(dist))).exp()
                total += wb * kernel[dist]
        out.append(total)
    return out


@dataclass(frozen=True)
class LossDecision:
    """Certified verdict on L(θ) ≤ ε, with the worst output.

    Attributes
    ----------
    verdict : Verdict
        HOLDS (private) when every point satisfies |ln g_P − ln g_Q| ≤ ε (strictly, or
        with equality proved symbolically where ``tight_points`` is non-empty), FAILS
        (not private) when some point exceeds ε.
    theta : Fraction
        The scale decided.
    worst_point : Fraction
        A support point where |ln g_P − ln g_Q| is largest (by the balls' midpoints;
        when two points are within rounding of each other either may be named).
    worst_log_ratio : arb
        Ball containing ln g_P(worst) − ln g_Q(worst).
    max_abs_log_ratio : arb
        Ball containing L(θ) = max over points of |ln g_P − ln g_Q|.
    tight_points : tuple of Fraction
        Points where |ln g_P − ln g_Q| = ε exactly (proved with sympy).
    prec : int
        Bits of working precision that decided the verdict.
    """

    verdict: Verdict
    theta: Fraction
    worst_point: Fraction
    worst_log_ratio: arb
    max_abs_log_ratio: arb
    tight_points: tuple[Fraction, ...]
    prec: int

    @property
    def private(self) -> bool:
        """True when the verdict is HOLDS (L(θ) ≤ ε)."""
        return self.verdict is Verdict.HOLDS


def log_ratio_expr(
    P: DiscreteDistribution, Q: DiscreteDistribution, theta: Fraction, y: Fraction
) -> sympy.Expr:
    """Exact ln f(y|P) − ln f(y|Q) as a sympy expression (the 1/(2θ) factors cancel).

    >>> from exactdp.pufferfish.distributions import point_mass
    >>> log_ratio_expr(point_mass(1), point_mass(0), Fraction(1), Fraction(0))
    -1
    """

    def g(dist: DiscreteDistribution) -> sympy.Expr:
        return sympy.Add(
            *[
                to_sympy(w)
                * sympy.exp(-sympy.Rational(abs(y - d) / theta))
                for d, w in zip(dist.support, dist.probs)
            ]
        )

    return sympy.simplify(sympy.log(g(P)) - sympy.log(g(Q)))


def _exp_sum_is_zero(terms: dict[Fraction, Fraction]) -> bool:
    """Σ c_k e^{x_k} = 0 for distinct rationals x_k iff every c_k = 0 (Lindemann–Weierstrass)."""
    return all(c == 0 for c in terms.values())


def _is_tight(
    P: DiscreteDistribution, Q: DiscreteDistribution, theta: Fraction, y: Fraction,
    level: PrivacyLevel,
) -> bool:
    """Exact test of g_P(y) = e^{±ε} g_Q(y).

    For rational ε (or rational e^ε) both sides are rational combinations of e^{x}
    with rational x, decided exactly by collecting exponents; otherwise sympy decides.
    """
    for first, second in ((P, Q), (Q, P)):
        terms: dict[Fraction, Fraction] = {}
        for d, w in zip(first.support, first.probs):
            x = -abs(y - d) / theta
            terms[x] = terms.get(x, Fraction(0)) + w
        if level.eps_rational is not None or level.t is not None:
            for d, w in zip(second.support, second.probs):
                x = -abs(y - d) / theta
                if level.eps_rational is not None:
                    x, coef = x + level.eps_rational, w
                else:
                    assert level.t is not None
                    coef = w / level.t
                terms[x] = terms.get(x, Fraction(0)) - coef
            if _exp_sum_is_zero(terms):
                return True
        else:
            expr = log_ratio_expr(first, second, theta, y) - level.eps
            if sympy.simplify(expr) == 0:
                return True
    return False


def _all_exact_ties(
    P: DiscreteDistribution, Q: DiscreteDistribution, theta: Fraction,
    ys: Sequence[Fraction], level: PrivacyLevel,
) -> bool:
    if level.eps_rational is None and level.t is None:
        return False  # only the cheap exact test here; sympy runs at max_prec
    return all(_is_tight(P, Q, theta, y, level) for y in ys)


@proved_by("pufferfish_supremum")
def decide_loss(
    P: DiscreteDistribution,
    Q: DiscreteDistribution,
    theta: Fraction,
    level: PrivacyLevel,
    *,
    start_prec: int = 64,
    max_prec: int = 1024,
    direct: bool = False,
    symbolic_ties: bool = True,
) -> LossDecision:
    """Decide L(θ) ≤ ε with balls, raising precision until every point is decided.

    A point whose ratio equals e^{±ε} exactly cannot be decided by balls; at
    ``max_prec`` it is checked exactly when ``symbolic_ties`` (for rational ε or
    rational e^ε by collecting exponentials, which are linearly independent over the
    rationals; else by sympy) and counted as tight; otherwise
    :class:`~exactdp.errors.PrecisionLimitReached` is raised.
    ``direct=True`` uses the independent O(m²) sums. The maximum over the support
    points of P ∪ Q is the supremum over all outputs (``proofs/pufferfish_supremum.py``).

    >>> from exactdp.spaces.levels import parse_level
    >>> from exactdp.pufferfish.distributions import point_mass
    >>> d = decide_loss(point_mass(1), point_mass(0), Fraction(1), parse_level(eps=1))
    >>> d.verdict, d.tight_points
    (<Verdict.HOLDS: 'holds'>, (Fraction(0, 1), Fraction(1, 1)))
    """
    points = union_points(P, Q)
    mp, mq = _masses(P, points), _masses(Q, points)
    prec = start_prec
    sums = kernel_sums_direct if direct else kernel_sums
    while True:
        with workprec(prec):
            gp = sums(points, mp, theta)
            gq = sums(points, mq, theta)
            big_e = level.eps_ball().exp()
            undecided: list[int] = []
            exceeded = False
            for k in range(len(points)):
                up = gp[k] - big_e * gq[k]
                down = gq[k] - big_e * gp[k]
                if up > 0 or down > 0:
                    exceeded = True
                    break
                if not (up < 0 and down < 0):
                    undecided.append(k)
            logs = [gp[k].log() - gq[k].log() for k in range(len(points))]
            absmax = abs(logs[0])
            for value in logs[1:]:
                absmax = absmax.max(abs(value))
            worst = max(range(len(points)), key=lambda k: float(abs(logs[k]).mid()))
            if exceeded or not undecided:
                return LossDecision(
                    verdict=Verdict.FAILS if exceeded else Verdict.HOLDS,
                    theta=theta,
                    worst_point=points[worst],
                    worst_log_ratio=logs[worst],
                    max_abs_log_ratio=absmax,
                    tight_points=(),
                    prec=prec,
                )
        if prec >= max_prec or (symbolic_ties and prec >= 128 and _all_exact_ties(
            P, Q, theta, [points[k] for k in undecided], level
        )):
            break
        prec = min(2 * prec, max_prec)
    if symbolic_ties:
        tight = [points[k] for k in undecided if _is_tight(P, Q, theta, points[k], level)]
        if len(tight) == len(undecided):
            return LossDecision(
                verdict=Verdict.HOLDS,
                theta=theta,
                worst_point=tight[0],
                worst_log_ratio=logs[points.index(tight[0])],
                max_abs_log_ratio=absmax,
                tight_points=tuple(tight),
                prec=prec,
            )
    raise PrecisionLimitReached(
        f"could not decide |ln g_P − ln g_Q| ≤ ε at θ = {theta} within {max_prec} bits "
        f"(points {[str(points[k]) for k in undecided]}); the loss there is within "
        f"rounding of ε. Move θ slightly or raise max_prec."
    )
