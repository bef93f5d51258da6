"""Gain and loss functions in matrix form (rows = actions w, columns = secrets x).

A :class:`GainFunction` holds an exact matrix G[w][x] and whether it is a *gain*
(the adversary maximises Σ_x π_x G[w][x]) or a *loss* (the adversary minimises it).
This is libqif's layout: ``g[w, x]``.

Constructors:

* :meth:`GainFunction.identity` — the binary gain g(w, x) = [w = x] (Bayes vulnerability);
* :meth:`GainFunction.from_matrix` — any rational matrix, gain or loss;
* :meth:`GainFunction.distance_gain` — g(w, x) = max(0, 1 − d(w, x)/r) for a rational metric;
* :meth:`GainFunction.distance_loss` — ℓ(w, x) = d(w, x) (expected distance);
* :meth:`GainFunction.k_tries` — g(W, x) = [x ∈ W] over the k-subsets W of secrets.

Examples
--------
>>> from exactdp.spaces.metrics import line
>>> g = GainFunction.distance_gain(line(3), 2)
>>> g.rows[0]
(Fraction(1, 1), Fraction(1, 2), Fraction(0, 1))
>>> GainFunction.from_matrix([[1, 0]], n_secrets=3)
Traceback (most recent call last):
...
exactdp.errors.InvalidGainFunction: the gain matrix g has 2 columns but the channel has 3 secrets ...
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from exactdp.arithmetic.rationals import to_fraction
from exactdp.errors import InvalidArgument, InvalidChannel, InvalidGainFunction, InvalidMetric
from exactdp.kernel.jsonio import read_bool, read_rational, read_str, write_rational
from exactdp.qif.channel import Matrix, is_exact_matrix, read_matrix
from exactdp.spaces.metrics import FiniteMetric

__all__ = ["GainFunction", "metric_matrix", "MAX_ACTIONS"]

#: Largest number of actions a constructor builds (k_tries has C(n, k) of them).
MAX_ACTIONS = 10_000


def metric_matrix(metric: Any) -> Matrix:
    """Exact distance matrix of a rational :class:`FiniteMetric` or of a matrix of distances.

    >>> from exactdp.spaces.metrics import line
    >>> metric_matrix(line(2))
    ((Fraction(0, 1), Fraction(1, 1)), (Fraction(1, 1), Fraction(0, 1)))
    """
    if isinstance(metric, FiniteMetric):
        if not all(v.is_rational for v in metric.values):
            raise InvalidMetric(
                f"{metric.name} has irrational distances; exact gain functions need rational "
                "distances (use an L1 or L∞ grid, or pass a rational distance matrix)."
            )
        vals = [v.coef for v in metric.values]
        return tuple(tuple(vals[int(k)] for k in row) for row in metric.index.tolist())
    try:
        D = read_matrix(metric, "distance matrix")
    except InvalidChannel as exc:
        raise InvalidMetric(str(exc)) from exc
    if len(D) != len(D[0]) or any(v < 0 for r in D for v in r):
        raise InvalidMetric("a distance matrix must be square with entries ≥ 0.")
    n = len(D)
    bad = next(((i, j) for i in range(n) for j in range(n)
                if D[i][j] != D[j][i] or (i == j and D[i][i] != 0)), None)
    if bad is not None:
        i, j = bad
        raise InvalidMetric(
            f"distance matrix entry [{i}][{j}] = {D[i][j]} but [{j}][{i}] = {D[j][i]}; a metric "
            "is symmetric with a zero diagonal (pass a FiniteMetric or fix the matrix).")
    return D


@dataclass(frozen=True)
class GainFunction:
    """An exact gain (maximised) or loss (minimised) matrix G[w][x].

    Attributes
    ----------
    rows : tuple of tuples of Fraction
        G[w][x], one row per action w, one column per secret x.
    is_loss : bool
        True for a loss function (the adversary minimises expected loss).
    name : str
        A label: kernel documents carry it but do not certify it.
    """

    rows: Matrix
    is_loss: bool = False
    name: str = "g"

    def __post_init__(self) -> None:
        # every GainFunction, however built (from_json, dataclasses.replace), is an exact
        # non-empty rectangular matrix: verify() methods never see a ragged or float gain
        if not is_exact_matrix(self.rows):
            raise InvalidGainFunction(
                f"the gain matrix {self.name!r} must be a non-empty rectangular matrix of exact "
                "numbers (Fraction or int); build it with GainFunction.from_matrix."
            )
        if not isinstance(self.is_loss, bool) or not isinstance(self.name, str):
            raise InvalidGainFunction(
                f"Got is_loss={self.is_loss!r}, name={self.name!r}; pass a bool and a str.")

    @property
    def n_actions(self) -> int:
        return len(self.rows)

    @property
    def n_secrets(self) -> int:
        return len(self.rows[0])

    def check_secrets(self, n: int) -> None:
        """Raise :class:`InvalidGainFunction` unless the matrix has one column per secret."""
        if self.n_secrets != n:
            raise InvalidGainFunction(
                f"the gain matrix {self.name} has {self.n_secrets} columns but the channel has {n} "
                "secrets (rows); a gain matrix is actions × secrets (libqif's g[w, x])."
            )

    @classmethod
    def from_matrix(cls, G: Any, *, loss: bool = False, name: str = "g",
                    n_secrets: int | None = None) -> GainFunction:
        """A gain (or, with ``loss=True``, loss) function from an actions × secrets matrix."""
        try:
            rows = read_matrix(G, "gain matrix")
        except InvalidChannel as exc:
            raise InvalidGainFunction(str(exc)) from exc
        g = cls(rows, loss, name)
        if n_secrets is not None:
            g.check_secrets(n_secrets)
        return g

    @classmethod
    def identity(cls, n: int) -> GainFunction:
        """The binary gain g(w, x) = [w = x]: g-vulnerability is Bayes vulnerability.

        >>> GainFunction.identity(2).rows
        ((Fraction(1, 1), Fraction(0, 1)), (Fraction(0, 1), Fraction(1, 1)))
        """
        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_ACTIONS:
            raise InvalidGainFunction(
                f"Got n={n!r}; the identity gain needs an integer 1 ≤ n ≤ {MAX_ACTIONS}.")
        return cls(tuple(tuple(Fraction(int(w == x)) for x in range(n)) for w in range(n)),
                   False, "identity")

    @classmethod
    def distance_gain(cls, metric: Any, r: Any) -> GainFunction:
        """g(w, x) = max(0, 1 − d(w, x)/r): full gain for the exact guess, none beyond r."""
        D = metric_matrix(metric)
        try:
            radius = to_fraction(r, "r")
        except InvalidArgument as exc:
            raise InvalidGainFunction(str(exc)) from exc
        if radius <= 0:
            raise InvalidGainFunction(f"Got r={radius}; the radius of a distance gain must be > 0.")
        rows = tuple(tuple(max(Fraction(0), 1 - d / radius) for d in row) for row in D)
        return cls(rows, False, f"distance-gain(r={radius})")

    @classmethod
    def distance_loss(cls, metric: Any) -> GainFunction:
        """ℓ(w, x) = d(w, x): the expected distance of the adversary's guess (a loss)."""
        return cls(metric_matrix(metric), True, "distance-loss")

    @classmethod
    def k_tries(cls, n: int, k: int) -> GainFunction:
        """g(W, x) = [x ∈ W] over the k-element subsets W (Bayes vulnerability in k tries).

        >>> GainFunction.k_tries(3, 2).n_actions
        3
        """
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise InvalidGainFunction(f"Got n={n!r}; pass an integer number of secrets ≥ 1.")
        if isinstance(k, bool) or not (isinstance(k, int) and 1 <= k <= n):
            raise InvalidGainFunction(f"Got k={k!r}; need an integer 1 ≤ k ≤ n = {n}.")
        if math.comb(n, k) * n > MAX_ACTIONS * 100:
            raise InvalidGainFunction(
                f"k_tries({n}, {k}) has C(n, k) = {math.comb(n, k)} actions (the matrix has "
                f"{math.comb(n, k) * n} entries, limit {MAX_ACTIONS * 100}); use fewer secrets.")
        rows = tuple(tuple(Fraction(int(x in W)) for x in range(n))
                     for W in itertools.combinations(range(n), k))
        return cls(rows, False, f"{k}-tries")

    def expected(self, w: int, weights: tuple[Fraction, ...]) -> Fraction:
        """Σ_x weights[x]·G[w][x], exactly."""
        return sum((p * gv for p, gv in zip(weights, self.rows[w]) if p and gv), Fraction(0))

    def best(self, weights: tuple[Fraction, ...]) -> tuple[Fraction, int]:
        """(optimal value, first optimal action) of the adversary for unnormalised weights."""
        vals = [self.expected(w, weights) for w in range(self.n_actions)]
        target = min(vals) if self.is_loss else max(vals)
        return target, vals.index(target)

    def to_json(self) -> dict[str, Any]:
        """Exact JSON ("p/q" strings).

        >>> GainFunction.from_json(GainFunction.identity(2).to_json()) == GainFunction.identity(2)
        True
        """
        return {"name": self.name, "loss": self.is_loss,
                "rows": [[write_rational(v) for v in r] for r in self.rows]}

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> GainFunction:
        rows = tuple(tuple(read_rational(v, "gain") for v in r) for r in doc["rows"])
        return cls(rows, read_bool(doc["loss"], "loss"), read_str(doc["name"], "name"))
