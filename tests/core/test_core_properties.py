"""Property tests: certificates verify, backends agree, Prop. 1 and Prop. 3 hold."""

from fractions import Fraction

from hypothesis import example, given, settings
from hypothesis import strategies as st

from exactdp import is_regular, tight_constraints
from exactdp import metrics as M
from exactdp.algebra.phi import entry_values_exact
from exactdp.spaces.levels import parse_level
from exactdp.testing.strategies import graph_metrics, priors, rational_t

SETTINGS = settings(max_examples=40, deadline=None)


@SETTINGS
@given(graph_metrics(), rational_t(), st.data())
def test_certificates_verify_and_backends_agree(metric, t, data):
    prior = data.draw(priors(metric.n, allow_zeros=False))
    exact = is_regular(metric, prior, t=t, method="exact")
    ball = is_regular(metric, prior, t=t, method="ball")
    assert exact.certificate.verify() and ball.certificate.verify()
    assert exact.regular == ball.regular
    tc = tight_constraints(metric, t=t, method="exact")
    tb = tight_constraints(metric, t=t, method="ball")
    assert tc.exists == tb.exists and tc.certificate.verify() and tb.certificate.verify()


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
