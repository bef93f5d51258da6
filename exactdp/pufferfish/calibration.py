"""Calibration of the Laplace scale θ for a secret pair at privacy level ε.

- :func:`conservative_scale`: the Wasserstein (Kantorovich plan) calibration W_∞(P, Q)/ε,
  sufficient for every population;
- :func:`exact_scale`: the least θ that is ε-Pufferfish private for every population of
  other users, i.e. the least θ with sup_x |ln g_P(x) − ln g_Q(x)| ≤ ε
  (``proofs/pufferfish_supremum.py``: sufficiency by the mediant inequality, necessity
  with a point-mass rest, monotonicity in θ since Lap(θ₂) = Lap(θ₁) + independent noise).

**Repeated releases**: θ* is for ONE release; k releases at θ* lose L(θ*/k) ≫ k·ε. Pass
``releases=k`` for the least common θ keeping the total loss ≤ ε (= k·θ*(ε)).

Both results are frozen dataclasses with ``verify()``. Verdicts are
:class:`exactdp.kinds.Verdict` (``HOLDS`` = private, ``FAILS`` = not private).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

import sympy
from flint import arb

from exactdp.arithmetic.ball import (
    MAX_PREC,
    arb_to_fraction_interval,
    sympy_to_arb,
    workprec,
)
from exactdp.arithmetic.expressions import parse_closed_form
from exactdp.arithmetic.interval import Enclosure
from exactdp.arithmetic.rationals import to_fmpq, to_sympy
from exactdp.arithmetic.validate import read_tol
from exactdp.errors import (
    REJECTED_ERRORS,
    CertificateInvalid,
    InvalidArgument,
    PrecisionLimitReached,
)
from exactdp.kinds import Sign, Verdict, proved_by
from exactdp.pufferfish.bernoulli_forms import bernoulli_theta_expr, closed_form_solves, exact_sign
from exactdp.pufferfish.distributions import DiscreteDistribution
from exactdp.pufferfish.loss import decide_loss, is_worst_point, loss_float, union_points
from exactdp.pufferfish.releases import SINGLE_RELEASE_WARNING, read_releases
from exactdp.pufferfish.secrets import as_pair
from exactdp.pufferfish.transport import TransportPlan, transport_plan
from exactdp.spaces.levels import PrivacyLevel, parse_level

__all__ = [
    "ConservativeScale",
    "ExactScale",
    "conservative_scale",
    "exact_scale",
    "least_scale",
    "is_zero_noise",
    "zero_noise_scale",
    "root_finding_scale",
    "DEFAULT_TOL",
]

DEFAULT_TOL = Fraction(1, 10**12)


def _level(eps: Any) -> PrivacyLevel:
    return eps if isinstance(eps, PrivacyLevel) else parse_level(eps=eps)


@dataclass(frozen=True)
class ConservativeScale:
    """θ = W_∞(P, Q)/ε, with the optimal (monotone) transport plan behind it.

    Attributes
    ----------
    theta : sympy.Expr
        W_∞/ε exactly.
    winf, w1 : Fraction
        W_∞(P, Q) and W_1(P, Q).
    plan : TransportPlan
        The monotone coupling (moves of length ≤ W_∞).
    eps : sympy.Expr
        The level.

    Examples
    --------
    >>> from exactdp.pufferfish.secrets import ValuePair
    >>> c = conservative_scale(ValuePair(3, 1), "1/2")
    >>> c.theta, c.verify()
    (4, True)
    """

    theta: sympy.Expr
    winf: Fraction
    w1: Fraction
    plan: TransportPlan
    eps: sympy.Expr
    releases: int = 1

    def verify(self) -> bool:
        """Re-check the plan (marginals, monotone hence optimal, both costs), that the stored
        W_∞ and W_1 are the plan's, and that θ = k·W_∞/ε exactly (k = ``releases``)."""
        try:
            if not (isinstance(self.plan, TransportPlan) and self.plan.verify()
                    and self.plan.winf == self.winf and self.plan.w1 == self.w1):
                return False
            eps = parse_level(eps=self.eps).eps
            winf = to_sympy(self.winf)
            expected = read_releases(self.releases) * winf / eps
            if self.theta == expected:
                return True
            return exact_sign(self.theta - expected, max_prec=MAX_PREC) is Sign.ZERO
        except REJECTED_ERRORS:
            return False

    def ball(self, prec: int = 64) -> arb:
        """Certified enclosure of θ."""
        with workprec(prec):
            return sympy_to_arb(self.theta)


