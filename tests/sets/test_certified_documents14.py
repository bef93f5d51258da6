"""The certified (real-coordinate) set results as kernel documents: ``set-hausdorff-real``,
``set-capacity-real``, ``set-privacy-real`` (exactdp.kernel.sets_real).

Ground truth for the tampering suite is computed here, independently of the kernel and of
the library: coordinates as 120-digit values of the one real root (sympy's exact real_roots)
of the stated polynomial in the stated interval, distances, d_H and the capacity functional by coordinate compression
of the box ends (not inclusion–exclusion), all with mpmath at 120 digits (the claimed
enclosures are about 2^-256 wide, so 50 digits could not decide them).
"""

from __future__ import annotations

import copy
import itertools
import json
import subprocess
import sys
from fractions import Fraction

import mpmath
import pytest
import sympy

from exactdp.errors import (
    CertificateInvalid,
    ExactnessRequired,
    InstanceTooLarge,
    InvalidArgument,
    PrecisionLimitReached,
)
from exactdp.kernel.jsonio import dumps
from exactdp.kernel.sets_real import MAX_IE_BOXES, MAX_REAL_DEGREE, check_real_set_document
from exactdp.kernel.verify import verify_document
from exactdp.sets import Box
from exactdp.sets._real import (
    CertifiedCapacityResult,
    CertifiedHausdorffResult,
    CertifiedSetPrivacyResult,
    capacity_functional_certified,
    check_set_privacy_certified,
    hausdorff_distance_certified,
)

DPS = 120  # the enclosures are ~2^-256 wide: 120 digits decide containment
_x = sympy.Symbol("x")


# ------------------------------------------------------------------ independent ground truth
def _mp(text) -> mpmath.mpf:
    f = Fraction(text)
    return mpmath.mpf(f.numerator) / f.denominator


def _coord(c) -> mpmath.mpf | None:
    """The coordinate at DPS digits; None when the text does not define exactly one number."""
    if isinstance(c, str):
        return _mp(c)
    coeffs = [int(v) for v in c["minimal_polynomial"]]
    lo, hi = (Fraction(c["isolating_interval"][k]) for k in ("lo", "hi"))
    if coeffs[0] == 0 or len(coeffs) < 2:
        return None
    roots = set(sympy.Poly(coeffs, _x).real_roots())  # exact (CRootOf), distinct
    inside = [r for r in roots if sympy.Rational(lo.numerator, lo.denominator) < r
              <= sympy.Rational(hi.numerator, hi.denominator)]
    return mpmath.mpf(str(sympy.N(inside[0], DPS + 10))) if len(inside) == 1 else None


def _points(rows):
    pts = [tuple(_coord(c) for c in p) for p in rows]
    return None if any(v is None for p in pts for v in p) else pts


def _dist(a, b, norm):
    d = [abs(x - y) for x, y in zip(a, b)]
    return max(d) if norm == "linf" else sum(d) if norm == "l1" else mpmath.sqrt(sum(v * v for v in d))


def _hausdorff(X, Y, norm):
    return max(max(min(_dist(a, b, norm) for b in B) for a in A) for A, B in ((X, Y), (Y, X)))


def _cdf(x, eps):
    return mpmath.exp(eps * x) / 2 if x < 0 else 1 - mpmath.exp(-eps * x) / 2


def _capacity(X, K, eps):
    """P[w ∈ ∪ (B − x)] by coordinate compression of the DPS-digit ends."""
    boxes = [[(_mp(lo) - c, _mp(hi) - c) for lo, hi, c in zip(b["lower"], b["upper"], x)] for x in X for b in K]
    n = len(boxes[0])
    axes = [sorted({e for b in boxes for e in b[i]}) for i in range(n)]
    total = mpmath.mpf(0)
    for cell in itertools.product(*(range(len(a) - 1) for a in axes)):
        if any(all(b[i][0] <= axes[i][k] and axes[i][k + 1] <= b[i][1] for i, k in enumerate(cell)) for b in boxes):
            p = mpmath.mpf(1)
            for i, k in enumerate(cell):
                p *= _cdf(axes[i][k + 1], eps) - _cdf(axes[i][k], eps)
            total += p
    return total


def _eps(level):
    return -mpmath.log(_mp(level["t"])) if "t" in level else _mp(level["eps"])


