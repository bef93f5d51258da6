"""SPD point / SPD Taylor cover certificates: JSON form, kernel check, round trips (issue 11).

Ground truth for the instances: ε* of sum_query(3, 3) and count_queries(3) from the exact
route (polynomial case), z(ε) at the fail point from exact rationals (``linear_truth``).
"""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction as F

import pytest

from exactdp.errors import CertificateInvalid, InvalidArgument
from exactdp.kernel.jsonio import dumps, loads
from exactdp.kernel.threshold_cover_claims import check_spd_cover
from exactdp.kernel.threshold_spd import (
    SpdPointClaim,
    check_spd_point,
    lambda_ok,
    piece_ok,
)
from exactdp.kernel.verify import SUPPORTED_KINDS, verify_json
from exactdp.spaces.levels import parse_level
from exactdp.spaces.metrics import count_queries, line, sum_query
from exactdp.testing.oracle import linear_truth
from exactdp.testing.tampering import replace
from exactdp.threshold import epsilon_threshold
from exactdp.threshold.certificates import (
    CoverCertificate,
    SpdCoverCertificate,
    SpdPointCertificate,
    threshold_certificate_from_json,
)
from exactdp.threshold.krawczyk import krawczyk_cover
from exactdp.threshold.results import ThresholdResult

ROOT = __import__("pathlib").Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def spd_results():
    out = {}
    for m in (sum_query(3, 3), count_queries(3)):
        r = epsilon_threshold(m, method="certified")
        assert isinstance(r.certificate, SpdCoverCertificate)
        assert isinstance(r.certificate.fail, SpdPointCertificate)
        out[m.name] = r
    return out


def _kernel_process(paths):
    """Run ``python -m exactdp.kernel`` in a fresh process; also report whether any search
    module (exactdp.threshold, exactdp.engine) was imported."""
    code = ("import sys, runpy\n"
            "sys.argv = ['exactdp.kernel'] + sys.argv[1:]\n"
            "try:\n    runpy.run_module('exactdp.kernel', run_name='__main__')\n"
            "except SystemExit as e:\n    rc = e.code\n"
            "bad = sorted(m for m in sys.modules if m.startswith(('exactdp.threshold', "
            "'exactdp.engine', 'exactdp.mechanisms')))\n"
            "print('SEARCH-MODULES', bad)\n"
            "sys.exit(rc)\n")
    return subprocess.run([sys.executable, "-c", code, *map(str, paths)], capture_output=True,
                          text=True, timeout=120, cwd=ROOT)


def test_spd_kinds_are_supported():
    assert "spd-point" in SUPPORTED_KINDS and "spd-taylor-cover" in SUPPORTED_KINDS


def test_round_trip_through_a_fresh_kernel_process(spd_results, tmp_path):
    """result → JSON → ``python -m exactdp.kernel`` (fresh process, no search module) → verified,
    for the SPD cover, its SPD point fail side and a Krawczyk cover with an SPD point fail."""
    paths = []
    for name, r in spd_results.items():
        c = r.certificate
        pts = krawczyk_cover(c.metric, tuple(c.rhs), c.eps_upper, c.pieces[-1][1], F(1, 10**9),
                             None, 400)
        k = CoverCertificate(c.metric, tuple(c.rhs), c.eps_lower, c.eps_upper, c.fail, c.t0,
                             tuple(pts))
        for label, doc in (("cover", r.to_json()), ("point", c.fail.to_json()),
                           ("krawczyk", k.to_json())):
            p = tmp_path / f"{name}-{label}.json"
            p.write_text(dumps(doc))
            paths.append(p)
    proc = _kernel_process(paths)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count(": verified") == len(paths)
    assert "SEARCH-MODULES []" in proc.stdout
    assert "spd-taylor-cover: verified" in proc.stdout and "spd-point: verified" in proc.stdout
    # an altered document is rejected (exit 1), a float in it is malformed (exit 3)
    doc = json.loads(paths[1].read_text())
    doc["claim"]["upper"] = "-1000000"  # z_i(ε) ≈ −1e−8: "z_i ≤ −10⁶" is false
    bad = tmp_path / "bad.json"
    bad.write_text(dumps(doc))
    assert _kernel_process([bad]).returncode == 1
    doc = json.loads(paths[1].read_text())
    doc["claim"]["index"] = 0.0
    bad.write_text(json.dumps(doc))
    assert _kernel_process([bad]).returncode == 3


