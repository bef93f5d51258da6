"""The Laplacian Perturbation Mechanism M(X) = X + w: its exact law and a float sampler.

One noise vector w = (w_1, …, w_n), w_i i.i.d. Laplace(0, 1/ε), translates the whole
set. The exact law of the random set M(X) is given by its capacity functional
(:func:`~exactdp.sets.capacity_functional`); :func:`noise_density` gives the density of
w in closed form. Everything in this module that draws random numbers is FLOAT
(numpy, seeded): for illustration and statistical cross-checks only, never a proof.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import sympy

from exactdp.errors import InvalidArgument
from exactdp.sets._boxes import as_boxes
from exactdp.sets._capacity import as_level
from exactdp.sets._points import PointSet, point_set

__all__ = [
    "noise_density",
    "sample_noise_float",
    "sample_mechanism_float",
    "MonteCarloEstimate",
    "capacity_monte_carlo_float",
]


def noise_density(eps: Any, dim: int) -> sympy.Lambda:
    """Exact density of w: p(w) = Π_i (ε/2)·e^{−ε|w_i|}, as a sympy Lambda.

    >>> noise_density(1, 2)(0, 0)
    1/4
    """
    level = as_level(eps)
    if not isinstance(dim, int) or dim < 1:
        raise InvalidArgument(f"Got dim={dim!r}; the dimension must be a positive integer.")
    w = sympy.symbols(f"w1:{dim + 1}", real=True)
    e = level.eps
    return sympy.Lambda(w, sympy.Mul(*[e / 2 * sympy.exp(-e * sympy.Abs(wi)) for wi in w]))


def _rng(seed: Any) -> np.random.Generator:
    if isinstance(seed, np.random.Generator):
        return seed
    return np.random.default_rng(seed)


def sample_noise_float(eps: Any, dim: int, size: int = 1, seed: Any = None) -> np.ndarray:
    """``size`` float samples of w (shape (size, dim)); FLOAT, sampling only.

    >>> sample_noise_float(1, 3, size=5, seed=0).shape
    (5, 3)
    """
    level = as_level(eps)
    if not isinstance(dim, int) or dim < 1:
        raise InvalidArgument(f"Got dim={dim!r}; the dimension must be a positive integer.")
    if not isinstance(size, int) or size < 1:
        raise InvalidArgument(f"Got size={size!r}; pass a positive integer number of samples.")
    return _rng(seed).laplace(0.0, 1.0 / level.eps_float(), size=(size, dim))


def sample_mechanism_float(X: Any, eps: Any, size: int = 1, seed: Any = None) -> np.ndarray:
    """``size`` float outputs of M(X) = X + w, shape (size, |X|, n); FLOAT, sampling only.

    Every point of one output is shifted by the same w (one translation per run).

    >>> out = sample_mechanism_float([(0, 0), (1, 0)], eps=1, size=4, seed=1)
    >>> out.shape
    (4, 2, 2)
    >>> bool(np.allclose(out[:, 1] - out[:, 0], [1.0, 0.0]))
    True
    """
    Xs: PointSet = point_set(X, "X")
    pts = np.array(Xs.as_floats())
    w = sample_noise_float(eps, Xs.dim, size, seed)
    return pts[None, :, :] + w[:, None, :]


@dataclass(frozen=True)
class MonteCarloEstimate:
    """A FLOAT Monte Carlo estimate of a capacity functional (not a certificate)."""

    estimate_float: float
    stderr_float: float
    n_samples: int

    def interval_float(self, z: float = 5.0) -> tuple[float, float]:
        """estimate ± z·stderr (a statistical, not certified, interval)."""
        return (
            self.estimate_float - z * self.stderr_float,
            self.estimate_float + z * self.stderr_float,
        )


def capacity_monte_carlo_float(
    X: Any, K: Any, eps: Any, n_samples: int = 100_000, seed: Any = None
) -> MonteCarloEstimate:
    """Monte Carlo estimate of P[(X + w) ∩ K ≠ ∅] (FLOAT; for cross-checks only).

    >>> from exactdp.sets import Box
    >>> est = capacity_monte_carlo_float([0], Box(-100, 100), eps=1, n_samples=1000, seed=0)
    >>> est.estimate_float
    1.0
    """
    Xs = point_set(X, "X")
    boxes = as_boxes(K)
    w = sample_noise_float(eps, Xs.dim, n_samples, seed)
    pts = np.array(Xs.as_floats())
    hit = np.zeros(n_samples, dtype=bool)
    for b in boxes:
        lo = np.array([float(c) for c in b.lower])
        hi = np.array([float(c) for c in b.upper])
        for x in pts:
            y = w + x
            hit |= np.all((y >= lo) & (y <= hi), axis=1)
    p = float(hit.mean())
    se = math.sqrt(max(p * (1 - p), 1e-300) / n_samples)
    return MonteCarloEstimate(p, se, n_samples)
