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
values e^{-ε d}·z are transcendental). Balls cannot prove a form: containment only shows the
form is compatible with them, and forms whose values differ below the radii fit as well. So a
form on balls is in force only when the balls were computed from it by
:meth:`~exactdp.mechanisms.mechanism.Mechanism.from_form` (what every library constructor
does; :attr:`~exactdp.mechanisms.mechanism.Mechanism.form_sealed`), and every ball must
still contain the ball of the form's value. Otherwise the level is enclosed from the balls.
The level routes and ``verify()`` both check.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, cast

import flint  # noqa: F401  (doctests)
import numpy as np
import sympy  # noqa: F401  (doctests)
from flint import arb

from exactdp.arithmetic.ball import workprec
from exactdp.arithmetic.interval import Enclosure
from exactdp.mechanisms.level_compare import compare_kappa, monomial_value
from exactdp.mechanisms.mechanism import Mechanism, MechanismKind, MonomialForm, RowNormalizedForm
from exactdp.spaces.mechanism_forms import MergedMonomialForm, TightForm, form_entries

__all__ = ["TightForm", "MergedMonomialForm", "MonomialForm", "form_entries", "structure_matches",
           "monomial_matches", "rownorm_matches",
           "verify_tight_claim", "verify_merged_claim"]


def structure_matches(mech: Mechanism) -> bool:
    """True when every entry of ``mech`` is provably the value its structure form defines.

    Exact mechanisms: every entry equals the form's exact value (a tight-constraints form,
    whose values e^{-ε d}·z are transcendental, never matches exact entries). Certified
    mechanisms: the balls were computed from this form by ``Mechanism.from_form`` (the form
    is their definition), and every entry ball contains the ball that encloses the form's
    value (at the mechanism's precision, then at 2× and 4×).
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
    # Balls: containment shows the form is *compatible* with the entries, not that it *is*
    # them (any form whose values differ below the radii fits as well). A form on balls is
    # in force only when the library computed the balls from that very form
    # (Mechanism.from_form); the containment re-check below is then a consistency check.
    if not mech.form_sealed:
        return False
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
