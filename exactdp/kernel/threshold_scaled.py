"""Scaled exact threshold certificates (kind ``exact-scaled``): ε* of a metric d = c·d′.

Φ_d(ε) = Φ_d′(c·ε) entrywise, so ε*_d = ε*_d′/c (``proofs/grid_spacing_scaling.py``). A
document states the question of d (metric, rhs, the ε-range of every ε > 0) and the claim
``eps`` {lo, hi}; its evidence is the exact unit ``unit`` c = p/q > 0 and ``inner``, a complete
``exact`` threshold document of d′. The kernel derives d′ = d/c from the outer question
(the inner question is not trusted: its metric must equal d/c exactly, pair by pair in point
order, and its rhs the outer one), re-checks the inner document with the ``exact`` check of
:mod:`exactdp.kernel.threshold`, and checks lo = lo′/c and hi = hi′/c exactly. The inner
polynomials are in u = e^{−c·ε}: degree g = q·c times smaller than the ``exact`` document of d.

>>> from exactdp.spaces.metrics import line
>>> read_unit("1000"), read_unit("1/3")
(Fraction(1000, 1), Fraction(1, 3))
>>> read_unit("-1/2")  # doctest: +ELLIPSIS
Traceback (most recent call last):
exactdp.errors.InvalidArgument: evidence.unit: c = -1/2; the unit must be a rational > 0 ...
>>> same_scaled_metric(line(3), line(3), Fraction(1)), same_scaled_metric(line(3), line(3), Fraction(2))
(True, False)
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from exactdp.arithmetic.interval import Enclosure
from exactdp.errors import CertificateInvalid, InvalidArgument
from exactdp.kernel.jsonio import read_envelope, read_rational
from exactdp.kernel.threshold import ThresholdClaim, check_threshold
from exactdp.kernel.threshold_json import read_threshold, read_threshold_parts
from exactdp.spaces.metrics import FiniteMetric

__all__ = ["SCALED_KIND", "ScaledClaim", "read_scaled", "read_unit", "check_scaled", "same_scaled_metric", "size"]

#: The ``kind`` of a scaled exact threshold document (``CertificateKind.EXACT_SCALED``).
SCALED_KIND = "exact-scaled"


@dataclass(frozen=True)
class ScaledClaim:
    """ε*(metric, rhs) ∈ eps, from ``inner`` (an ``exact`` claim about metric/unit)."""

    metric: FiniteMetric
    rhs: tuple[Fraction, ...]
    eps: Enclosure
    unit: Fraction
    inner: ThresholdClaim


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


def read_scaled(doc: Any) -> ScaledClaim:
    """Read an ``exact-scaled`` document (InvalidArgument: malformed; CertificateInvalid: an
    altered question, outer or inner)."""
    q, rhs, eps, _, evid = read_threshold_parts(read_envelope(doc), SCALED_KIND, ("verdict", "eps"),
                                                ("unit", "inner"))
    unit = read_unit(evid["unit"])
    try:
        inner = read_threshold(evid["inner"], 1)
    except InvalidArgument as err:  # the location: the inner document's own paths are relative
        raise type(err)(f"evidence.inner: {err}") from err
    if inner.kind != "exact":
        raise InvalidArgument(f"evidence.inner: kind {inner.kind!r}; a scaled certificate carries "
                              "an \"exact\" threshold document of the unit metric.")
    return ScaledClaim(q.metric, rhs, eps, unit, inner)


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


def check_scaled(c: ScaledClaim) -> bool:
    """Module doc (``proofs/grid_spacing_scaling.py``): the inner claim is about metric/c and
    the outer rhs, re-checks, and the outer enclosure is the inner one divided by c. Raises
    CertificateInvalid (with the reason) for a claim not bound to its inner document."""
    inner, unit = c.inner, c.unit
    if not isinstance(unit, Fraction) or unit <= 0 or not isinstance(inner, ThresholdClaim) or inner.kind != "exact":
        raise CertificateInvalid(f"unit c = {size(unit)} is not a rational > 0, or the inner claim is not exact.")
    if not same_scaled_metric(c.metric, inner.metric, unit):
        raise CertificateInvalid(f"evidence.inner: its metric is not the question's metric with every "
                                 f"distance divided by c = {size(unit)} (same points, same order).")
    if tuple(inner.rhs) != tuple(c.rhs):
        raise CertificateInvalid("evidence.inner: its right-hand side is not the question's.")
    if c.eps.lo != inner.eps.lo / unit or c.eps.hi != inner.eps.hi / unit:
        raise CertificateInvalid(f"claim.eps = [{size(c.eps.lo)}, {size(c.eps.hi)}] is not the inner "
                                 f"[{size(inner.eps.lo)}, {size(inner.eps.hi)}] divided by c = {size(unit)}.")
    return check_threshold(inner)
