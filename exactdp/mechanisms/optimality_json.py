"""Remap certificates of :func:`~exactdp.mechanisms.optimality.is_optimal` as kernel documents.

:func:`remap_document` writes a :class:`~exactdp.mechanisms.optimality.RemapCertificate`
(kind ``remap``) or :class:`~exactdp.mechanisms.optimality.FarkasRemapCertificate` (kind
``remap-farkas``) with its whole question (metric, exact level, exact rows of H);
``exactdp verify FILE`` re-checks it with the kernel alone (:mod:`exactdp.kernel.remap`:
H private at ε, then the remap or the Farkas vector, in exact rationals), and
:func:`remap_from_document` reads one back after the kernel accepted it.

Only exact questions travel: H exact and row-stochastic, and every Φ entry e^{−ε·d}
rational (s = e^{−ε/q} rational). Otherwise :class:`~exactdp.errors.ExactnessRequired`
(certified entries, an irrational Φ: the certificate's ``verify()`` re-checks it in Python).

>>> from exactdp.spaces.metrics import line
>>> from exactdp.mechanisms.constructors import truncated_geometric
>>> from exactdp.mechanisms.optimality import RemapCertificate, is_optimal
>>> cert = is_optimal(truncated_geometric(3, t="1/2"), line(3), t="1/2").certificate
>>> doc = cert.to_json()
>>> doc["kind"], doc["claim"]["remap"][0]
('remap', ['1', '0', '0'])
>>> back = RemapCertificate.from_json(doc)
>>> back.remap == cert.remap, back.verify()
(True, True)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from exactdp.errors import ExactnessRequired, InvalidArgument
from exactdp.kernel.jsonio import loads, read_envelope, read_rational
from exactdp.kernel.question import Property, Question
from exactdp.kernel.remap import REMAP_KINDS, write_remap
from exactdp.kinds import CertificateKind
from exactdp.mechanisms.constructors import from_rows
from exactdp.mechanisms.privacy_json import accepted_document, exact_rows
from exactdp.spaces.levels import PrivacyLevel

if TYPE_CHECKING:
    from exactdp.mechanisms.optimality import FarkasRemapCertificate, RemapCertificate

__all__ = ["remap_document", "remap_from_document"]


def remap_document(cert: RemapCertificate | FarkasRemapCertificate) -> dict[str, Any]:
    """The kernel document of a remap or Farkas remap certificate."""
    rows = tuple(tuple(r) for r in exact_rows(cert.mechanism))
    q = Question(cert.metric, Property.PRIVATE, None, cert.level, rows)
    try:
        if cert.kind is CertificateKind.REMAP:
            return write_remap(q, True, cert.remap)  # type: ignore[union-attr]
        return write_remap(q, False, cert.w)  # type: ignore[union-attr]
    except InvalidArgument as exc:
        raise ExactnessRequired(
            f"at {cert.level} on {cert.metric.name} some Φ entry e^(-ε·d) is irrational, so "
            "the kernel cannot re-check this certificate in exact rationals; its verify() "
            "re-checks it in Python (identities in Q(x), balls).") from exc


def remap_from_document(cls: type[Any], doc: Any) -> Any:
    """The certificate a ``remap``/``remap-farkas`` document states (kernel-checked first;
    rejected: CertificateInvalid). ``cls`` is the certificate class the kind must match."""
    if isinstance(doc, (str, bytes)):
        doc = loads(doc)
    kind = read_envelope(doc).kind
    want = cls.__dataclass_fields__["kind"].default.value
    if kind not in REMAP_KINDS or kind != want:
        raise InvalidArgument(f"kind: got {kind!r}; {cls.__name__} reads {want!r} documents.")
    q, claim = accepted_document(doc, kind)
    assert q.mechanism is not None and isinstance(q.level, PrivacyLevel)
    mech = from_rows(q.mechanism)
    if kind == CertificateKind.REMAP.value:
        remap = tuple(tuple(read_rational(x, "claim.remap") for x in r) for r in claim["remap"])
        return cls(remap, mech, q.metric, q.level)
    return cls(tuple(read_rational(x, "claim.w") for x in claim["w"]), mech, q.metric, q.level)
