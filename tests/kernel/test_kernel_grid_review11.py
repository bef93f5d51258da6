"""Review 11K3 (kernel grid family) fixes in ``exactdp/kernel/grid_point.py``.

Finding 1: a ``grid-point`` document with one 100,000-digit mantissa (or a tiny λ, or a
product beyond :data:`MAX_POINT_BYTES`) is refused as too large (InstanceTooLarge, exit 2)
before any product; genuine documents (tiny / huge spacing, huge ε, 400×400 sizes) pass.
Finding 2: mantissas must be ints. Finding 3: ``lambda_proved`` takes one ε. Test gap: a
"fails" claim with |Y_w| < ρ·2^s is rejected (the ``< −bound`` → ``< bound`` mutant).
"""

from __future__ import annotations

import json
from dataclasses import replace
from fractions import Fraction as F

import pytest

from exactdp.cli import main
from exactdp.engine.documents import write_grid_point
from exactdp.engine.grid_point import solve_grid_point
from exactdp.errors import InstanceTooLarge
from exactdp.kernel.grid_point import (
    MAX_BITS,
    GridPointClaim,
    check_grid_point,
    check_grid_point_document,
    lambda_proved,
    read_grid_point,
    require_point_work,
)
from exactdp.kernel.verify import verify_document
from exactdp.spaces.levels import parse_level
from exactdp.spaces.metrics import grid
from exactdp.spaces.metrics.masked import GridShape

HALF = parse_level(t="1/2")
SH = GridShape(2, 1, "manhattan", F(1))  # Φ = [[1, 1/2], [1/2, 1]] at t = 1/2
ONE = (F(1), F(1))
HOLDS = GridPointClaim(SH, HALF, ONE, True, None, (2796202, 2796203), 22, F(1, 9), 64)  # z = (2/3, 2/3)
FAILS = GridPointClaim(SH, HALF, (F(1), F(-1)), False, 1, (2 << 22, -(2 << 22)), 22, F(1, 9), 64)
HUGE = "1" + "0" * 99_998 + "1"  # a 100,000-digit mantissa


def _doc(c: GridPointClaim, **evidence: object) -> dict:
    doc = json.loads(json.dumps(write_grid_point(c)))
    doc["evidence"].update(evidence)
    return doc


def test_genuine_claims_verify():
    assert check_grid_point(HOLDS) and check_grid_point(FAILS)
    assert check_grid_point_document(_doc(HOLDS)) and check_grid_point_document(_doc(FAILS))


def test_f1_huge_mantissa_is_refused_as_too_large(tmp_path):
    doc = _doc(HOLDS, mantissas=[HUGE, "2796203"])
    with pytest.raises(InstanceTooLarge, match="mantissa.*genuine y"):
        read_grid_point(doc)
    with pytest.raises(InstanceTooLarge):
        verify_document(doc)
    path = tmp_path / "huge.json"
    path.write_text(json.dumps(doc))
    assert main(["verify", str(path)]) == 2
    with pytest.raises(InstanceTooLarge, match="mantissa"):  # the Python claim, too
        check_grid_point(replace(HOLDS, mantissas=(10**99_999 + 1, 2796203)))


def test_f1_tiny_lambda_does_not_buy_long_mantissas():
    tiny = F(1, 1 << (MAX_BITS + 1))  # λ ≤ λ_min holds, but it would allow ~2^16k-bit Y
    big = (1 << (22 + MAX_BITS)) * 2796202
    with pytest.raises(InstanceTooLarge, match="λ ≥ 2"):
        check_grid_point(replace(HOLDS, lam=tiny, mantissas=(big, big)))
    with pytest.raises(InstanceTooLarge, match="λ ≥ 2"):
        read_grid_point(_doc(HOLDS, lam="1/1" + "0" * 5000))  # 10^-5000 < 2^-16384


def test_f1_product_size_limit_and_genuine_sizes():
    sh = GridShape(400, 400, "euclidean", F(1))
    b, lam = (F(1),) * 2, F(1, 10)  # only ‖b‖₁ and the widest mantissa enter the bound
    for s in (52, 52 + 4 * 40, 700):  # the writer's first y and later refinement rounds
        require_point_work(sh, b, lam, (1 << (s + 1),), s, max(128, s + 64 + 18))
    with pytest.raises(InstanceTooLarge, match="400×400.*limits"):
        require_point_work(sh, b, lam, (1 << 3001,), 3000, 3082)
    with pytest.raises(InstanceTooLarge, match="mantissa"):  # 70 bits over s + bits(‖b‖₁/λ) + 64
        require_point_work(SH, ONE, F(1, 9), (1 << (22 + 5 + 70),), 22, 64)


@pytest.mark.parametrize("spacing, eps", [(F(1, 10**400), "10**400"), (F(10**30), "1"),
                                          (F(1), "10**400")])
def test_f1_genuine_extreme_documents_still_verify(spacing, eps):
    sol = solve_grid_point(grid(3, 3, "manhattan", spacing=spacing), parse_level(eps=eps))
    doc = json.loads(json.dumps(sol.certificate.to_json()))
    assert sol.holds and check_grid_point_document(doc)


def test_f2_mantissas_must_be_ints():
    for label, m in {"str": ("2796202", "2796203"), "Fraction": (F(2796202), 2796203),
                     "float": (2796202.0, 2796203), "bool": (True, 2796203),
                     "list": [2796202, 2796203]}.items():
        assert not check_grid_point(replace(HOLDS, mantissas=m)), label
    assert not check_grid_point(replace(HOLDS, exponent=F(22)))
    assert not check_grid_point(replace(HOLDS, table_bits="64"))


def test_f3_lambda_proved_takes_one_eps():
    for norm, lam in (("manhattan", F(1, 9)), ("euclidean", F(1, 3))):
        sh = GridShape(3, 3, norm, F(1))
        assert lambda_proved(sh, parse_level(eps=1), lam, (F(1), F(2)))
        assert not lambda_proved(sh, parse_level(eps=2), lam, (F(1), F(2))), norm
        assert not lambda_proved(sh, parse_level(eps=1), lam, (F(1, 2), F(2))), norm


def test_fails_needs_y_w_below_minus_rho():
    weak = replace(FAILS, mantissas=(1, -1))  # y_w = −2^-22 < 0 but |Y_w| < ρ·2^s
    assert not check_grid_point(weak)
    assert not check_grid_point_document(_doc(weak))
