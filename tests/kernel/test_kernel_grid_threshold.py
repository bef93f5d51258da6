"""Issue 15/11: the matrix-free grid threshold certificate (kind ``grid-threshold``) has a JSON
form and a kernel check, independent of the search (exact integer convolutions, lattice λ).

Ground truth for the tamperings: ε* of grid(31, 31) lies in [0.665351582953, 0.665351583739]
(every certified enclosure of the k×k grids, k = 26…60, and the dense route, docs/readme/
grid_scale.md); the genuine certificate proves z > 0 on [hi, ∞) and z_w(lo) < 0, so a
claim "fails at ε ≥ hi" or "holds from ε < lo" is false.
"""

from __future__ import annotations

import json
import math
import random
import subprocess
import sys
from dataclasses import replace
from fractions import Fraction as F

import numpy as np
import pytest
from flint import fmpz_mat

import exactdp.kernel.grid_point as grid_point_kernel
import exactdp.kernel.threshold_grid as threshold_grid_kernel
from exactdp.algebra.lattice_spectrum import euclidean_lattice_lambda_lower
from exactdp.arithmetic.interval import Enclosure
from exactdp.arithmetic.rounding import dyadic_down
from exactdp.engine.grid_threshold_documents import write_grid_threshold
from exactdp.errors import InstanceTooLarge, InvalidArgument
from exactdp.kernel.jsonio import dumps, loads
from exactdp.kernel.threshold_cover import lemma_row_sum_bound
from exactdp.kernel.threshold_grid import (
    MAX_GRID_PIECES,
    MAX_GRID_WORK,
    GridProducts,
    GridThresholdClaim,
    check_grid_threshold,
    read_grid_threshold,
    require_grid_work,
)
from exactdp.kernel.threshold_spd import DenseProducts, piece_ok
from exactdp.kernel.verify import SUPPORTED_KINDS, verify_json
from exactdp.spaces.metrics import grid
from exactdp.spaces.metrics.masked import GridShape, grid_shape, masked_grid
from exactdp.testing.budget import call_budget
from exactdp.threshold import epsilon_threshold
from exactdp.threshold.certificates import SpdCoverCertificate, threshold_certificate_from_json
from exactdp.threshold.results import ThresholdResult

ROOT = __import__("pathlib").Path(__file__).resolve().parents[2]
TRUE_LO, TRUE_HI = F("0.665351582953"), F("0.665351583739")  # ε* of grid(31, 31) lies inside


@pytest.fixture(scope="module")
def big():
    r = epsilon_threshold(grid(31, 31))  # n = 961 > 900: the matrix-free route
    assert isinstance(r.certificate, SpdCoverCertificate) and not r.certificate.nodes
    assert TRUE_LO <= r.eps_upper and r.eps_lower <= TRUE_HI
    return r, r.to_json()


def _rejected(doc) -> bool:
    try:
        return not verify_json(dumps(doc)).verified
    except InvalidArgument:
        return True


def test_document_carries_the_shape_not_distances(big):
    r, doc = big
    assert doc["kind"] == "grid-threshold" and "grid-threshold" in SUPPORTED_KINDS
    assert doc["question"]["metric"] == {"encoding": "grid", "width": 31, "height": 31,
                                         "norm": "euclidean", "spacing": "1", "mask": None}
    assert len(dumps(doc)) < 20_000


