"""A whole class replaced by another class, at thousands of users: certified θ*.

The secret pair is S_{P,Q} with P the law of class A's total and Q the law of class B's
total (class A present against class B present in its place). Both totals live on the
integers 0…N, N = max(n_A, n_B), so by ``proofs/pufferfish_supremum.py`` (3) the loss at θ
is the maximum over j = 0…N of |ln g_A(j) − ln g_B(j)|, g(j) = Σ_i m_i e^{−|j − i|/θ}, and
it is non-increasing in θ ((4)).

The masses are balls: for a binomial class (n, p) by the exact recurrence
m_0 = (1 − p)^n, m_{i+1} = m_i·(n − i)/(i + 1)·p/(1 − p) (``proofs/pufferfish_class_pairs.py``),
so no exact law (gigabytes of numerators at n ≈ 39,000) is ever formed; for a class of
several p's the exact :func:`exactdp.pufferfish.class_laws.class_law`. The kernel sums on
the integer grid are two running sums with the common factor r = e^{−1/θ}: O(N) ball
operations. A float search in log space (numpy, UNCERTIFIED: it only saves work) guesses θ*;
two rational scales lo < θ* ≤ hi are then certified by ball verdicts (FAILS at lo, HOLDS at
hi), widened until they do and refined by certified bisection until (hi − lo)/hi ≤ tol.

θ* = 0 (no noise needed) is decided first, exactly where balls cannot: by
``proofs/pufferfish_supremum.py`` (4) and (6), L(θ) ≤ L(0+) = max_j |ln m_A(j)/m_B(j)| (∞
when the supports differ), so θ* = 0 iff that maximum is ≤ ε; the result then has
``zero_noise=True`` and lo = hi = 0.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

import numpy as np
import sympy
from flint import arb, ctx
from scipy.optimize import brentq

from exactdp.arithmetic.ball import MAX_PREC, arb_from_fraction, sympy_to_arb, workprec
from exactdp.arithmetic.interval import Enclosure
from exactdp.arithmetic.validate import read_positive, read_probability, read_tol
from exactdp.errors import (
    REJECTED_ERRORS,
    InvalidArgument,
    InvalidDistribution,
    InvalidScale,
    PrecisionLimitReached,
)
from exactdp.kinds import Sign, Verdict, proved_by
from exactdp.pufferfish.bernoulli_forms import exact_sign
from exactdp.pufferfish.class_laws import class_law
from exactdp.spaces.levels import parse_level

__all__ = [
    "ClassPairScale",
    "class_pair_scale",
    "class_pair_loss",
    "class_masses",
    "ClassPairConservative",
    "class_pair_winf",
    "class_pair_conservative",
]

_Groups = tuple[tuple[Fraction, int], ...]


def _groups(members: Any, name: str) -> _Groups:
    """(p, count) groups from ``(n, p)``, a list of p_i, or groups already read."""
    if isinstance(members, tuple) and members and all(
            isinstance(g, tuple) and len(g) == 2 and isinstance(g[0], Fraction)
            and isinstance(g[1], int) for g in members):
        return tuple(sorted((read_probability(p, f"{name} p", InvalidDistribution), c)
                            for p, c in members))
    if isinstance(members, tuple) and len(members) == 2 and isinstance(
            members[0], numbers.Integral):
        n, p = members
        if isinstance(n, bool) or n < 1:
            raise InvalidArgument(f"Got {name} size n={n!r}; a class needs an integer n ≥ 1.")
        return ((read_probability(p, f"{name} p", InvalidDistribution), int(n)),)
    if (isinstance(members, tuple) and len(members) == 2 and isinstance(members[0], float)
            and not 0 <= members[0] <= 1):
        raise InvalidArgument(
            f"Got {name}={members!r}: the size n={members[0]!r} is a float; pass (n, p) with an "
            f"int n ≥ 1, e.g. ({int(members[0]) if math.isfinite(members[0]) else 2}, "
            f"{members[1]!r}).")
    try:
        ps = [read_probability(p, f"{name}[{i}]", InvalidDistribution)
              for i, p in enumerate(members)]
    except TypeError:
        ps = []
    if not ps:
        raise InvalidArgument(f"Got {name}={members!r}; pass (n, p) or a non-empty list of p_i.")
    counts: dict[Fraction, int] = {}
    for p in ps:
        counts[p] = counts.get(p, 0) + 1
    return tuple(sorted(counts.items()))


@proved_by("pufferfish_class_pairs")
def class_masses(groups: _Groups) -> list[arb]:
    """Balls for P(total = i), i = 0…n (call inside ``workprec``); a binomial class by the
    recurrence of ``proofs/pufferfish_class_pairs.py``, several p's by the exact law.

    >>> with workprec(64):
    ...     m = class_masses(((Fraction(1, 2), 3),))
    >>> [x.overlaps(arb(k) / 8) for x, k in zip(m, (1, 3, 3, 1))]
    [True, True, True, True]
    """
    if len(groups) != 1:
        return class_law(groups).masses()
    (p, n), = groups
    if p in (0, 1):
        return [arb(1) if i == (0 if p == 0 else n) else arb(0) for i in range(n + 1)]
    odds = arb_from_fraction(p / (1 - p))
    m = arb_from_fraction(1 - p) ** n
    out = [m]
    for i in range(n):
        m = m * arb(n - i) / arb(i + 1) * odds
        out.append(m)
    return out


@lru_cache(maxsize=8)
def _masses_at(groups: _Groups, prec: int) -> tuple[arb, ...]:
    """:func:`class_masses` at ``prec`` bits, cached (a search re-uses the same classes)."""
    with workprec(prec):
        return tuple(class_masses(groups))


def _flog(q: Fraction) -> float:
    """ln q for a rational q > 0 as a float (no underflow: logs of the integer parts)."""
    return math.log(q.numerator) - math.log(q.denominator)


def _float_log_masses(groups: _Groups) -> np.ndarray:
    """Float64 ln P(total = i), −inf for a zero mass (UNCERTIFIED, for the search only)."""
    if len(groups) != 1:
        with workprec(64):
            return np.array([float(x.log().mid()) if x > 0 else -math.inf
                             for x in class_law(groups).masses()])
    (p, n), = groups
    i = np.arange(n + 1, dtype=float)
    if p in (0, 1):
        return np.where(i == (0 if p == 0 else n), 0.0, -math.inf)
    lg = np.array([math.lgamma(k + 1) for k in range(n + 1)])
    return lg[n] - lg - lg[::-1] + i * _flog(p) + (n - i) * _flog(1 - p)


def _float_log_g(lm: np.ndarray, theta: float) -> np.ndarray:
    """ln g(j) = ln Σ_i m_i e^{−|j − i|/θ} in log space (no underflow; UNCERTIFIED)."""
    c = 1.0 / theta
    j = np.arange(len(lm), dtype=float) - (len(lm) - 1) / 2  # centred: smaller |j·c|
    with np.errstate(invalid="ignore"):
        left = np.logaddexp.accumulate(lm + j * c) - j * c
        right = np.logaddexp.accumulate((lm - j * c)[::-1])[::-1] + j * c
    return np.logaddexp(left, np.append(right[1:] - c, -math.inf))


def _float_loss(la: np.ndarray, lb: np.ndarray, theta: float) -> float:
    ga, gb = _float_log_g(la, theta), _float_log_g(lb, theta)
    out = float(np.max(np.abs(ga - gb)))
    return out if math.isfinite(out) else math.inf


def _pad(m: list[arb], size: int) -> list[arb]:
    return m + [arb(0)] * (size - len(m))


def _brief(q: Fraction) -> str:
    """A rational for a message: itself when short, else its power of ten."""
    text = str(q)
    return text if len(text) <= 40 else f"≈ 10^{len(str(q.numerator)) - len(str(q.denominator))}"


def _read_theta(theta: Any) -> Fraction:
    return read_positive(theta, "theta (the Laplace scale θ)", InvalidScale)


def _grid_losses(ga: _Groups, gb: _Groups, th: Fraction) -> list[arb]:
    """Balls |ln g_A(j) − ln g_B(j)|, j = 0…N (call inside ``workprec``)."""
    ma, mb = list(_masses_at(ga, ctx.prec)), list(_masses_at(gb, ctx.prec))
    size = max(len(ma), len(mb))
    sums = [_grid_sums(_pad(ma, size), th), _grid_sums(_pad(mb, size), th)]
    if not all(x > 0 for row in sums for x in row):
        raise PrecisionLimitReached(
            f"Got theta={_brief(th)}: the kernel factor "
            f"e^(−1/θ) is below what arb's exp encloses as a positive ball (1/θ ≳ 10^22), so "
            f"g(j) is not certified > 0. Use θ ≥ 1e-20 (θ* is then certified ≥ it or not).")
    return [abs(x.log() - y.log()) for x, y in zip(*sums)]


@proved_by("pufferfish_class_pairs")
def class_pair_loss(a: Any, b: Any, theta: Any, prec: int = 128) -> tuple[arb, int]:
    """(ball ∋ L(θ), a worst j) for class A's total against class B's, by running sums
    over the integer grid 0…N (``proofs/pufferfish_supremum.py`` (3),
    ``proofs/pufferfish_class_pairs.py``).

    >>> ball, j = class_pair_loss((2, "1/2"), (1, "1/2"), 1)
    >>> float(ball.mid()) > 0, j in (0, 1, 2)
    (True, True)
    """
    ga, gb = _groups(a, "a"), _groups(b, "b")
    th = _read_theta(theta)
    with workprec(prec):
        top, where = arb(0), 0
        for j, v in enumerate(_grid_losses(ga, gb, th)):
            if v.mid() > top.mid():
                where = j
            top = top.max(v)
        return top, where


def _grid_sums(m: list[arb], theta: Fraction) -> list[arb]:
    """g(j) = Σ_i m_i r^{|j − i|}, r = e^{−1/θ}: two running sums (all terms ≥ 0)."""
    r = (-arb_from_fraction(1 / theta)).exp()
    left, acc = [], arb(0)
    for x in m:
        acc = acc * r + x
        left.append(acc)
    out, acc = left[:], arb(0)
    for j in range(len(m) - 2, -1, -1):
        acc = (acc + m[j + 1]) * r
        out[j] += acc
    return out


def _decide(ga: _Groups, gb: _Groups, theta: Fraction, eps: sympy.Expr) -> Verdict:
    prec = 128
    while prec <= MAX_PREC:
        ball, _ = class_pair_loss(ga, gb, theta, prec)
        with workprec(prec):
            diff = ball - sympy_to_arb(eps)
        if diff > 0:
            return Verdict.FAILS
        if diff < 0:
            return Verdict.HOLDS
        prec *= 2
    raise PrecisionLimitReached(f"class-pair loss vs ε undecided at θ = {theta}")


def _witness_exceeds(ga: _Groups, gb: _Groups, theta: Fraction, j: int, eps: sympy.Expr) -> bool:
    """Is |ln g_A(j) − ln g_B(j)| > ε at θ, certified (False when ≤ or undecided)?"""
    prec = 128
    while prec <= MAX_PREC:
        with workprec(prec):
            diff = _grid_losses(ga, gb, theta)[j] - sympy_to_arb(eps)
            if diff > 0:
                return True
            if diff < 0:
                return False
        prec *= 2
    return False


def _support(groups: _Groups) -> tuple[int, int]:
    """The total's support {lo, …, hi}: every p = 1 member adds 1 surely, p = 0 never."""
    ones = sum(c for p, c in groups if p == 1)
    return ones, sum(c for p, c in groups if p != 0)


