"""Exact z = Φ(ε)⁻¹b on a grid where e^{−ε·u} = t is rational: deciding exactly-zero entries.

When every distance is an integer multiple k·u of one unit u (Manhattan grids, masked or
not, rational spacing) and t = e^{−ε·u} is rational, Φ(ε) = [t^k] is a rational matrix and
z is rational. Enclosures can never separate an entry z_i = 0 from 0 (e.g. masked Manhattan
grids at t = 1/2, where ε* = ln 2 exactly: the inner corners' z_i vanish there).
:func:`exact_grid_z` finds z *exactly* without an n×n table — the metric-level entry to
:func:`exactdp.engine.grid_exact.grid_exact_z` (float solve, small-denominator guess, exact
integer check of Φz = b by one integer convolution; None, never a wrong z, when the
denominators are too large). The one-ε route (``tight_constraints`` / ``is_regular`` on a
large grid) uses the same function with a certificate (kind ``grid-point-exact``).

Examples
--------
>>> from fractions import Fraction
>>> from exactdp.spaces.metrics.masked import masked_grid
>>> m = masked_grid(4, 4, "manhattan", mask=["1100", "1100", "1111", "1111"])
>>> z = exact_grid_z(m, Fraction(1, 2))
>>> min(z), sorted({v.denominator for v in z})
(Fraction(0, 1), [1, 9])
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from exactdp.arithmetic.rationals import to_fraction
from exactdp.engine.grid_exact import MAX_DEN_BITS, grid_exact_z
from exactdp.errors import InvalidArgument, InvalidMetric
from exactdp.kinds import proved_by
from exactdp.spaces.metrics import FiniteMetric
from exactdp.spaces.metrics.masked import grid_shape

__all__ = ["exact_grid_z", "MAX_DEN_BITS"]


def _unit(metric: FiniteMetric, unit: Fraction | None, spacing: Fraction) -> Fraction:
    """u = ``unit`` (default: the smallest positive distance, else the spacing), checked to
    divide every distance value exactly."""
    vals = list(metric.values)
    if not all(v.is_rational for v in vals):
        raise InvalidMetric(f"{metric.name}: exact z at a rational t needs rational distances "
                            "(Manhattan grids); Euclidean grids have irrational ones: use "
                            "the enclosure routes.")
    pos = [v.coef for v in vals if v.coef > 0]
    u = unit if unit is not None else (min(pos) if pos else spacing)
    if any((v / u).denominator != 1 for v in pos):
        raise InvalidMetric(f"{metric.name}: the distances are not integer multiples of {u}; "
                            "Φ at a rational t is not rational.")
    return u


@proved_by("grid_point_bounds", "grid_exact_convolution")
def exact_grid_z(metric: FiniteMetric, t: Fraction, rhs: Sequence[Any] | None = None,
                 max_den_bits: int = MAX_DEN_BITS, *,
                 unit: Fraction | None = None) -> tuple[Fraction, ...] | None:
    """The exact solution z of Φx = rhs at e^{−ε·u} = ``t`` (u = ``unit``, by default the
    smallest distance), or None.

    Uniqueness: proofs/grid_point_bounds.py (Φ ≻ 0 on every lattice subset); the exact check of
    Φz = b by one integer convolution: proofs/grid_exact_convolution.py.

    Parameters
    ----------
    metric : FiniteMetric
        A Manhattan library grid or masked grid, or one row or column (distances integer
        multiples of one unit).
    t : Fraction
        0 < t < 1, rational.
    rhs : sequence of rationals, optional
        b (default all ones).
    max_den_bits : int
        Entries of z/max|b_i| — and, if that guess fails, of the direction z/z_j (z_j the
        largest entry; the scalar then read exactly from one equation) — are rationalised
        with denominators below 2^max_den_bits (an int ≥ 1).
    unit : Fraction, optional
        The distance u with t = e^{−ε·u} (e.g. the grid's spacing); every distance must be
        an integer multiple of it. Default: the smallest positive distance.

    Returns
    -------
    tuple of Fraction or None
        z, checked exactly (Φz = b in integers; Φ is positive definite, so z is unique);
        None when no candidate with such denominators passes the check.

    Raises
    ------
    InvalidMetric
        Not a library grid, irrational distances, or distances that are not
        (|dx| + |dy|)·spacing (only Manhattan grids, or one row or column:
        :func:`~exactdp.kernel.grid_point_exact.lattice_distances`, checked in
        :func:`~exactdp.engine.grid_exact.grid_exact_z`).
    InstanceTooLarge
        The exact products would exceed the kernel's work limit
        (:func:`~exactdp.kernel.grid_point_exact.require_exact_work`), checked before any.
    """
    t = to_fraction(t, "t")
    if isinstance(max_den_bits, bool) or not isinstance(max_den_bits, int) or max_den_bits < 1:
        raise InvalidArgument(f"max_den_bits = {max_den_bits!r}: it must be an int >= 1 "
                              f"(default {MAX_DEN_BITS}).")
    if not 0 < t < 1:
        raise InvalidArgument(f"t = {t}: exact z needs 0 < t < 1 (t = e^(-ε·u), ε > 0).")
    shape = grid_shape(metric)
    if shape is None:
        raise InvalidMetric(f"{metric.name}: exact_grid_z takes library grids and masked grids.")
    if unit is not None:
        unit = to_fraction(unit, "unit")
        if unit <= 0:
            raise InvalidArgument(f"unit = {unit}: the distance unit must be > 0.")
    step = _unit(metric, unit, shape.spacing) / shape.spacing  # distances k·h, step | k
    if step.denominator != 1:
        raise InvalidMetric(f"{metric.name}: the unit {step * shape.spacing} is not a multiple "
                            f"of the spacing {shape.spacing}; pass unit=spacing·m (m ≥ 1 an "
                            "integer).")
    n = metric.n
    b = ([Fraction(1)] * n if rhs is None
         else [to_fraction(v, f"rhs[{i}]") for i, v in enumerate(rhs)])
    if len(b) != n:
        raise InvalidArgument(f"rhs has {len(b)} entries; {metric.name} has {n} points.")
    return grid_exact_z(shape, t, b, max_den_bits, int(step))
