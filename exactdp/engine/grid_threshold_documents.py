"""The writer of ``grid-threshold`` documents (the matrix-free grid threshold certificate).

Not part of the trusted base: a wrong writer yields a document the kernel rejects. The
reader and the check are :mod:`exactdp.kernel.threshold_grid`; the schema is
``docs/readme/certificate_schema.md``.

>>> from fractions import Fraction as F
>>> from exactdp.arithmetic.interval import Enclosure
>>> from exactdp.kernel.jsonio import dumps, loads
>>> from exactdp.kernel.threshold_grid import GridThresholdClaim, read_grid_threshold
>>> from exactdp.spaces.metrics.masked import GridShape
>>> c = GridThresholdClaim(GridShape(3, 2, "euclidean", F(1)), (F(1),) * 6,
...                        Enclosure(F(1, 2), F(1)), (0, F(-1, 10), F(1, 8)), F(1, 10), 3,
...                        ((F(1), F(2), F(1, 8)),))
>>> doc = write_grid_threshold(c)
>>> doc["kind"], doc["question"]["rhs"], doc["evidence"]["fail"]
('grid-threshold', 'ones', {'index': 0, 'upper': '-1/10', 'lam': '1/8'})
>>> read_grid_threshold(loads(dumps(doc))) == c
True
"""

from __future__ import annotations

from typing import Any

from exactdp.engine.grid_documents import write_grid_shape
from exactdp.kernel.jsonio import envelope, write_enclosure, write_rational
from exactdp.kernel.question import Property
from exactdp.kernel.threshold_grid import GRID_THRESHOLD, GridThresholdClaim, require_grid_work
from exactdp.kinds import Verdict

__all__ = ["write_grid_threshold"]


def write_grid_threshold(c: GridThresholdClaim) -> dict[str, Any]:
    """The claim as a document: question {metric: the shape, property, rhs, every ε > 0};
    claim {verdict: holds, eps}; evidence {fail {index, upper, lam}, t0, order, pieces}.
    InstanceTooLarge over the kernel's work limit
    (:func:`~exactdp.kernel.threshold_grid.require_grid_work`)."""
    require_grid_work(c.shape, len(c.pieces), int(c.order))
    ones = all(v == 1 for v in c.rhs)
    question = {"metric": write_grid_shape(c.shape),
                "property": (Property.THRESHOLD_TIGHT if ones else Property.THRESHOLD_REGULAR).value,
                "rhs": "ones" if ones else [write_rational(v, "rhs") for v in c.rhs],
                "level": {"eps_range": {"lo": "0", "hi": None}}}
    index, upper, lam = c.fail
    evidence = {"fail": {"index": int(index), "upper": write_rational(upper, "upper"),
                         "lam": write_rational(lam, "lam")},
                "t0": write_rational(c.t0, "t0"), "order": int(c.order),
                "pieces": [{"lo": write_rational(a, "piece lo"), "hi": write_rational(b, "piece hi"),
                            "lam": write_rational(lam, "piece lam")} for a, b, lam in c.pieces]}
    return envelope(GRID_THRESHOLD, question,
                    {"verdict": Verdict.HOLDS.value, "eps": write_enclosure(c.eps)}, evidence)
