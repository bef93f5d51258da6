"""Re-check a ``set-privacy`` document: the Laplacian Perturbation Mechanism on finite sets.

Question: point sets X, Y ⊂ Qⁿ (lists of points, strictly increasing), a union K of boxes,
the norm (``l1``/``linf``, so every distance is rational), the bound (``paper``,
``hausdorff``, ``points``, ``points_sharp``) and the level. Claim: the capacity
functionals T_X = T_{M(X)}(K), T_Y as exp-polynomials Σ c·e^{−ε·r} (``[[r, c], ...]``,
r increasing, c ≠ 0), d_H(X, Y), diam K and the verdict of T_X ≤ factor·T_Y. The kernel
recomputes each from the question — the capacities by coordinate compression (every cell
of the grid of box endpoints lies inside the union or outside it; Laplace CDF
F(x) = ½e^{εx} for x < 0, 1 − ½e^{−εx} for x ≥ 0: ``proofs/sets_laplace_capacity.py``) —
and decides the sign of factor·T_Y − T_X: identically zero; at rational t = e^{−ε}
exactly, s = e^{−ε/q} being a root of the irreducible x^d − u (d the least with u = s^d
rational, Capelli), within ``MAX_EXACT_BITS``; else in arb balls (undecided:
PrecisionLimitReached).

The set functionals on their own (one table-driven family, :func:`check_set_functional_document`):
``set-hausdorff`` (question X, Y, norm ``l1``/``l2``/``linf``; claim ``key`` — d_H for ℓ1/ℓ∞,
d_H² for ℓ2 — and a ``witness`` of the ``direction``'s source set with its ``nearest`` point
of the other set), ``set-diameter`` (question X, norm; claim ``key`` and the farthest pair
``a``, ``b``) and ``set-capacity`` (question X, K, level; claim ``T`` = T_{M(X)}(K) as an
exp-polynomial, which the kernel recomputes as above, and ``enclosure`` {lo, hi} of its
value at the level, both signs T − lo, hi − T decided like the verdict's).

>>> doc = {"schema": "exactdp-certificate", "version": 1, "kind": "set-privacy",
...        "question": {"X": [["0"], ["1/4"]], "Y": [["0"]], "norm": "l1", "bound": "paper",
...                     "K": [{"lower": ["0"], "upper": ["1/4"]}], "level": {"eps": "1"}},
...        "claim": {"verdict": "fails", "d_H": "1/4", "diam_K": "1/4",
...                  "T_X": [["0", "1"], ["1/4", "-1"]], "T_Y": [["0", "1/2"], ["1/4", "-1/2"]]},
...        "evidence": {}}
>>> check_set_privacy_document(doc)
True
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable
from fractions import Fraction
from typing import Any, cast

from flint import arb, fmpq

from exactdp.arithmetic.ball import MAX_PREC
from exactdp.arithmetic.rationals import to_fmpq
from exactdp.errors import InstanceTooLarge, InvalidArgument, PrecisionLimitReached
from exactdp.kernel.jsonio import (
    read_enclosure,
    read_envelope,
    read_list,
    read_object,
    read_rational,
    read_str,
    read_verdict,
    write_rational,
)
from exactdp.kernel.privacy import sign_in_balls
from exactdp.kernel.question import read_level
from exactdp.kinds import CertificateKind, Verdict, proved_by
from exactdp.spaces.levels import PrivacyLevel

__all__ = ["SET_PRIVACY", "SET_FUNCTIONALS", "check_set_functional_document", "exponent_check", "pair_work",
           "MAX_PAIR_WORK", "MAX_WORK", "MAX_TERMS", "MAX_POINTS", "MAX_DIM", "capacity", "capacity_work",
           "check_set_privacy_document", "write_exp_poly", "read_boxes"]

SET_PRIVACY = CertificateKind.SET_PRIVACY.value
SET_HAUSDORFF, SET_DIAMETER, SET_CAPACITY = (CertificateKind.SET_HAUSDORFF.value, CertificateKind.SET_DIAMETER.value,
                                             CertificateKind.SET_CAPACITY.value)
SET_FUNCTIONALS = (SET_HAUSDORFF, SET_DIAMETER, SET_CAPACITY)
#: Largest Σ cells × boxes of the two coordinate-compression grids (InstanceTooLarge above).
MAX_WORK = 2_000_000
#: Largest Σ Π_i (2·cells_i + 1) bounding the product terms of the per-cell Laplace CDF
#: differences (up to 3ⁿ per cell in n dimensions: InstanceTooLarge above).
MAX_TERMS = 100_000
#: Largest span·bits(u) of the exact evaluation at rational t (else balls).
MAX_EXACT_BITS = 4_000_000
MAX_POINTS, MAX_DIM, MAX_DEGREE = 500, 16, 100_000
#: Largest pair work of a ``set-hausdorff`` / ``set-diameter`` check (:func:`pair_work`):
#: exact keys computed × dimension × (1 + coordinate bits // 64)² (InstanceTooLarge above).
MAX_PAIR_WORK = 10_000_000
#: Largest |ε·r| of a term e^{−ε·r} (arb cannot separate e^{−10⁴⁰⁰} from 0).
MAX_EXPONENT = 10**15
BOUNDS = ("paper", "hausdorff", "points", "points_sharp")
ExpPoly = dict[Fraction, Fraction]  # r -> c of Σ c·e^{−ε·r}
Boxes = list[tuple[tuple[Fraction, ...], tuple[Fraction, ...]]]  # (lower, upper) corners


def write_exp_poly(p: ExpPoly) -> list[list[str]]:
    """``[[r, c], ...]``, r increasing, zero terms dropped."""
    return [[write_rational(r), write_rational(c)] for r, c in sorted(p.items()) if c]


def _exp_poly(value: Any, where: str) -> ExpPoly:
    pairs = [read_list(v, where, 2) for v in read_list(value, where, None, MAX_DEGREE)]
    out = {read_rational(r, where): read_rational(c, where) for r, c in pairs}
    if write_exp_poly(out) != value:
        raise InvalidArgument(f"{where}: exponents must increase strictly, coefficients ≠ 0.")
    return out


def _points(value: Any, where: str, dim: int | None = None) -> list[tuple[Fraction, ...]]:
    rows = read_list(value, where, None, MAX_POINTS)
    pts = [tuple(read_rational(c, where) for c in read_list(p, where, dim)) for p in rows]
    if not pts or not 1 <= len(pts[0]) <= MAX_DIM or any(len(p) != len(pts[0]) for p in pts) \
            or any(b <= a for a, b in zip(pts, pts[1:])):
        raise InvalidArgument(f"{where}: need 1…{MAX_POINTS} points of one dimension 1…"
                              f"{MAX_DIM}, strictly increasing (sorted, no repeats).")
    return pts


def _collect(terms: Iterable[tuple[Fraction, Fraction]]) -> ExpPoly:
    """Σ c·e^{−ε·r} over the (r, c) terms, like exponents merged, zero terms dropped."""
    out: ExpPoly = {}
    for r, c in terms:
        out[r] = out.get(r, Fraction(0)) + c
    return {r: c for r, c in out.items() if c}


def _add(*ps: ExpPoly) -> ExpPoly:
    return _collect(t for p in ps for t in p.items())


def _mul(a: ExpPoly, b: ExpPoly) -> ExpPoly:
    return _collect((r + s, c * d) for (r, c), (s, d) in itertools.product(a.items(), b.items()))


def _cdf(x: Fraction) -> ExpPoly:
    return {-x: Fraction(1, 2)} if x < 0 else _add({Fraction(0): Fraction(1)}, {x: Fraction(-1, 2)})


def capacity_work(K: Boxes, *sets: list[tuple[Fraction, ...]]) -> int:
    """Cells × boxes of the grids :func:`capacity` visits for each point set (InstanceTooLarge
    beyond :data:`MAX_WORK` cell-box tests, :data:`MAX_TERMS` product terms, or the sizes
    the kernel reads, before any grid is built)."""
    n = len(K[0][0])
    if max(len(K), *map(len, sets)) > MAX_POINTS or n > MAX_DIM:
        raise InstanceTooLarge(f"point sets of sizes {[len(Z) for Z in sets]}, {len(K)} boxes, dimension {n}:"
                               f" a set document allows at most MAX_POINTS = {MAX_POINTS}"
                               f" points or boxes and dimension MAX_DIM = {MAX_DIM}.")
    cells = [[len({b[s][i] - x[i] for x in Z for b in K for s in (0, 1)}) - 1 for i in range(n)] for Z in sets]
    work = sum(math.prod(c) * len(Z) * len(K) for c, Z in zip(cells, sets))
    terms = sum(math.prod(2 * k + 1 for k in c) for c in cells)  # ≤ 3 terms per CDF difference
    if work > MAX_WORK or terms > MAX_TERMS:
        raise InstanceTooLarge(f"the capacity grids need {work} cell-box tests (MAX_WORK = {MAX_WORK}) and up to "
                               f"{terms} product terms in dimension {n} (MAX_TERMS = {MAX_TERMS}); use fewer points, "
                               "boxes or dimensions.")
    return work


@proved_by("sets_laplace_capacity")
def capacity(X: list[tuple[Fraction, ...]], K: Boxes) -> ExpPoly:
    """T_{M(X)}(K) = P[w ∈ ∪ (B − x)] for w with i.i.d. Laplace(0, 1/ε) coordinates, by
    coordinate compression (proofs/sets_laplace_capacity.py; the caller bounds the work
    with :func:`capacity_work`)."""
    boxes = [tuple(zip(*(tuple(v - c for v, c in zip(corner, x)) for corner in b)))
             for x in X for b in K]  # per box: ((lo_i, hi_i) for each axis i)
    axes = [sorted({e for b in boxes for e in b[i]}) for i in range(len(X[0]))]
    probs = [[_add(_cdf(v), _mul(_cdf(u), {Fraction(0): Fraction(-1)})) for u, v in zip(ax, ax[1:])] for ax in axes]
    total: list[ExpPoly] = []
    for cell in itertools.product(*(range(len(ax) - 1) for ax in axes)):
        if any(all(b[i][0] <= axes[i][k] and axes[i][k + 1] <= b[i][1] for i, k in enumerate(cell)) for b in boxes):
            p: ExpPoly = {Fraction(0): Fraction(1)}
            for i, k in enumerate(cell):
                p = _mul(p, probs[i][k])
            total.append(p)
    return _add(*total)


def pair_work(X: list[tuple[Fraction, ...]], Y: list[tuple[Fraction, ...]] | None = None) -> int:
    """The work of the exact pair comparisons of a ``set-diameter`` (Y None: |X|(|X|+1)/2
    keys) or ``set-hausdorff`` check (2|X||Y| + max(|X|, |Y|) keys): keys × dimension ×
    (1 + b // 64)², b the most bits (numerator + denominator) of a coordinate — the cost of
    one exact product of two such numbers. InstanceTooLarge beyond :data:`MAX_PAIR_WORK`,
    before any pair is compared (the writers call this same function).

    >>> pair_work([(Fraction(0),), (Fraction(1, 3),)])
    3
    """
    sets = [X] if Y is None else [X, Y]
    keys = len(X) * (len(X) + 1) // 2 if Y is None else 2 * len(X) * len(Y) + max(len(X), len(Y))
    bits = max(c.numerator.bit_length() + c.denominator.bit_length() for S in sets for p in S for c in p)
    work = keys * len(X[0]) * (1 + bits // 64) ** 2
    if work > MAX_PAIR_WORK:
        raise InstanceTooLarge(f"the set functional needs {keys} exact distance keys in dimension {len(X[0])} with "
                               f"coordinates of up to {bits} bits: work {work} > MAX_PAIR_WORK = {MAX_PAIR_WORK}; "
                               "use fewer points, fewer dimensions or shorter coordinates.")
    return work


def exponent_check(m: Iterable[Fraction], level: PrivacyLevel) -> None:
    """InstanceTooLarge when a term e^{−ε·r}, r in ``m``, has |ε·r| ≥ :data:`MAX_EXPONENT`
    (arb cannot separate it from 0; the capacity writer calls this same check up front)."""
    top = max(m, key=abs, default=Fraction(0))
    if not arb(to_fmpq(abs(top))) * level.eps_ball() < MAX_EXPONENT:
        raise InstanceTooLarge(f"a term e^(−ε·r) with ε = {level.eps} and r = {top}"
                               f" has |ε·r| beyond MAX_EXPONENT = {MAX_EXPONENT}: arb cannot "
                               "separate it from 0; use a smaller ε or smaller coordinates.")


def _exact_sign(m: ExpPoly, t: Fraction, level: PrivacyLevel) -> int | None:
    """Sign of p(s) = Σ c·s^{q(r − lo)}, s = t^{1/q}, exactly: p mod (x^d − u) with
    u = s^d = t^{1/k} rational for the largest k | q (a rational t^{1/k} ≠ 1 needs k ≤ the
    bits of t). x^d − u is irreducible (Capelli: u > 0 is no p-th power, else s^{d/p} would
    be rational), so p(s) = 0 iff the remainder is 0. None: nonzero and s irrational, or
    beyond MAX_DEGREE / MAX_EXACT_BITS (the caller uses balls).
    Proof: proofs/kernel_sets_exact_sign.py."""
    q, lo = math.lcm(*(r.denominator for r in m)), min(m)
    span = int((max(m) - lo) * q)
    bits_t = max(t.numerator.bit_length(), t.denominator.bit_length())
    if span > MAX_DEGREE:
        return None
    k = max(k for k in range(1, min(q, bits_t) + 1) if q % k == 0 and level.s_rational(k))
    d, u = q // k, level.s_rational(k)
    assert u is not None  # k = 1 gives u = t
    if (span // d) * max(u.numerator.bit_length(), u.denominator.bit_length()) > MAX_EXACT_BITS:
        return None
    rem: dict[int, fmpq] = {}  # coefficient of s^j, j < d (d may be 2⁶⁰: no dense list)
    power, at = fmpq(1), 0
    for r, c in sorted(m.items()):
        e = int((r - lo) * q)
        power, at = power * to_fmpq(u) ** (e // d - at), e // d
        rem[e % d] = rem.get(e % d, fmpq(0)) + to_fmpq(c) * power
    if d > 1:
        return 0 if not any(rem.values()) else None
    return (rem[0] > 0) - (rem[0] < 0)


def _sign(m: ExpPoly, level: PrivacyLevel) -> int:
    """Sign of Σ c·e^{−ε·r} at the level: exact when zero or t = e^{−ε} is rational
    (:func:`_exact_sign`), else (and beyond its limits) certified in arb balls."""
    if not m:
        return 0
    exact = None if level.t is None else _exact_sign(m, level.t, level)
    if exact is not None:
        return exact
    exponent_check(m, level)
    sign = sign_in_balls(lambda: sum((arb(to_fmpq(c)) * (-level.eps_ball() * arb(to_fmpq(r))).exp()
                                      for r, c in m.items()), arb(0)), MAX_PREC)
    if sign is None:
        raise PrecisionLimitReached(f"the sign of the set-privacy margin (factor·T_Y − T_X) at {level} is undecided "
                                    f"in arb balls up to {MAX_PREC} bits; the kernel decides it exactly only at a "
                                    f"rational t = e^(−ε) within MAX_DEGREE = {MAX_DEGREE} and MAX_EXACT_BITS = "
                                    f"{MAX_EXACT_BITS}: this document cannot be verified.")
    return sign


def read_boxes(value: Any, dim: int) -> Boxes:
    """``question.K``: 1…MAX_POINTS boxes {lower, upper} of dimension ``dim``, lower < upper."""
    K: Boxes = []
    for b in read_list(value, "question.K", None, MAX_POINTS):
        box = read_object(b, "question.K[]", ("lower", "upper"))
        lo, hi = (_points([box[k]], f"question.K[].{k}")[0] for k in ("lower", "upper"))
        if len(lo) != dim or len(hi) != dim:
            raise InvalidArgument(f"question.K: a box has corners of dimension {len(lo)} and "
                                  f"{len(hi)}; the points have dimension {dim}.")
        if any(u >= v for u, v in zip(lo, hi)):
            raise InvalidArgument(f"question.K: need lower < upper in every axis; got {box}.")
        K.append((lo, hi))
    if not K:
        raise InvalidArgument("question.K: need at least one box.")
    return K


def _key(a: tuple[Fraction, ...], b: tuple[Fraction, ...], norm: str) -> Fraction:
    """Exact comparison key: the distance (ℓ1, ℓ∞) or the squared distance (ℓ2)."""
    g = [abs(u - v) for u, v in zip(a, b)]
    return max(g) if norm == "linf" else sum((x * x for x in g) if norm == "l2" else g, Fraction(0))


def check_set_privacy_document(doc: Any) -> bool:
    """Re-decide every claim of a ``set-privacy`` document (malformed: InvalidArgument)."""
    env = read_envelope(doc)
    q = read_object(env.question, "question", ("X", "Y", "K", "norm", "bound", "level"))
    c = read_object(env.claim, "claim", ("verdict", "T_X", "T_Y", "d_H", "diam_K"))
    read_object(env.evidence, "evidence", ())
    X = _points(q["X"], "question.X")
    Y = _points(q["Y"], "question.Y", len(X[0]))
    K = read_boxes(q["K"], len(X[0]))
    norm = read_str(q["norm"], "question.norm", ("l1", "linf"))
    bound = read_str(q["bound"], "question.bound", BOUNDS)
    level = cast(PrivacyLevel, read_level(q["level"]))  # not ranges=True: a PrivacyLevel
    capacity_work(K, X, Y)
    verdict = read_verdict(c["verdict"], "claim.verdict")
    T_X, T_Y = _exp_poly(c["T_X"], "claim.T_X"), _exp_poly(c["T_Y"], "claim.T_Y")
    near = [min(_key(x, y, norm) for y in Y) for x in X]
    d_H = max(near + [min(_key(x, y, norm) for x in X) for y in Y])
    diam = max(_key(tuple(max(A[1][i] - B[0][i], B[1][i] - A[0][i]) for i in range(len(A[0]))),
                     (Fraction(0),) * len(A[0]), norm) for A in K for B in K)
    if (read_rational(c["d_H"], "claim.d_H"), read_rational(c["diam_K"], "claim.diam_K")) != (
            d_H, diam) or capacity(X, K) != T_X or capacity(Y, K) != T_Y:
        return False
    terms = {"paper": [(1, d_H + diam)], "hausdorff": [(1, d_H)], "points": [(len(X), d_H)],
             "points_sharp": [(1, b) for b in near]}[bound]  # factor Σ a·e^{ε·β}
    margin = _add(*(_mul(T_Y, {-beta: Fraction(a)}) for a, beta in terms), _mul(T_X, {Fraction(0): Fraction(-1)}))
    return verdict is (Verdict.HOLDS if _sign(margin, level) >= 0 else Verdict.FAILS)


def _witness(value: Any, where: str, S: list[tuple[Fraction, ...]]) -> tuple[Fraction, ...] | None:
    """A claimed point, read exactly; None when it is not a point of S (the claim fails)."""
    p = _points([value], where, len(S[0]))[0]
    return p if p in S else None


def check_set_functional_document(doc: Any) -> bool:
    """Re-derive a ``set-hausdorff``, ``set-diameter`` or ``set-capacity`` claim from its
    question (malformed: InvalidArgument; beyond the limits: InstanceTooLarge)."""
    env = read_envelope(doc)
    kind = read_str(env.kind, "kind", SET_FUNCTIONALS)
    read_object(env.evidence, "evidence", ())
    q = read_object(env.question, "question", {SET_HAUSDORFF: ("X", "Y", "norm"), SET_DIAMETER: ("X", "norm"),
                                               SET_CAPACITY: ("X", "K", "level")}[kind])
    c = read_object(env.claim, "claim", {SET_HAUSDORFF: ("key", "witness", "nearest", "direction"),
                                         SET_DIAMETER: ("key", "a", "b"), SET_CAPACITY: ("T", "enclosure")}[kind])
    X = _points(q["X"], "question.X")
    if kind == SET_CAPACITY:
        K, level = read_boxes(q["K"], len(X[0])), cast(PrivacyLevel, read_level(q["level"]))
        capacity_work(K, X)
        T, box = _exp_poly(c["T"], "claim.T"), read_enclosure(c["enclosure"], "claim.enclosure")
        return capacity(X, K) == T and _sign(_add(T, {Fraction(0): -box.lo}), level) >= 0 \
            and _sign(_add({Fraction(0): box.hi}, _mul(T, {Fraction(0): Fraction(-1)})), level) >= 0
    norm, key = read_str(q["norm"], "question.norm", ("l1", "l2", "linf")), read_rational(c["key"], "claim.key")
    if kind == SET_DIAMETER:  # the farthest pair of X (any pair, incl. a = b for one point)
        pair_work(X)
        a, b = _witness(c["a"], "claim.a", X), _witness(c["b"], "claim.b", X)
        most = max(_key(u, v, norm) for i, u in enumerate(X) for v in X[i:])
        return a is not None and b is not None and _key(a, b, norm) == key == most
    Y = _points(q["Y"], "question.Y", len(X[0]))
    pair_work(X, Y)
    src, dst = (X, Y) if read_str(c["direction"], "claim.direction", ("X->Y", "Y->X")) == "X->Y" else (Y, X)
    w, nb = _witness(c["witness"], "claim.witness", src), _witness(c["nearest"], "claim.nearest", dst)
    d_H = max(min(_key(u, v, norm) for v in B) for A, B in ((X, Y), (Y, X)) for u in A)
    return w is not None and nb is not None and _key(w, nb, norm) == key == d_H == min(_key(w, v, norm) for v in dst)
