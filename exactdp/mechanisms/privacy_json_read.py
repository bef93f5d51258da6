"""Read privacy documents (:mod:`exactdp.mechanisms.privacy_json`) back into results, after
the kernel re-checked them.

>>> from exactdp.spaces.metrics import line
>>> from exactdp.mechanisms.constructors import from_rows
>>> from exactdp.mechanisms.privacy import privacy_level, is_private
>>> from exactdp.mechanisms.privacy_json import check_document, level_document
>>> H = from_rows([["3/4", "1/4"], ["1/4", "3/4"]])
>>> level_from_document(level_document(privacy_level(H, line(2)))).value
log(3)
>>> check_from_document(check_document(is_private(H, line(2), eps=1))).private
False
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import sympy

from exactdp.errors import CertificateInvalid, InvalidArgument
from exactdp.kernel.jsonio import loads
from exactdp.kernel.question import Question
from exactdp.kernel.verify import verify_document
from exactdp.mechanisms.constructors import from_rows
from exactdp.mechanisms.level_compare import log_ratio_value
from exactdp.mechanisms.mechanism import Mechanism
from exactdp.mechanisms.privacy import PrivacyCheck, is_private
from exactdp.mechanisms.privacy_result import PrivacyLevelResult, enclose_value, zero_level

__all__ = ["level_from_document", "check_from_document"]


def _accepted(doc: Any, kind: str) -> Question:
    if isinstance(doc, (str, bytes)):
        doc = loads(doc)
    verdict = verify_document(doc)
    if verdict.kind != kind:
        raise InvalidArgument(f"kind: got {verdict.kind!r}; expected {kind!r}.")
    if not verdict.verified:
        raise CertificateInvalid(f"the {kind} document does not re-check: {verdict.reason}")
    return Question.from_json(doc["question"])


def level_from_document(doc: Any) -> PrivacyLevelResult:
    """Read a ``privacy-level`` document back (re-checked by the kernel first; a rejected
    document raises :class:`~exactdp.errors.CertificateInvalid`)."""
    q = _accepted(doc, "privacy-level")
    doc = loads(doc) if isinstance(doc, (str, bytes)) else doc
    assert q.mechanism is not None
    mech, metric = from_rows(q.mechanism), q.metric
    claim = doc["claim"]
    w = None if claim["witness"] is None else tuple(claim["witness"])
    return _level_result(mech, metric, claim["value"], w)


def _level_result(mech: Mechanism, metric: Any, value: Any, w: Any) -> PrivacyLevelResult:
    npairs = len(metric.check_edges())
    if value == "0":
        return zero_level(mech, metric, npairs, "exact")
    a, b, z = w
    if value == "infinite":
        return PrivacyLevelResult(value=sympy.oo, enclosure=None, witness=w, ratio=None,
                                  distance=metric.distance(a, b), method="exact",
                                  pairs_checked=npairs, _mechanism=mech, _metric=metric)
    R, d = Fraction(mech.entry(a, z) / mech.entry(b, z)), metric.distance(a, b)
    v = log_ratio_value(R, d)
    return PrivacyLevelResult(value=v, enclosure=enclose_value(v), witness=w, ratio=R,
                              distance=d, method="exact", pairs_checked=npairs,
                              _mechanism=mech, _metric=metric)


def check_from_document(doc: Any) -> PrivacyCheck:
    """Read a ``privacy-check`` document back: the kernel re-checks it, then the verdict is
    recomputed with :func:`~exactdp.mechanisms.privacy.is_private` (same question) and must
    agree."""
    q = _accepted(doc, "privacy-check")
    assert q.mechanism is not None and q.level is not None
    chk = is_private(from_rows(q.mechanism), q.metric, eps=q.level.eps)  # type: ignore[union-attr]
    doc = loads(doc) if isinstance(doc, (str, bytes)) else doc
    if chk.private != (doc["claim"]["verdict"] == "holds"):
        raise CertificateInvalid("the kernel accepted the document but is_private disagrees; "
                                 "please report this as a bug.")
    return chk
