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
Weierstrass), else arb balls decide it; an undecided sign rejects. A closed form is proved
to be θ* by substitution (``proofs/pufferfish_bernoulli.py`` (i)); k releases at θ lose what
one release at θ/k loses (``proofs/pufferfish_releases.py``).

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
import math
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

import sympy
from flint import arb

from exactdp.arithmetic.ball import MAX_PREC, arb_from_fraction, sympy_to_arb, workprec
from exactdp.arithmetic.interval import Enclosure
from exactdp.arithmetic.rationals import to_sympy
from exactdp.errors import InvalidArgument
from exactdp.kernel.jsonio import (
    envelope,
    read_bool,
    read_closed_form,
    read_enclosure,
    read_envelope,
    read_int,
    read_list,
    read_object,
    read_rational,
    read_verdict,
    write_closed_form,
    write_enclosure,
    write_rational,
    write_verdict,
)
from exactdp.kinds import CertificateKind, Verdict, proved_by
from exactdp.spaces.levels import PrivacyLevel, parse_level

__all__ = ["PUFFERFISH_KINDS", "MAX_POINTS", "write_dist", "write_level", "write_scale",
           "write_wasserstein", "write_population", "check_pufferfish", "decide_laplace",
           "wasserstein"]

PUFFERFISH_KINDS = (CertificateKind.PUFFERFISH_SCALE.value,
                    CertificateKind.PUFFERFISH_WASSERSTEIN.value,
                    CertificateKind.PUFFERFISH_POPULATION.value)
#: Largest support of the query's law the kernel re-checks (the check is O(m²) balls).
MAX_POINTS = 1000
_MAX_FORM = 400  # characters of a closed form

Dist = Mapping[Fraction, Fraction]


# ------------------------------------------------------------------------------ JSON
def write_dist(dist: Dist) -> dict[str, list[str]]:
    """``{"support": [...], "probs": [...]}``, support increasing, masses > 0."""
    pts = sorted(x for x, p in dist.items() if p)
    return {"support": [write_rational(x) for x in pts],
            "probs": [write_rational(dist[x]) for x in pts]}


def _read_dist(value: Any, where: str) -> dict[Fraction, Fraction]:
    obj = read_object(value, where, ("support", "probs"))
    xs = [read_rational(v, f"{where}.support") for v in read_list(obj["support"], where, None,
                                                                  MAX_POINTS)]
    ps = [read_rational(v, f"{where}.probs") for v in read_list(obj["probs"], where, len(xs))]
    if not xs or any(b <= a for a, b in zip(xs, xs[1:])) or min(ps) <= 0 or sum(ps) != 1:
        raise InvalidArgument(f"{where}: need a nonempty increasing support and masses > 0 "
                              "summing to 1.")
    return dict(zip(xs, ps))


def write_level(level: PrivacyLevel) -> dict[str, str]:
    """``{"t": "p/q"}`` when t = e^-ε is rational, else ``{"eps": closed form}``."""
    if level.t is not None:
        return {"t": write_rational(level.t, "level.t")}
    return {"eps": write_closed_form(level.eps, "level.eps")}


def _read_level(value: Any) -> PrivacyLevel:
    obj = read_object(value, "question.level", (), ("t", "eps"))
    if len(obj) != 1:
        raise InvalidArgument("question.level: give exactly one of \"t\" and \"eps\".")
    if "t" in obj:
        return parse_level(t=read_rational(obj["t"], "question.level.t"))
    level = parse_level(eps=_form(obj["eps"], "question.level.eps"))
    if level.t is not None:
        raise InvalidArgument(f"question.level: write {{\"t\": {write_rational(level.t)!r}}}.")
    return level


def _form(value: Any, where: str) -> sympy.Expr:
    """A closed form of at most 400 characters, powers ≤ 64, exp() nested ≤ 2 deep (the
    substitution check expands it: larger ones could hang)."""
    if isinstance(value, str) and len(value) > _MAX_FORM:
        raise InvalidArgument(f"{where}: a closed form over {_MAX_FORM} characters.")
    expr = read_closed_form(value, where)
    if _depth(expr) > 2 or any(isinstance(n, sympy.Pow) and isinstance(n.exp, sympy.Rational)
                               and max(abs(n.exp.p), n.exp.q) > 64
                               for n in sympy.preorder_traversal(expr)):
        raise InvalidArgument(f"{where}: {value!r} nests exp() over 2 deep or has a power "
                              "beyond 64; such forms are refused.")
    return expr


