"""Rigorous float upper bounds of sums and products of nonnegative data (the F2 model).

Built on the rounding model of :mod:`exactdp.arithmetic.rounding` (IEEE binary64, round to
nearest, subnormals kept): for a dot product of length k,
``|fl(xᵀy) − xᵀy| ≤ γ_k |x|ᵀ|y| + k·η`` in any summation order. The threshold covers
(:mod:`exactdp.threshold.krawczyk`, :mod:`exactdp.threshold.taylor`) and the perturbation
lemma (:mod:`exactdp.threshold.lemmas`) bound their products with the helpers below; the
model itself is proved in ``proofs/linalg_verified_bounds.py``.

Examples
--------
>>> import numpy as np
>>> P = np.array([[0.1, 0.2], [0.3, 0.4]])
>>> v = np.array([1 / 3, 2 / 3])
>>> bound = ProductBounds(2).nonneg(P, v)
>>> from fractions import Fraction
>>> exact = [sum(Fraction(p) * Fraction(x) for p, x in zip(row, v)) for row in P]
>>> all(Fraction(b) >= e for b, e in zip(bound, exact))
True
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from exactdp.arithmetic.rounding import ETA, float_up, gamma, gamma_up, succ

__all__ = ["ProductBounds", "sum_up", "norm2_up", "rhs_float", "binade", "ABS_SLACK", "ABS_SLACK_Q", "TINY"]

#: Absolute slack ≫ every underflow term n²·η for n < 10⁸.
ABS_SLACK = 1e-300
#: A dyadic > ABS_SLACK (for exact bounds).
ABS_SLACK_Q = Fraction(1, 2**990)
#: ≈ 4.6e-100: table entries below it are flushed (products then never reach the slow
#: subnormal range; the flushed part is added to the entry radii).
TINY = 2.0**-330


class ProductBounds:
    """Rigorous upper bounds of nonnegative products and of signed-product errors (F2).

    For products P @ v whose inner sums have at most k terms: with g = γ_{k+2},
    ``P v ≤ (fl(P v) + 2kη)/(1 − g)`` for P, v ≥ 0, and
    ``|fl(P v) − P v| ≤ g·|P||v| + 2kη``.
    """

    def __init__(self, k: int) -> None:
        g2 = gamma(k + 2)
        self.gamma = gamma_up(k + 2)
        self.inv_one_minus = float_up(1 / (1 - g2))
        self.tail = float_up(Fraction(2 * k) * ETA)

    def nonneg(self, P: np.ndarray, v: np.ndarray) -> np.ndarray:
        """Float array ≥ P @ v exactly, for P, v ≥ 0 (v a vector or a stack of columns)."""
        return np.asarray(succ(succ(P @ v + self.tail) * self.inv_one_minus))

    def err(self, absP: np.ndarray, absv: np.ndarray) -> np.ndarray:
        """Float vector ≥ |fl(P @ v) − P v| (given |P|, |v|)."""
        return np.asarray(succ(succ(self.gamma * self.nonneg(absP, absv)) + self.tail))


def sum_up(v: np.ndarray) -> float:
    """Float ≥ Σ v for v ≥ 0 (γ_{len+1} model plus the underflow slack)."""
    s = float(np.sum(v))
    return float(succ(succ(s * (1 + gamma_up(len(v) + 1))) + ABS_SLACK))


def norm2_up(v: np.ndarray) -> float:
    """Float ≥ ‖v‖₂ for v ≥ 0."""
    s = float(np.dot(v, v))
    s = float(succ(succ(s * (1 + gamma_up(len(v) + 2))) + ABS_SLACK))
    return float(succ(math.sqrt(s)))


def rhs_float(rhs: tuple[Fraction, ...]) -> tuple[np.ndarray, float]:
    """The right-hand side rounded to floats, and a float ≥ max_i |b_i − fl(b_i)|.

    >>> rhs_float((Fraction(1, 3), Fraction(1)))[1] > 0
    True
    """
    b = np.array([float(x) for x in rhs])
    rad = max((abs(Fraction(float(x)) - x) for x in set(rhs)), default=Fraction(0))
    return b, float_up(rad)


def binade(x: Fraction) -> int:
    """e with 2^e ≤ x < 2^(e+1) for x > 0 (0 for x ≤ 0): the scale of an ε or a step.

    >>> binade(Fraction(3, 4)), binade(Fraction(1, 10**30)), binade(Fraction(0))
    (-1, -100, 0)
    """
    if x <= 0:
        return 0
    e = x.numerator.bit_length() - x.denominator.bit_length()
    return e if Fraction(2) ** e <= x else e - 1
