"""Property-based tampering of the mechanism certificates and results (issue 11).

Objects: PrivacyLevelResult (``privacy_level``), PrivacyCheck (``is_private``),
RemapCertificate / FarkasRemapCertificate (``is_optimal``), HammingUniformCertificate —
on exact mechanisms drawn by :mod:`exactdp.testing.mechanism_strategies` (private and not
private at the level), metrics with integer distances, n ≤ 5.

GROUND TRUTH (independent of exactdp's solvers):

* the level of H is L* = max over y ≠ y', z of ln(h[y,z]/h[y',z])/d(y, y') (+∞ when some
  h[y',z] = 0 < h[y,z]), to 50 digits by :func:`exactdp.testing.oracle.exact_level_upper`;
  a level result's value must equal L*, its enclosure contain L*, its witness (y, y', z)
  attain L*, its ratio be h[y,z]/h[y',z] and its distance d(y, y');
* a privacy check's verdict is L* ≤ ε (+ slack), decided exactly at rational t by
  :func:`exactdp.testing.oracle.is_private_exact`; a violation (y, y', z) must violate:
  h[y,z] > t^{-d}·h[y',z]... (decided exactly);
* a remap R must be stochastic (R ≥ 0, rows summing to 1) with Σ_{y'} φ(y,y')·(HR)_{y'y'} = 1
  for every y; a remap-Farkas vector w must satisfy Aᵀw ≥ 0 and b·w < 0 for that linear
  system (A built here from H, d and t, exactly);
* the Hamming uniform certificate's claim (uniform regular on V^u, Thm. 3) is true for
  every k ≥ 1, u ≥ 1 and level, so only malformed fields are false.
"""

from __future__ import annotations

from fractions import Fraction as F
from typing import Any

import mpmath
import sympy
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from exactdp.arithmetic.interval import Enclosure
from exactdp.mechanisms import from_rows, is_optimal, is_private, privacy_level
from exactdp.mechanisms.bounds import HammingUniformCertificate
from exactdp.mechanisms.optimality import FarkasRemapCertificate, RemapCertificate
from exactdp.spaces.levels import parse_level
from exactdp.spaces.metrics import discrete, line
from exactdp.testing.oracle import (
    DPS,
    compare,
    contains,
    exact_level_upper,
    is_private_exact,
    rational_distance_matrix,
)
from exactdp.testing.strategies import (
    graph_metrics,
    mechanism_rows,
    nonprivate_mechanism_rows,
    private_mechanism_rows,
    rational_t,
    star_metrics,
)
from exactdp.testing.tampering import Tally, examples, int_nudges, judge, nudges, replace

SETTINGS = dict(derandomize=True, deadline=None, database=None,
                phases=[Phase.explicit, Phase.reuse, Phase.generate],  # no slow shrinking in CI
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                       HealthCheck.data_too_large])


def small_metrics() -> st.SearchStrategy[Any]:
    return st.one_of(st.integers(2, 4).map(line), star_metrics(max_leaves=3), graph_metrics(max_nodes=4))


def rows_of(mech: Any) -> list[list[F]]:
    return [[F(v) for v in r] for r in mech.rows_fraction()]


def _mp(v: Any) -> Any:
    with mpmath.workdps(DPS + 10):
        return mpmath.mpf(sympy.N(v, DPS + 10)) if not isinstance(v, F) else mpmath.mpf(v.numerator) / v.denominator