@proved_by("pufferfish_supremum")
def conservative_scale(pair: Any, eps: Any, *, releases: Any = 1) -> ConservativeScale:
    """The Wasserstein calibration θ = W_∞(P, Q)/ε (|a − b|/ε for S_{a,b}, |a|/ε for S_{a,⊥}).

    With ``releases=k``, θ = k·W_∞/ε: the common scale of k releases whose total loss is
    ≤ ε (the Wasserstein bound composes linearly, ``proofs/pufferfish_releases.py`` (6)).

    Sufficient for every population (a move of length ≤ W_∞ changes the Laplace density
    by a factor ≤ e^{W_∞/θ}; ``proofs/pufferfish_supremum.py`` step 5); generally larger
    than :func:`exact_scale`.
    """
    pr = as_pair(pair)
    level = _level(eps)
    k = read_releases(releases)
    plan = transport_plan(pr.P, pr.Q)
    winf = to_sympy(plan.winf)
    return ConservativeScale(
        theta=k * winf / level.eps, winf=plan.winf, w1=plan.w1, plan=plan, eps=level.eps,
        releases=k,
    )


@dataclass(frozen=True)
class ExactScale:
    """The least private Laplace scale θ*, certified.

    Attributes
    ----------
    lo, hi : Fraction
        Rational enclosure lo < θ* ≤ hi (``lo = hi = 0`` when θ* = 0), with certified
        verdicts: privacy fails at lo and holds at hi (``verdict_lo``, ``verdict_hi``).
    theta_expr : sympy.Expr or None
        The exact closed form of θ* when one is known (two-point supports), else None.
    method : str
        ``"closed_form"``, ``"root_finding"`` or ``"zero_noise"``.
    zero_noise : bool
        True when θ* = 0: every θ > 0 is private (no noise needed), because the pmf
        ratio P(d)/Q(d) already lies in [e^-ε, e^ε] everywhere; ``identical`` says
        whether P = Q (nothing to hide).
    prec : int
        Largest working precision used for the verdicts.
    P, Q, eps : the question.
    releases : int
        k: the scale is the least COMMON θ of k releases of the same sum whose TOTAL loss is
        ≤ ε (k·θ* of one release). With k = 1 (the default) the repr warns that repeated
        releases at θ* are not k·ε-private (``proofs/pufferfish_releases.py``).
    """

    P: DiscreteDistribution
    Q: DiscreteDistribution
    eps: sympy.Expr
    lo: Fraction
    hi: Fraction
    theta_expr: sympy.Expr | None
    method: str
    zero_noise: bool
    identical: bool
    prec: int
    tol: Fraction
    verdict_lo: Verdict | None = None
    verdict_hi: Verdict | None = None
    worst_point_lo: Fraction | None = field(default=None)
    releases: int = 1

    def __repr__(self) -> str:
        value = "0 (no noise needed)" if self.zero_noise else f"({self.lo}, {self.hi}]"
        note = f"; {SINGLE_RELEASE_WARNING}" if self.releases == 1 else (
            f"; common θ of {self.releases} releases, total loss ≤ ε")
        return (f"ExactScale(θ* ∈ {value}, ≈ {self.float():.12g}, method={self.method!r}, "
                f"eps={self.eps}, releases={self.releases}{note})")

    @property
    def enclosure(self) -> Enclosure:
        """The certified bracket [lo, hi] ∋ θ* as an :class:`~exactdp.arithmetic.interval.Enclosure`."""
        return Enclosure(self.lo, self.hi)

    def ball(self, prec: int = 64) -> arb:
        """Certified enclosure of θ*: the closed form's ball, else the bracket [lo, hi]."""
        with workprec(prec):
            if self.theta_expr is not None:
                return sympy_to_arb(self.theta_expr)
            lo, hi = arb(to_fmpq(self.lo)), arb(to_fmpq(self.hi))
            return lo.union(hi)

    def float(self) -> float:
        """θ* as a float (uncertified; display only)."""
        return float((self.lo + self.hi) / 2)

    def verify(self) -> bool:
        """Re-check every claim by the independent O(m²) double sums and exact algebra.

        θ* = 0: the pmf ratio is checked exactly (and ``identical`` against P = Q). Otherwise:
        not private (FAILS) at lo and private (HOLDS) at hi (direct sums), 0 < lo < hi,
        hi − lo ≤ tol·hi, the stored verdicts and worst point agree, and a closed form is
        *proved equal* to θ*, not only placed in (lo, hi]: θ* is substituted into the defining
        equation — the binding end ratio equals e^ε exactly (symbolic zero), the other end
        ratio is ≤ e^ε — and the loss is strictly decreasing in θ, so that root is the least
        private scale (proofs/pufferfish_bernoulli.py, steps (a)–(d)).
        """
        try:
            return self._verify()
        except REJECTED_ERRORS:
            return False

    def _verify(self) -> bool:
        k = read_releases(self.releases)
        if k != 1:  # k releases at θ lose exactly one release at θ/k
            expr = None if self.theta_expr is None else self.theta_expr / k
            return replace(self, lo=self.lo / k, hi=self.hi / k, theta_expr=expr,
                           releases=1)._verify()
        level = parse_level(eps=self.eps)
        if (self.identical is not (self.P == self.Q) or type(self.prec) is not int or self.prec < 0
                or read_tol(self.tol, below_one=True) != self.tol or self.zero_noise not in (True, False)):
            return False
        if self.zero_noise and self.verdict_lo is self.verdict_hi is None:  # else rejected below
            return (self.lo == self.hi == 0 and self.method == "zero_noise"
                    and self.theta_expr in (None, 0) and is_zero_noise(self.P, self.Q, level))
        if self.method not in ("closed_form", "root_finding"):
            return False
        if (self.theta_expr is None) != (self.method == "root_finding"):
            return False
        if self.verdict_lo is not Verdict.FAILS or self.verdict_hi is not Verdict.HOLDS:
            return False
        if not (0 < self.lo < self.hi and self.hi - self.lo <= self.tol * self.hi):
            return False
        at_lo = decide_loss(self.P, self.Q, self.lo, level, direct=True, symbolic_ties=False)
        at_hi = decide_loss(self.P, self.Q, self.hi, level, direct=True, symbolic_ties=False)
        if at_lo.verdict is not Verdict.FAILS or at_hi.verdict is not Verdict.HOLDS:
            return False
        if self.worst_point_lo is not None and not is_worst_point(
                self.P, self.Q, self.lo, self.worst_point_lo):
            return False
        if self.theta_expr is not None:
            # lo < θ* ≤ hi, signs decided at rising precision (a fixed 128 bits is not
            # enough when ε is within 10⁻³⁰ of a threshold)
            lo = to_sympy(self.lo)
            hi = to_sympy(self.hi)
            above = exact_sign(self.theta_expr - lo, max_prec=MAX_PREC)
            below = exact_sign(hi - self.theta_expr, max_prec=MAX_PREC)
            if above is not Sign.POSITIVE or below is Sign.NEGATIVE:
                return False
            if not closed_form_solves(self.P, self.Q, level, self.theta_expr):
                return False
        return True

    def to_json(self) -> dict[str, object]:
        """Exact JSON form (rationals as "p/q" strings); :meth:`from_json` reads it back."""
        return {
            "P": self.P.to_json(),
            "Q": self.Q.to_json(),
            "eps": str(self.eps),
            "theta_lo": str(self.lo),
            "theta_hi": str(self.hi),
            "theta_expr": None if self.theta_expr is None else str(self.theta_expr),
            "method": self.method,
            "zero_noise": self.zero_noise,
            "identical": self.identical,
            "prec": self.prec,
            "tol": str(self.tol),
            "worst_point_lo": None if self.worst_point_lo is None else str(self.worst_point_lo),
            "releases": self.releases,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ExactScale:
        """Rebuild from :meth:`to_json` (then call :meth:`verify` to re-check it).

        >>> from exactdp.pufferfish.secrets import DistributionVsAbsent
        >>> from exactdp.pufferfish.distributions import bernoulli
        >>> r = exact_scale(DistributionVsAbsent(bernoulli("1/2")), 1)
        >>> again = ExactScale.from_json(r.to_json())
        >>> (again.lo, again.hi) == (r.lo, r.hi), again.verify()
        (True, True)
        """

        def dist(d: dict[str, list[str]]) -> DiscreteDistribution:
            return DiscreteDistribution.from_lists(d["support"], d["probs"])

        expr = data.get("theta_expr")
        zero = bool(data["zero_noise"])
        return cls(
            P=dist(data["P"]), Q=dist(data["Q"]), eps=parse_level(eps=data["eps"]).eps,
            lo=Fraction(data["theta_lo"]), hi=Fraction(data["theta_hi"]),
            theta_expr=None if expr is None else parse_closed_form(str(expr), "theta_expr", InvalidArgument),
            method=str(data["method"]), zero_noise=zero, identical=bool(data["identical"]),
            prec=int(data["prec"]), tol=Fraction(data["tol"]),
            verdict_lo=None if zero else Verdict.FAILS,
            verdict_hi=None if zero else Verdict.HOLDS,
            worst_point_lo=None if data.get("worst_point_lo") is None
            else Fraction(data["worst_point_lo"]),
            releases=int(data.get("releases", 1)),
        )


def is_zero_noise(P: DiscreteDistribution, Q: DiscreteDistribution, level: PrivacyLevel) -> bool:
    """θ → 0 limit: every point of P ∪ Q has e^-ε ≤ P(d)/Q(d) ≤ e^ε (exact decision)."""
    pp, qq = P.as_dict(), Q.as_dict()
    big_e = sympy.exp(level.eps)
    for d in union_points(P, Q):
        a, b = pp.get(d, Fraction(0)), qq.get(d, Fraction(0))
        if a == 0 or b == 0:
            return False
        hi, lo = max(a, b), min(a, b)
        ratio = sympy.Rational(hi.numerator * lo.denominator, hi.denominator * lo.numerator)
        if exact_sign(ratio - big_e) is Sign.POSITIVE:
            return False
    return True


def _two_point(P: DiscreteDistribution, Q: DiscreteDistribution) -> tuple[
    Fraction, Fraction, Fraction, Fraction
] | None:
    """(low, width, p, q) when P ∪ Q has exactly two points, p = P(high), q = Q(high)."""
    pts = union_points(P, Q)
    if len(pts) != 2:
        return None
    low, high = pts
    return low, high - low, P.as_dict().get(high, Fraction(0)), Q.as_dict().get(high, Fraction(0))


def _rational_bracket(ball: arb, tol: Fraction) -> tuple[Fraction, Fraction]:
    lo, hi = arb_to_fraction_interval(ball)
    shrink = tol / 4
    return lo * (1 - shrink), hi * (1 + shrink)


def _simplify_fraction(x: Fraction, lo: Fraction, hi: Fraction) -> Fraction:
    """A rational with small denominator in [lo, hi] (keeps the certificates readable)."""
    cand = x.limit_denominator(max(1, int(8 / (hi - lo)) if hi > lo else 1))
    return cand if lo <= cand <= hi else x


def _float_root(
    P: DiscreteDistribution, Q: DiscreteDistribution, eps: float, upper: float
) -> float | None:
    """Float64 bisection on the exact maximum over support points (a guess, uncertified)."""
    points = union_points(P, Q)
    pp, qq = P.as_dict(), Q.as_dict()
    pts = [float(s) for s in points]
    mp = [float(pp.get(s, Fraction(0))) for s in points]
    mq = [float(qq.get(s, Fraction(0))) for s in points]
    # masses below 1e-308 become 0 here; harmless for a guess, which is certified anyway
    hi = upper * (1 + 1e-9)
    if not loss_float(pts, mp, mq, hi) <= eps:
        return None
    lo = hi
    for _ in range(400):
        lo /= 2
        if loss_float(pts, mp, mq, lo) > eps:
            break
    else:
        return None
    for _ in range(200):
        mid = (lo + hi) / 2
        if mid in (lo, hi):
            break
        if loss_float(pts, mp, mq, mid) > eps:
            lo = mid
        else:
            hi = mid
    return hi


def _float_guided(
    P: DiscreteDistribution, Q: DiscreteDistribution, level: PrivacyLevel, tol: Fraction,
    upper: Fraction,
) -> tuple[Fraction, Fraction, int, Fraction] | None:
    """Float to find, balls to prove: certify a bracket of relative width 2·tol/3 around
    the float guess; None (fall back to certified bisection) if either verdict disagrees."""
    try:
        guess = _float_root(P, Q, level.eps_float(), float(upper))
    except OverflowError:  # supports or ε beyond the float range: no guess, bisect instead
        return None
    if guess is None or guess <= 0 or not math.isfinite(guess):
        return None
    g = Fraction(guess)
    w = tol / 3
    lo = _simplify_fraction(g * (1 - w), g * (1 - w - w / 8), g * (1 - w + w / 8))
    hi = _simplify_fraction(g * (1 + w), g * (1 + w - w / 8), g * (1 + w + w / 8))
    try:
        d_lo = decide_loss(P, Q, lo, level, max_prec=512, symbolic_ties=False)
        if d_lo.verdict is not Verdict.FAILS:
            return None
        d_hi = decide_loss(P, Q, hi, level, max_prec=512, symbolic_ties=False)
        if d_hi.verdict is not Verdict.HOLDS:
            return None
    except PrecisionLimitReached:
        return None
    return lo, hi, max(d_lo.prec, d_hi.prec), d_lo.worst_point


def least_scale(
    P: DiscreteDistribution,
    Q: DiscreteDistribution,
    level: PrivacyLevel,
    *,
    tol: Fraction = DEFAULT_TOL,
    upper: Fraction | None = None,
    guided: bool = True,
) -> tuple[Fraction, Fraction, int, Fraction]:
    """Certified bracket of the least θ with L(θ) ≤ ε (L non-increasing in θ).

    First a float64 guess (bisection on the exact maximum over support points) is
    certified with two ball verdicts; if that fails, certified bisection on rationals.

    Returns ``(lo, hi, prec, worst_point_at_lo)`` with FAILS (not private) at lo and
    HOLDS (private) at hi. Requires that θ* > 0 (check :func:`is_zero_noise` first).
    ``upper`` is a rational known to be ≥ θ* (default: W_∞/ε rounded up).
    ``guided=False`` skips the float guess (pure certified bisection).
    """
    if upper is None:
        winf = transport_plan(P, Q).winf
        with workprec(64):
            _, up = arb_to_fraction_interval(arb(to_fmpq(winf)) / level.eps_ball())
        upper = up
    fast = _float_guided(P, Q, level, tol, upper) if guided else None
    if fast is not None:
        return fast
    hi = upper * (1 + Fraction(1, 1024))
    prec_used = 64
    d_hi = decide_loss(P, Q, hi, level)
    while d_hi.verdict is not Verdict.HOLDS:  # only if `upper` was not an upper bound
        hi *= 2
        d_hi = decide_loss(P, Q, hi, level)
    lo = hi / 2
    d_lo = decide_loss(P, Q, lo, level)
    while d_lo.verdict is Verdict.HOLDS:
        hi, lo = lo, lo / 2
        d_lo = decide_loss(P, Q, lo, level)
    prec_used = max(prec_used, d_lo.prec, d_hi.prec)
    worst = d_lo.worst_point
    while hi - lo > tol * hi:
        mid = _simplify_fraction((lo + hi) / 2, lo + (hi - lo) / 4, hi - (hi - lo) / 4)
        try:
            d_mid = decide_loss(P, Q, mid, level, max_prec=512, symbolic_ties=False)
        except PrecisionLimitReached:
            # the loss at mid equals ε to within rounding: step aside (the root is not
            # exactly at both points since L is strictly decreasing near θ*)
            mid = lo + (hi - lo) * Fraction(3, 7)
            d_mid = decide_loss(P, Q, mid, level, max_prec=1024, symbolic_ties=False)
        prec_used = max(prec_used, d_mid.prec)
        if d_mid.verdict is Verdict.HOLDS:
            hi = mid
        else:
            lo, worst = mid, d_mid.worst_point
    return lo, hi, prec_used, worst


def zero_noise_scale(
    P: DiscreteDistribution, Q: DiscreteDistribution, level: PrivacyLevel, tol: Fraction
) -> ExactScale | None:
    """The result θ* = 0 when no noise is needed (P = Q, or :func:`is_zero_noise`), else None."""
    if P == Q or is_zero_noise(P, Q, level):
        return ExactScale(
            P=P, Q=Q, eps=level.eps, tol=tol, lo=Fraction(0), hi=Fraction(0),
            theta_expr=sympy.Integer(0), method="zero_noise", zero_noise=True,
            identical=P == Q, prec=0,
        )
    return None


def root_finding_scale(
    P: DiscreteDistribution, Q: DiscreteDistribution, level: PrivacyLevel, tol: Fraction,
    upper: Fraction | None = None,
) -> ExactScale:
    """θ* > 0 by certified root finding (:func:`least_scale`), as an :class:`ExactScale`."""
    lo, hi, prec, worst = least_scale(P, Q, level, tol=tol, upper=upper)
    return ExactScale(
        P=P, Q=Q, eps=level.eps, tol=tol, lo=lo, hi=hi, theta_expr=None,
        method="root_finding", zero_noise=False, identical=False, prec=prec,
        verdict_lo=Verdict.FAILS, verdict_hi=Verdict.HOLDS, worst_point_lo=worst,
    )


@proved_by("pufferfish_supremum", "pufferfish_bernoulli", "pufferfish_releases")
def exact_scale(
    pair: Any, eps: Any, *, tol: Any = DEFAULT_TOL, method: str = "auto", releases: Any = 1
) -> ExactScale:
    """The least Laplace scale θ* that is ε-Pufferfish private for every population.

    .. warning:: θ* is for ONE release: k releases at θ* lose L(θ*/k) ≫ k·ε (Bern(1/10)
       vs absent, ε = 1: 3.525 after 2). ``releases=k`` gives the least common θ of k
       releases with total loss ≤ ε, exactly k·θ*(ε) (``proofs/pufferfish_releases.py``).

    θ* is the least θ with sup_x |ln g_P(x) − ln g_Q(x)| ≤ ε, g_P(x) = Σ_d P(d) e^{-|x−d|/θ}:
    sufficient for every population of other users and every presence probability
    (mediant inequality), and necessary (a point-mass rest attains it). See
    ``proofs/pufferfish_supremum.py`` and, for the closed forms, ``proofs/pufferfish_bernoulli.py``.

    Parameters
    ----------
    pair : ValuePair, ValueVsAbsent, DistributionVsAbsent or DistributionPair
    eps : ε (exact; see :func:`exactdp.spaces.levels.parse_epsilon`)
    tol : relative width of the enclosure (default 10⁻¹²)
    method : ``"auto"`` (closed form when P ∪ Q has two points, else root finding),
        ``"closed_form"`` or ``"root_finding"``.
    releases : k ≥ 1, the number of releases of the same sum at the returned common θ.

    Examples
    --------
    >>> from exactdp.pufferfish.secrets import DistributionVsAbsent, ValuePair
    >>> from exactdp.pufferfish.distributions import bernoulli
    >>> r = exact_scale(DistributionVsAbsent(bernoulli("1/2")), "ln(2)")
    >>> r.theta_expr, r.verify()
    (1/log(3), True)
    >>> exact_scale(ValuePair(3, 1), "1/2").theta_expr
    4
    >>> r3 = exact_scale(DistributionVsAbsent(bernoulli("1/2")), "ln(2)", releases=3)
    >>> r3.theta_expr, r3.verify()
    (3/log(3), True)
    """
    k = read_releases(releases)
    one = _exact_scale_one(pair, eps, tol, method)
    if k == 1:
        return one
    return replace(one, lo=k * one.lo, hi=k * one.hi, releases=k,
                   theta_expr=None if one.theta_expr is None else k * one.theta_expr)


def _exact_scale_one(pair: Any, eps: Any, tol: Any, method: str) -> ExactScale:
    pr = as_pair(pair)
    level = _level(eps)
    tolf = read_tol(tol, below_one=True)
    if method not in ("auto", "closed_form", "root_finding"):
        raise InvalidArgument(
            f"Got method={method!r}; use 'auto', 'closed_form' or 'root_finding'."
        )
    P, Q = pr.P, pr.Q
    zero = zero_noise_scale(P, Q, level, tolf)
    if zero is not None:
        return zero
    two = _two_point(P, Q)
    if method == "closed_form" and two is None:
        raise InvalidArgument(
            "method='closed_form' needs P and Q supported on the same two points "
            f"(got {len(union_points(P, Q))} points); use method='root_finding'."
        )
    if two is not None and method != "root_finding":
        low, width, p, q = two
        expr, branch = bernoulli_theta_expr(p, q, level.eps)
        if branch in ("none", "equal"):  # excluded by the zero-noise test above
            raise CertificateInvalid(
                f"closed form says θ* = 0 ({branch}) but the exact pmf test did not (a bug)"
            )
        theta_expr = to_sympy(width) * expr
        prec = 64
        while True:
            with workprec(prec):
                ball = sympy_to_arb(theta_expr)
            # near a threshold (e.g. ε = ln 3 − 10⁻³⁰) the low-precision ball can be
            # infinite/NaN: that is "not precise enough yet", not a failure
            if ball.is_finite() and ball.rad() < abs(ball.mid()):
                lo, hi = _rational_bracket(ball, tolf)
                if lo > 0 and hi - lo <= tolf * hi:
                    break
            if prec >= MAX_PREC:
                raise PrecisionLimitReached(
                    f"could not enclose θ* = {theta_expr} to relative width {tolf} at {prec} "
                    f"bits (last ball {ball}); use method='root_finding'"
                )
            prec = min(2 * prec, MAX_PREC)
        step = (hi - lo) / 8
        lo = _simplify_fraction(lo + step / 2, lo, lo + step)
        hi = _simplify_fraction(hi - step / 2, hi - step, hi)
        d_lo = decide_loss(P, Q, lo, level)
        d_hi = decide_loss(P, Q, hi, level)
        if d_lo.verdict is not Verdict.FAILS or d_hi.verdict is not Verdict.HOLDS:
            raise CertificateInvalid(
                f"closed form θ* = {theta_expr} disagrees with the certified loss at "
                f"[{lo}, {hi}] (a bug: please report it)"
            )
        return ExactScale(
            P=P, Q=Q, eps=level.eps, tol=tolf, lo=lo, hi=hi, theta_expr=theta_expr,
            method="closed_form", zero_noise=False, identical=False,
            prec=max(prec, d_lo.prec, d_hi.prec), verdict_lo=d_lo.verdict,
            verdict_hi=d_hi.verdict, worst_point_lo=d_lo.worst_point,
        )
    return root_finding_scale(P, Q, level, tolf)
