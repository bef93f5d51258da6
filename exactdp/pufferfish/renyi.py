"""Rényi divergence of integer order α ≥ 2 between the output laws of a secret pair.

For a secret pair (P, Q) and every population, the release X + noise has Rényi divergence
at most D_α(P ∗ noise ‖ Q ∗ noise), with equality when the rest of the population is a point
mass (``proofs/pufferfish_renyi.py`` (1): adding the independent rest is a Markov kernel, and
D_α obeys data processing). Both directions are computed; :attr:`RenyiDivergence.value` is
the larger, the Rényi-Pufferfish level of the pair.

- Laplace noise Lap(θ): with g(y) = Σ_d P(d) e^{−|y − d|/θ},
  D_α = ln(I/(2θ))/(α − 1), I = ∫ g_P^α g_Q^{1−α}. On each tail I's piece is θ·g_P(s)^α
  g_Q(s)^{1−α} at the extreme support point s (closed form, (2)); between consecutive
  support points g = L e^{−u/θ} + R e^{u/θ}, and the piece is the integral of a function
  meromorphic in u (poles only off the real line), enclosed by arb's certified integration
  (``acb.integral``, Petras' algorithm with rigorous error bounds).
- Discrete Laplace (two-sided geometric, P(Z = z) ∝ a^{|z|}, rational 0 < a < 1) on integer
  data: the sum over the integers is a finite exact sum plus two geometric tails ((4)), so
  e^{(α − 1)D_α} is an EXACT rational. The finite sum has one term per integer between the
  extreme support points: spans above :data:`MAX_DISCRETE_SPAN` raise
  :class:`~exactdp.errors.InstanceTooLarge`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy
from flint import acb, arb

from exactdp.arithmetic.ball import arb_from_fraction, arb_to_fraction_interval, workprec
from exactdp.arithmetic.interval import Enclosure
from exactdp.arithmetic.rationals import to_sympy
from exactdp.arithmetic.validate import read_positive
from exactdp.engine.documents import write_dist
from exactdp.errors import (
    REJECTED_ERRORS,
    CertificateInvalid,
    InstanceTooLarge,
    InvalidArgument,
    InvalidOrder,
    InvalidScale,
    PrecisionLimitReached,
)
from exactdp.kernel.jsonio import envelope, read_enclosure, write_enclosure, write_rational
from exactdp.kernel.pufferfish_integrals import discrete_renyi_work, renyi_work
from exactdp.kernel.verify import verify_document
from exactdp.kinds import CertificateKind, proved_by
from exactdp.pufferfish.containment import stored_contains_truth
from exactdp.pufferfish.discrete import integer_support, read_alpha
from exactdp.pufferfish.distributions import DiscreteDistribution
from exactdp.pufferfish.loss import union_points
from exactdp.pufferfish.secrets import pair_laws

__all__ = [
    "RenyiDivergence",
    "laplace_renyi",
    "DiscreteRenyi",
    "discrete_laplace_renyi",
    "read_order",
    "MAX_DISCRETE_SPAN",
]

#: Largest number of integers between the extreme support points for the exact discrete sum.
MAX_DISCRETE_SPAN = 10_000


def _checked(doc: Any, kind: CertificateKind) -> tuple[dict[str, Any], dict[str, Any]]:
    """(question, claim) of a ``kind`` document the kernel verifies (CertificateInvalid if not)."""
    if not isinstance(doc, dict) or doc.get("kind") != kind.value:
        raise InvalidArgument(f"Got a document of kind {doc.get('kind') if isinstance(doc, dict) else doc!r}; "
                              f"this reads {kind.value!r} documents (exactdp.pufferfish.documents."
                              "from_document reads every Pufferfish kind).")
    verdict = verify_document(doc)
    if not verdict.verified:
        raise CertificateInvalid(f"the kernel rejects this {kind.value} document: "
                                 f"{verdict.reason}; do not use it.")
    return doc["question"], doc["claim"]


def _law(obj: dict[str, list[str]]) -> DiscreteDistribution:
    return DiscreteDistribution.from_lists(obj["support"], obj["probs"])


def _pair_json(P: DiscreteDistribution, Q: DiscreteDistribution) -> dict[str, Any]:
    return {"P": write_dist(P.as_dict()), "Q": write_dist(Q.as_dict())}


def read_order(order: Any) -> int:
    """The Rényi order as an int ≥ 2, or :class:`InvalidOrder` naming the bad value.

    Accepted: an int, a Fraction equal to an integer, or a string of decimal digits. Floats
    (even ``2.0``) and strings such as ``"2.0"`` or ``"1e1"`` are refused alike.

    >>> read_order("3"), read_order(Fraction(4, 2))
    (3, 2)
    >>> try:
    ...     read_order("5/2")
    ... except InvalidOrder as err:
    ...     print(str(err)[:33])
    Got order='5/2'; the Rényi order
    """
    value: Fraction | None = None
    if isinstance(order, (int, Fraction)) and not isinstance(order, bool):
        value = Fraction(order)
    elif isinstance(order, str) and re.fullmatch(r"\s*\+?\d+\s*", order):
        value = Fraction(int(order))
    if value is None or value.denominator != 1 or value < 2:
        kind = " (a float or a decimal/exponent string is not accepted)" if isinstance(
            order, (float, str)) else ""
        raise InvalidOrder(
            f"Got order={order!r}; the Rényi order α must be an integer ≥ 2{kind}, given as an "
            f"int or digits (e.g. 2 or \"8\"): only integer orders have the finite-sum "
            f"enclosures computed here."
        )
    return int(value)


@dataclass(frozen=True)
class RenyiDivergence:
    """Certified enclosures of D_α(P ∗ Lap(θ) ‖ Q ∗ Lap(θ)) and the reverse direction.

    Attributes
    ----------
    P, Q : DiscreteDistribution
    theta : Fraction
    order : int
    forward, backward : Enclosure
        D_α(M_P ‖ M_Q) and D_α(M_Q ‖ M_P), each lo ≤ D ≤ hi.
    prec : int
    """

    P: DiscreteDistribution
    Q: DiscreteDistribution
    theta: Fraction
    order: int
    forward: Enclosure
    backward: Enclosure
    prec: int

    @property
    def value(self) -> Enclosure:
        """max(forward, backward): the Rényi-Pufferfish level of the pair."""
        return Enclosure(max(self.forward.lo, self.backward.lo),
                         max(self.forward.hi, self.backward.hi))

    def verify(self) -> bool:
        """Recompute from the stored inputs (P, Q, θ, α) at precisions chosen here (the
        stored ``prec`` is ignored): each stored enclosure must CONTAIN the recomputed one
        (:func:`~exactdp.pufferfish.containment.stored_contains_truth`)."""
        try:
            P, Q = pair_laws((self.P, self.Q))
            th = read_positive(self.theta, "theta", InvalidScale)
            k = read_order(self.order)
            if not (isinstance(self.theta, Fraction) and type(self.order) is int):
                return False
            return stored_contains_truth((self.forward, self.backward),
                                         lambda prec: _enclosures(P, Q, th, k, prec))
        except REJECTED_ERRORS:
            return False

    def to_document(self) -> dict[str, Any]:
        """The ``pufferfish-renyi`` kernel document (question P, Q, θ, α; both enclosures;
        ``prec`` as the writer's note), re-checked by ``exactdp verify`` with the kernel's own
        certified integration; InstanceTooLarge beyond the kernel's limits, including a
        ``prec`` above the highest precision the kernel's work bound allows for this instance
        (its ball would then be wider than the stored enclosures: undecided).

        >>> from exactdp.pufferfish.secrets import ValuePair
        >>> r = laplace_renyi(ValuePair(1, 0), 1, 2)
        >>> doc = r.to_document()
        >>> doc["question"]["theta"], RenyiDivergence.from_document(doc) == r
        ('1', True)
        """
        top = renyi_work(self.P.as_dict(), self.Q.as_dict(), self.theta, self.order)
        if self.prec > top:
            raise InstanceTooLarge(f"prec = {self.prec}: the kernel re-checks this instance at "
                                   f"most at {top} bits (MAX_WORK); recompute it with prec ≤ "
                                   f"{top} before writing the document.")
        return envelope(CertificateKind.PUFFERFISH_RENYI,
                        {**_pair_json(self.P, self.Q), "theta": write_rational(self.theta),
                         "order": self.order},
                        {"forward": write_enclosure(self.forward),
                         "backward": write_enclosure(self.backward)}, {"prec": self.prec})

    @classmethod
    def from_document(cls, doc: Any) -> RenyiDivergence:
        """Re-check ``doc`` in the kernel, then rebuild the result (CertificateInvalid when
        the kernel rejects it)."""
        q, c = _checked(doc, CertificateKind.PUFFERFISH_RENYI)
        return cls(_law(q["P"]), _law(q["Q"]), Fraction(q["theta"]), q["order"],
                   read_enclosure(c["forward"]), read_enclosure(c["backward"]),
                   doc["evidence"]["prec"])


def _piece(lp: arb, rp: arb, lq: arb, rq: arb, order: int, width: arb) -> arb:
    """∫_0^width (lp e^{−t} + rp e^t)^α (lq e^{−t} + rq e^t)^{1−α} dt, certified.

    When the integrand is larger at 0 than at ``width`` the piece is reflected (t → width − t,
    which swaps l·e^{−width} and r·e^{width}): arb's integrator copes far better with a
    steep rise than with a steep fall (order 10⁴ at θ = 1: 0.2 s instead of a NaN)."""
    def at(t: arb) -> arb:
        return (lp * (-t).exp() + rp * t.exp()) ** order / (
            lq * (-t).exp() + rq * t.exp()) ** (order - 1)

    if at(arb(0)).mid() > at(width).mid():
        up, down = width.exp(), (-width).exp()
        lp, rp, lq, rq = rp * up, lp * down, rq * up, lq * down
    a_p, b_p, a_q, b_q = (acb(x) for x in (lp, rp, lq, rq))

    def f(t: acb, analytic: bool) -> acb:  # meromorphic: poles give non-finite balls
        e, ie = t.exp(), (-t).exp()
        return (a_p * ie + b_p * e) ** order / (a_q * ie + b_q * e) ** (order - 1)

    out = acb.integral(f, acb(0), acb(width))
    if not out.imag.contains(0) or not out.real.is_finite():
        raise PrecisionLimitReached("arb integration did not return a finite real ball")
    return out.real


def _side_sums(dist: DiscreteDistribution, points: list[Fraction], theta: Fraction
               ) -> tuple[list[arb], list[arb]]:
    """(L_k, R_k): Σ_{d ≤ s_k} P(d) e^{−(s_k − d)/θ} and Σ_{d > s_k} P(d) e^{−(d − s_k)/θ},
    by two running sums of non-negative terms (call inside ``workprec``)."""
    d = dist.as_dict()
    masses = [arb_from_fraction(d.get(s, Fraction(0))) for s in points]
    inv = arb_from_fraction(1 / theta)
    decay = [(-(arb_from_fraction(points[k + 1] - points[k]) * inv)).exp()
             for k in range(len(points) - 1)]
    left, acc = [], arb(0)
    for k, w in enumerate(masses):
        acc = (acc * decay[k - 1] if k else acc) + w
        left.append(acc)
    right, acc = [arb(0)] * len(points), arb(0)
    for k in range(len(points) - 2, -1, -1):
        acc = (acc + masses[k + 1]) * decay[k]
        right[k] = acc
    return left, right


def _enclosures(P: DiscreteDistribution, Q: DiscreteDistribution, theta: Fraction, order: int,
                prec: int) -> tuple[Enclosure, Enclosure]:
    """(forward, backward) at ``prec`` bits; D ≥ 0, so a lower end below 0 is clipped."""
    encl = []
    with workprec(prec):
        for A, B in ((P, Q), (Q, P)):
            try:
                integral = _renyi_integral(A, B, theta, order)
            except PrecisionLimitReached as exc:
                raise PrecisionLimitReached(
                    f"Got order={order}, theta={theta}: arb's certified integration of "
                    f"g_P^α g_Q^(1−α) (magnitudes up to e^(α·gap/θ)) did not converge at {prec} "
                    f"bits. Use a lower order or a larger θ, or discrete_laplace_renyi (exact "
                    f"rationals, no integration)."
                ) from exc
            ball = (integral / (2 * arb_from_fraction(theta))).log() / (order - 1)
            lo, hi = arb_to_fraction_interval(ball)
            encl.append(Enclosure(max(lo, Fraction(0)), max(hi, Fraction(0))))
    return encl[0], encl[1]


def _renyi_integral(P: DiscreteDistribution, Q: DiscreteDistribution, theta: Fraction,
                    order: int) -> arb:
    """Ball for I = ∫ g_P^α g_Q^{1−α} dy (call inside ``workprec``)."""
    pts = union_points(P, Q)
    lp, rp = _side_sums(P, pts, theta)
    lq, rq = _side_sums(Q, pts, theta)
    th = arb_from_fraction(theta)
    gp0, gq0 = lp[0] + rp[0], lq[0] + rq[0]
    gpm, gqm = lp[-1] + rp[-1], lq[-1] + rq[-1]
    total = th * (gp0**order / gq0 ** (order - 1) + gpm**order / gqm ** (order - 1))
    for k in range(len(pts) - 1):
        width = arb_from_fraction((pts[k + 1] - pts[k]) / theta)
        total += th * _piece(lp[k], rp[k], lq[k], rq[k], order, width)
    return total


@proved_by("pufferfish_renyi")
def laplace_renyi(pair: Any, theta: Any, order: Any, *, prec: int = 128) -> RenyiDivergence:
    """Rényi divergence of integer order α ≥ 2 of X + Lap(θ) for a secret pair, both ways.

    Worst population: a point-mass rest (``proofs/pufferfish_renyi.py``). Tails in closed
    form, pieces between support points by certified arb integration.

    >>> from exactdp.pufferfish.secrets import ValuePair
    >>> r = laplace_renyi(ValuePair(1, 0), 1, 2)
    >>> import math   # closed form for two point masses: ln(2e/3 + e^{-2}/3)
    >>> exact = math.log(2 * math.e / 3 + math.exp(-2) / 3)
    >>> float(r.forward.lo) <= exact <= float(r.forward.hi), r.verify()
    (True, True)
    """
    P, Q = pair_laws(pair)
    th = read_positive(theta, "theta (the Laplace scale θ)", InvalidScale)
    k = read_order(order)
    forward, backward = _enclosures(P, Q, th, k, prec)
    return RenyiDivergence(P, Q, th, k, forward, backward, prec)


@dataclass(frozen=True)
class DiscreteRenyi:
    """D_α for discrete Laplace noise, exactly: e^{(α−1)D} = ``moment`` (a rational).

    ``forward`` / ``backward``: the exact rationals Σ_y p_P(y)^α p_Q(y)^{1−α} (and reversed);
    D = ln(moment)/(α − 1).
    """

    P: DiscreteDistribution
    Q: DiscreteDistribution
    a: Fraction
    order: int
    forward: Fraction
    backward: Fraction

    def divergence(self, direction: str = "max") -> sympy.Expr:
        """The exact D_α as a sympy expression (``"forward"``, ``"backward"`` or ``"max"``)."""
        m = {"forward": self.forward, "backward": self.backward,
             "max": max(self.forward, self.backward)}[direction]
        return sympy.log(to_sympy(m)) / (self.order - 1)

    def verify(self) -> bool:
        """Recompute both exact sums."""
        try:
            again = discrete_laplace_renyi((self.P, self.Q), self.a, self.order)
            return (again.forward, again.backward) == (self.forward, self.backward)
        except REJECTED_ERRORS:
            return False

    def to_document(self) -> dict[str, Any]:
        """The ``pufferfish-discrete-renyi`` kernel document (question P, Q, a, α; both exact
        moments), re-checked exactly by ``exactdp verify``; InstanceTooLarge beyond the
        kernel's work limit (``MAX_DISCRETE_BITS``, smaller than what
        :data:`MAX_DISCRETE_SPAN` lets this module compute: such a result has no document).

        >>> from exactdp.pufferfish.secrets import ValuePair
        >>> r = discrete_laplace_renyi(ValuePair(1, 0), Fraction(1, 2), 2)
        >>> doc = r.to_document()
        >>> doc["claim"], DiscreteRenyi.from_document(doc) == r
        ({'forward': '3/2', 'backward': '3/2'}, True)
        """
        discrete_renyi_work(self.P.as_dict(), self.Q.as_dict(), self.a, self.order)
        return envelope(CertificateKind.PUFFERFISH_DISCRETE_RENYI,
                        {**_pair_json(self.P, self.Q), "a": write_rational(self.a),
                         "order": self.order},
                        {"forward": write_rational(self.forward),
                         "backward": write_rational(self.backward)}, {})

    @classmethod
    def from_document(cls, doc: Any) -> DiscreteRenyi:
        """Re-check ``doc`` in the kernel (exact sums), then rebuild the result."""
        q, c = _checked(doc, CertificateKind.PUFFERFISH_DISCRETE_RENYI)
        return cls(_law(q["P"]), _law(q["Q"]), Fraction(q["a"]), q["order"],
                   Fraction(c["forward"]), Fraction(c["backward"]))


def _geometric_moment(P: DiscreteDistribution, Q: DiscreteDistribution, a: Fraction,
                      order: int) -> Fraction:
    """Σ_{y ∈ Z} p_P(y)^α p_Q(y)^{1−α} exactly: finite sum on [s_0, s_m] plus two tails."""
    pts = union_points(P, Q)
    pp, qq = P.as_dict(), Q.as_dict()
    c = (1 - a) / (1 + a)

    def h(dist: dict[Fraction, Fraction], y: int) -> Fraction:
        return sum((w * a ** int(abs(y - d)) for d, w in dist.items()), Fraction(0))

    total = Fraction(0)
    lo, hi = int(pts[0]), int(pts[-1])
    for y in range(lo, hi + 1):
        total += h(pp, y) ** order / h(qq, y) ** (order - 1)
    tails = (h(pp, lo) ** order / h(qq, lo) ** (order - 1)
             + h(pp, hi) ** order / h(qq, hi) ** (order - 1)) * a / (1 - a)
    return c * (total + tails)


@proved_by("pufferfish_renyi")
def discrete_laplace_renyi(pair: Any, a: Any, order: Any) -> DiscreteRenyi:
    """Exact Rényi divergence of order α of X + Z, P(Z = z) ∝ a^{|z|}, integer data.

    ``proofs/pufferfish_renyi.py`` (4): finite sum plus geometric tails, all rational. One
    term per integer of [s_0, s_m]: a span above :data:`MAX_DISCRETE_SPAN` integers raises
    :class:`~exactdp.errors.InstanceTooLarge` (no closed form between support points is known
    here for a negative power of a two-term sum).

    >>> from exactdp.pufferfish.secrets import ValuePair
    >>> r = discrete_laplace_renyi(ValuePair(1, 0), Fraction(1, 2), 2)
    >>> r.forward, r.verify()
    (Fraction(3, 2), True)
    """
    P, Q = pair_laws(pair)
    integer_support(P, "P")
    integer_support(Q, "Q")
    aa = read_alpha(a)
    k = read_order(order)
    span = int(max(P.support[-1], Q.support[-1]) - min(P.support[0], Q.support[0])) + 1
    if span > MAX_DISCRETE_SPAN:
        raise InstanceTooLarge(
            f"Got supports spanning {span} integers (from {min(P.support[0], Q.support[0])} to "
            f"{max(P.support[-1], Q.support[-1])}); the exact sum has one rational term per "
            f"integer and is limited to MAX_DISCRETE_SPAN = {MAX_DISCRETE_SPAN}. Shift or "
            f"rescale the data to a narrower integer range, or use laplace_renyi (certified).")
    return DiscreteRenyi(P, Q, aa, k, _geometric_moment(P, Q, aa, k),
                         _geometric_moment(Q, P, aa, k))