def _depth(expr: sympy.Basic) -> int:
    inner = max((_depth(a) for a in expr.args), default=0)
    return inner + (isinstance(expr, sympy.exp) or getattr(expr, "base", None) == sympy.E)


def _least(value: Any) -> Enclosure | None:
    """The claimed least scale: ``"0"`` (None here) or a bracket {lo, hi}."""
    return None if value == "0" else read_enclosure(value, "claim.least")


def _write_least(least: Enclosure | None) -> Any:
    return "0" if least is None else write_enclosure(least, "claim.least")


def write_scale(P: Dist, Q: Dist, level: PrivacyLevel, releases: int,
                least: tuple[Fraction, Fraction] | None, closed_form: str | None,
                tol: Fraction, prec: int) -> dict[str, Any]:
    """The ``pufferfish-scale`` document: θ*(k releases) ∈ (lo, hi] (``None``: θ* = 0)."""
    return envelope(CertificateKind.PUFFERFISH_SCALE,
                    {"P": write_dist(P), "Q": write_dist(Q), "level": write_level(level),
                     "releases": releases},
                    {"least": _write_least(None if least is None else Enclosure(*least)),
                     "closed_form": closed_form},
                    {"tol": write_rational(tol), "prec": prec})


def write_wasserstein(P: Dist, Q: Dist, level: PrivacyLevel, releases: int, theta: sympy.Expr,
                      w1: Fraction, winf: Fraction) -> dict[str, Any]:
    """The ``pufferfish-wasserstein`` document: θ = k·W∞/ε and the two distances."""
    return envelope(CertificateKind.PUFFERFISH_WASSERSTEIN,
                    {"P": write_dist(P), "Q": write_dist(Q), "level": write_level(level),
                     "releases": releases},
                    {"theta": write_closed_form(theta, "claim.theta"),
                     "w1": write_rational(w1), "winf": write_rational(winf)}, {})


def write_population(users: list[tuple[Dist, Fraction]], P: Dist, Q: Dist, theta: Fraction,
                     level: PrivacyLevel, verdict: Verdict, tight: bool,
                     least: tuple[Fraction, Fraction] | None | str = "absent") -> dict[str, Any]:
    """The ``pufferfish-population`` document (``least``: bracket, None for θ = 0, or absent)."""
    claim = {"verdict": write_verdict(verdict), "tight": tight}
    if least != "absent":
        claim["least"] = _write_least(None if least is None else Enclosure(*least))
    return envelope(CertificateKind.PUFFERFISH_POPULATION,
                    {"users": [{"dist": write_dist(d), "presence": write_rational(z)}
                               for d, z in users],
                     "P": write_dist(P), "Q": write_dist(Q), "theta": write_rational(theta),
                     "level": write_level(level)}, claim, {})


# --------------------------------------------------------------------------- signs
def _sign(terms: list[tuple[int, Fraction, Fraction]], c: Fraction, level: PrivacyLevel
          ) -> int | None:
    """Exact sign of Σ (a·e^ε − b)·e^{c·k} over ``terms`` (k, a, b); None when not decided."""
    prec = 64
    while prec <= MAX_PREC:
        with workprec(prec):
            E, cb = sympy_to_arb(level.eps).exp(), arb_from_fraction(c)
            s = sum(((arb_from_fraction(a) * E - arb_from_fraction(b)) * (cb * k).exp()
                     for k, a, b in terms), arb(0))
            if s > 0 or s < 0:
                return 1 if s > 0 else -1
        if prec == 64 and (level.t is not None or level.eps_rational is not None):
            coll: dict[Fraction, Fraction] = {}  # Σ c_r e^r over distinct rationals r
            shift = level.eps_rational or Fraction(0)
            for k, a, b in terms:
                r = c * k
                if level.t is not None:
                    coll[r] = coll.get(r, Fraction(0)) + a / level.t - b
                else:  # e^ε·e^r = e^{r + ε}
                    coll[r + shift] = coll.get(r + shift, Fraction(0)) + a
                    coll[r] = coll.get(r, Fraction(0)) - b
            if not any(coll.values()):
                return 0  # else nonzero: e^r at distinct algebraic r are independent over Q̄
        prec *= 2
    return None


