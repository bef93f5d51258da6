"""Certified "z(ε) > 0 for every ε in a range" when Φ(ε) is symmetric positive definite.

The threshold search (:mod:`exactdp.threshold.core`) must prove that Φ(ε)z = b has z > 0 for
*every* ε of a range [a, b]. This module does it with O(n²) work per range once a lower
bound λ of the smallest eigenvalue of Φ(ε) on [a, b] is known:

**Taylor piece.** With centre c, h = ε − c, |h| ≤ ω, write Φ(c + h) = Σ_{j≤K} h^jΦ_j +
h^{K+1}Q, where Φ_j[i, l] = (−d)^j e^{−cd}/j! (d = d(i, l)) and, by Lagrange's remainder,
|Q[i, l]| ≤ P[i, l] := d^{K+1}e^{−ad}/(K+1)!. Take any vectors y_0..y_K (float solves of
the Taylor recurrence Φ_0y_k = −Σ_{j≥1}Φ_jy_{k−j}, y_0 = Φ_0⁻¹b) and y(h) = Σ h^ky_k. The
residual r(h) = b − Φ(c + h)y(h) = Σ_{m≤2K} h^mρ_m − h^{K+1}Qy(h) with
ρ_m = [m = 0]b − Σ_{j+k=m} Φ_jy_k, so for every |h| ≤ ω, componentwise

    |r(h)| ≤ Σ_m ω^m|ρ_m| + ω^{K+1} P (Σ_k ω^k|y_k|) =: r̄.

Since Φ(ε) is symmetric with λ_min ≥ λ > 0, ‖z(ε) − y(h)‖∞ ≤ ‖z − y‖₂ ≤ ‖r̄‖₂/λ, and

    z(ε) ≥ y_0 − ω|y_1| − Σ_{k≥2} ω^k·(|y_k| for odd k, max(0, −y_k) for even k) − ‖r̄‖₂/λ.

If that is > 0 for every component, z(ε) > 0 on the whole range (Φ is invertible there).
The |ρ_m| (m ≤ K) are floating-point residuals, bounded with the rounding model of
:mod:`exactdp.linalg.verified` (every sum of N products, in any order, is within
γ_N·Σ|terms| of the exact one; γ_N = Nu/(1 − Nu), u = 2⁻⁵³), plus the radii of the
entries (arb enclosures of e^{−cd}·d^j/j!).

**λ bounds.** Dense Φ: at nodes ε_k a floating-point Cholesky factorisation of
Φ(ε_k) − σI that runs to completion proves λ_min(Φ(ε_k)) ≥ σ − α·tr(Φ − σI) − radii, with
α = γ_{n+1}/(1 − γ_{n+1}) (Demmel's bound R̂ᵀR̂ = A + ΔA, |ΔA| ≤ γ_{n+1}|R̂ᵀ||R̂|, and
|R̂ᵀ||R̂| ≤ dd ᵀ/(1 − γ_{n+1}) with d_i = √a_ii by Cauchy–Schwarz; Rump, BIT 46 (2006)).
Between nodes, every entry e^{−εd} is convex in ε, so Φ(ε) = chord − E with
0 ≤ E ≤ (w²/8)d²e^{−ad} entrywise; λ_min is concave on the chord, hence
λ_min(Φ(ε)) ≥ min(λ(ε_k), λ(ε_{k+1})) − (w²/8)·max_i Σ_l d²e^{−ad}. The verifier re-proves
each node's bound independently with exact integer arithmetic (:func:`exact_lambda_check`).
Euclidean grids: the lattice symbol bound of :mod:`exactdp.algebra.lattice_spectrum` (size-free).

Everything proved here is checked step by step in ``proofs/spd_cover_bounds.py``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Protocol

import numpy as np
from flint import arb, fmpq, fmpz_mat

from exactdp.arithmetic.ball import arb_to_fraction_interval, workprec
from exactdp.errors import PrecisionLimitReached
from exactdp.spaces.metrics import FiniteMetric

__all__ = [
    "PhiProvider",
    "DenseProvider",
    "GridProvider",
    "provider_for",
    "TaylorBounds",
    "taylor_piece",
    "point_bounds",
    "dense_lambda_node",
    "exact_lambda_check",
    "exact_piece_check",
    "taylor_vectors",
    "second_derivative_row_bound",
]

_U = Fraction(1, 2**53)
_ETA = float(np.nextafter(0.0, 1.0))
_ABS_SLACK = 1e-300  # ≫ every underflow term n²·η for n < 10⁸
_ABS_SLACK_Q = Fraction(1, 2**990)  # > 1e-300
_TINY = 2.0**-330  # ≈ 4.6e-100: table entries below it are flushed (see _taylor_tables)


def _gamma(k: int) -> float:
    """Float ≥ γ_k = k·u/(1 − k·u)."""
    g = k * _U / (1 - k * _U)
    f = float(g)
    return f if Fraction(f) >= g else float(np.nextafter(f, np.inf))


def _up(x: Any) -> Any:
    return np.nextafter(x, np.inf)


def _down(x: Any) -> Any:
    return np.nextafter(x, -np.inf)


def _fq(x: Fraction) -> fmpq:
    return fmpq(x.numerator, x.denominator)


def _float_up(q: Fraction) -> float:
    f = float(q)
    return f if Fraction(f) >= q else float(np.nextafter(f, np.inf))


def _float_down(q: Fraction) -> float:
    f = float(q)
    return f if Fraction(f) <= q else float(np.nextafter(f, -np.inf))


def _sum_up(v: np.ndarray) -> float:
    """Float ≥ Σ v for v ≥ 0 (γ_{len} model)."""
    s = float(np.sum(v))
    return float(_up(_up(s * (1 + _gamma(len(v) + 1))) + _ABS_SLACK))


def _norm2_up(v: np.ndarray) -> float:
    """Float ≥ ‖v‖₂ for v ≥ 0."""
    s = float(np.dot(v, v))
    s = float(_up(_up(s * (1 + _gamma(len(v) + 2))) + _ABS_SLACK))
    return float(_up(math.sqrt(s)))


# -------------------------------------------------------------------------------------
# tables of the Taylor coefficients, one entry per distinct distance value
@dataclass(frozen=True)
class _Tables:
    mids: np.ndarray      # (K+1, k) floats: Φ_j entry values
    radmax: np.ndarray    # (K+1,) max radius of the entries
    rem_up: np.ndarray    # (k,) ≥ d^{K+1} e^{−ad}/(K+1)!


def _taylor_tables(values: list[Any], c: Fraction, a: Fraction, K: int) -> _Tables:
    from exactdp.linalg.verified import float_enclosure

    with workprec(128):
        ca, aa = arb(_fq(c)), arb(_fq(a))
        rows: list[list[Any]] = [[] for _ in range(K + 1)]
        rem = []
        fact = [math.factorial(j) for j in range(K + 2)]
        for v in values:
            d = v.ball()
            e = (-ca * d).exp()
            p = arb(1)
            for j in range(K + 1):
                rows[j].append(p * e / fact[j])
                p = p * (-d)
            rem.append(arb((abs(p) * (-aa * d).exp() / fact[K + 1]).upper()))
        mids, rads = [], []
        for j in range(K + 1):
            m, r = float_enclosure(rows[j])
            mids.append(np.asarray(m, dtype=np.float64))
            rads.append(float(np.max(r)) if len(r) else 0.0)
        rm, rr = float_enclosure(rem)
    # entries below 2^-330 are set to 0 (mids) or raised to 2^-330 (upper bounds), and the
    # radius grows by 2^-330: products then never reach the (very slow) subnormal range
    mid_arr = np.array(mids)
    small = np.abs(mid_arr) < _TINY
    mid_arr[small] = 0.0
    rad_arr = np.asarray(_up(np.array(rads) + _TINY))
    rem_up = np.asarray(_up(np.asarray(rm) + np.asarray(rr)))
    rem_up = np.where((rem_up > 0) & (rem_up < _TINY), _TINY, rem_up)
    return _Tables(mid_arr, rad_arr, rem_up)


# -------------------------------------------------------------------------------------
class PhiProvider(Protocol):
    """How to multiply by and solve with a distance-table matrix (dense or structured)."""

    n: int
    gamma_terms: int  # every output of matvec is a sum of ≤ gamma_terms products

    def matvec(self, table: np.ndarray, V: np.ndarray) -> np.ndarray:
        """fl(M V) for M[i, l] = table[value index of d(i, l)] (V of shape (n, m))."""

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
        self.idx = metric.index
        self.nodes: dict[Fraction, tuple[Fraction, Fraction]] = {}  # ε → (σ, λ lower)
        self.chain: list[Fraction] = []
        self._cache: dict[bytes, np.ndarray] = {}

    def _gather(self, table: np.ndarray) -> np.ndarray:
        key = table.tobytes()
        M = self._cache.get(key)
        if M is None:
            if len(self._cache) >= 8:
                self._cache.pop(next(iter(self._cache)))
            M = self._cache[key] = table[self.idx]
        return M

    def matvec(self, table: np.ndarray, V: np.ndarray) -> np.ndarray:
        return np.asarray(self._gather(table) @ V)

    def solver(self, table: np.ndarray) -> Any:
        from scipy.linalg import cho_factor, cho_solve, lu_factor, lu_solve

        if self.metric.toeplitz:  # Levinson, O(n²) per right-hand side
            from scipy.linalg import solve_toeplitz

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
            step_q = max(Fraction(math.floor(step * 2**20), 2**20), Fraction(1, 2**20))
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


def chord_bound(metric: FiniteMetric, e0: Fraction, e1: Fraction, l0: Fraction,
                l1: Fraction) -> Fraction:
    """min(λ(e0), λ(e1)) − ((e1 − e0)²/8)·max_i Σ_l d²e^{−e0·d}, rounded down to 2^−60.

    A lower bound of λ_min(Φ(ε)) for every ε in [e0, e1] when l0, l1 bound λ_min at the
    ends (chord lemma, ``proofs/spd_cover_bounds.py``).
    """
    v = min(l0, l1) - (e1 - e0) ** 2 / 8 * second_derivative_row_bound(metric, e0)
    return Fraction(math.floor(v * 2**60), 2**60)


class GridProvider:
    """Planar Euclidean grid, never forming the n×n matrix: block-Toeplitz products.

    ``matvec`` computes, for every row offset dy, a W×W Toeplitz matrix times all rows
    (BLAS, inner sums of W products) and accumulates at most 2H − 1 such partial sums:
    each output is a sum of W·(2H − 1) products with a summation tree of height
    ≤ W + 2H, so γ_{W+2H+2} bounds its rounding error.
    """

    def __init__(self, metric: FiniteMetric) -> None:
        g = metric.grid
        if g is None or g.norm != "euclidean":
            raise ValueError("GridProvider needs a Euclidean grid metric")
        self.metric = metric
        self.W, self.H, self.spacing = g.width, g.height, g.spacing
        self.n = metric.n
        self.gamma_terms = self.W + 2 * self.H + 2
        pos = {v: i for i, v in enumerate(metric.values)}
        from exactdp.spaces.distances import Distance

        code = np.zeros((self.W, self.H), dtype=np.int64)  # value index of offset (dx, dy)
        for dx in range(self.W):
            for dy in range(self.H):
                code[dx, dy] = pos[Distance.sqrt_of(Fraction(dx * dx + dy * dy) * self.spacing**2)]
        self.code = code
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

    def solver(self, table: np.ndarray) -> Any:
        from exactdp.algebra.structure import cg_solve_float, fft_matvec_from_kernel

        mv = fft_matvec_from_kernel(self._kernel(table))
        maxiter = 20 * self.W + 200

        def solve(B: np.ndarray) -> np.ndarray:
            if B.ndim == 1:
                return cg_solve_float(mv, B, 1e-15, maxiter)
            return np.stack([cg_solve_float(mv, B[:, i], 1e-15, maxiter)
                             for i in range(B.shape[1])], axis=1)

        return solve

    def lambda_lower(self, a: Fraction, b: Fraction) -> Fraction:
        from exactdp.algebra.lattice_spectrum import euclidean_lattice_lambda_lower

        return euclidean_lattice_lambda_lower(a, b, spacing=self.spacing)


def provider_for(metric: FiniteMetric, prefer_grid: bool | None = None) -> PhiProvider:
    """The grid provider for Euclidean grids with n > 2500 (or when asked), else dense."""
    g = metric.grid
    is_grid = g is not None and g.norm == "euclidean"
    if prefer_grid is None:
        prefer_grid = is_grid and metric.n > 2500
    if prefer_grid and is_grid:
        return GridProvider(metric)
    return DenseProvider(metric)


# -------------------------------------------------------------------------------------
# λ_min at a node (dense) and its independent exact re-check
_S2_CACHE: dict[tuple[int, Fraction], tuple[FiniteMetric, Fraction]] = {}


def second_derivative_row_bound(metric: FiniteMetric, a: Fraction) -> Fraction:
    """Rational ≥ max_i Σ_l d(i,l)² e^{−a·d(i,l)} (the chord error's row sums).

    Cached per (metric object, a); the cache checks identity (ids are reused after GC).
    """
    key = (id(metric), a)
    hit = _S2_CACHE.get(key)
    if hit is not None and hit[0] is metric:
        return hit[1]
    if len(_S2_CACHE) > 256:
        _S2_CACHE.clear()
    val = _second_derivative_row_bound(metric, a)
    _S2_CACHE[key] = (metric, val)
    return val


def _second_derivative_row_bound(metric: FiniteMetric, a: Fraction) -> Fraction:
    from exactdp.threshold.core import _distance_count_rows

    rows = _distance_count_rows(metric)
    with workprec(96):
        aa = arb(_fq(a))
        ups = []
        for v in metric.values:
            d = v.ball()
            _, hi = arb_to_fraction_interval(d * d * (-aa * d).exp())
            ups.append(_float_up(hi))
    pw = np.array(ups)
    s = rows.astype(np.float64) @ pw
    k = rows.shape[1]
    s = _up(_up(s * (1 + _gamma(k + 2))) + _ABS_SLACK)
    return Fraction(float(np.max(s)))


def _phi_mid_rad(metric: FiniteMetric, eps: Fraction) -> tuple[np.ndarray, float]:
    """Φ(eps) midpoints (entries < 2^-330 flushed to 0) and a bound on every entry's error."""
    from exactdp.linalg.verified import float_enclosure

    with workprec(96):
        e = arb(_fq(eps))
        m, r = float_enclosure([(-e * v.ball()).exp() for v in metric.values])
    m = np.asarray(m)
    m[np.abs(m) < _TINY] = 0.0
    return m[metric.index], float(_up(float(np.max(r)) + _TINY))


def _cholesky_lambda(A: np.ndarray, rad: float, sigma: Fraction) -> tuple[Fraction, Any]:
    """λ_min(true Φ) ≥ returned bound when chol(A − σI) succeeds (else (−1, None))."""
    from scipy.linalg import cholesky

    n = A.shape[0]
    As = A.copy()
    diag = np.diagonal(A).copy()
    sig = float(sigma)
    np.fill_diagonal(As, diag - sig)
    if np.all(diag == 1.0) and Fraction(float(1.0 - sig)) == 1 - sigma:
        shift_err = Fraction(0)  # the shifted diagonal is exact
    else:
        shift_err = max(abs(Fraction(float(x)) - sigma - Fraction(float(y)))
                        for x, y in zip(diag, np.diagonal(As)))
    try:
        L = cholesky(As, lower=True, check_finite=False)
    except np.linalg.LinAlgError:
        return Fraction(-1), None
    if not np.all(np.isfinite(np.diagonal(L))):
        return Fraction(-1), None
    g = _U * (n + 1) / (1 - _U * (n + 1))
    alpha = g / (1 - g)
    trace = Fraction(_sum_up(np.abs(np.diagonal(As))))
    lam = sigma - alpha * trace - _ABS_SLACK_Q - shift_err - n * Fraction(rad)
    return lam, L


def _dyadic_below(x: Fraction) -> Fraction:
    """A shift σ ≤ x on the grid 2^-20 (so 1 − σ is exact in float), or 2^-60 when x is tiny."""
    bits = 20 if x >= Fraction(1, 256) else 60
    return Fraction(math.floor(x * 2**bits), 2**bits)


def dense_lambda_node(metric: FiniteMetric, eps: Fraction,
                      hint: Fraction | None = None) -> tuple[Fraction, Fraction]:
    """(σ, λ) with λ ≤ λ_min(Φ(eps)) proved by a shifted float Cholesky (λ ≤ 0: failed).

    The bound (Demmel/Rump, module docstring) is checked in ``proofs/spd_cover_bounds.py``.

    σ is a dyadic (2^-20 grid, 2^-60 below 1/256): ``hint`` first (e.g. the previous
    node's σ), else 7/8, 1/2, 1/8 of an inverse-iteration estimate of λ_min.
    """
    A, rad = _phi_mid_rad(metric, eps)
    tries: list[Fraction] = []
    if hint is not None and hint > 0:
        tries = [_dyadic_below(hint * Fraction(13, 10)), hint]
    for attempt in range(2):
        for sigma in tries:
            lam, _L = _cholesky_lambda(A, rad, sigma)
            if lam > 0:
                return sigma, Fraction(math.floor(lam * 2**60), 2**60)
        if attempt == 1:
            break
        from scipy.linalg import cho_factor, cho_solve

        try:
            f = cho_factor(A, lower=True, check_finite=False)
        except np.linalg.LinAlgError:
            return Fraction(0), Fraction(0)
        v = np.random.default_rng(12345).standard_normal(A.shape[0])
        v = v / float(np.linalg.norm(v))
        mu: float = 1.0
        for _ in range(8):
            w = cho_solve(f, v, check_finite=False)
            mu = float(np.linalg.norm(w))
            v = w / mu
        lam_est = 1.0 / mu  # ≥ λ_min (an upper estimate)
        tries = [_dyadic_below(Fraction(lam_est) * Fraction(fr)) for fr in (0.875, 0.5, 0.125)]
        tries = [t for t in tries if t > 0]
    return Fraction(0), Fraction(0)


def exact_lambda_check(metric: FiniteMetric, eps: Fraction, sigma: Fraction,
                       claimed: Fraction, bits: int = 60) -> bool:
    """Independent re-proof of λ_min(Φ(eps)) ≥ claimed, by exact integer arithmetic.

    Takes a float Cholesky factor of Φ_mid − σI rounded to the grid 2^−bits (any lower
    triangular L will do), computes E = LLᵀ − A exactly over the integers, where A is
    Φ_mid − σI rounded to the grid 2^−2bits, and uses A = LLᵀ − E ⪰ −E: so
    λ_min(Φ) ≥ σ − ‖E‖∞ − n·2^−(2bits+1) − n·(max entry radius). No rounding-error analysis
    is involved, only ball enclosures of the entries and integer arithmetic (python-flint).
    The congruence argument is in ``proofs/spd_cover_bounds.py``.
    """
    n = metric.n
    if Fraction(sigma).denominator > 2**bits:
        return False
    A, rad = _phi_mid_rad(metric, eps)
    As = A.copy()
    np.fill_diagonal(As, np.diagonal(A) - float(sigma))
    try:
        L = np.linalg.cholesky(As)
    except np.linalg.LinAlgError:
        return False
    Lm = fmpz_mat(n, n, [int(x) for x in np.rint(L * 2.0**bits).ravel()])
    Ai = [int(x) for x in np.rint(A * 2.0 ** (2 * bits)).ravel()]
    shift = int(Fraction(sigma) * 2 ** (2 * bits))
    for i in range(n):
        Ai[i * n + i] -= shift
    E = Lm * Lm.transpose() - fmpz_mat(n, n, Ai)
    ent = [abs(int(x)) for x in E.entries()]
    worst = max(sum(ent[i * n:(i + 1) * n]) for i in range(n))
    bound = (sigma - Fraction(worst, 2 ** (2 * bits)) - Fraction(n, 2 ** (2 * bits + 1))
             - n * Fraction(rad))
    return bound >= claimed


# -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class TaylorBounds:
    """Result of one Taylor piece: componentwise lower bound of z on the range."""

    ok: bool
    min_lower: float       # min_i of the certified lower bound (may be ≤ 0)
    err: float             # ‖r̄‖₂/λ
    lam: Fraction


def _taylor_vectors(prov: PhiProvider, tab: _Tables, b: np.ndarray, K: int) -> np.ndarray:
    solve = prov.solver(tab.mids[0])
    ys = [np.asarray(solve(b))]
    # one refinement step for y0
    r0 = b - prov.matvec(tab.mids[0], ys[0][:, None])[:, 0]
    ys[0] = ys[0] + np.asarray(solve(r0))
    for k in range(1, K + 1):
        acc = np.zeros(prov.n)
        for j in range(1, k + 1):
            acc += prov.matvec(tab.mids[j], ys[k - j][:, None])[:, 0]
        ys.append(-np.asarray(solve(acc)))
    return np.stack(ys, axis=1)  # (n, K+1)


def taylor_vectors(prov: PhiProvider, values: list[Any], b: np.ndarray, a: Fraction,
                   bb: Fraction, K: int) -> np.ndarray:
    """Float Taylor vectors y_0..y_K at the centre of [a, bb] (columns; uncertified)."""
    tab = _taylor_tables(values, (a + bb) / 2, a, K)
    return _taylor_vectors(prov, tab, b, K)


def taylor_piece(prov: PhiProvider, values: list[Any], b: np.ndarray, b_rad: float,
                 a: Fraction, bb: Fraction, K: int, lam: Fraction,
                 Y: np.ndarray | None = None) -> tuple[TaylorBounds, np.ndarray]:
    """Certify z(ε) > 0 for all ε in [a, bb] (module docstring; ``proofs/spd_cover_bounds.py``).

    ``b`` is the float right-hand side, exact up to ``b_rad`` per entry; ``lam`` a proved
    lower bound of λ_min(Φ(ε)) on [a, bb]. Returns the bounds and the Taylor vectors.
    """
    if lam <= 0 or K < 0 or bb < a:
        return TaylorBounds(False, -math.inf, math.inf, lam), np.zeros((prov.n, 0))
    c = (a + bb) / 2
    omega = _float_up((bb - a) / 2)
    tab = _taylor_tables(values, c, a, K)
    if Y is None:
        Y = _taylor_vectors(prov, tab, b, K)
    n = prov.n
    absY = np.abs(Y)
    g = _gamma(prov.gamma_terms + K + 3)
    gt = _gamma(prov.gamma_terms)
    inv1g = _float_up(1 / (1 - Fraction(gt)))
    # underflow: ≤ η/2 per rounded product or sum; _ABS_SLACK (1e-300) covers any count of
    # terms below 10²³, far beyond every n here
    tail = _float_up(Fraction(2 * prov.gamma_terms) * Fraction(_ETA)) + _ABS_SLACK
    l1 = np.array([_sum_up(absY[:, k]) for k in range(K + 1)])
    # products: S[j] = M_j [Y, |Y|]
    prods = []
    for j in range(K + 1):
        prods.append(prov.matvec(tab.mids[j], np.concatenate([Y, absY], axis=1)))
    # AB[j][k] ≥ |M_j||y_k| (float mids); RT[j][k] ≥ |Φ_j − M_j||y_k| (entry radii)
    AB = [[np.asarray(_up(_up(np.abs(prods[j][:, K + 1 + k]) + tail) * inv1g))
           for k in range(K + 1)] for j in range(K + 1)]
    RT = [[float(_up(tab.radmax[j] * l1[k])) for k in range(K + 1)] for j in range(K + 1)]
    omegas = [1.0]
    for _ in range(2 * K + 2):
        omegas.append(float(_up(omegas[-1] * omega)))
    rbar = np.zeros(n)
    for m in range(2 * K + 1):
        pairs = [(j, m - j) for j in range(K + 1) if 0 <= m - j <= K]
        mag = np.zeros(n)
        rt = 0.0
        for j, k in pairs:
            mag = _up(mag + AB[j][k])
            rt = float(_up(rt + RT[j][k]))
        if m <= K:
            # |ρ_m| ≤ |fl(ρ_m)| + γ(|b|[m=0] + Σ|M_j||y_k|) + tails + Σ radius terms (+ b radius)
            fl = (b if m == 0 else np.zeros(n)).copy()
            for j, k in pairs:
                fl = fl - prods[j][:, k]
            base = np.abs(b) if m == 0 else np.zeros(n)
            bound = _up(np.abs(fl) + _up(g * _up(mag + base)))
            bound = _up(bound + float(_up(rt + tail * (K + 2) + (b_rad if m == 0 else 0.0))))
        else:
            bound = _up(mag + rt)
        rbar = _up(rbar + _up(omegas[m] * bound))
    # remainder: ω^{K+1} P Σ ω^k |y_k|
    Ysum = np.zeros(n)
    for k in range(K + 1):
        Ysum = _up(Ysum + _up(omegas[k] * absY[:, k]))
    rem_tab = tab.rem_up
    PY = prov.matvec(rem_tab, Ysum[:, None])[:, 0]
    PY = _up(_up(PY + tail) * inv1g)
    rbar = _up(rbar + _up(omegas[K + 1] * PY))
    if not np.all(np.isfinite(rbar)) or lam <= 0:
        return TaylorBounds(False, -math.inf, math.inf, lam), Y
    lam_f = _float_down(lam)
    err = float(_up(_norm2_up(rbar) / lam_f))
    low = Y[:, 0].copy()
    low = _down(low - _up(omegas[1] * absY[:, 1])) if K >= 1 else low
    for k in range(2, K + 1):
        term = absY[:, k] if k % 2 else np.maximum(0.0, -Y[:, k])
        low = _down(low - _up(omegas[k] * term))
    low = _down(low - err)
    mn = float(np.min(low))
    return TaylorBounds(bool(np.all(np.isfinite(low)) and mn > 0), mn, err, lam), Y


def point_bounds(prov: PhiProvider, values: list[Any], b: np.ndarray, b_rad: float,
                 eps: Fraction, lam: Fraction) -> tuple[np.ndarray, float]:
    """(y, err): the exact z(eps) satisfies |z − y| ≤ err componentwise (err = ∞: unknown)."""
    tab = _taylor_tables(values, eps, eps, 0)
    Y = _taylor_vectors(prov, tab, b, 0)
    res, _ = taylor_piece(prov, values, b, b_rad, eps, eps, 0, lam, Y)
    if not math.isfinite(res.err):
        raise PrecisionLimitReached(f"no error bound at ε = {eps}")
    return Y[:, 0], res.err


# -------------------------------------------------------------------------------------
# independent exact re-check of a Taylor piece (dense metrics)
_SY = 58    # Taylor vectors are rounded to the grid 2^-58
_ST = 110   # table entries are enclosed by integers at scale 2^110
_LIMB = 30  # histogram limbs: n·2^30 < 2^53 keeps every float partial sum exact


def _exact_hist_product(codes: np.ndarray, n: int, k: int, v: list[int],
                        counts: fmpz_mat, table: fmpz_mat) -> fmpz_mat:
    """H·table exactly, where H[i, d] = Σ_{l : idx[i,l] = d} v[l] (v integers of any size).

    v is shifted to v + off ≥ 0 and cut into 30-bit limbs; each limb's histogram is a
    float bincount whose partial sums stay below n·2^30 < 2^53 (so it is exact); the limb
    products are recombined over the integers and off·(distance counts)·table subtracted.
    """
    off = max(0, -min(v))
    vp = [x + off for x in v]
    top = max(vp)
    out = fmpz_mat(n, table.ncols())
    shift = 0
    mask = (1 << _LIMB) - 1
    while top >> shift:
        limb = np.array([(x >> shift) & mask for x in vp], dtype=np.float64)
        h = np.bincount(codes, weights=np.tile(limb, n), minlength=n * k)
        out += (fmpz_mat(n, k, h.astype(np.int64).tolist()) * table) * (1 << shift)
        shift += _LIMB
    if off:
        out -= (counts * table) * off
    return out


def exact_piece_check(metric: FiniteMetric, rhs: tuple[Fraction, ...], a: Fraction,
                      b: Fraction, K: int, lam: Fraction, Y: np.ndarray,
                      upper_index: int | None = None) -> bool:
    """Re-prove a Taylor piece with exact integer arithmetic (no rounding analysis).

    The Taylor vectors are rounded to dyadics y_k (grid 2^-58); the entries of Φ_j and
    of the remainder table are enclosed by integers at scale 2^110 (arb balls, outward);
    every Φ_j·y_k is computed exactly through per-row histograms of y_k over the
    distinct distances (H[i, d] = Σ_{d(i,l)=d} y_l, float sums of 30-bit limbs, exact);
    the entry radii contribute ≤ max radius·‖y_k‖₁ and the remainder P·Σ_k ω^k|y_k| uses
    that vector rounded up. Then r̄, ‖r̄‖₂² and the lower bound of y(h) are exact
    rationals and min_i lower_i > ‖r̄‖₂/λ is decided exactly (squares). Same mathematics
    as :func:`taylor_piece` (``proofs/spd_cover_bounds.py``), independent arithmetic.

    With ``upper_index = i`` (a point, K = 0) it decides instead y_i + ‖r̄‖₂/λ < 0, i.e.
    that z_i(a) < 0.
    """
    n = metric.n
    if n > 1 << 22 or lam <= 0 or K < 0 or b < a:
        return False
    values = list(metric.values)
    k = len(values)
    codes = (np.arange(n, dtype=np.int64)[:, None] * k + metric.index).ravel()
    counts = fmpz_mat(n, k, np.bincount(codes, minlength=n * k).tolist())
    c = (a + b) / 2
    omega = (b - a) / 2
    yint = [[int(v) for v in np.rint(np.ldexp(Y[:, j], _SY))] for j in range(K + 1)]
    om = [omega**m for m in range(2 * K + 3)]
    # Σ_k ω^k |y_k|, rounded up to the grid 2^-SY
    ysum = [sum(om[kk] * abs(yint[kk][i]) for kk in range(K + 1)) for i in range(n)]
    ysum_int = [math.ceil(x) for x in ysum]
    # tables: integer enclosures at scale 2^_ST (lo, and hi − lo as radius)
    fact = [math.factorial(j) for j in range(K + 2)]
    S = 1 << _ST
    mid_tab: list[list[int]] = [[] for _ in range(K + 1)]
    radmax = [0] * (K + 1)
    rem_tab: list[int] = []
    with workprec(192):
        ca, aa = arb(_fq(c)), arb(_fq(a))
        for v in values:
            d = v.ball()
            e = (-ca * d).exp()
            p = arb(1)
            for j in range(K + 1):
                lo, hi = arb_to_fraction_interval(p * e / fact[j])
                lo_i, hi_i = math.floor(lo * S), math.ceil(hi * S)
                mid_tab[j].append(lo_i)
                radmax[j] = max(radmax[j], hi_i - lo_i)
                p = p * (-d)
            _, hi = arb_to_fraction_interval(abs(p) * (-aa * d).exp() / fact[K + 1])
            rem_tab.append(math.ceil(hi * S))
    mids = fmpz_mat(k, K + 1, [mid_tab[j][d] for d in range(k) for j in range(K + 1)])
    rems = fmpz_mat(k, 1, rem_tab)
    signed = []  # signed[kk][j][i] = (M_j y_kk)_i at scale 2^(ST+SY)
    for kk in range(K + 1):
        P = _exact_hist_product(codes, n, k, yint[kk], counts, mids)
        signed.append([[int(P[i, j]) for i in range(n)] for j in range(K + 1)])
    Pr = _exact_hist_product(codes, n, k, ysum_int, counts, rems)
    remprod = [int(Pr[i, 0]) for i in range(n)]
    l1 = [sum(abs(x) for x in yint[kk]) for kk in range(K + 1)]
    # all in integers: r̄_i = R_i / Zden, lower_i = L_i / (2^SY·oq^K)
    op, oq = omega.numerator, omega.denominator
    bq = [Fraction(x) for x in rhs]
    B = math.lcm(*(x.denominator for x in bq))
    bint = [x.numerator * (B // x.denominator) << (_ST + _SY) for x in bq]  # b·B·2^(ST+SY)
    zm = [op**m * oq ** (2 * K + 2 - m) for m in range(2 * K + 3)]
    pairs_m = [[(j, m - j) for j in range(K + 1) if 0 <= m - j <= K] for m in range(2 * K + 1)]
    rad_m = [sum(radmax[j] * l1[kk] for j, kk in pm) for pm in pairs_m]
    sum_r2 = 0
    for i in range(n):
        T = 0
        for m in range(2 * K + 1):
            sgn = sum(signed[kk][j][i] for j, kk in pairs_m[m])
            if m == 0:  # ρ_0 = b − Σ M_j y_k; for m ≥ 1 the residual has no b term
                val = abs(bint[i] - sgn * B) + rad_m[m] * B
            else:
                val = (abs(sgn) + rad_m[m]) * B
            T += zm[m] * val
        T += zm[K + 1] * remprod[i] * B
        sum_r2 += T * T
    zden = B * oq ** (2 * K + 2) << (_ST + _SY)
    lam_n, lam_d = lam.numerator, lam.denominator
    if upper_index is not None:
        if K != 0 or a != b:
            return False
        neg = -yint[0][upper_index]
        return neg > 0 and neg * neg * zden * zden * lam_n * lam_n > \
            sum_r2 * (1 << _SY) ** 2 * lam_d * lam_d
    lmin = None
    for i in range(n):
        L = yint[0][i] * oq**K
        if K >= 1:
            L -= op * oq ** (K - 1) * abs(yint[1][i])
        for kk in range(2, K + 1):
            yk = yint[kk][i]
            L -= op**kk * oq ** (K - kk) * (abs(yk) if kk % 2 else max(0, -yk))
        lmin = L if lmin is None else min(lmin, L)
    if lmin is None or lmin <= 0:
        return False
    # (lmin / (2^SY oq^K))² > Σ R² / (zden² λ²)
    return lmin * lmin * zden * zden * lam_n * lam_n > sum_r2 * ((oq**K) << _SY) ** 2 * lam_d * lam_d
