"""The matrix-free one-ε grid route (issue 15): agrees with the dense route, certificates
re-check from the question, tampering is caught, JSON re-checks in a fresh process."""

import json
import subprocess
import sys
from dataclasses import replace
from fractions import Fraction

import numpy as np
import pytest

from exactdp.engine import grid_point as GP
from exactdp.engine.core import solve_nonnegative
from exactdp.engine.grid_point import GridPointCertificate, solve_grid_point
from exactdp.errors import InvalidArgument, InvalidMetric, PrecisionLimitReached
from exactdp.kernel.jsonio import dumps
from exactdp.kernel.verify import verify_document
from exactdp.kinds import Verdict
from exactdp.regularity import is_regular
from exactdp.spaces.levels import parse_level
from exactdp.spaces.metrics import grid
from exactdp.spaces.metrics.masked import masked_grid
from exactdp.tight import tight_constraints

MASK = ["0111110", "1111111", "1101111", "1111100", "0111100"]
N_MASK = sum(r.count("1") for r in MASK)


def _prior(n, seed):
    rng = np.random.default_rng(seed)
    w = [int(v) for v in rng.integers(1, 50, n)]
    return tuple(Fraction(v, sum(w)) for v in w)


CASES = [
    (grid(6, 5), {"eps": "1/2"}), (grid(6, 5), {"eps": "1"}), (grid(4, 7), {"eps": "ln(3)"}),
    (grid(6, 5, "manhattan"), {"t": "1/2"}), (grid(5, 3, "manhattan", "3/2"), {"eps": "1/5"}),
    (masked_grid(7, 5, mask=MASK), {"eps": "3/4"}),
    (masked_grid(7, 5, "manhattan", mask=MASK), {"t": "2/3"}),
]


@pytest.mark.parametrize("metric, lvl", CASES, ids=lambda c: getattr(c, "name", str(c)))
@pytest.mark.parametrize("prior_seed", [None, 1])
def test_forced_route_agrees_with_dense_and_encloses(metric, lvl, prior_seed):
    level = parse_level(**lvl)
    b = None if prior_seed is None else _prior(metric.n, prior_seed)
    dense = solve_nonnegative(metric, level, b, method="ball")
    sol = solve_grid_point(metric, level, b)
    assert sol.holds == dense.holds
    assert sol.certificate.verify()
    enc = sol.enclosure_builder()
    for e, d in zip(enc, dense.x_enclosure):  # both rigorous: they must overlap
        assert e.lo <= d.hi and d.lo <= e.hi


def test_enclosure_contains_exact_solution_at_rational_t():
    m = masked_grid(7, 5, "manhattan", mask=MASK)
    level = parse_level(t="1/3")
    exact = solve_nonnegative(m, level, method="exact").x_exact
    enc = solve_grid_point(m, level).enclosure_builder()
    assert all(e.lo <= z <= e.hi for e, z in zip(enc, exact))
    assert max(e.hi - e.lo for e in enc) < Fraction(1, 10**9)


def test_refinement_decides_where_float_cannot():
    # ε within ~1e-16 of the 12×12 grid's threshold: min z is at rounding level
    m, eps = grid(12, 12), Fraction(66535826340494763, 10**17)
    sol = solve_grid_point(m, parse_level(eps=eps))
    assert sol.rounds >= 1 and sol.certificate.verify()
    assert sol.holds == solve_nonnegative(m, parse_level(eps=eps), method="ball").holds
    with pytest.raises(PrecisionLimitReached, match=r"x\[\d+\] = .* not separated from 0"):
        solve_grid_point(m, parse_level(eps=eps), max_bits=60)


