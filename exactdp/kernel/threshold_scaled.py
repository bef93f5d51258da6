"""Scaled threshold certificates (kind ``exact-scaled``): ε* of a metric d = c·d′.

Φ_d(ε) = Φ_d′(c·ε) entrywise, so ε*_d = ε*_d′/c (``proofs/grid_spacing_scaling.py``). A
document states the question of d (metric, rhs, the ε-range of every ε > 0) and the claim
``eps`` {lo, hi}; its evidence is the exact unit ``unit`` c = p/q > 0 and ``inner``, a complete
threshold document of d′ of any threshold kind (``exact``, ``prop9``, ``kronecker-threshold``,
``certified-cover``, ``spd-taylor-cover``, ``structured-threshold``, ``quotient-threshold``,
``grid-threshold``; not ``exact-scaled`` itself). The question's metric is either a metric
encoding of :mod:`exactdp.kernel.metricio` or a grid shape (``"encoding": "grid"``, as in
``grid-threshold``: no distance limit, so spacings 10⁴⁰⁰ travel). The kernel

1. checks d = c·d′: two grid shapes — the same width, height, norm and mask and spacing
   h = c·h′ (O(1)); otherwise pair by pair in point order (a shape is rebuilt by the
   library constructor; the inner question is re-read and its fingerprint checked, never
   trusted), and the inner rhs must be the outer one;
2. re-checks the inner document with its own kind's check;
3. checks lo = lo′/c and hi = hi′/c exactly (the outer enclosure is the inner one divided by
   c, by exact rational arithmetic).

>>> from exactdp.spaces.metrics import line
>>> read_unit("1000"), read_unit("1/3")
(Fraction(1000, 1), Fraction(1, 3))
>>> read_unit("-1/2")  # doctest: +ELLIPSIS
Traceback (most recent call last):
exactdp.errors.InvalidArgument: evidence.unit: c = -1/2; the unit must be a rational > 0 ...
>>> same_scaled_metric(line(3), line(3), Fraction(1)), same_scaled_metric(line(3), line(3), Fraction(2))
(True, False)
>>> g = GridShape(3, 2, "manhattan", Fraction(10**40))
>>> scaled_question_ok(g, GridShape(3, 2, "manhattan", Fraction(1)), Fraction(10**40))
True
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from exactdp.arithmetic.interval import Enclosure
from exactdp.errors import CertificateInvalid, InvalidArgument
from exactdp.kernel.grid_point import read_grid_question
from exactdp.kernel.jsonio import read_envelope, read_object, read_rational
from exactdp.kernel.read_common import read_threshold_parts
from exactdp.kernel.threshold import THRESHOLD_KINDS, check_threshold
from exactdp.kernel.threshold_grid import (
    GRID_THRESHOLD,
    GridThresholdClaim,
    check_grid_threshold,
    read_grid_threshold,
    read_grid_threshold_claim,
)
from exactdp.kernel.threshold_json import read_threshold
from exactdp.kernel.threshold_quotient import QUOTIENT_KIND, check_quotient, read_quotient
from exactdp.kernel.threshold_structured import STRUCTURED_KIND, check_structured, read_structured
from exactdp.spaces.metrics import FiniteMetric, grid
from exactdp.spaces.metrics.masked import GridShape, masked_grid

__all__ = ["SCALED_KIND", "INNER_KINDS", "ScaledClaim", "read_scaled", "read_unit", "read_inner", "check_scaled",
           "same_scaled_metric", "scaled_question_ok", "shape_metric", "size"]

#: The ``kind`` of a scaled threshold document (``CertificateKind.EXACT_SCALED``).
SCALED_KIND = "exact-scaled"

#: Inner kind -> (reader of its document, check of its claim).
_INNER: dict[str, tuple[Callable[[Any], Any], Callable[[Any], bool]]] = {
    **{k: (lambda d: read_threshold(d, 1), check_threshold) for k in THRESHOLD_KINDS},
    STRUCTURED_KIND: (read_structured, check_structured),
    QUOTIENT_KIND: (read_quotient, check_quotient),
    GRID_THRESHOLD: (read_grid_threshold, check_grid_threshold),
}
#: The kinds an ``inner`` document may have.
INNER_KINDS = tuple(_INNER)


@dataclass(frozen=True)
class ScaledClaim:
    """ε*(metric, rhs) ∈ eps, from ``inner`` (a threshold claim about metric/unit).

    ``metric`` is a FiniteMetric or a GridShape; ``inner`` a ThresholdClaim (any kind of
    :data:`INNER_KINDS` but ``grid-threshold``) or a GridThresholdClaim."""

    metric: FiniteMetric | GridShape
    rhs: tuple[Fraction, ...]
    eps: Enclosure
    unit: Fraction
    inner: Any


def size(x: Any) -> str:
    """x itself when short, else its magnitude (str() of a huge Fraction raises).

    >>> size(Fraction(7, 2)), size(Fraction(-1, 10**5000)), size(None)
    ('7/2', '-2^-16609 (about)', 'None')
    """
    if not isinstance(x, Fraction) or max(x.numerator.bit_length(), x.denominator.bit_length()) <= 64:
        return str(x) if isinstance(x, Fraction) else repr(x)
    return f"{'-' if x < 0 else ''}2^{x.numerator.bit_length() - x.denominator.bit_length()} (about)"


def read_unit(value: Any) -> Fraction:
    """``evidence.unit``: a rational c > 0 (else malformed)."""
    c = read_rational(value, "evidence.unit")
    if c <= 0:
        raise InvalidArgument(f"evidence.unit: c = {size(c)}; the unit must be a rational > 0 (every "
                              "distance is c times the inner metric's).")
    return c


def read_inner(value: Any) -> Any:
    """``evidence.inner``: a complete threshold document of a kind of :data:`INNER_KINDS`,
    read by that kind's reader (malformed: InvalidArgument naming ``evidence.inner``)."""
    kind = value.get("kind") if isinstance(value, dict) else None
    if kind not in _INNER:
        raise InvalidArgument(f"evidence.inner: kind {kind!r}; a scaled certificate carries a threshold "
                              f"document of the unit metric, one of {sorted(_INNER)}.")
    try:
        return _INNER[kind][0](value)
    except InvalidArgument as err:  # the location: the inner document's own paths are relative
        raise type(err)(f"evidence.inner: {err}") from err


