"""Pufferfish results as portable documents that the kernel re-checks (``exactdp verify``).

:func:`to_document` writes an :class:`~exactdp.pufferfish.calibration.ExactScale`
(kind ``pufferfish-scale``), a :class:`~exactdp.pufferfish.calibration.ConservativeScale`
(``pufferfish-wasserstein``) or a :class:`~exactdp.pufferfish.certification.PopulationCertificate`
(``pufferfish-population``), a :class:`~exactdp.pufferfish.discrete.DiscreteLaplaceScale`
(``pufferfish-discrete-laplace``), a :class:`~exactdp.pufferfish.class_laws.ClassLaw`
(``pufferfish-class-law``), a :class:`~exactdp.pufferfish.class_laws.ClassScale`
(``pufferfish-class-scale``) or a :class:`~exactdp.pufferfish.class_pairs.ClassPairScale`
(``pufferfish-class-pair``; these four checked by ``exactdp/kernel/pufferfish_more.py``), a
:class:`~exactdp.pufferfish.renyi.RenyiDivergence` (``pufferfish-renyi``) or a
:class:`~exactdp.pufferfish.renyi.DiscreteRenyi` (``pufferfish-discrete-renyi``; both checked by
``exactdp/kernel/pufferfish_integrals.py``), a
:class:`~exactdp.pufferfish.staircase.StaircaseLoss` (``pufferfish-staircase``), a
:class:`~exactdp.pufferfish.gaussian.GaussianDelta` (``pufferfish-gaussian-delta``) or a
:class:`~exactdp.pufferfish.gaussian.GaussianScale` (``pufferfish-gaussian-scale``; these three
checked by ``exactdp/kernel/pufferfish_mechanisms.py``).
A discrete closed form α* the kernel cannot prove (e.g. ``w**(1/h)`` for support points
h > 64 apart) is left out: the certified bracket and its exact ratios travel alone.
:func:`from_document` re-checks a document with
the kernel alone and only then rebuilds the Python result
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

import math
from fractions import Fraction
from typing import Any

import sympy
from flint import fmpz_poly

from exactdp.arithmetic.expressions import parse_closed_form
from exactdp.arithmetic.rationals import to_sympy
from exactdp.arithmetic.rounding import float_up
from exactdp.engine.documents import (
    write_dist,
    write_level,
    write_population,
    write_scale,
    write_wasserstein,
)
from exactdp.errors import CertificateInvalid, InstanceTooLarge, InvalidArgument
from exactdp.kernel.jsonio import (
    envelope,
    read_closed_form,
    read_enclosure,
    write_closed_form,
    write_enclosure,
    write_rational,
)
from exactdp.kernel.pufferfish import MAX_POINTS
from exactdp.kernel.pufferfish_more import check_pufferfish_more, class_law_work, class_theta_form, discrete_work
from exactdp.kernel.verify import verify_document
from exactdp.kinds import CertificateKind, Verdict
from exactdp.pufferfish.calibration import ConservativeScale, ExactScale, conservative_scale
from exactdp.pufferfish.certification import PopulationCertificate, certify
from exactdp.pufferfish.class_laws import ClassLaw, ClassScale
from exactdp.pufferfish.class_pairs import ClassPairScale
from exactdp.pufferfish.discrete import DiscreteLaplaceScale, two_point_alpha
from exactdp.pufferfish.distributions import DiscreteDistribution
from exactdp.pufferfish.gaussian import GaussianDelta, GaussianScale
from exactdp.pufferfish.population import Population, User
from exactdp.pufferfish.renyi import DiscreteRenyi, RenyiDivergence
from exactdp.pufferfish.secrets import DistributionPair, as_pair
from exactdp.pufferfish.staircase import StaircaseLoss
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
    assert obj is not None  # a PrivacyLevel always has a JSON form
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
    if isinstance(result, (DiscreteLaplaceScale, ClassLaw, ClassScale, ClassPairScale)):
        return _write_more(result)
    if isinstance(result, _SELF_WRITTEN):
        return result.to_document()  # kernel: pufferfish_integrals.py / pufferfish_mechanisms.py
    raise InvalidArgument(f"Got {type(result).__name__}; to_document takes an ExactScale, a "
                          "ConservativeScale, a PopulationCertificate, a DiscreteLaplaceScale, "
                          "a ClassLaw, a ClassScale, a ClassPairScale, a RenyiDivergence, a "
                          "DiscreteRenyi, a StaircaseLoss, a GaussianDelta or a GaussianScale.")


def from_document(doc: Any) -> Any:
    """Re-check ``doc`` in the kernel, then rebuild the result (re-derived where the document
    does not carry a field: the transport plan; a population's worst output; the closed form
    of a two-point discrete pair or of a binomial class scale, which ``verify()`` then proves)."""
    readers: dict[str, Any] = {k.value: t for k, t in zip(_SELF_KINDS, _SELF_WRITTEN)}
    if isinstance(doc, dict) and doc.get("kind") in readers:
        return readers[doc["kind"]].from_document(doc)  # the kernel re-checks it there
    verdict = verify_document(doc)
    if not verdict.verified:
        raise CertificateInvalid(f"the kernel rejects this {verdict.kind} document: "
                                 f"{verdict.reason}; do not use it.")
    q, c = doc["question"], doc["claim"]
    if verdict.kind in _MORE:
        return _more(verdict.kind, q, c, doc["evidence"])
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


_SELF_WRITTEN = (RenyiDivergence, DiscreteRenyi, StaircaseLoss, GaussianDelta, GaussianScale)
_SELF_KINDS = (CertificateKind.PUFFERFISH_RENYI, CertificateKind.PUFFERFISH_DISCRETE_RENYI,
               CertificateKind.PUFFERFISH_STAIRCASE, CertificateKind.PUFFERFISH_GAUSSIAN_DELTA,
               CertificateKind.PUFFERFISH_GAUSSIAN_SCALE)


def _groups(groups: Any) -> list[dict[str, Any]]:
    return [{"p": write_rational(p), "count": c} for p, c in groups]


def _class_sizes(r: ClassLaw | ClassScale | ClassPairScale) -> None:
    """InstanceTooLarge (exit 2, as the kernel) before anything is written: over ``MAX_POINTS``
    groups (distinct p's) in a class, a class pair's class of ``MAX_POINTS`` or more
    members with p > 0 (its law's degree), or a class law (of a class-law or class-pair
    result) over the kernel's ``MAX_BITS`` (:func:`~exactdp.kernel.pufferfish_more.class_law_work`).
    The result itself stays valid (``verify()``)."""
    classes = {"a": r.a, "b": r.b} if isinstance(r, ClassPairScale) else {"groups": r.groups}
    for name, groups in classes.items():
        if len(groups) > MAX_POINTS:
            raise InstanceTooLarge(f"question.{name}: {len(groups)} groups (distinct p's); the kernel "
                                   f"re-checks at most MAX_POINTS = {MAX_POINTS}. Use the result (its "
                                   f"verify()) without a document, or a class of at most {MAX_POINTS} distinct p's.")
        members = sum(c for p, c in groups if p)
        if isinstance(r, ClassPairScale) and members >= MAX_POINTS:
            raise InstanceTooLarge(f"question.{name}: a class of {members} members with p > 0; the kernel "
                                   f"re-checks classes of at most MAX_POINTS − 1 = {MAX_POINTS - 1}. Use "
                                   "the result (its verify()) without a document.")
        if not isinstance(r, ClassScale):  # the kernel builds the law of a class law or pair
            try:
                class_law_work(list(groups))
            except InstanceTooLarge as exc:
                raise InstanceTooLarge(f"question.{name}: {exc} Use the result (its verify()) without a "
                                       "document, or a class with fewer members or shorter p's.") from exc


def _write_more(r: DiscreteLaplaceScale | ClassLaw | ClassScale | ClassPairScale) -> dict[str, Any]:
    """Documents of ``exactdp/kernel/pufferfish_more.py`` (question in full, every claim; a
    class pair's uncertified ``guess_float`` does not travel); InstanceTooLarge, before anything
    is built, for a class over the kernel's size limits (:func:`_class_sizes`)."""
    if not isinstance(r, DiscreteLaplaceScale):
        _class_sizes(r)
    if isinstance(r, ClassLaw):
        return envelope(CertificateKind.PUFFERFISH_CLASS_LAW, {"groups": _groups(r.groups)},
                        {"numerator": [write_rational(int(v)) for v in reversed(r.numerator.coeffs())],
                         "denominator": write_rational(r.denominator)}, {})
    level = write_level(parse_level(eps=r.eps))
    if isinstance(r, ClassPairScale):
        return envelope(CertificateKind.PUFFERFISH_CLASS_PAIR,
                        {"a": _groups(r.a), "b": _groups(r.b), "level": level},
                        {"least": "0" if r.zero_noise else write_enclosure(r.enclosure),
                         "witness": r.worst_j_lo},
                        {"tol": None if r.tol is None else write_rational(r.tol)})
    if isinstance(r, ClassScale):
        return envelope(CertificateKind.PUFFERFISH_CLASS_SCALE,
                        {"groups": _groups(r.groups), "level": level},
                        {"least": write_enclosure(r.enclosure),
                         "closed_form": None if r.theta_expr is None else _form(r.theta_expr)},
                        {"tol": write_rational(r.tol), "prec": r.prec})
    zero, P, Q = r.zero_noise, _d(r.P), _d(r.Q)
    for alpha in () if zero else (r.alpha_lo, r.alpha_hi):
        discrete_work(P, Q, alpha)  # InstanceTooLarge where the kernel would refuse
    doc = envelope(CertificateKind.PUFFERFISH_DISCRETE_LAPLACE,
                   {"P": write_dist(P), "Q": write_dist(Q), "level": level},
                   {"least": "0" if zero else write_enclosure(r.enclosure),
                    "ratios": None if zero else [write_rational(r.ratio_lo), write_rational(r.ratio_hi)],
                    "closed_form": None if zero or r.alpha_expr is None else _form(r.alpha_expr)}, {})
    if doc["claim"]["closed_form"] is not None and not _kernel_takes(doc):
        doc["claim"]["closed_form"] = None  # the bracket is certified alone
    return doc


def _kernel_takes(doc: dict[str, Any]) -> bool:
    try:
        return check_pufferfish_more(doc)
    except (InvalidArgument, InstanceTooLarge):  # e.g. a power beyond 64, an identity over MAX_TERMS terms
        return False


_MORE = (CertificateKind.PUFFERFISH_DISCRETE_LAPLACE.value, CertificateKind.PUFFERFISH_CLASS_LAW.value,
         CertificateKind.PUFFERFISH_CLASS_SCALE.value, CertificateKind.PUFFERFISH_CLASS_PAIR.value)


def _more(kind: str, q: dict[str, Any], c: dict[str, Any], ev: dict[str, Any]) -> Any:
    """The result of a kernel-verified document of ``exactdp/kernel/pufferfish_more.py``."""
    if kind == CertificateKind.PUFFERFISH_DISCRETE_LAPLACE.value:
        P, Q, eps = _dist(q["P"]), _dist(q["Q"]), parse_level(**_level_json(q["level"])).eps
        if c["least"] == "0":
            return DiscreteLaplaceScale(P, Q, eps, Fraction(0), Fraction(0), Fraction(1),
                                        Fraction(1), sympy.Integer(0), zero_noise=True)
        enc, (r_lo, r_hi) = read_enclosure(c["least"]), (Fraction(r) for r in c["ratios"])
        form = c["closed_form"]
        alpha = None if form is None else read_closed_form(form)
        if alpha is None and len(set(P.support) | set(Q.support)) == 2:
            alpha = two_point_alpha(P, Q, eps)  # left out (or not provable in the kernel)
        return DiscreteLaplaceScale(P, Q, eps, enc.lo, enc.hi, r_lo, r_hi, alpha)
    if kind == CertificateKind.PUFFERFISH_CLASS_PAIR.value:
        a, b = (tuple((Fraction(g["p"]), g["count"]) for g in q[k]) for k in ("a", "b"))
        zero, tol = c["least"] == "0", None if ev["tol"] is None else Fraction(ev["tol"])
        lo, hi = (Fraction(0), Fraction(0)) if zero else tuple(read_enclosure(c["least"]))
        return ClassPairScale(a, b, parse_level(**_level_json(q["level"])).eps, lo, hi,
                              c["witness"], math.nan if zero else float_up((lo + hi) / 2), zero, tol)
    groups = tuple((Fraction(g["p"]), g["count"]) for g in q["groups"])
    if kind == CertificateKind.PUFFERFISH_CLASS_LAW.value:
        coeffs = [int(v) for v in reversed(c["numerator"])]
        return ClassLaw(fmpz_poly(coeffs), int(c["denominator"]), groups)
    enc, form, level = read_enclosure(c["least"]), c["closed_form"], parse_level(**_level_json(q["level"]))
    theta = None if form is None else read_closed_form(form)
    if theta is None and len(groups) == 1:  # a binomial class's closed form, re-derived
        theta = class_theta_form(groups[0][0], groups[0][1], level)
    return ClassScale(groups=groups, eps=level.eps, lo=enc.lo, hi=enc.hi, theta_expr=theta,
                      prec=ev["prec"], tol=Fraction(ev["tol"]))
