"""Hairline edits of threshold and grid documents, each accepted one judged by an oracle (session 29).

Every rational field of a genuine document is moved by ±2⁻ᵏ (k = 8, 40, 120, 400, 1,500;
absolute, and relative for a nonzero value), set to 0, negated, doubled, halved or moved by ±1;
every list of two or more items loses its first or its last item, is reversed, or has its first
item duplicated; the claimed ε enclosure's ends are put at the true ε* ± 2⁻ᵏ (k = 20 … 190) and
at ε* rounded to 78 digits. Each edited document goes to the kernel (``verify_document``); an
``exactdp`` error means "malformed", refused as intended; any other exception is printed as a
crash. Each document the kernel accepts is judged against the question read back from *it*
(an edited question is judged as edited), without exactdp's solvers:

* dense threshold kinds: ``exactdp.testing.oracle.threshold_truth`` (z(s) = N(s)/D(s) by
  Cramer's rule with exact interpolation, sympy root isolation, exact signs between roots),
  ``claim_true(lo, hi)``; a stated s* must isolate the oracle's s* (60 digits);
* Manhattan grids: the same oracle on the unit grid, ε scaled by the spacing; a Euclidean
  ``grid-threshold``: an enclosure of ε* by the dense certified route (tol 10⁻¹²), and a
  70-digit mpmath solve at ``lo``;
* ``spd-point`` (the fail side of each cover, checked alone): a 70-digit mpmath solve at its
  level, z_index ≤ upper < 0;
* ``grid-point`` / ``grid-point-exact``: a 70-digit mpmath solve of Φz = b at the level: "holds"
  iff z > 0, a witness w iff z_w < 0.

A claim within 10⁻⁵⁰ of the truth (or inside the reference enclosure) counts as undecided,
never as a pass. It is a search, not a proof: 0 forgeries holds for the edits it makes.

Run: ``python scripts/hairline_fuzz.py [--per-doc 2500] [--random 12] [--seed 1] [--no-grid]``
(about 10 min on 2 cores with the defaults). Prints per document: edits tried, accepted,
forgeries, undecided, seconds; a forged document is written to ``hairline_forgery_*.json``.
"""

from __future__ import annotations

import argparse
import copy
import random
import re
import time
from collections.abc import Iterator
from fractions import Fraction as F
from typing import Any
from unittest import mock

import mpmath
import sympy

import exactdp.testing.oracle as oracle
import exactdp.threshold.certified as certified_route
from exactdp.engine.grid_exact import exact_grid_point
from exactdp.engine.grid_point import solve_grid_point
from exactdp.errors import ExactDPError
from exactdp.kernel.grid_point import read_grid_point
from exactdp.kernel.grid_point_exact import read_grid_point_exact
from exactdp.kernel.jsonio import dumps, loads, write_rational
from exactdp.kernel.question import Question
from exactdp.kernel.threshold_grid import read_grid_threshold
from exactdp.kernel.verify import verify_document
from exactdp.spaces.levels import parse_level
from exactdp.spaces.metrics import band, count_queries, cycle, from_matrix, grid, hamming, line, sum_query
from exactdp.spaces.metrics.masked import GridShape
from exactdp.testing.tampering import kernel_accepts
from exactdp.threshold import epsilon_threshold

RAT = re.compile(r"^-?\d+(/\d+)?$")
M4 = [[0, 1, 2, 2], [1, 0, 1, 2], [2, 1, 0, 3], [2, 2, 3, 0]]  # g of its prior has two roots in (0, 1)
P4 = [F(8, 31)] * 3 + [F(7, 31)]
TINY = mpmath.mpf(10) ** -50


def leaves(o: Any, path: tuple = ()) -> Iterator[tuple[tuple, F]]:
    if isinstance(o, dict):
        for k, v in o.items():
            yield from leaves(v, path + (k,))
    elif isinstance(o, list):
        for i, v in enumerate(o):
            yield from leaves(v, path + (i,))
    elif isinstance(o, str) and RAT.match(o) and len(o) < 2000:
        yield path, F(o)


