"""The ``set-privacy`` kernel document of an exact set-privacy verdict (writer and question
reader) and the ``set-capacity`` document of a capacity functional; the kernel's check is
:mod:`exactdp.kernel.sets`, schema in docs/readme/certificate_schema.md. (The
``set-hausdorff`` / ``set-diameter`` writers are the results' own ``to_document``.)"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import sympy

from exactdp.arithmetic.interval import Enclosure
from exactdp.arithmetic.rationals import to_fraction
from exactdp.errors import InvalidArgument
from exactdp.kernel.jsonio import envelope, read_object, read_rational, write_enclosure, write_rational
from exactdp.kernel.question import read_level, write_level
from exactdp.kernel.sets import SET_CAPACITY, SET_PRIVACY, capacity_work, exponent_check, write_exp_poly
from exactdp.sets._boxes import Box
from exactdp.sets._exppoly import ExpPoly
from exactdp.sets._points import PointSet
from exactdp.spaces.levels import PrivacyLevel

__all__ = ["write_set_privacy", "set_privacy_question", "write_capacity", "capacity_limits"]


def _rational(value: sympy.Expr, name: str) -> Fraction:
    if not isinstance(value, sympy.Rational):
        raise InvalidArgument(f"{name} = {value} is not rational; a set-privacy document needs "
                              "norm='l1' or 'linf' (rational distances).")
    return to_fraction(value, name)


def write_set_privacy(X: PointSet, Y: PointSet, K: tuple[Box, ...], level: PrivacyLevel,
                      norm: str, bound: str, holds: bool, T_X: ExpPoly, T_Y: ExpPoly,
                      d_H: sympy.Expr, diam_K: sympy.Expr) -> dict[str, Any]:
    """The document (InvalidArgument for an ℓ2 norm or a callable bound, InstanceTooLarge
    beyond the limits the kernel reads — MAX_POINTS points or boxes, MAX_DIM, MAX_WORK,
    MAX_TERMS, all checked by the kernel's own ``capacity_work``: such a verdict has no
    portable form)."""
    if norm not in ("l1", "linf") or bound not in ("paper", "hausdorff", "points", "points_sharp"):
        raise InvalidArgument(f"Got norm={norm!r}, bound={bound!r}; a set-privacy document "
                              "needs norm 'l1' or 'linf' and a named bound (not a callable).")
    capacity_work([(b.lower, b.upper) for b in K], list(X.points), list(Y.points))
    question = {"X": X.to_json(), "Y": Y.to_json(), "K": [b.to_json() for b in K],
                "norm": norm, "bound": bound, "level": write_level(level)}
    claim = {"verdict": "holds" if holds else "fails", "T_X": write_exp_poly(T_X.terms),
             "T_Y": write_exp_poly(T_Y.terms), "d_H": write_rational(_rational(d_H, "d_H")),
             "diam_K": write_rational(_rational(diam_K, "diam K"))}
    return envelope(SET_PRIVACY, question, claim, {})


def set_privacy_question(doc: dict[str, Any]) -> dict[str, Any]:
    """The arguments of :func:`~exactdp.sets.check_set_privacy` a document asks about."""
    q = read_object(doc["question"], "question", ("X", "Y", "K", "norm", "bound", "level"))

    def pts(v: Any) -> list[tuple[Fraction, ...]]:
        return [tuple(read_rational(c, "point") for c in p) for p in v]

    return {"X": pts(q["X"]), "Y": pts(q["Y"]), "eps": read_level(q["level"]),
            "K": [Box(*pts([b["lower"], b["upper"]])) for b in q["K"]],
            "norm": q["norm"], "bound": q["bound"]}


def capacity_limits(X: PointSet, K: tuple[Box, ...], level: PrivacyLevel, T: ExpPoly) -> None:
    """InstanceTooLarge where the kernel refuses a ``set-capacity`` document, by its own
    estimates: ``capacity_work`` (MAX_POINTS, MAX_DIM, MAX_WORK, MAX_TERMS) and
    ``exponent_check`` (|ε·r| ≥ MAX_EXPONENT for an exponent r of T or of the enclosure's 0)."""
    capacity_work([(b.lower, b.upper) for b in K], list(X.points))
    exponent_check([Fraction(0), *T.terms], level)


def write_capacity(X: PointSet, K: tuple[Box, ...], level: PrivacyLevel, T: ExpPoly,
                   enclosure: Enclosure) -> dict[str, Any]:
    """The ``set-capacity`` document: T = T_{M(X)}(K) for every ε, and its value at ``level``
    within ``enclosure`` (InstanceTooLarge beyond the kernel's limits, checked by its own
    ``capacity_work`` before anything else)."""
    capacity_limits(X, K, level, T)
    question = {"X": X.to_json(), "K": [b.to_json() for b in K], "level": write_level(level)}
    claim = {"T": write_exp_poly(T.terms), "enclosure": write_enclosure(enclosure, "claim.enclosure")}
    return envelope(SET_CAPACITY, question, claim, {})
