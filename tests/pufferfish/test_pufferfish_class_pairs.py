"""A class replaced by another class: certified θ* at thousands of users."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction as F

import pytest
from flint import fmpq

from exactdp.arithmetic.ball import workprec
from exactdp.errors import InvalidArgument, InvalidDistribution
from exactdp.pufferfish import DistributionPair, binomial, exact_scale
from exactdp.pufferfish.adult import load_adult_classes
from exactdp.pufferfish.class_laws import class_law, class_vs_absent_scale
from exactdp.pufferfish.class_pairs import class_masses, class_pair_loss, class_pair_scale


def test_recurrence_masses_contain_the_exact_law() -> None:
    law = class_law((60, F(2, 7)))
    with workprec(128):
        balls = class_masses(((F(2, 7), 60),))
        assert len(balls) == 61
        assert all(b.contains(fmpq(law.pmf(j).numerator, law.pmf(j).denominator))
                   for j, b in enumerate(balls))
        assert all(b.rad() < b.mid() * fmpq(1, 10**30) for b in balls)


def test_small_classes_agree_with_the_general_exact_scale() -> None:
    a, b = (30, F(1, 3)), (40, F(1, 4))
    r = class_pair_scale(a, b, 1)
    e = exact_scale(DistributionPair(binomial(*a), binomial(*b)), 1)
    assert r.verify() and e.verify()
    assert r.lo < e.hi and e.lo < r.hi       # both brackets contain θ*
    assert r.hi - r.lo <= F(1, 10**8) * r.hi


def test_adult_female_replaced_by_male_at_full_size() -> None:
    """14,695 women replaced by 30,527 men (Adult): certified θ*, far below W∞/ε."""
    cls = {c.name: c for c in load_adult_classes() if c.grouping == "sex"}
    f, m = cls["Female"], cls["Male"]
    r = class_pair_scale((f.n, f.p), (m.n, m.p), 1)
    assert r.verify()
    assert 7870.32 < float(r.lo) < float(r.hi) < 7870.33
    ball, _ = class_pair_loss((f.n, f.p), (m.n, m.p), r.hi)
    assert ball < 1


def test_bad_classes_are_specific_errors() -> None:
    with pytest.raises(InvalidArgument, match="n ≥ 1"):
        class_pair_scale((0, "1/2"), (3, "1/2"), 1)
    with pytest.raises(InvalidDistribution):
        class_pair_scale((3, "3/2"), (3, "1/2"), 1)
    same = class_pair_scale((3, "1/2"), (3, "1/2"), 1)  # P = Q: θ* = 0, said as zero_noise
    assert same.zero_noise and same.lo == same.hi == 0 and same.verify()


def test_verify_rejects_a_wrong_bracket() -> None:
    r = class_pair_scale((20, F(1, 2)), (25, F(1, 3)), 1)
    assert not replace(r, hi=r.lo * F(9, 10), lo=r.lo * F(8, 10)).verify()


def test_a_class_against_an_empty_class_is_the_closed_form() -> None:
    """B = one member with p = 0 is 'absent': the grid computation must give the closed form."""
    a = (4228, F(534, 4228))
    r = class_pair_scale(a, (1, 0), 1)
    closed = class_vs_absent_scale(a, 1)
    assert r.lo < closed.hi and closed.lo < r.hi
