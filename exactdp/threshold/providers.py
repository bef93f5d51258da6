"""How the SPD cover multiplies by, solves with and bounds λ_min of Φ(ε): dense or matrix-free.

A provider stands for the matrices M[i, l] = table[value index of d(i, l)] of a metric,
given a table with one entry per distinct distance value:

* :class:`DenseProvider` (any metric) gathers the n×n matrix through ``metric.index``,
  solves by Levinson (Toeplitz Φ), Cholesky or LU, and proves λ_min bounds by a chain of
  shifted Cholesky nodes (:mod:`exactdp.threshold.lambda_bounds`);
* :class:`GridProvider` (large Euclidean grids and masked grids; Manhattan ones on
  request) never forms the n×n matrix: block-Toeplitz products of the zero-padded vector,
  FFT + conjugate gradients, and the size-free λ_min bounds — the lattice symbol of
  :mod:`exactdp.algebra.lattice_spectrum`, ((1 − t)/(1 + t))² for Manhattan — which hold
  for every subset of the lattice, hence for masked grids (Cauchy interlacing).

:func:`provider_for` picks one by the matrix-free size rule of :mod:`exactdp.spaces.grid`.

Examples
--------
>>> from exactdp.spaces.metrics import grid, line
>>> type(provider_for(line(4))).__name__, type(provider_for(grid(51, 51))).__name__
('DenseProvider', 'GridProvider')
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any, Protocol

import numpy as np

from exactdp.algebra.lattice_spectrum import euclidean_lattice_lambda_lower
from exactdp.arithmetic.packed import PackedBlocks, biased_digits, digit_bytes, pack_signed
from exactdp.arithmetic.rounding import dyadic_down
from exactdp.arithmetic.validate import read_integers
from exactdp.errors import InvalidArgument, InvalidMetric
from exactdp.kernel.grid_point import manhattan_lambda_lower
from exactdp.kinds import proved_by
from exactdp.linalg.exact_products import exact_table_matvec
from exactdp.linalg.grid_exact_conv import GridConvolution
from exactdp.linalg.grid_pcg import grid_fft_matvec, grid_pcg_solver
from exactdp.spaces.grid import matrix_free_shape, offset_value_codes, use_matrix_free
from exactdp.spaces.levels import parse_level
from exactdp.spaces.metrics import FiniteMetric
from exactdp.spaces.metrics.masked import GridShape
from exactdp.threshold.float_bounds import binade
from exactdp.threshold.lambda_bounds import chord_bound, dense_lambda_node, second_derivative_row_bound

__all__ = ["PhiProvider", "DenseProvider", "GridProvider", "provider_for", "LOOSE_RTOL"]

#: relative CG tolerance of the loose Taylor solves (:meth:`GridProvider.taylor_solver`)
LOOSE_RTOL = 1e-12


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
                             columns: list[list[int]]) -> Sequence[list[int]]:
        """The Cauchy sums Σ_{j+k=m} M_j·v_k exactly (m = 0 … len(tables) + len(columns) − 2)."""

    def approx_matvec(self, table: np.ndarray, v: np.ndarray) -> np.ndarray:
        """≈ M v for one vector, no error bound (candidates only; FFT on grids)."""

    def solver(self, table: np.ndarray) -> Any:
        """A float solver B ↦ M⁻¹B for the table of Φ_0 (uncertified)."""

    def taylor_solver(self, table: np.ndarray) -> Any:
        """``solve(B, X0=None, loose=False)``: :meth:`solver` with a starting guess and, with
        ``loose``, a looser tolerance (iterative solvers; candidates only)."""

    def taylor_guess(self, c: Fraction, b: np.ndarray, K: int) -> np.ndarray | None:
        """Starting guesses of y_0..y_K at centre c for Φz = b from the last piece's (or None)."""

    def keep_taylor(self, c: Fraction, b: np.ndarray, Y: np.ndarray) -> None:
        """Remember a piece's Taylor vectors (columns) at centre c for :meth:`taylor_guess`."""

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

    def taylor_solver(self, table: np.ndarray) -> Any:
        """Direct solves: the guess and ``loose`` are ignored."""
        solve = self.solver(table)
        return lambda B, X0=None, loose=False: solve(B)

    def taylor_guess(self, c: Fraction, b: np.ndarray, K: int) -> np.ndarray | None:
        return None

    def keep_taylor(self, c: Fraction, b: np.ndarray, Y: np.ndarray) -> None:
        return None

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
            # on the grid 2^-20 and at least 2^-20 — scaled down with ε below 2^-10 (a spacing
            # of 10^30 puts ε* near 10^-30, where 2^-20 would jump far past every node)
            bits = 20 - min(0, binade(e) + 10)
            least = Fraction(1, 2**bits)
            step_q = max(dyadic_down(step, bits), least)
            for _ in range(4):  # a node that cannot be proved: try a shorter step
                nxt = e + step_q
                if self.node(nxt, hint=self.nodes[e][0]) > 0:
                    break
                step_q = max(step_q / 4, least)
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
    """A grid or masked grid (Euclidean or Manhattan), never forming the n×n matrix.

    A masked grid's Φ is the principal submatrix of its full W×H grid's Φ on the kept
    cells, so every product is the full grid's product of the zero-padded vector, read
    back on the kept cells, and the full lattice's λ_min bound holds for it (Cauchy
    interlacing: :mod:`exactdp.algebra.lattice_spectrum` bounds every finite subset of the
    lattice; Manhattan: ((1 − t)/(1 + t))², ``proofs/grid_point_bounds.py``).

    ``exact_block_products`` / ``exact_matvec`` are exact integer 2-D convolutions in the
    cropped layout of :mod:`exactdp.linalg.grid_exact_conv`, computed as ONE flint integer
    product of byte-packed digits (:mod:`exactdp.arithmetic.packed`, quasi-linear; the same
    integers, less memory: the blocks stay bytes until read).

    ``matvec`` computes, for every row offset dy, a W×W Toeplitz matrix times all rows
    (BLAS, inner sums of W products) and accumulates at most 2H − 1 such partial sums:
    each output is a sum of W·(2H − 1) products with a summation tree of height
    ≤ W + 2H, so γ_{W+2H+2} bounds its rounding error (padded zeros add no error).

    Raises
    ------
    InvalidMetric
        When the metric is not a library grid or masked grid under the Euclidean or
        Manhattan norm.

    Examples
    --------
    >>> from exactdp.spaces.metrics.masked import masked_grid
    >>> m = masked_grid(3, 2, "manhattan", mask=["110", "011"])
    >>> prov = GridProvider(m)
    >>> table = np.array([1.0, 0.5, 0.25, 0.125])        # t^d at t = 1/2 (d = 0, 1, 2, 3)
    >>> prov.matvec(table, np.ones((4, 1)))[:, 0].tolist()
    [1.875, 2.25, 2.25, 1.875]
    >>> prov.exact_matvec([8, 4, 2, 1], [[1, 0, 0, 3]]) == DenseProvider(m).exact_matvec([8, 4, 2, 1], [[1, 0, 0, 3]])
    True
    >>> prov.lambda_lower(Fraction(1), Fraction(2)) > 0
    True
    """

    def __init__(self, metric: FiniteMetric) -> None:
        shape = matrix_free_shape(metric, above_n=0)
        if shape is None:
            raise InvalidMetric(
                f"GridProvider needs a Euclidean or Manhattan grid or masked grid; got "
                f"{metric.name} (build it with grid(W, H, norm) or masked_grid(W, H, norm, "
                "mask=...), or use DenseProvider)."
            )
        self.metric = metric
        self.shape = shape
        self.W, self.H, self.spacing = shape.width, shape.height, shape.spacing
        self.n = metric.n
        self.full_n = self.W * self.H
        #: kept cells (flat y·W + x) of a masked grid, None on a full grid
        self.cells = None if shape.mask is None else np.asarray(shape.cells, dtype=np.int64)
        self.gamma_terms = self.W + 2 * self.H + 2
        self.fast_exact = True
        self.code = _offset_codes(metric, shape)  # value index of offset (dx, dy), shape (W, H)
        self.conv = GridConvolution(self.W, self.H, self.code)
        # Toeplitz index for every dy: (W, W) matrix of |x − x'|
        ax = np.arange(self.W)
        self.absdx = np.abs(ax[:, None] - ax[None, :])
        #: the last Taylor piece's centre and vectors: warm starts of the next piece's CG
        #: solves (candidates only, never part of a bound)
        self.warm: tuple[Fraction, np.ndarray, np.ndarray] | None = None
        #: the last λ_min bounds (lo, hi, λ): λ ≤ λ_min(Φ(ε)) for every ε in [lo, hi]
        self._lam_ranges: list[tuple[Fraction, Fraction, Fraction]] = []

    def _kernel(self, table: np.ndarray) -> np.ndarray:
        return np.asarray(table[self.code])  # (W, H): entry for (dx, dy)

    def _pad(self, V: np.ndarray) -> np.ndarray:
        """Rows of a masked grid's vectors placed on their cells of the full grid (zeros elsewhere)."""
        if self.cells is None:
            return V
        out = np.zeros((self.full_n,) + V.shape[1:], dtype=V.dtype)
        out[self.cells] = V
        return out

    def matvec(self, table: np.ndarray, V: np.ndarray) -> np.ndarray:
        W, H = self.W, self.H
        m = V.shape[1]
        ker = self._kernel(table)
        V3 = self._pad(V).reshape(H, W, m)
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
        flat = out.reshape(self.full_n, m)
        return flat if self.cells is None else flat[self.cells]

    def exact_matvec(self, table: list[int], columns: list[list[int]]) -> list[list[int]]:
        """Exact integer products M·v, one :meth:`exact_block_products` per column."""
        return [self.exact_block_products([table], [col])[0] for col in columns]

    @proved_by("grid_cropped_stride", "packed_products")
    def exact_block_products(self, tables: list[list[int]],
                             columns: list[list[int]]) -> PackedBlocks:
        """All Cauchy sums C_m = Σ_{j+k=m} M_j·v_k exactly, m = 0 … J + K − 2, from ONE
        integer product of byte-packed digits (:mod:`exactdp.arithmetic.packed`).

        The layout of :meth:`exactdp.linalg.grid_exact_conv.GridConvolution.block_products`:
        outside the box |dy| ≤ Ry, |dx| ≤ Rx of ``GridConvolution.crop`` table j is its
        constant c_j, so C_m = Σ M'_j v_k + Σ_{j+k=m} c_j·Σv_k with M'_j = M_j − c_j zero
        outside the box (``proofs/grid_cropped_stride.py``, Lemma 1); stride S = W + Rx,
        block stride L = (Ry + H − 1)S + Rx + W, kernel entry (a, b) of table j at slot
        jL + (a + Ry)S + b + Rx, v_k[y, x] at kL + yS + x (only the kept cells of a masked
        grid: a zero-padded cell adds nothing), C_m[y, x] read at mL + (y + Ry)S + x + Rx
        (Lemmas 2–3; ``proofs/grid_taylor_blocks.py``, Lemma 4). The slots are base-2^(8nb)
        digits, every product coefficient below min(‖a‖₁·max|b|, ‖b‖₁·max|a|) of the packed
        integers a, b (``proofs/packed_products.py``, Lemma 1) and read back biased
        (``proofs/kernel_grid_kronecker.py``, Lemmas 1–2: the product has (J + K)L digits;
        ``proofs/packed_products.py``, Lemma 2). Exact, and the same integers as
        ``GridConvolution.block_products``; the blocks stay bytes until read
        (:class:`~exactdp.arithmetic.packed.PackedBlocks`).
        """
        W, H, n = self.W, self.H, self.n
        # every entry an integer (numpy ints, 2.0 read exactly; 2.5, NaN, None, bool refused)
        columns = [read_integers(v, f"vector [{k}]", "exact_block_products")
                   for k, v in enumerate(columns)]
        J, K = len(tables), len(columns)
        if J == 0 or K == 0 or any(len(v) != n for v in columns):
            raise InvalidArgument(f"exact_block_products: pass at least one table and vectors of "
                                  f"length n = {n}; got {J} tables, vector lengths "
                                  f"{sorted({len(v) for v in columns})}.")
        consts, Ry, Rx = self.conv.crop(tables)  # checks every table entry is an integer
        nv = int(self.code.max()) + 1
        S = W + Rx
        L = (Ry + H - 1) * S + Rx + W
        a, b = np.arange(-Ry, Ry + 1), np.arange(-Rx, Rx + 1)
        kcodes = self.code[np.abs(b)[None, :], np.abs(a)[:, None]].ravel()
        kpos = ((a[:, None] + Ry) * S + (b[None, :] + Rx)).ravel()
        flat = [int(v) - c for t, c in zip(tables, consts) for v in t[:nv]]
        cells = np.arange(n) if self.cells is None else self.cells
        vpos = (cells // W) * S + cells % W
        vals = [x for v in columns for x in v]
        # |every coefficient| ≤ min(‖a‖₁·max|b|, ‖b‖₁·max|a|) (proofs/packed_products.py, Lemma 1)
        cnt = np.bincount(kcodes, minlength=nv).tolist()
        amax, bmax = max(map(abs, flat)), max(map(abs, vals))
        a1 = sum(c * abs(x) for c, x in zip(cnt * J, flat))
        bound = max(min(a1 * bmax, sum(map(abs, vals)) * amax), amax, bmax)
        nb = digit_bytes(bound.bit_length())
        blocks = np.arange(J)[:, None]
        pm = pack_signed(flat, (blocks * nv + kcodes[None, :]).ravel(),
                         (blocks * L + kpos[None, :]).ravel(), J * L, nb)
        del flat
        pv = pack_signed(vals, np.arange(K * n), (np.arange(K)[:, None] * L + vpos).ravel(), K * L, nb)
        del vals
        digits = biased_digits(pm, pv, (J + K) * L, nb)
        del pm, pv
        M = J + K - 1
        rows = digits[(np.arange(M)[:, None] * L + (vpos + Ry * S + Rx)).ravel()].reshape(M, n, nb)
        del digits  # peak memory: only the read digits stay, nb bytes per value
        sums = [sum(v) for v in columns] if any(consts) else [0] * K
        adds = [sum(consts[j] * sums[m - j] for j in range(J) if 0 <= m - j < K) for m in range(M)]
        return PackedBlocks(rows, adds)

    def approx_matvec(self, table: np.ndarray, v: np.ndarray) -> np.ndarray:
        """FFT product (uncertified; for the Taylor recurrence of the candidates)."""
        out = grid_fft_matvec(self._kernel(table))(self._pad(v))
        return out if self.cells is None else np.asarray(out[self.cells])

    def solver(self, table: np.ndarray) -> Any:
        """FFT products and circulant-preconditioned CG (:mod:`exactdp.linalg.grid_pcg`); on
        a masked grid the same on the zero-padded operator, preconditioned by the full
        grid's circulant restricted to the kept cells (uncertified: candidates only)."""
        iters = 20 * max(self.W, self.H) + 200
        if self.cells is None:
            return grid_pcg_solver(self._kernel(table), 1e-15, iters)
        return grid_pcg_solver(self._kernel(table), 1e-15, iters, cells=self.cells)

    def taylor_solver(self, table: np.ndarray) -> Any:
        """:meth:`solver` with a warm start ``X0``; ``loose``: ‖residual‖ ≤ 10⁻¹²‖B‖ instead of
        10⁻¹⁵ (for the correction of a refined y_0 and for y_1..y_K, whose residuals are
        bounded exactly anyway: a looser candidate only weakens, never invalidates, a bound)."""
        solve = self.solver(table)
        return lambda B, X0=None, loose=False: solve(B, X0, LOOSE_RTOL if loose else None)

    def taylor_guess(self, c: Fraction, b: np.ndarray, K: int) -> np.ndarray | None:
        """y_k(c) ≈ Σ_{m ≥ k} C(m, k) h^{m−k} y_m(c′), h = c − c′, from the last piece's
        vectors at c′ for the same b (the Taylor series of y, re-centred; a guess only)."""
        if self.warm is None or not np.array_equal(self.warm[1], b):
            return None
        c0, _, Y = self.warm
        h, K0 = float(c - c0), Y.shape[1] - 1
        G = np.zeros((self.n, K + 1))
        for k in range(min(K, K0) + 1):
            for m in range(k, K0 + 1):
                G[:, k] += math.comb(m, k) * h ** (m - k) * Y[:, m]
        return G if np.all(np.isfinite(G)) else None

    def keep_taylor(self, c: Fraction, b: np.ndarray, Y: np.ndarray) -> None:
        self.warm = (c, np.array(b, dtype=np.float64), np.array(Y, dtype=np.float64))

    def lambda_lower(self, a: Fraction, b: Fraction) -> Fraction:
        """λ ≤ λ_min(Φ(ε)) for every ε in [a, b], valid for every subset of the lattice."""
        if self.shape.norm == "manhattan":  # decreasing in t = e^{-εh}: its value at ε = a
            return manhattan_lambda_lower(parse_level(eps=a), self.spacing)
        # a bound on a range holds on each sub-range: one bound on [a, a·(1 + 1/32)] (about as
        # sharp as on [a, a]: measured) serves the narrow pieces near ε* and the fail point
        for lo, hi, lam in self._lam_ranges:
            if lo <= a and b <= hi:
                return lam
        hi = max(b, a + a / 32)
        lam = euclidean_lattice_lambda_lower(a, hi, spacing=self.spacing)
        if lam <= 0 < b - a:  # the wider range did not close: the asked one alone
            hi, lam = b, euclidean_lattice_lambda_lower(a, b, spacing=self.spacing)
        if lam > 0:
            self._lam_ranges[:] = [(a, hi, lam)] + self._lam_ranges[:3]
        return lam


def _offset_codes(metric: FiniteMetric, shape: GridShape) -> np.ndarray:
    """:func:`exactdp.spaces.grid.offset_value_codes` of a grid or masked grid, from integers.

    Euclidean: the offset (dx, dy) has distance h·√(dx² + dy²), and a distance is fixed by
    its exact square, so the code is the index of the value whose square is h²(dx² + dy²):
    one dict look-up per offset instead of W·H exact square roots (the same array; tested
    against ``offset_value_codes``). Manhattan: the value h·(dx + dy), one look-up per
    distinct sum. Falls back to ``offset_value_codes`` when a value is missing.
    """
    h = Fraction(shape.spacing)
    dx = np.arange(shape.width, dtype=np.int64)[:, None]
    dy = np.arange(shape.height, dtype=np.int64)[None, :]
    if shape.norm == "euclidean":
        key: dict[Any, int] = {v.square / (h * h): i for i, v in enumerate(metric.values)}
        sq = dx * dx + dy * dy
    else:
        key = {v.coef / h: i for i, v in enumerate(metric.values) if v.is_rational}
        sq = dx + dy
    uniq, inv = np.unique(sq, return_inverse=True)
    try:
        idx = np.array([key[int(q)] for q in uniq.tolist()], dtype=np.int64)
    except KeyError:
        return offset_value_codes(metric)
    return idx[inv.reshape(sq.shape)]


def provider_for(metric: FiniteMetric, prefer_grid: bool | None = None) -> PhiProvider:
    """The grid provider when Φ is handled matrix-free (:func:`exactdp.spaces.grid.use_matrix_free`,
    Euclidean grids and masked grids above the size switch) or when asked (``prefer_grid``:
    any Euclidean or Manhattan grid or masked grid), else the dense one.

    Inside :func:`exactdp.spaces.grid.force_matrix_free` (``epsilon_threshold(...,
    matrix_free=True)``) every stage — search, fail point, cover — takes the grid provider
    below the size switch too."""
    if prefer_grid is None:
        prefer_grid = use_matrix_free(metric)
    if prefer_grid and matrix_free_shape(metric, above_n=0) is not None:
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
