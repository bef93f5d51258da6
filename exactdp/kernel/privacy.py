"""Re-check privacy claims about an exact mechanism H on a metric d, from scratch.

Two kinds (JSON forms: :mod:`exactdp.kernel.privacy_json`):

* ``privacy-level`` — "the least ε with H[y, z] ≤ e^{ε·d(y, y')}·H[y', z] for all y, y', z is
  V", V being 0, ∞ or ln(R)/d0 with a witness (y, y', z): R = H[y, z]/H[y', z], d0 = d(y, y');
  plus a rational enclosure of V.
* ``privacy-check`` — "H is ε·d-private" (holds), or "is not" with a violation (y, y', z):
  H[y, z] > e^{ε·d(y, y')}·H[y', z].

How it is checked. Every ordered pair (x, y) of a *sufficient* set and every output z is
read: the largest ratio H[x, z]/H[y, z] per distinct distance (exact rationals; an output
with H[x, z] > 0 = H[y, z] makes the level infinite), then one exact comparison of
ln(r)/d with the level per distance. The sufficient set is every pair, or the metric's graph
edges when the kernel proves (:func:`edges_suffice`) that every pair (a, b) has an edge
(a, c) with d(a, c) + d(c, b) = d(a, b): then privacy on the edges gives privacy on every
pair, by induction on d(a, b) (H[a, z] ≤ e^{εd(a,c)}H[c, z] ≤ e^{ε(d(a,c)+d(c,b))}H[b, z]).

Comparisons of ln(r)/d with ln(T)/e (r, T ≥ 1 rational, d, e = c·√s): when d/e = a/b is
rational, sign(r^b − T^a) exactly; when it is irrational, the two are never equal unless
r = T = 1 (Gelfond–Schneider: ln r/ln T is rational or transcendental), so balls of rising
precision separate them. A rational ε > 0 never equals ln(r)/d for r > 1 (Lindemann:
e^{ε d} is transcendental). Any other closed form of ε is compared with balls only; when
the balls cannot separate within :data:`MAX_PREC` bits the claim is not proved (rejected:
incomplete, never unsound).

>>> from fractions import Fraction as F
>>> log_sign(F(4), Distance.rational(2), F(2), Distance.rational(1))   # ln4/2 = ln2
0
>>> log_sign(F(3), Distance(F(1), 2), F(2), Distance.rational(1))      # ln3/√2 ≈ 0.78 > ln2
1
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TypeAlias

import numpy as np
import sympy
from flint import arb

from exactdp.arithmetic.ball import arb_from_fraction, ball_sign, sympy_to_arb, workprec
from exactdp.arithmetic.interval import Enclosure
from exactdp.arithmetic.rationals import to_fraction
from exactdp.errors import CertificateInvalid, InstanceTooLarge
from exactdp.kernel.question import Property, Question
from exactdp.kinds import proved_by
from exactdp.spaces.distances import Distance
from exactdp.spaces.metrics import FiniteMetric

__all__ = ["PRIVACY_LEVEL", "PRIVACY_CHECK", "PRIVACY_KINDS", "MAX_PREC", "MAX_EXACT_BITS",
           "MAX_WORK", "require_work", "sign_in_balls", "LogValue", "LevelClaim", "CheckClaim", "log_sign", "log_form",
           "edges_suffice", "sufficient_pairs", "check_privacy_level", "check_privacy"]

PRIVACY_LEVEL = "privacy-level"
PRIVACY_CHECK = "privacy-check"
PRIVACY_KINDS = (PRIVACY_LEVEL, PRIVACY_CHECK)
#: Highest ball precision (bits) tried to separate two unequal values.
MAX_PREC = 1 << 14
#: Largest exact power r^b, T^a (bits) formed to decide equality.
MAX_EXACT_BITS = 1 << 22
#: Most (ordered pair, output) entries read by one check (hostile input fails fast).
MAX_WORK = 20_000_000


@dataclass(frozen=True)
class LogValue:
    """The exact level ln(T)/e, T ≥ 1 rational, e = c·√s > 0."""

    T: Fraction
    e: Distance


Level: TypeAlias = "LogValue | str"  # "0", "infinite", or ln(T)/e
Target: TypeAlias = "LogValue | sympy.Expr"  # the ε of a privacy check: ln(T)/e when it can


@dataclass(frozen=True)
class LevelClaim:
    """A ``privacy-level`` claim: its question, the value, the witness and the enclosure."""

    question: Question
    value: Level
    witness: tuple[int, int, int] | None
    enclosure: Enclosure | None


@dataclass(frozen=True)
class CheckClaim:
    """A ``privacy-check`` claim: ``holds`` (no violation) or a violation (y, y', z)."""

    question: Question
    holds: bool
    violation: tuple[int, int, int] | None


# ------------------------------------------------------------------------ comparisons
def sign_in_balls(f: Callable[[], arb], max_prec: int = MAX_PREC) -> int | None:
    """Sign of the ball-valued ``f()`` at 64, 256, … ≤ ``max_prec`` bits; None when never
    separated from 0 (an exact zero ball included: never read as a proved 0).

    >>> sign_in_balls(lambda: arb(1) / 3 - arb(1) / 4), sign_in_balls(lambda: arb(0))
    (1, None)
    """
    prec = 64
    while prec <= max_prec:
        with workprec(prec):
            sg = ball_sign(f()).value
        if sg:
            return int(sg)
        prec *= 4
    return None


def _rational_sqrt(q: Fraction) -> Fraction | None:
    a, b = math.isqrt(q.numerator), math.isqrt(q.denominator)
    return Fraction(a, b) if a * a == q.numerator and b * b == q.denominator else None


@proved_by("kernel_privacy_reduction")
def log_sign(r: Fraction, d: Distance, T: Fraction, e: Distance) -> int | None:
    """Exact sign of ln(r)/d − ln(T)/e (r, T ≥ 1, d, e > 0); None when not decided
    (proofs/kernel_privacy_reduction.py, lemma 2)."""
    if r == 1 or T == 1:
        return (r > 1) - (T > 1)
    q = _rational_sqrt(d.square / e.square)  # d/e when rational
    if q is not None:
        a, b = q.numerator, q.denominator  # sign(ln r − (a/b) ln T) = sign(r^b − T^a)
        bits = b * (r.numerator.bit_length() + r.denominator.bit_length()) + a * (
            T.numerator.bit_length() + T.denominator.bit_length())
        if bits <= MAX_EXACT_BITS:
            lhs, rhs = r**b, T**a
            return (lhs > rhs) - (lhs < rhs)
    return sign_in_balls(lambda: arb_from_fraction(r).log() / d.ball() - arb_from_fraction(T).log() / e.ball())


def target_sign(r: Fraction, d: Distance, eps: Target) -> int | None:
    """Exact sign of ln(r)/d − ε (r ≥ 1); None when not decided."""
    if isinstance(eps, LogValue):
        return log_sign(r, d, eps.T, eps.e)
    if r == 1:
        return -1  # ε > 0 (the question's level)
    # ε rational: ln(r) = ε·d would make e^{ε d} rational (Lindemann): never equal
    return sign_in_balls(lambda: arb_from_fraction(r).log() / d.ball() - sympy_to_arb(eps))


def log_form(eps: sympy.Expr) -> LogValue | None:
    """ε = k·√s·ln(T) read from the expression tree (no evaluation), as ln(T′)/e; else None.

    >>> log_form(sympy.log(3) / 2)
    LogValue(T=Fraction(3, 1), e=Distance(coef=Fraction(2, 1), radicand=1))
    >>> log_form(sympy.Integer(2)) is None
    True
    """
    k, s, T = Fraction(1), 1, None
    for f in sympy.Mul.make_args(eps):
        if isinstance(f, sympy.Rational):
            k *= to_fraction(f)
        elif (isinstance(f, sympy.Pow) and f.exp == sympy.Rational(1, 2)
              and isinstance(f.base, sympy.Integer) and f.base > 1 and s == 1):
            s = int(f.base)
        elif (isinstance(f, sympy.log) and T is None and isinstance(f.args[0], sympy.Rational) and f.args[0] > 0):
            T = to_fraction(f.args[0])
        else:
            return None
    if T is None or T == 1 or k == 0:
        return None
    if T < 1:
        T, k = 1 / T, -k
    if k < 0:
        return None
    return LogValue(T, Distance(1 / (k * s), s))  # k√s ln T = ln T / (√s/(k s))


# ---------------------------------------------------------------------- sufficient pairs
@proved_by("kernel_privacy_reduction")
def edges_suffice(metric: FiniteMetric, edges: Sequence[tuple[int, int]]) -> bool:
    """True when every pair (a, b) has an edge (a, c) with d(a, c) + d(c, b) = d(a, b),
    checked exactly (rational distances only; then privacy on the edges is privacy:
    proofs/kernel_privacy_reduction.py, lemma 1)."""
    n = metric.n
    if not all(v.is_rational for v in metric.values):
        return False
    scale = math.lcm(*(v.coef.denominator for v in metric.values))
    ints = [int(v.coef * scale) for v in metric.values]
    # one row of exact integer distances at a time (never an n×n array of Python ints)
    vals = np.array(ints, dtype=np.int64 if max(ints, default=0) < 2**61 else object)
    index = np.asarray(metric.index)
    nbrs: list[list[int]] = [[] for _ in range(n)]
    for a, b in edges:
        if not (0 <= a < n and 0 <= b < n) or a == b or vals[index[a, b]] <= 0:
            return False
        nbrs[a].append(b)
        nbrs[b].append(a)
    if not all(nbrs):
        return n == 1  # a point without an edge: fine only when it is the only point
    for a in range(n):
        row = vals[index[a]]
        via = vals[index[nbrs[a]]] + row[nbrs[a]][:, None]
        ok = (via == row[None, :]).any(axis=0)
        ok[a] = True
        if not bool(np.all(ok)):
            return False
    return True


def require_work(npairs: int, m: int) -> None:
    """Refuse (:class:`~exactdp.errors.InstanceTooLarge`) a check reading more than
    :data:`MAX_WORK` (ordered pair, output) entries — the test the kernel applies, so a writer
    can refuse before writing a document the kernel would not decide.

    >>> require_work(10, 10)
    >>> require_work(10**6, 100)
    Traceback (most recent call last):
    ...
    exactdp.errors.InstanceTooLarge: checking 1000000 pairs × 100 outputs (200000000 entries) ...
    """
    if 2 * npairs * m > MAX_WORK:
        raise InstanceTooLarge(f"checking {npairs} pairs × {m} outputs ({2 * npairs * m} entries) exceeds the kernel's "
                               f"limit of {MAX_WORK} entries; check a smaller mechanism.")


def sufficient_pairs(metric: FiniteMetric) -> tuple[tuple[int, int], ...]:
    """The metric's graph edges when :func:`edges_suffice` proves them enough, else all pairs."""
    edges = metric.graph_edges
    if edges is not None and edges_suffice(metric, edges):
        return tuple((int(a), int(b)) for a, b in edges)
    return tuple((a, b) for a in range(metric.n) for b in range(a + 1, metric.n))


Rows = tuple[tuple[Fraction, ...], ...]


def _int_rows(rows: Rows) -> list[tuple[np.ndarray, int, np.ndarray]]:
    """Per row: (exact integer numerators over the row's common denominator L, L, H > 0)."""
    out = []
    for r in rows:
        L = math.lcm(*(h.denominator for h in r))
        N = np.array([h.numerator * (L // h.denominator) for h in r], dtype=object)
        out.append((N, L, np.array([h > 0 for h in r], dtype=bool)))
    return out


def _argmax_ratio(nx: np.ndarray, ny: np.ndarray) -> int:
    """Index of a largest nx[z]/ny[z] (all entries > 0), by exact integer cross-products."""
    idx = np.arange(len(nx))
    while len(idx) > 1:
        carry = idx[-1:] if len(idx) % 2 else idx[:0]
        i, j = idx[0:len(idx) - len(carry):2], idx[1:len(idx) - len(carry):2]
        take = np.asarray(nx[j] * ny[i] > nx[i] * ny[j], dtype=bool)
        idx = np.concatenate([np.where(take, j, i), carry])
    return int(idx[0])


def _scan(rows: Rows, metric: FiniteMetric) -> tuple[tuple[int, int, int] | None,
                                                     dict[Fraction, tuple[Fraction, Distance]]]:
    """(an infinite witness or None, {d²: (largest ratio at d, d)}) over the sufficient pairs.

    H[x, z]/H[y, z] = (N_x[z]/N_y[z])·(L_y/L_x) with each row over its common denominator L,
    so the largest ratio of a pair is found by exact integer cross-multiplication."""
    pairs = sufficient_pairs(metric)
    require_work(len(pairs), len(rows[0]))
    ints = _int_rows(rows)
    best: dict[Fraction, tuple[Fraction, Distance]] = {}
    for a, b in pairs:
        d = metric.distance(a, b)
        top = best.get(d.square, (Fraction(1), d))[0]
        for x, y in ((a, b), (b, a)):
            (nx, lx, px), (ny, ly, py) = ints[x], ints[y]
            bad = np.flatnonzero(px & ~py)
            if len(bad):
                return (x, y, int(bad[0])), best
            sel = np.flatnonzero(px)
            if not len(sel):
                continue
            z = int(sel[_argmax_ratio(nx[sel], ny[sel])])
            top = max(top, Fraction(nx[z] * ly, ny[z] * lx))
        best[d.square] = (top, d)
    return None, best


def _witness_ratio(rows: Rows, metric: FiniteMetric, w: tuple[int, int, int] | None
                   ) -> tuple[Fraction | None, Distance] | None:
    """(H[y, z]/H[y', z] or None when the denominator is 0, d(y, y')); None for a bad or no witness."""
    if w is None:
        return None
    y, y2, z = w
    n, m = len(rows), len(rows[0])
    if not (0 <= y < n and 0 <= y2 < n and 0 <= z < m) or y == y2 or rows[y][z] == 0:
        return None
    d = metric.distance(y, y2)
    return (None if rows[y2][z] == 0 else rows[y][z] / rows[y2][z]), d


def _encloses(enc: Enclosure, R: Fraction, d0: Distance) -> bool:
    """lo < ln R/d0 < hi (transcendental for R > 1: never an end)."""
    return (sign_in_balls(lambda: arb_from_fraction(R).log() / d0.ball() - arb_from_fraction(enc.lo)) == 1
            and sign_in_balls(lambda: arb_from_fraction(R).log() / d0.ball() - arb_from_fraction(enc.hi)) == -1)


# ---------------------------------------------------------------------------- checks
def check_privacy_level(claim: LevelClaim) -> bool:
    """Re-prove a ``privacy-level`` claim from the question's exact H and d."""
    q = claim.question
    if q.prop is not Property.PRIVACY_LEVEL or q.mechanism is None:
        raise CertificateInvalid("a privacy-level claim needs a privacy-level question.")
    rows, metric, v, enc = q.mechanism, q.metric, claim.value, claim.enclosure
    if v == "infinite":
        got = _witness_ratio(rows, metric, claim.witness)
        return enc is None and got is not None and got[0] is None
    inf, best = _scan(rows, metric)
    if v == "0":
        return (inf is None and claim.witness is None and enc is not None and enc.lo <= 0 <= enc.hi
                and all(r == 1 for r, _ in best.values()))
    assert isinstance(v, LogValue)
    got = _witness_ratio(rows, metric, claim.witness)
    if inf is not None or enc is None or got is None or got[0] is None or got[0] <= 1:
        return False
    R, d0 = got[0], got[1]  # the stated value is the witness's ln(R)/d0, enclosed, and no pair exceeds it
    return (log_sign(v.T, v.e, R, d0) == 0 and _encloses(enc, R, d0)
            and all(log_sign(r, d, R, d0) in (-1, 0) for r, d in best.values()))


def check_privacy(claim: CheckClaim) -> bool:
    """Re-prove a ``privacy-check`` claim: every sufficient pair within ε, or the violation."""
    q = claim.question
    if q.prop is not Property.PRIVATE or q.mechanism is None or q.level is None:
        raise CertificateInvalid("a privacy-check claim needs a 'private' question.")
    t = getattr(q.level, "t", None)
    eps: Target = (LogValue(1 / t, Distance.rational(1)) if t is not None
                   else log_form(q.level.eps) or q.level.eps)  # type: ignore[union-attr]
    rows, metric = q.mechanism, q.metric
    if not claim.holds:
        got = _witness_ratio(rows, metric, claim.violation)
        return got is not None and (got[0] is None or (got[0] > 1 and target_sign(got[0], got[1], eps) == 1))
    if claim.violation is not None:
        return False
    inf, best = _scan(rows, metric)
    return inf is None and all(target_sign(r, d, eps) in (-1, 0) for r, d in best.values())
