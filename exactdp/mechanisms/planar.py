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

Laplace cells near the input (all but < 2^{−40} of the mass) are integrated rigorously:
each is an inclusion–exclusion of quadrant masses Q(a, b), and each Q is two 1-D integrals
in polar coordinates (the radial part is closed-form) enclosed by ``acb.integral``. Entry
radii are below ~1e-12 (3×3, ε = 1: ~1e-14), far below libqif's own cubature error
(6.4e-5 at the centre cell).

>>> H = planar_geometric_grid(2, 2, eps=1)
>>> H.kind, H.shape
(<MechanismKind.CERTIFIED: 'certified'>, (4, 4))
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from flint import acb, arb

from exactdp.arithmetic.ball import arb_from_fraction, workprec
from exactdp.arithmetic.rationals import to_fraction
from exactdp.errors import InstanceTooLarge, InvalidArgument
from exactdp.kinds import proved_by
from exactdp.mechanisms.mechanism import CERTIFIED_PREC, Mechanism, MechanismKind
from exactdp.spaces.levels import parse_level

__all__ = ["planar_geometric_grid", "planar_laplace_border"]

#: The tail of the plane beyond the summed box carries less than this probability.
TAIL = arb(2) ** -60
#: Planar Laplace: cells beyond the exactly integrated box carry less than this in total.
NEAR = arb(2) ** -40
#: Largest summed box half-width L of :func:`planar_geometric_grid` (cost ~ n·(2L + 1)²).
MAX_GEOMETRIC_BOX = 110
#: Largest exactly integrated box half-width K of :func:`planar_laplace_border`.
MAX_LAPLACE_BOX = 64


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
            if L > MAX_GEOMETRIC_BOX:
                raise InstanceTooLarge(
                    f"planar_geometric_grid at ε·h = {level.eps}·{h} must sum a lattice box of "
                    f"half-width > MAX_GEOMETRIC_BOX = {MAX_GEOMETRIC_BOX} (the cost grows like "
                    "1/(ε·h)²); use a larger ε·spacing (≥ 1/2)."
                )
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


@proved_by("qif_planar_laplace")
def _quadrant_mass(alpha: arb, beta: arb) -> arb:
    """Planar Laplace mass of the rectangle [0, a] × [0, b] (α = εa, β = εb > 0), certified.

    Split along the diagonal into two right triangles with a vertex at the origin; in polar
    coordinates the radial integral is closed-form, ∫_0^R ε² r e^{−εr} dr = 1 − (1 + εR)e^{−εR},
    so each triangle is (1/2π)∫_0^{θ₁} [1 − (1 + α secθ) e^{−α secθ}] dθ (R = a secθ), a 1-D
    integral of a function holomorphic near [0, θ₁] ⊂ [0, π/2) that ``acb.integral``
    encloses rigorously. Proof and independent quadrature check: ``proofs/qif_planar_laplace.py``.
    """

    def tri(al: arb, theta: arb) -> arb:
        def f(z: acb, analytic: bool) -> acb:
            sec = 1 / z.cos()
            return 1 - (1 + al * sec) * (-(al * sec)).exp()
        return acb.integral(f, 0, theta).real

    return (tri(alpha, (beta / alpha).atan()) + tri(beta, (alpha / beta).atan())) / (
        2 * arb.pi())


