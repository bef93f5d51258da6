"""Thm. 4 remap certificates at an irrational s (rational ε) as kernel documents.

Genuine documents verify in a fresh process and read back; every field edited (metric, ε,
b, a coefficient, an exponent, a denominator index, R, w, the verdict), swapped sub-parts
and another metric of the same shape are rejected (or malformed), never verified, unless an
independent 50-digit mpmath oracle finds the edited claim still true; the truth of each
genuine claim is decided by that oracle from the mechanisms' textbook formulas.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from fractions import Fraction as F

import mpmath
import pytest

from exactdp.arithmetic.rationals import unlimited_int_digits
from exactdp.engine.documents import write_remap_qx
from exactdp.engine.questions import canonical_metric, make_question
from exactdp.errors import ExactDPError, ExactnessRequired, InstanceTooLarge, InvalidArgument
from exactdp.kernel.jsonio import dumps, loads, write_rational
from exactdp.kernel.metricio import write_metric
from exactdp.kernel.question import Property
from exactdp.kernel.remap_qx import MAX_COEF_BITS, MAX_QX_DEGREE, QxQuestion
from exactdp.kernel.verify import verify_document
from exactdp.mechanisms.constructors import (
    exponential_mechanism,
    from_balls,
    from_rows,
    tight_constraints_mechanism,
    truncated_geometric,
)
from exactdp.mechanisms.optimality import FarkasRemapCertificate, RemapCertificate, is_optimal
from exactdp.mechanisms.optimality_json import qx_question
from exactdp.spaces.levels import parse_level
from exactdp.spaces.metrics import cycle, line, line_scaled

DPS = 50


# ------------------------------------------------------------------ independent oracle
def _textbook(kind: str, n: int, eps_mech: F) -> list[list[mpmath.mpf]]:
    """H from its textbook formula (not from the library), at DPS digits."""
    s = mpmath.exp(-mpmath.mpf(eps_mech.numerator) / eps_mech.denominator)
    if kind == "geometric":
        return [[s ** abs(y - z) * ((1 - s) if 0 < z < n - 1 else 1) / (1 + s) for z in range(n)]
                for y in range(n)]
    if kind == "exponential":
        r = mpmath.sqrt(s)
        return [[r ** abs(y - z) / sum(r ** abs(y - k) for k in range(n)) for z in range(n)]
                for y in range(n)]
    return [[mpmath.mpf(1) / n] * n for _ in range(n)]


def _optimal_truth(H: list[list[mpmath.mpf]], eps: F) -> bool:
    """Thm. 4 on line(n) at 50 digits: H private and Σ_z max_y c_y H[y, z] = n."""
    n, m = len(H), len(H[0])
    t = mpmath.exp(-mpmath.mpf(eps.numerator) / eps.denominator)
    tol = mpmath.mpf(10) ** -40
    assert all(t ** abs(a - c) * H[a][z] <= H[c][z] + tol for a in range(n) for c in range(n) for z in range(m))
    c = [sum(t ** abs(y - k) for k in range(n)) for y in range(n)]
    total = sum(max(c[y] * H[y][z] for y in range(n)) for z in range(m))
    assert total <= n + tol  # Lemma 1
    return bool(abs(total - n) < tol)


def _doc_values(doc: dict, q_den: int = 1) -> tuple[list[list[mpmath.mpf]], list[list[mpmath.mpf]]]:
    """H and Φ as the document states them (parsed here; line metrics only)."""
    qj = doc["question"]
    eps = F(qj["level"]["eps"])
    mech = qj["mechanism"]
    lx = F(mech["log_x"])
    x = mpmath.exp(mpmath.mpf(lx.numerator) / lx.denominator)
    b = eps / (q_den * -lx)
    assert b.denominator == 1

    def ev(terms: list) -> mpmath.mpf:
        return sum((mpmath.mpf(F(c).numerator) / F(c).denominator * x ** e for e, c in terms), mpmath.mpf(0))

    dens = [ev(d) for d in mech["denominators"]]
    H = [[ev(p) / dens[j] for j, p in row] for row in mech["entries"]]
    n = len(H)
    phi = [[x ** (int(b) * abs(y - y2)) for y2 in range(n)] for y in range(n)]
    return H, phi


def _claim_truth(doc: dict) -> bool:
    """The document's claim about its own stated question (line metric), at 50 digits."""
    with mpmath.workdps(DPS):
        H, phi = _doc_values(doc)
        n, m, tol = len(H), len(H[0]), mpmath.mpf(10) ** -40
        if any(abs(sum(r) - 1) > tol or min(r) < -tol for r in H):
            return False
        if not all(phi[a][c] * H[a][z] <= H[c][z] + tol for a in range(n) for c in range(n) for z in range(m)):
            return False
        if doc["kind"] == "remap":
            R = [[F(v) for v in r] for r in doc["claim"]["remap"]]
            if any(min(r) < 0 or sum(r) != 1 for r in R):
                return False
            return all(abs(sum(phi[y][y2] * H[y2][z] * R[z][y2] for y2 in range(n) for z in range(m)) - 1) < tol
                       for y in range(n))
        w = [F(v) for v in doc["claim"]["w"]]
        if sum(w) >= 0:
            return False
        return all(H[y][z] * sum(w[r] * phi[r][y] for r in range(n)) + w[n + z] > tol
                   for y in range(n) for z in range(m))


