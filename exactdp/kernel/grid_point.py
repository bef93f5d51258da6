"""The kernel's check of a one-ε grid certificate (kind ``grid-point``), and its JSON reader.

Question: on a planar grid (:class:`~exactdp.spaces.metrics.masked.GridShape`: width,
height, norm, spacing and the kept cells of a mask), at one exact level ε, does Φx = b have
a solution x ≥ 0 (b = 1: a tight-constraints mechanism exists; b = π: π is regular)?

Evidence: a dyadic vector y = Y·2^-s (integer mantissas Y, one exponent s) and a claimed
λ > 0 with λ ≤ λ_min(Φ). The check re-derives everything else from the question:

1. λ is re-proved: Manhattan grids by the closed form λ_min ≥ ((1 − t)/(1 + t))², t = e^{-εh}
   (``proofs/grid_point_bounds.py``; any subset of the lattice), Euclidean grids by the
   kernel's lattice symbol check :func:`exactdp.kernel.lattice.euclidean_lambda_ok` on a
   rational bracket of ε (any subset of the lattice, so masked grids too);
2. every distinct entry e^{-εd} is enclosed by integers [A, A + R]·2^-T (arb, rounded
   outward), the product A·Y is computed *exactly* (an integer 2-D convolution by
   Kronecker substitution into one flint ``fmpz_poly`` product: the kernel's own copy of
   :mod:`exactdp.linalg.grid_exact_conv`, which it may not import), and
   ‖b − Φy‖₂ ≤ (√Σ⌈|b_i 2^{T+s} − (AY)_i|⌉² + √n·max R·‖Y‖₁)·2^-(T+s) =: ρλ;
3. ‖z − y‖∞ ≤ ‖z − y‖₂ ≤ ‖b − Φy‖₂/λ_min ≤ ρ, so "holds" needs y_i ≥ ρ for every i and
   "fails" needs y_w + ρ < 0 at the stated witness w (Φ is nonsingular since λ > 0).

No floating point anywhere. Memory O(n); time one flint product and n arb exponentials.

Examples
--------
>>> from exactdp.spaces.metrics.masked import GridShape
>>> from exactdp.spaces.levels import parse_level
>>> sh = GridShape(2, 1, "manhattan", Fraction(1))
>>> lvl = parse_level(t="1/2")                       # Φ = [[1, 1/2], [1/2, 1]], z = (2/3, 2/3)
>>> c = GridPointClaim(sh, lvl, (Fraction(1), Fraction(1)), True, None,
...                    (2796202, 2796203), 22, Fraction(1, 9), 64)
>>> check_grid_point(c)
True
>>> check_grid_point(GridPointClaim(sh, lvl, c.rhs, True, None, (2796202, -5), 22,
...                                 Fraction(1, 9), 64))
False
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from flint import arb, fmpz_poly

from exactdp.arithmetic.ball import arb_to_fraction_interval, workprec
from exactdp.arithmetic.rounding import dyadic_down, dyadic_up
from exactdp.errors import REJECTED_ERRORS, InvalidArgument, PrecisionLimitReached
from exactdp.kernel.jsonio import (
    Envelope,
    read_envelope,
    read_int,
    read_list,
    read_object,
    read_rational,
    read_rationals,
    read_str,
    read_verdict,
    write_rational,
)
from exactdp.kernel.lattice import euclidean_lambda_ok
from exactdp.kernel.question import LINEAR_PROPS, ONES, Property, linear_property, read_level
from exactdp.kinds import CertificateKind, Verdict, proved_by
from exactdp.spaces.levels import PrivacyLevel
from exactdp.spaces.metrics.masked import MASK_NORMS, GridShape

__all__ = ["GRID_POINT", "GridPointClaim", "ResidualBound", "check_grid_point",
           "check_grid_point_document", "grid_residual", "grid_lambda_bound", "lambda_proved",
           "manhattan_lambda_lower", "radius", "read_grid_point",
           "MAX_GRID_POINTS", "MAX_BITS", "write_grid_shape", "read_grid_shape",
           "read_grid_header"]

GRID_POINT = CertificateKind.GRID_POINT.value
#: Most points of a grid-point question (a 2000×2000 grid).
MAX_GRID_POINTS = 4_000_000
#: Largest exponent s and table scale T accepted (bits).
MAX_BITS = 1 << 14
#: A Euclidean λ finder (search side, e.g. the algebra layer's lattice bound):
#: (ε_lo, ε_hi, spacing) ↦ L ≤ λ_min(Φ_S(ε)) for all ε in range, all S.
LatticeLambda = Callable[[Fraction, Fraction, Fraction], Fraction]


@dataclass(frozen=True)
class GridPointClaim:
    """"Φ(ε)x = rhs has (``holds``) / has no (not ``holds``, at ``witness``) solution x ≥ 0"
    on a grid, with y = mantissas·2^-exponent and λ ≤ λ_min(Φ(ε)) (module docstring)."""

    shape: GridShape
    level: PrivacyLevel
    rhs: tuple[Fraction, ...]
    holds: bool
    witness: int | None
    mantissas: tuple[int, ...]
    exponent: int
    lam: Fraction
    table_bits: int


@dataclass(frozen=True)
class ResidualBound:
    """``norm_bound`` ≥ ‖b − Φy‖₂ (exact rational); ``numerators[i]/denominators[i]`` is
    b_i − (A·Y)_i·2^-(T+s) scaled by 2^(T+s) (the exact centre of the residual)."""

    norm_bound: Fraction
    numerators: list[int]
    denominators: list[int]
    scale_bits: int


def _eps_bracket(level: PrivacyLevel) -> tuple[Fraction, Fraction]:
    """A rational bracket [lo, hi] ∋ ε with 0 < lo: both ends rounded outward to about 64
    significant bits *relative to ε* (never clamped, so the bracket always contains ε).

    >>> from exactdp.spaces.levels import parse_level
    >>> lo, hi = _eps_bracket(parse_level(eps=Fraction(1, 2**70)))
    >>> 0 < lo <= Fraction(1, 2**70) <= hi < Fraction(1, 2**69)
    True
    """
    with workprec(128):
        lo, hi = arb_to_fraction_interval(level.eps_ball())
    if lo <= 0:
        raise PrecisionLimitReached(f"ε = {level.eps} is not proved > 0 at 128 bits; no λ_min "
                                    "bound can be proved for it (use method='ball').")
    bits = 64 + max(0, lo.denominator.bit_length() - lo.numerator.bit_length() + 1)
    return dyadic_down(lo, bits), dyadic_up(hi, bits)


@proved_by("grid_point_bounds")
def manhattan_lambda_lower(level: PrivacyLevel, spacing: Fraction) -> Fraction:
    """((1 − t)/(1 + t))² with t ≥ e^{-ε·spacing} rounded up: a lower bound of λ_min(Φ) for
    every finite set of points of spacing·Z² under the Manhattan distance
    (``proofs/grid_point_bounds.py``).

    >>> from exactdp.spaces.levels import parse_level
    >>> manhattan_lambda_lower(parse_level(t="1/2"), Fraction(1))
    Fraction(1, 9)
    """
    if level.t is not None and spacing.denominator == 1 and spacing.numerator <= 64:
        t = level.t ** spacing.numerator  # exact
    else:
        with workprec(128):
            ball = (-level.eps_ball() * arb(spacing.numerator) / spacing.denominator).exp()
            tiny = bool(ball < arb(2) ** -96)
            # t < 2^-96: round t up to 2^-96 without converting a ball of huge exponent
            t_hi = Fraction(1, 1 << 96) if tiny else arb_to_fraction_interval(ball)[1]
        t = min(dyadic_up(t_hi, 96), Fraction(1))
    return ((1 - t) / (1 + t)) ** 2


def grid_lambda_bound(shape: GridShape, level: PrivacyLevel,
                      lattice_lambda: LatticeLambda | None) -> Fraction:
    """A λ ≤ λ_min(Φ(ε)) for the grid, for the search: Manhattan closed form, Euclidean by
    ``lattice_lambda`` on a rational bracket of ε (InvalidArgument without it). The check
    never trusts it: :func:`lambda_proved` re-proves the stored λ."""
    if shape.norm == "manhattan":
        return manhattan_lambda_lower(level, shape.spacing)
    if shape.norm == "euclidean" and lattice_lambda is not None:
        lo, hi = _eps_bracket(level)
        return Fraction(lattice_lambda(lo, hi, shape.spacing))
    raise InvalidArgument(f"no proved λ_min bound for a {shape.norm} grid here (Manhattan: "
                          "closed form; Euclidean: pass lattice_lambda).")


def lambda_proved(shape: GridShape, level: PrivacyLevel, lam: Fraction) -> bool:
    """True only if λ_min(Φ(ε)) ≥ ``lam`` is proved for the grid (and every subset of its
    lattice): Manhattan by the closed form, Euclidean by
    :func:`~exactdp.kernel.lattice.euclidean_lambda_ok` on a rational bracket of ε.

    >>> from exactdp.spaces.levels import parse_level
    >>> sh = GridShape(3, 3, "euclidean", Fraction(1))
    >>> lambda_proved(sh, parse_level(eps=1), Fraction(1, 3)), lambda_proved(sh, parse_level(eps=1), Fraction(1, 2))
    (True, False)
    """
    if shape.norm == "manhattan":
        return lam <= manhattan_lambda_lower(level, shape.spacing)
    return shape.norm == "euclidean" and euclidean_lambda_ok(*_eps_bracket(level), shape.spacing,
                                                             lam)


def _table(shape: GridShape, level: PrivacyLevel, bits: int) -> tuple[list[int], list[int], int]:
    """(codes of the offsets (dx, dy) as dx·H + dy, integer lower ends A_k, max radius).

    An offset's length is h·√(dx² + dy²) (Euclidean) or h·(dx + dy) (Manhattan), keyed by
    the integer dx² + dy² or dx + dy (the definition of
    :func:`~exactdp.spaces.distances.grid_offset_distance`, compared in
    ``proofs/grid_point_bounds.py``); e^{-ε·length}·2^bits is enclosed in arb and its
    lower and upper ends rounded down and up to integers.
    """
    W, H = shape.width, shape.height
    euclid = shape.norm == "euclidean"
    ids: dict[int, int] = {}
    keys: list[int] = []
    codes = [0] * (W * H)
    for dx in range(W):
        for dy in range(H):
            key = dx * dx + dy * dy if euclid else dx + dy
            k = ids.get(key)
            if k is None:
                k = ids[key] = len(keys)
                keys.append(key)
            codes[dx * H + dy] = k
    lows: list[int] = []
    radmax = 0
    with workprec(bits + 64):
        eh = level.eps_ball() * arb(shape.spacing.numerator) / shape.spacing.denominator
        scale = arb(2) ** bits
        for key in keys:
            length = arb(key).sqrt() if euclid else arb(key)
            v = (-eh * length).exp() * scale
            a, b = _whole(v.lower().floor()), _whole(v.upper().ceil())
            lows.append(a)
            radmax = max(radmax, b - a)
    return codes, lows, radmax


def _whole(x: arb) -> int:
    """The integer an exact integer-valued ball holds (floor/ceil of an exact endpoint)."""
    v = x.unique_fmpz()
    if v is None:
        raise PrecisionLimitReached(f"the table entry {x} is not resolved to an integer; "
                                    "the level's ε is too large for this precision.")
    return int(v)


def _convolve(shape: GridShape, codes: list[int], lows: list[int], Y: list[int]) -> list[int]:
    """(A·Y)[i] for the zero-padded W·H vector Y: Kronecker substitution, stride 2W − 1
    (``proofs/grid_exact_convolution.py``, Lemma 2)."""
    W, H = shape.width, shape.height
    S = 2 * W - 1
    ker = [0] * ((2 * H - 1) * S)
    for a in range(-(H - 1), H):
        row = (a + H - 1) * S
        for b in range(-(W - 1), W):
            ker[row + b + W - 1] = lows[codes[abs(b) * H + abs(a)]]
    vec = [0] * ((H - 1) * S + W)
    for y in range(H):
        vec[y * S: y * S + W] = Y[y * W:(y + 1) * W]
    coeffs: list[Any] = list((fmpz_poly(ker) * fmpz_poly(vec)).coeffs())
    need = (2 * H - 2) * S + 2 * W - 1
    coeffs += [0] * max(0, need - len(coeffs))
    out: list[int] = []
    for y in range(H):
        start = (y + H - 1) * S + W - 1
        out.extend(int(c) for c in coeffs[start:start + W])
    return out


@proved_by("grid_point_bounds")
def grid_residual(shape: GridShape, level: PrivacyLevel, rhs: tuple[Fraction, ...],
                  mantissas: tuple[int, ...], exponent: int, table_bits: int) -> ResidualBound:
    """A rigorous bound of ‖b − Φy‖₂ for y = mantissas·2^-exponent (step 2 of the module
    docstring), and the exact centre of the residual (``proofs/grid_point_bounds.py``)."""
    n = shape.n
    if len(rhs) != n or len(mantissas) != n:
        raise InvalidArgument(f"grid_residual: rhs has {len(rhs)} and y {len(mantissas)} "
                              f"entries; the grid has n = {n} points.")
    if not (0 <= exponent <= MAX_BITS and 1 <= table_bits <= MAX_BITS):
        raise InvalidArgument(f"grid_residual: exponent={exponent}, table_bits={table_bits}; "
                              f"both must lie in [0, {MAX_BITS}] (table_bits ≥ 1).")
    codes, lows, radmax = _table(shape, level, table_bits)
    full = [0] * (shape.width * shape.height)
    cells = shape.cells
    for c, m in zip(cells, mantissas):
        full[c] = int(m)
    prod = _convolve(shape, codes, lows, full)
    sh = table_bits + exponent
    nums: list[int] = []
    dens: list[int] = []
    total = 0
    for b, c in zip(rhs, cells):
        q = b.denominator
        diff = (b.numerator << sh) - q * prod[c]
        nums.append(diff)
        dens.append(q)
        up = -(-abs(diff) // q)
        total += up * up
    l1 = sum(abs(int(m)) for m in mantissas)
    bound = math.isqrt(total) + 1 + (math.isqrt(n) + 1) * radmax * l1
    return ResidualBound(Fraction(bound, 1 << sh), nums, dens, sh)


def radius(res: ResidualBound, lam: Fraction) -> Fraction:
    """ρ = ‖r‖₂ bound / λ: every |z_i − y_i| ≤ ρ."""
    return res.norm_bound / lam


def check_grid_point(claim: GridPointClaim) -> bool:
    """Re-check a grid-point claim from its question (module docstring); False, never an
    exception, on tampered or malformed data. λ is re-proved in the kernel for both norms
    (:func:`lambda_proved`)."""
    try:
        c = claim
        if (not isinstance(c.shape, GridShape) or c.shape.norm not in ("euclidean", "manhattan")
                or not 0 < c.shape.n <= MAX_GRID_POINTS or not isinstance(c.lam, Fraction)
                or c.lam <= 0 or len(c.mantissas) != c.shape.n or len(c.rhs) != c.shape.n):
            return False
        if not lambda_proved(c.shape, c.level, c.lam):
            return False
        res = grid_residual(c.shape, c.level, tuple(Fraction(v) for v in c.rhs),
                            tuple(int(m) for m in c.mantissas), int(c.exponent),
                            int(c.table_bits))
        rho = radius(res, c.lam)
        scale = Fraction(1, 1 << int(c.exponent))
        if c.holds:
            return c.witness is None and min(c.mantissas) * scale >= rho
        w = c.witness
        return (isinstance(w, int) and not isinstance(w, bool) and 0 <= w < c.shape.n
                and c.mantissas[w] * scale + rho < 0)
    except REJECTED_ERRORS:
        return False


# ----------------------------------------------------------------------------- JSON


def write_grid_shape(sh: GridShape) -> dict[str, Any]:
    """``question.metric`` of a grid document: the shape, never n² distances."""
    return {"encoding": "grid", "width": sh.width, "height": sh.height, "norm": sh.norm,
            "spacing": write_rational(sh.spacing, "spacing"), "mask": sh.mask_rows()}


def read_grid_shape(value: Any) -> GridShape:
    """Read ``question.metric`` of a grid document (strict; InvalidArgument if malformed)."""
    w = "question.metric"
    obj = read_object(value, w, ("encoding", "width", "height", "norm", "spacing", "mask"))
    read_str(obj["encoding"], w + ".encoding", ("grid",))
    W = read_int(obj["width"], w + ".width", 1, MAX_GRID_POINTS)
    H = read_int(obj["height"], w + ".height", 1, MAX_GRID_POINTS)
    if W * H > MAX_GRID_POINTS:
        raise InvalidArgument(f"{w}: {W}×{H} exceeds {MAX_GRID_POINTS} points.")
    norm = read_str(obj["norm"], w + ".norm", MASK_NORMS)
    h = read_rational(obj["spacing"], w + ".spacing")
    if h <= 0:
        raise InvalidArgument(f"{w}.spacing: got {h}; it must be > 0.")
    if obj["mask"] is None:
        return GridShape(W, H, norm, h, None)
    rows = read_list(obj["mask"], w + ".mask", length=H)
    cells: list[int] = []
    for y, r in enumerate(rows):
        text = read_str(r, f"{w}.mask[{y}]")
        if len(text) != W or set(text) - {"0", "1"}:
            raise InvalidArgument(f"{w}.mask[{y}]: expected {W} characters '0'/'1'.")
        cells.extend(y * W + x for x, ch in enumerate(text) if ch == "1")
    if not cells or len(cells) == W * H:
        raise InvalidArgument(f"{w}.mask: keeps {len(cells)} of {W * H} cells; write null "
                              "for the full grid and keep at least one cell.")
    return GridShape(W, H, norm, h, tuple(cells))


def read_grid_header(env: Envelope) -> tuple[GridShape, tuple[Fraction, ...], PrivacyLevel,
                                              bool, int | None]:
    """(shape, rhs, level, holds, witness): the question and claim of a one-ε grid document
    (``grid-point`` and ``grid-point-exact`` share them; strict, InvalidArgument if malformed)."""
    q = read_object(env.question, "question", ("metric", "property", "rhs", "level"))
    shape = read_grid_shape(q["metric"])
    prop = read_str(q["property"], "question.property", [p.value for p in LINEAR_PROPS])
    n = shape.n
    ones = q["rhs"] == ONES
    rhs = (Fraction(1),) * n if ones else read_rationals(q["rhs"], "question.rhs", n)
    want = linear_property(rhs).value
    if prop != want or (want == Property.TIGHT_CONSTRAINTS and not ones):
        raise InvalidArgument(f"question.property: {prop!r} does not fit the right-hand side "
                              f"(expected {want!r}, with \"ones\" for b = 1).")
    level = read_level(q["level"])
    assert isinstance(level, PrivacyLevel)
    claim = read_object(env.claim, "claim", ("verdict", "witness"))
    holds = read_verdict(claim["verdict"], "claim.verdict") is Verdict.HOLDS
    wit = None if claim["witness"] is None else read_int(claim["witness"], "claim.witness", 0,
                                                           n - 1)
    return shape, rhs, level, holds, wit


def read_grid_point(doc: Any) -> GridPointClaim:
    """Read a ``grid-point`` document back into a claim (strict; InvalidArgument if
    malformed). The claim is only as good as :func:`check_grid_point`."""
    env = read_envelope(doc)
    if env.kind != GRID_POINT:
        raise InvalidArgument(f"kind: {env.kind!r} is not {GRID_POINT!r}.")
    shape, rhs, level, holds, wit = read_grid_header(env)
    ev = read_object(env.evidence, "evidence", ("exponent", "table_bits", "lam", "mantissas"))
    mans = read_list(ev["mantissas"], "evidence.mantissas", length=shape.n)
    mant = tuple(int(read_rational(x, f"evidence.mantissas[{k}]", integer=True))
                 for k, x in enumerate(mans))
    return GridPointClaim(shape, level, rhs, holds, wit, mant,
                          read_int(ev["exponent"], "evidence.exponent", 0, MAX_BITS),
                          read_rational(ev["lam"], "evidence.lam"),
                          read_int(ev["table_bits"], "evidence.table_bits", 1, MAX_BITS))


def check_grid_point_document(doc: Any) -> bool:
    """:func:`check_grid_point` of a parsed document, for ``exactdp verify`` (Euclidean and
    Manhattan grids, masked or not; InvalidArgument if malformed)."""
    return check_grid_point(read_grid_point(doc))
