"""Entropies, Shannon capacity, multiplicative TV and Bayes risk -> kernel documents
(exactdp/kernel/qif_log.py): genuine ones verify (in-process and in a fresh ``exactdp verify``
process), every edited field / swapped question is rejected or malformed, and the enclosures
hold the values of an independent 50-digit mpmath computation.

Ground truth of a tampering (:func:`_truth`) is decided here without the kernel or the
library: the question re-read by plain Python, the value recomputed with 50-digit mpmath
(entropies, ln ratio, the two capacity bounds at 60 digits) or exact rationals (ratio, Bayes
risk). A true claim (e.g. a higher precision whose ball still fits) may verify; a false
claim or an ill-posed question never does, and neither does evidence that was edited.
"""

import copy
import dataclasses
import json
import random
import subprocess
import sys
from fractions import Fraction as F

import mpmath
import pytest

from exactdp.arithmetic.interval import Enclosure
from exactdp.errors import InstanceTooLarge, InvalidArgument
from exactdp.kernel.jsonio import dumps
from exactdp.kernel.qif_log import MAX_LOG_PREC, MAX_LOG_WORK, QIF_LOG_KINDS
from exactdp.kernel.verify import SUPPORTED_KINDS, verify_document
from exactdp.qif.distances import MultiplicativeTV, multiplicative_total_variation
from exactdp.qif.entropy import CertifiedQuantity, conditional_entropy, mutual_information, shannon_entropy
from exactdp.qif.measures import BayesRisk, bayes_risk
from exactdp.qif.shannon import ShannonCapacity, shannon_capacity
from exactdp.testing.budget import call_budget

C3 = [["1/2", "1/3", "1/6"], ["1/5", "3/5", "1/5"], ["1/7", "2/7", "4/7"]]
C3B = [["1/3", "1/2", "1/6"], ["1/5", "1/5", "3/5"], ["4/7", "1/7", "2/7"]]   # same shape
PI, PIB = ["1/2", "1/3", "1/6"], ["1/6", "1/3", "1/2"]
BSC = [["9/10", "1/10"], ["1/10", "9/10"]]
TINY = F(1, 10**300)

CASES = {
    "H": lambda: shannon_entropy(PI),
    "H-zero": lambda: shannon_entropy(["1/2", "1/2", 0]),
    "HXY": lambda: conditional_entropy(C3, PI),
    "I": lambda: mutual_information(C3, PI),
    "I-tiny": lambda: mutual_information(BSC, [1 - TINY, TINY], prec=200),
    "cap-bsc": lambda: shannon_capacity(BSC),
    "cap-z": lambda: shannon_capacity([["1/2", "1/2"], [0, 1]]),
    "cap-c3": lambda: shannon_capacity(C3),
    "mtv": lambda: multiplicative_total_variation(PI, PIB),
    "mtv-inf": lambda: multiplicative_total_variation(["1/2", "1/2", 0], PI),
    "mtv-one": lambda: multiplicative_total_variation(PI, PI),
    "risk-prior": lambda: bayes_risk(prior=PI, n=3),
    "risk-post": lambda: bayes_risk(C3, PI),
}
READERS = {CertifiedQuantity: CertifiedQuantity.from_document, ShannonCapacity: ShannonCapacity.from_document,
           MultiplicativeTV: MultiplicativeTV.from_document, BayesRisk: BayesRisk.from_document}


@pytest.fixture(scope="module")
def results():
    return {name: make() for name, make in CASES.items()}


def _verified(doc) -> bool:
    """The kernel's verdict; a malformed document counts as not verified."""
    try:
        return verify_document(doc).verified
    except InvalidArgument:
        return False


# ------------------------------------------------------------------ independent oracle
def _mp(x) -> mpmath.mpf:
    x = F(x)
    return mpmath.mpf(x.numerator) / x.denominator


def _dist(v, n=None) -> list[F]:
    assert isinstance(v, list) and v and (n is None or len(v) == n)
    p = [F(x) for x in v]
    assert all(isinstance(x, str) and str(F(x)) == x for x in v) and all(x >= 0 for x in p) and sum(p) == 1
    return p


def _channel(v, n=None) -> list[list[F]]:
    assert isinstance(v, list) and v and (n is None or len(v) == n)
    rows = [_dist(r) for r in v]
    assert len({len(r) for r in rows}) == 1
    return rows


