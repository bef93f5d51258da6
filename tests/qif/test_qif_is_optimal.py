"""is_optimal by its closed form: agreement with the exact LP, irrational t, sizes past 400 unknowns."""

from __future__ import annotations

import random
from dataclasses import replace
from fractions import Fraction as F

import flint
import pytest

from exactdp.errors import ExactnessRequired
from exactdp.mechanisms import from_balls, from_rows, truncated_geometric
from exactdp.mechanisms.optimality import (
    FarkasRemapCertificate,
    RemapCertificate,
    exact_feasibility,
    is_optimal,
)
from exactdp.spaces.levels import parse_level
from exactdp.spaces.metrics import cycle, discrete, line, sum_query
from exactdp.tight import tight_constraints


def _lp_system(H: list[list[F]], D: list[list[int]], t: F) -> tuple[list[list[F]], list[F]]:
    """(*) built independently: Φ·diag(HR) = 1, R·1 = 1 (x[z·n + y] = R[z][y])."""
    n, m = len(H), len(H[0])
    A, b = [], []
    for y in range(n):
        row = [F(0)] * (m * n)
        for y2 in range(n):
            for z in range(m):
                row[z * n + y2] += t ** D[y][y2] * H[y2][z]
        A.append(row)
        b.append(F(1))
    for z in range(m):
        A.append([F(int(k // n == z)) for k in range(m * n)])
        b.append(F(1))
    return A, b


def test_closed_form_agrees_with_the_exact_lp_on_random_private_mechanisms() -> None:
    rng = random.Random(2026)
    seen = {True: 0, False: 0}
    for _ in range(40):
        n = rng.randint(2, 4)
        t = F(rng.randint(1, 4), 5)
        metric = rng.choice([line(n), cycle(n), discrete(n)])
        assert metric.q == 1  # exponents are the distances
        D = [[int(v) for v in row] for row in metric.exponent_matrix().tolist()]
        K = [[t ** D[y][z] for z in range(n)] for y in range(n)]
        K = [[v / sum(r) for v in r] for r in K]
        m = rng.randint(1, n + 1)
        P = [[F(int(z == y % m)) for z in range(m)] for y in range(n)]
        if rng.random() < 0.5:
            P = [[F(rng.randint(0, 2)) for _ in range(m)] for _ in range(n)]
            P = [[v / sum(r) for v in r] if sum(r) else [F(1, m)] * m for r in P]
        lam = F(rng.choice([0, 0, 1]), 5)
        H = [[(1 - lam) * sum(K[y][k] * P[k][z] for k in range(n)) + lam / m for z in range(m)]
             for y in range(n)]
        res = is_optimal(from_rows(H), metric, t=t)
        if not res.private.private:
            continue
        lp_feasible, _ = exact_feasibility(*_lp_system(H, D, t))
        assert res.optimal == lp_feasible
        assert res.verify()
        seen[res.optimal] += 1
    assert seen[True] >= 3 and seen[False] >= 3


@pytest.mark.parametrize("n", [30, 120])
def test_geometric_is_optimal_at_irrational_t(n: int) -> None:
    # t = e^{-1}: the identities are checked in Q(x); n = 120 is 14,400 remap unknowns
    r = is_optimal(truncated_geometric(n, eps=1), line(n), eps=1)
    assert r.optimal and r.tight_constraints_exist
    c = r.certificate
    assert isinstance(c, RemapCertificate) and r.verify()
    swapped = replace(c, remap=tuple(reversed(c.remap)))
    assert not swapped.verify()
    assert not replace(c, level=parse_level(eps=2)).verify()
    assert not replace(c, level=parse_level(t="1/3")).verify()


def test_tight_constraints_mechanism_by_structure_at_irrational_t() -> None:
    metric = sum_query(25, 2)  # n = 51 points, 2,601 unknowns
    tc = tight_constraints(metric, eps=1)
    r = is_optimal(tc.mechanism, metric, eps=1)
    assert r.optimal and isinstance(r.certificate, RemapCertificate) and r.verify()
    R = [list(row) for row in r.certificate.remap]
    R[0][0], R[0][1] = F(1, 2), F(1, 2)
    assert not replace(r.certificate, remap=tuple(map(tuple, R))).verify()
    # the same mechanism read at another level is not certified by the structure
    assert not replace(r.certificate, level=parse_level(eps=F(3, 2))).verify()


def test_not_optimal_at_irrational_t_has_a_rational_farkas_vector() -> None:
    # geometric at ε = 1 is private at ε = 3/2 but not tight there
    H = truncated_geometric(6, eps=1)
    r = is_optimal(H, line(6), eps=F(3, 2))
    assert r.private.private and not r.optimal
    c = r.certificate
    assert isinstance(c, FarkasRemapCertificate) and c.precision is not None and r.verify()
    assert all(isinstance(v, F) for v in c.w) and sum(c.w) < 0
    # lowering one μ̄ below the true maximum breaks Aᵀw ≥ 0
    w = list(c.w)
    w[6] = w[6] / 2
    assert not replace(c, w=tuple(w)).verify()
    assert not replace(c, w=tuple(-v for v in c.w)).verify()
    assert not replace(c, precision=None).verify()  # no exact data at irrational t
    # an exact mechanism read at a transcendental level
    r2 = is_optimal(truncated_geometric(4, t="1/2"), line(4), eps=1)
    assert not r2.optimal and r2.verify()


def test_exact_sizes_past_the_old_400_unknown_limit() -> None:
    n = 60
    r = is_optimal(truncated_geometric(n, t="1/2"), line(n), t="1/2")
    assert r.optimal and r.verify()
    # merging two outputs keeps it private but (for n ≥ 3) not optimal
    rows = [list(row) for row in truncated_geometric(n, t="1/2").rows_fraction()]
    merged = [[row[0] + row[1]] + row[2:] for row in rows]
    r2 = is_optimal(from_rows(merged), line(n), t="1/2")
    assert not r2.optimal and isinstance(r2.certificate, FarkasRemapCertificate)
    assert r2.certificate.precision is None and r2.verify()


def test_certified_balls_without_closed_form_refute_but_never_prove() -> None:
    flat = from_balls(truncated_geometric(3, t="1/2").to_balls())  # private at ε = 1, not tight
    r = is_optimal(flat, line(3), eps=1)
    assert not r.optimal and r.verify()
    with pytest.raises(ExactnessRequired):
        is_optimal(from_balls([[flint.arb(1)]]), line(1), eps=1)
