"""The exactly optimal d-private mechanism for a prior and a gain or loss, by LP.

"Float to find, exact to prove" (``docs/readme/qif.md``):

1. *find* — scipy's HiGHS solves the LP of :mod:`exactdp.qif.optimal_lp` in floats
   (sparse, n·m unknowns);
2. *prove* — its active set is turned into exact numbers: in an optimal K every used
   column is positive on every secret (φ > 0 propagates positivity along privacy edges),
   and on the tight privacy constraints of a column its entries have exact ratios φ, so
   K[x][w] = scale · shape[x][w] with an exact shape; the scales solve a small exact linear
   system (``flint.fmpq_mat``) from the row sums. The dual u solves the complementary-
   slackness consistency equations Σ_x shape (c − u) = 0 (one per used column and
   component; when these leave u free, unused columns whose float reduced costs vanish
   add their equations), λ follows on each column's tight tree by leaf elimination (or, when the tight
   constraints form cycles and the tree gives a negative λ, by a small exact LP over all
   exactly tight constraints of that column), and unused
   columns get λ from HiGHS's duals (checked exactly) or a small exact LP;
3. *check* — :class:`~exactdp.qif.optimal_lp.DualityCertificate` re-checks primal and
   dual feasibility and equal objectives exactly.
4. *degenerate optima* — when the tight trees leave the dual ambiguous (λ < 0 on a tree),
   the dual vertex HiGHS found is read instead: its positive multipliers and its vanishing
   reduced costs give a sparse linear system for (u, λ), solved by exact row reduction
   (``fmpq_mat.rref``, at most ``MAX_DUAL_SYSTEM_CELLS``), and paired with the exact primal
   of step 2; the same exact check decides.

When the float active set does not verify, the dense exact simplex
(:func:`exactdp.algebra.lp.solve_lp`, primal and dual) runs instead for small problems: its
tableau has (E·m + n) rows and (n·m + E·m) columns (E directed privacy edges), and it runs
only when that size is at most ``MAX_EXACT_SIMPLEX_CELLS``; otherwise
:class:`~exactdp.errors.LPNotCertified` is raised naming the size and the limit (never a
float answer).

The result stores its question (the metric's fingerprint, the prior, t and the gain) and
round-trips through JSON (:meth:`OptimalMechanism.to_json` / :meth:`OptimalMechanism.from_json`,
the metric written by :mod:`exactdp.kernel.metricio`); ``verify(metric, prior, t=…, gain=…)``
also checks that it answers *your* question.

Examples
--------
>>> from exactdp.spaces.metrics import line
>>> r = optimal_mechanism(line(3), "uniform", t="1/2")
>>> r.value, r.verify()         # = Σα of Thm. 2 for this regular prior
(Fraction(5, 9), True)
>>> r.verify(line(3), "uniform", t="1/3")      # not the question it answers
False
>>> OptimalMechanism.from_json(r.to_json()).verify(line(3), "uniform", t="1/2")
True
"""

from __future__ import annotations

from collections import deque
from fractions import Fraction
from typing import Any

import flint
import numpy as np
from scipy.optimize import linprog
from scipy.sparse import csr_matrix

from exactdp.algebra.lp import solve_lp
from exactdp.arithmetic.rationals import fmpq_to_fraction, to_fmpq
from exactdp.errors import InvalidArgument, LPNotCertified
from exactdp.mechanisms.constructors import from_rows
from exactdp.qif.channel import Matrix
from exactdp.qif.gain import GainFunction
from exactdp.qif.optimal_lp import (
    DualityCertificate,
    OptimalMechanism,
    OptimalProblem,
    OptimalQuestion,
    build_problem,
)
from exactdp.spaces.levels import parse_level
from exactdp.spaces.metrics import FiniteMetric

__all__ = ["OptimalMechanism", "optimal_mechanism", "float_optimal_lp", "MAX_EXACT_SIMPLEX",
           "MAX_EXACT_SIMPLEX_CELLS", "exact_simplex_cells"]

