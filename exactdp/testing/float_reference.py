"""Plain numpy float64 implementations of every oracle question (UNCERTIFIED, float only).

They are what a user's fast backend typically looks like, written once with the float
signatures of :mod:`exactdp.testing.questions`: the tests, the benchmark, the notebook and the
libqif comparison pass them (or deliberately broken variants) through
:func:`exactdp.testing.crosscheck`. Nothing here is a proof.

>>> import numpy as np
>>> D = np.array([[0.0, 1.0], [1.0, 0.0]])
>>> z, exists = tight_z_float(D, 1.0)
>>> exists, bool(np.allclose(np.exp(-D) @ z, 1))
(True, True)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from exactdp.arithmetic.rounding import U

__all__ = ["tight_z_float", "regularity_alpha_float", "threshold_float", "privacy_level_float",
           "utility_float", "leakage_float", "pufferfish_loss_float", "pufferfish_theta_float",
           "capacity_1d_float", "FLOAT_REFERENCES"]


def tight_z_float(D: np.ndarray, eps: float) -> tuple[np.ndarray, bool]:
    """z with Φz = 1, Φ = exp(−ε·D), and whether z ≥ 0 (float solve)."""
    z = np.linalg.solve(np.exp(-eps * np.asarray(D, dtype=np.float64)), np.ones(len(D)))
    return z, bool(np.all(z >= 0))


def regularity_alpha_float(D: np.ndarray, prior: np.ndarray, eps: float) -> tuple[np.ndarray, bool]:
    """α = πΦ⁻¹ (Φ symmetric) and whether α ≥ 0."""
    a = np.linalg.solve(np.exp(-eps * np.asarray(D, dtype=np.float64)).T, np.asarray(prior, dtype=np.float64))
    return a, bool(np.all(a >= 0))


def threshold_float(D: np.ndarray, prior: np.ndarray | None = None, *, steps: int = 200,
                    eps_max: float = 64.0, noise: float = 16.0) -> float:
    """ε*: the least ε above which z ≥ 0 (or α ≥ 0) holds for good, by a float scan on a
    log grid from ``eps_max`` down and bisection of the last sign change.

    As ε → 0, Φ → the all-ones matrix and small components of the float solve lose their
    sign to rounding: a component below −``noise``·cond(Φ)·2⁻⁵³·‖x‖∞ is a clear "fails", a
    negative one above it is noise. The scan stops at the first ε where a sign is noise and
    returns 0.0 (the property held on the whole grid down to there). So a positive ε* at which
    the solve cannot resolve the sign is reported as 0 — a limitation of this float method
    that the oracle shows; on the default cases (ε* is 0 or at least ~10⁻²) it is right."""
    b = np.ones(len(D)) if prior is None else np.asarray(prior, dtype=np.float64)
    Dm = np.asarray(D, dtype=np.float64)

    def state(e: float) -> int:
        """1: holds, 0: fails clearly, -1: the sign is rounding noise."""
        Phi = np.exp(-e * Dm)
        try:
            x = np.linalg.solve(Phi.T, b)
        except np.linalg.LinAlgError:
            return -1
        if np.all(x >= 0):
            return 1
        margin = noise * float(np.linalg.cond(Phi)) * float(U) * float(np.max(np.abs(x)))
        return 0 if float(np.min(x)) < -margin else -1

    grid = np.geomspace(eps_max, 1e-6, steps)
    if state(float(grid[0])) != 1:
        return math.inf
    for hi, lo in zip(grid[:-1], grid[1:]):
        s = state(float(lo))
        if s == -1:
            return 0.0
        if s == 0:
            a, c = float(lo), float(hi)
            for _ in range(200):
                m = 0.5 * (a + c)
                if m in (a, c):
                    break
                if state(m) != 0:
                    c = m
                else:
                    a = m
            return c
    return 0.0


def privacy_level_float(H: np.ndarray, D: np.ndarray, eps: float | None = None) -> float:
    """max over x ≠ x', y of ln(H[x,y]/H[x',y]) / d(x, x') (inf when H[x',y] = 0 < H[x,y])."""
    H = np.asarray(H, dtype=np.float64)
    Dm = np.asarray(D, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        L = np.log(H)  # −inf at zeros
        best = 0.0
        for x in range(len(H)):
            diff = L[x][None, :] - L  # ln(H[x,y]/H[x',y]); nan where both are 0
            diff[x, :] = np.nan
            row = np.nanmax(np.where(np.isnan(diff), -np.inf, diff), axis=1)
            others = np.arange(len(H)) != x
            vals = row[others] / Dm[x, others]
            if vals.size:
                best = max(best, float(np.max(vals)))
    return best


def utility_float(H: np.ndarray, prior: np.ndarray) -> float:
    """Σ_y max_x π_x H[x, y] (Bayes vulnerability of the posterior: optimal remap)."""
    J = np.asarray(prior, dtype=np.float64)[:, None] * np.asarray(H, dtype=np.float64)
    return float(J.max(axis=0).sum())


def leakage_float(H: np.ndarray, prior: np.ndarray) -> float:
    """Min-entropy leakage log2(U*/max π) in bits."""
    return math.log2(utility_float(H, prior) / float(np.max(prior)))


def pufferfish_loss_float(points: Any, p: Any, q: Any,
                          xs: Any, theta: float) -> float:
    """max over x ∈ xs of |ln g_P(x) − ln g_Q(x)|, g_P(x) = Σ_d P(d) e^{−|x−d|/θ}."""
    pts = np.asarray(points, dtype=np.float64)
    out = 0.0
    for x in xs:
        k = np.exp(-np.abs(x - pts) / theta)
        gp, gq = float(np.dot(p, k)), float(np.dot(q, k))
        if gp <= 0 or gq <= 0:
            return math.inf
        out = max(out, abs(math.log(gp) - math.log(gq)))
    return out


def pufferfish_theta_float(p_points: np.ndarray, p_probs: np.ndarray, q_points: np.ndarray,
                           q_probs: np.ndarray, eps: float, *, sample: Sequence[float] | None = None
                           ) -> float:
    """θ*: the least Laplace scale with sup_x |ln g_P − ln g_Q| ≤ ε, by bisection.

    The supremum is over the support points (it is attained there:
    ``proofs/pufferfish_supremum.py``), unless ``sample`` gives other x's to take it over.
    """
    pts = np.union1d(np.asarray(p_points, dtype=np.float64), np.asarray(q_points, dtype=np.float64))
    p = np.array([float(np.sum(p_probs[p_points == v])) for v in pts])
    q = np.array([float(np.sum(q_probs[q_points == v])) for v in pts])
    xs = pts if sample is None else np.asarray(sample, dtype=np.float64)
    if pufferfish_loss_float(pts, p, q, xs, 1e-3) <= eps and np.all(
            np.abs(np.log(np.where(p > 0, p, 1)) - np.log(np.where(q > 0, q, 1))) <= eps) and np.all(
            (p > 0) == (q > 0)):
        return 0.0
    hi = 1.0
    while pufferfish_loss_float(pts, p, q, xs, hi) > eps:
        hi *= 2
    lo = 0.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi):
            break
        if pufferfish_loss_float(pts, p, q, xs, mid) > eps:
            lo = mid
        else:
            hi = mid
    return hi


def _laplace_mass(a: float, b: float, eps: float) -> float:
    """The Laplace(1/ε) mass of [a, b], without cancellation: on one side of 0 it is
    ½e^{−ε·min|.|}·(1 − e^{−ε(b−a)}) (by ``expm1``), across 0 it is 1 − ½e^{εa} − ½e^{−εb}."""
    if a >= 0:
        return -0.5 * math.exp(-eps * a) * math.expm1(-eps * (b - a))
    if b <= 0:
        return -0.5 * math.exp(eps * b) * math.expm1(-eps * (b - a))
    return 1.0 - 0.5 * math.exp(eps * a) - 0.5 * math.exp(-eps * b)


def capacity_1d_float(X: np.ndarray, boxes: list[tuple[np.ndarray, np.ndarray]], eps: float) -> float:
    """P[(X + w) ∩ K ≠ ∅] in one dimension, w ~ Laplace(1/ε): the Laplace mass of the union
    of the intervals K_j − x (each merged interval's mass computed without cancellation, so a
    box far from X keeps its relative accuracy)."""
    ivs = sorted((float(lo[0]) - float(x[0]), float(hi[0]) - float(x[0]))
                 for x in np.asarray(X) for lo, hi in boxes)
    total, cur_lo, cur_hi = 0.0, ivs[0][0], ivs[0][1]
    for a, b in ivs[1:]:
        if a <= cur_hi:
            cur_hi = max(cur_hi, b)
        else:
            total += _laplace_mass(cur_lo, cur_hi, eps)
            cur_lo, cur_hi = a, b
    return total + _laplace_mass(cur_lo, cur_hi, eps)


#: The reference float function of each question.
FLOAT_REFERENCES = {
    "tight-constraints": tight_z_float,
    "regularity": regularity_alpha_float,
    "threshold": threshold_float,
    "privacy-level": privacy_level_float,
    "utility": utility_float,
    "min-entropy-leakage": leakage_float,
    "pufferfish-theta": pufferfish_theta_float,
    "set-capacity": capacity_1d_float,
}