def _zero_noise(ga: _Groups, gb: _Groups, eps: sympy.Expr) -> bool:
    """θ* = 0? Same support and e^{−ε} ≤ m_A(j)/m_B(j) ≤ e^ε on it (balls; exact on a tie)."""
    if _support(ga) != _support(gb):
        return False
    lo, hi = _support(ga)
    with workprec(128):  # fast exit: the ratio at a support end is usually far beyond e^ε
        ma, mb, e = _masses_at(ga, 128), _masses_at(gb, 128), sympy_to_arb(eps)
        if any(abs(ma[j].log() - mb[j].log()) > e for j in {lo, hi}):
            return False
    todo = list(range(lo, hi + 1))
    prec = 128
    while todo and prec <= 1024:
        with workprec(prec):
            ma, mb, e = _masses_at(ga, prec), _masses_at(gb, prec), sympy_to_arb(eps)
            gaps = [(j, abs(ma[j].log() - mb[j].log()) - e) for j in todo]
        if any(g > 0 for _, g in gaps):
            return False
        todo = [j for j, g in gaps if not g < 0]
        prec *= 2
    if todo:  # an exact tie at some j: the exact masses decide it
        la, lb = class_law(ga), class_law(gb)
        ca, cb = la.numerator.coeffs(), lb.numerator.coeffs()
        for j in todo:
            ratio = Fraction(int(ca[j]) * lb.denominator, int(cb[j]) * la.denominator)
            big = sympy.Rational(max(ratio, 1 / ratio))
            if exact_sign(sympy.log(big) - eps) is Sign.POSITIVE:
                return False
    return True