#: Largest n·m for which the dense exact simplex is run (directly or as the fallback).
MAX_EXACT_SIMPLEX = 100
#: Largest primal tableau, rows × columns = (E·m + n)(n·m + E·m), of the dense exact simplex
#: (see :func:`exact_simplex_cells`; the measured cost is in ``docs/readme/qif.md``).
MAX_EXACT_SIMPLEX_CELLS = 6_000
#: Largest exact row reduction (equations × unknowns) of the degenerate-dual fallback.
MAX_DUAL_SYSTEM_CELLS = 2_000_000
#: Relative tolerance used to *read* the float active set (the proof is exact regardless).
TOL = 1e-9
#: Float entries below this fraction of their column's maximum are treated as noise.
RELIABLE = 1e-6


def _float_arrays(P: OptimalProblem) -> tuple[np.ndarray, Any, np.ndarray, Any]:
    n, m = P.n, P.m
    c = np.array([-float(P.cost(x, w)) for x in range(n) for w in range(m)])
    rows, cols, vals = [], [], []
    for k, (a, b, phi) in enumerate(P.edges):
        for w in range(m):
            r = k * m + w
            rows += [r, r]
            cols += [a * m + w, b * m + w]
            vals += [float(phi), -1.0]
    A_ub = csr_matrix((vals, (rows, cols)), shape=(len(P.edges) * m, n * m))
    er = [x for x in range(n) for _ in range(m)]
    A_eq = csr_matrix((np.ones(n * m), (er, list(range(n * m)))), shape=(n, n * m))
    return c, A_ub, np.zeros(len(P.edges) * m), A_eq


def float_optimal_lp(P: OptimalProblem) -> Any:
    """The same LP solved by scipy HiGHS in float64 (uncertified; the *find* step)."""
    c, A_ub, b_ub, A_eq = _float_arrays(P)
    res = linprog(c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=np.ones(P.n), bounds=(0, None),
                  method="highs", options={"primal_feasibility_tolerance": 1e-10,
                                           "dual_feasibility_tolerance": 1e-10})
    if res.status != 0:
        raise LPNotCertified(f"HiGHS did not solve the LP: {res.message}")
    return res


def _solve_exact(M: list[list[Fraction]], rhs: list[Fraction]) -> list[Fraction] | None:
    """Exact solution of M v = rhs (least squares via normal equations when not square)."""
    if not M or not M[0]:
        return None
    rows, cols = len(M), len(M[0])
    A = flint.fmpq_mat(rows, cols, [to_fmpq(v) for r in M for v in r])
    b = flint.fmpq_mat(rows, 1, [to_fmpq(v) for v in rhs])
    if rows != cols:
        At = A.transpose()
        A, b = At * A, At * b
    try:
        sol = A.solve(b)
    except (ZeroDivisionError, ValueError):
        return None
    return [fmpq_to_fraction(sol[i, 0]) for i in range(cols)]


def _components(P: OptimalProblem, col: np.ndarray, tol: float
                ) -> list[list[tuple[int, Fraction, int | None]]]:
    """Tight-edge spanning trees of a used column: per component, (node, shape, tree edge).

    Entries below ``RELIABLE``·max are float noise (HiGHS rounds entries like t^40 to 0), but
    every entry of a used column is positive: such an entry is attached *downhill*
    (K[b] = φ K[a]) to a reliable neighbour. Among reliable entries a constraint is read as
    tight when its residual is within ``tol`` (relative). The exact check decides anyway.
    """
    n = P.n
    top = float(col.max())
    reliable = col >= RELIABLE * top
    adj: list[list[tuple[int, int, Fraction, bool]]] = [[] for _ in range(n)]
    out: list[list[tuple[int, int, Fraction]]] = [[] for _ in range(n)]
    for k, (a, b, phi) in enumerate(P.edges):
        out[a].append((k, b, phi))
        res = abs(float(phi) * col[a] - col[b])
        tight = bool(reliable[a] and reliable[b]
                     and res <= tol * max(col[a], col[b]) + 1e-3 * tol * top)
        downhill = bool(reliable[a] and not reliable[b])
        if tight or downhill:
            adj[a].append((k, b, phi, tight))        # K[b] = φ K[a]
        if tight:
            adj[b].append((k, a, 1 / phi, True))     # K[a] = K[b] / φ
    seen = [False] * n
    comps = []
    order = sorted(range(n), key=lambda x: -col[x])
    for root in order:
        if seen[root]:
            continue
        seen[root] = True
        comp: list[tuple[int, Fraction, int | None]] = [(root, Fraction(1), None)]
        shape = {root: Fraction(1)}
        queue = deque([root])
        while queue:
            a = queue.popleft()
            for k, b, ratio, _t in adj[a]:
                if not seen[b]:
                    seen[b] = True
                    shape[b] = shape[a] * ratio
                    comp.append((b, shape[b], k))
                    queue.append(b)
                    # noise entries propagate downhill further
                    if not reliable[b]:
                        adj[b] += [(k2, b2, phi2, False) for k2, b2, phi2 in out[b]
                                   if not reliable[b2] and not seen[b2]]
        comps.append(comp)
    return comps