def _inside(v, enc):
    return _mp(enc["lo"]) <= v <= _mp(enc["hi"])


def truth(doc) -> bool | None:
    """Whether the document's claim is true (None: its question is not well defined)."""
    with mpmath.workdps(DPS):
        q, c = doc["question"], doc["claim"]
        X = _points(q["X"])
        Y = _points(q["Y"]) if "Y" in q else []
        if X is None or Y is None:
            return None
        if doc["kind"] == "set-hausdorff-real":
            return _inside(_hausdorff(X, Y, q["norm"]), c["enclosure"])
        eps = _eps(q["level"])
        if doc["kind"] == "set-capacity-real":
            return _inside(_capacity(X, q["K"], eps), c["enclosure"])
        corners = [(tuple(map(Fraction, b["lower"])), tuple(map(Fraction, b["upper"]))) for b in q["K"]]
        diam = max(_dist([_mp(max(A[1][i] - B[0][i], B[1][i] - A[0][i])) for i in range(len(A[0]))],
                         [0] * len(A[0]), q["norm"]) for A in corners for B in corners)
        d_h = _hausdorff(X, Y, q["norm"])
        factor = {"paper": mpmath.exp(eps * (d_h + diam)), "hausdorff": mpmath.exp(eps * d_h),
                  "points": len(X) * mpmath.exp(eps * d_h)}[q["bound"]]
        values = {"d_H": d_h, "diam_K": diam, "factor": factor, "T_X": _capacity(X, q["K"], eps),
                  "T_Y": _capacity(Y, q["K"], eps)}
        holds = factor * values["T_Y"] - values["T_X"] >= -mpmath.mpf(10) ** -(DPS - 10)
        return all(_inside(values[k], c[k]) for k in values) and (c["verdict"] == "holds") == holds


def outcome(doc) -> str:
    try:
        return "verified" if verify_document(doc).verified else "rejected"
    except (InvalidArgument, InstanceTooLarge, PrecisionLimitReached):
        return "malformed"


# ------------------------------------------------------------------ genuine documents
def _genuine():
    return [
        hausdorff_distance_certified([("sqrt(2)", 0)], [(0, 0), (1, 1)], "l2"),
        hausdorff_distance_certified([("sqrt(2)", "1/3"), (1, "sqrt(3)")], [(0, 0), ("sqrt(2)+sqrt(3)", 1)], "l1"),
        hausdorff_distance_certified([("sqrt(5)/2",), ("-1",)], [("(1+sqrt(5))/2",)], "linf"),
        capacity_functional_certified(["sqrt(2)", 0], Box(0, 2), 1),
        capacity_functional_certified([("sqrt(2)", "1/2")], [Box((0, 0), (1, 1)), Box((1, 0), (2, "1/2"))], "1/3"),
        check_set_privacy_certified([0, "sqrt(2)/8"], [0], Box(0, "1/8"), eps=1),
        check_set_privacy_certified([0, "sqrt(2)/8"], [0], Box(0, "1/8"), eps=1, bound="points"),
        check_set_privacy_certified(["sqrt(3)"], [0, "sqrt(3)"], Box(0, 2), eps="1/2", bound="hausdorff", norm="l2"),
        check_set_privacy_certified(["sqrt(2)", 1], ["sqrt(2)", 1], Box(0, 1), eps=2, bound="hausdorff"),
    ]


GENUINE = _genuine()


@pytest.mark.parametrize("res", GENUINE, ids=range(len(GENUINE)))
def test_genuine_documents_verify_and_round_trip(res):
    doc = res.to_document()
    assert truth(doc) is True
    assert verify_document(doc).verified and res.verify()
    back = type(res).from_document(dumps(doc))
    assert back.to_document() == doc


def test_zero_margin_with_equal_sets_is_proved_by_set_equality():
    res = GENUINE[-1]
    assert res.holds and res.to_document()["claim"]["verdict"] == "holds"
    doc = res.to_document()
    doc["claim"]["verdict"] = "fails"
    assert outcome(doc) == "rejected"


