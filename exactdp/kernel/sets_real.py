"""Re-check the certified (real-coordinate) set documents: ``set-hausdorff-real``,
``set-capacity-real`` and ``set-privacy-real``.

A coordinate is a rational ``"p/q"`` or a real algebraic number of degree ≥ 2 written
``{"minimal_polynomial": [integers, descending], "isolating_interval": {"lo", "hi"}}`` —
the format of the threshold documents' s*. The kernel checks the polynomial is a
minimal polynomial (degree 2…MAX_REAL_DEGREE, primitive, leading coefficient > 0,
irreducible: ``min_poly_ok``) and that lo < hi hold exactly one root (Sturm), then encloses
the coordinate by bisecting on the sign change (no rational root, every root simple:
``proofs/kernel_sets_real.py``). Two coordinates are equal iff both are the same rational,
or they have the same minimal polynomial and it changes sign on the intersection of their
intervals. Sizes are refused up front (InstanceTooLarge): MAX_REAL_POINTS, MAX_DIM, degree,
coefficient, interval-end and rational-coordinate bits, then :func:`real_work` (read and
refinement budgets of the distinct algebraic coordinates, each refined once per check, in
units that follow degree, bits and precision) and MAX_IE_BOXES — the writer applies the same
functions; :func:`ie_check` bounds the inclusion–exclusions (MAX_IE_BOXES, MAX_IE_WORK).
A polynomial of degree < 2 is malformed.

Question: point sets ``X`` (and ``Y``) — 1…MAX_REAL_POINTS distinct points of one
dimension 1…MAX_DIM —, ``norm`` (``l1``/``l2``/``linf``), rational boxes ``K`` and the level.
Claim: an enclosure {lo, hi} of d_H(X, Y) (hausdorff; when X = Y exactly, d_H = 0 and any
claim with lo ≤ 0 ≤ hi holds, [0, 0] included) or of T_{M(X)}(K) (capacity); for
privacy the ``verdict`` of T_X ≤ factor·T_Y and enclosures of ``d_H``, ``diam_K``,
``factor`` (``paper`` e^{ε(d_H + diam K)}, ``hausdorff`` e^{ε d_H}, ``points`` |X|·e^{ε d_H}),
``T_X`` and ``T_Y``. Evidence: ``precision`` (53…MAX_REAL_PREC bits). At that precision the
kernel computes its own ball of every quantity — distances from coordinate balls, d_H as
max/min of balls, capacities by inclusion–exclusion over ≤ MAX_IE_BOXES translated boxes
with the Laplace CDF (``proofs/sets_laplace_capacity.py``) — and accepts a claimed
enclosure only when it contains that ball; the verdict must be the sign of the margin
factor·T_Y − T_X (undecided: "holds" is proved only when X = Y exactly, as then
factor ≥ 1 gives T_X ≤ factor·T_Y; else PrecisionLimitReached).
"""

from __future__ import annotations

import functools
import itertools
from fractions import Fraction
from typing import Any, cast

from flint import arb, fmpq

from exactdp.arithmetic.ball import ball_sign, workprec
from exactdp.arithmetic.interval import Enclosure
from exactdp.arithmetic.rationals import to_fmpq
from exactdp.errors import InstanceTooLarge, InvalidArgument, PrecisionLimitReached
from exactdp.kernel.jsonio import (
    read_enclosure,
    read_envelope,
    read_int,
    read_list,
    read_object,
    read_rational,
    read_str,
    read_verdict,
)
from exactdp.kernel.question import read_level
from exactdp.kernel.read_common import read_int_poly
from exactdp.kernel.sets import MAX_DIM, read_boxes
from exactdp.kernel.threshold_poly import count_roots, int_poly, min_poly_ok, sign_at
from exactdp.kinds import CertificateKind, Verdict, proved_by
from exactdp.spaces.levels import PrivacyLevel

__all__ = ["REAL_SET_KINDS", "check_real_set_document", "real_work", "MAX_REAL_POINTS", "MAX_REAL_DEGREE",
           "MAX_COEFF_BITS", "MAX_END_BITS", "MAX_REFINE_WORK", "MAX_READ_WORK", "MAX_IE_BOXES", "MAX_REAL_PREC",
           "MAX_RATIONAL_BITS", "MAX_IE_WORK", "ie_check", "Coordinate"]

