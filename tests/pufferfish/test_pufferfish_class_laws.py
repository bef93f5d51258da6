"""Whole classes: flint class-total laws and the class-vs-absent scale at any size."""

from __future__ import annotations

import dataclasses
import random
from fractions import Fraction as F

import pytest
import sympy

from exactdp.errors import InvalidArgument, InvalidDistribution
from exactdp.pufferfish import (
    DistributionVsAbsent,
    binomial,
    exact_scale,
    poisson_binomial,
)
from exactdp.pufferfish.adult import load_adult_classes
from exactdp.pufferfish.class_laws import (
    class_law,
    class_law_loss,
    class_vs_absent_scale,
)


def test_flint_law_equals_fraction_convolution():
    rng = random.Random(4)
    for _ in range(5):
        ps = [F(rng.randint(0, 7), 7) for _ in range(rng.randint(1, 9))]
        law = class_law(ps)
        assert law.to_distribution() == poisson_binomial(ps) and law.verify()
    assert class_law((40, "3/11")).to_distribution() == binomial(40, "3/11")


@pytest.mark.parametrize("n,p,eps", [(1, "1/10", 1), (7, "3/10", "1/2"), (40, "3/11", 2)])
def test_closed_form_agrees_with_root_finding_on_the_exact_law(n, p, eps):
    fast = class_vs_absent_scale((n, p), eps)
    slow = exact_scale(DistributionVsAbsent(binomial(n, p)), eps)
    assert fast.lo < slow.hi and slow.lo < fast.hi  # the two certified brackets overlap
    assert fast.verify() and slow.verify()


def test_mixed_class_by_bisection_agrees_with_root_finding():
    ps = ["1/2", "1/2", "1/3", "1/5", "1/5", "1/5"]
    fast = class_vs_absent_scale(ps, 1)
    slow = exact_scale(DistributionVsAbsent(poisson_binomial(ps)), 1)
    assert fast.theta_expr is None and fast.lo < slow.hi and slow.lo < fast.hi
    assert fast.verify()


def test_thousands_of_users_checked_on_every_support_point_of_the_exact_law():
    black = next(c for c in load_adult_classes() if c.name == "Black")
    r = class_vs_absent_scale((black.n, black.p), 1)
    law = class_law((black.n, black.p))
    assert law.n == black.n == 4228 and law.pmf(0) == (1 - black.p) ** black.n
    assert class_law_loss(law, r.lo) > 1  # not private just below θ* (all 4229 points)
    assert class_law_loss(law, r.hi) < 1  # private at hi
    assert r.verify()


def test_every_adult_class_has_a_certified_class_scale():
    for c in load_adult_classes():
        r = class_vs_absent_scale((c.n, c.p), 1)
        assert r.n == c.n and r.lo < c.n  # far below the conservative n/ε
        assert r.verify()


def test_verify_rejects_tampering():
    r = class_vs_absent_scale((100, "1/4"), 1)
    assert not dataclasses.replace(r, lo=r.hi, hi=r.hi * 2).verify()
    assert not dataclasses.replace(r, theta_expr=r.theta_expr * 2).verify()
    assert not dataclasses.replace(r, groups=((F(1, 3), 100),)).verify()
    assert not dataclasses.replace(r, eps=sympy.Rational(1, 2)).verify()


def test_bad_classes_give_specific_errors():
    with pytest.raises(InvalidArgument, match="n=0"):
        class_vs_absent_scale((0, "1/2"), 1)
    with pytest.raises(InvalidDistribution):
        class_law(["3/2"])
    with pytest.raises(InvalidArgument, match="p = 0"):
        class_vs_absent_scale((5, 0), 1)
    with pytest.raises(InvalidArgument, match="empty class"):
        class_law([])
