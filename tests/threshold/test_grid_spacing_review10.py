"""Issue 15, session 10, review 15A10: grids whose spacing is far from 1.

* F1: the perturbation lemma's t0 is a short dyadic m·2^-k with k within a bit budget, or a
  specific refusal naming the spacing before any big number is built (spacing 10⁻⁹ took
  212 s and 2.3 GB; 10⁻³⁰ ended in a bare MemoryError);
* F2: distances outside the double range are refused, never answered with an unproved t0;
* F5: ``offset_distance_count`` takes integer sizes only and bounds its memory;
* F4: the scaled exact route speaks in the user's units and keeps the closed form.
"""

import math
from fractions import Fraction as F

import pytest
import sympy

from exactdp.errors import InstanceTooLarge, InvalidMetric, PrecisionLimitReached, PropertyNeverHolds
from exactdp.spaces.grid import offset_distance_count
from exactdp.spaces.metrics import grid, line_scaled
from exactdp.spaces.metrics.masked import masked_grid
from exactdp.testing.budget import call_budget
from exactdp.threshold.exact import exact_threshold
from exactdp.threshold.lemmas import T0_MAX_BITS, lemma_holds, lemma_t0


@pytest.mark.parametrize("h", [F(1, 10**6), F(1, 10**9), F(1, 10**30)])
def test_lemma_t0_refuses_a_tiny_spacing_at_once(h):
    """Before: 10⁻⁶ returned a t0 with a 3.5·10⁶-bit denominator, 10⁻⁹ took minutes and
    GBs, 10⁻³⁰ raised MemoryError."""
    g = grid(3, 3, "euclidean", spacing=h)
    with call_budget(5_000), pytest.raises(PrecisionLimitReached, match=r"spacing=1/10+\).*budget.*Rescale"):
        lemma_t0(g, (F(1),) * 9)


@pytest.mark.parametrize("h", [F(1, 5000), F(1, 1024), F(10**30)])
def test_lemma_t0_is_a_short_dyadic_proved_exactly(h):
    g = grid(3, 3, "euclidean", spacing=h)
    ones = (F(1),) * 9
    t0 = lemma_t0(g, ones)
    k = t0.denominator.bit_length() - 1
    assert t0.denominator == 1 << k and k <= T0_MAX_BITS and t0.numerator.bit_length() <= 200
    assert lemma_holds(g, ones, t0, exact=True)


@pytest.mark.parametrize("h", [F(1, 10**400), F(1, 10**320), F(10**320)])
def test_lemma_t0_refuses_distances_outside_double_range(h):
    """Before: 10⁻⁴⁰⁰ returned t0 = 1/2 where the lemma fails; the others overflowed."""
    with pytest.raises(PrecisionLimitReached, match="double range"):
        lemma_t0(grid(3, 3, "euclidean", spacing=h), (F(1),) * 9)


def test_lemma_t0_one_point():
    assert lemma_t0(grid(1, 1), (F(1),)) == F(1, 2)


@pytest.mark.parametrize("w", [2.7, True, F(3), "3", 0])
def test_offset_distance_count_takes_integer_sizes_only(w):
    """Before: 2.7 was read as 2 and True as 1."""
    with pytest.raises(InvalidMetric, match="integers ≥ 1"):
        offset_distance_count(w, 3, "euclidean")


@pytest.mark.parametrize("wh", [(10**6, 1000), (10**5, 5 * 10**4), (20_000, 2_000)])
def test_offset_distance_count_bounds_its_memory(wh):
    """Before: 7.4 GiB, 11.6 GiB and ≈ 1 GiB allocations."""
    with call_budget(1_000) as seen, pytest.raises(InstanceTooLarge, match="GiB"):
        offset_distance_count(*wh, "euclidean")
    assert seen[1] < 2**25  # bytes (before: 1 to 11.6 GiB)


def test_offset_distance_count_still_exact_below_the_limit():
    W, H = 300, 40
    want = len({dx * dx + dy * dy for dx in range(W) for dy in range(H)})
    assert offset_distance_count(W, H, "euclidean") == want
    assert offset_distance_count(1500, 600, "euclidean") == 439_470


def test_scaled_exact_result_keeps_its_closed_form():
    """Manhattan L at spacing 7/2: ε* = ln 2/(7/2). Before: as_sympy() raised and told
    the user to rerun with method='exact', which fails the same way."""
    g = masked_grid(4, 4, "manhattan", F(7, 2), mask=["1111", "1111", "1100", "1100"])
    r = exact_threshold(g, None, F(1, 10**9), None, [], 160)
    expr = r.as_sympy()
    assert sympy.simplify(expr - 2 * sympy.log(2) / 7) == 0
    assert abs(float(expr) - 2 * math.log(2) / 7) < 1e-15
    assert r.verify()


def test_scaled_route_errors_speak_in_the_users_units():
    """A zero prior entry never holds; before, the message named only the unit metric."""
    with pytest.raises(PropertyNeverHolds, match=r"divided by c = 1000.*\(that ε\)/1000") as info:
        exact_threshold(line_scaled(4, F(1000)), (F(1), F(0), F(1), F(1)), F(1, 10**9), None, [], 160)
    assert info.value.evidence is not None
    assert "divide its ε by 1000" in str(info.value)
