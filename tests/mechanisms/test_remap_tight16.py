"""Remap certificates of the tight-constraints mechanism at an irrational s are portable (session 16).

At ε = 1 (or any rational ε: s = e^{-ε/q} is transcendental) the tight-constraints mechanism
H = Φ·diag(z) is known to the library as balls (z certified, not exact). Its remap document now
carries H exactly in Q(x), x = s: the writer solves Φ(x)z = 1 over Q[x] fraction-free and
checks in balls that the certificate's enclosures of z contain that exact z (Φ(x) is
nonsingular at a transcendental x, det Φ(0) = 1, so the exact z is the only solution). The
kernel then re-checks H ≥ 0, rows ≡ 1, privacy and Φ·diag(H·R) ≡ 1 as identities in Q(x).

Ground truth per test: genuine documents of correct answers must verify, also in a fresh
process; an edited entry makes the rows of H no longer sum to 1 (the claim "H is a mechanism
and optimal" is false): rejected. Balls without the tight structure stay not portable.
"""

from __future__ import annotations

import copy
import subprocess
import sys

import pytest

from exactdp.errors import ExactnessRequired, InstanceTooLarge
from exactdp.kernel.jsonio import dumps
from exactdp.kernel.verify import verify_document
from exactdp.mechanisms import from_balls
from exactdp.mechanisms.constructors import tight_constraints_mechanism
from exactdp.mechanisms.optimality import RemapCertificate, is_optimal
from exactdp.mechanisms.optimality_json import MAX_TIGHT_WORK
from exactdp.spaces.metrics import cycle, line, sum_query

CASES = [(line(3), 1), (cycle(4), 1), (line(6), "1/2"), (sum_query(3, 2), 1), (cycle(8), "3/2")]


def _certificate(metric, eps):
    result = is_optimal(tight_constraints_mechanism(metric, eps=eps), metric, eps=eps)
    assert result.optimal
    return result.certificate


@pytest.mark.parametrize("metric,eps", CASES, ids=[f"{m.name}@{e}" for m, e in CASES])
def test_the_tight_mechanism_at_an_irrational_s_is_a_kernel_document(metric, eps):
    cert = _certificate(metric, eps)
    doc = cert.to_json()
    assert doc["kind"] == "remap" and isinstance(doc["question"]["mechanism"], dict)  # the Q(x) form
    assert verify_document(doc).verified
    back = RemapCertificate.from_json(dumps(doc))
    assert back.verify() and back.to_json() == doc


def test_a_fresh_process_verifies_it(tmp_path):
    path = tmp_path / "tight.json"
    path.write_text(dumps(_certificate(cycle(4), 1).to_json()))
    run = subprocess.run([sys.executable, "-m", "exactdp.kernel", str(path)], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


def test_cycle4_is_z_equal_one_over_one_plus_x_squared():
    """Φ(x) of cycle(4) has row sums 1 + 2x + x², so z = 1/(1 + x)² in every entry."""
    doc = _certificate(cycle(4), 1).to_json()
    assert doc["question"]["mechanism"]["denominators"] == [[[0, "1"], [1, "2"], [2, "1"]]]


@pytest.mark.parametrize("metric,eps", CASES[:3], ids=[f"{m.name}@{e}" for m, e in CASES[:3]])
def test_an_edited_entry_is_rejected(metric, eps):
    doc = _certificate(metric, eps).to_json()
    for y in range(len(doc["question"]["mechanism"]["entries"])):
        bad = copy.deepcopy(doc)
        j, terms = bad["question"]["mechanism"]["entries"][y][0]
        terms[0][1] = str(2 * int(terms[0][1]) if "/" not in terms[0][1] else terms[0][1] + "1")
        assert not verify_document(bad).verified


def test_over_the_solve_limit_is_refused_and_the_answer_stays():
    assert 35**5 * 34 <= MAX_TIGHT_WORK < 36**5 * 35  # n⁵·max k (session 17; was n⁴·max k ≤ 2·10⁷)
    assert verify_document(_certificate(line(35), 1).to_json()).verified  # the edge
    cert = _certificate(line(36), 1)
    assert cert.verify()
    with pytest.raises(InstanceTooLarge, match="line\\(36\\).*MAX_TIGHT_WORK = 2000000000"):
        cert.to_json()


def test_balls_without_the_tight_structure_stay_not_portable():
    """Balls handed in by a caller (here the tight mechanism's at ε = 1, asked at ε = 2, where
    they are private with room) prove nothing about a closed form: not portable."""
    tight = tight_constraints_mechanism(line(3), eps=1)
    mech = from_balls(tight.to_balls().tolist())
    result = is_optimal(mech, line(3), eps=2)
    assert result.certificate.verify()
    with pytest.raises(ExactnessRequired, match="not portable"):
        result.certificate.to_json()
