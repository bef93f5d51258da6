"""Kernel documents of the QIF results: the shared writing helpers and the kernel call.

Every exact QIF result (:class:`~exactdp.qif.measures.Vulnerability`, ``Leakage``,
``GuessingEntropy``, :class:`~exactdp.qif.capacity.Capacity`,
:class:`~exactdp.qif.compose.Refinement`, :class:`~exactdp.qif.distances.Kantorovich`,
:class:`~exactdp.qif.optimal_lp.OptimalMechanism`) writes its question, claim and evidence
with ``to_document()``; its ``verify()`` is the verdict of the independent kernel
(:mod:`exactdp.kernel.qif`) on that document, which ``exactdp verify FILE.json`` also gives
in a fresh process. The certified ones (:class:`~exactdp.qif.entropy.CertifiedQuantity`,
:class:`~exactdp.qif.shannon.ShannonCapacity`, :class:`~exactdp.qif.distances.MultiplicativeTV`)
and :class:`~exactdp.qif.measures.BayesRisk` do the same with :mod:`exactdp.kernel.qif_log`.

Examples
--------
>>> doc = document("qif-guessing-entropy", {"prior": probabilities((Fraction(1),)), "channel": None},
...                {"value": "1"}, {})
>>> kernel_verifies(lambda: doc)
True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

from exactdp.errors import CertificateInvalid, ExactDPError
from exactdp.kernel.jsonio import envelope, loads, read_envelope, write_rational
from exactdp.kernel.verify import verify_document
from exactdp.qif.gain import GainFunction

__all__ = ["document", "rows", "probabilities", "gain_json", "kernel_verifies", "checked_parts"]

#: Errors a malformed in-memory result raises while it is written (then it does not verify).
_BROKEN = (ExactDPError, TypeError, ValueError, AttributeError, IndexError, KeyError, OverflowError)


def rows(M: Sequence[Sequence[Fraction]] | None) -> list[list[str]] | None:
    """Rows of "p/q" strings (None stays None)."""
    return None if M is None else [[write_rational(v) for v in r] for r in M]


def probabilities(p: Sequence[Fraction]) -> list[str]:
    """A vector of "p/q" strings."""
    return [write_rational(v) for v in p]


def gain_json(g: GainFunction) -> dict[str, Any]:
    """``{"rows", "loss", "name"}`` (the name is a label the kernel does not read)."""
    if not isinstance(g, GainFunction):
        raise CertificateInvalid(f"Got gain {g!r}; a result holds a GainFunction.")
    return {"rows": rows(g.rows), "loss": g.is_loss, "name": g.name}


def document(kind: str, question: dict[str, Any], claim: dict[str, Any],
             evidence: dict[str, Any]) -> dict[str, Any]:
    """The envelope of a QIF document."""
    return envelope(kind, question, claim, evidence)


def kernel_verifies(make: Callable[[], dict[str, Any]]) -> bool:
    """The kernel's verdict on the document ``make()`` writes (False when it cannot be written)."""
    try:
        return verify_document(make()).verified
    except _BROKEN:
        return False


def checked_parts(doc: Any, kind: str) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """(question, claim, evidence) of a document (dict or JSON text) the kernel verifies.

    Raises :class:`~exactdp.errors.CertificateInvalid` when the kernel rejects it and
    InvalidArgument when it is malformed or of another kind.
    """
    doc = loads(doc) if isinstance(doc, (str, bytes)) else doc
    env = read_envelope(doc)
    if env.kind != kind:
        raise CertificateInvalid(f"kind: got {env.kind!r}; expected {kind!r}.")
    verdict = verify_document(doc)
    if not verdict.verified:
        raise CertificateInvalid(f"the kernel rejected the {kind} document: {verdict.reason}.")
    return env.question, env.claim, env.evidence
