"""The paper's bounds (Thm. 2, Prop. 5, Cor. 2, Thm. 3, Def. 5, Prop. 3) against mechanisms."""

from __future__ import annotations

import math
from fractions import Fraction as F

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp.algebra.symmetric import ball_symmetric_mechanism
from exactdp.errors import NotRegular
from exactdp.mechanisms import (
    exponential_mechanism,
    from_rows,
    is_private,
    min_entropy_leakage,
    privacy_level,
    randomized_response,
    tight_constraints_mechanism,
    truncated_geometric,
    utility,
)
from exactdp.mechanisms.bounds import (
    _min_sum_alpha,
    corner_priors,
    database_leakage_bound,
    gamma_coefficients,
    leakage_bound,
    uniform_leakage_bound,
    utility_bound,
)
from exactdp.spaces.levels import parse_level
from exactdp.spaces.metrics import cycle, discrete, hamming, line, sum_query
from exactdp.tight import tight_constraints

rational_t = st.sampled_from([F(1, 10), F(1, 5), F(1, 3), F(1, 2), F(2, 5), F(3, 5)])
METRICS = [line(4), cycle(5), sum_query(2, 2), hamming(2, 2), discrete(3)]


@st.composite
def prior(draw: st.DrawFn, n: int) -> list[F]:
    w = [draw(st.integers(1, 12)) for _ in range(n)]
    return [F(x, sum(w)) for x in w]


@settings(max_examples=40, deadline=None)
@given(data=st.data(), k=st.integers(0, len(METRICS) - 1), t=rational_t)
def test_tight_constraints_attains_sum_alpha_on_regular_priors(
    data: st.DataObject, k: int, t: F
) -> None:
    metric = METRICS[k]
    pi = data.draw(prior(metric.n))
    tc = tight_constraints(metric, t=t)
    try:
        bound = utility_bound(metric, pi, t=t)
    except NotRegular as exc:
        assert exc.certificate.verify()
        return
    assert bound.verify()
    if tc.exists:
        H = tight_constraints_mechanism(metric, t=t)
        assert utility(H, pi).value == bound.value  # Thm. 2 with equality (Thm. 4)
        L = min_entropy_leakage(H, pi)
        assert L.ratio == leakage_bound(metric, pi, t=t).ratio  # Prop. 5 with equality


@settings(max_examples=30, deadline=None)
@given(data=st.data(), t=rational_t)
def test_private_mechanisms_never_exceed_the_bound(data: st.DataObject, t: F) -> None:
    metric = line(5)
    pi = data.draw(prior(5))
    try:
        bound = utility_bound(metric, pi, t=t)
    except NotRegular:
        return
    # t = s² so that the exponential mechanism is exact: use its own level
    s2 = t * t
    mechs = [
        truncated_geometric(5, t=t),
        truncated_geometric(5, t=F(1) - (1 - t) / 2),  # more private (larger t)
        exponential_mechanism(metric, t=s2),  # private at 2ε only: skipped unless private
        from_rows([[F(1, 5)] * 5 for _ in range(5)]),  # constant: 0-private
    ]
    # a randomly post-processed tight-constraints mechanism is still private
    R = []
    for _ in range(5):
        w = [data.draw(st.integers(0, 4)) for _ in range(3)]
        if sum(w) == 0:
            w[0] = 1
        R.append([F(x, sum(w)) for x in w])
    mechs.append(truncated_geometric(5, t=t).compose(from_rows(R)))
    for H in mechs:
        if not is_private(H, metric, t=t).private:
            continue
        assert utility(H, pi).value <= bound.value


def test_not_regular_carries_the_certificate() -> None:
    with pytest.raises(NotRegular) as info:
        utility_bound(line(3), [1, 0, 0], t="1/2")
    assert info.value.certificate.verify()
    assert "not" in str(info.value) and "certificate" in str(info.value)


@pytest.mark.parametrize("k,u", [(2, 1), (2, 2), (3, 2), (2, 3), (4, 2)])
@pytest.mark.parametrize("t", [F(1, 3), F(1, 2), F(4, 5)])
def test_thm3_closed_form_matches_cor2_general(k: int, u: int, t: F) -> None:
    closed = database_leakage_bound(k, u, t=t)
    general = uniform_leakage_bound(hamming(k, u), t=t)
    # both are log2 of exact rationals: (k/(1 + (k−1)t))^u vs n·Σα
    assert general.ratio == (k / (1 + (k - 1) * t)) ** u
    assert sympy.simplify(closed.value - general.value) == 0
    assert closed.verify() and general.verify()


