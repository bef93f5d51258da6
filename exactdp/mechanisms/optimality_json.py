"""Remap certificates of :func:`~exactdp.mechanisms.optimality.is_optimal` as kernel documents.

:func:`remap_document` writes a :class:`~exactdp.mechanisms.optimality.RemapCertificate`
(kind ``remap``) or :class:`~exactdp.mechanisms.optimality.FarkasRemapCertificate` (kind
``remap-farkas``) with its whole question (metric, exact level, exact rows of H);
``exactdp verify FILE`` re-checks it with the kernel alone (:mod:`exactdp.kernel.remap`:
H private at ε, then the remap or the Farkas vector, in exact rationals), and
:func:`remap_from_document` reads one back after the kernel accepted it.

Only exact questions travel: H exact and row-stochastic, and s = e^{−ε/q} itself rational
(q: the denominator of the metric's distances; rational Φ entries s^k with an irrational s,
e.g. ε = (3/2)·ln 2 on distances 2/3, 4/3, are not enough). Otherwise
:class:`~exactdp.errors.ExactnessRequired` (certified entries, an irrational s: the
certificate's ``verify()`` re-checks it in Python). A Φ table beyond the kernel's size limit
(:data:`~exactdp.kernel.remap.MAX_PHI_BITS`) or a privacy scan beyond its work limit raises
:class:`~exactdp.errors.InstanceTooLarge` before anything is written.

A ``remap-farkas`` document reuses the ``private`` question with the verdict ``fails``: it
says "H is *not optimal* for every regular prior" (no remap solves Thm. 4's condition), not
"H is not private" — only ``kind`` tells the two apart, so a reader must dispatch on
``kind`` (as :func:`~exactdp.kernel.verify.verify_document` does), never on the question and
verdict alone. Its H *is* private at ε: the kernel re-checks that first.

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

from exactdp.engine.documents import write_remap
from exactdp.engine.questions import make_question
from exactdp.errors import ExactnessRequired, InvalidArgument
from exactdp.kernel.jsonio import loads, read_envelope, read_rational
from exactdp.kernel.question import Property
from exactdp.kernel.remap import REMAP_KINDS
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
    q = make_question(cert.metric, Property.PRIVATE, None, cert.level, rows)
    try:
        if cert.kind is CertificateKind.REMAP:
            return write_remap(q, True, cert.remap)  # type: ignore[union-attr]
        return write_remap(q, False, cert.w)  # type: ignore[union-attr]
    except InvalidArgument as exc:  # the kernel builds Φ = (s^k) from s itself
        raise ExactnessRequired(
            f"at {cert.level} on {cert.metric.name}, s = e^(-ε/q) is irrational (q = "
            f"{cert.metric.q}; even if every Φ entry e^(-ε·d) = s^k is rational), so the "
            "kernel cannot re-check this certificate in exact rationals; its verify() "
            f"re-checks it in Python (identities in Q(x), balls). Kernel: {exc}") from exc


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
