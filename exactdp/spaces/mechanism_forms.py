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

from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from typing import Any

import flint
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
    "MergedMonomialForm",
    "MonomialForm",
    "RowNormalizedForm",
    "TightForm",
    "factor_ball",
    "form_entries",
    "form_values",
    "frozen_array",
    "monomial_entries",
    "monomial_parameter",
    "tight_balls",
]

#: Precision (bits) of certified entries built by the constructors.
CERTIFIED_PREC = 128


def frozen_array(a: Any, dtype: Any = np.int64) -> np.ndarray:
    """A copy of ``a`` over immutable bytes: read-only for good (``setflags(write=True)``
    fails on it and on every view of it), so a checked form can never be edited afterwards.

    >>> E = np.array([[0, 1], [1, 0]])
    >>> F = frozen_array(E); E[0, 1] = 5; F[0, 1]
    np.int64(1)
    >>> F.setflags(write=True)
    Traceback (most recent call last):
    ...
    ValueError: cannot set WRITEABLE flag to True of this array
    """
    src = np.ascontiguousarray(np.asarray(a), dtype=dtype)
    out = np.frombuffer(src.tobytes(), dtype=dtype).reshape(src.shape)
    assert not out.flags.writeable
    return out


def _array_key(a: np.ndarray) -> tuple[Any, ...]:
    return (a.shape, str(a.dtype), a.tobytes())


def factor_ball(c: Any) -> arb:
    """Ball enclosing a column factor: a closed-form sympy number or an :class:`Enclosure`.

    >>> from flint import fmpq
    >>> factor_ball(Enclosure(Fraction(1, 4), Fraction(1, 2))).contains(fmpq(1, 3))
    True
    """
    if isinstance(c, Enclosure):
        return arb_from_fraction(c.lo).union(arb_from_fraction(c.hi))
    return sympy_to_arb(c)


@dataclass(frozen=True, eq=False)
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

    def __post_init__(self) -> None:
        # a private immutable copy: the caller's array can change, this form cannot
        object.__setattr__(self, "exponents", frozen_array(self.exponents))
        object.__setattr__(self, "column_factors", tuple(self.column_factors))

    def _key(self) -> tuple[Any, ...]:
        return (self.s, _array_key(self.exponents), self.column_factors, self.symbol)

    def __reduce__(self) -> tuple[Any, ...]:  # unpickling re-runs __post_init__ (read-only E)
        return (MonomialForm, (self.s, np.array(self.exponents), self.column_factors,
                               self.symbol))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, MonomialForm) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

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
        return frozen_array(
            [self.column_is_zero(k) for k in range(len(self.column_factors))], dtype=bool
        )

    def column_is_zero(self, k: int) -> bool:
        """True when c_k is exactly 0 (that output is never produced)."""
        c = self.column_value(k)
        if isinstance(c, Enclosure):
            return c.lo == 0 and c.hi == 0
        return bool(sympy.sympify(c).is_zero)


@dataclass(frozen=True, eq=False)
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

    def __post_init__(self) -> None:
        object.__setattr__(self, "exponents", frozen_array(self.exponents))

    def _key(self) -> tuple[Any, ...]:
        return (self.s, _array_key(self.exponents))

    def __reduce__(self) -> tuple[Any, ...]:
        return (RowNormalizedForm, (self.s, np.array(self.exponents)))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RowNormalizedForm) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

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
        return frozen_array(uniq), frozen_array(np.asarray(inv).reshape(-1))


@dataclass(frozen=True, eq=False)
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
    #: the metric's distance-index matrix as read when the form was built (read-only for good)
    distance_index: np.ndarray = field(init=False, repr=False)
    #: the metric's distinct distances as read when the form was built
    distance_values: tuple[Any, ...] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "z", tuple(self.z))
        object.__setattr__(self, "positive", tuple(int(k) for k in self.positive))
        # the distances are read once, into immutable storage: editing the metric's arrays
        # later changes neither the form's entries nor what it applies to
        object.__setattr__(self, "distance_index", frozen_array(self.metric.index))
        object.__setattr__(self, "distance_values", tuple(self.metric.values))

    def _key(self) -> tuple[Any, ...]:
        return (_array_key(self.distance_index), self.distance_values,
                self.eps, self.z, self.positive)

    def __reduce__(self) -> tuple[Any, ...]:
        # the metric travels as its points and distances (a library metric may hold a lazy,
        # unpicklable index builder); that is all the form reads of it
        plain = FiniteMetric(self.metric.name, self.metric.points, self.distance_values,
                             np.array(self.distance_index))
        return (TightForm, (plain, self.eps, self.z, self.positive))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TightForm) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def applies_to(self, metric: FiniteMetric) -> bool:
        """True when ``metric`` is the construction's metric (same points, same distances)."""
        return (metric.n == self.distance_index.shape[0]
                and bool(np.array_equal(metric.index, self.distance_index))
                and tuple(metric.values) == self.distance_values)


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
    vals = [(-eps_b * v.ball()).exp() for v in form.distance_values]
    n = form.distance_index.shape[0]
    arr = np.empty((n, n), dtype=object)
    for i, row in enumerate(form.distance_index.tolist()):
        arr[i, :] = [vals[k] * zb[j] for j, k in enumerate(row)]
    return arr


@dataclass(frozen=True)
class MergedMonomialForm:
    """h[y, j] = Σ_{z ∈ groups[j]} c_z·s^{E[y, z]}: the columns of a monomial form, merged.

    Attributes
    ----------
    base : MonomialForm
        The monomial form of G (rows = this mechanism's inputs, columns = G's outputs).
    groups : tuple[tuple[int, ...], ...]
        For each output j of this mechanism, the columns of G merged into it (disjoint,
        covering every column of G).
    """

    base: MonomialForm
    groups: tuple[tuple[int, ...], ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "groups", tuple(tuple(int(z) for z in g) for g in self.groups))


