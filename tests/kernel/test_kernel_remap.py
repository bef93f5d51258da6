"""Remap certificates (Thm. 4) as kernel documents: genuine ones verify (also after
from_json), tampered ones are rejected unless an independent oracle — written here, exact
Fractions, Φ[y, y'] = t^d(y, y') from the distances, and an exact LP for "(*) has a
solution" — finds that the tampered claim is still true."""

from __future__ import annotations

import copy
import json
import os
import sys
from fractions import Fraction as F

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from exactdp.algebra.lp import solve_lp
from exactdp.engine.questions import question_of
from exactdp.errors import CertificateInvalid, ExactDPError, ExactnessRequired, InvalidArgument
from exactdp.kernel.jsonio import dumps, loads
from exactdp.kernel.verify import SUPPORTED_KINDS, verify_document
from exactdp.mechanisms.constructors import (
    exponential_mechanism,
    from_balls,
    from_rows,
    randomized_response,
    tight_constraints_mechanism,
    truncated_geometric,
)
from exactdp.mechanisms.optimality import FarkasRemapCertificate, RemapCertificate, is_optimal
from exactdp.spaces.metrics import line
from exactdp.testing import metrics, rational_t
from exactdp.testing.budget import call_budget
from exactdp.testing.mechanism_strategies import private_mechanism_rows

EXAMPLES = int(os.environ.get("EXACTDP_TAMPER_EXAMPLES", "1")) * 12
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
TALLY = {"tampered": 0, "rejected": 0, "accepted_true": 0, "genuine": 0}


def _phi(metric, t):
    n = metric.n
    out = [[F(0)] * n for _ in range(n)]
    for y in range(n):
        for y2 in range(n):
            d = metric.distance(y, y2)
            assert d.radicand == 1 and d.coef.denominator == 1, "oracle: integer distances"
            out[y][y2] = t ** int(d.coef)
    return out


def _private(H, metric, t):
    """H[y, z] ≤ e^{ε d}·H[y', z] ⇔ H[y, z]·t^d ≤ H[y', z], every y, y', z."""
    n, m = len(H), len(H[0])
    return all(H[y][z] * t ** int(metric.distance(y, y2).coef) <= H[y2][z]
               for y in range(n) for y2 in range(n) for z in range(m))


def _remap_solves(H, metric, t, R):
    n, m = len(H), len(H[0])
    if len(R) != m or any(len(r) != n or min(r) < 0 or sum(r) != 1 for r in R):
        return False
    phi = _phi(metric, t)
    return all(sum(phi[y][y2] * H[y2][z] * R[z][y2] for y2 in range(n) for z in range(m)) == 1
               for y in range(n))


def _farkas_valid(H, metric, t, w):
    n, m = len(H), len(H[0])
    if len(w) != n + m or sum(w) >= 0:
        return False
    phi = _phi(metric, t)
    return all(sum(w[r] * phi[r][y] for r in range(n)) * H[y][z] + w[n + z] >= 0
               for y in range(n) for z in range(m))


def _feasible(H, metric, t):
    """(*) as an LP in the m·n unknowns R[z, y], decided by the exact simplex."""
    n, m = len(H), len(H[0])
    phi = _phi(metric, t)
    A = [[phi[yr][y] * H[y][z] for z in range(m) for y in range(n)] for yr in range(n)]
    A += [[F(int(z == z2)) for z in range(m) for _ in range(n)] for z2 in range(m)]
    return solve_lp(A, [F(1)] * (n + m)).feasible


def _claim_true(doc, metric):
    """Is the document's claim (with its own evidence) true? Decided from the JSON and the
    metric (no tampering here alters the metric; the kernel's fingerprint guards it)."""
    q = doc["question"]
    t = F(q["level"]["t"])
    H = [[F(x) for x in r] for r in q["mechanism"]]
    if not _private(H, metric, t):
        return False
    if doc["kind"] == "remap":
        R = [[F(x) for x in r] for r in doc["claim"]["remap"]]
        return doc["claim"]["verdict"] == "holds" and _remap_solves(H, metric, t, R)
    w = [F(x) for x in doc["claim"]["w"]]
    return (doc["claim"]["verdict"] == "fails" and _farkas_valid(H, metric, t, w)
            and not _feasible(H, metric, t))