# ----------------------------------------------------------------------------- ground truth
def level_truth(res: Any) -> bool | None:
    mech, metric = res._mechanism, res._metric
    rows = rows_of(mech)
    D = rational_distance_matrix(metric)
    n, m = len(rows), len(rows[0])
    L = exact_level_upper(rows, metric)
    w = res.witness
    if w is not None:
        if not (isinstance(w, tuple) and len(w) == 3 and all(isinstance(i, int) and not isinstance(i, bool)
                                                             for i in w)):
            return False
        a, b, z = w
        if not (0 <= a < n and 0 <= b < n and 0 <= z < m) or a == b:
            return False
        if res.distance is not None and F(res.distance.coef) != D[a][b]:
            return False
    if L == mpmath.inf:
        if res.value is not sympy.oo or w is None:
            return False
        a, b, z = w
        return rows[a][z] > 0 and rows[b][z] == 0
    if res.value is sympy.oo:
        return False
    out: bool | None = True
    if res.value is not None:
        c = compare_mp(res.value, L)
        if c is None:
            out = None
        elif c != 0:
            return False
    if res.enclosure is not None:
        e = res.enclosure
        inside = contains(e.lo, e.hi, L) if e.lo <= e.hi else False
        if inside is False:
            return False
        if inside is None:
            out = None
    if w is None:
        return L == 0 and out
    a, b, z = w
    if rows[b][z] == 0 or rows[a][z] == 0:
        return False
    r = rows[a][z] / rows[b][z]
    if res.ratio is not None and res.ratio != r:
        return False
    with mpmath.workdps(DPS):
        attained = mpmath.log(_mp(r)) / _mp(D[a][b])
        if abs(attained - L) > mpmath.mpf(10) ** -40:
            return False
    return out


def compare_mp(expr: Any, x: Any) -> int | None:
    with mpmath.workdps(DPS):
        v = _mp(expr)
        if abs(v - x) < mpmath.mpf(10) ** -40:
            return 0
        return 1 if v > x else -1


def check_truth(c: Any, t: F) -> bool | None:
    lv = level_truth(c.level)
    if lv is False:
        return False
    rows = rows_of(c.level._mechanism)
    metric = c.level._metric
    if c.slack:
        return None
    if sympy.simplify(c.eps - sympy.log(1 / sympy.Rational(t.numerator, t.denominator))) != 0:
        return False if not isinstance(c.eps, sympy.Expr) else _eps_truth(c, rows, metric, lv)
    private = is_private_exact(rows, metric, t)
    if c.private != private:
        return False
    return _violation_truth(c, rows, metric, t, private, lv)


def _eps_truth(c: Any, rows: list[list[F]], metric: Any, lv: bool | None) -> bool | None:
    """The verdict at another ε (a replaced level): L* ≤ ε, to 50 digits."""
    L = exact_level_upper(rows, metric)
    with mpmath.workdps(DPS):
        e = _mp(c.eps)
        if L != mpmath.inf and abs(L - e) < mpmath.mpf(10) ** -40:
            return None
        private = bool(L <= e)
    if c.private != private:
        return False
    return None if lv is None else True


def _violation_truth(c: Any, rows: list[list[F]], metric: Any, t: F, private: bool, lv: bool | None) -> bool | None:
    D = rational_distance_matrix(metric)
    v = c.violation
    if private:
        return (v is None) and (None if lv is None else True)
    if v is None or not isinstance(v, tuple) or len(v) != 3:
        return False
    a, b, z = v
    n, m = len(rows), len(rows[0])
    if not (0 <= a < n and 0 <= b < n and 0 <= z < m) or a == b:
        return False
    if not rows[a][z] > rows[b][z] * (1 / t) ** int(D[a][b]):
        return False
    return None if lv is None else True


def remap_truth(c: Any) -> bool | None:
    H = rows_of(c.mechanism)
    n, m = len(H), len(H[0])
    R = c.remap
    if len(R) != m or any(len(r) != n for r in R):
        return False
    if any(v < 0 for r in R for v in r) or any(sum(r) != 1 for r in R):
        return False
    t = c.level.t
    if t is None:
        return None
    D = rational_distance_matrix(c.metric)
    diag = [sum(H[y][z] * R[z][y] for z in range(m)) for y in range(n)]
    return all(sum(t ** int(D[y][y2]) * diag[y2] for y2 in range(n)) == 1 for y in range(n))


