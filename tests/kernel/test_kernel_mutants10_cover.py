"""The kernel's arb Krawczyk range check (exactdp.kernel.threshold_cover.arb_mean_value_check)
on the two refusals its mutation run found unguarded.

Ground truth by hand (as in test_kernel_mut_quotient.py): on line(3) the prior
b = (1/4, 1/2, 1/4) has z_0 = (1 − 2s)/(4(1 − s²)) with s = e^{-ε}, negative for s > 1/2,
i.e. for every ε < ln 2; any positive multiple of b has the same signs. So "z(ε) > 0 on
[a, b]" is FALSE for [1/1000, 2/1000] (and for any range reaching ε = 0, where Φ is the
all-ones matrix, singular), TRUE for b = (1, 1, 1) on [1, 11/10] (z = (1, 1 − s, 1)/(1 + s)).
"""

from __future__ import annotations

from fractions import Fraction as F

from exactdp.kernel.threshold_cover import arb_mean_value_check
from exactdp.spaces.metrics import line

ONES = (F(1),) * 3


def test_a_range_that_is_not_a_proper_positive_interval_proves_nothing():
    assert arb_mean_value_check(line(3), ONES, F(1), F(11, 10))  # a true claim, for contrast
    assert not arb_mean_value_check(line(3), ONES, F(0), F(1))  # ε = 0: Φ singular
    assert not arb_mean_value_check(line(3), ONES, F(1), F(1, 10))  # a > b: no range
    assert not arb_mean_value_check(line(3), ONES, 0.1, F(1))  # a float is no exact end


def test_overflowing_float_candidates_prove_nothing():
    """b = 4·10³⁰⁷·(1/4, 1/2, 1/4) near ε = 0: the float candidates x ≈ Φ0⁻¹b overflow (Φ0 is
    nearly singular, |Φ0⁻¹| ≈ 10³), and the claim z > 0 is false (z_0 < 0 for ε < ln 2)."""
    big = (F(10**307), F(2 * 10**307), F(10**307))
    assert not arb_mean_value_check(line(3), big, F(1, 1000), F(2, 1000))