def _read_grid_outer(doc: Any) -> tuple[GridShape, tuple[Fraction, ...], Enclosure, dict[str, Any]]:
    """(shape, rhs, eps, evidence) of a document whose question is a grid shape: property
    fitting b (``threshold-tight`` with ``"ones"``), every ε > 0, verdict ``holds``."""
    env, q, shape, ones, rhs = read_grid_question(doc, SCALED_KIND)
    eps = read_grid_threshold_claim(env, q, ones, rhs)
    return shape, rhs, eps, read_object(env.evidence, "evidence", ("unit", "inner"))


def read_scaled(doc: Any) -> ScaledClaim:
    """Read an ``exact-scaled`` document (InvalidArgument: malformed; CertificateInvalid: an
    altered question, outer or inner)."""
    env = read_envelope(doc)
    qm = env.question.get("metric") if isinstance(env.question, dict) else None
    metric: FiniteMetric | GridShape
    if isinstance(qm, dict) and qm.get("encoding") == "grid":
        metric, rhs, eps, evid = _read_grid_outer(doc)
    else:
        q, rhs, eps, _, evid = read_threshold_parts(env, SCALED_KIND, ("verdict", "eps"), ("unit", "inner"))
        metric = q.metric
    return ScaledClaim(metric, rhs, eps, read_unit(evid["unit"]), read_inner(evid["inner"]))


