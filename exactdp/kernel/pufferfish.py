"""Re-check multi-user Pufferfish documents (Laplace noise) from their question alone.

Kinds: ``pufferfish-scale`` (the least scale θ* of a secret pair: a bracket lo < θ* ≤ hi,
or θ* = 0, and optionally θ*'s closed form), ``pufferfish-wasserstein`` (θ = k·W∞/ε with
W∞, W1 recomputed from the quantile functions; sufficient by step (5) of the proof, and
re-decided private when ε is rational) and ``pufferfish-population`` (the verdict, tightness and
optionally the least θ of X + Lap(θ) for a concrete population).

With g_P(x) = Σ_d P(d) e^{-|x-d|/θ}, X + Lap(θ) is ε-private iff e^ε g_Q(x) − g_P(x) ≥ 0
and e^ε g_P(x) − g_Q(x) ≥ 0 at every support point x of P ∪ Q; the loss is non-increasing
in θ (``proofs/pufferfish_supremum.py``). Each sign is exact: when e^ε or ε is rational the
sum collects into Σ c_r e^r over distinct rationals r, zero iff every c_r is (Lindemann–
Weierstrass), else arb balls decide it (g at all points by two O(m) sweeps); an undecided
sign rejects; a closed form whose identity would expand beyond MAX_TERMS terms is refused
(InstanceTooLarge, like every work limit here: MAX_POINTS, MAX_CONVOLUTION). A closed form is proved
to be θ* by substitution (``proofs/pufferfish_bernoulli.py`` (i)); k releases at θ lose what
one release at θ/k loses (``proofs/pufferfish_releases.py``).

>>> from exactdp.engine.documents import write_scale
>>> from exactdp.spaces.levels import parse_level
>>> half = {Fraction(0): Fraction(1, 2), Fraction(1): Fraction(1, 2)}
>>> doc = write_scale(half, {Fraction(0): Fraction(1)}, parse_level(eps=1), 1,
...                   (Fraction(67, 100), Fraction(68, 100)), "1/log(-1 + 2*E)", Fraction(1, 10), 64)
>>> check_pufferfish(doc)
True
>>> doc["claim"]["closed_form"] = "3/4"
>>> check_pufferfish(doc)
False
"""

from __future__ import annotations

import bisect
import itertools
import math
from collections import defaultdict
from collections.abc import Collection, Mapping
from fractions import Fraction
from functools import partial
from typing import Any

import sympy
from flint import arb, fmpz

from exactdp.arithmetic.ball import MAX_PREC, arb_from_fraction, ball_sign, sympy_to_arb, workprec
from exactdp.arithmetic.interval import Enclosure
from exactdp.arithmetic.rationals import to_sympy
from exactdp.errors import InstanceTooLarge, InvalidArgument
from exactdp.kernel.jsonio import (
    Envelope,
    read_bool,
    read_enclosure,
    read_envelope,
    read_int,
    read_list,
    read_object,
    read_rational,
    read_verdict,
)
from exactdp.kernel.privacy import sign_in_balls
from exactdp.kernel.question import big_power, read_form, read_level
from exactdp.kinds import CertificateKind, Verdict, proved_by
from exactdp.spaces.levels import PrivacyLevel

__all__ = ["PUFFERFISH_KINDS", "MAX_POINTS", "MAX_USERS", "Dist", "check_pufferfish", "decide_laplace", "brackets",
           "integer_sweep", "wasserstein", "query_laws", "read_dist", "read_laws", "read_parts", "read_least",
           "read_theta", "strict_level"]

PUFFERFISH_KINDS = (CertificateKind.PUFFERFISH_SCALE.value,
                    CertificateKind.PUFFERFISH_WASSERSTEIN.value,
                    CertificateKind.PUFFERFISH_POPULATION.value)
#: Largest support of each law the kernel re-checks (O(m) balls per precision, by sweeps).
MAX_POINTS = 1000
#: Most users of a population document.
MAX_USERS = 10_000
#: Largest Σ |running sum| · |user's law| of a population's exact convolution.
MAX_CONVOLUTION = 1_000_000
#: Largest number of terms any subexpression of a closed-form identity may expand to.
MAX_TERMS = 2000

Dist = Mapping[Fraction, Fraction]


# ------------------------------------------------------------------------------ JSON
def strict_level(value: Any, where: str = "question.level") -> PrivacyLevel:
    """A level read with :func:`~exactdp.kernel.question.read_level` (``strict``, no ranges)."""
    level = read_level(value, where, strict=True)
    assert isinstance(level, PrivacyLevel)
    return level


