"""What the threshold questions return: ε-sets (exact) and thresholds ε* (enclosed, certified).

Examples
--------
>>> from fractions import Fraction
>>> from exactdp.threshold import epsilon_threshold
>>> from exactdp.spaces.metrics import sum_query
>>> r = epsilon_threshold(sum_query(2, 2))
>>> r.verdict, r.eps_enclosure.width <= DEFAULT_TOL
(<Verdict.HOLDS: 'holds'>, True)
>>> r.eps_enclosure.contains(r.eps_lower)
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

import sympy

from exactdp.algebra.algebraic import S_SYMBOL, AlgebraicNumber, log_enclosure
from exactdp.algebra.symbolic import RationalSolution
from exactdp.arithmetic.interval import Enclosure
from exactdp.arithmetic.rounding import dyadic_down, dyadic_up
from exactdp.errors import REJECTED_ERRORS, CertificateInvalid, ExactnessRequired, InvalidArgument
from exactdp.kernel.jsonio import loads
from exactdp.kinds import Verdict
from exactdp.spaces.metrics import FiniteMetric
from exactdp.spaces.metrics.claims import same_distances
from exactdp.threshold.binding import certificate_bounds, certificate_question, same_rhs
from exactdp.threshold.certificates import threshold_certificate_from_json
from exactdp.threshold.exact_certificate import ExactThresholdCertificate, ScaledExactCertificate, unit_text

__all__ = [
    "DEFAULT_TOL", "EpsilonInterval", "EpsilonSet", "ThresholdResult", "EPS_SYMBOL", "eps_enclosure",
    "eps_closed_form", "rational_functions_sympy", "property_name", "short_rational", "decimal_text",
    "ScaledThresholdResult",
]

#: Default width of a threshold enclosure [eps_lower, eps_upper].
DEFAULT_TOL = Fraction(1, 10**9)

#: The privacy parameter ε in closed forms.
EPS_SYMBOL = sympy.Symbol("epsilon", positive=True)


def eps_closed_form(s: AlgebraicNumber, q: int) -> sympy.Expr:
    """ε = −q·ln s = q·ln(1/s) as an exact sympy expression (radicals up to degree 2).

    >>> from fractions import Fraction
    >>> eps_closed_form(AlgebraicNumber((-1, 1, 1), (Fraction(1, 2), Fraction(1))), 1)
    log(1/2 + sqrt(5)/2)
    >>> eps_closed_form(AlgebraicNumber.from_rational(Fraction(1, 3)), 2)
    2*log(3)
    """
    inv = sympy.expand(sympy.radsimp(1 / s.as_sympy())) if s.degree <= 2 else 1 / s.as_sympy()
    if isinstance(inv, sympy.Pow) and inv.exp.is_Rational and inv.base.is_positive:
        return sympy.Integer(q) * inv.exp * sympy.log(inv.base)  # ln √2 = ln(2)/2
    return sympy.Integer(q) * sympy.log(inv)


def rational_functions_sympy(sol: RationalSolution, var: sympy.Symbol = S_SYMBOL
                             ) -> tuple[sympy.Expr, ...]:
    """z_i(s) = N_i(s)/D(s) of an exact solution as sympy rational functions (cancelled).

    For b = 1 this is the diagonal of the tight-constraints mechanism, for b = π it is
    α(s) (see :mod:`exactdp.algebra.symbolic`); s = e^{-ε/q}.

    >>> from exactdp.algebra.symbolic import solve_symbolic
    >>> from exactdp.spaces.metrics import line
    >>> rational_functions_sympy(solve_symbolic(line(2)))
    (1/(s + 1), 1/(s + 1))
    """
    den = sympy.Poly(list(reversed([int(c) for c in sol.denominator.coeffs()])), var).as_expr()
    out = []
    for num in sol.numerators:
        n_expr = sympy.Poly(list(reversed([int(c) for c in num.coeffs()])) or [0], var).as_expr()
        out.append(sympy.cancel(n_expr / den))
    return tuple(out)


def property_name(rhs: tuple[Fraction, ...] | None) -> str:
    """The question in words: b = 1 (tight constraints) or b = π (regularity)."""
    return "tight constraints exist" if rhs is None else "the prior is regular"


def decimal_text(x: Fraction, digits: int) -> str:
    """x with ``digits`` decimals while a float holds it comfortably, else in scientific
    notation with ``digits`` decimals of its exact mantissa (a float of ε ≈ 10^2400 overflows).

    >>> decimal_text(Fraction(1, 3), 4), decimal_text(Fraction(10**400, 3), 4)
    ('0.3333', '3.3333e399')
    >>> decimal_text(Fraction(-1, 3 * 10**400), 2)
    '-3.33e-401'
    """
    if x == 0 or 1e-300 < abs(x) < 1e300:
        return f"{float(x):.{digits}f}"
    e = x.numerator.bit_length() - x.denominator.bit_length()  # |x| ∈ [2^(e-1), 2^(e+1))
    e10 = math.floor(e * math.log10(2))
    m = x / Fraction(10) ** e10  # exact; |m| ∈ [0.2, 20): normalise to [1, 10)
    while abs(m) >= 10:
        m, e10 = m / 10, e10 + 1
    while abs(m) < 1:
        m, e10 = m * 10, e10 - 1
    return f"{float(m):.{digits}f}e{e10}"


def short_rational(x: Fraction, slack: Fraction, direction: int) -> Fraction:
    """A dyadic rational within ``slack`` of x, below x (direction < 0) or above it.

    >>> short_rational(Fraction(1, 3), Fraction(1, 100), -1)
    Fraction(85, 256)
    """
    k = max(1, (1 / slack).__ceil__().bit_length() + 1)
    return dyadic_down(x, k) if direction < 0 else dyadic_up(x, k)


def eps_enclosure(s: AlgebraicNumber, q: int, tol: Fraction) -> tuple[Fraction, Fraction]:
    """Rational (a, b) with a ≤ −q ln s ≤ b and b − a ≤ tol."""
    a = s
    while True:
        lo, hi = a.isolating_interval
        if lo <= 0:
            a = a.refine(a.width / 4)
            continue
        prec = 128 + max(0, (1 / tol).__ceil__().bit_length())
        e_lo, e_hi = log_enclosure(lo, hi, Fraction(-q), prec=prec)
        if e_hi - e_lo <= tol:
            return e_lo, e_hi
        a = a.refine(max(a.width / 16, Fraction(1, 2**4000)))


def _eps_mid(s: AlgebraicNumber, q: int) -> Fraction:
    lo, hi = eps_enclosure(s, q, Fraction(1, 10**15))
    return (lo + hi) / 2


@dataclass(frozen=True)
class EpsilonInterval:
    """A piece of an ε-set, stored by its s-endpoints (s = e^{-ε/q}; ε = −q·ln s).

    ``s_lo`` None means s → 0 (ε → ∞); ``s_hi`` None means s → 1 (ε → 0).
    The ε-interval is [−q ln s_hi, −q ln s_lo]/scale with the closedness of the s-ends swapped;
    ``scale`` = c ≠ 1: solved with every distance divided by c (s is the unit metric's, ε = ε′/c).
    """

    s_lo: AlgebraicNumber | None
    s_hi: AlgebraicNumber | None
    s_lo_closed: bool
    s_hi_closed: bool
    q: int
    scale: Fraction = Fraction(1)

    def _eps(self, s: AlgebraicNumber, tol: Fraction) -> tuple[Fraction, Fraction]:
        lo, hi = eps_enclosure(s, self.q, tol * min(self.scale, Fraction(1)))  # ≤ tol·c, ÷ c: ≤ tol
        return lo / self.scale, hi / self.scale

    def _text(self, s: AlgebraicNumber) -> str:  # 12 digits, also beyond floats (c = 10^400)
        return f"{float(x):.12g}" if 1e-300 < (x := _eps_mid(s, self.q) / self.scale) < 1e300 else decimal_text(x, 11)

    def eps_lower_bounds(self, tol: Fraction = DEFAULT_TOL) -> tuple[Fraction, Fraction] | None:
        """Rational (lo, hi) enclosing the lower ε-end (None when it is 0).

        :meth:`eps_lower_enclosure` returns the same as an :class:`Enclosure`.
        """
        return None if self.s_hi is None else self._eps(self.s_hi, tol)

    def eps_upper_bounds(self, tol: Fraction = DEFAULT_TOL) -> tuple[Fraction, Fraction] | None:
        """Rational (lo, hi) enclosing the upper ε-end (None when it is ∞).

        :meth:`eps_upper_enclosure` returns the same as an :class:`Enclosure`.
        """
        return None if self.s_lo is None else self._eps(self.s_lo, tol)

    def eps_lower_enclosure(self, tol: Fraction = DEFAULT_TOL) -> Enclosure | None:
        """Enclosure of width ≤ tol of the lower ε-end (None when it is 0)."""
        b = self.eps_lower_bounds(tol)
        return None if b is None else Enclosure(*b)

    def eps_upper_enclosure(self, tol: Fraction = DEFAULT_TOL) -> Enclosure | None:
        """Enclosure of width ≤ tol of the upper ε-end (None when it is ∞)."""
        b = self.eps_upper_bounds(tol)
        return None if b is None else Enclosure(*b)

    def as_sympy(self) -> sympy.Interval:
        """The exact ε-interval as a ``sympy.Interval`` (endpoints −q ln s, or 0 and ∞)."""
        k = sympy.Rational(self.scale.denominator, self.scale.numerator)
        lo = sympy.Integer(0) if self.s_hi is None else eps_closed_form(self.s_hi, self.q) * k
        hi = sympy.oo if self.s_lo is None else eps_closed_form(self.s_lo, self.q) * k
        return sympy.Interval(lo, hi, not (self.s_hi is not None and self.s_hi_closed),
                              not (self.s_lo is not None and self.s_lo_closed))

    def __str__(self) -> str:
        lo = "0" if self.s_hi is None else self._text(self.s_hi)
        hi = "∞" if self.s_lo is None else self._text(self.s_lo)
        left = "[" if (self.s_hi is not None and self.s_hi_closed) else "("
        right = "]" if (self.s_lo is not None and self.s_lo_closed) else ")"
        return f"ε ∈ {left}{lo}, {hi}{right}"

    def to_json(self) -> dict[str, Any]:
        return {
            "s_low": None if self.s_lo is None else self.s_lo.to_json(),
            "s_high": None if self.s_hi is None else self.s_hi.to_json(),
            "s_low_closed": self.s_lo_closed,
            "s_high_closed": self.s_hi_closed,
            "eps_low": None if self.s_hi is None else [str(v) for v in self._eps(self.s_hi, DEFAULT_TOL)],
            "eps_high": None if self.s_lo is None else [str(v) for v in self._eps(self.s_lo, DEFAULT_TOL)],
            "q": self.q,
        } | ({} if self.scale == 1 else {"scale": str(self.scale)})


@dataclass(frozen=True)
class EpsilonSet:
    """The exact set of ε > 0 where the property holds: a finite union of intervals.

    Attributes
    ----------
    intervals : tuple of EpsilonInterval
        In increasing ε.
    singular_points : tuple of AlgebraicNumber
        s-values in (0, 1) where z(s) has a pole (Φ(s) singular); their status is not
        decided and they are excluded from ``intervals``.
    monotone : bool
        True when the set is [ε*, ∞) or (ε*, ∞) (or every ε): existence is monotone.
    question : str
    method : str
    seconds : float
    """

    intervals: tuple[EpsilonInterval, ...]
    singular_points: tuple[AlgebraicNumber, ...]
    monotone: bool
    question: str
    method: str
    seconds: float
    q: int

    def as_sympy(self) -> sympy.Set:
        """The exact set as a sympy set in ε (a union of intervals, not re-simplified).

        >>> from exactdp.threshold import tight_constraints_epsilons
        >>> from exactdp.spaces.metrics import sum_query
        >>> tight_constraints_epsilons(sum_query(2, 2)).as_sympy()
        Interval(log(1/2 + sqrt(5)/2), oo)
        """
        parts = [i.as_sympy() for i in self.intervals]
        if not parts:
            return sympy.EmptySet
        return parts[0] if len(parts) == 1 else sympy.Union(*parts, evaluate=False)

    def latex(self) -> str:
        """LaTeX of :meth:`as_sympy`."""
        return str(sympy.latex(self.as_sympy()))

    def __str__(self) -> str:
        if not self.intervals:
            return f"{self.question}: for no ε > 0"
        return f"{self.question}: " + " ∪ ".join(str(i) for i in self.intervals)

    def scaled(self, c: Fraction) -> EpsilonSet:
        """This set of d′ as the set of c·d′: every ε divided by c exactly (s stays d′'s;
        ``proofs/grid_spacing_scaling.py``). "(0, ∞)" stays "(0, ∞)".

        >>> from exactdp.spaces.metrics import sum_query
        >>> from exactdp.threshold import tight_constraints_epsilons as eps_set
        >>> str(eps_set(sum_query(2, 2)).scaled(Fraction(1, 10**400)))[-26:]
        'ε ∈ [4.81211825060e399, ∞)'
        """
        return replace(self, intervals=tuple(replace(i, scale=i.scale * c) for i in self.intervals))

    def to_json(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "intervals": [i.to_json() for i in self.intervals],
            "singular_points_s": [a.to_json() for a in self.singular_points],
            "monotone": self.monotone,
            "method": self.method,
            "seconds": self.seconds,
        }


@dataclass(frozen=True)
class ThresholdResult:
    """ε* enclosed by exact rationals, with a certificate for both sides.

    Attributes
    ----------
    eps_lower, eps_upper : Fraction
        eps_lower ≤ ε* ≤ eps_upper, eps_upper − eps_lower ≤ tol. The property fails at
        eps_lower and holds on [eps_upper, ∞). Both are 0 when it holds for every ε.
        :attr:`eps_enclosure` is the same pair as an :class:`Enclosure`.
    certificate
        ``verify()`` re-checks both sides.
    exact : AlgebraicNumber or None
        s* = e^{-ε*/q} (ε* = −q·ln s*) when the exact route ran (t* when q = 1).
    q : int or None
    method : str
    seconds : float
    timings : tuple of (str, float)
    question : str
    eps_set : EpsilonSet or None
        The whole exact ε-set when the exact route ran.
    verified : bool
        True once :meth:`verify` (the certificate's independent re-check) has passed on
        this result (``epsilon_threshold(..., verify=True)`` runs it before returning).

    What holds before :meth:`verify` runs depends on the route (``.method``):

    * ``exact``, ``prop9``: the answer is exact as returned (z(s) verified exactly by
      the symbolic solver, signs by exact root isolation; Prop. 9's closed form);
      :meth:`verify` re-derives it from the certificate independently.
    * ``certified``: the enclosure is proved by the search's own floating-point rounding
      analysis — Demmel's bound for the shifted float Cholesky factorisations (λ_min
      nodes), the F1/F2 rounding model for float row sums and residual bounds (with
      subnormals kept, checked at run time), ``proofs/spd_cover_bounds.py``. On dense
      metrics :meth:`verify` re-proves every node, piece and row sum with exact integer
      and rational arithmetic (no floating-point rounding analysis); it costs more than
      the search (≈ 12 s for sum_query(150, 5)), so it is not run by default.
    * ``kronecker``: as its factors' routes.
    """

    metric_name: str
    rhs: tuple[Fraction, ...] | None = field(repr=False)
    eps_lower: Fraction
    eps_upper: Fraction
    certificate: Any = field(repr=False)
    exact: AlgebraicNumber | None
    q: int | None
    method: str
    seconds: float
    timings: tuple[tuple[str, float], ...] = field(repr=False)
    question: str = "tight constraints exist"
    eps_set: EpsilonSet | None = field(default=None, repr=False)
    verified: bool = field(default=False, compare=False)
    metric: FiniteMetric | None = field(default=None, repr=False, compare=False)

    @property
    def holds_everywhere(self) -> bool:
        return self.eps_upper == 0

    def verify(self) -> bool:
        """Run the certificate's independent ``verify()``; on success record ``verified``.

        The certificate re-checks its own stored claim; this also checks that the claim
        is this result's: the same [eps_lower, eps_upper], the same question (the metric's
        exact distances when the result carries its metric, the same prior or ones), and the
        same exact value s* (an exact result's ``exact`` must be the certificate's ``s_star``).
        """
        try:
            ok = self._bound_to_certificate() and bool(self.certificate.verify())
        except REJECTED_ERRORS:
            ok = False
        if ok:
            object.__setattr__(self, "verified", True)  # a record of the check, not data
        return ok

    def _bound_to_certificate(self) -> bool:
        cert = self.certificate
        if getattr(cert, "eps_lower", None) != self.eps_lower or \
                getattr(cert, "eps_upper", None) != self.eps_upper:
            return False
        if self.exact != _certified_s_star(cert):
            return False
        asked = certificate_question(cert)
        if asked is None:
            return self.metric is None and self.rhs is None
        cmetric, crhs = asked
        if self.metric is not None and not same_distances(cmetric, self.metric):
            return False
        if self.metric is None and cmetric.name != self.metric_name:
            return False
        if self.q is not None and cmetric.q is not None and self.q != cmetric.q:
            return False
        return same_rhs(self.rhs, crhs, cmetric.n)

    # -- closed forms ----------------------------------------------------------------
    def as_sympy(self) -> sympy.Expr:
        """ε* as an exact sympy expression, ε* = q·ln(1/s*).

        When the property holds for every ε > 0 (``holds_everywhere``) this returns the
        exact threshold ``0`` on purpose: ε* = inf{ε : it holds on [ε, ∞)} = 0, and there
        is no s* (:meth:`minimal_poly` and :meth:`rational_functions` raise saying so).

        Radicals when s* has degree ≤ 2, else ``CRootOf`` with its real-root index (see
        :meth:`AlgebraicNumber.as_sympy`). Raises :class:`~exactdp.errors.ExactnessRequired`
        for a certified-only result (no exact s*: use ``method="exact"`` on a polynomial-case
        metric).

        >>> from exactdp.threshold import epsilon_threshold
        >>> from exactdp.spaces.metrics import count_queries
        >>> epsilon_threshold(count_queries(2)).as_sympy()
        log(2 + sqrt(5))
        """
        if self.holds_everywhere:
            return sympy.Integer(0)
        if self.exact is None or self.q is None:
            raise ExactnessRequired(
                f"{self.metric_name}: this threshold was certified by the {self.method!r} route "
                "and has no exact value; rerun epsilon_threshold(..., method='exact') on a "
                "polynomial-case metric for a closed form.")
        return eps_closed_form(self.exact, self.q)

    def latex(self) -> str:
        r"""LaTeX of ε* (``\varepsilon^* = …``), parseable by matplotlib mathtext."""
        return r"\varepsilon^* = " + str(sympy.latex(self.as_sympy()))

    def _no_s_star(self, what: str) -> ExactnessRequired:
        if self.holds_everywhere:
            return ExactnessRequired(
                f"{self.metric_name}: the property holds for every ε > 0 (ε* = 0), so there "
                f"is no s* and no {what}; as_sympy() returns the threshold 0.")
        return ExactnessRequired(
            f"{self.metric_name}: no exact {what} (route {self.method!r}); rerun "
            "epsilon_threshold(..., method='exact') on a polynomial-case metric.")

    def minimal_poly(self) -> sympy.Poly:
        """The minimal polynomial of s* = e^{-ε*/q} as a descending ``sympy.Poly`` in s."""
        if self.holds_everywhere:
            raise self._no_s_star("minimal polynomial of s*")
        if self.exact is None:
            raise self._no_s_star("s*")
        return self.exact.minimal_poly()

    def rational_functions(self) -> tuple[sympy.Expr, ...]:
        """z(s) (b = 1: the diagonal of tight constraints; b = π: α(s)) as sympy rational
        functions in s, from the exact certificate's verified solution."""
        sol = getattr(self.certificate, "solution", None)
        if self.holds_everywhere or not isinstance(sol, RationalSolution):
            raise self._no_s_star("z(s)")
        return rational_functions_sympy(sol)

    @property
    def eps_enclosure(self) -> Enclosure:
        """[eps_lower, eps_upper] ∋ ε*, as an :class:`~exactdp.arithmetic.interval.Enclosure`."""
        return Enclosure(self.eps_lower, self.eps_upper)

    @property
    def verdict(self) -> Verdict:
        """The certificate's verdict on the claim "fails at eps_lower, holds on [eps_upper, ∞)".

        A threshold is only returned once certified, so this is ``Verdict.HOLDS``.
        """
        v = getattr(self.certificate, "verdict", Verdict.HOLDS)
        return v if isinstance(v, Verdict) else Verdict.HOLDS

    def __str__(self) -> str:
        if self.holds_everywhere:
            return f"{self.metric_name}: {self.question} for every ε > 0 ({self.method})"
        mid = decimal_text((self.eps_lower + self.eps_upper) / 2, 10)  # no float overflow at huge ε
        width = self.eps_upper - self.eps_lower
        wtxt = f"{float(width):.2e}" if width == 0 or 1e-300 < width < 1e300 else unit_text(width)
        txt = (f"{self.metric_name}: {self.question} for every ε ≥ ε*, "
               f"ε* ∈ [{decimal_text(self.eps_lower, 12)}, {decimal_text(self.eps_upper, 12)}] "
               f"(≈ {mid}; width {wtxt}; {self.method}, {self.seconds:.2f} s)")
        if self.exact is not None:
            art = "" if self.exact.degree == 1 else "the "
            txt += f"\n  s* = e^(-ε*/{self.q}) is {art}{self.exact}"
        return txt

    def to_json(self) -> dict[str, Any]:
        """The result as its certificate's JSON document (the whole question, the claim
        ε* ∈ [eps_lower, eps_upper] and the evidence; ``exactdp verify`` re-checks it).

        Refuses (:class:`~exactdp.errors.CertificateInvalid`) a result whose enclosure,
        question or s* is not its certificate's; the certificate itself is re-checked on
        reading (:meth:`from_json`). Raises InvalidArgument for a certificate without a
        JSON form (a matrix-free grid's SPD cover). The run summary (method, timings) is
        :meth:`summary`.

        >>> from exactdp.threshold import epsilon_threshold
        >>> from exactdp.spaces.metrics import sum_query
        >>> r = epsilon_threshold(sum_query(3, 3), method="certified")
        >>> again = ThresholdResult.from_json(r.to_json())
        >>> again.eps_enclosure == r.eps_enclosure, again.verified, again.to_json() == r.to_json()
        (True, True, True)
        """
        if not self._bound_to_certificate():
            raise CertificateInvalid("this result is not its certificate's claim; recompute "
                                     "it before writing it out.")
        return self.certificate.to_json()  # type: ignore[no-any-return]

    @classmethod
    def from_json(cls, doc: Any) -> ThresholdResult:
        """Read a result back from a threshold certificate document (parsed or text); the
        kernel re-checks it, so a tampered document raises
        :class:`~exactdp.errors.CertificateInvalid` (a malformed one InvalidArgument). The
        structured (Toeplitz) kind is read by
        ``exactdp.threshold.structured.StructuredThresholdCertificate.from_json``."""
        doc = loads(doc) if isinstance(doc, (str, bytes)) else doc
        kind = doc.get("kind") if isinstance(doc, dict) else None
        cert = threshold_certificate_from_json(doc)
        if not hasattr(cert, "eps_upper") and not hasattr(cert, "claimed_bounds"):
            raise InvalidArgument(f"kind {kind!r} is a point certificate, not a threshold; "
                                  "read it with threshold_certificate_from_json.")
        asked = certificate_question(cert)
        if asked is None:
            raise InvalidArgument(f"kind {kind!r}: the certificate states no question.")
        metric, rhs = asked
        rhs_opt = None if rhs is None or all(v == 1 for v in rhs) else tuple(rhs)
        lo, hi = certificate_bounds(cert) or (cert.eps_lower, cert.eps_upper)
        exact = _certified_s_star(cert)
        if cls is ThresholdResult and isinstance(cert, ScaledExactCertificate):
            cls = ScaledThresholdResult  # keeps the closed form ε*(unit metric)/c (as_sympy)
        result = cls(metric.name, rhs_opt, lo, hi, cert, exact,
                     metric.q, f"{_route_of(cert, kind)} (read from JSON)", 0.0, (),
                     property_name(rhs_opt), None, metric=metric)
        if not result.verify():
            raise CertificateInvalid("the document's claim does not re-check (exactdp verify "
                                     "rejects it).")
        return result

    def summary(self) -> dict[str, Any]:
        """A JSON-ready summary of the run (route, timings, enclosure as rational strings);
        not a certificate (see :meth:`to_json`)."""
        return {
            "metric": self.metric_name,
            "question": self.question,
            "eps_lower": str(self.eps_lower),
            "eps_upper": str(self.eps_upper),
            "exact_s": None if self.exact is None else self.exact.to_json(),
            "q": self.q,
            "method": self.method,
            "seconds": self.seconds,
            "timings": {k: v for k, v in self.timings},
            "eps_set": None if self.eps_set is None else self.eps_set.to_json(),
            "monotone": None if self.eps_set is None else self.eps_set.monotone,
            "verified": self.verified,
        }


#: The route named by a certificate kind (``ThresholdResult.method`` of a result read back).
_ROUTES = {"exact": "exact", "prop9": "prop9", "certified-cover": "certified", "spd-taylor-cover": "certified",
           "kronecker-threshold": "kronecker", "grid-threshold": "certified", "structured-threshold": "structured",
           "quotient-threshold": "quotient", "exact-scaled": "scaled"}


def _route_of(cert: Any, kind: Any = None) -> str:
    """The route named by a certificate (exact-scaled: its inner route and unit, as scaled_route)."""
    kind = str(getattr(cert, "kind", "") if kind is None else kind)
    if isinstance(cert, ScaledExactCertificate):
        return f"{_route_of(cert.inner)} (distances in units of {unit_text(cert.scale)})"
    return _ROUTES.get(kind, kind)



def _certified_s_star(cert: Any) -> AlgebraicNumber | None:
    """The exact s* a threshold certificate proves: its own ``s_star``, or for a Kronecker
    certificate that of its binding factor (whose eps_lower is the product's)."""
    if hasattr(cert, "s_star"):
        return cert.s_star  # type: ignore[no-any-return]
    factors = getattr(cert, "factor_results", None)
    binding = getattr(cert, "binding", None)
    if factors is not None and isinstance(binding, int) and 0 <= binding < len(factors):
        sub = factors[binding]
        return _certified_s_star(getattr(sub, "certificate", None)) if sub is not None else None
    return None


@dataclass(frozen=True)
class ScaledThresholdResult(ThresholdResult):
    """A :class:`ThresholdResult` of the scaled exact route
    (:func:`exactdp.threshold.exact.exact_threshold`), or read back from an ``exact-scaled``
    document: its certificate is a :class:`ScaledExactCertificate`, whose inner exact s*
    (of the unit metric) gives the closed form ε* = ε*(unit metric)/c.

    >>> from exactdp.spaces.metrics.masked import masked_grid
    >>> from exactdp.threshold.exact import exact_threshold
    >>> g = masked_grid(4, 4, "manhattan", Fraction(7, 2), mask=["1111", "1111", "1100", "1100"])
    >>> r = exact_threshold(g, None, Fraction(1, 10**9), None, [], 160)
    >>> r.as_sympy(), ThresholdResult.from_json(r.to_json()).as_sympy()
    (2*log(2)/7, 2*log(2)/7)
    """

    def as_sympy(self) -> sympy.Expr:
        """ε* = ε*(unit metric)/c exactly (0 when the property holds for every ε)."""
        cert = self.certificate
        if self.holds_everywhere or not isinstance(cert, ScaledExactCertificate):
            return super().as_sympy()
        inner = cert.inner
        if not isinstance(inner, ExactThresholdCertificate) or inner.s_star is None:
            return super().as_sympy()
        c = cert.scale
        return eps_closed_form(inner.s_star, inner.solution.q) * sympy.Rational(c.denominator, c.numerator)

    def _no_s_star(self, what: str) -> ExactnessRequired:
        s1 = getattr(getattr(self.certificate, "inner", None), "s_star", None)
        if self.holds_everywhere or s1 is None:  # else s* = s′*^(q′/(c·q)): a root of no bounded degree
            return super()._no_s_star(what)
        return ExactnessRequired(f"{self.metric_name}: solved with every distance divided by c = "
                                 f"{unit_text(self.certificate.scale)}; no {what} here: the unit metric's "
                                 f"s′* = {s1} is .certificate.inner.s_star, and as_sympy() is ε* = ε′*/c.")