def test_fresh_process_exit_codes(tmp_path):
    docs = [GENUINE[0].to_document(), GENUINE[3].to_document(), GENUINE[5].to_document()]
    bad = copy.deepcopy(docs[2])
    bad["claim"]["verdict"] = "holds"
    broken = copy.deepcopy(docs[0])
    broken["question"]["X"][0][0]["minimal_polynomial"] = ["1", "0", "-4"]  # reducible: (x − 2)(x + 2)
    expected = [0, 0, 0, 1, 3]
    for k, (doc, code) in enumerate(zip([*docs, bad, broken], expected)):
        path = tmp_path / f"doc{k}.json"
        path.write_text(json.dumps(doc))
        proc = subprocess.run([sys.executable, "-m", "exactdp", "verify", str(path)], capture_output=True,
                              text=True, timeout=300)
        assert proc.returncode == code, (k, proc.stdout, proc.stderr)


# ------------------------------------------------------------------ tampering
def _shift(enc, k, delta):
    enc = dict(enc)
    enc[k] = str(Fraction(enc[k]) + delta)
    if Fraction(enc["lo"]) > Fraction(enc["hi"]):
        enc["lo"], enc["hi"] = enc["hi"], enc["lo"]
    return enc


def _mutations(doc):
    """(name, mutated document) pairs: every field edited."""
    out = []

    def edit(name, fn):
        d = copy.deepcopy(doc)
        fn(d)
        out.append((name, d))

    q, c = doc["question"], doc["claim"]
    for key, enc in c.items():
        if isinstance(enc, dict):
            width = Fraction(enc["hi"]) - Fraction(enc["lo"])
            for k, delta in (("lo", 2 * width), ("hi", -2 * width), ("lo", Fraction(1, 10**6)),
                             ("hi", Fraction(-1, 10**6)), ("lo", -1), ("hi", 1)):
                edit(f"{key}.{k}{float(delta):+g}", lambda d, key=key, k=k, delta=delta:
                     d["claim"].__setitem__(key, _shift(d["claim"][key], k, delta)))
    if "verdict" in c:
        edit("verdict", lambda d: d["claim"].__setitem__("verdict", "holds" if c["verdict"] == "fails" else "fails"))
    for name in ("X", "Y"):
        for i, p in enumerate(q.get(name, [])):
            for j, v in enumerate(p):
                cell = (name, i, j)
                if isinstance(v, dict):
                    iv, poly = v["isolating_interval"], v["minimal_polynomial"]
                    negated = {"lo": str(-Fraction(iv["hi"])), "hi": str(-Fraction(iv["lo"]))}
                    shifted = poly[:-1] + [str(int(poly[-1]) - 1)]
                    wide = {"lo": "-100", "hi": "100"}
                    for tag, key, new in (("neg", "isolating_interval", negated), ("poly", "minimal_polynomial",
                                                                                   shifted),
                                          ("wide", "isolating_interval", wide)):
                        edit(f"{name}{i}{j}.{tag}", lambda d, cell=cell, key=key, new=new:
                             d["question"][cell[0]][cell[1]][cell[2]].__setitem__(key, new))
                else:
                    moved = str(Fraction(v) + Fraction(1, 7))
                    edit(f"{name}{i}{j}.rat", lambda d, cell=cell, moved=moved:
                         d["question"][cell[0]][cell[1]].__setitem__(cell[2], moved))
    if "Y" in q:
        edit("swap", lambda d: (d["question"].__setitem__("X", q["Y"]), d["question"].__setitem__("Y", q["X"])))
    if "norm" in q:
        for norm in {"l1", "l2", "linf"} - {q["norm"]}:
            edit(f"norm={norm}", lambda d, norm=norm: d["question"].__setitem__("norm", norm))
    if "bound" in q:
        for bound in {"paper", "hausdorff", "points"} - {q["bound"]}:
            edit(f"bound={bound}", lambda d, bound=bound: d["question"].__setitem__("bound", bound))
    if "level" in q:
        edit("level", lambda d: d["question"].__setitem__("level", {"t": "1/3"}))
    if "K" in q:
        edit("K", lambda d: d["question"]["K"][0].__setitem__("upper", [str(Fraction(v) + Fraction(1, 5))
                                                                        for v in q["K"][0]["upper"]]))
        edit("K-swap", lambda d: d["question"].__setitem__("K", [{"lower": b["upper"], "upper": b["lower"]}
                                                                for b in q["K"]]))
    edit("precision-low", lambda d: d["evidence"].__setitem__("precision", 53))
    edit("precision-bad", lambda d: d["evidence"].__setitem__("precision", 5000))
    return out


