"""Session 20: tests for the survivors of the second complete ``scripts/mutation.py`` run on
exactdp/kernel/grid_point.py (370 mutants, two shards, with session 19's tests). Each test names
the mutants it kills ("line N: change", the tool's description at the time of the run).

Ground truth is computed here, never read from the kernel:

* λ_min bounds against the closed form ((1 − t)/(1 + t))² of ``proofs/grid_point_bounds.py``
  at an exactly known t (t = 1/4 at spacing 1/2 has e^{-ε·h} = 1/2), at a rational t whose 65th
  power lies strictly between 2^-97 and 2^-96 (checked exactly), and at ε = 2^-200, where
  ((1 − t)/(1 + t))² = tanh(εh/2)² ≤ (εh/2)²;
* the residual bound of a one-point grid, where Φ = [1] and the table is exact (2^T);
* the reader's limits from their documented ranges (witness in [0, n − 1], exponent and
  table bits in [0, MAX_BITS] and [1, MAX_BITS], masks of exactly W characters '0'/'1').
"""

from __future__ import annotations

import copy
from fractions import Fraction as F

import pytest

from exactdp.engine.documents import write_grid_point
from exactdp.errors import InvalidArgument
from exactdp.kernel.grid_point import (
    MAX_BITS,
    GridPointClaim,
    check_grid_point,
    grid_residual,
    manhattan_lambda_lower,
    read_grid_point,
    read_grid_shape,
    shape_ok,
)
from exactdp.spaces.levels import parse_level
from exactdp.spaces.metrics.masked import GridShape

LINE2 = GridShape(2, 1, "manhattan", F(1))
POINT = GridShape(1, 1, "manhattan", F(1))
ONES2 = (F(1), F(1))
HALF = parse_level(t="1/2")


def _claim(**changes: object) -> GridPointClaim:
    """The module docstring's genuine claim (line(2) at t = 1/2), with fields replaced."""
    fields = dict(shape=LINE2, level=HALF, rhs=ONES2, holds=True, witness=None,
                  mantissas=(2796202, 2796203), exponent=22, lam=F(1, 9), table_bits=64)
    return GridPointClaim(**{**fields, **changes})  # type: ignore[arg-type]


def _metric(**changes: object) -> dict[str, object]:
    return {"encoding": "grid", "width": 2, "height": 1, "norm": "manhattan", "spacing": "1",
            "mask": None, **changes}


def _closed(t: F) -> F:
    return ((1 - t) / (1 + t)) ** 2


# ------------------------------------------------------------------ the Manhattan λ bound
# kills "line 300: Div -> Mult" (ε·num·den instead of ε·num/den): at a spacing of 1/2 the ball
# route must use e^{-ε/2}; t = 1/4 makes it exactly 1/2, so the bound is at most 1/9 (the
# mutant gives t = 1/16 and (15/17)², far above λ_min)
def test_fractional_spacing_bound_is_below_the_closed_form():
    got = manhattan_lambda_lower(parse_level(t=F(1, 4)), F(1, 2))
    assert got <= _closed(F(1, 2)) == F(1, 9)
    assert got > F(1, 9) - F(1, 2**80)  # and it is the closed form up to the 96-bit rounding of t


T65 = F(5, 14) ** 65  # e^{-ε·65} for t = 5/14, exactly


# kills "line 303: 1 -> 2" where it gives t = 2^-95 instead of 2^-96, and "line 296: 64 -> 65"
# (spacing 65 taken by the exact branch): a ball below 2^-96 is rounded up to exactly 2^-96 (the
# comment's rule). The other "line 303: 1 -> 2" (2^-97) is equivalent: dyadic_up(·, 96) rounds
# to a multiple of 2^-96, so it gives 2^-96 again (scripts/mutation_equivalent.txt)
def test_tiny_t_is_rounded_up_to_two_to_the_minus_96():
    assert F(1, 2**97) < T65 < F(1, 2**96)  # the true t lies between the two roundings
    got = manhattan_lambda_lower(parse_level(t=F(5, 14)), F(65))
    assert got <= _closed(T65)  # a lower bound of λ_min (the 2^-97 mutant is above it)
    assert got == _closed(F(1, 2**96))  # exactly the documented rounding


# kills "line 304: 1 -> 2" (t capped at 2 instead of 1): at ε = 2^-200 the 128-bit ball of
# e^{-ε/2} reaches past 1; capped at 1 the bound is 0, uncapped it would be ≈ 2^-194, far above
# the true λ bound tanh(ε/4)² ≤ (ε/4)² = 2^-404
@pytest.mark.parametrize("k", [200, 100])
def test_tiny_eps_bound_is_at_most_the_closed_form(k: int):
    eps = F(1, 2**k)
    got = manhattan_lambda_lower(parse_level(eps=eps), F(1, 2))
    assert 0 <= got <= (eps / 4) ** 2


