"""Pufferfish results as portable documents that the kernel re-checks (``exactdp verify``).

:func:`to_document` writes an :class:`~exactdp.pufferfish.calibration.ExactScale`
(kind ``pufferfish-scale``), a :class:`~exactdp.pufferfish.calibration.ConservativeScale`
(``pufferfish-wasserstein``) or a :class:`~exactdp.pufferfish.certification.PopulationCertificate`
(``pufferfish-population``); :func:`from_document` re-checks a document with
``exactdp/kernel/pufferfish.py`` alone and only then rebuilds the Python result
(:class:`~exactdp.errors.CertificateInvalid` when the kernel rejects it).

>>> from exactdp.pufferfish import DistributionVsAbsent, bernoulli, exact_scale
>>> r = exact_scale(DistributionVsAbsent(bernoulli("1/2")), 1)
>>> doc = to_document(r)
>>> doc["kind"], doc["claim"]["closed_form"]
('pufferfish-scale', '1/log(-1 + 2*E)')
>>> again = from_document(doc)
>>> (again.lo, again.hi, again.theta_expr) == (r.lo, r.hi, r.theta_expr), again.verify()
(True, True)
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import sympy

from exactdp.arithmetic.expressions import parse_closed_form
from exactdp.arithmetic.rationals import to_sympy
from exactdp.errors import CertificateInvalid, InvalidArgument
from exactdp.kernel.jsonio import read_closed_form, read_enclosure, write_closed_form
from exactdp.kernel.pufferfish import (
    write_level,
    write_population,
    write_scale,
    write_wasserstein,
)
from exactdp.kernel.verify import verify_document
from exactdp.kinds import CertificateKind, Verdict
from exactdp.pufferfish.calibration import ConservativeScale, ExactScale, conservative_scale
from exactdp.pufferfish.certification import PopulationCertificate, certify
from exactdp.pufferfish.distributions import DiscreteDistribution
from exactdp.pufferfish.population import Population, User
from exactdp.pufferfish.secrets import DistributionPair, as_pair
from exactdp.spaces.levels import parse_level

__all__ = ["to_document", "from_document"]


def _d(dist: DiscreteDistribution) -> dict[Fraction, Fraction]:
    return dict(zip(dist.support, dist.probs))


def _dist(obj: dict[str, list[str]]) -> DiscreteDistribution:
    return DiscreteDistribution.from_lists(obj["support"], obj["probs"])


def _form(expr: Any) -> str:
    """The closed form as canonical text; sympy may print it in a form that parses back
    to another (equal) tree, so the parsed tree's text is written (the kernel proves it)."""
    try:
        return write_closed_form(expr, "theta_expr")
    except InvalidArgument:
        return write_closed_form(parse_closed_form(str(expr), "theta_expr", InvalidArgument))


def _level_json(level: Any) -> dict[str, Any]:
    """``parse_level`` keywords of a level as it travels (a PrivacyLevel or its JSON)."""
    obj = write_level(level) if not isinstance(level, dict) else level
    return {k: v if k == "t" else read_closed_form(v) for k, v in obj.items()}


def to_document(result: Any) -> dict[str, Any]:
    """The kernel document of a Pufferfish result (see the module docstring)."""
    if isinstance(result, ExactScale):
        level = parse_level(eps=result.eps)
        bracket = None if result.zero_noise else (result.lo, result.hi)
        form = None if result.theta_expr is None or result.zero_noise else _form(result.theta_expr)
        return write_scale(_d(result.P), _d(result.Q), level, result.releases, bracket, form,
                           result.tol, result.prec)
    if isinstance(result, ConservativeScale):
        level = parse_level(eps=result.eps)  # θ as k·W∞/ε over the level as it travels
        theta = result.releases * to_sympy(result.winf) / parse_level(**_level_json(level)).eps
        return write_wasserstein(_d(result.plan.P), _d(result.plan.Q), level, result.releases,
                                 theta, result.w1, result.winf)
    if isinstance(result, PopulationCertificate):
        if not isinstance(result.population, Population) or result.pair is None:
            raise InvalidArgument("This PopulationCertificate carries no question (population "
                                  "and pair); build it with certify().")
        pr = as_pair(result.pair)
        pop = result.population_theta
        least: Any = "absent" if pop is None else None if pop.zero_noise else (pop.lo, pop.hi)
        return write_population([(_d(u.dist), u.presence) for u in result.population.users],
                                _d(pr.P), _d(pr.Q), result.theta, parse_level(eps=result.eps),
                                result.verdict, result.tight, least)
    raise InvalidArgument(f"Got {type(result).__name__}; to_document takes an ExactScale, a "
                          "ConservativeScale or a PopulationCertificate.")


def from_document(doc: Any) -> ExactScale | ConservativeScale | PopulationCertificate:
    """Re-check ``doc`` in the kernel, then rebuild the result (re-derived where the document
    does not carry a field: the transport plan; a population's worst output)."""
    verdict = verify_document(doc)
    if not verdict.verified:
        raise CertificateInvalid(f"the kernel rejects this {verdict.kind} document: "
                                 f"{verdict.reason}; do not use it.")
    q, c = doc["question"], doc["claim"]
    P, Q = _dist(q["P"]), _dist(q["Q"])
    level = parse_level(**_level_json(q["level"]))
    if verdict.kind == CertificateKind.PUFFERFISH_WASSERSTEIN.value:
        return conservative_scale(DistributionPair(P, Q), level, releases=q["releases"])
    if verdict.kind == CertificateKind.PUFFERFISH_POPULATION.value:
        users = Population(User(_dist(u["dist"]), u["presence"]) for u in q["users"])
        again = certify(users, DistributionPair(P, Q), q["theta"], level.eps, least="least" in c)
        if (again.verdict, again.tight) != (Verdict(c["verdict"]), c["tight"]):  # pragma: no cover
            raise CertificateInvalid("the search disagrees with a kernel-verified document")
        return again
    zero = c["least"] == "0"
    enc = None if zero else read_enclosure(c["least"])
    form = c["closed_form"]
    return ExactScale(
        P=P, Q=Q, eps=level.eps, lo=Fraction(0) if enc is None else enc.lo,
        hi=Fraction(0) if enc is None else enc.hi,
        theta_expr=sympy.Integer(0) if zero else None if form is None else read_closed_form(form),
        method="zero_noise" if zero else "root_finding" if form is None else "closed_form",
        zero_noise=zero, identical=P == Q, prec=doc["evidence"]["prec"],
        tol=Fraction(doc["evidence"]["tol"]), verdict_lo=None if zero else Verdict.FAILS,
        verdict_hi=None if zero else Verdict.HOLDS, releases=q["releases"])
