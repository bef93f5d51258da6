"""The document WRITERS: certificate documents built from the search's claims.

Writers are not part of the trusted base (a wrong writer yields a document the kernel
rejects), so they live here, outside :mod:`exactdp.kernel`; each kernel reader is their
check. The schema is ``docs/readme/certificate_schema.md``; the kernel modules' docstrings
give each kind's claim and evidence.

>>> from fractions import Fraction
>>> from exactdp.kernel.jsonio import dumps, loads
>>> from exactdp.kernel.linear import LinearClaim
>>> from exactdp.kernel.linear_json import read_linear
>>> from exactdp.spaces.levels import parse_level
>>> from exactdp.spaces.metrics import line
>>> c = LinearClaim("farkas", line(2), parse_level(t="1/2"), (Fraction(1), Fraction(-1)),
...                 False, {"y": (Fraction(1), Fraction(1))})
>>> doc = write_linear(c)
>>> doc["question"]["property"], doc["evidence"]
('nonnegative-solution', {'y': ['1', '1']})
>>> write_linear(read_linear(loads(dumps(doc)))) == doc
True
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import sympy

from exactdp.arithmetic.interval import Enclosure
from exactdp.arithmetic.rationals import exact_root, fmpq_to_fraction, to_sympy
from exactdp.engine.grid_documents import write_grid_shape
from exactdp.engine.questions import canonical_metric, make_question
from exactdp.errors import ExactDPError, InstanceTooLarge, InvalidArgument
from exactdp.kernel.grid_point import GridPointClaim
from exactdp.kernel.jsonio import (
    envelope,
    write_closed_form,
    write_enclosure,
    write_rational,
    write_verdict,
)
from exactdp.kernel.linear import LINEAR_KINDS, LinearClaim
from exactdp.kernel.metricio import write_metric
from exactdp.kernel.privacy import PRIVACY_CHECK, PRIVACY_LEVEL, require_work, sufficient_pairs
from exactdp.kernel.pufferfish import MAX_POINTS, Dist, query_laws
from exactdp.kernel.question import (
    ALL_EPS,
    ONES,
    Property,
    Question,
    linear_property,
    read_form,
    write_level,
)
from exactdp.kernel.remap import phi_values
from exactdp.kernel.remap_qx import QxQuestion, require_qx
from exactdp.kernel.threshold import THRESHOLD_KINDS, ThresholdClaim
from exactdp.kernel.threshold_quotient import QUOTIENT_KIND
from exactdp.kernel.threshold_spd import SPD_COVER, SPD_POINT, SpdPointClaim
from exactdp.kernel.threshold_structured import STRUCTURED_KIND
from exactdp.kinds import CertificateKind, Verdict
from exactdp.spaces.distances import Distance
from exactdp.spaces.levels import PrivacyLevel, parse_level
from exactdp.spaces.metrics.masked import GridShape

__all__ = ["linear_question", "write_linear", "write_int_poly", "write_spd_point",
           "threshold_question", "write_s_star", "write_threshold", "write_quotient",
           "write_structured", "write_level_value", "write_privacy_level", "write_privacy_check",
           "write_remap", "write_remap_qx", "write_grid_point", "write_dist", "write_scale", "write_wasserstein",
           "write_population", "write_level", "grid_threshold_question", "write_scaled"]


def _rats(values: Sequence[Any], where: str) -> list[str]:
    return [write_rational(v, where) for v in values]


def write_dist(dist: Dist) -> dict[str, list[str]]:
    """``{"support": [...], "probs": [...]}``, support increasing, masses > 0 (the kernel
    re-checks at most :data:`~exactdp.kernel.pufferfish.MAX_POINTS` points per law: over it,
    InstanceTooLarge, exit 2, as the kernel)."""
    pts = sorted(x for x, p in dist.items() if p)
    if len(pts) > MAX_POINTS:
        raise InstanceTooLarge(f"a law with {len(pts)} points; the kernel re-checks at most "
                               f"MAX_POINTS = {MAX_POINTS} per law.")
    return {"support": [write_rational(x) for x in pts],
            "probs": [write_rational(dist[x]) for x in pts]}


# ------------------------------------------------------------------- linear systems
def linear_question(c: LinearClaim | SpdPointClaim) -> Question:
    """The question a linear-system claim answers (:func:`linear_property` of its b)."""
    level = parse_level(eps=c.eps) if isinstance(c, SpdPointClaim) else c.level
    prop = linear_property(c.rhs)
    return make_question(c.metric, prop, ONES if prop is Property.TIGHT_CONSTRAINTS else c.rhs, level)


def write_int_poly(coeffs: Any) -> list[str]:
    """An integer polynomial's coefficients as JSON strings, in the order given."""
    return [str(int(v)) for v in coeffs]