def test_exactdp_verify_cli_exit_codes(spd_results, tmp_path):
    r = spd_results["sum_query(3, 3)"]
    p = tmp_path / "c.json"
    run = [sys.executable, "-m", "exactdp", "verify", str(p)]
    assert verify_json(dumps(r.to_json())).verified  # exit 0: the fresh-process test above
    doc = r.to_json()
    doc["evidence"]["pieces"][0]["lam"] = "1"  # λ_min(Φ) < 1 for every ε > 0
    p.write_text(dumps(doc))
    assert subprocess.run(run, capture_output=True, timeout=120, cwd=ROOT).returncode == 1


def test_threshold_result_to_json_from_json(spd_results):
    for r in spd_results.values():
        text = dumps(r.to_json())
        again = ThresholdResult.from_json(text)
        assert again.verified and again.eps_enclosure == r.eps_enclosure
        assert again.to_json() == r.to_json() and again.method.startswith("certified")
        assert again.question == r.question
        # an exact result (s*) and Prop. 9 round-trip too
    ex = epsilon_threshold(sum_query(2, 2), method="exact")
    again = ThresholdResult.from_json(ex.to_json())
    assert again.exact == ex.exact and again.as_sympy() == ex.as_sympy()
    # tampered: rejected on reading; a point document is not a threshold
    r = spd_results["count_queries(3, k=2)"]
    doc = r.to_json()
    doc["claim"]["eps"]["hi"] = doc["claim"]["eps"]["lo"]
    with pytest.raises(CertificateInvalid):
        ThresholdResult.from_json(doc)
    with pytest.raises(InvalidArgument):
        ThresholdResult.from_json(r.certificate.fail.to_json())
    # a result whose enclosure is not its certificate's is not written out
    with pytest.raises(CertificateInvalid):
        replace(r, eps_upper=r.eps_upper + 1).to_json()


def test_certificate_from_json_rebuilds_objects(spd_results):
    c = spd_results["sum_query(3, 3)"].certificate
    again = threshold_certificate_from_json(dumps(c.to_json()))
    assert isinstance(again, SpdCoverCertificate) and isinstance(again.fail, SpdPointCertificate)
    assert again.verify() and again.to_json() == c.to_json()
    point = threshold_certificate_from_json(dumps(c.fail.to_json()))
    assert isinstance(point, SpdPointCertificate) and point.verify()
    assert point.upper == c.fail.upper  # a dyadic float travels exactly


def test_verify_uses_no_float_row_sums_nor_the_search(spd_results, monkeypatch):
    """The dense re-check is exact: with the float row sums, the float Cholesky bound, the
    Taylor float analysis and the subnormal check all disabled, verify() still passes."""
    import exactdp.arithmetic.rounding as rounding
    import exactdp.threshold.lambda_bounds as lb
    import exactdp.threshold.lemmas as lm
    import exactdp.threshold.taylor as ty

    def boom(*a, **k):
        raise AssertionError("float analysis used by verify()")

    for mod, name in ((lb, "second_derivative_row_bound"), (lb, "cholesky_lambda"),
                      (lm, "off_diag_row_sums_bound"), (ty, "taylor_piece"),
                      (ty, "point_bounds"), (rounding, "require_subnormals")):
        monkeypatch.setattr(mod, name, boom)
    for r in spd_results.values():
        assert r.certificate.verify() and r.certificate.fail.verify()


