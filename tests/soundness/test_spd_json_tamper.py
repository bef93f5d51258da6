"""Tampering of the SPD certificates' JSON documents, re-checked by the kernel (issue 11).

Documents: ``spd-taylor-cover`` (with its ``spd-point`` fail side), ``spd-point`` alone, and
``certified-cover`` with an ``spd-point`` fail side (mean-value Krawczyk pieces) — from
``epsilon_threshold(..., method="certified")`` on small generated metrics (n ≤ 5, b = 1 or
a positive prior). Each tampered document is re-checked by
:func:`exactdp.kernel.verify.verify_json` (a malformed one counts as rejected).

GROUND TRUTH (independent of exactdp's solvers, :mod:`exactdp.testing.oracle`): the
document is read (the question it states, its numbers); its claims are then decided with
exact rationals and 50-digit mpmath —

* a cover: ε* ∈ [lo, hi] ("fails at lo, holds on [hi, ∞)": exact z(s), roots isolated by
  sympy); the fail side is about the same distances, b and ε = lo, and is true; the
  perturbation lemma's condition at t0 (exact row sums of t0^d); the ranges cover
  [hi, −ln t0] (50 digits) and the property holds on each; every stated λ ≤ λ_min(Φ(ε))
  on its node or range (30-digit eigenvalues at 9 points, with the Lipschitz bound
  |dλ_min/dε| ≤ max_i Σ_j d_ij e^{−a d_ij}); the Taylor order is 0..8;
* a point: λ ≤ λ_min(Φ(ε)), z_index(ε) < 0 and z_index(ε) ≤ upper (the unique solution to
  50 digits).

A tampering whose claims all stay true (a wider enclosure, a smaller λ) may verify; any
other must be rejected; every genuine document must verify.
"""

from __future__ import annotations

import functools
from fractions import Fraction as F
from typing import Any

import mpmath
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from exactdp.errors import ExactDPError
from exactdp.kernel.jsonio import dumps, loads, write_rational
from exactdp.kernel.linear import LinearClaim
from exactdp.kernel.threshold_json import read_threshold
from exactdp.kernel.threshold_spd import MAX_ORDER, SpdPointClaim
from exactdp.kernel.threshold_spd_json import read_spd_point
from exactdp.kernel.verify import verify_json
from exactdp.spaces.levels import parse_level
from exactdp.spaces.metrics import discrete, from_matrix, line
from exactdp.testing.oracle import (
    DPS,
    contains,
    linear_truth,
    rational_distance_matrix,
    threshold_truth,
)
from exactdp.testing.strategies import graph_metrics, matrix_metrics, priors, star_metrics
from exactdp.testing.tampering import Tally, examples, judge, nudges
from exactdp.threshold import epsilon_threshold
from exactdp.threshold.certificates import CoverCertificate, SpdCoverCertificate, SpdPointCertificate
from exactdp.threshold.krawczyk import krawczyk_cover

SETTINGS = dict(derandomize=True, deadline=None, database=None,
                phases=[Phase.explicit, Phase.reuse, Phase.generate],
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                       HealthCheck.data_too_large])
STAR = [[0, 1, 1, 1], [1, 0, 2, 2], [1, 2, 0, 2], [1, 2, 2, 0]]
#: Tamperings tried per document and example (a random subset).
PER_DOC = examples(40)


class Doc:
    """A JSON text judged by the kernel alone (malformed: rejected)."""

    def __init__(self, doc: Any) -> None:
        self.text = dumps(doc) if isinstance(doc, dict) else doc

    def verify(self) -> bool:
        try:
            return verify_json(self.text).verified
        except ExactDPError:
            return False


def _mp(v: F) -> Any:
    return mpmath.mpf(v.numerator) / v.denominator


# ----------------------------------------------------------------------------- ground truth
def _key(metric: Any) -> tuple[tuple[F, ...], ...]:
    return tuple(map(tuple, rational_distance_matrix(metric)))