def write_linear(c: LinearClaim) -> dict[str, Any]:
    """The JSON document of a linear-system claim (:mod:`exactdp.kernel.linear_json`)."""
    ev = c.evidence
    claim: dict[str, Any] = {"verdict": write_verdict(Verdict.from_bool(c.holds))}
    evidence: dict[str, Any] = {}
    if c.kind == "exact-solution":
        claim["solution"] = _rats(ev["x"], "solution")
    elif c.kind == "farkas":
        evidence["y"] = _rats(ev["y"], "y")
    elif c.kind in ("ball", "verified-float"):
        claim["enclosure"] = [write_enclosure(e) for e in ev["enclosure"]]
        evidence.update(precision=ev["precision"], witness=ev["witness"])
    elif c.kind == "symbolic":
        evidence["numerators"] = [write_int_poly(p) for p in ev["numerators"]]
        evidence["denominator"] = write_int_poly(ev["denominator"])
        evidence.update(precision=ev["precision"], witness=ev["witness"])
    elif c.kind == "kronecker":
        evidence["factors"] = [write_linear(f) for f in ev["factors"]]
    else:
        raise InvalidArgument(f"Got kind={c.kind!r}; the linear kinds are {list(LINEAR_KINDS)}.")
    return envelope(c.kind, linear_question(c).to_json(), claim, evidence)


def write_spd_point(c: SpdPointClaim) -> dict[str, Any]:
    """The JSON document of an spd-point claim (:mod:`exactdp.kernel.threshold_spd_json`)."""
    claim = {"verdict": Verdict.FAILS.value, "index": int(c.index),
             "upper": write_rational(c.upper, "upper")}
    evidence = {"sigma": write_rational(c.sigma, "sigma"), "lam": write_rational(c.lam, "lam")}
    return envelope(SPD_POINT, linear_question(c).to_json(), claim, evidence)


def write_grid_point(c: GridPointClaim) -> dict[str, Any]:
    """A ``grid-point`` document (:mod:`exactdp.kernel.grid_point`; mantissas as decimal
    integer strings)."""
    prop = linear_property(c.rhs)
    question = {"metric": write_grid_shape(c.shape), "property": prop.value,
                "rhs": ONES if prop is Property.TIGHT_CONSTRAINTS else _rats(c.rhs, "rhs"),
                "level": write_level(c.level)}
    claim = {"verdict": write_verdict(Verdict.from_bool(bool(c.holds))), "witness": c.witness}
    evidence = {"exponent": int(c.exponent), "table_bits": int(c.table_bits),
                "lam": write_rational(c.lam, "lam"),
                "mantissas": [write_rational(int(m), "mantissa") for m in c.mantissas]}
    return envelope(CertificateKind.GRID_POINT, question, claim, evidence)


# ------------------------------------------------------------------------ thresholds
def threshold_question(c: ThresholdClaim) -> Question:
    """The question a threshold claim answers: ``threshold-tight`` when b = 1, else
    ``threshold-regular``."""
    if all(v == 1 for v in c.rhs):
        return make_question(c.metric, Property.THRESHOLD_TIGHT, ONES, ALL_EPS)
    return make_question(c.metric, Property.THRESHOLD_REGULAR, c.rhs, ALL_EPS)


def write_s_star(star: Any) -> dict[str, Any] | None:
    """``claim.s_star`` of (q, minimal polynomial, isolating interval), or None."""
    return None if star is None else {"q": star[0], "minimal_polynomial": write_int_poly(star[1]),
                                      "isolating_interval": write_enclosure(star[2])}


def _triples(items: Any, keys: tuple[str, str, str], where: str) -> list[dict[str, str]]:
    return [{k: write_rational(v, f"{where} {k}") for k, v in zip(keys, it)} for it in items]


