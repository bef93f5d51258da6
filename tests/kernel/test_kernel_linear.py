"""The kernel's linear-system checks: every engine certificate kind round-trips through JSON,
re-checks in a fresh process that loads no search code, and edited documents are rejected
(exit 1) or refused as malformed (exit 3).

Ground truth for the verdicts is computed here, independently of exactdp's solvers: Φ is
built from the metric's distances in exact Fractions and Φx = b is solved by Gaussian
elimination (rational t), or the sign is read off a 60-digit mpmath solve (irrational t).
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from fractions import Fraction as F

import mpmath
import pytest

from exactdp.engine.certificates import certificate_from_json
from exactdp.engine.core import solve_nonnegative
from exactdp.errors import InvalidArgument
from exactdp.kernel.jsonio import dumps
from exactdp.kernel.verify import verify_document, verify_json
from exactdp.spaces.levels import parse_level
from exactdp.spaces.metrics import cycle, grid, line, sum_query
from exactdp.testing.oracle import solution_at_t

# (metric, t or None for ε = 1/2, rhs or None for ones, method, expected kind)
CASES = [
    (line(4), "1/2", None, "exact", "exact-solution"),
    (line(4), "9/10", [1, 0, 0, 0], "exact", "exact-solution"),
    (cycle(5), None, None, "ball", "ball"),
    (sum_query(4, 2), None, [1] + [0] * 8, "ball", "ball"),
    (line(5), None, None, "verified-float", "verified-float"),
    (line(5), None, [1, 0, 0, 0, 0], "verified-float", "verified-float"),
    (line(4), None, None, "symbolic", "symbolic"),
    (line(4), "1/3", [1, 0, 0, 0], "symbolic", "exact-solution"),
    (line(4), None, [1, 0, 0, 0], "symbolic", "symbolic"),
    (grid(3, 3, "manhattan"), None, None, "auto", "kronecker"),
    (grid(3, 3, "manhattan"), "1/2", [1] + [0] * 8, "auto", "kronecker"),
    (grid(2, 3, "manhattan"), "1/3", [F(1, 6)] * 6, "auto", "kronecker"),
]
IDS = [f"{m.name}-{meth}-{i}" for i, (m, _, _, meth, _) in enumerate(CASES)]


def _truth(metric, t, rhs) -> bool:
    """Independent: does Φx = b have a solution x ≥ 0 (Φ nonsingular on these instances)?"""
    n = metric.n
    b = [F(1)] * n if rhs is None else [F(v) for v in rhs]
    if t is not None:  # exact Fraction elimination (exactdp.testing.oracle, no exactdp solver)
        x = solution_at_t(metric, b, F(t))
        assert x is not None
        return all(v >= 0 for v in x)
    mpmath.mp.dps = 60
    d = [[mpmath.mpf(float(metric.distance(i, j))) for j in range(n)] for i in range(n)]
    A = mpmath.matrix([[mpmath.exp(-mpmath.mpf(1) / 2 * d[i][j]) for j in range(n)] for i in range(n)])
    x = mpmath.lu_solve(A, mpmath.matrix([mpmath.mpf(v.numerator) / v.denominator for v in b]))
    # entries below 1e-40 are exact zeros on these instances (Φ⁻¹ of a line is tridiagonal)
    return all(v >= -mpmath.mpf(10) ** -40 for v in x)


@pytest.fixture(scope="module")
def documents():
    out = []
    for metric, t, rhs, meth, kind in CASES:
        level = parse_level(t=t) if t else parse_level(eps="1/2")
        res = solve_nonnegative(metric, level, rhs, method=meth)
        assert res.certificate.kind == kind
        assert res.holds is _truth(metric, t, rhs)
        out.append((res.certificate, res.certificate.to_json()))
    return out


def test_every_kind_round_trips_and_verifies(documents):
    kinds = set()
    for cert, doc in documents:
        kinds.add(doc["kind"])
        assert cert.verify()
        text = dumps(doc)
        assert verify_json(text).verified
        again = certificate_from_json(text)
        assert type(again) is type(cert) and again.to_json() == doc and again.verify()
    assert kinds == {"exact-solution", "ball", "verified-float", "symbolic", "kronecker"}


def test_flipped_verdict_is_rejected(documents):
    for _, doc in documents:
        bad = copy.deepcopy(doc)
        bad["claim"]["verdict"] = "fails" if doc["claim"]["verdict"] == "holds" else "holds"
        assert not verify_document(bad).verified, doc["kind"]


def test_question_edits_are_rejected(documents):
    for _, doc in documents:
        # a different level: the claim was not made about it (the verdict may even be the same,
        # but the evidence (solution, enclosure, identity at s) is not the one for t = 1/5)
        bad = copy.deepcopy(doc)
        bad["question"]["level"] = {"t": "1/5"}
        if doc["kind"] != "symbolic":  # z(s) is level-free: the same identity holds at 1/5
            assert not verify_document(bad).verified, doc["kind"]
        # the metric fingerprint no longer matches the parameters: rejected (altered question)
        bad = copy.deepcopy(doc)
        fp = bad["question"]["metric"]["fingerprint"]
        bad["question"]["metric"]["fingerprint"] = ("0" if fp[0] != "0" else "1") + fp[1:]
        assert not verify_document(bad).verified


def test_numeric_evidence_edits_are_rejected(documents):
    for _, doc in documents:
        bad = copy.deepcopy(doc)
        if doc["kind"] == "exact-solution":
            bad["claim"]["solution"][0] = "7/3"
        elif doc["kind"] in ("ball", "verified-float"):
            e = bad["claim"]["enclosure"][0]
            e["lo"] = e["hi"]  # a point enclosure at the upper end excludes the true value
        elif doc["kind"] == "symbolic":
            bad["evidence"]["denominator"][-1] = str(int(bad["evidence"]["denominator"][-1]) + 2)
        else:  # kronecker: a factor's verdict flipped
            f = bad["evidence"]["factors"][0]
            f["claim"]["verdict"] = "fails" if f["claim"]["verdict"] == "holds" else "holds"
        assert not verify_document(bad).verified, doc["kind"]


def test_swapped_factor_certificates_are_rejected(documents):
    kron = [doc for _, doc in documents if doc["kind"] == "kronecker"]
    a, b = kron[0], kron[1]
    bad = copy.deepcopy(a)
    bad["evidence"]["factors"] = copy.deepcopy(b["evidence"]["factors"])
    assert not verify_document(bad).verified


@pytest.mark.parametrize("edit", ["float", "extra-key", "kind", "version"])
def test_malformed_documents_are_refused(documents, edit):
    doc = copy.deepcopy(documents[0][1])
    text = dumps(doc)
    if edit == "float":
        text = text.replace('"t":"1/2"', '"t":0.5')
    elif edit == "extra-key":
        doc["claim"]["note"] = "x"
        text = dumps(doc)
    elif edit == "kind":
        doc["kind"] = "prop9"
        text = dumps(doc)
    else:
        doc["version"] = 2
        text = dumps(doc)
    with pytest.raises(InvalidArgument):
        verify_json(text)


def test_fresh_process_cli_exit_codes(documents, tmp_path):
    paths = []
    for k, (_, doc) in enumerate(documents):
        p = tmp_path / f"c{k}.json"
        p.write_text(dumps(doc))
        paths.append(str(p))
    bad = copy.deepcopy(documents[0][1])
    bad["claim"]["verdict"] = "fails"
    (tmp_path / "bad.json").write_text(dumps(bad))
    (tmp_path / "junk.json").write_text("{not json")
    run = [sys.executable, "-m", "exactdp", "verify"]
    for p in paths[::5]:  # the CLI on a few; the kernel probe below reads every document
        assert subprocess.run(run + [p], capture_output=True).returncode == 0, p
    assert subprocess.run(run + [str(tmp_path / "bad.json")], capture_output=True).returncode == 1
    out = subprocess.run(run + [str(tmp_path / "junk.json"), "--json"], capture_output=True, text=True)
    assert out.returncode == 3 and json.loads(out.stdout)["exit_code"] == 3
    # the kernel alone: every document in one process, and no search module is ever imported
    probe = (
        "import sys, runpy; sys.argv = ['k'] + sys.argv[1:]\n"
        "try:\n    runpy.run_module('exactdp.kernel', run_name='__main__')\n"
        "except SystemExit as e:\n    code = e.code\n"
        "bad = [m for m in sys.modules if m.split('.')[:2] in (['exactdp', 'engine'], "
        "['exactdp', 'threshold'], ['exactdp', 'algebra'], ['exactdp', 'linalg'], "
        "['exactdp', 'mechanisms'], ['exactdp', 'pufferfish'], ['exactdp', 'sets'])]\n"
        "print(code, bad)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe] + paths, capture_output=True, text=True)
    assert out.stdout.strip().splitlines()[-1] == "0 []", out.stdout + out.stderr


def _genuine_claims(documents):
    return [cert.linear_claim() for cert, _ in documents]


def test_in_memory_claims_with_wrong_types_are_not_proved(documents):
    """The checks never trust the Python types of a claim built in memory."""
    import dataclasses

    from exactdp.kernel.linear import LinearClaim, check_linear

    for c in _genuine_claims(documents):
        assert check_linear(c)
        n = c.metric.n
        for bad in (
            dataclasses.replace(c, kind="no-such-kind"),
            dataclasses.replace(c, holds="yes"),
            dataclasses.replace(c, holds=1),
            dataclasses.replace(c, level="1/2"),
            dataclasses.replace(c, rhs=list(c.rhs)),
            dataclasses.replace(c, rhs=c.rhs[:-1]),
            dataclasses.replace(c, rhs=tuple(float(v) for v in c.rhs)),
            dataclasses.replace(c, evidence={}),
        ):
            assert check_linear(bad) is False, (c.kind, bad)
        ev = dict(c.evidence)
        if c.kind == "exact-solution":
            for x in (list(ev["x"]), ev["x"][:-1], tuple(float(v) for v in ev["x"])):
                assert not check_linear(dataclasses.replace(c, evidence={"x": x}))
        if c.kind in ("ball", "verified-float"):
            for p in (1, True, "64", 2**17):
                assert not check_linear(dataclasses.replace(c, evidence={**ev, "precision": p}))
            enc = ev["enclosure"]
            for e in (list(enc), enc[:-1], tuple((x.lo, x.hi) for x in enc)):
                assert not check_linear(dataclasses.replace(c, evidence={**ev, "enclosure": e}))
            w = 0 if c.holds else None
            assert not check_linear(dataclasses.replace(c, evidence={**ev, "witness": w}))
            if not c.holds:
                for w in (True, -1, n, "0"):
                    assert not check_linear(dataclasses.replace(c, evidence={**ev, "witness": w}))
        if c.kind == "symbolic":
            nums, den = ev["numerators"], ev["denominator"]
            for bad_ev in ({**ev, "numerators": list(nums)}, {**ev, "numerators": nums[:-1]},
                           {**ev, "denominator": (0,)}, {**ev, "denominator": (0, 1)},
                           {**ev, "denominator": tuple(float(v) for v in den)},
                           {**ev, "numerators": (nums[0] + (True,),) + nums[1:]},
                           {**ev, "precision": 1}):
                assert not check_linear(dataclasses.replace(c, evidence=bad_ev))
        if c.kind == "kronecker":
            fs = ev["factors"]
            for bad_ev in ({"factors": list(fs)}, {"factors": ()}, {"factors": (fs[0], "x")},
                           {"factors": fs[::-1]} if fs[0].metric.n != fs[-1].metric.n else {}):
                assert not check_linear(dataclasses.replace(c, evidence=bad_ev))
            # a factor at another level
            other = dataclasses.replace(fs[0], level=parse_level(t="1/7"))
            assert not check_linear(dataclasses.replace(c, evidence={"factors": (other,) + fs[1:]}))
    assert LinearClaim  # the type is public