def test_point_claim_is_checked_against_exact_truth(spd_results):
    c = spd_results["sum_query(3, 3)"].certificate.fail
    claim = c.spd_claim()
    x = linear_truth(c.metric, tuple(c.rhs), parse_level(eps=c.eps)).x
    z = x[c.index]
    assert check_spd_point(claim)
    assert float(z) <= float(claim.upper) < 0
    # an upper bound below the true z_i, a λ above λ_min, another index: rejected
    assert z < 0
    assert not check_spd_point(replace(claim, upper=F(float(z)) * 2))  # below the true z_i
    assert not check_spd_point(replace(claim, lam=F(2)))
    # another index: true (it verifies) only where z_j ≤ upper as well (symmetric points)
    for j in range(c.metric.n):
        false_claim = float(x[j]) > float(claim.upper) * (1 - 1e-6)
        if false_claim:
            assert not check_spd_point(replace(claim, index=j)), j
    # a weaker true claim (upper nearer 0) verifies
    assert check_spd_point(replace(claim, upper=claim.upper / 2))
    assert check_spd_point(replace(claim, upper=F(1)))  # z_i < 0 and z_i ≤ 1: still true
    assert not check_spd_point("not a claim")


def test_cover_claim_tamperings(spd_results):
    c = spd_results["count_queries(3, k=2)"].certificate.threshold_claim()
    assert check_spd_cover(c)
    ev = dict(c.evidence)
    pieces = list(ev["pieces"])
    a, b, lam = pieces[0]
    for bad in ({"pieces": tuple(pieces[1:])}, {"order": -1}, {"order": True},
                {"pieces": ((a, b, lam * 4),) + tuple(pieces[1:])},
                {"nodes": tuple((e, s, lam2 * 2) for e, s, lam2 in ev["nodes"])},
                {"t0": ev["t0"] * 4}, {"fail": "x"}):
        assert not check_spd_cover(replace(c, evidence={**ev, **bad})), bad
    assert not check_spd_cover(replace(c, eps=replace(c.eps, hi=c.eps.lo)))


def test_kernel_helpers_decide_exactly():
    m = line(4)
    assert lambda_ok(m, F(1), F(1, 4), F(1, 8)) and not lambda_ok(m, F(1), F(1, 4), F(1))
    assert not lambda_ok(m, F(1), F(1, 3**50), F(0))  # σ off the 2^-60 grid
    ones = (F(1),) * 4
    assert piece_ok(m, ones, F(1), F(11, 10), 3, F(1, 8))
    assert not piece_ok(m, ones, F(1), F(11, 10), 3, F(-1))
    assert not piece_ok(m, ones, F(11, 10), F(1), 3, F(1, 8))
    # sum_query(2, 2) fails below ε* ≈ 0.48: a range across it is refused
    s = sum_query(2, 2)
    assert not piece_ok(s, (F(1),) * s.n, F(2, 5), F(3, 5), 3, F(1, 100))
    assert not check_spd_point(SpdPointClaim(m, ones, F(1), 0, F(-1), F(1, 4), F(1, 8)))


def test_matrix_free_grid_has_no_json_form():
    from exactdp.spaces.metrics import grid
    from exactdp.threshold.spd_cover import spd_fail_point

    g = grid(51, 51)
    p = spd_fail_point(g, (F(1),) * g.n, F(1, 2))
    assert p is not None and p.verify()
    with pytest.raises(InvalidArgument, match="matrix-free"):
        p.to_json()


def test_malformed_documents_raise_invalid_argument(spd_results):
    doc = spd_results["sum_query(3, 3)"].to_json()
    for edit in (lambda d: d["evidence"].__setitem__("order", 99),
                 lambda d: d["evidence"]["nodes"][0].__setitem__("extra", "1"),
                 lambda d: d["evidence"]["pieces"][0].__setitem__("lam", "0.5"),
                 lambda d: d["evidence"]["fail"].__setitem__("kind", "spd-taylor-cover"),
                 lambda d: d["evidence"]["fail"]["claim"].__setitem__("verdict", "holds")):
        d = loads(dumps(doc))
        edit(d)
        with pytest.raises(InvalidArgument):
            verify_json(dumps(d))