def write_threshold(c: ThresholdClaim) -> dict[str, Any]:
    """The JSON document of a threshold claim (:mod:`exactdp.kernel.threshold_json`)."""
    ev = c.evidence
    claim: dict[str, Any] = {"verdict": Verdict.HOLDS.value, "eps": write_enclosure(c.eps)}
    evidence: dict[str, Any] = {}
    if c.kind == "exact":
        claim["s_star"] = write_s_star(ev["s_star"])
        evidence["numerators"] = [write_int_poly(p) for p in ev["numerators"]]
        evidence["denominator"] = write_int_poly(ev["denominator"])
        evidence["witness"] = ev["witness"]
    elif c.kind == "kronecker-threshold":
        evidence["binding"] = ev["binding"]
        evidence["factors"] = [write_threshold(f) for f in ev["factors"]]
    elif c.kind in ("certified-cover", SPD_COVER):
        fail = ev["fail"]
        evidence["fail"] = (write_spd_point(fail) if isinstance(fail, SpdPointClaim)
                            else write_linear(fail))
        evidence["t0"] = write_rational(ev["t0"], "t0")
        if c.kind == SPD_COVER:
            evidence["order"] = int(ev["order"])
            evidence["nodes"] = _triples(ev["nodes"], ("eps", "sigma", "lam"), "node")
            evidence["pieces"] = _triples(ev["pieces"], ("lo", "hi", "lam"), "piece")
        else:
            evidence["pieces"] = [write_enclosure(p) for p in ev["pieces"]]
    elif c.kind != "prop9":
        raise InvalidArgument(f"Got kind={c.kind!r}; the threshold kinds are "
                              f"{list(THRESHOLD_KINDS)}.")
    return envelope(c.kind, threshold_question(c).to_json(), claim, evidence)


def grid_threshold_question(shape: GridShape, rhs: tuple[Fraction, ...]) -> dict[str, Any]:
    """``question`` of a threshold document about a grid written as its shape (no distance
    limit, never n² data): ``threshold-tight`` with ``"ones"`` for b = 1, else
    ``threshold-regular``; every ε > 0.

    >>> grid_threshold_question(GridShape(2, 1, "manhattan", Fraction(10**40)), (Fraction(1),) * 2)["rhs"]
    'ones'
    """
    ones = all(v == 1 for v in rhs)
    return {"metric": write_grid_shape(shape),
            "property": (Property.THRESHOLD_TIGHT if ones else Property.THRESHOLD_REGULAR).value,
            "rhs": ONES if ones else _rats(rhs, "rhs"), "level": write_level(ALL_EPS)}


def write_scaled(question: dict[str, Any], eps: Enclosure, unit: Fraction,
                 inner: dict[str, Any]) -> dict[str, Any]:
    """An ``exact-scaled`` document (:mod:`exactdp.kernel.threshold_scaled`): the question
    of d (a metric encoding or a grid shape), ε*(d) ∈ ``eps``, the unit c and the complete
    threshold document ``inner`` of d/c."""
    return envelope(CertificateKind.EXACT_SCALED, question,
                    {"verdict": Verdict.HOLDS.value, "eps": write_enclosure(eps)},
                    {"unit": write_rational(unit, "unit"), "inner": inner})


def _root_run(c: ThresholdClaim, kind: str, keys: tuple[str, ...]) -> dict[str, Any]:
    ev = c.evidence
    claim = {"verdict": Verdict.HOLDS.value, "eps": write_enclosure(c.eps),
             "s_star": write_s_star(ev["s_star"])}
    evidence = {k: ev[k] for k in keys}
    evidence.update(numerators=[write_int_poly(p) for p in ev["numerators"]],
                    denominator=write_int_poly(ev["denominator"]))
    return envelope(kind, threshold_question(c).to_json(), claim, evidence)


def write_quotient(c: ThresholdClaim) -> dict[str, Any]:
    """The JSON document of a quotient claim (:mod:`exactdp.kernel.threshold_quotient`)."""
    doc = _root_run(c, QUOTIENT_KIND, ("witness",))
    doc["evidence"] = {"cells": [int(x) for x in c.evidence["cells"]], **doc["evidence"]}
    return doc


