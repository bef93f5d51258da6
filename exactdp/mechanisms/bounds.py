"""The paper's utility and leakage bounds, exact, each with the certificate it relies on.

* :func:`utility_bound` — Thm. 2: U(H, π, R) ≤ Σ_y α_y for every d-private H, every
  remap R and every α ≥ 0 with αΦ = π (the minimum over such α when Φ is singular,
  an exact rational LP).
* :func:`leakage_bound` — Prop. 5: L(H, π) ≤ log2(Σα / max π).
* :func:`uniform_leakage_bound` — Cor. 2: if the uniform prior is regular,
  L(H, π) ≤ log2(n·Σα_u) for every prior π.
* :func:`database_leakage_bound` — Thm. 3: on V^u with the Hamming metric,
  L(K, π) ≤ u·log2(k e^ε / (k − 1 + e^ε)) for every π (closed form, proof in
  ``proofs/mech_thm3_closed_form.py``).
* :func:`corner_priors` (Def. 5) and :func:`gamma_coefficients` (Prop. 3).

A bound asked for a prior that is not regular raises
:class:`~exactdp.errors.NotRegular`, whose ``certificate`` proves non-regularity.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import sympy
from flint import arb

from exactdp.algebra.phi import entry_values_ball, entry_values_exact, exact_parameter
from exactdp.arithmetic.ball import arb_from_fraction, arb_to_fraction_interval, workprec
from exactdp.arithmetic.interval import Enclosure
from exactdp.arithmetic.rationals import to_sympy
from exactdp.errors import REJECTED_ERRORS, CertificateInvalid, InvalidArgument, NotRegular
from exactdp.kinds import CertificateKind, Verdict, proved_by
from exactdp.mechanisms.mechanism import factor_ball
from exactdp.mechanisms.optimality import exact_lp_min
from exactdp.regularity import RegularityResult, is_regular
from exactdp.spaces.levels import PrivacyLevel, parse_level
from exactdp.spaces.metrics import FiniteMetric, hamming
from exactdp.spaces.priors import read_prior, uniform_prior

__all__ = [
    "UtilityBound",
    "LeakageBound",
    "DatabaseLeakageBound",
    "HammingUniformCertificate",
    "GammaCoefficients",
    "utility_bound",
    "leakage_bound",
    "uniform_leakage_bound",
    "database_leakage_bound",
    "corner_priors",
    "gamma_coefficients",
]


def _regular_or_raise(
    metric: FiniteMetric, prior: tuple[Fraction, ...], eps: Any, t: Any, method: str
) -> RegularityResult:
    res = is_regular(metric, prior, eps=eps, t=t, method=method)
    if not isinstance(res, RegularityResult):
        raise InvalidArgument("method='float' gives no certified bound; use 'auto'.")
    if not res.regular:
        cert = res.certificate
        raise NotRegular(
            f"the prior is not {res.level}-regular on {metric.name}: no α ≥ 0 solves αΦ = π "
            f"(certificate: {cert.kind}, verify() = {cert.verify()}); Thm. 2 / Prop. 5 apply "
            "only to regular priors (see .certificate).",
            certificate=cert,
        )
    return res


def _alpha_sum(res: RegularityResult) -> tuple[Fraction | None, Enclosure, tuple[Any, ...]]:
    """(exact Σα or None, enclosure, α) — Σα minimised by an exact LP when Φ is singular."""
    raw = res.alpha
    assert raw is not None
    alpha: tuple[Any, ...] = tuple(raw)
    if res.engine.singular:
        alpha = _min_sum_alpha(res.metric, res.level, res.prior)
    if all(isinstance(a, Fraction) for a in alpha):
        total: Fraction = sum(alpha, Fraction(0))
        return total, Enclosure(total, total), alpha
    lo: Fraction = sum((a.lo for a in alpha), Fraction(0))
    hi: Fraction = sum((a.hi for a in alpha), Fraction(0))
    return None, Enclosure(lo, hi), alpha


def _min_sum_alpha(
    metric: FiniteMetric, level: PrivacyLevel, prior: tuple[Fraction, ...]
) -> tuple[Fraction, ...]:
    """min Σα subject to Φα = π, α ≥ 0 (exact two-phase simplex; Φ singular, s rational)."""
    vals = entry_values_exact(metric, level)
    idx = metric.index.tolist()
    A = [[vals[k] for k in row] for row in idx]  # Φ is symmetric: αΦ = π ⇔ Φα = π
    res = exact_lp_min([Fraction(1)] * metric.n, A, list(prior))
    if res is None:
        raise CertificateInvalid(
            "the regularity certificate says π is regular, but the exact LP found Φα = π, "
            "α ≥ 0 infeasible; please report this instance."
        )
    alpha = res[1]
    ok = all(a >= 0 for a in alpha) and all(
        sum((vals[k] * a for k, a in zip(row, alpha)), Fraction(0)) == p
        for row, p in zip(idx, prior)
    )
    if not ok:
        raise CertificateInvalid("the exact LP returned a point that does not solve Φα = π.")
    return alpha


@dataclass(frozen=True)
class UtilityBound:
    """Thm. 2's bound Σ_y α_y, exact when s is rational, else a certified enclosure.

    Attributes
    ----------
    value : Fraction | None
        Exact bound (None when only enclosed).
    enclosure : Enclosure
        Certified interval containing Σα (degenerate when exact).
    alpha : tuple
        α (Fractions, or :class:`~exactdp.arithmetic.interval.Enclosure` enclosures).
    regularity : RegularityResult
        The certified regularity verdict the bound relies on.
    minimised : bool
        True when Φ is singular and Σα was minimised over all α ≥ 0 by an exact LP.
    """

    value: Fraction | None
    enclosure: Enclosure
    alpha: tuple[Any, ...] = field(repr=False)
    regularity: RegularityResult = field(repr=False)
    minimised: bool = False

    def __float__(self) -> float:
        return float(self.enclosure.mid)

    def verify(self) -> bool:
        """The regularity certificate verifies, and Σα lies in the enclosure."""
        if not self.regularity.certificate.verify():
            return False
        if self.value is not None:
            alpha_exact = [a for a in self.alpha if isinstance(a, Fraction)]
            return (
                len(alpha_exact) == len(self.alpha)
                and all(a >= 0 for a in alpha_exact)
                and sum(alpha_exact, Fraction(0)) == self.value
            )
        lo = sum((a.lo for a in self.alpha), Fraction(0))
        hi = sum((a.hi for a in self.alpha), Fraction(0))
        return self.enclosure.lo <= lo and hi <= self.enclosure.hi


def utility_bound(
    metric: FiniteMetric, prior: Any, eps: Any = None, *, t: Any = None, method: str = "auto"
) -> UtilityBound:
    """Thm. 2: the utility of any ε·d0-private mechanism for a regular prior is ≤ Σα.

    Raises :class:`~exactdp.errors.NotRegular` (with the certificate) when π is not
    regular at this level.

    Examples
    --------
    >>> from exactdp.spaces.metrics import line
    >>> b = utility_bound(line(3), ["1/3", "1/3", "1/3"], t="1/2")
    >>> b.value, b.verify()                     # α = (2/9, 1/9, 2/9)
    (Fraction(5, 9), True)
    >>> utility_bound(line(3), [1, 0, 0], t="1/2")
    Traceback (most recent call last):
    ...
    exactdp.errors.NotRegular: the prior is not ε = log(2) (t = 1/2)-regular on line(3): ...
    """
    pi = read_prior(metric, prior)
    res = _regular_or_raise(metric, pi, eps, t, method)
    value, enc, alpha = _alpha_sum(res)
    return UtilityBound(value, enc, alpha, res, minimised=res.engine.singular)


@dataclass(frozen=True)
class LeakageBound:
    """A min-entropy leakage bound log2(ratio) in bits.

    Attributes
    ----------
    ratio : Fraction | None
        Exact rational whose log2 is the bound (None when only enclosed).
    value : sympy.Expr | None
        ``log(ratio)/log(2)`` exactly.
    enclosure : Enclosure
        Bits, certified.
    utility : UtilityBound
        The Σα bound it is derived from (with its regularity certificate).
    """

    ratio: Fraction | None
    value: sympy.Expr | None
    enclosure: Enclosure
    utility: UtilityBound = field(repr=False)

    def __float__(self) -> float:
        return float(self.enclosure.mid)

    def verify(self) -> bool:
        return self.utility.verify()


def _log2_bound(ratio_enc: Enclosure, exact: Fraction | None, ub: UtilityBound) -> LeakageBound:
    with workprec(128):
        lo = arb_to_fraction_interval(arb_from_fraction(ratio_enc.lo).log() / arb(2).log())[0]
        hi = arb_to_fraction_interval(arb_from_fraction(ratio_enc.hi).log() / arb(2).log())[1]
    value = (
        None if exact is None
        else sympy.log(to_sympy(exact)) / sympy.log(2)
    )
    return LeakageBound(exact, value, Enclosure(lo, hi), ub)


def leakage_bound(
    metric: FiniteMetric, prior: Any, eps: Any = None, *, t: Any = None, method: str = "auto"
) -> LeakageBound:
    """Prop. 5: L(H, π) ≤ log2(Σα / max π) for every ε·d0-private H and regular π.

    >>> from exactdp.spaces.metrics import line
    >>> b = leakage_bound(line(3), ["1/3", "1/3", "1/3"], t="1/2")
    >>> b.ratio, b.value                       # (5/9)/(1/3) = 5/3
    (Fraction(5, 3), log(5/3)/log(2))
    """
    pi = read_prior(metric, prior)
    ub = utility_bound(metric, pi, eps, t=t, method=method)
    pmax = max(pi)
    exact = None if ub.value is None else ub.value / pmax
    return _log2_bound(Enclosure(ub.enclosure.lo / pmax, ub.enclosure.hi / pmax), exact, ub)


def uniform_leakage_bound(
    metric: FiniteMetric, eps: Any = None, *, t: Any = None, method: str = "auto"
) -> LeakageBound:
    """Cor. 2: when the uniform prior u is regular, L(H, π) ≤ log2(n·Σα_u) for every π.

    >>> from exactdp.spaces.metrics import discrete
    >>> b = uniform_leakage_bound(discrete(2), t="1/3")   # RR: log2(2·3/4) = log2(3/2)
    >>> b.ratio
    Fraction(3, 2)
    """
    u = uniform_prior(metric)
    ub = utility_bound(metric, u, eps, t=t, method=method)
    n = metric.n
    exact = None if ub.value is None else ub.value * n
    return _log2_bound(Enclosure(ub.enclosure.lo * n, ub.enclosure.hi * n), exact, ub)


@dataclass(frozen=True)
class HammingUniformCertificate:
    """α_y = (e^ε / (k (k − 1 + e^ε)))^u for every database y solves αΦ = uniform (Thm. 3).

    Φ on V^u is the u-th Kronecker power of (1 − t)I + tJ, whose row sums are
    (1 + (k − 1)t)^u, so the constant α = 1/(k^u (1 + (k − 1)t)^u) gives αΦ = 1/k^u.
    ``verify()`` re-checks it on the explicit Φ for small instances (exact when t is
    rational, else with balls) and the closed form symbolically otherwise. Its verdict is
    ``HOLDS``: the uniform prior is regular.
    """

    values: int
    individuals: int
    level: PrivacyLevel
    kind: CertificateKind = field(default=CertificateKind.HAMMING_UNIFORM, init=False)

    @property
    def verdict(self) -> Verdict:
        """``HOLDS``: the certificate proves that the uniform prior is regular."""
        return Verdict.HOLDS

    def verify(self) -> bool:
        """Re-check Thm. 3's closed form; False (never an exception) on malformed fields."""
        k, u = self.values, self.individuals
        if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 1 for v in (k, u)) \
                or not isinstance(self.level, PrivacyLevel):
            return False
        try:
            return self._verify()
        except REJECTED_ERRORS:
            return False

    def _verify(self) -> bool:
        k, u = self.values, self.individuals
        tt = sympy.Symbol("t", positive=True)
        alpha = 1 / (k * (1 + (k - 1) * tt)) ** u
        row_sum = (1 + (k - 1) * tt) ** u
        if sympy.simplify(alpha * row_sum - sympy.Rational(1, k**u)) != 0:
            return False
        if k**u > 256:
            return True
        m = hamming(k, u)
        if exact_parameter(m, self.level) is not None:
            vals = entry_values_exact(m, self.level)
            tq = self.level.t
            assert tq is not None
            a = Fraction(1) / (k * (1 + (k - 1) * tq)) ** u
            return all(
                sum((a * vals[j] for j in row), Fraction(0)) == Fraction(1, k**u)
                for row in m.index.tolist()
            )
        with workprec(128):
            vb = entry_values_ball(m, self.level)
            tb = self.level.t_ball()
            a_b = 1 / (k * (1 + (k - 1) * tb)) ** u
            for row in m.index.tolist():
                tot = arb(0)
                for j in row:
                    tot += a_b * vb[j]
                if not tot.contains(arb_from_fraction(Fraction(1, k**u))):
                    return False
        return True