@dataclass(frozen=True)
class ClassPairScale:
    """The least θ for class A replaced by class B, certified: FAILS at lo, HOLDS at hi.

    Attributes
    ----------
    a, b : tuple of (p, count)
        The two classes.
    eps : sympy.Expr
    lo, hi : Fraction
        lo < θ* ≤ hi; both 0 when ``zero_noise``.
    worst_j_lo : int or None
        A total j where the loss at lo exceeds ε (the witness output y = j); None when
        ``zero_noise``.
    guess_float : float
        The uncertified float root the bracket was built around (nan when ``zero_noise``).
    zero_noise : bool
        θ* = 0: max_j |ln m_A(j)/m_B(j)| ≤ ε, no noise is needed (decided exactly).
    tol : Fraction or None
        The relative width asked for: (hi − lo)/hi ≤ tol.
    """

    a: _Groups
    b: _Groups
    eps: sympy.Expr
    lo: Fraction
    hi: Fraction
    worst_j_lo: int | None
    guess_float: float
    zero_noise: bool = False
    tol: Fraction | None = None

    @property
    def enclosure(self) -> Enclosure:
        """[lo, hi] ∋ θ*."""
        return Enclosure(self.lo, self.hi)

    def float(self) -> float:
        """θ* as a float (uncertified; display only)."""
        return float((self.lo + self.hi) / 2)

    @property
    def method(self) -> str:
        """How θ* was bracketed."""
        return "zero_noise" if self.zero_noise else "certified_bracket"

    def to_json(self) -> dict[str, object]:
        """Exact JSON form."""
        return {"a": [[str(p), c] for p, c in self.a], "b": [[str(p), c] for p, c in self.b],
                "eps": str(self.eps), "theta_lo": str(self.lo), "theta_hi": str(self.hi),
                "worst_j_lo": self.worst_j_lo, "method": self.method,
                "zero_noise": self.zero_noise,
                "tol": None if self.tol is None else str(self.tol)}

    def verify(self) -> bool:
        """Recompute from the stored classes and ε: the types; for zero noise, the exact
        zero-noise test; else FAILS at lo, HOLDS at hi, the witness 0 ≤ worst_j_lo ≤ N with
        |ln g_A(j) − ln g_B(j)| > ε at lo, and (hi − lo)/hi ≤ tol."""
        try:
            level = parse_level(eps=self.eps)
            if (not isinstance(self.eps, sympy.Expr) or level.eps != self.eps
                    or _groups(self.a, "a") != self.a or _groups(self.b, "b") != self.b
                    or not all(isinstance(x, Fraction) for x in (self.lo, self.hi))
                    or self.zero_noise not in (True, False)
                    or not (self.tol is None or isinstance(self.tol, Fraction))):
                return False
            if self.zero_noise:
                return (self.lo == self.hi == 0 and self.worst_j_lo is None
                        and _zero_noise(self.a, self.b, level.eps))
            j, size = self.worst_j_lo, max(sum(c for _, c in g) for g in (self.a, self.b))
            if type(j) is not int or not 0 <= j <= size or not 0 < self.lo < self.hi:
                return False
            if self.tol is not None and (self.hi - self.lo) > self.tol * self.hi:
                return False
            return (_decide(self.a, self.b, self.lo, level.eps) is Verdict.FAILS
                    and _decide(self.a, self.b, self.hi, level.eps) is Verdict.HOLDS
                    and _witness_exceeds(self.a, self.b, self.lo, j, level.eps))
        except REJECTED_ERRORS:
            return False


