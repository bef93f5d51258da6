"""Re-check a certificate document: the entry point of the kernel (``exactdp verify``).

>>> from exactdp.spaces.metrics import line
>>> from exactdp.spaces.levels import parse_level
>>> from exactdp.kernel.linear import LinearClaim
>>> from exactdp.engine.documents import write_linear
>>> from fractions import Fraction as F
>>> doc = write_linear(LinearClaim("exact-solution", line(2), parse_level(t="1/2"),
...                                (F(1), F(1)), True, {"x": (F(2, 3), F(2, 3))}))
>>> verify_document(doc).verified
True
>>> doc["claim"]["solution"] = ["2/3", "1/3"]
>>> verify_document(doc)
KernelVerdict(verified=False, kind='exact-solution', reason='the claim does not re-check')
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from exactdp.errors import CertificateInvalid, InvalidArgument
from exactdp.kernel.grid_point import GRID_POINT, check_grid_point_document
from exactdp.kernel.grid_point_exact import GRID_POINT_EXACT, check_grid_point_exact, read_grid_point_exact
from exactdp.kernel.jsonio import document_numbers, loads, read_envelope, shorten_numbers
from exactdp.kernel.linear import LINEAR_KINDS, check_linear
from exactdp.kernel.linear_json import read_linear
from exactdp.kernel.privacy import PRIVACY_CHECK, PRIVACY_KINDS, PRIVACY_LEVEL, check_privacy, check_privacy_level
from exactdp.kernel.privacy_json import read_privacy_check, read_privacy_level
from exactdp.kernel.pufferfish import PUFFERFISH_KINDS, check_pufferfish
from exactdp.kernel.pufferfish_integrals import INTEGRAL_KINDS, check_pufferfish_integrals
from exactdp.kernel.pufferfish_mechanisms import MECHANISM_KINDS, check_pufferfish_mechanisms
from exactdp.kernel.pufferfish_more import MORE_KINDS, check_pufferfish_more
from exactdp.kernel.qif import QIF_KINDS, check_qif
from exactdp.kernel.qif_log import QIF_LOG_KINDS, check_qif_log
from exactdp.kernel.remap import REMAP_KINDS, check_remap, read_remap
from exactdp.kernel.sets import SET_FUNCTIONALS, SET_PRIVACY, check_set_functional_document, check_set_privacy_document
from exactdp.kernel.sets_real import REAL_SET_KINDS, check_real_set_document
from exactdp.kernel.threshold import check_threshold
from exactdp.kernel.threshold_cover_claims import COVER_KINDS, check_cover_threshold, read_cover_threshold
from exactdp.kernel.threshold_exact import EXACT_KINDS, check_exact_threshold, read_exact_threshold
from exactdp.kernel.threshold_grid import GRID_THRESHOLD, check_grid_threshold, read_grid_threshold
from exactdp.kernel.threshold_json import read_threshold
from exactdp.kernel.threshold_quotient import QUOTIENT_KIND, check_quotient, read_quotient
from exactdp.kernel.threshold_scaled import SCALED_KIND, check_scaled, read_scaled
from exactdp.kernel.threshold_spd import SPD_POINT, check_spd_point
from exactdp.kernel.threshold_spd_json import read_spd_point
from exactdp.kernel.threshold_structured import STRUCTURED_KIND, check_structured, read_structured

__all__ = ["KernelVerdict", "verify_document", "verify_json", "SUPPORTED_KINDS", "KIND_CHECKS"]

_Reader = Callable[[Any], Any]
_Checker = Callable[[Any], bool]


def _table(*rows: tuple[tuple[str, ...], _Reader | None, _Checker]) -> dict[str, tuple[_Reader | None, _Checker]]:
    """kind -> (reader, checker) of the ``rows`` (kinds, reader, checker); the rows' kinds are
    disjoint (``tests/kernel/test_kernel_closure15.py``)."""
    return {kind: (reader, checker) for kinds, reader, checker in rows for kind in kinds}


#: kind -> (reader, checker): a document of that kind is verified when ``checker(reader(doc))``
#: (reader None: ``checker(doc)``, the checker reads its document itself) is true. The
#: dispatch of :func:`verify_document` and ``scripts/kernel_closure.py`` both read this table.
KIND_CHECKS = _table(
    (LINEAR_KINDS, read_linear, check_linear), (EXACT_KINDS, read_exact_threshold, check_exact_threshold),
    (("kronecker-threshold",), read_threshold, check_threshold),
    (COVER_KINDS, read_cover_threshold, check_cover_threshold),
    ((STRUCTURED_KIND,), read_structured, check_structured), ((SPD_POINT,), read_spd_point, check_spd_point),
    ((GRID_POINT,), None, check_grid_point_document), ((QUOTIENT_KIND,), read_quotient, check_quotient),
    ((GRID_THRESHOLD,), read_grid_threshold, check_grid_threshold),
    ((SET_PRIVACY,), None, check_set_privacy_document),
    ((GRID_POINT_EXACT,), read_grid_point_exact, check_grid_point_exact), ((SCALED_KIND,), read_scaled, check_scaled),
    ((PRIVACY_LEVEL,), read_privacy_level, check_privacy_level), ((PRIVACY_CHECK,), read_privacy_check, check_privacy),
    (PUFFERFISH_KINDS, None, check_pufferfish), (REMAP_KINDS, read_remap, check_remap),
    (MORE_KINDS, None, check_pufferfish_more), (INTEGRAL_KINDS, None, check_pufferfish_integrals),
    (MECHANISM_KINDS, None, check_pufferfish_mechanisms), (SET_FUNCTIONALS, None, check_set_functional_document),
    (QIF_KINDS, None, check_qif), (QIF_LOG_KINDS, None, check_qif_log), (REAL_SET_KINDS, None, check_real_set_document))

#: The certificate kinds whose JSON documents the kernel re-checks.
SUPPORTED_KINDS = tuple(KIND_CHECKS)


@dataclass(frozen=True)
class KernelVerdict:
    """The kernel's answer on a well-formed document: ``verified`` or not, and why not."""

    verified: bool
    kind: str
    reason: str = ""


@document_numbers()  # huge numbers: read within the stated limit, messages shortened
def verify_document(doc: Any) -> KernelVerdict:
    """Re-check a parsed document from scratch (question rebuilt, every claim re-proved).

    Raises :class:`~exactdp.errors.InvalidArgument` when the document is malformed (not
    this schema, a kind without a JSON form yet, a non-canonical part); returns
    ``verified=False`` when it is well formed but its question was altered (fingerprint)
    or a claim does not re-check.
    """
    kind = read_envelope(doc, PRIVACY_KINDS).kind
    if kind not in SUPPORTED_KINDS:
        raise InvalidArgument(f"kind: {kind!r} has no JSON form in this version; the kernel "
                              f"re-checks {list(SUPPORTED_KINDS)} (re-check it in Python with "
                              "its verify()).")
    reader, checker = KIND_CHECKS[kind]
    try:
        ok = checker(doc if reader is None else reader(doc))
    except CertificateInvalid as exc:
        return KernelVerdict(False, kind, shorten_numbers(str(exc)))  # built inside the scope: shorten here
    if ok:
        return KernelVerdict(True, kind)
    return KernelVerdict(False, kind, "the claim does not re-check")


def verify_json(text: str | bytes) -> KernelVerdict:
    """:func:`verify_document` of a JSON text (strict reader: no floats, no duplicate keys)."""
    return verify_document(loads(text))
