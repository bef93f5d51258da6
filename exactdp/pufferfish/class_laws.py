"""Whole classes of thousands of users: exact class-total laws and the class-vs-absent scale.

- :func:`class_law`: the exact law of a class total of independent Bernoulli(p_i) members
  as one integer polynomial Σ_j c_j x^j over a common denominator (python-flint
  ``fmpz_poly`` products: Binomial(4228, ·) in well under a second, where a ``Fraction``
  convolution takes minutes); :meth:`ClassLaw.to_distribution` gives the
  :class:`DiscreteDistribution` when Fractions are affordable.
- :func:`class_vs_absent_scale`: the least Laplace scale for "the whole class is present"
  against "absent", for ANY class size. For a non-negative total X the loss at θ is exactly
  ln E[e^{X/θ}] (``proofs/pufferfish_class_mgf.py``), so for Bernoulli members
  L(θ) = Σ_i ln(1 − p_i + p_i e^{1/θ}) and, for Binomial(n, p),
  θ* = 1/ln(1 + (e^{ε/n} − 1)/p) — a closed form, certified like the others.
- :func:`class_law_loss`: the loss at θ by the maximum over all n + 1 support points of the
  exact law (running sums of balls), an independent check of the closed form.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy
from flint import arb, fmpz, fmpz_poly

from exactdp.arithmetic.ball import MAX_PREC, arb_to_fraction_interval, sympy_to_arb, workprec
from exactdp.arithmetic.interval import Enclosure
from exactdp.arithmetic.rationals import to_fmpq, to_sympy
from exactdp.arithmetic.rounding import float_up
from exactdp.arithmetic.validate import read_probability, read_tol
from exactdp.errors import (
    REJECTED_ERRORS,
    InvalidArgument,
    InvalidDistribution,
    PrecisionLimitReached,
)
from exactdp.kinds import Sign, Verdict, proved_by
from exactdp.pufferfish.bernoulli_forms import exact_sign
from exactdp.pufferfish.distributions import DiscreteDistribution
from exactdp.pufferfish.loss import kernel_sums
from exactdp.spaces.levels import parse_level

__all__ = [
    "ClassLaw",
    "class_law",
    "class_log_mgf",
    "class_law_loss",
    "ClassScale",
    "class_vs_absent_scale",
]


def _groups(members: Any) -> tuple[tuple[Fraction, int], ...]:
    """(p, count) groups from a list of p_i or a pair (n, p) for Binomial(n, p)."""
    if isinstance(members, tuple) and len(members) == 2 and isinstance(members[0], int):
        n, p = members
        if isinstance(n, bool) or n < 1:
            raise InvalidArgument(f"Got n={n!r}; a class needs an integer size n ≥ 1.")
        return ((read_probability(p, "p", InvalidDistribution), n),)
    ps = [read_probability(p, f"ps[{i}]", InvalidDistribution) for i, p in enumerate(members)]
    if not ps:
        raise InvalidArgument("Got an empty class; a class needs at least one user.")
    return tuple(sorted(Counter(ps).items()))


@dataclass(frozen=True)
class ClassLaw:
    """P(total = j) = c_j / denominator for j = 0…n, with Σ_j c_j x^j = ``numerator``.

    >>> law = class_law(["1/2", "1/3"])
    >>> law.numerator, law.denominator, law.pmf(1)
    (x^2 + 3*x + 2, 6, Fraction(1, 2))
    >>> law.verify()
    True
    """

    numerator: fmpz_poly
    denominator: int
    groups: tuple[tuple[Fraction, int], ...]

    @property
    def n(self) -> int:
        """Largest value of the total (the class size for Bernoulli members)."""
        return int(self.numerator.degree())

    def pmf(self, j: int) -> Fraction:
        """P(total = j), exactly."""
        return Fraction(int(self.numerator[j]), self.denominator)

    def masses(self) -> list[arb]:
        """Balls for the n + 1 probabilities (call inside ``workprec``)."""
        den = arb(fmpz(self.denominator))
        return [arb(c) / den for c in self.numerator.coeffs()]

    def to_distribution(self) -> DiscreteDistribution:
        """The exact :class:`DiscreteDistribution` (Fractions: slow beyond a few thousand)."""
        return DiscreteDistribution.from_pairs(
            (j, Fraction(int(c), self.denominator)) for j, c in enumerate(self.numerator.coeffs()))

    def verify(self) -> bool:
        """Re-multiply the factors (b − a + a x)^count/b^count, compare; masses sum to 1."""
        try:
            return class_law(self.groups) == self and int(self.numerator(1)) == self.denominator
        except REJECTED_ERRORS:
            return False


def class_law(members: Any) -> ClassLaw:
    """Exact law of the class total of independent Bernoulli members (flint products).

    ``members`` is a list of p_i, a pair ``(n, p)`` for Binomial(n, p), or the ``groups``
    of a :class:`ClassLaw`. Equal p's are raised to a power; the groups are multiplied by a
    product tree.

    >>> class_law((3, "1/2")).to_distribution().probs
    (Fraction(1, 8), Fraction(3, 8), Fraction(3, 8), Fraction(1, 8))
    """
    if isinstance(members, tuple) and members and all(
            isinstance(g, tuple) and len(g) == 2 and isinstance(g[0], Fraction) for g in members):
        groups = tuple(sorted((read_probability(p, "p", InvalidDistribution), int(c))
                              for p, c in members))
    else:
        groups = _groups(members)
    polys, den = [], 1
    for p, count in groups:
        a, b = p.numerator, p.denominator
        polys.append(fmpz_poly([b - a, a]) ** count)
        den *= b**count
    while len(polys) > 1:  # product tree: balanced sizes keep flint's fast multiplication
        polys = [polys[i] * polys[i + 1] if i + 1 < len(polys) else polys[i]
                 for i in range(0, len(polys), 2)]
    return ClassLaw(numerator=polys[0], denominator=den, groups=groups)


@proved_by("pufferfish_class_mgf")
def class_log_mgf(groups: Iterable[tuple[Fraction, int]], t: arb) -> arb:
    """Ball for ln E[e^{tX}] = Σ count·ln(1 − p + p e^t) (call inside ``workprec``); at
    t = 1/θ it is the class-vs-absent loss (``proofs/pufferfish_class_mgf.py``)."""
    et = t.exp()
    total = arb(0)
    for p, count in groups:
        pb = arb(to_fmpq(p))
        total += count * (1 - pb + pb * et).log()
    return total


def class_law_loss(law: ClassLaw, theta: Fraction, prec: int = 128) -> arb:
    """Ball for max_j |ln g_P(j) − ln g_Q(j)| over the n + 1 support points (Q = absent),
    by running sums over the exact law — no closed form used."""
    with workprec(prec):
        points = [Fraction(j) for j in range(law.n + 1)]
        gp = kernel_sums(points, law.masses(), theta)
        inv = arb(to_fmpq(1 / theta))
        top = arb(0)
        for j, g in enumerate(gp):
            top = top.max(abs(g.log() + j * inv))  # ln g_Q(j) = −j/θ
        return top


@dataclass(frozen=True)
class ClassScale:
    """The least θ for a whole class present against absent, certified.

    Attributes
    ----------
    groups : tuple of (p, count)
        The class: ``count`` members with Bernoulli(p).
    eps : sympy.Expr
    lo, hi : Fraction
        lo < θ* ≤ hi; the loss ln E[e^{X/θ}] certainly exceeds ε at lo (``verdict_lo`` FAILS)
        and is certainly below it at hi (``verdict_hi`` HOLDS).
    theta_expr : sympy.Expr or None
        1/ln(1 + (e^{ε/n} − 1)/p) for a binomial class, else None.
    prec : int
    """

    groups: tuple[tuple[Fraction, int], ...]
    eps: sympy.Expr
    lo: Fraction
    hi: Fraction
    theta_expr: sympy.Expr | None
    prec: int
    tol: Fraction
    verdict_lo: Verdict = Verdict.FAILS
    verdict_hi: Verdict = Verdict.HOLDS

    @property
    def n(self) -> int:
        """Class size."""
        return sum(c for _, c in self.groups)

    @property
    def enclosure(self) -> Enclosure:
        """[lo, hi] ∋ θ*."""
        return Enclosure(self.lo, self.hi)

    def float(self) -> float:
        """θ* as a float (uncertified; display only; ``inf`` beyond the float range)."""
        return float_up((self.lo + self.hi) / 2)

    @property
    def zero_noise(self) -> bool:
        """Always False: a class with some p > 0 needs noise (θ* > 0)."""
        return False

    @property
    def method(self) -> str:
        """``"closed_form"`` (one p) or ``"certified_bisection"`` (several p)."""
        return "closed_form" if self.theta_expr is not None else "certified_bisection"

    def to_json(self) -> dict[str, object]:
        """Exact JSON form (rationals as "p/q" strings)."""
        return {
            "groups": [[str(p), c] for p, c in self.groups],
            "eps": str(self.eps),
            "theta_lo": str(self.lo),
            "theta_hi": str(self.hi),
            "theta_expr": None if self.theta_expr is None else str(self.theta_expr),
            "method": self.method,
            "zero_noise": False,
            "prec": self.prec,
            "tol": str(self.tol),
        }

    def verify(self) -> bool:
        """Re-decide the two verdicts with balls; for a closed form, prove it solves
        n·ln(1 − p + p e^{1/θ}) = ε (symbolic zero) and lies in (lo, hi]."""
        try:
            level = parse_level(eps=self.eps)
            if not (0 < self.lo < self.hi and self.hi - self.lo <= self.tol * self.hi):
                return False
            if (_decide(self.groups, self.lo, level.eps) is not Verdict.FAILS
                    or _decide(self.groups, self.hi, level.eps) is not Verdict.HOLDS):
                return False
            if self.theta_expr is None:
                return len(self.groups) != 1
            (p, n), = self.groups
            solves = n * sympy.log(1 - to_sympy(p) + to_sympy(p) * sympy.exp(1 / self.theta_expr))
            if sympy.simplify(sympy.expand_log(solves - level.eps, force=True)) != 0:
                return False
            return (exact_sign(self.theta_expr - to_sympy(self.lo)) is Sign.POSITIVE
                    and exact_sign(to_sympy(self.hi) - self.theta_expr) is not Sign.NEGATIVE)
        except REJECTED_ERRORS:
            return False


def _decide(groups: tuple[tuple[Fraction, int], ...], theta: Fraction, eps: sympy.Expr,
            max_prec: int = MAX_PREC) -> Verdict:
    """Certified sign of ln E[e^{X/θ}] − ε."""
    prec = 64
    while True:
        with workprec(prec):
            diff = class_log_mgf(groups, arb(to_fmpq(1 / theta))) - sympy_to_arb(eps)
            if diff > 0:
                return Verdict.FAILS
            if diff < 0:
                return Verdict.HOLDS
        if prec >= max_prec:
            raise PrecisionLimitReached(
                f"could not decide the class loss against ε at θ = {theta} within {max_prec} bits")
        prec *= 2


@proved_by("pufferfish_class_mgf")
def class_vs_absent_scale(members: Any, eps: Any, *, tol: Any = Fraction(1, 10**12)) -> ClassScale:
    """Least θ for a whole class of Bernoulli members present against absent, any size.

    ``members``: a list of p_i, or ``(n, p)`` for n members with the same p. The loss is
    ln E[e^{X/θ}] (``proofs/pufferfish_class_mgf.py``); for one p the closed form
    θ* = 1/ln(1 + (e^{ε/n} − 1)/p), else certified bisection on the monotone loss.

    >>> r = class_vs_absent_scale((38903, "10207/38903"), 1)
    >>> r.theta_expr
    1/log(-28696/10207 + 38903*exp(1/38903)/10207)
    >>> round(r.float(), 3), r.verify()
    (10207.369, True)
    """
    groups = _groups(members)
    level = parse_level(eps=eps)
    tolf = read_tol(tol, below_one=True)
    if all(p == 0 for p, _ in groups):
        raise InvalidArgument("Got a class whose members all have p = 0: present and absent "
                              "are the same law; no noise is needed (θ* = 0).")
    expr = None
    if len(groups) == 1:
        (p, n), = groups
        expr = 1 / sympy.log(1 + (sympy.exp(level.eps / n) - 1) / to_sympy(p))
        with workprec(256):
            ball = sympy_to_arb(expr)
        guess_lo, guess_hi = arb_to_fraction_interval(ball)
    else:
        n = sum(c for _, c in groups)
        with workprec(64):
            upper = arb_to_fraction_interval(arb(n) / level.eps_ball())[1]
        guess_lo, guess_hi = upper / 2**60, upper * 2
        while guess_hi - guess_lo > tolf * guess_hi / 8:
            mid = (guess_lo + guess_hi) / 2
            mid = mid.limit_denominator(max(2, int(16 / (guess_hi - guess_lo))))
            if not guess_lo < mid < guess_hi:
                mid = (guess_lo + guess_hi) / 2
            if _decide(groups, mid, level.eps) is Verdict.HOLDS:
                guess_hi = mid
            else:
                guess_lo = mid
    w = tolf / 4
    lo = (guess_lo * (1 - w)).limit_denominator(int(4 / (w * guess_lo)) + 1)
    hi = (guess_hi * (1 + w)).limit_denominator(int(4 / (w * guess_hi)) + 1)
    lo, hi = min(lo, guess_lo * (1 - w / 2)), max(hi, guess_hi * (1 + w / 2))
    if _decide(groups, lo, level.eps) is not Verdict.FAILS or _decide(
            groups, hi, level.eps) is not Verdict.HOLDS:
        raise PrecisionLimitReached(f"could not certify the class scale bracket [{lo}, {hi}]")
    return ClassScale(groups=groups, eps=level.eps, lo=lo, hi=hi, theta_expr=expr, prec=256,
                      tol=tolf)