@dataclass(frozen=True)
class DatabaseLeakageBound:
    """Thm. 3: L(K, π) ≤ u·log2(k e^ε / (k − 1 + e^ε)) bits for every prior π on V^u.

    Attributes
    ----------
    value : sympy.Expr
        The exact closed form.
    enclosure : Enclosure
        Bits, certified.
    certificate : HammingUniformCertificate
        The regularity of the uniform prior the bound relies on.
    """

    value: sympy.Expr
    enclosure: Enclosure
    certificate: HammingUniformCertificate = field(repr=False)

    def __float__(self) -> float:
        return float(self.enclosure.mid)

    def verify(self) -> bool:
        return self.certificate.verify()


@proved_by("mech_thm3_closed_form")
def database_leakage_bound(
    values: int, individuals: int, eps: Any = None, *, t: Any = None
) -> DatabaseLeakageBound:
    """Thm. 3's closed form u·log2(k e^ε/(k − 1 + e^ε)) (proof: proofs/mech_thm3_closed_form.py).

    It equals Cor. 2's general bound log2(n·Σα_u) on ``hamming(values, individuals)``.

    >>> b = database_leakage_bound(4, 5, eps="1/2")
    >>> round(float(b), 4)          # the paper quotes 2.5 bits for Example 3 at ε = 0.5
    2.5226
    >>> database_leakage_bound(2, 1, t="1/3").value
    log(3/2)/log(2)
    """
    level = parse_level(eps=eps, t=t)
    if isinstance(values, bool) or not isinstance(values, int) or values < 1:
        raise InvalidArgument(f"Got values={values!r}; it must be an integer k ≥ 1.")
    if isinstance(individuals, bool) or not isinstance(individuals, int) or individuals < 1:
        raise InvalidArgument(f"Got individuals={individuals!r}; it must be an integer u ≥ 1.")
    k, u = values, individuals
    if level.t is not None:
        tt = to_sympy(level.t)
        inner = sympy.nsimplify(k / (1 + (k - 1) * tt))  # = k e^ε/(k − 1 + e^ε)
    else:
        E = sympy.exp(level.eps)
        inner = k * E / (k - 1 + E)
    value = u * sympy.log(inner) / sympy.log(2)
    with workprec(128):
        tb = level.t_ball()
        ball = u * (k / (1 + (k - 1) * tb)).log() / arb(2).log()
        enc = Enclosure(*arb_to_fraction_interval(ball))
    return DatabaseLeakageBound(value, enc, HammingUniformCertificate(k, u, level))


