"""Structure fast paths: Kronecker products, Toeplitz and block-Toeplitz Φ.

**Kronecker** (Hamming databases V^u, Manhattan grids): when the metric is the ℓ1-sum of
factor metrics, Φ = Φ_1 ⊗ … ⊗ Φ_m. If the right-hand side is a product
b = b_1 ⊗ … ⊗ b_m (b = 1 = ⊗1, or a product prior π = ⊗p_k), then z = ⊗z_k with
Φ_k z_k = b_k. Lemma (used by the threshold search, stated here and checked in
``tests/threshold/test_thr_structure.py``): if every b_k ≥ 0 is nonzero and every Φ_k is
invertible, then z ≥ 0 **iff** every z_k ≥ 0. Proof: ⇐ is clear. ⇒: each z_k has a
positive entry (z_k ≤ 0 would give b_k = Φ_k z_k ≤ 0, as Φ_k > 0 entrywise, so b_k = 0);
if some z_j had a negative entry, multiplying it by positive entries of the other
factors gives a negative entry of z (``proofs/threshold_lemmas.py``). So the property holds for the product exactly when
it holds for every factor, and the threshold is the largest factor threshold.

**Toeplitz** (line, sum query): Φ[i, j] depends on |i − j| only; float solves by
Levinson recursion (``scipy.linalg.solve_toeplitz``, O(n²)) — used to *find*.

**Block-Toeplitz with Toeplitz blocks** (planar grids): Φ[(x,y),(x',y')] depends on
(|x − x'|, |y − y'|); a matrix-vector product is a 2-D convolution (FFT on a
(2W−1)×(2H−1) circulant embedding), and for the Euclidean norm Φ is symmetric positive
definite (e^{-ε|x|} is a positive-definite kernel), so conjugate gradients apply.

Everything here that returns floats is **uncertified** (named ``*_float``) and used
only to locate thresholds; certification happens elsewhere.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from exactdp.kinds import proved_by
from exactdp.spaces.metrics import FiniteMetric

__all__ = [
    "KroneckerSplit",
    "kronecker_split",
    "product_marginals",
    "solve_float",
    "toeplitz_solve_float",
    "grid_matvec_float",
    "grid_cg_solve_float",
    "fft_matvec_from_kernel",
    "cg_solve_float",
]


@dataclass(frozen=True)
class KroneckerSplit:
    """Factors (metric, factor right-hand side) whose Kronecker product is the question."""

    factors: tuple[tuple[FiniteMetric, tuple[Fraction, ...]], ...]
    description: str


def product_marginals(
    sizes: Sequence[int], values: Sequence[Fraction]
) -> tuple[tuple[Fraction, ...], ...] | None:
    """Exact factors p_k with values = p_1 ⊗ … ⊗ p_m (each summing to 1), or None.

    ``values`` must sum to 1. The factors are the marginals; the decomposition is then
    checked exactly entry by entry.

    >>> from fractions import Fraction as F
    >>> product_marginals([2, 2], [F(1, 8), F(3, 8), F(1, 8), F(3, 8)])
    ((Fraction(1, 2), Fraction(1, 2)), (Fraction(1, 4), Fraction(3, 4)))
    >>> product_marginals([2, 2], [F(1, 2), F(0), F(0), F(1, 2)]) is None
    True
    """
    n = 1
    for s in sizes:
        n *= s
    if len(values) != n or sum(values, Fraction(0)) != 1:
        return None
    arr = np.array(values, dtype=object).reshape(tuple(sizes))
    margs = []
    for axis in range(len(sizes)):
        other = tuple(a for a in range(len(sizes)) if a != axis)
        m = arr.sum(axis=other) if other else arr
        margs.append(tuple(Fraction(v) for v in np.atleast_1d(m)))
    for multi in itertools.product(*(range(s) for s in sizes)):
        prod = Fraction(1)
        for axis, k in enumerate(multi):
            prod *= margs[axis][k]
        if arr[multi] != prod:
            return None
    return tuple(margs)


@proved_by("threshold_lemmas")
def kronecker_split(
    metric: FiniteMetric, rhs: Sequence[Fraction] | None
) -> KroneckerSplit | None:
    """Split "Φx = rhs, x ≥ 0?" into factor questions when the structure allows.

    ``rhs=None`` means all ones (tight constraints). Returns None when the metric has
    no Kronecker factors or the right-hand side is not a product. The sign lemma that
    makes the split exact is proved in ``proofs/threshold_lemmas.py``.

    >>> from exactdp.spaces.metrics import hamming
    >>> split = kronecker_split(hamming(2, 3), None)
    >>> len(split.factors), split.factors[0][1]
    (3, (Fraction(1, 1), Fraction(1, 1)))
    """
    factors = metric.kronecker_factors
    if not factors:
        return None
    sizes = [f.n for f in factors]
    if rhs is None:
        parts = tuple((f, tuple(Fraction(1) for _ in range(f.n))) for f in factors)
        return KroneckerSplit(parts, f"kronecker({len(factors)} factors, rhs = ⊗1)")
    margs = product_marginals(sizes, [Fraction(v) for v in rhs])
    if margs is None:
        return None
    parts = tuple((f, m) for f, m in zip(factors, margs))
    return KroneckerSplit(parts, f"kronecker({len(factors)} factors, product prior)")


def toeplitz_solve_float(metric: FiniteMetric, eps: float, b: np.ndarray) -> np.ndarray:
    """Levinson solve of Φ(ε) x = b for a Toeplitz metric (float, uncertified)."""
    from scipy.linalg import solve_toeplitz  # deferred: scipy is slow to import (CLI start-up)

    d = np.array([float(v) for v in metric.values])
    col = np.exp(-eps * d[metric.index[:, 0]])
    return np.asarray(solve_toeplitz(col, b, check_finite=False))


def solve_float(metric: FiniteMetric, eps: float, b: np.ndarray) -> np.ndarray:
    """Float solve of Φ(ε) x = b using the cheapest structure available (uncertified)."""
    if metric.toeplitz:
        try:
            x = toeplitz_solve_float(metric, eps, b)
            if np.all(np.isfinite(x)):
                return x
        except (np.linalg.LinAlgError, ValueError):
            pass
    d = np.array([float(v) for v in metric.values])
    phi = np.exp(-eps * d)[metric.index]
    return np.asarray(np.linalg.solve(phi, b))


def _grid_kernel(metric: FiniteMetric, eps: float) -> np.ndarray:
    g = metric.grid
    assert g is not None
    dx = np.arange(g.width)[:, None].astype(float)
    dy = np.arange(g.height)[None, :].astype(float)
    h = float(g.spacing)
    if g.norm == "euclidean":
        dist = np.sqrt(dx**2 + dy**2) * h
    elif g.norm == "manhattan":
        dist = (dx + dy) * h
    else:
        dist = np.maximum(dx, dy) * h
    return np.exp(-eps * dist)


def fft_matvec_from_kernel(kernel: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    """v ↦ Φv for a planar grid whose Φ entry for offset (dx, dy) is kernel[|dx|, |dy|].

    ``kernel`` has shape (W, H); points are row-major (index y·W + x). The product is a
    2-D convolution on a (2H−1)×(2W−1) circulant embedding (FFT; float, uncertified).
    """
    W, H = kernel.shape
    big = np.zeros((2 * H - 1, 2 * W - 1))
    kt = kernel.T  # (H, W)
    big[:H, :W] = kt
    big[:H, W:] = kt[:, 1:][:, ::-1]
    big[H:, :W] = kt[1:, :][::-1, :]
    big[H:, W:] = kt[1:, 1:][::-1, ::-1]
    fk = np.fft.rfft2(big)

    def mv(v: np.ndarray) -> np.ndarray:
        pad = np.zeros((2 * H - 1, 2 * W - 1))
        pad[:H, :W] = v.reshape(H, W)
        out = np.fft.irfft2(np.fft.rfft2(pad) * fk, s=pad.shape)
        return np.asarray(out[:H, :W].reshape(-1))

    return mv


def grid_matvec_float(metric: FiniteMetric, eps: float) -> Callable[[np.ndarray], np.ndarray]:
    """Returns v ↦ Φ(ε) v for a planar grid by FFT (float, uncertified)."""
    return fft_matvec_from_kernel(_grid_kernel(metric, eps))


def cg_solve_float(mv: Callable[[np.ndarray], np.ndarray], b: np.ndarray, tol: float = 1e-12,
                   maxiter: int = 5000) -> np.ndarray:
    """Conjugate gradients for an SPD operator ``mv`` (float, uncertified)."""
    x = np.zeros_like(b)
    r = b - mv(x)
    p = r.copy()
    rs = float(r @ r)
    nb = float(np.linalg.norm(b)) or 1.0
    for _ in range(maxiter):
        if np.sqrt(rs) <= tol * nb:
            break
        Ap = mv(p)
        alpha = rs / float(p @ Ap)
        x = x + alpha * p
        r = r - alpha * Ap
        rs_new = float(r @ r)
        p = r + (rs_new / rs) * p
        rs = rs_new
    return x


def grid_cg_solve_float(
    metric: FiniteMetric, eps: float, b: np.ndarray, tol: float = 1e-12, maxiter: int = 5000
) -> tuple[np.ndarray, float]:
    """Conjugate gradients with FFT matvec on a Euclidean grid (SPD); float, uncertified.

    Returns (x, relative residual).
    """
    mv = grid_matvec_float(metric, eps)
    x = cg_solve_float(mv, b, tol, maxiter)
    res = float(np.linalg.norm(b - mv(x)) / (float(np.linalg.norm(b)) or 1.0))
    return x, res
