"""The exact structures of a mechanism's entries, and the entries they define.

Many classical mechanisms have a *monomial form* h[y, z] = c_z · s^{E[y, z]} with an
exact parameter s in (0, 1), integer exponents E and column factors c_z ≥ 0
(:class:`MonomialForm`): the truncated geometric mechanism, its sum-query and k-count
versions, randomized response, and the tight-constraints mechanism H = Φ·diag(z) of a
metric with commensurable distances. The exponential mechanism has the row-normalized form
of :class:`RowNormalizedForm`; the tight-constraints mechanism of any metric (irrational
distances included) has :class:`TightForm`.

This module also builds the entries a form defines (:func:`monomial_entries`,
:func:`tight_balls`): the constructors of :mod:`exactdp.mechanisms` and
:attr:`exactdp.tight.TightConstraintsResult.mechanism` both use it, so there is one home of
that construction. It sits in the objects layer (it imports only :mod:`exactdp.arithmetic`,
:mod:`exactdp.errors` and :mod:`exactdp.spaces`); how a form is *checked* against the entries
is in :mod:`exactdp.mechanisms.structure`.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import Any

import numpy as np
import sympy
from flint import arb

from exactdp.arithmetic.ball import arb_from_fraction, sympy_to_arb, workprec
from exactdp.arithmetic.interval import Enclosure
from exactdp.arithmetic.rationals import to_fmpq, to_fraction, to_sympy
from exactdp.spaces.levels import PrivacyLevel
from exactdp.spaces.metrics import FiniteMetric

__all__ = [
    "CERTIFIED_PREC",
    "MonomialForm",
    "RowNormalizedForm",
    "TightForm",
    "factor_ball",
    "monomial_entries",
    "monomial_parameter",
    "tight_balls",
]

#: Precision (bits) of certified entries built by the constructors.
CERTIFIED_PREC = 128


def factor_ball(c: Any) -> arb:
    """Ball enclosing a column factor: a closed-form sympy number or an :class:`Enclosure`.

    >>> from flint import fmpq
    >>> factor_ball(Enclosure(Fraction(1, 4), Fraction(1, 2))).contains(fmpq(1, 3))
    True
    """
    if isinstance(c, Enclosure):
        return arb_from_fraction(c.lo).union(arb_from_fraction(c.hi))
    return sympy_to_arb(c)


@dataclass(frozen=True)
class MonomialForm:
    """Exact structure h[y, z] = c_z · s^{E[y, z]}.

    Attributes
    ----------
    s : sympy.Expr
        The exact parameter, 0 < s < 1 (a rational, or e.g. ``exp(-4/5)``).
    exponents : numpy.ndarray
        Integer matrix E (inputs × outputs), read-only.
    column_factors : tuple
        c_z for each output: a sympy expression (exact closed form in s) or an
        :class:`~exactdp.arithmetic.interval.Enclosure` of it (certified, e.g. a
        tight-constraints diagonal at transcendental t). Every c_z is ≥ 0.
    symbol : sympy.Symbol or None
        When set, the column factors are expressions in this symbol standing for s
        (closed forms as functions of s); their values are taken at ``s``.
    """

    s: sympy.Expr
    exponents: np.ndarray
    column_factors: tuple[Any, ...]
    symbol: sympy.Symbol | None = None

    def column_value(self, k: int) -> Any:
        """c_k with the parameter substituted (a sympy number, or an Enclosure)."""
        c = self.column_factors[k]
        if isinstance(c, Enclosure) or self.symbol is None:
            return c
        return sympy.sympify(c).subs(self.symbol, self.s)

    @property
    def s_rational(self) -> Fraction | None:
        """s as a Fraction when it is rational."""
        return to_fraction(self.s) if isinstance(self.s, sympy.Rational) else None

    def column_factor_ball(self, k: int) -> arb:
        """Ball enclosing c_k at the current precision."""
        return factor_ball(self.column_value(k))

    @cached_property
    def zero_columns(self) -> np.ndarray:
        """Boolean mask of the outputs whose factor c_z is exactly 0 (computed once)."""
        return np.array(
            [self.column_is_zero(k) for k in range(len(self.column_factors))], dtype=bool
        )

    def column_is_zero(self, k: int) -> bool:
        """True when c_k is exactly 0 (that output is never produced)."""
        c = self.column_value(k)
        if isinstance(c, Enclosure):
            return c.lo == 0 and c.hi == 0
        return bool(sympy.sympify(c).is_zero)


@dataclass(frozen=True)
class RowNormalizedForm:
    """Exact structure h[y, z] = s^{E[y, z]} / S_y(s) with S_y(s) = Σ_z s^{E[y, z]}.

    The exponential mechanism on a metric of the polynomial case has this form with
    s = e^{-ε/(2q)} and E = q·d. Ratios are h[a,z]/h[b,z] = s^{E[a,z]−E[b,z]}·S_b(s)/S_a(s),
    so the privacy level is max over edges of (Δ·(−ln s) + ln S_b(s) − ln S_a(s))/d: an exact
    closed form, decided by :func:`exactdp.mechanisms.privacy.privacy_level` even when s is
    transcendental (ties are settled as polynomial identities in s).
    """

    s: sympy.Expr
    exponents: np.ndarray

    @property
    def s_rational(self) -> Fraction | None:
        """s as a Fraction when it is rational."""
        return to_fraction(self.s) if isinstance(self.s, sympy.Rational) else None

    @cached_property
    def row_polynomials(self) -> tuple[np.ndarray, np.ndarray]:
        """(distinct coefficient vectors of S_y, index of each row's vector)."""
        E = self.exponents
        K = int(E.max()) + 1 if E.size else 1
        counts = np.stack([np.bincount(row, minlength=K) for row in E])
        uniq, inv = np.unique(counts, axis=0, return_inverse=True)
        return uniq, np.asarray(inv).reshape(-1)


@dataclass(frozen=True)
class TightForm:
    """h[y, z] = e^{-ε·d(y, z)}·z_z with z ≥ 0 certified: the tight-constraints mechanism.

    Attributes
    ----------
    metric : FiniteMetric
        The metric d the mechanism was built on (rows and columns are its points).
    eps : sympy.Expr
        The exact level ε of the construction.
    z : tuple
        The diagonal: exact Fractions or certified
        :class:`~exactdp.arithmetic.interval.Enclosure` objects, each certified ≥ 0.
    positive : tuple[int, ...]
        The outputs whose z_z is certified > 0 (their column is produced).
    """

    metric: FiniteMetric
    eps: sympy.Expr
    z: tuple[Any, ...]
    positive: tuple[int, ...]

    def applies_to(self, metric: FiniteMetric) -> bool:
        """True when ``metric`` is the construction's metric (same points, same distances)."""
        if metric is self.metric:
            return True
        return (metric.n == self.metric.n
                and bool(np.array_equal(metric.index, self.metric.index))
                and tuple(metric.values) == tuple(self.metric.values))


def monomial_parameter(level: PrivacyLevel, q: int) -> sympy.Expr:
    """Exact s = e^{-ε/q} as a sympy expression (a Rational when it is rational).

    >>> from exactdp.spaces.levels import parse_level
    >>> monomial_parameter(parse_level(t="1/4"), 2), monomial_parameter(parse_level(eps=1), 1)
    (1/2, exp(-1))
    """
    s = level.s_rational(q)
    if s is not None:
        return to_sympy(s)
    return sympy.exp(-level.eps / q)


def monomial_entries(form: MonomialForm, prec: int = CERTIFIED_PREC) -> tuple[np.ndarray, bool]:
    """The entries c_z·s^{E[y, z]} of a monomial form and whether they are exact.

    Exact ``fmpq`` entries when s and every column factor are rational, else ``arb`` balls
    computed at ``prec`` bits that contain them.

    >>> form = MonomialForm(sympy.Rational(1, 3), np.array([[0, 1], [1, 0]]),
    ...                     (sympy.Rational(3, 4), sympy.Rational(3, 4)))
    >>> arr, exact = monomial_entries(form)
    >>> exact, arr[0].tolist()
    (True, [3/4, 1/4])
    """
    E = form.exponents
    s_rat = form.s_rational
    values = [form.column_value(k) for k in range(len(form.column_factors))]
    exact_factors = all(
        not isinstance(c, Enclosure) and isinstance(sympy.sympify(c), sympy.Rational)
        for c in values
    ) or all(isinstance(c, Enclosure) and c.lo == c.hi for c in values)
    kmax = int(E.max()) if E.size else 0
    arr = np.empty(E.shape, dtype=object)
    if s_rat is not None and exact_factors:
        s = to_fmpq(s_rat)
        powers = [s**k for k in range(kmax + 1)]
        cols = [to_fmpq(c.lo) if isinstance(c, Enclosure) else to_fmpq(to_fraction(c))
                for c in values]
        for i, row in enumerate(E.tolist()):
            arr[i, :] = [cols[j] * powers[k] for j, k in enumerate(row)]
        return arr, True
    with workprec(prec):
        s_ball = sympy_to_arb(form.s)
        powers_b = [s_ball**k for k in range(kmax + 1)]
        cols_b = [form.column_factor_ball(j) for j in range(E.shape[1])]
        for i, row in enumerate(E.tolist()):
            arr[i, :] = [cols_b[j] * powers_b[k] for j, k in enumerate(row)]
    return arr, False


def tight_balls(form: TightForm) -> np.ndarray | None:
    """Balls enclosing e^{-ε d(y,x)}·z_x for every z_x in its enclosure (current precision);
    None when some z_x is not certified ≥ 0.

    >>> from exactdp.spaces.metrics import line
    >>> b = tight_balls(TightForm(line(2), sympy.Integer(1), (Fraction(1), Fraction(1)), (0, 1)))
    >>> b[0, 1].contains(sympy_to_arb(sympy.exp(-1)))
    True
    """
    zb = []
    for c in form.z:
        lo, hi = (c.lo, c.hi) if isinstance(c, Enclosure) else (Fraction(c), Fraction(c))
        if lo < 0 or hi < lo:
            return None
        zb.append(arb_from_fraction(lo).union(arb_from_fraction(hi)))
    eps_b = sympy_to_arb(form.eps)
    vals = [(-eps_b * v.ball()).exp() for v in form.metric.values]
    n = form.metric.n
    arr = np.empty((n, n), dtype=object)
    for i, row in enumerate(form.metric.index.tolist()):
        arr[i, :] = [vals[k] * zb[j] for j, k in enumerate(row)]
    return arr
