"""``set-hausdorff``, ``set-diameter`` and ``set-capacity`` kernel documents
(:func:`exactdp.kernel.sets.check_set_functional_document`): genuine documents verify, in
this process and through ``exactdp verify`` in a fresh one; every tampering is decided by
an independent oracle and the kernel must agree with it.

Ground truth, written here and independent of the kernel and of the library's algorithms:

* d_H and diam by their definitions over all pairs, with distances compared through their
  exact squares (ℓ2) or exact values (ℓ1, ℓ∞) — a claim (key, witness, nearest, direction)
  is true iff the witness is a point of the direction's source set, the nearest point one of
  the other set, their key is the claimed key, it is the witness's distance to that set,
  and it is d_H (diameter: a, b ∈ X and key(a, b) = the largest key);
* the capacity T_{M(X)}(K) by inclusion–exclusion over the shifted boxes, each box's
  Laplace mass a product of closed-form interval probabilities (exact exp-polynomials), and
  its value at ε by mpmath at 80 digits (every enclosure endpoint tested here is at least
  10⁻⁶⁰ away from the value — 80 digits decide it — or exactly the rational value at a rational t).
"""

from __future__ import annotations

import copy
import itertools
import json
import subprocess
import sys
from dataclasses import replace
from fractions import Fraction as F

import mpmath
import pytest
import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from exactdp.errors import InstanceTooLarge, InvalidArgument
from exactdp.kernel.jsonio import dumps, loads
from exactdp.kernel.verify import SUPPORTED_KINDS, verify_document
from exactdp.sets import Box, capacity_functional, diameter, hausdorff_distance, point_set
from exactdp.sets._exppoly import ExpPoly
from exactdp.testing.set_strategies import boxes, point_sets

NORMS = ("l1", "l2", "linf")
SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# ---------------------------------------------------------------------- the oracle
def _pts(rows):
    return [tuple(F(c) for c in p) for p in rows]


def _key(a, b, norm):
    g = [abs(u - v) for u, v in zip(a, b)]
    if norm == "l1":
        return sum(g, F(0))
    if norm == "linf":
        return max(g)
    return sum((x * x for x in g), F(0))


def _point_claim_true(doc) -> bool:
    q, c = doc["question"], doc["claim"]
    norm, key = q["norm"], F(c["key"])
    X = _pts(q["X"])
    if doc["kind"] == "set-diameter":
        a, b = _pts([c["a"], c["b"]])
        return a in X and b in X and _key(a, b, norm) == key == max(_key(u, v, norm) for u in X for v in X)
    Y = _pts(q["Y"])
    src, dst = (X, Y) if c["direction"] == "X->Y" else (Y, X)
    w, nb = _pts([c["witness"], c["nearest"]])
    d_H = max(max(min(_key(u, v, norm) for v in B) for u in A) for A, B in ((X, Y), (Y, X)))
    return (w in src and nb in dst and _key(w, nb, norm) == key == d_H
            and min(_key(w, v, norm) for v in dst) == key)


def _interval(lo: F, hi: F) -> dict[F, F]:
    """P[lo ≤ w ≤ hi] for w ~ Laplace(0, 1/ε) as {r: c} of Σ c·e^{−ε r}."""
    if lo >= 0:
        return {lo: F(1, 2), hi: F(-1, 2)}
    if hi <= 0:
        return {-hi: F(1, 2), -lo: F(-1, 2)}
    out = {F(0): F(1)}
    for r in (-lo, hi):
        out[r] = out.get(r, F(0)) - F(1, 2)
    return out


def _times(a, b):
    out: dict[F, F] = {}
    for (r, c), (s, d) in itertools.product(a.items(), b.items()):
        out[r + s] = out.get(r + s, F(0)) + c * d
    return out


def _oracle_capacity(X, K) -> dict[F, F]:
    shifted = {(tuple(l - c for l, c in zip(lo, x)), tuple(h - c for h, c in zip(hi, x)))
               for x in X for lo, hi in K}
    total: dict[F, F] = {}
    for size in range(1, len(shifted) + 1):
        for S in itertools.combinations(sorted(shifted), size):
            lo = [max(b[0][i] for b in S) for i in range(len(X[0]))]
            hi = [min(b[1][i] for b in S) for i in range(len(X[0]))]
            if any(a >= b for a, b in zip(lo, hi)):
                continue
            p = {F(0): F(1)}
            for a, b in zip(lo, hi):
                p = _times(p, _interval(a, b))
            for r, c in p.items():
                total[r] = total.get(r, F(0)) + (c if size % 2 else -c)
    return {r: c for r, c in total.items() if c}


