"""Certified linear algebra in floating point (verified solves with rigorous bounds).

Modules: :mod:`~exactdp.linalg.verified` (the verified solve and its rounding argument),
:mod:`~exactdp.linalg.enclosure` (the float enclosure type, ball → float conversion),
:mod:`~exactdp.linalg.arb_check` (the independent re-check in balls),
:mod:`~exactdp.linalg._accurate` (accurate residuals by error-free transformations),
:mod:`~exactdp.linalg.exact_products` (exact integer products through structured float
products on limbs) and :mod:`~exactdp.linalg.grid_pcg` (FFT products and preconditioned
CG on planar grids; float, uncertified).
"""

from exactdp.linalg.arb_check import check_enclosure_arb
from exactdp.linalg.enclosure import FloatEnclosure, float_enclosure
from exactdp.linalg.verified import VERIFIED_METHOD, ProductBounds, verified_solve

__all__ = [
    "VERIFIED_METHOD",
    "FloatEnclosure",
    "ProductBounds",
    "check_enclosure_arb",
    "float_enclosure",
    "verified_solve",
]
