"""JSON form of the ``spd-point`` claim (:mod:`exactdp.kernel.threshold_spd`): the reader.

The question is the linear system's (``tight-constraints``, ``regular`` or
``nonnegative-solution``) at the exact level ε = ``eps`` (rational, written
``{"eps": "p/q"}``); the claim ``{"verdict": "fails", "index": i, "upper": "p/q"}``
(z_i(ε) < 0 and z_i(ε) ≤ upper); the evidence ``{"sigma": "p/q", "lam": "p/q"}`` (the Cholesky shift
and λ ≤ λ_min(Φ(ε))). The writer is :func:`exactdp.engine.documents.write_spd_point`.

>>> from fractions import Fraction
>>> from exactdp.kernel.jsonio import dumps, loads
>>> from exactdp.engine.documents import write_spd_point
>>> from exactdp.spaces.metrics import line
>>> c = SpdPointClaim(line(2), (Fraction(1), Fraction(1)), Fraction(1), 0, Fraction(-1),
...                   Fraction(1, 2), Fraction(1, 4))
>>> doc = write_spd_point(c)
>>> doc["question"]["level"], doc["claim"]
({'eps': '1'}, {'verdict': 'fails', 'index': 0, 'upper': '-1'})
>>> write_spd_point(read_spd_point(loads(dumps(doc)))) == doc
True
"""

from __future__ import annotations

from typing import Any

from exactdp.errors import InvalidArgument
from exactdp.kernel.jsonio import read_envelope, read_int, read_rational
from exactdp.kernel.linear_json import read_document
from exactdp.kernel.question import LINEAR_PROPS
from exactdp.kernel.threshold_spd import SPD_POINT, SpdPointClaim
from exactdp.kinds import Verdict
from exactdp.spaces.levels import PrivacyLevel

__all__ = ["read_spd_point"]


def read_spd_point(doc: Any) -> SpdPointClaim:
    """Read a document into an :class:`~exactdp.kernel.threshold_spd.SpdPointClaim`.

    Raises :class:`~exactdp.errors.InvalidArgument` for a malformed document and
    :class:`~exactdp.errors.CertificateInvalid` when its question was altered (fingerprint).
    """
    _, q, rhs, _, claim, evid = read_document(
        read_envelope(doc), {SPD_POINT: (("verdict", "index", "upper"), ("sigma", "lam"))},
        LINEAR_PROPS, (Verdict.FAILS,))
    level = q.level
    if not isinstance(level, PrivacyLevel) or level.eps_rational is None:
        raise InvalidArgument("question.level: an spd-point certificate is at a rational ε; "
                              "write {\"eps\": \"p/q\"}.")
    return SpdPointClaim(q.metric, rhs, level.eps_rational,
                         read_int(claim["index"], "claim.index", 0, q.metric.n - 1),
                         read_rational(claim["upper"], "claim.upper"),
                         read_rational(evid["sigma"], "evidence.sigma"),
                         read_rational(evid["lam"], "evidence.lam"))
