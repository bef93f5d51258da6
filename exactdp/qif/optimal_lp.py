"""The optimal-mechanism LP and its duality certificate (the checking side).

Problem (Shokri-style): secrets x with prior π, outputs = the gain function's actions w,
privacy level ε with t = e^{-ε} and s = e^{-ε/q} rational, a metric d on the secrets.
Unknowns K[x][w] ≥ 0 (the mechanism); maximise Σ_x Σ_w c[x][w] K[x][w] with
c[x][w] = π_x g(w, x) for a gain (c = −π_x ℓ(w, x) for a loss, whose expected loss is −value)
subject to

* Σ_w K[x][w] = 1 for every x (rows are distributions);
* φ_ab K[a][w] − K[b][w] ≤ 0 for every w and every ordered pair (a, b) of a *privacy edge*,
  with φ_ab = e^{-ε d(a, b)} (exact). Privacy edges are the metric's graph edges when it
  records them (a path metric: privacy on edges implies it on all pairs), else all pairs.

Dual: minimise Σ_x u_x over u free, λ ≥ 0 (one per constraint) with, for every (x, w),
u_x + Σ_e coeff_e(x, w) λ_e ≥ c[x][w] (coeff φ_ab at (a, w), −1 at (b, w) for e = (a, b, w)).

Weak duality: for any feasible K', c·K' ≤ Σ_{x,w} (u_x + (Aᵀλ)_{x,w}) K'[x][w]
= Σ_x u_x + λ·(AK') ≤ Σ_x u_x. So a primal-feasible K and a dual-feasible (u, λ) with
c·K = Σ u prove K optimal: that is all :meth:`DualityCertificate.verify` checks, exactly,
rebuilding the problem from its inputs (it trusts nothing the search produced).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from exactdp.algebra.phi import entry_values_exact
from exactdp.errors import ExactnessRequired, InvalidArgument, InvalidChannel
from exactdp.kernel.jsonio import write_rational
from exactdp.kinds import Verdict
from exactdp.qif.channel import Matrix, prior_values
from exactdp.qif.gain import GainFunction
from exactdp.qif.measures import write_matrix
from exactdp.spaces.levels import PrivacyLevel
from exactdp.spaces.metrics import FiniteMetric

__all__ = ["OptimalProblem", "DualityCertificate", "build_problem"]

#: A directed privacy constraint φ·K[a][w] − K[b][w] ≤ 0 for all w: (a, b, φ).
Edge = tuple[int, int, Fraction]


@dataclass(frozen=True)
class OptimalProblem:
    """The exact data of one optimal-mechanism LP (see the module docstring)."""

    metric: FiniteMetric = field(repr=False)
    level: PrivacyLevel
    prior: tuple[Fraction, ...]
    gain: GainFunction = field(repr=False)
    edges: tuple[Edge, ...] = field(repr=False)

    @property
    def n(self) -> int:
        return len(self.prior)

    @property
    def m(self) -> int:
        return self.gain.n_actions

    @property
    def sign(self) -> int:
        """+1 for a gain (maximised), −1 for a loss (minimised)."""
        return -1 if self.gain.is_loss else 1

    def cost(self, x: int, w: int) -> Fraction:
        """c[x][w] of the maximisation form."""
        return self.sign * self.prior[x] * self.gain.rows[w][x]


def build_problem(metric: FiniteMetric, prior: Any, level: PrivacyLevel,
                  gain: GainFunction | None) -> OptimalProblem:
    """Read and check the inputs; list the directed privacy constraints with exact φ."""
    if not isinstance(metric, FiniteMetric):
        raise InvalidArgument(f"Got {type(metric).__name__}; pass an exactdp FiniteMetric.")
    pi = prior_values(prior, metric.n)
    g = GainFunction.identity(metric.n) if gain is None else gain
    if not isinstance(g, GainFunction):
        g = GainFunction.from_matrix(g)
    g.check_secrets(metric.n)
    try:
        vals = entry_values_exact(metric, level)
    except ExactnessRequired as exc:
        raise ExactnessRequired(
            f"the exact optimal-mechanism LP needs rational φ = e^(-ε d): {exc}"
        ) from exc
    idx = metric.index
    pairs = (metric.graph_edges if metric.graph_edges is not None else
             [(a, b) for a in range(metric.n) for b in range(a + 1, metric.n)])
    edges: list[Edge] = []
    for a, b in pairs:
        phi = vals[int(idx[a, b])]
        edges.append((a, b, phi))
        edges.append((b, a, phi))
    return OptimalProblem(metric, level, pi, g, tuple(edges))


@dataclass(frozen=True)
class DualityCertificate:
    """Primal K, dual (u, λ) of the optimal-mechanism LP; ``verify()`` checks both exactly.

    ``lam`` is sparse: {(edge index, w): λ} for the nonzero multipliers (edge indices into
    ``problem.edges``).
    """

    problem: OptimalProblem = field(repr=False)
    mechanism: Matrix = field(repr=False)
    u: tuple[Fraction, ...] = field(repr=False)
    lam: dict[tuple[int, int], Fraction] = field(repr=False, compare=False)

    @property
    def verdict(self) -> Verdict:
        """``HOLDS``: the mechanism is optimal (once ``verify()`` confirms it)."""
        return Verdict.HOLDS

    @property
    def objective(self) -> Fraction:
        """c·K (the maximisation form's value)."""
        P, K = self.problem, self.mechanism
        return sum((P.cost(x, w) * K[x][w] for x in range(P.n) for w in range(P.m)
                    if K[x][w]), Fraction(0))

    def primal_feasible(self) -> bool:
        P, K = self.problem, self.mechanism
        if len(K) != P.n or any(len(r) != P.m for r in K):
            return False
        if any(v < 0 for r in K for v in r) or any(sum(r, Fraction(0)) != 1 for r in K):
            return False
        return all(phi * K[a][w] <= K[b][w] for a, b, phi in P.edges for w in range(P.m))

    def dual_feasible(self) -> bool:
        P = self.problem
        if len(self.u) != P.n:
            return False
        slack = [[self.u[x] - P.cost(x, w) for w in range(P.m)] for x in range(P.n)]
        for (e, w), lam in self.lam.items():
            if lam < 0 or not (0 <= e < len(P.edges) and 0 <= w < P.m):
                return False
            a, b, phi = P.edges[e]
            slack[a][w] += phi * lam
            slack[b][w] -= lam
        return all(v >= 0 for r in slack for v in r)

    def verify(self) -> bool:
        """Primal feasible, dual feasible, c·K = Σ u — all exact."""
        return (self.primal_feasible() and self.dual_feasible()
                and self.objective == sum(self.u, Fraction(0)))

    def to_json(self) -> dict[str, Any]:
        return {"kind": "lp-duality", "mechanism": write_matrix(self.mechanism),
                "u": [write_rational(v) for v in self.u],
                "lambda": [[e, w, write_rational(v)] for (e, w), v in sorted(self.lam.items())],
                "prior": [write_rational(p) for p in self.problem.prior],
                "gain": self.problem.gain.to_json(), "level": self.problem.level.to_json()}


def check_shape(K: Matrix, P: OptimalProblem) -> None:
    """Raise :class:`InvalidChannel` unless K is n × m."""
    if len(K) != P.n or any(len(r) != P.m for r in K):
        raise InvalidChannel(f"expected a {P.n}×{P.m} mechanism.")
