"""How the SPD cover multiplies by, solves with and bounds λ_min of Φ(ε): dense or matrix-free.

A provider stands for the matrices M[i, l] = table[value index of d(i, l)] of a metric,
given a table with one entry per distinct distance value:

* :class:`DenseProvider` (any metric) gathers the n×n matrix through ``metric.index``,
  solves by Levinson (Toeplitz Φ), Cholesky or LU, and proves λ_min bounds by a chain of
  shifted Cholesky nodes (:mod:`exactdp.threshold.lambda_bounds`);
* :class:`GridProvider` (large Euclidean grids) never forms the n×n matrix: block-Toeplitz
  products, FFT + conjugate gradients, and the size-free lattice symbol bound of
  :mod:`exactdp.algebra.lattice_spectrum`.

:func:`provider_for` picks one by the matrix-free size rule of :mod:`exactdp.spaces.grid`.

Examples
--------
>>> from exactdp.spaces.metrics import grid, line
>>> type(provider_for(line(4))).__name__, type(provider_for(grid(51, 51))).__name__
('DenseProvider', 'GridProvider')
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Protocol

import numpy as np

from exactdp.algebra.lattice_spectrum import euclidean_lattice_lambda_lower
from exactdp.arithmetic.rounding import dyadic_down
from exactdp.errors import InvalidMetric
from exactdp.linalg.exact_products import exact_table_matvec
from exactdp.linalg.grid_exact_conv import GridConvolution
from exactdp.linalg.grid_pcg import grid_fft_matvec, grid_pcg_solver
from exactdp.spaces.grid import offset_value_codes, use_matrix_free
from exactdp.spaces.metrics import FiniteMetric
from exactdp.threshold.lambda_bounds import chord_bound, dense_lambda_node, second_derivative_row_bound

__all__ = ["PhiProvider", "DenseProvider", "GridProvider", "provider_for"]


class PhiProvider(Protocol):
    """How to multiply by and solve with a distance-table matrix (dense or structured)."""

    n: int
    gamma_terms: int  # every output of matvec is a sum of ≤ gamma_terms products
    #: True when :meth:`exact_matvec` is quasi-linear (then the SPD cover bounds its
    #: products exactly instead of by the float rounding model)
    fast_exact: bool

    def matvec(self, table: np.ndarray, V: np.ndarray) -> np.ndarray:
        """fl(M V) for M[i, l] = table[value index of d(i, l)] (V of shape (n, m))."""

    def exact_matvec(self, table: list[int], columns: list[list[int]]) -> list[list[int]]:
        """M·v exactly for an integer table (any sign) and integer vectors."""

    def exact_block_products(self, tables: list[list[int]],
                             columns: list[list[int]]) -> list[list[int]]:
        """The Cauchy sums Σ_{j+k=m} M_j·v_k exactly (m = 0 … len(tables) + len(columns) − 2)."""

    def approx_matvec(self, table: np.ndarray, v: np.ndarray) -> np.ndarray:
        """≈ M v for one vector, no error bound (candidates only; FFT on grids)."""

    def solver(self, table: np.ndarray) -> Any:
        """A float solver B ↦ M⁻¹B for the table of Φ_0 (uncertified)."""

    def lambda_lower(self, a: Fraction, b: Fraction) -> Fraction:
        """Rigorous lower bound of λ_min(Φ(ε)) for every ε in [a, b] (≤ 0: unknown)."""


class DenseProvider:
    """Any finite metric: gathers tables through ``metric.index``; Cholesky λ bounds."""

    def __init__(self, metric: FiniteMetric) -> None:
        self.metric = metric
        self.n = metric.n
        self.gamma_terms = metric.n + 2
        self.fast_exact = False
        self.idx = metric.index
        self.nodes: dict[Fraction, tuple[Fraction, Fraction]] = {}  # ε → (σ, λ lower)
        self.chain: list[Fraction] = []
        self._cache: dict[bytes, np.ndarray] = {}
        # gathered n×n tables kept: at most 8, and at most ~256 MB of them
        self._cache_entries = max(2, min(8, 2**28 // (8 * self.n * self.n + 1)))

    def _gather(self, table: np.ndarray) -> np.ndarray:
        key = table.tobytes()
        M = self._cache.get(key)
        if M is None:
            if len(self._cache) >= self._cache_entries:
                self._cache.pop(next(iter(self._cache)))
            M = self._cache[key] = table[self.idx]
        return M

    def matvec(self, table: np.ndarray, V: np.ndarray) -> np.ndarray:
        return np.asarray(self._gather(table) @ V)

    def exact_matvec(self, table: list[int], columns: list[list[int]]) -> list[list[int]]:
        """Exact products by limb splitting (:func:`exactdp.linalg.exact_products.exact_table_matvec`),
        a signed table as the difference of its positive and negative parts."""
        pos = [max(int(t), 0) for t in table]
        out = exact_table_matvec(self.matvec, self.n, pos, columns)
        if any(int(t) < 0 for t in table):
            neg = exact_table_matvec(self.matvec, self.n, [max(-int(t), 0) for t in table], columns)
            out = [[p - q for p, q in zip(po, ne)] for po, ne in zip(out, neg)]
        return out

    def exact_block_products(self, tables: list[list[int]],
                             columns: list[list[int]]) -> list[list[int]]:
        """Cauchy sums of :meth:`exact_matvec` products (one product per pair)."""
        out = [[0] * self.n for _ in range(len(tables) + len(columns) - 1)]
        for j, t in enumerate(tables):
            for k, col in enumerate(self.exact_matvec(t, list(columns))):
                out[j + k] = [a + b for a, b in zip(out[j + k], col)]
        return out

    def approx_matvec(self, table: np.ndarray, v: np.ndarray) -> np.ndarray:
        return np.asarray(self.matvec(table, v[:, None])[:, 0])

    def solver(self, table: np.ndarray) -> Any:
        from scipy.linalg import (  # deferred: scipy.linalg adds ~0.5 s to `import exactdp`
            cho_factor,
            cho_solve,
            lu_factor,
            lu_solve,
            solve_toeplitz,
        )

        if self.metric.toeplitz:  # Levinson, O(n²) per right-hand side
            col = table[self.idx[:, 0]]
            return lambda B: solve_toeplitz(col, B, check_finite=False)
        M = self._gather(table)
        try:
            f = cho_factor(M, lower=True, check_finite=False)
            return lambda B: cho_solve(f, B, check_finite=False)
        except np.linalg.LinAlgError:
            lu = lu_factor(M, check_finite=False)
            return lambda B: lu_solve(lu, B, check_finite=False)

    def node(self, eps: Fraction, hint: Fraction | None = None) -> Fraction:
        if eps not in self.nodes:
            if hint is None and self.nodes:
                near = min(self.nodes, key=lambda e: abs(e - eps))
                if abs(near - eps) < Fraction(1, 100) and self.nodes[near][1] > 0:
                    hint = self.nodes[near][0]
            self.nodes[eps] = dense_lambda_node(self.metric, eps, hint)
        return self.nodes[eps][1]

    def lambda_lower(self, a: Fraction, b: Fraction) -> Fraction:
        """Proved λ_min lower bound on [a, b] from a chain of Cholesky nodes (chord lemma).

        The chain starts at the first ``a`` asked for and grows to the right with steps
        Δ = √(2λ/S₂) (so the chord loss (Δ²/8)·S₂ is ≤ λ/4); ranges left of the chain
        get their own two nodes.
        """
        if not self.chain or a < self.chain[0]:
            return self._single(a, b)
        while self.chain[-1] < b:
            e = self.chain[-1]
            lam = self.node(e)
            if lam <= 0:
                return Fraction(0)
            s2 = float(second_derivative_row_bound(self.metric, e))
            step = math.sqrt(2 * float(lam) / s2) if s2 > 0 else 1.0
            step_q = max(dyadic_down(step, 20), Fraction(1, 2**20))
            for _ in range(4):  # a node that cannot be proved: try a shorter step
                nxt = e + step_q
                if self.node(nxt, hint=self.nodes[e][0]) > 0:
                    break
                step_q = max(step_q / 4, Fraction(1, 2**20))
            else:
                return Fraction(0)
            self.chain.append(nxt)
        segs = [k for k in range(len(self.chain) - 1)
                if self.chain[k] < b and self.chain[k + 1] > a]
        if not segs:
            return self._single(a, b)
        return min(self.segment_bound(k) for k in segs)

    def _single(self, a: Fraction, b: Fraction) -> Fraction:
        la, lb = self.node(a), self.node(b)
        if la <= 0 or lb <= 0:
            return Fraction(0)
        return chord_bound(self.metric, a, b, la, lb)

    def segment_bound(self, k: int) -> Fraction:
        e0, e1 = self.chain[k], self.chain[k + 1]
        return chord_bound(self.metric, e0, e1, self.nodes[e0][1], self.nodes[e1][1])

    def start_chain(self, eps: Fraction) -> None:
        self.chain = [eps]


class GridProvider:
    """Planar Euclidean grid, never forming the n×n matrix: block-Toeplitz products.

    ``exact_matvec`` is the exact integer 2-D convolution of
    :mod:`exactdp.linalg.grid_exact_conv` (one flint polynomial product, quasi-linear).

    ``matvec`` computes, for every row offset dy, a W×W Toeplitz matrix times all rows
    (BLAS, inner sums of W products) and accumulates at most 2H − 1 such partial sums:
    each output is a sum of W·(2H − 1) products with a summation tree of height
    ≤ W + 2H, so γ_{W+2H+2} bounds its rounding error.

    Raises
    ------
    InvalidMetric
        When the metric is not a Euclidean grid.
    """

    def __init__(self, metric: FiniteMetric) -> None:
        g = metric.grid
        if g is None or g.norm != "euclidean":
            raise InvalidMetric(
                f"GridProvider needs a Euclidean grid metric; got {metric.name} (build it with "
                "grid(W, H, 'euclidean'), or use DenseProvider)."
            )
        self.metric = metric
        self.W, self.H, self.spacing = g.width, g.height, g.spacing
        self.n = metric.n
        self.gamma_terms = self.W + 2 * self.H + 2
        self.fast_exact = True
        self.code = _euclidean_codes(metric)  # value index of offset (dx, dy), shape (W, H)
        self.conv = GridConvolution(self.W, self.H, self.code)
        # Toeplitz index for every dy: (W, W) matrix of |x − x'|
        ax = np.arange(self.W)
        self.absdx = np.abs(ax[:, None] - ax[None, :])

    def _kernel(self, table: np.ndarray) -> np.ndarray:
        return np.asarray(table[self.code])  # (W, H): entry for (dx, dy)

    def matvec(self, table: np.ndarray, V: np.ndarray) -> np.ndarray:
        W, H = self.W, self.H
        m = V.shape[1]
        ker = self._kernel(table)
        V3 = V.reshape(H, W, m)
        Vt = np.ascontiguousarray(V3.transpose(1, 0, 2)).reshape(W, H * m)
        out = np.zeros((H, W, m))
        for dy in range(H):
            T = ker[:, dy][self.absdx]  # (W, W)
            Z = (T @ Vt).reshape(W, H, m).transpose(1, 0, 2)  # Z[y'] = T_dy V[y']
            if dy == 0:
                out += Z
            else:
                out[dy:] += Z[: H - dy]
                out[: H - dy] += Z[dy:]
        return out.reshape(self.n, m)

    def exact_matvec(self, table: list[int], columns: list[list[int]]) -> list[list[int]]:
        """Exact integer products by 2-D convolution (Kronecker substitution into flint)."""
        return self.conv.products(table, columns)

    def exact_block_products(self, tables: list[list[int]],
                             columns: list[list[int]]) -> list[list[int]]:
        """All Cauchy sums Σ_{j+k=m} M_j·v_k exactly in one blocked flint product
        (:meth:`exactdp.linalg.grid_exact_conv.GridConvolution.block_products`)."""
        return self.conv.block_products(tables, columns)

    def approx_matvec(self, table: np.ndarray, v: np.ndarray) -> np.ndarray:
        """FFT product (uncertified; for the Taylor recurrence of the candidates)."""
        return grid_fft_matvec(self._kernel(table))(v)

    def solver(self, table: np.ndarray) -> Any:
        """FFT products and Strang-preconditioned CG (:mod:`exactdp.linalg.grid_pcg`)."""
        return grid_pcg_solver(self._kernel(table), 1e-15, 20 * max(self.W, self.H) + 200)

    def lambda_lower(self, a: Fraction, b: Fraction) -> Fraction:
        return euclidean_lattice_lambda_lower(a, b, spacing=self.spacing)


def _euclidean_codes(metric: FiniteMetric) -> np.ndarray:
    """:func:`exactdp.spaces.grid.offset_value_codes` of a Euclidean grid, from integers.

    The offset (dx, dy) has distance h·√(dx² + dy²), and a distance is fixed by its exact
    square, so the code is the index of the value whose square is h²(dx² + dy²): one dict
    look-up per offset instead of W·H exact square roots (the same array; tested against
    ``offset_value_codes``). Falls back to it when a square is missing.
    """
    g = metric.grid
    assert g is not None
    h2 = Fraction(g.spacing) ** 2
    by_square: dict[Any, int] = {v.square / h2: i for i, v in enumerate(metric.values)}
    dx = np.arange(g.width, dtype=np.int64)[:, None]
    dy = np.arange(g.height, dtype=np.int64)[None, :]
    sq = dx * dx + dy * dy
    uniq, inv = np.unique(sq, return_inverse=True)
    try:
        idx = np.array([by_square[int(q)] for q in uniq.tolist()], dtype=np.int64)
    except KeyError:
        return offset_value_codes(metric)
    return idx[inv.reshape(sq.shape)]


def provider_for(metric: FiniteMetric, prefer_grid: bool | None = None) -> PhiProvider:
    """The grid provider when Φ is handled matrix-free (:func:`exactdp.spaces.grid.use_matrix_free`)
    or when asked (``prefer_grid``, Euclidean grids only), else the dense one."""
    g = metric.grid
    is_grid = g is not None and g.norm == "euclidean"
    if prefer_grid is None:
        prefer_grid = use_matrix_free(metric)
    if prefer_grid and is_grid:
        return _grid_provider(metric)
    return DenseProvider(metric)


#: the last grid providers built (a GridProvider holds no per-call state, only the offset
#: codes, which cost W·H exact distances): the search and the cover share one
_GRID_CACHE: list[tuple[FiniteMetric, GridProvider]] = []


def _grid_provider(metric: FiniteMetric) -> GridProvider:
    for m, p in _GRID_CACHE:
        if m is metric:
            return p
    prov = GridProvider(metric)
    _GRID_CACHE.insert(0, (metric, prov))
    del _GRID_CACHE[2:]
    return prov