def corner_priors(
    metric: FiniteMetric, eps: Any = None, *, t: Any = None
) -> tuple[tuple[Any, ...], ...]:
    """Def. 5: c_y = row y of Φ divided by its sum (every corner prior is regular).

    Exact Fractions when s = e^{-ε/q} is rational, else :class:`Enclosure` enclosures.

    >>> from exactdp.spaces.metrics import line
    >>> corner_priors(line(3), t="1/2")[0]
    (Fraction(4, 7), Fraction(2, 7), Fraction(1, 7))
    """
    level = parse_level(eps=eps, t=t)
    idx = metric.index.tolist()
    if exact_parameter(metric, level) is not None:
        vals = entry_values_exact(metric, level)
        out = []
        for row in idx:
            total = sum((vals[k] for k in row), Fraction(0))
            out.append(tuple(vals[k] / total for k in row))
        return tuple(out)
    with workprec(128):
        vb = entry_values_ball(metric, level)
        res = []
        for row in idx:
            tot = arb(0)
            for k in row:
                tot += vb[k]
            res.append(tuple(Enclosure(*arb_to_fraction_interval(vb[k] / tot)) for k in row))
        return tuple(res)


@dataclass(frozen=True)
class GammaCoefficients:
    """Prop. 3: π = Σ_y γ_y c_y with γ_y = α_y·Σ_{y'} φ[y, y'] ≥ 0 and Σγ = 1."""

    gamma: tuple[Any, ...]
    regularity: RegularityResult = field(repr=False)

    def verify(self) -> bool:
        if not self.regularity.certificate.verify():
            return False
        if all(isinstance(g, Fraction) for g in self.gamma):
            return sum(self.gamma, Fraction(0)) == 1 and all(g >= 0 for g in self.gamma)
        lo = sum((g.lo for g in self.gamma), Fraction(0))
        hi = sum((g.hi for g in self.gamma), Fraction(0))
        return lo <= 1 <= hi


