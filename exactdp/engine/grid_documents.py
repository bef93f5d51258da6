"""Document WRITERS for the exact one-ε grid certificate (kind ``grid-point-exact``), and
the grid shape of every grid document (``question.metric``).

Writers are not part of the trusted base (a wrong writer yields a document the kernel
rejects), so they live outside :mod:`exactdp.kernel`; the reader and check are
:mod:`exactdp.kernel.grid_point_exact`. The question and claim parts are those of
``grid-point`` documents (``docs/readme/certificate_schema.md``).

>>> from fractions import Fraction
>>> from exactdp.kernel.grid_point_exact import GridPointExactClaim, read_grid_point_exact
>>> from exactdp.spaces.levels import parse_level
>>> from exactdp.spaces.metrics.masked import GridShape
>>> c = GridPointExactClaim(GridShape(2, 1, "manhattan", Fraction(1)), parse_level(t="1/2"),
...                         (Fraction(1), Fraction(1)), True, None, (2, 2), 3)
>>> doc = write_grid_point_exact(c)
>>> doc["kind"], doc["evidence"]
('grid-point-exact', {'denominator': '3', 'numerators': ['2', '2']})
>>> read_grid_point_exact(doc) == c
True
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from exactdp.errors import InvalidArgument
from exactdp.kernel.grid_point_exact import (
    GRID_POINT_EXACT,
    GridPointExactClaim,
    exact_unit_t,
    require_exact_work,
)
from exactdp.kernel.jsonio import envelope, write_rational, write_verdict
from exactdp.kernel.question import ONES, Property, linear_property, write_level
from exactdp.kinds import Verdict
from exactdp.spaces.levels import PrivacyLevel
from exactdp.spaces.metrics.masked import GridShape

__all__ = ["grid_question", "write_grid_point_exact", "write_grid_shape"]


def write_grid_shape(sh: GridShape) -> dict[str, Any]:
    """``question.metric`` of a grid document: the shape, never n² distances (read back by
    :func:`~exactdp.kernel.grid_point.read_grid_shape`).

    >>> write_grid_shape(GridShape(2, 2, "euclidean", Fraction(1, 2), (0, 3)))["mask"]
    ['10', '01']
    """
    return {"encoding": "grid", "width": sh.width, "height": sh.height, "norm": sh.norm,
            "spacing": write_rational(sh.spacing, "spacing"), "mask": sh.mask_rows()}


def grid_question(shape: GridShape, rhs: tuple[Fraction, ...],
                  level: PrivacyLevel) -> dict[str, Any]:
    """``question`` of a one-ε grid document: the shape (never n² distances), the property
    fitting b (``tight-constraints`` with ``"ones"`` for b = 1), b and the level."""
    prop = linear_property(rhs)
    return {"metric": write_grid_shape(shape), "property": prop.value,
            "rhs": ONES if prop is Property.TIGHT_CONSTRAINTS
            else [write_rational(v, "rhs") for v in rhs],
            "level": write_level(level)}


def write_grid_point_exact(c: GridPointExactClaim) -> dict[str, Any]:
    """A ``grid-point-exact`` document: z = numerators/denominator as decimal integer
    strings (one common denominator, never n² data). Refuses (InstanceTooLarge) what the
    kernel would refuse, and (InvalidArgument) a question this kind does not apply to."""
    unit = exact_unit_t(c.shape, c.level)
    if unit is None:
        raise InvalidArgument(f"{c.shape.width}×{c.shape.height} {c.shape.norm} grid at "
                              f"{c.level}: e^(-ε·spacing) is not rational on rational "
                              "distances; write a 'grid-point' document instead.")
    require_exact_work(c.shape, unit, max(abs(int(x)) for x in c.numerators).bit_length())
    claim = {"verdict": write_verdict(Verdict.from_bool(bool(c.holds))), "witness": c.witness}
    evidence = {"denominator": write_rational(int(c.denominator), "denominator"),
                "numerators": [write_rational(int(x), "numerator") for x in c.numerators]}
    return envelope(GRID_POINT_EXACT, grid_question(c.shape, c.rhs, c.level), claim, evidence)