def _certify_from_float(P: OptimalProblem, res: Any) -> DualityCertificate | None:
    for tol in (1e-7, 1e-5, 1e-9):
        cert = _certify_at(P, res, tol)
        if cert is not None and cert.verify():
            return cert
    # degenerate optimum: the primal's tight trees leave the dual ambiguous; read the dual
    # vertex HiGHS found instead (its active multipliers and tight reduced costs)
    for tol in (1e-9, 1e-7):
        dual = _dual_from_float(P, res, tol)
        if dual is None:
            continue
        u, lam = dual
        primal = _primal_at(P, res, tol)
        if primal is not None:
            cert = DualityCertificate(P, primal[0], tuple(u), lam)
            if cert.verify():
                return cert
    return None


def _primal_at(P: OptimalProblem, res: Any, tol: float) -> tuple[Matrix, Any, Any, Any] | None:
    """Exact K from the float active set: (K, blocks, M, used), or None."""
    n, m = P.n, P.m
    Kf = np.asarray(res.x).reshape(n, m)
    top = float(Kf.max())
    used = [w for w in range(m) if Kf[:, w].max() > TOL * top]
    # (column, component tree) for every used column
    blocks = [(w, comp) for w in used for comp in _components(P, Kf[:, w], tol)]
    M = [[Fraction(0)] * len(blocks) for _ in range(n)]
    for s, (_w, comp) in enumerate(blocks):
        for x, sh, _k in comp:
            M[x][s] = sh
    scales = _solve_exact(M, [Fraction(1)] * n)
    if scales is None or any(v < 0 for v in scales):
        return None
    K = [[Fraction(0)] * m for _ in range(n)]
    for (w, comp), sc in zip(blocks, scales):
        for x, sh, _k in comp:
            K[x][w] = sc * sh
    return tuple(tuple(r) for r in K), blocks, M, used


def _dual_from_float(P: OptimalProblem, res: Any, tol: float
                     ) -> tuple[list[Fraction], dict[tuple[int, int], Fraction]] | None:
    """The dual vertex HiGHS found, made exact: solve its active system in ``fmpq``.

    Unknowns: u and the multipliers λ that HiGHS reports positive; equations: every dual
    constraint u_x + (Aᵀλ)_{x,w} = c[x][w] whose float reduced cost vanishes. The system is
    solved by exact row reduction (free unknowns set to 0); the caller's exact check decides.
    """
    n, m = P.n, P.m
    rc = np.asarray(res.lower.marginals).reshape(n, m)
    lam_f = -np.asarray(res.ineqlin.marginals)
    scale = max(1.0, float(np.abs(lam_f).max()) if lam_f.size else 1.0)
    active = [(k, w) for k in range(len(P.edges)) for w in range(m)
              if lam_f[k * m + w] > tol * scale]
    coeffs: dict[tuple[int, int], dict[int, Fraction]] = {}
    for j, (k, w) in enumerate(active):
        a, b, phi = P.edges[k]
        coeffs.setdefault((a, w), {})[n + j] = phi
        row_b = coeffs.setdefault((b, w), {})
        row_b[n + j] = row_b.get(n + j, Fraction(0)) - 1
    cmax = max(1.0, max(abs(float(P.cost(x, w))) for x in range(n) for w in range(m)))
    eqs = [(x, w) for x in range(n) for w in range(m) if abs(rc[x, w]) <= tol * cmax]
    rows = []
    for x, w in eqs:
        row = dict(coeffs.get((x, w), {}))
        row[x] = Fraction(1)
        rows.append(row)
    sol = _rref_solve(rows, [P.cost(x, w) for x, w in eqs], n + len(active))
    if sol is None:
        return None
    lam = {key: sol[n + j] for j, key in enumerate(active) if sol[n + j]}
    return sol[:n], lam


