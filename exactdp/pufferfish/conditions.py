"""The source paper's sufficient conditions as their own column, each checked against θ*.

For a secret pair (P, Q) and the monotone (optimal) transport plan π:

- **Kantorovich-plan condition**: θ ≥ (largest move of π)/ε = W_∞/ε — always sufficient
  (``proofs/pufferfish_supremum.py`` step 5); this is :func:`conservative_scale`.
- **Relaxed condition**: E_π[e^{|D − D'|/θ}] ≤ e^ε (the average, not the maximum, of the
  move factors), the paper's Brent-solved scale. For moves of one common length h with total
  moved mass m it is θ = h/ln(1 + (e^ε − 1)/m) (a Bernoulli pair: h = 1, m = |p − q|).
  It is NOT sufficient in general: for P = ½δ₀ + ½δ₂, Q = ½δ₁ + ½δ₂, ε = 1 it gives
  θ ≈ 0.67119 < θ* ≈ 0.848999 and :func:`relaxed_condition_scale` returns the certified
  counterexample (a rational θ satisfying the condition, the worst output and its loss).

Whether a condition is sufficient for the pair is decided with certified verdicts of the
exact loss (``decide_loss``): sufficient when privacy HOLDS at the low end of the condition's
bracket (the loss is non-increasing in θ); not sufficient when it FAILS at the high end.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy
from flint import arb

from exactdp.arithmetic.ball import arb_to_fraction_interval, sympy_to_arb, workprec
from exactdp.arithmetic.rationals import to_fmpq, to_sympy
from exactdp.errors import REJECTED_ERRORS, PrecisionLimitReached
from exactdp.kinds import Sign, Verdict
from exactdp.pufferfish.bernoulli_forms import exact_sign
from exactdp.pufferfish.calibration import exact_scale
from exactdp.pufferfish.loss import LossDecision, decide_loss
from exactdp.pufferfish.secrets import DistributionPair, as_pair
from exactdp.pufferfish.transport import TransportPlan, transport_plan
from exactdp.spaces.levels import PrivacyLevel, parse_level

__all__ = ["ConditionScale", "relaxed_condition_scale", "relaxed_condition_holds"]


def _relaxed_sign(plan: TransportPlan, theta: Fraction, level: PrivacyLevel) -> Verdict:
    """HOLDS when E_π[e^{|x − y|/θ}] < e^ε, FAILS when >, certified (raises if undecided)."""
    prec = 64
    while prec <= 4096:
        with workprec(prec):
            total = arb(0)
            for x, y, m in plan.moves:
                total += arb(to_fmpq(m)) * arb(to_fmpq(abs(x - y) / theta)).exp()
            diff = total - level.eps_ball().exp()
            if diff < 0:
                return Verdict.HOLDS
            if diff > 0:
                return Verdict.FAILS
        prec *= 2
    raise PrecisionLimitReached(f"relaxed condition undecided at θ = {theta} within 4096 bits")


def relaxed_condition_holds(pair: Any, theta: Any, eps: Any) -> Verdict:
    """Certified: does θ satisfy the relaxed condition E_π[e^{|D − D'|/θ}] ≤ e^ε?

    >>> from exactdp.pufferfish.distributions import bernoulli
    >>> from exactdp.pufferfish.secrets import DistributionVsAbsent
    >>> relaxed_condition_holds(DistributionVsAbsent(bernoulli("1/2")), 1, 1)
    <Verdict.HOLDS: 'holds'>
    """
    pr = as_pair(pair)
    return _relaxed_sign(transport_plan(pr.P, pr.Q), Fraction(theta), parse_level(eps=eps))


@dataclass(frozen=True)
class ConditionScale:
    """The least θ satisfying the relaxed condition, and whether it is sufficient.

    Attributes
    ----------
    lo, hi : Fraction
        lo < θ_relaxed ≤ hi: the condition certainly fails at lo and holds at hi.
    theta_expr : sympy.Expr or None
        Closed form when every move has the same length.
    sufficient : Verdict
        HOLDS: the exact loss is ≤ ε at lo, so every θ the condition accepts is private;
        FAILS: the loss exceeds ε at hi (a θ the condition accepts) — ``counterexample``
        holds the certified decision with the worst output; UNDECIDED: θ* lies in [lo, hi]
        and no closed-form equality was proved.
    counterexample : LossDecision or None
    equals_exact : bool
        The condition's closed form is proved EQUAL to θ*'s (e.g. Bernoulli against absent),
        so it is sufficient and tight.
    """

    P: Any
    Q: Any
    eps: sympy.Expr
    lo: Fraction
    hi: Fraction
    theta_expr: sympy.Expr | None
    sufficient: Verdict
    counterexample: LossDecision | None
    equals_exact: bool = False

    def float(self) -> float:
        """θ_relaxed as a float (display only)."""
        return float((self.lo + self.hi) / 2)

    def verify(self) -> bool:
        """Re-decide the condition at lo (fails) and hi (holds), and the sufficiency verdict
        with the independent direct sums."""
        try:
            level = parse_level(eps=self.eps)
            plan = transport_plan(self.P, self.Q)
            if (_relaxed_sign(plan, self.lo, level) is not Verdict.FAILS
                    or _relaxed_sign(plan, self.hi, level) is not Verdict.HOLDS):
                return False
            if self.equals_exact:
                return self.sufficient is Verdict.HOLDS and _equal_to_exact(self, level)
            if self.sufficient is Verdict.HOLDS:
                return decide_loss(self.P, self.Q, self.lo, level, direct=True).private
            if self.sufficient is Verdict.FAILS:
                d = decide_loss(self.P, self.Q, self.hi, level, direct=True)
                return d.verdict is Verdict.FAILS and self.counterexample is not None
            return True
        except REJECTED_ERRORS:
            return False


def relaxed_condition_scale(pair: Any, eps: Any, *, tol: Any = Fraction(1, 10**12)) -> ConditionScale:
    """The least θ with E_π[e^{|D − D'|/θ}] ≤ e^ε (π the monotone plan), certified, and
    whether it is sufficient for this pair (with a certified counterexample when it is not).

    >>> from exactdp.pufferfish.distributions import DiscreteDistribution
    >>> from exactdp.pufferfish.secrets import DistributionPair
    >>> P = DiscreteDistribution.from_dict({0: "1/2", 2: "1/2"})
    >>> Q = DiscreteDistribution.from_dict({1: "1/2", 2: "1/2"})
    >>> r = relaxed_condition_scale(DistributionPair(P, Q), 1)
    >>> round(r.float(), 5), r.sufficient, r.counterexample.worst_point, r.verify()
    (0.67119, <Verdict.FAILS: 'fails'>, Fraction(0, 1), True)
    """
    pr = as_pair(pair)
    level = parse_level(eps=eps)
    tolf = Fraction(tol)
    plan = transport_plan(pr.P, pr.Q)
    moving = [(abs(x - y), m) for x, y, m in plan.moves if x != y]
    if not moving:
        raise PrecisionLimitReached("P = Q: every θ satisfies the relaxed condition (θ = 0)")
    lengths = {h for h, _ in moving}
    expr = None
    if len(lengths) == 1:
        h = lengths.pop()
        mass = sum((m for _, m in moving), Fraction(0))
        expr = to_sympy(h) / sympy.log(1 + (sympy.exp(level.eps) - 1) / to_sympy(mass))
        with workprec(256):
            lo, hi = arb_to_fraction_interval(sympy_to_arb(expr))
    else:
        hi = Fraction(plan.winf) * 2 / Fraction(level.eps_float())  # a start; doubled below
        lo = hi / 10**6
        while _relaxed_sign(plan, lo, level) is not Verdict.FAILS:
            lo /= 2
        while _relaxed_sign(plan, hi, level) is not Verdict.HOLDS:
            hi *= 2
        while hi - lo > tolf * hi / 4:
            mid = ((lo + hi) / 2).limit_denominator(max(2, int(16 / (hi - lo))))
            if not lo < mid < hi:
                mid = (lo + hi) / 2
            if _relaxed_sign(plan, mid, level) is Verdict.HOLDS:
                hi = mid
            else:
                lo = mid
    w = tolf / 4
    lo = Fraction(int(lo * (1 - w) * 10**15), 10**15)
    hi = Fraction(-int(-hi * (1 + w) * 10**15), 10**15)
    if _relaxed_sign(plan, lo, level) is not Verdict.FAILS or _relaxed_sign(
            plan, hi, level) is not Verdict.HOLDS:
        raise PrecisionLimitReached(f"could not certify the relaxed bracket [{lo}, {hi}]")
    at_lo = decide_loss(pr.P, pr.Q, lo, level)
    at_hi = at_lo if at_lo.private else decide_loss(pr.P, pr.Q, hi, level)
    if at_lo.private:
        verdict, counter = Verdict.HOLDS, None
    elif at_hi.verdict is Verdict.FAILS:
        verdict, counter = Verdict.FAILS, at_hi
    else:
        verdict, counter = Verdict.UNDECIDED, None
    out = ConditionScale(pr.P, pr.Q, level.eps, lo, hi, expr, verdict, counter)
    if verdict is Verdict.UNDECIDED and _equal_to_exact(out, level):
        out = ConditionScale(pr.P, pr.Q, level.eps, lo, hi, expr, Verdict.HOLDS, None, True)
    return out


def _equal_to_exact(c: ConditionScale, level: PrivacyLevel) -> bool:
    """The condition's closed form minus θ*'s closed form is proved to be exactly 0."""
    if c.theta_expr is None:
        return False
    ex = exact_scale(DistributionPair(c.P, c.Q), level)
    if ex.theta_expr is None:
        return False
    return exact_sign(sympy.simplify(c.theta_expr - ex.theta_expr)) is Sign.ZERO