REAL_SET_KINDS = (CertificateKind.SET_HAUSDORFF_REAL.value, CertificateKind.SET_CAPACITY_REAL.value,
                  CertificateKind.SET_PRIVACY_REAL.value)
MAX_REAL_POINTS, MAX_REAL_DEGREE, MAX_COEFF_BITS, MAX_END_BITS = 64, 32, 256, 256
#: Largest Σ (degree + 1)³·(coefficient bits + end bits + 64) of the distinct algebraic coordinates.
MAX_READ_WORK = 30_000_000
#: Largest refinement work of :func:`real_work` (about 0.3–1.5 ns a unit; InstanceTooLarge above).
MAX_REFINE_WORK = 12_000_000_000
#: Most bits of a rational coordinate's numerator or denominator.
MAX_RATIONAL_BITS = 2048
#: Most translated boxes |X|·|K| of the inclusion–exclusion (2^m − 1 intersections).
MAX_IE_BOXES = 14
#: Largest Σ 2^m·dimension·(prec + 64) over the inclusion–exclusions (about 25 ns a unit).
MAX_IE_WORK = 400_000_000
MAX_REAL_PREC = 4096
#: A coordinate: a rational, or (minimal polynomial descending, isolating interval).
Coordinate = Fraction | tuple[tuple[int, ...], Enclosure]
Point = tuple[Coordinate, ...]
_QUESTION = {"set-hausdorff-real": ("X", "Y", "norm"), "set-capacity-real": ("X", "K", "level"),
             "set-privacy-real": ("X", "Y", "K", "norm", "bound", "level")}
_CLAIM = {"set-hausdorff-real": ("enclosure",), "set-capacity-real": ("enclosure",),
          "set-privacy-real": ("verdict", "d_H", "diam_K", "factor", "T_X", "T_Y")}


def _bits(v: Fraction) -> int:
    return max(v.numerator.bit_length(), v.denominator.bit_length())


def _coordinate(value: Any, where: str) -> Coordinate:
    """A coordinate as read (its size limits; validity: :func:`real_work`)."""
    if isinstance(value, str):
        v = read_rational(value, where)
        if _bits(v) > MAX_RATIONAL_BITS:
            raise InstanceTooLarge(f"{where}: a rational coordinate has at most MAX_RATIONAL_BITS = "
                                   f"{MAX_RATIONAL_BITS} bits in its numerator and denominator.")
        return v
    obj = read_object(value, where, ("minimal_polynomial", "isolating_interval"))
    coeffs = read_int_poly(obj["minimal_polynomial"], where + ".minimal_polynomial")
    iv = read_enclosure(obj["isolating_interval"], where + ".isolating_interval")
    if len(coeffs) < 3:
        raise InvalidArgument(f"{where}: a minimal polynomial has degree ≥ 2; write a rational coordinate as 'p/q'.")
    if len(coeffs) > MAX_REAL_DEGREE + 1 or max(abs(c).bit_length() for c in coeffs) > MAX_COEFF_BITS \
            or max(_bits(iv.lo), _bits(iv.hi)) > MAX_END_BITS:
        raise InstanceTooLarge(f"{where}: need degree ≤ MAX_REAL_DEGREE = {MAX_REAL_DEGREE}, coefficients of at most "
                               f"MAX_COEFF_BITS = {MAX_COEFF_BITS} bits and interval ends of at most MAX_END_BITS = "
                               f"{MAX_END_BITS} bits.")
    return coeffs, iv


def _points(value: Any, where: str, dim: int | None = None) -> list[Point]:
    rows = read_list(value, where, None, MAX_REAL_POINTS)
    pts = [tuple(_coordinate(c, f"{where}[{i}]") for c in read_list(p, f"{where}[{i}]", dim))
           for i, p in enumerate(rows)]
    if not pts or not 1 <= len(pts[0]) <= MAX_DIM or any(len(p) != len(pts[0]) for p in pts):
        raise InvalidArgument(f"{where}: need 1…{MAX_REAL_POINTS} points of one dimension 1…{MAX_DIM}.")
    return pts