# ---------------------------------------------------------------------- helpers
def _kernel(doc):
    """True (verified), False (rejected) or None (malformed: refused as not a document)."""
    try:
        return verify_document(loads(dumps(doc)))
    except InvalidArgument:
        return None


def _check_tampered(doc, metric):
    TALLY["tampered"] += 1
    v = _kernel(doc)
    accepted = v is not None and v.verified
    if accepted:
        TALLY["accepted_true"] += 1
        assert _claim_true(doc, metric), f"forgery accepted: {dumps(doc)[:400]}"
    else:
        TALLY["rejected"] += 1


def _tamperings(doc, other):
    """Each numeric claim nudged or zeroed, verdict and kind flipped, evidence swapped with
    another instance of the same shape, level replaced."""
    key = "remap" if doc["kind"] == "remap" else "w"
    ev = doc["claim"][key]
    cells = ([(i, j) for i in range(len(ev)) for j in range(len(ev[0]))] if key == "remap"
             else [(i, None) for i in range(len(ev))])
    for k, (i, j) in enumerate(cells):
        for delta in ((F(1, 7), None) if k % 2 else (F(-1, 3),)):
            d = copy.deepcopy(doc)
            row = d["claim"][key]
            old = F(row[i][j] if j is not None else row[i])
            new = str(F(0) if delta is None else old + delta)
            if j is None:
                row[i] = new
            else:
                row[i][j] = new
            yield d
    d = copy.deepcopy(doc)
    d["claim"]["verdict"] = "fails" if d["claim"]["verdict"] == "holds" else "holds"
    yield d
    d = copy.deepcopy(doc)
    d["kind"] = "remap-farkas" if d["kind"] == "remap" else "remap"
    yield d
    for t in ("1/2", "9/10", "1/100"):
        d = copy.deepcopy(doc)
        if d["question"]["level"] != {"t": t}:
            d["question"]["level"] = {"t": t}
            yield d
    if other is not None:
        d = copy.deepcopy(doc)
        d["claim"], d["kind"] = copy.deepcopy(other["claim"]), other["kind"]
        yield d
        d = copy.deepcopy(doc)
        d["question"]["mechanism"] = copy.deepcopy(other["question"]["mechanism"])
        yield d


def _genuine(H, metric, t):
    r = is_optimal(H, metric, t=t)
    cert = r.certificate
    if cert is None:
        return None
    doc = cert.to_json()
    TALLY["genuine"] += 1
    assert verify_document(loads(dumps(doc))).verified, dumps(doc)[:400]
    assert _claim_true(doc, metric)  # the oracle agrees with every genuine certificate
    back = type(cert).from_json(dumps(doc))
    assert back.verify()
    assert (back.remap == cert.remap) if isinstance(cert, RemapCertificate) else back.w == cert.w
    return doc


# ---------------------------------------------------------------------- tests
@SETTINGS
@given(st.data())
def test_generated_certificates_and_tamperings(data):
    metric = data.draw(metrics(max_n=5))
    t = data.draw(rational_t(max_denominator=8))
    rows = data.draw(private_mechanism_rows(metric, t))
    doc = _genuine(from_rows(rows), metric, t)
    assert doc is not None  # a private H always gets a remap or a Farkas certificate
    rows2 = data.draw(private_mechanism_rows(metric, t))
    other = _genuine(from_rows(rows2), metric, t)
    for bad in _tamperings(doc, other):
        _check_tampered(bad, metric)


