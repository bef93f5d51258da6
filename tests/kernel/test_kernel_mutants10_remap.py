"""The remap kernel's size limit (exactdp.kernel.remap.phi_values) at its exact boundary.

Documented: the exact table Φ = (s^k) may hold at most MAX_PHI_BITS = 20,000,000 bits,
counted as Σ_k k·(bits(num s) + bits(den s)) over the distinct exponents k, and a question
beyond it is refused (InstanceTooLarge) before any power is formed. On line_scaled(2, k)
(q = 1, exponents {0, k}, s = t) the count is k·(bits(num t) + bits(den t)), by hand:
t = 1/4: 1 + 3 = 4 bits a unit, k = 5·10⁶ → exactly 2·10⁷ (allowed);
t = 1/2: 1 + 2 = 3 bits a unit, k = 6,666,667 → 20,000,001 (refused).
"""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pytest

from exactdp.engine.questions import question_of
from exactdp.errors import InstanceTooLarge, InvalidArgument
from exactdp.kernel.axioms import metric_from_distances
from exactdp.kernel.remap import RemapClaim, check_remap, phi_values
from exactdp.spaces.distances import Distance
from exactdp.spaces.metrics import line, line_scaled

HALF = [["1/2", "1/2"], ["1/2", "1/2"]]


def test_a_table_of_exactly_the_limit_is_built():
    vals = phi_values(question_of(line_scaled(2, 5 * 10**6), "private", t="1/4", mechanism=HALF))
    assert vals[0] == 1 and vals[1] == F(1, 2 ** (10**7))  # (1/4)^(5·10⁶), exactly


def test_one_bit_beyond_the_limit_is_refused():
    with pytest.raises(InstanceTooLarge, match="20000001 bits"):
        phi_values(question_of(line_scaled(2, 6_666_667), "private", t="1/2", mechanism=HALF))


def test_irrational_distances_have_no_remap_table():
    """A metric with a distance √2 has no common unit q: s = e^{-ε/q} is undefined, and the
    kernel says so (InvalidArgument naming s), whatever the level."""
    m = metric_from_distances([Distance.rational(0), Distance.sqrt_of(2)],
                              np.array([[0, 1], [1, 0]]))
    assert m.q is None
    with pytest.raises(InvalidArgument, match="rational"):
        phi_values(question_of(m, "private", t="1/2", mechanism=HALF))


def test_a_remap_of_a_mechanism_that_is_not_private_is_rejected():
    """H = I on line(2) at t = 1/2 is not private (H[0][0]·t = 1/2 > H[1][0] = 0), yet
    R = [[2/3, 1/3], [1/3, 2/3]] solves (*): R ≥ 0, rows sum to 1, diag(HR) = (2/3, 2/3) and
    Φ·diag = (2/3 + (1/2)(2/3), …) = (1, 1). The claim "(*) holds for a private H" is false."""
    q = question_of(line(2), "private", t="1/2", mechanism=[["1", "0"], ["0", "1"]])
    R = ((F(2, 3), F(1, 3)), (F(1, 3), F(2, 3)))
    assert all(sum(r) == 1 for r in R) and F(2, 3) + F(1, 2) * F(2, 3) == 1
    assert not check_remap(RemapClaim(q, True, R))
    # the same R on a private H (rows (2/3, 1/3), (1/3, 2/3): ratios 2 ≤ e^ε = 2) is false:
    # diag(HR) = (2/3·2/3 + 1/3·1/3, …) = (5/9, 5/9), Φ·diag = 5/9·3/2 = 5/6 ≠ 1 — rejected
    q2 = question_of(line(2), "private", t="1/2", mechanism=[["2/3", "1/3"], ["1/3", "2/3"]])
    assert not check_remap(RemapClaim(q2, True, R))
    # … and the identity remap of that H: diag = (2/3, 2/3), Φ·diag = (1, 1): true
    assert check_remap(RemapClaim(q2, True, ((F(1), F(0)), (F(0), F(1)))))
