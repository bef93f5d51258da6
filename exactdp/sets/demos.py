"""The paper's demonstrations (Sec. V): four runs of M(X) = X + w at ε = 1, as plot data.

The coordinates of the paper's sets were lost in extraction; the figure captions say
"a set of four points" drawn as a square in R² and "a polytope" in R³. We use the square
with vertices (±1, ±1) and the cube with vertices (±1, ±1, ±1) — stated reconstructions,
not the paper's numbers. Samples are FLOAT (numpy, seeded); the exact facts attached
(diameters, d_H between X and each output, which equals ‖w‖ for a translate) are exact
for the float outputs taken at their binary values.
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import sympy

from exactdp.errors import InexactInputWarning
from exactdp.sets._capacity import as_level
from exactdp.sets._mechanism import sample_noise_float
from exactdp.sets._points import PointSet, diameter, hausdorff_distance, point_set

__all__ = ["DemoData", "paper_demo_2d", "paper_demo_3d", "SQUARE_2D", "CUBE_3D"]

SQUARE_2D = [(-1, -1), (1, -1), (1, 1), (-1, 1)]
CUBE_3D = list(itertools.product((-1, 1), repeat=3))


@dataclass(frozen=True)
class DemoData:
    """Plot data for one demonstration.

    ``noise_float`` has shape (runs, n); ``outputs_float`` (runs, |X|, n);
    ``edges`` lists index pairs to draw (the set itself is only the vertices).
    ``diameters`` (exact, per norm) and ``hausdorff_to_outputs`` (exact ℓ1 d_H between X
    and each output, = ‖w‖₁ since outputs are translates) are sympy numbers.
    """

    X: PointSet
    eps: sympy.Expr
    noise_float: np.ndarray
    outputs_float: np.ndarray
    edges: tuple[tuple[int, int], ...]
    diameters: dict[str, sympy.Expr]
    hausdorff_to_outputs: tuple[sympy.Expr, ...]


def _edges(points: tuple[tuple[Any, ...], ...], diagonals: bool) -> tuple[tuple[int, int], ...]:
    out = []
    for i, j in itertools.combinations(range(len(points)), 2):
        differ = sum(a != b for a, b in zip(points[i], points[j]))
        if differ == 1 or (diagonals and differ == len(points[0])):
            out.append((i, j))
    return tuple(out)


def _demo(points: Sequence[tuple[int, ...]], eps: Any, runs: int, seed: Any, diag: bool) -> DemoData:
    X = point_set(points)
    level = as_level(eps)
    w = sample_noise_float(level, X.dim, runs, seed)
    pts = np.array(X.as_floats())
    outs = pts[None, :, :] + w[:, None, :]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InexactInputWarning)
        dh = tuple(hausdorff_distance(X, o.tolist(), "l1").value for o in outs)
    diams = {nm: diameter(X, nm).value for nm in ("l1", "l2", "linf")}
    return DemoData(X, level.eps, w, outs, _edges(X.points, diag), diams, dh)


def paper_demo_2d(eps: Any = 1, runs: int = 4, seed: Any = 2017) -> DemoData:
    """Four-point set (a square, drawn with its diagonals as in the paper's Fig. 2).

    >>> d = paper_demo_2d()
    >>> d.outputs_float.shape, d.diameters["l1"], len(d.edges)
    ((4, 4, 2), 4, 6)
    """
    return _demo(SQUARE_2D, eps, runs, seed, diag=True)


def paper_demo_3d(eps: Any = 1, runs: int = 4, seed: Any = 2017) -> DemoData:
    """Vertex set of a polytope in R³ (the cube [−1, 1]³, 12 edges), as in Fig. 3.

    >>> d = paper_demo_3d()
    >>> d.outputs_float.shape, d.diameters["l2"], len(d.edges)
    ((4, 8, 3), 2*sqrt(3), 12)
    """
    return _demo(CUBE_3D, eps, runs, seed, diag=False)
