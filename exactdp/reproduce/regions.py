"""Fig. 2 and Fig. 3: regions of regular priors as convex hulls of corner priors (Prop. 3).

* Fig. 2 (Example 1): 3 points connected in a line or a cycle, d = ε·graph distance,
  ε ∈ {0.7, 1.6}: the region is the triangle conv{c_1, c_2, c_3} inside the simplex.
* Fig. 3 (Example 2): 4 points all at distance D (D = 1, 2; ε = 1), projected on the
  first three coordinates: corners c_y = (1, e^{-D}, e^{-D}, e^{-D})/(1 + 3e^{-D}) permuted.

Each corner prior is returned as certified :class:`~exactdp.arithmetic.interval.Enclosure`
enclosures (ε rational makes t transcendental), together with the regularity verdict of a
few sample priors (uniform, and the simplex vertices) from the certified engine.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from exactdp.mechanisms.bounds import corner_priors
from exactdp.regularity import RegularityResult, is_regular
from exactdp.spaces.metrics import FiniteMetric, cycle, discrete, line
from exactdp.spaces.priors import uniform_prior

__all__ = ["RegionData", "fig2", "fig3", "region"]


@dataclass(frozen=True)
class RegionData:
    """Corner priors of one panel, and certified regularity of sample priors."""

    label: str
    eps: Fraction
    metric: FiniteMetric
    corners: tuple[tuple[Any, ...], ...]
    uniform_regular: bool
    vertex_regular: bool
    certificates: tuple[RegularityResult, ...]

    def corner_floats(self) -> list[list[float]]:
        """Corner priors as floats (midpoints; display only)."""
        return [[float(getattr(v, "mid", v)) for v in c] for c in self.corners]


def region(label: str, metric: FiniteMetric, eps: Fraction) -> RegionData:
    """Corner priors at ε and regularity of the uniform prior and of a simplex vertex."""
    corners = corner_priors(metric, eps=eps)
    u = is_regular(metric, uniform_prior(metric), eps=eps)
    vertex = tuple(Fraction(int(i == 0)) for i in range(metric.n))
    v = is_regular(metric, vertex, eps=eps)
    assert isinstance(u, RegularityResult) and isinstance(v, RegularityResult)
    return RegionData(label, eps, metric, corners, u.regular, v.regular, (u, v))


def fig2() -> list[RegionData]:
    """Example 1: line and cycle on 3 points at ε = 0.7 and 1.6.

    >>> [(r.label, r.uniform_regular, r.vertex_regular) for r in fig2()][:2]
    [('line, ε = 0.7', True, False), ('line, ε = 1.6', True, False)]
    """
    out = []
    for name, metric in (("line", line(3)), ("cycle", cycle(3))):
        for e in (Fraction(7, 10), Fraction(8, 5)):
            out.append(region(f"{name}, ε = {float(e):.1f}", metric, e))
    return out


def fig3() -> list[RegionData]:
    """Example 2: 4 points, all at distance D ∈ {1, 2} (ε = 1).

    >>> [round(x, 3) for x in fig3()[1].corner_floats()[0]]
    [0.711, 0.096, 0.096, 0.096]
    """
    return [region(f"D = {D}", discrete(4, D), Fraction(1)) for D in (1, 2)]
