"""Review 15B10 regressions: the exact one-ε grid route (kind ``grid-point-exact``) refuses
grids whose distances are not (|dx| + |dy|)·h, bounds its work before computing, says
why it was skipped, and keeps huge integers out of its messages."""

from __future__ import annotations

import random
from fractions import Fraction as F

import pytest
from flint import fmpq, fmpq_mat

from exactdp.engine import grid_exact as GE
from exactdp.engine import grid_point as GP
from exactdp.errors import InstanceTooLarge, InvalidMetric, InvalidPrivacyLevel, PrecisionLimitReached
from exactdp.kernel.grid_point_exact import lattice_distances, require_exact_work
from exactdp.spaces.levels import parse_level
from exactdp.spaces.metrics import grid
from exactdp.spaces.metrics.masked import GridShape, grid_shape, masked_grid
from exactdp.testing.budget import call_budget
from exactdp.threshold.rational_point import exact_grid_z
from exactdp.tight import tight_constraints


def dense_z(m, t: F) -> list[F]:
    """Φ⁻¹1 from the metric's own distances (any norm; rational distances only)."""
    h = min(v.coef for v in m.values if v.coef > 0)
    tq = fmpq(t.numerator, t.denominator)
    ks = [[m.distance(i, j).coef / h for j in range(m.n)] for i in range(m.n)]
    assert all(v.radicand == 1 for v in m.values)
    A = fmpq_mat(m.n, m.n, [tq ** int(k) for row in ks for k in row])
    z = A.solve(fmpq_mat(m.n, 1, [1] * m.n))
    return [F(int(e.p), int(e.q)) for e in z.entries()]


def test_chebyshev_grids_are_refused_not_solved_wrongly():
    cheb = grid(3, 3, "chebyshev")
    assert dense_z(cheb, F(1, 2))[4] == F(-5, 11)          # the truth: centre negative
    with pytest.raises(InvalidMetric, match="Manhattan grids, or one row or column"):
        exact_grid_z(cheb, F(1, 2))                          # was (…, 1/9, …): wrong sign
    masked = masked_grid(4, 4, "chebyshev", mask=["1100", "1100", "1111", "1111"])
    with pytest.raises(InvalidMetric):
        exact_grid_z(masked, F(1, 2))
    with pytest.raises(InvalidMetric):                       # the engine itself: one rule
        GE.grid_exact_z(GridShape(3, 3, "chebyshev", F(1)), F(1, 2), [F(1)] * 9)
    assert not lattice_distances(grid_shape(cheb))
    # one row or column, any norm: k = |dx| + |dy| holds, answers match the dense solve
    for m in (grid(4, 1, "chebyshev"), grid(1, 5, "euclidean"), grid(3, 3, "manhattan")):
        assert list(exact_grid_z(m, F(1, 3))) == dense_z(m, F(1, 3))


def test_work_limit_before_any_product(monkeypatch):
    def boom(*args, **kwargs):
        raise AssertionError("an exact product was set up")

    monkeypatch.setattr(GE, "GridProducts", boom)
    with call_budget(1_000_000), pytest.raises(InstanceTooLarge, match="bytes per integer") as info:
        exact_grid_z(grid(60, 60, "manhattan"), F(1, 10**400))   # hung before
    assert len(str(info.value)) < 400 and "1329-bit integer" in str(info.value)  # t clipped
    with pytest.raises(InstanceTooLarge):
        GE.grid_exact_z(grid_shape(grid(60, 60, "manhattan")), F(1, 10**400), [F(1)] * 3600)


def test_huge_spacing_message_is_clipped():
    sh = GridShape(3, 3, "manhattan", F(10**400))
    with pytest.raises(InstanceTooLarge) as info:
        require_exact_work(sh, (F(1, 2), 10**400), 64)
    assert len(str(info.value)) < 400
    with pytest.raises(InstanceTooLarge) as info:                # beyond int→str's 4300 digits
        require_exact_work(sh, (F(1, 2), 10**5000), 64)
    assert len(str(info.value)) < 400


def test_rational_e_minus_eps_h_with_irrational_t_message(monkeypatch):
    """h = 2, ε = ln(2)/2: T = e^{−εh} = 1/2 is rational, t = e^{−ε} is not; the message
    no longer calls T irrational, and its advice (spacing 1 at t = T) decides it exactly."""
    monkeypatch.setattr(GP, "GRID_POINT_ABOVE_N", 1)
    mask = ["".join("1" if (x < 3 or y >= 3) else "0" for x in range(6)) for y in range(6)]
    with pytest.raises(PrecisionLimitReached) as info:
        GP.solve_grid_point(masked_grid(6, 6, "manhattan", F(2), mask=mask),
                            parse_level(eps="log(2)/2"), max_bits=140)
    text = str(info.value)
    assert "irrational" not in text and "state the question on spacing 1 at t = e^(-ε·h)" in text
    r = tight_constraints(masked_grid(6, 6, "manhattan", F(1), mask=mask), t="1/2")
    assert r.method == "grid-exact" and r.exists and min(r.z_exact) == 0 and r.verify()


def test_parse_level_huge_power_is_an_invalid_level_not_overflow():
    with pytest.raises(InvalidPrivacyLevel, match="bits"):
        parse_level(eps="log(2)*(1+10**-400)")


@pytest.mark.parametrize("t", [F(1, 3), F(2, 3)])
def test_direction_guess_is_what_finds_z(monkeypatch, t):
    """b = Φα with 30-bit α: z/max|b| has denominators over 2^40 (the first guess cannot
    pass), z/z_j = α/α_j does not; 2 products = refinement (rounded table), direction check
    (the failed first guess is dropped by its exact row test) — and z is exact."""
    m = masked_grid(7, 6, "manhattan", mask=["1111100", "1111100", "1111111", "1111111",
                                             "0111111", "0011111"])
    pts, rng = m.points, random.Random(5)
    alpha = [F(0) if i % 7 == 3 else F(rng.randrange(1, 2**30)) for i in range(m.n)]
    b = [sum(t ** int(abs(p[0] - c[0]) + abs(p[1] - c[1])) * x for c, x in zip(pts, alpha))
         for p in pts]
    assert max((a / max(b)).denominator for a in alpha).bit_length() > GE.MAX_DEN_BITS
    products = []

    class Counting(GE.GridProducts):
        def sums(self, *args, **kwargs):
            products.append(1)
            return super().sums(*args, **kwargs)

    monkeypatch.setattr(GE, "GridProducts", Counting)
    assert list(GE.grid_exact_z(grid_shape(m), t, b)) == alpha
    assert len(products) == 2   # refinement, direction check: the failed first guess fails its row test (15F)
    products.clear()
    assert GE.grid_exact_z(grid_shape(m), t, [F(1)] * m.n) is not None
    assert len(products) == 2                               # b = 1: the first guess passes


def test_exact_grid_point_is_none_when_a_later_product_is_over_the_limit(monkeypatch):
    def too_large(*args, **kwargs):
        raise InstanceTooLarge("a guess with huge numerators")

    monkeypatch.setattr(GE, "grid_exact_z", too_large)
    assert GE.exact_grid_point(grid(3, 3, "manhattan"), parse_level(t="1/2")) is None
