"""Property-based tampering of the engine certificates (issue 11, "What it must show").

Certificates: ExactSolution, FarkasCertificate, BallCertificate, VerifiedFloatCertificate,
SymbolicCertificate, KroneckerCertificate — produced by ``solve_nonnegative`` (the engine
behind ``tight_constraints`` / ``is_regular``) with each ``method=``, Farkas vectors built
in memory. Each genuine certificate must verify; then every stored claim is tampered
(numbers nudged up/down, to 0, negated, huge; verdict flipped; witness moved; the metric,
right-hand side or level replaced by another of the same shape; factor certificates
swapped) and the tampered certificate must be rejected unless its claim is still true.

GROUND TRUTH (written down here, independent of exactdp's solvers): the claims of a
certificate about Φx = b, Φ_ij = e^{-ε d_ij}, at its own (possibly tampered) metric, level
and b are decided by :mod:`exactdp.testing.oracle` — exact ``Fraction`` Gaussian
elimination / determinants at rational s, 50-digit mpmath solves otherwise, and the
verdict at a rational ε by exact root isolation of Cramer's z(s) = N(s)/D(s):

* exact-solution: Φx = b exactly; "holds" ⇒ x ≥ 0; "fails" ⇒ some x_i < 0 and det Φ ≠ 0;
* farkas: Φy ≥ 0 and b·y < 0;
* ball / verified-float: the verdict is the true one, every stored interval contains the
  true x_i, and a "fails" witness has x_w < 0;
* symbolic: Φ(s)N(s) = D(s)b as polynomials (checked at more integer points than the
  degree), the verdict is the true one, a "fails" witness has z_w < 0 at the level;
* kronecker: d = Σ d_k exactly on every pair, b = ⊗b_k, each factor certificate is about
  (factor metric, b_k, this level) and its own claims are true, and the verdict is true.

``EXACTDP_TAMPER_EXAMPLES=k`` multiplies the number of generated instances by k.
"""

from __future__ import annotations

import copy
import itertools
from fractions import Fraction as F
from types import SimpleNamespace
from typing import Any

import mpmath
import numpy as np
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from exactdp.arithmetic.interval import Enclosure
from exactdp.engine.certificates import (
    BallCertificate,
    ExactSolution,
    FarkasCertificate,
    KroneckerCertificate,
    SymbolicCertificate,
    VerifiedFloatCertificate,
    certificate_from_json,
)
from exactdp.engine.core import solve_nonnegative
from exactdp.errors import InvalidArgument, PrecisionLimitReached
from exactdp.kernel.jsonio import dumps, loads, write_rational
from exactdp.kernel.linear_json import read_linear
from exactdp.kernel.verify import verify_json
from exactdp.spaces.levels import parse_level
from exactdp.spaces.metrics import cycle, discrete, from_matrix, grid, hamming, line
from exactdp.testing.oracle import (
    contains,
    det_exact,
    exponent_matrix,
    linear_truth,
    mat_vec,
    phi_at_s,
    rational_distance_matrix,
    solve_exact,
)
from exactdp.testing.strategies import (
    graph_metrics,
    matrix_metrics,
    priors,
    rational_eps,
    rational_t,
    star_metrics,
)
from exactdp.testing.tampering import (
    Tally,
    VerifyTimeout,
    call_with_timeout,
    examples,
    float_nudges,
    int_nudges,
    judge,
    nudges,
    replace,
)

SETTINGS = dict(derandomize=True, deadline=None, database=None,
                phases=[Phase.explicit, Phase.reuse, Phase.generate],  # no slow shrinking in CI
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                       HealthCheck.data_too_large])


def small_metrics(max_n: int = 5) -> st.SearchStrategy[Any]:
    return st.one_of(st.integers(2, max_n).map(line), st.integers(3, max_n).map(cycle),
                     star_metrics(max_leaves=max_n - 1), graph_metrics(max_nodes=max_n),
                     matrix_metrics(max_n=max_n, max_value=3))


def other_metrics(m: Any) -> list[Any]:
    """Metrics with the same number of points (a replaced question of the same shape)."""
    n = m.n
    D = rational_distance_matrix(m)
    out = [line(n), discrete(n, 1), discrete(n, 2)]
    if n >= 3:
        out.append(cycle(n))
    perm = list(range(1, n)) + [0]
    out.append(from_matrix([[D[perm[i]][perm[j]] for j in range(n)] for i in range(n)]))
    out.append(from_matrix([[2 * v for v in row] for row in D]))
    return [o for o in out if rational_distance_matrix(o) != D]