# ------------------------------------------------------------------ genuine documents
CASES = [  # (kind, n, ε of the mechanism, ε of the question)
    ("geometric", 3, F(1), F(1)),
    ("geometric", 5, F(3, 2), F(3, 2)),
    ("geometric", 6, F(1), F(3, 2)),       # private, not tight: Farkas, b = 3
    ("exponential", 4, F(1), F(1)),        # row-normalized: one denominator per row
    ("flat", 3, F(1), F(1)),
]


def _mechanism(kind: str, n: int, eps: F):
    if kind == "geometric":
        return truncated_geometric(n, eps=eps)
    if kind == "exponential":
        return exponential_mechanism(line(n), eps=eps)
    return from_rows([[F(1, n)] * n] * n)


def _genuine(kind: str, n: int, eps_m: F, eps: F) -> tuple[dict, bool]:
    r = is_optimal(_mechanism(kind, n, eps_m), line(n), eps=eps)
    doc = loads(dumps(r.certificate.to_json()))
    return doc, r.optimal


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}{c[1]}" for c in CASES])
def test_genuine_documents_verify_and_agree_with_the_oracle(case):
    kind, n, eps_m, eps = case
    doc, optimal = _genuine(*case)
    assert isinstance(doc["question"]["mechanism"], dict) and doc["question"]["level"] == {"eps": str(eps)}
    with mpmath.workdps(DPS):
        assert optimal == _optimal_truth(_textbook(kind, n, eps_m), eps)
        H_doc, _ = _doc_values(doc)
        H_ref = _textbook(kind, n, eps_m)
        assert max(abs(a - b) for r1, r2 in zip(H_doc, H_ref) for a, b in zip(r1, r2)) < mpmath.mpf(10) ** -40
    assert doc["kind"] == ("remap" if optimal else "remap-farkas")
    assert verify_document(doc).verified and _claim_truth(doc)
    cls = RemapCertificate if optimal else FarkasRemapCertificate
    back = cls.from_json(dumps(doc))
    assert back.verify() and back.to_json() == doc  # the read-back certificate writes the same document


def test_fresh_process_exit_codes(tmp_path):
    good, _ = _genuine("geometric", 3, F(1), F(1))
    farkas, _ = _genuine("exponential", 4, F(1), F(1))
    bad = copy.deepcopy(good)
    bad["question"]["level"] = {"eps": "2"}
    odd = copy.deepcopy(good)
    odd["question"]["mechanism"]["log_x"] = "0"
    for name, doc, code in (("g", good, 0), ("f", farkas, 0), ("bad", bad, 1), ("odd", odd, 3)):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(doc))
        out = subprocess.run([sys.executable, "-m", "exactdp", "verify", str(path)],
                             capture_output=True, text=True, timeout=300)
        assert out.returncode == code, (name, out.stdout, out.stderr)


# ------------------------------------------------------------------ tampering
def _outcome(doc: dict) -> str:
    try:
        return "verified" if verify_document(loads(dumps(doc))).verified else "rejected"
    except ExactDPError:
        return "malformed"


