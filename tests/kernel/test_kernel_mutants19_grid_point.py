"""Session 19: tests for the survivors of the first complete ``scripts/mutation.py`` run on
exactdp/kernel/grid_point.py (370 mutants, two shards). Each test names the mutants it kills
("line N: change", the tool's description at the time of the run).

Ground truth is computed here, never read from the kernel: the residual bound of
``proofs/grid_point_bounds.py`` is evaluated from the exact rational table of line(2) at
t = 1/3 (e^{-ε·1}·2^T = 2^T/3 for the one nonzero distance), the work limits from their
documented formulas.
"""

from __future__ import annotations

import copy
import math
from dataclasses import FrozenInstanceError
from fractions import Fraction as F

import pytest

from exactdp.engine.documents import write_grid_point
from exactdp.errors import InstanceTooLarge, InvalidArgument
from exactdp.kernel.grid_point import (
    MAX_GRID_POINTS,
    MAX_POINT_BYTES,
    GridPointClaim,
    ResidualBound,
    check_grid_point,
    grid_residual,
    read_grid_point,
    read_grid_shape,
    require_point_work,
    shape_ok,
)
from exactdp.spaces.levels import parse_level
from exactdp.spaces.metrics.masked import GridShape

LINE2 = GridShape(2, 1, "manhattan", F(1))
ONES2 = (F(1), F(1))


def _claim(**changes: object) -> GridPointClaim:
    """The module docstring's genuine claim (line(2) at t = 1/2), with fields replaced."""
    fields = dict(shape=LINE2, level=parse_level(t="1/2"), rhs=ONES2, holds=True, witness=None,
                  mantissas=(2796202, 2796203), exponent=22, lam=F(1, 9), table_bits=64)
    return GridPointClaim(**{**fields, **changes})  # type: ignore[arg-type]


def _metric(**changes: object) -> dict[str, object]:
    return {"encoding": "grid", "width": 2, "height": 1, "norm": "manhattan", "spacing": "1",
            "mask": None, **changes}


# ------------------------------------------------------------------ the residual bound, exactly
T, S = 64, 22
Y3 = (3 << 20, 3 << 20)  # y = (3/4, 3/4) on 2^-22: the exact solution of Φz = 1 at t = 1/3


def _documented_bound() -> int:
    """⌊√total⌋ + 1 + (⌊√n⌋ + 1)·radmax·‖Y‖₁ at scale 2^(T+s), from the exact table of line(2)
    at t = 1/3: A_0 = 2^T (exact, radius 0), A_1 = ⌊2^T/3⌋ (2^T/3 is not an integer: radius 1)."""
    a0, a1 = 1 << T, (1 << T) // 3
    assert F(1 << T, 3) != a1 and math.ceil(F(1 << T, 3)) - a1 == 1
    prod = (a0 * Y3[0] + a1 * Y3[1], a1 * Y3[0] + a0 * Y3[1])
    nums = [(1 << (T + S)) - p for p in prod]  # b = 1: numerator 1, denominator 1
    total = sum(abs(d) ** 2 for d in nums)
    return math.isqrt(total) + 1 + (math.isqrt(2) + 1) * 1 * sum(Y3)


# kills "line 379: Add -> Sub" (each of the three additions: ⌊√total⌋ − 1, the rounding term
# subtracted, ⌊√n⌋ − 1) and "line 350: 0 -> 1" (radmax starting at 1): the bound is the
# documented one, to the last unit of 2^-(T+s)
def test_residual_bound_is_the_documented_one():
    res = grid_residual(LINE2, parse_level(t="1/3"), ONES2, Y3, S, T)
    bound = _documented_bound()
    assert res.norm_bound == F(bound, 1 << (T + S))
    assert res.scale_bits == T + S
    # every term matters here: the centre residual is 2^20 per entry, the rounding term 12·2^20
    assert bound == math.isqrt(2 << 40) + 1 + 2 * 6 * 2**20


# the same mutants through check_grid_point: ρ = bound/λ, "holds" needs min Y ≥ ρ·2^s, so the
# smallest λ a holding claim may state is bound·2^s / (2^(T+s)·min Y) — accepted there, rejected
# just below (a smaller bound would accept less evidence, a larger one refuse a genuine claim)
def test_holds_claim_at_the_exact_lambda_margin():
    bound = _documented_bound()
    edge = F(bound << S, (1 << (T + S)) * min(Y3))
    below = F((bound - 1) << S, (1 << (T + S)) * min(Y3))
    at = _claim(level=parse_level(t="1/3"), mantissas=Y3, exponent=S, table_bits=T, lam=edge)
    assert edge <= F(1, 4)  # ≤ ((1 − t)/(1 + t))² at t = 1/3: λ is provable, the margin decides
    assert check_grid_point(at) is True
    assert check_grid_point(_claim(level=parse_level(t="1/3"), mantissas=Y3, exponent=S,
                                   table_bits=T, lam=below)) is False


# kills "line 366: Or -> And" and "line 369: And -> Or": grid_residual refuses evidence of the
# wrong length or out-of-range exponents itself (it is exported: zip would silently truncate)
@pytest.mark.parametrize("rhs, mans, s, tb", [
    ((F(1),), (1, 1), 0, 1), (ONES2, (1,), 0, 1), (ONES2, (1, 1, 1), 0, 1),
    (ONES2, (1, 1), -1, 1), (ONES2, (1, 1), 2**14 + 1, 1), (ONES2, (1, 1), 0, 0),
    (ONES2, (1, 1), 0, 2**14 + 1)])
def test_grid_residual_refuses_malformed_evidence(rhs, mans, s, tb):
    with pytest.raises(InvalidArgument, match="grid_residual"):
        grid_residual(LINE2, parse_level(t="1/3"), rhs, mans, s, tb)