@pytest.mark.parametrize("res", GENUINE, ids=range(len(GENUINE)))
def test_tampered_documents_never_verify_a_false_claim(res):
    doc = res.to_document()
    counts = {"verified": 0, "rejected": 0, "malformed": 0}
    false_rejected = 0
    for name, mutated in _mutations(doc):
        got = outcome(mutated)
        counts[got] += 1
        true = truth(mutated) if got != "malformed" or name.startswith(("X", "Y")) else None
        if got == "verified":
            assert true is True, (name, mutated["claim"])
        elif true is False:
            false_rejected += 1
    assert false_rejected >= 6 and counts["rejected"] + counts["malformed"] >= 8, counts


# ------------------------------------------------------------------ exactness and limits
def test_non_algebraic_coordinate_keeps_python_verify():
    r = hausdorff_distance_certified([("pi", 0)], [(0, 0)], "l1")
    with pytest.raises(ExactnessRequired, match=r"X\[0\] = pi"):
        r.to_document()
    assert r.verify()
    p = check_set_privacy_certified([0, "pi/16"], [0], Box(0, "1/8"), 1)
    with pytest.raises(ExactnessRequired, match="pi/16"):
        p.to_document()
    assert not p.holds and p.verify()
    with pytest.raises(ExactnessRequired, match="log"):
        capacity_functional_certified(["log(2)"], Box(0, 1), 1).to_document()


def test_writer_and_kernel_refuse_the_same_limits():
    many = [Fraction(k, 3) for k in range(MAX_IE_BOXES + 1)]
    r = capacity_functional_certified(many[:4], Box(0, 1), 1)
    doc = r.to_document()
    doc["question"]["X"] = [[str(v)] for v in many]
    with pytest.raises(InstanceTooLarge, match="MAX_IE_BOXES"):
        check_real_set_document(doc)
    with pytest.raises(InstanceTooLarge, match="MAX_IE_BOXES"):
        capacity_functional_certified(many, [Box(0, 1)], 1).to_document()
    for prec in (52, 4097):
        with pytest.raises(InvalidArgument):
            r.to_document(prec)
        bad = r.to_document()
        bad["evidence"]["precision"] = prec
        with pytest.raises(InvalidArgument):
            check_real_set_document(bad)
    h = GENUINE[0].to_document()
    h["question"]["X"][0][0]["minimal_polynomial"] = ["1"] + ["0"] * MAX_REAL_DEGREE + ["-2"]
    with pytest.raises(InstanceTooLarge, match="MAX_REAL_DEGREE"):
        check_real_set_document(h)


def test_read_budget_is_checked_before_any_factorisation():
    primes = [p for p in range(2, 200) if all(p % d for d in range(2, p))][:30]
    doc = GENUINE[0].to_document()
    doc["question"]["X"] = [[{"minimal_polynomial": ["1"] + ["0"] * 23 + [str(-p)],
                              "isolating_interval": {"lo": "1", "hi": "2"}}, "0"] for p in primes]
    with pytest.raises(InstanceTooLarge, match="MAX_READ_WORK"):
        check_real_set_document(doc)
    doc["question"]["X"] = doc["question"]["X"][:2]  # x^24 − 2, x^24 − 3: irreducible (Eisenstein), one root in (1, 2]
    assert outcome(doc) == "rejected" and truth(doc) is False


def test_repeated_points_and_bad_coordinates_are_malformed():
    doc = GENUINE[5].to_document()
    doc["question"]["X"].append(copy.deepcopy(doc["question"]["X"][1]))
    with pytest.raises(InvalidArgument, match="repeated"):
        check_real_set_document(doc)
    doc = GENUINE[0].to_document()
    doc["question"]["X"][0][0]["isolating_interval"] = {"lo": "-2", "hi": "2"}  # two roots ±√2
    with pytest.raises(InvalidArgument, match="exactly one"):
        check_real_set_document(doc)


def test_from_document_refuses_a_rejected_document():
    doc = GENUINE[3].to_document()
    doc["claim"]["enclosure"] = {"lo": "0", "hi": "1/100"}
    with pytest.raises(CertificateInvalid):
        CertifiedCapacityResult.from_document(doc)
    with pytest.raises(InvalidArgument):
        CertifiedSetPrivacyResult.from_document(GENUINE[0].to_document())
    assert CertifiedHausdorffResult.KIND.value == GENUINE[0].to_document()["kind"]
