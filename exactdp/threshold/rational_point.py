"""Exact z = Φ(ε)⁻¹b on a grid where e^{−ε·u} = t is rational: deciding exactly-zero entries.

When every distance is an integer multiple k·u of one unit u (Manhattan grids, masked or
not, rational spacing u) and t = e^{−ε·u} is rational, Φ(ε) = [t^k] is a rational matrix and
z is rational. Enclosures can never separate an entry z_i = 0 from 0 (e.g. masked Manhattan
grids at t = 1/2, where ε* = ln 2 exactly: the inner corners' z_i vanish there). This module
finds z *exactly* without an n×n table:

1. a float solve (the grid provider's FFT + preconditioned CG), refined once by its residual
   computed exactly (integer 2-D convolution);
2. every entry rationalised with a bounded denominator (``Fraction.limit_denominator``);
3. the guess x checked *exactly*: with t = p/q and K the largest k, Φx = b ⇔
   Σ_j p^{k_ij}q^{K−k_ij}·X_j = D·q^K·b_i for X = D·x integers — one exact integer product
   (:mod:`exactdp.linalg.grid_exact_conv`, quasi-linear in n).

Φ(ε) is positive definite for every 0 < t < 1 on every subset of the Manhattan lattice
(λ_min ≥ ((1 − t)/(1 + t))², ``proofs/grid_point_bounds.py``), so a checked x is *the*
solution: its signs (zeros included) decide "Φx = b has a solution x ≥ 0" exactly. When the
denominators of z exceed the bound, the guess fails its check and the answer is None (never a
wrong x). b is divided by max|b_i| first and z scaled back (z(c·b) = c·z(b)), so 10^±30·b
is decided like b. Grids with irrational distances (Euclidean grids other than one row or
column) are refused.

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

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from exactdp.arithmetic.rationals import to_fraction
from exactdp.errors import InvalidArgument, InvalidMetric
from exactdp.kinds import proved_by
from exactdp.spaces.metrics import FiniteMetric
from exactdp.spaces.metrics.masked import grid_shape
from exactdp.threshold.providers import GridProvider

__all__ = ["exact_grid_z", "MAX_DEN_BITS"]

#: largest denominator tried when rationalising an entry (2^40); beyond it: None
MAX_DEN_BITS = 40


def _unit_multiples(metric: FiniteMetric) -> tuple[Fraction, list[int]]:
    """(u, k): every distance value is k_v·u exactly (u the smallest positive distance)."""
    vals = list(metric.values)
    if not all(v.is_rational for v in vals):
        raise InvalidMetric(f"{metric.name}: exact z at a rational t needs rational distances "
                            "(Manhattan grids); Euclidean grids have irrational ones: use "
                            "the enclosure routes.")
    pos = [v.coef for v in vals if v.coef > 0]
    u = min(pos) if pos else Fraction(1)
    ks = [v.coef / u for v in vals]
    if any(k.denominator != 1 for k in ks):
        raise InvalidMetric(f"{metric.name}: the distances are not integer multiples of {u}; "
                            "Φ at a rational t is not rational.")
    return u, [int(k) for k in ks]


@proved_by("grid_point_bounds", "grid_exact_convolution")
def exact_grid_z(metric: FiniteMetric, t: Fraction, rhs: Sequence[Any] | None = None,
                 max_den_bits: int = MAX_DEN_BITS) -> tuple[Fraction, ...] | None:
    """The exact solution z of Φx = rhs at e^{−ε·u} = ``t`` (u the smallest distance), or None.

    Uniqueness: proofs/grid_point_bounds.py (Φ ≻ 0 on every lattice subset); the exact check of
    Φz = b by one integer convolution: proofs/grid_exact_convolution.py.

    Parameters
    ----------
    metric : FiniteMetric
        A library grid or masked grid whose distances are integer multiples of one unit
        (Manhattan).
    t : Fraction
        0 < t < 1, rational.
    rhs : sequence of rationals, optional
        b (default all ones).
    max_den_bits : int
        Entries of z/max|b_i| are rationalised with denominators below 2^max_den_bits
        (an int ≥ 1).

    Returns
    -------
    tuple of Fraction or None
        z, checked exactly (Φz = b in integers; Φ is positive definite, so z is unique);
        None when no candidate with such denominators passes the check.
    """
    t = to_fraction(t, "t")
    if isinstance(max_den_bits, bool) or not isinstance(max_den_bits, int) or max_den_bits < 1:
        raise InvalidArgument(f"max_den_bits = {max_den_bits!r}: it must be an int >= 1 "
                              f"(default {MAX_DEN_BITS}).")
    if not 0 < t < 1:
        raise InvalidArgument(f"t = {t}: exact z needs 0 < t < 1 (t = e^(-ε·u), ε > 0).")
    if grid_shape(metric) is None:
        raise InvalidMetric(f"{metric.name}: exact_grid_z takes library grids and masked grids.")
    _, ks = _unit_multiples(metric)
    n = metric.n
    b = ([Fraction(1)] * n if rhs is None
         else [to_fraction(v, f"rhs[{i}]") for i, v in enumerate(rhs)])
    if len(b) != n:
        raise InvalidArgument(f"rhs has {len(b)} entries; {metric.name} has {n} points.")
    scale = max(abs(v) for v in b)
    if scale == 0:  # Φ is positive definite: z = 0
        return tuple(Fraction(0) for _ in b)
    b = [v / scale for v in b]
    prov = GridProvider(metric)
    p, q, K = t.numerator, t.denominator, max(ks)
    table = [p**k * q ** (K - k) for k in ks]       # q^K·t^k, exact integers
    B = math.lcm(*(x.denominator for x in b))
    bq = [x.numerator * (B // x.denominator) * q**K for x in b]   # B·q^K·b_i
    tf = float(t)
    solve = prov.solver(np.array([tf**k for k in ks]))
    y = np.asarray(solve(np.array([float(x) for x in b])))
    if not np.all(np.isfinite(y)):
        return None
    # one refinement by the exact residual of y on a dyadic grid
    s = 60 - math.frexp(float(np.max(np.abs(y))) or 1.0)[1]
    Y = [int(v) for v in np.rint(np.ldexp(y, s))]
    prod = prov.exact_matvec(table, [Y])[0]
    den = B * q**K
    r = np.array([((bi << s) - B * pi) / (den << s) if s >= 0 else (bi - B * pi * 2**-s) / den
                  for bi, pi in zip(bq, prod)])
    corr = np.asarray(solve(r))
    if not np.all(np.isfinite(corr)):
        return None
    qmax = 1 << max_den_bits
    x = [(Fraction(Yi, 1 << s) if s >= 0 else Fraction(Yi << -s)) + Fraction(float(c))
         for Yi, c in zip(Y, corr)]
    x = [xi.limit_denominator(qmax) for xi in x]
    D = math.lcm(*(xi.denominator for xi in x))
    X = [xi.numerator * (D // xi.denominator) for xi in x]
    check = prov.exact_matvec(table, [X])[0]       # q^K·Φ·(D·x), exactly
    if any(B * c != D * bi for c, bi in zip(check, bq)):
        return None
    return tuple(scale * xi for xi in x)
