"""Review 15b of the exact grid products: non-integers refused, bad codes refused, order capped."""

import dataclasses

import numpy as np
import pytest

import exactdp.spaces.grid as grid_mod
from exactdp.errors import InvalidArgument
from exactdp.kernel.threshold_spd import MAX_ORDER
from exactdp.linalg.grid_exact_conv import GridConvolution
from exactdp.spaces.metrics import grid
from exactdp.threshold import epsilon_threshold


def test_non_integers_are_refused_not_truncated():
    conv = GridConvolution(2, 1, [[0], [1]])
    assert conv.products([2, -1], [[3, 5]]) == [[1, 7]]
    assert conv.products([2, -1], [[3.0, 5.0]]) == [[1, 7]]      # integral floats are exact
    for bad in ([[0.5, 1.7]], [[float("nan"), 1]], [[float("inf"), 1]]):
        with pytest.raises(InvalidArgument, match="integers"):
            conv.products([2, -1], bad)
    with pytest.raises(InvalidArgument, match="integers"):
        conv.products([2.5, -1], [[3, 5]])


def test_bad_codes_and_widths_are_refused():
    with pytest.raises(InvalidArgument, match="≥ 0"):
        GridConvolution(2, 1, [[-1], [0]])
    with pytest.raises(InvalidArgument, match="integers"):
        GridConvolution(2, 1, [[0.0], [1.0]])
    with pytest.raises(InvalidArgument, match="width"):
        GridConvolution(2.0, 1, [[0], [1]])


def test_matrix_free_certificate_with_a_huge_order_is_rejected_fast(monkeypatch):
    monkeypatch.setattr(grid_mod, "MATRIX_FREE_ABOVE_N", 10)
    cert = epsilon_threshold(grid(4, 4), method="certified").certificate
    assert cert.verify()
    assert dataclasses.is_dataclass(cert) and hasattr(cert, "order")
    forged = dataclasses.replace(cert, order=MAX_ORDER + 1)
    assert not forged.verify()
    assert np.isfinite(float(cert.eps_upper))
