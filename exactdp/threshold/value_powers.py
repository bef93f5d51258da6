"""The ε-independent part of the Taylor tables, computed once per metric: d², d and (−d)^j/j!.

Every Taylor piece of the certified cover (:mod:`exactdp.threshold.taylor`) encloses
Φ_j = (−d)^j e^{−cd}/j! for each distinct distance d at its own centre c. Only e^{−cd}
depends on the piece: the exact square d² (for the far-entry cut), the ball of d and the
balls of (−d)^j/j! are the same for every piece, so they are computed once and kept for the
last list of values seen (balls at the working precision of the caller; a cache hit needs
the same values, order, precision and order J). Pure caching: the balls are the ones a
fresh computation at that precision gives, so every enclosure stays outward.

Far values (below 2^-100 in every table) need no ball: :meth:`ValuePowers.near` lists the
values whose square is below a cut, from float squares where the rounding cannot change the
answer and by exact comparison of the squares elsewhere (the floats only sort; the
argument is checked in ``proofs/value_square_cut.py``). The tables of the last few pieces
are kept too (:meth:`ValuePowers.tables`), so the fail point and the precision escalation
never rebuild the same integer tables.

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
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np
from flint import arb, ctx

from exactdp.kinds import proved_by

__all__ = ["ValuePowers", "value_powers", "MAX_CACHED_VALUES"]

#: metrics with more distinct distances than this are not kept between calls (memory: the
#: squares and their floats; balls only for the near values, ≈ 10⁴ on a 1000×1000 grid)
MAX_CACHED_VALUES = 2_000_000

_LAST: list[Any] = []  # [values tuple, J, prec, ValuePowers] of the last call
_PREV: list[Any] = []  # the call before, when its order J differed (fail point J = 1, cover J = 4)
_KEEP_TABLES = 3       # integer tables kept per ValuePowers (the last pieces' centres)


class ValuePowers:
    """Exact squares of every value; the balls (d, [(−d)^j/j! for j ≤ J]) of value i on first
    use (far values, cut by their square, never need them)."""

    def __init__(self, vals: tuple[Any, ...], J: int, base: ValuePowers | None = None) -> None:
        self.vals, self.J = vals, J
        self.squares: list[Fraction] = base.squares if base else [v.square for v in vals]
        self._fsq: np.ndarray | None = base._fsq if base else None
        self._rows: dict[int, tuple[Any, list[Any]]] = {}
        self._fact = [arb(math.factorial(j)) for j in range(J + 1)]
        self._tables: list[tuple[Any, Any]] = []

    @proved_by("value_square_cut")
    def near(self, far: Fraction | None) -> list[int]:
        """The indices i with squares[i] < ``far`` (all when ``far`` is None), increasing.

        Floats decide only where their rounding cannot (``proofs/value_square_cut.py``):
        with f = fl(far) ≥ 2^-900 normal, fl(d²) < f(1 − 2^-40) implies d² < far and
        fl(d²) > f(1 + 2^-40) implies d² > far; the values in between are compared exactly.

        >>> from exactdp.spaces.metrics import line
        >>> ValuePowers(tuple(line(5).values), 1).near(Fraction(9))      # d = 0, 1, 2
        [0, 1, 2]
        """
        n = len(self.squares)
        if far is None:
            return list(range(n))
        ff = float(far) if far < 2**1000 else math.inf
        if self._fsq is None:
            try:
                self._fsq = np.array([float(q) for q in self.squares], dtype=np.float64)
            except OverflowError:  # a square above the float range: exact comparisons only
                self._fsq = np.full(n, np.nan)
        if not (2.0**-900 <= ff < math.inf) or np.isnan(self._fsq).any():
            return [i for i, q in enumerate(self.squares) if q < far]
        lo, hi = ff * (1 - 2.0**-40), ff * (1 + 2.0**-40)
        sure = np.flatnonzero(self._fsq < lo).tolist()
        edge = [i for i in np.flatnonzero((self._fsq >= lo) & (self._fsq <= hi)).tolist()
                if self.squares[i] < far]
        return sorted(sure + edge)

    def tables(self, key: Any, build: Callable[[], Any]) -> Any:
        """The tables stored under ``key`` (``build()`` on a miss; the last few are kept)."""
        for k, t in self._tables:
            if k == key:
                return t
        t = build()
        self._tables = [(key, t)] + self._tables[: _KEEP_TABLES - 1]
        return t

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
    same = [c for c in (_LAST, _PREV) if c and c[2] == prec and len(c[0]) == len(vals)
            and all(u is v for u, v in zip(c[0], vals))]
    for c in same:
        if c[1] == J:
            if c is _PREV:
                _LAST[:], _PREV[:] = list(_PREV), list(_LAST)
            return _LAST[3]  # type: ignore[no-any-return]
    out = ValuePowers(vals, J, same[0][3] if same else None)
    if len(vals) > MAX_CACHED_VALUES:
        _LAST[:], _PREV[:] = [], []
    else:
        _PREV[:] = list(_LAST)
        _LAST[:] = [vals, J, prec, out]
    return out