def _float_root(ga: _Groups, gb: _Groups, e: float, tolf: Fraction) -> float:
    """Uncertified float guess for θ*: geometric bisection on the log-space float loss."""
    la, lb = _float_log_masses(ga), _float_log_masses(gb)
    size = max(len(la), len(lb))
    la = np.pad(la, (0, size - len(la)), constant_values=-math.inf)
    lb = np.pad(lb, (0, size - len(lb)), constant_values=-math.inf)
    hi_f, lo_f = 2.0 * size / e, 2.0 * size / e / 2.0**60

    def f(log_theta: float) -> float:  # decreasing in log θ ((4)); inf clipped for brentq
        return min(_float_loss(la, lb, math.exp(log_theta)) - e, 1e300)

    a, b = math.log(lo_f), math.log(hi_f)
    if not (f(a) > 0 and f(b) <= 0):
        return hi_f
    return math.exp(brentq(f, a, b, xtol=max(float(tolf) / 64, 1e-13), maxiter=200))


def _between(lo: Fraction, hi: Fraction) -> Fraction:
    """A short rational in the middle third of (lo, hi)."""
    w = hi - lo
    cand = ((lo + hi) / 2).limit_denominator(math.ceil(6 / w))
    return cand if lo + w / 3 <= cand <= hi - w / 3 else (lo + hi) / 2