def _keys(doc, q, c, e) -> None:
    assert sorted(doc) == ["claim", "evidence", "kind", "question", "schema", "version"]
    assert doc["schema"] == "exactdp-certificate" and doc["version"] == 1
    assert (sorted(doc["question"]), sorted(doc["claim"]), sorted(doc["evidence"])) == (sorted(q), sorted(c), sorted(e))


def _enclosure(v) -> tuple[F, F]:
    assert sorted(v) == ["hi", "lo"] and all(isinstance(x, str) and str(F(x)) == x for x in v.values())
    lo, hi = F(v["lo"]), F(v["hi"])
    assert lo <= hi
    return lo, hi


def _prec(v) -> int:
    assert type(v) is int and 53 <= v <= MAX_LOG_PREC
    return v


def mp_quantity(quantity, prior, C) -> mpmath.mpf:
    """H, H(X|Y) or I(X;Y) in bits, at the current mpmath precision, straight from the definitions."""
    if C is None:
        return -mpmath.fsum(_mp(p) * mpmath.log(_mp(p), 2) for p in prior if p)
    J = [[_mp(p) * _mp(c) for c in row] for p, row in zip(prior, C)]
    py = [mpmath.fsum(J[x][y] for x in range(len(C))) for y in range(len(C[0]))]
    if quantity == "conditional-entropy":
        return -mpmath.fsum(J[x][y] * mpmath.log(J[x][y] / py[y], 2)
                            for x in range(len(C)) for y in range(len(C[0])) if C[x][y] and prior[x])
    return mpmath.fsum(J[x][y] * mpmath.log(J[x][y] / (_mp(prior[x]) * py[y]), 2)
                       for x in range(len(C)) for y in range(len(C[0])) if C[x][y] and prior[x])


def mp_divergence_max(C, q) -> mpmath.mpf:
    """max_x D(C_x ‖ q) in bits (+inf when some q_y = 0 under C[x][y] > 0)."""
    if any(c and not qy for row in C for c, qy in zip(row, q)):
        return mpmath.inf
    return max(mpmath.fsum(_mp(c) * mpmath.log(_mp(c) / _mp(qy), 2) for c, qy in zip(row, q) if c) for row in C)


def mp_capacity(C) -> tuple[mpmath.mpf, mpmath.mpf]:
    """[I(p; C), max_x D(C_x ‖ pC)] after Blahut–Arimoto in mpmath: the capacity lies between."""
    n, m = len(C), len(C[0])
    W = [[_mp(c) for c in row] for row in C]
    p = [mpmath.mpf(1) / n] * n
    for _ in range(4000):
        q = [mpmath.fsum(p[x] * W[x][y] for x in range(n)) for y in range(m)]
        D = [mpmath.fsum(W[x][y] * mpmath.log(W[x][y] / q[y], 2) for y in range(m) if W[x][y]) for x in range(n)]
        lo = mpmath.fsum(px * d for px, d in zip(p, D))
        if max(D) - lo < mpmath.mpf(10) ** -45:
            break
        p = [px * mpmath.power(2, d) for px, d in zip(p, D)]
        p = [px / mpmath.fsum(p) for px in p]
    return lo, max(D)


def _side(value_lo, value_hi, lo, hi) -> str:
    """"true" when [value_lo, value_hi] lies in [lo, hi] by more than 10^-(dps − 15), "false"
    when outside it, "unclear" otherwise."""
    eps = mpmath.mpf(10) ** (15 - mpmath.mp.dps)
    if _mp(lo) + eps < value_lo and value_hi < _mp(hi) - eps:
        return "true"
    if value_lo > _mp(hi) + eps or value_hi < _mp(lo) - eps:
        return "false"
    return "unclear"


