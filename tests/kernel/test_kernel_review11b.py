"""Regression tests for review 11b of the SPD certificates' JSON forms and kernel checks."""

from __future__ import annotations

import copy
import subprocess
import sys
from fractions import Fraction

import pytest

from exactdp.errors import InvalidArgument
from exactdp.kernel.jsonio import dumps, loads, read_rational, write_rational
from exactdp.kernel.threshold_json import read_threshold
from exactdp.kernel.threshold_spd import lambda_ok
from exactdp.kernel.verify import verify_document, verify_json
from exactdp.spaces import metrics
from exactdp.threshold import epsilon_threshold
from exactdp.threshold.certificates import threshold_certificate_from_json


def _star(k: int):
    return metrics.from_matrix([[0] + [1] * k]
                               + [[1] + [2 if i != j else 0 for j in range(k)] for i in range(k)])


@pytest.fixture(scope="module")
def star_doc() -> dict:
    cert = epsilon_threshold(_star(6), method="certified").certificate
    doc = loads(dumps(cert.to_json()))
    assert doc["kind"] == "spd-taylor-cover" and doc["evidence"]["fail"]["kind"] == "spd-point"
    return doc


def test_huge_true_upper_reads_back_without_overflow(star_doc: dict) -> None:
    # F1: z_i < 0 ≤ 10^10000 is a true claim; reading it back must not call float() on it
    d = copy.deepcopy(star_doc)
    d["evidence"]["fail"]["claim"]["upper"] = "1" + "0" * 10000
    assert verify_document(d).verified
    fail = threshold_certificate_from_json(d["evidence"]["fail"])
    assert fail.upper == 10**10000 and fail.verify()


def test_unbuildable_grid_params_are_malformed_not_rejected(tmp_path) -> None:
    # F2: a constructor failure while rebuilding the question is exit 3, never 1
    cert = epsilon_threshold(metrics.grid(3, 3, "euclidean"), method="certified").certificate
    d = loads(dumps(cert.to_json()))
    d["question"]["metric"]["params"]["spacing"] = "1" + "0" * 29
    path = tmp_path / "c.json"
    path.write_text(dumps(d))
    for cmd in ([sys.executable, "-m", "exactdp.kernel", str(path)],
                [sys.executable, "-m", "exactdp", "verify", str(path)]):
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        assert proc.returncode in (1, 3), proc.stderr[-800:]
        assert "Traceback" not in proc.stderr, proc.stderr[-800:]


def test_grid_with_large_denominator_spacing_builds() -> None:
    # F2's root cause: sympy's factorint returned its own Integer type
    m = metrics.grid(3, 3, "euclidean", spacing=Fraction(2**20 + 1, 2**20))
    assert m.n == 9


def test_overlapping_pieces_refused_and_refined_documents_verify(star_doc: dict) -> None:
    # F3: nested/overlapping pieces are refused (each node pair then meets a contiguous run of
    # pieces: O(#nodes + #pieces) chord checks); a true refined document still verifies
    d = copy.deepcopy(star_doc)
    pieces = d["evidence"]["pieces"]
    d["evidence"]["pieces"] = [pieces[0]] + pieces
    assert not verify_document(d).verified
    ev = star_doc["evidence"]
    e0, e1 = read_rational(ev["nodes"][0]["eps"]), read_rational(ev["nodes"][-1]["eps"])
    d = copy.deepcopy(star_doc)
    n_nodes, n_split = 60, 2
    d["evidence"]["nodes"] = [ev["nodes"][0]] + [
        {"eps": write_rational(e0 + (e1 - e0) * Fraction(k, n_nodes)), "sigma": "1/2",
         "lam": "9/20"} for k in range(1, n_nodes)] + [ev["nodes"][-1]]
    new_pieces = []
    for p in ev["pieces"]:
        a, b = read_rational(p["lo"]), read_rational(p["hi"])
        new_pieces += [{"lo": write_rational(a + (b - a) * Fraction(k, n_split)),
                        "hi": write_rational(a + (b - a) * Fraction(k + 1, n_split)),
                        "lam": p["lam"]} for k in range(n_split)]
    d["evidence"]["pieces"] = new_pieces
    assert verify_json(dumps(d)).verified


def test_sigma_off_the_dyadic_grid_is_refused() -> None:
    # F4: σ must lie on the 2^-60 grid (the shift subtracted is exactly σ)
    m = metrics.line(4)
    assert lambda_ok(m, Fraction(1), Fraction(1, 4), Fraction(1, 10**6))
    assert not lambda_ok(m, Fraction(1), Fraction(1, 3), Fraction(1, 10**6))


def test_malformed_fail_side_is_named(star_doc: dict) -> None:
    # F5
    d = copy.deepcopy(star_doc)
    d["evidence"]["fail"] = None
    with pytest.raises(InvalidArgument, match="evidence.fail"):
        read_threshold(d)