def write_structured(c: ThresholdClaim) -> dict[str, Any]:
    """The JSON document of a structured claim (:mod:`exactdp.kernel.threshold_structured`;
    ``offset`` is written only when nonzero)."""
    doc = _root_run(c, STRUCTURED_KIND, ("step", "shift", "witness"))
    if c.evidence.get("offset", 0) != 0:
        doc["evidence"]["offset"] = c.evidence["offset"]
    return doc


# --------------------------------------------------------------- privacy, remaps
def write_level_value(R: Fraction, d0: Distance) -> Any:
    """The value ln(R)/d0 (R > 1) as the schema writes a level (:mod:`exactdp.kernel.privacy_json`).

    >>> write_level_value(Fraction(9), Distance.rational(2))
    {'t': '1/3'}
    """
    if d0.is_rational:  # t = R^(−1/d0) = R^(−b/a): rational when R is a perfect a-th power
        a, b = d0.coef.numerator, d0.coef.denominator
        if b * (R.numerator.bit_length() + 1) // a <= 300_000 \
                and R.numerator.bit_length() <= 1_000_000:  # size guards first (bits only)
            num, den = exact_root(R.numerator, a), exact_root(R.denominator, a)
            if num is not None and den is not None:
                return {"t": write_rational(Fraction(den, num) ** b, "value.t")}
    try:
        expr = sympy.log(to_sympy(R)) / (to_sympy(d0.coef) * sympy.sqrt(d0.radicand))
        return {"eps": write_closed_form(expr, "value.eps")}
    except (ExactDPError, ValueError):  # too long for a closed form (or for int→str)
        return {"log_ratio": {"ratio": write_rational(R, "value.ratio"),
                              "distance": {"coef": write_rational(d0.coef, "distance.coef"),
                                           "radicand": write_rational(d0.radicand,
                                                                      "distance.radicand")}}}


def write_privacy_level(question: Question, value: Any, witness: tuple[int, int, int] | None,
                        enclosure: Enclosure | None) -> dict[str, Any]:
    """A ``privacy-level`` document; ``value`` is ``"0"``, ``"infinite"`` or the ratio R of
    the witness (V = ln(R)/d(y, y'), written by :func:`write_level_value`)."""
    if isinstance(value, Fraction):
        if witness is None:
            raise InvalidArgument("a level ln(R)/d needs its witness (y, y', z).")
        value = write_level_value(value, question.metric.distance(witness[0], witness[1]))
    elif value not in ("0", "infinite"):
        raise InvalidArgument(f"Got value={value!r}; pass \"0\", \"infinite\" or the ratio R.")
    claim = {"value": value, "witness": None if witness is None else list(witness),
             "enclosure": None if enclosure is None else write_enclosure(enclosure)}
    return envelope(PRIVACY_LEVEL, question.to_json(), claim, {})


def write_privacy_check(question: Question, holds: bool,
                        violation: tuple[int, int, int] | None) -> dict[str, Any]:
    """A ``privacy-check`` document."""
    claim = {"verdict": write_verdict(Verdict.from_bool(holds)),
             "violation": None if violation is None else list(violation)}
    return envelope(PRIVACY_CHECK, question.to_json(), claim, {})


def write_remap(question: Question, holds: bool, evidence: Any) -> dict[str, Any]:
    """A ``remap`` (R: m rows of n rationals) or ``remap-farkas`` (w: n + m) document
    (:mod:`exactdp.kernel.remap`)."""
    phi_values(question)  # refuse up front what the kernel would refuse (level, size)
    assert question.mechanism is not None  # the kernel's privacy scan: its work limit
    require_work(len(sufficient_pairs(question.metric)), len(question.mechanism[0]))
    if holds:
        kind, key = CertificateKind.REMAP, "remap"
        body: Any = [_rats(r, "remap") for r in evidence]
    else:
        kind, key = CertificateKind.REMAP_FARKAS, "w"
        body = _rats(evidence, "w")
    claim = {"verdict": write_verdict(Verdict.from_bool(holds)), key: body}
    return envelope(kind, question.to_json(), claim, {})


def _sparse(p: Any) -> list[list[Any]]:
    """A polynomial (``flint.fmpq_poly``) as its nonzero terms ``[[e, "c"], ...]``."""
    return [[e, write_rational(fmpq_to_fraction(c), "coefficient")]
            for e, c in enumerate(p.coeffs()) if c != 0]


