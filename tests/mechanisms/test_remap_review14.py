"""Review of task 14R (closed-form ``remap`` / ``remap-farkas`` documents, kernel/remap_qx.py).

Findings (strict xfail until fixed; all five fixed by task 14R-fix, now plain tests):

* the kernel's work limit ignores the degree of the common denominator that the exact row
  identities build (``_ratsum`` multiplies distinct denominators): a few-KB document within
  every limit takes minutes and hundreds of MB (K = 80 denominators of degree 1,000: 219 s,
  635 MB; the allowed K = 166, d = 10^4 is far beyond); it should be refused up front;
* the writer builds x^{a·E} polynomials of any degree before ``require_qx`` refuses them
  (exponential mechanism at ε = 1 − 10^-k, question ε = 1: a = 10^k);
* more than MAX_QX_ENTRIES entries is malformed (InvalidArgument) although the module says
  "over a limit: InstanceTooLarge";
* ``FarkasRemapCertificate.from_json`` of a kernel-verified document whose margin needs more
  than the Python MAX_PREC (4,096 bits; the kernel goes to 16,384) returns a certificate
  whose ``verify()`` is False;
* "one spelling per question" (module doc, proof lemma 4) does not hold: the denominators
  may be listed in any order (indices renumbered), and both spellings verify.

What held is pinned by the passing tests: a mechanism with a negative (monic) denominator is
judged like a 50-digit mpmath oracle, and random edits of genuine documents never verify a
claim the oracle finds false.
"""

from __future__ import annotations

import copy
import random
from fractions import Fraction as F

import mpmath
import pytest

from exactdp.arithmetic.rationals import unlimited_int_digits
from exactdp.engine.questions import canonical_metric
from exactdp.errors import ExactDPError, InstanceTooLarge
from exactdp.kernel.jsonio import dumps, loads, write_rational
from exactdp.kernel.metricio import write_metric
from exactdp.kernel.verify import verify_document
from exactdp.mechanisms.constructors import exponential_mechanism, from_rows, randomized_response, truncated_geometric
from exactdp.mechanisms.optimality import FarkasRemapCertificate, is_optimal
from exactdp.spaces.metrics import cycle, line, line_scaled
from exactdp.testing.budget import call_budget


def _metric(m) -> dict:
    return write_metric(*canonical_metric(m))


def _doc(kind: str, metric, eps: str, log_x: str, dens: list, entries: list, claim: dict) -> dict:
    return {"schema": "exactdp-certificate", "version": 1, "kind": kind,
            "question": {"metric": _metric(metric), "property": "private", "rhs": None, "level": {"eps": eps},
                         "mechanism": {"log_x": log_x, "denominators": dens, "entries": entries}},
            "claim": claim, "evidence": {}}


def _outcome(doc: dict) -> str:
    try:
        return "verified" if verify_document(loads(dumps(doc))).verified else "rejected"
    except ExactDPError:
        return "malformed"


# ------------------------------------------------------------------ independent oracle
def _rat(s: str) -> mpmath.mpf:
    f = F(s)
    return mpmath.mpf(f.numerator) / f.denominator


def _distances(mj: dict) -> list[list[mpmath.mpf]]:
    n = mj["n"]
    if mj["encoding"] == "builtin" and mj["constructor"] == "line":
        return [[mpmath.mpf(abs(i - j)) for j in range(n)] for i in range(n)]
    if mj["encoding"] == "builtin" and mj["constructor"] == "cycle":
        return [[mpmath.mpf(min(abs(i - j), n - abs(i - j))) for j in range(n)] for i in range(n)]
    vals = [_rat(v["coef"]) * mpmath.sqrt(int(v["radicand"])) for v in mj["values"]]
    return [[vals[k] for k in row] for row in mj["index"]]


def _truth(doc: dict) -> bool:
    """The claim about the stated question at 60 digits, with Φ = e^{-ε·d} taken from the
    metric's distances (not from the document's b)."""
    with mpmath.workdps(60):
        tol = mpmath.mpf(10) ** -45
        q, mech = doc["question"], doc["question"]["mechanism"]
        D, eps, x = _distances(q["metric"]), _rat(q["level"]["eps"]), mpmath.exp(_rat(mech["log_x"]))

        def ev(terms: list) -> mpmath.mpf:
            return sum((_rat(c) * x**e for e, c in terms), mpmath.mpf(0))

        dens = [ev(d) for d in mech["denominators"]]
        H = [[ev(p) / dens[j] for j, p in row] for row in mech["entries"]]
        n, m = len(H), len(H[0])
        phi = [[mpmath.exp(-eps * D[a][c]) for c in range(n)] for a in range(n)]
        if any(abs(sum(r) - 1) > tol or min(r) < -tol for r in H):
            return False
        if not all(phi[a][c] * H[a][z] <= H[c][z] + tol for a in range(n) for c in range(n) for z in range(m)):
            return False
        if doc["kind"] == "remap":
            R = [[F(v) for v in r] for r in doc["claim"]["remap"]]
            if len(R) != m or any(len(r) != n or min(r) < 0 or sum(r) != 1 for r in R):
                return False
            return all(abs(sum(phi[y][y2] * H[y2][z] * _rat(str(R[z][y2])) for y2 in range(n) for z in range(m)) - 1)
                       < tol for y in range(n))
        w = [F(v) for v in doc["claim"]["w"]]
        if len(w) != n + m or sum(w) >= 0:
            return False
        return all(H[y][z] * sum(_rat(str(w[r])) * phi[r][y] for r in range(n)) + _rat(str(w[n + z])) >= -tol
                   for y in range(n) for z in range(m))


