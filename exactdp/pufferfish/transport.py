"""Exact optimal transport between two distributions on the line.

In one dimension the monotone (quantile) coupling, which pairs the t-quantile of P
with the t-quantile of Q for every t in (0, 1], is optimal for W_1 and for W_∞ at
once. It is built exactly by merging the two cumulative distribution functions.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from exactdp.errors import CertificateInvalid
from exactdp.pufferfish.distributions import DiscreteDistribution

__all__ = ["TransportPlan", "transport_plan", "wasserstein_1", "wasserstein_inf"]


@dataclass(frozen=True)
class TransportPlan:
    """The monotone coupling of P and Q: mass ``m`` moved from ``x`` (under P) to ``y``.

    Attributes
    ----------
    P, Q : DiscreteDistribution
        The two marginals.
    moves : tuple of (x, y, m)
        Moves in increasing order of x and of y (the coupling is monotone).
    w1 : Fraction
        Its cost Σ m·|x − y| (= W_1(P, Q), the plan being optimal).
    winf : Fraction
        Its largest displacement max |x − y| over moves with m > 0 (= W_∞(P, Q)).

    Examples
    --------
    >>> from exactdp.pufferfish.distributions import bernoulli
    >>> plan = transport_plan(bernoulli("1/2"), bernoulli("1/4"))
    >>> [(str(x), str(y), str(m)) for x, y, m in plan.moves]
    [('0', '0', '1/2'), ('1', '0', '1/4'), ('1', '1', '1/4')]
    >>> plan.w1, plan.winf, plan.verify()
    (Fraction(1, 4), Fraction(1, 1), True)
    """

    P: DiscreteDistribution
    Q: DiscreteDistribution
    moves: tuple[tuple[Fraction, Fraction, Fraction], ...]
    w1: Fraction
    winf: Fraction

    def verify(self) -> bool:
        """Re-check marginals, monotonicity, both costs and W_1 = ∫|F_P − F_Q|."""
        from_p: dict[Fraction, Fraction] = {}
        to_q: dict[Fraction, Fraction] = {}
        for x, y, m in self.moves:
            if m <= 0:
                return False
            from_p[x] = from_p.get(x, Fraction(0)) + m
            to_q[y] = to_q.get(y, Fraction(0)) + m
        if from_p != self.P.as_dict() or to_q != self.Q.as_dict():
            return False
        for (x1, y1, _), (x2, y2, _) in zip(self.moves, self.moves[1:]):
            if x2 < x1 or y2 < y1:
                return False
        cost = sum((m * abs(x - y) for x, y, m in self.moves), Fraction(0))
        worst = max(abs(x - y) for x, y, _ in self.moves)
        return cost == self.w1 == _w1_by_cdf(self.P, self.Q) and worst == self.winf

    def to_json(self) -> dict[str, object]:
        """Exact JSON form."""
        return {
            "moves": [[str(x), str(y), str(m)] for x, y, m in self.moves],
            "w1": str(self.w1),
            "winf": str(self.winf),
        }


def _w1_by_cdf(P: DiscreteDistribution, Q: DiscreteDistribution) -> Fraction:
    """W_1 = ∫ |F_P(x) − F_Q(x)| dx, an independent formula (CDFs are step functions)."""
    points = sorted(set(P.support) | set(Q.support))
    total = Fraction(0)
    fp = fq = Fraction(0)
    pp, qq = P.as_dict(), Q.as_dict()
    for a, b in zip(points, points[1:]):
        fp += pp.get(a, Fraction(0))
        fq += qq.get(a, Fraction(0))
        total += abs(fp - fq) * (b - a)
    return total


def transport_plan(P: DiscreteDistribution, Q: DiscreteDistribution) -> TransportPlan:
    """The monotone (quantile) coupling of P and Q, exactly (see :class:`TransportPlan`)."""
    moves: list[tuple[Fraction, Fraction, Fraction]] = []
    i = j = 0
    left_p, left_q = P.probs[0], Q.probs[0]
    while i < len(P.support) and j < len(Q.support):
        m = min(left_p, left_q)
        moves.append((P.support[i], Q.support[j], m))
        left_p -= m
        left_q -= m
        if left_p == 0:
            i += 1
            if i < len(P.support):
                left_p = P.probs[i]
        if left_q == 0:
            j += 1
            if j < len(Q.support):
                left_q = Q.probs[j]
    if i != len(P.support) or j != len(Q.support):  # pragma: no cover - sums are both 1
        raise CertificateInvalid("monotone coupling did not exhaust both marginals")
    w1 = sum((m * abs(x - y) for x, y, m in moves), Fraction(0))
    winf = max(abs(x - y) for x, y, _ in moves)
    return TransportPlan(P=P, Q=Q, moves=tuple(moves), w1=w1, winf=winf)


def wasserstein_1(P: DiscreteDistribution, Q: DiscreteDistribution) -> Fraction:
    """W_1(P, Q) exactly.

    >>> from exactdp.pufferfish.distributions import point_mass
    >>> wasserstein_1(point_mass(0), point_mass(3))
    Fraction(3, 1)
    """
    return transport_plan(P, Q).w1


def wasserstein_inf(P: DiscreteDistribution, Q: DiscreteDistribution) -> Fraction:
    """W_∞(P, Q) exactly: the largest gap between the quantile functions.

    >>> from exactdp.pufferfish.distributions import bernoulli
    >>> wasserstein_inf(bernoulli("1/2"), bernoulli("1/2"))
    Fraction(0, 1)
    """
    return transport_plan(P, Q).winf