def _rref_solve(rows: list[dict[int, Fraction]], rhs: list[Fraction], cols: int
                ) -> list[Fraction] | None:
    """A solution of the sparse exact system (free unknowns 0), None if inconsistent/too big."""
    if not rows or len(rows) * cols > MAX_DUAL_SYSTEM_CELLS:
        return None
    A = flint.fmpq_mat(len(rows), cols + 1)
    for i, (row, b) in enumerate(zip(rows, rhs)):
        for j, v in row.items():
            A[i, j] = to_fmpq(v)
        A[i, cols] = to_fmpq(b)
    R, rank = A.rref()
    sol = [Fraction(0)] * cols
    for i in range(rank):
        piv = next(j for j in range(cols + 1) if R[i, j] != 0)
        if piv == cols:
            return None
        sol[piv] = fmpq_to_fraction(R[i, cols])
    return sol


def _certify_at(P: OptimalProblem, res: Any, tol: float) -> DualityCertificate | None:
    primal = _primal_at(P, res, tol)
    if primal is None:
        return None
    K, blocks, M, used = primal
    m = P.m
    u = _dual_u(P, res, blocks, M, used, tol)
    if u is None:
        return None
    lam: dict[tuple[int, int], Fraction] = {}
    for w, comp in blocks:
        got = _tree_lambda(P, w, comp, u)
        if got is None:
            got = _cycle_lambda(P, w, comp, u)
        if got is None:
            return None
        lam.update(got)
    lam_f = -np.asarray(res.ineqlin.marginals)
    for w in range(m):
        if w in used:
            continue
        col_lam = _unused_column(P, w, u, lam_f)
        if col_lam is None:
            return None
        lam.update(col_lam)
    return DualityCertificate(P, K, tuple(u), lam)


def _dual_u(P: OptimalProblem, res: Any, blocks: list[Any], M: list[list[Fraction]],
            used: list[int], tol: float) -> list[Fraction] | None:
    """Exact dual u from the consistency equations Σ_{x∈s} shape_x (c[x][w] − u_x) = 0.

    One equation per used block; when they leave u free (a degenerate primal), HiGHS's dual
    vertex is pinned by *virtual* blocks: unused columns whose dual constraints are tight
    (reduced cost ≈ 0), shaped by their positive float multipliers. Failing that, HiGHS's u,
    rounded, is projected exactly onto the solutions of the used blocks' equations.
    """
    n = P.n
    rows = [[M[x][s] for x in range(n)] for s in range(len(blocks))]
    d = [sum((sh * P.cost(x, w) for x, sh, _k in comp), Fraction(0)) for w, comp in blocks]
    if len(blocks) < n:
        extra_rows, extra_d = _virtual_blocks(P, res, used, tol)
        A, b = rows + extra_rows, d + extra_d
        u = _solve_exact(A, b)
        if u is not None and all(
                sum((r[x] * u[x] for x in range(n) if r[x]), Fraction(0)) == bi
                for r, bi in zip(A, b)):
            return u
    u0 = [Fraction(-float(v)).limit_denominator(10**12) for v in res.eqlin.marginals]
    resid = [ds - sum((row[x] * u0[x] for x in range(n) if row[x]), Fraction(0))
             for ds, row in zip(d, rows)]
    if len(blocks) >= n:
        y = _solve_exact(rows, resid)
        return None if y is None else [u0[x] + y[x] for x in range(n)]
    gram = [[sum((ri[x] * rj[x] for x in range(n)), Fraction(0)) for rj in rows] for ri in rows]
    z = _solve_exact(gram, resid)
    if z is None:
        return None
    return [u0[x] + sum((M[x][s] * z[s] for s in range(len(blocks))), Fraction(0))
            for x in range(n)]


