"""The certificates of the SPD threshold route: one fail point, and the Taylor cover.

Both are re-checked by the kernel, never by the search's code:

* dense metrics — kinds ``spd-point`` and ``spd-taylor-cover``
  (:mod:`exactdp.kernel.threshold_spd`: Cholesky nodes, chord lemma, Taylor pieces, exact
  integer products over the n×n distance index);
* Euclidean or Manhattan library grids, with or without a mask, whose certificate has no
  dense λ evidence (the matrix-free route) — kind ``grid-threshold`` (:mod:`exactdp.kernel.threshold_grid`): the
  grid travels as its shape, λ is re-proved by the lattice bound
  (:mod:`exactdp.kernel.lattice`), every product is an exact integer convolution, and the
  kernel makes its own float candidates (FFT + CG). The fail point is part of the cover's
  document (a point alone on such a grid has no JSON form; its ``verify()`` runs the
  same kernel check).

:mod:`exactdp.threshold.certificates` re-exports both classes (their old home).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, ClassVar

from threadpoolctl import threadpool_limits

from exactdp.arithmetic.interval import Enclosure
from exactdp.engine.documents import write_spd_point, write_threshold
from exactdp.engine.grid_threshold_documents import write_grid_threshold
from exactdp.errors import REJECTED_ERRORS, InvalidArgument
from exactdp.kernel.threshold import ThresholdClaim, check_threshold
from exactdp.kernel.threshold_grid import (
    GRID_NORMS,
    GridThresholdClaim,
    check_grid_threshold,
    grid_fail_ok,
)
from exactdp.kernel.threshold_spd import SPD_COVER, SpdPointClaim, check_spd_point
from exactdp.kinds import CertificateKind, Verdict
from exactdp.spaces.metrics import FiniteMetric, grid
from exactdp.spaces.metrics.masked import GridShape, grid_shape, masked_grid
from exactdp.threshold.binding import grid_structure_holds

__all__ = ["SpdPointCertificate", "SpdCoverCertificate", "TAYLOR_ORDER", "rhs_of", "fail_claim",
           "grid_form", "metric_of_shape"]

#: Number K of Taylor terms of the SPD cover's ranges.
TAYLOR_ORDER = 3


def rhs_of(rhs: Any, n: int) -> tuple[Fraction, ...]:
    """The exact right-hand side (None: all ones)."""
    if rhs is None:
        return tuple(Fraction(1) for _ in range(n))
    out = tuple(rhs)
    if not all(isinstance(v, Fraction) for v in out):
        raise InvalidArgument("rhs: the right-hand side must be exact Fractions.")
    return out


def fail_claim(fail: Any) -> Any:
    """The kernel claim of a fail side; InvalidArgument when it has no kernel form."""
    for name in ("spd_claim", "linear_claim"):
        make = getattr(fail, name, None)
        if callable(make):
            return make()
    raise InvalidArgument("the fail certificate has no kernel form (spd_claim/linear_claim).")


def grid_form(metric: Any) -> GridShape | None:
    """The shape of a library Euclidean or Manhattan grid (masked or not), else None. An SPD
    certificate on such a grid without dense λ evidence (no Cholesky nodes, no shift) takes
    the ``grid-threshold`` form, whatever its size.

    The shape is read only from library constructors (:func:`grid_shape`), never from a
    name or params; a plain grid's ``grid`` claim must also reproduce its distances
    (:func:`~exactdp.threshold.binding.grid_structure_holds`), so a planted one is refused.

    >>> from exactdp.spaces.metrics import grid, line
    >>> grid_form(grid(3, 2)).n, grid_form(grid(3, 2, "chebyshev")), grid_form(line(3))
    (6, None, None)
    """
    if not isinstance(metric, FiniteMetric):
        raise InvalidArgument(f"metric={metric!r} is not a FiniteMetric.")
    shape = grid_shape(metric)
    if (shape is None or shape.norm not in GRID_NORMS
            or (shape.mask is None and not grid_structure_holds(metric))):
        return None
    return shape


def metric_of_shape(shape: GridShape) -> FiniteMetric:
    """The library metric of a grid shape (:func:`grid` or :func:`masked_grid`)."""
    if shape.mask is None:
        return grid(shape.width, shape.height, shape.norm, shape.spacing)
    return masked_grid(shape.width, shape.height, shape.norm, shape.spacing,
                       mask=shape.mask_rows())


def _finite_upper(upper: Any) -> Fraction | None:
    """``upper`` exactly; None (reject) unless a finite float, int or Fraction (not bool)."""
    ok = isinstance(upper, (float, int, Fraction)) and not isinstance(upper, bool)
    return Fraction(upper) if ok and (not isinstance(upper, float) or math.isfinite(upper)) \
        else None


@dataclass(frozen=True)
class SpdPointCertificate:
    """z_i(eps) < 0 and ≤ upper: |z − y| ≤ ‖r‖₂/λ (λ ≤ λ_min), y_i + that < 0 and ≤ upper.

    Dense metrics carry the Cholesky shift ``sigma`` of the λ bound (kernel kind
    ``spd-point``); on matrix-free grids (:func:`grid_form`) λ is the lattice bound and
    ``sigma`` is unused. ``verify()`` re-proves everything in the kernel (exact integers,
    no float rounding analysis; floats are only candidates).
    """

    metric: FiniteMetric = field(repr=False)
    rhs: tuple[Fraction, ...] = field(repr=False)
    eps: Fraction
    index: int
    sigma: Fraction
    lam: Fraction
    upper: float  # certified upper bound of z_index(eps) (a Fraction after a JSON round trip)
    holds: bool = False
    kind: ClassVar[CertificateKind] = CertificateKind.SPD_POINT

    @property
    def verdict(self) -> Verdict:
        """``FAILS``: the property fails at ``eps`` (z_index(eps) < 0)."""
        return Verdict.from_bool(self.holds)

    def _checked_upper(self) -> Fraction:
        upper = _finite_upper(self.upper)
        if self.holds is not False or upper is None:
            raise InvalidArgument(f"holds={self.holds!r}, upper={self.upper!r}: an SPD point "
                                  "certificate claims failure with a finite upper bound.")
        return upper

    def spd_claim(self) -> SpdPointClaim:
        """This certificate as the kernel's ``spd-point`` claim; raises InvalidArgument when
        malformed (a "holds" verdict, a non-finite ``upper``) or matrix-free."""
        if self._grid() is not None:
            raise InvalidArgument(f"{self.metric.name}: a matrix-free grid's fail point has no "
                                  "document of its own; it travels inside the grid-threshold "
                                  "document of its cover (SpdCoverCertificate.to_json).")
        return SpdPointClaim(self.metric, rhs_of(self.rhs, self.metric.n), self.eps,
                             self.index, self._checked_upper(), self.sigma, self.lam)

    def _grid(self) -> GridShape | None:
        return grid_form(self.metric) if self.sigma == 0 else None

    def grid_fail(self) -> tuple[int, Fraction, Fraction]:
        """(index, upper, λ): the fail evidence of a ``grid-threshold`` document."""
        return self.index, self._checked_upper(), self.lam

    def to_json(self) -> dict[str, Any]:
        """The certificate as a JSON document (:mod:`exactdp.kernel.threshold_spd_json`)."""
        return write_spd_point(self.spd_claim())

    def verify(self) -> bool:
        """Re-prove the λ bound and the residual bound in the kernel (``spd-point``, or the
        grid check :func:`~exactdp.kernel.threshold_grid.grid_fail_ok`). Never raises."""
        try:
            shape = self._grid()
            if shape is not None:
                return grid_fail_ok(shape, rhs_of(self.rhs, self.metric.n), self.eps,
                                    *self.grid_fail())
            return check_spd_point(self.spd_claim())
        except REJECTED_ERRORS:
            return False


@dataclass(frozen=True)
class SpdCoverCertificate:
    """Proof that ε* ∈ [eps_lower, eps_upper] by the SPD Taylor cover.

    * ``fail``: a certificate that the property fails at ``eps_lower``;
    * ``t0``: perturbation lemma on (0, t0] (:mod:`exactdp.threshold.lemmas`);
    * ``nodes``: (ε, σ, λ) with λ ≤ λ_min(Φ(ε)) (dense metrics; empty on matrix-free
      grids, where the lattice bound is re-proved instead);
    * ``pieces``: (a, b, λ) ε-ranges covering [eps_upper, −ln t0]; on each, λ ≤ λ_min(Φ(ε))
      (chord lemma between nodes, or the lattice bound) and the Taylor bound proves z > 0.

    ``verify()`` re-proves everything in the kernel with exact integer arithmetic (fresh
    float Taylor vectors are only candidates): dense metrics as ``spd-taylor-cover``
    (:mod:`exactdp.kernel.threshold_spd`), matrix-free grids as ``grid-threshold``
    (:mod:`exactdp.kernel.threshold_grid`: exact integer convolutions, lattice λ bound;
    independent of the search's code). Both have a JSON form.
    """

    metric: FiniteMetric = field(repr=False)
    rhs: tuple[Fraction, ...] = field(repr=False)
    eps_lower: Fraction
    eps_upper: Fraction
    fail: Any = field(repr=False)
    t0: Fraction
    nodes: tuple[tuple[Fraction, Fraction, Fraction], ...] = field(repr=False)
    pieces: tuple[tuple[Fraction, Fraction, Fraction], ...] = field(repr=False)
    order: int = TAYLOR_ORDER
    kind: ClassVar[CertificateKind] = CertificateKind.SPD_TAYLOR_COVER

    @property
    def verdict(self) -> Verdict:
        """``HOLDS``: the claim ε* ∈ [eps_lower, eps_upper] is certified."""
        return Verdict.HOLDS

    def threshold_claim(self) -> ThresholdClaim:
        """This certificate as the kernel's dense claim (``spd-taylor-cover``); raises
        InvalidArgument when malformed, matrix-free (see :meth:`grid_claim`), or its fail
        side has no kernel form."""
        if self._grid() is not None:
            raise InvalidArgument(f"{self.metric.name}: matrix-free; its kernel form is "
                                  "grid_claim() (kind grid-threshold).")
        return ThresholdClaim(SPD_COVER, self.metric, rhs_of(self.rhs, self.metric.n),
                              Enclosure(self.eps_lower, self.eps_upper),
                              {"fail": fail_claim(self.fail), "t0": self.t0,
                               "order": self.order, "nodes": tuple(map(tuple, self.nodes)),
                               "pieces": tuple(map(tuple, self.pieces))})

    def _grid(self) -> GridShape | None:
        return None if self.nodes else grid_form(self.metric)

    def grid_claim(self) -> GridThresholdClaim:
        """This certificate as the kernel's ``grid-threshold`` claim; raises InvalidArgument
        unless the metric is a matrix-free grid, there are no Cholesky nodes and the fail
        side is an SPD point on the same grid, right-hand side and ε = eps_lower."""
        shape, f = self._grid(), self.fail
        rhs = rhs_of(self.rhs, self.metric.n)
        if (shape is None or self.nodes or not isinstance(f, SpdPointCertificate)
                or f._grid() != shape or rhs_of(f.rhs, f.metric.n) != rhs
                or f.eps != self.eps_lower):
            raise InvalidArgument("grid_claim: a matrix-free grid cover without nodes whose fail "
                                  "side is an SPD point on the same grid, b and ε = eps_lower.")
        return GridThresholdClaim(shape, rhs, Enclosure(self.eps_lower, self.eps_upper),
                                  f.grid_fail(), self.t0, self.order,
                                  tuple(map(tuple, self.pieces)))  # type: ignore[arg-type]

    def to_json(self) -> dict[str, Any]:
        """The certificate as a JSON document: ``grid-threshold`` on matrix-free grids
        (:mod:`exactdp.engine.grid_threshold_documents`), else ``spd-taylor-cover``
        (:mod:`exactdp.kernel.threshold_json`)."""
        if self._grid() is not None:
            return write_grid_threshold(self.grid_claim())
        return write_threshold(self.threshold_claim())

    def verify(self) -> bool:
        """Re-check frame, nodes (or the lattice bound) and pieces in the kernel (BLAS
        pinned to one thread, restored after). Never raises."""
        with threadpool_limits(limits=1, user_api="blas"):
            try:
                if self._grid() is not None:
                    return check_grid_threshold(self.grid_claim())
                return check_threshold(self.threshold_claim())
            except REJECTED_ERRORS:
                return False