def _truth(doc) -> str:
    """"malformed", "true", "false" or "unclear": the document's claim decided here."""
    with mpmath.workdps(60):
        try:
            q, c, e = doc["question"], doc["claim"], doc["evidence"]
            kind = doc["kind"]
            if kind == "qif-entropy":
                _keys(doc, ("quantity", "unit", "prior", "channel"), ("enclosure",), ("precision",))
                assert q["unit"] == "bits" and q["quantity"] in ("shannon-entropy", "conditional-entropy",
                                                                  "mutual-information")
                prior, lo_hi = _dist(q["prior"]), _enclosure(c["enclosure"])
                assert (q["channel"] is None) == (q["quantity"] == "shannon-entropy")
                C = None if q["channel"] is None else _channel(q["channel"], len(prior))
                _prec(e["precision"])
                with mpmath.workdps(700):                  # I of a 1e-300 prior: 1e-300 itself
                    v = mp_quantity(q["quantity"], prior, C)
                    return _side(v, v, *lo_hi)
            if kind == "qif-shannon-capacity":
                _keys(doc, ("channel", "unit"), ("enclosure",), ("witness", "output", "precision"))
                assert q["unit"] == "bits"
                C, lo_hi = _channel(q["channel"]), _enclosure(c["enclosure"])
                _dist(e["witness"], len(C)), _dist(e["output"], len(C[0])), _prec(e["precision"])
                return _side(*mp_capacity(C), *lo_hi)
            if kind == "qif-multiplicative-tv":
                _keys(doc, ("p", "q", "unit"), ("ratio", "enclosure"), ("precision",))
                assert q["unit"] == "nats"
                p = _dist(q["p"])
                pq = _dist(q["q"], len(p))
                assert (c["ratio"] is None) == (c["enclosure"] is None) == (e["precision"] is None)
                inf = any((a == 0) != (b == 0) for a, b in zip(p, pq))
                r = None if inf else max([max(a / b, b / a) for a, b in zip(p, pq) if a], default=F(1))
                if c["ratio"] is None or r is None:
                    return "true" if c["ratio"] is None and r is None else "false"
                _prec(e["precision"])
                lo_hi = _enclosure(c["enclosure"])
                if F(c["ratio"]) != r:
                    return "false"
                with mpmath.workdps(700):
                    v = mpmath.log(_mp(r))
                    if r == 1:                             # ln 1 = 0 exactly: decided exactly
                        return "true" if lo_hi[0] <= 0 <= lo_hi[1] else "false"
                    return _side(v, v, *lo_hi)
            if kind == "qif-bayes-risk":
                _keys(doc, ("prior", "channel"), ("value", "vulnerability", "strategy"), ())
                prior = _dist(q["prior"])
                C = None if q["channel"] is None else _channel(q["channel"], len(prior))
                cols = [prior] if C is None else [[p * r[y] for p, r in zip(prior, C)] for y in range(len(C[0]))]
                s = c["strategy"]
                assert isinstance(s, list) and len(s) == len(cols)
                assert all(type(w) is int and 0 <= w < len(prior) for w in s)
                v = sum(max(col) for col in cols)
                ok = F(c["vulnerability"]) == v and F(c["value"]) == 1 - v
                return "true" if ok and all(col[w] == max(col) for col, w in zip(cols, s)) else "false"
        except (AssertionError, KeyError, TypeError, ValueError, ZeroDivisionError, AttributeError):
            return "malformed"
    return "malformed"


# ------------------------------------------------------------------ genuine documents
@pytest.mark.parametrize("name", list(CASES))
def test_genuine_verifies_and_round_trips(results, name):
    r = results[name]
    doc = json.loads(dumps(r.to_document()))
    assert doc["kind"] in QIF_LOG_KINDS and doc["kind"] in SUPPORTED_KINDS
    assert r.verify() and verify_document(doc).verified, verify_document(doc)
    back = READERS[type(r)](dumps(doc))
    assert back == r and back.to_document() == doc
    assert type(r).from_json(r.to_json()) == r            # to_json (flat or the document) reads back
    assert type(r).from_json(doc) == r                    # from_json reads the kernel document too
    assert _truth(doc) == "true"                          # the oracle agrees on the genuine document


