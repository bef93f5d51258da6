"""Write the kernel's document corpus: genuine certificates and edited ones, each with the
outcome an honest checker must give, decided here independently of the kernel.

    python scripts/kernel_corpus.py [OUT.jsonl]     (default tests/kernel/kernel_corpus.jsonl)

Each line is {"name", "expected", "why", "doc"}; ``expected`` is "verified" (a genuine
certificate), "rejected" (well formed, but its claim is false for its question) or
"malformed" (not the schema). Ground truth: Φ is rebuilt from the metric's distances and
Φx = b solved by exact Fraction elimination (rational t) or a 60-digit mpmath LU solve (ε =
1/2); an edit is kept only when that computation shows the edited claim is false (an edit
that leaves a true claim, e.g. a wider enclosure, is left out: the kernel may accept it).
The corpus is read by tests/kernel/test_kernel_corpus.py and scripts/mutation.py.
"""

from __future__ import annotations

import copy
import json
import sys
from fractions import Fraction as F
from pathlib import Path

import mpmath

from exactdp.engine.certificates import FarkasCertificate
from exactdp.engine.core import solve_nonnegative
from exactdp.engine.documents import write_linear
from exactdp.kernel.jsonio import dumps
from exactdp.kernel.linear import LinearClaim
from exactdp.kernel.linear_json import read_linear
from exactdp.spaces.levels import parse_level
from exactdp.spaces.metrics import cycle, from_graph, grid, line, sum_query
from exactdp.spaces.metrics.claims import kronecker_claim_error
from exactdp.testing.oracle import solution_at_t

ROOT = Path(__file__).resolve().parents[1]
mpmath.mp.dps = 60


def star(leaves: int):
    """The star graph metric: centre 0, leaves 1..k."""
    return from_graph([(0, k) for k in range(1, leaves + 1)])


# (metric, t or None for ε = 1/2, rhs or None for ones, method)
CASES = [
    (line(4), "1/2", None, "exact"),
    (line(4), "9/10", [1, 0, 0, 0], "exact"),
    (star(3), "1/3", [F(1, 2), F(1, 6), F(1, 6), F(1, 6)], "exact"),
    (cycle(5), None, None, "ball"),
    (sum_query(4, 2), None, [1] + [0] * 8, "ball"),
    (star(4), None, [F(1, 5)] * 5, "ball"),
    (line(5), None, None, "verified-float"),
    (line(5), None, [1, 0, 0, 0, 0], "verified-float"),
    (line(4), None, None, "symbolic"),
    (line(4), None, [1, 0, 0, 0], "symbolic"),
    (cycle(4), None, [F(1, 2), F(1, 2), 0, 0], "symbolic"),
    (grid(3, 3, "manhattan"), None, None, "auto"),
    (grid(3, 3, "manhattan"), "1/2", [1] + [0] * 8, "auto"),
    (grid(2, 3, "manhattan"), "1/3", [F(1, 6)] * 6, "auto"),
    (grid(2, 2, "euclidean"), None, None, "ball"),
    (grid(3, 2, "euclidean"), None, [1, 0, 0, 0, 0, 0], "verified-float"),
]


def true_solution(metric, t, rhs) -> list:
    """x with Φx = b: exact Fractions at rational t, 60-digit mpmath at ε = 1/2."""
    n = metric.n
    b = [F(1)] * n if rhs is None else [F(v) for v in rhs]
    if t is not None:  # exact Fraction elimination (exactdp.testing.oracle, no exactdp solver)
        x = solution_at_t(metric, b, F(t))
        assert x is not None, "Φ is singular here"
        return list(x)
    def dist(i: int, j: int):
        d = metric.distance(i, j)
        return mpmath.mpf(d.coef.numerator) / d.coef.denominator * mpmath.sqrt(d.radicand)

    A = mpmath.matrix([[mpmath.exp(-dist(i, j) / 2) for j in range(n)] for i in range(n)])
    x = mpmath.lu_solve(A, mpmath.matrix([mpmath.mpf(v.numerator) / v.denominator for v in b]))
    return [x[i] for i in range(n)]


