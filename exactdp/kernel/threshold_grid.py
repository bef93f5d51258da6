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
  :func:`~exactdp.kernel.grid_point.manhattan_lambda_lower` at ε = a; no Cholesky nodes;
* **products** — every Σ_{j+k=m} Φ_j·y_k of :func:`~exactdp.kernel.threshold_spd.piece_ok`
  comes from ONE exact product of two flint integers (:meth:`GridProducts.sums`): the 2-D
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
>>> from exactdp.spaces.metrics.masked import GridShape
>>> op = GridProducts(GridShape(3, 2, "euclidean", Fraction(1)))
>>> op.n, len(op.values), int(op.count_row.sum()) == (2 * 3 - 1) * (2 * 2 - 1)
(6, 5, True)
>>> piece_ok(op, (Fraction(1),) * 6, Fraction(1), Fraction(11, 10), 3, Fraction(1, 8))
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from flint import fmpz, fmpz_mat
from scipy.fft import irfft2, next_fast_len, rfft2

from exactdp.arithmetic.interval import Enclosure
from exactdp.errors import REJECTED_ERRORS, InstanceTooLarge, InvalidArgument
from exactdp.kernel.grid_point import (
    MAX_GRID_POINTS,
    manhattan_lambda_lower,
    read_grid_shape,
)
from exactdp.kernel.jsonio import (
    read_enclosure,
    read_envelope,
    read_int,
    read_list,
    read_object,
    read_rational,
    read_str,
    read_verdict,
)
from exactdp.kernel.lattice import euclidean_lambda_ok
from exactdp.kernel.question import Property
from exactdp.kernel.threshold_cover import cover_frame_ok
from exactdp.kernel.threshold_json import MAX_PIECES
from exactdp.kernel.threshold_spd import (
    MAX_ORDER,
    ST,
    SY,
    all_rational,
    eps_in_range,
    piece_ok,
    pieces_in_order,
    refined_y0,
    rhs_shift,
)
from exactdp.kinds import CertificateKind, Verdict
from exactdp.spaces.distances import Distance, grid_offset_distance
from exactdp.spaces.grid import offset_distance_count
from exactdp.spaces.levels import parse_level
from exactdp.spaces.metrics.masked import GridShape

__all__ = ["GRID_THRESHOLD", "GRID_NORMS", "GridThresholdClaim", "GridProducts", "check_grid_threshold",
           "grid_fail_ok", "read_grid_threshold", "MAX_GRID_PIECES",
           "MAX_GRID_WORK", "MAX_GRID_DISTANCES", "require_grid_work"]

GRID_THRESHOLD = CertificateKind.GRID_THRESHOLD.value
#: The norms of the grids this kind answers.
GRID_NORMS = ("euclidean", "manhattan")
_CG_TOL = 1e-15
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