def read_dist(value: Any, where: str, integer: bool = False) -> dict[Fraction, Fraction]:
    """A law {"support", "probs"}: at most :data:`MAX_POINTS` increasing (``integer``:
    integer) points with masses > 0 summing to 1; more points: InstanceTooLarge, a work limit."""
    obj = read_object(value, where, ("support", "probs"))
    xs = [read_rational(v, f"{where}.support", integer=integer)
          for v in read_list(obj["support"], where, limit=MAX_POINTS)]
    ps = [read_rational(v, f"{where}.probs") for v in read_list(obj["probs"], where, len(xs))]
    if not xs or any(b <= a for a, b in zip(xs, xs[1:])) or min(ps) <= 0 or sum(ps) != 1:
        raise InvalidArgument(f"{where}: need a nonempty increasing support and masses > 0 summing to 1.")
    return dict(zip(xs, ps))


def _terms(e: sympy.Basic) -> int:
    """Terms of ``expand(e)`` at its top level (function arguments count 1), capped."""
    cap = MAX_TERMS + 1
    if isinstance(e, sympy.Add):
        return min(cap, sum(_terms(a) for a in e.args))
    if isinstance(e, sympy.Mul):
        return min(cap, math.prod(_terms(a) for a in e.args))
    if isinstance(e, sympy.Pow) and isinstance(e.exp, sympy.Rational):
        b, n = _terms(e.base), abs(int(e.exp))  # (x+y)**(5/2) expands its square
        return 1 if b == 1 or n < 2 else cap if n > MAX_TERMS else min(cap, math.comb(n + b - 1, n))
    return 1


def _is_zero(expr: sympy.Expr) -> bool:
    """``expr`` == 0 proved by expanding its numerator, refused (InstanceTooLarge) when some
    subexpression would expand to over MAX_TERMS terms (the expansion could hang)."""
    num = sympy.fraction(sympy.together(expr))[0]
    if max(_terms(n) for n in sympy.preorder_traversal(num)) > MAX_TERMS:
        raise InstanceTooLarge(f"the closed-form identity would expand to over MAX_TERMS = "
                               f"{MAX_TERMS} terms; omit claim.closed_form (the bracket suffices).")
    return bool(sympy.expand(num, power_exp=False, log=False) == 0)


def read_parts(env: Envelope, question: Collection[str], claim: Collection[str], evidence: Collection[str] = (),
               optional_claim: Collection[str] = ()) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """The question, claim and evidence of ``env``, each with exactly these keys (:func:`read_object`)."""
    return (read_object(env.question, "question", question), read_object(env.claim, "claim", claim, optional_claim),
            read_object(env.evidence, "evidence", evidence))


def read_laws(q: Mapping[str, Any], integer: bool = False) -> tuple[dict[Fraction, Fraction], dict[Fraction, Fraction]]:
    """The question's laws ``P`` and ``Q`` (:func:`read_dist`)."""
    return read_dist(q["P"], "question.P", integer), read_dist(q["Q"], "question.Q", integer)


def read_least(value: Any) -> Enclosure | None:
    """The claimed least scale: ``"0"`` (None here) or a bracket {lo, hi}."""
    return None if value == "0" else read_enclosure(value, "claim.least")


def read_theta(value: Any, where: str = "question.theta") -> Fraction:
    """A rational scale (θ, Δ) > 0."""
    theta = read_rational(value, where)
    if theta <= 0:
        raise InvalidArgument(f"{where}: got {theta}; need a value > 0.")
    return theta


# --------------------------------------------------------------------------- signs
def _tie(terms: list[tuple[int, Fraction, Fraction]], c: Fraction, level: PrivacyLevel) -> bool:
    """Σ (a·e^ε − b)·e^{c·k} over ``terms`` (k, a, b) is exactly 0 (only when e^ε or ε is
    rational: the sum collects into Σ c_r e^r over distinct rationals r, zero iff every c_r
    is, as e^r at distinct algebraic r are independent over Q̄)."""
    if level.t is None and level.eps_rational is None:
        return False
    coll: defaultdict[Fraction, Fraction] = defaultdict(Fraction)
    for k, a, b in terms:
        if level.t is not None:
            coll[c * k] += a / level.t - b
        else:  # e^ε·e^r = e^{r + ε}
            coll[c * k + (level.eps_rational or 0)] += a
            coll[c * k] -= b
    return not any(coll.values())