def test_thm3_at_irrational_eps() -> None:
    b = database_leakage_bound(4, 5, eps="1/2")
    E = math.exp(0.5)
    assert abs(float(b) - 5 * math.log2(4 * E / (3 + E))) < 1e-12
    assert b.enclosure.lo < b.enclosure.hi and b.verify()
    g = uniform_leakage_bound(hamming(2, 2), eps="1/2")
    exp = 2 * math.log2(2 * E / (1 + E))
    assert float(g.enclosure.lo) - 1e-12 <= exp <= float(g.enclosure.hi) + 1e-12


def test_leakage_of_private_mechanisms_below_cor2() -> None:
    # RR on the discrete metric is the tight-constraints mechanism: Cor. 2 is attained
    t = F(1, 4)
    b = uniform_leakage_bound(discrete(4), t=t)
    L = min_entropy_leakage(randomized_response(4, t=t), [F(1, 2), F(1, 4), F(1, 8), F(1, 8)])
    assert L.ratio <= b.ratio
    assert min_entropy_leakage(randomized_response(4, t=t)).ratio == b.ratio


@settings(max_examples=10, deadline=None)
@given(t=rational_t, k=st.integers(0, len(METRICS) - 1))
def test_corner_priors_are_regular_with_unit_gamma(t: F, k: int) -> None:
    metric = METRICS[k]
    corners = corner_priors(metric, t=t)
    for y, c in enumerate(corners[:3]):
        assert sum(c, F(0)) == 1
        g = gamma_coefficients(metric, c, t=t)
        assert g.gamma == tuple(F(int(i == y)) for i in range(metric.n))
        assert g.verify()


def test_prop9_closed_form_against_tight_constraints() -> None:
    # ball-size symmetric spaces: h[y,y'] = t^{d(y,y')} / Σ_r n_r t^r
    for metric in (discrete(4), cycle(5), cycle(6), hamming(2, 3), hamming(3, 2)):
        assert metric.ball_size_symmetric
        for t in (F(1, 3), F(2, 3)):
            counts = metric.neighbours_counts()
            denom = sum((c * t ** int(d.coef) for d, c in counts.items()), F(0))
            H = tight_constraints_mechanism(metric, t=t).rows_fraction()
            for i in range(metric.n):
                for j in range(metric.n):
                    assert H[i][j] == t ** int(metric.distance(i, j).coef) / denom


def test_lp_minimum_matches_unique_alpha_when_nonsingular() -> None:
    # the singular-Φ LP path, run on a nonsingular Φ, must return the unique α
    m = line(4)
    pi = (F(1, 4),) * 4
    alpha = _min_sum_alpha(m, parse_level(t="1/2"), pi)
    assert alpha == tuple(utility_bound(m, pi, t="1/2").alpha)


def test_certified_bounds_at_rational_eps() -> None:
    b = utility_bound(line(4), ["1/4"] * 4, eps="4/5")
    assert b.value is None and b.enclosure.lo < b.enclosure.hi
    H = tight_constraints_mechanism(line(4), eps="4/5")
    U = utility(H, ["1/4"] * 4)
    # the certified utility and the certified bound overlap (equality in exact terms)
    assert U.enclosure.lo <= b.enclosure.hi and b.enclosure.lo <= U.enclosure.hi
    assert b.verify()


@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_random_mechanisms_at_their_own_level_never_exceed_the_bound(data: st.DataObject) -> None:
    # a random positive mechanism on line(4) is private exactly at ε_H = ln R (unit edges),
    # so at t = 1/R it is t-private; Thm. 2 must then hold for every regular prior
    n, m = 4, data.draw(st.integers(1, 4))
    rows = []
    for _ in range(n):
        w = [data.draw(st.integers(1, 6)) for _ in range(m)]
        rows.append([F(x, sum(w)) for x in w])
    H = from_rows(rows)
    lv = privacy_level(H, line(n))
    if lv.ratio is None or lv.ratio == 1:
        return
    t = 1 / lv.ratio
    assert is_private(H, line(n), t=t).private
    w = [data.draw(st.integers(8, 12)) for _ in range(n)]  # near-uniform: mostly regular
    pi = [F(x, sum(w)) for x in w]
    try:
        bound = utility_bound(line(n), pi, t=t)
    except NotRegular:
        return
    assert utility(H, pi).value <= bound.value


def test_prop9_module_matches_general_tight_constraints_and_level() -> None:
    for metric in (discrete(5), cycle(7), hamming(2, 3), hamming(3, 2)):
        for t in (F(1, 4), F(3, 5)):
            closed = ball_symmetric_mechanism(metric, parse_level(t=t))
            H = tight_constraints_mechanism(metric, t=t)
            assert [list(r) for r in closed.h] == H.rows_fraction()
            level = privacy_level(from_rows(closed.h), metric)
            assert sympy.simplify(level.value + sympy.log(sympy.Rational(t.numerator,
                                                                       t.denominator))) == 0
