"""Independent re-check of a mean-value Krawczyk range with arb ball arithmetic.

The check lives in the kernel (:func:`exactdp.kernel.threshold_cover.arb_mean_value_check`,
where the ``certified-cover`` claims are re-proved); this module keeps its old import path.

>>> from fractions import Fraction
>>> from exactdp.spaces.metrics import line
>>> arb_mean_value_check(line(3), (Fraction(1),) * 3, Fraction(1), Fraction(11, 10))
True
"""

from exactdp.kernel.threshold_cover import arb_mean_value_check

__all__ = ["arb_mean_value_check"]
