"""Regular priors (Def. 4): π is regular iff αΦ = π for some α ≥ 0.

:func:`is_regular` returns a :class:`RegularityResult` (certified verdict and certificate)
for every certified method and a :class:`~exactdp.engine.core.FloatEstimate` for
``method="float"``. Priors are read by :func:`exactdp.spaces.priors.read_prior`
(``validate_prior`` is its public name here):

>>> from exactdp.spaces.metrics import line
>>> validate_prior(line(2), ["1/3", "2/3"])
(Fraction(1, 3), Fraction(2, 3))
>>> validate_prior(line(2), [Fraction(1, 2), Fraction(1, 3)])
Traceback (most recent call last):
...
exactdp.errors.InvalidPrior: prior sums to 5/6, not 1 (difference -1/6); pass exact Fractions that sum to 1.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Literal, overload

from exactdp.algebra.phi import exact_parameter
from exactdp.arithmetic.ball import MAX_PREC
from exactdp.arithmetic.interval import Enclosure
from exactdp.arithmetic.validate import read_precision
from exactdp.engine.certificates import (
    EngineCertificate,
    answers_question,
    certificate_from_json,
)
from exactdp.engine.core import (
    CertifiedMethod,
    EngineResult,
    FloatEstimate,
    float_solve,
    read_method,
    result_from_certificate,
    solve_nonnegative,
)
from exactdp.engine.grid_point import (
    GRID_POINT_CERTIFICATES,
    GridPointCertificate,
    grid_point_document,
    grid_point_solution,
    refuse_dense_exact,
)
from exactdp.errors import CertificateInvalid, ExactnessRequired, InvalidArgument
from exactdp.kinds import Method, Verdict
from exactdp.progress import Progress
from exactdp.spaces.levels import PrivacyLevel, parse_level
from exactdp.spaces.metrics import FiniteMetric, read_metric
from exactdp.spaces.priors import read_prior, uniform_prior

__all__ = ["RegularityResult", "is_regular", "validate_prior", "uniform_prior"]

#: Read a prior exactly and check it is a distribution on the metric's points: the public
#: name of :func:`exactdp.spaces.priors.read_prior` (sequences, mappings or ``"uniform"``).
validate_prior = read_prior


@dataclass(frozen=True)
class RegularityResult:
    """Whether ``prior`` is regular at this level, certified.

    Attributes
    ----------
    regular : bool
        Certified: αΦ = π has a solution α ≥ 0 (``verdict`` is the same answer as a
        :class:`~exactdp.kinds.Verdict`).
    alpha : tuple of Fraction, tuple of Enclosure, or None
        The (unique, when Φ is invertible) α: exact when the engine solved exactly, else
        rigorous enclosures; None only when Φ is singular and π is not regular.
        ``alpha_exact`` and ``alpha_enclosure`` give one kind each.
    certificate : Certificate
    method : str
    """

    metric: FiniteMetric = field(repr=False)
    level: PrivacyLevel
    prior: tuple[Fraction, ...] = field(repr=False)
    regular: bool
    certificate: EngineCertificate = field(repr=False)
    method: str
    engine: EngineResult = field(repr=False)

    @property
    def verdict(self) -> Verdict:
        """``HOLDS`` when the prior is regular, else ``FAILS`` (certified)."""
        return Verdict.from_bool(self.regular)

    def verify(self) -> bool:
        """Re-check the result: its certificate is about this metric (exact distances), this
        level and this prior, claims ``regular``, and passes its own ``verify()``.

        >>> from exactdp.spaces.metrics import line
        >>> is_regular(line(3), "uniform", t="1/2").verify()
        True
        """
        if isinstance(self.certificate, GRID_POINT_CERTIFICATES):  # large grids (matrix-free)
            return self.certificate.answers(self.metric, self.level, self.prior, self.regular)
        return answers_question(self.certificate, self.metric, self.level, tuple(self.prior), self.regular)

    def to_json(self) -> dict[str, Any]:
        """The result as its certificate's JSON document, which states the whole question and
        the verdict (``exactdp verify`` re-checks it); refuses a result that does not verify.

        >>> from exactdp.spaces.metrics import line
        >>> r = is_regular(line(3), "uniform", eps="1/2")
        >>> again = RegularityResult.from_json(r.to_json())
        >>> again.verdict == r.verdict, again.verify(), again.to_json() == r.to_json()
        (True, True, True)
        """
        if not self.verify():
            raise CertificateInvalid("this result does not re-check against its certificate; "
                                     "recompute it before writing it out.")
        return self.certificate.to_json()

    @classmethod
    def from_json(cls, doc: Any) -> RegularityResult:
        """Read a result back (parsed document or JSON text); it must re-check, so a tampered
        document raises :class:`~exactdp.errors.CertificateInvalid`."""
        grid_cert = grid_point_document(doc)  # the matrix-free grid route's documents
        cert: Any = grid_cert if grid_cert is not None else certificate_from_json(doc)
        if sum(cert.rhs, Fraction(0)) != 1 or any(v < 0 for v in cert.rhs):
            raise InvalidArgument("the document answers Φx = b for a b that is not a prior; "
                                  "read it with certificate_from_json.")
        sol = None if grid_cert is None else grid_point_solution(grid_cert)
        engine = (result_from_certificate(cert) if sol is None else
                  EngineResult(sol.holds, cert, sol.method, sol.bits, sol.x_exact,
                               enclosure_builder=sol.enclosure_builder))
        result = cls(cert.metric, cert.level, tuple(cert.rhs), engine.holds, cert,
                     engine.method, engine)
        if not result.verify():
            raise CertificateInvalid("the document's claim does not re-check (exactdp verify "
                                     "rejects it).")
        return result

    @property
    def alpha(self) -> tuple[Fraction, ...] | tuple[Enclosure, ...] | None:
        """α as computed by the engine: exact values or enclosures (see the class doc).

        When the deciding backend gave signs only (the symbolic route at an irrational
        level), the enclosures are computed on first access, as :attr:`alpha_enclosure`
        does (and as ``TightConstraintsResult.z`` does for z).
        """
        if self.engine.x_exact is not None:
            return self.engine.x_exact
        return self.alpha_enclosure

    @property
    def alpha_exact(self) -> tuple[Fraction, ...] | None:
        """α exactly (None when Φ is singular and π is not regular).

        Solves exactly on first access when the engine decided with a certified float or
        ball route; raises :class:`~exactdp.errors.ExactnessRequired` when s = e^{-ε/q}
        is irrational (use :attr:`alpha_enclosure`).
        """
        if self.engine.x_exact is not None:
            return self.engine.x_exact
        if exact_parameter(self.metric, self.level) is None:
            raise ExactnessRequired(
                f"α is not rational for {self.metric.name} at {self.level} (s = e^(-ε/q) is "
                "irrational); use .alpha_enclosure, or pass t= as a rational."
            )
        if isinstance(self.certificate, GridPointCertificate):
            refuse_dense_exact(self.metric, "alpha_exact")
        return solve_nonnegative(self.metric, self.level, self.prior, method="exact").x_exact

    @property
    def alpha_enclosure(self) -> tuple[Enclosure, ...] | None:
        """Rigorous enclosures of α (degenerate when exact; None as for :attr:`alpha`)."""
        if self.engine.x_enclosure is not None:
            return self.engine.x_enclosure
        if self.engine.x_exact is not None:
            return tuple(Enclosure(v, v) for v in self.engine.x_exact)
        if self.engine.singular:
            return None
        return solve_nonnegative(self.metric, self.level, self.prior, method="ball").x_enclosure


@overload
def is_regular(metric: FiniteMetric, prior: Any, eps: Any = ..., t: Any = ..., *,
               method: Literal["float"], max_prec: int = ..., progress: Progress = ...) -> FloatEstimate: ...


@overload
def is_regular(metric: FiniteMetric, prior: Any, eps: Any = ..., t: Any = ..., *,
               method: CertifiedMethod = ..., max_prec: int = ..., progress: Progress = ...) -> RegularityResult: ...


@overload
def is_regular(metric: FiniteMetric, prior: Any, eps: Any = ..., t: Any = ..., *,
               method: str = ..., max_prec: int = ...) -> RegularityResult | FloatEstimate: ...


def is_regular(
    metric: FiniteMetric,
    prior: Any,
    eps: Any = None,
    t: Any = None,
    *,
    method: Method | str = "auto",
    max_prec: int = MAX_PREC,
    progress: Progress = None,
) -> RegularityResult | FloatEstimate:
    """Decide whether ``prior`` is ε·d0-regular on ``metric`` (αΦ = π with α ≥ 0).

    ``prior`` is ``"uniform"``, a sequence of n probabilities or a mapping {point: probability}
    (read exactly). ``method="float"`` returns an uncertified
    :class:`~exactdp.engine.core.FloatEstimate` (and is typed so).

    Raises
    ------
    InvalidMetric, InvalidPrior, InvalidPrivacyLevel, InvalidArgument
        For a bad argument, before any work.

    Examples
    --------
    >>> from exactdp.spaces.metrics import line
    >>> r = is_regular(line(3), ["1/3", "1/3", "1/3"], t="1/2")
    >>> r.regular, r.alpha, r.certificate.verify()
    (True, (Fraction(2, 9), Fraction(1, 9), Fraction(2, 9)), True)
    >>> is_regular(line(3), [1, 0, 0], t="1/2").verdict
    <Verdict.FAILS: 'fails'>
    """
    metric = read_metric(metric)
    pi = read_prior(metric, prior)
    method = read_method(method)
    max_prec = read_precision(max_prec, "max_prec")
    level = parse_level(eps=eps, t=t)
    if method == "float":
        return float_solve(metric, level, pi)
    res = solve_nonnegative(metric, level, pi, method=method, max_prec=max_prec, progress=progress)
    return RegularityResult(metric, level, pi, res.holds, res.certificate, res.method, res)
