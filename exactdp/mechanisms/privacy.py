"""The privacy level of a mechanism, exactly, and the privacy verdict at a given ε.

* :func:`privacy_level` — the least ε such that H is ε·d0-private:
  max over checked pairs (y, y') and outputs z of ln(h[y,z]/h[y',z]) / d0(y, y'),
  with the witness (y, y', z). Only the graph's edges are checked for graph metrics
  (``metric.check_edges()``; the path argument: if the inequality holds on every edge
  it holds along every shortest path, whose lengths add up to d0).
* :func:`is_private` — the verdict at a given ε, with a violation witness.

How the privacy level is computed exactly (:mod:`exactdp.mechanisms.privacy_routes`)
------------------------------------------------------------------------------------
*Monomial mechanisms* (h[y,z] = c_z s^{E[y,z]}, see :class:`exactdp.mechanisms.mechanism.MonomialForm`):
the ratio is s^{E[y,z] − E[y',z]}, so the level is (−ln s)·max Δ/d0 over integer Δ —
integer arithmetic only, exact for any s, even when the entries are only certified.

*Exact rational mechanisms*: float to find, exact to prove. Entries are converted to
floats with correct rounding, ratios are formed with one correctly rounded division,
so a float ratio is within a relative 2⁻⁵⁰ of the true ratio (entries below 2⁻¹⁰⁰⁰,
where floats lose relative accuracy, are always treated as candidates). For each
distance class, every (pair, z) whose float ratio is within a relative 10⁻¹² of the
class's float maximum is a *candidate*; the true maximum is among them. Candidates are
then compared exactly (``fmpq`` cross-multiplication), and the classes' maxima are
compared exactly as ln(R1)/d1 vs ln(R2)/d2 (certified balls, and exact integer powers
R1^a vs R2^b when the balls cannot separate them).

*Row-normalized mechanisms* (h = s^E / S_y(s), the exponential mechanism): the level is
max over edges of (Δ·(−ln s) + ln S_b(s) − ln S_a(s))/d; candidates are separated with balls of
rising precision and ties are decided exactly as polynomial identities in s (s transcendental)
or as identities of rationals (s rational).

*Certified mechanisms* (ball entries): the same search with balls; the result is an
enclosure, not an exact value.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import sympy
from flint import arb

from exactdp.arithmetic.ball import Sign, arb_from_fraction, certified_sign, sympy_to_arb
from exactdp.arithmetic.rationals import to_fraction
from exactdp.errors import InvalidArgument, InvalidMechanism, PrecisionLimitReached
from exactdp.kinds import Verdict, proved_by
from exactdp.mechanisms.mechanism import Mechanism, MechanismKind
from exactdp.mechanisms.privacy_result import PrivacyLevelResult
from exactdp.mechanisms.privacy_routes import level_ball, level_exact, level_monomial, level_rownorm
from exactdp.spaces.levels import parse_level
from exactdp.spaces.metrics import FiniteMetric

__all__ = ["PrivacyLevelResult", "PrivacyCheck", "privacy_level", "is_private"]


def _check_shapes(mechanism: Mechanism, metric: FiniteMetric) -> None:
    if not isinstance(mechanism, Mechanism):
        raise InvalidMechanism(
            f"Got {type(mechanism).__name__}; pass an exactdp Mechanism "
            "(exactdp.mechanisms.from_rows(...) turns a matrix into one)."
        )
    if mechanism.n_inputs != metric.n:
        raise InvalidMechanism(
            f"The mechanism has {mechanism.n_inputs} inputs but {metric.name} has "
            f"{metric.n} points; rows must correspond to the metric's points."
        )


def _pairs(metric: FiniteMetric) -> tuple[np.ndarray, np.ndarray]:
    edges = metric.check_edges()
    if not edges:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    arr = np.asarray(edges, dtype=np.int64).reshape(len(edges), 2)
    return arr[:, 0], arr[:, 1]


@proved_by("mech_geometric_rows")
def privacy_level(
    mechanism: Mechanism, metric: FiniteMetric, *, method: str = "auto"
) -> PrivacyLevelResult:
    """The smallest ε such that ``mechanism`` is ε·d0-private for ``metric``, exactly.

    The monomial closed form and the edges-only path argument: proofs/mech_geometric_rows.py.

    Parameters
    ----------
    mechanism : Mechanism
        Rows indexed by the metric's points.
    metric : FiniteMetric
        The metric d0; for graph metrics only the graph's edges are checked.
    method : {"auto", "monomial", "row-monomial", "exact", "ball"}
        "auto" uses the monomial form (h = c_z s^E) or the row-normalized form
        (h = s^E / S_y(s), the exponential mechanism) when the mechanism has one — both
        exact for any s — else "exact" for exact mechanisms and "ball" for certified ones.

    Returns
    -------
    PrivacyLevelResult

    Examples
    --------
    >>> from exactdp.spaces.metrics import line
    >>> from exactdp.mechanisms.constructors import from_rows, truncated_geometric
    >>> H = from_rows([["3/4", "1/4"], ["1/4", "3/4"]])
    >>> r = privacy_level(H, line(2))
    >>> r.value, r.witness, r.verify()
    (log(3), (0, 1, 0), True)
    >>> privacy_level(truncated_geometric(5, eps="4/5"), line(5)).value
    4/5
    >>> privacy_level(from_rows([[1, 0], [0, 1]]), line(2)).value
    oo
    """
    _check_shapes(mechanism, metric)
    if method not in ("auto", "monomial", "row-monomial", "exact", "ball"):
        raise InvalidArgument(
            f"Got method={method!r}; choose 'auto', 'monomial', 'row-monomial', 'exact' "
            "or 'ball'."
        )
    I, J = _pairs(metric)
    if method == "auto":
        if mechanism.monomial is not None:
            method = "monomial"
        elif mechanism.row_normalized is not None:
            method = "row-monomial"
        else:
            method = "exact" if mechanism.kind is MechanismKind.EXACT else "ball"
    if method == "row-monomial":
        if mechanism.row_normalized is None:
            raise InvalidArgument(f"{mechanism.name} has no row-normalized form.")
        return level_rownorm(mechanism, metric, I, J)
    if method == "monomial":
        if mechanism.monomial is None:
            raise InvalidArgument(f"{mechanism.name} has no monomial form; use method='exact'.")
        return level_monomial(mechanism, metric, I, J)
    if method == "exact":
        if mechanism.kind is not MechanismKind.EXACT:
            raise InvalidMechanism(
                f"{mechanism.name} is certified (balls): its level can only be enclosed; "
                "use method='ball'."
            )
        return level_exact(mechanism, metric, I, J)
    return level_ball(mechanism, metric, I, J)


@dataclass(frozen=True)
class PrivacyCheck:
    """Verdict of :func:`is_private`.

    Attributes
    ----------
    private : bool
        Certified verdict: H is ε·d0-private.
    eps : sympy.Expr
        The level asked about.
    level : PrivacyLevelResult
        The mechanism's own (least) level.
    violation : tuple[int, int, int] | None
        (y, y', z) with h[y, z] > e^{ε·d0(y, y')}·h[y', z] when not private.
    precision : int | None
        Bits used by the ball comparison that settled the verdict (None if exact).

    ``verdict`` is the same answer as a :class:`~exactdp.kinds.Verdict` (always decided:
    an undecidable comparison raises :class:`~exactdp.errors.PrecisionLimitReached`).
    """

    private: bool
    eps: sympy.Expr
    level: PrivacyLevelResult
    violation: tuple[int, int, int] | None
    precision: int | None

    def __bool__(self) -> bool:
        return self.private

    @property
    def verdict(self) -> Verdict:
        """``HOLDS`` when H is ε·d0-private, ``FAILS`` otherwise."""
        return Verdict.from_bool(self.private)

    def verify(self) -> bool:
        """Re-verify the level, and the comparison with ε."""
        if not self.level.verify():
            return False
        if self.level.is_infinite:
            return not self.private
        return self.private == (_level_le_eps(self.level, self.eps)[0])


def _level_le_eps(level: PrivacyLevelResult, eps: sympy.Expr) -> tuple[bool, int | None]:
    if level.is_infinite:
        return False, None
    # exact route: level = ln(R)/d with R, d rational and ε = −ln t with t rational:
    # ln(R)/d ≤ −ln t ⇔ R ≤ t^(−d) ⇔ R^q ≤ (1/t)^p for d = p/q
    t_val = sympy.exp(-eps)
    if (
        level.ratio is not None and level.distance is not None and level.distance.is_rational
        and isinstance(t_val, sympy.Rational) and level.method in ("exact", "monomial")
    ):
        d = level.distance.coef
        tq = to_fraction(t_val)
        return level.ratio ** d.denominator <= (1 / tq) ** d.numerator, None
    if level.value is not None:
        diff = sympy.simplify(level.value - eps)
        if diff == 0:
            return True, None
        if diff.is_number and diff.is_comparable:
            sign, prec = certified_sign(lambda p: sympy_to_arb(diff), what="level − ε")
            return sign is not Sign.POSITIVE, prec
    assert level.enclosure is not None
    lo, hi = level.enclosure.lo, level.enclosure.hi

    def ev_hi(prec: int) -> arb:
        return sympy_to_arb(eps) - arb_from_fraction(hi)

    sign, prec = certified_sign(ev_hi, what="ε − level upper bound")
    if sign in (Sign.POSITIVE, Sign.ZERO):
        return True, prec
    sign2, prec2 = certified_sign(
        lambda p: arb_from_fraction(lo) - sympy_to_arb(eps), what="level lower bound − ε"
    )
    if sign2 is Sign.POSITIVE:
        return False, prec2
    raise PrecisionLimitReached(
        f"the certified level enclosure [{lo}, {hi}] contains ε = {eps}; rebuild the "
        "mechanism at a higher precision to decide."
    )


def is_private(
    mechanism: Mechanism, metric: FiniteMetric, eps: Any = None, *, t: Any = None
) -> PrivacyCheck:
    """Decide whether ``mechanism`` is ε·d0-private, with a violation witness if not.

    >>> from exactdp.spaces.metrics import line
    >>> from exactdp.mechanisms.constructors import truncated_geometric
    >>> H = truncated_geometric(4, t="1/2")
    >>> bool(is_private(H, line(4), t="1/2")), bool(is_private(H, line(4), t="3/4"))
    (True, False)
    >>> is_private(H, line(4), t="3/4").violation     # h[0,0] = 2·h[1,0] > e^ε·h[1,0]
    (0, 1, 0)
    """
    lv = parse_level(eps=eps, t=t)
    level = privacy_level(mechanism, metric)
    ok, prec = _level_le_eps(level, lv.eps)
    return PrivacyCheck(
        private=ok, eps=lv.eps, level=level, violation=None if ok else level.witness,
        precision=prec,
    )