def _tiny(v) -> bool:
    """An mpmath entry this small is an exact zero on these instances (exact ones are exact)."""
    return not isinstance(v, F) and abs(v) < mpmath.mpf(10) ** -40


def holds(x) -> bool:
    return all(v >= 0 or _tiny(v) for v in x)


def _rat(text: str) -> F:
    return F(text)


def _contains(e, v) -> bool:
    lo, hi = _rat(e["lo"]), _rat(e["hi"])
    if isinstance(v, F):
        return lo <= v <= hi
    return mpmath.mpf(lo.numerator) / lo.denominator - mpmath.mpf(10) ** -45 <= v <= \
        mpmath.mpf(hi.numerator) / hi.denominator + mpmath.mpf(10) ** -45


def build() -> list[dict]:
    out: list[dict] = []

    def add(name: str, expected: str, why: str, doc) -> None:
        out.append({"name": name, "expected": expected, "why": why, "doc": doc})

    kron_docs = []
    for k, (metric, t, rhs, method) in enumerate(CASES):
        level = parse_level(t=t) if t else parse_level(eps="1/2")
        res = solve_nonnegative(metric, level, rhs, method=method)
        x = true_solution(metric, t, rhs)
        assert res.holds is holds(x), (metric.name, t, rhs)
        doc = res.certificate.to_json()
        kind = doc["kind"]
        tag = f"{k:02d}-{metric.name}-{kind}"
        add(tag, "verified", "genuine", doc)

        bad = copy.deepcopy(doc)
        bad["claim"]["verdict"] = "fails" if doc["claim"]["verdict"] == "holds" else "holds"
        add(tag + "-verdict-flipped", "rejected", "the true verdict is the genuine one", bad)

        bad = copy.deepcopy(doc)
        fp = bad["question"]["metric"]["fingerprint"]
        bad["question"]["metric"]["fingerprint"] = ("0" if fp[0] != "0" else "1") + fp[1:]
        add(tag + "-fingerprint", "rejected", "the question no longer matches its metric", bad)

        if kind == "exact-solution":
            bad = copy.deepcopy(doc)
            bad["claim"]["solution"][0] = str(F(bad["claim"]["solution"][0]) + 1)
            add(tag + "-solution-nudged", "rejected", "Φ nonsingular: x is unique", bad)
        if kind in ("ball", "verified-float"):
            for i, e in enumerate(doc["claim"]["enclosure"]):
                lo, hi = _rat(e["lo"]), _rat(e["hi"])
                w = hi - lo
                bad = copy.deepcopy(doc)
                bad["claim"]["enclosure"][i] = {"lo": str(hi + w), "hi": str(hi + 2 * w + 1)}
                if not _contains(bad["claim"]["enclosure"][i], x[i]):
                    add(tag + f"-enclosure{i}-shifted", "rejected", "excludes the true x_i", bad)
                if i == 0 and not _contains({"lo": str(hi), "hi": str(hi)}, x[i]):
                    bad = copy.deepcopy(doc)
                    bad["claim"]["enclosure"][i] = {"lo": str(hi), "hi": str(hi)}
                    add(tag + "-enclosure0-point", "rejected", "excludes the true x_0", bad)
            for i, e in enumerate(doc["claim"]["enclosure"]):
                lo, hi = _rat(e["lo"]), _rat(e["hi"])
                xi = x[i] if isinstance(x[i], F) else F(mpmath.nstr(x[i], 55, strip_zeros=False))
                delta = (hi - lo) / 1000
                if lo < xi - delta and i < 3:  # the truth excluded by a hair, from below
                    bad = copy.deepcopy(doc)
                    bad["claim"]["enclosure"][i] = {"lo": str(lo), "hi": str(xi - delta)}
                    add(tag + f"-enclosure{i}-hair-below", "rejected",
                        "hi is 1/1000 of the width below the true x_i", bad)
                if xi + delta < hi and i < 3:
                    bad = copy.deepcopy(doc)
                    bad["claim"]["enclosure"][i] = {"lo": str(xi + delta), "hi": str(hi)}
                    add(tag + f"-enclosure{i}-hair-above", "rejected",
                        "lo is 1/1000 of the width above the true x_i", bad)
            verdict_holds = doc["claim"]["verdict"] == "holds"
            wid = copy.deepcopy(doc)
            for i, e in enumerate(wid["claim"]["enclosure"]):
                lo, hi = _rat(e["lo"]), _rat(e["hi"])
                w = (hi - lo) / 2
                if verdict_holds:
                    w = min(w, lo)  # keep lo ≥ 0: the verdict must still follow
                elif i == doc["evidence"]["witness"]:
                    w = min(w, -hi / 2)
                wid["claim"]["enclosure"][i] = {"lo": str(lo - w), "hi": str(hi + w)}
            add(tag + "-widened", "verified", "a wider enclosure is still a true claim", wid)
            if verdict_holds:
                z = copy.deepcopy(doc)
                z["claim"]["enclosure"][0]["lo"] = "0"
                add(tag + "-lo0-zero", "verified", "[0, hi] still contains x_0 > 0", z)
            for p in (1, 10**6):
                bad = copy.deepcopy(doc)
                bad["evidence"]["precision"] = p
                add(tag + f"-precision-{p}", "malformed", "precision outside [2, 65536]", bad)
        if doc["claim"]["verdict"] == "fails" and kind in ("ball", "verified-float", "symbolic"):
            for i in range(metric.n):
                if x[i] >= 0 or _tiny(x[i]):
                    bad = copy.deepcopy(doc)
                    bad["evidence"]["witness"] = i
                    add(tag + f"-witness-{i}", "rejected", "x_i is not negative", bad)
                    break
            zero = next((i for i in range(metric.n) if _tiny(x[i]) or x[i] == 0), None)
            if zero is not None:  # x_i = 0 exactly: "x_i < 0" is false, though ≤ 0 holds
                bad = copy.deepcopy(doc)
                bad["evidence"]["witness"] = zero
                if kind != "symbolic":
                    e = bad["claim"]["enclosure"][zero]
                    e["hi"] = "0"
                    if F(e["lo"]) > 0:
                        e["lo"] = "-1"
                add(tag + f"-witness-at-zero-{zero}", "rejected", "x_i = 0 is not negative", bad)
            bad = copy.deepcopy(doc)
            bad["evidence"]["witness"] = metric.n
            add(tag + "-witness-out-of-range", "malformed", "no such point", bad)
        if kind == "symbolic":
            bad = copy.deepcopy(doc)
            bad["evidence"]["denominator"][-1] = str(int(bad["evidence"]["denominator"][-1]) + 2)
            add(tag + "-denominator", "rejected", "Φ(s)N(s) = D(s)b fails as polynomials", bad)
            nums = bad["evidence"]["numerators"]
            j = next((j for j in range(1, len(nums)) if nums[j] != nums[0]), None)
            if j is not None:
                bad = copy.deepcopy(doc)
                ns = bad["evidence"]["numerators"]
                ns[0], ns[j] = ns[j], ns[0]
                add(tag + "-numerators-swapped", "rejected", "identity fails", bad)
        if kind == "kronecker":
            kron_docs.append((tag, doc))
            bad = copy.deepcopy(doc)
            f0 = bad["evidence"]["factors"][0]
            f0["claim"]["verdict"] = "fails" if f0["claim"]["verdict"] == "holds" else "holds"
            add(tag + "-factor-verdict", "rejected", "a factor's true verdict is the genuine one", bad)
            bad = copy.deepcopy(doc)
            del bad["evidence"]["factors"][-1]
            add(tag + "-factor-dropped", "rejected", "the factors no longer multiply to the metric",
                bad)
        if rhs is not None and len(set(map(F, rhs))) > 1:
            b2 = list(reversed([F(v) for v in rhs]))
            if b2 != [F(v) for v in rhs]:
                x2 = true_solution(metric, t, b2)
                bad = copy.deepcopy(doc)
                bad["question"]["rhs"] = [str(v) for v in b2]
                genuine_claim_still_true = False
                if kind == "exact-solution":
                    genuine_claim_still_true = [F(v) for v in doc["claim"]["solution"]] == x2
                elif kind in ("ball", "verified-float"):
                    genuine_claim_still_true = all(
                        _contains(e, v) for e, v in zip(doc["claim"]["enclosure"], x2))
                if not genuine_claim_still_true and kind not in ("kronecker",):
                    add(tag + "-prior-reversed", "rejected",
                        "the evidence is for the other right-hand side", bad)
    (ta, a), (tb, b) = kron_docs[0], kron_docs[-1]
    bad = copy.deepcopy(a)
    bad["evidence"]["factors"] = copy.deepcopy(b["evidence"]["factors"])
    add(ta + "-factors-from-" + tb, "rejected", "factors of another question", bad)

    genuine = out[0]["doc"]
    for name, edit in [
        ("extra-key", lambda d: d["claim"].__setitem__("note", "x")),
        ("missing-key", lambda d: d["evidence"].pop("precision", None) or d.pop("evidence")),
        ("version-2", lambda d: d.__setitem__("version", 2)),
        ("unknown-kind", lambda d: d.__setitem__("kind", "no-such-kind")),
        ("undecided", lambda d: d["claim"].__setitem__("verdict", "undecided")),
        ("noncanonical-rational", lambda d: d["claim"]["solution"].__setitem__(0, "2/6")),
    ]:
        bad = copy.deepcopy(genuine)
        edit(bad)
        add("malformed-" + name, "malformed", name, bad)
    text = dumps(genuine)
    for name, edited in [("float-literal", text.replace('"t":"1/2"', '"t":0.5')),
                         ("duplicate-key", text.replace('{"claim"', '{"kind":"ball","claim"', 1)),
                         ("not-json", text[:-1]),
                         ("nan", text.replace('"t":"1/2"', '"t":NaN'))]:
        assert edited != text
        out.append({"name": "malformed-" + name, "expected": "malformed", "why": name,
                    "text": edited})
    # a Farkas certificate (no engine route emits one on these instances): Φ = [[1, 1/2],
    # [1/2, 1]], b = (1, -1); y = (0, 1) gives Φy = (1/2, 1) ≥ 0 and b·y = -1 < 0
    lvl = parse_level(t="1/2")
    farkas = FarkasCertificate(line(2), lvl, (F(1), F(-1)), (F(0), F(1))).to_json()
    add("farkas-line2", "verified", "genuine (checked by hand above)", farkas)
    bad = copy.deepcopy(farkas)
    bad["evidence"]["y"] = ["1", "1"]
    add("farkas-line2-y-edited", "rejected", "b·y = 0, not < 0", bad)
    bad = copy.deepcopy(farkas)
    bad["question"]["rhs"] = ["1", "1"]
    bad["question"]["property"] = "tight-constraints"
    bad["question"]["rhs"] = "ones"
    add("farkas-line2-as-tight", "rejected", "Φz = 1 has z = (2/3, 2/3) ≥ 0", bad)
    # Φy = (3/2, 0) ≥ 0 with an exact zero, b = (1, 3), b·y = -1 < 0 (x = (-2/3, 10/3))
    farkas0 = FarkasCertificate(line(2), lvl, (F(1), F(3)), (F(2), F(-1))).to_json()
    add("farkas-line2-zero-entry", "verified", "Φy has an exact zero entry", farkas0)
    bad = copy.deepcopy(farkas0)
    bad["evidence"]["y"] = ["2", "-11/10"]
    add("farkas-line2-zero-entry-nudged", "rejected", "Φy = (29/20, -1/10) has a negative entry",
        bad)
    bad = copy.deepcopy(farkas)
    bad["claim"]["verdict"] = "holds"
    add("farkas-line2-holds", "rejected", "a Farkas vector proves 'fails' only", bad)
    bad = copy.deepcopy(farkas)
    bad["evidence"]["y"] = ["-1", "1"]
    add("farkas-line2-y-negative-product", "rejected", "Φy = (-1/2, 1/2) is not ≥ 0", bad)
    bad = copy.deepcopy(farkas)
    bad["question"]["level"] = {"eps": "1/2"}
    add("farkas-line2-irrational-level", "rejected", "y·b < 0 but Φ(e^-1/2)y has no exact check",
        bad)
    out.extend(_symbolic_at_rational_t(out))
    out.extend(_kronecker_forgeries())
    return out


