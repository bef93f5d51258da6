"""Search for the largest ratio T_{M(X)}(K) / (factor · T_{M(Y)}(K)) over boxes K (and sets).

Float to *find*, exact to *prove*: candidate boxes are ranked by the float value of the
exact exp-polynomials, and the best few are then decided exactly by
:func:`~exactdp.sets.check_set_privacy`, which supplies the returned witness.

Candidate boxes (structured): for every anchor point p of X ∪ Y, every orthant
σ ∈ {−1, +1}ⁿ and every width δ, the box with one corner at p spanning δ in direction σ,
and the box of side δ centred at p. Small δ make diam K small (the "paper" bound then
tends to e^{ε d_H}); boxes pinned at a point of X but far from the other points of X
are where a union of translates beats a single translate.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from exactdp.arithmetic.validate import read_positive
from exactdp.errors import InvalidArgument
from exactdp.kinds import Verdict
from exactdp.sets._boxes import Box, region_diameter
from exactdp.sets._capacity import as_level, capacity_functional
from exactdp.sets._points import PointSet, hausdorff_distance, parse_norm, point_set
from exactdp.sets._privacy import SetPrivacyResult, check_set_privacy, factor_terms

__all__ = ["ViolationSearch", "candidate_boxes", "find_violation", "find_violation_random"]


@dataclass(frozen=True)
class ViolationSearch:
    """Outcome of a search. ``best`` is an exact :class:`SetPrivacyResult` (the witness).

    ``found`` is True when ``best`` exactly violates the bound. ``best_score_float`` is
    the (float, uncertified) ratio T_X / (factor · T_Y) of ``best``; the exact verdict
    on that box is ``best.verdict``. :attr:`verdict` is the search's answer about the
    bound: FAILS when a violation was found (exact witness), else UNDECIDED (a search
    that finds nothing proves nothing).
    """

    found: bool
    best: SetPrivacyResult
    best_score_float: float
    candidates: int

    @property
    def verdict(self) -> Verdict:
        """FAILS when ``best`` exactly violates the bound, else UNDECIDED."""
        return Verdict.FAILS if self.found else Verdict.UNDECIDED

    def verify(self) -> bool:
        """Re-check the witness independently (``best.verify()``) and the flag."""
        return self.best.verify() and self.found == (not self.best.holds)


def candidate_boxes(X: PointSet, Y: PointSet, widths: Sequence[Fraction]) -> list[Box]:
    """The structured candidate boxes described in the module docstring."""
    anchors = sorted(set(X.points) | set(Y.points))
    seen: set[Box] = set()
    out: list[Box] = []
    for p in anchors:
        for d in widths:
            cands = [Box(tuple(c - d / 2 for c in p), tuple(c + d / 2 for c in p))]
            for sigma in itertools.product((-1, 1), repeat=X.dim):
                q = tuple(c + s * d for c, s in zip(p, sigma))
                cands.append(
                    Box(
                        tuple(min(a, b) for a, b in zip(p, q)),
                        tuple(max(a, b) for a, b in zip(p, q)),
                    )
                )
            for b in cands:
                if b not in seen:
                    seen.add(b)
                    out.append(b)
    return out


def _default_widths(X: PointSet, Y: PointSet, norm: str) -> list[Fraction]:
    scale = Fraction(hausdorff_distance(X, Y, "linf").value)  # rational
    coords = [c for p in X.points + Y.points for c in p]
    spread = max(coords) - min(coords)
    base = max(scale, spread, Fraction(1))
    return [base / 2**k for k in range(0, 9)]


def find_violation(
    X: Any,
    Y: Any,
    eps: Any,
    *,
    bound: str = "paper",
    norm: Any = "l1",
    widths: Sequence[Any] | None = None,
    both_directions: bool = True,
    exact_top: int = 3,
) -> ViolationSearch:
    """Search boxes K for the largest T_{M(A)}(K) / (factor · T_{M(B)}(K)), (A, B) = (X, Y)
    and, with ``both_directions``, (Y, X); return the best as an exact witness.

    Examples
    --------
    >>> s = find_violation([0, "1/4"], [0], eps=1)
    >>> s.found, s.best.K, round(s.best_score_float, 3)   # → 1 + e^{-1/4} as the box shrinks
    (True, (Box(lower=(Fraction(1, 4),), upper=(Fraction(65, 256),)),), 1.772)
    >>> s.verify()
    True
    """
    Xs, Ys = point_set(X, "X"), point_set(Y, "Y")
    nm = parse_norm(norm)
    level = as_level(eps)
    if exact_top < 1:
        raise InvalidArgument(f"Got exact_top={exact_top!r}; it must be at least 1.")
    ws = ([read_positive(w, f"widths[{i}]") for i, w in enumerate(widths)]
          if widths is not None else _default_widths(Xs, Ys, nm))
    boxes = candidate_boxes(Xs, Ys, ws)
    e = level.eps_float()
    pairs = [(Xs, Ys), (Ys, Xs)] if both_directions else [(Xs, Ys)]
    scored: list[tuple[float, int, PointSet, PointSet, Box]] = []
    for A, B in pairs:
        d_H = hausdorff_distance(A, B, nm).value
        for i, K in enumerate(boxes):
            diam = region_diameter(K, nm)[0]
            terms = factor_terms(bound, A, B, d_H, diam, nm)
            fac = math.fsum(float(a) * math.exp(e * float(b)) for a, b in terms)
            ta = capacity_functional(A, K, level).value.to_float(e)
            tb = capacity_functional(B, K, level).value.to_float(e)
            score = ta / (fac * tb) if tb > 0 else math.inf
            scored.append((score, i, A, B, K))
    scored.sort(key=lambda t: -t[0])
    best: SetPrivacyResult | None = None
    best_score = -math.inf
    for _, _, A, B, K in scored[:exact_top]:
        r = check_set_privacy(A, B, K, level, bound=bound, norm=nm)
        sc = r.floats()["ratio_over_factor"]
        if best is None or (not r.holds and best.holds) or (r.holds == best.holds and sc > best_score):
            best, best_score = r, sc
    assert best is not None
    return ViolationSearch(not best.holds, best, best_score, len(scored))


def find_violation_random(
    eps: Any,
    *,
    dim: int = 1,
    max_points: int = 3,
    trials: int = 20,
    denominator: int = 4,
    span: int = 2,
    bound: str = "paper",
    norm: Any = "l1",
    seed: Any = 0,
) -> ViolationSearch:
    """Random search over pairs of small sets with coordinates in (1/denominator)·Z ∩
    [−span, span] (seeded numpy), each searched by :func:`find_violation`; returns the
    best exact witness found."""
    rng = np.random.default_rng(seed)
    grid = [Fraction(k, denominator) for k in range(-span * denominator, span * denominator + 1)]
    best: ViolationSearch | None = None
    total = 0
    for _ in range(trials):
        sets = []
        for _s in range(2):
            m = int(rng.integers(1, max_points + 1))
            sets.append([tuple(grid[int(j)] for j in rng.integers(0, len(grid), dim)) for _ in range(m)])
        res = find_violation(sets[0], sets[1], eps, bound=bound, norm=norm, exact_top=1)
        total += res.candidates
        if best is None or (res.found, res.best_score_float) > (best.found, best.best_score_float):
            best = res
    assert best is not None
    return ViolationSearch(best.found, best.best, best.best_score_float, total)
