"""The readers of the linear-system, spd-point, threshold and privacy documents.

Every document is the envelope of :mod:`exactdp.kernel.jsonio`. A linear, spd-point or
threshold kind is one row of a field table (``_LINEAR``, ``_THRESHOLD``): its claim
and evidence keys, each with the reader that checks its JSON value (None: read by the
caller); one loop reads them all. The writers are in :mod:`exactdp.engine.documents`.

**Linear systems** (:mod:`exactdp.kernel.linear`): the question has property
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

**spd-point** (:mod:`exactdp.kernel.threshold_spd`): the linear system's question at the
exact level ε = ``eps`` (rational, written ``{"eps": "p/q"}``); the claim ``{"verdict":
"fails", "index": i, "upper": "p/q"}`` (z_i(ε) < 0 and z_i(ε) ≤ upper); the evidence
``{"sigma": "p/q", "lam": "p/q"}`` (the Cholesky shift and λ ≤ λ_min(Φ(ε))).

**Thresholds** (:mod:`exactdp.kernel.threshold`): the question has property
``threshold-tight`` (rhs ``"ones"``) or ``threshold-regular`` (a prior) and the ε-range of
every ε > 0 (``{"eps_range": {"lo": "0", "hi": null}}``: ε* is a global quantity). The
claim is always ``"verdict": "holds"`` for "ε* ∈ ``eps``" plus, per kind:

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

**Privacy** (:mod:`exactdp.kernel.privacy`). ``privacy-level``::

    {"question": {... "property": "privacy-level", "level": null, "mechanism": rows},
     "claim": {"value": "0" | "infinite" | {"t": "p/q"} | {"eps": "<closed form>"}
                        | {"log_ratio": {"ratio": "p/q", "distance": {"coef", "radicand"}}},
               "witness": [y, y', z] | null, "enclosure": {"lo", "hi"} | null},
     "evidence": {}}

The value is written as the schema writes levels: ``{"t"}`` when t = e^{−V} is rational,
else the closed form ``log(R)/d``; ``{"log_ratio"}`` (V = ln(ratio)/distance) only when that
closed form is too long to write. A value written another way is read by its exact value
(``{"eps"}`` must have the form k·√s·log(T)). ``privacy-check``: the question's property
``private`` at its exact level, claim ``{"verdict": "holds" | "fails", "violation": [y, y',
z] | null}``, evidence ``{}``.

Examples
--------
>>> from fractions import Fraction as F
>>> from exactdp.arithmetic.interval import Enclosure
>>> from exactdp.engine.documents import (write_linear, write_privacy_level, write_spd_point,
...                                       write_threshold)
>>> from exactdp.engine.questions import question_of
>>> from exactdp.kernel.jsonio import dumps, loads
>>> from exactdp.kernel.privacy import check_privacy_level
>>> from exactdp.spaces.levels import parse_level
>>> from exactdp.spaces.metrics import cycle, line
>>> doc = write_linear(LinearClaim("farkas", line(2), parse_level(t="1/2"), (F(1), F(-1)),
...                                False, {"y": (F(1), F(1))}))
>>> doc["question"]["property"], doc["evidence"]
('nonnegative-solution', {'y': ['1', '1']})
>>> write_linear(read_linear(loads(dumps(doc)))) == doc
True
>>> doc = write_spd_point(SpdPointClaim(line(2), (F(1), F(1)), F(1), 0, F(-1), F(1, 2), F(1, 4)))
>>> doc["question"]["level"], doc["claim"]
({'eps': '1'}, {'verdict': 'fails', 'index': 0, 'upper': '-1'})
>>> write_spd_point(read_spd_point(loads(dumps(doc)))) == doc
True
>>> doc = write_threshold(ThresholdClaim("prop9", cycle(4), (F(1),) * 4, Enclosure(F(0), F(0)), {}))
>>> doc["question"]["property"], doc["claim"]
('threshold-tight', {'verdict': 'holds', 'eps': {'lo': '0', 'hi': '0'}})
>>> write_threshold(read_threshold(loads(dumps(doc)))) == doc
True
>>> q = question_of(line(2), "privacy-level", mechanism=[["3/4", "1/4"], ["1/4", "3/4"]])
>>> doc = write_privacy_level(q, F(3), (0, 1, 0), Enclosure(F(1), F(2)))
>>> doc["claim"]["value"]
{'t': '1/3'}
>>> check_privacy_level(read_privacy_level(loads(dumps(doc))))
True
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
    read_closed_form,
    read_enclosure,
    read_envelope,
    read_int,
    read_list,
    read_object,
    read_poly,
    read_rational,
    read_rationals,
    read_str,
    read_verdict,
    show,
)
from exactdp.kernel.linear import MAX_STATED_PREC, LinearClaim
from exactdp.kernel.privacy import (
    PRIVACY_CHECK,
    PRIVACY_KINDS,
    PRIVACY_LEVEL,
    CheckClaim,
    LevelClaim,
    LogValue,
    log_form,
)
from exactdp.kernel.question import ALL_EPS, LINEAR_PROPS, ONES, Property, Question
from exactdp.kernel.threshold import ThresholdClaim
from exactdp.kernel.threshold_spd import MAX_ORDER, SPD_COVER, SPD_POINT, SpdPointClaim
from exactdp.kinds import Verdict
from exactdp.spaces.distances import Distance
from exactdp.spaces.levels import PrivacyLevel

__all__ = ["MAX_DEPTH", "MAX_PIECES", "located", "read_document", "read_linear", "read_spd_point", "read_threshold",
           "read_threshold_parts", "read_s_star", "read_int_poly", "read_polys", "read_privacy_level",
           "read_privacy_check"]

#: Deepest nesting of factor documents accepted (a Kronecker factor of a factor …, the fail
#: side of a cover).
MAX_DEPTH = 8
#: Most ranges of a certified cover read.
MAX_PIECES = 100_000
_MAX_RADICAND = 2**64

#: A field reader: (JSON value, where, n = the metric's points, nesting depth) -> the value.
#: None: the field is read by the caller (``verdict``; a threshold's ``eps``).
_Reader = Callable[[Any, str, int, int], Any] | None


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
def _index(v: Any, w: str, n: int, d: int) -> int | None:
    """null or a point index (a witness)."""
    return None if v is None else read_int(v, w, 0, n - 1)


def _rationals(v: Any, w: str, n: int, d: int) -> tuple[Fraction, ...]:
    return read_rationals(v, w, n)


def _rational(v: Any, w: str, n: int, d: int) -> Fraction:
    return read_rational(v, w)


def _enclosures(v: Any, w: str, n: int | None, d: int = 0) -> tuple[Enclosure, ...]:
    """``n`` enclosures (n = None: at most :data:`MAX_PIECES`)."""
    items = read_list(v, w, n, max_length=MAX_PIECES if n is None else None)
    return tuple(read_enclosure(e, f"{w}[{k}]") for k, e in enumerate(items))


def _int_polys(v: Any, w: str, n: int, d: int = 0) -> tuple[tuple[int, ...], ...]:
    return tuple(read_int_poly(p, f"{w}[{k}]") for k, p in enumerate(read_list(v, w, n)))


def _triples(keys: tuple[str, str, str]) -> _Reader:
    """A list (at most :data:`MAX_PIECES`) of objects of three rationals named ``keys``."""
    def read(v: Any, w: str, n: int, d: int) -> tuple[tuple[Fraction, ...], ...]:
        out = []
        for k, item in enumerate(read_list(v, w, max_length=MAX_PIECES)):
            obj = read_object(item, f"{w}[{k}]", keys)
            out.append(tuple(read_rational(obj[key], f"{w}[{k}].{key}") for key in keys))
        return tuple(out)
    return read


def _factors(read: Callable[[Any, int], Any]) -> _Reader:
    """Full factor documents, each read by ``read`` one level deeper (at most :data:`MAX_DEPTH`)."""
    def factors(v: Any, w: str, n: int, d: int) -> tuple[Any, ...]:
        if d >= MAX_DEPTH:
            raise InvalidArgument(f"{w}: nested more than {MAX_DEPTH} deep; write at most {MAX_DEPTH} levels of "
                                  "factor documents.")
        return tuple(_nested(f"{w}[{k}]", read, f, d + 1) for k, f in enumerate(read_list(v, w)))
    return factors


def _nested(where: str, read: Callable[[Any, int], Any], doc: Any, depth: int) -> Any:
    """``read(doc, depth)`` of a sub-document; an error in it names its path from the top
    (``evidence.factors[1].claim.solution[0]``)."""
    with located(where):
        return read(doc, depth)


def _fail(v: Any, w: str, n: int, d: int) -> Any:
    """The fail side of a cover: an spd-point document or a linear-system one."""
    if not isinstance(v, dict):
        raise InvalidArgument(f"{w}: expected a JSON object (an spd-point or linear-system document), "
                              f"got {type(v).__name__}.")
    return _nested(w, lambda doc, depth: read_spd_point(doc) if doc.get("kind") == SPD_POINT
                   else read_linear(doc, depth), v, d + 1)


def read_int_poly(value: Any, where: str) -> tuple[int, ...]:
    """An integer polynomial read from JSON (``["0"]`` is the zero polynomial)."""
    if value == ["0"]:  # the zero polynomial (z_i ≡ 0)
        return (0,)
    return tuple(int(v) for v in read_poly(value, where, integer=True))


def read_polys(evid: dict[str, Any], size: int) -> dict[str, Any]:
    """``numerators`` (``size`` integer polynomials) and ``denominator`` of the evidence."""
    return {"numerators": _int_polys(evid["numerators"], "evidence.numerators", size),
            "denominator": read_int_poly(evid["denominator"], "evidence.denominator")}


def read_s_star(value: Any) -> tuple[int, tuple[int, ...], Any] | None:
    """Read ``claim.s_star`` (null, or {q, minimal_polynomial, isolating_interval})."""
    if value is None:
        return None
    obj = read_object(value, "claim.s_star", ("q", "minimal_polynomial", "isolating_interval"))
    return (read_int(obj["q"], "claim.s_star.q", 1),
            read_int_poly(obj["minimal_polynomial"], "claim.s_star.minimal_polynomial"),
            read_enclosure(obj["isolating_interval"], "claim.s_star.isolating_interval"))


# ------------------------------------------------------------------------- field tables
_PREC_WITNESS: dict[str, _Reader] = {"precision": lambda v, w, n, d: read_int(v, w, 2, MAX_STATED_PREC),
                                    "witness": _index}
_POLYS: dict[str, _Reader] = {"numerators": _int_polys, "denominator": lambda v, w, n, d: read_int_poly(v, w)}

#: Linear kind -> (claim fields, evidence fields).
_LINEAR: dict[str, tuple[dict[str, _Reader], dict[str, _Reader]]] = {
    "exact-solution": ({"verdict": None, "solution": _rationals}, {}),
    "farkas": ({"verdict": None}, {"y": _rationals}),
    "ball": ({"verdict": None, "enclosure": _enclosures}, _PREC_WITNESS),
    "verified-float": ({"verdict": None, "enclosure": _enclosures}, _PREC_WITNESS),
    "symbolic": ({"verdict": None}, {**_POLYS, **_PREC_WITNESS}),
    "kronecker": ({"verdict": None}, {"factors": _factors(lambda doc, d: read_linear(doc, d))}),
}
_SPD_FIELDS: dict[str, tuple[dict[str, _Reader], dict[str, _Reader]]] = {
    SPD_POINT: ({"verdict": None, "index": lambda v, w, n, d: read_int(v, w, 0, n - 1), "upper": _rational},
                {"sigma": _rational, "lam": _rational})}
_COVER: dict[str, _Reader] = {"fail": _fail, "t0": _rational}
#: Threshold kind -> (claim fields, evidence fields); ``binding`` is checked against the factors.
_THRESHOLD: dict[str, tuple[dict[str, _Reader], dict[str, _Reader]]] = {
    "exact": ({"verdict": None, "eps": None, "s_star": lambda v, w, n, d: read_s_star(v)},
              {**_POLYS, "witness": _index}),
    "prop9": ({"verdict": None, "eps": None}, {}),
    "kronecker-threshold": ({"verdict": None, "eps": None},
                            {"factors": _factors(lambda doc, d: read_threshold(doc, d)),
                             "binding": lambda v, w, n, d: v}),
    "certified-cover": ({"verdict": None, "eps": None},
                        {**_COVER, "pieces": lambda v, w, n, d: _enclosures(v, w, None)}),
    SPD_COVER: ({"verdict": None, "eps": None},
                {**_COVER, "order": lambda v, w, n, d: read_int(v, w, 0, MAX_ORDER),
                 "nodes": _triples(("eps", "sigma", "lam")), "pieces": _triples(("lo", "hi", "lam"))}),
}


def _read_fields(env: Envelope, fields: tuple[dict[str, _Reader], dict[str, _Reader]], n: int,
                depth: int = 0) -> dict[str, Any]:
    """Every claim and evidence field of ``env`` that has a reader in ``fields``, read by it."""
    return {key: read(part[key], f"{name}.{key}", n, depth)
            for name, part, table in (("claim", env.claim, fields[0]), ("evidence", env.evidence, fields[1]))
            for key, read in table.items() if read is not None}


def _read_parts(env: Envelope, parts: Mapping[str, tuple[Collection[str], Collection[str]]],
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
    q, claim, evid = _read_parts(env, parts, props, optional)
    rhs = tuple(Fraction(1) for _ in range(q.metric.n)) if q.rhs == ONES else q.rhs
    assert isinstance(rhs, tuple)
    verdict = read_verdict(claim["verdict"], "claim.verdict")
    if verdict not in verdicts:
        raise InvalidArgument(f"claim.verdict: got {verdict.value!r}; this certificate claims "
                              f"one of {[v.value for v in verdicts]}.")
    return env.kind, q, rhs, verdict, claim, evid


# ------------------------------------------------------------------------ linear, spd-point
def read_linear(doc: Any, depth: int = 0) -> LinearClaim:
    """Read a document into a :class:`~exactdp.kernel.linear.LinearClaim`.

    Raises :class:`~exactdp.errors.InvalidArgument` for a malformed document and
    :class:`~exactdp.errors.CertificateInvalid` when its question was altered (fingerprint).
    """
    env = read_envelope(doc)
    kind, q, rhs, verdict, _, _ = read_document(env, _LINEAR, LINEAR_PROPS, (Verdict.HOLDS, Verdict.FAILS))
    ev = _read_fields(env, _LINEAR[kind], q.metric.n, depth)
    assert isinstance(q.level, PrivacyLevel)
    return LinearClaim(kind, q.metric, q.level, rhs, verdict is Verdict.HOLDS,
                       {"x": ev["solution"]} if kind == "exact-solution" else ev)


def read_spd_point(doc: Any) -> SpdPointClaim:
    """Read a document into an :class:`~exactdp.kernel.threshold_spd.SpdPointClaim`
    (malformed: InvalidArgument; altered question: CertificateInvalid)."""
    env = read_envelope(doc)
    _, q, rhs, _, _, _ = read_document(env, _SPD_FIELDS, LINEAR_PROPS, (Verdict.FAILS,))
    level = q.level
    if not isinstance(level, PrivacyLevel) or level.eps_rational is None:
        raise InvalidArgument("question.level: an spd-point certificate is at a rational ε; "
                              "write {\"eps\": \"p/q\"}.")
    ev = _read_fields(env, _SPD_FIELDS[SPD_POINT], q.metric.n)
    return SpdPointClaim(q.metric, rhs, level.eps_rational, ev["index"], ev["upper"], ev["sigma"], ev["lam"])


# ---------------------------------------------------------------------------- thresholds
def read_threshold(doc: Any, depth: int = 0) -> ThresholdClaim:
    """Read a document into a :class:`~exactdp.kernel.threshold.ThresholdClaim`.

    Raises :class:`~exactdp.errors.InvalidArgument` for a malformed document and
    :class:`~exactdp.errors.CertificateInvalid` when its question was altered (fingerprint).
    """
    env = read_envelope(doc)
    if env.kind not in _THRESHOLD:  # checked before the parts, whose reader names only this kind
        raise InvalidArgument(f"kind: {env.kind!r} is not one of {sorted(_THRESHOLD)}.")
    claim_fields, evidence_fields = _THRESHOLD[env.kind]
    q, rhs, eps, _, _ = read_threshold_parts(env, env.kind, tuple(claim_fields), tuple(evidence_fields))
    ev = _read_fields(env, _THRESHOLD[env.kind], q.metric.n, depth)
    if "binding" in ev:
        ev["binding"] = read_int(ev["binding"], "evidence.binding", 0, len(ev["factors"]) - 1)
    return ThresholdClaim(env.kind, q.metric, rhs, eps, ev)


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


# ------------------------------------------------------------------------------- privacy
def _read_value(value: Any) -> LogValue | str:
    where = "claim.value"
    if value in ("0", "infinite"):
        return str(value)
    if not isinstance(value, dict) or len(value) != 1:
        raise InvalidArgument(f"{where}: expected \"0\", \"infinite\" or an object with one key "
                              "\"t\", \"eps\" or \"log_ratio\".")
    (key,) = value
    if key == "t":
        t = read_rational(value["t"], where + ".t")
        if not 0 < t < 1:
            raise InvalidArgument(f"{where}.t = {show(t)}; a level's t = e^-ε lies in (0, 1) (t = 1/R for the "
                                  "largest ratio R > 1 of the mechanism).")
        return LogValue(1 / t, Distance.rational(1))
    if key == "eps":
        form = log_form(read_closed_form(value["eps"], where + ".eps"))
        if form is None:
            raise InvalidArgument(f"{where}.eps: a privacy level of an exact mechanism is "
                                  "ln(R)/d; write it as k*sqrt(s)*log(T) (T > 1 rational).")
        if form.e.radicand >= _MAX_RADICAND:
            raise InvalidArgument(f"{where}.eps: the radicand is ≥ 2^64.")
        return form
    if key == "log_ratio":
        obj = read_object(value[key], where + ".log_ratio", ("ratio", "distance"))
        R = read_rational(obj["ratio"], where + ".log_ratio.ratio")
        dd = read_object(obj["distance"], where + ".log_ratio.distance", ("coef", "radicand"))
        c = read_rational(dd["coef"], where + ".log_ratio.distance.coef")
        r = int(read_rational(dd["radicand"], where + ".log_ratio.distance.radicand", integer=True))
        if R <= 1 or c <= 0 or not 1 <= r < _MAX_RADICAND:
            raise InvalidArgument(f"{where}.log_ratio: got ratio {show(R)}, coef {show(c)}, radicand {show(r)}; "
                                  "need ratio > 1, coef > 0 and 1 ≤ radicand < 2^64.")
        return LogValue(R, Distance(c, r))
    raise InvalidArgument(f"{where}: unexpected key {key[:40]!r}; use \"t\", \"eps\" or \"log_ratio\".")


def _read_witness(value: Any, where: str) -> tuple[int, int, int] | None:
    if value is None:
        return None
    items = read_list(value, where, length=3)
    y, y2, z = (read_int(x, f"{where}[{k}]", lo=0) for k, x in enumerate(items))
    return y, y2, z


def read_privacy_level(doc: Any) -> LevelClaim:
    """Read a ``privacy-level`` document (malformed: InvalidArgument; altered question:
    CertificateInvalid)."""
    q, claim, _ = _read_parts(read_envelope(doc, PRIVACY_KINDS),
                              {PRIVACY_LEVEL: (("value", "witness", "enclosure"), ())}, (Property.PRIVACY_LEVEL,))
    value = _read_value(claim["value"])
    enc = None if claim["enclosure"] is None else read_enclosure(claim["enclosure"], "claim.enclosure")
    return LevelClaim(q, value, _read_witness(claim["witness"], "claim.witness"), enc)


def read_privacy_check(doc: Any) -> CheckClaim:
    """Read a ``privacy-check`` document."""
    q, claim, _ = _read_parts(read_envelope(doc, PRIVACY_KINDS), {PRIVACY_CHECK: (("verdict", "violation"), ())},
                              (Property.PRIVATE,))
    holds = read_str(claim["verdict"], "claim.verdict", ("holds", "fails")) == "holds"
    return CheckClaim(q, holds, _read_witness(claim["violation"], "claim.violation"))