def lists(o: Any, path: tuple = ()) -> Iterator[tuple]:
    if isinstance(o, dict):
        for k, v in o.items():
            yield from lists(v, path + (k,))
    elif isinstance(o, list):
        if len(o) >= 2:
            yield path
        for i, v in enumerate(o):
            yield from lists(v, path + (i,))


def at(o: Any, path: tuple) -> Any:
    for k in path:
        o = o[k]
    return o


def nudges(v: F) -> set[F]:
    out = {F(0), -v, 2 * v, v / 2, v + 1, v - 1}
    for k in (8, 40, 120, 400, 1500):
        d = F(1, 2**k)
        out |= {v + d, v - d} | ({v * (1 + d), v * (1 - d)} if v else set())
    out.discard(v)
    return out


def edits(doc: dict, star: Any, scale: F, rng: random.Random, per_doc: int) -> list[tuple[str, tuple, Any]]:
    out = [("num", p, w) for p, v in leaves(doc) for w in nudges(v)]
    out += [(k, p, None) for p in lists(doc) for k in ("drop first", "drop last", "reverse", "duplicate first")]
    if doc["claim"].get("verdict") == "fails" or doc["claim"].get("witness") is not None:
        out += [("num", ("claim", "witness"), w) for w in range(12)]
    if "index" in doc["claim"]:  # an spd-point's failing entry
        out += [("num", ("claim", "index"), w) for w in range(12)]
    rng.shuffle(out)
    out = out[:per_doc]
    if star is not None and star != mpmath.inf and "eps" in doc["claim"]:
        with mpmath.workdps(80):
            for k in (20, 60, 100, 150, 190):
                for end, sign in (("hi", -1), ("hi", 1), ("lo", 1), ("lo", -1)):
                    x = (star + sign * mpmath.mpf(2) ** -k) / scale
                    if x >= 0:
                        out.append(("num", ("claim", "eps", end), F(mpmath.nstr(x, 78))))
            x = F(mpmath.nstr(star / scale, 78))
            out += [("num", ("claim", "eps", "hi"), x), ("num", ("claim", "eps", "lo"), x)]
    return out


def apply(doc: dict, edit: tuple[str, tuple, Any]) -> dict | None:
    kind, p, w = edit
    d = copy.deepcopy(doc)
    if kind == "num":
        parent = at(d, p[:-1])
        parent[p[-1]] = int(w) if p in (("claim", "witness"), ("claim", "index")) else write_rational(w, str(p))
        return d
    lst = at(d, p)
    {"drop first": lambda: lst.pop(0), "drop last": lambda: lst.pop(), "reverse": lst.reverse,
     "duplicate first": lambda: lst.insert(0, copy.deepcopy(lst[0]))}[kind]()
    return None if lst == at(doc, p) else d


# ----------------------------------------------------------------------------- judges
def _s_star_ok(ss: dict, truth: Any) -> bool:
    s = sympy.Symbol("s")
    g = sympy.Poly([int(x) for x in ss["minimal_polynomial"]], s)
    lo, hi = (sympy.Rational(ss["isolating_interval"][e]) for e in ("lo", "hi"))
    roots = [r for r in g.real_roots() if lo <= r <= hi]
    if len(roots) != 1:
        return False
    with mpmath.workdps(60):
        got = -ss["q"] * mpmath.log(mpmath.mpf(str(sympy.N(roots[0], 70))))
        return bool(abs(got - truth.eps_star) <= mpmath.mpf(10) ** -40)


def judge_dense(doc: dict, unit: Any = None) -> bool | None:
    """Truth of an accepted dense threshold document's claim (None: too close to call). ``unit``
    (metric, scale, question): a scaled document, judged on its unit metric (ε* · scale)."""
    q = Question.from_json(doc["question"])
    if unit is not None and q != unit[2]:
        return None  # an edited question of a scaled document: not judged here (counted undecided)
    metric, scale = (q.metric, F(1)) if unit is None else unit[:2]
    truth = oracle.threshold_truth(metric, q.rhs if isinstance(q.rhs, tuple) else None)
    c = doc["claim"]
    ok = truth.claim_true(F(c["eps"]["lo"]) * scale, F(c["eps"]["hi"]) * scale)
    if ok is True and c.get("s_star"):
        return _s_star_ok(c["s_star"], truth)
    return ok