def _valid(sets: list[list[Point]]) -> None:
    """Every algebraic coordinate well defined (module docstring), no point repeated in a set."""
    for g, iv in {c for S in sets for p in S for c in p if not isinstance(c, Fraction)}:
        if not min_poly_ok(int_poly(g)) or not iv.lo < iv.hi or count_roots(int_poly(g), iv.lo, iv.hi) != 1:
            raise InvalidArgument(f"question: the coordinate ({list(g)}, [{iv.lo}, {iv.hi}]) needs an irreducible, "
                                  "primitive polynomial with leading coefficient > 0 and exactly one root in (lo, hi].")
    if any(_same_point(a, b) for S in sets for a, b in itertools.combinations(S, 2)):
        raise InvalidArgument("question: a point is repeated; list each point of a set once.")


def _same(a: Coordinate, b: Coordinate) -> bool:
    """Exact equality: one minimal polynomial per algebraic number, one root per interval —
    the intersection (L, H] of the intervals, inside a's, holds a's simple root iff g
    changes sign on it (proofs/kernel_sets_real.py)."""
    if isinstance(a, Fraction) or isinstance(b, Fraction):
        return a == b
    (g, u), (h, v) = a, b
    lo, hi = max(u.lo, v.lo), min(u.hi, v.hi)
    return g == h and lo < hi and sign_at(int_poly(g), lo) != sign_at(int_poly(g), hi)


def _same_point(a: Point, b: Point) -> bool:
    return all(_same(x, y) for x, y in zip(a, b))


def _equal_sets(X: list[Point], Y: list[Point]) -> bool:
    """X = Y exactly (each set's points are distinct: :func:`_valid`)."""
    return len(X) == len(Y) and all(any(_same_point(x, y) for y in Y) for x in X)


def real_work(sets: list[list[Point]], prec: int) -> int:
    """The work of the distinct algebraic coordinates (each refined once per check), checked
    up front (the writer calls this too): reading Σ (degree + 1)³·(coefficient bits + end
    bits + 64) ≤ MAX_READ_WORK (factorisation and Sturm count); refining Σ steps·(degree·
    (degree·(steps + end bits) + coefficient bits) + 2000) ≤ MAX_REFINE_WORK — each of the
    steps = prec + 8 + log2(width) bisections evaluates the polynomial at a rational of about
    steps + end bits bits (a Python step costs about 2000 units); InstanceTooLarge beyond either."""
    seen = {c for S in sets for p in S for c in p if not isinstance(c, Fraction)}
    read = work = 0
    for g, iv in seen:
        w, cbits, ebits = iv.hi - iv.lo, max(abs(v).bit_length() for v in g), _bits(iv.lo) + _bits(iv.hi)
        steps = prec + 8 + max(0, w.numerator.bit_length() - w.denominator.bit_length() + 1)
        read += len(g) ** 3 * (cbits + ebits + 64)
        work += steps * (len(g) * (len(g) * (steps + ebits) + cbits) + 2000)
    if work > MAX_REFINE_WORK or read > MAX_READ_WORK:
        raise InstanceTooLarge(f"the algebraic coordinates cost {read} to read (MAX_READ_WORK = {MAX_READ_WORK}) and "
                               f"{work} to refine to {prec} bits (MAX_REFINE_WORK = {MAX_REFINE_WORK}); use fewer or "
                               "lower-degree coordinates or a lower precision.")
    return work


def ie_check(boxes: list[int], dim: int, prec: int) -> None:
    """InstanceTooLarge beyond MAX_IE_BOXES translated boxes in one inclusion–exclusion, or
    MAX_IE_WORK = Σ 2^m·dim·(prec + 64) over them (the writer calls this too)."""
    work = sum(2 ** m * dim * (prec + 64) for m in boxes if m <= MAX_IE_BOXES)
    if max(boxes) > MAX_IE_BOXES or work > MAX_IE_WORK:
        raise InstanceTooLarge(f"inclusion–exclusion over {boxes} translated boxes in dimension {dim} at {prec} bits "
                               f"(MAX_IE_BOXES = {MAX_IE_BOXES}, work {work} > MAX_IE_WORK = {MAX_IE_WORK}); use "
                               "fewer points or boxes, or a lower precision.")