def _eps(level) -> mpmath.mpf:
    if "t" in level:
        return -mpmath.log(mpmath.mpf(F(level["t"]).numerator) / F(level["t"]).denominator)
    return mpmath.mpf(sympy.N(sympy.sympify(level["eps"]), 90))  # test-authored levels only


def _capacity_claim_true(doc) -> bool:
    q, c = doc["question"], doc["claim"]
    X = _pts(q["X"])
    K = [(tuple(map(F, b["lower"])), tuple(map(F, b["upper"]))) for b in q["K"]]
    T = {F(r): F(v) for r, v in c["T"]}
    if T != _oracle_capacity(X, K):
        return False
    lo, hi = F(c["enclosure"]["lo"]), F(c["enclosure"]["hi"])
    if "t" in q["level"] and all(r.denominator == 1 for r in T):  # a rational value: exact
        t = F(q["level"]["t"])
        value = sum((v * t ** int(r) for r, v in T.items()), F(0))
        return lo <= value <= hi
    with mpmath.workdps(80):
        eps = _eps(q["level"])
        value = mpmath.fsum(mpmath.mpf(v.numerator) / v.denominator * mpmath.exp(-eps * r.numerator / r.denominator)
                            for r, v in T.items())
        assert min(abs(value - mpmath.mpf(lo.numerator) / lo.denominator),
                   abs(value - mpmath.mpf(hi.numerator) / hi.denominator)) > mpmath.mpf(10) ** -60
        return mpmath.mpf(lo.numerator) / lo.denominator <= value <= mpmath.mpf(hi.numerator) / hi.denominator


def _truth(doc) -> bool:
    return _capacity_claim_true(doc) if doc["kind"] == "set-capacity" else _point_claim_true(doc)


def _kernel(doc) -> bool | None:
    """The kernel's verdict; None when it calls the document malformed."""
    try:
        return verify_document(loads(dumps(doc))).verified
    except InvalidArgument:
        return None


def _agrees(doc) -> None:
    got = _kernel(doc)
    if got is None:
        return  # malformed: never verified
    assert got == _truth(doc), doc


# ---------------------------------------------------------------------- strategies
@st.composite
def hausdorff_docs(draw):
    dim = draw(st.integers(1, 3))
    X, Y = draw(point_sets(dim, max_size=5)), draw(point_sets(dim, max_size=5))
    return hausdorff_distance(X, Y, draw(st.sampled_from(NORMS)))


@st.composite
def capacity_results(draw):
    dim = draw(st.integers(1, 2))
    X = draw(point_sets(dim, max_size=3, max_abs=2, max_denominator=2))
    K = draw(st.lists(boxes(dim, max_abs=2, max_denominator=2), min_size=1, max_size=2))
    level = draw(st.sampled_from([{"eps": 1}, {"eps": "1/2"}, {"eps": "ln(2)"}, {"eps": "ln(3)/2"}]))
    return capacity_functional(X, K, **level)


# ---------------------------------------------------------------------- genuine documents
def test_kinds_are_supported():
    assert {"set-hausdorff", "set-diameter", "set-capacity"} <= set(SUPPORTED_KINDS)


@SETTINGS
@given(hausdorff_docs())
def test_hausdorff_and_diameter_documents_verify_and_bind(r):
    for res in (r, diameter(r.X, r.norm), diameter(r.Y, r.norm)):
        doc = res.to_document()
        assert _truth(doc) and _kernel(doc) is True and res.verify()
        _tamper_points(doc)


@SETTINGS
@given(capacity_results())
def test_capacity_documents_verify_and_bind(r):
    doc = r.to_document()
    assert _truth(doc) and _kernel(doc) is True and r.verify()
    _tamper_capacity(doc)


# ---------------------------------------------------------------------- tamperings
def _nudge(text: str, by: F) -> str:
    v = F(text) + by
    return str(v)