def judge_spd_point(doc: dict) -> bool | None:
    """Truth of an accepted ``spd-point`` claim "z_index(ε) ≤ upper < 0" (a 70-digit solve)."""
    q = Question.from_json(doc["question"])
    m, lv, n = q.metric, q.level, q.metric.n
    with mpmath.workdps(70):
        eps = -mpmath.log(mpmath.mpf(lv.t.numerator) / lv.t.denominator) if lv.t is not None else \
            mpmath.mpf(str(sympy.N(lv.eps, 80)))

        def dist(i: int, j: int) -> Any:
            d = m.distance(i, j)
            return mpmath.mpf(d.coef.numerator) / d.coef.denominator * mpmath.sqrt(d.radicand)

        A = mpmath.matrix([[mpmath.exp(-eps * dist(i, j)) for j in range(n)] for i in range(n)])
        b = q.rhs if isinstance(q.rhs, tuple) else (F(1),) * n
        z = mpmath.lu_solve(A, mpmath.matrix([mpmath.mpf(v.numerator) / v.denominator for v in b]))
        zi, up = z[doc["claim"]["index"]], F(doc["claim"]["upper"])
        u = mpmath.mpf(up.numerator) / up.denominator
        if min(abs(zi - u), abs(zi)) < TINY:
            return None
        return bool(zi < 0 and zi <= u)


def read_grid(doc: dict) -> Any:
    return {"grid-point": read_grid_point, "grid-point-exact": read_grid_point_exact,
            "grid-threshold": read_grid_threshold}[doc["kind"]](doc)


