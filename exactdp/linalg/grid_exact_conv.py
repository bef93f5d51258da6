"""Exact integer products with a grid's distance matrix: 2-D convolution by Kronecker substitution.

On a W×H grid whose distance depends only on the offset (|dx|, |dy|), the matrix
M[i, l] = table[code(|x_i − x_l|, |y_i − y_l|)] acts on a vector v (point i = y·W + x) as the
2-D convolution of the H×W array v with the (2H − 1)×(2W − 1) kernel
K[a, b] = table[code(|b|, |a|)], a = row offset, b = column offset.

With integer tables and integer vectors the convolution is computed *exactly* as one
product of integer polynomials (``flint.fmpz_poly``): with the stride S = 2W − 1,

    p_v(z) = Σ_{y, x} v[y, x] z^{y·S + x},     p_K(z) = Σ_{a, b} K[a, b] z^{(a+H−1)·S + (b+W−1)},

and (M v)[y, x] is the coefficient of z^{(y+H−1)·S + (x+W−1)} in p_K·p_v (no two
(row, column) pairs share an exponent there because S ≥ 2W − 1; the argument and a
brute-force check are in ``proofs/grid_exact_convolution.py``). Signed and arbitrarily large
integers are fine: flint multiplies them exactly, in quasi-linear time (no floating-point
error analysis at all). Memory O(n·(bits of the entries)). That is the layout of
:meth:`GridConvolution.kernel`, :meth:`~GridConvolution.matvec_poly` and
:meth:`~GridConvolution.read`.

:meth:`GridConvolution.block_products` (and :meth:`~GridConvolution.products`, which calls
it) crops the kernel: outside the box |dy| ≤ Ry, |dx| ≤ Rx of :meth:`~GridConvolution.crop`
each table is the constant c of its corner offset, so M v = M′v + c·Σv with M′ = M − c zero
outside the box. The products of M′ use the stride S = W + Rx, the kernel entry (a, b) sits
at (a + Ry)·S + (b + Rx), v[y, x] at y·S + x, (M′v)[y, x] is read at (y + Ry)·S + x + Rx,
and the h-block stride is L = (Ry + H − 1)·S + Rx + W (``proofs/grid_cropped_stride.py``).
With the full box (Rx = W − 1, Ry = H − 1, c = 0) these are the strides above and
:func:`block_stride`.

Examples
--------
>>> code = [[0, 1], [1, 2], [3, 4]]                 # grid(3, 2): value codes of (dx, dy)
>>> conv = GridConvolution(3, 2, code)
>>> table = [10**30, -7, 5, 2**80, 3]
>>> v = [1, -2, 3**50, 4, 0, -(5**40)]
>>> conv.products(table, [v])[0] == direct_grid_product(3, 2, code, table, v)
True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from flint import fmpz_poly

from exactdp.arithmetic.validate import read_integers
from exactdp.errors import InvalidArgument
from exactdp.kinds import proved_by

__all__ = ["GridConvolution", "direct_grid_product", "block_stride"]

_LIMB = 60  # limb width of the fast poly build (small ints enter flint ~30× faster)


class GridConvolution:
    """Exact products M·v for one W×H grid, any integer tables (module docstring).

    Parameters
    ----------
    width, height : int
        The grid's W and H (points i = y·W + x).
    code : (W, H) array-like of int
        ``code[dx][dy]``: index into the table of the entry of offset (dx, dy).

    Examples
    --------
    >>> conv = GridConvolution(2, 1, [[0], [1]])
    >>> conv.products([2, -1], [[3, 5]])          # [[2, -1], [-1, 2]] · (3, 5)
    [[1, 7]]
    """

    def __init__(self, width: int, height: int, code: Any) -> None:
        if any(isinstance(x, bool) or not isinstance(x, (int, np.integer)) for x in (width, height)):
            raise InvalidArgument(f"GridConvolution: got width={width!r}, height={height!r}; "
                                  "pass positive integers.")
        c = np.asarray(code)
        if c.dtype.kind not in "iu" or (c.size and int(c.min()) < 0):
            raise InvalidArgument("GridConvolution: offset codes must be integers ≥ 0 (indices "
                                  f"into the value table); got dtype {c.dtype}.")
        c = c.astype(np.int64)
        if width < 1 or height < 1 or c.shape != (width, height):
            raise InvalidArgument(f"GridConvolution: code has shape {c.shape}; a {width}×{height} "
                                  f"grid needs a ({width}, {height}) table of offset codes.")
        self.W, self.H, self.n = width, height, width * height
        self.code = c
        self.stride = 2 * width - 1  # the uncropped stride of kernel / matvec_poly / read
        self._nvalues = int(c.max()) + 1

    def _table(self, table: Sequence[int], what: str) -> list[int]:
        """The whole table as Python ints (every entry checked), refused when it is shorter
        than the offset codes need."""
        t = read_integers(table, what, "GridConvolution")
        if len(t) < self._nvalues:
            raise InvalidArgument(f"GridConvolution: {what} has {len(t)} entries; the offset "
                                  f"codes need {self._nvalues} (one value per code 0 … "
                                  f"{self._nvalues - 1}).")
        return t

    def kernel(self, table: Sequence[int]) -> fmpz_poly:
        """p_K for an integer table (one entry per code), uncropped layout (stride 2W − 1);
        reuse it for several vectors."""
        t = self._table(table, "the table")
        a = np.abs(np.arange(-(self.H - 1), self.H))
        b = np.abs(np.arange(-(self.W - 1), self.W))
        # kernel coefficient order: row a (offset dy), column b (offset dx), stride 2W − 1
        return fmpz_poly([t[k] for k in self.code[b[None, :], a[:, None]].ravel().tolist()])

    def _vector(self, v: Sequence[int]) -> fmpz_poly:
        vals = read_integers(v, "the vector", "GridConvolution")
        if len(vals) != self.n:
            raise InvalidArgument(f"GridConvolution: the vector has length {len(vals)}; the "
                                  f"{self.W}×{self.H} grid has n = {self.n} points.")
        W, S = self.W, self.stride
        coeffs = [0] * ((self.H - 1) * S + W)
        for y in range(self.H):
            coeffs[y * S: y * S + W] = vals[y * W: (y + 1) * W]
        return fmpz_poly(coeffs)

    def read(self, prod: fmpz_poly) -> list[int]:
        """The n products (M v)[y·W + x] from p_K·p_v (Σ of such products also works)."""
        W, H, S = self.W, self.H, self.stride
        coeffs: list[Any] = list(prod.coeffs())
        need = (2 * H - 2) * S + 2 * W - 1
        if len(coeffs) < need:
            coeffs = coeffs + [0] * (need - len(coeffs))
        out: list[int] = []
        for y in range(H):
            start = (y + H - 1) * S + W - 1
            out.extend(int(c) for c in coeffs[start: start + W])
        return out

    @proved_by("grid_exact_convolution")
    def matvec_poly(self, kernel: fmpz_poly, v: Sequence[int]) -> fmpz_poly:
        """p_K·p_v, unread: add several of them (after scaling) before :meth:`read`
        (exact by Kronecker substitution: ``proofs/grid_exact_convolution.py``)."""
        return kernel * self._vector(v)

    def crop(self, tables: Sequence[Sequence[int]]) -> tuple[list[int], int, int]:
        """(c, Ry, Rx): per table the constant c_j of its corner offset (W − 1, H − 1), and the
        smallest box |dy| ≤ Ry, |dx| ≤ Rx outside which every table equals its constant (far
        entries below 2^-100 are one constant integer; ``proofs/grid_cropped_stride.py``).
        No crop (the full box) gives constants 0.

        >>> GridConvolution(4, 1, [[0], [1], [2], [2]]).crop([[5, 3, 1]])
        ([1], 0, 1)
        """
        tabs = [self._table(t, f"table [{j}]")[: self._nvalues] for j, t in enumerate(tables)]
        corner = int(self.code[self.W - 1, self.H - 1])
        consts = [t[corner] for t in tabs]
        Ry = Rx = 0
        for t, c in zip(tabs, consts):
            differs = np.array([v != c for v in t], dtype=bool)[self.code]  # (W, H): [dx, dy]
            if differs.any():
                Rx = max(Rx, int(np.nonzero(differs.any(axis=1))[0].max()))
                Ry = max(Ry, int(np.nonzero(differs.any(axis=0))[0].max()))
        if Rx == self.W - 1 and Ry == self.H - 1:
            return [0] * len(tabs), Ry, Rx
        return consts, Ry, Rx

    @proved_by("grid_taylor_blocks", "grid_cropped_stride")
    def block_products(self, tables: Sequence[Sequence[int]],
                       columns: Sequence[Sequence[int]]) -> list[list[int]]:
        """All Cauchy sums C_m = Σ_{j+k=m} M_j v_k (m = 0 … J + K) exactly, in ONE flint product.

        With the block stride L (:func:`block_stride`), P_M = Σ_j z^{jL} p_{K_j} and
        P_v = Σ_k z^{kL} p_{v_k}; C_m is read at offset m·L of P_M·P_v (no block aliases a
        read coefficient: ``proofs/grid_taylor_blocks.py``). Same values as summing
        :meth:`products`, several times faster (one product, n·(J+K+1) reads).

        Cropped kernels (``proofs/grid_cropped_stride.py``): outside the box of :meth:`crop`
        each table is a constant c_j, so M_j v = M'_j v + c_j·Σv with M'_j = M_j − c_j zero
        outside the box; the products of M'_j use the stride S = W + Rx and the block stride
        (Ry + H − 1)S + Rx + W (both the uncropped ones when the box is full). Exact.

        >>> conv = GridConvolution(2, 1, [[0], [1]])
        >>> conv.block_products([[2, -1], [1, 1]], [[3, 5], [1, 0]])
        [[1, 7], [10, 7], [1, 1]]
        """
        W, H, n, nv = self.W, self.H, self.n, self._nvalues
        # every table read, checked and cut to the codes once: crop and the kernel see the same values
        tabs = [self._table(t, f"table [{j}]")[:nv] for j, t in enumerate(tables)]
        cols = [read_integers(v, f"vector [{k}]", "GridConvolution") for k, v in enumerate(columns)]
        if not tabs or not cols:
            raise InvalidArgument("GridConvolution.block_products: pass at least one table "
                                  "and one vector.")
        for k, v in enumerate(cols):
            if len(v) != n:
                raise InvalidArgument(f"GridConvolution: vector [{k}] has length {len(v)}; the "
                                      f"{W}×{H} grid has n = {n} points.")
        consts, Ry, Rx = self.crop(tabs)
        S = W + Rx
        L = (Ry + H - 1) * S + Rx + W
        J, K = len(tabs), len(cols)
        # kernel of table j: K'[a, b] at j·L + (a + Ry)·S + (b + Rx), |a| ≤ Ry, |b| ≤ Rx
        a = np.arange(-Ry, Ry + 1)
        b = np.arange(-Rx, Rx + 1)
        kcodes = self.code[np.abs(b)[None, :], np.abs(a)[:, None]].ravel()
        kpos = ((a[:, None] + Ry) * S + (b[None, :] + Rx)).ravel()
        flat = [v - c for t, c in zip(tabs, consts) for v in t]
        src = (np.arange(J)[:, None] * nv + kcodes[None, :]).ravel()
        dst = (np.arange(J)[:, None] * L + kpos[None, :]).ravel()
        pm = _poly_from_limbs(_placed(_limbs(flat), src, dst, (J - 1) * L + 2 * Ry * S + 2 * Rx + 1))
        vpos = (np.arange(H)[:, None] * S + np.arange(W)[None, :]).ravel()
        vdst = (np.arange(K)[:, None] * L + vpos[None, :]).ravel()
        pv = _poly_from_limbs(_placed(_limbs([x for v in cols for x in v]), np.arange(K * n), vdst,
                                      (K - 1) * L + (H - 1) * S + W))
        prod = pm * pv
        del pm, pv  # peak memory: the factors go before the product's coefficients are read
        coeffs: list[Any] = prod.coeffs()
        del prod
        M = J + K - 1
        base = Ry * S + Rx + vpos
        if len(coeffs) <= (M - 1) * L + int(base.max()):
            coeffs = coeffs + [0] * ((M - 1) * L + int(base.max()) + 1 - len(coeffs))
        out = [list(map(int, map(coeffs.__getitem__, (m * L + base).tolist()))) for m in range(M)]
        del coeffs
        if any(consts):  # + Σ_{j+k=m} c_j·Σ v_k on every point
            sums = [sum(v) for v in cols]
            for m in range(M):
                add = sum(consts[j] * sums[m - j] for j in range(J) if 0 <= m - j < K)
                if add:
                    out[m] = [x + add for x in out[m]]
        return out

    @proved_by("grid_exact_convolution", "grid_cropped_stride")
    def products(self, table: Sequence[int], columns: Sequence[Sequence[int]]) -> list[list[int]]:
        """M·v exactly for each column v, lists of Python ints
        (``proofs/grid_exact_convolution.py``; cropped kernels: ``proofs/grid_cropped_stride.py``)."""
        return [self.block_products([table], [v])[0] for v in columns]


def block_stride(width: int, height: int) -> int:
    """The uncropped h-block stride L = 2(H − 1)(2W − 1) + 2W − 1 (the smallest one that never
    aliases a read coefficient: ``proofs/grid_taylor_blocks.py``).

    :meth:`GridConvolution.block_products` uses L = (Ry + H − 1)(W + Rx) + Rx + W for the box
    Ry, Rx of :meth:`GridConvolution.crop` (``proofs/grid_cropped_stride.py``); the two are
    equal when the box is full (Rx = W − 1, Ry = H − 1), and the cropped one is smaller
    otherwise.

    >>> block_stride(3, 2)
    15
    """
    return 2 * (height - 1) * (2 * width - 1) + 2 * width - 1


def _limbs(values: Sequence[int]) -> list[np.ndarray]:
    """int64 arrays L_0..L_r with v = Σ_l L_l·2^{60 l} exactly: L_l in [0, 2^60) for l < r,
    L_r signed (floor division; Python ints of any size and sign)."""
    vals = list(values)
    out: list[np.ndarray] = []
    mask = (1 << _LIMB) - 1
    while True:
        hi = max(vals, default=0)
        lo = min(vals, default=0)
        if -(1 << 62) <= lo and hi < (1 << 62):
            out.append(np.array(vals, dtype=np.int64))
            return out
        out.append(np.array([v & mask for v in vals], dtype=np.int64))
        vals = [v >> _LIMB for v in vals]


def _placed(limbs: list[np.ndarray], src: np.ndarray, dst: np.ndarray, length: int) -> list[np.ndarray]:
    """Each limb array's entries ``src`` put at positions ``dst`` of a zero array of ``length``."""
    out = []
    for lim in limbs:
        arr = np.zeros(length, dtype=np.int64)
        arr[dst] = lim[src]
        out.append(arr)
    return out


def _poly_from_limbs(limbs: list[np.ndarray]) -> fmpz_poly:
    """Σ_l fmpz_poly(L_l)·2^{60 l} (flint builds polynomials of small ints fast)."""
    p = fmpz_poly(limbs[-1].tolist())
    for arr in reversed(limbs[:-1]):
        p = p * (1 << _LIMB) + fmpz_poly(arr.tolist())
    return p


def direct_grid_product(width: int, height: int, code: Any, table: Sequence[int],
                        v: Sequence[int]) -> list[int]:
    """The same product by the direct O(n²) sum over Python integers (reference, tests).

    >>> direct_grid_product(2, 1, [[0], [1]], [2, -1], [3, 5])
    [1, 7]
    """
    c = np.asarray(code, dtype=np.int64)
    out = []
    for i in range(width * height):
        yi, xi = divmod(i, width)
        s = 0
        for l_ in range(width * height):
            yl, xl = divmod(l_, width)
            s += int(table[int(c[abs(xi - xl), abs(yi - yl)])]) * int(v[l_])
        out.append(s)
    return out
