"""The paper's case-study sizes, decided with certificates (the slowest core tests, ≈ 1 min).

Ground truth is independent of the fast path: the exact fmpq solve at rational t, and each
certificate's verify() (an arb re-check that shares no code with the float bounds).
"""

from fractions import Fraction

import flint
import pytest

from exactdp import is_regular, tight_constraints
from exactdp import metrics as M
from exactdp.algebra.phi import phi_exact
from exactdp.spaces.levels import parse_level

pytestmark = pytest.mark.slow

SUM = M.sum_query(150, 5)
COUNT = M.count_queries(30)


def test_sum_query_rational_t_matches_exact_solve():
    r = tight_constraints(SUM, t="2/5")
    assert r.method == "verified-float"
    z = phi_exact(SUM, parse_level(t="2/5")).solve(flint.fmpq_mat([[1]] * SUM.n))
    exact_exists = all(e >= 0 for e in z.entries())
    assert r.exists == exact_exists
    # the certified enclosure contains every exact entry
    for enc, e in zip(r.z_enclosure, z.entries(), strict=True):
        assert enc.contains(Fraction(int(e.p), int(e.q)))


@pytest.mark.parametrize("metric, eps", [(SUM, "4/5"), (SUM, 1), (COUNT, "9/10"), (COUNT, "6/5")],
                         ids=["sum@4/5", "sum@1", "count@9/10", "count@6/5"])
def test_rational_eps_verdicts_are_certified(metric, eps):
    r = tight_constraints(metric, eps=eps)
    assert r.certificate.verify()
    assert r.level.t is None  # t transcendental: no float shortcut was taken as proof


@pytest.mark.parametrize("metric, eps", [(SUM, "4/5"), (COUNT, "9/10")], ids=["sum", "count"])
def test_paper_minimum_eps_has_no_mechanism(metric, eps):
    """The paper reports 0.8 (sum query) and 0.9 (2-count) as the least ε with a
    tight-constraints mechanism. Two certified routes that share no code — verified float
    (Krawczyk with float rounding bounds) and flint's ball Gaussian elimination — both find
    a certified-negative entry of z there."""
    fast = tight_constraints(metric, eps=eps)
    ball = tight_constraints(metric, eps=eps, method="ball")
    assert fast.method == "verified-float" and ball.method == "ball"
    assert fast.exists is False and ball.exists is False


def test_count_queries_rational_t():
    r = tight_constraints(COUNT, t="1/3")
    assert r.certificate.verify()
    z = phi_exact(COUNT, parse_level(t="1/3")).solve(flint.fmpq_mat([[1]] * COUNT.n))
    assert r.exists == all(e >= 0 for e in z.entries())


@pytest.mark.parametrize("t", ["3/5", "1/2", "2/5", "1/3"])
def test_example3_product_prior(t):
    """Example 3: regular iff every factor α_k = (p − t/(1+3t))/(1−t) is ≥ 0, i.e. iff
    t/(1+3t) ≤ min p = 1/5, i.e. t ≤ 1/2 (ε ≥ ln 2) — derived by hand from
    Φ_k⁻¹ = (I − t/(1+3t)·J)/(1−t)."""
    m = M.hamming(4, 5)
    p = [Fraction(3, 10), Fraction(27, 100), Fraction(23, 100), Fraction(1, 5)]
    prior = [Fraction(1)] * m.n
    for i, db in enumerate(m.points):
        for v in db:
            prior[i] *= p[v]
    r = is_regular(m, prior, t=t)
    tq = Fraction(t)
    assert r.regular == (tq / (1 + 3 * tq) <= Fraction(1, 5))
    assert r.certificate.verify()