# ------------------------------------------------------------------ findings
def test_row_identity_common_denominator_is_refused_up_front():
    """12 distinct denominators x^1000 + c_j in one row: the exact row sum has a denominator
    of degree 12,000 > MAX_QX_DEGREE with 1,200-bit coefficients; at 80 of them the check
    takes minutes. Within every current limit, so it is only rejected, after the work."""
    K, d = 12, 1000
    dens = [[[0, str(2**100 + j)], [d, "1"]] for j in range(K)]
    row = [[j, [[0, "1"]]] for j in range(K)]
    doc = _doc("remap", line(2), "1", "-1", dens, [row, row], {"verdict": "holds", "remap": [["1", "0"]] * K})
    with pytest.raises(InstanceTooLarge):
        verify_document(loads(dumps(doc)))


def test_writer_refuses_before_building_huge_powers():
    """exponential(line(3), ε = 1 − 10^-4) at ε = 1: a = 10^4 − 1, b = 2·10^4, so the
    writer's row sums have degree ≈ 2·10^4 (10^-5: 4 s, 10^-6: 30 s / 730 MB, grows
    linearly). A bounded writer refuses it from a, b and E alone."""
    r = is_optimal(exponential_mechanism(line(3), eps=1 - F(1, 10**4)), line(3), eps=1)
    with call_budget(2_000_000) as made:
        with pytest.raises(InstanceTooLarge):
            r.certificate.to_json()
    assert made[0] < 30_000 and made[1] < 500_000, made  # a genuine n = 3 document: ≈ 13,000 calls, 250 KB


def test_too_many_entries_is_instance_too_large():
    row = [[0, [[0, "1"]]]] * 500_001
    doc = _doc("remap", line(2), "1", "-1", [[[0, "1"]]], [row, row], {"verdict": "holds", "remap": [["1", "0"]]})
    with pytest.raises(InstanceTooLarge):
        verify_document(doc)


def test_read_back_certificate_verifies_when_the_kernel_did():
    """Flat 1/3 on line(3) at ε = 1 with μ̄ = μ + ~10^-2000 (true; ≈ 2^-6,644): the kernel
    decides it below its 16,384-bit cap, the read-back certificate's verify() does not."""
    doc = loads(dumps(is_optimal(from_rows([[F(1, 3)] * 3] * 3), line(3), eps=1).certificate.to_json()))
    with unlimited_int_digits(), mpmath.workdps(2050):
        mu = (1 + 2 * mpmath.exp(-1)) / 3
        up = write_rational(F(int(mpmath.floor(mu * mpmath.mpf(10) ** 2000)) + 1, 10**2000))
    doc["claim"]["w"] = ["-1"] * 3 + [up] * 3
    assert verify_document(doc).verified
    assert FarkasRemapCertificate.from_json(doc).verify()


def test_denominator_order_is_one_spelling():
    doc = loads(dumps(is_optimal(exponential_mechanism(line(4), eps=1), line(4), eps=1).certificate.to_json()))
    mech = doc["question"]["mechanism"]
    assert len(mech["denominators"]) == 2 and _outcome(doc) == "verified"
    other = copy.deepcopy(doc)
    other["question"]["mechanism"]["denominators"] = mech["denominators"][::-1]
    other["question"]["mechanism"]["entries"] = [[[1 - j, p] for j, p in row] for row in mech["entries"]]
    assert _outcome(other) == "malformed"


# ------------------------------------------------------------------ what held
def _negative_denominator(w: list[str] | None) -> dict:
    """Flat rows ((x−1)/(x−2), −1/(x−2)) on line(2): the monic denominator x − 2 is < 0 at x."""
    row = [[0, [[0, "-1"], [1, "1"]]], [0, [[0, "-1"]]]]
    claim = {"verdict": "fails", "w": w} if w is not None else {"verdict": "holds", "remap": [["1", "0"], ["0", "1"]]}
    return _doc("remap-farkas" if w is not None else "remap", line(2), "1", "-1", [[[0, "-2"], [1, "1"]]],
                [row, row], claim)