def _sweep(ms: list[Fraction], steps: list[arb]) -> list[arb]:
    """g(x_i) = Σ_j m_j e^{c|X_i − X_j|} for all i in O(m): one sweep from each side
    (``steps[i]`` = e^{c(X_{i+1} − X_i)}); every term is positive."""
    left, right = [arb(0)] * len(ms), [arb(0)] * len(ms)
    acc = arb(0)
    for i, m in enumerate(ms):
        acc = (acc * steps[i - 1] if i else acc) + arb_from_fraction(m)
        left[i] = acc
    acc = arb(0)
    for i in range(len(ms) - 2, -1, -1):
        acc = (acc + arb_from_fraction(ms[i + 1])) * steps[i]
        right[i] = acc
    return [a + b for a, b in zip(left, right)]


def integer_sweep(w: list[int], gaps: list[int], a: int, b: int) -> list[fmpz]:
    """b^span·h(x_i) = Σ_j w_j a^{|x_i − x_j|} b^{span − |x_i − x_j|} at increasing integer
    points x (``gaps`` their differences; α = a/b, integer masses w): the discrete Laplace
    sums, one sweep from each side, integers only (no gcd).

    >>> integer_sweep([1, 0, 1], [1, 1], 1, 2)  # 4·(1 + α², α + α, α² + 1) at α = 1/2
    [5, 4, 5]
    """
    pa, pb, m = [fmpz(a) ** g for g in gaps], [fmpz(b) ** g for g in gaps], len(w)
    left, B = [fmpz(w[0])], [fmpz(1)]  # B_i = b^{x_i − x_0}
    for i in range(1, m):
        B.append(B[-1] * pb[i - 1])
        left.append(left[-1] * pa[i - 1] + w[i] * B[i])
    right, C = [fmpz(0)] * m, [fmpz(1)] * m  # C_i = b^{x_end − x_i}
    for i in range(m - 2, -1, -1):
        C[i] = C[i + 1] * pb[i]
        right[i] = pa[i] * (right[i + 1] + w[i + 1] * C[i + 1])
    return [left[i] * C[i] + right[i] * B[i] for i in range(m)]


@proved_by("pufferfish_supremum")
def decide_laplace(P: Dist, Q: Dist, theta: Fraction, level: PrivacyLevel) -> tuple[Verdict, bool] | None:
    """(verdict of X + Lap(θ) at ε — the supremum of the loss is attained at a support point,
    proofs/pufferfish_supremum.py —, tight: HOLDS with the loss exactly ε at a support point,
    the library's ``tight``), or None when a sign is undecided. ``theta = 0`` decides the
    θ → 0 limit (θ* = 0 iff it holds).

    >>> from exactdp.spaces.levels import parse_level
    >>> lv = parse_level(eps=1)
    >>> decide_laplace({Fraction(0): Fraction(1)}, {Fraction(1): Fraction(1)}, Fraction(1), lv)
    (<Verdict.HOLDS: 'holds'>, True)
    """
    pts = sorted(set(P) | set(Q))
    den = math.lcm(*(x.denominator for x in pts))
    ints = [int(x * den) for x in pts]  # x = X/den: e^{-|x - d|/θ} = e^{c·|X − D|}
    c = Fraction(-1, den) / theta if theta else Fraction(0)
    mass = [[D.get(x, Fraction(0)) for x in pts] for D in (P, Q)]
    todo = {(i, w) for i in range(len(pts)) for w in (0, 1)}  # w: e^ε g_A − g_B, A = Q if w = 0
    signs: dict[tuple[int, int], int] = {}
    prec = 64
    while todo and prec <= MAX_PREC:
        with workprec(prec):
            E = sympy_to_arb(level.eps).exp()
            g = ([[arb_from_fraction(m) for m in ms] for ms in mass] if theta == 0 else
                 [_sweep(ms, [(arb_from_fraction(c) * (b - a)).exp()
                              for a, b in zip(ints, ints[1:])] + [arb(1)]) for ms in mass])
            for i, w in list(todo):
                sg = ball_sign(E * g[1 - w][i] - g[w][i]).value  # ±1 decides; else the tie test below
                if sg:
                    signs[i, w] = sg
                    todo.discard((i, w))
        # exact tie tests (O(m) Fractions each) only for signs 256 bits leave open, and only
        # when they total at most 50·MAX_TERMS terms (else those signs stay undecided: reject)
        for i, w in list(todo) if prec == 256 and len(todo) * len(pts) <= 50 * MAX_TERMS else ():
            A, B = mass[1 - w], mass[w]
            if _tie([(0, A[i], B[i])] if theta == 0 else
                    [(abs(ints[i] - Y), A[j], B[j]) for j, Y in enumerate(ints)], c, level):
                signs[i, w] = 0
                todo.discard((i, w))
        prec *= 2
    if todo:
        return None
    fails = -1 in signs.values()
    return Verdict.FAILS if fails else Verdict.HOLDS, not fails and 0 in signs.values()


