"""Session 11 (issue 11, kernel size, grid family): the checks merged into shared helpers
still reject every tampering they rejected before.

Merged: ``threshold_spd.point_ok`` (the ``spd-point`` check and the grid fail side),
``cover_args_ok`` / ``cover_ok`` (the ``spd-taylor-cover`` and ``grid-threshold`` covers),
``is_index`` (indices and Taylor orders), ``grid_point.shape_ok`` (the grid and b of
``grid-point``, ``grid-point-exact``, ``grid-threshold``), ``verdict_ok`` (holds / fails at a
witness of both one-ε kinds), ``read_grid_question`` (the three grid readers) and
``GridProducts`` (now also the product of ``grid-point``). Ground truth: each genuine claim
verifies; each tampered one states something false or malformed (noted per case).
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction as F

import pytest

from exactdp.arithmetic.interval import Enclosure
from exactdp.engine.documents import write_grid_point
from exactdp.engine.grid_documents import write_grid_point_exact
from exactdp.engine.grid_threshold_documents import write_grid_threshold
from exactdp.errors import InvalidArgument
from exactdp.kernel.grid_point import (
    GridPointClaim,
    GridProducts,
    check_grid_point,
    read_grid_point,
    shape_ok,
)
from exactdp.kernel.grid_point_exact import (
    GridPointExactClaim,
    check_grid_point_exact,
    read_grid_point_exact,
)
from exactdp.kernel.threshold_cover_claims import check_spd_cover
from exactdp.kernel.threshold_grid import check_grid_threshold, read_grid_threshold
from exactdp.kernel.threshold_spd import MAX_ORDER, check_spd_point, is_index
from exactdp.spaces.distances import grid_offset_distance
from exactdp.spaces.levels import parse_level
from exactdp.spaces.metrics import sum_query
from exactdp.spaces.metrics.masked import GridShape, masked_grid
from exactdp.threshold import epsilon_threshold

HALF = parse_level(t="1/2")
SH = GridShape(2, 1, "manhattan", F(1))  # Φ = [[1, 1/2], [1/2, 1]] at t = 1/2


@pytest.fixture(scope="module")
def spd():
    c = epsilon_threshold(sum_query(3, 3), method="certified").certificate
    cover, point = c.threshold_claim(), c.fail.spd_claim()
    assert cover.evidence["nodes"] and cover.evidence["pieces"]
    assert check_spd_cover(cover) and check_spd_point(point)
    return cover, point


@pytest.fixture(scope="module")
def gridc():
    m = masked_grid(5, 4, "euclidean", mask=["11111", "11011", "10001", "11111"])
    c = epsilon_threshold(m, matrix_free=True).certificate.grid_claim()
    assert check_grid_threshold(c)
    return c


def test_is_index():
    assert is_index(0, 1) and is_index(2, 3)
    assert not any(is_index(i, 3) for i in (True, False, -1, 3, 1.0, "1", None))


def test_spd_point_rejections(spd):
    _, p = spd
    n = p.metric.n
    bad = {
        "index bool": replace(p, index=True), "index n": replace(p, index=n),
        "index -1": replace(p, index=-1), "index float": replace(p, index=float(p.index)),
        "eps float": replace(p, eps=float(p.eps)), "eps out of range": replace(p, eps=F(2**40)),
        "upper float": replace(p, upper=float(p.upper)), "upper None": replace(p, upper=None),
        "upper -1": replace(p, upper=F(-1)),  # z_i(ε) ≈ −10⁻³ is not ≤ −1
        "lam 0": replace(p, lam=F(0)), "lam < 0": replace(p, lam=-p.lam),
        "lam float": replace(p, lam=float(p.lam)), "lam 100x": replace(p, lam=100 * p.lam),
        "sigma not dyadic": replace(p, sigma=p.sigma + F(1, 3)),
        "sigma float": replace(p, sigma=float(p.sigma)),
        "rhs short": replace(p, rhs=p.rhs[:-1]), "rhs float": replace(p, rhs=(1.0,) + p.rhs[1:]),
        "metric": replace(p, metric=SH),
    }
    for label, c in bad.items():
        assert not check_spd_point(c), label
    assert not check_spd_point((p.metric, p.rhs))


def test_spd_cover_rejections(spd):
    cover, _ = spd
    ev = cover.evidence
    nodes, pieces = ev["nodes"], ev["pieces"]
    a, b, lam = pieces[0]
    ev_bad = {
        "t0 float": {"t0": float(ev["t0"])}, "order bool": {"order": True},
        "order -1": {"order": -1}, "order too high": {"order": MAX_ORDER + 1},
        "nodes list": {"nodes": list(nodes)}, "node float": {"nodes": ((1.0,) + nodes[0][1:],) + nodes[1:]},
        "nodes reversed": {"nodes": nodes[::-1]} if len(nodes) > 1 else {"nodes": nodes + nodes},
        "node eps out of range": {"nodes": nodes + ((F(2**40), F(1, 2**60), F(0)),)},
        "node lam 100x": {"nodes": ((nodes[0][0], nodes[0][1], 100 * nodes[0][2]),) + nodes[1:]},
        "pieces list": {"pieces": list(pieces)}, "pieces without nodes": {"nodes": ()},
        "piece lam 0": {"pieces": ((a, b, F(0)),) + pieces[1:]},
        "piece lam 100x": {"pieces": ((a, b, 100 * lam),) + pieces[1:]},
        "piece a ≥ b": {"pieces": ((b, a, lam),) + pieces[1:]},
        "pieces overlap": {"pieces": pieces + ((a, b, lam),)},
        "piece out of range": {"pieces": pieces + ((F(2**40), F(2**40 + 1), lam),)},
        "gap": {"pieces": pieces[1:]},
        "fail elsewhere": {"fail": replace(ev["fail"], eps=cover.eps.hi)},
    }
    for label, edit in ev_bad.items():
        assert not check_spd_cover(replace(cover, evidence={**ev, **edit})), label
    lo, hi = cover.eps.lo, cover.eps.hi
    for label, eps in {"lo = hi": Enclosure(hi, hi), "lo 0": Enclosure(F(0), hi)}.items():
        assert not check_spd_cover(replace(cover, eps=eps)), label
    assert not check_spd_cover(replace(cover, evidence=tuple(ev.items())))
    assert not check_spd_cover(replace(cover, metric=SH))
    assert lo < hi


def test_grid_threshold_rejections(gridc):
    c = gridc
    n, (i, upper, lam) = c.shape.n, c.fail
    pa, pb, pl = c.pieces[0]
    bad = {
        "spacing int": replace(c, shape=replace(c.shape, spacing=1)),
        "spacing 0": replace(c, shape=replace(c.shape, spacing=F(0))),
        "norm": replace(c, shape=replace(c.shape, norm="chebyshev")),
        "rhs list": replace(c, rhs=list(c.rhs)), "rhs float": replace(c, rhs=(1.0,) + c.rhs[1:]),
        "rhs short": replace(c, rhs=c.rhs[:-1]), "t0 float": replace(c, t0=float(c.t0)),
        "lo 0": replace(c, eps=Enclosure(F(0), c.eps.hi)),
        "lo = hi": replace(c, eps=Enclosure(c.eps.hi, c.eps.hi)),
        "order bool": replace(c, order=True), "order 9": replace(c, order=MAX_ORDER + 1),
        "pieces list": replace(c, pieces=list(c.pieces)),
        "pieces overlap": replace(c, pieces=c.pieces + c.pieces[:1]),
        "piece lam 0": replace(c, pieces=((pa, pb, F(0)),) + c.pieces[1:]),
        "piece lam 100x": replace(c, pieces=((pa, pb, 100 * pl),) + c.pieces[1:]),
        "piece out of range": replace(c, pieces=c.pieces + ((F(2**40), F(2**40 + 1), pl),)),
        "fail list": replace(c, fail=list(c.fail)), "fail pair": replace(c, fail=c.fail[:2]),
        "fail index bool": replace(c, fail=(True, upper, lam)),
        "fail index n": replace(c, fail=(n, upper, lam)),
        "fail upper float": replace(c, fail=(i, float(upper), lam)),
        "fail lam 0": replace(c, fail=(i, upper, F(0))),
        "fail lam 100x": replace(c, fail=(i, upper, 100 * lam)),
    }
    for label, cc in bad.items():
        assert not check_grid_threshold(cc), label
    # malformed claims over the work limit are rejected (False), not refused as too large
    assert not check_grid_threshold(replace(c, order=10**9))
    assert not check_grid_threshold(replace(c, pieces=((F(2), F(1), F(1)),) * 3000))


def _point(rhs, holds, witness, mantissas):
    return GridPointClaim(SH, HALF, rhs, holds, witness, mantissas, 22, F(1, 9), 64)


def test_grid_point_rejections():
    one, two = (F(1), F(1)), 2 << 22
    holds = _point(one, True, None, (2796202, 2796203))      # z = (2/3, 2/3)
    fails = _point((F(1), F(-1)), False, 1, (two, -two))     # z = (2, −2)
    assert check_grid_point(holds) and check_grid_point(fails)
    bad = {
        "holds with witness": replace(holds, witness=0),
        "holds y < ρ": replace(holds, mantissas=(2796202, 1)),
        "fails, no witness": replace(fails, witness=None),
        "fails, witness bool": replace(fails, witness=True),
        "fails, witness 2": replace(fails, witness=2), "fails, witness -1": replace(fails, witness=-1),
        "fails, y_w > 0": replace(fails, witness=0),
        "spacing int": replace(holds, shape=replace(SH, spacing=1)),
        "spacing < 0": replace(holds, shape=replace(SH, spacing=F(-1))),
        "norm": replace(holds, shape=replace(SH, norm="chebyshev")),
        "empty": replace(holds, shape=GridShape(0, 1, "manhattan", F(1))),
        "rhs list": replace(holds, rhs=list(one)), "rhs float": replace(holds, rhs=(1.0, F(1))),
        "rhs short": replace(holds, rhs=one[:1]), "mantissas short": replace(holds, mantissas=(2796202,)),
        "lam float": replace(holds, lam=1 / 9), "lam 0": replace(holds, lam=F(0)),
        "lam 1/8": replace(holds, lam=F(1, 8)),  # above ((1 − t)/(1 + t))² = 1/9
    }
    for label, c in bad.items():
        assert not check_grid_point(c), label


def test_grid_point_exact_rejections():
    one = (F(1), F(1))
    holds = GridPointExactClaim(SH, HALF, one, True, None, (2, 2), 3)
    fails = GridPointExactClaim(SH, HALF, (F(1), F(-1)), False, 1, (2, -2), 1)
    line = GridPointExactClaim(replace(SH, norm="chebyshev"), HALF, one, True, None, (2, 2), 3)
    assert check_grid_point_exact(holds) and check_grid_point_exact(fails)
    assert check_grid_point_exact(line)  # one row: distances (|dx| + |dy|)·h for any norm
    bad = {
        "holds with witness": replace(holds, witness=0),
        "fails, witness bool": replace(fails, witness=True),
        "fails, no witness": replace(fails, witness=None),
        "fails, z_w > 0": replace(fails, witness=0), "fails, witness 2": replace(fails, witness=2),
        "norm": replace(holds, shape=replace(SH, norm="l3")),
        "spacing int": replace(holds, shape=replace(SH, spacing=1)),
        "rhs list": replace(holds, rhs=list(one)), "rhs short": replace(holds, rhs=one[:1]),
        "numerators short": replace(holds, numerators=(2,)),
        "denominator 0": replace(holds, denominator=0), "denominator bool": replace(fails, denominator=True),
        "Φz ≠ b": replace(holds, denominator=4),
    }
    for label, c in bad.items():
        assert not check_grid_point_exact(c), label


def test_grid_readers_check_the_kind(gridc):
    point = _point((F(1), F(1)), True, None, (2796202, 2796203))
    exact = GridPointExactClaim(SH, HALF, (F(1), F(1)), True, None, (2, 2), 3)
    docs = {read_grid_point: write_grid_point(point), read_grid_point_exact: write_grid_point_exact(exact),
            read_grid_threshold: write_grid_threshold(gridc)}
    for reader, doc in docs.items():
        assert reader(doc) is not None
        for other, odoc in docs.items():
            if other is not reader:
                with pytest.raises(InvalidArgument, match="kind"):
                    reader(odoc)


@pytest.mark.parametrize("W, H, norm, h", [(4, 3, "euclidean", F(1)), (5, 5, "euclidean", F(3, 2)),
                                           (4, 3, "manhattan", F(2)), (6, 1, "chebyshev", F(1))])
def test_grid_products_codes_name_the_offset_distances(W, H, norm, h):
    """GridProducts keys offsets with numpy now (sorted keys, distances computed on first
    use): every offset's code names its exact distance, and the counts are the window's."""
    op = GridProducts(GridShape(W, H, norm, h))
    for dx in range(W):
        for dy in range(H):
            assert op.values[op.code[dx, dy]] == grid_offset_distance(dx, dy, norm, h)
    assert op.keys == sorted(set(op.keys)) and int(op.count_row.sum()) == (2 * W - 1) * (2 * H - 1)
    assert shape_ok(op.shape, (F(1),) * op.n, (norm,)) and not shape_ok(op.shape, (F(1),) * op.n, ())