def _tamper_points(doc) -> None:
    q, c = doc["question"], doc["claim"]
    cases = []
    for by in (F(1), F(-1, 3), F(1, 10**12)):
        d = copy.deepcopy(doc)
        d["claim"]["key"] = _nudge(c["key"], by)
        cases.append(d)
    for norm in NORMS:
        d = copy.deepcopy(doc)
        d["question"]["norm"] = norm
        cases.append(d)
    for field in [f for f in ("witness", "nearest", "a", "b") if f in c]:
        d = copy.deepcopy(doc)
        d["claim"][field] = [_nudge(d["claim"][field][0], F(1, 2))] + d["claim"][field][1:]
        cases.append(d)
        for p in q["X"] + q.get("Y", []):  # every point of either set as the witness
            d = copy.deepcopy(doc)
            d["claim"][field] = p
            cases.append(d)
    if "direction" in c:
        d = copy.deepcopy(doc)
        d["claim"]["direction"] = "Y->X" if c["direction"] == "X->Y" else "X->Y"
        cases.append(d)
        d = copy.deepcopy(doc)
        d["question"]["X"], d["question"]["Y"] = q["Y"], q["X"]
        cases.append(d)
    for name in [n for n in ("X", "Y") if n in q]:  # move one point of a set
        for i in range(len(q[name])):
            d = copy.deepcopy(doc)
            d["question"][name][i] = [_nudge(d["question"][name][i][0], F(7, 5))] + d["question"][name][i][1:]
            rows = sorted(_pts(d["question"][name]))
            d["question"][name] = [[str(c) for c in p] for p in rows]
            cases.append(d)
    rejected = 0
    for d in cases:
        _agrees(d)
        rejected += _kernel(d) is not True
    assert rejected >= 3  # the key nudges at least


def _tamper_capacity(doc) -> None:
    q, c = doc["question"], doc["claim"]
    cases = []
    for level in ({"t": "1/3"}, {"eps": "2"}, {"t": "1/2"}, {"eps": "log(5)/3"}):
        if level != q["level"]:
            d = copy.deepcopy(doc)
            d["question"]["level"] = level
            cases.append(d)
    for i in range(len(c["T"])):
        for j, by in ((0, F(1, 8)), (1, F(1, 10**9))):
            d = copy.deepcopy(doc)
            d["claim"]["T"][i][j] = _nudge(c["T"][i][j], by)
            cases.append(d)
    lo, hi = F(c["enclosure"]["lo"]), F(c["enclosure"]["hi"])
    for new in ((lo + F(1, 1000), hi), (lo, hi - F(1, 1000)), (lo - 1, hi + 1), (hi + 1, hi + 2)):
        d = copy.deepcopy(doc)
        d["claim"]["enclosure"] = {"lo": str(new[0]), "hi": str(new[1])}
        cases.append(d)
    d = copy.deepcopy(doc)
    d["question"]["X"][0] = [_nudge(d["question"]["X"][0][0], F(-5, 3))] + d["question"]["X"][0][1:]
    d["question"]["X"] = [[str(v) for v in p] for p in sorted(set(_pts(d["question"]["X"])))]
    cases.append(d)
    d = copy.deepcopy(doc)
    d["question"]["K"][0]["upper"][0] = _nudge(d["question"]["K"][0]["upper"][0], F(1, 3))
    cases.append(d)
    verdicts = []
    for d in cases:
        _agrees(d)
        verdicts.append(_kernel(d))
    assert verdicts.count(True) <= 2  # the wider enclosure (true); every other claim is false
    assert True in verdicts  # ... and the wider enclosure does verify


def test_hand_cases_and_witnesses():
    r = hausdorff_distance([(0, 0), (2, 0)], [(1, 1)], "l2")
    doc = r.to_document()
    assert doc["claim"]["key"] == "2" and _kernel(doc) is True
    assert not replace(r, value=sympy.Integer(2)).verify()  # √2 is the distance, not 2
    assert not replace(r, value=-sympy.sqrt(2)).verify()
    assert not replace(r, witness=(F(5), F(5))).verify()  # not a point of the set
    # 3 ∈ Y is d_H = 3 away from 0 ∈ X, but 0's nearest point of Y is 1: not a witness of X->Y
    doc = hausdorff_distance([0], [-1, 1, 3], "l1").to_document()
    assert doc["claim"] == {"key": "3", "witness": ["3"], "nearest": ["0"], "direction": "Y->X"}
    doc["claim"].update(witness=["0"], nearest=["3"], direction="X->Y")
    assert not _point_claim_true(doc) and _kernel(doc) is False
    d = diameter([0, 1, 5])
    assert d.verify() and not replace(d, b=d.a, value=sympy.Integer(0)).verify()
    assert not replace(d, a=(F(0),), b=(F(1),), value=sympy.Integer(1)).verify()
    assert not replace(diameter([(0, 0), (1, 1)], "l1"), value=sympy.sqrt(2)).verify()  # irrational ℓ1
    one = diameter([(7, 7)], "l2")
    assert one.value == 0 and one.verify()
    c = capacity_functional([0, 1], Box(0, 1), eps="ln(2)")
    assert c.verify()
    assert not replace(c, value=c.value + ExpPoly({F(3): F(1, 10**6)})).verify()
    # a smaller set's true capacity, claimed for X: rejected
    assert not replace(c, value=capacity_functional([0], Box(0, 1), eps="ln(2)").value).verify()