def test_enclosures_match_50_digit_mpmath():
    """Random small channels and priors: every enclosure holds the 50-digit value and is tight."""
    rng = random.Random(13)

    def dist(k):
        w = [rng.randint(0, 9) for _ in range(k)]
        w[rng.randrange(k)] += 1
        return [F(v, sum(w)) for v in w]

    checked = 0
    for _ in range(12):
        n, m = rng.randint(1, 4), rng.randint(1, 4)
        C, prior = [dist(m) for _ in range(n)], dist(n)
        for res in (shannon_entropy(prior), conditional_entropy(C, prior), mutual_information(C, prior)):
            with mpmath.workdps(50):
                v = mp_quantity(res.quantity, prior, None if res.quantity == "shannon-entropy" else C)
                assert _mp(res.enclosure.lo) <= v <= _mp(res.enclosure.hi), (res, v)
            assert res.enclosure.width < F(1, 10**30) and res.verify()
            checked += 1
        if n > 1 and m > 1:
            cap = shannon_capacity(C)
            with mpmath.workdps(50):
                assert _mp(cap.enclosure.lo) <= max(mp_quantity("mutual-information", cap.witness, C), 0)
                assert mp_divergence_max(C, cap.output) <= _mp(cap.enclosure.hi)
                lo, hi = mp_capacity(C)
                assert _mp(cap.enclosure.lo) <= hi and lo <= _mp(cap.enclosure.hi)
            assert cap.width < F(1, 10**6) and cap.verify()
        tv = multiplicative_total_variation(prior, dist(n))
        if tv.ratio is not None:
            with mpmath.workdps(50):
                assert _mp(tv.enclosure.lo) <= mpmath.log(_mp(tv.ratio)) <= _mp(tv.enclosure.hi)
            assert tv.verify()
    assert checked == 36


def test_tiny_and_closed_form_values():
    with mpmath.workdps(50):
        H = shannon_entropy([1 - TINY, TINY], prec=200)                     # ≈ 1e-300 · log2(1e300)
        v = mp_quantity("shannon-entropy", [1 - TINY, TINY], None)
        assert v > 0 and _mp(H.enclosure.lo) <= v <= _mp(H.enclosure.hi) and H.verify()
        e = F(1, 10)
        cap = shannon_capacity(BSC)                                         # 1 − h(1/10)
        truth = 1 + (_mp(e) * mpmath.log(_mp(e), 2) + _mp(1 - e) * mpmath.log(_mp(1 - e), 2))
        assert _mp(cap.enclosure.lo) <= truth <= _mp(cap.enclosure.hi) and cap.width < F(1, 10**30)
    z = shannon_capacity([["1/3", "2/3"], ["1/3", "2/3"]])
    assert (z.enclosure.lo, z.enclosure.hi) == (0, 0) and verify_document(z.to_document()).verified


