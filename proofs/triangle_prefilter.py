"""Lemma (float pre-filter of the exact triangle check in ``from_matrix``).

Let lo_x ≤ x ≤ hi_x be floats (IEEE binary64) bounding nonnegative reals x = d_ij, d_jk,
d_ik (directed conversions; hi may be +inf, lo may be 0 by underflow). If the float sum
fl(lo_ij + lo_jk), rounded to nearest, is > hi_ik, then d_ik ≤ d_ij + d_jk.

Proof. Rounding to nearest, fl, is monotone (a ≤ b ⇒ fl(a) ≤ fl(b)) and fixes every float
(fl(h) = h), including ±inf and subnormals. If lo_ij + lo_jk ≤ hi_ik (exact real sum) then
fl(lo_ij + lo_jk) ≤ fl(hi_ik) = hi_ik, contradicting the hypothesis. So
d_ij + d_jk ≥ lo_ij + lo_jk > hi_ik ≥ d_ik. Edge cases: the sum of two nonnegative floats is
never NaN; an overflowing sum is +inf and the exact sum then exceeds the largest float ≥ any
finite hi_ik (and hi_ik = +inf is never exceeded, so such triples go to the exact check);
flush-to-zero/denormals-are-zero can only replace nonnegative operands or results by 0,
which lowers the left side or makes the comparison 0 > hi_ik ≥ 0 false: fewer triples are
cleared, never a wrong one. Triples not cleared are decided exactly.

This script checks the lemma's inequality exhaustively on a grid of adversarial floats
(0, subnormals, the smallest normal, values near 1 and near the largest float, inf) with
exact rational arithmetic: every triple the filter clears has lo_ij + lo_jk > hi_ik exactly.
"""

import itertools
import sys
from fractions import Fraction

import numpy as np

PROVES = ["exactdp.spaces.metrics.explicit._check_triangle"]

tiny = 5e-324
big = sys.float_info.max
samples = [0.0, tiny, 2 * tiny, 3 * tiny, 2.2250738585072014e-308, 1e-310, 0.5, 1.0,
           float(np.nextafter(1.0, 2.0)), float(np.nextafter(1.0, 0.0)), 1.5, 2.0, 3.0,
           big / 2, float(np.nextafter(big / 2, big)), big, float("inf")]
checked = cleared = 0
with np.errstate(over="ignore"):
    for a, b, h in itertools.product(samples[:-1], samples[:-1], samples):  # lo is finite
        s = np.float64(a) + np.float64(b)
        checked += 1
        if s > h:
            cleared += 1
            assert h != float("inf")
            assert Fraction(a) + Fraction(b) > Fraction(h), (a, b, h)
print(f"triangle pre-filter: {cleared} of {checked} adversarial triples cleared, all sound")
