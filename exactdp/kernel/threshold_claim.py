"""The frame of a threshold claim "ε* ∈ [lo, hi]": its type, its type check, a never-raising guard, its reader.

Shared by every threshold check (:mod:`exactdp.kernel.threshold_exact`,
:mod:`exactdp.kernel.threshold_cover_claims`, :mod:`exactdp.kernel.threshold`,
:mod:`exactdp.kernel.threshold_structured`, :mod:`exactdp.kernel.threshold_quotient`); it
imports only the JSON layer (:mod:`exactdp.kernel.jsonio`, :mod:`exactdp.kernel.read_common`).

Examples
--------
>>> from exactdp.spaces.metrics import line
>>> c = ThresholdClaim("prop9", line(2), (Fraction(1),) * 2, Enclosure(Fraction(0), Fraction(0)), {})
>>> frame_ok(c, ("prop9",)), frame_ok(c, ("exact",))
(True, False)
>>> guarded(lambda c: 1 / 0 > 0, c)  # a malformed claim is "not proved", never an exception
False
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from exactdp.arithmetic.interval import Enclosure
from exactdp.arithmetic.validate import is_index
from exactdp.errors import REJECTED_ERRORS, InvalidArgument
from exactdp.kernel.jsonio import read_envelope
from exactdp.kernel.read_common import FieldReader, read_fields, read_threshold_parts
from exactdp.spaces.metrics import FiniteMetric

__all__ = ["ThresholdClaim", "guarded", "frame_ok", "is_index", "read_claim"]


@dataclass(frozen=True)
class ThresholdClaim:
    """The claim ε* ∈ [eps.lo, eps.hi] about Φ(ε)x = rhs (rhs all ones: tight constraints).

    ``evidence`` per kind (module table): ``exact`` — ``numerators`` (tuples of integer
    coefficients, descending; ``(0,)`` is the zero polynomial), ``denominator``,
    ``witness`` (index or None), ``s_star`` (None or (q, minimal polynomial descending,
    isolating Enclosure)); ``prop9`` — nothing; ``kronecker-threshold`` — ``factors``
    (tuple of ThresholdClaim) and ``binding`` (index); ``certified-cover`` — ``fail`` (a
    :class:`~exactdp.kernel.linear.LinearClaim`), ``t0`` (Fraction), ``pieces`` (tuple of
    Enclosure).
    """

    kind: str
    metric: FiniteMetric
    rhs: tuple[Fraction, ...]
    eps: Enclosure
    evidence: Mapping[str, Any]


def guarded(check: Callable[[Any], bool], claim: Any) -> bool:
    """``check(claim)``, or False when malformed evidence makes it raise (never raises)."""
    try:
        return bool(check(claim))
    except REJECTED_ERRORS + (AssertionError,):
        return False


def frame_ok(c: Any, kinds: Sequence[str]) -> bool:
    """The claim's fields have their types: a kind of ``kinds``, a FiniteMetric, an
    Enclosure with 0 ≤ lo ≤ hi, rhs a tuple of n Fractions, evidence a Mapping."""
    return bool(isinstance(c, ThresholdClaim) and c.kind in kinds and isinstance(c.metric, FiniteMetric)
                and isinstance(c.eps, Enclosure) and 0 <= c.eps.lo <= c.eps.hi
                and isinstance(c.rhs, tuple) and len(c.rhs) == c.metric.n
                and all(isinstance(v, Fraction) for v in c.rhs) and isinstance(c.evidence, Mapping))


def read_claim(doc: Any, fields: Mapping[str, tuple[dict[str, FieldReader], dict[str, FieldReader]]],
               depth: int = 0) -> ThresholdClaim:
    """Read a threshold document whose kind is a key of ``fields`` (kind -> (claim fields,
    evidence fields), :func:`~exactdp.kernel.read_common.read_fields`) into a claim.

    Raises :class:`~exactdp.errors.InvalidArgument` for a malformed document and
    :class:`~exactdp.errors.CertificateInvalid` when its question was altered (fingerprint).
    """
    env = read_envelope(doc)
    if env.kind not in fields:  # checked before the parts, whose reader names only this kind
        raise InvalidArgument(f"kind: {env.kind!r} is not one of {sorted(fields)}.")
    claim_fields, evidence_fields = fields[env.kind]
    q, rhs, eps, _, _ = read_threshold_parts(env, env.kind, tuple(claim_fields), tuple(evidence_fields))
    return ThresholdClaim(env.kind, q.metric, rhs, eps, read_fields(env, fields[env.kind], q.metric.n, depth))