# ------------------------------------------------------------------ tampering
def _paths(node, path=()):
    """Paths to every leaf (string, int, None) under question, claim and evidence."""
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _paths(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _paths(v, path + (i,))
    else:
        yield path


def _get(doc, path):
    for p in path:
        doc = doc[p]
    return doc


def _set(doc, path, value):
    out = copy.deepcopy(doc)
    node = out
    for p in path[:-1]:
        node = node[p]
    node[path[-1]] = value
    return out


_WORDS = {"shannon-entropy": "conditional-entropy", "conditional-entropy": "mutual-information",
          "mutual-information": "conditional-entropy", "bits": "nats", "nats": "bits"}


def _edits(doc, path):
    """Edited values for one leaf: numbers nudged, words swapped, nulls filled, types broken."""
    v = _get(doc, path)
    if v is None:
        return [["1/2", "1/2"], "0"]
    if isinstance(v, bool):
        return [not v]
    if isinstance(v, int):
        return [v + 1, v - 1, 64, MAX_LOG_PREC + 1, str(v)] if path[-1] == "precision" else [v + 1, -1, str(v)]
    if v in _WORDS:
        return [_WORDS[v], v.upper()]
    x = F(v)
    return [str(x + 1), str(x - F(1, 3)), str(x + F(1, 10**40)), "2/4", int(x) if x.denominator == 1 else v + "0"]


def _moves(doc):
    """Mass moved inside every distribution (the question or witness stays well posed)."""
    out = []
    for part in ("question", "evidence"):
        for key, val in doc[part].items():
            vecs = ([(part, key)] if isinstance(val, list) and val and isinstance(val[0], str)
                    else [(part, key, i) for i in range(len(val))] if isinstance(val, list) and val else [])
            for path in vecs:
                p = [F(x) for x in _get(doc, path)]
                if len(p) > 1 and key != "strategy":
                    i, j = max(range(len(p)), key=p.__getitem__), min(range(len(p)), key=lambda k: (p[k] == 0, k))
                    if i != j:
                        p[i], p[j] = p[i] - F(1, 1000), p[j] + F(1, 1000)
                        out.append((path, _set(doc, path, [str(x) for x in p])))
    return out


@pytest.mark.parametrize("name", list(CASES))
def test_every_field_edited_is_rejected_or_malformed(results, name):
    doc = results[name].to_document()
    tried = false_claims = 0
    edits = [(path, _set(doc, path, v)) for path in _paths({k: doc[k] for k in ("question", "claim", "evidence")})
             for v in _edits(doc, path)] + _moves(doc)
    for key in ("question", "claim", "evidence"):                       # a key dropped, one added
        for k in doc[key]:
            edits.append(((key, k), {**doc, key: {kk: vv for kk, vv in doc[key].items() if kk != k}}))
        edits.append(((key, "extra"), {**doc, key: {**doc[key], "extra": "1"}}))
    for kind in QIF_LOG_KINDS:
        if kind != doc["kind"]:
            edits.append((("kind",), {**doc, "kind": kind}))
    for path, bad in edits:
        got, truth = _verified(bad), _truth(bad)
        if truth == "true" and (path[0] != "evidence" or path[-1] == "precision"):
            continue  # a true claim may verify (an exact zero still exact; a precision whose ball still fits)
        assert not got, (path, truth)
        tried += 1
        false_claims += truth in ("false", "malformed")
    assert tried >= 15 and false_claims >= 10, (tried, false_claims)


PAIRS = [
    (lambda: shannon_entropy(PI), lambda: shannon_entropy(["1/4", "1/4", "1/2"])),
    (lambda: conditional_entropy(C3, PI), lambda: conditional_entropy(C3B, PI)),
    (lambda: mutual_information(C3, PI), lambda: mutual_information(C3, PIB)),
    (lambda: mutual_information(C3, PI), lambda: conditional_entropy(C3, PI)),
    (lambda: shannon_capacity(C3), lambda: shannon_capacity(C3B)),
    (lambda: multiplicative_total_variation(PI, PIB), lambda: multiplicative_total_variation(PI, ["1/3"] * 3)),
    (lambda: bayes_risk(C3, PI), lambda: bayes_risk(C3B, PI)),
    (lambda: bayes_risk(prior=PI, n=3), lambda: bayes_risk(prior=["1/4", "1/4", "1/2"], n=3)),
]


@pytest.mark.parametrize("k", range(len(PAIRS)))
def test_swaps_between_two_questions_are_rejected(k):
    a, b = (make().to_document() for make in PAIRS[k])
    assert _verified(a) and _verified(b) and a["kind"] == b["kind"]
    for part in ("question", "claim", "evidence"):
        for x, y in ((a, b), (b, a)):
            if x[part] == y[part]:
                continue
            bad = {**x, part: copy.deepcopy(y[part])}
            assert not _verified(bad), (k, part)
            if part != "evidence":
                assert _truth(bad) in ("false", "malformed"), (k, part)
    swapped = 0
    for part in ("question", "claim"):                    # sub-fields one at a time
        for key in a[part]:
            if a[part][key] != b[part][key]:
                bad = {**a, part: {**a[part], key: copy.deepcopy(b[part][key])}}
                assert not _verified(bad) and _truth(bad) in ("false", "malformed", "unclear"), (k, part, key)
                swapped += 1
    assert swapped >= 1


def test_result_verify_is_the_kernels_verdict(results):
    H, cap = results["I"], results["cap-c3"]
    tv, risk = results["mtv"], results["risk-post"]
    edited = [
        dataclasses.replace(H, enclosure=Enclosure(H.enclosure.lo + 1, H.enclosure.hi + 1)),
        dataclasses.replace(H, quantity="conditional-entropy"),
        dataclasses.replace(H, precision=5000),
        dataclasses.replace(H, prior=(F(1, 2), F(1, 2), F(1, 2))),
        dataclasses.replace(cap, witness=(F(1), F(0), F(0)), enclosure=Enclosure(F(0), cap.enclosure.hi)),
        dataclasses.replace(cap, output=(F(1), F(0), F(0))),
        dataclasses.replace(tv, ratio=tv.ratio + 1),
        dataclasses.replace(tv, q=tv.p),
        dataclasses.replace(risk, value=risk.value + F(1, 100)),
        dataclasses.replace(risk, vulnerability=dataclasses.replace(risk.vulnerability, strategy=(0, 0, 0))),
    ]
    def kernel(r) -> bool:
        try:
            return _verified(r.to_document())
        except Exception:  # noqa: BLE001 - a result that cannot even be written does not verify
            return False

    verdicts = [r.verify() for r in edited]
    assert verdicts == [kernel(r) for r in edited]
    assert verdicts == [False] * 4 + [True] + [False] * 5   # a worse witness with lo = 0 is still a proof


# ------------------------------------------------------------------ sizes refused
@pytest.mark.parametrize("prec", [MAX_LOG_PREC + 1, 10**6, 2**40])
def test_oversized_precision_refused_up_front(results, prec):
    for name in ("I", "cap-c3", "mtv"):
        doc = _set(results[name].to_document(), ("evidence", "precision"), prec)
        with call_budget(50_000) as seen, pytest.raises(InvalidArgument, match="evidence.precision"):
            verify_document(doc)
        assert seen[2] < MAX_LOG_PREC              # refused before any arithmetic at that precision
    with pytest.raises(InvalidArgument, match="MAX_PREC"):
        mutual_information(C3, PI, prec=prec)
    with pytest.raises(InvalidArgument, match="MAX_PREC"):
        shannon_capacity(BSC, prec=prec)


def _huge_channel(n: int, digits: int) -> list[list[F]]:
    """Rows (1 − 1/d_x, 1/d_x) with distinct d_x of ``digits`` digits: the exact sums need ~n·digits digits."""
    return [[1 - F(1, 10**digits + 2 * x + 1), F(1, 10**digits + 2 * x + 1)] for x in range(n)]


def test_huge_and_tiny_rationals_refused_with_the_same_limit(results):
    C = _huge_channel(40, 3000)
    with pytest.raises(InstanceTooLarge, match="MAX_LOG_WORK"):
        mutual_information(C)                     # the writer refuses ...
    prior = [str(F(1, 40))] * 40
    doc = mutual_information(_huge_channel(40, 3), prior).to_document()
    doc["question"]["channel"] = [[str(v) for v in row] for row in C]
    doc["evidence"]["precision"] = 4000
    with call_budget(2_000_000) as seen, pytest.raises(InstanceTooLarge, match="MAX_LOG_WORK"):
        verify_document(doc)                      # ... and the kernel refuses the same question
    assert seen[2] < 4000                         # before any ball arithmetic at the stated precision
    doc = results["cap-bsc"].to_document()
    doc["question"]["channel"] = [[str(v) for v in row] for row in C]
    doc["evidence"]["witness"] = prior
    with pytest.raises(InstanceTooLarge, match="MAX_LOG_WORK"):
        verify_document(doc)
    with pytest.raises(InstanceTooLarge, match="MAX_LOG_WORK"):
        shannon_capacity(C)
    P = [F(1, 10**3000 + 2 * x + 1) for x in range(1, 40)]
    P = [1 - sum(P)] + P                          # a distribution with 39 distinct 3000-digit denominators
    for write in (lambda: multiplicative_total_variation(P, P), lambda: bayes_risk(prior=P, n=40),
                  lambda: shannon_entropy(P)):
        with pytest.raises(InstanceTooLarge, match="MAX_LOG_WORK"):
            write()                               # every writer refuses what the kernel would
    big = _set(results["H"].to_document(), ("question", "prior", 0), "1/1" + "0" * 100_001)
    with pytest.raises(InvalidArgument, match="digits"):
        verify_document(big)
    assert MAX_LOG_WORK == 50_000_000


# ------------------------------------------------------------------ a fresh process
def _cli(path):
    return subprocess.run([sys.executable, "-m", "exactdp", "verify", str(path)], capture_output=True, text=True,
                          timeout=120)


def test_exactdp_verify_in_a_fresh_process(results, tmp_path):
    docs = {"entropy": results["HXY"], "capacity": results["cap-z"], "mtv": results["mtv"],
            "risk": results["risk-post"]}
    for name, r in docs.items():
        path = tmp_path / f"{name}.json"
        path.write_text(dumps(r.to_document()))
        out = _cli(path)
        assert out.returncode == 0 and "verified" in out.stdout, (name, out.stdout, out.stderr)
    bad = r.to_document()
    bad["claim"]["value"] = str(F(bad["claim"]["value"]) + F(1, 7))
    (tmp_path / "bad.json").write_text(dumps(bad))
    out = _cli(tmp_path / "bad.json")
    assert out.returncode == 1 and "REJECTED" in out.stdout
    malformed = results["cap-z"].to_document()
    malformed["evidence"]["precision"] = MAX_LOG_PREC + 1
    (tmp_path / "malformed.json").write_text(dumps(malformed))
    out = _cli(tmp_path / "malformed.json")
    assert out.returncode == 3 and "evidence.precision" in out.stderr + out.stdout