def _edits(doc: dict):
    """(label, tampered document) for every field of a closed-form remap document."""
    q = doc["question"]
    mech = q["mechanism"]
    for eps in ("2", "1/2", "3/2", "4/3"):
        if eps != q["level"]["eps"]:
            yield f"eps={eps}", _set(doc, ("question", "level"), {"eps": eps})
    yield "t level", _set(doc, ("question", "level"), {"t": "1/2"})
    lx = F(mech["log_x"])
    for other in (lx * 2, lx / 2, lx * 3, -lx, lx + F(1, 5)):
        yield f"log_x={other}", _set(doc, ("question", "mechanism", "log_x"), str(other))
    for y, row in enumerate(mech["entries"]):
        for z, (j, p) in enumerate(row):
            for k, (e, c) in enumerate(p):
                yield f"coef{y}{z}{k}", _set(doc, ("question", "mechanism", "entries", y, z, 1, k, 1),
                                             str(F(c) + F(1, 7)))
                yield f"sign{y}{z}{k}", _set(doc, ("question", "mechanism", "entries", y, z, 1, k, 1), str(-F(c)))
                yield f"exp{y}{z}{k}", _set(doc, ("question", "mechanism", "entries", y, z, 1, k, 0), e + 1)
            if len(mech["denominators"]) > 1:
                yield f"den{y}{z}", _set(doc, ("question", "mechanism", "entries", y, z, 0),
                                         (j + 1) % len(mech["denominators"]))
    for j, d in enumerate(mech["denominators"]):
        for k, (_e, c) in enumerate(d):
            yield f"dcoef{j}{k}", _set(doc, ("question", "mechanism", "denominators", j, k, 1), str(F(c) * 2))
    ents = mech["entries"]
    yield "rows swapped", _set(doc, ("question", "mechanism", "entries"), [ents[1], ents[0], *ents[2:]])
    yield "cols swapped", _set(doc, ("question", "mechanism", "entries"), [[r[1], r[0], *r[2:]] for r in ents])
    yield "property", _set(doc, ("question", "property"), "regular")
    verdict = doc["claim"]["verdict"]
    yield "verdict", _set(doc, ("claim", "verdict"), "fails" if verdict == "holds" else "holds")
    if doc["kind"] == "remap":
        R = doc["claim"]["remap"]
        for z in range(len(R)):
            for y in range(len(R[0])):
                moved = [list(r) for r in R]
                moved[z] = ["1" if k == y else "0" for k in range(len(R[0]))]
                if moved != R:
                    yield f"R{z}{y}", _set(doc, ("claim", "remap"), moved)
        yield "R reversed", _set(doc, ("claim", "remap"), R[::-1])
        yield "kind", _set(doc, ("kind",), "remap-farkas")
    else:
        w = doc["claim"]["w"]
        n = len(doc["question"]["mechanism"]["entries"])
        for k in range(len(w)):
            yield f"w{k}/2", _set(doc, ("claim", "w", k), str(F(w[k]) / 2))
        yield "w=0", _set(doc, ("claim", "w"), ["0"] * len(w))
        yield "w negated", _set(doc, ("claim", "w"), [str(-F(v)) for v in w])
        yield "mu shifted", _set(doc, ("claim", "w"), w[:n] + [w[-1]] + w[n:-1])


def _set(doc: dict, path: tuple, value) -> dict:
    out = copy.deepcopy(doc)
    node = out
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return out


@pytest.mark.parametrize("case", [CASES[1], CASES[2], CASES[3]], ids=["holds", "farkas", "rownorm"])
def test_every_edit_is_rejected_unless_still_true(case):
    doc, _ = _genuine(*case)
    tally = {"verified": 0, "rejected": 0, "malformed": 0}
    for label, bad in _edits(doc):
        got = _outcome(bad)
        tally[got] += 1
        if got == "verified":  # only a claim the oracle finds true about the edited question
            assert _claim_truth(bad), label
    assert tally["rejected"] + tally["malformed"] > 5 * tally["verified"], tally
    assert tally["rejected"] > 0 and tally["malformed"] > 0, tally


