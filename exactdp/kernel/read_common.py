"""What the readers of the linear-system, spd-point, threshold and privacy documents share.

Every document is the envelope of :mod:`exactdp.kernel.jsonio`; a family's reader
(:mod:`exactdp.kernel.linear_json`, :mod:`exactdp.kernel.threshold_spd_json`,
:mod:`exactdp.kernel.threshold_json`, :mod:`exactdp.kernel.privacy_json`) describes a kind as a
row of a field table: its claim and evidence keys, each with the *field reader* that checks
its JSON value (None: read by the caller). This module holds the field readers, the reading
of the parts every document has (:func:`read_document`, :func:`read_threshold_parts`), the
nesting limit of sub-documents (:mod:`exactdp.kernel.limits`) and the integer polynomials of the evidence. It imports no
family's checks, so a family's reader pulls in no other family.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterator, Mapping
from contextlib import contextmanager
from fractions import Fraction
from typing import Any

from exactdp.arithmetic.interval import Enclosure
from exactdp.errors import ExactDPError, InvalidArgument
from exactdp.kernel.jsonio import (
    Envelope,
    document_numbers,
    read_enclosure,
    read_int,
    read_list,
    read_object,
    read_poly,
    read_rational,
    read_rationals,
    read_verdict,
)
from exactdp.kernel.limits import MAX_DEPTH, MAX_PIECES
from exactdp.kernel.question import ALL_EPS, ONES, Property, Question
from exactdp.kinds import Verdict

__all__ = ["MAX_DEPTH", "MAX_PIECES", "FieldReader", "located", "index_field", "rationals_field", "rational_field",
           "enclosures_field", "int_polys_field", "factors_field", "nested", "read_int_poly", "read_polys",
           "POLY_FIELDS", "read_s_star", "read_fields", "read_parts", "read_document", "read_threshold_parts"]

#: A field reader: (JSON value, where, n = the metric's points, nesting depth) -> the value.
#: None: the field is read by the caller (``verdict``; a threshold's ``eps``).
FieldReader = Callable[[Any, str, int, int], Any] | None


_PARTS = re.compile(r"(question|claim|evidence|document|kind|schema|version)[.:\[ ]")


@contextmanager
def located(where: str) -> Iterator[None]:
    """Prefix ``where`` (the path of a sub-document, e.g. ``evidence.factors[1]``) to the
    message of every :class:`~exactdp.errors.ExactDPError` raised inside, so an error in a
    nested document names its full path (``evidence.factors[1].claim.solution[0]``).

    >>> with located("evidence.factors[1]"):
    ...     read_int(1, "evidence.precision", 2)
    Traceback (most recent call last):
    ...
    exactdp.errors.InvalidArgument: evidence.factors[1].evidence.precision: got 1; it must lie in [2, None].
    """
    try:
        yield
    except ExactDPError as exc:
        msg = str(exc.args[0]) if exc.args else type(exc).__name__
        # always: a message from inside is relative to the sub-document, even when it starts with
        # the same text (factor 1 of factor 1 is evidence.factors[1].evidence.factors[1]...)
        msg = f"{where}.{msg}" if _PARTS.match(msg) else f"{where}: {msg}"
        exc.args = (msg, *exc.args[1:])
        raise


# ------------------------------------------------------------------------ field readers
def index_field(v: Any, w: str, n: int, d: int) -> int | None:
    """null or a point index (a witness)."""
    return None if v is None else read_int(v, w, 0, n - 1)


def rationals_field(v: Any, w: str, n: int, d: int) -> tuple[Fraction, ...]:
    return read_rationals(v, w, n)


def rational_field(v: Any, w: str, n: int, d: int) -> Fraction:
    return read_rational(v, w)


def enclosures_field(v: Any, w: str, n: int | None, d: int = 0) -> tuple[Enclosure, ...]:
    """``n`` enclosures (n = None: at most :data:`MAX_PIECES`)."""
    items = read_list(v, w, n, limit=MAX_PIECES if n is None else None)
    return tuple(read_enclosure(e, f"{w}[{k}]") for k, e in enumerate(items))


def int_polys_field(v: Any, w: str, n: int, d: int = 0) -> tuple[tuple[int, ...], ...]:
    return tuple(read_int_poly(p, f"{w}[{k}]") for k, p in enumerate(read_list(v, w, n)))


def factors_field(read: Callable[[Any, int], Any]) -> FieldReader:
    """Full factor documents, each read by ``read`` one level deeper (at most :data:`MAX_DEPTH`)."""
    def factors(v: Any, w: str, n: int, d: int) -> tuple[Any, ...]:
        if d >= MAX_DEPTH:
            raise InvalidArgument(f"{w}: nested more than {MAX_DEPTH} deep; write at most {MAX_DEPTH} levels of "
                                  "factor documents.")
        return tuple(nested(f"{w}[{k}]", read, f, d + 1) for k, f in enumerate(read_list(v, w)))
    return factors


def nested(where: str, read: Callable[[Any, int], Any], doc: Any, depth: int) -> Any:
    """``read(doc, depth)`` of a sub-document; an error in it names its path from the top
    (``evidence.factors[1].claim.solution[0]``)."""
    with located(where):
        return read(doc, depth)


def read_int_poly(value: Any, where: str) -> tuple[int, ...]:
    """An integer polynomial read from JSON (``["0"]`` is the zero polynomial)."""
    if value == ["0"]:  # the zero polynomial (z_i ≡ 0)
        return (0,)
    return tuple(int(v) for v in read_poly(value, where, integer=True))


def read_polys(evid: dict[str, Any], size: int) -> dict[str, Any]:
    """``numerators`` (``size`` integer polynomials) and ``denominator`` of the evidence."""
    return {"numerators": int_polys_field(evid["numerators"], "evidence.numerators", size),
            "denominator": read_int_poly(evid["denominator"], "evidence.denominator")}


#: The fields ``numerators`` and ``denominator`` (integer polynomials in s) of an evidence.
POLY_FIELDS: dict[str, FieldReader] = {"numerators": int_polys_field,
                                       "denominator": lambda v, w, n, d: read_int_poly(v, w)}


def read_s_star(value: Any) -> tuple[int, tuple[int, ...], Any] | None:
    """Read ``claim.s_star`` (null, or {q, minimal_polynomial, isolating_interval})."""
    if value is None:
        return None
    obj = read_object(value, "claim.s_star", ("q", "minimal_polynomial", "isolating_interval"))
    return (read_int(obj["q"], "claim.s_star.q", 1),
            read_int_poly(obj["minimal_polynomial"], "claim.s_star.minimal_polynomial"),
            read_enclosure(obj["isolating_interval"], "claim.s_star.isolating_interval"))


def read_fields(env: Envelope, fields: tuple[dict[str, FieldReader], dict[str, FieldReader]], n: int,
                depth: int = 0) -> dict[str, Any]:
    """Every claim and evidence field of ``env`` that has a reader in ``fields``, read by it."""
    return {key: read(part[key], f"{name}.{key}", n, depth)
            for name, part, table in (("claim", env.claim, fields[0]), ("evidence", env.evidence, fields[1]))
            for key, read in table.items() if read is not None}


def read_parts(env: Envelope, parts: Mapping[str, tuple[Collection[str], Collection[str]]],
               props: Collection[Property], optional: tuple[str, ...] = ()
               ) -> tuple[Question, dict[str, Any], dict[str, Any]]:
    """(question, claim, evidence) of a document whose kind is a key of ``parts`` and whose
    question asks one of ``props``."""
    if env.kind not in parts:
        raise InvalidArgument(f"kind: {env.kind!r} is not one of {sorted(parts)}.")
    claim_keys, evidence_keys = parts[env.kind]
    claim = read_object(env.claim, "claim", claim_keys)
    evid = read_object(env.evidence, "evidence", evidence_keys, optional)
    with document_numbers():  # a level, prior or distance of any legal size: errors name it, shortened
        q = Question.from_json(env.question)
    if q.prop not in props:
        raise InvalidArgument(f"question.property: {q.prop.value!r} is not one of {[p.value for p in props]}.")
    return q, claim, evid


def read_document(env: Envelope, parts: Mapping[str, tuple[Collection[str], Collection[str]]],
                  props: Collection[Property], verdicts: Collection[Verdict],
                  optional: tuple[str, ...] = ()
                  ) -> tuple[str, Question, tuple[Fraction, ...], Verdict, dict[str, Any],
                             dict[str, Any]]:
    """(kind, question, rhs, verdict, claim, evidence) of a document whose kind is a key of
    ``parts`` (kind → its claim keys and evidence keys, plus ``optional`` evidence keys),
    whose question asks one of ``props`` and whose verdict is one of ``verdicts``; the rhs
    ``"ones"`` is returned as n ones."""
    q, claim, evid = read_parts(env, parts, props, optional)
    rhs = tuple(Fraction(1) for _ in range(q.metric.n)) if q.rhs == ONES else q.rhs
    assert isinstance(rhs, tuple)
    verdict = read_verdict(claim["verdict"], "claim.verdict")
    if verdict not in verdicts:
        raise InvalidArgument(f"claim.verdict: got {verdict.value!r}; this certificate claims "
                              f"one of {[v.value for v in verdicts]}.")
    return env.kind, q, rhs, verdict, claim, evid


def read_threshold_parts(env: Envelope, kind: str, claim_keys: tuple[str, ...],
                         evidence_keys: tuple[str, ...], optional: tuple[str, ...] = ()
                         ) -> tuple[Question, tuple[Fraction, ...], Enclosure, dict[str, Any],
                                    dict[str, Any]]:
    """(question, rhs, eps, claim, evidence) of a threshold document of ``kind``
    (:func:`read_document`; its question is asked for every ε > 0, its verdict is ``holds``)."""
    _, q, rhs, _, claim, evid = read_document(
        env, {kind: (claim_keys, evidence_keys)}, (Property.THRESHOLD_TIGHT, Property.THRESHOLD_REGULAR),
        (Verdict.HOLDS,), optional)
    if q.level != ALL_EPS:
        raise InvalidArgument("question.level: a threshold certificate answers for every ε > 0; "
                              "write {\"eps_range\": {\"lo\": \"0\", \"hi\": null}}.")
    return q, rhs, read_enclosure(claim["eps"], "claim.eps"), claim, evid
