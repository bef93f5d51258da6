"""JSON form of the ``spd-point`` claim (:mod:`exactdp.kernel.threshold_spd`): one reader, one writer.

The question is the linear system's (``tight-constraints``, ``regular`` or
``nonnegative-solution``) at the exact level ε = ``eps`` (rational, written
``{"eps": "p/q"}``); the claim ``{"verdict": "fails", "index": i, "upper": "p/q"}``
(z_i(ε) < 0 and z_i(ε) ≤ upper); the evidence ``{"sigma": "p/q", "lam": "p/q"}`` (the Cholesky shift
and λ ≤ λ_min(Φ(ε))).

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

from fractions import Fraction
from typing import Any

from exactdp.errors import InvalidArgument
from exactdp.kernel.jsonio import (
    dumps,
    envelope,
    loads,
    read_envelope,
    read_int,
    read_object,
    read_rational,
    read_verdict,
    write_rational,
)
from exactdp.kernel.question import ONES, Property, Question
from exactdp.kernel.threshold_spd import SPD_POINT, SpdPointClaim
from exactdp.kinds import Verdict
from exactdp.spaces.levels import PrivacyLevel, parse_level

__all__ = ["write_spd_point", "read_spd_point", "dumps", "loads"]


def _question(c: SpdPointClaim) -> Question:
    b, level = c.rhs, parse_level(eps=c.eps)
    if all(v == 1 for v in b):
        return Question(c.metric, Property.TIGHT_CONSTRAINTS, ONES, level)
    if all(v >= 0 for v in b) and sum(b, Fraction(0)) == 1:
        return Question(c.metric, Property.REGULAR, b, level)
    return Question(c.metric, Property.NONNEGATIVE_SOLUTION, b, level)


def write_spd_point(c: SpdPointClaim) -> dict[str, Any]:
    """The JSON document of an spd-point claim (exact)."""
    claim = {"verdict": Verdict.FAILS.value, "index": int(c.index),
             "upper": write_rational(c.upper, "upper")}
    evidence = {"sigma": write_rational(c.sigma, "sigma"), "lam": write_rational(c.lam, "lam")}
    return envelope(SPD_POINT, _question(c).to_json(), claim, evidence)


def read_spd_point(doc: Any) -> SpdPointClaim:
    """Read a document into an :class:`~exactdp.kernel.threshold_spd.SpdPointClaim`.

    Raises :class:`~exactdp.errors.InvalidArgument` for a malformed document and
    :class:`~exactdp.errors.CertificateInvalid` when its question was altered (fingerprint).
    """
    env = read_envelope(doc)
    if env.kind != SPD_POINT:
        raise InvalidArgument(f"kind: {env.kind!r} is not {SPD_POINT!r}.")
    claim = read_object(env.claim, "claim", ("verdict", "index", "upper"))
    evid = read_object(env.evidence, "evidence", ("sigma", "lam"))
    q = Question.from_json(env.question)
    if q.prop not in (Property.TIGHT_CONSTRAINTS, Property.REGULAR,
                      Property.NONNEGATIVE_SOLUTION):
        raise InvalidArgument(f"question.property: {q.prop.value!r} is not a linear-system "
                              "question (tight-constraints, regular, nonnegative-solution).")
    level = q.level
    if not isinstance(level, PrivacyLevel) or level.eps_rational is None:
        raise InvalidArgument("question.level: an spd-point certificate is at a rational ε; "
                              "write {\"eps\": \"p/q\"}.")
    if read_verdict(claim["verdict"], "claim.verdict") is not Verdict.FAILS:
        raise InvalidArgument("claim.verdict: an spd-point certificate claims \"fails\".")
    n = q.metric.n
    rhs = tuple(Fraction(1) for _ in range(n)) if q.rhs == ONES else q.rhs
    assert isinstance(rhs, tuple)
    return SpdPointClaim(q.metric, rhs, level.eps_rational,
                         read_int(claim["index"], "claim.index", 0, n - 1),
                         read_rational(claim["upper"], "claim.upper"),
                         read_rational(evid["sigma"], "evidence.sigma"),
                         read_rational(evid["lam"], "evidence.lam"))
