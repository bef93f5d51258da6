"""Exact z = Φ(ε)⁻¹b on a grid where Φ is rational, and its certificate (kind ``grid-point-exact``).

When every distance is an integer multiple k·h of the spacing h (Manhattan grids, masked
or not; one row or column under either norm) and T = e^{−ε·h} is rational, Φ(ε) = [T^k] is
a rational matrix and z is rational. Enclosures can never separate an entry z_i = 0 from 0
(e.g. masked Manhattan grids at T = 1/2, where ε* = ln 2 exactly: the inner corners' z_i
vanish there); this module finds z *exactly* without an n×n table:

1. a float solve (FFT + preconditioned CG, :func:`~exactdp.linalg.grid_pcg.grid_pcg_solver`),
   refined once by its residual, computed in integers with the table t^k rounded down to
   2^−F (:data:`RESIDUAL_BITS` + log n bits: the candidate is a guess, only step 3 is exact,
   and a tiny t such as 10^−400 no longer makes this product as large as the exact one);
2. every entry rationalised with a bounded denominator (``Fraction.limit_denominator``):
   first z/max|b_i|, then — if that guess fails — the direction z/z_j (z_j the largest entry),
   the scalar read exactly from one equation (so b = Φα/c with a rational α works too);
3. the guess checked *exactly*: with T = p/q and K = W + H − 2, Φx = b ⇔
   Σ_j p^{k_ij}q^{K−k_ij}·X_j = D·q^K·b_i for X = D·x integers — first on a few rows
   (:data:`TEST_ROWS`, O(n) exact terms each: a guess failing one row fails the whole
   check, so it is dropped before the product), then one exact integer product over all
   rows (the kernel's :class:`~exactdp.kernel.threshold_grid.GridProducts`, quasi-linear
   in n but with K·log₂ q-bit entries: ≈ 20 s at 40×40 and q = 10^400).

Φ is positive definite for 0 < T < 1 on every subset of the lattice (λ_min ≥
((1 − T)/(1 + T))², ``proofs/grid_point_bounds.py``), so a checked x is *the* solution: its
signs (zeros included) decide "Φx = b has a solution x ≥ 0" exactly. When z's denominators
exceed the bound, the guess fails its check and the answer is None (never a wrong x).

:func:`exact_grid_point` wraps that into a :class:`GridPointExactCertificate` (z as integers
over one common denominator), which the kernel re-checks with its own exact product
(:mod:`exactdp.kernel.grid_point_exact`); :func:`~exactdp.engine.grid_point.solve_grid_point`
calls it when its enclosures cannot decide.

Examples
--------
>>> from exactdp.spaces.metrics.masked import GridShape
>>> sh = GridShape(4, 4, "manhattan", Fraction(1), (0, 1, 4, 5) + tuple(range(8, 16)))
>>> z = grid_exact_z(sh, Fraction(1, 2), (Fraction(1),) * 12)
>>> min(z), sorted({v.denominator for v in z})
(Fraction(0, 1), [1, 9])
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, ClassVar, Protocol

import numpy as np
from flint import fmpz_mat

from exactdp.arithmetic.interval import Enclosure
from exactdp.engine.grid_documents import write_grid_point_exact
from exactdp.errors import REJECTED_ERRORS, InstanceTooLarge, InvalidArgument, InvalidMetric
from exactdp.kernel.grid_point_exact import (
    GridPointExactClaim,
    check_grid_point_exact,
    exact_unit_t,
    lattice_distances,
    read_grid_point_exact,
    require_exact_work,
)
from exactdp.kernel.jsonio import loads
from exactdp.kernel.threshold_grid import GridProducts
from exactdp.kinds import CertificateKind, Verdict, proved_by
from exactdp.linalg.grid_pcg import grid_pcg_solver
from exactdp.spaces.levels import PrivacyLevel
from exactdp.spaces.metrics import FiniteMetric, grid
from exactdp.spaces.metrics.masked import GridShape, grid_shape, masked_grid

__all__ = ["GridPointExactCertificate", "exact_grid_point", "grid_exact_z", "grid_metric",
           "grid_shape_of", "answers_grid_question", "MAX_DEN_BITS", "RESIDUAL_BITS", "TEST_ROWS"]

#: largest denominator tried when rationalising an entry (2^40); beyond it: None
MAX_DEN_BITS = 40
#: fraction bits (plus log₂ n) of the rounded table t^k in the refinement's residual
RESIDUAL_BITS = 192
#: rows checked exactly, one at a time, before a guess's full exact product
TEST_ROWS = 4


def grid_shape_of(metric: FiniteMetric) -> GridShape:
    """The exact shape of a library grid or masked grid (InvalidMetric for another metric)."""
    shape = grid_shape(metric)
    if shape is None:
        raise InvalidMetric(f"{getattr(metric, 'name', metric)!r} is not a library grid or "
                            "masked grid (build it with grid(...) or masked_grid(...)).")
    return shape


def grid_metric(sh: GridShape) -> FiniteMetric:
    """The library grid of a shape (rebuilt by its constructor)."""
    if sh.mask is None:
        return grid(sh.width, sh.height, sh.norm, sh.spacing)
    return masked_grid(sh.width, sh.height, sh.norm, sh.spacing, mask=sh.mask_rows())


class _GridAnswer(Protocol):
    @property
    def metric(self) -> FiniteMetric: ...
    @property
    def level(self) -> PrivacyLevel: ...
    @property
    def rhs(self) -> tuple[Fraction, ...]: ...
    @property
    def holds(self) -> bool: ...
    def verify(self) -> bool: ...


def answers_grid_question(cert: _GridAnswer, metric: FiniteMetric, level: PrivacyLevel,
                          rhs: Sequence[Fraction], holds: bool) -> bool:
    """True when a one-ε grid certificate is about this grid (same exact shape), level and
    right-hand side, claims ``holds``, and verifies (False, never an exception)."""
    try:
        shape = grid_shape(metric)
        return (shape is not None and shape == grid_shape(cert.metric)
                and cert.level == level and tuple(cert.rhs) == tuple(rhs)
                and bool(cert.holds) is bool(holds) and cert.verify())
    except REJECTED_ERRORS:
        return False


@proved_by("grid_point_exact")
def grid_exact_z(shape: GridShape, t: Fraction, rhs: Sequence[Fraction],
                 max_den_bits: int = MAX_DEN_BITS, step: int = 1) -> tuple[Fraction, ...] | None:
    """The exact solution z of Φx = rhs where Φ's entry at offset length k·h is t^{k/step}
    (module docstring), or None when no candidate with small denominators passes the
    exact check.

    The distances must be k·h with k = |dx| + |dy|
    (:func:`~exactdp.kernel.grid_point_exact.lattice_distances`: Manhattan, or one row or
    column; InvalidMetric otherwise), and — the caller's precondition — every k occurring
    between two kept cells a multiple of ``step`` (other offsets get the table value 0,
    which no product reads back). The work is bounded before any table or product by the
    kernel's limit (:func:`~exactdp.kernel.grid_point_exact.require_exact_work` with
    T = t per step·h, an upper bound; InstanceTooLarge), and again before each product.
    Uniqueness: Φ ≻ 0 (``proofs/grid_point_bounds.py``); the exact check: one integer
    convolution (``proofs/grid_exact_convolution.py``, ``proofs/grid_point_exact.py``).
    """
    n, W, H = shape.n, shape.width, shape.height
    if not lattice_distances(shape):
        raise InvalidMetric(f"a {W}×{H} {shape.norm} grid: its distances are not "
                            "(|dx| + |dy|)·spacing, so Φ is not [t^k] with k = |dx| + |dy|; "
                            "the exact route takes Manhattan grids, or one row or column "
                            "(other grids: the enclosure routes).")
    b = [Fraction(v) for v in rhs]
    if len(b) != n:
        raise InvalidArgument(f"rhs has {len(b)} entries; the grid has {n} points.")
    require_exact_work(shape, (t, 1), 64)      # the kernel's limit, before any table/product
    scale = max((abs(v) for v in b), default=Fraction(0))
    if scale == 0:  # Φ is positive definite: z = 0
        return tuple(Fraction(0) for _ in b)
    b = [v / scale for v in b]
    K = W + H - 2
    ks = np.add.outer(np.arange(W), np.arange(H))          # k of offset (dx, dy)
    p, q, Kg = t.numerator, t.denominator, K // step
    op = GridProducts(shape)                                # the kernel's exact product
    codes_k = [int(v.coef / shape.spacing) for v in op.values]
    table = fmpz_mat(len(codes_k), 1, [p ** (k // step) * q ** (Kg - k // step)
                                       if k % step == 0 else 0 for k in codes_k])
    cells = np.asarray(shape.cells, dtype=np.int64)

    def exact(X: Sequence[int]) -> list[int]:               # q^Kg·Φ·X on the kept cells
        require_exact_work(shape, (t, 1), max(abs(x) for x in X).bit_length())
        S, _ = op.sums(table, [list(X)])   # tau = 0 crops only entries equal to 0: exact
        return [int(v) for v in S[0]]

    xs, ys = cells % W, cells // W

    def row(i: int, X: Sequence[int]) -> int:                # (q^Kg·Φ·X)_i, O(n) exact terms
        sums: dict[int, int] = {}
        for k, xj in zip((np.abs(xs - xs[i]) + np.abs(ys - ys[i])).tolist(), X):
            sums[k] = sums.get(k, 0) + xj
        return sum(entry(k) * v for k, v in sums.items())

    memo: dict[int, int] = {}

    def entry(k: int) -> int:                                 # the exact table's entry at k
        if k not in memo:
            memo[k] = p ** (k // step) * q ** (Kg - k // step) if k % step == 0 else 0
        return memo[k]

    F = RESIDUAL_BITS + n.bit_length()                      # the refinement's table t^k ≈ A_k/2^F
    approx = fmpz_mat(len(codes_k), 1, [(p ** (k // step) << F) // q ** (k // step)
                                        if k % step == 0 else 0 for k in codes_k])

    with np.errstate(under="ignore"):
        ker = float(t) ** (ks / step)
    solve = grid_pcg_solver(ker, 1e-13, 20 * max(W, H) + 500,
                            None if shape.mask is None else cells)
    B = math.lcm(*(x.denominator for x in b))
    qK = q**Kg
    bq = [x.numerator * (B // x.denominator) * qK for x in b]      # B·q^Kg·b_i
    y = np.asarray(solve(np.array([float(x) for x in b])))
    if not np.all(np.isfinite(y)):
        return None
    s = 60 - math.frexp(float(np.max(np.abs(y))) or 1.0)[1]    # y on 2^-s, refined once
    Y = [int(v) for v in np.rint(np.ldexp(y, s))]
    require_exact_work(shape, (Fraction(1, 2), 1), F + 64)   # entries of ≤ F + 61 + log n bits
    A, _ = op.sums(approx, [Y])                             # ≈ 2^(F+s)·Φy: a guess's residual
    bn = [x.numerator * (B // x.denominator) for x in b]   # B·b_i
    r = np.array([((bi << (F + s)) - B * int(a)) / (B << (F + s)) if F + s >= 0
                  else (bi - B * int(a) * 2 ** -(F + s)) / B for bi, a in zip(bn, A[0])])
    corr = np.asarray(solve(r))
    if not np.all(np.isfinite(corr)):
        return None
    qmax = 1 << max_den_bits
    x = [(Fraction(Yi, 1 << s) if s >= 0 else Fraction(Yi << -s)) + Fraction(float(c))
         for Yi, c in zip(Y, corr)]
    guess = [xi.limit_denominator(qmax) for xi in x]
    D = math.lcm(*(xi.denominator for xi in guess))
    X = [xi.numerator * (D // xi.denominator) for xi in guess]
    rows = sorted({0, n - 1, *np.argsort(np.abs(np.asarray(x, dtype=float)))[-TEST_ROWS:].tolist()})
    if (all(B * row(i, X) == D * bq[i] for i in rows)
            and all(B * c == D * bi for c, bi in zip(exact(X), bq))):
        return tuple(scale * xi for xi in guess)
    j = max(range(n), key=lambda i: abs(x[i]))             # z = c·d, d = z/z_j
    if x[j] == 0:
        return None
    d = [(xi / x[j]).limit_denominator(qmax) for xi in x]
    D = math.lcm(*(di.denominator for di in d))
    X = [di.numerator * (D // di.denominator) for di in d]
    i0 = max(range(n), key=lambda i: abs(bq[i]))
    p0 = row(i0, X)
    if p0 == 0 or any(bq[i] * p0 != bq[i0] * row(i, X) for i in rows):
        return None                                           # the full check below would fail
    P = exact(X)                                              # q^Kg·Φ·(D·d)
    if P[i0] == 0 or any(bi * P[i0] != bq[i0] * pi for bi, pi in zip(bq, P)):
        return None
    c = Fraction(bq[i0], B * P[i0])                           # q^Kg·Φ·(c·X) = bq/B
    return tuple(scale * c * xi for xi in X)


@dataclass(frozen=True)
class GridPointExactCertificate:
    """Φx = b on a grid at one ε where Φ is rational (e^{−ε·h} rational, distances k·h):
    the EXACT solution z = numerators/denominator (one common denominator).

    ``verify()`` re-checks in the kernel
    (:func:`~exactdp.kernel.grid_point_exact.check_grid_point_exact`): Φz = b recomputed
    exactly in integers from the grid's shape, the verdict read from the signs of z (an
    exactly-zero entry included). No enclosure, no λ: the answer is exact.

    >>> from exactdp.spaces.levels import parse_level
    >>> m = masked_grid(4, 4, "manhattan", mask=["1100", "1100", "1111", "1111"])
    >>> cert = exact_grid_point(m, parse_level(t="1/2"))
    >>> cert.holds, min(cert.z), cert.verify(), cert.to_json()["kind"]
    (True, Fraction(0, 1), True, 'grid-point-exact')
    """

    kind: ClassVar[CertificateKind] = CertificateKind.GRID_POINT_EXACT

    metric: FiniteMetric = field(repr=False)
    level: PrivacyLevel
    rhs: tuple[Fraction, ...] = field(repr=False)
    holds: bool
    witness: int | None
    numerators: tuple[int, ...] = field(repr=False)
    denominator: int

    @property
    def verdict(self) -> Verdict:
        """``HOLDS`` or ``FAILS`` as claimed by ``holds``."""
        return Verdict.from_bool(bool(self.holds))

    @property
    def z(self) -> tuple[Fraction, ...]:
        """The exact solution z = numerators/denominator (valid once verified)."""
        return tuple(Fraction(x, self.denominator) for x in self.numerators)

    def claim(self) -> GridPointExactClaim:
        """The kernel's claim (the metric's exact grid shape; InvalidMetric if not a grid)."""
        return GridPointExactClaim(grid_shape_of(self.metric), self.level, tuple(self.rhs),
                                   bool(self.holds), self.witness, tuple(self.numerators),
                                   self.denominator)

    def verify(self) -> bool:
        """Re-check every claim from the question (False, never an exception, if tampered;
        :class:`~exactdp.errors.InstanceTooLarge` beyond the kernel's work limit)."""
        try:
            return check_grid_point_exact(self.claim())
        except REJECTED_ERRORS:
            return False

    def answers(self, metric: FiniteMetric, level: PrivacyLevel, rhs: Sequence[Fraction],
                holds: bool) -> bool:
        """:func:`answers_grid_question` for this certificate."""
        return answers_grid_question(self, metric, level, rhs, holds)

    def enclosures(self) -> tuple[Enclosure, ...]:
        """Degenerate enclosures [z_i, z_i] (the solution is exact)."""
        return tuple(Enclosure(v, v) for v in self.z)

    def to_json(self) -> dict[str, Any]:
        """The document of kind ``grid-point-exact``
        (:func:`~exactdp.engine.grid_documents.write_grid_point_exact`)."""
        return write_grid_point_exact(self.claim())

    @classmethod
    def from_json(cls, doc: Any) -> GridPointExactCertificate:
        """Rebuild from a document (parsed or text). Only as good as :meth:`verify`."""
        c = read_grid_point_exact(loads(doc) if isinstance(doc, (str, bytes)) else doc)
        return cls(grid_metric(c.shape), c.level, c.rhs, c.holds, c.witness, c.numerators,
                   c.denominator)


def exact_grid_point(metric: FiniteMetric, level: PrivacyLevel,
                     rhs: Sequence[Any] | None = None) -> GridPointExactCertificate | None:
    """The exact one-ε answer on a grid whose Φ is rational, or None.

    Applies when the distances are k·h (Manhattan, or one row or column) and
    T = e^{−ε·h} is rational (:func:`~exactdp.kernel.grid_point_exact.exact_unit_t`: ``t=``
    given, or ε = ln(1/t) exactly); z from :func:`grid_exact_z`, whose signs decide — an
    exactly-zero entry included. None when the route does not apply (irrational T or
    distances), when z's denominators exceed 2^40, or when the kernel would refuse the
    document for its size. About two float solves and two or three exact products.
    """
    shape = grid_shape_of(metric)
    n = shape.n
    b = tuple(Fraction(1) for _ in range(n)) if rhs is None else tuple(Fraction(v) for v in rhs)
    unit = exact_unit_t(shape, level)
    if unit is None or len(b) != n:
        return None
    try:
        require_exact_work(shape, unit, 64)      # before T = u^a and any product
        z = grid_exact_z(shape, unit[0] ** unit[1], b)   # checks again before each product
    except InstanceTooLarge:
        return None
    if z is None:
        return None
    den = math.lcm(*(v.denominator for v in z))
    X = tuple(v.numerator * (den // v.denominator) for v in z)
    try:
        require_exact_work(shape, unit, max(abs(x) for x in X).bit_length())
    except InstanceTooLarge:
        return None
    low = min(range(n), key=X.__getitem__)
    holds = X[low] >= 0
    return GridPointExactCertificate(metric, level, b, holds, None if holds else low, X, den)
