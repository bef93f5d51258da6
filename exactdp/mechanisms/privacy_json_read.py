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

from typing import Any

from exactdp.mechanisms.privacy import PrivacyCheck
from exactdp.mechanisms.privacy_result import PrivacyLevelResult

__all__ = ["level_from_document", "check_from_document"]


def level_from_document(doc: Any) -> PrivacyLevelResult:
    """Read a ``privacy-level`` document back (re-checked by the kernel first; a rejected
    document raises :class:`~exactdp.errors.CertificateInvalid`):
    :meth:`PrivacyLevelResult.from_document
    <exactdp.mechanisms.privacy_result.PrivacyLevelResult.from_document>`."""
    return PrivacyLevelResult.from_document(doc)


def check_from_document(doc: Any) -> PrivacyCheck:
    """Read a ``privacy-check`` document back: :meth:`PrivacyCheck.from_document
    <exactdp.mechanisms.privacy.PrivacyCheck.from_document>`."""
    return PrivacyCheck.from_document(doc)
