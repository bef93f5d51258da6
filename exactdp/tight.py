"""Tight-constraints mechanisms (Def. 6, Prop. 7): exist iff Φz = 1 has z ≥ 0; then H = Φ·diag(z).

The answer's kind is visible in its type: :func:`tight_constraints` returns a
:class:`TightConstraintsResult` (certified verdict and certificate) for every certified
method and a :class:`~exactdp.engine.core.FloatEstimate` for ``method="float"``. On a
result, ``z_exact`` is a tuple of :class:`~fractions.Fraction` (only when s = e^{-ε/q} is
rational) and ``z_enclosure`` a tuple of :class:`~exactdp.arithmetic.interval.Enclosure`
(always); ``z`` is whichever of the two applies.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Literal, overload

from flint import arb

from exactdp.algebra.phi import entry_values_ball, entry_values_exact, exact_parameter
from exactdp.arithmetic.ball import MAX_PREC, arb_from_fraction, arb_to_fraction_interval, workprec
from exactdp.arithmetic.interval import Enclosure
from exactdp.arithmetic.rationals import to_sympy
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
from exactdp.errors import (
    CertificateInvalid,
    ExactnessRequired,
    InvalidArgument,
    PropertyNeverHolds,
)
from exactdp.kinds import Method, Verdict
from exactdp.progress import Progress
from exactdp.spaces.levels import PrivacyLevel, parse_level
from exactdp.spaces.mechanism import Mechanism
from exactdp.spaces.mechanism_forms import (
    MonomialForm,
    TightForm,
    monomial_parameter,
)
from exactdp.spaces.metrics import FiniteMetric, read_metric

__all__ = ["TightConstraintsResult", "tight_constraints"]


@dataclass(frozen=True)
class TightConstraintsResult:
    """Whether a tight-constraints mechanism exists at this level, certified.

    Attributes
    ----------
    exists : bool
        Certified: Φz = 1 has a solution z ≥ 0 (Prop. 7). ``verdict`` is the same answer
        as a :class:`~exactdp.kinds.Verdict`.
    certificate : Certificate
        ``certificate.verify()`` re-checks the verdict independently.
    method : str
        The backend that decided.
    level : PrivacyLevel
    metric : FiniteMetric

    ``z_exact``, ``z_enclosure``, ``z`` and ``mechanism`` are computed on first access.
    """

    metric: FiniteMetric = field(repr=False)
    level: PrivacyLevel
    exists: bool
    certificate: EngineCertificate = field(repr=False)
    method: str
    engine: EngineResult = field(repr=False)
    _cache: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def verdict(self) -> Verdict:
        """``HOLDS`` when a tight-constraints mechanism exists, else ``FAILS`` (certified)."""
        return Verdict.from_bool(self.exists)

    def verify(self) -> bool:
        """Re-check the result: its certificate is about this metric (exact distances), this
        level and the right-hand side 1, claims ``exists``, and passes its own ``verify()``.

        >>> from exactdp.spaces.metrics import line
        >>> tight_constraints(line(3), t="1/3").verify()
        True
        """
        ones = tuple(Fraction(1) for _ in range(self.metric.n))
        if isinstance(self.certificate, GRID_POINT_CERTIFICATES):  # large grids (matrix-free)
            return self.certificate.answers(self.metric, self.level, ones, self.exists)
        return answers_question(self.certificate, self.metric, self.level, ones, self.exists)

    def to_json(self) -> dict[str, Any]:
        """The result as its certificate's JSON document, which states the whole question and
        the verdict (``exactdp verify`` re-checks it); refuses a result that does not verify.

        >>> from exactdp.spaces.metrics import line
        >>> r = tight_constraints(line(3), eps="1/2")
        >>> again = TightConstraintsResult.from_json(r.to_json())
        >>> again.verdict == r.verdict, again.verify(), again.to_json() == r.to_json()
        (True, True, True)
        """
        if not self.verify():
            raise CertificateInvalid("this result does not re-check against its certificate; "
                                     "recompute it before writing it out.")
        return self.certificate.to_json()

    @classmethod
    def from_json(cls, doc: Any) -> TightConstraintsResult:
        """Read a result back (parsed document or JSON text); it must re-check, so a tampered
        document raises :class:`~exactdp.errors.CertificateInvalid`."""
        grid_cert = grid_point_document(doc)  # the matrix-free grid route's documents
        cert: Any = grid_cert if grid_cert is not None else certificate_from_json(doc)
        if not all(v == 1 for v in cert.rhs):
            raise InvalidArgument("the document answers Φx = b for another b than 1; read it with "
                                  "RegularityResult.from_json or certificate_from_json.")
        sol = None if grid_cert is None else grid_point_solution(grid_cert)
        engine = (result_from_certificate(cert) if sol is None else
                  EngineResult(sol.holds, cert, sol.method, sol.bits, sol.x_exact,
                               enclosure_builder=sol.enclosure_builder))
        result = cls(cert.metric, cert.level, engine.holds, cert, engine.method, engine)
        if not result.verify():
            raise CertificateInvalid("the document's claim does not re-check (exactdp verify "
                                     "rejects it).")
        return result

    @property
    def is_exact(self) -> bool:
        """True when z is available exactly (rational s)."""
        return exact_parameter(self.metric, self.level) is not None

    def _no_z(self) -> PropertyNeverHolds:
        return PropertyNeverHolds(
            f"Φz = 1 has no solution z ≥ 0 for {self.metric.name} at {self.level} and Φ is "
            f"singular there (certificate: {self.certificate.kind}; see .certificate)",
            evidence=self.certificate,
        )

    @property
    def z_exact(self) -> tuple[Fraction, ...]:
        """The exact diagonal z with Φz = 1 (rational s only).

        Raises :class:`~exactdp.errors.ExactnessRequired` when s = e^{-ε/q} is irrational
        (use :attr:`z_enclosure`), :class:`~exactdp.errors.PropertyNeverHolds` when Φ is
        singular and no z ≥ 0 exists, and :class:`~exactdp.errors.InstanceTooLarge` for a
        matrix-free grid result above ``MATRIX_FREE_ABOVE_N`` points (no silent n×n solve).
        """
        if "z_exact" not in self._cache:
            z: tuple[Fraction, ...] | None
            if self.engine.x_exact is not None and not self.engine.singular:
                z = self.engine.x_exact
            elif self.is_exact:
                if isinstance(self.certificate, GridPointCertificate):
                    refuse_dense_exact(self.metric, "z_exact")
                z = solve_nonnegative(self.metric, self.level, method="exact").x_exact
            else:
                raise ExactnessRequired(
                    f"z is not rational for {self.metric.name} at {self.level} (s = e^(-ε/q) is "
                    "irrational); use .z_enclosure, or pass t= as a rational."
                )
            self._cache["z_exact"] = z
        z = self._cache["z_exact"]
        if z is None:
            raise self._no_z()
        return z  # type: ignore[no-any-return]

    @property
    def z_enclosure(self) -> tuple[Enclosure, ...]:
        """Rigorous enclosures of z (degenerate intervals when z is known exactly)."""
        if "z_enclosure" not in self._cache:
            enc = self.engine.x_enclosure
            if enc is None:
                if self.is_exact:
                    enc = tuple(Enclosure(v, v) for v in self.z_exact)
                else:  # the symbolic backend at an irrational level gives signs only
                    enc = solve_nonnegative(self.metric, self.level, method="ball").x_enclosure
            self._cache["z_enclosure"] = enc
        return self._cache["z_enclosure"]  # type: ignore[no-any-return]

    @property
    def z(self) -> tuple[Fraction, ...] | tuple[Enclosure, ...]:
        """The diagonal z with Φz = 1: :attr:`z_exact` when s is rational, else
        :attr:`z_enclosure`.

        Prefer :attr:`z_exact` / :attr:`z_enclosure`, whose types say which kind they hold.
        (Kept as before in the one case without any z, a singular Φ with no z ≥ 0: None.)
        """
        try:
            return self.z_exact if self.is_exact else self.z_enclosure
        except PropertyNeverHolds:
            return None  # type: ignore[return-value]

    @property
    def mechanism(self) -> Mechanism:
        """H = Φ·diag(z) as a :class:`~exactdp.spaces.mechanism.Mechanism` (rows are inputs).

        Exact when s = e^{-ε/q} is rational, else certified balls; it carries its exact
        structure (a monomial form h[y, z] = z_z·s^{q·d(y, z)}, or for irrational distances
        the tight form h[y, z] = e^{-ε·d(y, z)}·z_z), so ``privacy_level`` gives its level
        exactly. It reads like its rows: ``H[y][y2]`` (= ``H[y, y2]``) is an entry, ``len(H)``
        the number of inputs. The rows as tuples: :attr:`mechanism_exact` (Fractions) and
        :attr:`mechanism_enclosure` (enclosures).

        Raises :class:`~exactdp.errors.PropertyNeverHolds` (carrying the certificate) when no
        tight-constraints mechanism exists at this level.

        >>> from exactdp.spaces.metrics import line
        >>> H = tight_constraints(line(2), t="1/3").mechanism
        >>> H.kind, H[0], H.monomial is not None
        (<MechanismKind.EXACT: 'exact'>, (Fraction(3, 4), Fraction(1, 4)), True)
        """
        self._require_exists()
        if "H" not in self._cache:
            self._cache["H"] = _build_mechanism(self)
        return self._cache["H"]  # type: ignore[no-any-return]

    def _require_exists(self) -> None:
        if not self.exists:
            raise PropertyNeverHolds(
                f"no tight-constraints mechanism exists for {self.metric.name} at {self.level} "
                f"(certificate: {self.certificate.kind}; see .certificate)",
                evidence=self.certificate,
            )

    @property
    def mechanism_exact(self) -> tuple[tuple[Fraction, ...], ...]:
        """H = Φ·diag(z) exactly (rational s only; see :attr:`z_exact`)."""
        self._require_exists()
        if "H_exact" not in self._cache:
            z = self.z_exact
            vals = entry_values_exact(self.metric, self.level)
            self._cache["H_exact"] = tuple(
                tuple(vals[k] * zj for k, zj in zip(row, z)) for row in self.metric.index.tolist()
            )
        return self._cache["H_exact"]  # type: ignore[no-any-return]

    @property
    def mechanism_enclosure(self) -> tuple[tuple[Enclosure, ...], ...]:
        """Rigorous enclosures of every entry of H = Φ·diag(z)."""
        self._require_exists()
        if "H_enclosure" not in self._cache:
            if self.is_exact:
                self._cache["H_enclosure"] = tuple(tuple(Enclosure(v, v) for v in row)
                                                   for row in self.mechanism_exact)
            else:
                self._cache["H_enclosure"] = _interval_mechanism(self.metric, self.level,
                                                                 self.z_enclosure)
        return self._cache["H_enclosure"]  # type: ignore[no-any-return]


def _interval_mechanism(metric: FiniteMetric, level: PrivacyLevel,
                        z: tuple[Enclosure, ...]) -> tuple[tuple[Enclosure, ...], ...]:
    with workprec(128):
        vals = entry_values_ball(metric, level)
        zb = [arb_from_fraction(iv.mid) + (arb_from_fraction(iv.width) / 2) * arb(0, 1)
              for iv in z]
        return tuple(
            tuple(Enclosure(*arb_to_fraction_interval(vals[k] * zb[j])) for j, k in enumerate(row))
            for row in metric.index.tolist()
        )


def _build_mechanism(res: TightConstraintsResult) -> Mechanism:
    """The Mechanism of an existing tight-constraints result, with its exact structure."""
    metric, level = res.metric, res.level
    name = f"tight_constraints({metric.name}, ε={level.eps})"
    params = {"eps": level.eps, "certificate": res}
    z: tuple[Any, ...] = res.z_exact if res.is_exact else res.z_enclosure
    q = metric.q
    if q is not None:
        cols = tuple(c if isinstance(c, Enclosure) else to_sympy(c) for c in z)
        form = MonomialForm(monomial_parameter(level, q), metric.exponent_matrix(), cols)
        return Mechanism.from_form(form, inputs=metric.points, outputs=metric.points,
                                   name=name, parameters=params)
    # irrational distances: certified entries e^{-ε d}·z_j and the tight structure that keeps
    # the level exact (= ε, proofs/mech_tight_level.py)
    positive = tuple(k for k, c in enumerate(z)
                     if (c.lo if isinstance(c, Enclosure) else c) > 0)
    tform = TightForm(metric, level.eps, z, positive)
    # entries computed from the form (Mechanism.from_form), so the form is in force;
    # InvalidMechanism when z is not certified ≥ 0
    return Mechanism.from_form(tform, inputs=metric.points, outputs=metric.points,
                               name=name, parameters=params)


@overload
def tight_constraints(metric: FiniteMetric, eps: Any = ..., t: Any = ..., *,
                      method: Literal["float"], max_prec: int = ..., progress: Progress = ...) -> FloatEstimate: ...


@overload
def tight_constraints(metric: FiniteMetric, eps: Any = ..., t: Any = ..., *,
                      method: CertifiedMethod = ..., max_prec: int = ...,
                      progress: Progress = ...) -> TightConstraintsResult: ...


@overload
def tight_constraints(metric: FiniteMetric, eps: Any = ..., t: Any = ..., *,
                      method: str = ..., max_prec: int = ..., progress: Progress = ...
                      ) -> TightConstraintsResult | FloatEstimate: ...


def tight_constraints(
    metric: FiniteMetric,
    eps: Any = None,
    t: Any = None,
    *,
    method: Method | str = "auto",
    max_prec: int = MAX_PREC,
    progress: Progress = None,
) -> TightConstraintsResult | FloatEstimate:
    """Decide whether a tight-constraints mechanism exists for ``metric`` at ε (or t = e^-ε).

    Parameters
    ----------
    metric : FiniteMetric
    eps, t : exactly one of them
        ε as int, Fraction, string ("4/5", "ln(2)") or sympy expression; or t ∈ (0, 1) rational.
    method : {"auto", "exact", "symbolic", "ball", "verified-float", "float"}
        ``"float"`` returns an uncertified :class:`~exactdp.engine.core.FloatEstimate` instead
        (and is typed so).
    max_prec : int
        Ball precision limit in bits (≥ 53).
    progress : callable, optional
        ``progress(stage, message)`` for long runs (see :mod:`exactdp.progress`).

    Raises
    ------
    InvalidMetric, InvalidPrivacyLevel, InvalidArgument
        For a bad argument, before any work.

    Examples
    --------
    >>> from exactdp.spaces.metrics import line
    >>> r = tight_constraints(line(3), t="1/3")
    >>> r.exists, r.z_exact, r.certificate.verify()
    (True, (Fraction(3, 4), Fraction(1, 2), Fraction(3, 4)), True)
    >>> r.verdict, r.z_enclosure[1]
    (<Verdict.HOLDS: 'holds'>, Enclosure(lo=Fraction(1, 2), hi=Fraction(1, 2)))
    >>> tight_constraints(line(3), t="1/3", method="float").verdict
    <Verdict.UNDECIDED: 'undecided'>
    """
    metric = read_metric(metric)
    method = read_method(method)
    max_prec = read_precision(max_prec, "max_prec")
    level = parse_level(eps=eps, t=t)
    if method == "float":
        return float_solve(metric, level)
    res = solve_nonnegative(metric, level, None, method=method, max_prec=max_prec, progress=progress)
    return TightConstraintsResult(metric, level, res.holds, res.certificate, res.method, res)