@proved_by("pufferfish_class_pairs")
def class_pair_scale(a: Any, b: Any, eps: Any, *, tol: Any = Fraction(1, 10**9)) -> ClassPairScale:
    """Least Laplace θ for "class A present" against "class B present in its place".

    ``a``, ``b``: ``(n, p)`` for a binomial class or a list of p_i. θ* = 0 is decided first
    (``zero_noise``); else a float search (log space, uncertified), a certified bracket
    widened until FAILS at lo and HOLDS at hi, then certified bisection until
    (hi − lo)/hi ≤ ``tol`` (``proofs/pufferfish_supremum.py`` (3)–(4),
    ``proofs/pufferfish_class_pairs.py``).

    >>> r = class_pair_scale((30, "1/3"), (40, "1/4"), 1)
    >>> r.lo < r.hi, (r.hi - r.lo) / r.hi <= Fraction(1, 10**9), r.verify()
    (True, True, True)
    >>> class_pair_scale((1, "1/2"), (1, "1/3"), 1).zero_noise   # ln(3/2) < 1: θ* = 0
    True
    """
    ga, gb = _groups(a, "a"), _groups(b, "b")
    level = parse_level(eps=eps)
    tolf = read_tol(tol, below_one=True)
    if ga == gb or _zero_noise(ga, gb, level.eps):
        return ClassPairScale(ga, gb, level.eps, Fraction(0), Fraction(0), None, math.nan,
                              zero_noise=True, tol=tolf)
    guess = _float_root(ga, gb, float(sympy.N(level.eps, 20)), tolf)
    if not (math.isfinite(guess) and guess > 0):
        guess = 1.0
    w = min(tolf / 4, Fraction(1, 4))
    lo = Fraction(guess * (1 - float(w))).limit_denominator(int(4 / (float(w) * guess)) + 1)
    hi = Fraction(guess * (1 + float(w))).limit_denominator(int(4 / (float(w) * guess)) + 1)
    if not 0 < lo < hi:
        lo, hi = Fraction(guess) / 2, Fraction(guess) * 2
    while _decide(ga, gb, hi, level.eps) is not Verdict.HOLDS:  # θ* > hi: move up
        lo, hi = hi, hi * 2
    while _decide(ga, gb, lo, level.eps) is not Verdict.FAILS:  # θ* ≤ lo: move down
        lo, hi = lo / 2, lo
    while hi - lo > tolf * hi:
        mid = _between(lo, hi)
        try:
            verdict = _decide(ga, gb, mid, level.eps)
        except PrecisionLimitReached:
            mid = lo + (hi - lo) * Fraction(2, 5)
            try:
                verdict = _decide(ga, gb, mid, level.eps)
            except PrecisionLimitReached as exc:
                raise PrecisionLimitReached(
                    f"Got tol={tolf}: the certified bracket {float(lo)!r} < θ* ≤ {float(hi)!r} "
                    f"(relative width {float((hi - lo) / hi):.3g}) could not be refined further "
                    f"at {MAX_PREC} bits; pass a larger tol (e.g. 1e-12).") from exc
        if verdict is Verdict.FAILS:
            lo = mid
        else:
            hi = mid
    with workprec(128):  # the witness: a worst total at lo (verify() re-proves it)
        losses = _grid_losses(ga, gb, lo)
    j = max(range(len(losses)), key=lambda k: losses[k].mid())
    return ClassPairScale(ga, gb, level.eps, lo, hi, j, guess, tol=tolf)


def _cdfs(m: list[arb], size: int) -> tuple[list[arb], list[arb]]:
    """(F(j), S(j) = 1 − F(j)) for j = 0…size−1 as separate sums of non-negative balls
    (each keeps its relative accuracy; F is exactly 1 and S exactly 0 beyond the support)."""
    m = _pad(m, size)
    F, acc = [], arb(0)
    for x in m:
        acc += x
        F.append(acc)
    S, acc = [arb(0)] * size, arb(0)
    for j in range(size - 1, -1, -1):
        S[j] = acc
        acc += m[j]
    return F, S


