"""JSON form of the linear-system claims (:mod:`exactdp.kernel.linear`): the reader (the
writer is :func:`exactdp.engine.documents.write_linear`).

A document is the envelope of :mod:`exactdp.kernel.jsonio`; its question has property
``tight-constraints`` (rhs ``"ones"``), ``regular`` (a prior) or ``nonnegative-solution``
(any exact b), and an exact level. Per kind:

==============  =====================================  =========================================
kind            claim                                  evidence
==============  =====================================  =========================================
exact-solution  verdict, ``solution`` (rationals)      {}
farkas          verdict (``"fails"``)                  ``y`` (rationals)
ball,           verdict, ``enclosure`` (list of        ``precision`` (bits), ``witness``
verified-float  {"lo", "hi"})                          (index or null)
symbolic        verdict                                ``numerators`` (integer polynomials in s,
                                                       descending), ``denominator``,
                                                       ``precision``, ``witness``
kronecker       verdict                                ``factors``: full documents, one per factor
==============  =====================================  =========================================

>>> from fractions import Fraction
>>> from exactdp.kernel.jsonio import dumps, loads
>>> from exactdp.engine.documents import write_linear
>>> from exactdp.spaces.metrics import line
>>> from exactdp.spaces.levels import parse_level
>>> c = LinearClaim("farkas", line(2), parse_level(t="1/2"), (Fraction(1), Fraction(-1)),
...                 False, {"y": (Fraction(1), Fraction(1))})
>>> doc = write_linear(c)
>>> doc["question"]["property"], doc["evidence"]
('nonnegative-solution', {'y': ['1', '1']})
>>> write_linear(read_linear(loads(dumps(doc)))) == doc
True
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from fractions import Fraction
from typing import Any

from exactdp.errors import InvalidArgument
from exactdp.kernel.jsonio import (
    Envelope,
    read_enclosure,
    read_envelope,
    read_int,
    read_list,
    read_object,
    read_poly,
    read_rationals,
    read_verdict,
)
from exactdp.kernel.linear import MAX_STATED_PREC, LinearClaim
from exactdp.kernel.question import LINEAR_PROPS, ONES, Property, Question
from exactdp.kinds import Verdict
from exactdp.spaces.levels import PrivacyLevel

__all__ = ["read_linear", "MAX_DEPTH", "read_document", "read_int_poly", "read_polys"]

#: Deepest nesting of factor documents accepted (a Kronecker factor of a factor …).
MAX_DEPTH = 8

_PARTS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {  # kind -> (claim keys, evidence keys)
    "exact-solution": (("verdict", "solution"), ()),
    "farkas": (("verdict",), ("y",)),
    "ball": (("verdict", "enclosure"), ("precision", "witness")),
    "verified-float": (("verdict", "enclosure"), ("precision", "witness")),
    "symbolic": (("verdict",), ("numerators", "denominator", "precision", "witness")),
    "kronecker": (("verdict",), ("factors",)),
}


def read_linear(doc: Any, depth: int = 0) -> LinearClaim:
    """Read a document into a :class:`~exactdp.kernel.linear.LinearClaim`.

    Raises :class:`~exactdp.errors.InvalidArgument` for a malformed document and
    :class:`~exactdp.errors.CertificateInvalid` when its question was altered (fingerprint).
    """
    kind, q, rhs, verdict, claim, evid = read_document(
        read_envelope(doc), _PARTS, LINEAR_PROPS, (Verdict.HOLDS, Verdict.FAILS))
    n = q.metric.n
    ev: dict[str, Any] = {}
    if kind == "exact-solution":
        ev["x"] = read_rationals(claim["solution"], "claim.solution", n)
    elif kind == "farkas":
        ev["y"] = read_rationals(evid["y"], "evidence.y", n)
    elif kind in ("ball", "verified-float"):
        ev["enclosure"] = tuple(read_enclosure(e, f"claim.enclosure[{k}]") for k, e in
                                enumerate(read_list(claim["enclosure"], "claim.enclosure", n)))
        ev.update(_precision_witness(evid, n))
    elif kind == "symbolic":
        ev.update(read_polys(evid, n))
        ev.update(_precision_witness(evid, n))
    else:
        if depth >= MAX_DEPTH:
            raise InvalidArgument(f"evidence.factors: nested more than {MAX_DEPTH} deep.")
        ev["factors"] = tuple(read_linear(f, depth + 1) for f in read_list(evid["factors"], "evidence.factors"))
    assert isinstance(q.level, PrivacyLevel)
    return LinearClaim(kind, q.metric, q.level, rhs, verdict is Verdict.HOLDS, ev)


def read_polys(evid: dict[str, Any], size: int) -> dict[str, Any]:
    """``numerators`` (``size`` integer polynomials) and ``denominator`` of the evidence."""
    return {"numerators": tuple(read_int_poly(p, f"evidence.numerators[{k}]") for k, p in
                                enumerate(read_list(evid["numerators"], "evidence.numerators", size))),
            "denominator": read_int_poly(evid["denominator"], "evidence.denominator")}


def read_int_poly(value: Any, where: str) -> tuple[int, ...]:
    """An integer polynomial read from JSON (``["0"]`` is the zero polynomial)."""
    if value == ["0"]:  # the zero polynomial (z_i ≡ 0)
        return (0,)
    return tuple(int(v) for v in read_poly(value, where, integer=True))


def read_document(env: Envelope, parts: Mapping[str, tuple[tuple[str, ...], tuple[str, ...]]],
                  props: Collection[Property], verdicts: Collection[Verdict],
                  optional: tuple[str, ...] = ()
                  ) -> tuple[str, Question, tuple[Fraction, ...], Verdict, dict[str, Any],
                             dict[str, Any]]:
    """(kind, question, rhs, verdict, claim, evidence) of a document whose kind is a key of
    ``parts`` (kind → its claim keys and evidence keys, plus ``optional`` evidence keys),
    whose question asks one of ``props`` and whose verdict is one of ``verdicts``; the rhs
    ``"ones"`` is returned as n ones."""
    if env.kind not in parts:
        raise InvalidArgument(f"kind: {env.kind!r} is not one of {sorted(parts)}.")
    claim_keys, evidence_keys = parts[env.kind]
    claim = read_object(env.claim, "claim", claim_keys)
    evid = read_object(env.evidence, "evidence", evidence_keys, optional)
    q = Question.from_json(env.question)
    if q.prop not in props:
        raise InvalidArgument(f"question.property: {q.prop.value!r} is not one of {[p.value for p in props]}.")
    rhs = tuple(Fraction(1) for _ in range(q.metric.n)) if q.rhs == ONES else q.rhs
    assert isinstance(rhs, tuple)
    verdict = read_verdict(claim["verdict"], "claim.verdict")
    if verdict not in verdicts:
        raise InvalidArgument(f"claim.verdict: got {verdict.value!r}; this certificate claims "
                              f"one of {[v.value for v in verdicts]}.")
    return env.kind, q, rhs, verdict, claim, evid


def _precision_witness(evid: dict[str, Any], n: int) -> dict[str, Any]:
    w = evid["witness"]
    return {"precision": read_int(evid["precision"], "evidence.precision", 2, MAX_STATED_PREC),
            "witness": None if w is None else read_int(w, "evidence.witness", 0, n - 1)}
