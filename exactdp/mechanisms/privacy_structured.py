"""Privacy-level routes for built mechanisms with exact structure (:mod:`~exactdp.mechanisms.structure`).

* :func:`level_tight` — the tight-constraints mechanism h = e^{-ε d}·z of its own metric: the
  level is exactly the construction's ε, witness (a, b, a) for an output a with z_a > 0;
* :func:`level_merged` — merged monomial columns (rectangular/offset geometric): the upper bound
  of the monomial form G, met by a group whose exponent difference is uniform; None when the
  two do not meet (the caller then encloses the level from the entries).

Both rest on proofs/mech_tight_level.py. A form is used only when the mechanism's entries
are provably the form's values (:func:`~exactdp.mechanisms.structure.structure_matches`:
exact equality for exact entries; for balls, the balls were computed from the form by
``Mechanism.from_form``); otherwise both routes
return None and the level is read from the entries.
"""

from __future__ import annotations

import weakref
from fractions import Fraction

import numpy as np

from exactdp.kinds import proved_by
from exactdp.mechanisms.level_compare import compare_kappa, monomial_value
from exactdp.mechanisms.mechanism import Mechanism
from exactdp.mechanisms.privacy_result import PrivacyLevelResult, enclose_value, zero_level
from exactdp.mechanisms.structure import (
    MergedMonomialForm,
    TightForm,
    monomial_matches,
    rownorm_matches,
    structure_matches,
)
from exactdp.spaces.distances import Distance
from exactdp.spaces.metrics import FiniteMetric

__all__ = ["level_tight", "level_merged", "tight_witness", "form_in_force"]

#: check results per live mechanism (keyed by identity: a Mechanism, its entries and its
#: forms are immutable — every array is read-only for good — so a result cannot go stale)
_CHECKED: dict[int, dict[str, bool]] = {}


def form_in_force(mech: Mechanism, which: str = "structure") -> bool:
    """True when ``mech``'s structure form (``which="structure"``), monomial form
    (``"monomial"``) or row-normalized form (``"row-normalized"``) describes its entries;
    checked once per mechanism object (it is immutable, arrays included)."""
    key = id(mech)
    done = _CHECKED.get(key)
    if done is None:
        done = _CHECKED[key] = {}
        weakref.finalize(mech, _CHECKED.pop, key, None)
    if which not in done:
        done[which] = (structure_matches(mech) if which == "structure"
                       else rownorm_matches(mech) if which == "row-normalized"
                       else monomial_matches(mech))
    return done[which]


def tight_witness(form: TightForm, metric: FiniteMetric) -> tuple[int, int, int] | None:
    """(a, b, a): a checked pair (a, b) with z_a certified > 0 (None when there is none)."""
    positive = set(form.positive)
    for a, b in metric.check_edges():
        if a in positive:
            return (a, b, a)
        if b in positive:
            return (b, a, b)
    return None


@proved_by("mech_tight_level")
def level_tight(
    mech: Mechanism, metric: FiniteMetric, I: np.ndarray, J: np.ndarray
) -> PrivacyLevelResult | None:
    """Exact level ε of a tight-constraints mechanism on its own metric (None: not applicable).

    h[a,z]/h[b,z] = e^{ε(d(b,z) − d(a,z))} ≤ e^{ε d(a,b)} (triangle inequality), with equality
    at z = a: a checked pair (a, b) with z_a > 0 attains ε (proofs/mech_tight_level.py).
    """
    form = mech.structure
    if not isinstance(form, TightForm) or not form.applies_to(metric) or not form_in_force(mech):
        return None
    npairs = len(I)
    w = tight_witness(form, metric)
    if w is None:
        if npairs == 0:
            return zero_level(mech, metric, npairs, "tight")
        return None  # no positive output on a checked pair: let the entries decide
    a, b, _ = w
    value = form.eps
    return PrivacyLevelResult(
        value=value, enclosure=enclose_value(value), witness=w, ratio=None,
        distance=metric.distance(a, b), method="tight", pairs_checked=npairs,
        _mechanism=mech, _metric=metric,
    )