@pytest.mark.parametrize("make", [
    lambda: (truncated_geometric(4, t="1/2"), line(4), F(1, 2)),  # optimal: remap
    lambda: (from_rows([["1/3"] * 3] * 3), line(3), F(1, 2)),  # private, useless: Farkas
    lambda: (randomized_response(3, t="1/3"), line(3), F(1, 3)),
    lambda: (tight_constraints_mechanism(line(3), t="1/4"), line(3), F(1, 4)),
])
def test_library_mechanisms(make):
    H, metric, t = make()
    doc = _genuine(H, metric, t)
    for bad in _tamperings(doc, None):
        _check_tampered(bad, metric)


def test_both_kinds_occur_and_tamperings_are_rejected():
    """The suite is not vacuous: both kinds were issued and most tamperings rejected."""
    g = _genuine(truncated_geometric(3, t="1/2"), line(3), F(1, 2))
    f = _genuine(from_rows([["1/3"] * 3] * 3), line(3), F(1, 2))
    assert g["kind"] == "remap" and f["kind"] == "remap-farkas"
    for bad in list(_tamperings(g, f)) + list(_tamperings(f, g)):
        _check_tampered(bad, line(3))
    assert TALLY["rejected"] > TALLY["accepted_true"] > 0  # zeroing a 0 leaves a true claim