def write_remap_qx(q: QxQuestion, holds: bool, evidence: Any) -> dict[str, Any]:
    """A ``remap`` / ``remap-farkas`` document whose mechanism is a closed form in x
    (:mod:`exactdp.kernel.remap_qx`; ``q.metric`` is made canonical here). Refuses up front
    what the kernel would refuse (:func:`~exactdp.kernel.remap_qx.require_qx`)."""
    require_qx(q, evidence if holds else None)
    metric, spec, fp = canonical_metric(q.metric)
    assert q.level.eps_rational is not None and q.metric.q is not None
    log_x = write_rational(-q.level.eps_rational / (q.metric.q * q.b), "log_x")
    mech = {"log_x": log_x, "denominators": [_sparse(d) for d in q.dens],
            "entries": [[[j, _sparse(p)] for j, p in row] for row in q.entries]}
    question = {"metric": write_metric(metric, spec, fp), "property": Property.PRIVATE.value, "rhs": None,
                "level": write_level(q.level), "mechanism": mech}
    kind, key = (CertificateKind.REMAP, "remap") if holds else (CertificateKind.REMAP_FARKAS, "w")
    body = [_rats(r, "remap") for r in evidence] if holds else _rats(evidence, "w")
    return envelope(kind, question, {"verdict": write_verdict(Verdict.from_bool(holds)), key: body}, {})


# ----------------------------------------------------------------------- Pufferfish
def _least(least: tuple[Fraction, Fraction] | None) -> Any:
    return "0" if least is None else write_enclosure(Enclosure(*least), "claim.least")


def _pair(P: Dist, Q: Dist, level: PrivacyLevel, releases: int) -> dict[str, Any]:
    return {"P": write_dist(P), "Q": write_dist(Q), "level": write_level(level),
            "releases": releases}


def write_scale(P: Dist, Q: Dist, level: PrivacyLevel, releases: int,
                least: tuple[Fraction, Fraction] | None, closed_form: str | None,
                tol: Fraction, prec: int) -> dict[str, Any]:
    """The ``pufferfish-scale`` document: θ*(k releases) ∈ (lo, hi] (``None``: θ* = 0).
    A closed form the kernel would refuse (:func:`~exactdp.kernel.question.read_form`,
    strict: e.g. exp() nested 3 deep) is left out: the bracket is the claim."""
    if closed_form is not None:
        try:
            read_form(closed_form, "claim.closed_form", strict=True)
        except InvalidArgument:
            closed_form = None
    return envelope(CertificateKind.PUFFERFISH_SCALE, _pair(P, Q, level, releases),
                    {"least": _least(least), "closed_form": closed_form},
                    {"tol": write_rational(tol), "prec": prec})


def write_wasserstein(P: Dist, Q: Dist, level: PrivacyLevel, releases: int, theta: sympy.Expr,
                      w1: Fraction, winf: Fraction) -> dict[str, Any]:
    """The ``pufferfish-wasserstein`` document: θ = k·W∞/ε and the two distances (θ is
    refused, the limit named, when the kernel's strict :func:`read_form` would refuse it)."""
    text = write_closed_form(theta, "claim.theta")
    read_form(text, "claim.theta", strict=True)
    return envelope(CertificateKind.PUFFERFISH_WASSERSTEIN, _pair(P, Q, level, releases),
                    {"theta": text,
                     "w1": write_rational(w1), "winf": write_rational(winf)}, {})


def write_population(users: list[tuple[Dist, Fraction]], P: Dist, Q: Dist, theta: Fraction,
                     level: PrivacyLevel, verdict: Verdict, tight: bool,
                     least: tuple[Fraction, Fraction] | None | str = "absent") -> dict[str, Any]:
    """The ``pufferfish-population`` document (``least``: bracket, None for θ = 0, or absent)."""
    claim = {"verdict": write_verdict(verdict), "tight": tight}
    if least != "absent":
        claim["least"] = _least(least)  # type: ignore[arg-type]
    q = {"users": [{"dist": write_dist(d), "presence": write_rational(z)} for d, z in users],
         "P": write_dist(P), "Q": write_dist(Q), "theta": write_rational(theta),
         "level": write_level(level)}
    query_laws(q)  # refuses (the limit named) what the kernel would not re-check
    return envelope(CertificateKind.PUFFERFISH_POPULATION, q, claim, {})