# ------------------------------------------------------------------ a one-point grid
# kills "line 264: 0 -> 1" (a one-point grid refused by shape_ok) and "line 350: 0 -> 1" (radmax
# starting at 1): on one point Φ = [1], the table is 2^T exactly (radius 0), y = 1 is exact, so
# the bound is ⌊√0⌋ + 1 + (1 + 1)·0·‖Y‖₁ = 1 unit of 2^-(T+s)
def test_one_point_grid_residual_is_one_unit():
    assert shape_ok(POINT, (F(1),))
    res = grid_residual(POINT, HALF, (F(1),), (1 << 22,), 22, 64)
    assert res.norm_bound == F(1, 2**86) and res.numerators == [0]
    claim = _claim(shape=POINT, rhs=(F(1),), mantissas=(1 << 22,))
    assert check_grid_point(claim) is True
    doc = write_grid_point(claim)
    assert read_grid_point(doc) == claim


# kills "line 369: 0 -> 1" and "line 369: 1 -> 2": exponent 0 and table_bits 1 are in range
def test_residual_at_the_smallest_exponent_and_table_bits():
    res = grid_residual(LINE2, HALF, ONES2, (1, 1), 0, 1)
    assert res.scale_bits == 1


# kills "line 436: Add -> Sub" and "line 437: Add -> Sub": exponent and table_bits equal to
# MAX_BITS are legal evidence, and a genuine claim with them verifies
def test_exponent_and_table_bits_at_max_bits():
    y = (2 << MAX_BITS) // 3  # 2/3 = the solution of Φz = 1 at t = 1/2, on 2^-MAX_BITS
    assert check_grid_point(_claim(mantissas=(y, y + 1), exponent=MAX_BITS)) is True
    assert check_grid_point(_claim(table_bits=MAX_BITS)) is True
    assert check_grid_point(_claim(table_bits=MAX_BITS + 1)) is False
    assert check_grid_point(_claim(mantissas=(y, y + 1), exponent=MAX_BITS + 1)) is False


# ------------------------------------------------------------------ the reader
# kills "line 472: Or -> And": a mask row of the wrong length or with another character
@pytest.mark.parametrize("mask", [["101"], ["1"], ["1x"], ["x1"], ["1 "]])
def test_mask_row_must_be_w_characters_of_zero_and_one(mask):
    with pytest.raises(InvalidArgument, match=r"question.metric.mask\[0\]: expected 2 characters"):
        read_grid_shape(_metric(mask=mask))


# kills "line 475: Mult -> Div" and "line 476: Mult -> Div": on a 2×2 grid (W/H = 1) a mask
# keeping all 4 cells is the full grid, written null; a mask of 1 cell is a legal question
def test_full_mask_of_a_square_grid_is_refused():
    with pytest.raises(InvalidArgument, match="keeps 4 of 4 cells"):
        read_grid_shape(_metric(width=2, height=2, mask=["11", "11"]))
    assert read_grid_shape(_metric(width=2, height=2, mask=["10", "00"])).n == 1


# kills "line 511: 0 -> 1" and "line 512: Sub -> Add": the witness is an index in [0, n − 1]
def test_witness_range_is_zero_to_n_minus_one():
    doc = write_grid_point(_claim(holds=False, witness=0))
    assert read_grid_point(doc).witness == 0
    for bad in (2, 3, -1):
        edited = copy.deepcopy(doc)
        edited["claim"]["witness"] = bad
        with pytest.raises(InvalidArgument, match="claim.witness"):
            read_grid_point(edited)


# kills "line 524: 0 -> 1": exponent 0 (y on the integers) is read
def test_exponent_zero_is_read():
    claim = _claim(rhs=(F(3), F(3)), mantissas=(2, 2), exponent=0)
    assert read_grid_point(write_grid_point(claim)) == claim
    # Φ(2, 2) = (3, 3) exactly at t = 1/2: the residual is only the table's rounding, y ≥ ρ
    assert check_grid_point(claim) is True
    # y = (1, 1) on the integers is read too, and rejected: ‖1 − Φy‖₂ = √2/2, ρ = 9√2/2 > 1
    assert check_grid_point(_claim(mantissas=(1, 1), exponent=0)) is False


# kills "line 522: True -> False" (mantissas read as any rational, then truncated by int()): a
# mantissa "5592405/2" would be read as 2796202 — a document that is not the one checked
@pytest.mark.parametrize("bad", ["5592405/2", "2796202/1", "-0"])
def test_mantissas_are_integers_as_written(bad):
    doc = write_grid_point(_claim())
    doc["evidence"]["mantissas"][0] = bad
    with pytest.raises(InvalidArgument, match=r"evidence.mantissas\[0\]"):
        read_grid_point(doc)