# kills "line 122: True -> False": the residual bound is a frozen result
def test_residual_bound_is_frozen():
    res = grid_residual(LINE2, parse_level(t="1/3"), ONES2, Y3, S, T)
    assert isinstance(res, ResidualBound)
    with pytest.raises(FrozenInstanceError):
        res.norm_bound = F(0)  # type: ignore[misc]


# ------------------------------------------------------------------ work limits at their edges
# kills "line 413: 64 -> 65" and "line 415: Gt -> GtE": need = s + bits(⌈‖b‖₁/λ⌉) + 64 =
# 2 + bits(18) + 64 = 71 bits at s = 2, b = (1, 1), λ = 1/9: a 71-bit mantissa is read, 72 refused
def test_mantissa_bits_at_the_exact_edge():
    need = 2 + math.ceil(F(2) / F(1, 9)).bit_length() + 64
    assert need == 71
    require_point_work(LINE2, ONES2, F(1, 9), (2**70, 3), 2, 64)
    with pytest.raises(InstanceTooLarge, match="a 72-bit mantissa"):
        require_point_work(LINE2, ONES2, F(1, 9), (2**71, 3), 2, 64)


# kills "line 90: 28 -> 29" and "line 90: 1 -> 2" (MAX_POINT_BYTES = 2^28): on a 400×400 grid
# the product's factor is 2·799·799·⌊(T + bits(Y) + bits(n) + 16)/8⌋ bytes — 210 bytes per slot
# at T = 1644 (268,128,420 ≤ 2^28), 211 at T = 1652 (269,405,222 > 2^28 but < 2^29)
def test_product_size_at_the_exact_edge():
    grid, n = GridShape(400, 400, "manhattan", F(1)), 160_000
    rhs, mans = (F(1),) * n, (3,) * n
    slots, nbits = 2 * 799 * 799, n.bit_length()
    assert MAX_POINT_BYTES == 2**28 and nbits == 18
    assert slots * ((1644 + 2 + nbits + 16) // 8) <= 2**28 < slots * ((1652 + 2 + nbits + 16) // 8) < 2**29
    require_point_work(grid, rhs, F(1, 9), mans, 2, 1644)
    with pytest.raises(InstanceTooLarge, match="269405222 bytes"):
        require_point_work(grid, rhs, F(1, 9), mans, 2, 1652)


# kills "line 85: 4000000 -> 4000001" and "line 460: Mult -> Div": a 2000×2000 grid (the limit)
# is read, 2001×2000 and 4,000,001×1 are refused as too large (exit 2), before any data
def test_grid_points_at_the_exact_edge():
    assert MAX_GRID_POINTS == 4_000_000
    assert read_grid_shape(_metric(width=2000, height=2000)).n == 4_000_000
    for w, h in ((2001, 2000), (4_000_001, 1), (1, 4_000_001)):
        with pytest.raises(InstanceTooLarge, match="exceeds the kernel's 4000000 points"):
            read_grid_shape(_metric(width=w, height=h))


# kills "line 458: 1 -> 2": a grid one point wide (or tall) is a legal grid
def test_one_wide_grid_is_read():
    assert read_grid_shape(_metric(width=1, height=3)).n == 3
    assert read_grid_shape(_metric(width=3, height=1)).n == 3
    for bad in (0, -1):
        with pytest.raises(InvalidArgument, match="question.metric.width"):
            read_grid_shape(_metric(width=bad))


# kills "line 464: LtE -> Lt" (reader) and "line 263: Gt -> GtE" (shape_ok): spacing 0 is not a
# grid — the reader refuses it, and a shape built in memory with it fails shape_ok (which the
# grid-threshold checks use too)
def test_zero_spacing_is_refused():
    with pytest.raises(InvalidArgument, match="spacing: got 0"):
        read_grid_shape(_metric(spacing="0"))
    with pytest.raises(InvalidArgument, match="spacing: got -1"):
        read_grid_shape(_metric(spacing="-1"))
    assert shape_ok(LINE2, ONES2)
    assert not shape_ok(GridShape(2, 1, "manhattan", F(0)), ONES2)
    assert check_grid_point(_claim(shape=GridShape(2, 1, "manhattan", F(0)))) is False


# kills "line 475: Or -> And": a mask keeping no cell, or every cell, is malformed
@pytest.mark.parametrize("mask", [["00"], ["11"]])
def test_mask_must_keep_some_but_not_all_cells(mask):
    with pytest.raises(InvalidArgument, match="question.metric.mask: keeps"):
        read_grid_shape(_metric(mask=mask))
    assert read_grid_shape(_metric(mask=["10"])).n == 1


# kills "line 504: Or -> And": the property must fit the right-hand side (b = 1 written "ones"
# is tight constraints; any other b is regularity), either mismatch is malformed
def test_property_must_fit_the_rhs():
    doc = write_grid_point(_claim())
    assert read_grid_point(doc) == _claim()
    wrong = copy.deepcopy(doc)
    wrong["question"]["property"] = "regularity"
    with pytest.raises(InvalidArgument, match="question.property"):
        read_grid_point(wrong)
    spelled = copy.deepcopy(doc)
    spelled["question"]["rhs"] = ["1", "1"]  # b = 1 spelled out: not the tight-constraints question
    with pytest.raises(InvalidArgument, match="question.property"):
        read_grid_point(spelled)


# kills "line 526: Gt -> GtE": λ = 0 is read (the claim is then rejected by the check), never a
# ZeroDivisionError inside the reader's work limit
def test_zero_lambda_is_read_then_rejected():
    doc = write_grid_point(_claim())
    doc["evidence"]["lam"] = "0"
    claim = read_grid_point(doc)
    assert claim.lam == 0 and check_grid_point(claim) is False