def remap_system(H: list[list[F]], D: list[list[F]], t: F) -> tuple[list[list[F]], list[F]]:
    """{A x = b, x ≥ 0} for the remap R (x[z·n + y] = R[z][y]), built here independently."""
    n, m = len(H), len(H[0])
    A, b = [], []
    for y in range(n):
        row = [F(0)] * (m * n)
        for y2 in range(n):
            for z in range(m):
                row[z * n + y2] += t ** int(D[y][y2]) * H[y2][z]
        A.append(row)
        b.append(F(1))
    for z in range(m):
        A.append([F(1) if k // n == z else F(0) for k in range(m * n)])
        b.append(F(1))
    return A, b


def farkas_remap_truth(c: Any) -> bool | None:
    t = c.level.t
    if t is None:
        return None
    A, b = remap_system(rows_of(c.mechanism), rational_distance_matrix(c.metric), t)
    if len(c.w) != len(A):
        return False
    cols = len(A[0])
    return all(sum(A[i][j] * c.w[i] for i in range(len(A))) >= 0 for j in range(cols)) and \
        sum(bi * wi for bi, wi in zip(b, c.w)) < 0


# ----------------------------------------------------------------------------- tamperings
def other_mechanisms(mech: Any, data: Any) -> list[Any]:
    n, m = mech.shape
    out = [from_rows([[F(1, m)] * m] * n), from_rows([[F(int(i == j % m)) for j in range(m)] for i in range(n)])]
    out.append(from_rows(data.draw(mechanism_rows(n, m))))
    return out


def other_metrics(metric: Any) -> list[Any]:
    n = metric.n
    D = rational_distance_matrix(metric)
    return [o for o in (line(n), discrete(n, 1), discrete(n, 3)) if rational_distance_matrix(o) != D]


def level_tamperings(res: Any, data: Any) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    v = res.value
    if v is not None and v is not sympy.oo:
        for nv in (v + sympy.Rational(1, 10**6), v * 2, sympy.Integer(0), -v, sympy.oo, v + 1,
                   sympy.log(2), sympy.Rational(1, 10)):
            if nv != v:
                out.append((f"value→{nv}", replace(res, value=nv)))
    if res.enclosure is not None:
        e = res.enclosure
        for nv in nudges(e.lo):
            out.append((f"enclosure.lo→{nv}", replace(res, enclosure=replace(e, lo=nv))))
        for nv in nudges(e.hi):
            out.append((f"enclosure.hi→{nv}", replace(res, enclosure=replace(e, hi=nv))))
        out.append(("enclosure +1", replace(res, enclosure=Enclosure(e.lo + 1, e.hi + 1))))
    if res.ratio is not None:
        out += [(f"ratio→{nv}", replace(res, ratio=nv)) for nv in nudges(res.ratio) if nv > 0]
    n, m = res._mechanism.shape
    if res.witness is not None:
        a, b, z = res.witness
        out += [(f"witness→{w}", replace(res, witness=w)) for w in
                [(b, a, z), (a, b, (z + 1) % m), ((a + 1) % n, b, z), (a, a, z), (a, b, m), (-1, b, z)]
                if w != res.witness]
    out.append(("witness→None", replace(res, witness=None)))
    out += [(f"mechanism→{o.name}", replace(res, _mechanism=o)) for o in other_mechanisms(res._mechanism, data)]
    out += [(f"metric→{o.name}", replace(res, _metric=o)) for o in other_metrics(res._metric)]
    return out


def run_all(tally: Tally, c: Any, truth: Any, tams: list[tuple[str, Any]]) -> None:
    judge(tally, f"{type(c).__name__} genuine", c, True, genuine=True)
    for label, t in tams:
        judge(tally, f"{type(c).__name__}: {label}", t, truth(t))


# ----------------------------------------------------------------------------- the tests
@settings(max_examples=examples(6), **SETTINGS)
@given(st.data())
def test_tamper_privacy_level_and_check(data: Any) -> None:
    tally = Tally("mechanisms privacy")
    m = data.draw(small_metrics())
    t = data.draw(rational_t(10))
    private = data.draw(st.booleans())
    rows = data.draw(private_mechanism_rows(m, t) if private else nonprivate_mechanism_rows(m, t))
    mech = from_rows(rows)
    lvl = privacy_level(mech, m)
    run_all(tally, lvl, level_truth, level_tamperings(lvl, data))
    chk = is_private(mech, m, t=t)
    assert chk.private == private  # the generator's exact claim, against the library
    tams = [("private flipped", replace(chk, private=not chk.private))]
    tams += [(f"eps→{e}", replace(chk, eps=e)) for e in (chk.eps / 2, chk.eps * 2, chk.eps + 1)]
    n, k = mech.shape
    tams += [(f"violation→{v}", replace(chk, violation=v)) for v in
             [None, (0, 1, 0), (1, 0, 0), (0, 1, k - 1), (0, 0, 0)] if v != chk.violation]
    other = privacy_level(from_rows(data.draw(mechanism_rows(n, k))), m)
    tams.append(("level of another mechanism", replace(chk, level=other)))
    tams += [(f"level.{lab}", replace(chk, level=lv)) for lab, lv in level_tamperings(lvl, data)[:8]]
    run_all(tally, chk, lambda c: check_truth(c, t), tams)
    tally.raise_if_failed()


@settings(max_examples=examples(5), **SETTINGS)
@given(st.data())
def test_tamper_remap_certificates(data: Any) -> None:
    tally = Tally("mechanisms remap")
    m = data.draw(small_metrics())
    t = data.draw(rational_t(10))
    rows = data.draw(private_mechanism_rows(m, t))
    mech = from_rows(rows)
    res = is_optimal(mech, m, t=t)
    c = res.certificate
    level = parse_level(t=t)
    others = [(f"mechanism→{o.name}", replace(c, mechanism=o)) for o in other_mechanisms(mech, data)]
    others += [(f"metric→{o.name}", replace(c, metric=o)) for o in other_metrics(m)]
    others += [(f"level→{lv}", replace(c, level=parse_level(t=lv))) for lv in (t / 2, (1 + t) / 2) if lv != t]
    if isinstance(c, RemapCertificate):
        R = [list(r) for r in c.remap]
        tams = []
        for i in range(len(R)):
            for j in range(len(R[0])):
                for nv in nudges(R[i][j])[:4]:
                    S = [list(r) for r in R]
                    S[i][j] = nv
                    tams.append((f"remap[{i}][{j}]→{nv}", replace(c, remap=tuple(map(tuple, S)))))
        tams.append(("remap rows swapped", replace(c, remap=tuple(reversed(c.remap)))))
        run_all(tally, c, remap_truth, tams + others)
    elif isinstance(c, FarkasRemapCertificate):
        tams = [(f"w[{i}]→{nv}", replace(c, w=c.w[:i] + (nv,) + c.w[i + 1:]))
                for i in range(len(c.w)) for nv in nudges(c.w[i])[:4]]
        tams.append(("w negated", replace(c, w=tuple(-v for v in c.w))))
        run_all(tally, c, farkas_remap_truth, tams + others)
    # the identity mechanism is optimal iff a tight-constraints mechanism exists; either way
    # its certificate must verify, and a flat mechanism must never get a remap certificate
    flat = from_rows([[F(1, m.n)] * m.n] * m.n)
    fr = is_optimal(flat, m, t=t)
    if fr.certificate is not None:
        truth = remap_truth if isinstance(fr.certificate, RemapCertificate) else farkas_remap_truth
        assert truth(fr.certificate) is not False
    assert level is not None
    tally.raise_if_failed()


def test_tamper_hamming_uniform() -> None:
    tally = Tally("mechanisms hamming-uniform")
    for k, u, t in [(2, 2, F(1, 3)), (3, 2, F(1, 2)), (2, 3, F(2, 3))]:
        c = HammingUniformCertificate(k, u, parse_level(t=t))
        judge(tally, "genuine", c, True, genuine=True)
        c2 = HammingUniformCertificate(k, u, parse_level(eps=F(7, 5)))
        judge(tally, "genuine at rational ε", c2, True, genuine=True)
        # Thm. 3 holds for every k, u and level: these tamperings keep a TRUE claim
        for lab, tc in [("values+1", replace(c, values=k + 1)), ("individuals+1", replace(c, individuals=u + 1)),
                        ("level", replace(c, level=parse_level(t=t / 2)))]:
            judge(tally, lab, tc, True)
        # malformed: must be rejected or at least never raise
        for lab, tc in [("values=0", replace(c, values=0)), ("values=-2", replace(c, values=-2)),
                        ("individuals='2'", replace(c, individuals="2")), ("level=None", replace(c, level=None))]:
            judge(tally, lab, tc, False)
    tally.raise_if_failed()
    assert compare(F(1), F(1)) == 0 and int_nudges(0, 2) == [-1, 1, 2]