def _virtual_blocks(P: OptimalProblem, res: Any, used: list[int], tol: float
                    ) -> tuple[list[list[Fraction]], list[Fraction]]:
    """Consistency rows of unused columns that HiGHS's dual treats as usable (see _dual_u)."""
    n, m = P.n, P.m
    rc = np.asarray(res.lower.marginals).reshape(n, m)
    lam_f = -np.asarray(res.ineqlin.marginals)
    scale = max(1.0, float(np.abs(lam_f).max()) if lam_f.size else 1.0)
    rows: list[list[Fraction]] = []
    rhs: list[Fraction] = []
    for w in range(m):
        if w in used:
            continue
        live = [abs(rc[x, w]) <= 1e-9 for x in range(n)]
        adj: list[list[tuple[int, Fraction]]] = [[] for _ in range(n)]
        active = [(a, b, phi) for k, (a, b, phi) in enumerate(P.edges)
                  if lam_f[k * m + w] > tol * scale]
        for a, b, phi in active:
            if live[a] and live[b]:
                adj[a].append((b, phi))
                adj[b].append((a, 1 / phi))
        seen = [False] * n
        for root in range(n):
            if not live[root] or seen[root]:
                continue
            seen[root] = True
            shape = {root: Fraction(1)}
            queue = deque([root])
            while queue:
                a = queue.popleft()
                for b, ratio in adj[a]:
                    if not seen[b]:
                        seen[b] = True
                        shape[b] = shape[a] * ratio
                        queue.append(b)
            # valid only if every active multiplier at the component stays inside it and is
            # tight for the shape (then Σ shape·(Aᵀλ) = 0 and the row holds at the dual vertex)
            if all((a in shape) == (b in shape) and (a not in shape or phi * shape[a] == shape[b])
                   for a, b, phi in active if a in shape or b in shape):
                rows.append([shape.get(x, Fraction(0)) for x in range(n)])
                rhs.append(sum((sh * P.cost(x, w) for x, sh in shape.items()), Fraction(0)))
    return rows, rhs


def _tree_lambda(P: OptimalProblem, w: int, comp: list[tuple[int, Fraction, int | None]],
                 u: list[Fraction]) -> dict[tuple[int, int], Fraction] | None:
    """λ on a component's tight spanning tree by leaf elimination (None if some λ < 0)."""
    lam: dict[tuple[int, int], Fraction] = {}
    resid_x = {x: P.cost(x, w) - u[x] for x, _sh, _k in comp}
    for x, _sh, k in reversed(comp):
        if k is None:
            if resid_x[x] != 0:
                return None
            continue
        a, b, phi = P.edges[k]
        coeff_x, other, coeff_o = (phi, b, Fraction(-1)) if x == a else (Fraction(-1), a, phi)
        val = resid_x[x] / coeff_x
        if val < 0:
            return None
        if val:
            lam[(k, w)] = val
        resid_x[other] -= coeff_o * val
    return lam


