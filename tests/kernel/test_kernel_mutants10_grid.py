"""Session 10 (builder 15D): tests that kill the surviving mutants of
``scripts/mutation.py exactdp/kernel/threshold_grid.py --pytest --sample 30`` (and
threshold_spd.py); each test names the mutant it kills. Equivalent survivors are argued
in the session report."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction as F

import numpy as np
import pytest
from flint import fmpz_mat

from exactdp.arithmetic.interval import Enclosure
from exactdp.engine.grid_threshold_documents import write_grid_threshold
from exactdp.errors import InstanceTooLarge, InvalidArgument
from exactdp.kernel.jsonio import dumps, loads
from exactdp.kernel.lattice import euclidean_lambda_ok
from exactdp.kernel.threshold_grid import (
    MAX_GRID_DISTANCES,
    GridThresholdClaim,
    check_grid_threshold,
    grid_fail_ok,
    read_grid_threshold,
    require_grid_work,
)
from exactdp.kernel.threshold_spd import DenseProducts, chord_ok, lambda_ok, piece_ok
from exactdp.spaces.metrics import line
from exactdp.spaces.metrics.masked import GridShape, grid_shape, masked_grid
from exactdp.threshold import epsilon_threshold
from exactdp.threshold.spd_cover import spd_fail_point


def test_distance_bound_of_thin_euclidean_grids_is_exact_at_the_limit():
    """Kills threshold_grid.require_grid_work ``m * (m - 1)`` → ``m * (m + 1)`` (the bound
    W·H − m(m − 1)/2 would drop by m): a W×1 grid has exactly W distinct distances."""
    require_grid_work(GridShape(MAX_GRID_DISTANCES, 1, "euclidean", F(1)), 1, 0)
    with pytest.raises(InstanceTooLarge):
        require_grid_work(GridShape(MAX_GRID_DISTANCES + 1, 1, "euclidean", F(1)), 1, 0)
    # Manhattan: W + H − 1 distinct distances
    require_grid_work(GridShape(MAX_GRID_DISTANCES, 1, "manhattan", F(1)), 1, 0)
    with pytest.raises(InstanceTooLarge):
        require_grid_work(GridShape(MAX_GRID_DISTANCES, 2, "manhattan", F(1)), 1, 0)


LN2 = F(6931471805599453094172321214581765680755, 10**40)


@pytest.fixture(scope="module")
def ell():
    mask = ["".join("1" if (x < 6 or y >= 6) else "0" for x in range(12)) for y in range(12)]
    m = masked_grid(12, 12, "manhattan", mask=mask)
    rhs = tuple(F(1) for _ in range(m.n))
    eps = LN2 - F(1, 1000)
    return m, rhs, eps, spd_fail_point(m, rhs, eps).grid_fail()


def test_manhattan_lambda_is_the_manhattan_bound(ell):
    """Kills threshold_grid._lambda_ok ``norm == "euclidean"`` → ``!=`` (a Manhattan λ above
    ((1 − t)/(1 + t))² = 1/9 at ln 2 passes the Euclidean lattice check)."""
    m, rhs, eps, (i, upper, lam) = ell
    assert grid_fail_ok(grid_shape(m), rhs, eps, i, upper, lam)
    assert euclidean_lambda_ok(eps, eps, F(1), 2 * lam)
    assert not grid_fail_ok(grid_shape(m), rhs, eps, i, upper, 2 * lam)


def test_reader_refuses_another_level_with_ones():
    """Kills threshold_grid.read_grid_threshold ``… or level != every ε`` → ``and``."""
    c = GridThresholdClaim(GridShape(3, 2, "euclidean", F(1)), (F(1),) * 6,
                           Enclosure(F(1, 2), F(1)), (0, F(-1, 10), F(1, 8)), F(1, 10), 3,
                           ((F(1), F(2), F(1, 8)),))
    doc = loads(dumps(write_grid_threshold(c)))
    assert read_grid_threshold(doc) == c
    doc["question"]["level"] = {"eps_range": {"lo": "0", "hi": "5"}}
    with pytest.raises(InvalidArgument):
        read_grid_threshold(doc)


def test_lambda_ok_shift_on_the_2_60_grid():
    """Kills threshold_spd.lambda_ok ``denominator > 2**60`` → ``>=`` and the first
    ``return False`` → ``return True``: σ with denominator exactly 2^60 is on the grid,
    σ = 1/3 is not (refused whatever λ)."""
    assert lambda_ok(line(4), F(1), F(2**58 + 1, 2**60), F(1, 8))
    assert not lambda_ok(line(4), F(1), F(2**58 + 1, 2**61), F(1, 8))
    assert not lambda_ok(line(4), F(1), F(1, 3), F(1, 8))


def test_work_limit_is_exact_at_the_boundary():
    """Kills threshold_grid.require_grid_work ``(npieces + 1)``/``(order + 1)`` → ``− 1`` and
    ``work >`` → ``>=``: 1000×1000 with 20·4 units per cell is exactly MAX_GRID_WORK."""
    big = GridShape(1000, 1000, "euclidean", F(1))
    require_grid_work(big, 19, 3)  # 10⁶·20·4 = 8·10⁷ = the limit
    for pieces, order in ((26, 2), (19, 4), (20, 3)):  # 8.1·10⁷, 10⁸, 8.4·10⁷
        with pytest.raises(InstanceTooLarge):
            require_grid_work(big, pieces, order)


def test_chord_pairs_from_the_first_and_up_to_b():
    """Kills threshold_spd.chord_ok ``max(bisect_right(eps, a), 1)`` → ``2`` (the first pair
    skipped), ``e0 >= b`` → ``>`` (a pair starting at b checked) and the dropped ``not``."""
    nodes = [(F(1, 2), F(1)), (F(1), F(1)), (F(2), F(1, 100))]
    assert chord_ok(line(4), nodes, F(3, 5), F(1), F(1, 2))    # only the pair (1/2, 1) matters
    assert not chord_ok(line(4), nodes[:2], F(3, 5), F(1), F(2))  # λ above the chord bound


def test_grid_check_refuses_a_fail_side_that_is_not_a_triple():
    """Kills threshold_grid.check_grid_threshold's first validation ``or`` chain → ``and``:
    a genuine claim with its fail evidence as a list (not a tuple) is refused."""
    m = masked_grid(5, 4, "euclidean", mask=["11111", "11011", "10001", "11111"])
    claim = epsilon_threshold(m, matrix_free=True).certificate.grid_claim()
    assert check_grid_threshold(claim)
    assert not check_grid_threshold(replace(claim, fail=list(claim.fail)))
    assert not check_grid_threshold(replace(claim, order=True))


def test_one_point_piece():
    """Kills threshold_spd.piece_ok ``n < 1`` → ``n < 2``: Φ = (1), z = b."""
    assert piece_ok(line(1), (F(1),), F(1), F(2), 3, F(1, 2))
    assert not piece_ok(line(1), (F(-1),), F(1), F(2), 3, F(1, 2))


def test_dense_histogram_product_is_exact_across_limbs():
    """Kills threshold_spd.hist_product ``mask = (1 << 30) − 1`` → ``(2 << 30) − 1`` (bit 30
    of each limb counted twice: an error far below what the usual pieces notice)."""
    m = line(3)
    idx = np.asarray(m.index)
    table = [3, 5, 2**70 + 7][:len(m.values)]
    v = [2**30 + 1, 2**60 + 2**30, -(2**45) - 2**90]
    S, _ = DenseProducts(m).sums(fmpz_mat(len(table), 1, table), [v])
    assert [int(x) for x in S[0]] == [sum(table[int(idx[i, j])] * v[j] for j in range(3))
                                      for i in range(3)]