def _row(name: str, expected: str, why: str, doc) -> dict:
    return {"name": name, "expected": expected, "why": why, "doc": doc}


def _symbolic_at_rational_t(rows: list[dict]) -> list[dict]:
    """z(s) does not depend on the level: a symbolic document moved to t = 1/3 with the
    verdict and witness of the exact solution there is a genuine certificate."""
    out = []
    for row in [r for r in rows if r["expected"] == "verified"
                and r["doc"]["kind"] == "symbolic" and r["name"].count("-") <= 3]:
        doc = copy.deepcopy(row["doc"])
        claim = read_linear(doc)
        x = true_solution(claim.metric, "1/3", claim.rhs)
        doc["question"]["level"] = {"t": "1/3"}
        neg = [i for i, v in enumerate(x) if v < 0]
        doc["claim"]["verdict"] = "fails" if neg else "holds"
        doc["evidence"]["witness"] = neg[0] if neg else None
        out.append(_row(row["name"] + "-at-t-1/3", "verified", "x exact at t = 1/3", doc))
        bad = copy.deepcopy(doc)
        bad["claim"]["verdict"] = "holds" if neg else "fails"
        bad["evidence"]["witness"] = None if neg else 0
        out.append(_row(row["name"] + "-at-t-1/3-flipped", "rejected", "x exact at t = 1/3", bad))
    return out


