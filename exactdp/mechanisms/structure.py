"""Exact structures that keep a built mechanism's privacy level exact at its own boundary.

A mechanism the library builds knows why it is private; these forms carry that knowledge so
that :func:`~exactdp.mechanisms.privacy.privacy_level` returns the exact level even when the
entries are only certified balls (e^{-ε d} with irrational d, or ε rational):

* :class:`TightForm` — the tight-constraints mechanism h[y, z] = e^{-ε d(y, z)}·z_z of a
  metric d (any metric, irrational distances included). By the triangle inequality
  h[a,z]/h[b,z] = e^{ε(d(b,z) − d(a,z))} ≤ e^{ε d(a,b)}, with equality at z = a when z_a > 0:
  the level is exactly ε (proofs/mech_tight_level.py).
* :class:`MergedMonomialForm` — a monomial mechanism G (h = c_z s^{E}) followed by merging
  groups of its columns (post-processing): h[y, j] = Σ_{z ∈ groups[j]} c_z s^{E[y, z]}. The
  rectangular and offset geometric mechanisms (libqif's ``geometric(n_rows, ε, n_cols,
  first_x, first_y)``) have it. Its level is at most G's (post-processing) and at least the
  ratio s^{-κ} of any group whose exponent difference κ is the same for all its columns; when
  the two meet the level is exact (proofs/mech_tight_level.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import sympy

from exactdp.mechanisms.mechanism import MonomialForm
from exactdp.spaces.metrics import FiniteMetric

__all__ = ["TightForm", "MergedMonomialForm"]


@dataclass(frozen=True)
class TightForm:
    """h[y, z] = e^{-ε·d(y, z)}·z_z with z ≥ 0 certified: the tight-constraints mechanism.

    Attributes
    ----------
    metric : FiniteMetric
        The metric d the mechanism was built on (rows and columns are its points).
    eps : sympy.Expr
        The exact level ε of the construction.
    z : tuple
        The diagonal: exact Fractions or certified
        :class:`~exactdp.arithmetic.interval.Enclosure` objects, each certified ≥ 0.
    positive : tuple[int, ...]
        The outputs whose z_z is certified > 0 (their column is produced).
    """

    metric: FiniteMetric
    eps: sympy.Expr
    z: tuple[Any, ...]
    positive: tuple[int, ...]

    def applies_to(self, metric: FiniteMetric) -> bool:
        """True when ``metric`` is the construction's metric (same points, same distances)."""
        if metric is self.metric:
            return True
        return (metric.n == self.metric.n
                and bool(np.array_equal(metric.index, self.metric.index))
                and tuple(metric.values) == tuple(self.metric.values))


@dataclass(frozen=True)
class MergedMonomialForm:
    """h[y, j] = Σ_{z ∈ groups[j]} c_z·s^{E[y, z]}: the columns of a monomial form, merged.

    Attributes
    ----------
    base : MonomialForm
        The monomial form of G (rows = this mechanism's inputs, columns = G's outputs).
    groups : tuple[tuple[int, ...], ...]
        For each output j of this mechanism, the columns of G merged into it (disjoint,
        covering every column of G).
    """

    base: MonomialForm
    groups: tuple[tuple[int, ...], ...]
