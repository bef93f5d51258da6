"""(ε, δ): Gaussian δ(σ), least σ, and Laplace δ(θ), against quadrature and closed forms."""

from __future__ import annotations

from fractions import Fraction as F

import mpmath
import pytest

from exactdp.arithmetic.interval import Enclosure
from exactdp.errors import InvalidPrivacyLevel, InvalidScale
from exactdp.pufferfish import DiscreteDistribution, DistributionPair, ValuePair
from exactdp.pufferfish.approximate import laplace_delta
from exactdp.pufferfish.gaussian import gaussian_delta, gaussian_scale


@pytest.fixture(autouse=True)
def _digits():
    """Every brute force here at 50 digits (the issue's bar)."""
    with mpmath.workdps(50):
        yield


def _mp(x):
    """An exact rational as an mpmath number at the working precision."""
    return mpmath.mpf(F(x).numerator) / F(x).denominator


def _analytic(gap, sigma, eps):
    """The classical point-mass formula Φ(Δ/2σ − εσ/Δ) − e^ε Φ(−Δ/2σ − εσ/Δ)."""
    gap, sigma, eps = (mpmath.mpf(x.numerator) / x.denominator for x in map(F, (gap, sigma, eps)))
    return (mpmath.ncdf(gap / (2 * sigma) - eps * sigma / gap)
            - mpmath.e**eps * mpmath.ncdf(-gap / (2 * sigma) - eps * sigma / gap))


def _quad(P, Q, sigma, eps):
    """max of the two hockey-stick integrals by quadrature split at the roots (independent)."""
    s = mpmath.mpf(F(sigma).numerator) / F(sigma).denominator
    e = mpmath.mpf(F(eps).numerator) / F(eps).denominator

    def one(A, B):
        def h(y):
            ga = mpmath.fsum(_mp(w) * mpmath.npdf(y, _mp(d), s) for d, w in zip(A.support, A.probs))
            gb = mpmath.fsum(_mp(w) * mpmath.npdf(y, _mp(d), s) for d, w in zip(B.support, B.probs))
            return ga - mpmath.e**e * gb

        lo, hi = float(min(A.support[0], B.support[0])) - 20 * s, float(max(A.support[-1], B.support[-1])) + 20 * s
        grid = [lo + (hi - lo) * k / 80 for k in range(81)]
        roots = [mpmath.findroot(h, (a, b), solver="bisect") for a, b in zip(grid, grid[1:]) if h(a) * h(b) < 0]
        cuts = sorted({lo, hi, *roots} | {float(d) + k * s for d in A.support + B.support for k in (-2, 0, 2)})
        return mpmath.fsum(mpmath.quad(h, [a, b]) for a, b in zip(cuts, cuts[1:]) if h((a + b) / 2) > 0)

    return max(one(P, Q), one(Q, P))


@pytest.mark.parametrize("gap,sigma,eps", [(1, 1, 1), (2, F(7, 10), F(1, 2)), (1, 3, F(1, 10))])
def test_point_masses_match_the_analytic_formula(gap, sigma, eps):
    r = gaussian_delta(ValuePair(gap, 0), sigma, eps)
    exact = _analytic(gap, sigma, eps)
    assert r.delta.lo - F(1, 10**25) <= F(str(exact)) <= r.delta.hi + F(1, 10**25)
    assert r.verify()


def test_mixture_matches_quadrature():
    P = DiscreteDistribution.from_dict({0: "1/2", 2: "1/2"})
    Q = DiscreteDistribution.from_dict({1: "1/2", 2: "1/2"})  # the pair
    r = gaussian_delta(DistributionPair(P, Q), F(3, 4), F(1, 2))
    q = _quad(P, Q, F(3, 4), F(1, 2))
    slack = F(1, 10**18)  # quadrature (floats as inputs are exact dyadics here)
    assert r.delta.lo - slack <= F(str(q)) <= r.delta.hi + slack


def test_least_sigma_brackets_the_analytic_root():
    r = gaussian_scale(ValuePair(1, 0), 1, "1/100", rel_tol=F(1, 10**4))
    assert _analytic(1, r.lo, 1) > mpmath.mpf("0.01") > _analytic(1, r.hi, 1)
    assert r.verify()


def test_bad_parameters():
    with pytest.raises(InvalidScale, match="sigma"):
        gaussian_delta(ValuePair(1, 0), 0, 1)
    with pytest.raises(InvalidScale, match="sigma"):
        gaussian_delta(ValuePair(1, 0), -1, 1)
    with pytest.raises(InvalidPrivacyLevel, match="delta"):
        gaussian_scale(ValuePair(1, 0), 1, 0)
    with pytest.raises(InvalidPrivacyLevel, match="delta"):
        gaussian_scale(ValuePair(1, 0), 1, 1)


def _laplace_quad(P, Q, theta, eps):
    """max of the two hockey-stick integrals for Laplace noise by quadrature (independent)."""
    b = mpmath.mpf(F(theta).numerator) / F(theta).denominator
    e = mpmath.mpf(F(eps).numerator) / F(eps).denominator

    def one(A, B):
        def g(dist, y):
            return mpmath.fsum(mpmath.mpf(w.numerator) / w.denominator
                               * mpmath.exp(-abs(y - int(d)) / b) / (2 * b)
                               for d, w in zip(dist.support, dist.probs))

        def h(y):
            return g(A, y) - mpmath.e**e * g(B, y)

        pts = sorted({int(d) for d in A.support + B.support})
        lo, hi = pts[0] - 60 * b, pts[-1] + 60 * b
        grid = sorted({lo, hi, *pts} | {lo + (hi - lo) * k / 120 for k in range(121)})
        roots = [mpmath.findroot(h, (x, z), solver="bisect") for x, z in zip(grid, grid[1:])
                 if h(x) * h(z) < 0]
        cuts = sorted({*grid, *roots})
        return mpmath.fsum(mpmath.quad(h, [x, z]) for x, z in zip(cuts, cuts[1:]) if h((x + z) / 2) > 0)

    return max(one(P, Q), one(Q, P))


def test_laplace_delta_point_masses_and_mixture_against_brute_force():
    r = laplace_delta(ValuePair(2, 0), 1, 1)  # closed form 1 − e^{(ε − Δ/θ)/2} = 1 − e^{−1/2}
    exact = 1 - mpmath.exp(mpmath.mpf(-1) / 2)
    assert r.delta.lo - F(1, 10**25) <= F(str(exact)) <= r.delta.hi + F(1, 10**25)
    P = DiscreteDistribution.from_dict({0: "1/2", 2: "1/2"})
    Q = DiscreteDistribution.from_dict({1: "1/2", 2: "1/2"})
    m = laplace_delta(DistributionPair(P, Q), F(1, 2), 1)
    q = _laplace_quad(P, Q, F(1, 2), 1)
    assert not m.pure and m.delta.lo - F(1, 10**15) <= F(str(q)) <= m.delta.hi + F(1, 10**15)
    assert m.verify() and r.verify()
    # private in the pure sense: δ = 0 exactly
    assert laplace_delta(DistributionPair(P, Q), 1, 1).delta == Enclosure(F(0), F(0))
