"""The kernel's checks of the threshold kinds ``certified-cover`` and ``spd-taylor-cover``, and their reader.

The claim "ε* ∈ [lo, hi]" is the one of :mod:`exactdp.kernel.threshold`. A cover proves it
on two sides: it **fails at lo** (a complete linear-system or spd-point document at ε = lo)
and it **holds on [hi, ∞)** (a perturbation lemma beyond −ln t0 and pieces covering
[hi, −ln t0]). These kinds have their own row of the dispatch table ``verify.KIND_CHECKS``
and their own reader, so an auditor of a cover does not read the exact-polynomial checks.

===================  ========================================================================
kind                 what is checked
===================  ========================================================================
certified-cover      0 < lo < hi; **fails at lo**: the evidence's linear or spd-point claim is
                     about this metric (same exact distances), this b and ε = lo, says
                     "fails" and re-checks (:func:`fail_side_ok`); **holds on
                     [hi, ∞)**: the perturbation lemma at t0 (exact row sums) covers
                     ε ≥ −ln t0 and the ranges cover [hi, −ln t0], each proved by the
                     mean-value Krawczyk argument in arb balls
                     (:mod:`exactdp.kernel.threshold_cover`)
spd-taylor-cover     the same frame; ranges proved by the SPD Taylor bound with λ_min
                     bounds re-proved exactly (:func:`check_spd_cover`, on
                     :func:`~exactdp.kernel.threshold_spd.cover_ok`)
===================  ========================================================================

The documents' fields are in the table of :mod:`exactdp.kernel.threshold_json`: evidence
``fail`` (a linear-system or spd-point document at ε = lo) and ``t0``; ``pieces`` (list of
{lo, hi}); for spd-taylor-cover ``order`` (K), ``nodes`` (list of {eps, sigma, lam}) and
``pieces`` (list of {lo, hi, lam}).

Examples
--------
>>> from exactdp.arithmetic.interval import Enclosure
>>> from exactdp.spaces.metrics import line
>>> check_cover_threshold(ThresholdClaim("certified-cover", line(2), (Fraction(1),) * 2,
...                                      Enclosure(Fraction(1), Fraction(2)), {"fail": None, "t0": Fraction(1, 2),
...                                                                            "pieces": ()}))
False
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

import numpy as np

from exactdp.arithmetic.interval import Enclosure
from exactdp.errors import REJECTED_ERRORS, InvalidArgument
from exactdp.kernel.jsonio import read_int, read_list, read_object, read_rational
from exactdp.kernel.linear import LinearClaim, check_linear
from exactdp.kernel.linear_json import read_linear
from exactdp.kernel.read_common import (
    MAX_PIECES,
    FieldReader,
    enclosures_field,
    nested,
    rational_field,
)
from exactdp.kernel.threshold_claim import ThresholdClaim, frame_ok, guarded, read_claim
from exactdp.kernel.threshold_cover import arb_mean_value_check, cover_frame_ok
from exactdp.kernel.threshold_spd import (
    MAX_ORDER,
    SPD_COVER,
    SPD_POINT,
    DenseProducts,
    SpdPointClaim,
    all_rational,
    check_spd_point,
    chord_ok,
    cover_ok,
    eps_in_range,
    lambda_ok,
)
from exactdp.kernel.threshold_spd_json import read_spd_point
from exactdp.spaces.metrics import FiniteMetric
from exactdp.spaces.metrics.claims import same_distances

__all__ = ["COVER_KINDS", "COVER_FIELDS", "check_cover_threshold", "read_cover_threshold", "fail_side_ok",
           "check_spd_cover"]

#: The kinds of claim this module checks (``CertificateKind`` values).
COVER_KINDS = ("certified-cover", SPD_COVER)


def check_cover_threshold(claim: ThresholdClaim) -> bool:
    """True when every part of a cover claim is re-proved (module table); False otherwise.

    Never raises on malformed evidence: a value of the wrong type or size is "not proved".
    """
    return guarded(lambda c: frame_ok(c, COVER_KINDS) and _CHECKS[c.kind](c), claim)


def _triples(keys: tuple[str, str, str]) -> FieldReader:
    """A list (at most :data:`MAX_PIECES`) of objects of three rationals named ``keys``."""
    def read(v: Any, w: str, n: int, d: int) -> tuple[tuple[Fraction, ...], ...]:
        out = []
        for k, item in enumerate(read_list(v, w, limit=MAX_PIECES)):
            obj = read_object(item, f"{w}[{k}]", keys)
            out.append(tuple(read_rational(obj[key], f"{w}[{k}].{key}") for key in keys))
        return tuple(out)
    return read


def _fail(v: Any, w: str, n: int, d: int) -> Any:
    """The fail side of a cover: an spd-point document or a linear-system one."""
    if not isinstance(v, dict):
        raise InvalidArgument(f"{w}: expected a JSON object (an spd-point or linear-system document), "
                              f"got {type(v).__name__}.")
    return nested(w, lambda doc, depth: read_spd_point(doc) if doc.get("kind") == SPD_POINT
                  else read_linear(doc, depth), v, d + 1)


#: The evidence fields of a cover.
_COVER: dict[str, FieldReader] = {"fail": _fail, "t0": rational_field}
#: Kind -> (claim fields, evidence fields) (:func:`~exactdp.kernel.read_common.read_fields`).
COVER_FIELDS: dict[str, tuple[dict[str, FieldReader], dict[str, FieldReader]]] = {
    "certified-cover": ({"verdict": None, "eps": None},
                        {**_COVER, "pieces": lambda v, w, n, d: enclosures_field(v, w, None)}),
    SPD_COVER: ({"verdict": None, "eps": None},
                {**_COVER, "order": lambda v, w, n, d: read_int(v, w, 0, MAX_ORDER),
                 "nodes": _triples(("eps", "sigma", "lam")), "pieces": _triples(("lo", "hi", "lam"))}),
}


def read_cover_threshold(doc: Any, depth: int = 0) -> ThresholdClaim:
    """Read a ``certified-cover`` or ``spd-taylor-cover`` document into a :class:`ThresholdClaim`.

    Raises :class:`~exactdp.errors.InvalidArgument` for a malformed document and
    :class:`~exactdp.errors.CertificateInvalid` when its question was altered (fingerprint).
    """
    return read_claim(doc, COVER_FIELDS, depth)


def _check_cover(c: ThresholdClaim) -> bool:
    fail, t0, pieces = c.evidence["fail"], c.evidence["t0"], c.evidence["pieces"]
    if (not 0 < c.eps.lo < c.eps.hi or not isinstance(t0, Fraction) or not isinstance(pieces, tuple)
            or not pieces or not all(isinstance(p, Enclosure) for p in pieces)):
        return False
    ranges = tuple((p.lo, p.hi) for p in pieces)
    return (fail_side_ok(fail, c.metric, c.rhs, c.eps.lo)  # a linear claim or an spd-point
            and cover_frame_ok(c.metric, c.rhs, c.eps.hi, t0, ranges)
            and all(arb_mean_value_check(c.metric, c.rhs, a, b) for a, b in ranges))


def fail_side_ok(fail: Any, metric: FiniteMetric, rhs: tuple[Fraction, ...], eps: Fraction) -> bool:
    """The fail side (an spd-point or a linear-system claim) is about these distances, this
    b and ε = eps, says "fails" and re-checks."""
    spd = isinstance(fail, SpdPointClaim)
    return ((spd or (isinstance(fail, LinearClaim) and not fail.holds))
            and same_distances(fail.metric, metric) and tuple(fail.rhs) == rhs
            and (fail.eps if spd else fail.level.eps_rational) == eps
            and (check_spd_point(fail) if spd else check_linear(fail)))


def check_spd_cover(c: Any) -> bool:
    """The ``spd-taylor-cover`` check of a threshold claim (module table); never raises.

    ``c.evidence``: ``fail`` (LinearClaim or SpdPointClaim), ``t0`` (Fraction), ``order``
    (K), ``nodes`` (tuple of (ε, σ, λ)), ``pieces`` (tuple of (a, b, λ)). Pieces are in
    increasing order without overlap: each node pair is then checked for a contiguous run
    of pieces, so the chord checks cost O(#nodes + #pieces) in total."""
    try:
        m, rhs, ev = c.metric, c.rhs, c.evidence
        if not isinstance(ev, Mapping) or not isinstance(m, FiniteMetric):
            return False
        nodes, pieces, lo = ev["nodes"], ev["pieces"], c.eps.lo
        if (not isinstance(nodes, tuple) or not all(len(x) == 3 and all_rational(*x) for x in nodes)
                or not eps_in_range(m, *(e for e, _, _ in nodes))
                or any(e0 >= e1 for (e0, _, _), (e1, _, _) in zip(nodes, nodes[1:]))
                or (pieces and not nodes)):  # no chord bound without nodes
            return False
        node_lams = [(e, lam) for e, _, lam in nodes]
        return cover_ok(DenseProducts(m), m, rhs, lo, c.eps.hi, ev["t0"], ev["order"], pieces,
                        lambda: (fail_side_ok(ev["fail"], m, rhs, lo)
                                 and all(lambda_ok(m, e, s, lam) for e, s, lam in nodes)),
                        lambda a, b, lam: chord_ok(m, node_lams, a, b, lam))
    except REJECTED_ERRORS + (np.linalg.LinAlgError,):
        return False


_CHECKS = {"certified-cover": _check_cover, SPD_COVER: check_spd_cover}