def _cycle_lambda(P: OptimalProblem, w: int, comp: list[tuple[int, Fraction, int | None]],
                  u: list[Fraction]) -> dict[tuple[int, int], Fraction] | None:
    """λ ≥ 0 over *all* exactly tight constraints of a component (cycles), by an exact LP."""
    shape = {x: sh for x, sh, _k in comp}
    nodes = sorted(shape)
    row = {x: i for i, x in enumerate(nodes)}
    ks = [k for k, (a, b, phi) in enumerate(P.edges)
          if a in shape and b in shape and phi * shape[a] == shape[b]]
    if len(nodes) * len(ks) > 20000:
        return None
    A = [[Fraction(0)] * len(ks) for _ in nodes]
    for j, k in enumerate(ks):
        a, b, phi = P.edges[k]
        A[row[a]][j] += phi
        A[row[b]][j] -= 1
    sol = solve_lp(A, [P.cost(x, w) - u[x] for x in nodes])
    if not sol.feasible or sol.x is None:
        return None
    return {(k, w): v for k, v in zip(ks, sol.x) if v}


def _unused_column(P: OptimalProblem, w: int, u: list[Fraction], lam_f: np.ndarray
                   ) -> dict[tuple[int, int], Fraction] | None:
    """λ ≥ 0 on column w with u_x + (Aᵀλ)_x ≥ c[x][w]: rounded HiGHS duals, else an exact LP."""
    n, m = P.n, P.m
    need = [P.cost(x, w) - u[x] for x in range(n)]
    if all(v <= 0 for v in need):
        return {}
    for denom in (10**6, 10**12):
        lam = {(k, w): Fraction(float(lam_f[k * m + w])).limit_denominator(denom)
               for k in range(len(P.edges)) if lam_f[k * m + w] > 0}
        got = [Fraction(0)] * n
        for (k, _w), v in lam.items():
            a, b, phi = P.edges[k]
            got[a] += phi * v
            got[b] -= v
        if all(g >= r for g, r in zip(got, need)):
            return {key: v for key, v in lam.items() if v}
    # exact LP: Σ_k coeff λ_k − s_x = need_x, λ, s ≥ 0
    E = len(P.edges)
    A = [[Fraction(0)] * (E + n) for _ in range(n)]
    for k, (a, b, phi) in enumerate(P.edges):
        A[a][k] += phi
        A[b][k] -= 1
    for x in range(n):
        A[x][E + x] = Fraction(-1)
    sol = solve_lp(A, need)
    if not sol.feasible or sol.x is None:
        return None
    return {(k, w): sol.x[k] for k in range(E) if sol.x[k]}


