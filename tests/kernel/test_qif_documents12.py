"""QIF results -> kernel documents (exactdp/kernel/qif.py): genuine ones verify (also in a fresh
``exactdp verify`` process), every edited number / flipped claim / swapped input is rejected.

Ground truth of a tampering: the library's own search code (not the kernel) recomputes the
answer to the tampered question; the tampered document is true iff the library writes exactly
it. Instances have positive priors, no ties and numbers that all matter, so nearly every edit
makes a false claim or a malformed question.
"""

import copy
import json
import re
import subprocess
import sys
from fractions import Fraction as F

import mpmath
import pytest

from exactdp.errors import CertificateInvalid, ExactDPError, InvalidArgument
from exactdp.kernel.jsonio import dumps
from exactdp.kernel.metricio import read_metric_json
from exactdp.kernel.verify import verify_document
from exactdp.qif import (
    Capacity,
    GainFunction,
    GuessingEntropy,
    Kantorovich,
    Leakage,
    OptimalMechanism,
    Refinement,
    Vulnerability,
    additive_bayes_capacity,
    additive_leakage,
    g_capacity,
    guessing_entropy,
    is_refined_by,
    kantorovich,
    multiplicative_bayes_capacity,
    multiplicative_leakage,
    optimal_mechanism,
    posterior_vulnerability,
    prior_vulnerability,
)
from exactdp.spaces.metrics import from_matrix, line

C3 = [["1/2", "1/3", "1/6"], ["1/5", "3/5", "1/5"], ["1/7", "2/7", "4/7"]]
C3B = [["1/3", "1/2", "1/6"], ["1/5", "1/5", "3/5"], ["4/7", "1/7", "2/7"]]   # same shape
PI = ["1/2", "1/3", "1/6"]
G = GainFunction.from_matrix([[1, "1/2", 0], ["1/3", 1, "1/4"], [0, "1/2", 1]])
LOSS = GainFunction.from_matrix([[0, 1, 2], [1, 0, 1], [2, 1, 0]], loss=True)
C4 = [["1/2", "1/2", 0, 0], [0, "1/2", "1/2", 0], [0, 0, "1/2", "1/2"], ["1/2", 0, 0, "1/2"]]
R = [["1/2", "1/2"], ["1/3", "2/3"], [1, 0]]

# name -> (result, reader, rebuild: question dict -> the library's result for it)
CASES = {
    "vuln-prior": lambda: prior_vulnerability(G, PI),
    "vuln-post": lambda: posterior_vulnerability(G, C3, PI),
    "vuln-loss": lambda: posterior_vulnerability(LOSS, C3, PI),
    "leak-add": lambda: additive_leakage(G, C3, PI),
    "leak-mult": lambda: multiplicative_leakage(G, C3, PI),
    "leak-mult-loss": lambda: multiplicative_leakage(LOSS, C3, PI),
    "leak-pow2": lambda: multiplicative_leakage(GainFunction.identity(2), [[1, 0], [0, 1]]),
    "guess-prior": lambda: guessing_entropy(PI),
    "guess-post": lambda: guessing_entropy(PI, C3),
    "cap-mult-bayes": lambda: multiplicative_bayes_capacity(C3),
    "cap-add-bayes": lambda: additive_bayes_capacity(C3),
    "cap-add-bounds": lambda: additive_bayes_capacity(C4, max_exact=0),
    "cap-add-g": lambda: g_capacity(G, C3, "additive"),
    "cap-mult-g": lambda: g_capacity(G, C3, "multiplicative"),
    "cap-loss-g": lambda: g_capacity(LOSS, C3, "additive"),
    "refine-holds": lambda: is_refined_by(C3, [[sum((F(a) * F(r[k]) for a, r in zip(row, R)), F(0))
                                                for k in range(2)] for row in C3]),
    "refine-fails": lambda: is_refined_by([["1/2", "1/2"], [1, 0]], [[1, 0], [0, 1]]),
    "kantorovich": lambda: kantorovich(line(3), ["1/2", "1/3", "1/6"], ["1/6", "1/6", "2/3"]),
    "optimal": lambda: optimal_mechanism(line(3), ["1/2", "1/3", "1/6"], t="1/2"),
    "optimal-loss": lambda: optimal_mechanism(line(3), ["1/2", "1/3", "1/6"], t="1/3",
                                              gain=GainFunction.distance_loss(line(3))),
}
READERS = {Vulnerability: Vulnerability.from_document, Leakage: Leakage.from_document,
           GuessingEntropy: GuessingEntropy.from_document, Capacity: Capacity.from_document,
           Refinement: Refinement.from_document, Kantorovich: Kantorovich.from_document,
           OptimalMechanism: OptimalMechanism.from_document}


