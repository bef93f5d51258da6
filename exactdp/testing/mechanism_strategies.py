"""Hypothesis strategies for exact mechanisms on a metric, private or not at a level.

A mechanism is drawn as exact rows (tuples of Fraction summing to 1); pass them to
:func:`exactdp.mechanisms.from_rows`. Privacy at a rational t = e^{-ε} (integer
distances) is decided exactly by :func:`exactdp.testing.oracle.is_private_exact`.

>>> from hypothesis import given
>>> from fractions import Fraction
>>> from exactdp.spaces.metrics import line
>>> from exactdp.testing.oracle import is_private_exact
>>> @given(private_mechanism_rows(line(3), Fraction(1, 2)))
... def check(rows):
...     assert is_private_exact(rows, line(3), Fraction(1, 2))
>>> check()
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from hypothesis import strategies as st

from exactdp.testing.oracle import is_private_exact, rational_distance_matrix

__all__ = ["mechanism_rows", "private_mechanism_rows", "nonprivate_mechanism_rows"]

Rows = tuple[tuple[Fraction, ...], ...]


def _normalise(weights: list[list[int]]) -> Rows:
    return tuple(tuple(Fraction(w, sum(r)) for w in r) for r in weights)


@st.composite
def mechanism_rows(draw: st.DrawFn, n: int, outputs: int | None = None, max_weight: int = 12,
                   allow_zeros: bool = True) -> Rows:
    """Exact n×m stochastic matrices (every row k/Σk with small integers k)."""
    m = n if outputs is None else outputs
    lo = 0 if allow_zeros else 1
    rows = [draw(st.lists(st.integers(lo, max_weight), min_size=m, max_size=m).filter(lambda r: sum(r) > 0))
            for _ in range(n)]
    return _normalise(rows)


@st.composite
def private_mechanism_rows(draw: st.DrawFn, metric: Any, t: Fraction) -> Rows:
    """Mechanisms that are ε·d-private at t = e^{-ε} (integer distances), checked exactly.

    An exponential-type mechanism p(y|x) ∝ w_y u^{d(x,y)} with u² ≥ t is private at t
    (its log-ratio is at most −2 ln u · d(x, x')); u ∈ [(1 + t)/2, 1] (AM–GM: ≥ √t), and
    the result is mixed with another such mechanism (a convex mix of private mechanisms
    at one level is private).
    """
    D = rational_distance_matrix(metric)
    n = len(D)
    t = Fraction(t)

    def exp_rows() -> Rows:
        u = draw(st.fractions(min_value=(1 + t) / 2, max_value=1, max_denominator=30))
        w = draw(st.lists(st.integers(1, 6), min_size=n, max_size=n))
        raw = [[w[y] * u ** int(D[x][y]) for y in range(n)] for x in range(n)]
        return tuple(tuple(v / sum(r) for v in r) for r in raw)

    a, b = exp_rows(), exp_rows()
    lam = draw(st.fractions(min_value=0, max_value=1, max_denominator=8))
    rows = tuple(tuple(lam * x + (1 - lam) * y for x, y in zip(ra, rb)) for ra, rb in zip(a, b))
    assert is_private_exact(rows, metric, t)
    return rows


@st.composite
def nonprivate_mechanism_rows(draw: st.DrawFn, metric: Any, t: Fraction) -> Rows:
    """Mechanisms that are NOT ε·d-private at t (checked exactly): either one output has
    probability 0 under one input and > 0 under another (not private at any ε), or random
    rows rejected by the exact check."""
    n = metric.n
    t = Fraction(t)
    if draw(st.booleans()):
        rows = [list(r) for r in draw(mechanism_rows(n, allow_zeros=False))]
        x, x2 = draw(st.sampled_from([(i, j) for i in range(n) for j in range(n) if i != j]))
        y = draw(st.integers(0, n - 1))
        rows[x] = [Fraction(0) if k == y else v for k, v in enumerate(rows[x])]
        total = sum(rows[x])  # > 0: n ≥ 2 and every other entry is > 0
        rows[x] = [v / total for v in rows[x]]
        out = tuple(tuple(r) for r in rows)
    else:
        out = draw(mechanism_rows(n).filter(lambda r: not is_private_exact(r, metric, t)))
    assert not is_private_exact(out, metric, t)
    return out