def test_fresh_process_and_json_text(tmp_path):
    import subprocess
    cert = is_optimal(from_rows([["1/3"] * 3] * 3), line(3), t="1/2").certificate
    assert isinstance(cert, FarkasRemapCertificate)
    path = tmp_path / "farkas.json"
    path.write_text(json.dumps(cert.to_json()))
    out = subprocess.run([sys.executable, "-m", "exactdp", "verify", str(path)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and "remap-farkas: verified" in out.stdout, out.stdout + out.stderr
    assert "remap" in SUPPORTED_KINDS and "remap-farkas" in SUPPORTED_KINDS


def test_not_portable_is_refused_when_writing():
    # t = 1/2 on a line with distance 1: s = t rational, fine; ε = 1 (t = e^-1): Φ irrational,
    # portable as a closed form in x (tests/mechanisms/test_remap_irrational14.py; the
    # tight-constraints mechanism since session 16, test_remap_tight16.py) unless H has none:
    # bare balls handed in by a caller
    balls = from_balls(tight_constraints_mechanism(line(3), eps=1).to_balls().tolist())
    cert = is_optimal(balls, line(3), eps=2).certificate
    with pytest.raises(ExactnessRequired):
        cert.to_json()
    H = exponential_mechanism(line(3), t="1/2")  # entries in Q(√2): no exact rows
    c2 = is_optimal(H, line(3), t="1/2").certificate
    with pytest.raises(ExactnessRequired):
        c2.to_json()


def test_rejected_document_is_not_read_back():
    cert = is_optimal(truncated_geometric(3, t="1/2"), line(3), t="1/2").certificate
    doc = cert.to_json()
    doc["claim"]["remap"][0] = ["0", "1", "0"]
    with pytest.raises(CertificateInvalid):
        RemapCertificate.from_json(doc)
    with pytest.raises(InvalidArgument):  # the other class's kind
        FarkasRemapCertificate.from_json(cert.to_json())
    with pytest.raises(ExactDPError):
        RemapCertificate.from_json("{}")


def _forged(rows, R, t="1/2"):
    """A remap document for H = rows at t on line(len(rows)) with the remap R, written by hand
    (write_remap does not check the claim)."""
    from exactdp.engine.documents import write_remap
    q = question_of(line(len(rows)), "private", t=t, mechanism=rows)
    return write_remap(q, True, [[F(x) for x in r] for r in R])


def test_negative_remap_is_rejected():
    """Review F3: H = [[3/5,2/5],[2/5,3/5]] at t = 1/2 is private but not optimal, yet
    R = [[4/3,-1/3],[-1/3,4/3]] (rows sum to 1) solves Φ·diag(HR) = 1: only R ≥ 0 stops it."""
    H = [["3/5", "2/5"], ["2/5", "3/5"]]
    R = [["4/3", "-1/3"], ["-1/3", "4/3"]]
    Hf, Rf = [[F(x) for x in r] for r in H], [[F(x) for x in r] for r in R]
    phi = _phi(line(2), F(1, 2))
    assert all(sum(phi[y][y2] * Hf[y2][z] * Rf[z][y2] for y2 in range(2) for z in range(2)) == 1
               for y in range(2))  # (*) holds but for the sign of R
    assert _private(Hf, line(2), F(1, 2)) and not _feasible(Hf, line(2), F(1, 2))
    assert not verify_document(loads(dumps(_forged(H, R)))).verified


def test_non_private_mechanism_is_rejected():
    """Review F3: H = [[2/3,1/3,0],[0,1/3,2/3]] is not private at t = 1/2 on line(2) (a zero
    against 2/3), yet R = [[3/4,1/4],[1/2,1/2],[1/4,3/4]] solves (*): only Thm. 4's privacy
    hypothesis stops it."""
    H = [["2/3", "1/3", "0"], ["0", "1/3", "2/3"]]
    R = [["3/4", "1/4"], ["1/2", "1/2"], ["1/4", "3/4"]]
    Hf, Rf = [[F(x) for x in r] for r in H], [[F(x) for x in r] for r in R]
    assert _remap_solves(Hf, line(2), F(1, 2), Rf) and not _private(Hf, line(2), F(1, 2))
    assert not verify_document(loads(dumps(_forged(H, R)))).verified


def test_farkas_with_nonnegative_sum_is_rejected():
    """Review F3: w = 0 satisfies every Aᵀw ≥ 0 inequality; only Σw < 0 rejects it."""
    cert = is_optimal(from_rows([["1/3"] * 3] * 3), line(3), t="1/2").certificate
    doc = cert.to_json()
    doc["claim"]["w"] = ["0"] * len(doc["claim"]["w"])
    assert not verify_document(loads(dumps(doc))).verified


def test_huge_distance_is_refused_before_any_power():
    """Review F2: line_scaled(2, 10^12) needs s^(10^12): the kernel and the writer refuse it
    at once (InstanceTooLarge, exit 2), instead of exhausting memory."""

    from exactdp.cli.exitcodes import ExitCode, exit_code_for_exception
    from exactdp.engine.documents import write_remap
    from exactdp.errors import InstanceTooLarge
    from exactdp.kernel.jsonio import envelope
    from exactdp.spaces.metrics import line_scaled
    q = question_of(line_scaled(2, 10**12), "private", t="1/2",
                    mechanism=[["1/2", "1/2"], ["1/2", "1/2"]])
    doc = envelope("remap", q.to_json(), {"verdict": "holds", "remap": [["1", "0"], ["0", "1"]]},
                   {})
    with call_budget(12_000) as seen, pytest.raises(InstanceTooLarge, match="10000000000") as exc:
        verify_document(doc)
    assert seen[1] < 2**20  # bytes: s^(10^12) is never formed
    assert exit_code_for_exception(exc.value) == ExitCode.UNDECIDED
    with call_budget(1_000) as seen, pytest.raises(InstanceTooLarge):
        write_remap(q, True, [[F(1), F(0)], [F(0), F(1)]])
    assert seen[1] < 2**20


def test_irrational_s_message_names_s():
    """Review F6: at ε = (3/2)·ln 2 on distances 2/3, 4/3 every Φ entry (1/2, 1/4) is rational
    but s = e^{-ε/3} = 2^{-1/2} is not: the error names s, not the Φ entries."""
    import sympy

    from exactdp.spaces.metrics import line_scaled
    cert = is_optimal(from_rows([["1/3"] * 3] * 3), line_scaled(3, F(2, 3)),
                      eps=sympy.Rational(3, 2) * sympy.log(2)).certificate
    with pytest.raises(ExactnessRequired, match=r"s = e\^\(-ε/q\) is irrational") as exc:
        cert.to_json()
    assert "some Φ entry e^(-ε·d) is irrational" not in str(exc.value)
