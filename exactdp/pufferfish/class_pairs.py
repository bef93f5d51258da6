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
operations. A float search (numpy/scipy filters, UNCERTIFIED) guesses θ*; two rational
scales lo < θ* ≤ hi are then certified by ball verdicts (FAILS at lo, HOLDS at hi).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import sympy
from flint import arb
from scipy.signal import lfilter

from exactdp.arithmetic.ball import MAX_PREC, arb_from_fraction, sympy_to_arb, workprec
from exactdp.arithmetic.interval import Enclosure
from exactdp.arithmetic.validate import read_probability, read_tol
from exactdp.errors import (
    REJECTED_ERRORS,
    InvalidArgument,
    InvalidDistribution,
    PrecisionLimitReached,
)
from exactdp.kinds import Verdict, proved_by
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
    if isinstance(members, tuple) and len(members) == 2 and isinstance(members[0], int):
        n, p = members
        if isinstance(n, bool) or n < 1:
            raise InvalidArgument(f"Got {name} size n={n!r}; a class needs an integer n ≥ 1.")
        return ((read_probability(p, f"{name} p", InvalidDistribution), n),)
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


def _float_masses(groups: _Groups) -> np.ndarray:
    """Float64 masses (UNCERTIFIED, for the search only; tails may underflow to 0)."""
    if len(groups) != 1:
        law = class_law(groups)
        den = float(law.denominator) if law.denominator.bit_length() < 1000 else math.inf
        if den == math.inf:
            with workprec(64):
                return np.array([float(x.mid()) for x in law.masses()])
        return np.array([float(int(c)) / den for c in law.numerator.coeffs()])
    (p, n), = groups
    i = np.arange(n + 1, dtype=float)
    if p in (0, 1):
        return (i == (0 if p == 0 else n)).astype(float)
    lg = np.array([math.lgamma(k + 1) for k in range(n + 1)])
    logm = lg[n] - lg - lg[::-1] + i * math.log(p) + (n - i) * math.log1p(-float(p))
    return np.exp(logm)


def _float_loss(ma: np.ndarray, mb: np.ndarray, theta: float) -> float:
    r = math.exp(-1 / theta)

    def g(m: np.ndarray) -> np.ndarray:
        left = lfilter([1.0], [1.0, -r], m)
        right = lfilter([1.0], [1.0, -r], m[::-1])[::-1]
        return left + right - m

    ga, gb = g(ma), g(mb)
    if ga.min() <= 0 or gb.min() <= 0:
        return math.inf
    return float(np.max(np.abs(np.log(ga) - np.log(gb))))


def _pad(m: list[arb], size: int) -> list[arb]:
    return m + [arb(0)] * (size - len(m))


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
    th = Fraction(theta) if not isinstance(theta, Fraction) else theta
    if th <= 0:
        raise InvalidArgument(f"Got theta={theta!r}; the Laplace scale must be > 0.")
    with workprec(prec):
        ma, mb = class_masses(ga), class_masses(gb)
        size = max(len(ma), len(mb))
        sums = [_grid_sums(_pad(ma, size), th), _grid_sums(_pad(mb, size), th)]
        top, where = arb(0), 0
        for j, (x, y) in enumerate(zip(*sums)):
            v = abs(x.log() - y.log())
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


@dataclass(frozen=True)
class ClassPairScale:
    """The least θ for class A replaced by class B, certified: FAILS at lo, HOLDS at hi.

    Attributes
    ----------
    a, b : tuple of (p, count)
        The two classes.
    eps : sympy.Expr
    lo, hi : Fraction
        lo < θ* ≤ hi.
    worst_j_lo : int
        A total j where the loss at lo exceeds ε (the witness output y = j).
    guess_float : float
        The uncertified float root the bracket was built around.
    """

    a: _Groups
    b: _Groups
    eps: sympy.Expr
    lo: Fraction
    hi: Fraction
    worst_j_lo: int
    guess_float: float

    @property
    def enclosure(self) -> Enclosure:
        """[lo, hi] ∋ θ*."""
        return Enclosure(self.lo, self.hi)

    def float(self) -> float:
        """θ* as a float (uncertified; display only)."""
        return float((self.lo + self.hi) / 2)

    @property
    def zero_noise(self) -> bool:
        """Always False (the bracket has lo > 0)."""
        return False

    @property
    def method(self) -> str:
        """How θ* was bracketed."""
        return "certified_bracket"

    def to_json(self) -> dict[str, object]:
        """Exact JSON form."""
        return {"a": [[str(p), c] for p, c in self.a], "b": [[str(p), c] for p, c in self.b],
                "eps": str(self.eps), "theta_lo": str(self.lo), "theta_hi": str(self.hi),
                "worst_j_lo": self.worst_j_lo, "method": self.method, "zero_noise": False}

    def verify(self) -> bool:
        """Recompute both verdicts with balls (the masses rebuilt from the groups)."""
        try:
            level = parse_level(eps=self.eps)
            return (0 < self.lo < self.hi
                    and _decide(self.a, self.b, self.lo, level.eps) is Verdict.FAILS
                    and _decide(self.a, self.b, self.hi, level.eps) is Verdict.HOLDS)
        except REJECTED_ERRORS:
            return False


@proved_by("pufferfish_class_pairs")
def class_pair_scale(a: Any, b: Any, eps: Any, *, tol: Any = Fraction(1, 10**9)) -> ClassPairScale:
    """Least Laplace θ for "class A present" against "class B present in its place".

    ``a``, ``b``: ``(n, p)`` for a binomial class or a list of p_i. Float search, then a
    certified bracket of relative width ≤ ``tol`` (``proofs/pufferfish_supremum.py`` (3)–(4),
    ``proofs/pufferfish_class_pairs.py``).

    >>> r = class_pair_scale((30, "1/3"), (40, "1/4"), 1)
    >>> r.lo < r.hi, r.verify()
    (True, True)
    """
    ga, gb = _groups(a, "a"), _groups(b, "b")
    level = parse_level(eps=eps)
    tolf = read_tol(tol, below_one=True)
    if ga == gb:
        raise InvalidArgument("Got the same class twice: P = Q, no noise is needed (θ* = 0).")
    fa, fb = _float_masses(ga), _float_masses(gb)
    size = max(len(fa), len(fb))
    fa, fb = np.pad(fa, (0, size - len(fa))), np.pad(fb, (0, size - len(fb)))
    e = float(sympy.N(level.eps, 20))
    hi_f, lo_f = 2.0 * size / e, 2.0 * size / e / 2**50
    for _ in range(200):
        mid = math.sqrt(lo_f * hi_f)
        if _float_loss(fa, fb, mid) <= e:
            hi_f = mid
        else:
            lo_f = mid
        if hi_f / lo_f < 1 + tolf / 64:
            break
    guess = hi_f
    w = tolf / 4
    for _ in range(12):
        lo = Fraction(guess * (1 - float(w))).limit_denominator(int(4 / (float(w) * guess)) + 1)
        hi = Fraction(guess * (1 + float(w))).limit_denominator(int(4 / (float(w) * guess)) + 1)
        if lo < hi and _decide(ga, gb, lo, level.eps) is Verdict.FAILS and _decide(
                ga, gb, hi, level.eps) is Verdict.HOLDS:
            _, j = class_pair_loss(ga, gb, lo)
            return ClassPairScale(ga, gb, level.eps, lo, hi, j, guess)
        w *= 8
        if w >= Fraction(1, 2):
            break
    raise PrecisionLimitReached(f"could not certify a bracket around the float root {guess}")


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
