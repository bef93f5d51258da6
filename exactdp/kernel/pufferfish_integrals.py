"""Re-check Pufferfish Rényi documents: Laplace noise by certified integration, discrete
Laplace noise exactly.

Kinds (the question carried in full, every number exact):

* ``pufferfish-renyi`` — laws P, Q, a scale θ > 0 and an integer order α ≥ 2; the claim:
  enclosures ``forward`` ∋ D_α(P ∗ Lap(θ) ‖ Q ∗ Lap(θ)) and ``backward`` (P and Q swapped).
  With g_D(y) = Σ_d D(d) e^{−|y−d|/θ}, D_α = ln(I/(2θ))/(α − 1), I = ∫ g_P^α g_Q^{1−α}: the
  two tails in closed form, each piece [s_k, s_{k+1}] between support points, y = s_k + θt,
  g = L e^{−t} + R e^{t} with L, R summed directly from the definition, by arb's certified
  integration (``acb.integral``) of exp(α·log g_P − (α − 1)·log g_Q − log c), c the exact
  midpoint of the integrand's larger end value (g > 0 on the real segment; the logs are
  checked analytic; steep and wide pieces converge, nothing is reflected). D ≥ 0, so a lower end below 0 is raised to 0.
  The claim is accepted iff each enclosure CONTAINS the kernel's ball at one of
  :data:`PRECS`, rejected as soon as one is disjoint from it, undecided
  (PrecisionLimitReached, exit 2) when no affordable precision decides. Work: at most
  :data:`MAX_SUPPORT` points, α ≤ :data:`MAX_ORDER`, α·(s_m − s_0)/θ ≤ :data:`MAX_STEEP`,
  and the ladder's cost Σ_p (m + ⌈(s_m − s_0)/θ⌉)·(p/128)² ≤ :data:`MAX_WORK` — the
  ladder stops at the last precision that fits (InstanceTooLarge, before any integration,
  when not even 128 bits fits). Measured (``nice``, shared 2-core machine, CPU time of a
  never-decided claim, 64 points, θ = 1, both directions, whole ladder): span 3936, α = 2
  (128 + 256 bits) 21.8 s; span 888 (to 512) 12.6 s; span 171 (to 1024) 13.6 s, α = 116:
  12.4 s; span 2, α = 10⁴ 7.4 s (before this bound: ≈ 7 min for span 10⁴).
* ``pufferfish-discrete-renyi`` — integer laws P, Q, a rational 0 < a < 1 (P(Z = z) ∝ a^{|z|})
  and the order; the claim: the exact moments M = e^{(α−1)D_α} both ways, rationals. The
  kernel recomputes them in integers: with a = u/v, S = s_m − s_0 and integer masses W_D/den_D,
  h_D(y) = H_D(y)/(den_D v^S), H_D(y) = Σ_d W_D(d) u^{|y−d|} v^{S−|y−d|}, and
  M = c·den_Q^{α−1}/(den_P^α v^S)·[Σ_{y=s_0}^{s_m} H_P^α/H_Q^{α−1} + (ends)·a/(1 − a)],
  c = (1 − a)/(1 + a) (``proofs/pufferfish_renyi.py`` (4)); work bounded first by
  (S + 1)·(m + α)·(S·bits(a) + bits(den)) ≤ :data:`MAX_DISCRETE_BITS` (the cost of the
  big-integer gcds grows faster than the bits; measured, ``nice``: S = 2, a = 99999/100000,
  α = 19970, both directions 6.7 s of CPU; at the former 2²⁴ ≈ 4 min).

Both are justified by ``proofs/kernel_pufferfish_integrals.py`` (which also re-checks these
functions against 50-digit mpmath).

>>> from exactdp.kernel.jsonio import envelope
>>> law = lambda x: {"support": [x], "probs": ["1"]}
>>> doc = envelope("pufferfish-discrete-renyi", {"P": law("1"), "Q": law("0"), "a": "1/2",
...                "order": 2}, {"forward": "3/2", "backward": "3/2"}, {})
>>> check_pufferfish_integrals(doc)
True
>>> doc["claim"]["forward"] = "7/5"
>>> check_pufferfish_integrals(doc)
False
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from flint import acb, arb, fmpq, fmpz

from exactdp.arithmetic.ball import arb_from_fraction
from exactdp.arithmetic.rationals import fmpq_to_fraction
from exactdp.errors import InstanceTooLarge, InvalidArgument
from exactdp.kernel.jsonio import Envelope, read_enclosure, read_envelope, read_int, read_rational
from exactdp.kernel.pufferfish import Dist, integer_sweep, read_laws, read_parts, read_theta
from exactdp.kernel.pufferfish_mechanisms import PRECS, interval, ladder
from exactdp.kinds import CertificateKind, proved_by

__all__ = ["INTEGRAL_KINDS", "MAX_SUPPORT", "MAX_ORDER", "MAX_STEEP", "MAX_WORK", "PRECS",
           "MAX_DISCRETE_BITS",
           "check_pufferfish_integrals", "renyi_work", "discrete_renyi_work",
           "laplace_renyi_ball", "discrete_renyi_moment"]

INTEGRAL_KINDS = (CertificateKind.PUFFERFISH_RENYI.value,
                  CertificateKind.PUFFERFISH_DISCRETE_RENYI.value)
#: Largest union support of a Laplace Rényi document (one certified integral per gap).
MAX_SUPPORT = 64
#: Largest Rényi order the kernel re-checks.
MAX_ORDER = 10_000
#: Largest α·(s_m − s_0)/θ: the integrand spans up to e^{±α·gap/θ}.
MAX_STEEP = 20_000
#: Largest cost of the precision ladder, Σ_p (m + ⌈span/θ⌉)·(p/128)² over the precisions
#: tried (one unit ≈ 1 ms of CPU for both directions, measured).
MAX_WORK = 20_000
#: Largest (S + 1)·(m + α)·(bits) of a discrete Rényi document.
MAX_DISCRETE_BITS = 2**22


def renyi_work(P: Dist, Q: Dist, theta: Fraction, order: int) -> int:
    """The highest precision of :data:`PRECS` whose ladder fits :data:`MAX_WORK`;
    InstanceTooLarge beyond the limits (checked before any integration).

    >>> renyi_work({Fraction(0): Fraction(1)}, {Fraction(3): Fraction(1)}, Fraction(1, 2), 5)
    1024
    >>> renyi_work({Fraction(0): Fraction(1)}, {Fraction(10**4): Fraction(1)}, Fraction(1), 2)
    128
    """
    pts = sorted(set(P) | set(Q))
    steep = -(-order * (pts[-1] - pts[0]) // theta)
    unit = len(pts) + int(-(-(pts[-1] - pts[0]) // theta))
    if len(pts) > MAX_SUPPORT or order > MAX_ORDER or steep > MAX_STEEP or unit > MAX_WORK:
        raise InstanceTooLarge(f"{len(pts)} points, order {order}, α·span/θ ≈ {steep}, points + span/θ ≈ {unit}: over "
                               f"MAX_SUPPORT = {MAX_SUPPORT}, MAX_ORDER = {MAX_ORDER}, MAX_STEEP = {MAX_STEEP} "
                               f"or MAX_WORK = {MAX_WORK}; use a larger θ, a lower order or fewer points.")
    cum = [sum(unit * (p // 128) ** 2 for p in PRECS[:i + 1]) for i in range(len(PRECS))]
    return max(p for p, w in zip(PRECS, cum) if w <= MAX_WORK)


def _piece(ends: tuple[arb, arb, arb, arb], order: int, width: arb) -> arb:
    """∫_0^width (lp e^{−t} + rp e^t)^α (lq e^{−t} + rq e^t)^{1−α} dt, certified: the
    integrand as exp(α·log g_P − (α − 1)·log g_Q − log c) (logs checked analytic: a box that
    meets the branch cut gives a non-finite ball), c > 0 the exact midpoint of the larger end
    value, times c. No power of a wide ball: steep and wide pieces converge."""
    lp, rp, lq, rq = (acb(x) for x in ends)

    def h(t: acb, analytic: bool) -> acb:
        e, ie = t.exp(), (-t).exp()
        return order * (lp * ie + rp * e).log(analytic=analytic) - (order - 1) * (
            lq * ie + rq * e).log(analytic=analytic)

    c = max((h(acb(x), False).real.exp() for x in (arb(0), width)), key=lambda v: v.mid()).mid()
    if not c > 0:
        return arb("nan")
    log_c = acb(c).log()
    out = acb.integral(lambda t, a: (h(t, a) - log_c).exp(), acb(0), acb(width))
    return out.real * c if out.imag.contains(0) else arb("nan")


@proved_by("kernel_pufferfish_integrals")
def laplace_renyi_ball(A: Dist, B: Dist, theta: Fraction, order: int) -> arb:
    """D_α(A ∗ Lap(θ) ‖ B ∗ Lap(θ)) as a ball at the current precision (may be non-finite):
    tails θ·g_A^α g_B^{1−α} at the extreme points, pieces by :func:`_piece`
    (``proofs/kernel_pufferfish_integrals.py``, ``proofs/pufferfish_renyi.py`` (2), (3))."""
    pts = sorted(set(A) | set(B))

    def side(D: Dist, s: Fraction, left: bool) -> arb:
        return sum((arb_from_fraction(w) * arb_from_fraction(-abs(s - d) / theta).exp()
                    for d, w in D.items() if (d <= s) == left), arb(0))

    th = arb_from_fraction(theta)
    total = arb(0)
    for s in (pts[0], pts[-1]):
        total += th * (side(A, s, True) + side(A, s, False)) ** order / (
            side(B, s, True) + side(B, s, False)) ** (order - 1)
    for s, nxt in zip(pts, pts[1:]):
        ends = (side(A, s, True), side(A, s, False), side(B, s, True), side(B, s, False))
        total += th * _piece(ends, order, arb_from_fraction((nxt - s) / theta))
    return (total / (2 * th)).log() / (order - 1)


def discrete_renyi_work(P: Dist, Q: Dist, a: Fraction, order: int) -> int:
    """(S + 1)·(m + α)·(S·bits(a) + bits of the masses' denominators), InstanceTooLarge
    beyond :data:`MAX_DISCRETE_BITS` (checked before any exact work).

    >>> discrete_renyi_work({Fraction(0): Fraction(1)}, {Fraction(3): Fraction(1)}, Fraction(1, 2), 2)
    176
    >>> try:
    ...     discrete_renyi_work({Fraction(0): Fraction(1)}, {Fraction(10**4): Fraction(1)}, Fraction(1, 2), 2)
    ... except InstanceTooLarge as exc:
    ...     print(str(exc)[:50])
    the exact discrete Rényi sums need 10001·4·(30002)
    """
    for name, D in (("P", P), ("Q", Q)):  # named as in the document (P is the first argument)
        for x in (x for x in sorted(D) if x.denominator != 1):
            raise InvalidArgument(f'question.{name}.support: "{x}" is not an integer; the discrete kind needs integer '
                                  "support points (shift or scale the secrets to integers).")
    pts = sorted(set(P) | set(Q))
    span, m = int(pts[-1] - pts[0]), len(pts)
    bits = span * (a.numerator.bit_length() + a.denominator.bit_length()) + sum(
        math.lcm(*(w.denominator for w in D.values())).bit_length() for D in (P, Q))
    if (span + 1) * (m + order) * bits > MAX_DISCRETE_BITS:
        raise InstanceTooLarge(f"the exact discrete Rényi sums need {span + 1}·{m + order}·({bits}) bits, over "
                               f"MAX_DISCRETE_BITS = {MAX_DISCRETE_BITS}; use a narrower support, a shorter a or a "
                               "lower order.")
    return (span + 1) * (m + order) * bits


@proved_by("kernel_pufferfish_integrals")
def discrete_renyi_moment(A: Dist, B: Dist, a: Fraction, order: int) -> Fraction:
    """Σ_{y∈Z} p_A(y)^α p_B(y)^{1−α} exactly, for integer laws and P(Z = z) ∝ a^{|z|}
    (``proofs/kernel_pufferfish_integrals.py``; :func:`discrete_renyi_work` first).

    >>> discrete_renyi_moment({Fraction(1): Fraction(1)}, {Fraction(0): Fraction(1)}, Fraction(1, 2), 2)
    Fraction(3, 2)
    """
    discrete_renyi_work(A, B, a, order)
    pts = sorted(set(A) | set(B))
    s0, S = int(pts[0]), int(pts[-1] - pts[0])
    dens = [math.lcm(*(w.denominator for w in D.values())) for D in (A, B)]
    HA, HB = (integer_sweep([int(D.get(Fraction(s0 + y), 0) * den) for y in range(S + 1)], [1] * S, a.numerator,
                            a.denominator) for D, den in zip((A, B), dens))  # H_D(y) at every integer y
    T = [fmpq(x ** order) / fmpq(y ** (order - 1)) for x, y in zip(HA, HB)]
    total = sum(T, fmpq(0)) + (T[0] + T[S]) * fmpq(a.numerator, a.denominator - a.numerator)
    k = fmpq(dens[1] ** (order - 1)) / fmpq(dens[0] ** order * fmpz(a.denominator) ** S)
    m = total * k * fmpq(a.denominator - a.numerator, a.denominator + a.numerator)
    return fmpq_to_fraction(m)


def _check_renyi(env: Envelope) -> bool:
    q, c, ev = read_parts(env, ("P", "Q", "theta", "order"), ("forward", "backward"), ("prec",))
    read_int(ev["prec"], "evidence.prec", 2, 2**16)  # the writer's note, not a claim
    P, Q = read_laws(q)
    theta, order = read_theta(q["theta"]), read_int(q["order"], "question.order", 2)
    claims = [read_enclosure(c[k], f"claim.{k}") for k in ("forward", "backward")]
    top = renyi_work(P, Q, theta, order)  # the ladder stops at the last precision MAX_WORK allows

    def balls(_: int) -> list[tuple[Fraction, Fraction] | None]:  # D ≥ 0: lower ends raised to 0
        got = [interval(laplace_renyi_ball(A, B, theta, order)) for A, B in ((P, Q), (Q, P))]
        return [g and (max(g[0], Fraction(0)), max(g[1], Fraction(0))) for g in got]
    return ladder(claims, balls, precs=tuple(p for p in PRECS if p <= top))


def check_pufferfish_integrals(doc: Any) -> bool:
    """Re-check a document of :data:`INTEGRAL_KINDS` (InvalidArgument when malformed,
    InstanceTooLarge beyond the limits, False when a claim does not re-check)."""
    env = read_envelope(doc, INTEGRAL_KINDS)
    if env.kind == CertificateKind.PUFFERFISH_RENYI.value:
        return _check_renyi(env)
    q, c, _ = read_parts(env, ("P", "Q", "a", "order"), ("forward", "backward"))
    P, Q = read_laws(q)
    a, order = read_rational(q["a"], "question.a"), read_int(q["order"], "question.order", 2)
    if not 0 < a < 1:
        raise InvalidArgument(f"question.a: got \"{a}\"; need a rational 0 < a < 1.")
    claimed = [read_rational(c[k], f"claim.{k}") for k in ("forward", "backward")]  # support: discrete_renyi_work
    return claimed == [discrete_renyi_moment(P, Q, a, order), discrete_renyi_moment(Q, P, a, order)]