def same_scaled_metric(metric: FiniteMetric, unit_metric: FiniteMetric, c: Fraction) -> bool:
    """d(i, j) = c·d′(i, j) for every pair, exactly, in the same point order."""
    n = metric.n
    if unit_metric.n != n:
        return False
    table: dict[Fraction, int] = {}
    own = np.array([table.setdefault(v.square, len(table)) for v in metric.values], dtype=np.int64)
    scaled = np.array([table.setdefault(v.square * c * c, len(table)) for v in unit_metric.values],
                      dtype=np.int64)
    a, b = np.asarray(metric.index), np.asarray(unit_metric.index)
    return all(np.array_equal(own[a[i:i + 256]], scaled[b[i:i + 256]]) for i in range(0, n, 256))


def shape_metric(s: GridShape) -> FiniteMetric:
    """The library metric of a grid shape (its distances by the constructor, not by the document)."""
    if s.mask is None:
        return grid(s.width, s.height, s.norm, s.spacing)
    return masked_grid(s.width, s.height, s.norm, s.spacing, mask=s.mask_rows())


def scaled_question_ok(metric: FiniteMetric | GridShape, unit: FiniteMetric | GridShape, c: Fraction) -> bool:
    """d = c·d′ pair by pair: O(1) for two shapes (same grid, spacing h = c·h′), else exactly
    per pair (a shape rebuilt by the library constructor, only once both sizes agree)."""
    if isinstance(metric, GridShape) and isinstance(unit, GridShape):
        return (isinstance(unit.spacing, Fraction) and isinstance(metric.spacing, Fraction)
                and unit.spacing * c == metric.spacing
                and dataclasses.replace(unit, spacing=metric.spacing) == metric)
    if metric.n != unit.n:
        return False
    if isinstance(metric, GridShape):  # the unit metric is the shape at spacing h/c
        metric, c = shape_metric(dataclasses.replace(metric, spacing=metric.spacing / c)), Fraction(1)
    return same_scaled_metric(metric, shape_metric(unit) if isinstance(unit, GridShape) else unit, c)


def check_scaled(c: ScaledClaim) -> bool:
    """Module doc (``proofs/grid_spacing_scaling.py``): the inner claim is about metric/c and
    the outer rhs, re-checks, and the outer enclosure is the inner one divided by c. Raises
    CertificateInvalid (with the reason) for a claim not bound to its inner document."""
    inner, unit = c.inner, c.unit
    if not isinstance(c.metric, (FiniteMetric, GridShape)) or not isinstance(c.rhs, tuple):
        raise CertificateInvalid("the question's metric is not a metric or a grid shape.")
    kind = GRID_THRESHOLD if isinstance(inner, GridThresholdClaim) else getattr(inner, "kind", None)
    if not isinstance(unit, Fraction) or unit <= 0 or kind not in _INNER or not isinstance(c.eps, Enclosure):
        raise CertificateInvalid(f"unit c = {size(unit)} is not a rational > 0, or the inner claim is "
                                 "not a threshold claim.")
    inner_q = inner.shape if isinstance(inner, GridThresholdClaim) else inner.metric
    if not scaled_question_ok(c.metric, inner_q, unit):
        raise CertificateInvalid(f"evidence.inner: its metric is not the question's metric with every "
                                 f"distance divided by c = {size(unit)} (same points, same order).")
    if tuple(inner.rhs) != tuple(c.rhs):
        raise CertificateInvalid("evidence.inner: its right-hand side is not the question's.")
    if c.eps.lo != inner.eps.lo / unit or c.eps.hi != inner.eps.hi / unit:
        raise CertificateInvalid(f"claim.eps = [{size(c.eps.lo)}, {size(c.eps.hi)}] is not the inner "
                                 f"[{size(inner.eps.lo)}, {size(inner.eps.hi)}] divided by c = {size(unit)}.")
    return bool(_INNER[kind][1](inner))
