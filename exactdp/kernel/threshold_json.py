"""JSON form of the threshold claims (:mod:`exactdp.kernel.threshold`): the reader.

A document is the envelope of :mod:`exactdp.kernel.jsonio`; its question has property
``threshold-tight`` (rhs ``"ones"``) or ``threshold-regular`` (a prior) and the ε-range
of every ε > 0 (``{"eps_range": {"lo": "0", "hi": null}}``: ε* is a global quantity).
The claim is always ``"verdict": "holds"`` for "ε* ∈ ``eps``" plus, per kind:

===================  =====================================  ================================
kind                 claim                                  evidence
===================  =====================================  ================================
exact                ``eps``; ``s_star``: null or {``q``,   ``numerators`` (integer
                     ``minimal_polynomial`` (integers,      polynomials in s, descending;
                     descending), ``isolating_interval``}   ``["0"]`` is zero),
                     — s* = e^{-ε*/q}, ε* = −q·ln s*        ``denominator``, ``witness``
prop9                ``eps`` = [0, 0]                       {}
kronecker-threshold  ``eps``                                ``binding`` (factor index),
                                                            ``factors`` (full documents)
certified-cover      ``eps``                                ``fail`` (a linear-system or
                                                            spd-point document at ε = lo),
                                                            ``t0``, ``pieces`` (list of
                                                            {lo, hi})
spd-taylor-cover     ``eps``                                ``fail``, ``t0`` as above,
                                                            ``order`` (K), ``nodes`` (list
                                                            of {eps, sigma, lam}),
                                                            ``pieces`` (list of {lo, hi,
                                                            lam})
===================  =====================================  ================================

(the writer is :func:`exactdp.engine.documents.write_threshold`).

>>> from fractions import Fraction
>>> from exactdp.kernel.jsonio import dumps, loads
>>> from exactdp.engine.documents import write_threshold
>>> from exactdp.spaces.metrics import cycle
>>> from exactdp.arithmetic.interval import Enclosure
>>> c = ThresholdClaim("prop9", cycle(4), (Fraction(1),) * 4,
...                    Enclosure(Fraction(0), Fraction(0)), {})
>>> doc = write_threshold(c)
>>> doc["question"]["property"], doc["claim"]
('threshold-tight', {'verdict': 'holds', 'eps': {'lo': '0', 'hi': '0'}})
>>> write_threshold(read_threshold(loads(dumps(doc)))) == doc
True
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from exactdp.arithmetic.interval import Enclosure
from exactdp.errors import InvalidArgument
from exactdp.kernel.jsonio import (
    Envelope,
    read_enclosure,
    read_envelope,
    read_int,
    read_list,
    read_object,
    read_rational,
)
from exactdp.kernel.linear_json import read_document, read_int_poly, read_linear, read_polys
from exactdp.kernel.question import ALL_EPS, Property, Question
from exactdp.kernel.threshold import ThresholdClaim
from exactdp.kernel.threshold_spd import MAX_ORDER, SPD_COVER, SPD_POINT
from exactdp.kernel.threshold_spd_json import read_spd_point
from exactdp.kinds import Verdict

__all__ = ["read_threshold", "MAX_DEPTH", "MAX_PIECES", "read_s_star", "read_threshold_parts"]

#: Deepest nesting of factor documents accepted.
MAX_DEPTH = 8

_PROPS = (Property.THRESHOLD_TIGHT, Property.THRESHOLD_REGULAR)
_PARTS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {  # kind -> (claim, evidence keys)
    "exact": (("verdict", "eps", "s_star"), ("numerators", "denominator", "witness")),
    "prop9": (("verdict", "eps"), ()),
    "kronecker-threshold": (("verdict", "eps"), ("binding", "factors")),
    "certified-cover": (("verdict", "eps"), ("fail", "t0", "pieces")),
    SPD_COVER: (("verdict", "eps"), ("fail", "t0", "order", "nodes", "pieces")),
}
#: Most ranges of a certified cover read.
MAX_PIECES = 100_000


def read_s_star(value: Any) -> tuple[int, tuple[int, ...], Any] | None:
    """Read ``claim.s_star`` (null, or {q, minimal_polynomial, isolating_interval})."""
    if value is None:
        return None
    obj = read_object(value, "claim.s_star", ("q", "minimal_polynomial", "isolating_interval"))
    return (read_int(obj["q"], "claim.s_star.q", 1),
            read_int_poly(obj["minimal_polynomial"], "claim.s_star.minimal_polynomial"),
            read_enclosure(obj["isolating_interval"], "claim.s_star.isolating_interval"))


def read_threshold(doc: Any, depth: int = 0) -> ThresholdClaim:
    """Read a document into a :class:`~exactdp.kernel.threshold.ThresholdClaim`.

    Raises :class:`~exactdp.errors.InvalidArgument` for a malformed document and
    :class:`~exactdp.errors.CertificateInvalid` when its question was altered (fingerprint).
    """
    env = read_envelope(doc)
    if env.kind not in _PARTS:  # checked before the parts, whose reader names only this kind
        raise InvalidArgument(f"kind: {env.kind!r} is not one of {sorted(_PARTS)}.")
    q, rhs, eps, claim, evid = read_threshold_parts(env, env.kind, *_PARTS[env.kind])
    n = q.metric.n
    ev: dict[str, Any] = {}
    if env.kind == "exact":
        w = evid["witness"]
        ev = {"s_star": read_s_star(claim["s_star"]), **read_polys(evid, n),
              "witness": None if w is None else read_int(w, "evidence.witness", 0, n - 1)}
    elif env.kind == "kronecker-threshold":
        if depth >= MAX_DEPTH:
            raise InvalidArgument(f"evidence.factors: nested more than {MAX_DEPTH} deep.")
        factors = tuple(read_threshold(f, depth + 1) for f in read_list(evid["factors"], "evidence.factors"))
        ev = {"factors": factors, "binding": read_int(evid["binding"], "evidence.binding", 0, len(factors) - 1)}
    elif env.kind == "certified-cover":
        ev = {"fail": _read_fail(evid["fail"], depth),
              "t0": read_rational(evid["t0"], "evidence.t0"),
              "pieces": tuple(read_enclosure(p, f"evidence.pieces[{k}]") for k, p in enumerate(
                  read_list(evid["pieces"], "evidence.pieces", max_length=MAX_PIECES)))}
    elif env.kind == SPD_COVER:
        ev = {"fail": _read_fail(evid["fail"], depth),
              "t0": read_rational(evid["t0"], "evidence.t0"),
              "order": read_int(evid["order"], "evidence.order", 0, MAX_ORDER),
              "nodes": _triples(evid["nodes"], "evidence.nodes", ("eps", "sigma", "lam")),
              "pieces": _triples(evid["pieces"], "evidence.pieces", ("lo", "hi", "lam"))}
    return ThresholdClaim(env.kind, q.metric, rhs, eps, ev)


def _read_fail(value: Any, depth: int) -> Any:
    """The fail side of a cover: an spd-point document or a linear-system one."""
    if not isinstance(value, dict):
        raise InvalidArgument(f"evidence.fail: expected a JSON object (an spd-point or "
                              f"linear-system document), got {type(value).__name__}.")
    if value.get("kind") == SPD_POINT:
        return read_spd_point(value)
    return read_linear(value, depth + 1)


def _triples(value: Any, where: str, keys: tuple[str, str, str]) -> tuple[tuple[Fraction, Fraction, Fraction], ...]:
    out = []
    for k, item in enumerate(read_list(value, where, max_length=MAX_PIECES)):
        obj = read_object(item, f"{where}[{k}]", keys)
        a, b, c = (read_rational(obj[key], f"{where}[{k}].{key}") for key in keys)
        out.append((a, b, c))
    return tuple(out)


def read_threshold_parts(env: Envelope, kind: str, claim_keys: tuple[str, ...],
                         evidence_keys: tuple[str, ...], optional: tuple[str, ...] = ()
                         ) -> tuple[Question, tuple[Fraction, ...], Enclosure, dict[str, Any],
                                    dict[str, Any]]:
    """(question, rhs, eps, claim, evidence) of a threshold document of ``kind``
    (:func:`~exactdp.kernel.linear_json.read_document`; its question is asked for every
    ε > 0, its verdict is ``holds``)."""
    _, q, rhs, _, claim, evid = read_document(
        env, {kind: (claim_keys, evidence_keys)}, _PROPS, (Verdict.HOLDS,), optional)
    if q.level != ALL_EPS:
        raise InvalidArgument("question.level: a threshold certificate answers for every ε > 0; "
                              "write {\"eps_range\": {\"lo\": \"0\", \"hi\": null}}.")
    return q, rhs, read_enclosure(claim["eps"], "claim.eps"), claim, evid