def test_round_trip_and_fresh_process(big, tmp_path):
    r, doc = big
    again = threshold_certificate_from_json(dumps(doc))
    assert again.to_json() == doc and again.verify()
    res = ThresholdResult.from_json(dumps(doc))
    assert res.eps_enclosure == r.eps_enclosure and res.to_json() == doc
    p = tmp_path / "g.json"
    p.write_text(dumps(doc))
    code = ("import sys, runpy\nsys.argv = ['exactdp', 'verify', sys.argv[1]]\n"
            "try:\n    runpy.run_module('exactdp', run_name='__main__')\n"
            "except SystemExit as e:\n    rc = e.code\n"
            "bad = sorted(m for m in sys.modules if m.startswith(('exactdp.threshold', "
            "'exactdp.engine', 'exactdp.algebra')))\nprint('SEARCH-MODULES', bad)\nsys.exit(rc)\n")
    proc = subprocess.run([sys.executable, "-c", code, str(p)], capture_output=True, text=True,
                          timeout=180, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "grid-threshold: verified" in proc.stdout


def _edit(doc, f):
    d = loads(dumps(doc))
    f(d)
    return d


def test_tampered_documents_are_rejected(big):
    r, doc = big
    ev = doc["evidence"]
    lo, hi = F(doc["claim"]["eps"]["lo"]), F(doc["claim"]["eps"]["hi"])
    p0 = ev["pieces"][0]
    edits = {
        # λ doubled: the lattice bound is within ~4 % of λ_min, so 2λ > λ_min (false)
        "piece lam": lambda d: d["evidence"]["pieces"][3].__setitem__("lam", str(2 * F(p0["lam"]))),
        # a piece reaching below ε* ("z > 0 on [TRUE_LO − 1/100, b]" is false)
        "piece lo": lambda d: d["evidence"]["pieces"][0].__setitem__("lo", str(TRUE_LO - F(1, 100))),
        # a gap in the cover (uncovered ε are not proved)
        "piece hi": lambda d: d["evidence"]["pieces"][1].__setitem__(
            "hi", str((F(d["evidence"]["pieces"][1]["lo"]) + F(d["evidence"]["pieces"][1]["hi"])) / 2)),
        # "fails at hi": false (the genuine cover proves z > 0 there)
        "eps lo": lambda d: d["claim"].__setitem__("eps", {"lo": str(hi), "hi": str(hi + 1)}),
        # "ε* ≤ TRUE_LO − 1/10": false
        "eps hi": lambda d: d["claim"].__setitem__("eps", {"lo": str(lo - F(1, 5)),
                                                           "hi": str(TRUE_LO - F(1, 10))}),
        # z_w(lo) ≈ −10⁻¹⁰ at the genuine witness: "z_w ≤ −1" is false
        "fail upper": lambda d: d["evidence"]["fail"].__setitem__("upper", "-1"),
        "fail lam": lambda d: d["evidence"]["fail"].__setitem__("lam", str(2 * F(ev["fail"]["lam"]))),
        "t0": lambda d: d["evidence"].__setitem__("t0", "1/2"),  # lemma false at t0 = 1/2
        # spacing 2 halves ε*: [lo, hi] ≈ 0.665 is false for it
        "shape spacing": lambda d: d["question"]["metric"].__setitem__("spacing", "2"),
        "shape norm": lambda d: d["question"]["metric"].__setitem__("norm", "manhattan"),
        "order": lambda d: d["evidence"].__setitem__("order", 9),
        "no pieces": lambda d: d["evidence"].__setitem__("pieces", []),
    }
    for label, f in edits.items():
        assert _rejected(_edit(doc, f)), label
    # the witness moved to a point where z(lo) is far from negative (float z ≥ 0.05 there,
    # rounding error < 10⁻⁶): "z_0(lo) < 0" is false
    assert _rejected(_edit(doc, lambda d: d["evidence"]["fail"].__setitem__("index", 0)))
    # a Python-side tampering: the fail point at another ε
    c = r.certificate
    assert not replace(c, fail=replace(c.fail, eps=c.eps_upper)).verify()
    assert not replace(c, pieces=c.pieces[:-1]).verify()


def test_grid_and_dense_products_agree_exactly():
    rng = random.Random(5)
    for m in (grid(5, 4), masked_grid(6, 5, mask=["111011", "111111", "011110", "111111", "110111"]),
              grid(1, 4), grid(3, 1)):
        d, g = DenseProducts(m), GridProducts(grid_shape(m))
        rows: dict = {}

        def table(values, J, rows=rows):
            out = [rows.setdefault(v.square, [rng.randint(-2**110, 2**110) for _ in range(4)])[:J]
                   for v in values]
            return fmpz_mat(len(values), J, [x for r in out for x in r])

        ys = [[rng.randint(-2**62, 2**62) for _ in range(m.n)] for _ in range(4)]
        for J in (1, 4):
            ds, dz = d.sums(table(d.values, J), ys)
            gs, gz = g.sums(table(g.values, J), ys)
            assert ds.tolist() == gs.tolist() and dz == gz == [0] * J, m.name
        # the lemma's window counts dominate every row of the dense counts
        for t0 in (F(1, 20), F(1, 3)):
            assert lemma_row_sum_bound(m, t0) <= lemma_row_sum_bound((g.count_row, g.values), t0)


def test_pieces_checked_both_ways_agree():
    """Same pieces, same candidates: the dense and the grid products give the same verdict;
    and with each route's own candidates a true piece passes and a false one fails."""
    m = masked_grid(7, 6, mask=["1111111", "1101111", "1111111", "1111011", "0111111", "1111111"])
    g = GridProducts(grid_shape(m))
    ones = (F(1),) * m.n
    for a, b, K in ((F(1), F(11, 10), 3), (F(2, 10), F(21, 100), 3), (F(3, 2), F(5, 2), 2)):
        lam = dyadic_down(euclidean_lattice_lambda_lower(a, b), 60)
        Y = np.random.default_rng(1).normal(size=(m.n, K + 1))
        assert piece_ok(m, ones, a, b, K, lam, Y=Y) == piece_ok(g, ones, a, b, K, lam, Y=Y)
        assert piece_ok(m, ones, a, b, K, lam) == piece_ok(g, ones, a, b, K, lam)
    assert piece_ok(g, ones, F(1), F(11, 10), 3, dyadic_down(euclidean_lattice_lambda_lower(1, F(11, 10)), 60))


def test_masked_grid_claim_from_the_dense_route():
    """A masked grid: the dense route's certificate, turned into a grid claim (lattice λ on
    every piece), re-checks in the grid kernel; its shape edited to the full grid still
    parses but the claim is checked against that grid's own products."""
    m = masked_grid(6, 5, mask=["111011", "111111", "011110", "111111", "110111"])
    r = epsilon_threshold(m, method="certified")
    c = r.certificate
    assert isinstance(c, SpdCoverCertificate) and c.nodes
    spans = [(a, b) for a, b, _ in c.pieces]
    # the kernel's lemma counts the whole offset window (loose on a 6×5 grid): a smaller t0,
    # and ranges of width 1/2 up to −ln t0
    g = GridProducts(grid_shape(m))
    t0 = c.t0
    while lemma_row_sum_bound((g.count_row, g.values), t0) >= F(1, 2):
        t0 /= 2
    while spans[-1][1] < -math.log(float(t0)) + F(1, 100):
        spans.append((spans[-1][1], spans[-1][1] + F(1, 2)))
    pieces = tuple((a, b, dyadic_down(euclidean_lattice_lambda_lower(a, b), 60)) for a, b in spans)
    lam0 = dyadic_down(euclidean_lattice_lambda_lower(c.eps_lower, c.eps_lower), 60)
    claim = GridThresholdClaim(grid_shape(m), tuple(c.rhs), Enclosure(c.eps_lower, c.eps_upper),
                               (c.fail.index, F(0), lam0), t0, c.order, pieces)
    assert check_grid_threshold(claim)
    assert not check_grid_threshold(replace(claim, t0=c.t0 * 2))
    assert not check_grid_threshold(replace(claim, fail=(c.fail.index, F(-1), lam0)))
    assert not check_grid_threshold(replace(claim, pieces=pieces[1:]))
    doc = write_grid_threshold(claim)
    assert doc["question"]["metric"]["mask"][0] == "111011"
    assert read_grid_threshold(loads(dumps(doc))) == claim
    # through the Python certificate (no Cholesky nodes: the grid form, at any size)
    again = threshold_certificate_from_json(dumps(doc))
    assert again.verify() and again.to_json() == doc


def test_point_alone_has_no_document_but_verifies(big):
    r, _ = big
    p = r.certificate.fail
    assert p.verify() and not replace(p, upper=-1.0).verify()
    with pytest.raises(InvalidArgument, match="matrix-free"):
        p.to_json()
    assert json.loads(dumps(r.to_json()))["evidence"]["fail"]["index"] == p.index


def _no_products(monkeypatch):
    """Make building a grid product an error: the refusals below must come before any."""
    def boom(*args, **kwargs):
        raise AssertionError("a grid product was set up before the work limit")

    for module in (grid_point_kernel, threshold_grid_kernel):
        monkeypatch.setattr(module, "GridProducts", boom)


def test_work_limit_refuses_forged_sizes_before_any_product(big, tmp_path, monkeypatch):
    """Review R15BC M2: a 3 KB document declaring 1000×1000 (or 2,001 pieces) is refused as
    too large (InstanceTooLarge, CLI exit 2 "undecided") before any product is built; before
    the limit it ran > 300 s at 2 GB. Library documents up to 400×400 stay under it."""
    r, doc = big
    _no_products(monkeypatch)
    forged = _edit(doc, lambda d: d["question"]["metric"].update(width=2000, height=2000))
    many = _edit(doc, lambda d: d["evidence"].__setitem__(
        "pieces", d["evidence"]["pieces"][:1] * (MAX_GRID_PIECES + 1)))
    for d in (forged, many):
        with call_budget(20_000), pytest.raises(InstanceTooLarge, match="exceeds the kernel's limits"):
            verify_json(dumps(d))
    claim = read_grid_threshold(doc)
    huge = GridShape(2000, 2000, "euclidean", F(1))
    over = replace(claim, shape=huge, rhs=(F(1),) * huge.n)
    with pytest.raises(InstanceTooLarge):  # (its 4·10⁶ rhs are read: no call budget here)
        check_grid_threshold(over)
    with call_budget(1_000), pytest.raises(InstanceTooLarge):  # the writer refuses what the kernel would not decide
        write_grid_threshold(over)
    monkeypatch.undo()
    assert not replace(r.certificate, pieces=r.certificate.pieces * 200).verify()  # never raises
    require_grid_work(GridShape(400, 400, "euclidean", F(1)), 25, 8)  # library sizes: accepted
    assert 400 * 400 * 26 * 9 <= MAX_GRID_WORK < 1000 * 1000 * 21 * 4 < 2000 * 2000 * 17 * 4
    p = tmp_path / "forged.json"
    p.write_text(dumps(forged))
    proc = subprocess.run([sys.executable, "-m", "exactdp", "verify", str(p)], capture_output=True,
                          text=True, timeout=120, cwd=ROOT)
    assert proc.returncode == 2, proc.stdout + proc.stderr


def test_work_limit_counts_distances_of_thin_grids(big, monkeypatch):
    """Review 15A9 M1: set-up and tables scale with the distinct distances, not W·H, so a
    forged 10⁶×1 document (6·10⁷ units < MAX_GRID_WORK, 10⁶ distances) ran for minutes in
    GridProducts.__init__; it is now refused before any set-up, as are 4·10⁶×1 and
    2000×2000 with one piece of order 0. A 1000×1000 grid stays under the distance bound."""
    _, doc = big
    _no_products(monkeypatch)
    thin = _edit(doc, lambda d: d["question"]["metric"].update(width=10**6, height=1))
    pieces = len(doc["evidence"]["pieces"])
    assert 10**6 * (pieces + 1) * (doc["evidence"]["order"] + 1) <= MAX_GRID_WORK
    square = _edit(doc, lambda d: (d["question"]["metric"].update(width=2000, height=2000),
                                   d["evidence"].update(order=0, pieces=d["evidence"]["pieces"][:1])))
    for forged in (thin, square):  # refused before the 4·10⁶-long b = 1 is built
        with call_budget(3_000), pytest.raises(InstanceTooLarge, match="distances"):
            verify_json(dumps(forged))
    for w, h, norm in ((4 * 10**6, 1, "euclidean"), (2000, 2000, "euclidean"),
                       (10**6, 1, "manhattan")):
        with call_budget(1_000), pytest.raises(InstanceTooLarge, match="distances"):
            require_grid_work(GridShape(w, h, norm, F(1)), 1, 0)
    monkeypatch.undo()
    require_grid_work(GridShape(1000, 1000, "euclidean", F(1)), 18, 3)
    # set-up per distance is cheap: thin grids' distances are rational (g·d(dx/g, dy/g))
    # set-up per distance was one sympy factorint each (≈ 3 s); its old timing bound is gone
    # (CI tests must not depend on timing) and a call budget would cost more than the test
    assert len(GridProducts(GridShape(40_000, 1, "euclidean", F(1, 3))).values) == 40_000
    require_grid_work(GridShape(2000, 2000, "manhattan", F(1)), 1, 0)
