"""Re-check Pufferfish staircase and Gaussian documents from their question alone.

Kinds (laws P, Q as ``{"support", "probs"}``, every parameter an exact rational):

* ``pufferfish-staircase`` — question P, Q, ``delta`` Δ > 0, ``eps0`` (a level: b = e^{−ε₀}),
  ``gamma`` ∈ [0, 1]; claim ``pieces`` (count), ``worst_output`` y, ``numerator`` and
  ``denominator`` (rational polynomials in b, descending), ``ratio`` (max(R, 1/R) at y when
  b is rational, else null) and ``loss`` {lo, hi} ∋ L = max over pieces |ln R|. The kernel
  enumerates the break points d + (k, k ± γ)Δ of the window [s_0 − Δ, s_m + Δ]
  (``proofs/pufferfish_staircase.py`` (2)–(3)), rebuilds each piece's exact ratio, checks
  y is a piece midpoint with the claimed ratio and that this ratio attains the maximum
  (exactly for rational b; else every other piece is certified below it by balls or is the
  same rational function or its inverse), ``ratio`` exactly, and that ``loss`` contains the
  ball of |ln R(b)|. Work (candidate break points × points × size of b's powers) ≤ the
  limits below, checked first (InstanceTooLarge, exit 2).
* ``pufferfish-gaussian-delta`` — question P, Q, ``sigma`` σ > 0, ``level`` ε; claim ``delta``
  {lo, hi} ∋ δ(σ) = max over both directions of ∫ (g_A − e^ε g_B)_+
  (``proofs/pufferfish_gaussian.py`` (1)); evidence ``prec``, ``rel_tol`` (the writer's notes).
* ``pufferfish-gaussian-scale`` — question P, Q, ``level``, ``delta`` (target in (0, 1)); claim
  ``least`` {lo, hi} and ``at_lo``, ``at_hi`` ∋ δ(lo), δ(hi) with at_lo.lo > δ > at_hi.hi
  (δ(σ) is non-increasing: ``proofs/pufferfish_gaussian.py`` (2)); evidence the notes of both.

δ is enclosed by :func:`gaussian_hockey` (``proofs/kernel_pufferfish_mechanisms.py``); δ = 0
exactly when P = Q as laws. Every enclosure is accepted iff it CONTAINS the kernel's ball at one
of :data:`PRECS`, rejected when disjoint from it, else undecided (PrecisionLimitReached, exit 2).
Gaussian limits (InstanceTooLarge, exit 2): ≤ :data:`MAX_SUPPORT` points, but the limit that
binds is the work: :func:`gaussian_work`'s estimate, which grows with the points and the sign
changes of P − e^ε Q (:func:`sign_changes`, ≤ m − 1), is checked first, here and by the writers,
and the whole check then spends at most :data:`MAX_GAUSS_WORK` piece × point evaluations.

>>> from exactdp.kernel.jsonio import envelope
>>> law = lambda x: {"support": [x], "probs": ["1"]}
>>> doc = envelope("pufferfish-staircase", {"P": law("1"), "Q": law("0"), "delta": "1",
...   "eps0": {"t": "1/2"}, "gamma": "1/2"}, {"pieces": 6, "worst_output": "7/4",
...   "numerator": ["1"], "denominator": ["1", "0"], "ratio": "2",
...   "loss": {"lo": "69/100", "hi": "7/10"}}, {"prec": 128})
>>> check_pufferfish_mechanisms(doc)
True
>>> doc["claim"]["loss"] = {"lo": "7/10", "hi": "1"}
>>> check_pufferfish_mechanisms(doc)
False
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from flint import arb

from exactdp.arithmetic.ball import arb_from_fraction, arb_to_fraction_interval, workprec
from exactdp.arithmetic.interval import Enclosure
from exactdp.errors import InstanceTooLarge, InvalidArgument, PrecisionLimitReached
from exactdp.kernel.jsonio import Envelope, read_enclosure, read_envelope, read_int, read_list, read_poly
from exactdp.kernel.jsonio import read_rational as rat
from exactdp.kernel.pufferfish import Dist, read_laws, read_parts, read_theta, strict_level
from exactdp.kinds import CertificateKind, proved_by
from exactdp.spaces.levels import PrivacyLevel

__all__ = ["MECHANISM_KINDS", "check_pufferfish_mechanisms", "staircase_work", "staircase_mids", "staircase_key",
           "staircase_keys", "sign_changes", "gaussian_hockey", "gaussian_work", "PRECS", "MAX_PIECES",
           "MAX_STAIR_WORK", "MAX_GAUSS_WORK", "PIECES_PER_LEVEL", "ladder", "interval"]

MECHANISM_KINDS = STAIRCASE, DELTA, SCALE = tuple(k.value for k in (CertificateKind.PUFFERFISH_STAIRCASE,
                                                   CertificateKind.PUFFERFISH_GAUSSIAN_DELTA,
                                                   CertificateKind.PUFFERFISH_GAUSSIAN_SCALE))
#: Precisions (bits) at which a claimed enclosure must contain the kernel's ball.
PRECS = (128, 256, 512, 1024)
#: Most candidate break points of a staircase window, 4·m·(⌈span/Δ⌉ + 4) (the search's limit).
MAX_PIECES = 200_000
#: Most candidate points × support points × (1 + candidates/m × bits(b)/4096) × (1 + bits of the
#: denominators/512), staircase (:func:`staircase_work`; about 1 µs each).
MAX_STAIR_WORK = 4_000_000
#: Most support points (union of P and Q) of a Gaussian document.
MAX_SUPPORT = 64
#: Largest (s_m − s_0)/σ of a Gaussian document (the range to cover, in units of σ).
MAX_RANGE = 10_000
#: Most piece evaluations × support points of one Gaussian document, all directions, σ's and
#: precisions together (a 1024-bit piece counts twice): about 12 µs each, so at most ~12 s of CPU.
MAX_GAUSS_WORK = 1_000_000
#: Pieces the work estimate of :func:`gaussian_work` allows per root of h and bisection level.
PIECES_PER_LEVEL = 4
#: Largest ε of a Gaussian document (e^ε must stay a finite ball).
MAX_EPS = 10_000
#: The Gaussian range is [s_0 − Tσ, s_m + Tσ]; each tail beyond holds at most Φ(−T) < 2^−1660.
TAIL = 48
Poly = tuple[tuple[int, Fraction], ...]
Key = tuple[Poly, Poly]


def ladder(claims: list[Enclosure], truth: Any, more: Any = lambda: True, precs: tuple[int, ...] = PRECS) -> bool:
    """Each claim must contain its interval ``truth(prec)`` (None: not finite) at one of ``precs``,
    and ``more()`` (called inside ``workprec``) hold: False as soon as one is disjoint; undecided
    (PrecisionLimitReached) after the last precision."""
    for prec in precs:
        with workprec(prec):
            got, extra = truth(prec), more()
        if extra is False or any(g is not None and (c.hi < g[0] or g[1] < c.lo) for c, g in zip(claims, got)):
            return False
        if extra and all(g is not None and c.lo <= g[0] and g[1] <= c.hi for c, g in zip(claims, got)):
            return True
    raise PrecisionLimitReached(f"undecided at {precs[-1] if precs else 0} bits (the last precision the work limits "
                                "allow): the kernel's balls neither fit in nor miss the claim, or did not converge.")


def interval(ball: arb) -> tuple[Fraction, Fraction] | None:
    """The rational interval of a finite ball, else None."""
    return arb_to_fraction_interval(ball) if ball.is_finite() else None


# ------------------------------------------------------------------------ staircase
def staircase_work(P: Dist, Q: Dist, delta: Fraction, b: Fraction | None, gamma: Fraction = Fraction(0)) -> int:
    """The work bound, checked before any enumeration (InstanceTooLarge beyond the limits): candidate
    break points × points × (1 + candidates/m × bits(b)/4096) × (1 + bits of the common denominators/512)."""
    pts, bits = set(P) | set(Q), 0 if b is None else b.numerator.bit_length() + b.denominator.bit_length()
    size = sum(n.bit_length() for n in {x.denominator for x in (*pts, delta, gamma * delta)}) + sum(
        n.bit_length() for n in {w.denominator for w in (*P.values(), *Q.values())})
    cand = 4 * len(pts) * (math.ceil((max(pts) - min(pts)) / delta) + 4)
    work = cand * len(pts) * (1 + cand // len(pts) * bits // 4096) * (1 + size // 512)
    if cand > MAX_PIECES or work > MAX_STAIR_WORK:
        raise InstanceTooLarge(f"about {cand} staircase break points, work {work}: over MAX_PIECES = {MAX_PIECES} "
                               f"/ MAX_STAIR_WORK = {MAX_STAIR_WORK}; use a larger Δ, fewer points or less digits.")
    return work


@proved_by("kernel_pufferfish_mechanisms")
def staircase_mids(P: Dist, Q: Dist, delta: Fraction, gamma: Fraction) -> list[Fraction]:
    """Midpoints of the pieces of [s_0 − Δ, s_m + Δ] between the break points
    d + (k, k ± γ)Δ (``proofs/kernel_pufferfish_mechanisms.py``; :func:`staircase_work` first)."""
    pts = set(P) | set(Q)
    cuts = {lo := min(pts) - delta, hi := max(pts) + delta}
    for d in pts:
        for k in range(math.floor((lo - d) / delta) - 1, math.ceil((hi - d) / delta) + 2):
            cuts.update(x for x in (d + k * delta, d + (k + gamma) * delta, d + (k - gamma) * delta) if lo < x < hi)
    c = sorted(cuts)
    return [(u + v) / 2 for u, v in zip(c, c[1:])]


def staircase_key(P: Dist, Q: Dist, delta: Fraction, gamma: Fraction, y: Fraction) -> Key:
    """G_P(y)/G_Q(y) as sparse (exponent, mass) polynomials in b, lowest exponent 0
    (e(r) = k + [r/Δ − k ≥ γ], k = ⌊r/Δ⌋)."""
    return staircase_keys(P, Q, delta, gamma, [y])[0]


def staircase_keys(P: Dist, Q: Dist, delta: Fraction, gamma: Fraction, ys: list[Fraction]) -> list[Key]:
    """:func:`staircase_key` at each of ``ys``, in integers over one common denominator (the same values)."""
    scale = math.lcm(*(x.denominator for x in (*P, *Q, delta, gamma * delta, *ys)))
    mass = math.lcm(*(w.denominator for w in (*P.values(), *Q.values())))
    laws = [[(int(d * scale), int(w * mass)) for d, w in D.items()] for D in (P, Q)]
    step, unit = int(gamma * delta * scale), int(delta * scale)  # |y − d| = kΔ + rest: e = k + [rest ≥ γΔ]
    out: list[Key] = []
    for y in ys:
        yi, polys = int(y * scale), [dict[int, int](), dict[int, int]()]
        for poly, law in zip(polys, laws):
            for d, w in law:
                k, rest = divmod(abs(yi - d), unit)
                e = k + (rest >= step)
                poly[e] = poly.get(e, 0) + w
        low = min(min(polys[0]), min(polys[1]))
        num, den = (tuple(sorted((e - low, Fraction(w, mass)) for e, w in p.items())) for p in polys)
        out.append((num, den))
    return out


def _mul(a: Poly, b: Poly) -> dict[int, Fraction]:
    out: dict[int, Fraction] = {}
    for (e, x), (f, y) in ((s, t) for s in a for t in b):
        out[e + f] = out.get(e + f, Fraction(0)) + x * y
    return out


def _check_staircase(env: Envelope) -> bool:
    q, c, ev = read_parts(env, ("P", "Q", "delta", "eps0", "gamma"),
                          ("pieces", "worst_output", "numerator", "denominator", "ratio", "loss"), ("prec",))
    read_int(ev["prec"], "evidence.prec", 2, 2**16)  # the writer's note, not a claim
    (P, Q), delta, gamma = read_laws(q), read_theta(q["delta"], "question.delta"), rat(q["gamma"], "question.gamma")
    level = strict_level(q["eps0"], "question.eps0")
    if not 0 <= gamma <= 1:
        raise InvalidArgument(f"question.gamma: got {gamma}; need 0 ≤ gamma ≤ 1.")
    polys = [read_poly(c[k], f"claim.{k}") for k in ("numerator", "denominator")]
    claim: Key = tuple(tuple((len(p) - 1 - i, v) for i, v in reversed(list(enumerate(p))) if v) for p in polys)  # type: ignore[assignment]
    ratio, loss, b = None if c["ratio"] is None else rat(c["ratio"], "claim.ratio"), read_enclosure(c["loss"]), level.t
    pieces, y = read_int(c["pieces"], "claim.pieces", 1), rat(c["worst_output"], "claim.worst_output")
    staircase_work(P, Q, delta, b, gamma)
    mids = staircase_mids(P, Q, delta, gamma)
    at = dict(zip(mids, staircase_keys(P, Q, delta, gamma, mids)))  # each key once: the bulk of the work
    if pieces != len(mids) or at.get(y) != claim:
        return False
    keys = set(at.values()) - {claim}
    if b is not None:  # exact: R = num(b)/den(b), the loss is ln max(R, 1/R)
        def exact(k: Key) -> Fraction:
            r = sum((w * b**e for e, w in k[0]), Fraction(0)) / sum((w * b**e for e, w in k[1]), Fraction(0))
            return max(r, 1 / r)
        best = exact(claim)
        return (ratio == best and all(exact(k) <= best for k in keys)
                and ladder([loss], lambda _: [interval(arb_from_fraction(best).log())]))

    def ln(k: Key) -> arb:
        return abs((sum((arb_from_fraction(w) * level.t_ball() ** e for e, w in k[0]), arb(0))
                    / sum((arb_from_fraction(w) * level.t_ball() ** e for e, w in k[1]), arb(0))).log())

    def below() -> bool | None:  # every other piece certified below the claimed one, or the same R or 1/R
        nonlocal keys
        top, balls = ln(claim), {k: ln(k) for k in keys}
        keys = {k for k, v in balls.items() if not v < top and _mul(k[0], claim[1]) != _mul(k[1], claim[0])
                and _mul(k[0], claim[0]) != _mul(k[1], claim[1])}
        return False if any(v > top for v in balls.values()) else None if keys else True
    return ratio is None and ladder([loss], lambda _: [interval(ln(claim))], below)


# ------------------------------------------------------------------------- Gaussian
def sign_changes(P: Dist, Q: Dist, level: PrivacyLevel) -> int:
    """S ≥ the number of roots of h, both directions: the sign changes of v_d = A(d) − e^ε B(d) in
    the order of d (h = e^{−z²/2} Σ v_d e^{−c_d²/2} e^{c_d z}: Laguerre's rule of signs), a v_d of
    sign open at 128 bits counted as a change on both sides.

    >>> from exactdp.spaces.levels import parse_level
    >>> law = lambda *x: {Fraction(v): Fraction(1, len(x)) for v in x}
    >>> sign_changes(law(0, 2, 4), law(1, 3, 5), parse_level(eps=1)), sign_changes(law(0), law(1), parse_level(eps=1))
    (5, 1)
    """
    with workprec(128):
        e = level.eps_ball().exp()
        sg = [[-1 if v < 0 else 1 if v > 0 else 0 for d in sorted(set(P) | set(Q)) if not (v := arb_from_fraction(
            A.get(d, Fraction(0))) - e * arb_from_fraction(B.get(d, Fraction(0)))).is_exact() or v != 0]
              for A, B in ((P, Q), (Q, P))]
    return max(sum(x * y <= 0 for x, y in zip(s, s[1:])) for s in sg)


def gaussian_work(P: Dist, Q: Dist, sigma: Fraction, level: PrivacyLevel | None = None, sigmas: int = 1) -> int:
    """The work estimate of a document with ``sigmas`` values of σ (the least one given) at its first
    precision, 2·sigmas·m·(PIECES_PER_LEVEL·(S + 1)·(72 + log₂ R) + R/2), R = (s_m − s_0)/σ + 2·TAIL:
    InstanceTooLarge, checked before any computation (here and by the writers), when over
    :data:`MAX_GAUSS_WORK`, or over MAX_SUPPORT / MAX_RANGE. S = :func:`sign_changes` (1 without
    ``level``). The kernel then spends at most MAX_GAUSS_WORK in all (:func:`gaussian_hockey`)."""
    pts = set(P) | set(Q)
    span = (max(pts) - min(pts)) / sigma
    if len(pts) > MAX_SUPPORT or span > MAX_RANGE:
        raise InstanceTooLarge(f"{len(pts)} support points, σ = {str(sigma)[:40]}: the kernel covers at most "
                               f"MAX_SUPPORT = {MAX_SUPPORT} points spanning MAX_RANGE = {MAX_RANGE} σ; use larger σ.")
    changes = 1 if level is None else sign_changes(P, Q, level)
    reach = math.ceil(span + 2 * TAIL)  # pieces: about PIECES_PER_LEVEL per root and level, 1/2 per unit of range
    work = 2 * sigmas * len(pts) * (PIECES_PER_LEVEL * (changes + 1) * (72 + reach.bit_length()) + reach // 2)
    if work > MAX_GAUSS_WORK:
        raise InstanceTooLarge(f"{len(pts)} support points with S = {changes} sign changes of P − e^ε Q: about {work} "
                               f"piece-point evaluations, over MAX_GAUSS_WORK = {MAX_GAUSS_WORK}; use fewer points "
                               "or laws whose difference changes sign less often.")
    return work


def _up(x: arb | Fraction) -> arb:
    """1 − Φ(x) = erfc(x/√2)/2 (accurate for large x) of a ball or an exact rational."""
    return ((x if isinstance(x, arb) else arb_from_fraction(x)) / arb(2).sqrt()).erfc() / 2


@proved_by("kernel_pufferfish_mechanisms")
def gaussian_hockey(A: Dist, B: Dist, sigma: Fraction, level: PrivacyLevel, prec: int,
                    budget: list[int] | None = None) -> tuple[arb, arb]:
    """(lower, upper) balls with ∫ (g_A − e^ε g_B)_+ in [lower, upper] (inside ``workprec``):
    in z = (y − s_0)/σ, h(z) = Σ v_d e^{−(z − c_d)²/2}, v_d = A(d) − e^ε B(d), on [−T, c_m + T];
    the mean-value form of k (h's sign, with s the center nearest the piece, (c)) decides each piece's sign (bisected to
    width 2^−(prec/2+8)); positive pieces add their exact Φ-differences, undecided ones
    [0, w·|h|], the tails [0, ∫ g_A] (``proofs/kernel_pufferfish_mechanisms.py``). ``budget`` = [the
    piece-point evaluations left] (default :data:`MAX_GAUSS_WORK`), spent here: InstanceTooLarge when gone."""
    gaussian_work(A, B, sigma)
    pts, left = sorted(set(A) | set(B)), [MAX_GAUSS_WORK] if budget is None else budget
    unit = len(pts) * (1 + prec // 1024)
    if not level.eps_ball() < MAX_EPS:
        raise InstanceTooLarge(f"ε = {level.eps} is over MAX_EPS = {MAX_EPS}: e^ε overflows the kernel's balls.")
    cs = [(d - pts[0]) / sigma for d in pts]
    cb, wa = [arb_from_fraction(x) for x in cs], [arb_from_fraction(A.get(d, Fraction(0))) for d in pts]
    v = [a - level.eps_ball().exp() * arb_from_fraction(B.get(d, Fraction(0))) for a, d in zip(wa, pts)]

    def k(m: arb, u: arb, s: arb, slope: bool) -> arb:  # h(m + u) = e^{−u²/2 − u(m − s)}·k: the same sign
        return sum((((c - s) if slope else 1) * x * (u * (c - s) - (m - c) ** 2 / 2).exp()
                    for x, c in zip(v, cb)), arb(0))

    def mass(a: Fraction, b: Fraction) -> arb:  # Σ v_d (Φ(b − c_d) − Φ(a − c_d)), no cancellation
        return sum((x * (_up(a - c) - _up(b - c) if a >= c else _up(c - b) - _up(c - a))
                    for x, c in zip(v, cs)), arb(0))
    end, slack, positive = math.ceil(cs[-1]) + TAIL, arb(0), list[tuple[Fraction, Fraction]]()
    stack, leaves = [(Fraction(-TAIL), Fraction(end))], 0
    while stack:
        left[0] -= unit
        if left[0] < 0:  # more precision would not help: refuse
            raise InstanceTooLarge(f"the sign of g_A − e^ε g_B needs over MAX_GAUSS_WORK = {MAX_GAUSS_WORK} "
                                   "piece-point evaluations: use fewer points or laws with fewer sign changes.")
        if leaves > 8 * len(pts):  # h has at most m − 1 roots: so many open pieces need more precision
            raise PrecisionLimitReached(f"undecided at {prec} bits: the sign of g_A − e^ε g_B stays open.")
        a, b = stack.pop()
        mid, r = (a + b) / 2, arb_from_fraction((b - a) / 2)
        zm, s = arb_from_fraction(mid), cb[min(range(len(cs)), key=lambda i: abs(cs[i] - mid))]  # s: the nearest center
        rng = k(zm, arb(0), s, False) + k(zm, arb(0, r), s, True) * arb(0, r)
        if rng > 0:  # pieces come left to right: merge touching ones
            positive[-1:] = [(positive[-1][0], b)] if positive and positive[-1][1] == a else positive[-1:] + [(a, b)]
        elif not rng < 0 and b - a <= Fraction(1, 2 ** (prec // 2 + 8)):
            slack, leaves = slack + 2 * r * abs(rng) * (abs(zm - s) * r).exp(), leaves + 1
        elif not rng < 0:
            stack += [(mid, b), (a, mid)]
    tail = sum((x * (_up(TAIL + c) + _up(end - c)) for x, c in zip(wa, cb)), arb(0))
    lower = sum((mass(a, b) for a, b in positive), arb(0))
    return lower, lower + slack + tail


def _delta(P: Dist, Q: Dist, sigma: Fraction, level: PrivacyLevel, prec: int,
           budget: list[int]) -> tuple[Fraction, Fraction] | None:
    """[lo, hi] ∋ δ(σ) = max of both directions; 0 ≤ δ ≤ ∫ g_A = 1 clips the ends; None if open.
    P = Q as laws: δ = ∫ (1 − e^ε)_+ g_P = 0 exactly (ε > 0)."""
    if P == Q:
        return Fraction(0), Fraction(0)
    try:
        (l1, u1), (l2, u2) = (gaussian_hockey(A, B, sigma, level, prec, budget) for A, B in ((P, Q), (Q, P)))
    except PrecisionLimitReached:
        return None
    lo, hi = arb_to_fraction_interval(l1.max(l2))[0], arb_to_fraction_interval(u1.max(u2))[1]
    return max(lo, Fraction(0)), min(hi, Fraction(1))


def _check_gaussian(env: Envelope) -> bool:
    scale = env.kind == SCALE
    q, c, ev = read_parts(env, ("P", "Q", "level", "delta" if scale else "sigma"),
                          ("least", "at_lo", "at_hi") if scale else ("delta",), ("prec", "rel_tol"))
    for p, r in zip(*(read_list(ev[k], f"evidence.{k}", 2) if scale else [ev[k]] for k in ("prec", "rel_tol"))):
        if not 0 < rat(r, "evidence.rel_tol") < 1 or read_int(p, "evidence.prec", 2, 2**16) < 2:  # writer's notes
            raise InvalidArgument(f"evidence.rel_tol: got {r}; need 0 < rel_tol < 1.")
    (P, Q), level = read_laws(q), strict_level(q["level"])
    sigmas = [rat(q["sigma"], "question.sigma")] if not scale else list(read_enclosure(c["least"], "claim.least"))
    target = rat(q["delta"], "question.delta") if scale else Fraction(1, 2)
    if sigmas[0] <= 0 or (scale and sigmas[0] >= sigmas[1]) or not 0 < target < 1:
        raise InvalidArgument("need σ > 0 (least: 0 < lo < hi) and 0 < question.delta < 1.")
    claims = [read_enclosure(c[k], f"claim.{k}") for k in (("at_lo", "at_hi") if scale else ("delta",))]
    gaussian_work(P, Q, sigmas[0], level, len(sigmas))
    budget = [MAX_GAUSS_WORK]  # shared by every direction, σ and precision
    return (not scale or claims[0].lo > target > claims[1].hi) and ladder(
        claims, lambda p: [_delta(P, Q, s, level, p, budget) for s in sigmas])


def check_pufferfish_mechanisms(doc: Any) -> bool:
    """Re-check a document of :data:`MECHANISM_KINDS` (InvalidArgument when malformed,
    InstanceTooLarge / PrecisionLimitReached when undecided, False when a claim fails)."""
    env = read_envelope(doc, MECHANISM_KINDS)
    return _check_staircase(env) if env.kind == STAIRCASE else _check_gaussian(env)