@proved_by("kernel_sets_real")
def coordinate_ball(c: Coordinate, prec: int) -> arb:
    """A ball containing the coordinate at the current precision: the isolating interval is
    bisected on the sign change of the irreducible polynomial (its root is simple and
    irrational, so never a midpoint) to width ≤ 2^-(prec+8) (proofs/kernel_sets_real.py)."""
    if isinstance(c, Fraction):
        return arb(to_fmpq(c))
    g, lo, hi = int_poly(c[0]), to_fmpq(c[1].lo), to_fmpq(c[1].hi)
    low_positive, eps = g(lo) > 0, fmpq(1, 2 ** (prec + 8))
    while hi - lo > eps:
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if (g(mid) > 0) == low_positive else (lo, mid)  # g(mid) ≠ 0: α is irrational
    return arb(lo).union(arb(hi))


def _dist(a: list[arb], b: list[arb], norm: str) -> arb:
    diffs = [abs(x - y) for x, y in zip(a, b)]
    if norm == "linf":
        return functools.reduce(lambda u, w: u.max(w), diffs)
    if norm == "l1":
        return sum(diffs, arb(0))
    s = sum((d * d for d in diffs), arb(0))  # ≥ 0: a ball reaching below 0 gets [0, √(|mid| + rad)]
    return s.sqrt() if s > 0 else (abs(s.mid()) + s.rad()).sqrt().union(arb(0))


def _hausdorff(X: list[list[arb]], Y: list[list[arb]], norm: str) -> arb:
    """max over both directions of min distances: arb max/min enclose the exact max/min."""
    return functools.reduce(lambda u, w: u.max(w), (functools.reduce(
        lambda u, w: u.min(w), (_dist(a, b, norm) for b in B)) for A, B in ((X, Y), (Y, X)) for a in A))


@proved_by("kernel_sets_real")
def laplace_cdf_ball(x: arb, eps: arb) -> arb:
    """F(x) = ½ + ½·sgn(x)(1 − e^{−ε|x|}) on a ball; a ball straddling 0 gets ½ ± ½(1 − e^{−ε|x|})
    (F is increasing and F(−r), F(r) = ½ ∓ ½(1 − e^{−εr}): proofs/kernel_sets_real.py)."""
    g = 1 - (-eps * abs(x)).exp()
    return (1 + g) / 2 if x > 0 else (1 - g) / 2 if x < 0 else (1 + arb(0, 1) * g) / 2


@proved_by("kernel_sets_real")
def union_probability_ball(X: list[list[arb]], K: list[tuple[tuple[Fraction, ...], tuple[Fraction, ...]]],
                           eps: arb) -> arb:
    """P[w ∈ ∪ (B − x)] by inclusion–exclusion in balls: an intersection of boxes
    [max lo, min hi] has probability Π_d max(0, F(min hi_d) − F(max lo_d)), continuous in
    the ends, so no comparison is decided (proofs/kernel_sets_real.py)."""
    boxes = [([arb(to_fmpq(v)) - c for v, c in zip(lo, x)], [arb(to_fmpq(v)) - c for v, c in zip(hi, x)])
             for x in X for lo, hi in K]
    total, zero = arb(0), arb(0)

    def walk(start: int, lo: list[arb], hi: list[arb], sign: int) -> None:
        nonlocal total
        for k in range(start, len(boxes)):
            nlo = [u.max(w) for u, w in zip(lo, boxes[k][0])] if lo else boxes[k][0]
            nhi = [u.min(w) for u, w in zip(hi, boxes[k][1])] if hi else boxes[k][1]
            term = arb(1)
            for u, w in zip(nlo, nhi):
                term *= (laplace_cdf_ball(w, eps) - laplace_cdf_ball(u, eps)).max(zero)
            total += sign * term
            walk(k + 1, nlo, nhi, -sign)

    walk(0, [], [], 1)
    return total