def test_tampered_certificates_are_rejected():
    m, level = grid(6, 5, "manhattan"), parse_level(t="1/2")
    cert = solve_grid_point(m, level).certificate
    assert cert.holds and cert.verify()
    bad_y = list(cert.mantissas)
    bad_y[7] -= 2**cert.exponent // 8
    assert not replace(cert, mantissas=tuple(bad_y)).verify()
    assert not replace(cert, lam=cert.lam * 2).verify()  # λ above the proved bound
    assert not replace(cert, holds=False, witness=0).verify()
    assert not replace(cert, level=parse_level(t="9/10")).verify()
    assert not replace(cert, rhs=(Fraction(2),) * m.n).verify()
    assert not replace(cert, exponent=cert.exponent + 1).verify()
    assert not cert.answers(grid(5, 6, "manhattan"), level, cert.rhs, True)
    assert not cert.answers(m, level, cert.rhs, False)
    fails = solve_grid_point(grid(6, 5), parse_level(eps="1/2")).certificate
    assert not fails.holds and fails.verify()
    assert not replace(fails, witness=(fails.witness + 1) % 30).verify() or \
        fails.mantissas[(fails.witness + 1) % 30] < 0


def test_auto_route_and_public_results(monkeypatch):
    monkeypatch.setattr(GP, "GRID_POINT_ABOVE_N", 20)
    r = tight_constraints(grid(6, 5), eps="1")
    assert r.method == "grid-matrix-free" and r.exists and r.verify()
    assert r.verdict is Verdict.HOLDS and r.engine.x_exact is None
    assert all(e.lo > 0 for e in r.z_enclosure)
    prior = _prior(N_MASK, 3)
    q = is_regular(masked_grid(7, 5, mask=MASK), prior, eps="2")
    assert q.method == "grid-matrix-free" and q.verify()
    assert q.regular == is_regular(masked_grid(7, 5, mask=MASK), prior, eps="2",
                                   method="ball").regular
    # chebyshev grids stay on the dense route (no proved λ bound)
    assert tight_constraints(grid(6, 5, "chebyshev"), eps="1").method != "grid-matrix-free"
    with pytest.raises(InvalidMetric):
        solve_grid_point(grid(6, 5, "chebyshev"), parse_level(eps="1"))


def test_json_round_trip_and_fresh_process(tmp_path):
    man = solve_grid_point(masked_grid(7, 5, "manhattan", mask=MASK),
                           parse_level(t="1/2"), _prior(N_MASK, 4)).certificate
    euc = solve_grid_point(grid(6, 5), parse_level(eps="ln(2)")).certificate
    for cert in (man, euc):
        doc = cert.to_json()
        again = GridPointCertificate.from_json(dumps(doc))
        assert again.to_json() == doc and again.verify()
    assert verify_document(man.to_json()).verified
    tampered = json.loads(dumps(man.to_json()))
    shift = 2 ** (man.exponent - 2)  # y_3 moved by 1/4
    tampered["evidence"]["mantissas"][3] = str(int(tampered["evidence"]["mantissas"][3]) + shift)
    assert not verify_document(tampered).verified
    assert verify_document(euc.to_json()).verified  # λ re-proved by kernel.lattice
    mpath = tmp_path / "man.json"
    mpath.write_text(dumps(man.to_json()))
    kernel = subprocess.run([sys.executable, "-m", "exactdp.kernel", str(mpath)], timeout=120,
                            capture_output=True, text=True)
    assert kernel.returncode == 0 and "grid-point: verified" in kernel.stdout
    path = tmp_path / "euc.json"
    path.write_text(dumps(euc.to_json()))
    code = ("import sys; from exactdp.engine.grid_point import GridPointCertificate as C; "
            f"c = C.from_json(open({str(path)!r}).read()); "
            f"sys.exit(0 if c.verify() and c.holds is {euc.holds} else 1)")
    assert subprocess.run([sys.executable, "-c", code], timeout=120).returncode == 0


def test_masked_grid_constructor():
    m = masked_grid(7, 5, mask=MASK)
    assert m.n == sum(r.count("1") for r in MASK)
    with pytest.raises(InvalidArgument):
        masked_grid(3, 2, mask=["111"])
    with pytest.raises(InvalidArgument):
        masked_grid(2, 1, mask=["00"])
    with pytest.raises(InvalidMetric):
        type(m)("x", [], [], np.zeros((0, 0)))