@proved_by("pufferfish_supremum")
def decide_laplace(P: Dist, Q: Dist, theta: Fraction, level: PrivacyLevel
                   ) -> tuple[Verdict, bool] | None:
    """(verdict of X + Lap(θ) at ε, tight: the loss is exactly ε at a support point), or None
    when a sign is undecided. ``theta = 0`` decides the θ → 0 limit (θ* = 0 iff it holds).

    >>> lv = parse_level(eps=1)
    >>> decide_laplace({Fraction(0): Fraction(1)}, {Fraction(1): Fraction(1)}, Fraction(1), lv)
    (<Verdict.HOLDS: 'holds'>, True)
    """
    pts = sorted(set(P) | set(Q))
    den = math.lcm(*(x.denominator for x in pts))
    ints = [int(x * den) for x in pts]  # x = X/den: e^{-|x - d|/θ} = e^{c·|X − D|}
    c = Fraction(-1, den) / theta if theta else Fraction(0)
    mass = [[D.get(x, Fraction(0)) for x in pts] for D in (P, Q)]
    signs: list[int | None] = []
    for i, X in enumerate(ints):
        for A, B in ((mass[1], mass[0]), (mass[0], mass[1])):  # e^ε g_A(x) − g_B(x)
            terms = ([(0, A[i], B[i])] if theta == 0
                     else [(abs(X - Y), A[j], B[j]) for j, Y in enumerate(ints)])
            signs.append(_sign(terms, c, level))
    if None in signs:
        return None
    return Verdict.FAILS if -1 in signs else Verdict.HOLDS, 0 in signs


def _brackets(P: Dist, Q: Dist, level: PrivacyLevel, least: Enclosure | None) -> bool:
    """θ* = 0, or privacy FAILS at lo > 0 and HOLDS at hi (θ* ∈ (lo, hi], loss monotone)."""
    if least is None:
        limit = decide_laplace(P, Q, Fraction(0), level)
        return limit is not None and limit[0] is Verdict.HOLDS
    if not 0 < least.lo < least.hi:
        return False
    at_lo, at_hi = decide_laplace(P, Q, least.lo, level), decide_laplace(P, Q, least.hi, level)
    return (at_lo is not None and at_lo[0] is Verdict.FAILS and at_hi is not None
            and at_hi[0] is Verdict.HOLDS)


@proved_by("pufferfish_bernoulli")
def closed_form_is_least(P: Dist, Q: Dist, level: PrivacyLevel, theta: sympy.Expr) -> bool:
    """``theta`` = θ* for a two-point union {a, a + h}: with p > q the masses at a + h and
    u = e^{h/θ}, one of R_A = (1−p+pu)/(1−q+qu), R_B = (q+(1−q)u)/(p+(1−p)u) equals e^ε
    identically and the other is ≤ e^ε (both increase in u, so L(θ) = ε and L > ε below)."""
    pts = sorted(set(P) | set(Q))
    if len(pts) != 2 or _real_sign(theta) != 1:
        return False
    p, q = (to_sympy(D.get(pts[1], Fraction(0))) for D in (P, Q))
    p, q = max(p, q), min(p, q)
    u, E = sympy.exp(to_sympy(pts[1] - pts[0]) / theta), sympy.exp(level.eps)
    r_a = (1 - p + p * u) / (1 - q + q * u) - E
    r_b = (q + (1 - q) * u) / (p + (1 - p) * u) - E
    for bind, other in ((r_a, r_b), (r_b, r_a)):
        if sympy.expand(sympy.fraction(sympy.together(bind))[0]) == 0:
            return (sympy.expand(sympy.fraction(sympy.together(other))[0]) == 0
                    or _real_sign(other) == -1)
    return False


def _real_sign(expr: sympy.Expr) -> int | None:
    prec = 64
    while prec <= MAX_PREC:
        with workprec(prec):
            v = sympy_to_arb(expr)
            if v > 0 or v < 0:
                return 1 if v > 0 else -1
        prec *= 2
    return None


def wasserstein(P: Dist, Q: Dist) -> tuple[Fraction, Fraction]:
    """(W1, W∞): W1 = ∫|F_P − F_Q|, W∞ = the largest gap of the quantile functions at the
    merged cumulative masses (both are left-continuous steps between them).

    >>> wasserstein({Fraction(0): Fraction(1, 2), Fraction(1): Fraction(1, 2)}, {Fraction(0): Fraction(1)})
    (Fraction(1, 2), Fraction(1, 1))
    """
    pts = sorted(set(P) | set(Q))
    cdf = {D is P: [sum((D.get(y, Fraction(0)) for y in pts[:i + 1]), Fraction(0))
                    for i in range(len(pts))] for D in (P, Q)}
    w1 = sum((abs(a - b) * (y - x) for a, b, x, y in zip(cdf[True], cdf[False], pts, pts[1:])),
             Fraction(0))
    cuts = sorted(set(cdf[True]) | set(cdf[False]))
    winf = max(abs(pts[bisect.bisect_left(cdf[True], c)] - pts[bisect.bisect_left(cdf[False], c)])
               for c in cuts if c > 0)
    return w1, winf