def gamma_coefficients(
    metric: FiniteMetric, prior: Any, eps: Any = None, *, t: Any = None, method: str = "auto"
) -> GammaCoefficients:
    """Prop. 3's convex coefficients of a regular prior over the corner priors.

    >>> from exactdp.spaces.metrics import line
    >>> g = gamma_coefficients(line(3), ["1/3", "1/3", "1/3"], t="1/2")
    >>> g.gamma, g.verify()                    # α·(row sums 7/4, 2, 7/4)
    ((Fraction(7, 18), Fraction(2, 9), Fraction(7, 18)), True)
    """
    pi = read_prior(metric, prior)
    res = _regular_or_raise(metric, pi, eps, t, method)
    level = res.level
    raw = res.alpha
    assert raw is not None
    alpha: tuple[Any, ...] = tuple(raw)
    if res.engine.singular:
        alpha = _min_sum_alpha(metric, level, pi)
    idx = metric.index.tolist()
    if all(isinstance(a, Fraction) for a in alpha):
        vals = entry_values_exact(metric, level)
        gam = tuple(
            a * sum((vals[k] for k in row), Fraction(0))
            for a, row in zip(alpha, idx)
        )
        return GammaCoefficients(gam, res)
    with workprec(128):
        vb = entry_values_ball(metric, level)
        out = []
        for a, row in zip(alpha, idx):
            tot = arb(0)
            for k in row:
                tot += vb[k]
            out.append(Enclosure(*arb_to_fraction_interval(factor_ball(a) * tot)))
        return GammaCoefficients(tuple(out), res)