def _points(shape: GridShape) -> list[tuple[int, int]]:
    return [(c % shape.width, c // shape.width) for c in shape.cells]


def _z(shape: GridShape, rhs: tuple[F, ...], eps: Any) -> Any:
    pts, h = _points(shape), mpmath.mpf(shape.spacing.numerator) / shape.spacing.denominator

    def dist(p: tuple[int, int], r: tuple[int, int]) -> Any:
        dx, dy = p[0] - r[0], p[1] - r[1]
        return h * (abs(dx) + abs(dy) if shape.norm == "manhattan" else mpmath.sqrt(dx * dx + dy * dy))

    A = mpmath.matrix([[mpmath.exp(-eps * dist(p, r)) for r in pts] for p in pts])
    return mpmath.lu_solve(A, mpmath.matrix([mpmath.mpf(v.numerator) / v.denominator for v in rhs]))


_REF: dict[Any, tuple[F, F]] = {}


def judge_grid(doc: dict) -> bool | None:
    c = read_grid(doc)
    shape, rhs = c.shape, c.rhs
    prior = None if all(v == 1 for v in rhs) else list(rhs)
    if doc["kind"] == "grid-threshold":
        lo, hi = c.eps.lo, c.eps.hi
        if shape.norm == "manhattan":  # ε* scales as 1/spacing
            pts = _points(shape)
            unit = from_matrix([[abs(a - x) + abs(b - y) for (x, y) in pts] for (a, b) in pts])
            return oracle.threshold_truth(unit, prior).claim_true(lo * shape.spacing, hi * shape.spacing)
        key = (shape, rhs)
        if key not in _REF:
            assert shape.mask is None
            r = epsilon_threshold(grid(shape.width, shape.height, shape.norm, shape.spacing), prior,
                                  tol=F(1, 10**12), method="certified")
            _REF[key] = (r.eps_lower, r.eps_upper)
        a, b = _REF[key]  # a ≤ ε* ≤ b
        if hi < a or lo > b:  # hi below ε*, or the property holds at lo (lo > ε*)
            return False
        if hi < b:
            return None  # hi inside the reference enclosure
        if lo == 0:  # "nothing fails": true iff ε* = 0
            return False if a > 0 else None
        if lo >= a:
            return None  # lo inside the reference enclosure
        with mpmath.workdps(70):
            z = min(_z(shape, rhs, mpmath.mpf(lo.numerator) / lo.denominator))
        return None if abs(z) < TINY else bool(z < 0)
    with mpmath.workdps(70):
        lv = c.level
        eps = -mpmath.log(mpmath.mpf(lv.t.numerator) / lv.t.denominator) if lv.t is not None else \
            mpmath.mpf(str(sympy.N(lv.eps, 80)))
        z = _z(shape, rhs, eps)
        if any(abs(x) < TINY for x in z):
            return None
        return bool(min(z) > 0) if c.holds else (c.witness is not None and bool(z[c.witness] < 0))


# ----------------------------------------------------------------------------- documents
def dense_documents(n_random: int, seed: int) -> Iterator[tuple[str, dict, Any]]:
    """(name, genuine document, unit (metric, scale) or None) for every dense threshold kind."""
    def doc(metric: Any, prior: Any = None, krawczyk: bool = False, **kw: Any) -> dict:
        if krawczyk:  # the Krawczyk cover, forced as in the tests
            with mock.patch.object(certified_route, "spd_cover", lambda *a, **k: None):
                return loads(dumps(epsilon_threshold(metric, prior, method="certified").certificate.to_json()))
        return loads(dumps(epsilon_threshold(metric, prior, **kw).to_json()))

    m4 = from_matrix(M4)
    yield "4-point, two-root g (exact)", doc(m4, P4, method="exact"), None
    yield "line(3) prior (exact)", doc(line(3), ["1/2", "1/4", "1/4"], method="exact"), None
    yield "cycle(6) (prop9)", doc(cycle(6)), None
    yield "hamming(2,2) product (kronecker)", doc(hamming(2, 2), [F(1, 9), F(2, 9), F(2, 9), F(4, 9)]), None
    yield "line(4) prior (spd cover)", doc(line(4), ["1/8", "3/8", "1/4", "1/4"], method="certified"), None
    yield "4-point prior (spd cover)", doc(m4, P4, method="certified"), None
    yield "sum_query(3,2) (krawczyk)", doc(sum_query(3, 2), krawczyk=True), None
    yield "4-point prior (krawczyk)", doc(m4, P4, krawczyk=True), None
    yield "line(6) (structured/quotient)", doc(line(6), max_exact_n=3), None
    yield "sum_query(5,2) (structured)", doc(sum_query(5, 2), max_exact_n=3), None
    yield "band(7,2)", doc(band(7, 2), max_exact_n=3), None
    yield "count_queries(3,2) (quotient)", doc(count_queries(3, 2), max_exact_n=3), None
    yield "sum_query(4,2) uniform", doc(sum_query(4, 2), "uniform", max_exact_n=3), None
    scaled = doc(from_matrix([[d * 2**30 for d in r] for r in M4]), P4)
    yield "4-point x 2^30 (scaled)", scaled, (m4, F(2**30), Question.from_json(scaled["question"]))
    rng = random.Random(seed)
    for it in range(n_random):
        n = rng.randint(3, 6)
        D = [[0 if i == j else 99 for j in range(n)] for i in range(n)]
        for i in range(1, n):  # a random connected weighted graph, then shortest paths
            j, w = rng.randrange(i), rng.randint(1, 3)
            D[i][j] = D[j][i] = w
        for _ in range(rng.randint(0, n)):
            i, j = rng.sample(range(n), 2)
            D[i][j] = D[j][i] = rng.randint(1, 3)
        for k in range(n):
            for i in range(n):
                for j in range(n):
                    D[i][j] = min(D[i][j], D[i][k] + D[k][j])
        w8 = [rng.randint(1, 9) for _ in range(n)]
        prior = [F(x, sum(w8)) for x in w8]
        m = from_matrix(D)
        for how in ("exact", "certified", "krawczyk"):
            try:
                d = doc(m, prior, krawczyk=True) if how == "krawczyk" else doc(m, prior, method=how)
            except Exception as exc:  # noqa: BLE001 - a route that cannot answer: say so, go on
                print(f"random {it} {how}: no document ({type(exc).__name__})")
                continue
            yield f"random {seed}.{it} ({how})", d, None


def grid_documents() -> Iterator[tuple[str, dict]]:
    pm = [F(k + 1, 78) for k in range(12)]
    yield "grid(4,3,manhattan) prior (grid-threshold)", loads(dumps(
        epsilon_threshold(grid(4, 3, "manhattan"), pm, matrix_free=True).to_json()))
    yield "grid(3,3) (grid-threshold)", loads(dumps(epsilon_threshold(grid(3, 3), matrix_free=True).to_json()))
    for name, m, lvl, b in [("grid(4,3,manhattan) prior t=1/2", grid(4, 3, "manhattan"), parse_level(t="1/2"), pm),
                            ("grid(4,3,manhattan) t=1/5", grid(4, 3, "manhattan"), parse_level(t="1/5"), None),
                            ("grid(4,3,manhattan) t=4/5", grid(4, 3, "manhattan"), parse_level(t="4/5"), None)]:
        yield f"{name} (grid-point)", solve_grid_point(m, lvl, b).certificate.to_json()
        yield f"{name} (grid-point-exact)", exact_grid_point(m, lvl, b).to_json()
    for eps in ("1", "1/2"):
        cert = solve_grid_point(grid(5, 4), parse_level(eps=eps)).certificate
        yield f"grid(5,4) eps={eps} (grid-point)", cert.to_json()


# ----------------------------------------------------------------------------- the run
def run(name: str, doc: dict, judge: Any, star: Any, scale: F, per_doc: int, rng: random.Random) -> list[int]:
    assert verify_document(doc).verified and judge(doc) is True, f"{name}: the genuine document"
    tried = accepted = forged = undecided = 0
    t0 = time.perf_counter()
    for e in edits(doc, star, scale, rng, per_doc):
        d = apply(doc, e)
        if d is None:
            continue
        tried += 1
        try:
            if not kernel_accepts(d):  # rejected, or malformed (None)
                continue
        except Exception as exc:  # noqa: BLE001 - not an exactdp refusal: a crash
            print(f"CRASH {name}: {e[0]} {e[1]}: {type(exc).__name__}: {exc}")
            continue
        accepted += 1
        try:
            truth = judge(d)
        except ExactDPError:  # the oracle gave up (e.g. two roots within 1e-30): undecided
            truth = None
        if truth is False:
            forged += 1
            out = f"hairline_forgery_{forged}_{re.sub(r'[^a-z0-9]+', '_', name.lower())}.json"
            print(f"FORGERY {name}: {e[0]} {e[1]} -> {str(e[2])[:60]} ({out})")
            open(out, "w").write(dumps(d))
        undecided += truth is None
    print(f"{name:48} tried {tried:5}  accepted {accepted:4}  forgeries {forged}  undecided {undecided:3}"
          f"  {time.perf_counter() - t0:6.1f} s", flush=True)
    return [tried, accepted, forged, undecided]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per-doc", type=int, default=2500, help="edits sampled per document (plus the ε* ties)")
    ap.add_argument("--random", type=int, default=12, help="random metrics (three documents each)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-grid", action="store_true")
    args = ap.parse_args()
    oracle.DPS = 80  # roots isolated to 10^-60 by the oracle; ties within 10^-70 are "too close"
    rng = random.Random(args.seed)
    total = [0, 0, 0, 0]
    for name, doc, unit in dense_documents(args.random, args.seed):
        q = Question.from_json(doc["question"])
        metric, scale = (q.metric, F(1)) if unit is None else unit[:2]
        star = oracle.threshold_truth(metric, q.rhs if isinstance(q.rhs, tuple) else None).eps_star
        counts = run(name, doc, lambda d, u=unit: judge_dense(d, u), star, scale, args.per_doc, rng)
        total = [a + b for a, b in zip(total, counts)]
        fail = doc["evidence"].get("fail") if isinstance(doc.get("evidence"), dict) else None
        if isinstance(fail, dict) and fail.get("kind") == "spd-point":  # the covers' fail side, alone
            counts = run(f"{name}: fail side", fail, judge_spd_point, None, F(1), args.per_doc // 5, rng)
            total = [a + b for a, b in zip(total, counts)]
    if not args.no_grid:
        for name, doc in grid_documents():
            counts = run(name, loads(dumps(doc)), judge_grid, None, F(1), args.per_doc, rng)
            total = [a + b for a, b in zip(total, counts)]
    print(f"total: {total[0]} edits tried, {total[1]} accepted, {total[2]} forgeries, {total[3]} undecided")


if __name__ == "__main__":
    main()