def _population(users: Any) -> dict[Fraction, Fraction]:
    rest = {Fraction(0): Fraction(1)}
    for k, user in enumerate(read_list(users, "question.users", None, 10_000)):
        obj = read_object(user, f"question.users[{k}]", ("dist", "presence"))
        z = read_rational(obj["presence"], f"question.users[{k}].presence")
        if not 0 <= z <= 1:
            raise InvalidArgument(f"question.users[{k}].presence: got {z}; need 0 ≤ ζ ≤ 1.")
        mix = {d: z * p for d, p in _read_dist(obj["dist"], f"question.users[{k}].dist").items()}
        mix[Fraction(0)] = mix.get(Fraction(0), Fraction(0)) + 1 - z
        out: dict[Fraction, Fraction] = {}
        for x, a in rest.items():
            for y, b in mix.items():
                if a and b:
                    out[x + y] = out.get(x + y, Fraction(0)) + a * b
        if len(out) > MAX_POINTS:
            raise InvalidArgument(f"question.users: the sum has over {MAX_POINTS} points.")
        rest = out
    return rest


def _convolve(R: Dist, D: Dist) -> dict[Fraction, Fraction]:
    out: dict[Fraction, Fraction] = {}
    for x, a in R.items():
        for y, b in D.items():
            out[x + y] = out.get(x + y, Fraction(0)) + a * b
    return out


# -------------------------------------------------------------------------- check
@proved_by("pufferfish_releases")
def check_pufferfish(doc: Any) -> bool:
    """Re-check a Pufferfish document (InvalidArgument when malformed, False when a claim
    does not re-check)."""
    env = read_envelope(doc, PUFFERFISH_KINDS)
    q, c = env.question, env.claim
    if env.kind == CertificateKind.PUFFERFISH_POPULATION.value:
        read_object(q, "question", ("users", "P", "Q", "theta", "level"))
        read_object(c, "claim", ("verdict", "tight"), ("least",))
        read_object(env.evidence, "evidence", ())
        rest, level = _population(q["users"]), _read_level(q["level"])
        P, Q = (_convolve(rest, _read_dist(q[k], f"question.{k}")) for k in ("P", "Q"))
        theta = read_rational(q["theta"], "question.theta")
        if theta <= 0 or len(P) + len(Q) > 2 * MAX_POINTS:
            raise InvalidArgument(f"question.theta: got {theta}; need θ > 0 (and at most "
                                  f"{MAX_POINTS} points).")
        claim = (read_verdict(c["verdict"], "claim.verdict"), read_bool(c["tight"], "claim.tight"))
        if "least" in c and not _brackets(P, Q, level, _least(c["least"])):
            return False
        return decide_laplace(P, Q, theta, level) == claim
    read_object(q, "question", ("P", "Q", "level", "releases"))
    P, Q = _read_dist(q["P"], "question.P"), _read_dist(q["Q"], "question.Q")
    level, k = _read_level(q["level"]), read_int(q["releases"], "question.releases", 1, 10**6)
    if env.kind == CertificateKind.PUFFERFISH_WASSERSTEIN.value:
        read_object(c, "claim", ("theta", "w1", "winf"))
        read_object(env.evidence, "evidence", ())
        theta = _form(c["theta"], "claim.theta")
        w1, winf = wasserstein(P, Q)
        if (read_rational(c["w1"], "claim.w1"), read_rational(c["winf"], "claim.winf")) != (
                w1, winf) or theta != k * to_sympy(winf) / level.eps:
            return False  # private at θ by (5), re-decided when θ is rational:
        return level.eps_rational is None or decide_laplace(
            P, Q, winf / level.eps_rational, level) in ((Verdict.HOLDS, False), (Verdict.HOLDS, True))
    read_object(c, "claim", ("least", "closed_form"))
    ev = read_object(env.evidence, "evidence", ("tol", "prec"))
    tol, _ = read_rational(ev["tol"], "evidence.tol"), read_int(ev["prec"], "evidence.prec", 0)
    least = _least(c["least"])
    form = None if c["closed_form"] is None else _form(c["closed_form"], "claim.closed_form")
    if least is None:
        return form is None and _brackets(P, Q, level, None)
    one = Enclosure(least.lo / k, least.hi / k)  # k releases at θ lose one release at θ/k
    return (least.hi - least.lo <= tol * least.hi and _brackets(P, Q, level, one)
            and (form is None or closed_form_is_least(P, Q, level, form / k)))