@functools.lru_cache(maxsize=100_000)
def _lam_min(D: tuple[tuple[F, ...], ...], eps: F) -> Any:
    with mpmath.workdps(30):
        A = mpmath.matrix([[mpmath.exp(-_mp(eps) * _mp(d)) for d in row] for row in D])
        return min(mpmath.eigsy(A, eigvals_only=True))


@functools.lru_cache(maxsize=100_000)
def lambda_truth(D: tuple[tuple[F, ...], ...], a: F, b: F, lam: F) -> bool | None:
    """λ ≤ min over ε in [a, b] of λ_min(Φ(ε))."""
    if a > b or a <= 0:
        return False
    pts = [a + (b - a) * F(i, 8) for i in range(9)]
    with mpmath.workdps(DPS):
        vals = [_lam_min(D, p) for p in pts]
        lip = max(sum(_mp(d) * mpmath.exp(-_mp(a) * _mp(d)) for d in row) for row in D)
        if _mp(lam) > min(vals):
            return False
        if _mp(lam) <= min(vals) - lip * _mp(b - a) / 16:
            return True
    return None


def holds_on(metric: Any, b: tuple[F, ...], lo: F, hi: F) -> bool | None:
    truth = threshold_truth(metric, b)
    with mpmath.workdps(DPS):
        if _mp(lo) > truth.eps_star + mpmath.mpf(10) ** -30:
            return True
    at = [truth.holds_at_eps(lo + (hi - lo) * F(i, 8)) for i in range(9)]
    return False if False in at else None


def lemma_truth(metric: Any, b: tuple[F, ...], t0: F) -> bool | None:
    if not 0 < t0 < 1:
        return False
    D = rational_distance_matrix(metric)
    if any(v.denominator != 1 for row in D for v in row):
        return None
    e = max(sum((t0 ** int(d) for j, d in enumerate(row) if j != i), F(0)) for i, row in enumerate(D))
    return e < 1 and e * max(abs(v) for v in b) < min(b) * (1 - e)


def point_truth(p: SpdPointClaim) -> bool | None:
    if not p.lam > 0:
        return False
    parts = [lambda_truth(_key(p.metric), p.eps, p.eps, p.lam)]
    tr = linear_truth(p.metric, p.rhs, parse_level(eps=p.eps))
    if tr.x is None:
        return False
    parts += [contains(-10**40, p.upper, tr.x[p.index]), contains(-10**40, 0, tr.x[p.index])]
    return _all(parts)


def fail_truth(fail: Any, metric: Any, b: tuple[F, ...], eps: F) -> bool | None:
    if _key(fail.metric) != _key(metric) or tuple(fail.rhs) != b:
        return False
    if isinstance(fail, SpdPointClaim):
        return point_truth(fail) if fail.eps == eps else False
    assert isinstance(fail, LinearClaim)
    if fail.level.eps_rational != eps or fail.holds:
        return False
    tr = linear_truth(metric, b, parse_level(eps=eps))
    return None if tr.holds is None else not tr.holds


def _all(parts: list[bool | None]) -> bool | None:
    if any(p is False for p in parts):
        return False
    return None if any(p is None for p in parts) else True


def cover_truth(c: Any) -> bool | None:
    m, b, ev = c.metric, c.rhs, c.evidence
    lo, hi, t0 = c.eps.lo, c.eps.hi, ev["t0"]
    if not 0 < lo < hi or min(b) <= 0 or not 0 < t0 < 1:
        return False
    parts = [threshold_truth(m, b).claim_true(lo, hi), fail_truth(ev["fail"], m, b, lo),
             lemma_truth(m, b, t0)]
    ranges = sorted((p[0], p[1]) if isinstance(p, tuple) else (p.lo, p.hi) for p in ev["pieces"])
    cur = hi
    for a, bb in ranges:
        if not a < bb or a > cur:
            return False
        cur = max(cur, bb)
        parts.append(holds_on(m, b, a, bb))
    with mpmath.workdps(DPS):
        if _mp(cur) < -mpmath.log(_mp(t0)):
            return False
    if c.kind == "spd-taylor-cover":
        if not 0 <= ev["order"] <= MAX_ORDER:
            return False
        D = _key(m)
        parts += [lambda_truth(D, a, bb, lam) for a, bb, lam in ev["pieces"]]
        parts += [lambda_truth(D, e, e, lam) for e, _, lam in ev["nodes"]]
    return _all(parts)


