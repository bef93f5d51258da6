"""Discrete Laplace (two-sided geometric) noise for integer-valued sums: exact rational ratios.

The release X + Z, P(Z = z) ∝ α^{|z|} (0 < α < 1), of an integer sum loses, for a secret
pair (P, Q) on the integers and every population, exactly max over the support points s of
|ln h_P(s) − ln h_Q(s)|, h_P(s) = Σ_d P(d) α^{|s − d|} — a RATIONAL number at rational α —
and equals the Laplace loss at θ = −1/ln α (``proofs/pufferfish_discrete_laplace.py``). So
the least private parameter is α* = e^{−1/θ*} (for a Bernoulli pair α* = 1/u*, algebraic over
Q(e^ε)), certified by exact verdicts at two rationals α_lo < α* ≤ α_hi.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy
from flint import arb

from exactdp.arithmetic.ball import MAX_PREC, arb_to_fraction_interval, sympy_to_arb, workprec
from exactdp.arithmetic.interval import Enclosure
from exactdp.arithmetic.rationals import to_fmpq, to_sympy
from exactdp.errors import REJECTED_ERRORS, InvalidDistribution, InvalidScale, PrecisionLimitReached
from exactdp.kinds import Sign, Verdict, proved_by
from exactdp.pufferfish.bernoulli_forms import bernoulli_theta_expr, closed_form_solves, exact_sign
from exactdp.pufferfish.calibration import exact_scale, is_zero_noise
from exactdp.pufferfish.distributions import DiscreteDistribution
from exactdp.pufferfish.loss import union_points
from exactdp.pufferfish.secrets import as_pair
from exactdp.spaces.levels import PrivacyLevel, parse_level

__all__ = ["DiscreteLaplaceScale", "discrete_laplace_ratio", "discrete_laplace_scale", "two_point_alpha"]


def integer_support(P: DiscreteDistribution, name: str) -> None:
    for s in P.support:
        if s.denominator != 1:
            raise InvalidDistribution(
                f"Got {name} support point {s}; discrete Laplace noise needs integer values "
                f"(scale the data to integers first, or use Laplace noise)."
            )


def read_alpha(alpha: Any) -> Fraction:
    a = Fraction(alpha) if isinstance(alpha, (int, Fraction, str)) else None
    if a is None or not 0 < a < 1:
        raise InvalidScale(
            f"Got alpha={alpha!r}; the discrete Laplace parameter α = e^(-1/θ) must be a "
            f"rational in (0, 1), e.g. Fraction(1, 2)."
        )
    return a


@proved_by("pufferfish_discrete_laplace")
def discrete_laplace_ratio(
    P: DiscreteDistribution, Q: DiscreteDistribution, alpha: Any
) -> tuple[Fraction, Fraction]:
    """(R, s): the exact largest likelihood ratio R = max_s max(h_P/h_Q, h_Q/h_P) over the
    support points, attained at s; the loss is ln R (``proofs/pufferfish_discrete_laplace.py``).

    >>> from exactdp.pufferfish.distributions import point_mass
    >>> discrete_laplace_ratio(point_mass(1), point_mass(0), Fraction(1, 3))
    (Fraction(3, 1), Fraction(0, 1))
    """
    integer_support(P, "P")
    integer_support(Q, "Q")
    a = read_alpha(alpha)
    pp, qq = P.as_dict(), Q.as_dict()
    best, where = Fraction(0), Fraction(0)
    for s in union_points(P, Q):
        hp = sum((w * a ** int(abs(s - d)) for d, w in pp.items()), Fraction(0))
        hq = sum((w * a ** int(abs(s - d)) for d, w in qq.items()), Fraction(0))
        r = max(hp / hq, hq / hp)
        if r > best:
            best, where = r, s
    return best, where


def _decide(ratio: Fraction, level: PrivacyLevel) -> Verdict:
    """Exact when e^ε is rational (t = e^-ε: R ≤ e^ε iff R·t ≤ 1); else a certified sign
    of ln R − ε."""
    if level.t is not None:
        return Verdict.HOLDS if ratio * level.t <= 1 else Verdict.FAILS
    prec = 64
    while prec <= MAX_PREC:
        with workprec(prec):
            diff = arb(to_fmpq(ratio)).log() - sympy_to_arb(level.eps)
            if diff > 0:
                return Verdict.FAILS
            if diff < 0:
                return Verdict.HOLDS
        prec *= 2
    raise PrecisionLimitReached(f"ln {ratio} − ε undecided within {MAX_PREC} bits")


@dataclass(frozen=True)
class DiscreteLaplaceScale:
    """Least private discrete Laplace parameter α*, certified: α_lo < α* ≤ α_hi.

    ``ratio_lo`` > e^ε at α_lo (FAILS) and ``ratio_hi`` ≤ e^ε at α_hi (HOLDS), both exact
    rationals; ``alpha_expr`` = e^{−1/θ*} when θ* has a closed form.
    """

    P: DiscreteDistribution
    Q: DiscreteDistribution
    eps: sympy.Expr
    alpha_lo: Fraction
    alpha_hi: Fraction
    ratio_lo: Fraction
    ratio_hi: Fraction
    alpha_expr: sympy.Expr | None
    zero_noise: bool = False

    @property
    def enclosure(self) -> Enclosure:
        """[α_lo, α_hi] ∋ α*."""
        return Enclosure(self.alpha_lo, self.alpha_hi)

    def verify(self) -> bool:
        """Recompute both exact ratios and both verdicts (no Laplace argument used); a stored
        ``alpha_expr`` must lie in (α_lo, α_hi] and be *proved* to be e^{−1/θ*} (θ = −1/ln α
        solves the defining equation exactly, :func:`closed_form_solves`)."""
        try:
            return self._verify()
        except REJECTED_ERRORS:
            return False

    def _verify(self) -> bool:
        level = parse_level(eps=self.eps)
        if self.zero_noise is True:
            return (self.alpha_lo == self.alpha_hi == 0 and self.ratio_lo == self.ratio_hi == 1
                    and self.alpha_expr == 0 and isinstance(self.alpha_expr, sympy.Integer)
                    and (self.P == self.Q or is_zero_noise(self.P, self.Q, level)))
        if self.zero_noise is not False:
            return False
        if not (isinstance(self.alpha_lo, Fraction) and isinstance(self.alpha_hi, Fraction)
                and 0 < self.alpha_lo < self.alpha_hi < 1):
            return False
        r_lo, _ = discrete_laplace_ratio(self.P, self.Q, self.alpha_lo)
        r_hi, _ = discrete_laplace_ratio(self.P, self.Q, self.alpha_hi)
        if not ((r_lo, r_hi) == (self.ratio_lo, self.ratio_hi)
                and _decide(r_lo, level) is Verdict.FAILS
                and _decide(r_hi, level) is Verdict.HOLDS):
            return False
        if self.alpha_expr is None:  # a two-point pair always has its closed form
            return len(union_points(self.P, self.Q)) != 2
        return _expr_is_alpha_star(self, level)

@proved_by("pufferfish_discrete_laplace")
def discrete_laplace_scale(pair: Any, eps: Any, *, tol: Any = Fraction(1, 10**9)) -> DiscreteLaplaceScale:
    """The least discrete Laplace parameter α* = e^{−1/θ*} for an integer-valued secret pair.

    α* is bracketed by two rationals whose exact ratios decide the verdicts
    (``proofs/pufferfish_discrete_laplace.py``); ``alpha_expr`` is e^{−1/θ*} when θ* has a
    closed form.

    >>> from exactdp.pufferfish.secrets import DistributionVsAbsent
    >>> from exactdp.pufferfish.distributions import bernoulli
    >>> r = discrete_laplace_scale(DistributionVsAbsent(bernoulli("1/2")), "ln(2)")
    >>> r.alpha_expr, r.alpha_lo < sympy.Rational(1, 3) <= r.alpha_hi, r.verify()
    (1/3, True, True)
    """
    pr = as_pair(pair)
    integer_support(pr.P, "P")
    integer_support(pr.Q, "Q")
    level = parse_level(eps=eps)
    th = exact_scale(pr, level, tol=tol)
    if th.zero_noise:
        return DiscreteLaplaceScale(pr.P, pr.Q, level.eps, Fraction(0), Fraction(0),
                                    Fraction(1), Fraction(1), sympy.Integer(0), zero_noise=True)
    expr = None if th.theta_expr is None else sympy.simplify(sympy.exp(-1 / th.theta_expr))
    # α_lo ≤ e^{−1/θ_lo} (fails since the loss decreases in α), α_hi ≥ e^{−1/θ_hi} (holds)
    a_lo, a_hi = _below(_alpha_interval(th.lo)[0]), _above(_alpha_interval(th.hi)[1])
    r_lo, _ = discrete_laplace_ratio(pr.P, pr.Q, a_lo)
    r_hi, _ = discrete_laplace_ratio(pr.P, pr.Q, a_hi)
    if _decide(r_lo, level) is not Verdict.FAILS or _decide(r_hi, level) is not Verdict.HOLDS:
        raise PrecisionLimitReached(f"could not certify the α bracket [{a_lo}, {a_hi}]")
    return DiscreteLaplaceScale(pr.P, pr.Q, level.eps, a_lo, a_hi, r_lo, r_hi, expr)


def two_point_alpha(P: DiscreteDistribution, Q: DiscreteDistribution, eps: Any) -> sympy.Expr:
    """α* = e^{−1/θ*} of a pair on two integers {a, a + h} needing noise: θ* = h·θ_B, θ_B the
    Bernoulli θ* of the masses at a + h (``proofs/pufferfish_bernoulli.py``); a candidate
    only: :meth:`DiscreteLaplaceScale.verify` proves it (nothing here relies on it).

    >>> from exactdp.pufferfish.distributions import bernoulli
    >>> two_point_alpha(bernoulli("1/2"), bernoulli("0"), sympy.log(2))
    1/3
    """
    a, b = union_points(P, Q)
    theta, _ = bernoulli_theta_expr(P.as_dict().get(b, Fraction(0)), Q.as_dict().get(b, Fraction(0)),
                                    parse_level(eps=eps).eps)
    return sympy.simplify(sympy.exp(-1 / (to_sympy(b - a) * theta)))


def _expr_is_alpha_star(r: DiscreteLaplaceScale, level: PrivacyLevel) -> bool:
    """``r.alpha_expr`` is a real constant in (α_lo, α_hi] and −1/ln of it solves θ*'s equation."""
    expr = r.alpha_expr
    if not isinstance(expr, sympy.Expr) or expr.free_symbols:
        return False
    above = exact_sign(expr - to_sympy(r.alpha_lo), max_prec=MAX_PREC)
    below = exact_sign(to_sympy(r.alpha_hi) - expr, max_prec=MAX_PREC)
    if above is not Sign.POSITIVE or below is Sign.NEGATIVE:
        return False
    return closed_form_solves(r.P, r.Q, level, -1 / sympy.log(expr))