@pytest.mark.parametrize("w", [None, ["-1", "-1", "27/50", "17/20"], ["-1", "-1", "13/25", "17/20"],
                               ["-1", "-1", "27/50", "4/5"]])
def test_negative_denominator_agrees_with_the_oracle(w):
    doc = _negative_denominator(w)
    got = _outcome(doc)
    assert got != "malformed"
    assert (got == "verified") == _truth(doc)
    if w == ["-1", "-1", "27/50", "17/20"]:
        assert got == "verified"  # the true Farkas claim is decided (both signs flip with x − 2)


def _genuine() -> list[dict]:
    out = []
    for mech, metric, eps in ((truncated_geometric(3, eps=1), line(3), 1),
                              (truncated_geometric(4, eps=1), line(4), F(3, 2)),
                              (randomized_response(3, eps=1), cycle(3), 1),
                              (randomized_response(3, eps=1), line(3), 1),
                              (exponential_mechanism(line(3), eps=1), line(3), 1),
                              (exponential_mechanism(cycle(4), eps=F(3, 2)), cycle(4), 2)):
        cert = is_optimal(mech, metric, eps=eps).certificate
        out.append(loads(dumps(cert.to_json())))
    return out


def _mutate(doc: dict, rng: random.Random) -> dict:
    d = copy.deepcopy(doc)
    q, mech = d["question"], d["question"]["mechanism"]
    n, m = len(mech["entries"]), len(mech["entries"][0])
    op = rng.randrange(7)
    y, z, z2 = rng.randrange(n), rng.randrange(m), rng.randrange(m)
    if op == 0:
        q["level"] = {"eps": str(rng.choice([F(1, 2), F(1), F(3, 2), F(2), F(3)]))}
    elif op == 1:
        k = rng.choice([F(1, 2), F(2), F(3)])
        mech["log_x"] = str(F(mech["log_x"]) * k)
        if rng.random() < 0.5:
            q["level"] = {"eps": str(F(q["level"]["eps"]) * k)}
    elif op == 2:
        q["metric"] = _metric(rng.choice([line(n), line_scaled(n, 2), line_scaled(n, F(1, 2))]
                                         + ([cycle(n)] if n > 2 else [])))
    elif op == 3 and mech["entries"][y][z][0] == mech["entries"][y][z2][0] and z != z2:
        e, c = rng.randrange(3), rng.choice([F(1, 10), F(1, 10**30), F(1, 3)])  # the row stays ≡ 1
        for cell, sgn in ((mech["entries"][y][z], 1), (mech["entries"][y][z2], -1)):
            terms = {t[0]: F(t[1]) for t in cell[1]}
            terms[e] = terms.get(e, F(0)) + sgn * c
            cell[1] = [[k, str(v)] for k, v in sorted(terms.items()) if v != 0]
    elif op == 4 and d["kind"] == "remap":
        R = d["claim"]["remap"]
        a, c = rng.randrange(n), rng.randrange(n)
        delta = rng.choice([F(1, 2), F(1, 10**30), F(1)])
        R[z][a], R[z][c] = str(F(R[z][a]) - delta), str(F(R[z][c]) + delta)
    elif op == 5 and d["kind"] == "remap-farkas":
        w = d["claim"]["w"]
        k = rng.randrange(len(w))
        w[k] = str(F(w[k]) + rng.choice([F(1, 2), F(-1, 2), F(-1, 10**30), F(-1, 10**200)]))
    elif op == 6:
        p = mech["entries"][y][z][1]
        if p:
            p[0][1] = str(F(p[0][1]) + rng.choice([F(1, 7), F(-1, 10**20)]))
            if F(p[0][1]) == 0:
                del p[0]
    return d


def test_random_edits_never_verify_a_false_claim():
    """300 documents with 1–3 random edits each (ε, log_x with or without ε, another metric,
    mass moved between two entries of a row, R, w by tiny amounts, a coefficient): whatever
    verifies is true by the oracle (Φ from the distances, not from b); some edits verify (true
    claims about the edited question) and many do not. 16,500 more such edits in the review."""
    rng = random.Random(14)
    gens = _genuine()
    assert all(_outcome(g) == "verified" and _truth(g) for g in gens)
    seen = {"verified": 0, "rejected": 0, "malformed": 0}
    for _ in range(300):
        doc = rng.choice(gens)
        for _ in range(rng.choice([1, 2, 3])):
            doc = _mutate(doc, rng)
        got = _outcome(doc)
        seen[got] += 1
        if got == "verified":
            assert _truth(doc), dumps(doc)[:500]
    assert min(seen.values()) > 10, seen