def test_question_edits_are_never_verified():
    """A stale fingerprint: rejected. Another metric of the same shape, ε, log_x, property,
    verdict, kind of an optimality claim: never verified (H stays put, Φ moves). (A Farkas
    vector with margins can stay valid at a larger ε or on larger distances: a true claim
    about the edited question, which the oracle test above allows.)"""
    for case in CASES:
        doc, optimal = _genuine(*case)
        n = len(doc["question"]["mechanism"]["entries"])
        others = [make_question(m, Property.TIGHT_CONSTRAINTS, "ones", parse_level(t="1/2")).to_json()["metric"]
                  for m in (cycle(n), line_scaled(n, 2))]
        stale = _set(doc, ("question", "metric", "fingerprint"), others[0]["fingerprint"])
        assert _outcome(stale) == "rejected"
        if optimal:  # (a Farkas vector can stay valid on a metric with larger distances)
            for metric in others:
                assert _outcome(_set(doc, ("question", "metric"), metric)) != "verified"
            for label, bad in _edits(doc):
                if label.startswith(("eps", "t level", "log_x", "property", "verdict", "kind")):
                    assert _outcome(bad) != "verified", label


def test_swapped_sub_parts_are_rejected():
    g, _ = _genuine("geometric", 3, F(1), F(1))
    f, _ = _genuine("flat", 3, F(1), F(1))
    assert g["kind"] == "remap" and f["kind"] == "remap-farkas"
    mixed = _set(g, ("question",), f["question"])       # flat H with the geometric's remap
    assert _outcome(mixed) == "rejected" and not _claim_truth(mixed)
    mixed2 = _set(f, ("question",), g["question"])      # optimal H with a Farkas vector
    assert _outcome(mixed2) == "rejected" and not _claim_truth(mixed2)


# ------------------------------------------------------------------ limits and edges
def test_precision_cap_rejects_a_true_but_undecidable_claim():
    """μ̄ within 10^-6000 (≈ 2^-19,932) of μ = (1 + 2/e)/3: true, but balls at the 16,384-bit
    cap do not separate it, so the kernel does not verify it; a margin of 10^-30 verifies."""
    doc, _ = _genuine("flat", 3, F(1), F(1))
    for digits, want in ((30, "verified"), (6000, "rejected")):
        with unlimited_int_digits(), mpmath.workdps(digits + 50):
            mu = (1 + 2 * mpmath.exp(-1)) / 3
            num = int(mpmath.floor(mu * mpmath.mpf(10) ** digits)) + 1
            assert mpmath.mpf(num) / mpmath.mpf(10) ** digits - mu > 0  # true: μ̄ > μ
            up = write_rational(F(num, 10**digits))
        bad = _set(doc, ("claim", "w"), ["-1"] * 3 + [up] * 3)
        assert _outcome(bad) == want


def test_sizes_are_refused_by_writer_and_kernel():
    q = qx_question(truncated_geometric(3, eps=1), line(3), parse_level(eps=1))
    R = [[F(int(y == z)) for y in range(3)] for z in range(3)]
    big_b = QxQuestion(q.metric, q.level, MAX_QX_DEGREE, q.dens, q.entries)
    with pytest.raises(InstanceTooLarge):
        write_remap_qx(big_b, True, R)
    doc = write_remap_qx(q, True, R)
    with pytest.raises(InstanceTooLarge):  # b = 10^4: Φ needs x^(2·10^4), refused before any check
        verify_document(_set(doc, ("question", "mechanism", "log_x"), str(F(-1, MAX_QX_DEGREE))))
    huge = str(F(2 ** MAX_COEF_BITS + 1, 3))
    with pytest.raises(InstanceTooLarge):
        verify_document(_set(doc, ("question", "mechanism", "entries", 0, 0, 1, 0, 1), huge))
    with pytest.raises(InvalidArgument):  # an exponent over the degree limit: malformed
        verify_document(_set(doc, ("question", "mechanism", "entries", 0, 0, 1, 0, 0), MAX_QX_DEGREE + 1))
    with pytest.raises(InvalidArgument):  # not canonical: an unreduced entry
        verify_document(_set(doc, ("question", "mechanism", "entries", 0, 0, 1), [[0, "1"], [1, "1"]]))