def _kronecker_forgeries() -> list[dict]:
    """Factor certificates that verify on their own, combined into false product claims."""
    level = parse_level(t="1/3")
    f1, f2 = line(2), line(3)
    product = grid(3, 2, "manhattan")  # = line(2) ⊗ line(3) in row-major point order
    assert kronecker_claim_error(product, (f1, f2)) is None
    out = []
    b1, b2 = (F(1, 2), F(1, 2)), (F(1, 3), F(1, 3), F(1, 3))
    ok = [solve_nonnegative(f, level, b, method="exact").certificate.linear_claim()
          for f, b in ((f1, b1), (f2, b2))]
    prod = tuple(a * b for a in b1 for b in b2)
    genuine = LinearClaim("kronecker", product, level, prod, True, {"factors": tuple(ok)})
    if not all(v >= 0 for v in true_solution(product, "1/3", prod)):
        raise AssertionError("the product claim should hold")
    out.append(_row("kron-crafted", "verified", "genuine factors of a product prior",
                    write_linear(genuine)))
    neg = [solve_nonnegative(f, level, tuple(-v for v in b), method="exact").certificate
           .linear_claim() for f, b in ((f1, b1), (f2, b2))]
    forged = LinearClaim("kronecker", product, level, prod, False, {"factors": tuple(neg)})
    out.append(_row("kron-negated-factor-rhs", "rejected",
                    "(-b1)⊗(-b2) = b1⊗b2 and x = x1⊗x2 ≥ 0: the product holds",
                    write_linear(forged)))
    zero = solve_nonnegative(f1, level, (F(0), F(0)), method="exact").certificate.linear_claim()
    fail = solve_nonnegative(f2, level, (F(1), F(0), F(0)), method="exact").certificate
    assert not fail.holds
    forged = LinearClaim("kronecker", product, level, (F(0),) * 6, False,
                         {"factors": (zero, fail.linear_claim())})
    out.append(_row("kron-zero-factor-rhs", "rejected", "b = 0: x = 0 is a solution ≥ 0",
                    write_linear(forged)))
    return out


def main(argv: list[str]) -> int:
    path = Path(argv[0]) if argv else ROOT / "tests" / "kernel" / "kernel_corpus.jsonl"
    rows = build()
    with open(path, "w") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    counts = {e: sum(r["expected"] == e for r in rows) for e in ("verified", "rejected", "malformed")}
    print(f"wrote {len(rows)} documents to {path}: {counts}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
