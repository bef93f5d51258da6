"""The ε-independent part of the Taylor tables, computed once per metric: d², d and (−d)^j/j!.

Every Taylor piece of the certified cover (:mod:`exactdp.threshold.taylor`) encloses
Φ_j = (−d)^j e^{−cd}/j! for each distinct distance d at its own centre c. Only e^{−cd}
depends on the piece: the exact square d² (for the far-entry cut), the ball of d and the
balls of (−d)^j/j! are the same for every piece, so they are computed once and kept for the
last list of values seen (balls at the working precision of the caller; a cache hit needs
the same values, order, precision and order J). Pure caching: the balls are the ones a
fresh computation at that precision gives, so every enclosure stays outward.

Examples
--------
>>> from exactdp.spaces.metrics import line
>>> from exactdp.arithmetic.ball import workprec
>>> with workprec(80):
...     vp = value_powers(list(line(3).values), 2)
...     rows = [vp.row(i)[1][2] for i in range(3)]
>>> [str(s) for s in vp.squares], [float(p.mid()) for p in rows]   # (−d)²/2! at d = 0, 1, 2
(['0', '1', '4'], [0.0, 0.5, 2.0])
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from flint import arb, ctx

__all__ = ["ValuePowers", "value_powers", "MAX_CACHED_VALUES"]

#: metrics with more distinct distances than this are not kept between calls (memory)
MAX_CACHED_VALUES = 20_000

_LAST: list[Any] = []  # [values tuple, J, prec, ValuePowers] of the last call


class ValuePowers:
    """Exact squares of every value; the balls (d, [(−d)^j/j! for j ≤ J]) of value i on first
    use (far values, cut by their square, never need them)."""

    def __init__(self, vals: tuple[Any, ...], J: int) -> None:
        self.vals, self.J = vals, J
        self.squares: list[Fraction] = [v.square for v in vals]
        self._rows: dict[int, tuple[Any, list[Any]]] = {}
        self._fact = [arb(math.factorial(j)) for j in range(J + 1)]

    def row(self, i: int) -> tuple[Any, list[Any]]:
        """(ball of d, [(−d)^j/j! for j ≤ J]) of value i."""
        got = self._rows.get(i)
        if got is None:
            d = self.vals[i].ball()
            p, pw = arb(1), []
            for f in self._fact:
                pw.append(p / f)
                p = p * (-d)
            got = self._rows[i] = (d, pw)
        return got


def value_powers(values: list[Any], J: int) -> ValuePowers:
    """The :class:`ValuePowers` of ``values`` at the current precision (the last one is kept)."""
    prec = ctx.prec
    vals = tuple(values)
    if (_LAST and _LAST[1] == J and _LAST[2] == prec and len(_LAST[0]) == len(vals)
            and all(u is v for u, v in zip(_LAST[0], vals))):
        return _LAST[3]  # type: ignore[no-any-return]
    out = ValuePowers(vals, J)
    _LAST[:] = [vals, J, prec, out] if len(vals) <= MAX_CACHED_VALUES else []
    return out