def _merged_factors(form: MergedMonomialForm, exact: bool) -> list[Any] | None:
    """c_z as fmpq (``exact``) or balls; None when some c_z is not (certified) ≥ 0, or not
    rational when ``exact``."""
    base = form.base
    out: list[Any] = []
    for k in range(len(base.column_factors)):
        c = base.column_value(k)
        if exact:
            if isinstance(c, Enclosure):
                if c.lo != c.hi or c.lo < 0:
                    return None
                out.append(to_fmpq(c.lo))
                continue
            c = sympy.sympify(c)
            if not isinstance(c, sympy.Rational) or c < 0:
                return None
            out.append(to_fmpq(to_fraction(c)))
        else:
            b = (arb_from_fraction(c.lo).union(arb_from_fraction(c.hi))
                 if isinstance(c, Enclosure) else sympy_to_arb(c))
            if not b >= 0:
                return None
            out.append(b)
    return out


def _merged_values(form: MergedMonomialForm, exact: bool) -> np.ndarray | None:
    """h[y, j] = Σ_{z ∈ g_j} c_z s^{E[y,z]}: exact fmpq (s rational) or balls; None when the
    form's hypotheses fail (c_z < 0, overlapping groups, or no exact value)."""
    base = form.base
    E = base.exponents
    seen: set[int] = set()
    for g in form.groups:
        if seen.intersection(g) or any(not 0 <= z < E.shape[1] for z in g):
            return None
        seen.update(g)
    cs = _merged_factors(form, exact)
    if cs is None:
        return None
    if exact:
        s_rat = base.s_rational
        if s_rat is None:
            return None
        s: Any = to_fmpq(s_rat)
        zero: Any = flint.fmpq(0)
    else:
        s, zero = sympy_to_arb(base.s), arb(0)
    powers: dict[int, Any] = {}
    n = E.shape[0]
    arr = np.empty((n, len(form.groups)), dtype=object)
    for x in range(n):
        row = E[x].tolist()
        for j, g in enumerate(form.groups):
            total = zero
            for z in g:
                k = row[z]
                if k not in powers:
                    powers[k] = s ** k
                total = total + cs[z] * powers[k]
            arr[x, j] = total
    return arr


def form_entries(form: TightForm | MergedMonomialForm | RowNormalizedForm | MonomialForm,
                 exact: bool) -> np.ndarray | None:
    """The entries a structure form defines: exact ``fmpq`` (``exact``; merged form with s
    rational only) or balls at the current precision that enclose them. The library
    constructors build their entries with this function, and :func:`structure_matches`
    checks a mechanism's entries against it. None when the form has no such value.

    >>> from exactdp.spaces.metrics import line
    >>> G = MonomialForm(sympy.Rational(1, 2), np.array([[0, 1], [1, 0]]),
    ...                  (sympy.Rational(2, 3), sympy.Rational(2, 3)))
    >>> form_entries(MergedMonomialForm(G, ((0,), (1,))), exact=True)[0].tolist()
    [2/3, 1/3]
    """
    if isinstance(form, MonomialForm):
        form = MergedMonomialForm(form, tuple((z,) for z in range(form.exponents.shape[1])))
    if isinstance(form, TightForm):
        return None if exact else tight_balls(form)
    if isinstance(form, RowNormalizedForm):
        return _rownorm_values(form, exact)
    return _merged_values(form, exact)


def _rownorm_values(form: RowNormalizedForm, exact: bool) -> np.ndarray | None:
    """h[y, z] = s^{E[y,z]}/Σ_z' s^{E[y,z']}: exact ``fmpq`` (s rational) or balls; None when
    ``exact`` and s is irrational."""
    s: Any
    zero: Any
    if exact:
        s_rat = form.s_rational
        if s_rat is None:
            return None
        s, zero = to_fmpq(s_rat), flint.fmpq(0)
    else:
        s, zero = sympy_to_arb(form.s), arb(0)
    E = form.exponents
    powers: dict[int, Any] = {}
    arr = np.empty(E.shape, dtype=object)
    for y, row in enumerate(E.tolist()):
        for k in row:
            if k not in powers:
                powers[k] = s ** k
        w = [powers[k] for k in row]
        total = zero
        for v in w:
            total = total + v
        arr[y, :] = [v / total for v in w]
    return arr


def form_values(form: Any, prec: int = CERTIFIED_PREC) -> tuple[np.ndarray, bool] | None:
    """The entries a form defines and whether they are exact: exact ``fmpq`` when the form's
    values are rational, else balls computed at ``prec`` bits that contain them. None when the
    form's hypotheses fail (a factor not certified ≥ 0, overlapping groups).

    This is how :meth:`~exactdp.spaces.mechanism.Mechanism.from_form` builds the entries of a
    mechanism whose form is then *in force*: its entries are the form's by construction.

    >>> arr, exact = form_values(RowNormalizedForm(sympy.Rational(1, 2), np.array([[0, 1]])))
    >>> exact, arr.tolist()
    (True, [[2/3, 1/3]])
    """
    if isinstance(form, MonomialForm):
        return monomial_entries(form, prec)
    if not isinstance(form, (TightForm, MergedMonomialForm, RowNormalizedForm)):
        return None
    exact = form_entries(form, exact=True)
    if exact is not None:
        return exact, True
    with workprec(prec):
        balls = form_entries(form, exact=False)
    return None if balls is None else (balls, False)
