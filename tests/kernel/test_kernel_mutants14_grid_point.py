"""Session 14 (task 14M): tests for the survivors of ``scripts/mutation.py`` (a random sample of
60, seed 14) on exactdp/kernel/grid_point.py. Each test names the mutant it kills ("line N:
change", the tool's description at the time of the run). Truth comes from the closed form
((1 − t)/(1 + t))², t = e^{-εh}, evaluated here in exact rationals, never from the kernel.
"""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from exactdp.engine.documents import write_grid_point
from exactdp.errors import InstanceTooLarge, InvalidArgument
from exactdp.kernel.grid_point import (
    GridHeader,
    GridPointClaim,
    check_grid_point,
    grid_lambda_bound,
    manhattan_lambda_lower,
    read_grid_point,
    require_point_work,
    verdict_ok,
)
from exactdp.spaces.levels import parse_level
from exactdp.spaces.metrics.masked import GridShape


def _closed_form(t: F) -> F:
    return ((1 - t) / (1 + t)) ** 2


# kills "line 297: Pow -> Mult": at t = e^-ε rational and an integer spacing k ≤ 64 the bound uses
# t^k exactly (the mutant used t·k: 1 at t = 1/2, k = 2, so λ = 0)
@pytest.mark.parametrize("t, k", [(F(1, 2), 2), (F(1, 3), 3), (F(2, 3), 64)])
def test_manhattan_bound_at_integer_spacing_is_exact(t, k):
    assert manhattan_lambda_lower(parse_level(t=str(t)), F(k)) == _closed_form(t**k)


# kills "line 315: Eq -> NotEq": the search's bound of a Manhattan grid is the closed form (no
# lattice function needed); a Euclidean grid without one is refused
def test_grid_lambda_bound_by_norm():
    level = parse_level(t="1/2")
    assert grid_lambda_bound(GridShape(3, 2, "manhattan", F(1)), level, None) == _closed_form(F(1, 2))
    with pytest.raises(InvalidArgument, match="pass lattice_lambda"):
        grid_lambda_bound(GridShape(3, 2, "euclidean", F(1)), level, None)
    assert grid_lambda_bound(GridShape(3, 2, "euclidean", F(1)), level, lambda lo, hi, h: F(1, 7)) == F(1, 7)


# kills "line 393: Lt -> LtE": "fails" needs y_w + ρ < 0 strictly (at y_w = −ρ the true z_w may be
# exactly 0, and x = z ≥ 0 may exist); "holds" accepts y_i = ρ (z_i ≥ y_i − ρ ≥ 0)
def test_verdict_needs_a_strict_margin_to_fail():
    sh, level, rhs = GridShape(2, 1, "manhattan", F(1)), parse_level(t="1/2"), (F(1), F(1))
    fails, holds = GridHeader(sh, level, rhs, False, 0), GridHeader(sh, level, rhs, True, None)
    assert not verdict_ok(fails, [-5, 1], F(5))
    assert verdict_ok(fails, [-6, 1], F(5))
    assert verdict_ok(holds, [5, 6], F(5)) and not verdict_ok(holds, [4, 6], F(5))


# kills "line 420: Sub -> Add": the refusal states λ's binary order, λ = 2^-16385 ≈ 2^-16385
def test_lambda_below_the_limit_is_refused_with_its_size():
    sh = GridShape(2, 1, "manhattan", F(1))
    with pytest.raises(InstanceTooLarge, match=r"λ ≈ 2\^-16385 needs"):
        require_point_work(sh, (F(1),) * 2, F(1, 2**16385), (3, 3), 2, 64)
    require_point_work(sh, (F(1),) * 2, F(1, 2**16384), (3, 3), 2, 64)  # λ = 2^-MAX_BITS: accepted


# kills "line 525: 1 -> 2": table_bits = 1 is in the reader's range [1, MAX_BITS]; 0 is not
def test_table_bits_one_is_read():
    sh = GridShape(2, 1, "manhattan", F(1))
    claim = GridPointClaim(sh, parse_level(t="1/2"), (F(1), F(1)), True, None, (2796202, 2796203), 22, F(1, 9), 64)
    doc = write_grid_point(claim)
    assert read_grid_point(doc) == claim and check_grid_point(claim)  # the module docstring's example
    doc["evidence"]["table_bits"] = 1
    assert read_grid_point(doc).table_bits == 1
    doc["evidence"]["table_bits"] = 0
    with pytest.raises(InvalidArgument, match="evidence.table_bits"):
        read_grid_point(doc)


def _example(**changes) -> GridPointClaim:
    """The module docstring's genuine claim, with fields replaced."""
    fields = dict(shape=GridShape(2, 1, "manhattan", F(1)), level=parse_level(t="1/2"), rhs=(F(1), F(1)),
                  holds=True, witness=None, mantissas=(2796202, 2796203), exponent=22, lam=F(1, 9),
                  table_bits=64)
    return GridPointClaim(**{**fields, **changes})


# kills "line 447: False -> True" (a check that raises one of REJECTED_ERRORS verified the claim);
# λ = 0 is rejected (under "line 434: LtE -> Lt" it is still rejected, by the ZeroDivisionError of
# require_point_work's ‖b‖₁/λ: that mutant is equivalent, see 14M-equivalent.txt)
def test_claims_that_break_the_check_are_rejected():
    assert check_grid_point(_example())
    assert check_grid_point(_example(level=None)) is False  # AttributeError inside: rejected
    assert check_grid_point(_example(level="t=1/2")) is False
    assert check_grid_point(_example(lam=F(0))) is False


# kills "line 380: 1 -> 2" (the residual bound divided by 2^(T+s+1), i.e. halved): on line(2) at
# t = 1/100 the exact solution is z = (1/(1+t), 1/(1+t)) > 0, so "fails at 0" is FALSE; the
# claim y = (−10, 0) has ρ ≈ 11.5 (> 10: rejected) but ρ/2 ≈ 5.8 (< 10: the mutant verified it)
def test_halved_residual_would_verify_a_false_fails_claim():
    t = F(1, 100)
    z = 1 / (1 + t)  # Φ = [[1, t], [t, 1]], Φ·(z, z) = (1, 1): checked here exactly
    assert z + t * z == 1 and z > 0
    lam = ((1 - t) / (1 + t)) ** 2  # closed form at spacing 1 (≤ λ_min = 1 − t)
    s = 8
    false_fails = _example(level=parse_level(t="1/100"), holds=False, witness=0, mantissas=(-10 * 2**s, 0),
                           exponent=s, lam=lam)
    assert check_grid_point(false_fails) is False
