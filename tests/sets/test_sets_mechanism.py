"""The mechanism's exact law and its float sampler; the paper's demonstrations."""

from fractions import Fraction

import numpy as np
import sympy

from exactdp.sets import (
    Box,
    capacity_functional,
    noise_density,
    sample_mechanism_float,
    sample_noise_float,
)
from exactdp.sets.demos import paper_demo_2d, paper_demo_3d


def test_noise_density_matches_the_cdf():
    # ∫_{[0,1]×[-1,0]} p(w) dw at ε = 1/2 equals the exact capacity of {0} at that box
    p = noise_density(Fraction(1, 2), 2)
    a, b = sympy.symbols("a b", positive=True)  # w = (a, −b) covers the box's interior
    density = p(a, -b)
    e = sympy.Rational(1, 2)
    assert sympy.simplify(density - (e / 2) ** 2 * sympy.exp(-e * a - e * b)) == 0
    val = sympy.integrate(density, (a, 0, 1), (b, 0, 1))
    exact = capacity_functional([(0, 0)], Box((0, -1), (1, 0)), Fraction(1, 2)).expr
    assert sympy.simplify(val - exact) == 0


def test_sampler_is_seeded_and_translates_the_whole_set():
    X = [(0, 0), (2, 1), (-1, 3)]
    a = sample_mechanism_float(X, 1, size=50, seed=7)
    b = sample_mechanism_float(X, 1, size=50, seed=7)
    assert np.array_equal(a, b)
    w = a[:, 0, :] - np.array([-1.0, 3.0])  # points are stored sorted: (-1,3) first
    for i, p in enumerate(sorted(X)):
        assert np.allclose(a[:, i, :] - np.array(p, dtype=float), w)


def test_sampler_statistics():
    """Statistical check (not a proof): Laplace(0, 1/ε) has mean 0 and variance 2/ε².

    n = 400 000, ε = 2: the standard error of the mean is √(0.5/n) ≈ 1.1e-3 and of the
    sample variance about √(5·0.25/n) ≈ 1.8e-3 (Laplace kurtosis 6); tolerances are 6σ.
    """
    w = sample_noise_float(2, 1, size=400_000, seed=11)[:, 0]
    assert abs(w.mean()) < 6 * 1.12e-3
    assert abs(w.var() - 0.5) < 6 * 1.8e-3


def test_paper_demonstrations():
    d2, d3 = paper_demo_2d(), paper_demo_3d()
    assert d2.outputs_float.shape == (4, 4, 2) and d3.outputs_float.shape == (4, 8, 3)
    # by hand: square (±1, ±1): ℓ1 diameter 4, ℓ2 2√2; cube: ℓ1 6, ℓ2 2√3, ℓ∞ 2
    assert d2.diameters["l1"] == 4 and d2.diameters["l2"] == 2 * sympy.sqrt(2)
    assert d3.diameters == {"l1": 6, "l2": 2 * sympy.sqrt(3), "linf": 2}
    assert len(d3.edges) == 12 and len(d2.edges) == 6
    # each output is a translate: d_H(X, X + w) = ‖w‖₁ (up to float rounding of X + w)
    for w, dh in zip(d2.noise_float, d2.hausdorff_to_outputs):
        assert abs(float(dh) - np.abs(w).sum()) < 1e-12