def _verified(doc) -> bool:
    """The kernel's verdict; a malformed document counts as not verified."""
    try:
        return verify_document(doc).verified
    except InvalidArgument:
        return False


def _library(doc):
    """The library's own answer to the document's question (None when it is ill-posed)."""
    q, kind = doc["question"], doc["kind"]
    rd = lambda v: None if v is None else [[F(x) for x in r] for r in v]  # noqa: E731
    try:
        gain = GainFunction.from_json(q["gain"]) if q.get("gain") else None
        if kind == "qif-vulnerability":
            pi = [F(x) for x in q["prior"]]
            return (prior_vulnerability(gain, pi) if q["channel"] is None
                    else posterior_vulnerability(gain, rd(q["channel"]), pi))
        if kind == "qif-leakage":
            fn = additive_leakage if q["measure"] == "additive" else multiplicative_leakage
            return fn(gain, rd(q["channel"]), [F(x) for x in q["prior"]])
        if kind == "qif-guessing-entropy":
            return guessing_entropy([F(x) for x in q["prior"]], rd(q["channel"]))
        if kind == "qif-capacity":
            m = q["measure"]
            if m == "multiplicative-bayes":
                return multiplicative_bayes_capacity(rd(q["channel"]))
            if m == "additive-bayes":
                return additive_bayes_capacity(rd(q["channel"]),
                                               max_exact=0 if doc["evidence"]["method"] == "bounds" else 14)
            return g_capacity(gain, rd(q["channel"]), m.split("-")[0])
        if kind == "qif-refinement":
            return is_refined_by(rd(q["A"]), rd(q["B"]))
        if kind == "qif-kantorovich":
            return kantorovich(rd(q["distances"]), [F(x) for x in q["p"]], [F(x) for x in q["q"]])
        if kind == "qif-optimal-mechanism":
            metric = read_metric_json(q["metric"])[0]
            return optimal_mechanism(metric, [F(x) for x in q["prior"]], t=F(q["t"]), gain=gain)
    except (ExactDPError, KeyError, TypeError, ValueError, ZeroDivisionError):
        return None
    return None


def _truth(doc) -> str:
    """"must": the library writes exactly this document; "may": its claim is true (an
    enclosure that still holds the value, the optimal value with another optimal mechanism,
    a true claim whose evidence was written for another question); "false" otherwise."""
    lib = _library(doc)
    if lib is None:
        return "false"
    mine = lib.to_document()
    if mine == doc:
        return "must"
    if mine["question"] == doc["question"] and mine["claim"] == doc["claim"]:
        return "may"
    if doc["kind"] == "qif-optimal-mechanism" and mine["question"] == doc["question"]:
        return "may" if mine["claim"]["value"] == doc["claim"]["value"] else "false"
    return "may" if _wider_but_true(doc) else "false"


def _wider_but_true(doc) -> bool:
    """The library's claim except for an enclosure that still holds the true value (checked
    with 60-digit mpmath for log2, exactly for a capacity): a true claim, which may verify."""
    lib = _library(doc)
    if lib is None:
        return False
    mine = lib.to_document()
    if mine["question"] != doc["question"]:
        return False
    for key in ("bits", "bounds"):
        if key in doc["claim"] and doc["claim"][key] != mine["claim"][key] and doc["claim"][key] is not None:
            lo, hi = F(doc["claim"][key]["lo"]), F(doc["claim"][key]["hi"])
            if lo > hi or {**mine["claim"], key: doc["claim"][key]} != doc["claim"]:
                return False
            if key == "bounds":
                return lo <= F(mine["claim"]["bounds"]["lo"]) and F(mine["claim"]["bounds"]["hi"]) <= hi
            with mpmath.workdps(60):
                x = mpmath.log(mpmath.mpf(F(doc["claim"]["value"]).numerator) / F(doc["claim"]["value"]).denominator, 2)
                return mpmath.mpf(lo.numerator) / lo.denominator < x < mpmath.mpf(hi.numerator) / hi.denominator
    return False


_RAT = re.compile(r"-?[0-9]+(/[0-9]+)?")


