"""How close does λ_min(Φ(ε)) come to the chord lemma's penalty? (float measurement)

The kernel's chord lemma (``exactdp/kernel/threshold_spd.py``, ``chord_ok``) proves
λ_min(Φ(ε)) ≥ min(λ_k, λ_k+1) − (w²/8)·max_i Σ_l d²e^{−ε_k d} between nodes w apart. A
mutant with w²/9 is wrong only if λ_min dips below the smaller end value by more than 8/9 of
that penalty. This script measures the largest dip/penalty ratio with numpy's eigvalsh on
lines, the 4-point star and random shortest-path metrics. It is a float measurement used in
the README's mutation notes, not a proof.

Run: ``python scripts/chord_slack.py`` (about 1 min on 2 cores).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np


def metrics(seed: int = 22, count: int = 300) -> Iterator[tuple[str, np.ndarray]]:
    """Lines of 2–6 points, the star, and ``count`` random shortest-path metrics."""
    rng = np.random.default_rng(seed)
    for n in range(2, 7):
        yield f"line{n}", np.abs(np.subtract.outer(np.arange(n), np.arange(n))).astype(float)
    yield "star", np.array([[0, 1, 1, 1], [1, 0, 2, 2], [1, 2, 0, 2], [1, 2, 2, 0]], float)
    for k in range(count):
        n = int(rng.integers(3, 9))
        w = rng.uniform(0.2, 3, (n, n))
        d = (w + w.T) / 2
        np.fill_diagonal(d, 0)
        for m in range(n):  # Floyd–Warshall: the triangle inequality holds
            d = np.minimum(d, d[:, [m]] + d[[m], :])
        yield f"random{k}", d


def worst_ratio() -> tuple[float, tuple[str, float, float]]:
    """(largest dip/penalty, (metric, ε_0, w)) over ε_0 in [0.02, 5] and w = 0.01, 0.1, 0.5."""
    best: tuple[float, tuple[str, float, float]] = (0.0, ("", 0.0, 0.0))
    for name, d in metrics():
        for e0 in np.linspace(0.02, 5, 120):
            for w in (0.01, 0.1, 0.5):
                lam = np.array([np.linalg.eigvalsh(np.exp(-e * d))[0]
                                for e in np.linspace(e0, e0 + w, 41)])
                dip = min(lam[0], lam[-1]) - lam.min()
                penalty = w * w / 8 * (d**2 * np.exp(-e0 * d)).sum(axis=1).max()
                if dip / penalty > best[0]:
                    best = (float(dip / penalty), (name, float(e0), w))
    return best


if __name__ == "__main__":
    ratio, where = worst_ratio()
    print(f"largest dip / penalty: {ratio:.3f} at {where} (a false w²/9 claim needs > 0.889)")
