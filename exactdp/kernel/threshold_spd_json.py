"""The reader of the ``spd-point`` documents.

**spd-point** (:mod:`exactdp.kernel.threshold_spd`): the linear system's question at the
exact level ε = ``eps`` (rational, written ``{"eps": "p/q"}``); the claim ``{"verdict":
"fails", "index": i, "upper": "p/q"}`` (z_i(ε) < 0 and z_i(ε) ≤ upper); the evidence
``{"sigma": "p/q", "lam": "p/q"}`` (the Cholesky shift and λ ≤ λ_min(Φ(ε))).

>>> from fractions import Fraction as F
>>> from exactdp.engine.documents import write_spd_point
>>> from exactdp.kernel.jsonio import dumps, loads
>>> from exactdp.spaces.metrics import line
>>> doc = write_spd_point(SpdPointClaim(line(2), (F(1), F(1)), F(1), 0, F(-1), F(1, 2), F(1, 4)))
>>> doc["question"]["level"], doc["claim"]
({'eps': '1'}, {'verdict': 'fails', 'index': 0, 'upper': '-1'})
>>> write_spd_point(read_spd_point(loads(dumps(doc)))) == doc
True
"""

from __future__ import annotations

from typing import Any

from exactdp.errors import InvalidArgument
from exactdp.kernel.jsonio import read_envelope, read_int
from exactdp.kernel.question import LINEAR_PROPS
from exactdp.kernel.read_common import FieldReader, rational_field, read_document, read_fields
from exactdp.kernel.threshold_spd import SPD_POINT, SpdPointClaim
from exactdp.kinds import Verdict
from exactdp.spaces.levels import PrivacyLevel

__all__ = ["read_spd_point"]

_SPD_FIELDS: dict[str, tuple[dict[str, FieldReader], dict[str, FieldReader]]] = {
    SPD_POINT: ({"verdict": None, "index": lambda v, w, n, d: read_int(v, w, 0, n - 1), "upper": rational_field},
                {"sigma": rational_field, "lam": rational_field})}


def read_spd_point(doc: Any) -> SpdPointClaim:
    """Read a document into an :class:`~exactdp.kernel.threshold_spd.SpdPointClaim`
    (malformed: InvalidArgument; altered question: CertificateInvalid)."""
    env = read_envelope(doc)
    _, q, rhs, _, _, _ = read_document(env, _SPD_FIELDS, LINEAR_PROPS, (Verdict.FAILS,))
    level = q.level
    if not isinstance(level, PrivacyLevel) or level.eps_rational is None:
        raise InvalidArgument("question.level: an spd-point certificate is at a rational ε; "
                              "write {\"eps\": \"p/q\"}.")
    ev = read_fields(env, _SPD_FIELDS[SPD_POINT], q.metric.n)
    return SpdPointClaim(q.metric, rhs, level.eps_rational, ev["index"], ev["upper"], ev["sigma"], ev["lam"])