def brackets(P: Dist, Q: Dist, level: PrivacyLevel, least: Enclosure | None, tol: Fraction | None = None) -> bool:
    """θ* = 0 (``least`` None: the θ → 0 limit holds), or privacy FAILS at lo > 0 and HOLDS
    at hi (θ* ∈ (lo, hi], loss monotone) with hi − lo ≤ tol·hi when ``tol`` is given."""
    if least is None:
        return _verdict(P, Q, Fraction(0), level) is Verdict.HOLDS
    return (0 < least.lo < least.hi and (tol is None or least.hi - least.lo <= tol * least.hi)
            and _verdict(P, Q, least.lo, level) is Verdict.FAILS and _verdict(P, Q, least.hi, level) is Verdict.HOLDS)


def _verdict(P: Dist, Q: Dist, theta: Fraction, level: PrivacyLevel) -> Verdict | None:
    got = decide_laplace(P, Q, theta, level)
    return None if got is None else got[0]


@proved_by("pufferfish_bernoulli")
def closed_form_is_least(P: Dist, Q: Dist, level: PrivacyLevel, theta: sympy.Expr) -> bool:
    """``theta`` = θ* for a two-point union {a, a + h}: with p > q the masses at a + h and
    u = e^{h/θ}, one of R_A = (1−p+pu)/(1−q+qu), R_B = (q+(1−q)u)/(p+(1−p)u) equals e^ε
    identically and the other is ≤ e^ε (both increase in u, so L(θ) = ε and L > ε below;
    proofs/pufferfish_bernoulli.py)."""
    pts = sorted(set(P) | set(Q))
    if len(pts) != 2 or sign_in_balls(partial(sympy_to_arb, theta), MAX_PREC) != 1:
        return False
    p, q = (to_sympy(D.get(pts[1], Fraction(0))) for D in (P, Q))
    p, q = max(p, q), min(p, q)
    arg = to_sympy(pts[1] - pts[0]) / theta
    if any(big_power(n) for n in sympy.preorder_traversal(arg)):
        return False  # exp(c·log w) would evaluate w**c; no θ* of this family has it
    u, E = sympy.exp(arg), sympy.exp(level.eps)
    r_a = (1 - p + p * u) / (1 - q + q * u) - E
    r_b = (q + (1 - q) * u) / (p + (1 - p) * u) - E
    for bind, other in ((r_a, r_b), (r_b, r_a)):
        if _is_zero(bind):
            return _is_zero(other) or sign_in_balls(partial(sympy_to_arb, other), MAX_PREC) == -1
    return False


def wasserstein(P: Dist, Q: Dist) -> tuple[Fraction, Fraction]:
    """(W1, W∞): W1 = ∫|F_P − F_Q|, W∞ = the largest gap of the quantile functions at the
    merged cumulative masses (both are left-continuous steps between them).

    >>> wasserstein({Fraction(0): Fraction(1, 2), Fraction(1): Fraction(1, 2)}, {Fraction(0): Fraction(1)})
    (Fraction(1, 2), Fraction(1, 1))
    """
    pts = sorted(set(P) | set(Q))
    F, G = ([*itertools.accumulate(D.get(x, Fraction(0)) for x in pts)] for D in (P, Q))  # the CDFs at pts
    w1 = sum((abs(a - b) * (y - x) for a, b, x, y in zip(F, G, pts, pts[1:])), Fraction(0))
    winf = max(abs(pts[bisect.bisect_left(F, c)] - pts[bisect.bisect_left(G, c)]) for c in {*F, *G} if c > 0)
    return w1, winf