def doc_truth(doc: dict[str, Any]) -> bool | None:
    """The truth of every claim a (tampered) document states; False when malformed."""
    try:
        if doc.get("kind") == "spd-point":
            return point_truth(read_spd_point(loads(dumps(doc))))
        return cover_truth(read_threshold(loads(dumps(doc))))
    except ExactDPError:
        return False


# ----------------------------------------------------------------------------- tamperings
def _set(doc: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    out = loads(dumps(doc))
    obj = out
    for k in path[:-1]:
        obj = obj[k]
    if value is _DROP:
        del obj[path[-1]]
    else:
        obj[path[-1]] = value
    return out


_DROP = object()


def _rat_nudges(doc: dict[str, Any], path: tuple[Any, ...], label: str) -> list[tuple[str, Any]]:
    obj = doc
    for k in path:
        obj = obj[k]
    v = F(obj)
    return [(f"{label}→{x}", _set(doc, path, write_rational(x))) for x in nudges(v)[:6]]


def point_tamperings(doc: dict[str, Any], others: list[dict[str, Any]]) -> list[tuple[str, Any]]:
    n = doc["question"]["metric"]["n"]
    out = []
    for path, label in ((("claim", "upper"), "upper"), (("evidence", "lam"), "lam"),
                        (("evidence", "sigma"), "sigma")):
        out += _rat_nudges(doc, path, label)
    eps = F(doc["question"]["level"]["eps"])
    out += [(f"level ε→{x}", _set(doc, ("question", "level"), {"eps": write_rational(x)}))
            for x in nudges(eps)[:6] if x > 0]
    out += [(f"index→{k}", _set(doc, ("claim", "index"), k)) for k in range(n)
            if k != doc["claim"]["index"]]
    out += [("verdict→holds", _set(doc, ("claim", "verdict"), "holds"))]
    out += [(f"question of another #{i}", _set(doc, ("question",), o["question"]))
            for i, o in enumerate(others)]
    return out


def cover_tamperings(doc: dict[str, Any], others: list[dict[str, Any]]) -> list[tuple[str, Any]]:
    out = _rat_nudges(doc, ("claim", "eps", "lo"), "lo") + _rat_nudges(doc, ("claim", "eps", "hi"), "hi")
    out += _rat_nudges(doc, ("evidence", "t0"), "t0")
    ev = doc["evidence"]
    pieces = ev["pieces"]
    idx = sorted({0, 1, len(pieces) - 1} & set(range(len(pieces))))
    for i in idx:
        out.append((f"piece {i} dropped", _set(doc, ("evidence", "pieces"), pieces[:i] + pieces[i + 1:])))
        for key in pieces[i]:
            out += _rat_nudges(doc, ("evidence", "pieces", i, key), f"piece {i}.{key}")
    if doc["kind"] == "spd-taylor-cover":
        out += [(f"order→{k}", _set(doc, ("evidence", "order"), k)) for k in (0, 1, 2, 4, 8, 9)
                if k != ev["order"]]
        for i in range(min(2, len(ev["nodes"]))):
            for key in ("eps", "lam", "sigma"):
                out += _rat_nudges(doc, ("evidence", "nodes", i, key), f"node {i}.{key}")
            out.append((f"node {i} dropped", _set(doc, ("evidence", "nodes"), ev["nodes"][:i] + ev["nodes"][i + 1:])))
    out.append(("kind→certified-cover", _set(doc, ("kind",), "certified-cover")))
    fail = ev["fail"]
    if fail["kind"] == "spd-point":
        out += [(f"fail: {lab}", _set(doc, ("evidence", "fail"), f))
                for lab, f in point_tamperings(fail, [])]
    for i, o in enumerate(others):
        out.append((f"question of another #{i}", _set(doc, ("question",), o["question"])))
        out.append((f"fail of another #{i}", _set(doc, ("evidence", "fail"), o["evidence"]["fail"])))
    return out


def run_all(tally: Tally, doc: dict[str, Any], tams: list[tuple[str, Any]], data: Any) -> None:
    judge(tally, f"{doc['kind']} genuine", Doc(doc), True, genuine=True)
    rnd = data.draw(st.randoms(use_true_random=False))
    if len(tams) > PER_DOC:
        tams = rnd.sample(tams, PER_DOC)
    for label, t in tams:
        judge(tally, f"{doc['kind']}: {label}", Doc(t), doc_truth(t))


def threshold_metrics() -> st.SearchStrategy[Any]:
    return st.one_of(star_metrics(max_leaves=4), graph_metrics(max_nodes=5),
                     matrix_metrics(max_n=5, max_value=3), st.just(from_matrix(STAR)))


def _others(m: Any, b: Any) -> list[dict[str, Any]]:
    """Documents of other questions of the same size (another metric, another b)."""
    out = []
    n = m.n
    for o, ob in ((line(n), b), (discrete(n, 1) if n > 2 else line(n), None),
                  (m, tuple(F(k + 1, n * (n + 1) // 2) for k in range(n)))):
        try:
            c = epsilon_threshold(o, ob, method="certified").certificate
        except ExactDPError:
            continue
        if isinstance(c, (SpdCoverCertificate, CoverCertificate)) and c.metric.n == n:
            try:
                out.append(c.to_json())
            except ExactDPError:
                continue
    return out


@settings(max_examples=examples(3), **SETTINGS)
@given(st.data())
def test_tamper_spd_documents(data: Any) -> None:
    tally = Tally("spd json")
    m = data.draw(threshold_metrics())
    b = data.draw(st.one_of(st.just(None), priors(m.n, allow_zeros=False)))
    bb = tuple(F(1) for _ in range(m.n)) if b is None else tuple(b)
    truth = threshold_truth(m, bb)
    if truth.singular_in_run or truth.eps_star == 0:
        return
    try:
        c = epsilon_threshold(m, b, method="certified").certificate
    except ExactDPError:
        return
    if not isinstance(c, SpdCoverCertificate):
        return
    others = [o for o in _others(m, b) if o["question"] != c.to_json()["question"]]
    doc = c.to_json()
    run_all(tally, doc, cover_tamperings(doc, others), data)
    if isinstance(c.fail, SpdPointCertificate):
        pdoc = c.fail.to_json()
        pothers = [o["evidence"]["fail"] for o in others if o["evidence"]["fail"]["kind"] == "spd-point"]
        run_all(tally, pdoc, point_tamperings(pdoc, pothers), data)
        pts = krawczyk_cover(c.metric, tuple(c.rhs), c.eps_upper, c.pieces[-1][1], F(1, 10**9), None, 400)
        k = CoverCertificate(c.metric, tuple(c.rhs), c.eps_lower, c.eps_upper, c.fail, c.t0, tuple(pts))
        kdoc = k.to_json()
        run_all(tally, kdoc, cover_tamperings(kdoc, others), data)
    tally.raise_if_failed()


def test_star_metric_documents_are_decided() -> None:
    """A fixed instance (the 4-point star, ε* = ln 2): the oracle decides the genuine
    documents as true, and a forged bound as false (the suite's truth is not vacuous)."""
    c = epsilon_threshold(from_matrix(STAR), None, method="certified").certificate
    assert isinstance(c, SpdCoverCertificate) and isinstance(c.fail, SpdPointCertificate)
    doc, pdoc = c.to_json(), c.fail.to_json()
    assert doc_truth(doc) is True and doc_truth(pdoc) is True
    assert Doc(doc).verify() and Doc(pdoc).verify()
    forged = _set(pdoc, ("claim", "upper"), "-1")
    assert doc_truth(forged) is False and not Doc(forged).verify()
    wide = _set(doc, ("claim", "eps", "hi"), write_rational(F(c.eps_upper) + 1))
    assert doc_truth(wide) is True  # a wider enclosure is still a true claim