def test_rational_phi_documents_are_unchanged_and_ball_mechanisms_stay_python_only():
    r = is_optimal(truncated_geometric(3, t="1/2"), line(3), t="1/2")
    doc = r.certificate.to_json()
    assert isinstance(doc["question"]["mechanism"], list) and doc["question"]["level"] == {"t": "1/2"}
    assert doc["question"] == make_question(line(3), "private", None, parse_level(t="1/2"),
                                            truncated_geometric(3, t="1/2").rows_fraction()).to_json()
    # session 16: the tight-constraints mechanism at ε = 1 is now portable (z solved exactly in
    # Q(x), tests/mechanisms/test_remap_tight16.py); balls handed in by a caller stay Python-only
    balls = from_balls(tight_constraints_mechanism(line(3), eps=1).to_balls().tolist())
    tc = is_optimal(balls, line(3), eps=2).certificate
    with pytest.raises(ExactnessRequired, match="not portable"):
        tc.to_json()


# ------------------------------------------------------------------ 14R-fix: exact sums
def _shared_doc(w: list[str]) -> dict:
    """line(2), x = e^{-1}, both rows (1/(2(x+1)), 1/(2(x+2)), (x²+2x+1/2)/((x+1)(x+2))):
    three distinct denominators that share factors (their product is not their lcm); the
    rows sum to 1 exactly. μ̄_1 = 1/2 is tight as an identity ((−1−x)/2 + (x+1)/2 ≡ 0)."""
    row = [[0, [[0, "1/2"]]], [1, [[0, "1/2"]]], [2, [[0, "1/2"], [1, "2"], [2, "1"]]]]
    dens = [[[0, "1"], [1, "1"]], [[0, "2"], [1, "1"]], [[0, "2"], [1, "3"], [2, "1"]]]
    return {"schema": "exactdp-certificate", "version": 1, "kind": "remap-farkas",
            "question": {"metric": write_metric(*canonical_metric(line(2))), "property": "private", "rhs": None,
                         "level": {"eps": "1"}, "mechanism": {"log_x": "-1", "denominators": dens,
                                                              "entries": [row, row]}},
            "claim": {"verdict": "fails", "w": w}, "evidence": {}}


def test_rows_over_denominators_sharing_factors():
    """The row identities are checked as Σ N·(L/D_j) = L with L the product of the row's
    distinct denominators: a true claim verifies, a tight μ̄ lowered by 10^-30 or a row
    moved off 1 by 10^-30 does not."""
    good = ["-1", "-1", "1/2", "3/5", "3/5"]
    assert _outcome(_shared_doc(good)) == "verified"
    low = _shared_doc(["-1", "-1", str(F(1, 2) - F(1, 10**30)), "3/5", "3/5"])
    assert _outcome(low) == "rejected"
    off = _shared_doc(good)
    off["question"]["mechanism"]["entries"][1][0][1] = [[0, str(F(1, 2) + F(1, 10**30))]]
    assert _outcome(off) == "rejected"


def test_remap_identity_is_charged_over_every_denominator():
    """12 rows each with its own denominator x^1000 + c_y: every row identity is small, but
    Φ·diag(HR) ≡ 1 lives over the product of all 12 (degree 12,000): a remap claim is
    refused up front (InstanceTooLarge), the Farkas claim on the same question is judged."""
    n = 12
    mech = {"log_x": "-1", "denominators": [[[0, str(2**100 + y)], [1000, "1"]] for y in range(n)],
            "entries": [[[y, [[0, "1"]]]] for y in range(n)]}
    q = {"metric": write_metric(*canonical_metric(line(n))), "property": "private", "rhs": None,
         "level": {"eps": "1"}, "mechanism": mech}
    env = {"schema": "exactdp-certificate", "version": 1, "evidence": {}}
    remap = {**env, "kind": "remap", "question": q, "claim": {"verdict": "holds", "remap": [["1"] + ["0"] * (n - 1)]}}
    farkas = {**env, "kind": "remap-farkas", "question": q, "claim": {"verdict": "fails", "w": ["-1"] * (n + 1)}}
    with pytest.raises(InstanceTooLarge):
        verify_document(loads(dumps(remap)))
    assert _outcome(farkas) == "rejected"  # judged (its rows are not ≡ 1), not refused