def _leaves(node, path=()):
    """Paths to every rational string and every integer (not bool) in a JSON tree."""
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _leaves(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _leaves(v, path + (i,))
    elif (isinstance(node, str) and _RAT.fullmatch(node)) or (isinstance(node, int) and not isinstance(node, bool)):
        yield path


def _set(doc, path, value):
    out = copy.deepcopy(doc)
    node = out
    for p in path[:-1]:
        node = node[p]
    node[path[-1]] = value
    return out


def _nudged(v):
    if isinstance(v, int):
        return [v + 1]
    x = F(v)
    return [str(x + 1), str(x - F(1, 3))]


def _get(doc, path):
    for p in path:
        doc = doc[p]
    return doc


@pytest.fixture(scope="module")
def docs():
    return {name: make() for name, make in CASES.items()}


@pytest.mark.parametrize("name", list(CASES))
def test_genuine_verifies_and_round_trips(docs, name):
    r = docs[name]
    assert r.verify()
    doc = json.loads(dumps(r.to_document()))
    assert verify_document(doc).verified, verify_document(doc)
    back = READERS[type(r)](dumps(doc))
    assert back.to_document() == doc
    assert _truth(doc) == "must"         # the oracle itself agrees on the genuine document


# evidence fields whose every single edit breaks the proof (the others, e.g. one more Farkas
# multiplier or a larger dual on a non-binding strategy, may leave a valid proof)
_EVIDENCE_BREAKS = {"qif-kantorovich": ("plan", "f", "g"), "qif-refinement": ("remap",),
                    "qif-optimal-mechanism": ("u",)}


@pytest.mark.parametrize("name", list(CASES))
def test_every_number_edited_is_rejected_unless_true(docs, name):
    doc = docs[name].to_document()
    tried = 0
    for path in _leaves(doc):
        part = path[0]
        if part == "evidence" and path[1] not in _EVIDENCE_BREAKS.get(doc["kind"], ()):
            continue
        if part not in ("question", "claim", "evidence") or path[-2:] == ("metric", "n"):
            continue
        for v in _nudged(_get(doc, path)):
            bad = _set(doc, path, v)
            got, truth = _verified(bad), _truth(bad)
            if part == "evidence" or truth == "false":
                assert not got, (path, v, truth)
            elif truth == "must":
                assert got, (path, v)
            tried += 1
    assert tried >= 4


@pytest.mark.parametrize("name", [n for n in CASES if not n.startswith("optimal")])
def test_swapped_inputs_rejected(docs, name):
    doc = docs[name].to_document()
    q = doc["question"]
    swaps = []
    for key, other in (("channel", C3B), ("prior", ["1/6", "1/3", "1/2"]), ("p", ["1/6", "1/2", "1/3"]),
                       ("A", C3B)):
        if q.get(key) is not None and len(q[key]) == len(other) and (
                key not in ("channel", "A") or len(q[key][0]) == 3):
            swaps.append(_set(doc, ("question", key), other))
    if "gain" in q and q["gain"] is not None:
        swaps.append(_set(doc, ("question", "gain", "rows"), [list(reversed(r)) for r in q["gain"]["rows"]]))
    for bad in swaps:
        truth = _truth(bad)
        assert truth == "may" or _verified(bad) is (truth == "must")
    assert swaps or name.startswith(("leak-pow2", "cap-add-bounds", "refine-fails"))


def test_flips_and_structural_tamperings(docs):
    ref = docs["refine-holds"].to_document()
    assert not _verified(_set(ref, ("claim", "verdict"), "fails"))
    remap = ref["evidence"]["remap"]
    assert not _verified(_set(ref, ("evidence", "remap"), remap[1:] + remap[:1]))    # another channel
    cap = docs["cap-add-bayes"].to_document()
    for w in (["1/2", "1/2", "0"], ["1", "0", "0"], ["1/6", "1/3", "1/2"]):
        assert not _verified(_set(cap, ("claim", "witness"), w))               # leakage ≠ lo
    opt = docs["optimal"].to_document()
    K = [list(r) for r in opt["claim"]["mechanism"]]
    assert K[2][2] == "0"
    K[2] = ["1", "0", "0"]      # same objective (π·diag K unchanged), but φ·K[2][0] > K[1][0]
    assert not _verified(_set(opt, ("claim", "mechanism"), K))
    fails = docs["refine-fails"].to_document()
    assert _verified(fails)
    assert not _verified(_set(fails, ("claim", "verdict"), "holds"))
    y = fails["evidence"]["farkas"]
    assert not _verified(_set(fails, ("evidence", "farkas"), [str(-F(v)) for v in y]))
    assert not _verified(_set(fails, ("evidence", "farkas"), ["0"] * len(y)))
    leak = docs["leak-mult"].to_document()
    assert not _verified(_set(leak, ("question", "measure"), "additive"))
    assert not _verified(_set(leak, ("claim", "bits"), None))
    assert not _verified(_set(leak, ("claim", "log2"), "log(2)/log(2)"))
    assert not _verified(_set(leak, ("claim", "bits"), {"lo": "100", "hi": "200"}))
    cap = docs["cap-add-bayes"].to_document()
    assert not _verified(_set(cap, ("evidence", "method"), "bounds"))     # another upper end
    assert not _verified(_set(cap, ("claim", "value"), None))
    gm = docs["cap-mult-g"].to_document()
    duals = gm["evidence"]["duals"]
    assert not _verified(_set(gm, ("evidence", "duals"), duals[:-1]))
    # the dual of the maximising strategy, lowered: it no longer covers a_σ
    top = max(range(len(duals)), key=lambda k: sum(F(v) for v in duals[k]))
    low = [[str(F(v) / 2) for v in d] if k == top else d for k, d in enumerate(duals)]
    assert not _verified(_set(gm, ("evidence", "duals"), low))
    ga = docs["cap-add-g"].to_document()
    # a dual with a negative multiplier is refused even on a strategy below the maximum
    # (strategy 0 here; ε = 10^-9 moves its bound by ≤ 10^-8, it stays below hi)
    duals = ga["evidence"]["duals"]
    k, d = 0, [F(v) for v in duals[0]]
    i = next(i for i, v in enumerate(d) if v > 0)
    j = next(j for j in range(len(d)) if j != i)
    d[i] += d[j] + F(1, 10**9)
    d[j] = -F(1, 10**9)
    assert sum(d) == 1
    assert not _verified(_set(ga, ("evidence", "duals", k), [str(v) for v in d]))
    assert not _verified(_set(ga, ("question", "measure"), "multiplicative-g"))
    opt = docs["optimal"].to_document()
    assert not _verified(_set(opt, ("question", "metric"), docs["optimal"].to_document()["question"]["metric"]
                              | {"constructor": "cycle"}))
    lam = opt["evidence"]["lambda"]
    assert lam and not _verified(_set(opt, ("evidence", "lambda"), [e[:3] + [str(-F(e[3]) - 1)] for e in lam]))
    assert not _verified(_set(opt, ("evidence", "lambda"), []))
    metric = from_matrix([[0, 2, 3], [2, 0, 1], [3, 1, 0]])
    other = optimal_mechanism(metric, ["1/2", "1/3", "1/6"], t="1/2").to_document()
    assert other["claim"] != opt["claim"]
    assert not _verified(_set(opt, ("question", "metric"), other["question"]["metric"]))


def test_result_objects_tampered_do_not_verify(docs):
    import dataclasses as dc
    v = docs["vuln-post"]
    assert not dc.replace(v, value=v.value + 1).verify()
    assert not dc.replace(v, value=float(v.value)).verify()
    k = docs["kantorovich"]
    assert not dc.replace(k, value=k.value + F(1, 10)).verify()
    with pytest.raises(CertificateInvalid):
        Kantorovich.from_document(_set(k.to_document(), ("claim", "value"), "1"))


def _cli(path):
    return subprocess.run([sys.executable, "-m", "exactdp", "verify", str(path)],
                          capture_output=True, text=True, timeout=300).returncode


def test_exactdp_verify_fresh_process(docs, tmp_path):
    """Every document kind verifies through the ``exactdp verify`` entry point in one fresh
    process (exit 0 each); ``python -m exactdp verify`` rejects a tampered one (exit 1) and
    refuses a malformed one (exit 3)."""
    names = ("vuln-post", "leak-mult", "guess-post", "cap-mult-g", "refine-fails", "kantorovich", "optimal")
    paths = []
    for name in names:
        paths.append(tmp_path / f"{name}.json")
        paths[-1].write_text(dumps(docs[name].to_document()))
    code = "import sys; from exactdp.cli import main; print([main(['verify', p]) for p in sys.argv[1:]])"
    out = subprocess.run([sys.executable, "-c", code, *map(str, paths)], capture_output=True, text=True, timeout=600)
    assert out.stdout.strip().splitlines()[-1] == str([0] * len(names)), out.stdout + out.stderr
    doc = docs["cap-add-bayes"].to_document()
    p = tmp_path / "bad.json"
    p.write_text(dumps(_set(doc, ("claim", "witness"), ["1/2", "1/2", "0"])))
    assert _cli(p) == 1
    p.write_text(dumps(_set(doc, ("claim", "witness"), ["1/3", "1/3", "1/2"])))
    assert _cli(p) == 3
