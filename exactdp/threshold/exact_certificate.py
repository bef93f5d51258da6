"""The exact threshold certificate: z(s) as exact rational functions, signs by root isolation.

:class:`ExactThresholdCertificate` proves ε* ∈ [eps_lower, eps_upper] from the identity
Φ(s)N(s) = D(s)b over Z[s] and exact root counting; its exact value s* is tied to the
z(s) it carries (a root of odd multiplicity of the failing numerator, with no sign change
of any z_i before it). ``verify()`` and ``to_json()`` delegate to the kernel
(:func:`exactdp.kernel.threshold.check_threshold`, kind ``exact``;
:mod:`exactdp.kernel.threshold_json`), which re-proves every claim from the metric's
exact distances and the right-hand side.

Examples
--------
>>> from fractions import Fraction
>>> from exactdp.spaces.metrics import sum_query
>>> from exactdp.threshold.exact import exact_route
>>> res, _ = exact_route(sum_query(2, 2), None, Fraction(1, 10**6), None, [], 160)
>>> res.certificate.verify()
True
>>> res.certificate.to_json()["claim"]["s_star"]["minimal_polynomial"]
['1', '1', '-1']
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, ClassVar

from flint import fmpz_poly

from exactdp.algebra.algebraic import AlgebraicNumber
from exactdp.algebra.symbolic import RationalSolution
from exactdp.arithmetic.interval import Enclosure
from exactdp.engine.documents import grid_threshold_question, threshold_question, write_scaled, write_threshold
from exactdp.errors import REJECTED_ERRORS, CertificateInvalid, InstanceTooLarge, InvalidArgument
from exactdp.kernel.jsonio import loads
from exactdp.kernel.question import Question
from exactdp.kernel.threshold import ThresholdClaim, check_threshold, s_enclosure
from exactdp.kernel.threshold_scaled import check_scaled, read_scaled, same_scaled_metric, shape_metric
from exactdp.kinds import CertificateKind, Verdict
from exactdp.spaces.metrics import FiniteMetric
from exactdp.spaces.metrics.masked import GridShape, grid_shape
from exactdp.threshold.binding import grid_structure_holds

__all__ = ["ExactThresholdCertificate", "s_enclosure_of_eps", "ScaledExactCertificate",
           "MAX_EXPANDED_DEGREE", "portable_question", "scaled_question", "unit_text", "short_name"]

#: :meth:`ScaledExactCertificate.threshold_claim` (the ``exact`` claim of the original metric,
#: used inside a Kronecker document) substitutes s^g into z(s) up to this degree; the
#: kernel's Sturm sequences grow quadratically with it. ``to_json()`` has no such limit.
MAX_EXPANDED_DEGREE = 4_000


def s_enclosure_of_eps(eps: Fraction, q: int, prec: int = 128) -> tuple[Fraction, Fraction]:
    """Rational enclosure [lo, hi] of s = e^{-eps/q} (the kernel's :func:`~exactdp.kernel.threshold.s_enclosure`)."""
    return s_enclosure(eps, q, prec)


def unit_text(c: Fraction) -> str:
    """c exactly when short, else its magnitude (names and messages stay readable; a
    Fraction of more than 4300 digits cannot even be printed).

    >>> unit_text(Fraction(7, 2)), unit_text(Fraction(1, 10**400)), unit_text(Fraction(0))
    ('7/2', '≈ 1e-400', '0')
    """
    if max(c.numerator.bit_length(), c.denominator.bit_length()) <= 64:
        return str(c)
    lg = math.log10(abs(c.numerator)) - math.log10(c.denominator)
    e = math.floor(lg)
    return f"≈ {'-' if c < 0 else ''}{10 ** (lg - e):.6g}e{e}"


def short_name(name: str) -> str:
    """A metric's name for messages: a grid at spacing 10^-2600 has a 2600-digit name.

    >>> short_name("line(3)"), len(short_name("x" * 5000))
    ('line(3)', 141)
    """
    return name if len(name) <= 160 else f"{name[:100]}…{name[-40:]}"


def portable_question(metric: FiniteMetric, rhs: tuple[Fraction, ...] | None) -> dict[str, Any]:
    """The threshold question of (metric, rhs) as JSON, once the kernel's question reader
    (:meth:`~exactdp.kernel.question.Question.from_json`, the one ``exactdp verify`` runs)
    reads it back; InstanceTooLarge when it refuses it (a distance ≥ 10^300: its bound).

    >>> from exactdp.spaces.metrics import line, line_scaled
    >>> portable_question(line(3), None)["property"]
    'threshold-tight'
    >>> portable_question(line_scaled(3, Fraction(10**400)), None)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    exactdp.errors.InstanceTooLarge: ... largest distance is ≈ 2^1329, ...
    """
    b = (Fraction(1),) * metric.n if rhs is None else tuple(rhs)
    doc = threshold_question(ThresholdClaim("exact", metric, b, Enclosure(Fraction(0), Fraction(0)), {})).to_json()
    try:
        Question.from_json(doc)
    except (ValueError, CertificateInvalid) as err:  # str() of a huge distance is a ValueError too
        big = max(v.square for v in metric.values)
        bits = (big.numerator.bit_length() - big.denominator.bit_length()) // 2
        raise InstanceTooLarge(
            f"{short_name(metric.name)}: the kernel's question reader refuses this metric "
            f"({type(err).__name__}: {str(err)[:120]}…; its largest distance is ≈ 2^{bits}, and "
            "documents hold distances below 10^300 only), so no certificate of it can be "
            "written or re-checked by exactdp verify.") from err
    return doc


def descending(poly: Any) -> tuple[int, ...]:
    """Integer coefficients of a ``flint.fmpz_poly``, leading first; the zero polynomial is (0,)."""
    return tuple(int(c) for c in reversed(poly.coeffs())) or (0,)


@dataclass(frozen=True)
class ExactThresholdCertificate:
    """Exact proof of ε* ∈ [eps_lower, eps_upper] from the rational solution z(s).

    * ``solution``: Φ(s)N(s) = D(s)b over Z[s] (re-checked);
    * holds on [eps_upper, ∞) ⇔ s ∈ (0, s_up] with s_up ≥ e^{-eps_upper/q} rational:
      D has no root in (0, s_up], no N_i changes sign there, and every z_i starts ≥ 0
      at s → 0+ (so z(s) ≥ 0 solves Φz = b);
    * fails at eps_lower (when ``fail_index`` is set): s_low = e^{-eps_lower/q} is
      transcendental (Lindemann), so Φ(s_low) is invertible (det Φ is a nonzero integer
      polynomial) and z(s_low) is the unique solution; on a rational interval containing
      s_low neither N_i nor D vanishes and z_i < 0 there.
    """

    solution: RationalSolution = field(repr=False)
    eps_lower: Fraction
    eps_upper: Fraction
    fail_index: int | None
    s_star: AlgebraicNumber | None
    kind: ClassVar[CertificateKind] = CertificateKind.EXACT_THRESHOLD

    @property
    def verdict(self) -> Verdict:
        """``HOLDS``: the claim ε* ∈ [eps_lower, eps_upper] is proved exactly."""
        return Verdict.HOLDS

    @property
    def metric(self) -> FiniteMetric:
        """The question's metric: the one the identity Φ(s)N(s) = D(s)b is checked against."""
        return self.solution.metric

    @property
    def rhs(self) -> tuple[Fraction, ...]:
        """The question's right-hand side b (the identity's)."""
        return self.solution.rhs

    def threshold_claim(self) -> ThresholdClaim:
        """This certificate as the kernel's claim (raises on malformed fields)."""
        sol = self.solution
        if not isinstance(sol, RationalSolution):
            raise InvalidArgument(f"solution={sol!r} is not a RationalSolution.")
        star = None
        if self.s_star is not None:
            a = self.s_star
            star = (sol.q, tuple(reversed(a.minimal_polynomial)),
                    Enclosure(*a.isolating_interval))
        return ThresholdClaim("exact", sol.metric, tuple(sol.rhs),
                              Enclosure(self.eps_lower, self.eps_upper),
                              {"numerators": tuple(descending(p) for p in sol.numerators),
                               "denominator": descending(sol.denominator),
                               "witness": self.fail_index, "s_star": star})

    def verify(self) -> bool:
        """Re-check the identity, s*, and both sides in the kernel (module doc).

        Never raises: a malformed certificate is rejected.
        """
        try:
            claim = self.threshold_claim()
        except REJECTED_ERRORS:
            return False
        return check_threshold(claim)

    def to_json(self) -> dict[str, Any]:
        """The certificate as a JSON document (:mod:`exactdp.kernel.threshold_json`)."""
        return write_threshold(self.threshold_claim())

    @staticmethod
    def from_claim(c: ThresholdClaim) -> ExactThresholdCertificate:
        """Rebuild from the kernel's claim (kind ``exact``); only as good as its ``verify()``."""
        ev = c.evidence
        m = c.metric
        sol = RationalSolution(m, tuple(fmpz_poly(list(reversed(p))) for p in ev["numerators"]),
                               fmpz_poly(list(reversed(ev["denominator"]))), m.q or 1, c.rhs,
                               method="read from JSON")
        star = ev["s_star"]
        alg = None if star is None else AlgebraicNumber(tuple(reversed(star[1])),
                                                        (star[2].lo, star[2].hi))
        return ExactThresholdCertificate(sol, c.eps.lo, c.eps.hi, ev["witness"], alg)


@dataclass(frozen=True)
class ScaledExactCertificate:
    """ε* ∈ [eps_lower, eps_upper] for ``metric`` from a threshold certificate ``inner`` of
    the same question with every distance divided by ``scale`` = c
    (``proofs/grid_spacing_scaling.py``: Φ(ε) = Φ'(c·ε) entrywise, so the property holds at
    ε iff it holds at c·ε in the unit metric, and ε* = ε'*/c).

    ``inner`` is any threshold certificate with a JSON form: exact (the scaled exact route,
    z in u = e^{-c·ε}, degree g times smaller than in s = e^{-ε/q}), or the certificate of
    any other route on the unit metric (Kronecker, SPD Taylor cover, matrix-free
    ``grid-threshold``, …: grids at spacings far from 1, :func:`exactdp.threshold.certified.scaled_route`).
    ``verify()`` and ``to_json()`` go through the kernel kind ``exact-scaled``
    (:mod:`exactdp.kernel.threshold_scaled`): the inner certificate must be about the metric
    divided by c (O(1) for two grid shapes, else pair by pair) and the same right-hand side,
    re-check as its own kind, and eps = eps'/c exactly. A grid travels as its shape when the
    inner document does (``grid-threshold``) or when its distances exceed what a metric
    encoding holds (10^300), so the document exists at every spacing.

    >>> from fractions import Fraction
    >>> from exactdp.spaces.metrics.masked import masked_grid
    >>> from exactdp.threshold.exact import exact_threshold
    >>> g = masked_grid(5, 4, "manhattan", 1000, mask=["11111", "11011", "10001", "11111"])
    >>> cert = exact_threshold(g, None, Fraction(1, 10**9), None, [], 160).certificate
    >>> doc = cert.to_json()
    >>> doc["kind"], doc["evidence"]["unit"], ScaledExactCertificate.from_json(doc).verify()
    ('exact-scaled', '1000', True)
    """

    metric: FiniteMetric = field(repr=False)
    rhs: tuple[Fraction, ...] | None = field(repr=False)
    scale: Fraction
    inner: Any = field(repr=False)
    eps_lower: Fraction
    eps_upper: Fraction
    kind: ClassVar[CertificateKind] = CertificateKind.EXACT_SCALED

    @property
    def verdict(self) -> Verdict:
        """``HOLDS``: the claim is proved (in the unit metric, then scaled)."""
        return Verdict.HOLDS

    def _rhs(self) -> tuple[Fraction, ...]:
        if not isinstance(self.metric, FiniteMetric) or not isinstance(self.scale, Fraction):
            raise InvalidArgument("not a well-formed scaled certificate.")
        return (Fraction(1),) * self.metric.n if self.rhs is None else tuple(self.rhs)

    def verify(self) -> bool:
        """The kernel's ``exact-scaled`` check of :meth:`to_json`'s document, read back as
        ``exactdp verify`` reads it (class doc). An inner certificate without a JSON form
        (a Kronecker product with an SPD-cover factor) is checked by the same rules in
        Python: d = c·d′ pair by pair, the same rhs, eps = eps′/c exactly, the inner
        ``verify()``. Never raises."""
        try:
            doc = self.to_json()
        except InvalidArgument:
            return self._verify_python()
        except REJECTED_ERRORS:
            return False
        try:
            return check_scaled(read_scaled(doc))
        except REJECTED_ERRORS:
            return False

    def _verify_python(self) -> bool:
        try:
            inner, c, rhs = self.inner, self.scale, self._rhs()
            im = getattr(inner, "metric", None)
            irhs = getattr(inner, "rhs", None)
            irhs = (Fraction(1),) * self.metric.n if irhs is None else tuple(irhs)
            return bool(c > 0 and isinstance(im, FiniteMetric) and same_scaled_metric(self.metric, im, c)
                        and irhs == rhs and self.eps_lower == inner.eps_lower / c
                        and self.eps_upper == inner.eps_upper / c and inner.verify())
        except REJECTED_ERRORS + (AttributeError, TypeError):
            return False

    def threshold_claim(self) -> ThresholdClaim:
        """The equivalent kernel claim of kind ``exact`` on the original metric (an exact
        inner certificate only): N_i(s^g)/D(s^g) with s = e^{-ε/q} (u = s^g = e^{-c·ε});
        InvalidArgument above :data:`MAX_EXPANDED_DEGREE` (and for a malformed or non-exact
        certificate). :meth:`to_json` does not use it."""
        if (not isinstance(self.inner, ExactThresholdCertificate) or not isinstance(self.scale, Fraction)
                or not isinstance(self.metric, FiniteMetric) or self.metric.q is None):
            raise InvalidArgument("not a well-formed scaled exact certificate (an exact inner "
                                  "certificate on a polynomial-case metric).")
        sol = self.inner.solution
        # the inner z is in s′ = e^{-ε′/q′} with ε′ = c·ε, so s′ = s^g with s = e^{-ε/q}
        # and g = c·q/q′ (an integer, else z has no polynomial form in s)
        g = self.scale * self.metric.q / sol.q
        deg = max(p.degree() for p in (*sol.numerators, sol.denominator))
        name = short_name(self.metric.name)
        if g.denominator != 1:
            raise InvalidArgument(
                f"{name}: s′ = e^(-ε′/{sol.q}) of the unit metric is s^g with g = c·q/q′ = "
                f"{unit_text(g)}, not an integer: this certificate has no exact document of "
                "the original metric (its own to_json() document is kind exact-scaled).")
        if g * deg > MAX_EXPANDED_DEGREE:
            raise InvalidArgument(
                f"{name}: as an ``exact`` document this certificate would hold polynomials of "
                f"degree ≈ {unit_text(g * deg)} in s = e^(-ε/{self.metric.q}) (> "
                f"{MAX_EXPANDED_DEGREE}); its own to_json() document (kind exact-scaled) has no "
                "such limit.")
        k = int(g)

        def expand(p: Any) -> fmpz_poly:
            co = [0] * (k * max(p.degree(), 0) + 1)
            co[::k] = [int(x) for x in p.coeffs()] or [0]
            return fmpz_poly(co)

        full = RationalSolution(self.metric, tuple(expand(p) for p in sol.numerators),
                                expand(sol.denominator), self.metric.q, sol.rhs,
                                method="s^g substituted")
        return ExactThresholdCertificate(full, self.eps_lower, self.eps_upper,
                                         self.inner.fail_index, None).threshold_claim()

    def to_json(self) -> dict[str, Any]:
        """The ``exact-scaled`` document (:mod:`exactdp.kernel.threshold_scaled`). The question
        is the metric's encoding, or its grid shape (:func:`scaled_question`); InstanceTooLarge
        when neither can hold it, InvalidArgument when the inner certificate has no JSON form."""
        rhs = self._rhs()
        make = getattr(self.inner, "to_json", None)
        if not callable(make):
            raise InvalidArgument("the inner certificate has no JSON form (to_json).")
        inner = make()
        on_grid = inner.get("question", {}).get("metric", {}).get("encoding") == "grid"
        return write_scaled(scaled_question(self.metric, rhs, on_grid),
                            Enclosure(self.eps_lower, self.eps_upper), self.scale, inner)

    @staticmethod
    def from_json(doc: Any, inner_from_json: Callable[[Any], Any] | None = None) -> ScaledExactCertificate:
        """Rebuild from an ``exact-scaled`` document (parsed or text); only as good as its
        ``verify()``. An ``exact`` inner document is rebuilt here, any other kind by
        ``inner_from_json`` (the library passes
        :func:`~exactdp.threshold.certificates.threshold_certificate_from_json`).
        InvalidArgument: malformed; CertificateInvalid: an altered question."""
        doc = loads(doc) if isinstance(doc, (str, bytes)) else doc
        c = read_scaled(doc)
        rhs = None if all(v == 1 for v in c.rhs) else c.rhs
        metric = shape_metric(c.metric) if isinstance(c.metric, GridShape) else c.metric
        if isinstance(c.inner, ThresholdClaim) and c.inner.kind == "exact":
            inner: Any = ExactThresholdCertificate.from_claim(c.inner)
        elif inner_from_json is None:
            raise InvalidArgument(f"evidence.inner: kind {doc['evidence']['inner'].get('kind')!r}; pass "
                                  "inner_from_json (threshold_certificate_from_json reads every kind).")
        else:
            inner = inner_from_json(doc["evidence"]["inner"])
        return ScaledExactCertificate(metric, rhs, c.unit, inner, c.eps.lo, c.eps.hi)


def scaled_question(metric: FiniteMetric, rhs: tuple[Fraction, ...], on_grid: bool) -> dict[str, Any]:
    """The outer question of a scaled document: the grid shape of a library grid when
    ``on_grid`` (the inner document is ``grid-threshold``) or when the metric encoding
    cannot hold it (:func:`portable_question`: distances ≥ 10^300, more points than the
    reader takes); else the metric's encoding. InstanceTooLarge when neither applies.

    >>> from exactdp.spaces.metrics import grid
    >>> from exactdp.spaces.metrics.masked import masked_grid
    >>> one = (Fraction(1),) * 3
    >>> L = masked_grid(2, 2, "manhattan", 10**400, mask=["11", "10"])  # distances ≥ 10^300
    >>> scaled_question(L, one, False)["metric"]["encoding"]
    'grid'
    >>> scaled_question(grid(2, 2, spacing=10**400), one + one[:1], False)["metric"]["encoding"]
    'builtin'
    """
    shape = grid_shape(metric)
    if shape is not None and shape.mask is None and not grid_structure_holds(metric):
        shape = None  # a plain grid's claim must reproduce its distances
    if shape is not None and on_grid:
        return grid_threshold_question(shape, rhs)
    try:
        return portable_question(metric, None if all(v == 1 for v in rhs) else rhs)
    except (InstanceTooLarge, InvalidArgument):
        if shape is None:
            raise
        return grid_threshold_question(shape, rhs)
