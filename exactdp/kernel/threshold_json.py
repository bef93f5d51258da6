"""The reader of the threshold documents (:mod:`exactdp.kernel.threshold`), every kind.

Every document is the envelope of :mod:`exactdp.kernel.jsonio`; a kind is one row of the field
table ``_THRESHOLD`` (:mod:`exactdp.kernel.read_common`). The rows of ``exact``/``prop9`` and of
the two covers are their own modules' (:mod:`exactdp.kernel.threshold_exact`,
:mod:`exactdp.kernel.threshold_cover_claims`, which also read those kinds on their own
dispatch rows); this module adds ``kronecker-threshold``, whose factors may be of any kind.

**Thresholds** (:mod:`exactdp.kernel.threshold`): the question has property
``threshold-tight`` (rhs ``"ones"``) or ``threshold-regular`` (a prior) and the ε-range of
every ε > 0 (``{"eps_range": {"lo": "0", "hi": null}}``: ε* is a global quantity). The
claim is always ``"verdict": "holds"`` for "ε* ∈ ``eps``" plus, per kind:

===================  =====================================  ================================
kind                 claim                                  evidence
===================  =====================================  ================================
exact                ``eps``; ``s_star``: null or {``q``,   ``numerators`` (integer
                     ``minimal_polynomial`` (integers,      polynomials in s, descending;
                     descending), ``isolating_interval``}   ``["0"]`` is zero),
                     — s* = e^{-ε*/q}, ε* = −q·ln s*        ``denominator``, ``witness``
prop9                ``eps`` = [0, 0]                       {}
kronecker-threshold  ``eps``                                ``binding`` (factor index),
                                                            ``factors`` (full documents)
certified-cover      ``eps``                                ``fail`` (a linear-system or
                                                            spd-point document at ε = lo),
                                                            ``t0``, ``pieces`` (list of
                                                            {lo, hi})
spd-taylor-cover     ``eps``                                ``fail``, ``t0`` as above,
                                                            ``order`` (K), ``nodes`` (list
                                                            of {eps, sigma, lam}),
                                                            ``pieces`` (list of {lo, hi,
                                                            lam})
===================  =====================================  ================================

>>> from fractions import Fraction as F
>>> from exactdp.arithmetic.interval import Enclosure
>>> from exactdp.engine.documents import write_threshold
>>> from exactdp.kernel.jsonio import dumps, loads
>>> from exactdp.spaces.metrics import cycle
>>> doc = write_threshold(ThresholdClaim("prop9", cycle(4), (F(1),) * 4, Enclosure(F(0), F(0)), {}))
>>> doc["question"]["property"], doc["claim"]
('threshold-tight', {'verdict': 'holds', 'eps': {'lo': '0', 'hi': '0'}})
>>> write_threshold(read_threshold(loads(dumps(doc)))) == doc
True
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from exactdp.kernel.jsonio import read_int
from exactdp.kernel.read_common import (
    MAX_DEPTH,
    MAX_PIECES,
    FieldReader,
    factors_field,
    read_s_star,
    read_threshold_parts,
)
from exactdp.kernel.threshold_claim import ThresholdClaim, read_claim
from exactdp.kernel.threshold_cover_claims import COVER_FIELDS
from exactdp.kernel.threshold_exact import EXACT_FIELDS

__all__ = ["read_threshold", "MAX_DEPTH", "MAX_PIECES", "read_s_star", "read_threshold_parts"]


#: Threshold kind -> (claim fields, evidence fields); ``binding`` is checked against the factors.
_THRESHOLD: dict[str, tuple[dict[str, FieldReader], dict[str, FieldReader]]] = {
    **EXACT_FIELDS,
    "kronecker-threshold": ({"verdict": None, "eps": None},
                            {"factors": factors_field(lambda doc, d: read_threshold(doc, d)),
                             "binding": lambda v, w, n, d: v}),
    **COVER_FIELDS,
}


def read_threshold(doc: Any, depth: int = 0) -> ThresholdClaim:
    """Read a document into a :class:`~exactdp.kernel.threshold.ThresholdClaim`.

    Raises :class:`~exactdp.errors.InvalidArgument` for a malformed document and
    :class:`~exactdp.errors.CertificateInvalid` when its question was altered (fingerprint).
    """
    c = read_claim(doc, _THRESHOLD, depth)
    if "binding" not in c.evidence:
        return c
    return replace(c, evidence={**c.evidence, "binding": read_int(c.evidence["binding"], "evidence.binding", 0,
                                                                  len(c.evidence["factors"]) - 1)})
