"""The reader of the linear-system documents (:mod:`exactdp.kernel.linear`).

Every document is the envelope of :mod:`exactdp.kernel.jsonio`; a kind is one row of the field
table ``_LINEAR`` (:mod:`exactdp.kernel.read_common`). The writers are in
:mod:`exactdp.engine.documents`.

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

Examples
--------
>>> from fractions import Fraction as F
>>> from exactdp.engine.documents import write_linear
>>> from exactdp.kernel.jsonio import dumps, loads
>>> from exactdp.spaces.levels import parse_level
>>> from exactdp.spaces.metrics import line
>>> doc = write_linear(LinearClaim("farkas", line(2), parse_level(t="1/2"), (F(1), F(-1)),
...                                False, {"y": (F(1), F(1))}))
>>> doc["question"]["property"], doc["evidence"]
('nonnegative-solution', {'y': ['1', '1']})
>>> write_linear(read_linear(loads(dumps(doc)))) == doc
True
"""

from __future__ import annotations

from typing import Any

from exactdp.kernel.jsonio import read_envelope, read_int
from exactdp.kernel.linear import MAX_STATED_PREC, LinearClaim
from exactdp.kernel.question import LINEAR_PROPS
from exactdp.kernel.read_common import (
    MAX_DEPTH,
    POLY_FIELDS,
    FieldReader,
    enclosures_field,
    factors_field,
    index_field,
    rationals_field,
    read_document,
    read_fields,
    read_int_poly,
    read_polys,
)
from exactdp.kinds import Verdict
from exactdp.spaces.levels import PrivacyLevel

__all__ = ["read_linear", "MAX_DEPTH", "read_document", "read_int_poly", "read_polys"]

_PREC_WITNESS: dict[str, FieldReader] = {"precision": lambda v, w, n, d: read_int(v, w, 2, MAX_STATED_PREC),
                                         "witness": index_field}

#: Linear kind -> (claim fields, evidence fields).
_LINEAR: dict[str, tuple[dict[str, FieldReader], dict[str, FieldReader]]] = {
    "exact-solution": ({"verdict": None, "solution": rationals_field}, {}),
    "farkas": ({"verdict": None}, {"y": rationals_field}),
    "ball": ({"verdict": None, "enclosure": enclosures_field}, _PREC_WITNESS),
    "verified-float": ({"verdict": None, "enclosure": enclosures_field}, _PREC_WITNESS),
    "symbolic": ({"verdict": None}, {**POLY_FIELDS, **_PREC_WITNESS}),
    "kronecker": ({"verdict": None}, {"factors": factors_field(lambda doc, d: read_linear(doc, d))}),
}


def read_linear(doc: Any, depth: int = 0) -> LinearClaim:
    """Read a document into a :class:`~exactdp.kernel.linear.LinearClaim`.

    Raises :class:`~exactdp.errors.InvalidArgument` for a malformed document and
    :class:`~exactdp.errors.CertificateInvalid` when its question was altered (fingerprint).
    """
    env = read_envelope(doc)
    kind, q, rhs, verdict, _, _ = read_document(env, _LINEAR, LINEAR_PROPS, (Verdict.HOLDS, Verdict.FAILS))
    ev = read_fields(env, _LINEAR[kind], q.metric.n, depth)
    assert isinstance(q.level, PrivacyLevel)
    return LinearClaim(kind, q.metric, q.level, rhs, verdict is Verdict.HOLDS,
                       {"x": ev["solution"]} if kind == "exact-solution" else ev)
