"""Size-independent λ_min lower bound for Euclidean lattices (exactdp.algebra.lattice_spectrum).

Every check compares the rigorous bound with an independent computation: numpy's
eigvalsh of Φ built here from coordinates, or the lattice symbol summed longhand.
"""

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from flint import arb
from hypothesis import given, settings
from hypothesis import strategies as st

import exactdp.algebra.lattice_spectrum as ls
from exactdp.algebra.lattice_spectrum import euclidean_lattice_lambda_lower, euclidean_lattice_symbol_float
from exactdp.algebra.phi import phi_float
from exactdp.errors import (
    ExactnessRequired,
    InexactInputWarning,
    InvalidArgument,
    InvalidMetric,
    InvalidPrivacyLevel,
    PrecisionLimitReached,
)
from exactdp.spaces.levels import parse_level
from exactdp.spaces.metrics import grid

F = Fraction


def lam_min(points: np.ndarray, eps: float) -> float:
    """numpy λ_min of [exp(-ε|p_i - p_j|)] for float coordinates."""
    diff = points[:, None, :] - points[None, :, :]
    return float(np.linalg.eigvalsh(np.exp(-eps * np.hypot(diff[..., 0], diff[..., 1])))[0])


def grid_points(width: int, height: int, spacing: float = 1.0) -> np.ndarray:
    xs, ys = np.meshgrid(np.arange(width), np.arange(height))
    return np.stack([xs.ravel(), ys.ravel()], 1) * spacing


def symbol_longhand(eps: float, t1: float, t2: float, k_max: int = 60) -> float:
    """Σ_{|k|∞ ≤ K} e^{-ε|k|} cos(k·θ), the plain double loop (tail e^{-εK}-small)."""
    k = range(-k_max, k_max + 1)
    return sum(math.exp(-eps * math.hypot(i, j)) * math.cos(i * t1 + j * t2) for i in k for j in k)


@pytest.mark.parametrize(
    "width, height, lo, hi, spacing, eps_values",
    [
        (12, 12, "0.665", "0.665", 1, [0.665]),
        (24, 24, "0.665", "0.665", 1, [0.665]),
        (17, 23, "0.6", "0.7", 1, [0.6, 0.63, 0.7]),
        (20, 20, "1/5", "1/4", 1, [0.2, 0.25]),
        (15, 15, "2", "2", 1, [2.0]),
        (12, 12, "3", "7/2", 1, [3.0, 3.5]),  # diagonal-dominance side
        (16, 16, "2", "2", "1/3", [2.0]),  # ε·h = 2/3
        (10, 14, "1/4", "3/10", 2, [0.25, 0.3]),  # ε·h ∈ [1/2, 3/5]
        (16, 16, "0.3", "3", 1, [0.3, 0.5, 1.0, 2.0, 3.0]),  # wide range: min at an endpoint
    ],
)
def test_bound_below_eigvalsh_on_grids(width, height, lo, hi, spacing, eps_values):
    bound = euclidean_lattice_lambda_lower(lo, hi, spacing=spacing)
    h = float(F(spacing))
    lam = min(lam_min(grid_points(width, height, h), ev) for ev in eps_values)
    assert isinstance(bound, Fraction)
    assert 0 < bound <= lam
    assert bound >= F(8, 10) * F(lam)  # useful, not just valid


def test_bound_matches_the_library_grid_metric():
    # Φ built by exactdp.spaces.metrics.grid / exactdp.algebra.phi (a different code path) on a 20×20 grid
    metric = grid(20, 20, "euclidean", spacing=F(1, 2))
    level = parse_level(eps="133/100")
    lam = float(np.linalg.eigvalsh(phi_float(metric, level))[0])
    bound = euclidean_lattice_lambda_lower("133/100", "133/100", spacing="1/2")
    assert 0.9 * lam <= bound <= lam


def test_bound_below_eigvalsh_on_scattered_subsets():
    rng = np.random.default_rng(7)
    bound = euclidean_lattice_lambda_lower("0.5", "0.8")
    for _ in range(5):
        pts = np.unique(rng.integers(-40, 40, size=(150, 2)), axis=0).astype(float)
        for ev in (0.5, 0.8):
            assert bound <= lam_min(pts, ev)
    # clustered subset: a dense 9×9 block plus far-away points
    pts = np.concatenate([grid_points(9, 9), np.array([[100.0, 3.0], [-50.0, 70.0]])])
    assert bound <= lam_min(pts, 0.5)


def test_bound_below_the_symbol_minimum():
    # λ_min(Φ_S) → min_θ f for large grids: the bound must sit below f(π, π), summed longhand
    for lo, hi in (("0.665", "0.665"), ("0.3", "0.4"), ("1", "3/2")):
        bound = euclidean_lattice_lambda_lower(lo, hi)
        values = [symbol_longhand(float(F(e)), math.pi, math.pi) for e in (lo, hi)]
        assert bound <= min(values)
        assert bound >= 0.9 * min(values)


def test_tightness_40x40_at_0665():
    lam = lam_min(grid_points(40, 40), 0.665)
    bound = euclidean_lattice_lambda_lower("0.665", "0.665")
    assert 0.95 * lam <= bound <= lam


def test_sanity_monotone_in_eps_and_at_most_one():
    # min_θ f_ε grows with ε on these ranges (f(π,π) increases) and λ_min ≤ Φ_ii = 1
    values = [euclidean_lattice_lambda_lower(e, e) for e in ("0.05", "0.2", "0.665", "2", "5", "20")]
    assert values == sorted(values)
    assert all(0 < v <= 1 for v in values)
    assert values[-1] > F(99, 100)


