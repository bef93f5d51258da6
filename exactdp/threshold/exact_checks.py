"""Independent re-proofs with exact integer arithmetic: λ_min nodes and Taylor pieces (dense).

The checks live in the kernel (:mod:`exactdp.kernel.threshold_spd`, their one home); this
module keeps their historical names for the search side, the tests and
``proofs/spd_cover_bounds.py``. No floating-point rounding analysis is involved: ball
enclosures of the entries (python-flint ``arb``) and exact integers (``fmpz_mat``).

Examples
--------
>>> from fractions import Fraction
>>> from exactdp.spaces.metrics import line
>>> from exactdp.threshold.lambda_bounds import dense_lambda_node
>>> m = line(5)
>>> sigma, lam = dense_lambda_node(m, Fraction(1))
>>> exact_lambda_check(m, Fraction(1), sigma, lam)
True
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from exactdp.kernel.threshold_spd import hist_product, lambda_ok, piece_ok
from exactdp.kinds import proved_by
from exactdp.spaces.metrics import FiniteMetric

__all__ = ["exact_lambda_check", "exact_hist_product", "exact_piece_check"]

#: H·table exactly through 30-bit limb histograms (:func:`exactdp.kernel.threshold_spd.hist_product`).
exact_hist_product = hist_product


@proved_by("spd_cover_bounds")
def exact_lambda_check(metric: FiniteMetric, eps: Fraction, sigma: Fraction,
                       claimed: Fraction) -> bool:
    """λ_min(Φ(eps)) ≥ claimed, re-proved with integers
    (:func:`exactdp.kernel.threshold_spd.lambda_ok`, ``proofs/spd_cover_bounds.py``); False
    (never raises) when not."""
    try:
        return lambda_ok(metric, eps, sigma, claimed)
    except (np.linalg.LinAlgError, ValueError):
        return False


@proved_by("spd_cover_bounds")
def exact_piece_check(metric: FiniteMetric, rhs: tuple[Fraction, ...], a: Fraction,
                      b: Fraction, K: int, lam: Fraction, Y: np.ndarray,
                      upper_index: int | None = None, upper: Fraction | None = None) -> bool:
    """The Taylor piece [a, b] of order K re-proved with exact integer arithmetic from the
    candidate Taylor vectors ``Y`` (:func:`exactdp.kernel.threshold_spd.piece_ok`; with
    ``upper_index`` the point form z_i(a) < 0, and ≤ ``upper``; ``proofs/spd_cover_bounds.py``)."""
    return piece_ok(metric, tuple(Fraction(x) for x in rhs), a, b, K, lam, upper_index,
                    None if upper is None else Fraction(upper), Y=Y)