def _alpha_interval(theta: Fraction) -> tuple[Fraction, Fraction]:
    """Rationals lo ≤ e^{−1/θ} ≤ hi inside (0, 1), tight RELATIVE to α and to 1 − α (the
    precision rises until the ball's radius is below 2⁻⁶⁴·min(α, 1 − α): α* is ≈ e^{−ε} at
    large ε and ≈ 1 at tiny ε, where fixed decimals would round it to 0 or 1)."""
    prec = 128
    while prec <= MAX_PREC:
        with workprec(prec):
            lo, hi = arb_to_fraction_interval((-(1 / arb(to_fmpq(theta)))).exp())
        if 0 < lo and hi < 1 and (hi - lo) * 2**64 <= min(lo, 1 - hi):
            return lo, hi
        prec *= 2
    raise PrecisionLimitReached(
        f"could not separate α = e^(-1/θ) from 0 and 1 at θ = {theta} within {MAX_PREC} bits")


def _grid(x: Fraction) -> int:
    """Decimals keeping 20 significant digits of both x and 1 − x (0 < x < 1)."""
    m = min(x, 1 - x)
    return 20 + max(0, m.denominator.bit_length() - m.numerator.bit_length()) * 31 // 100 + 1


def _below(x: Fraction) -> Fraction:
    """A short decimal in (0, x], relative error ≤ 10⁻²⁰ (0 < x < 1)."""
    n = _grid(x)
    return Fraction(math.floor(x * 10**n), 10**n)


def _above(x: Fraction) -> Fraction:
    """A short decimal in [x, 1), relative error of 1 − x ≤ 10⁻²⁰ (0 < x < 1)."""
    n = _grid(x)
    return Fraction(math.ceil(x * 10**n), 10**n)
