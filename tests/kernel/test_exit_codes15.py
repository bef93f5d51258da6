"""Session 15: a question over a kernel work limit is "undecided" (exit 2) on both entry
points — ``exactdp verify`` and ``python -m exactdp.kernel`` — never "malformed" (3).

Ground truth: a grid of 3,000 × 3,000 = 9·10⁶ points is a well-formed question over the
kernel's 4·10⁶-point limit (``MAX_GRID_POINTS``); a zero width is malformed.
"""

from __future__ import annotations

import copy
import subprocess
import sys
from fractions import Fraction as F

import pytest

from exactdp import metrics
from exactdp.engine.documents import write_grid_point
from exactdp.errors import InstanceTooLarge, InvalidArgument
from exactdp.kernel.grid_point import MAX_GRID_POINTS, GridPointClaim
from exactdp.kernel.jsonio import dumps
from exactdp.kernel.limits import MAX_PIECES
from exactdp.kernel.metricio import MAX_POINTS, build_builtin
from exactdp.kernel.verify import verify_document
from exactdp.spaces.levels import parse_level
from exactdp.spaces.metrics.masked import GridShape
from exactdp.threshold import epsilon_threshold


@pytest.fixture(scope="module")
def doc() -> dict:
    shape = GridShape(2, 1, "manhattan", F(1))  # Φ = [[1, 1/2], [1/2, 1]] at t = 1/2; z = (2/3, 2/3)
    claim = GridPointClaim(shape, parse_level(t="1/2"), (F(1), F(1)), True, None,
                           (2796202, 2796203), 22, F(1, 9), 64)
    d = write_grid_point(claim)
    assert verify_document(d).verified
    return d


def _resized(doc: dict, width: int, height: int) -> dict:
    d = copy.deepcopy(doc)
    d["question"]["metric"]["width"], d["question"]["metric"]["height"] = width, height
    return d


def test_a_grid_over_the_point_limit_is_undecided(doc: dict) -> None:
    assert 3000 * 3000 > MAX_GRID_POINTS >= 2000 * 2000
    with pytest.raises(InstanceTooLarge, match="3000×3000"):
        verify_document(_resized(doc, 3000, 3000))
    with pytest.raises(InstanceTooLarge):  # one huge side alone (was an InvalidArgument range error)
        verify_document(_resized(doc, MAX_GRID_POINTS + 1, 1))


def test_a_grid_at_the_limit_is_read_and_a_zero_side_is_malformed(doc: dict) -> None:
    # W·H = MAX_GRID_POINTS is within the limit: the shape is read, then the evidence is
    # malformed (2 mantissas for 4·10⁶ points)
    with pytest.raises(InvalidArgument, match=f"expected {MAX_GRID_POINTS}"):
        verify_document(_resized(doc, MAX_GRID_POINTS, 1))
    with pytest.raises(InvalidArgument, match="width"):
        verify_document(_resized(doc, 0, 1))


@pytest.mark.parametrize("module", [["exactdp.kernel"], ["exactdp", "verify"]])
def test_both_entry_points_exit_2(doc: dict, module: list[str], tmp_path) -> None:
    path = tmp_path / "big.json"
    path.write_text(dumps(_resized(doc, 3000, 3000)))
    proc = subprocess.run([sys.executable, "-m", *module, str(path)], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 2, proc.stdout + proc.stderr[-800:]
    assert "Traceback" not in proc.stderr


def test_hamming_values_over_the_point_limit_are_undecided() -> None:
    # V values on u = 1 individual make V points: V = MAX_POINTS is read (and refused for the
    # wrong n, malformed), V = MAX_POINTS + 1 is over the work limit
    with pytest.raises(InvalidArgument, match=f"has {MAX_POINTS} points, not n = 1"):
        build_builtin("hamming", {"values": list(range(MAX_POINTS)), "individuals": 1}, 1)
    with pytest.raises(InstanceTooLarge, match=f"has {MAX_POINTS + 1} items; the kernel checks at most {MAX_POINTS}"):
        build_builtin("hamming", {"values": list(range(MAX_POINTS + 1)), "individuals": 1}, 1)


def test_taylor_cover_ranges_over_the_piece_limit_are_undecided() -> None:
    # spd-taylor-cover nodes and pieces: at most MAX_PIECES each (a work limit); the copies
    # share one JSON object, so the oversized list is cheap to build and is refused on its count
    doc = epsilon_threshold(metrics.sum_query(3, 3), method="certified").certificate.to_json()
    assert doc["kind"] == "spd-taylor-cover" and verify_document(doc).verified
    for key in ("nodes", "pieces"):
        d = copy.deepcopy(doc)
        d["evidence"][key] = d["evidence"][key][:1] * (MAX_PIECES + 1)
        with pytest.raises(InstanceTooLarge, match=f"evidence.{key}: has {MAX_PIECES + 1} items"):
            verify_document(d)
