"""Property tests: certificates verify, backends agree, Prop. 1 and Prop. 3 hold."""

from fractions import Fraction

from hypothesis import example, given, settings
from hypothesis import strategies as st

from exactdp import is_regular, tight_constraints
from exactdp import metrics as M
from exactdp.algebra.phi import entry_values_exact
from exactdp.errors import PrecisionLimitReached
from exactdp.spaces.levels import parse_level
from exactdp.testing.strategies import graph_metrics, priors, rational_t

SETTINGS = settings(max_examples=40, deadline=None)


@SETTINGS
@given(graph_metrics(), rational_t(), st.data())
def test_certificates_verify_and_backends_agree(metric, t, data):
    prior = data.draw(priors(metric.n, allow_zeros=False))
    exact = is_regular(metric, prior, t=t, method="exact")
    assert exact.certificate.verify()
    ball = _ball_or_exact_zero(lambda: is_regular(metric, prior, t=t, method="ball"), exact)
    if ball is not None:
        assert ball.certificate.verify() and exact.regular == ball.regular
    tc = tight_constraints(metric, t=t, method="exact")
    assert tc.certificate.verify()
    tb = _ball_or_exact_zero(lambda: tight_constraints(metric, t=t, method="ball"), tc)
    if tb is not None:
        assert tc.exists == tb.exists and tb.certificate.verify()


def _ball_or_exact_zero(run, exact):
    """The ball result, or None when balls cannot decide because an entry is exactly 0."""
    try:
        return run()
    except PrecisionLimitReached:
        x = exact.engine.x_exact
        assert x is not None and 0 in x and all(v >= 0 for v in x), "ball undecided without a 0"
        return None


def test_exact_zero_is_left_to_the_exact_route():
    """α = (0, 20/21) exactly: balls never decide an exact 0, the exact route does."""
    m, t = M.from_graph([(0, 1)]), Fraction(1, 20)
    prior = (Fraction(1, 21), Fraction(20, 21))
    exact = is_regular(m, prior, t=t, method="exact")
    assert exact.regular and exact.alpha == (0, Fraction(20, 21)) and exact.certificate.verify()
    assert _ball_or_exact_zero(lambda: is_regular(m, prior, t=t, method="ball"), exact) is None
    assert is_regular(m, prior, t=t).regular  # auto: exact first at this size


@SETTINGS
@given(graph_metrics(), rational_t(), st.data())
def test_regular_implies_prop1_ratio_bound(metric, t, data):
    """Prop. 1: π regular ⇒ π_y ≤ e^{d(y,y')} π_y' = t^{-d} π_y'."""
    prior = data.draw(priors(metric.n))
    r = is_regular(metric, prior, t=t)
    if r.regular:
        vals = entry_values_exact(metric, r.level)
        for y in range(metric.n):
            for y2 in range(metric.n):
                phi = vals[metric.index[y, y2]]
                assert prior[y] * phi <= prior[y2]


@SETTINGS
@given(graph_metrics(), rational_t(), st.data())
@example(M.line(3), Fraction(1, 2), None)
def test_corner_priors_are_regular(metric, t, data):
    """Prop. 3: the corner prior c_y = row y of Φ / its sum is regular (α = e_y / sum)."""
    level = parse_level(t=t)
    vals = entry_values_exact(metric, level)
    ys = range(metric.n) if data is None else [data.draw(st.integers(0, metric.n - 1))]
    for y in ys:
        row = [vals[k] for k in metric.index[y]]
        total = sum(row)
        corner = [v / total for v in row]
        r = is_regular(metric, corner, t=t)
        assert r.regular and r.certificate.verify()
        assert r.alpha[y] == 1 / total