def test_capacity_enclosure_at_irrational_level_is_decided_in_balls():
    c = capacity_functional([(0, 0), ("1/2", 1)], [Box((0, 0), (1, 1))], eps=1)
    doc = c.to_document(prec=128)
    assert _truth(doc) and _kernel(doc) is True
    lo, hi = F(doc["claim"]["enclosure"]["lo"]), F(doc["claim"]["enclosure"]["hi"])
    for new in ((hi, hi), (lo, lo)):  # a point interval next to the true value: false
        bad = copy.deepcopy(doc)
        bad["claim"]["enclosure"] = {"lo": str(new[0]), "hi": str(new[1])}
        assert _kernel(bad) is False


def test_malformed_and_oversized():
    doc = hausdorff_distance([(0, 0), (1, 2)], [(1, 1)], "linf").to_document()
    for edit in (lambda d: d["question"].__setitem__("X", d["question"]["X"][::-1]),  # unsorted
                 lambda d: d["question"].__setitem__("norm", "l3"),
                 lambda d: d["claim"].__setitem__("key", "0.5"),
                 lambda d: d["claim"].__setitem__("direction", "X<-Y"),
                 lambda d: d["claim"].pop("nearest"),
                 lambda d: d["evidence"].__setitem__("extra", 1)):
        bad = copy.deepcopy(doc)
        edit(bad)
        with pytest.raises(InvalidArgument):
            verify_document(bad)
    big = point_set([(i,) for i in range(501)])  # the writers refuse what the kernel would
    for make in (lambda: diameter(big, "l1").to_document(), lambda: diameter(big, "l1").verify(),
                 lambda: hausdorff_distance(big, [0], "l2").to_document(),
                 lambda: capacity_functional(big, Box(0, 1), eps=1).to_document()):
        with pytest.raises(InstanceTooLarge):
            make()
    forged = copy.deepcopy(diameter([0, 1], "l1").to_document())
    forged["question"]["X"] = [[str(i)] for i in range(501)]
    forged["claim"].update(key="500", a=["0"], b=["500"])
    with pytest.raises(InvalidArgument):  # the kernel reads at most MAX_POINTS points
        verify_document(forged)


def test_fresh_process_exit_codes(tmp_path):
    genuine = [hausdorff_distance([(0, 0), (3, 4)], [(0, 0)], "l2").to_document(),
               diameter([(0, 0), (1, 0), (0, 2)], "linf").to_document(),
               capacity_functional([(0, 0), (1, "1/2")], Box((0, 0), (1, 1)), eps="ln(2)").to_document()]
    files = []
    for i, doc in enumerate(genuine):
        good = tmp_path / f"good{i}.json"
        good.write_text(json.dumps(doc))
        bad = copy.deepcopy(doc)
        if doc["kind"] == "set-capacity":
            bad["question"]["level"] = {"t": "1/3"}
        else:
            bad["claim"]["key"] = _nudge(doc["claim"]["key"], F(1, 3))
        tampered = tmp_path / f"bad{i}.json"
        tampered.write_text(json.dumps(bad))
        files += [(good, 0), (tampered, 1)]
    broken = copy.deepcopy(genuine[1])
    broken["question"]["norm"] = "l7"
    (tmp_path / "broken.json").write_text(json.dumps(broken))
    files.append((tmp_path / "broken.json", 3))
    for path, code in files:
        proc = subprocess.run([sys.executable, "-m", "exactdp", "verify", str(path)],
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == code, (path.name, proc.stdout, proc.stderr)