def planar_laplace_border(width: int, height: int, eps: Any = None, *, spacing: Any = 1,
                          subdivisions: int = 4) -> Mechanism:
    """Planar Laplace on a grid with libqif's border remap, certified.

    Cells within ``K`` steps of the input (K chosen so that the plane beyond carries less
    than 2^{−40}) are integrated rigorously: with Q(a, b) the mass of [0, a] × [0, b]
    (:func:`_quadrant_mass`, a rigorous 1-D integral), a cell's mass is an inclusion–exclusion
    of four Q values at its corners. Radii are ~1e-30 for these cells. Cells beyond K (their
    total mass is < 2^{−40}) are enclosed by splitting them into ``subdivisions``² squares and
    bounding the radially decreasing density at each square's nearest and farthest points;
    the plane beyond the box L adds [0, 2^{−60}] to border cells. So every entry's radius is
    below about 1e-12 (measured: 3×3, ε = 1 has largest radius ~1e-13).

    The cost is about (K + 1)²/2 one-dimensional integrals with K ≈ 32/(ε·h); instances
    with K > ``MAX_LAPLACE_BOX`` (ε·h below about 1/2) are refused.

    >>> H = planar_laplace_border(2, 2, eps=1)
    >>> H.entry(0, 0).overlaps(H.entry(3, 3)), H.shape     # symmetric corners
    (True, (4, 4))
    >>> float(max(H.entry(i, j).rad() for i in range(4) for j in range(4))) < 1e-11
    True
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
        eh = e * arb_from_fraction(h)

        def beyond(k: int) -> arb:
            """P(‖w‖∞ > (k + ½)h) ≤ P(‖w‖₂ > (k + ½)h) = (1 + r)e^{−r}, r = ε(k + ½)h."""
            r = eh * (2 * k + 1) / 2
            return (1 + r) * (-r).exp()

        K = 0
        while (beyond(K) < NEAR) is not True:
            K += 1
            if K > MAX_LAPLACE_BOX:
                raise InstanceTooLarge(
                    f"planar_laplace_border at ε·h = {level.eps}·{h} needs more than "
                    f"MAX_LAPLACE_BOX = {MAX_LAPLACE_BOX} cells of exact integration per side "
                    "(the cost grows like 1/(ε·h)²); use a larger ε·spacing (≥ 1/2) or the "
                    "conditioned planar_laplace_grid."
                )
        L = max(width, height, K + 1)
        while (beyond(L) < TAIL) is not True:
            L += max(4, L // 2)
        tail = beyond(L)
        half = eh / 2
        quad: dict[tuple[int, int], arb] = {}

        def Q(p: int, q: int) -> arb:
            """Mass of [0, (p + ½)h] × [0, (q + ½)h]."""
            key = (min(p, q), max(p, q))
            if key not in quad:
                quad[key] = _quadrant_mass(half * (2 * key[0] + 1), half * (2 * key[1] + 1))
            return quad[key]

        def sides(i: int) -> list[tuple[int, int]]:
            # [−h/2, h/2] = 2·[0, h/2]; [(i − ½)h, (i + ½)h] = [0, (i + ½)h] − [0, (i − ½)h]
            return [(2, 0)] if i == 0 else [(1, i), (-1, i - 1)]

        coef = e * e / (2 * arb.pi()) * arb_from_fraction((h / m) ** 2)
        unit = arb_from_fraction(h / (2 * m))
        dens: dict[int, arb] = {}

        def density(qq: int) -> arb:
            if qq not in dens:
                dens[qq] = (-e * arb(qq).sqrt() * unit).exp()
            return dens[qq]

        cache: dict[tuple[int, int], arb] = {}

        def crude(key: tuple[int, int]) -> arb:
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
            return total * coef

        def cell(dx: int, dy: int) -> arb:
            key = (abs(dx), abs(dy))
            if key not in cache:
                if max(key) <= K:
                    val = sum((cx * cy * Q(px, py) for cx, px in sides(key[0])
                               for cy, py in sides(key[1])), arb(0))
                    cache[key] = val
                else:
                    cache[key] = crude(key)
            return cache[key]

        arr = _clamped(width, height, L, cell, tail)
    pts = [(x * h, y * h) for y in range(height) for x in range(width)]
    return Mechanism(arr, kind=MechanismKind.CERTIFIED, inputs=pts, outputs=pts,
                     name=f"planar_laplace_border({width}×{height}, ε={level.eps})",
                     precision=CERTIFIED_PREC,
                     parameters={"eps": level.eps, "spacing": h, "subdivisions": m, "box": L,
                                 "exact_box": K})
