"""Is the oblivious mechanism H∘f of my query f private? (Def. 2, Thm. 1 and Cor. 1 of the paper).

A query f: X → Y on a finite universe of databases X is answered privately by a noise
mechanism H: Y → Z; the *oblivious* mechanism H∘f reports z with probability h[f(x), z]
(:func:`oblivious_mechanism`).

* **Databases and neighbours.** :func:`database_metric` builds the graph metric d_X on a
  finite universe: ``neighbours="bounded"`` (replace one record: tuples of equal length
  differing in exactly one position; d_X is the Hamming distance) or ``"unbounded"``
  (add/remove one record: databases are multisets, compared as sorted tuples), or any
  symmetric predicate. :func:`bounded_databases` and :func:`unbounded_databases` list the
  universes V^u and the multisets of size ≤ u.
* **Induced graph.** y ~_f y' iff x ~ x' for some x ∈ f⁻¹(y), x' ∈ f⁻¹(y'); d_f is its
  shortest-path metric (:func:`induced_metric`).
* **Def. 2 (uniform λ-sensitivity)**: a chain y_1, …, y_n is *tight* when
  d_Y(y_1, y_n) = Σ d_Y(y_i, y_{i+1}); y, y' are *λ-expansive* when
  d_Y(y, y') = λ·d_X(x, x') for some x ∈ f⁻¹(y), x' ∈ f⁻¹(y'); f is uniformly λ-sensitive
  when d_Y(f(x), f(x')) ≤ λ·d_X(x, x') for all x, x' and every y, y' are joined by a tight
  λ-expansive chain. :func:`uniform_sensitivity` decides it exactly, with a witness when
  it fails.
* **Thm. 1**: if f is uniformly λ-sensitive, H is ε·d_Y-private iff H∘f is (ελ)·d_X-private,
  so the least level of H∘f for d_X is λ times the least level of H for d_Y
  (:func:`oblivious_level`; proofs/mech_queries_thm1.py).
* **Cor. 1 (plain ε-DP)**: every f is uniformly 1-sensitive for (d_X graph metric, d_f), so
  the least ε for which H∘f is ε-DP is the least level of H for d_f (:func:`dp_epsilon`).

Examples
--------
>>> from exactdp.mechanisms.constructors import truncated_geometric
>>> X = bounded_databases([0, 1], 3)                  # 3 individuals, a bit each
>>> count = sum                                        # the count query
>>> r = dp_epsilon(truncated_geometric(4, eps="1/2"), count, X)
>>> r.value, r.sensitivity.holds
(1/2, True)
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import sympy

from exactdp.arithmetic.rationals import to_fraction, to_sympy
from exactdp.errors import ExactnessRequired, InvalidArgument, InvalidMechanism, InvalidMetric
from exactdp.kinds import proved_by
from exactdp.mechanisms.mechanism import Mechanism, MonomialForm
from exactdp.mechanisms.privacy import privacy_level
from exactdp.mechanisms.privacy_result import PrivacyLevelResult
from exactdp.spaces.metrics import FiniteMetric, from_graph

__all__ = [
    "bounded_databases",
    "unbounded_databases",
    "database_metric",
    "induced_metric",
    "oblivious_mechanism",
    "SensitivityResult",
    "uniform_sensitivity",
    "ObliviousLevel",
    "oblivious_level",
    "dp_epsilon",
]

#: Neighbour relations by name.
NEIGHBOURS = ("bounded", "unbounded")


def bounded_databases(values: Sequence[Any], individuals: int) -> list[tuple[Any, ...]]:
    """All databases V^u: tuples of ``individuals`` records with values in ``values``.

    >>> bounded_databases([0, 1], 2)
    [(0, 0), (0, 1), (1, 0), (1, 1)]
    """
    if isinstance(individuals, bool) or not isinstance(individuals, int) or individuals < 1:
        raise InvalidArgument(f"Got individuals={individuals!r}; it must be an integer ≥ 1.")
    return list(itertools.product(list(values), repeat=individuals))


def unbounded_databases(values: Sequence[Any], max_size: int) -> list[tuple[Any, ...]]:
    """All multisets of at most ``max_size`` records over ``values`` (as sorted tuples).

    >>> unbounded_databases([0, 1], 2)
    [(), (0,), (1,), (0, 0), (0, 1), (1, 1)]
    """
    if isinstance(max_size, bool) or not isinstance(max_size, int) or max_size < 0:
        raise InvalidArgument(f"Got max_size={max_size!r}; it must be an integer ≥ 0.")
    vals = list(values)
    return [tuple(c) for k in range(max_size + 1)
            for c in itertools.combinations_with_replacement(vals, k)]


def _bounded(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    return len(a) == len(b) and sum(1 for x, y in zip(a, b) if x != y) == 1


def _unbounded(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    if abs(len(a) - len(b)) != 1:
        return False
    small, big = (a, b) if len(a) < len(b) else (b, a)
    rest = list(big)
    for x in small:
        if x not in rest:
            return False
        rest.remove(x)
    return True


def _relation(neighbours: Any) -> Callable[[Any, Any], bool]:
    if neighbours == "bounded":
        return _bounded
    if neighbours == "unbounded":
        return lambda a, b: _unbounded(tuple(sorted(a)), tuple(sorted(b)))
    if callable(neighbours):
        return neighbours  # type: ignore[no-any-return]
    raise InvalidArgument(
        f"Got neighbours={neighbours!r}; use 'bounded' (replace one record), 'unbounded' "
        "(add or remove one record) or a predicate neighbours(x, x') -> bool.")


def _check_universe(databases: Sequence[Any]) -> list[Any]:
    dbs = list(databases)
    if not dbs:
        raise InvalidArgument("Got an empty database universe; pass at least one database.")
    for x in dbs:
        if not isinstance(x, Hashable):
            raise InvalidArgument(f"Got database {x!r}, which is unhashable; use tuples.")
    if len(set(dbs)) != len(dbs):
        raise InvalidArgument("The database universe lists a database twice.")
    return dbs


def database_metric(databases: Sequence[Any], neighbours: Any = "bounded") -> FiniteMetric:
    """The shortest-path metric d_X of the neighbour graph on a finite database universe.

    >>> database_metric(bounded_databases([0, 1], 2)).distance(0, 3)
    Distance(coef=Fraction(2, 1), radicand=1)
    """
    dbs = _check_universe(databases)
    rel = _relation(neighbours)
    edges = [(a, b) for a, b in itertools.combinations(dbs, 2) if rel(a, b)]
    if len(dbs) > 1 and not edges:
        raise InvalidMetric("No two databases of the universe are neighbours: d_X is undefined.")
    return from_graph(edges, nodes=dbs)


def _answers(f: Callable[[Any], Any], dbs: Sequence[Any]) -> tuple[list[Any], list[Any]]:
    fx = [f(x) for x in dbs]
    try:
        ys = sorted(set(fx))
    except TypeError:
        ys = list(dict.fromkeys(fx))
    return fx, ys


def induced_metric(
    f: Callable[[Any], Any], databases: Sequence[Any], neighbours: Any = "bounded"
) -> FiniteMetric:
    """d_f: the shortest-path metric of the graph f induces on its answers (sorted).

    >>> induced_metric(sum, bounded_databases([0, 1, 2], 2)).points
    (0, 1, 2, 3, 4)
    """
    dbs = _check_universe(databases)
    rel = _relation(neighbours)
    fx, ys = _answers(f, dbs)
    if len(ys) == 1:
        raise InvalidMetric(f"the query has a single answer {ys[0]!r}; d_f has one point.")
    pairs = set()
    for (i, a), (j, b) in itertools.combinations(enumerate(dbs), 2):
        if fx[i] != fx[j] and rel(a, b):
            pairs.add((fx[i], fx[j]) if (fx[j], fx[i]) not in pairs else (fx[j], fx[i]))
    try:
        return from_graph(sorted(pairs, key=lambda e: (ys.index(e[0]), ys.index(e[1]))),
                          nodes=ys)
    except InvalidMetric as exc:
        raise InvalidMetric(f"the induced graph of the query: {exc}") from None


def oblivious_mechanism(H: Mechanism, f: Callable[[Any], Any], databases: Sequence[Any]) -> Mechanism:
    """H∘f: row x is row f(x) of H (H's inputs must include every answer f(x)).

    The exact structure of H (monomial form) is carried over, so levels stay exact.

    >>> from exactdp.mechanisms.constructors import from_rows
    >>> H = from_rows([["3/4", "1/4"], ["1/4", "3/4"]], inputs=[0, 1])
    >>> oblivious_mechanism(H, max, [(0, 0), (0, 1), (1, 1)]).rows_fraction()[1]
    [Fraction(1, 4), Fraction(3, 4)]
    """
    if not isinstance(H, Mechanism):
        raise InvalidMechanism(f"Got {type(H).__name__}; pass an exactdp Mechanism for H.")
    dbs = _check_universe(databases)
    where = {y: i for i, y in enumerate(H.inputs)}
    rows = []
    for x in dbs:
        y = f(x)
        if y not in where:
            raise InvalidMechanism(
                f"f({x!r}) = {y!r} is not an input of H (its inputs are "
                f"{list(H.inputs)[:8]}…); label H's rows with the answers (inputs=...).")
        rows.append(where[y])
    idx = np.array(rows, dtype=np.int64)
    ents = H.entries_object()[idx]
    mono = None
    if H.monomial is not None:
        mono = MonomialForm(H.monomial.s, H.monomial.exponents[idx], H.monomial.column_factors,
                            H.monomial.symbol)
        if H.form_sealed:  # rebuilt from the form, so the form stays in force for balls too
            return Mechanism.from_form(mono, inputs=dbs, outputs=H.outputs,
                                       name=f"{H.name}∘f", precision=H.precision or 128)
    return Mechanism(ents, kind=H.kind, inputs=dbs, outputs=H.outputs, name=f"{H.name}∘f",
                     monomial=mono, precision=H.precision, row_policy=H.row_policy,
                     _validated=True)


@dataclass(frozen=True)
class SensitivityResult:
    """Def. 2, decided exactly: is f uniformly λ-sensitive w.r.t. (d_X, d_Y)?

    Attributes
    ----------
    holds : bool
    lam : Fraction
    expansion_witness : tuple | None
        (x, x') with d_Y(f(x), f(x')) > λ·d_X(x, x') (the first condition fails).
    chain_witness : tuple | None
        (y, y') joined by no tight λ-expansive chain (the second condition fails).
    """

    holds: bool
    lam: Fraction
    expansion_witness: tuple[Any, Any] | None
    chain_witness: tuple[Any, Any] | None


def _rational_distances(m: FiniteMetric, what: str) -> np.ndarray:
    vals = []
    for v in m.values:
        if not v.is_rational:
            raise ExactnessRequired(
                f"{what} has the irrational distance {v}; uniform sensitivity is decided for "
                "rational distances only.")
        vals.append(v.coef)
    out = np.empty(m.index.shape, dtype=object)
    table = np.array(vals, dtype=object)
    out[:, :] = table[m.index]
    return out


def uniform_sensitivity(
    f: Callable[[Any], Any], dX: FiniteMetric, dY: FiniteMetric, lam: Any = 1
) -> SensitivityResult:
    """Decide Def. 2 exactly: f uniformly λ-sensitive w.r.t. d_X (on databases) and d_Y.

    ``dX.points`` are the databases and ``dY.points`` the answers. A tight λ-expansive chain
    from y to y' exists iff the shortest path from y to y' over λ-expansive steps, weighted by
    d_Y, has length d_Y(y, y') (every chain is at least that long by the triangle inequality).

    >>> from exactdp.spaces.metrics import line
    >>> X = bounded_databases([0, 1], 3)
    >>> uniform_sensitivity(sum, database_metric(X), line(4)).holds
    True
    >>> uniform_sensitivity(lambda x: 3 * x[0], database_metric(X), line(4)).holds
    False
    """
    lam_q = to_fraction(lam, "lam")
    if lam_q <= 0:
        raise InvalidArgument(f"Got lam={lam!r}; λ must be > 0.")
    DX = _rational_distances(dX, "d_X")
    DY = _rational_distances(dY, "d_Y")
    ys = list(dY.points)
    pos = {y: i for i, y in enumerate(ys)}
    fx = []
    for x in dX.points:
        y = f(x)
        if y not in pos:
            raise InvalidMetric(f"f({x!r}) = {y!r} is not a point of d_Y.")
        fx.append(pos[y])
    n_y = len(ys)
    expansive = np.zeros((n_y, n_y), dtype=bool)
    for i, j in itertools.combinations(range(len(fx)), 2):
        a, b = fx[i], fx[j]
        lhs, rhs = DY[a, b], lam_q * DX[i, j]
        if lhs > rhs:
            return SensitivityResult(False, lam_q, (dX.points[i], dX.points[j]), None)
        if a != b and lhs == rhs:
            expansive[a, b] = expansive[b, a] = True
    for s in range(n_y):
        dist = _dijkstra(s, expansive, DY)
        for t in range(n_y):
            if t != s and dist.get(t) != DY[s, t]:
                return SensitivityResult(False, lam_q, None, (ys[s], ys[t]))
    return SensitivityResult(True, lam_q, None, None)


def _dijkstra(s: int, edges: np.ndarray, D: np.ndarray) -> dict[int, Fraction]:
    dist: dict[int, Fraction] = {s: Fraction(0)}
    heap: list[tuple[Fraction, int]] = [(Fraction(0), s)]
    while heap:
        d, u = heapq.heappop(heap)
        if d > dist[u]:
            continue
        for v in np.nonzero(edges[u])[0].tolist():
            nd = d + D[u, v]
            if v not in dist or nd < dist[v]:
                dist[v] = nd
                heapq.heappush(heap, (nd, v))
    return dist


@dataclass(frozen=True)
class ObliviousLevel:
    """The least ε for which H∘f is ε·d_X-private, from Thm. 1 (exact).

    ``value`` = λ · ``noise_level.value``; ``noise_level`` is H's own level for d_Y and
    ``sensitivity`` the Def. 2 decision that makes Thm. 1 apply.
    """

    value: sympy.Expr
    noise_level: PrivacyLevelResult
    sensitivity: SensitivityResult

    def __str__(self) -> str:
        if self.sensitivity.lam == 1:
            return self.noise_level.short()
        return f"{self.sensitivity.lam}·({self.noise_level.short()})"


@proved_by("mech_queries_thm1")
def oblivious_level(
    H: Mechanism, f: Callable[[Any], Any], dX: FiniteMetric, dY: FiniteMetric, lam: Any = 1
) -> ObliviousLevel:
    """Thm. 1: the least level of H∘f for d_X is λ·(least level of H for d_Y).

    Proof (both directions, and why the least levels scale by λ): proofs/mech_queries_thm1.py.

    Raises :class:`~exactdp.errors.InvalidArgument` when f is not uniformly λ-sensitive
    (then Thm. 1 says nothing: compute ``privacy_level(oblivious_mechanism(H, f, X), dX)``).
    """
    sens = uniform_sensitivity(f, dX, dY, lam)
    if not sens.holds:
        why = (f"d_Y(f(x), f(x')) > λ·d_X(x, x') at {sens.expansion_witness}"
               if sens.expansion_witness is not None
               else f"no tight λ-expansive chain joins {sens.chain_witness}")
        raise InvalidArgument(
            f"f is not uniformly {sens.lam}-sensitive ({why}); Thm. 1 does not apply. "
            "Use privacy_level(oblivious_mechanism(H, f, databases), d_X) directly.")
    if tuple(H.inputs) != tuple(dY.points):
        raise InvalidMechanism("H's inputs must be d_Y's points, in the same order.")
    lvl = privacy_level(H, dY)
    value = lvl.value if lvl.value is not None else None
    if value is None:
        raise ExactnessRequired(
            f"{H.name} has a certified (enclosure-only) level; Thm. 1 gives λ times it: "
            f"λ·{lvl.enclosure}.")
    return ObliviousLevel(to_sympy(sens.lam) * value, lvl, sens)


def dp_epsilon(
    H: Mechanism, f: Callable[[Any], Any], databases: Sequence[Any], neighbours: Any = "bounded"
) -> ObliviousLevel:
    """Cor. 1: the least ε for which H∘f is ε-differentially private, exactly.

    The neighbour relation is "bounded" (replace one record) or "unbounded" (add/remove
    one record); H's rows are the query's answers (sorted, or labelled with ``inputs=``;
    a mechanism with unlabelled rows 0..n−1 is matched to the sorted answers).
    """
    dbs = _check_universe(databases)
    dX = database_metric(dbs, neighbours)
    df = induced_metric(f, dbs, neighbours)
    if tuple(H.inputs) != tuple(df.points):
        if H.n_inputs != df.n:
            raise InvalidMechanism(
                f"H has {H.n_inputs} inputs but the query has {df.n} answers {list(df.points)[:8]}….")
        H = H.relabeled(inputs=df.points)  # same entries and forms (in force if they were)
    return oblivious_level(H, f, dX, df, 1)
