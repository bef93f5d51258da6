"""Shannon entropy and mutual information as certified enclosures (ball arithmetic).

Entropies of rational distributions are logarithms, irrational in general, so they are
*certified*: an :class:`~exactdp.arithmetic.interval.Enclosure` with exact rational
endpoints, computed with ``arb`` balls at a recorded precision (at most
:data:`~exactdp.kernel.qif_log.MAX_LOG_PREC` bits). A :class:`CertifiedQuantity` is a
number, not a yes/no question: it carries no verdict. It writes a kernel document (kind
``qif-entropy``, :meth:`CertifiedQuantity.to_document`); ``verify()`` is the verdict of the
independent kernel (:mod:`exactdp.kernel.qif_log`) on it: the inputs re-validated, the ball
recomputed there at the recorded precision and found inside the enclosure (so the enclosure
contains the true value). ``exactdp verify FILE.json`` gives the same verdict in a fresh
process. The enclosure is the kernel's own ball (:func:`~exactdp.kernel.qif_log.entropy_enclosure`),
so the writer refuses exactly the oversized documents the kernel refuses.

* H(π) = −Σ_x π_x log2 π_x;
* H(X | Y) = −Σ_{x,y} J[x][y] log2(J[x][y] / p_y) with J[x][y] = π_x C[x][y], p_y = Σ_x J;
* I(X; Y) = H(X) − H(X | Y) = Σ_{x,y} J log2(J / (π_x p_y)).

Examples
--------
>>> H = shannon_entropy(["1/2", "1/4", "1/4"])
>>> H.enclosure.contains(Fraction(3, 2)), H.verify()
(True, True)
>>> mutual_information([[1, 0], [0, 1]]).enclosure.contains(1)
True
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from exactdp.arithmetic.interval import Enclosure
from exactdp.arithmetic.validate import read_precision
from exactdp.errors import InvalidArgument
from exactdp.kernel.jsonio import read_enclosure, read_rational, write_enclosure, write_rational
from exactdp.kernel.qif_log import MAX_LOG_PREC, QUANTITIES, entropy_enclosure
from exactdp.kinds import CertificateKind
from exactdp.qif.channel import Matrix, prior_values, read_channel
from exactdp.qif.documents import checked_parts, document, kernel_verifies, probabilities, rows
from exactdp.qif.measures import read_matrix_json, write_matrix

__all__ = ["CertifiedQuantity", "shannon_entropy", "conditional_entropy", "mutual_information",
           "read_log_precision"]

ENTROPY = CertificateKind.QIF_ENTROPY.value


def read_log_precision(value: Any, name: str = "prec") -> int:
    """Bits of the ball arithmetic: a whole number in [53, MAX_PREC] (a specific error else).

    >>> read_log_precision(10**6)
    Traceback (most recent call last):
    ...
    exactdp.errors.InvalidArgument: Got prec=1000000; at most MAX_PREC = 4096 bits (e.g. 128).
    """
    prec = read_precision(value, name)
    if prec > MAX_LOG_PREC:
        raise InvalidArgument(f"Got {name}={prec}; at most MAX_PREC = {MAX_LOG_PREC} bits (e.g. 128).")
    return prec


@dataclass(frozen=True)
class CertifiedQuantity:
    """A certified real number (in bits): the truth lies in ``enclosure``.

    Attributes
    ----------
    quantity : str
        "shannon-entropy", "conditional-entropy" or "mutual-information".
    enclosure : Enclosure
        Exact rational endpoints; contains the true value.
    precision : int
        Bits of the ball arithmetic used (the kernel recomputes at it).
    prior : tuple of Fraction
    channel : exact matrix or None (entropy of the prior alone)
    """

    quantity: str
    enclosure: Enclosure
    precision: int
    prior: tuple[Fraction, ...]
    channel: Matrix | None = None

    def __float__(self) -> float:
        return float(self.enclosure.mid)

    def verify(self) -> bool:
        """The kernel's verdict on :meth:`to_document`: the prior a distribution, the channel
        a channel on its secrets (None exactly for the Shannon entropy), the precision in
        range, the ball recomputed inside the enclosure. False (never an exception) for
        anything else."""
        return kernel_verifies(self.to_document)

    def to_document(self) -> dict[str, Any]:
        """The kernel document (kind ``qif-entropy``; ``exactdp verify`` re-checks it).

        >>> H = shannon_entropy(["1/3", "2/3"])
        >>> H.to_document()["question"]["quantity"], CertifiedQuantity.from_document(H.to_document()) == H
        ('shannon-entropy', True)
        """
        return document(ENTROPY, {"quantity": self.quantity, "unit": "bits", "prior": probabilities(self.prior),
                                  "channel": rows(self.channel)},
                        {"enclosure": write_enclosure(self.enclosure)}, {"precision": self.precision})

    @classmethod
    def from_document(cls, doc: Any) -> CertifiedQuantity:
        """Read a document the kernel verifies (else CertificateInvalid / InvalidArgument)."""
        q, c, e = checked_parts(doc, ENTROPY)
        return cls(q["quantity"], read_enclosure(c["enclosure"]), e["precision"],
                   tuple(read_rational(p, "prior") for p in q["prior"]), read_matrix_json(q["channel"]))

    def to_json(self) -> dict[str, Any]:
        """Exact JSON (the flat layout of earlier versions); :meth:`from_json` reads it back,
        and reads :meth:`to_document` too.

        >>> H = shannon_entropy(["1/3", "2/3"])
        >>> CertifiedQuantity.from_json(H.to_json()) == H == CertifiedQuantity.from_json(H.to_document())
        True
        """
        return {"quantity": self.quantity, "unit": "bits",
                "enclosure": write_enclosure(self.enclosure), "precision": self.precision,
                "prior": [write_rational(p) for p in self.prior],
                "channel": write_matrix(self.channel)}

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> CertifiedQuantity:
        """Read :meth:`to_json` (validated; ``verify()`` checks the claim) or a kernel document
        (:meth:`from_document`: verified on reading)."""
        if isinstance(doc, dict) and "schema" in doc:
            return cls.from_document(doc)
        if doc.get("quantity") not in QUANTITIES:
            raise InvalidArgument(f"unknown quantity {doc.get('quantity')!r}; use {QUANTITIES}.")
        raw = tuple(read_rational(p, "prior") for p in doc["prior"])
        prior = prior_values(raw, len(raw), f"it needs {len(raw)}")
        C = None if doc["channel"] is None else read_channel(read_matrix_json(doc["channel"]))
        return cls(doc["quantity"], read_enclosure(doc["enclosure"]),
                   read_log_precision(doc["precision"], "precision"), prior, C)


def _make(quantity: str, prior: tuple[Fraction, ...], C: Matrix | None,
          prec: int) -> CertifiedQuantity:
    prec = read_log_precision(prec, "prec")
    return CertifiedQuantity(quantity, entropy_enclosure(quantity, prior, C, prec), prec, prior, C)


def shannon_entropy(prior: Any, *, prec: int = 128) -> CertifiedQuantity:
    """H(π) = −Σ π_x log2 π_x, certified."""
    if isinstance(prior, str):
        raise InvalidArgument("pass the prior's probabilities to shannon_entropy.")
    pi = prior_values(prior, len(list(prior)))
    return _make("shannon-entropy", pi, None, prec)


def conditional_entropy(channel: Any, prior: Any = "uniform", *,
                        prec: int = 128) -> CertifiedQuantity:
    """H(X | Y) = −Σ J log2(J / p_y), certified."""
    C = read_channel(channel)
    return _make("conditional-entropy", prior_values(prior, len(C)), C, prec)


def mutual_information(channel: Any, prior: Any = "uniform", *,
                       prec: int = 128) -> CertifiedQuantity:
    """I(X; Y) = Σ J log2(J / (π_x p_y)) (the Shannon leakage), certified."""
    C = read_channel(channel)
    return _make("mutual-information", prior_values(prior, len(C)), C, prec)
