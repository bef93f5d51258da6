"""Exact structures that keep a built mechanism's privacy level exact at its own boundary.

A mechanism the library builds knows why it is private; these forms carry that knowledge so
that :func:`~exactdp.mechanisms.privacy.privacy_level` returns the exact level even when the
entries are only certified balls (e^{-ε d} with irrational d, or ε rational):

* :class:`TightForm` — the tight-constraints mechanism h[y, z] = e^{-ε d(y, z)}·z_z of a
  metric d (any metric, irrational distances included). By the triangle inequality
  h[a,z]/h[b,z] = e^{ε(d(b,z) − d(a,z))} ≤ e^{ε d(a,b)}, with equality at z = a when z_a > 0:
  the level is exactly ε (proofs/mech_tight_level.py).
* :class:`MergedMonomialForm` — a monomial mechanism G (h = c_z s^{E}) followed by merging
  groups of its columns (post-processing): h[y, j] = Σ_{z ∈ groups[j]} c_z s^{E[y, z]}. The
  rectangular and offset geometric mechanisms (libqif's ``geometric(n_rows, ε, n_cols,
  first_x, first_y)``) have it. Its level is at most G's (post-processing) and at least the
  ratio s^{-κ} of any group whose exponent difference κ is the same for all its columns; when
  the two meet the level is exact (proofs/mech_tight_level.py).

A form is never trusted on its own. :func:`structure_matches` reads the entries: exact
entries must equal the form's exact values (a tight form never matches exact entries: its
values e^{-ε d}·z are transcendental), and every certified ball must contain the ball that
encloses the form's value. The library constructors build their entries with
:func:`form_entries`, so their mechanisms match; the level routes and ``verify()`` both check.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, cast

import flint
import numpy as np
import sympy
from flint import arb

from exactdp.arithmetic.ball import arb_from_fraction, sympy_to_arb, workprec
from exactdp.arithmetic.interval import Enclosure
from exactdp.arithmetic.rationals import to_fmpq, to_fraction
from exactdp.mechanisms.level_compare import compare_kappa, monomial_value
from exactdp.mechanisms.mechanism import Mechanism, MechanismKind, MonomialForm, RowNormalizedForm
from exactdp.spaces.mechanism_forms import TightForm, tight_balls

__all__ = ["TightForm", "MergedMonomialForm", "form_entries", "structure_matches",
           "monomial_matches", "rownorm_matches",
           "verify_tight_claim", "verify_merged_claim"]


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


def form_entries(form: TightForm | MergedMonomialForm | RowNormalizedForm,
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


def structure_matches(mech: Mechanism) -> bool:
    """True when every entry of ``mech`` is provably the value its structure form defines.

    Exact mechanisms: every entry equals the form's exact value (a tight-constraints form,
    whose values e^{-ε d}·z are transcendental, never matches exact entries). Certified
    mechanisms: every entry ball contains the ball that encloses the form's value (computed
    at the mechanism's precision, then at 2× and 4×), so the true entries are the form's.
    A form that does not match is never used: the level is then read from the entries.

    >>> G = MonomialForm(sympy.Rational(1, 2), np.array([[0, 1], [1, 0]]),
    ...                  (sympy.Rational(2, 3), sympy.Rational(2, 3)))
    >>> form = MergedMonomialForm(G, ((0,), (1,)))
    >>> def exact(rows):
    ...     return Mechanism(np.array([[flint.fmpq(*r) for r in row] for row in rows]),
    ...                      kind="exact", structure=form)
    >>> structure_matches(exact([[(2, 3), (1, 3)], [(1, 3), (2, 3)]]))
    True
    >>> structure_matches(exact([[(3, 4), (1, 4)], [(1, 4), (3, 4)]]))   # not the form's
    False
    """
    form = mech.structure
    if not isinstance(form, (TightForm, MergedMonomialForm)):
        return False
    return _entries_are(mech, form)


def monomial_matches(mech: Mechanism) -> bool:
    """True when every entry of ``mech`` is provably c_z·s^{E[y,z]} of its monomial form
    (the same checks as :func:`structure_matches`, one column per group)."""
    form = mech.monomial
    if form is None or form.exponents.shape != mech.shape:
        return False
    return _entries_are(mech, MergedMonomialForm(form, tuple((z,) for z in range(mech.n_outputs))))


def rownorm_matches(mech: Mechanism) -> bool:
    """True when every entry of ``mech`` is provably s^{E[y,z]}/S_y(s) of its row-normalized
    form (the checks of :func:`structure_matches`). A form that does not match is never used.

    >>> form = RowNormalizedForm(sympy.Rational(1, 2), np.array([[0, 1], [1, 0]]))
    >>> def exact(rows):
    ...     return Mechanism(np.array([[flint.fmpq(*r) for r in row] for row in rows]),
    ...                      kind="exact", row_normalized=form)
    >>> rownorm_matches(exact([[(2, 3), (1, 3)], [(1, 3), (2, 3)]]))
    True
    >>> rownorm_matches(exact([[(1, 1), (0, 1)], [(0, 1), (1, 1)]]))   # not the form's
    False
    """
    form = mech.row_normalized
    if form is None:
        return False
    return _entries_are(mech, form)


def _entries_are(mech: Mechanism, form: TightForm | MergedMonomialForm | RowNormalizedForm
                 ) -> bool:
    n, m = mech.shape
    if isinstance(form, TightForm):
        if form.metric.n != n or n != m:
            return False
    elif isinstance(form, RowNormalizedForm):
        if form.exponents.shape != (n, m):
            return False
    elif form.base.exponents.shape[0] != n or len(form.groups) != m:
        return False
    entries = mech.entries_object()
    if mech.kind is MechanismKind.EXACT:
        want = form_entries(form, exact=True)
        return want is not None and all(
            a == b for a, b in zip(want.ravel().tolist(), entries.ravel().tolist()))
    base = mech.precision or 128
    open_ = list(np.ndindex(n, m))
    for prec in (base, 2 * base, 4 * base):
        with workprec(prec):
            want = form_entries(form, exact=False)
            if want is None:
                return False
            still = []
            for idx in open_:
                e, w = cast(arb, entries[idx]), cast(arb, want[idx])
                if e.contains(w):
                    continue
                if not e.overlaps(w):
                    return False
                still.append(idx)
        open_ = still
        if not open_:
            return True
    return False


def _certified_nonneg(c: Any, strict: bool) -> bool:
    """c (a Fraction or an Enclosure) is certified ≥ 0 (> 0 when ``strict``)."""
    lo = c.lo if isinstance(c, Enclosure) else Fraction(c)
    return lo > 0 if strict else lo >= 0


def verify_tight_claim(res: Any) -> bool:
    """Re-check the hypotheses of the tight-constraints theorem (proofs/mech_tight_level.py):
    the form is the metric's, every z_z ≥ 0, the witness (a, b, a) is a checked pair with
    z_a > 0, and every entry ball contains the ball of e^{-ε d(y,z)}·z_z recomputed from the
    form (:func:`structure_matches`: the entries are read, never only the form)."""
    mech, metric = res._mechanism, res._metric
    form = mech.structure
    if not isinstance(form, TightForm) or not form.applies_to(metric):
        return False
    if res.value != form.eps or res.witness is None:
        return False
    a, b, z = res.witness
    edges = set(metric.check_edges())
    if z != a or ((a, b) not in edges and (b, a) not in edges):
        return False
    if res.distance != metric.distance(a, b) or not _certified_nonneg(form.z[a], True):
        return False
    if not all(_certified_nonneg(c, False) for c in form.z):
        return False
    # every entry is provably e^{-ε d}·z (certified containment; never for exact entries)
    return structure_matches(mech)


def verify_merged_claim(res: Any) -> bool:
    """The entries are the form's (:func:`structure_matches`); brute force over checked pairs:
    no column's κ/d exceeds the witness's, the witness's group has the same difference κ on
    every produced column, and the stored ratio is s^{-κ} (None when s is irrational)."""
    mech, metric = res._mechanism, res._metric
    form = mech.structure
    if not isinstance(form, MergedMonomialForm) or not structure_matches(mech):
        return False  # the entries are not the form's: the form proves nothing about them
    if res.witness is None:
        return res.value == 0 and res.ratio is None and all(
            int(form.base.exponents[x, z]) == int(form.base.exponents[y, z])
            for a, b in metric.check_edges() for x, y in ((a, b),)
            for z in range(form.base.exponents.shape[1]) if not form.base.zero_columns[z])
    E, active = form.base.exponents, ~form.base.zero_columns
    a0, b0, j0 = res.witness
    group = [z for z in form.groups[j0] if active[z]]
    diffs = {int(E[b0, z]) - int(E[a0, z]) for z in group}
    if len(diffs) != 1 or res.distance != metric.distance(a0, b0):
        return False
    kappa = Fraction(diffs.pop())
    if res.value != monomial_value(form.base.s, kappa, res.distance):
        return False
    s_rat = form.base.s_rational
    if res.ratio != (None if s_rat is None else s_rat ** (-int(kappa))):
        return False  # the stored ratio is bound to the claim: s^{-κ}, or None (s irrational)
    cols = np.nonzero(active)[0]
    for a, b in metric.check_edges():
        d = metric.distance(a, b)
        for x, y in ((a, b), (b, a)):
            top = int((E[y, cols] - E[x, cols]).max())
            if compare_kappa(Fraction(max(top, 0)), d, kappa, res.distance) > 0:
                return False
    return True
