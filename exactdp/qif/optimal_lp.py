"""The optimal-mechanism LP and its duality certificate (the checking side).

Problem (Shokri-style): secrets x with prior π, outputs = the gain function's actions w,
privacy level ε with t = e^{-ε} and s = e^{-ε/q} rational, a metric d on the secrets.
Unknowns K[x][w] ≥ 0 (the mechanism); maximise Σ_x Σ_w c[x][w] K[x][w] with
c[x][w] = π_x g(w, x) for a gain (c = −π_x ℓ(w, x) for a loss, whose expected loss is −value)
subject to

* Σ_w K[x][w] = 1 for every x (rows are distributions);
* φ_ab K[a][w] − K[b][w] ≤ 0 for every w and every ordered pair (a, b) of a *privacy edge*,
  with φ_ab = e^{-ε d(a, b)} (exact). Privacy edges are the metric's graph edges when it
  records them (a path metric: privacy on edges implies it on all pairs), else all pairs.

Dual: minimise Σ_x u_x over u free, λ ≥ 0 (one per constraint) with, for every (x, w),
u_x + Σ_e coeff_e(x, w) λ_e ≥ c[x][w] (coeff φ_ab at (a, w), −1 at (b, w) for e = (a, b, w)).

Weak duality: for any feasible K', c·K' ≤ Σ_{x,w} (u_x + (Aᵀλ)_{x,w}) K'[x][w]
= Σ_x u_x + λ·(AK') ≤ Σ_x u_x. So a primal-feasible K and a dual-feasible (u, λ) with
c·K = Σ u prove K optimal: that is what the kernel checks, exactly, on the
``qif-optimal-mechanism`` document of :meth:`DualityCertificate.to_document` (and of
:meth:`OptimalMechanism.to_document`); ``verify()`` of either is its verdict. The kernel
trusts nothing stored but the question (metric, prior, t, gain): it refuses any number that
is not an exact rational, rebuilds every φ from the metric and t, and checks the primal on
*all* ordered pairs of secrets (so a metric whose recorded graph edges did not generate it
could not make a non-private K pass; the dual may use any pairs, since dropping constraints
only relaxes the problem and raises its optimum).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from exactdp.algebra.phi import entry_values_exact
from exactdp.engine.questions import canonical_metric
from exactdp.errors import (
    CertificateInvalid,
    ExactDPError,
    ExactnessRequired,
    InvalidArgument,
    InvalidChannel,
)
from exactdp.kernel.jsonio import read_int, read_rational, read_str, write_rational
from exactdp.kernel.metricio import fingerprint, read_metric_json, write_metric
from exactdp.kernel.qif import check_phi
from exactdp.kinds import CertificateKind, Verdict
from exactdp.mechanisms.constructors import from_rows
from exactdp.mechanisms.mechanism import Mechanism, MechanismKind
from exactdp.qif.channel import (
    Matrix,
    is_distribution,
    is_exact,
    prior_values,
    read_channel,
)
from exactdp.qif.documents import checked_parts, document, gain_json, kernel_verifies, probabilities, rows
from exactdp.qif.gain import GainFunction
from exactdp.qif.measures import read_matrix_json, write_matrix
from exactdp.spaces.levels import PrivacyLevel, parse_level
from exactdp.spaces.metrics import FiniteMetric

__all__ = ["OptimalProblem", "OptimalQuestion", "DualityCertificate", "OptimalMechanism",
           "build_problem"]

OPTIMAL = CertificateKind.QIF_OPTIMAL.value
#: The methods an :class:`OptimalMechanism` can state.
METHODS = ("float-basis", "exact-simplex")

#: A directed privacy constraint φ·K[a][w] − K[b][w] ≤ 0 for all w: (a, b, φ).
Edge = tuple[int, int, Fraction]


@dataclass(frozen=True)
class OptimalProblem:
    """The exact data of one optimal-mechanism LP (see the module docstring)."""

    metric: FiniteMetric = field(repr=False)
    level: PrivacyLevel
    prior: tuple[Fraction, ...]
    gain: GainFunction = field(repr=False)
    edges: tuple[Edge, ...] = field(repr=False)

    @property
    def n(self) -> int:
        return len(self.prior)

    @property
    def m(self) -> int:
        return self.gain.n_actions

    @property
    def sign(self) -> int:
        """+1 for a gain (maximised), −1 for a loss (minimised)."""
        return -1 if self.gain.is_loss else 1

    def cost(self, x: int, w: int) -> Fraction:
        """c[x][w] of the maximisation form."""
        return self.sign * self.prior[x] * self.gain.rows[w][x]


@dataclass(frozen=True)
class OptimalQuestion:
    """What an optimal mechanism answers: metric (by fingerprint), prior, t = e^{-ε}, gain."""

    metric_fingerprint: str
    prior: tuple[Fraction, ...]
    t: Fraction
    gain: GainFunction

    @classmethod
    def of(cls, problem: OptimalProblem) -> OptimalQuestion:
        """The question a problem states (t must be rational: it is, for any built problem)."""
        t = problem.level.t
        if t is None:
            raise ExactnessRequired("the exact optimal-mechanism LP needs a rational t.")
        return cls(fingerprint(problem.metric), problem.prior, t, problem.gain)


def build_problem(metric: FiniteMetric, prior: Any, level: PrivacyLevel,
                  gain: GainFunction | None) -> OptimalProblem:
    """Read and check the inputs; list the directed privacy constraints with exact φ."""
    if not isinstance(metric, FiniteMetric):
        raise InvalidArgument(f"Got {type(metric).__name__}; pass an exactdp FiniteMetric.")
    pi = prior_values(prior, metric.n)
    g = GainFunction.identity(metric.n) if gain is None else gain
    if not isinstance(g, GainFunction):
        g = GainFunction.from_matrix(g)
    g.check_secrets(metric.n)
    s = level.s_rational(metric.q) if metric.q is not None else None
    if s is not None:  # the kernel's bound on φ = s^k, before any power is built
        check_phi(s, metric.exponents, metric.n, g.n_actions)
    try:
        vals = entry_values_exact(metric, level)
    except ExactnessRequired as exc:
        raise ExactnessRequired(
            f"the exact optimal-mechanism LP needs rational φ = e^(-ε d): {exc}"
        ) from exc
    idx = metric.index
    pairs = (metric.graph_edges if metric.graph_edges is not None else
             [(a, b) for a in range(metric.n) for b in range(a + 1, metric.n)])
    edges: list[Edge] = []
    for a, b in pairs:
        phi = vals[int(idx[a, b])]
        edges.append((a, b, phi))
        edges.append((b, a, phi))
    return OptimalProblem(metric, level, pi, g, tuple(edges))


@dataclass(frozen=True)
class DualityCertificate:
    """Primal K, dual (u, λ) of the optimal-mechanism LP; ``verify()`` is the kernel's verdict.

    ``lam`` is sparse: {(edge index, w): λ} for the nonzero multipliers (edge indices into
    ``problem.edges``).
    """

    problem: OptimalProblem = field(repr=False)
    mechanism: Matrix = field(repr=False)
    u: tuple[Fraction, ...] = field(repr=False)
    lam: dict[tuple[int, int], Fraction] = field(repr=False, compare=False)

    @property
    def verdict(self) -> Verdict:
        """``HOLDS``: the mechanism is optimal (once ``verify()`` confirms it)."""
        return Verdict.HOLDS

    @property
    def objective(self) -> Fraction:
        """c·K (the maximisation form's value)."""
        P, K = self.problem, self.mechanism
        return sum((P.cost(x, w) * K[x][w] for x in range(P.n) for w in range(P.m)
                    if K[x][w]), Fraction(0))

    def rebuilt(self) -> OptimalProblem | None:
        """The problem rebuilt from the question alone (None if the stored one differs).

        The level is rebuilt from t, the prior re-read as a distribution, the gain re-checked,
        the edge list and every φ recomputed from the metric; any difference from the stored
        problem (or any invalid input) gives None.
        """
        P = self.problem
        if not (isinstance(P, OptimalProblem) and isinstance(P.metric, FiniteMetric)
                and isinstance(P.level, PrivacyLevel) and isinstance(P.gain, GainFunction)):
            return None
        if not (is_exact(P.level.t) and is_distribution(P.prior, P.metric.n)):
            return None
        try:
            level = parse_level(t=P.level.t)
            fresh = build_problem(P.metric, P.prior, level, P.gain)
        except ExactDPError:
            return None
        if level != P.level or fresh.edges != P.edges or fresh.prior != P.prior:
            return None
        return fresh

    def verify(self) -> bool:
        """The kernel's verdict on :meth:`to_document`, and the stored problem is its question's.

        The kernel re-derives everything from the question (metric, prior, t, gain): K a
        private channel on *all* ordered pairs, (u, λ) dual feasible, c·K = Σu, value =
        sign·objective, every number exact (floats are refused when written). The one check
        left here binds this object to its document: the stored problem's level, prior and
        privacy-edge list (through which λ's keys are written) are the ones the question
        rebuilds (:meth:`rebuilt`) — a document carries no edge list for the kernel to see.
        """
        return self.rebuilt() is not None and kernel_verifies(self.to_document)

    def to_document(self) -> dict[str, Any]:
        """The kernel document (kind ``qif-optimal-mechanism``, ``evidence.method``
        ``unstated``): the question, value = sign·objective, K, u and λ.

        >>> from exactdp.qif.optimal import optimal_mechanism
        >>> from exactdp.spaces.metrics import line
        >>> cert = optimal_mechanism(line(3), t="1/2").certificate
        >>> doc = cert.to_document()
        >>> doc["claim"]["value"], doc["evidence"]["method"], cert.verify()
        ('5/9', 'unstated', True)
        >>> DualityCertificate.from_document(doc).u == cert.u
        True
        """
        P = self.problem
        return write_optimal(self, P.sign * self.objective, "unstated", P.level.t)

    @classmethod
    def from_document(cls, doc: Any) -> DualityCertificate:
        """Read a ``qif-optimal-mechanism`` document the kernel verifies (any ``method``
        label); else CertificateInvalid / InvalidArgument."""
        q, c, e = checked_parts(doc, OPTIMAL)
        cert = read_certificate(q, c["mechanism"], e["u"], e["lambda"])
        if not cert.verify():  # e.g. a λ listed twice: the kernel adds both, a dict keeps one
            raise CertificateInvalid("the document's multipliers do not read back to a certificate "
                                     "that verifies; write it with to_document().")
        return cert

    def to_json(self) -> dict[str, Any]:
        """K, u and λ keyed by (a, b, w): the constraint φ_ab K[a][w] ≤ K[b][w]."""
        E = self.problem.edges
        return {"kind": "lp-duality", "mechanism": write_matrix(self.mechanism),
                "u": [write_rational(v) for v in self.u],
                "lambda": [[E[e][0], E[e][1], w, write_rational(v)]
                           for (e, w), v in sorted(self.lam.items())]}


@dataclass(frozen=True)
class OptimalMechanism:
    """An exactly optimal mechanism with its LP-duality certificate.

    Attributes
    ----------
    value : Fraction
        The optimal expected gain (for a loss: the optimal expected loss).
    mechanism : Mechanism
        The optimal mechanism K (secrets × actions), exact.
    certificate : DualityCertificate
    method : str
        "float-basis" (HiGHS found it, exact arithmetic proved it) or "exact-simplex". A label
        of how the certificate was found: the kernel proves the value and mechanism, not the
        method, so after :meth:`from_document` it is the document's uncertified statement.
    """

    value: Fraction
    mechanism: Mechanism = field(repr=False)
    certificate: DualityCertificate = field(repr=False)
    method: str
    question: OptimalQuestion = field(repr=False)

    def verify(self, metric: FiniteMetric | None = None, prior: Any = None, eps: Any = None,
               *, t: Any = None, gain: GainFunction | Any = None) -> bool:
        """The certificate checks, answers the stored question, and proves *this* mechanism.

        Checks: the kernel's verdict on :meth:`to_document` (the primal is a private channel
        for every pair, the dual feasible, c·K = Σu = ±value, all re-derived from the
        question); ``mechanism`` (what a user deploys) has
        exactly the certified primal's entries; the certificate's metric fingerprint, prior,
        t and gain are the stored ``question``; ``value`` is the certified objective.
        Pass any of ``metric``, ``prior``, ``eps``/``t``, ``gain`` to also check that the
        question is the one *you* asked (a parameter left as None is not compared).
        """
        cert = self.certificate
        if not isinstance(cert, DualityCertificate) or self.method not in METHODS:
            return False
        if not kernel_verifies(self.to_document):  # primal, dual, objective: exactly, from the question
            return False
        try:
            if OptimalQuestion.of(cert.problem) != self.question:
                return False
        except ExactDPError:
            return False
        mech = self.mechanism
        if not isinstance(mech, Mechanism) or mech.kind is not MechanismKind.EXACT:
            return False
        if tuple(tuple(r) for r in mech.rows_fraction()) != tuple(
                tuple(r) for r in cert.mechanism):
            return False
        if self.value != cert.problem.sign * cert.objective:
            return False
        return self._answers(metric, prior, eps, t, gain)

    def _answers(self, metric: Any, prior: Any, eps: Any, t: Any, gain: Any) -> bool:
        q = self.question
        try:
            if metric is not None and fingerprint(metric) != q.metric_fingerprint:
                return False
            if prior is not None and prior_values(prior, len(q.prior)) != q.prior:
                return False
            if (eps is not None or t is not None) and parse_level(eps=eps, t=t).t != q.t:
                return False
            if gain is not None:
                g = gain if isinstance(gain, GainFunction) else GainFunction.from_matrix(gain)
                if g.rows != q.gain.rows or g.is_loss != q.gain.is_loss:
                    return False
        except ExactDPError:
            return False
        return True

    def to_document(self) -> dict[str, Any]:
        """The kernel document (kind ``qif-optimal-mechanism``): question (metric, prior, t,
        gain), claim (value, mechanism), evidence (method, u, λ as [a, b, w, value]).

        >>> from exactdp.qif.optimal import optimal_mechanism
        >>> from exactdp.spaces.metrics import line
        >>> r = optimal_mechanism(line(3), eps=None, t="1/2")
        >>> r.to_document()["claim"]["value"], OptimalMechanism.from_document(r.to_document()).value
        ('5/9', Fraction(5, 9))
        """
        return write_optimal(self.certificate, self.value, self.method, self.question.t)

    @classmethod
    def from_document(cls, doc: Any) -> OptimalMechanism:
        """Read a document the kernel verifies (else CertificateInvalid / InvalidArgument).

        Certified: value, mechanism and the question. ``method`` and the gain's ``name`` are
        labels copied from the document (the kernel checks only that method is listed).
        """
        q, c, e = checked_parts(doc, OPTIMAL)
        return cls.from_json({"kind": "optimal-mechanism", "question": q, **c, **e})

    def to_json(self) -> dict[str, Any]:
        """The question (metric, prior, t, gain), the claim and the duality certificate."""
        P = self.certificate.problem
        canon, spec, fp = canonical_metric(P.metric)
        doc = self.certificate.to_json()
        doc.update(kind="optimal-mechanism", value=write_rational(self.value),
                   method=self.method,
                   question={"metric": write_metric(canon, spec, fp),
                             "prior": [write_rational(p) for p in P.prior],
                             "t": write_rational(self.question.t),
                             "gain": P.gain.to_json()})
        return doc

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> OptimalMechanism:
        """Rebuild the problem from the question and check the certificate; raise if it fails.

        Raises :class:`~exactdp.errors.CertificateInvalid` when the stored value, mechanism
        or multipliers do not prove optimality for the stated question.
        """
        read_str(doc.get("kind"), "kind", ("optimal-mechanism",))
        cert = read_certificate(doc["question"], doc["mechanism"], doc["u"], doc["lambda"])
        P, K = cert.problem, cert.mechanism
        out = cls(read_rational(doc["value"], "value"),
                  from_rows([list(r) for r in K], name=f"optimal({P.metric.name})"), cert,
                  read_str(doc["method"], "method", METHODS), OptimalQuestion.of(P))
        if not out.verify():
            raise CertificateInvalid(
                f"the optimal-mechanism certificate does not prove value {out.value} for its "
                "question (primal, dual or objective fails exactly); recompute it with "
                "optimal_mechanism().")
        return out


def check_shape(K: Matrix, P: OptimalProblem) -> None:
    """Raise :class:`InvalidChannel` unless K is n × m."""
    if len(K) != P.n or any(len(r) != P.m for r in K):
        raise InvalidChannel(f"expected a {P.n}×{P.m} mechanism.")


def write_optimal(cert: DualityCertificate, value: Fraction, method: str, t: Fraction | None) -> dict[str, Any]:
    """The ``qif-optimal-mechanism`` document of a certificate with a claimed value and label."""
    P = cert.problem
    E = P.edges
    if not all(type(e) is int and 0 <= e < len(E) for e, _w in cert.lam):
        raise InvalidArgument("lam: a key names no privacy edge of the problem.")
    canon, spec, fp = canonical_metric(P.metric)
    return document(OPTIMAL, {"metric": write_metric(canon, spec, fp), "prior": probabilities(P.prior),
                              "t": write_rational(t), "gain": gain_json(P.gain)},  # type: ignore[arg-type]
                    {"value": write_rational(value), "mechanism": rows(cert.mechanism)},
                    {"method": method, "u": probabilities(cert.u),
                     "lambda": [[E[e][0], E[e][1], w, write_rational(v)] for (e, w), v in sorted(cert.lam.items())]})


def read_certificate(q: dict[str, Any], mechanism: Any, u: Any, lam_entries: Any) -> DualityCertificate:
    """The certificate a question and its K, u, λ entries state (the problem rebuilt from the
    question; CertificateInvalid for an edited fingerprint or a λ on no privacy constraint)."""
    metric, _spec, fp = read_metric_json(q["metric"], "question.metric")
    if fingerprint(metric) != fp:
        raise CertificateInvalid(
            f"question.metric states fingerprint {fp} but rebuilds to "
            f"{fingerprint(metric)}; the file was edited.")
    raw_prior = [read_rational(p, "question.prior") for p in q["prior"]]
    level = parse_level(t=read_rational(q["t"], "question.t"))
    P = build_problem(metric, raw_prior, level, GainFunction.from_json(q["gain"]))
    K = read_channel(read_matrix_json(mechanism), "mechanism")
    where = {(a, b): k for k, (a, b, _phi) in enumerate(P.edges)}
    lam: dict[tuple[int, int], Fraction] = {}
    for entry in lam_entries:
        a, b, w = (read_int(v, "lambda", 0) for v in entry[:3])
        if (a, b) not in where or w >= P.m or len(entry) != 4:
            raise CertificateInvalid(
                f"lambda entry {entry!r} names no privacy constraint of the question "
                f"(pairs are the metric's edges, w < {P.m}); the file was edited.")
        lam[(where[(a, b)], w)] = read_rational(entry[3], "lambda")
    return DualityCertificate(P, K, tuple(read_rational(v, "u") for v in u), lam)