class GridProducts:
    """Exact products with distance tables on a grid (a :class:`~exactdp.kernel.threshold_spd.Products`).

    ``values``: the distinct offset distances h·√(dx² + dy²); ``count_row``: how many
    signed offsets of the W×H window have each (dominates every row's counts).
    """

    def __init__(self, shape: GridShape) -> None:
        W, H = shape.width, shape.height
        self.shape, self.n = shape, shape.n
        ids: dict[int, int] = {}
        self.values: list[Any] = []
        code = np.zeros((W, H), dtype=np.int64)
        for dx in range(W):
            for dy in range(H):
                key = dx * dx + dy * dy if shape.norm == "euclidean" else dx + dy
                if key not in ids:  # g·d(dx/g, dy/g): √ of a primitive offset (thin grids: none)
                    ids[key], g = len(self.values), math.gcd(dx, dy) or 1
                    v = grid_offset_distance(dx // g, dy // g, shape.norm, shape.spacing)
                    self.values.append(Distance(v.coef * g, v.radicand))
                code[dx, dy] = ids[key]
        weight = np.outer(np.where(np.arange(W) > 0, 2, 1), np.where(np.arange(H) > 0, 2, 1))
        self.count_row = np.bincount(code.ravel(), weights=weight.ravel(),
                                     minlength=len(self.values)).astype(np.int64)[None, :]
        self.code, self.cells = code, np.asarray(shape.cells, dtype=np.int64)

    def kernel(self, rx: int, ry: int) -> np.ndarray:
        """(2ry + 1) × (2rx + 1) codes of the offsets (b, a), |a| ≤ ry rows, |b| ≤ rx columns."""
        return self.code[np.abs(np.arange(-rx, rx + 1))[None, :], np.abs(np.arange(-ry, ry + 1))[:, None]]

    def sums(self, table: fmpz_mat, ys: list[list[int]], tau: int = 0
             ) -> tuple[np.ndarray, list[int]]:
        """(S, err): S_m = Σ_{j+k=m} T'_j·ys[k] exactly, T'_j = T_j on the offsets of the
        smallest box holding every code with an entry above ``tau`` and 0 outside, so
        |(T_j − T'_j)·y| ≤ err[j]·‖y‖₁ (err[j] = max |T_j| over the codes left out, ≤ tau).

        One exact product (module docstring): cell (y, x) of block m is read at
        m·L + (y + ry)·S + x + rx, S = W + rx (``proofs/grid_cropped_stride.py``, Lemmas 2–3:
        only the terms of Σ_{j+k=m} T'_j·y_k land there). The polynomials are evaluated at z = 2^(8·nb)
        as flint integers: every coefficient has |c| < 2^(8·nb − 1) (≤ #vector entries ×
        max|T| × max|y|), so the digits of p_T(z)·p_Y(z) + Σ_m 2^(8·nb − 1)·z^m are the
        coefficients + 2^(8·nb − 1), read from that integer's bytes (digit bound, read-back
        and crop bound: ``proofs/kernel_grid_kronecker.py``, Lemmas 1–3)."""
        J, ny, W, H, n = table.ncols(), len(ys), self.shape.width, self.shape.height, self.n
        tv = [int(x) for x in table.entries()]
        mag = np.abs(np.array(tv, dtype=object).reshape(-1, J))
        big = mag.max(axis=1) > tau
        off = big[self.code]  # W × H
        rx, ry = (int(max(np.flatnonzero(off.any(axis=i)), default=0)) for i in (1, 0))
        err = [int(x) for x in mag[~big].max(axis=0, initial=0)]
        S = W + rx
        L, kf = (ry + H - 1) * S + rx + W, self.kernel(rx, ry)
        kpos = (np.arange(2 * ry + 1)[:, None] * S + np.arange(2 * rx + 1)).ravel()
        vpos = (self.cells // W) * S + self.cells % W
        yv = [x for y in ys for x in y]
        nb = (max(map(abs, tv)).bit_length() + max(map(abs, yv)).bit_length()
              + (ny * n).bit_length() + 8) // 8
        blocks = np.arange(J)[:, None]
        a = _packed(tv, (kf.ravel()[None, :] * J + blocks).ravel(), (blocks * L + kpos).ravel(), J * L, nb)
        v = _packed(yv, np.arange(len(yv)), (np.arange(ny)[:, None] * L + vpos).ravel(), ny * L, nb)
        nout, half = (J + ny) * L, 1 << (8 * nb - 1)
        q = a * v + fmpz(int.from_bytes((bytes(nb - 1) + b"\x80") * nout, "little"))
        digits = np.frombuffer(int(q).to_bytes(nout * nb, "little"), np.uint8).reshape(nout, nb)
        raw = digits[(np.arange(J + ny - 1)[:, None] * L + vpos + ry * S + rx).ravel()].tobytes()
        out = [int.from_bytes(raw[i:i + nb], "little") - half for i in range(0, len(raw), nb)]
        return np.array(out, dtype=object).reshape(J + ny - 1, n), err

    def candidates(self, rhs: tuple[Fraction, ...], mids: fmpz_mat, K: int, sy: int = SY
                   ) -> list[list[int]] | None:
        """Taylor vectors y_0..y_K on 2^-sy by float CG preconditioned by Strang's (else T. Chan's)
        level-2 circulant of Φ_0 on the H×W torus (y_0 by :func:`~exactdp.kernel.threshold_spd.refined_y0`),
        solved for b/2^e and shifted back (:func:`~exactdp.kernel.threshold_spd.rhs_shift`)."""
        W, H, n, cells = self.shape.width, self.shape.height, self.n, self.cells
        e = rhs_shift(rhs)
        rhs = tuple(x / (1 << e) for x in rhs)
        size = (next_fast_len(2 * H - 1), next_fast_len(2 * W - 1))  # no wrap onto the kept rows
        kc = self.kernel(W - 1, H - 1)
        tab = np.ldexp(np.array([float(int(x)) for x in mids.entries()]), -ST).reshape(-1, K + 1)
        kk = [tab[:, j][kc] for j in range(K + 1)]
        kfs = [rfft2(k, size) for k in kk]

        def grid(v: np.ndarray) -> np.ndarray:
            pad = np.zeros(H * W)
            pad[cells] = v
            return pad.reshape(H, W)

        def op(j: int, v: np.ndarray) -> np.ndarray:
            out = irfft2(rfft2(grid(v), size) * kfs[j], size)
            return np.asarray(out[H - 1:2 * H - 1, W - 1:2 * W - 1].ravel()[cells])

        eig = np.ones((H, W // 2 + 1))
        for chan in (False, True):  # first column: offsets j and n − j, weights w and 1 − w
            (wy, oy), (wx, ox) = [((n_ - j) / n_ if chan else (2 * j <= n_) * 1.0, j)
                                  for n_, j in ((H, np.arange(H)), (W, np.arange(W)))]
            c = sum(u[:, None] * t[None, :] * kk[0][H - 1 + p][:, W - 1 + q]
                    for u, p in ((wy, oy), (1 - wy, (H - oy) % H))
                    for t, q in ((wx, ox), (1 - wx, (W - ox) % W)))
            lam = rfft2(c).real
            if np.all(lam > 1e-12 * np.max(np.abs(lam))):
                eig = lam
                break

        def solve(v: np.ndarray) -> np.ndarray:  # preconditioned CG; sums, not BLAS (its threads spin)
            x, r = np.zeros(n), v.copy()
            z = irfft2(rfft2(grid(r)) / eig, (H, W)).ravel()[cells]
            p, rz, stop = z.copy(), (r * z).sum(), _CG_TOL**2 * (v * v).sum()
            for _ in range(2 * W + 2 * H + 500):
                q = op(0, p) if (r * r).sum() > stop else p * 0
                if not (p * q).sum() > 0:
                    break
                alpha = rz / (p * q).sum()
                x, r = x + alpha * p, r - alpha * q
                z = irfft2(rfft2(grid(r)) / eig, (H, W)).ravel()[cells]
                rz, rz0 = (r * z).sum(), rz
                p = z + rz / rz0 * p
            return x

        yi = refined_y0(self, rhs, mids, solve, sy)
        if yi is None:
            return None
        ys = [np.ldexp(np.array(yi, dtype=np.float64), -sy)]
        for k in range(1, K + 1):
            ys.append(-solve(sum((op(j, ys[k - j]) for j in range(1, k + 1)), np.zeros(n))))
        if not all(np.all(np.isfinite(y)) for y in ys):
            return None
        return [[x << e for x in yi]] + [[int(x) << e for x in np.rint(np.ldexp(y, sy))]
                                         for y in ys[1:]]


def _packed(vals: list[int], idx: np.ndarray, pos: np.ndarray, nslots: int, nb: int) -> fmpz:
    """Σ_t vals[idx[t]]·2^(8·nb·pos[t]) exactly (|vals| < 2^(8·nb), positions distinct)."""
    mag = np.frombuffer(b"".join(abs(x).to_bytes(nb, "little") for x in vals), np.uint8)
    mag, neg = mag.reshape(-1, nb)[idx], np.array([x < 0 for x in vals])[idx]
    out = fmpz(0)
    for sel, sign in ((~neg, 1), (neg, -1)):
        buf = np.zeros((nslots, nb), np.uint8)
        buf[pos[sel]] = mag[sel]
        out += sign * fmpz(int.from_bytes(buf.tobytes(), "little"))
    return out


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


def _lambda_ok(shape: GridShape, a: Fraction, b: Fraction, lam: Fraction) -> bool:
    """λ ≤ λ_min(Φ_S(ε)) for every ε in [a, b] and every S of the lattice: Euclidean by the
    lattice symbol, Manhattan by ((1 − t)/(1 + t))² at t = e^{−a·h}, the largest t of the
    range (``proofs/grid_point_bounds.py``)."""
    if shape.norm == "euclidean":
        return euclidean_lambda_ok(a, b, shape.spacing, lam)
    return lam <= manhattan_lambda_lower(parse_level(eps=a), shape.spacing)


def _shape_ok(shape: Any, rhs: Any) -> bool:
    return (isinstance(shape, GridShape) and shape.norm in GRID_NORMS
            and isinstance(shape.spacing, Fraction) and shape.spacing > 0
            and 0 < shape.n <= MAX_GRID_POINTS and isinstance(rhs, tuple)
            and len(rhs) == shape.n and all_rational(*rhs))


def grid_fail_ok(shape: GridShape, rhs: tuple[Fraction, ...], eps: Fraction, index: int,
                 upper: Fraction, lam: Fraction, op: GridProducts | None = None) -> bool:
    """z_index(eps) < 0 and ≤ upper on the grid: λ re-proved on the lattice, then the point
    Taylor bound (K = 0) with the kernel's own candidate. Never raises."""
    try:
        if (not _shape_ok(shape, rhs) or not all_rational(eps, upper, lam) or not lam > 0
                or isinstance(index, bool) or not isinstance(index, int)
                or not 0 <= index < shape.n):
            return False
        op = op or GridProducts(shape)
        return (eps_in_range(op, eps) and _lambda_ok(shape, eps, eps, lam)
                and piece_ok(op, rhs, eps, eps, 0, lam, index, upper))
    except REJECTED_ERRORS:
        return False


def check_grid_threshold(c: Any) -> bool:
    """The ``grid-threshold`` check (module docstring); False, never an exception, on
    tampered or malformed data."""
    try:
        if not isinstance(c, GridThresholdClaim) or not _shape_ok(c.shape, c.rhs):
            return False
        lo, hi, K, pieces = c.eps.lo, c.eps.hi, c.order, c.pieces
        if (not all_rational(lo, hi, c.t0) or not 0 < lo < hi or isinstance(K, bool)
                or not isinstance(K, int) or not 0 <= K <= MAX_ORDER
                or not pieces_in_order(pieces) or not isinstance(c.fail, tuple)
                or len(c.fail) != 3):
            return False
        require_grid_work(c.shape, len(pieces), K)  # before any product (undecided, not False)
        op = GridProducts(c.shape)
        if not (eps_in_range(op, *(x for p in pieces for x in p[:2]))
                and cover_frame_ok((op.count_row, op.values), c.rhs, hi, c.t0,
                                   tuple((a, b) for a, b, _ in pieces))
                and all(lam > 0 and _lambda_ok(c.shape, a, b, lam) for a, b, lam in pieces)
                and grid_fail_ok(c.shape, c.rhs, lo, *c.fail, op=op)):
            return False
        return all(piece_ok(op, c.rhs, a, b, K, lam) for a, b, lam in pieces)
    except InstanceTooLarge:
        raise
    except REJECTED_ERRORS + (np.linalg.LinAlgError,):
        return False


def read_grid_threshold(doc: Any) -> GridThresholdClaim:
    """Read a ``grid-threshold`` document (strict; InvalidArgument if malformed). The
    claim is only as good as :func:`check_grid_threshold`."""
    env = read_envelope(doc)
    if env.kind != GRID_THRESHOLD:
        raise InvalidArgument(f"kind: {env.kind!r} is not {GRID_THRESHOLD!r}.")
    q = read_object(env.question, "question", ("metric", "property", "rhs", "level"))
    shape = read_grid_shape(q["metric"])
    n = shape.n
    ev = read_object(env.evidence, "evidence", ("fail", "t0", "order", "pieces"))
    fail = read_object(ev["fail"], "evidence.fail", ("index", "upper", "lam"))
    items = read_list(ev["pieces"], "evidence.pieces", max_length=MAX_PIECES)
    order = read_int(ev["order"], "evidence.order", 0, MAX_ORDER)
    require_grid_work(shape, len(items), order)  # before anything n-long is built
    pieces = []
    for k, item in enumerate(items):
        p = read_object(item, f"evidence.pieces[{k}]", ("lo", "hi", "lam"))
        pieces.append(tuple(read_rational(p[x], f"evidence.pieces[{k}].{x}")
                            for x in ("lo", "hi", "lam")))
    rhs = (tuple(Fraction(1) for _ in range(n)) if q["rhs"] == "ones" else tuple(
        read_rational(x, f"question.rhs[{k}]")
        for k, x in enumerate(read_list(q["rhs"], "question.rhs", length=n))))
    ones = q["rhs"] == "ones"
    want = (Property.THRESHOLD_TIGHT if ones else Property.THRESHOLD_REGULAR).value
    read_str(q["property"], "question.property", (want,))
    if (not ones and all(v == 1 for v in rhs)) or q["level"] != {"eps_range": {"lo": "0", "hi": None}}:
        raise InvalidArgument("question: write b = 1 as \"ones\" and the level as "
                              "{\"eps_range\": {\"lo\": \"0\", \"hi\": null}}.")
    claim = read_object(env.claim, "claim", ("verdict", "eps"))
    if read_verdict(claim["verdict"], "claim.verdict") is not Verdict.HOLDS:
        raise InvalidArgument("claim.verdict: a threshold certificate claims \"holds\".")
    return GridThresholdClaim(
        shape, rhs, read_enclosure(claim["eps"], "claim.eps"),
        (read_int(fail["index"], "evidence.fail.index", 0, n - 1),
         read_rational(fail["upper"], "evidence.fail.upper"),
         read_rational(fail["lam"], "evidence.fail.lam")),
        read_rational(ev["t0"], "evidence.t0"), order,
        tuple(pieces))  # type: ignore[arg-type]