def _dominated(Fb: list[arb], Sb: list[arb], Fa: list[arb], Sa: list[arb], na: int, w: int
               ) -> bool | None:
    """Is F_B(x) ≤ F_A(x + w) for every integer x? (None: a comparison undecided by balls.)"""
    size = len(Fb)
    for x in range(size):
        if x + w >= na:  # F_A(x + w) = 1 exactly
            break
        fb, fa = Fb[x], Fa[x + w]
        if fb < fa or fb.mid() < 0.5 and fb <= fa:
            continue
        if Sb[x] > Sa[x + w]:  # S_B > S_A ⟺ F_B < F_A
            continue
        if fb > fa or Sb[x] < Sa[x + w]:
            return False
        return None
    return True


@proved_by("pufferfish_class_pairs")
def class_pair_winf(a: Any, b: Any, prec: int = 256) -> int:
    """W∞ between the two class totals (an integer), certified: the quantile functions
    are within w iff F_B(x) ≤ F_A(x + w) and F_A(x) ≤ F_B(x + w) for every integer x
    (``proofs/pufferfish_class_pairs.py`` (4)); the least such w, by bisection on certified
    checks (exact laws on an exact tie of two CDF values).

    >>> class_pair_winf((3, "1/2"), (5, "1/2"))
    2
    """
    ga, gb = _groups(a, "a"), _groups(b, "b")
    with workprec(prec):
        ma, mb = class_masses(ga), class_masses(gb)
        size = max(len(ma), len(mb))
        Fa, Sa = _cdfs(ma, size)
        Fb, Sb = _cdfs(mb, size)

        def ok(w: int) -> bool:
            one = _dominated(Fb, Sb, Fa, Sa, len(ma) - 1, w)
            two = _dominated(Fa, Sa, Fb, Sb, len(mb) - 1, w)
            if one is None or two is None:  # an exact tie of two CDF values: decide exactly
                return _exact_ok(ga, gb, w)
            return one and two

        lo, hi = -1, size - 1  # ok(size − 1) holds: every quantile lies in [0, size − 1]
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if ok(mid):
                hi = mid
            else:
                lo = mid
        return hi


def _exact_ok(ga: _Groups, gb: _Groups, w: int) -> bool:
    """The same test with the exact laws (flint polynomials; used only on exact ties)."""
    la, lb = class_law(ga), class_law(gb)
    ca = [int(c) for c in la.numerator.coeffs()]
    cb = [int(c) for c in lb.numerator.coeffs()]
    size = max(len(ca), len(cb))

    def cdf(c: list[int], den: int) -> list[Fraction]:
        out, acc = [], 0
        for j in range(size):
            acc += c[j] if j < len(c) else 0
            out.append(Fraction(acc, den))
        return out

    Fa, Fb = cdf(ca, la.denominator), cdf(cb, lb.denominator)
    return all(Fb[x] <= Fa[min(x + w, size - 1)] and Fa[x] <= Fb[min(x + w, size - 1)]
               for x in range(size))


@dataclass(frozen=True)
class ClassPairConservative:
    """The conservative scale W∞/ε for a class replaced by another (W∞ certified)."""

    a: _Groups
    b: _Groups
    winf: int
    eps: sympy.Expr

    @property
    def theta(self) -> sympy.Expr:
        """W∞/ε exactly."""
        return sympy.Integer(self.winf) / self.eps

    def ball(self, prec: int = 64) -> arb:
        """Certified enclosure of θ."""
        with workprec(prec):
            return sympy_to_arb(self.theta)

    def verify(self) -> bool:
        """Recompute W∞ at a higher precision."""
        try:
            return class_pair_winf(self.a, self.b, prec=512) == self.winf
        except REJECTED_ERRORS:
            return False


def class_pair_conservative(a: Any, b: Any, eps: Any) -> ClassPairConservative:
    """W∞/ε for class A's total against class B's.

    >>> class_pair_conservative((3, "1/2"), (5, "1/2"), 2).theta
    1
    """
    ga, gb = _groups(a, "a"), _groups(b, "b")
    return ClassPairConservative(ga, gb, class_pair_winf(ga, gb), parse_level(eps=eps).eps)
