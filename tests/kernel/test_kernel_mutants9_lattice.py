"""The kernel's Euclidean lattice λ_min proof (exactdp.kernel.lattice) held to both sides of
its documented reach, so that a changed constant or operator in the bound shows: it must
prove λ up to 99.3 % of min f (the module docstring measures ≈ 99.4 %) on the box path, and
must refuse every λ above the true minimum — also for ranges of ε wide enough to switch the
far-image bound to c = ε_hi·h (4π²R² < 2(ε_hi·h)², R = 24), and on the dominance path.

Ground truth: min_θ f_e(θ) = f_e(π, π) (proofs/lattice_spectrum_bound.py (c)), computed by
the search's float symbol sum (error < 1e-12, far below the 1e-6 and 0.7 % margins used),
and f_e(π, π) increases with e, so over [ε_lo, ε_hi] the minimum is at ε_lo.
"""

from __future__ import annotations

import math
from fractions import Fraction as F

import pytest

from exactdp.algebra.lattice_spectrum import euclidean_lattice_symbol_float
from exactdp.kernel.lattice import euclidean_lambda_ok


def _fmin(e: F) -> float:
    return euclidean_lattice_symbol_float(e, math.pi, math.pi)


@pytest.mark.parametrize("lo, hi, h, frac", [
    (F(665, 1000), F(665, 1000), F(1), 0.993),   # box path, one ε (b None)
    (F(2), F(2), F(1, 2), 0.99),                 # spacing scales ε: e = 1
    (F(66, 100), F(67, 100), F(1), 0.99),        # a range: min(g_a, g_b) per image
])
def test_proves_lambda_close_to_the_minimum(lo, hi, h, frac):
    top = min(_fmin(lo * h), _fmin(hi * h))
    assert euclidean_lambda_ok(lo, hi, h, F(top * frac))
    assert not euclidean_lambda_ok(lo, hi, h, F(top * (1 + 1e-6)))


@pytest.mark.parametrize("lo, hi", [(F(1, 2), F(200)), (F(1, 2), F(100)), (F(3), F(200)),
                                    (F(1, 2), F(1, 2)), (F(1), F(1)), (F(8), F(8)),
                                    (F(30), F(200)), (F(100), F(120)), (F(50), F(60))])
def test_never_proves_a_lambda_above_the_minimum(lo, hi):
    """Wide ranges reach past ε·h ≈ 106.6, where the far-image bound switches to c = ε_hi·h;
    large ε (8, 30) are decided by the diagonal-dominance bound alone."""
    top = _fmin(lo)
    assert not euclidean_lambda_ok(lo, hi, F(1), F(top * (1 + 1e-6)))
    if top < 1 - 1e-9:
        assert not euclidean_lambda_ok(lo, hi, F(1), F(top + (1 - top) * 1e-3))


@pytest.mark.parametrize("lo, hi, frac", [(F(3), F(200), 0.7), (F(30), F(200), 0.99),
                                          (F(8), F(8), 0.999)])
def test_wide_and_large_ranges_still_proved(lo, hi, frac):
    assert euclidean_lambda_ok(lo, hi, F(1), F(_fmin(lo) * frac))