def test_spacing_only_enters_through_eps_times_h():
    assert euclidean_lattice_lambda_lower("1/2", "7/10", spacing=2) == (
        euclidean_lattice_lambda_lower(1, "7/5"))
    assert euclidean_lattice_lambda_lower(3, 3, spacing="1/3") == euclidean_lattice_lambda_lower(1, 1)


def test_wider_range_is_not_above_its_endpoints():
    wide = euclidean_lattice_lambda_lower("0.5", "1")
    lam = min(lam_min(grid_points(18, 18), e) for e in (0.5, 0.75, 1.0))
    assert wide <= lam


@pytest.mark.parametrize(
    "lo, hi, spacing, error",
    [
        (0, 1, 1, InvalidPrivacyLevel),
        ("-1/2", 1, 1, InvalidPrivacyLevel),
        (1, "1/2", 1, InvalidPrivacyLevel),
        ("nan", 1, 1, InvalidArgument),
        (float("nan"), 1, 1, InvalidArgument),
        (1, float("inf"), 1, InvalidArgument),
        ("abc", 1, 1, InvalidArgument),
        (1, 1, 0, InvalidMetric),
        (1, 1, "-2", InvalidMetric),
        (True, 1, 1, ExactnessRequired),
    ],
)
def test_bad_input(lo, hi, spacing, error):
    with pytest.raises(error):
        euclidean_lattice_lambda_lower(lo, hi, spacing=spacing)


def test_float_input_warns_and_is_taken_exactly():
    with pytest.warns(InexactInputWarning):
        got = euclidean_lattice_lambda_lower(0.5, 0.5)
    assert got == euclidean_lattice_lambda_lower(F(1, 2), F(1, 2))


def test_precision_limit_when_positivity_cannot_be_proved(monkeypatch):
    ls._unit_lattice_bound.cache_clear()
    monkeypatch.setattr(ls, "_arb_box_bound", lambda *args: arb("0 +/- 1"))
    with pytest.raises(PrecisionLimitReached):
        euclidean_lattice_lambda_lower("0.665", "0.665")
    ls._unit_lattice_bound.cache_clear()


def test_partition_covers_the_triangle():
    # every point with 0 ≤ φ2 ≤ φ1 ≤ 1/2 lies in some box of the cover
    rng = np.random.default_rng(3)
    for a, b in ((0.665, 0.665), (0.1, 0.3), (2.0, 2.0)):
        pieces, _ = ls._partition(a, b)
        boxes = np.array([box for box, _ in pieces], dtype=float) / ls._DEN
        pts = rng.random((4000, 2)) / 2
        pts = np.sort(pts, axis=1)[:, ::-1]  # φ1 ≥ φ2
        pts = np.concatenate([pts, [[0.5, 0.5], [0.0, 0.0], [0.5, 0.0]]])
        inside = ((boxes[None, :, 0] <= pts[:, None, 0]) & (pts[:, None, 0] <= boxes[None, :, 1])
                  & (boxes[None, :, 2] <= pts[:, None, 1]) & (pts[:, None, 1] <= boxes[None, :, 3]))
        assert inside.any(axis=1).all()


def test_symbol_float_against_longhand_and_symmetry():
    for eps, t1, t2 in ((0.665, math.pi, math.pi), (1.3, 0.4, 2.0), (0.4, 0.0, 1.0)):
        val = euclidean_lattice_symbol_float(eps, t1, t2)
        assert abs(val - symbol_longhand(eps, t1, t2, 150)) < 1e-9
        assert abs(val - euclidean_lattice_symbol_float(eps, -t2, t1)) < 1e-12
        assert abs(val - euclidean_lattice_symbol_float(eps, t1 + 2 * math.pi, t2)) < 1e-9


def test_symbol_float_bad_input():
    with pytest.raises(InvalidPrivacyLevel):
        euclidean_lattice_symbol_float(0.0, 1.0, 1.0)
    with pytest.raises(InvalidArgument):
        euclidean_lattice_symbol_float(1e-4, 1.0, 1.0)  # would need a huge direct sum
    with pytest.raises(InvalidArgument):
        euclidean_lattice_symbol_float(1.0, float("nan"), 1.0)


@settings(max_examples=15, deadline=None)
@given(
    lo=st.fractions(min_value=F(1, 20), max_value=F(5)),
    widen=st.fractions(min_value=F(0), max_value=F(1, 2)),
    spacing=st.sampled_from([F(1), F(1, 2), F(3), F(2, 3)]),
    seed=st.integers(0, 2**32 - 1),
)
def test_property_bound_below_random_subsets(lo, widen, spacing, seed):
    hi = lo + widen
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # exact input must not warn
        bound = euclidean_lattice_lambda_lower(lo, hi, spacing=spacing)
    assert 0 < bound <= 1
    rng = np.random.default_rng(seed)
    side = int(rng.integers(2, 16))
    pts = grid_points(side, side)
    pts = pts[rng.random(len(pts)) < 0.7]
    if len(pts) == 0:
        pts = grid_points(1, 1)
    pts = pts * float(spacing)
    for ev in (float(lo), float(hi), float((lo + hi) / 2)):
        assert bound <= lam_min(pts, ev) + 1e-12  # eigvalsh error on these tiny matrices
