"""Grids with a mask (a city's shape) and the exact shape record of every planar grid.

A masked grid keeps the cells of a W×H grid where ``mask[y][x]`` is true, in row-major
order (index by y, then x), with the same norm and spacing as :func:`grid`. Its Φ is the
principal submatrix of the full grid's Φ on the kept cells, so a product with it is the
full grid's product of the zero-padded vector, read back on the kept cells, and its λ_min
is at least the full grid's (Cauchy interlacing) — the matrix-free one-ε route
(:mod:`exactdp.engine.grid_point`) and the matrix-free threshold route
(:class:`exactdp.threshold.providers.GridProvider`) use both facts. Ball-size symmetry
(Prop. 9) is decided without the n×n index above 900 points (shifted masks).

:class:`GridShape` is the exact record (width, height, norm, spacing, kept cells) that a
grid certificate binds to; :func:`grid_shape` reads it from a library grid or masked grid,
never from a name or a params dict (those can be set by hand).

Examples
--------
>>> m = masked_grid(3, 2, "manhattan", mask=["110", "011"])
>>> m.n, m.points[2], m.distance(0, 3)
(4, (Fraction(1, 1), Fraction(1, 1)), Distance(coef=Fraction(3, 1), radicand=1))
>>> grid_shape(m).cells
(0, 1, 4, 5)
>>> masked_grid(2, 2, mask=[[1, 1], [1, 1]]).name    # nothing masked: the plain grid
'grid(2, 2, euclidean, spacing=1)'
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property, partial
from typing import Any

import numpy as np

from exactdp.arithmetic.rationals import to_fraction
from exactdp.errors import InvalidArgument, InvalidMetric
from exactdp.spaces.distances import Distance, grid_offset_distance
from exactdp.spaces.metrics.builtin import grid
from exactdp.spaces.metrics.claims import GRID_TRUSTED_TYPES
from exactdp.spaces.metrics.space import FiniteMetric

__all__ = ["GridShape", "MaskedGridMetric", "masked_grid", "grid_shape", "MASK_NORMS"]

#: Norms a masked grid accepts (as :func:`grid`).
MASK_NORMS = ("euclidean", "manhattan", "chebyshev")


@dataclass(frozen=True)
class GridShape:
    """A W×H planar grid (norm, spacing) and the cells kept (None: all of them).

    ``cells`` are flat indices y·W + x, increasing; point k of the metric is cell cells[k].
    """

    width: int
    height: int
    norm: str
    spacing: Fraction
    mask: tuple[int, ...] | None = None

    @property
    def cells(self) -> tuple[int, ...]:
        """The kept cells (all W·H when unmasked)."""
        return tuple(range(self.width * self.height)) if self.mask is None else self.mask

    @property
    def n(self) -> int:
        """Number of points."""
        return self.width * self.height if self.mask is None else len(self.mask)

    def mask_rows(self) -> list[str] | None:
        """The mask as H strings of '0'/'1' (row y, column x), None when unmasked.

        >>> GridShape(2, 2, "euclidean", Fraction(1), (0, 3)).mask_rows()
        ['10', '01']
        """
        if self.mask is None:
            return None
        keep = np.zeros(self.width * self.height, dtype=bool)
        keep[list(self.mask)] = True
        return ["".join("1" if k else "0" for k in keep[y * self.width:(y + 1) * self.width])
                for y in range(self.height)]


#: Up to this many points (the matrix-free size switch, ``exactdp.spaces.grid``) a masked
#: grid decides ball-size symmetry from the n×n index (as every metric); above, by shifted
#: copies of the mask (O(n) memory, no n×n table).
_BALL_INDEX_N = 900


class MaskedGridMetric(FiniteMetric):
    """A grid with cells removed; build it with :func:`masked_grid` (its shape holds by
    construction and the object is immutable, as every :class:`FiniteMetric`)."""

    shape: GridShape
    _offset_code: np.ndarray  # (W, H): index in ``values`` of the offset (dx, dy)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise InvalidMetric("build a masked grid with masked_grid(width, height, norm, "
                            "spacing, mask=...); its shape is established by the constructor.")

    @cached_property
    def ball_size_symmetric(self) -> bool:
        """True when every kept cell sees the same number of kept cells at each distance.

        Above 900 points without the n×n index: for each distance value in turn the
        count of kept cells at that distance is summed over shifted copies of the mask
        (exact integers, O(W·H) per offset), stopping at the first value whose count
        differs between two kept cells — on real masks the least distance already differs
        (the boundary has fewer neighbours), so this is O(n).

        >>> m = masked_grid(3, 3, mask=["101", "000", "101"])   # a square's corners
        >>> m.ball_size_symmetric, masked_grid(3, 3, mask=["110", "100", "000"]).ball_size_symmetric
        (True, False)
        """
        if self.n <= _BALL_INDEX_N:
            return bool(FiniteMetric.ball_size_symmetric.func(self))  # type: ignore[attr-defined]
        return _shifted_ball_symmetry(self.shape, self._offset_code)


GRID_TRUSTED_TYPES.add(MaskedGridMetric)  # no grid claim (None); immutable: a is b suffices


def _shifted_ball_symmetry(shape: GridShape, code: np.ndarray) -> bool:
    """Ball-size symmetry of the kept cells by shifted masks (see the property above)."""
    W, H = shape.width, shape.height
    flat = np.zeros(W * H, dtype=bool)
    flat[list(shape.cells)] = True
    keep = flat.reshape(H, W)
    k = keep.astype(np.int64)
    by_code: dict[int, list[tuple[int, int]]] = {}
    for dx in range(W):
        for dy in range(H):
            by_code.setdefault(int(code[dx, dy]), []).append((dx, dy))
    for c in sorted(by_code):
        cnt = np.zeros((H, W), dtype=np.int64)
        for dx, dy in by_code[c]:
            for sx in {dx, -dx}:
                for sy in {dy, -dy}:  # cnt[y, x] += keep[y + sy, x + sx] where inside
                    cnt[max(0, -sy):H - max(0, sy), max(0, -sx):W - max(0, sx)] += \
                        k[max(0, sy):H - max(0, -sy), max(0, sx):W - max(0, -sx)]
        seen = cnt[keep]
        if int(seen.min()) != int(seen.max()):
            return False
    return True


def _read_mask(mask: Any, width: int, height: int) -> np.ndarray:
    rows = list(mask) if not isinstance(mask, np.ndarray) else list(mask)
    if len(rows) != height:
        raise InvalidArgument(f"Got a mask of {len(rows)} rows; a {width}×{height} grid needs "
                              f"{height} rows (row y, column x) of {width} entries.")
    out = np.zeros((height, width), dtype=bool)
    for y, row in enumerate(rows):
        vals = list(row)
        if len(vals) != width:
            raise InvalidArgument(f"mask row {y} has {len(vals)} entries; pass {width}.")
        for x, v in enumerate(vals):
            if v in (True, 1, "1", "#") or (isinstance(v, np.bool_) and bool(v)):
                out[y, x] = True
            elif not (v in (False, 0, "0", ".") or (isinstance(v, np.bool_) and not bool(v))):
                raise InvalidArgument(f"mask[{y}][{x}] = {v!r}; use True/False, 1/0, "
                                      "'1'/'0' or '#'/'.'.")
    if not out.any():
        raise InvalidArgument("the mask keeps no cell; keep at least one.")
    return out


def masked_grid(width: int, height: int, norm: str = "euclidean", spacing: Any = 1, *,
                mask: Any) -> FiniteMetric:
    """The cells of ``grid(width, height, norm, spacing)`` where ``mask[y][x]`` is true.

    ``mask`` is H rows of W entries (booleans, 0/1, '1'/'0' or '#'/'.'; strings work as
    rows). A mask that keeps every cell returns the plain :func:`grid`. The distance list
    holds every offset distance of the W×H grid (some may not occur among kept cells).

    >>> masked_grid(3, 1, mask=["1.1".replace(".", "0")]).distance(0, 1)
    Distance(coef=Fraction(2, 1), radicand=1)
    """
    full = grid(width, height, norm, spacing)  # validates width, height, norm, spacing
    keep = _read_mask(mask, width, height)
    if keep.all():
        return full
    info = full.grid
    assert info is not None
    h = info.spacing
    cells = np.flatnonzero(keep.ravel())
    xs, ys = cells % width, cells // width
    table: dict[Distance, int] = {}
    code = np.zeros((width, height), dtype=np.int64)
    for dx in range(width):
        for dy in range(height):
            code[dx, dy] = table.setdefault(grid_offset_distance(dx, dy, norm, h), len(table))

    build = partial(_offset_index, code, xs, ys)  # module-level: masked grids pickle

    shape = GridShape(width, height, norm, h, tuple(int(c) for c in cells))
    pts = [(int(x) * h, int(y) * h) for x, y in zip(xs, ys)]
    rows = shape.mask_rows()
    metric = MaskedGridMetric._from_library(
        f"masked_grid({width}, {height}, {norm}, spacing={h}, {len(cells)} cells)", pts,
        list(table), build,
        params={"width": width, "height": height, "norm": norm, "spacing": h,
                "mask": tuple(rows or ())},
    )
    object.__setattr__(metric, "shape", shape)
    object.__setattr__(metric, "_offset_code", code)
    return metric


def _offset_index(code: np.ndarray, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """The n×n distance-code table of the kept cells (built only when asked)."""
    return code[np.abs(xs[:, None] - xs[None, :]), np.abs(ys[:, None] - ys[None, :])]


def grid_shape(metric: Any) -> GridShape | None:
    """The exact shape of a library grid or masked grid, else None.

    Read from the checked grid claim (:data:`~exactdp.spaces.metrics.claims.GRID_TRUSTED_TYPES`)
    or a :class:`MaskedGridMetric`'s constructor record — never from a name or params.

    >>> from exactdp.spaces.metrics import grid, line
    >>> grid_shape(grid(2, 3)), grid_shape(line(3))
    (GridShape(width=2, height=3, norm='euclidean', spacing=Fraction(1, 1), mask=None), None)
    """
    if type(metric) is MaskedGridMetric:
        shape = getattr(metric, "shape", None)
        return shape if isinstance(shape, GridShape) else None
    if type(metric) in GRID_TRUSTED_TYPES and metric.grid is not None:
        g = metric.grid
        return GridShape(g.width, g.height, g.norm, to_fraction(g.spacing, "spacing"), None)
    return None
