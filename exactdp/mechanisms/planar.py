"""Planar mechanisms on a grid with libqif's *border remap*, certified.

libqif (``mechanism::geo_ind``) builds its grid channels by adding noise on the whole
plane and moving every output that falls outside the grid to the *nearest border cell*
(each coordinate clamped to the grid). Both constructors here do the same, with every
entry a ball (``flint.arb``) that provably contains the true probability:

* :func:`planar_geometric_grid` — discrete noise on the lattice (spacing h)·Z² with
  P(z) = e^{−ε‖z‖₂} / Z, Z = Σ_{z∈Z²} e^{−ε‖z‖₂} (libqif's ``planar_geometric_grid``);
* :func:`planar_laplace_border` — the continuous planar Laplace density ε²/(2π)·e^{−ε‖w‖₂}
  integrated over grid cells (side h, centred on the points), then border-remapped
  (libqif's ``planar_laplace_grid``; :func:`exactdp.mechanisms.constructors.planar_laplace_grid`
  is the *conditioned* variant, which renormalises instead of remapping).

Certification. Offsets (dx, dy) with max(|dx|, |dy|) ≤ L are summed exactly in ball
arithmetic; the rest of the plane (the *tail*) carries at most T of the probability, with

* geometric: #{z : ‖z‖∞ = k} = 8k and ‖z‖₂ ≥ ‖z‖∞, so the tail weight is at most
  Σ_{k>L} 8k qᵏ = 8 q^{L+1}((L+1) − Lq)/(1−q)², q = e^{−εh};
* Laplace: P(‖w‖₂ > r) = (1 + εr)e^{−εr} (the radial law is Gamma(2, 1/ε)) and every point
  outside the cells of the box has ‖w‖₂ ≥ ‖w‖∞ > (L + ½)h.

Tail mass can only land on border cells, so each border entry gets the interval [0, T]
added; L grows until T < 2^{−60}. Rows then contain 1 (the Mechanism validator checks it).

>>> H = planar_geometric_grid(2, 2, eps=1)
>>> H.kind, H.shape
(<MechanismKind.CERTIFIED: 'certified'>, (4, 4))
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from flint import arb

from exactdp.arithmetic.ball import arb_from_fraction, workprec
from exactdp.arithmetic.rationals import to_fraction
from exactdp.errors import InvalidArgument
from exactdp.mechanisms.mechanism import CERTIFIED_PREC, Mechanism, MechanismKind
from exactdp.spaces.levels import parse_level

__all__ = ["planar_geometric_grid", "planar_laplace_border"]

#: The tail of the plane beyond the summed box carries less than this probability.
TAIL = arb(2) ** -60


def _size(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or int(value) < 2:
        raise InvalidArgument(f"Got {name}={value!r}; it must be an integer ≥ 2.")
    return int(value)


def _clamped(width: int, height: int, L: int, mass: Callable[[int, int], arb],
             tail: arb) -> np.ndarray:
    """Rows of the border-remapped channel: Σ of box masses per clamped output, + [0, T]."""
    n = width * height
    extra = arb(0).union(tail)
    arr = np.empty((n, n), dtype=object)
    for i in range(n):
        gx, gy = i % width, i // width
        row = [arb(0)] * n
        for dx in range(-L, L + 1):
            ox = min(max(gx + dx, 0), width - 1)
            for dy in range(-L, L + 1):
                oy = min(max(gy + dy, 0), height - 1)
                row[oy * width + ox] += mass(dx, dy)
        for j in range(n):
            jx, jy = j % width, j // width
            if jx in (0, width - 1) or jy in (0, height - 1):
                row[j] += extra
        arr[i, :] = row
    return arr


def planar_geometric_grid(width: int, height: int, eps: Any = None, *,
                          spacing: Any = 1) -> Mechanism:
    """libqif's planar geometric mechanism on a width × height grid (border remap), certified.

    Points are (x·h, y·h), input/output index y·width + x (libqif's order).
    """
    level = parse_level(eps=eps)
    width, height = _size(width, "width"), _size(height, "height")
    h = to_fraction(spacing, "spacing")
    if h <= 0:
        raise InvalidArgument(f"Got spacing={spacing!r}; it must be > 0.")
    with workprec(CERTIFIED_PREC):
        a = level.eps_ball() * arb_from_fraction(h)
        q = (-a).exp()
        L = max(width, height)
        while True:
            tail_w = 8 * q ** (L + 1) * ((L + 1) - L * q) / (1 - q) ** 2
            if (tail_w < TAIL) is True:
                break
            L += max(4, L // 2)
        w = {(dx, dy): (-a * arb(dx * dx + dy * dy).sqrt()).exp()
             for dx in range(0, L + 1) for dy in range(0, L + 1)}
        box = arb(0)
        for (dx, dy), v in w.items():
            box += v * (1 if dx == 0 else 2) * (1 if dy == 0 else 2)
        Z = box + arb(0).union(tail_w)
        arr = _clamped(width, height, L, lambda dx, dy: w[(abs(dx), abs(dy))] / Z, tail_w / box)
    pts = [(x * h, y * h) for y in range(height) for x in range(width)]
    return Mechanism(arr, kind=MechanismKind.CERTIFIED, inputs=pts, outputs=pts,
                     name=f"planar_geometric_grid({width}×{height}, ε={level.eps})",
                     precision=CERTIFIED_PREC,
                     parameters={"eps": level.eps, "spacing": h, "box": L})


def planar_laplace_border(width: int, height: int, eps: Any = None, *, spacing: Any = 1,
                          subdivisions: int = 4) -> Mechanism:
    """Planar Laplace on a grid with libqif's border remap, certified.

    Each cell's mass is enclosed by splitting it into ``subdivisions``² squares and bounding
    the (radially decreasing) density by its values at each square's nearest and farthest
    points; radii shrink like 1/subdivisions.

    >>> H = planar_laplace_border(2, 2, eps=1, subdivisions=2)
    >>> H.entry(0, 0).overlaps(H.entry(3, 3)), H.shape     # symmetric corners
    (True, (4, 4))
    """
    level = parse_level(eps=eps)
    width, height = _size(width, "width"), _size(height, "height")
    h = to_fraction(spacing, "spacing")
    if h <= 0:
        raise InvalidArgument(f"Got spacing={spacing!r}; it must be > 0.")
    if isinstance(subdivisions, bool) or not isinstance(subdivisions, int) or subdivisions < 1:
        raise InvalidArgument(f"Got subdivisions={subdivisions!r}; pass an integer ≥ 1.")
    m = subdivisions
    with workprec(CERTIFIED_PREC):
        e = level.eps_ball()
        L = max(width, height)
        while True:
            r = e * arb_from_fraction(h) * (2 * L + 1) / 2
            tail = (1 + r) * (-r).exp()
            if (tail < TAIL) is True:
                break
            L += max(4, L // 2)
        coef = e * e / (2 * arb.pi()) * arb_from_fraction((h / m) ** 2)
        unit = arb_from_fraction(h / (2 * m))
        dens: dict[int, arb] = {}

        def density(qq: int) -> arb:
            if qq not in dens:
                dens[qq] = (-e * arb(qq).sqrt() * unit).exp()
            return dens[qq]

        cache: dict[tuple[int, int], arb] = {}

        def cell(dx: int, dy: int) -> arb:
            key = (abs(dx), abs(dy))
            if key not in cache:
                total = arb(0)
                for sa in range(m):
                    x0 = 2 * key[0] * m - m + 2 * sa
                    nx = 0 if x0 < 0 < x0 + 2 else min(abs(x0), abs(x0 + 2))
                    fx = max(abs(x0), abs(x0 + 2))
                    for sb in range(m):
                        y0 = 2 * key[1] * m - m + 2 * sb
                        ny = 0 if y0 < 0 < y0 + 2 else min(abs(y0), abs(y0 + 2))
                        fy = max(abs(y0), abs(y0 + 2))
                        total += density(fx * fx + fy * fy).union(density(nx * nx + ny * ny))
                cache[key] = total * coef
            return cache[key]

        arr = _clamped(width, height, L, cell, tail)
    pts = [(x * h, y * h) for y in range(height) for x in range(width)]
    return Mechanism(arr, kind=MechanismKind.CERTIFIED, inputs=pts, outputs=pts,
                     name=f"planar_laplace_border({width}×{height}, ε={level.eps})",
                     precision=CERTIFIED_PREC,
                     parameters={"eps": level.eps, "spacing": h, "subdivisions": m, "box": L})
