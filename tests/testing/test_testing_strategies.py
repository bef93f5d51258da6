"""The generators of exactdp.testing produce what their docstrings promise, and the
independent oracle agrees with closed forms (ground truth written next to each check)."""

from fractions import Fraction as F

import mpmath
from hypothesis import given, settings
from hypothesis import strategies as st

import exactdp.strategies as legacy
from exactdp.spaces.metrics import from_matrix, line
from exactdp.testing import (
    box_unions,
    levels,
    metrics,
    nonprivate_mechanism_rows,
    point_sets,
    priors,
    private_mechanism_rows,
    secret_pairs,
    star_metrics,
)
from exactdp.testing.oracle import (
    exact_level_upper,
    holds_at_t,
    is_private_exact,
    solve_exact,
    threshold_truth,
)
from exactdp.testing.tampering import nudges


def test_testing_legacy_path_reexports():
    assert {"graph_metrics", "priors", "rational_t"} <= set(legacy.__all__)


@settings(max_examples=40, derandomize=True, deadline=None)
@given(metrics(rational_only=False), st.data())
def test_testing_metrics_and_priors(m, data):
    assert 1 <= m.n <= 12
    p = data.draw(priors(m.n))
    assert sum(p) == 1 and all(v >= 0 for v in p)
    lv = data.draw(levels())
    assert lv.t is not None or lv.eps_rational is not None


@settings(max_examples=25, derandomize=True, deadline=None)
@given(star_metrics(max_leaves=4), st.fractions(F(1, 10), F(9, 10), max_denominator=10), st.data())
def test_testing_mechanisms_private_and_not(m, t, data):
    """Ground truth: privacy at t means p(y|x) ≥ t^d(x,x') p(y|x') for all x, x', y."""
    good = data.draw(private_mechanism_rows(m, t))
    bad = data.draw(nonprivate_mechanism_rows(m, t))
    assert all(sum(r) == 1 for r in good + bad)
    assert is_private_exact(good, m, t) and not is_private_exact(bad, m, t)
    with mpmath.workdps(50):
        assert exact_level_upper(good, m) <= -mpmath.log(mpmath.mpf(t.numerator) / t.denominator) + 1e-40


@settings(max_examples=20, derandomize=True, deadline=None)
@given(secret_pairs(), point_sets(dim=2), box_unions(dim=2))
def test_testing_pufferfish_and_sets(pair, X, K):
    assert pair.P.probs and pair.Q.probs
    assert X.dim == 2 and K.dim == 2


def test_testing_oracle_closed_forms():
    """line(2) at t: z = (1, 1)/(1 + t); the 4-point star has ε* = ln 2 (both known)."""
    assert solve_exact([[F(1), F(1, 3)], [F(1, 3), F(1)]], [F(1), F(1)]) == (F(3, 4), F(3, 4))
    assert holds_at_t(line(2), None, F(1, 3)) is True
    star = from_matrix([[0, 1, 1, 1], [1, 0, 2, 2], [1, 2, 0, 2], [1, 2, 2, 0]])
    truth = threshold_truth(star, None)
    with mpmath.workdps(50):
        assert abs(truth.eps_star - mpmath.log(2)) < mpmath.mpf(10) ** -40
    assert truth.claim_true(F(69, 100), F(70, 100)) is True
    assert truth.claim_true(F(70, 100), F(71, 100)) is False   # does not fail at 0.70 > ln 2
    assert truth.claim_true(F(60, 100), F(65, 100)) is False   # does not hold for all ε ≥ 0.65
    assert F(1, 2) not in nudges(F(1, 2)) and F(0) in nudges(F(1, 2))
