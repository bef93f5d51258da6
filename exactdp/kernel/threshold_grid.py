"""The kernel's check of the matrix-free grid threshold certificate (kind ``grid-threshold``).

Question: on a Euclidean or Manhattan grid (:class:`~exactdp.spaces.metrics.masked.GridShape`:
width, height, norm, spacing h, kept cells of a mask) with right-hand side b > 0, where does
Φ(ε)x = b start to have a solution x ≥ 0 for good? Claim: ε* ∈ [lo, hi]. The grid travels
as its shape (never n² distances); Φ(ε)y is the 2-D convolution of the zero-padded y with
K[dy, dx] = e^{−ε·d(dx, dy)}, read back on the kept cells (a masked grid's Φ is a
principal submatrix of the full grid's).

The check is the ``spd-taylor-cover`` check of :mod:`exactdp.kernel.threshold_spd` with
two substitutions:

* **λ** — every λ ≤ λ_min(Φ_S(ε)) on [a, b] (and at lo) is re-proved for every finite
  S ⊂ h·Z² (so for the grid and any mask of it, by Cauchy interlacing): Euclidean by
  :func:`exactdp.kernel.lattice.euclidean_lambda_ok`, Manhattan by the closed form
  :func:`~exactdp.kernel.grid_point.manhattan_lambda_lower` at ε = a
  (:func:`~exactdp.kernel.grid_point.lambda_proved`); no Cholesky nodes;
* **products** — every Σ_{j+k=m} Φ_j·y_k of :func:`~exactdp.kernel.threshold_spd.piece_ok`
  comes from ONE exact product of two flint integers
  (:meth:`~exactdp.kernel.grid_point.GridProducts.sums`): the 2-D
  convolution by Kronecker substitution on the box |dx| ≤ rx, |dy| ≤ ry holding every table
  entry above 2^-100 (the rest enters the bound as err·‖y‖₁), stride W + rx, the orders j and
  k in blocks of length L = (ry + H − 1)(W + rx) + rx + W, so block m of the product is
  Σ_{j+k=m} A_j·Y_k exactly (``proofs/grid_cropped_stride.py``, Lemmas 2–3; uncropped:
  ``proofs/grid_exact_convolution.py``, ``proofs/grid_taylor_blocks.py``).

So: **fails at lo**: with the kernel's own candidate y at lo, y_w + ‖r̄‖₂/λ < 0 and ≤
``upper`` at the stated index w; **holds on [hi, ∞)**: the perturbation lemma at t0 with the
counts of the W×H offset window (each row of Φ − I sees each offset at most once, so the
window's counts dominate every row: O(n)) and pieces (a, b, λ) covering [hi, −ln t0], each
by the Taylor bound of order K. Float FFT + PCG solves only make candidates (any candidate is
sound: a bad one makes r̄ large). Memory O(n); per piece three exact products (the largest
≈ 2(K + 1)·(H + ry)(W + rx) digits of ≈ 27 bytes) and K + 2 PCG solves. Work is bounded
up front (:func:`require_grid_work`):
more than :data:`MAX_GRID_PIECES` pieces, W·H·(#pieces + 1)·(K + 1) >
:data:`MAX_GRID_WORK` or a bound on the distinct distances > :data:`MAX_GRID_DISTANCES`
is refused (InstanceTooLarge, "undecided") by the reader, the check and the writer
(:mod:`exactdp.engine.grid_threshold_documents`), before any set-up.

Examples
--------
>>> from exactdp.kernel.threshold_spd import piece_ok
>>> from exactdp.spaces.metrics.masked import GridShape
>>> op = GridProducts(GridShape(3, 2, "euclidean", Fraction(1)))
>>> op.n, len(op.values), int(op.count_row.sum()) == (2 * 3 - 1) * (2 * 2 - 1)
(6, 5, True)
>>> piece_ok(op, (Fraction(1),) * 6, Fraction(1), Fraction(11, 10), 3, Fraction(1, 8))
True
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from exactdp.arithmetic.interval import Enclosure
from exactdp.errors import REJECTED_ERRORS, InstanceTooLarge, InvalidArgument
from exactdp.kernel.grid_point import (
    GRID_NORMS,
    GridProducts,
    lambda_proved,
    read_grid_question,
    shape_ok,
)
from exactdp.kernel.jsonio import (
    read_enclosure,
    read_int,
    read_list,
    read_object,
    read_rational,
    read_str,
    read_verdict,
)
from exactdp.kernel.limits import MAX_PIECES
from exactdp.kernel.question import Property
from exactdp.kernel.threshold_spd import MAX_ORDER, cover_args_ok, cover_ok, point_ok
from exactdp.kinds import CertificateKind, Verdict
from exactdp.spaces.grid import offset_distance_count
from exactdp.spaces.levels import parse_level
from exactdp.spaces.metrics.masked import GridShape
from exactdp.spaces.priors import read_prior_values

__all__ = ["GRID_THRESHOLD", "GRID_NORMS", "GridThresholdClaim", "GridProducts", "check_grid_threshold",
           "grid_fail_ok", "read_grid_threshold", "read_grid_threshold_claim", "MAX_GRID_PIECES",
           "MAX_GRID_WORK", "MAX_GRID_DISTANCES", "require_grid_work"]

GRID_THRESHOLD = CertificateKind.GRID_THRESHOLD.value
#: At most this many cover pieces (the library writes ≈ 15–30).
MAX_GRID_PIECES = 2_000
#: At most this many units W·H·(#pieces + 1)·(K + 1) (window cells × (pieces + fail point) ×
#: Taylor orders). Measured (session 9, one run each, CPU): 5.2·10⁴ units/s at 100×100 and
#: 5.9·10⁴ at 200×200, so 8·10⁷ units ≈ 26 min CPU by that linear rate (e.g. 1000×1000 with
#: ≤ 19 pieces at K = 3; extrapolated, not run; RSS ≤ ≈ 12 GB extrapolating linearly from 464 MB).
MAX_GRID_WORK = 80_000_000
#: At most this many distinct offset distances, bounded before any set-up by W + H − 1
#: (Manhattan) or W·H − m(m − 1)/2, m = min(W, H) (Euclidean: (dx, dy) and (dy, dx) agree).
#: Set-up (one exact √ per distance) and every table (one arb row per distance) scale with
#: it, not with W·H: a 1000×1000 grid (≤ 500,500; in fact 299,231) passes, 10⁶×1 does not.
#: Above the closed form the exact count (:func:`~exactdp.spaces.grid.offset_distance_count`)
#: decides: 1500×600 has 439,470 (closed form 720,300).
MAX_GRID_DISTANCES = 510_000


def require_grid_work(shape: GridShape, npieces: int, order: int) -> None:
    """Refuse (:class:`~exactdp.errors.InstanceTooLarge`) a check over :data:`MAX_GRID_PIECES`
    pieces, :data:`MAX_GRID_WORK` units or :data:`MAX_GRID_DISTANCES` distances — the test
    the kernel applies before any set-up, so the writer refuses such documents too.

    >>> require_grid_work(GridShape(400, 400, "euclidean", Fraction(1)), 25, 8)
    >>> require_grid_work(GridShape(1000, 1000, "euclidean", Fraction(1)), 25, 3)
    Traceback (most recent call last):
    ...
    exactdp.errors.InstanceTooLarge: checking a 1000×1000 grid with 25 pieces of order 3 ...
    >>> require_grid_work(GridShape(1500, 600, "euclidean", Fraction(1)), 18, 3)  # 439,470
    >>> require_grid_work(GridShape(10**6, 1, "euclidean", Fraction(1)), 14, 3)
    Traceback (most recent call last):
    ...
    exactdp.errors.InstanceTooLarge: checking a 1000000×1 grid with 14 pieces of order 3 ...
    """
    W, H = shape.width, shape.height
    work = W * H * (npieces + 1) * (order + 1)
    m = min(W, H)
    dist = W + H - 1 if shape.norm == "manhattan" else W * H - m * (m - 1) // 2
    if dist > MAX_GRID_DISTANCES and work <= MAX_GRID_WORK:  # the closed form only bounds it
        dist = offset_distance_count(W, H, shape.norm)
    if npieces > MAX_GRID_PIECES or work > MAX_GRID_WORK or dist > MAX_GRID_DISTANCES:
        raise InstanceTooLarge(
            f"checking a {W}×{H} grid with {npieces} pieces of order {order} "
            f"({work} units W·H·(pieces + 1)·(K + 1), up to {dist} distinct distances) exceeds "
            f"the kernel's limits of {MAX_GRID_PIECES} pieces, {MAX_GRID_WORK} units and "
            f"{MAX_GRID_DISTANCES} distances; certify a smaller (or less elongated) grid, "
            "or use fewer pieces or a lower order.")


@dataclass(frozen=True)
class GridThresholdClaim:
    """ε* ∈ ``eps`` for Φ(ε)x = ``rhs`` on the grid ``shape``: ``fail`` = (index, upper, λ)
    at ε = eps.lo, perturbation lemma at ``t0``, ``pieces`` (a, b, λ) of Taylor order ``order``."""

    shape: GridShape
    rhs: tuple[Fraction, ...]
    eps: Enclosure
    fail: tuple[int, Fraction, Fraction]
    t0: Fraction
    order: int
    pieces: tuple[tuple[Fraction, Fraction, Fraction], ...]


def grid_fail_ok(shape: GridShape, rhs: tuple[Fraction, ...], eps: Fraction, index: int,
                 upper: Fraction, lam: Fraction, op: GridProducts | None = None) -> bool:
    """z_index(eps) < 0 and ≤ upper on the grid: λ re-proved on the lattice, then the point
    Taylor bound (K = 0) with the kernel's own candidate
    (:func:`~exactdp.kernel.threshold_spd.point_ok`). Never raises."""
    try:
        return shape_ok(shape, rhs) and point_ok(
            op or GridProducts(shape), rhs, eps, index, upper, lam,
            lambda: lambda_proved(shape, parse_level(eps=eps), lam, (eps, eps)))
    except REJECTED_ERRORS:
        return False


def check_grid_threshold(c: Any) -> bool:
    """The ``grid-threshold`` check (module docstring): the cover of
    :func:`~exactdp.kernel.threshold_spd.cover_ok` with λ on the lattice and the fail side
    by :func:`grid_fail_ok`; False, never an exception, on tampered or malformed data
    (InstanceTooLarge, undecided, over the work limit)."""
    try:
        lo, hi = c.eps.lo, c.eps.hi
        if (not isinstance(c, GridThresholdClaim) or not shape_ok(c.shape, c.rhs)
                or not cover_args_ok(lo, hi, c.t0, c.order, c.pieces)
                or not isinstance(c.fail, tuple) or len(c.fail) != 3):
            return False  # (before the work test: a malformed claim is rejected, not undecided)
        require_grid_work(c.shape, len(c.pieces), c.order)  # before any product (undecided, not False)
        op = GridProducts(c.shape)
        return cover_ok(op, (op.count_row, op.values), c.rhs, lo, hi, c.t0, c.order, c.pieces,
                        lambda: grid_fail_ok(c.shape, c.rhs, lo, *c.fail, op=op),
                        lambda a, b, lam: lambda_proved(c.shape, parse_level(eps=a), lam, (a, b)))
    except InstanceTooLarge:
        raise
    except REJECTED_ERRORS + (np.linalg.LinAlgError,):
        return False


def read_grid_threshold(doc: Any) -> GridThresholdClaim:
    """Read a ``grid-threshold`` document (strict; InvalidArgument if malformed). The
    claim is only as good as :func:`check_grid_threshold`."""
    env, q, shape, ones, rhs = read_grid_question(doc, GRID_THRESHOLD)
    n = shape.n
    ev = read_object(env.evidence, "evidence", ("fail", "t0", "order", "pieces"))
    fail = read_object(ev["fail"], "evidence.fail", ("index", "upper", "lam"))
    items = read_list(ev["pieces"], "evidence.pieces", limit=MAX_PIECES)
    order = read_int(ev["order"], "evidence.order", 0, MAX_ORDER)
    require_grid_work(shape, len(items), order)  # before anything n-long is built
    pieces = []
    for k, item in enumerate(items):
        p = read_object(item, f"evidence.pieces[{k}]", ("lo", "hi", "lam"))
        pieces.append(tuple(read_rational(p[x], f"evidence.pieces[{k}].{x}")
                            for x in ("lo", "hi", "lam")))
    return GridThresholdClaim(
        shape, rhs, read_grid_threshold_claim(env, q, ones, rhs),
        (read_int(fail["index"], "evidence.fail.index", 0, n - 1),
         read_rational(fail["upper"], "evidence.fail.upper"),
         read_rational(fail["lam"], "evidence.fail.lam")),
        read_rational(ev["t0"], "evidence.t0"), order,
        tuple(pieces))  # type: ignore[arg-type]


def read_grid_threshold_claim(env: Any, q: dict[str, Any], ones: bool, rhs: tuple[Fraction, ...]) -> Enclosure:
    """The ε-enclosure claimed by a threshold document whose question is a grid shape, after
    its property (fitting b), level (every ε > 0, canonical) and verdict (holds) are checked;
    shared by ``grid-threshold`` and ``exact-scaled`` (InvalidArgument if malformed)."""
    want = (Property.THRESHOLD_TIGHT if ones else Property.THRESHOLD_REGULAR).value
    read_str(q["property"], "question.property", (want,))
    if (not ones and all(v == 1 for v in rhs)) or q["level"] != {"eps_range": {"lo": "0", "hi": None}}:
        raise InvalidArgument("question: write b = 1 as \"ones\" and the level as "
                              "{\"eps_range\": {\"lo\": \"0\", \"hi\": null}}.")
    if not ones:  # a prior, as Question.bind requires of every dense threshold-regular question
        read_prior_values(rhs, len(rhs), "question.rhs")
    claim = read_object(env.claim, "claim", ("verdict", "eps"))
    if read_verdict(claim["verdict"], "claim.verdict") is not Verdict.HOLDS:
        raise InvalidArgument("claim.verdict: a threshold certificate claims \"holds\".")
    return read_enclosure(claim["eps"], "claim.eps")
