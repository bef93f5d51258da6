"""Tight-constraints mechanisms (Def. 6, Prop. 7): exist iff Φz = 1 has z ≥ 0; then H = Φ·diag(z)."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from exactdp.algebra.phi import entry_values_exact, exact_parameter
from exactdp.arithmetic.ball import MAX_PREC
from exactdp.arithmetic.interval import Interval
from exactdp.engine.certificates import Certificate
from exactdp.engine.core import EngineResult, FloatEstimate, float_solve, solve_nonnegative
from exactdp.errors import PropertyNeverHolds
from exactdp.spaces.levels import PrivacyLevel, parse_level
from exactdp.spaces.metrics import FiniteMetric

__all__ = ["TightConstraintsResult", "tight_constraints"]


@dataclass(frozen=True)
class TightConstraintsResult:
    """Whether a tight-constraints mechanism exists at this level, certified.

    Attributes
    ----------
    exists : bool
        Certified: Φz = 1 has a solution z ≥ 0 (Prop. 7).
    certificate : Certificate
        ``certificate.verify()`` re-checks the verdict independently.
    method : str
        The backend that decided.
    level : PrivacyLevel
    metric : FiniteMetric

    ``z`` and ``mechanism`` are computed on first access: exact (Fractions) when
    s = e^{-ε/q} is rational, otherwise rigorous :class:`Interval` enclosures.
    """

    metric: FiniteMetric = field(repr=False)
    level: PrivacyLevel
    exists: bool
    certificate: Certificate = field(repr=False)
    method: str
    engine: EngineResult = field(repr=False)
    _cache: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def is_exact(self) -> bool:
        """True when z is available exactly (rational s)."""
        return exact_parameter(self.metric, self.level) is not None

    @property
    def z(self) -> tuple[Fraction, ...] | tuple[Interval, ...]:
        """The diagonal z with Φz = 1: exact when s is rational, else enclosures."""
        if "z" not in self._cache:
            if self.engine.x_exact is not None and not self.engine.singular:
                self._cache["z"] = self.engine.x_exact
            elif self.is_exact:
                self._cache["z"] = solve_nonnegative(self.metric, self.level,
                                                     method="exact").x_exact
            else:
                assert self.engine.x_enclosure is not None
                self._cache["z"] = tuple(Interval(lo, hi) for lo, hi in self.engine.x_enclosure)
        return self._cache["z"]  # type: ignore[no-any-return]

    @property
    def mechanism(self) -> tuple[tuple[Fraction, ...], ...] | tuple[tuple[Interval, ...], ...]:
        """H = Φ·diag(z) (rows are inputs): exact when s is rational, else enclosures.

        Raises :class:`~exactdp.errors.PropertyNeverHolds` (carrying the certificate) when no
        tight-constraints mechanism exists at this level.
        """
        if not self.exists:
            raise PropertyNeverHolds(
                f"no tight-constraints mechanism exists for {self.metric.name} at {self.level} "
                f"(certificate: {self.certificate.kind}; see .certificate)",
                evidence=self.certificate,
            )
        if "H" not in self._cache:
            z = self.z
            idx = self.metric.index.tolist()
            if self.is_exact:
                vals = entry_values_exact(self.metric, self.level)
                self._cache["H"] = tuple(
                    tuple(vals[k] * zj for k, zj in zip(row, z)) for row in idx  # type: ignore[operator]
                )
            else:
                self._cache["H"] = _interval_mechanism(self.metric, self.level, z)  # type: ignore[arg-type]
        return self._cache["H"]  # type: ignore[no-any-return]


def _interval_mechanism(metric: FiniteMetric, level: PrivacyLevel,
                        z: tuple[Interval, ...]) -> tuple[tuple[Interval, ...], ...]:
    from flint import arb

    from exactdp.algebra.phi import entry_values_ball
    from exactdp.arithmetic.ball import arb_from_fraction, arb_to_fraction_interval, workprec

    with workprec(128):
        vals = entry_values_ball(metric, level)
        zb = [arb_from_fraction(iv.mid) + (arb_from_fraction(iv.width) / 2) * arb(0, 1)
              for iv in z]
        return tuple(
            tuple(Interval(*arb_to_fraction_interval(vals[k] * zb[j])) for j, k in enumerate(row))
            for row in metric.index.tolist()
        )


def tight_constraints(
    metric: FiniteMetric,
    eps: Any = None,
    t: Any = None,
    *,
    method: str = "auto",
    max_prec: int = MAX_PREC,
) -> TightConstraintsResult | FloatEstimate:
    """Decide whether a tight-constraints mechanism exists for ``metric`` at ε (or t = e^-ε).

    Parameters
    ----------
    metric : FiniteMetric
    eps, t : exactly one of them
        ε as int, Fraction, string ("4/5", "ln(2)") or sympy expression; or t ∈ (0, 1) rational.
    method : {"auto", "exact", "symbolic", "ball", "verified-float", "float"}
        ``"float"`` returns an uncertified :class:`~exactdp.engine.core.FloatEstimate` instead.
    max_prec : int
        Ball precision limit in bits.

    Examples
    --------
    >>> from exactdp.spaces.metrics import line
    >>> r = tight_constraints(line(3), t="1/3")
    >>> r.exists, r.z, r.certificate.verify()
    (True, (Fraction(3, 4), Fraction(1, 2), Fraction(3, 4)), True)
    """
    level = parse_level(eps=eps, t=t)
    if method == "float":
        return float_solve(metric, level)
    res = solve_nonnegative(metric, level, None, method=method, max_prec=max_prec)
    return TightConstraintsResult(metric, level, res.holds, res.certificate, res.method, res)
