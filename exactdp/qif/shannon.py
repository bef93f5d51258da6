"""Shannon capacity, certified: Blahut–Arimoto finds, ball arithmetic proves both ends.

The Shannon capacity of a channel C (rows x = secrets, columns y) is
C_Sh = max_π I(π; C) in bits, an irrational number in general. It is answered as a
certified enclosure with a witness on each side (``proofs/qif_shannon_capacity.py``):

* **lower end** — any prior p gives I(p; C) ≤ C_Sh; at the rational witness prior p the
  mutual information is enclosed in ``arb`` (:func:`exactdp.qif.entropy.mutual_information`)
  and its lower end is a certified lower bound;
* **upper end** — any output distribution q gives the dual bound
  C_Sh ≤ max_x D(C_x ‖ q) (Σ_x p_x D(C_x ‖ q) = I(p; C) + D(pC ‖ q) for every p), enclosed
  in ``arb`` at the rational witness q (all entries > 0, so every term is finite).

Blahut–Arimoto in float64 only *finds* p and q (rational witnesses near the float iterates:
p read off with denominators ≤ 2^40 when those sum to 1, else on the grid k/2^40; q on that
grid with every k ≥ 1, so q > 0); the float numbers never enter the result. The result
writes a kernel document (kind ``qif-shannon-capacity``, :meth:`ShannonCapacity.to_document`)
and ``verify()`` is the verdict of the independent kernel (:mod:`exactdp.kernel.qif_log`)
on it: channel and both witnesses re-validated, both balls recomputed there at the recorded
precision (the writer states the kernel's own balls,
:func:`~exactdp.kernel.qif_log.capacity_ends`, so it refuses the same oversized work).

Examples
--------
>>> r = shannon_capacity([["9/10", "1/10"], ["1/10", "9/10"]])     # BSC(1/10): 1 − h(1/10)
>>> round(float(r), 12), r.width < Fraction(1, 10**30), r.verify()
(0.531004406411, True, True)
>>> r.witness
(Fraction(1, 2), Fraction(1, 2))
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from exactdp.arithmetic.interval import Enclosure
from exactdp.errors import (
    REJECTED_ERRORS,
    InstanceTooLarge,
    InvalidArgument,
    InvalidTolerance,
)
from exactdp.kernel.jsonio import (
    read_enclosure,
    read_list,
    read_object,
    read_rational,
    read_str,
    write_enclosure,
    write_rational,
)
from exactdp.kernel.qif_log import capacity_ends
from exactdp.kinds import CertificateKind
from exactdp.qif.channel import Matrix, read_channel
from exactdp.qif.documents import checked_parts, document, kernel_verifies, probabilities, rows
from exactdp.qif.entropy import read_log_precision
from exactdp.qif.measures import read_matrix_json, write_matrix

__all__ = ["ShannonCapacity", "shannon_capacity", "blahut_arimoto_float", "read_capacity_precision"]

#: The grid of the rational witnesses: multiples of 2^-40 (q: every entry ≥ 2^-40, so q > 0).
WITNESS_DENOMINATOR = 2**40
#: Largest channel (rows × columns) :func:`shannon_capacity` accepts (200×200 takes ~20 s).
MAX_CHANNEL_ENTRIES = 40_000
SHANNON_CAPACITY = CertificateKind.QIF_SHANNON_CAPACITY.value
_JSON_KEYS = ("quantity", "unit", "enclosure", "precision", "witness", "output", "channel")


def read_capacity_precision(value: Any, name: str = "prec") -> int:
    """Bits of the ball arithmetic: a whole number in [53, MAX_PREC] (a specific error else).

    >>> read_capacity_precision(10**6)
    Traceback (most recent call last):
    ...
    exactdp.errors.InvalidArgument: Got prec=1000000; at most MAX_PREC = 4096 bits (e.g. 128).
    """
    return read_log_precision(value, name)


def blahut_arimoto_float(C: Matrix, *, tol: float = 1e-12, max_iter: int = 20000
                         ) -> tuple[np.ndarray, np.ndarray, int]:
    """Blahut–Arimoto in float64 (uncertified; the *find* step): (prior, output, iterations).

    Stops when the float gap max_x D(C_x ‖ pC) − I(p; C) (nats) is below ``tol``.
    """
    W = np.array([[float(v) for v in row] for row in C])
    n = W.shape[0]
    p = np.full(n, 1.0 / n)
    logW = np.where(W > 0, np.log(np.where(W > 0, W, 1.0)), 0.0)
    it = 0
    while it < max_iter:
        it += 1
        q = p @ W
        logq = np.log(np.where(q > 0, q, 1.0))
        D = (W * (logW - logq)).sum(axis=1)          # D(C_x ‖ q), nats
        mi = float(p @ D)
        if float(D.max()) - mi <= tol:
            break
        p = p * np.exp(D - D.max())
        p /= p.sum()
    return p, p @ W, it


def _on_grid(v: np.ndarray, least: int) -> tuple[Fraction, ...]:
    """k/2^40 near the float vector v, each k ≥ ``least``, Σ k = 2^40 (the largest absorbs the rest)."""
    N = WITNESS_DENOMINATOR
    k = [max(least, round(max(float(x), 0.0) * N)) for x in v]
    top = k.index(max(k))
    k[top] += N - sum(k)
    if k[top] < least:  # only when every float was 0 (or NaN): the uniform grid point
        k = [N // len(k)] * len(k)
        k[0] += N - sum(k)
    return tuple(Fraction(x, N) for x in k)


def _witness(v: np.ndarray) -> tuple[Fraction, ...]:
    """The prior read off v with denominators ≤ 2^40 when those sum to 1 (1/10 stays 1/10),
    else on the 2^-40 grid (small denominators keep the kernel's exact sums short)."""
    raw = tuple(Fraction(max(float(x), 0.0)).limit_denominator(WITNESS_DENOMINATOR) for x in v)
    return raw if sum(raw, Fraction(0)) == 1 else _on_grid(v, 0)


def _fractions(v: list[str]) -> tuple[Fraction, ...]:
    return tuple(read_rational(x) for x in v)


@dataclass(frozen=True)
class ShannonCapacity:
    """Certified Shannon capacity (bits): the truth lies in ``enclosure``.

    Both ends are justified in ``proofs/qif_shannon_capacity.py`` (I(p; C) below, the dual
    bound max_x D(C_x ‖ q) above).

    Attributes
    ----------
    enclosure : Enclosure
        [lower end of I(witness; C), upper end of max_x D(C_x ‖ output)], exact endpoints.
    witness : tuple of Fraction
        The prior attaining the lower end (a distribution on the secrets).
    output : tuple of Fraction
        The output distribution q of the dual bound (> 0 wherever the channel is).
    precision : int
        Bits of the ball arithmetic (the kernel recomputes at it).
    channel : exact matrix
    float_iterations : int
        Blahut–Arimoto iterations of the float *find* step (metadata only).
    """

    enclosure: Enclosure
    witness: tuple[Fraction, ...]
    output: tuple[Fraction, ...]
    precision: int
    channel: Matrix
    float_iterations: int = field(default=0, compare=False)

    def __float__(self) -> float:
        return float(self.enclosure.mid)

    @property
    def width(self) -> Fraction:
        """Upper minus lower end (the certified gap, bits)."""
        return self.enclosure.hi - self.enclosure.lo

    def verify(self) -> bool:
        """The kernel's verdict on :meth:`to_document`: channel and witnesses re-validated,
        0 ≤ lo ≤ I(witness; C) and max_x D(C_x ‖ output) ≤ hi by balls recomputed at
        ``precision``. False (never an exception) otherwise."""
        return kernel_verifies(self.to_document)

    def to_document(self) -> dict[str, Any]:
        """The kernel document (kind ``qif-shannon-capacity``; ``exactdp verify`` re-checks it).

        >>> r = shannon_capacity([["1/2", "1/2"], [0, 1]])
        >>> sorted(r.to_document()["evidence"]), ShannonCapacity.from_document(r.to_document()) == r
        (['output', 'precision', 'witness'], True)
        """
        return document(SHANNON_CAPACITY, {"channel": rows(self.channel), "unit": "bits"},
                        {"enclosure": write_enclosure(self.enclosure)},
                        {"witness": probabilities(self.witness), "output": probabilities(self.output),
                         "precision": self.precision})

    @classmethod
    def from_document(cls, doc: Any) -> ShannonCapacity:
        """Read a document the kernel verifies (else CertificateInvalid / InvalidArgument)."""
        q, c, e = checked_parts(doc, SHANNON_CAPACITY)
        return cls(read_enclosure(c["enclosure"]), _fractions(e["witness"]), _fractions(e["output"]),
                   e["precision"], tuple(_fractions(r) for r in q["channel"]))

    def to_json(self) -> dict[str, Any]:
        """Exact JSON (the flat layout of earlier versions); :meth:`from_json` reads it back
        and re-verifies, and reads :meth:`to_document` too."""
        return {"quantity": "shannon-capacity", "unit": "bits",
                "enclosure": write_enclosure(self.enclosure), "precision": self.precision,
                "witness": [write_rational(p) for p in self.witness],
                "output": [write_rational(p) for p in self.output],
                "channel": write_matrix(self.channel)}

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> ShannonCapacity:
        """Read and verify; raises :class:`InvalidArgument` when the claim does not check."""
        if isinstance(doc, dict) and "schema" in doc:
            return cls.from_document(doc)
        doc = read_object(doc, "ShannonCapacity", _JSON_KEYS)
        read_str(doc["quantity"], "ShannonCapacity.quantity", ("shannon-capacity",))
        read_str(doc["unit"], "ShannonCapacity.unit (only bits are written)", ("bits",))
        out = cls(read_enclosure(doc["enclosure"]),
                  tuple(read_rational(p, "witness")
                        for p in read_list(doc["witness"], "ShannonCapacity.witness")),
                  tuple(read_rational(p, "output")
                        for p in read_list(doc["output"], "ShannonCapacity.output")),
                  read_capacity_precision(doc["precision"], "precision"),
                  read_channel(read_matrix_json(doc["channel"])))
        try:
            ok = out.verify()
        except REJECTED_ERRORS:
            ok = False
        if not ok:
            raise InvalidArgument(
                "the Shannon-capacity enclosure does not contain the recomputed bounds at its "
                "witnesses (edited file?); recompute it with shannon_capacity().")
        return out


def shannon_capacity(channel: Any, *, prec: int = 128, tol: float = 1e-12,
                     max_iter: int = 20000) -> ShannonCapacity:
    """Certified enclosure of max_π I(π; C) (bits) with both witnesses.

    Lower end I(witness; C), upper end max_x D(C_x ‖ output) (``proofs/qif_shannon_capacity.py``).

    ``tol`` (a finite float > 0) and ``max_iter`` (a whole number ≥ 0) steer the float
    Blahut–Arimoto search only: the enclosure is certified whatever they are; its width
    (``.width``) says how close the search came. ``prec`` ≤ ``MAX_PREC`` bits; at most
    :data:`MAX_CHANNEL_ENTRIES` entries, and the kernel's work limit
    (:data:`~exactdp.kernel.qif_log.MAX_LOG_WORK`, InstanceTooLarge) applies to the balls. The
    lower end is clamped at 0 (a capacity is ≥ 0); a channel whose rows are all equal gets
    the exact enclosure [0, 0] (output q = that row makes every D(C_x ‖ q) = 0 exactly).

    >>> shannon_capacity([["1/3", "2/3"], ["1/3", "2/3"]]).enclosure
    Enclosure(lo=Fraction(0, 1), hi=Fraction(0, 1))
    """
    C = read_channel(channel)
    prec = read_capacity_precision(prec, "prec")
    if len(C) * len(C[0]) > MAX_CHANNEL_ENTRIES:
        raise InstanceTooLarge(
            f"{len(C)}×{len(C[0])} channel (> MAX_CHANNEL_ENTRIES = {MAX_CHANNEL_ENTRIES} "
            "entries): the certified bounds would take minutes; merge equal rows or columns "
            "first.")
    if isinstance(tol, bool) or not isinstance(tol, int | float | Fraction) or not (
            math.isfinite(tol) and tol > 0):
        raise InvalidTolerance(f"Got tol={tol!r}; pass a finite number > 0 such as 1e-12.")
    if isinstance(max_iter, bool) or not isinstance(max_iter, int) or max_iter < 0:
        raise InvalidArgument(f"Got max_iter={max_iter!r}; pass a whole number ≥ 0 such as 20000.")
    p_f, q_f, iters = blahut_arimoto_float(C, tol=float(tol), max_iter=max_iter)
    witness = _witness(p_f)
    if all(tuple(row) == tuple(C[0]) for row in C):
        output = tuple(Fraction(v) for v in C[0])  # D(C_x ‖ C_0) = 0 for every x: C = 0
    else:
        output = _on_grid(q_f, 1)
    low, hi = capacity_ends(C, witness, output, prec)
    return ShannonCapacity(Enclosure(low, hi), witness, output, prec, C, iters)
