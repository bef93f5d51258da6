"""certify(population, pair, θ, ε): verdicts, worst outputs, exact log-ratios."""

from __future__ import annotations

from fractions import Fraction as F

import mpmath
import sympy

from exactdp.arithmetic.ball import sympy_to_arb, workprec
from exactdp.pufferfish import (
    DistributionVsAbsent,
    Population,
    ValueVsAbsent,
    Verdict,
    bernoulli,
    certify,
    poisson_binomial,
)


def test_poisson_binomial_population_exact_log_ratio_matches_ball_and_mpmath() -> None:
    ps = ["1/2", "1/3", "3/4"]
    pop = Population.bernoulli(ps)
    assert pop.sum_distribution() == poisson_binomial(ps)
    pair = DistributionVsAbsent(bernoulli("2/5"))
    c = certify(pop, pair, F(1, 2), 1, least=False)
    expr = c.exact_log_ratio()
    with workprec(128):
        assert sympy_to_arb(expr).overlaps(c.worst_log_ratio)
    # independent evaluation of the density ratio at the worst output with mpmath
    mpmath.mp.dps = 40
    y = mpmath.mpf(c.worst_output.numerator) / c.worst_output.denominator

    def dens(total: dict[F, F]) -> mpmath.mpf:
        return sum(mpmath.mpf(p.numerator) / p.denominator
                   * mpmath.exp(-2 * abs(y - mpmath.mpf(x.numerator) / x.denominator))
                   for x, p in total.items())

    # the query laws under the two secrets, built here by brute-force enumeration
    from itertools import product

    p_list = [F(1, 2), F(1, 3), F(3, 4)]
    under_p: dict[F, F] = {}
    under_q: dict[F, F] = {}
    for bits in product([0, 1], repeat=4):
        w = F(1)
        for b, p in zip(bits, p_list + [F(2, 5)]):
            w *= p if b else 1 - p
        under_p[F(sum(bits))] = under_p.get(F(sum(bits)), F(0)) + w
        rest = F(sum(bits[:3]))
        under_q[rest] = under_q.get(rest, F(0)) + w
    val = mpmath.log(dens(under_p) / dens(under_q))
    assert abs(val - mpmath.mpf(str(sympy.N(expr, 35)))) < mpmath.mpf(10) ** -25
    # θ = 1/2 is below the Bernoulli bound 1/ln(1 + (e − 1)/(2/5)) ≈ 0.664: not private
    assert c.verdict is Verdict.FAILS and c.verify()


def test_value_vs_absent_is_tight_exactly_at_a_over_eps() -> None:
    # S_{2,⊥} at ε = 1/2: θ = |a|/ε = 4 makes the tail ratio exactly e^{1/2}
    pop = Population.bernoulli(["1/2", "1/2"], ["1/2", "1/5"])
    c = certify(pop, ValueVsAbsent(2), 4, "1/2", least=False)
    assert c.verdict is Verdict.HOLDS and c.tight
    assert certify(pop, ValueVsAbsent(2), F(399, 100), "1/2", least=False).verdict is (
        Verdict.FAILS
    )


def test_json_is_exact_strings() -> None:
    c = certify(Population.bernoulli(["1/2"]), DistributionVsAbsent(bernoulli("1/2")), 2, 1)
    js = c.to_json()
    assert js["theta"] == "2" and js["verdict"] == "holds" and js["private"] is True
    assert isinstance(js["independent_theta"], dict)
    assert "/" in str(js["independent_theta"]["theta_lo"])
