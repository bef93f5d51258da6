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

from exactdp.mechanisms.constructors import from_rows
from exactdp.mechanisms.level_compare import log_ratio_value
from exactdp.mechanisms.mechanism import Mechanism
from exactdp.mechanisms.privacy import PrivacyCheck
from exactdp.mechanisms.privacy_json import accepted_document
from exactdp.mechanisms.privacy_result import PrivacyLevelResult, enclose_value, zero_level

__all__ = ["level_from_document", "check_from_document"]


def level_from_document(doc: Any) -> PrivacyLevelResult:
    """Read a ``privacy-level`` document back (re-checked by the kernel first; a rejected
    document raises :class:`~exactdp.errors.CertificateInvalid`)."""
    q, claim = accepted_document(doc, "privacy-level")
    assert q.mechanism is not None
    mech, metric = from_rows(q.mechanism), q.metric
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
    """Read a ``privacy-check`` document back: :meth:`PrivacyCheck.from_document
    <exactdp.mechanisms.privacy.PrivacyCheck.from_document>`."""
    return PrivacyCheck.from_document(doc)
