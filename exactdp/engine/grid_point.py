"""One ε on a large grid, matrix-free: does Φx = b have a solution x ≥ 0? With a certificate.

The route for ``tight_constraints`` (b = 1) and ``is_regular`` (b = π) on Euclidean and
Manhattan grids and masked grids (:mod:`exactdp.spaces.metrics.masked`) above
:data:`GRID_POINT_ABOVE_N` points. Memory O(n): no n×n array is ever formed.

1. *Find* (float, uncertified): y ≈ Φ⁻¹b by FFT products and conjugate gradients
   (:mod:`exactdp.linalg.grid_pcg`; preconditioned by Strang's circulant, or T. Chan's at
   small ε where Strang's is indefinite; on masked grids the full grid's circulant applied
   to the zero-padded residual).
2. *Prove*: y is rounded to a dyadic vector Y·2^-s; the kernel
   (:func:`exactdp.kernel.grid_point.grid_residual`) bounds ‖b − Φy‖₂ exactly (integer 2-D
   convolution, entries e^{-εd} enclosed by integers at 2^-T), and λ ≤ λ_min(Φ) is proved
   (Euclidean: found by the lattice symbol bound of :mod:`exactdp.algebra.lattice_spectrum`,
   re-proved by the kernel's :func:`~exactdp.kernel.lattice.euclidean_lambda_ok`;
   Manhattan: ((1 − t)/(1 + t))²), so every |z_i − y_i| ≤ ρ = ‖r‖₂/λ.
3. *Decide*: "holds" when every y_i ≥ ρ, "fails" when some y_i + ρ < 0; otherwise the
   exact residual is solved for a correction (iterative refinement: ~40 more bits of y per
   round) until decided or until s exceeds ``max_bits``
   (:class:`~exactdp.errors.PrecisionLimitReached`, naming the entry and ρ).
4. *Exact* (first undecided round only): an entry z_i = 0 is never separated from 0 by
   enclosures. When Φ is rational — distances k·h (Manhattan, or one row or column) and
   T = e^{−ε·h} rational (``t=`` given, or ε = ln(1/t) exactly) —
   :func:`~exactdp.engine.grid_exact.exact_grid_point` tries the exact z (float guess with
   small denominators, Φz = b checked exactly in integers); if it checks, the signs of z
   decide and the answer is EXACT (:class:`~exactdp.engine.grid_exact.GridPointExactCertificate`,
   kind ``grid-point-exact``, z as integers over one common denominator, re-checked by
   :mod:`exactdp.kernel.grid_point_exact`). Otherwise the refinement goes on.

The certificate :class:`GridPointCertificate` stores y (dyadic mantissas and one exponent)
and λ; ``verify()`` recomputes the residual exactly from them and the metric (it never
re-runs the solve) and re-proves λ, all in the kernel (no search code: ``exactdp verify``
re-checks the same document in a fresh process).

Examples
--------
>>> from exactdp.spaces.metrics import grid
>>> from exactdp.spaces.levels import parse_level
>>> sol = solve_grid_point(grid(6, 5), parse_level(eps="1"))
>>> sol.holds, sol.certificate.verify(), sol.certificate.kind.value
(True, True, 'grid-point')
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np

from exactdp.algebra.lattice_spectrum import euclidean_lattice_lambda_lower
from exactdp.arithmetic.ball import MAX_PREC
from exactdp.arithmetic.interval import Enclosure
from exactdp.engine.documents import write_grid_point
from exactdp.engine.grid_exact import (
    GridPointExactCertificate,
    answers_grid_question,
    exact_grid_point,
    grid_metric,
    grid_shape_of,
)
from exactdp.errors import (
    REJECTED_ERRORS,
    InstanceTooLarge,
    InvalidArgument,
    InvalidMetric,
    PrecisionLimitReached,
)
from exactdp.kernel.grid_point import (
    GridPointClaim,
    ResidualBound,
    check_grid_point,
    grid_lambda_bound,
    grid_residual,
    radius,
    read_grid_point,
)
from exactdp.kernel.grid_point_exact import exact_unit_t, lattice_distances
from exactdp.kernel.jsonio import loads
from exactdp.kinds import CertificateKind, Verdict
from exactdp.linalg.grid_pcg import grid_pcg_solver
from exactdp.progress import Progress, report
from exactdp.spaces.grid import MATRIX_FREE_ABOVE_N
from exactdp.spaces.levels import PrivacyLevel
from exactdp.spaces.metrics import FiniteMetric
from exactdp.spaces.metrics.masked import GridShape, grid_shape

__all__ = ["GRID_POINT_ABOVE_N", "GridPointCertificate", "GRID_POINT_CERTIFICATES",
           "GridPointSolution", "solve_grid_point", "grid_point_solution", "use_grid_point",
           "grid_point_applies", "grid_lambda_lower", "grid_point_document", "refuse_dense_exact",
           "scaled_residual"]

#: Grids (and masked grids) with more points than this go matrix-free in ``method="auto"``
#: (an alias of :data:`exactdp.spaces.grid.MATRIX_FREE_ABOVE_N`, 900: the threshold routes
#: of :mod:`exactdp.threshold` share it; change it there).
GRID_POINT_ABOVE_N = MATRIX_FREE_ABOVE_N
_GAIN = 40          # bits of y added per refinement round
_FIRST_BITS = 52    # significant bits of max|y| in the first dyadic rounding
_CG_TOL = 1e-13


def grid_point_applies(metric: FiniteMetric) -> bool:
    """True for a library grid or masked grid under the Euclidean or Manhattan norm
    (Φ is positive definite there, with a proved λ_min bound).

    >>> from exactdp.spaces.metrics import grid, line
    >>> grid_point_applies(grid(3, 3)), grid_point_applies(grid(3, 3, "chebyshev")), grid_point_applies(line(3))
    (True, False, False)
    """
    shape = grid_shape(metric)
    return shape is not None and shape.norm in ("euclidean", "manhattan")


def use_grid_point(metric: FiniteMetric) -> bool:
    """The auto rule: :func:`grid_point_applies` and n > :data:`GRID_POINT_ABOVE_N`."""
    return metric.n > GRID_POINT_ABOVE_N and grid_point_applies(metric)


def grid_lambda_lower(shape: GridShape, level: PrivacyLevel) -> Fraction:
    """A proved λ ≤ λ_min(Φ(ε)) for the grid (both bounds hold for every subset of the lattice,
    so for masked grids too)."""
    return grid_lambda_bound(shape, level, euclidean_lattice_lambda_lower)


@dataclass(frozen=True)
class GridPointCertificate:
    """Φx = b on a grid at one ε: a dyadic y = mantissas·2^-exponent and a proved λ.

    ``verify()`` re-checks in the kernel (:func:`~exactdp.kernel.grid_point.check_grid_point`):
    λ re-proved, the residual b − Φy recomputed exactly, the verdict read from y ± ρ.
    """

    kind: ClassVar[CertificateKind] = CertificateKind.GRID_POINT

    metric: FiniteMetric = field(repr=False)
    level: PrivacyLevel
    rhs: tuple[Fraction, ...] = field(repr=False)
    holds: bool
    witness: int | None
    mantissas: tuple[int, ...] = field(repr=False)
    exponent: int
    lam: Fraction
    table_bits: int

    @property
    def verdict(self) -> Verdict:
        """``HOLDS`` or ``FAILS`` as claimed by ``holds``."""
        return Verdict.from_bool(bool(self.holds))

    def claim(self) -> GridPointClaim:
        """The kernel's claim (the metric's exact grid shape; InvalidMetric if not a grid)."""
        return GridPointClaim(grid_shape_of(self.metric), self.level, tuple(self.rhs),
                              bool(self.holds), self.witness, tuple(self.mantissas),
                              self.exponent, self.lam, self.table_bits)

    def verify(self) -> bool:
        """Re-check every claim from the question (False, never an exception, if tampered)."""
        try:
            return check_grid_point(self.claim())
        except REJECTED_ERRORS:
            return False

    def answers(self, metric: FiniteMetric, level: PrivacyLevel, rhs: Sequence[Fraction],
                holds: bool) -> bool:
        """True when this certificate is about this grid (same exact shape), level and
        right-hand side, claims ``holds``, and verifies."""
        return answers_grid_question(self, metric, level, rhs, holds)

    def radius(self) -> Fraction:
        """ρ with |z_i − y_i| ≤ ρ for every i (recomputed exactly)."""
        return radius(_residual(self.claim()), self.lam)

    def enclosures(self) -> tuple[Enclosure, ...]:
        """[y_i − ρ, y_i + ρ]: rigorous enclosures of the solution (valid once verified)."""
        rho = self.radius()
        den = 1 << self.exponent
        return tuple(Enclosure(Fraction(m, den) - rho, Fraction(m, den) + rho)
                     for m in self.mantissas)

    def to_json(self) -> dict[str, Any]:
        """The document of kind ``grid-point`` (:func:`~exactdp.engine.documents.write_grid_point`)."""
        return write_grid_point(self.claim())

    @classmethod
    def from_json(cls, doc: Any) -> GridPointCertificate:
        """Rebuild from a document (parsed or text); the grid is rebuilt by its constructor.
        Only as good as :meth:`verify`."""
        c = read_grid_point(loads(doc) if isinstance(doc, (str, bytes)) else doc)
        return cls(grid_metric(c.shape), c.level, c.rhs, c.holds, c.witness, c.mantissas,
                   c.exponent, c.lam, c.table_bits)


#: The certificate types of the one-ε grid route: enclosures (certified) or exact.
GRID_POINT_CERTIFICATES = (GridPointCertificate, GridPointExactCertificate)


def grid_point_document(doc: Any) -> GridPointCertificate | GridPointExactCertificate | None:
    """The certificate of a ``grid-point`` or ``grid-point-exact`` document (parsed or JSON
    text); None for a document of another kind (read those with ``certificate_from_json``).

    >>> from exactdp.spaces.levels import parse_level
    >>> from exactdp.spaces.metrics import grid
    >>> sol = solve_grid_point(grid(2, 2, "manhattan"), parse_level(t="1/2"))
    >>> again = grid_point_document(sol.certificate.to_json())
    >>> again.verify(), grid_point_document({"kind": "ball"})
    (True, None)
    """
    parsed = loads(doc) if isinstance(doc, (str, bytes)) else doc
    kind = parsed.get("kind") if isinstance(parsed, dict) else None
    if kind == CertificateKind.GRID_POINT_EXACT.value:
        return GridPointExactCertificate.from_json(parsed)
    return GridPointCertificate.from_json(parsed) if kind == CertificateKind.GRID_POINT.value else None


def refuse_dense_exact(metric: FiniteMetric, what: str) -> None:
    """Raise :class:`~exactdp.errors.InstanceTooLarge` when ``what`` (an exact solution of a
    matrix-free result) would need a dense n×n rational solve on a grid above
    ``MATRIX_FREE_ABOVE_N`` points; return quietly on smaller grids."""
    if metric.n > MATRIX_FREE_ABOVE_N:
        raise InstanceTooLarge(
            f"{what} of {metric.name}: this result came from the matrix-free grid route "
            f"(n = {metric.n} > {MATRIX_FREE_ABOVE_N}), which proves enclosures only; the exact "
            "solution needs a dense n×n rational solve (O(n³) time, O(n²) memory). Use the "
            "enclosures (.z_enclosure / .alpha_enclosure), or call "
            "solve_nonnegative(metric, level, rhs, method='exact') explicitly.")


def _residual(c: GridPointClaim) -> ResidualBound:
    return grid_residual(c.shape, c.level, c.rhs, c.mantissas, c.exponent, c.table_bits)


@dataclass(frozen=True)
class GridPointSolution:
    """What the route found: the verdict and its certificate — certified
    (:class:`GridPointCertificate`, enclosures; ``x_exact`` None) or exact
    (:class:`GridPointExactCertificate`; ``x_exact`` the exact solution, ``bits`` None) —
    the bits of y used, the refinement rounds, and a builder of the enclosures of x."""

    holds: bool
    certificate: GridPointCertificate | GridPointExactCertificate = field(repr=False)
    bits: int | None
    rounds: int
    enclosure_builder: Callable[[], tuple[Enclosure, ...]] = field(repr=False, compare=False)
    x_exact: tuple[Fraction, ...] | None = field(default=None, repr=False)

    @property
    def method(self) -> str:
        """``"grid-exact"`` (exact rational z) or ``"grid-matrix-free"`` (enclosures)."""
        return ("grid-exact" if isinstance(self.certificate, GridPointExactCertificate)
                else "grid-matrix-free")


def grid_point_solution(cert: GridPointCertificate | GridPointExactCertificate
                        ) -> GridPointSolution:
    """The solution a certificate states (e.g. one read from JSON; only as good as
    ``cert.verify()``)."""
    if isinstance(cert, GridPointExactCertificate):
        return GridPointSolution(bool(cert.holds), cert, None, 0, cert.enclosures, cert.z)
    return GridPointSolution(bool(cert.holds), cert, cert.exponent, 0, cert.enclosures)


def _float_kernel(shape: GridShape, eps: float) -> np.ndarray:
    dx = np.arange(shape.width, dtype=np.float64)[:, None]
    dy = np.arange(shape.height, dtype=np.float64)[None, :]
    d = np.hypot(dx, dy) if shape.norm == "euclidean" else dx + dy
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        k = np.exp(-eps * d)  # eps = ε·h as one float: float(h) = 0 at h = 10^-400 (15F)
    k[0, 0] = 1.0  # d = 0 (avoids inf·0 = NaN at huge ε)
    return np.asarray(k)


def _cg_cap(shape: GridShape) -> int:
    return 20 * max(shape.width, shape.height) + 500


def _float_solver(shape: GridShape, eps: float) -> Callable[[np.ndarray], np.ndarray]:
    """An uncertified float solver v ↦ ≈ Φ⁻¹v (candidates only)."""
    ker = _float_kernel(shape, eps)
    iters = _cg_cap(shape)
    cells = None if shape.mask is None else np.asarray(shape.cells)
    return grid_pcg_solver(ker, _CG_TOL, iters, cells=cells)


def _to_ints(v: np.ndarray, bits: int, level: PrivacyLevel, name: str) -> list[int]:
    with np.errstate(over="ignore"):
        w = np.rint(np.ldexp(v, bits))
    if not np.all(np.isfinite(w)):
        raise PrecisionLimitReached(
            f"{name} at ε = {level.eps}: the float refinement of the matrix-free route "
            "diverged (Φ is too ill-conditioned in double precision at this ε); decide it "
            "with method='ball' (dense, arbitrary precision) or at a larger ε.")
    return [int(x) for x in w]


def _float_candidate(solve: Callable[[np.ndarray], np.ndarray], v: np.ndarray, what: str,
                     level: PrivacyLevel, name: str) -> np.ndarray:
    """solve(v), refused with :class:`~exactdp.errors.PrecisionLimitReached` when the float
    solve breaks down or gives non-finite entries (Φ is numerically singular at tiny ε)."""
    try:
        with np.errstate(all="ignore"):
            y = np.asarray(solve(v), dtype=np.float64)
    except (ZeroDivisionError, FloatingPointError, OverflowError) as exc:
        y = np.full(v.shape, np.nan)
        what += f" ({type(exc).__name__})"
    if not np.all(np.isfinite(y)):
        raise PrecisionLimitReached(
            f"{name} at ε = {level.eps}: the float {what} of the matrix-free route broke down "
            "(Φ is numerically singular in double precision at this ε); decide it with "
            "method='ball' (dense, arbitrary precision) or at a larger ε.")
    return y


def scaled_residual(res: ResidualBound) -> tuple[np.ndarray, int]:
    """(r̃, e) with r̃·2^e ≈ the exact residual b − Φy of ``res`` and max|r̃| ≈ 1.

    The scaling is done on the exact integers before the conversion to float, so a residual
    far below 2^-1074 (y on thousands of bits) does not underflow to 0.

    >>> r = ResidualBound(Fraction(0), [3, -1], [1, 2], 3000)
    >>> v, e = scaled_residual(r)
    >>> [float(x) for x in v], e
    ([1.5, -0.25], -2999)
    """
    top = max((abs(n).bit_length() - d.bit_length() for n, d in
               zip(res.numerators, res.denominators) if n), default=0)
    e = top - res.scale_bits            # every |r_i| < 2^(e + 1)
    shift = res.scale_bits + e          # r_i·2^-e = num/(den·2^shift)
    if shift >= 0:
        vals = [n / (d << shift) for n, d in zip(res.numerators, res.denominators)]
    else:
        vals = [(n << -shift) / d for n, d in zip(res.numerators, res.denominators)]
    return np.array(vals, dtype=np.float64), e


def solve_grid_point(metric: FiniteMetric, level: PrivacyLevel,
                     rhs: Sequence[Any] | None = None, *, max_bits: int = MAX_PREC,
                     progress: Progress = None) -> GridPointSolution:
    """Certified answer to "Φx = rhs has a solution x ≥ 0?" on a grid, matrix-free.

    Parameters
    ----------
    metric : FiniteMetric
        A library grid or masked grid, Euclidean or Manhattan (:func:`grid_point_applies`).
    level : PrivacyLevel
    rhs : sequence of rationals, optional
        b (default all ones); read exactly.
    max_bits : int
        Stop refining when y would need more fractional bits than this.

    Raises
    ------
    InvalidMetric
        For another metric.
    PrecisionLimitReached
        When some x_i stays within ρ of 0 at ``max_bits`` and the exact route (step 4 of the
        module docstring) does not apply or finds no z (x_i may be exactly 0).

    Returns
    -------
    GridPointSolution
        ``certificate`` is a :class:`GridPointCertificate` (certified enclosures) or, when
        the exact route decided, a :class:`GridPointExactCertificate` with ``x_exact`` set.
    """
    shape = grid_shape(metric)
    if shape is None or shape.norm not in ("euclidean", "manhattan"):
        raise InvalidMetric(f"{metric.name}: the matrix-free one-ε route takes Euclidean or "
                            "Manhattan grids (grid(...) or masked_grid(...)); use "
                            "solve_nonnegative for other metrics.")
    n = shape.n
    b = tuple(Fraction(1) for _ in range(n)) if rhs is None else tuple(Fraction(v) for v in rhs)
    if len(b) != n:
        raise InvalidArgument(f"rhs has {len(b)} entries; {metric.name} has {n} points.")
    lam = grid_lambda_lower(shape, level)
    if lam <= 0:
        raise PrecisionLimitReached(f"no positive λ_min bound proved for {metric.name} at {level}.")
    report(progress, "grid-point", f"{metric.name} at {level}: λ_min ≥ {float(lam):.4g}; "
                                   "float solve (FFT + CG)")
    solve = _float_solver(shape, float((level.eps * shape.spacing).evalf(30)))  # ε·h
    bf = np.array([float(v) for v in b])
    clock = time.monotonic()
    y = _float_candidate(solve, bf, "solve", level, metric.name)
    report(progress, "grid-point", f"float solve done in {time.monotonic() - clock:.1f} s "
                                   f"(CG stops at {_cg_cap(shape)} iterations; small ε makes Φ "
                                   "ill-conditioned and CG slow)")
    top = float(np.max(np.abs(y))) or 1.0
    s = max(0, _FIRST_BITS - math.frexp(top)[1])
    Y = _to_ints(y, s, level, metric.name)
    rounds, exact = 0, "untried"
    while True:
        T = max(128, s + 64 + n.bit_length())
        claim = GridPointClaim(shape, level, b, True, None, tuple(Y), s, lam, T)
        res = _residual(claim)
        rho = radius(res, lam)
        scale = Fraction(1, 1 << s)
        low = min(range(n), key=Y.__getitem__)
        report(progress, "grid-point", f"round {rounds}: y on 2^-{s}, ρ = {float(rho):.3g}, "
                                       f"min y = {float(Y[low] * scale):.3g}")
        verdict = (True, None) if Y[low] * scale >= rho else (
            (False, low) if Y[low] * scale + rho < 0 else None)
        if verdict is not None:
            cert = GridPointCertificate(metric, level, b, verdict[0], verdict[1], tuple(Y), s,
                                        lam, T)
            return GridPointSolution(verdict[0], cert, s, rounds, cert.enclosures)
        if exact == "untried":  # x[low] may be exactly 0: no enclosure separates it from 0
            exact = ("it does not apply: the distances are not (|dx| + |dy|)·h (it takes "
                     "Manhattan grids, or one row or column)" if not lattice_distances(shape)
                     else "it does not apply: t = e^(-ε) is not a known rational; if "
                     "e^(-ε·h) is rational, state the question on spacing 1 at t = e^(-ε·h) "
                     "(the same Φ)")
            if exact_unit_t(shape, level) is not None:
                report(progress, "grid-point", "undecided: trying the exact rational z")
                found = exact_grid_point(metric, level, b)
                if found is not None:
                    return GridPointSolution(found.holds, found, None, rounds,
                                             found.enclosures, found.z)
                exact = ("no z with denominators below 2^40 passed the exact check, or it "
                         "exceeds the kernel's size limit")
        if s + _GAIN > max_bits:
            raise PrecisionLimitReached(
                f"{metric.name} at {level}: x[{low}] = {float(Y[low] * scale):.6g} ± "
                f"{float(rho):.3g} is not separated from 0 with y on 2^-{s} (max_bits="
                f"{max_bits}), and the exact route did not decide ({exact}); x[{low}] may be "
                "exactly 0: raise max_bits, or decide a small grid with method='exact'.")
        # iterative refinement: solve Φd = r for the exact residual r (scaled to O(1))
        r, e = scaled_residual(res)
        clock = time.monotonic()
        d = _float_candidate(solve, r, "correction solve", level, metric.name)
        report(progress, "grid-point", f"refinement solve {rounds + 1} done in "
                                       f"{time.monotonic() - clock:.1f} s")
        s_new = s + _GAIN
        Y = [(m << _GAIN) + dm for m, dm in zip(Y, _to_ints(d, s_new + e, level, metric.name))]
        s = s_new
        rounds += 1