def _exact_simplex(P: OptimalProblem) -> DualityCertificate:
    """Primal and dual of the LP by the dense exact simplex (small problems)."""
    n, m, E = P.n, P.m, len(P.edges)
    N = n * m
    # primal: K (N) + slacks (E·m); rows: privacy (E·m) then row sums (n); min −c·K
    A = []
    for k, (a, b, phi) in enumerate(P.edges):
        for w in range(m):
            row = [Fraction(0)] * (N + E * m)
            row[a * m + w] += phi
            row[b * m + w] -= 1
            row[N + k * m + w] = Fraction(1)
            A.append(row)
    for x in range(n):
        A.append([Fraction(int(v // m == x)) for v in range(N)] + [Fraction(0)] * (E * m))
    rhs = [Fraction(0)] * (E * m) + [Fraction(1)] * n
    c = [-P.cost(v // m, v % m) for v in range(N)] + [Fraction(0)] * (E * m)
    primal = solve_lp(A, rhs, c)
    assert primal.x is not None
    K = tuple(tuple(primal.x[x * m:(x + 1) * m]) for x in range(n))
    # dual: u = u⁺ − u⁻ (2n), λ (E·m), surplus (N); rows (x, w): u_x + (Aᵀλ) − s = c
    D = []
    for x in range(n):
        for w in range(m):
            row = [Fraction(0)] * (2 * n + E * m + N)
            row[x], row[n + x] = Fraction(1), Fraction(-1)
            row[2 * n + E * m + x * m + w] = Fraction(-1)
            D.append(row)
    for k, (a, bb, phi) in enumerate(P.edges):
        for w in range(m):
            D[a * m + w][2 * n + k * m + w] += phi
            D[bb * m + w][2 * n + k * m + w] -= 1
    cd = [Fraction(1)] * n + [Fraction(-1)] * n + [Fraction(0)] * (E * m + N)
    dual = solve_lp(D, [P.cost(v // m, v % m) for v in range(N)], cd)
    assert dual.x is not None
    u = tuple(dual.x[x] - dual.x[n + x] for x in range(n))
    lam = {(k, w): dual.x[2 * n + k * m + w] for k in range(E) for w in range(m)
           if dual.x[2 * n + k * m + w]}
    return DualityCertificate(P, K, u, lam)


def optimal_mechanism(metric: FiniteMetric, prior: Any = "uniform", eps: Any = None, *,
                      t: Any = None, gain: GainFunction | Any = None,
                      method: str = "auto") -> OptimalMechanism:
    """The exactly optimal ε·d-private mechanism for ``prior`` and ``gain`` (default binary).

    Parameters
    ----------
    metric : FiniteMetric
        Rational distances (q-th roots of t rational); its graph edges are used when recorded.
    prior : "uniform" or sequence
    eps, t : the privacy level (t = e^{-ε} rational for an exact answer)
    gain : GainFunction, matrix or None
        Outputs are its actions; a loss (``GainFunction.distance_loss``) is minimised.
    method : "auto", "float-basis" or "exact-simplex"
        "auto": float-basis, then the exact simplex when that does not verify (small n·m).
    """
    if method not in ("auto", "float-basis", "exact-simplex"):
        raise InvalidArgument(
            f"Got method={method!r}; use 'auto', 'float-basis' or 'exact-simplex'.")
    level = parse_level(eps=eps, t=t)
    if level.t is not None:
        level = parse_level(t=level.t)          # canonical form: the question is t
    P = build_problem(metric, prior, level, gain)
    cert: DualityCertificate | None = None
    used = method
    if method != "exact-simplex":
        cert = _certify_from_float(P, float_optimal_lp(P))
        used = "float-basis"
        if cert is not None and not cert.verify():
            cert = None
    if cert is None:
        cells = exact_simplex_cells(P)
        too_big = P.n * P.m > MAX_EXACT_SIMPLEX or cells > MAX_EXACT_SIMPLEX_CELLS
        if method == "float-basis" or too_big:
            why = ("" if method == "float-basis" else
                   f"; the exact-simplex fallback is refused: its tableau has {cells} cells "
                   f"(n·m = {P.n * P.m}) and the limits are MAX_EXACT_SIMPLEX_CELLS = "
                   f"{MAX_EXACT_SIMPLEX_CELLS}, MAX_EXACT_SIMPLEX = {MAX_EXACT_SIMPLEX} "
                   "(measured: cycle(5), 4125 cells, 3.5 s; discrete(5), 13125 cells, 29 s; "
                   "line(10), 53200 cells, ~50 s)")
            raise LPNotCertified(
                "the float optimum's active set did not give an exact certificate" + why
                + ". Fix: a rational t with a smaller denominator, fewer secrets or actions, "
                "or raise optimal.MAX_EXACT_SIMPLEX_CELLS knowingly (minutes of CPU)."
            )
        cert = _exact_simplex(P)
        used = "exact-simplex"
        if not cert.verify():
            raise LPNotCertified("the exact simplex's primal/dual pair did not verify (a bug: "
                                 "please report the instance).")
    value = P.sign * cert.objective
    mech = from_rows([list(r) for r in cert.mechanism], name=f"optimal({metric.name})")
    return OptimalMechanism(value, mech, cert, used, OptimalQuestion.of(P))


def exact_simplex_cells(P: OptimalProblem) -> int:
    """Size (E·m + n)(n·m + E·m) of the primal tableau of :func:`_exact_simplex`.

    >>> from exactdp.spaces.metrics import line
    >>> exact_simplex_cells(build_problem(line(3), "uniform", parse_level(t="1/2"), None))
    315
    """
    Em = len(P.edges) * P.m
    return (Em + P.n) * (P.n * P.m + Em)


def as_matrix(result: OptimalMechanism) -> Matrix:
    """The optimal mechanism's exact entries."""
    return result.certificate.mechanism