def other_levels(level: Any) -> list[Any]:
    t, e = level.t, level.eps_rational
    out = []
    if t is not None:
        out += [parse_level(t=v) for v in {t / 2, (1 + t) / 2, F(1, 100), F(99, 100)} if v != t]
        out.append(parse_level(eps=1))
    if e is not None:
        out += [parse_level(eps=v) for v in {e / 2, e * 2, e + F(1, 10**6)} if v != e]
        out.append(parse_level(t=F(1, 2)))
    return out


def other_rhs(b: tuple[F, ...]) -> list[tuple[F, ...]]:
    n = len(b)
    out = [tuple(F(1) for _ in range(n)), tuple(F(1, n) for _ in range(n)),
           tuple(F(k + 1, n * (n + 1) // 2) for k in range(n)), b[1:] + b[:1],
           (F(1),) + (F(0),) * (n - 1)]
    return [o for o in out if o != b]


# ----------------------------------------------------------------------------- ground truth
def _rhs(c: Any) -> tuple[F, ...]:
    return tuple(F(v) for v in c.rhs)


def _phi_rational(c: Any) -> list[list[F]] | None:
    """Φ exactly when s is rational at the certificate's own level, else None."""
    q, k = exponent_matrix(c.metric)
    t = c.level.t
    if t is None:
        return None
    s = c.level.s_rational(q)
    return None if s is None else phi_at_s(k, F(s))


def truth_exact_solution(c: Any) -> bool | None:
    if len(c.x) != c.metric.n or len(c.rhs) != c.metric.n:
        return False
    A = _phi_rational(c)
    if A is None:
        return False  # a rational x cannot solve Φx = b with transcendental Φ generically;
        # (not generated: exact certificates are only built at rational s)
    if mat_vec(A, c.x) != list(_rhs(c)):
        return False
    if c.holds is True:
        return all(v >= 0 for v in c.x)
    if c.holds is False:
        return any(v < 0 for v in c.x) and det_exact(A) != 0
    return False


def truth_farkas(c: Any) -> bool | None:
    A = _phi_rational(c)
    if A is None or len(c.y) != c.metric.n or len(c.rhs) != c.metric.n:
        return False
    return all(v >= 0 for v in mat_vec(A, c.y)) and sum(b * y for b, y in zip(_rhs(c), c.y)) < 0


def _witness_valid(w: Any, n: int) -> bool:
    return isinstance(w, int) and not isinstance(w, bool) and 0 <= w < n


def truth_enclosure(c: Any, lo: list[Any], hi: list[Any]) -> bool | None:
    n = c.metric.n
    if len(lo) != n or len(hi) != n or len(c.rhs) != n or not isinstance(c.holds, bool):
        return False
    tr = linear_truth(c.metric, _rhs(c), c.level)
    if tr.singular or tr.x is None:
        return False  # a ball/verified-float certificate claims a unique solution
    if tr.holds is None:
        return None
    if c.holds != tr.holds:
        return False
    out: bool | None = True
    for a, b, x in zip(lo, hi, tr.x):
        inside = contains(a, b, x)
        if inside is False:
            return False
        if inside is None:
            out = None
    if not c.holds:
        if not _witness_valid(c.witness, n):
            return False
        sign = contains(-10**40, 0, tr.x[c.witness])
        if sign is False:
            return False
        if sign is None:
            out = None
    return out


def truth_ball(c: Any) -> bool | None:
    if not isinstance(c.enclosure, tuple) or not all(isinstance(e, Enclosure) for e in c.enclosure):
        return False
    if any(e.lo > e.hi for e in c.enclosure):
        return False
    return truth_enclosure(c, [e.lo for e in c.enclosure], [e.hi for e in c.enclosure])


def truth_verified_float(c: Any) -> bool | None:
    lo, hi = np.asarray(c.enclosure.lo, dtype=float), np.asarray(c.enclosure.hi, dtype=float)
    if lo.shape != hi.shape or not np.all(np.isfinite(lo)) or not np.all(np.isfinite(hi)) or np.any(lo > hi):
        return False
    return truth_enclosure(c, [F(v) for v in lo], [F(v) for v in hi])


def _poly_at(coeffs_ascending: list[int], s: F) -> F:
    out = F(0)
    for a in reversed(coeffs_ascending):
        out = out * s + a
    return out


def truth_symbolic(c: Any) -> bool | None:
    sol, n = c.solution, c.metric.n
    if len(c.rhs) != n or len(sol.numerators) != n or not isinstance(c.holds, bool):
        return False
    q, k = exponent_matrix(c.metric)
    if sol.q != q:
        return False
    nums = [[int(a) for a in p.coeffs()] for p in sol.numerators]
    den = [int(a) for a in sol.denominator.coeffs()]
    if not any(den):
        return False
    deg = max(len(p) for p in nums + [den]) + max(max(r) for r in k) + 2
    b = _rhs(c)
    for s in range(2, deg + 3):  # a polynomial identity of degree < #points holds iff it holds there
        A = phi_at_s(k, F(s))
        Ns = [_poly_at(p, F(s)) for p in nums]
        if mat_vec(A, Ns) != [_poly_at(den, F(s)) * v for v in b]:
            return False
    tr = linear_truth(c.metric, b, c.level)
    if tr.holds is None or tr.x is None:
        return None
    if c.holds != tr.holds:
        return False
    if not c.holds:
        if not _witness_valid(c.witness, n):
            return False
        return contains(-10**40, 0, tr.x[c.witness])
    return True


def truth_kronecker(c: Any) -> bool | None:
    factors, frhs = tuple(c.factors), tuple(c.factor_rhs)
    if not factors or len(factors) != len(frhs) or not isinstance(c.holds, bool):
        return False
    fD = [rational_distance_matrix(f.metric) for f in factors]
    D = rational_distance_matrix(c.metric)
    sizes = [len(d) for d in fD]
    multis = list(itertools.product(*(range(s) for s in sizes)))
    if len(multis) != len(D):
        return False
    for (i, a), (j, b2) in itertools.product(enumerate(multis), repeat=2):
        if D[i][j] != sum(fD[k][a[k]][b2[k]] for k in range(len(fD))):
            return False
    for mi, v in zip(multis, c.rhs):
        p = F(1)
        for k, i in enumerate(mi):
            p *= frhs[k][i]
        if p != v:
            return False
    if any(all(v == 0 for v in b) or any(v < 0 for v in b) for b in frhs):
        return False
    verdict_out: bool | None = True
    for f, b in zip(factors, frhs):
        if f.level != c.level or tuple(f.rhs) != tuple(b):
            return False
        t = truth_of(f)
        if t is False:
            return False
        if t is None:
            verdict_out = None
    tr = linear_truth(c.metric, _rhs(c), c.level)
    if tr.holds is None:
        return None
    if c.holds != tr.holds:
        return False
    if not c.holds:
        # the lemma's "fails" direction needs every Φ_k nonsingular
        for f in factors:
            ftr = linear_truth(f.metric, _rhs(f), f.level)
            if ftr.singular:
                return False
    return verdict_out


def truth_of(c: Any) -> bool | None:
    return {ExactSolution: truth_exact_solution, FarkasCertificate: truth_farkas,
            BallCertificate: truth_ball, VerifiedFloatCertificate: truth_verified_float,
            SymbolicCertificate: truth_symbolic, KroneckerCertificate: truth_kronecker}[type(c)](c)


# ----------------------------------------------------------------------------- tamperings
def question_tamperings(c: Any) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    out += [(f"metric→{o.name}", replace(c, metric=o)) for o in other_metrics(c.metric)]
    out += [(f"level→{lv}", replace(c, level=lv)) for lv in other_levels(c.level)]
    out += [(f"rhs→{r}", replace(c, rhs=r)) for r in other_rhs(tuple(c.rhs))]
    return out


def verdict_tamperings(c: Any) -> list[tuple[str, Any]]:
    if isinstance(c, FarkasCertificate):
        return []  # its verdict is always "fails" (a property, not stored)
    out = [("holds flipped", replace(c, holds=not c.holds))]
    if hasattr(c, "witness"):
        n = c.metric.n
        out += [(f"witness→{w}", replace(c, witness=w)) for w in int_nudges(c.witness, n)]
        out += [("witness→None", replace(c, witness=None)), ("witness→True", replace(c, witness=True))]
        out += [(f"holds flipped, witness {w}", replace(c, holds=not c.holds, witness=w)) for w in range(n)]
    return out


def vector_tamperings(c: Any, name: str) -> list[tuple[str, Any]]:
    vec = tuple(getattr(c, name))
    out = []
    for i, v in enumerate(vec):
        for nv in nudges(v):
            out.append((f"{name}[{i}]→{nv}", replace(c, **{name: vec[:i] + (nv,) + vec[i + 1:]})))
    out.append((f"{name} scaled ×2", replace(c, **{name: tuple(2 * v for v in vec)})))
    out.append((f"{name} truncated", replace(c, **{name: vec[:-1]})))
    return out


def enclosure_tamperings(c: Any) -> list[tuple[str, Any]]:
    enc = tuple(c.enclosure)
    out = []
    for i, e in enumerate(enc):
        for side in ("lo", "hi"):
            for nv in nudges(getattr(e, side)):
                lo, hi = (nv, e.hi) if side == "lo" else (e.lo, nv)
                new = replace(e, lo=lo, hi=hi)  # unchecked: lo > hi reaches verify()
                out.append((f"enclosure[{i}].{side}→{nv}", replace(c, enclosure=enc[:i] + (new,) + enc[i + 1:])))
    out.append(("enclosure shifted +1", replace(c, enclosure=tuple(Enclosure(e.lo + 1, e.hi + 1) for e in enc))))
    out.append(("enclosure widened", replace(c, enclosure=tuple(Enclosure(e.lo - F(1, 10**6), e.hi + F(1, 10**6))
                                                                for e in enc))))
    out.append(("enclosure truncated", replace(c, enclosure=enc[:-1])))
    return out


def float_enclosure_tamperings(c: Any) -> list[tuple[str, Any]]:
    lo, hi = np.asarray(c.enclosure.lo, dtype=float), np.asarray(c.enclosure.hi, dtype=float)
    out = []
    for i in range(len(lo)):
        for side, arr in (("lo", lo), ("hi", hi)):
            for nv in float_nudges(float(arr[i])):
                a = arr.copy()
                a[i] = nv
                enc = replace(c.enclosure, **{side: a})
                out.append((f"enclosure.{side}[{i}]→{nv}", replace(c, enclosure=enc)))
    out.append(("enclosure shifted +1", replace(c, enclosure=replace(c.enclosure, lo=lo + 1, hi=hi + 1))))
    out.append(("enclosure widened", replace(c, enclosure=replace(c.enclosure, lo=lo - 1e-3, hi=hi + 1e-3))))
    out.append(("R zeroed", replace(c, R=np.zeros_like(c.R))))
    out.append(("R negated", replace(c, R=-np.asarray(c.R))))
    return out


def precision_tamperings(c: Any, name: str) -> list[tuple[str, Any]]:
    return [(f"{name}→{p!r}", replace(c, **{name: p})) for p in (1, 2, 0, -64, True, "64", 10**9)]


def run_all(tally: Tally, c: Any, extra: list[tuple[str, Any]]) -> None:
    judge(tally, f"{type(c).__name__} genuine on {c.metric.name}", c, True, genuine=True)
    for label, t in question_tamperings(c) + verdict_tamperings(c) + extra:
        full = f"{type(c).__name__} on {c.metric.name} at {c.level}: {label}"
        judge(tally, full, t, truth_of(t))


# ----------------------------------------------------------------------------- the tests
@settings(max_examples=examples(8), **SETTINGS)
@given(st.data())
def test_tamper_exact_and_farkas(data: Any) -> None:
    """Exact certificates at rational t; a Farkas vector y = Φ⁻¹e_w built for a failing x_w."""
    tally = Tally("exact+farkas")
    m = data.draw(small_metrics(5))
    b = data.draw(st.one_of(st.just(None), priors(m.n)))
    t = data.draw(rational_t(12))
    level = parse_level(t=t)
    res = solve_nonnegative(m, level, b, method="exact")
    c = res.certificate
    if isinstance(c, ExactSolution):
        run_all(tally, c, vector_tamperings(c, "x"))
    A = phi_at_s(exponent_matrix(m)[1], F(t))
    x = solve_exact(A, c.rhs)
    if x is not None and any(v < 0 for v in x):
        w = min(range(m.n), key=lambda i: x[i])
        y = solve_exact(A, [F(int(i == w)) for i in range(m.n)])
        assert y is not None
        far = FarkasCertificate(m, level, tuple(c.rhs), y)
        run_all(tally, far, vector_tamperings(far, "y"))
    tally.raise_if_failed()


@settings(max_examples=examples(5), **SETTINGS)
@given(st.data())
def test_tamper_ball_and_verified_float(data: Any) -> None:
    tally = Tally("ball+verified-float")
    m = data.draw(small_metrics(5))
    b = data.draw(st.one_of(st.just(None), priors(m.n)))
    level = data.draw(st.one_of(rational_t(12).map(lambda t: parse_level(t=t)),
                                rational_eps(8, 3).map(lambda e: parse_level(eps=e))))
    tr = linear_truth(m, b, level)
    if tr.singular or tr.holds is None:
        return
    for method in ("ball", "verified-float"):
        try:
            c = solve_nonnegative(m, level, b, method=method).certificate
        except PrecisionLimitReached:
            # balls and floats never decide an entry that is exactly 0 (found by a run with
            # EXACTDP_TAMPER_EXAMPLES=20: a star on 5 points at t = 1/4 has x_3 = 0); the truth
            # must show that zero (exact, or below the oracle's 10^-40 at an irrational t)
            zero = (0 in tr.x) if tr.exact else min(abs(v) for v in tr.x) < mpmath.mpf(10) ** -40
            assert zero, (m, b, level, method)
            continue
        if isinstance(c, BallCertificate):
            run_all(tally, c, enclosure_tamperings(c) + precision_tamperings(c, "precision"))
        elif isinstance(c, VerifiedFloatCertificate):
            run_all(tally, c, float_enclosure_tamperings(c) + precision_tamperings(c, "verify_precision"))
    tally.raise_if_failed()


def _coefficient_tamperings(c: Any) -> list[tuple[str, Any]]:
    sol = c.solution
    out = []
    for i, p in enumerate(sol.numerators):
        coeffs = [int(a) for a in p.coeffs()]
        for j in range(len(coeffs)):
            for delta in (1, -1, 10**20):
                new = list(coeffs)
                new[j] += delta
                nums = sol.numerators[:i] + (type(p)(new),) + sol.numerators[i + 1:]
                out.append((f"N_{i}[{j}] += {delta}", replace(c, solution=replace(sol, numerators=nums))))
    d = [int(a) for a in sol.denominator.coeffs()]
    for j in range(len(d)):
        new = list(d)
        new[j] += 1
        out.append((f"D[{j}] += 1", replace(c, solution=replace(sol, denominator=type(sol.denominator)(new)))))
    out.append(("numerators negated", replace(c, solution=replace(
        sol, numerators=tuple(-p for p in sol.numerators)))))
    out.append(("numerators and D negated", replace(c, solution=replace(
        sol, numerators=tuple(-p for p in sol.numerators), denominator=-sol.denominator))))
    return out


@settings(max_examples=examples(4), **SETTINGS)
@given(st.data())
def test_tamper_symbolic(data: Any) -> None:
    tally = Tally("symbolic")
    m = data.draw(small_metrics(4))
    b = data.draw(st.one_of(st.just(None), priors(m.n)))
    # at a rational s the symbolic method answers with an exact solution: use rational ε
    level = data.draw(rational_eps(8, 3).map(lambda e: parse_level(eps=e)))
    tr = linear_truth(m, b, level)
    if tr.singular or tr.holds is None:
        return
    c = solve_nonnegative(m, level, b, method="symbolic").certificate
    assert isinstance(c, SymbolicCertificate), type(c)
    # the solution of another question (same size) swapped in
    other = solve_nonnegative(data.draw(st.sampled_from(other_metrics(m))), level, b, method="symbolic")
    swaps = [("solution of another metric", replace(c, solution=other.certificate.solution))]
    run_all(tally, c, _coefficient_tamperings(c) + precision_tamperings(c, "precision") + swaps)
    tally.raise_if_failed()


KRON = [(hamming(2, 2), (2, 2)), (hamming(3, 2), (3, 3)), (grid(2, 3, norm="manhattan"), (2, 3)),
        (hamming(2, 3), (2, 2, 2))]


@settings(max_examples=examples(4), **SETTINGS)
@given(st.data())
def test_tamper_kronecker(data: Any) -> None:
    """Product questions (Hamming, Manhattan grids) with b = 1 or a product prior."""
    tally = Tally("kronecker")
    m, sizes = data.draw(st.sampled_from(KRON))
    use_prior = data.draw(st.booleans())
    fp = [data.draw(priors(k, allow_zeros=False)) for k in sizes] if use_prior else None
    b = None if fp is None else [F(1) * np.prod([p[i] for p, i in zip(fp, mi)])
                                 for mi in itertools.product(*(range(k) for k in sizes))]
    level = data.draw(st.one_of(rational_t(10).map(lambda t: parse_level(t=t)),
                                rational_eps(6, 3).map(lambda e: parse_level(eps=e))))
    res = solve_nonnegative(m, level, b)
    c = res.certificate
    if not isinstance(c, KroneckerCertificate):
        return
    extra: list[tuple[str, Any]] = []
    fs = tuple(c.factors)
    frhs = tuple(c.factor_rhs)
    # factor certificates swapped between positions, dropped, duplicated, flipped
    for i, j in itertools.permutations(range(len(fs)), 2):
        g = list(fs)
        g[i], g[j] = g[j], g[i]
        extra.append((f"factors {i}<->{j}", replace(c, factors=tuple(g))))
    extra.append(("factor dropped", replace(c, factors=fs[:-1], factor_rhs=frhs[:-1])))
    for i, f in enumerate(fs):
        extra.append((f"factor {i} verdict flipped", replace(c, factors=fs[:i] + (replace(f, holds=not f.holds),)
                                                            + fs[i + 1:])))
        # the same factor question at another level / with the uniform rhs / another metric
        n_k = f.metric.n
        for lv in other_levels(level)[:2]:
            g = solve_nonnegative(f.metric, lv, list(f.rhs)).certificate
            extra.append((f"factor {i} from level {lv}", replace(c, factors=fs[:i] + (g,) + fs[i + 1:])))
        uni = tuple(F(1, n_k) for _ in range(n_k))
        if tuple(f.rhs) != uni:
            g = solve_nonnegative(f.metric, level, list(uni)).certificate
            extra.append((f"factor {i} uniform-prior certificate", replace(c, factors=fs[:i] + (g,) + fs[i + 1:])))
            extra.append((f"factor {i} uniform-prior certificate and rhs",
                          replace(c, factors=fs[:i] + (g,) + fs[i + 1:], factor_rhs=frhs[:i] + (uni,) + frhs[i + 1:])))
        g = solve_nonnegative(discrete(n_k, 2), level, list(f.rhs)).certificate
        extra.append((f"factor {i} of discrete({n_k}, 2)", replace(c, factors=fs[:i] + (g,) + fs[i + 1:])))
        for r in other_rhs(tuple(frhs[i]))[:3]:
            extra.append((f"factor_rhs[{i}]→{r}", replace(c, factor_rhs=frhs[:i] + (r,) + frhs[i + 1:])))
    run_all(tally, c, extra)
    tally.raise_if_failed()


# ----------------------------------------------------------------------------- JSON text
def _leaves(doc: Any, path: tuple[Any, ...] = ()) -> Any:
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from _leaves(v, path + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from _leaves(v, path + (i,))
    else:
        yield path, doc


def _containers(doc: Any, path: tuple[Any, ...] = ()) -> Any:
    if isinstance(doc, (dict, list)):
        yield path, doc
        for k, v in (doc.items() if isinstance(doc, dict) else enumerate(doc)):
            yield from _containers(v, path + (k,))


def _set(doc: Any, path: tuple[Any, ...], value: Any) -> Any:
    """A thunk building the edited copy (only the sampled edits are ever built)."""
    return lambda: _set_now(doc, path, value)


def _set_now(doc: Any, path: tuple[Any, ...], value: Any) -> Any:
    new = copy.deepcopy(doc)
    cur = new
    for k in path[:-1]:
        cur = cur[k]
    cur[path[-1]] = value
    return new


def json_tamperings(doc: Any) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    for path, v in _leaves(doc):
        if isinstance(v, bool):
            out.append((f"{path} flipped", _set(doc, path, not v)))
        elif isinstance(v, int):
            out += [(f"{path}→{w}", _set(doc, path, w)) for w in (v + 1, v - 1, 0, -v) if w != v]
        elif isinstance(v, str):
            try:
                r = F(v)
            except (ValueError, ZeroDivisionError):
                if path[-1] == "kind" or path == ("kind",):
                    out += [(f"kind→{k}", _set(doc, path, k)) for k in
                            ("exact-solution", "farkas", "ball", "verified-float", "symbolic", "kronecker") if k != v]
                elif v in ("holds", "fails"):
                    out.append((f"{path}→flipped", _set(doc, path, "fails" if v == "holds" else "holds")))
                continue
            out += [(f"{path}→{w}", _set(doc, path, write_rational(w))) for w in nudges(r)]
    for path, c in _containers(doc):
        if isinstance(c, dict):
            for k in list(c)[:6]:
                d = {kk: vv for kk, vv in c.items() if kk != k}
                out.append((f"{path}: key {k!r} deleted", _set(doc, path, d) if path else (lambda d=d: d)))
                d = {(kk + "_x" if kk == k else kk): vv for kk, vv in c.items()}
                out.append((f"{path}: key {k!r} renamed", _set(doc, path, d) if path else (lambda d=d: d)))
        elif isinstance(c, list) and len(c) > 1 and path:
            out.append((f"{path} reversed", _set(doc, path, list(reversed(c)))))
    return out


def judge_json(tally: Tally, label: str, text: str, truth_of_doc: Any) -> None:
    try:
        verdict = call_with_timeout(lambda: verify_json(text), 10)
    except VerifyTimeout:
        tally.failures.append(f"{label}: verify_json did not return within 10 s")
        return
    except InvalidArgument:
        tally.tried += 1  # malformed: rejected (exit code 3), always acceptable
        return
    except Exception as exc:  # noqa: BLE001 - a malformed document must give InvalidArgument
        tally.failures.append(f"{label}: verify_json raised {type(exc).__name__}: {exc}")
        return
    if not verdict.verified:
        tally.tried += 1
        return
    truth = truth_of_doc(text)
    judge(tally, label, _Verified(), truth)


class _Verified:
    """Stands for a document the kernel accepted (``judge`` then compares with the truth)."""

    def verify(self) -> bool:
        return True


def _doc_truth(text: str) -> bool | None:
    """Truth of an accepted document's claim: the enclosure kinds are judged on the exact
    intervals the kernel read (a verified-float document may state non-double endpoints,
    which the Python certificate type cannot hold); the others on the rebuilt certificate."""
    claim = read_linear(loads(text))
    if claim.kind in ("ball", "verified-float"):
        ev = claim.evidence
        return truth_ball(SimpleNamespace(metric=claim.metric, level=claim.level, rhs=claim.rhs,
                                          holds=claim.holds, witness=ev.get("witness"),
                                          enclosure=tuple(ev["enclosure"])))
    return truth_of(certificate_from_json(loads(text)))


@settings(max_examples=examples(2), **SETTINGS)
@given(st.data())
def test_tamper_json_text(data: Any) -> None:
    """Engine certificates → JSON text → every number edited, keys deleted/renamed, the kind
    changed, lists reversed → ``verify_json`` must reject unless the edited claim is true."""
    tally = Tally("engine JSON")
    m = data.draw(small_metrics(4))
    b = data.draw(st.one_of(st.just(None), priors(m.n)))
    level = data.draw(st.one_of(rational_t(12).map(lambda t: parse_level(t=t)),
                                rational_eps(8, 3).map(lambda e: parse_level(eps=e))))
    tr = linear_truth(m, b, level)
    if tr.singular or tr.holds is None:
        return
    methods = ["ball", "verified-float", "symbolic"] + (["exact"] if level.t is not None else [])
    rnd = data.draw(st.randoms(use_true_random=False))
    for method in methods:
        c = solve_nonnegative(m, level, b, method=method).certificate
        text = dumps(c.to_json())
        ok = verify_json(text)
        tally.genuine_checked += 1
        if not ok.verified:
            tally.genuine_rejected += 1
            tally.failures.append(f"{method}: genuine JSON rejected: {ok.reason}")
        again = certificate_from_json(loads(text))
        if dumps(again.to_json()) != text:
            tally.failures.append(f"{method}: JSON round trip is not exact")
        tams = json_tamperings(loads(text))
        for label, build in rnd.sample(tams, min(len(tams), examples(12))):
            judge_json(tally, f"{method} JSON: {label}", dumps(build()), _doc_truth)
    tally.raise_if_failed()
