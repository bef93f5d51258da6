"""Issue 15 (session 10): the one-ε grid route decides an exactly-zero z entry exactly.

At a rational T = e^{−ε·h} on a grid with distances k·h (Manhattan; one row or column),
an entry z_i = 0 can never be separated from 0 by enclosures (the route refined to
max_bits and raised). Now the route tries the exact rational z (kind ``grid-point-exact``),
whose kernel check recomputes Φz − b exactly in integers."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from fractions import Fraction as F

import pytest
from flint import fmpq, fmpq_mat

from exactdp.cli.app import main
from exactdp.engine import grid_exact as GE
from exactdp.engine import grid_point as GP
from exactdp.engine.grid_exact import GridPointExactCertificate, exact_grid_point
from exactdp.engine.grid_point import (
    GridPointCertificate,
    grid_point_document,
    solve_grid_point,
)
from exactdp.errors import InstanceTooLarge, InvalidArgument, PrecisionLimitReached
from exactdp.kernel.grid_point_exact import (
    GridPointExactClaim,
    check_grid_point_exact,
    read_grid_point_exact,
)
from exactdp.kernel.verify import verify_document
from exactdp.regularity import RegularityResult, is_regular
from exactdp.spaces.levels import parse_level
from exactdp.spaces.metrics import grid
from exactdp.spaces.metrics.masked import GridShape, masked_grid
from exactdp.tight import TightConstraintsResult, tight_constraints


def l_shape(w: int, h: int) -> list[str]:
    return ["".join("1" if (x < w // 2 or y >= h // 2) else "0" for x in range(w))
            for y in range(h)]


def dense_z(m, t: F, rhs) -> list[F]:
    """Independent exact solve (flint fmpq_mat from the points' coordinates), small n only."""
    pts = m.points
    tq = fmpq(t.numerator, t.denominator)
    A = fmpq_mat(m.n, m.n, [tq ** int(abs(a[0] - c[0]) + abs(a[1] - c[1])) for a in pts for c in pts])
    z = A.solve(fmpq_mat(m.n, 1, [fmpq(v.numerator, v.denominator) for v in rhs]))
    return [F(int(e.p), int(e.q)) for e in z.entries()]


def phi_times(m, t: F, alpha) -> list[F]:
    """Φα exactly (dense, independent of the route), small n only."""
    pts = m.points
    return [sum(t ** int(abs(a[0] - c[0]) + abs(a[1] - c[1])) * x for c, x in zip(pts, alpha))
            for a in pts]


L12 = masked_grid(12, 12, "manhattan", mask=l_shape(12, 12))
HALF = parse_level(t="1/2")


def test_old_route_raised_the_exact_route_decides(monkeypatch):
    truth = dense_z(L12, F(1, 2), [F(1)] * L12.n)
    assert min(truth) == 0                       # an exactly-zero entry (inner corner)
    monkeypatch.setattr(GP, "exact_grid_point", lambda *a: None)  # the session-9 route
    with pytest.raises(PrecisionLimitReached, match="may be exactly 0"):
        solve_grid_point(L12, HALF, max_bits=140)
    monkeypatch.undo()
    sol = solve_grid_point(L12, HALF, max_bits=140)
    assert isinstance(sol.certificate, GridPointExactCertificate) and sol.method == "grid-exact"
    assert sol.holds and sol.bits is None and list(sol.x_exact) == truth
    assert sol.certificate.verify() and sol.certificate.denominator == 9
    assert all(e.lo == e.hi == z for e, z in zip(sol.enclosure_builder(), truth))


def test_public_results_on_a_large_l_are_exact_and_reload():
    m = masked_grid(40, 40, "manhattan", mask=l_shape(40, 40))   # n = 1200 > 900: matrix-free
    r = tight_constraints(m, t="1/2")
    assert r.method == "grid-exact" and r.exists and r.verify()
    assert [i for i, v in enumerate(r.z_exact) if v == 0] == [419]
    again = TightConstraintsResult.from_json(json.dumps(r.to_json()))
    assert again.method == "grid-exact" and again.z_exact == r.z_exact and again.verify()
    # ε = ln 2 given exactly is the same rational t
    assert tight_constraints(m, eps="log(2)").method == "grid-exact"
    q = is_regular(m, "uniform", t="1/2")
    assert q.method == "grid-exact" and q.regular and min(q.alpha_exact) == 0
    back = RegularityResult.from_json(q.to_json())
    assert back.verify() and back.alpha_exact == q.alpha_exact


@pytest.mark.parametrize("t", [F(1, 3), F(2, 3), F(1, 2)])
def test_t_range_prior_with_exact_zero_in_alpha(monkeypatch, t):
    """π = Φα/Σ(Φα) with α ≥ 0 and exact zeros: α (scaled) is the exact answer at t = 1/3,
    2/3, 1/2 (small α: the first guess z/max|b| finds it; the direction guess is tested in
    ``test_grid_exact_review10.py::test_direction_guess_is_what_finds_z``)."""
    monkeypatch.setattr(GP, "GRID_POINT_ABOVE_N", 1)
    m = masked_grid(7, 6, "manhattan", mask=["1111100", "1111100", "1111111", "1111111",
                                             "0111111", "0011111"])
    alpha = [F(0) if i % 7 == 3 else F(1 + i % 3) for i in range(m.n)]
    pa = phi_times(m, t, alpha)
    prior = [v / sum(pa) for v in pa]
    r = is_regular(m, prior, t=str(t))
    assert r.method == "grid-exact" and r.regular and r.certificate.verify()
    assert list(r.alpha_exact) == dense_z(m, t, prior) == [a / sum(pa) for a in alpha]
    # a perturbed prior with a negative α entry: decided "not regular" (enclosures or exact)
    bad = list(alpha)
    bad[3] = F(-1, 100)
    pb = phi_times(m, t, bad)
    r2 = is_regular(m, [v / sum(pb) for v in pb], t=str(t))
    assert not r2.regular and r2.certificate.verify()


def test_exact_fails_verdict_with_witness():
    m = masked_grid(9, 8, "manhattan", mask=l_shape(9, 8))
    cert = exact_grid_point(m, parse_level(t="51/100"))      # the inner corner goes negative
    assert cert is not None and not cert.holds and cert.z[cert.witness] < 0
    assert list(cert.z) == dense_z(m, F(51, 100), [F(1)] * m.n) and cert.verify()
    assert not replace(cert, witness=0).verify()             # z_0 > 0: no witness there
    assert not replace(cert, holds=True, witness=None).verify()


def test_enclosures_still_decide_first_and_irrational_t_never_takes_the_exact_path(monkeypatch):
    def boom(*args, **kwargs):
        raise AssertionError("the exact route was called")

    # decided by enclosures in round 0: no exact attempt
    monkeypatch.setattr(GP, "exact_grid_point", boom)
    sol = solve_grid_point(grid(6, 5, "manhattan"), parse_level(t="1/3"))
    assert isinstance(sol.certificate, GridPointCertificate) and sol.method == "grid-matrix-free"
    monkeypatch.undo()
    # irrational t (ε = ln 2 + 10^-30): the corner is 10^-30-ish, never exact; grid_exact_z
    # must not run; refinement decides it (certified)
    monkeypatch.setattr(GE, "grid_exact_z", boom)
    lvl = parse_level(eps="log(2) + 10**-30")
    assert lvl.t is None
    sol = solve_grid_point(L12, lvl)
    assert sol.method == "grid-matrix-free" and sol.holds and sol.rounds >= 1
    assert exact_grid_point(L12, lvl) is None
    # Euclidean (irrational distances) at a rational t: not this path either
    assert exact_grid_point(masked_grid(6, 6, "euclidean", mask=l_shape(6, 6)), HALF) is None


def _doc(rhs=None):
    cert = exact_grid_point(L12, HALF, rhs)
    assert cert is not None
    return cert.to_json()


def test_forged_documents_are_rejected():
    doc = _doc()
    assert verify_document(doc).verified
    ev = doc["evidence"]
    k = ev["numerators"].index("0")

    def edit(fn):
        d = json.loads(json.dumps(doc))
        fn(d)
        return verify_document(d)

    def bump(d):
        d["evidence"]["numerators"][k] = "1"
    assert not edit(bump).verified                           # one z entry changed
    assert not edit(lambda d: d["evidence"].update(denominator="10")).verified
    assert not edit(lambda d: d["question"]["level"].update(t="1/3")).verified    # t changed
    mask = l_shape(12, 12)                                   # move one kept cell: same n
    assert mask[0] == "111111000000"
    mask[0] = "011111100000"
    assert not edit(lambda d: d["question"]["metric"].update(mask=mask)).verified  # shape
    flip = edit(lambda d: d["claim"].update(verdict="fails", witness=k))
    assert not flip.verified
    with pytest.raises(InvalidArgument):                     # not in lowest terms: malformed
        edit(lambda d: d["evidence"].update(
            denominator="18", numerators=[str(2 * int(x)) for x in ev["numerators"]]))
    with pytest.raises(InvalidArgument):                     # Euclidean: this kind does not apply
        edit(lambda d: d["question"]["metric"].update(norm="euclidean"))
    # b swapped: a prior document with two different entries exchanged
    prior = [F(1 + i % 2, 3 * L12.n) for i in range(L12.n)]
    prior = [v / sum(prior) for v in prior]
    pcert = exact_grid_point(L12, HALF, prior)
    assert pcert is not None and list(pcert.z) == dense_z(L12, F(1, 2), prior)
    d = pcert.to_json()
    assert verify_document(d).verified and d["question"]["rhs"][0] != d["question"]["rhs"][1]
    rhs = d["question"]["rhs"]
    rhs[0], rhs[1] = rhs[1], rhs[0]
    assert not verify_document(d).verified


def test_kernel_claims_and_limits():
    sh = GridShape(3, 1, "euclidean", F(1))                  # one row: Euclidean = Manhattan
    lvl = parse_level(t="1/2")
    z = dense_z(grid(3, 1, "manhattan"), F(1, 2), [F(1)] * 3)
    assert z == [F(2, 3), F(1, 3), F(2, 3)]
    assert check_grid_point_exact(GridPointExactClaim(sh, lvl, (F(1),) * 3, True, None, (2, 1, 2), 3))
    sq = GridShape(2, 2, "euclidean", F(1))                  # √2 distance: never accepted
    assert not check_grid_point_exact(GridPointExactClaim(sq, lvl, (F(1),) * 4, True, None,
                                                          (1,) * 4, 2))
    assert not check_grid_point_exact(GridPointExactClaim(sh, parse_level(eps="1"), (F(1),) * 3,
                                                          True, None, (2, 1, 2), 3))
    big = GridShape(60, 60, "manhattan", F(10**5))           # T = 2^-100000: too large a product
    with pytest.raises(InstanceTooLarge):
        check_grid_point_exact(GridPointExactClaim(big, lvl, (F(1),) * 3600, True, None,
                                                   (1,) * 3600, 1))
    assert exact_grid_point(grid(60, 60, "manhattan", F(10**5)), lvl) is None


def test_exit_codes_and_a_fresh_process(tmp_path):
    doc = _doc()
    paths = [tmp_path / f"in{k}.json" for k in range(4)]
    forged = json.loads(json.dumps(doc))
    forged["evidence"]["numerators"][0] = str(int(forged["evidence"]["numerators"][0]) + 1)
    huge = json.loads(json.dumps(doc))
    huge["question"]["metric"]["spacing"] = "100000"       # T = 2^-100000: over the work limit
    odd = json.loads(json.dumps(doc))
    odd["evidence"]["denominator"] = "0"
    for p, d in zip(paths, (doc, forged, huge, odd)):
        p.write_text(json.dumps(d))
    assert [main(["verify", str(p)]) for p in paths] == [0, 1, 2, 3]
    fresh = subprocess.run([sys.executable, "-m", "exactdp", "verify", str(paths[0])],
                           timeout=120, capture_output=True, text=True)
    assert fresh.returncode == 0 and "verified" in fresh.stdout
    back = grid_point_document(paths[0].read_text())
    assert isinstance(back, GridPointExactCertificate) and back.verify()
    assert read_grid_point_exact(doc).denominator == 9