def query_laws(q: Mapping[str, Any]) -> tuple[dict[Fraction, Fraction], dict[Fraction, Fraction]]:
    """The query's laws under P and Q: the users' sum convolved with each (exactly), at most
    MAX_CONVOLUTION products in all and MAX_POINTS points in the sum (InstanceTooLarge
    beyond: work limits, checked before the work)."""
    rest, work = {Fraction(0): Fraction(1)}, [0]
    for k, user in enumerate(read_list(q["users"], "question.users", limit=MAX_USERS)):
        obj = read_object(user, f"question.users[{k}]", ("dist", "presence"))
        z = read_rational(obj["presence"], f"question.users[{k}].presence")
        if not 0 <= z <= 1:
            raise InvalidArgument(f"question.users[{k}].presence: got {z}; need 0 ≤ ζ ≤ 1.")
        mix = {d: z * p for d, p in read_dist(obj["dist"], f"question.users[{k}].dist").items()}
        rest = _convolve(rest, {**mix, Fraction(0): mix.get(Fraction(0), Fraction(0)) + 1 - z}, work)
        if len(rest) > MAX_POINTS:
            raise InstanceTooLarge(f"question.users: the sum has over MAX_POINTS = {MAX_POINTS} points.")
    P, Q = (_convolve(rest, read_dist(q[k], f"question.{k}"), work) for k in ("P", "Q"))
    return P, Q


def _convolve(R: Dist, D: Dist, work: list[int]) -> dict[Fraction, Fraction]:
    work[0] += len(R) * len(D)
    if work[0] > MAX_CONVOLUTION:
        raise InstanceTooLarge(f"question.users: the exact sums need over MAX_CONVOLUTION = "
                               f"{MAX_CONVOLUTION} products; the kernel re-checks smaller ones.")
    out: dict[Fraction, Fraction] = {}
    for x, a in R.items():
        for y, b in D.items():
            if a and b:
                out[x + y] = out.get(x + y, Fraction(0)) + a * b
    return out


# -------------------------------------------------------------------------- check
@proved_by("pufferfish_releases")
def check_pufferfish(doc: Any) -> bool:
    """Re-check a Pufferfish document (InvalidArgument when malformed, InstanceTooLarge over
    a work limit, False when a claim does not re-check). k releases at one θ are one release at θ/k
    (proofs/pufferfish_releases.py)."""
    env = read_envelope(doc, PUFFERFISH_KINDS)
    if env.kind == CertificateKind.PUFFERFISH_POPULATION.value:
        q, c, _ = read_parts(env, ("users", "P", "Q", "theta", "level"), ("verdict", "tight"), (), ("least",))
        (P, Q), level, theta = query_laws(q), strict_level(q["level"]), read_theta(q["theta"])
        claim = (read_verdict(c["verdict"], "claim.verdict"), read_bool(c["tight"], "claim.tight"))
        if "least" in c and not brackets(P, Q, level, read_least(c["least"])):
            return False
        return decide_laplace(P, Q, theta, level) == claim
    wass = env.kind == CertificateKind.PUFFERFISH_WASSERSTEIN.value
    q, c, ev = read_parts(env, ("P", "Q", "level", "releases"), ("theta", "w1", "winf") if wass else
                          ("least", "closed_form"), () if wass else ("tol", "prec"))
    (P, Q), level, k = read_laws(q), strict_level(q["level"]), read_int(q["releases"], "question.releases", 1, 10**6)
    if wass:
        theta = read_form(c["theta"], "claim.theta", strict=True)
        w1, winf = wasserstein(P, Q)
        if (read_rational(c["w1"], "claim.w1"), read_rational(c["winf"], "claim.winf")) != (
                w1, winf) or not _is_zero(theta - k * to_sympy(winf) / level.eps):
            return False  # private at θ by (5), re-decided when θ is rational:
        return level.eps_rational is None or _verdict(P, Q, winf / level.eps_rational, level) is Verdict.HOLDS
    tol, _ = read_rational(ev["tol"], "evidence.tol"), read_int(ev["prec"], "evidence.prec", 0, MAX_PREC)
    least = read_least(c["least"])
    form = None if c["closed_form"] is None else read_form(c["closed_form"], "claim.closed_form", strict=True)
    if least is None:
        return form is None and brackets(P, Q, level, None)
    one = Enclosure(least.lo / k, least.hi / k)  # k releases at θ lose one release at θ/k
    return brackets(P, Q, level, one, tol) and (form is None or closed_form_is_least(P, Q, level, form / k))
