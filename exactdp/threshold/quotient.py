"""The equitable-quotient exact route: ε* as an algebraic number through the symmetry of Φ.

When the metric has an equitable partition much coarser than its points (the orbits of its
symmetry group: count_queries(30), n = 961, has 136 cells under D4) and b is constant on the
cells, z(s) = Φ(s)⁻¹b is constant on the cells and solves the m×m quotient system
(:mod:`exactdp.algebra.equitable`, ``proofs/equitable_quotient.py``). Then, exactly:

1. z̃(s) = N_A/D over Z[s] on the quotient (multi-modular, identity checked exactly);
2. the exact sign pattern of the lifted z on (0, 1) (:func:`~exactdp.algebra.symbolic.sign_pattern`,
   one factorisation per cell), its first failing breakpoint s* and witness cell;
3. an isolating interval (a, b) of s* with b below the next breakpoint, and a rational
   enclosure [eps_lower, eps_upper] of ε* = −q·ln s* with e^{-eps_lower/q} ≤ b.

:class:`QuotientThresholdCertificate` carries the cells, N, D, the witness and s*; its
``verify()`` and JSON are the kernel's (:mod:`exactdp.kernel.threshold_quotient`), which
re-checks the partition's equitability from the metric's distances, Φ̃N = D·b̃ as a
polynomial identity, and every root count; the route runs it before returning.

Examples
--------
>>> from exactdp.spaces.metrics import count_queries
>>> res = quotient_route(count_queries(4), None, Fraction(1, 10**9))
>>> res.method, res.exact.minimal_polynomial[-1] > 0, res.certificate.verify()
('equitable-quotient(6 cells)', True, True)
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np
from flint import fmpz_poly

from exactdp.algebra.algebraic import AlgebraicNumber
from exactdp.algebra.equitable import (
    EquitablePartition,
    coarsest_equitable_partition,
    refine_partition,
    solve_quotient,
)
from exactdp.algebra.symbolic import sign_pattern
from exactdp.arithmetic.interval import Enclosure
from exactdp.arithmetic.rationals import to_fraction
from exactdp.arithmetic.validate import read_tol
from exactdp.engine.documents import write_quotient
from exactdp.errors import REJECTED_ERRORS, InvalidArgument, PropertyNeverHolds
from exactdp.kernel.jsonio import dumps, loads
from exactdp.kernel.threshold import ThresholdClaim, s_enclosure
from exactdp.kernel.threshold_quotient import (
    QUOTIENT_KIND,
    check_quotient,
    read_quotient,
)
from exactdp.kinds import CertificateKind, Verdict
from exactdp.progress import Progress, report
from exactdp.spaces.metrics import FiniteMetric
from exactdp.threshold.exact import set_from_pattern
from exactdp.threshold.exact_certificate import descending
from exactdp.threshold.results import ThresholdResult, eps_enclosure, property_name, short_rational

__all__ = ["QuotientThresholdCertificate", "quotient_partition", "quotient_route",
           "quotient_degree_bound", "MAX_QUOTIENT_CELLS", "MAX_QUOTIENT_DEGREE",
           "MAX_QUOTIENT_POINTS"]

#: Largest quotient (cells) the route takes by default.
MAX_QUOTIENT_CELLS = 400
#: Largest degree bound Σ_A max_j q·d(rep_A, j) of the quotient under ``auto``. Measured
#: (session 7, 2 shared cores): count_queries(30) 3,400 → exact in ≈ 15 s; count_queries(33)
#: 4,233 → ≈ 21 s; count_queries(12) × 11/10 3,080 → 4 s; count_queries(12) × 101/100 28,280
#: → 225 s and then no reconstruction within 400 primes (review 18B). The generic exact
#: route bounds its work by n ≤ max_exact_n = 160 only; at kmax ≈ 40 its bound is ≈ 6,400.
MAX_QUOTIENT_DEGREE = 6000
#: Largest n whose partition is searched (colour refinement holds two n×n integer tables,
#: and the quotient's modular arithmetic needs row sums n − 1 < 2^13).
MAX_QUOTIENT_POINTS = 2500


def quotient_partition(metric: FiniteMetric, rhs: tuple[Fraction, ...] | None,
                       max_cells: int = MAX_QUOTIENT_CELLS,
                       max_degree: int | None = MAX_QUOTIENT_DEGREE) -> EquitablePartition | None:
    """The coarsest equitable partition compatible with b when it pays: polynomial case,
    n ≤ :data:`MAX_QUOTIENT_POINTS`, at most ``max_cells`` cells and at most half as many
    cells as points, and a quotient whose degree bound (:func:`quotient_degree_bound`) is
    at most ``max_degree`` (None: no bound); else None.

    >>> from exactdp.spaces.metrics import count_queries, line
    >>> quotient_partition(count_queries(6), None).size, quotient_partition(line(9), None, 4)
    (10, None)
    """
    if metric.q is None or not 2 <= metric.n <= MAX_QUOTIENT_POINTS:
        return None
    part = refine_partition(metric, rhs, max_cells=min(max_cells, metric.n // 2))
    if part is None or 2 * part.size > metric.n:
        return None
    if max_degree is not None and quotient_degree_bound(metric, part) > max_degree:
        return None
    return part


def quotient_degree_bound(metric: FiniteMetric, part: EquitablePartition) -> int:
    """Σ_A (largest exponent q·d(i, j) in the row of A's first point): a bound on deg det Φ̃,
    hence on the degrees of D and of every N_A that the multi-modular solve reconstructs
    (its series length and Padé cost grow with it). O(n²) once (the exponent matrix).

    >>> from exactdp.spaces.metrics import count_queries
    >>> m = count_queries(4)
    >>> quotient_degree_bound(m, quotient_partition(m, None))
    20
    """
    E = np.asarray(metric.exponent_matrix(), dtype=np.int64)
    _, reps = np.unique(np.asarray(part.cells), return_index=True)
    return int(E[reps].max(axis=1).sum())


@dataclass(frozen=True)
class QuotientThresholdCertificate:
    """Exact proof that ε* = −q·ln s* ∈ [eps_lower, eps_upper] (module doc; kernel re-check).

    ``cells[i]`` is point i's cell, z_i = numerators[cells[i]] / denominator; ``witness`` is
    the cell that turns negative just after s* (None with s_star None: ε* = 0, the
    property holds for every ε); s_star's isolating interval (a, b) has no root of D and
    no sign change of any other numerator in (0, b].
    """

    metric: FiniteMetric = field(repr=False)
    rhs: tuple[Fraction, ...] = field(repr=False)
    cells: tuple[int, ...] = field(repr=False)
    numerators: tuple[fmpz_poly, ...] = field(repr=False)
    denominator: fmpz_poly = field(repr=False)
    eps_lower: Fraction
    eps_upper: Fraction
    witness: int | None
    s_star: AlgebraicNumber | None
    kind: ClassVar[CertificateKind] = CertificateKind.QUOTIENT_THRESHOLD

    @property
    def verdict(self) -> Verdict:
        """``HOLDS``: the claim is proved exactly."""
        return Verdict.HOLDS

    def threshold_claim(self) -> ThresholdClaim:
        """This certificate as the kernel's claim."""
        a, q = self.s_star, self.metric.q
        star = None
        if a is not None:
            if not isinstance(a, AlgebraicNumber):
                raise InvalidArgument("s_star is not an AlgebraicNumber.")
            star = (q, tuple(reversed(a.minimal_polynomial)), Enclosure(*a.isolating_interval))
        return ThresholdClaim(
            QUOTIENT_KIND, self.metric, tuple(self.rhs), Enclosure(self.eps_lower, self.eps_upper),
            {"cells": tuple(self.cells), "witness": self.witness,
             "numerators": tuple(descending(p) for p in self.numerators),
             "denominator": descending(self.denominator), "s_star": star})

    def verify(self) -> bool:
        """Re-prove every claim in the kernel; never raises (malformed: False)."""
        try:
            return check_quotient(self.threshold_claim())
        except REJECTED_ERRORS:
            return False

    def to_json(self) -> dict[str, Any]:
        """The JSON document (:func:`exactdp.engine.documents.write_quotient`)."""
        return write_quotient(self.threshold_claim())

    @staticmethod
    def from_json(doc: Any) -> QuotientThresholdCertificate:
        """Rebuild from a document (text or parsed); only as good as its ``verify()``."""
        c = read_quotient(loads(doc) if isinstance(doc, (str, bytes)) else doc)
        ev = c.evidence
        star = ev["s_star"]
        alg = None if star is None else AlgebraicNumber(tuple(reversed(star[1])),
                                                        (star[2].lo, star[2].hi))
        return QuotientThresholdCertificate(
            c.metric, c.rhs, ev["cells"], tuple(fmpz_poly(list(reversed(p))) for p in ev["numerators"]),
            fmpz_poly(list(reversed(ev["denominator"]))), c.eps.lo, c.eps.hi, ev["witness"], alg)

    def dumps(self) -> str:
        """:meth:`to_json` as canonical text."""
        return dumps(self.to_json())


def _root_free_end(star: AlgebraicNumber, nxt: AlgebraicNumber | None) -> AlgebraicNumber:
    """s* with an isolating interval (a, b), a < s* < b (also for a rational s*: the kernel
    needs g(a) ≠ 0), b a short dyadic strictly below the next breakpoint ``nxt`` (None: 1):
    (s*, b] holds no root of any N_i or D."""
    if star.is_rational:
        r = star.as_fraction()
        top = Fraction(1)
        if nxt is not None:
            while nxt.isolating_interval[0] <= r:  # an open interval may touch the point r
                nxt = nxt.refine(nxt.width / 4)
            top = nxt.isolating_interval[0]
        a = short_rational(r / 2 if r < top - r else r - (top - r), (top - r) / 4, -1)
        b = short_rational((r + top) / 2, (top - r) / 4, -1)
        return AlgebraicNumber(star.minimal_polynomial, (max(a, Fraction(0)), b))
    top = Fraction(1) if nxt is None else nxt.isolating_interval[0]
    while star.isolating_interval[1] >= top:
        star = star.refine(star.width / 4)
        if nxt is not None and nxt.width > 0:
            nxt = nxt.refine(nxt.width / 4)
            top = nxt.isolating_interval[0]
    a, hi = star.isolating_interval
    b = short_rational((hi + top) / 2, (top - hi) / 4, -1)
    return AlgebraicNumber(star.minimal_polynomial, (a, b))


def quotient_route(metric: FiniteMetric, rhs: tuple[Fraction, ...] | None, tol: Fraction,
                   progress: Progress = None, timings: list[tuple[str, float]] | None = None,
                   partition: EquitablePartition | None = None) -> ThresholdResult | None:
    """ε* by the equitable-quotient exact route, or None when its certificate cannot be made
    (a pole or an isolated failing point first, or the kernel rejects it: the caller falls
    back to another route).

    Raises
    ------
    InvalidArgument, InvalidTolerance
        Not a polynomial-case metric with n ≥ 2, a bad ``rhs`` or ``tol``.
    PropertyNeverHolds
        Some z_i < 0 on the whole first interval of s (the property fails for every large ε).
    InstanceTooLarge
        The multi-modular solve did not stabilise (callers fall back to another route).
    """
    t0 = time.perf_counter()
    if not isinstance(metric, FiniteMetric) or metric.q is None:
        raise InvalidArgument(f"Got {getattr(metric, 'name', metric)!r}: the quotient route "
                              "needs a FiniteMetric with rational distances (irrational "
                              "distances: use the certified route, epsilon_threshold).")
    if metric.n < 2:
        raise InvalidArgument(f"{metric.name} has {metric.n} point(s); the quotient route needs "
                              "at least 2 points (epsilon_threshold handles any n).")
    tol = read_tol(tol)
    if rhs is not None:
        if len(rhs) != metric.n:
            raise InvalidArgument(f"rhs has {len(rhs)} entries; {metric.name} has {metric.n} "
                                  "points.")
        rhs = tuple(to_fraction(v, f"rhs[{i}]") for i, v in enumerate(rhs))
    timings = [] if timings is None else timings
    part = partition if partition is not None else coarsest_equitable_partition(metric, rhs)
    report(progress, "threshold", f"equitable quotient: {part.size} cells of {metric.n} points")
    sol = solve_quotient(metric, rhs, partition=part, progress=progress)
    timings.append(("quotient z(s)", time.perf_counter() - t0))
    t1 = time.perf_counter()
    pat = sign_pattern(sol.lift(), progress=progress)
    timings.append(("root isolation + signs", time.perf_counter() - t1))
    q, prop = sol.q, property_name(rhs)
    method = f"equitable-quotient({part.size} cells)"
    eps_set = set_from_pattern(pat, q, prop, method, time.perf_counter() - t0)
    if not pat.gaps[0]:
        raise PropertyNeverHolds(
            f"On {metric.name}, {prop} for no large ε: z_{pat.gap_witness[0]}(s) < 0 on the "
            f"whole first interval of s = e^(-ε/{q}) (exactly, equitable quotient).",
            evidence=eps_set)
    star = next((k for k, bp in enumerate(pat.breakpoints)
                 if bp.status != "holds" or not pat.gaps[k + 1]), None)
    b_vec = tuple(sol.rhs)
    if star is None:
        e_lo = e_hi = Fraction(0)
        cert = QuotientThresholdCertificate(metric, b_vec, part.cells, sol.numerators,
                                            sol.denominator, e_lo, e_hi, None, None)
        s_alg = None
    else:
        bp = pat.breakpoints[star]
        if bp.status == "singular" or pat.gaps[star + 1]:
            return None  # a pole, or an isolated failing point: no witness interval
        w = part.cells[pat.gap_witness[star + 1] or 0]
        nxt = pat.breakpoints[star + 1].s if star + 1 < len(pat.breakpoints) else None
        s_alg = _root_free_end(bp.s, nxt)
        b = s_alg.isolating_interval[1]
        inner, ref = tol / 4, bp.s
        for _ in range(64):
            if not ref.is_rational:  # a rational s* is exact already (interval [s*, s*])
                ref = ref.refine(min(ref.width, Fraction(1, 2**64)) / 4)
            e_lo, e_hi = eps_enclosure(ref, q, inner)
            e_lo = short_rational(e_lo, min(tol, inner) / 8, -1)
            e_hi = short_rational(e_hi, min(tol, inner) / 8, +1)
            if e_lo > 0 and s_enclosure(e_lo, q, 128)[1] <= b:
                break
            inner /= 4
        else:
            return None
        cert = QuotientThresholdCertificate(metric, b_vec, part.cells, sol.numerators,
                                            sol.denominator, e_lo, e_hi, w, s_alg)
    t2 = time.perf_counter()
    if not cert.verify():
        return None  # not expected (the kernel re-proves what the route found): fall back
    timings.append(("kernel check", time.perf_counter() - t2))
    return ThresholdResult(metric.name, rhs, e_lo, e_hi, cert, s_alg, q, method,
                           time.perf_counter() - t0, tuple(timings), prop, eps_set)
