"""Equitable partitions of a metric and the exact solve of the quotient system Φ̃(s)z̃ = b̃.

A partition of the points into cells C_0 … C_{m−1} is *equitable* for the metric when, for
every pair of cells (A, B) and every distance r, #{j ∈ B : d(i, j) = r} is the same for
every i ∈ A (e.g. the orbits of the metric's symmetry group: D4 on a square grid gives
m ≈ n/8). If b is constant on the cells, the quotient Φ̃[A, B](s) = Σ_{j∈B} s^{q·d(i, j)}
(any i ∈ A) is well defined and a solution z̃ of Φ̃z̃ = b̃, lifted cell-wise, solves Φz = b
(``proofs/equitable_quotient.py``). So the exact z(s) costs an m×m solve instead of n×n.

* :func:`coarsest_equitable_partition` — colour refinement (1-WL on the complete graph with
  distance labels), started from the colours of b: exact integer work, O(n² log n) per round
  (two n×n integer tables; no n×n×r table). Its stable colouring is equitable, and it is the
  coarsest equitable partition refining b's level sets.
* :func:`solve_quotient` — N_A/D = z̃_A over Z[s] by the multi-modular series route of
  :mod:`exactdp.algebra.symbolic` on the quotient's pattern; accepted only once the exact
  identity Φ̃N = D·b̃ holds (:func:`exactdp.kernel.threshold_quotient.quotient_identity_holds`).

Examples
--------
>>> from exactdp.spaces.metrics import count_queries
>>> part = coarsest_equitable_partition(count_queries(4))      # 25 points, D4 orbits
>>> part.size, part.cells[:6]
(6, (0, 1, 2, 1, 0, 1))
>>> sol = solve_quotient(count_queries(4), partition=part)
>>> sol.lift().verify()                                          # Φ(s)z(s) = 1 on all 25 points
True
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
from flint import fmpz_poly

from exactdp.algebra.symbolic import RationalSolution, solve_pattern
from exactdp.algebra.symbolic.modular import ExponentPattern, scale_rhs
from exactdp.arithmetic.rationals import to_fraction
from exactdp.errors import InvalidArgument
from exactdp.kernel.threshold_quotient import (
    QuotientTerms,
    quotient_identity_holds,
    quotient_terms,
)
from exactdp.kinds import proved_by
from exactdp.progress import Progress, report
from exactdp.spaces.metrics import FiniteMetric

__all__ = ["EquitablePartition", "QuotientSolution", "coarsest_equitable_partition",
           "refine_partition", "solve_quotient"]


@dataclass(frozen=True)
class EquitablePartition:
    """Cells of an equitable partition: ``cells[i]`` is point i's cell (0..size−1, numbered
    by first appearance); ``rounds`` the refinement rounds it took."""

    cells: tuple[int, ...]
    size: int
    rounds: int = 0

    def members(self, a: int) -> tuple[int, ...]:
        """The points of cell ``a``."""
        return tuple(i for i, c in enumerate(self.cells) if c == a)


def _first_appearance(labels: np.ndarray) -> np.ndarray:
    """Relabel so that cells are numbered by their first point (canonical form)."""
    _, first, inv = np.unique(labels, return_index=True, return_inverse=True)
    rank = np.empty(len(first), dtype=np.int64)
    rank[np.argsort(first)] = np.arange(len(first))
    return rank[np.asarray(inv).ravel()]


def _distance_ids(metric: FiniteMetric) -> np.ndarray:
    """n×n ids of the exact distances (equal id ⇔ equal distance)."""
    canon: dict[Any, int] = {}
    ids = np.array([canon.setdefault(v, len(canon)) for v in metric.values], dtype=np.int64)
    return ids[np.asarray(metric.index)]


def coarsest_equitable_partition(metric: FiniteMetric, rhs: Sequence[Any] | None = None,
                                 progress: Progress = None) -> EquitablePartition:
    """The coarsest equitable partition of the metric on which ``rhs`` is constant.

    Colour refinement: start from the level sets of ``rhs`` (one colour when None); each
    round a point's new colour is its colour with the sorted multiset of
    (colour(j), d(i, j)) over all j; stop when the number of colours stops growing.

    >>> from exactdp.spaces.metrics import line
    >>> coarsest_equitable_partition(line(5)).cells         # the reflection i ↦ 4 − i
    (0, 1, 2, 1, 0)
    >>> coarsest_equitable_partition(line(3), ["1/2", "1/4", "1/4"]).cells
    (0, 1, 2)
    """
    part = refine_partition(metric, rhs, progress)
    assert part is not None
    return part


def refine_partition(metric: FiniteMetric, rhs: Sequence[Any] | None = None,
                     progress: Progress = None, max_cells: int | None = None
                     ) -> EquitablePartition | None:
    """:func:`coarsest_equitable_partition`, or None as soon as it has more than
    ``max_cells`` cells (refinement only splits cells, so it cannot come back below).

    Two phases keep a failing search cheap. First, rounds with a multiset hash
    (Σ_j h(colour(j), d(i, j)) mod 2^64, random h; no sort): equal multisets hash equally,
    so these colours are never finer than the exact ones, their number is a lower bound on
    the exact count (``max_cells`` is abandoned soundly on it), and by induction they stay
    coarser than the coarsest equitable partition C. Then exact rounds (sorted rows) from
    the hashed colours: they reach C (a collision only costs extra exact rounds).

    >>> from exactdp.spaces.metrics import line
    >>> refine_partition(line(9), max_cells=3) is None
    True
    """
    n = metric.n
    if rhs is not None and len(rhs) != n:
        raise InvalidArgument(f"rhs has {len(rhs)} entries; {metric.name} has {n} points.")
    b = None if rhs is None else [to_fraction(v, f"rhs[{i}]") for i, v in enumerate(rhs)]
    dist = _distance_ids(metric)
    r = int(dist.max()) + 1 if n else 1
    if b is None:
        colours = np.zeros(n, dtype=np.int64)
    else:
        vals: dict[Fraction, int] = {}
        colours = _first_appearance(np.array([vals.setdefault(v, len(vals)) for v in b],
                                             dtype=np.int64))
    count = int(colours.max()) + 1 if n else 0
    if max_cells is not None and count > max_cells:
        return None
    rounds = 0
    rng = np.random.default_rng(0x9E3779B9)
    for exact in (False, True):
        while True:
            rounds += 1
            new = _exact_round(colours, dist, r) if exact else _hashed_round(colours, dist, r,
                                                                               count, rng)
            new_count = int(new.max()) + 1 if n else 0
            report(progress, "equitable", f"round {rounds} ({'exact' if exact else 'hashed'}): "
                   f"{new_count} cells")
            if new_count == count:
                break
            colours, count = new, new_count
            if max_cells is not None and count > max_cells:
                return None  # a lower bound on the final count (module doc): too fine
    return EquitablePartition(tuple(int(c) for c in colours), count, rounds)


def _exact_round(colours: np.ndarray, dist: np.ndarray, r: int) -> np.ndarray:
    """New colour = (colour, sorted multiset of (colour(j), d(i, j))), exactly."""
    key = colours[None, :] * r + dist
    key.sort(axis=1)
    full = np.concatenate([colours[:, None], key], axis=1)
    _, inv = np.unique(full, axis=0, return_inverse=True)
    return _first_appearance(np.asarray(inv).ravel())


def _hashed_round(colours: np.ndarray, dist: np.ndarray, r: int, count: int,
                  rng: np.random.Generator) -> np.ndarray:
    """New colour = (colour, Σ_j h(colour(j), d(i, j)) mod 2^64): coarser than or equal to
    :func:`_exact_round` (equal multisets have equal sums)."""
    table = rng.integers(0, np.iinfo(np.int64).max, size=count * r, dtype=np.int64,
                         endpoint=True).view(np.uint64)
    h = table[colours[None, :] * r + dist].sum(axis=1, dtype=np.uint64)
    pairs = np.stack([colours, h.view(np.int64)], axis=1)
    _, inv = np.unique(pairs, axis=0, return_inverse=True)
    return _first_appearance(np.asarray(inv).ravel())


@dataclass(frozen=True)
class QuotientSolution:
    """z̃_A = numerators[A] / denominator with Φ̃(s)N(s) = D(s)·b̃ exactly (b̃ = rhs on cells)."""

    metric: FiniteMetric = field(repr=False, compare=False)
    partition: EquitablePartition = field(repr=False)
    terms: QuotientTerms = field(repr=False, compare=False)
    numerators: tuple[fmpz_poly, ...] = field(repr=False)
    denominator: fmpz_poly
    q: int
    rhs: tuple[Fraction, ...] = field(repr=False)
    seconds: float = 0.0

    def lift(self) -> RationalSolution:
        """z on every point, z_i = N_{cell(i)}/D (the solution of Φz = b by the lifting lemma;
        its ``verify()`` re-checks the full n×n identity)."""
        cells = self.partition.cells
        return RationalSolution(self.metric, tuple(self.numerators[c] for c in cells),
                                self.denominator, self.q, self.rhs,
                                method=f"equitable quotient ({self.partition.size} cells, exact)",
                                seconds=self.seconds)

    def verify(self) -> bool:
        """The partition is equitable for the metric and Φ̃N = D·b̃ holds over Z[s] (exact)."""
        terms = quotient_terms(self.metric, self.partition.cells)
        if terms is None:
            return False
        reps = terms.reps.tolist()
        b = [self.rhs[i] for i in reps]
        if any(self.rhs[i] != b[c] for i, c in enumerate(self.partition.cells)):
            return False
        return quotient_identity_holds(terms, self.numerators, self.denominator, b)


@proved_by("equitable_quotient")
def solve_quotient(metric: FiniteMetric, rhs: Sequence[Any] | None = None, *,
                   partition: EquitablePartition | None = None,
                   progress: Progress = None) -> QuotientSolution:
    """Exact z̃(s) with Φ̃(s)z̃ = b̃ on the cells of an equitable partition (module doc;
    the lifting lemma is ``proofs/equitable_quotient.py``).

    ``partition`` defaults to :func:`coarsest_equitable_partition`; ``rhs`` (default all
    ones) must be constant on its cells.

    >>> from exactdp.spaces.metrics import line
    >>> sol = solve_quotient(line(3))
    >>> [str(p) for p in sol.numerators], str(sol.denominator), sol.verify()
    (['1', '(-1)*x + 1'], 'x + 1', True)
    """
    t0 = time.perf_counter()
    q = metric.q
    if q is None:
        raise InvalidArgument(f"{metric.name} has irrational distances: Φ is not polynomial in "
                              "any s; use the certified route (epsilon_threshold).")
    n = metric.n
    b = ([Fraction(1)] * n if rhs is None
         else [to_fraction(v, f"rhs[{i}]") for i, v in enumerate(rhs)])
    if len(b) != n:
        raise InvalidArgument(f"rhs has {len(b)} entries; {metric.name} has {n} points.")
    part = partition if partition is not None else coarsest_equitable_partition(metric, rhs,
                                                                                progress)
    cells = part.cells
    first: dict[int, int] = {}
    if (not isinstance(cells, tuple) or len(cells) != n
            or any(first.setdefault(c, len(first)) != c for c in cells)):
        raise InvalidArgument(
            f"the partition's cells must be {n} labels 0, 1, … numbered by first appearance "
            f"(point 0 in cell 0, the next new cell 1, …); got {str(cells)[:60]}. Pass "
            "coarsest_equitable_partition(metric, rhs).")
    terms = quotient_terms(metric, cells)
    if terms is None:
        raise InvalidArgument(f"the partition ({part.size} cells) is not equitable for "
                              f"{metric.name}: two points of one cell see different "
                              "multisets of (cell, distance); pass "
                              "coarsest_equitable_partition(metric, rhs).")
    reps = terms.reps.tolist()
    b_cells = [b[i] for i in reps]
    if any(b[i] != b_cells[c] for i, c in enumerate(part.cells)):
        raise InvalidArgument("rhs is not constant on the partition's cells; pass "
                              "coarsest_equitable_partition(metric, rhs).")
    _, scale, b_ints = scale_rhs(b_cells)
    keep = terms.exps > 0
    pattern = ExponentPattern.from_terms(terms.size, terms.rows[keep], terms.cols[keep],
                                         terms.exps[keep], terms.counts[keep])
    report(progress, "symbolic", f"quotient system: {terms.size} cells of {n} points")
    ib = [Fraction(v) for v in b_ints]
    D, Ns = solve_pattern(pattern, b_ints,
                          lambda Ns, D: quotient_identity_holds(terms, Ns, D, ib),
                          progress=progress, what=f"the quotient of {metric.name}")
    D = D * scale  # Φ̃N = D·(scale·b̃)  ⇔  Φ̃N = (scale·D)·b̃
    g = math.gcd(int(D.content()), *(int(p.content()) for p in Ns))
    if g > 1:
        D = fmpz_poly([int(c) // g for c in D.coeffs()])
        Ns = tuple(fmpz_poly([int(c) // g for c in p.coeffs()]) for p in Ns)
    return QuotientSolution(metric, part, terms, tuple(Ns), D, q, tuple(b),
                            time.perf_counter() - t0)