def _best_kappa(
    E: np.ndarray, groups: list[np.ndarray], metric: FiniteMetric, A: np.ndarray, B: np.ndarray
) -> tuple[tuple[Fraction, Distance, int, int, int] | None,
           tuple[Fraction, Distance, int, int, int] | None]:
    """(upper, uniform): the largest κ/d over all columns, and over uniform groups."""
    order = np.concatenate(groups)
    starts = np.cumsum([0] + [len(g) for g in groups[:-1]])
    vidx = metric.index[A, B]
    upper: tuple[Fraction, Distance, int, int, int] | None = None
    uniform: tuple[Fraction, Distance, int, int, int] | None = None
    for v in np.unique(vidx).tolist():
        sel = np.nonzero(vidx == v)[0]
        d = metric.values[int(v)]
        diff = E[B[sel]][:, order] - E[A[sel]][:, order]  # κ of h[a,·]/h[b,·] = s^{-κ}
        r, c = divmod(int(np.argmax(diff)), diff.shape[1])
        k_up = Fraction(max(int(diff[r, c]), 0))
        if upper is None or compare_kappa(k_up, d, upper[0], upper[1]) > 0:
            upper = (k_up, d, int(A[sel[r]]), int(B[sel[r]]), -1)
        gmax = np.maximum.reduceat(diff, starts, axis=1)
        gmin = np.minimum.reduceat(diff, starts, axis=1)
        val = np.where(gmax == gmin, gmax, np.iinfo(np.int64).min)
        r, j = divmod(int(np.argmax(val)), val.shape[1])
        if gmax[r, j] != gmin[r, j] or val[r, j] < 0:
            continue
        k_un = Fraction(int(val[r, j]))
        if uniform is None or compare_kappa(k_un, d, uniform[0], uniform[1]) > 0:
            uniform = (k_un, d, int(A[sel[r]]), int(B[sel[r]]), j)
    return upper, uniform


@proved_by("mech_tight_level")
def level_merged(
    mech: Mechanism, metric: FiniteMetric, I: np.ndarray, J: np.ndarray
) -> PrivacyLevelResult | None:
    """Exact level of merged monomial columns when the upper and the uniform bound meet.

    Upper: h[a, j] = Σ_{z∈g_j} c_z s^{E[a,z]} ≤ s^{-κ*}·h[b, j] with κ* = max_z (E[b,z] − E[a,z])
    (post-processing). Lower: a group whose difference E[b,z] − E[a,z] = κ for all its
    produced columns has ratio exactly s^{-κ} (proofs/mech_tight_level.py). Returns None when
    no uniform group attains the upper bound.
    """
    form = mech.structure
    if not isinstance(form, MergedMonomialForm) or not form_in_force(mech):
        return None
    base = form.base
    active = ~base.zero_columns
    groups_all = [np.asarray([z for z in g if active[z]], dtype=np.int64) for g in form.groups]
    keep = [j for j, g in enumerate(groups_all) if len(g)]
    A = np.concatenate([I, J])
    B = np.concatenate([J, I])
    npairs = len(I)
    if len(A) == 0 or not keep:
        return zero_level(mech, metric, npairs, "merged-monomial")
    upper, uniform = _best_kappa(base.exponents, [groups_all[j] for j in keep], metric, A, B)
    assert upper is not None
    if upper[0] == 0:
        return zero_level(mech, metric, npairs, "merged-monomial")
    if uniform is None or compare_kappa(uniform[0], uniform[1], upper[0], upper[1]) != 0:
        return None
    kappa, d, a, b, j = uniform
    value = monomial_value(base.s, kappa, d)
    s_rat = base.s_rational
    return PrivacyLevelResult(
        value=value, enclosure=enclose_value(value), witness=(a, b, keep[j]),
        ratio=None if s_rat is None else s_rat ** (-int(kappa)), distance=d,
        method="merged-monomial", pairs_checked=npairs, _mechanism=mech, _metric=metric,
    )