def _inside(ball: arb, box: Enclosure) -> bool:
    return bool(arb(to_fmpq(box.lo)) <= ball and ball <= arb(to_fmpq(box.hi)))


def _diameter(K: list[tuple[tuple[Fraction, ...], tuple[Fraction, ...]]], norm: str) -> arb:
    zero = [arb(0)] * len(K[0][0])
    return functools.reduce(lambda u, w: u.max(w), (_dist(
        [arb(to_fmpq(max(A[1][i] - B[0][i], B[1][i] - A[0][i]))) for i in range(len(zero))], zero, norm)
        for A in K for B in K))


def check_real_set_document(doc: Any) -> bool:
    """Re-derive a ``set-hausdorff-real``, ``set-capacity-real`` or ``set-privacy-real`` claim
    (module docstring; malformed: InvalidArgument; beyond the limits: InstanceTooLarge)."""
    env = read_envelope(doc)
    kind = read_str(env.kind, "kind", REAL_SET_KINDS)
    q = read_object(env.question, "question", _QUESTION[kind])
    c = read_object(env.claim, "claim", _CLAIM[kind])
    prec = read_int(read_object(env.evidence, "evidence", ("precision",))["precision"], "evidence.precision",
                    53, MAX_REAL_PREC)
    X = _points(q["X"], "question.X")
    Y = _points(q["Y"], "question.Y", len(X[0])) if "Y" in q else []
    K = read_boxes(q["K"], len(X[0])) if "K" in q else []
    norm = read_str(q["norm"], "question.norm", ("l1", "l2", "linf")) if "norm" in q else "l1"
    bound = read_str(q["bound"], "question.bound", ("paper", "hausdorff", "points")) if "bound" in q else ""
    level = cast(PrivacyLevel, read_level(q["level"])) if "level" in q else None
    if K:
        ie_check([len(K) * len(S) for S in (X, Y) if S], len(X[0]), prec)
    real_work([X, Y], prec)
    _valid([X, Y])
    claims = {k: read_enclosure(c[k], f"claim.{k}") for k in _CLAIM[kind] if k != "verdict"}
    verdict = read_verdict(c["verdict"], "claim.verdict") if "verdict" in c else None
    if kind == "set-hausdorff-real" and _equal_sets(X, Y):  # d_H(X, X) = 0 exactly: no ball can prove lo = 0
        return claims["enclosure"].lo <= 0 <= claims["enclosure"].hi
    with workprec(prec):
        balls: dict[Coordinate, arb] = {}  # each distinct coordinate refined once (as real_work counts)
        bx, by = ([[balls[v] if v in balls else balls.setdefault(v, coordinate_ball(v, prec)) for v in p]
                   for p in S] for S in (X, Y))
        if kind == "set-hausdorff-real":
            return _inside(_hausdorff(bx, by, norm), claims["enclosure"])
        eps = cast(PrivacyLevel, level).eps_ball()
        if kind == "set-capacity-real":
            return _inside(union_probability_ball(bx, K, eps), claims["enclosure"])
        d_h, diam = _hausdorff(bx, by, norm), _diameter(K, norm)
        factor = (eps * (d_h + diam if bound == "paper" else d_h)).exp() * (len(X) if bound == "points" else 1)
        mine = {"d_H": d_h, "diam_K": diam, "factor": factor, "T_X": union_probability_ball(bx, K, eps),
                "T_Y": union_probability_ball(by, K, eps)}
        if not all(_inside(mine[k], claims[k]) for k in mine):
            return False
        margin = mine["factor"] * mine["T_Y"] - mine["T_X"]
    sg = ball_sign(margin).value  # an exact zero ball is not read as a decided sign
    if sg:
        return verdict is Verdict.from_bool(sg > 0)
    if _equal_sets(X, Y):
        return verdict is Verdict.HOLDS  # X = Y (distinct points): T_X = T_Y and factor ≥ 1
    raise PrecisionLimitReached(f"the margin factor·T_Y − T_X is undecided at {prec} bits and X ≠ Y; "
                                "write the document at a higher precision.")
