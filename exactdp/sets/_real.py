"""Point sets in Rⁿ with real closed-form coordinates (√2, π/4, ln 3, …): CERTIFIED answers.

Coordinates are exact sympy expressions; every comparison the algorithms make (which
distance is larger, which endpoint comes first, the sign of an endpoint) is decided by
ball arithmetic at rising precision (:func:`~exactdp.arithmetic.ball.certified_sign`), and
a difference that stays undecided is tested for exact zero with sympy before giving up
(:class:`~exactdp.errors.PrecisionLimitReached`). The values returned are exact sympy
closed forms selected by those certified comparisons, plus a certified enclosure and the
precision used.
"""

from __future__ import annotations

import functools
import itertools
import math
import numbers
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

import sympy
from flint import arb

from exactdp.arithmetic.ball import (
    arb_to_fraction_interval,
    certified_sign,
    sympy_to_arb,
    workprec,
)
from exactdp.arithmetic.expressions import parse_closed_form
from exactdp.arithmetic.interval import Enclosure
from exactdp.arithmetic.rationals import to_sympy
from exactdp.errors import (
    ExactnessRequired,
    InstanceTooLarge,
    InvalidArgument,
    InvalidBox,
    InvalidSet,
    PrecisionLimitReached,
)
from exactdp.kernel.question import read_level, write_level
from exactdp.kernel.sets_real import MAX_REAL_PREC
from exactdp.kinds import CertificateKind, Sign, Verdict, proved_by
from exactdp.sets._boxes import Box, as_boxes, region_diameter
from exactdp.sets._capacity import as_level
from exactdp.sets._documents import (
    REAL_DOCUMENT_PREC,
    RealDocument,
    read_boxes,
    read_real_points,
    real_document,
)
from exactdp.sets._points import Norm, parse_norm
from exactdp.spaces.levels import PrivacyLevel

__all__ = [
    "RealPointSet",
    "real_point_set",
    "real_compare",
    "CertifiedHausdorffResult",
    "hausdorff_distance_certified",
    "CertifiedCapacityResult",
    "capacity_functional_certified",
    "CertifiedSetPrivacyResult",
    "check_set_privacy_certified",
]

RealPoint = tuple[sympy.Expr, ...]
_MAX_PREC = 2048


def _real(value: Any, name: str) -> sympy.Expr:
    if isinstance(value, bool):
        raise ExactnessRequired(f"Got {name}={value!r}; a bool is not a coordinate.")
    if isinstance(value, float | numbers.Real) and not isinstance(value, int | Fraction | sympy.Basic):
        f = float(value)
        if math.isnan(f) or math.isinf(f):
            raise InvalidSet(f"Got {name}={value!r}; coordinates must be finite numbers.")
        return to_sympy(Fraction(f))
    if isinstance(value, Fraction):
        return to_sympy(value)
    if isinstance(value, str):
        expr = parse_closed_form(value, name, InvalidSet)  # never sympify/eval user text
    elif isinstance(value, int):
        expr = sympy.Integer(value)
    elif isinstance(value, sympy.Expr):
        expr = value
    else:
        raise InvalidSet(
            f"Got {name}={value!r} of type {type(value).__name__}; pass an int, a Fraction, "
            f"a string such as 'sqrt(2)' or a sympy expression."
        )
    if expr.free_symbols or expr.has(sympy.nan, sympy.zoo, sympy.oo, -sympy.oo):
        raise InvalidSet(f"Got {name}={value!r}; coordinates must be finite real closed forms.")
    if expr.is_real is False:
        raise InvalidSet(f"Got {name}={value!r}; coordinates must be real.")
    try:
        with workprec(64):
            sympy_to_arb(expr)
    except ExactnessRequired as exc:
        raise InvalidSet(f"Got {name}={value!r}; {exc}") from exc
    return expr


def real_compare(a: sympy.Expr, b: sympy.Expr, max_prec: int = _MAX_PREC) -> int:
    """Certified comparison of two real closed forms: −1, 0 or 1.

    Exact for rationals; otherwise balls at rising precision, and an exact zero test
    (sympy) when the balls cannot separate the two.

    >>> real_compare(sympy.sqrt(2), sympy.Rational(141, 100))
    1
    >>> real_compare(sympy.sqrt(8), 2 * sympy.sqrt(2))
    0
    """
    d = sympy.sympify(a - b)
    if isinstance(d, sympy.Rational):
        return int(bool(d > 0)) - int(bool(d < 0))
    try:
        sign, _ = certified_sign(lambda _p: sympy_to_arb(d), max_prec=max_prec, what="coordinate difference")
    except PrecisionLimitReached:
        if d.equals(0) or sympy.simplify(d) == 0:
            return 0
        raise
    return {Sign.POSITIVE: 1, Sign.NEGATIVE: -1, Sign.ZERO: 0}[sign]


@dataclass(frozen=True)
class RealPointSet:
    """A nonempty finite set of points with real closed-form coordinates."""

    points: tuple[RealPoint, ...]
    dim: int

    def __len__(self) -> int:
        return len(self.points)

    def as_floats(self) -> list[list[float]]:
        """Float coordinates (plotting only)."""
        return [[float(c) for c in p] for p in self.points]


def real_point_set(points: Any, name: str = "X") -> RealPointSet:
    """Build a :class:`RealPointSet`; coordinates may be ints, Fractions, strings such as
    ``"sqrt(2)"`` or sympy expressions. Duplicates (certified equal) are removed.

    >>> real_point_set([("sqrt(2)", 0), ("sqrt(8)/2", 0)]).points
    ((sqrt(2), 0),)
    """
    if isinstance(points, RealPointSet):
        return points
    if isinstance(points, str) or not isinstance(points, Iterable):
        raise InvalidSet(f"Got {name}={points!r}; pass a list of points such as [(0, 'sqrt(2)')].")
    pts: list[RealPoint] = []
    for i, p in enumerate(points):
        if isinstance(p, str) or not isinstance(p, Iterable):
            p = (p,)
        coords = tuple(_real(c, f"{name}[{i}]") for c in p)
        if not coords:
            raise InvalidSet(f"Got {name}[{i}]={p!r}; a point needs at least one coordinate.")
        pts.append(coords)
    if not pts:
        raise InvalidSet(f"Got an empty {name}; a point set needs at least one point.")
    dims = {len(p) for p in pts}
    if len(dims) > 1:
        raise InvalidSet(f"Got points of mixed dimensions {sorted(dims)} in {name}.")
    unique: list[RealPoint] = []
    for p in pts:
        if not any(all(real_compare(a, b) == 0 for a, b in zip(p, q)) for q in unique):
            unique.append(p)
    return RealPointSet(tuple(unique), dims.pop())


def _abs(d: sympy.Expr) -> sympy.Expr:
    """|d| with the sign decided by a certified comparison (keeps sympy_to_arb-friendly forms)."""
    return d if real_compare(d, sympy.Integer(0)) >= 0 else -d


def _dist(a: RealPoint, b: RealPoint, norm: Norm) -> sympy.Expr:
    diffs = [_abs(x - y) for x, y in zip(a, b)]
    if norm == "l1":
        return sympy.Add(*diffs)
    if norm == "linf":
        return functools.reduce(lambda u, v: u if real_compare(u, v) >= 0 else v, diffs)
    return sympy.sqrt(sympy.Add(*[(x - y) ** 2 for x, y in zip(a, b)]))


@dataclass(frozen=True)
class CertifiedHausdorffResult(RealDocument):
    """d_H as an exact closed form chosen by certified comparisons, with its enclosure."""

    value: sympy.Expr
    enclosure: Enclosure
    norm: Norm
    witness: RealPoint
    nearest: RealPoint
    direction: Literal["X->Y", "Y->X"]
    X: RealPointSet
    Y: RealPointSet

    KIND = CertificateKind.SET_HAUSDORFF_REAL
    def own_checks(self, prec: int | None = None) -> bool:
        """The witness lies in the source set, its nearest point in the other, at distance ≈ value."""
        src, dst = (self.X, self.Y) if self.direction == "X->Y" else (self.Y, self.X)
        if self.witness not in src.points or self.nearest not in dst.points:
            return False
        with workprec(prec or 256):
            return arb_overlaps(_dist_ball(self.witness, self.nearest, self.norm), sympy_to_arb(self.value))

    def to_document(self, prec: int = REAL_DOCUMENT_PREC) -> dict[str, Any]:
        """The kernel document (kind ``set-hausdorff-real``): X, Y (rational or algebraic), the norm
        and an enclosure of d_H at ``prec`` bits, [0, 0] when X = Y (proved by exact point equality);
        ExactnessRequired for a non-algebraic coordinate, InstanceTooLarge beyond the kernel's limits.

        >>> doc = hausdorff_distance_certified([("sqrt(2)", 0)], [(0, 0)], "l2").to_document()
        >>> doc["question"]["X"][0][0]
        {'minimal_polynomial': ['1', '0', '-2'], 'isolating_interval': {'lo': '41/29', 'hi': '58/41'}}
        >>> CertifiedHausdorffResult.from_document(doc).value
        sqrt(2)
        """
        exact_zero, sets = self.value == 0, {"X": self.X.points, "Y": self.Y.points}
        return real_document(self.KIND, sets, {"norm": self.norm}, {} if exact_zero else {"enclosure": self.value},
                             prec, claim={"enclosure": {"lo": "0", "hi": "0"}} if exact_zero else None)

    @staticmethod
    def answer(q: dict[str, Any]) -> CertifiedHausdorffResult:
        """The result for a document's question."""
        return hausdorff_distance_certified(read_real_points(q["X"]), read_real_points(q["Y"]), q["norm"])

    def verify_in_python(self, prec: int | None = None) -> bool:
        """Re-check by plain ball arithmetic on the coordinates (a code path independent of
        the certified comparisons that selected the answer), at ``prec`` bits:

        * witness and nearest are points of the right sets, and d(witness, nearest)
          encloses the value;
        * no point of the other set is certainly closer to the witness than ``nearest``
          (so the value is d(witness, other set) ≤ d_H);
        * every point of either set has some point of the other set not certainly
          farther than the value (so d_H ≤ value).
        """
        src, dst = (self.X, self.Y) if self.direction == "X->Y" else (self.Y, self.X)
        if self.witness not in src.points or self.nearest not in dst.points:
            return False
        with workprec(prec or 256):
            v = sympy_to_arb(self.value)
            if not arb_overlaps(_dist_ball(self.witness, self.nearest, self.norm), v):
                return False
            if any(bool(_dist_ball(self.witness, b, self.norm) < v) for b in dst.points):
                return False
            for A, B in ((self.X, self.Y), (self.Y, self.X)):
                for a in A.points:
                    if all(bool(_dist_ball(a, b, self.norm) > v) for b in B.points):
                        return False
        return True


def _dist_ball(a: RealPoint, b: RealPoint, norm: Norm) -> arb:
    """Ball enclosure of d(a, b) computed from coordinate balls (no sign decisions)."""
    diffs = [abs(sympy_to_arb(x) - sympy_to_arb(y)) for x, y in zip(a, b)]
    if norm == "l1":
        return sum(diffs, arb(0))
    if norm == "linf":
        return functools.reduce(lambda u, w: u.max(w), diffs)
    return sum((d * d for d in diffs), arb(0)).sqrt()


def arb_overlaps(a: arb, b: arb) -> bool:
    """Whether two balls overlap (a certified 'may be equal')."""
    return bool(a.overlaps(b))


def hausdorff_distance_certified(X: Any, Y: Any, norm: Any = "l1") -> CertifiedHausdorffResult:
    """Hausdorff distance of sets with real closed-form coordinates (certified selection).

    >>> r = hausdorff_distance_certified([("sqrt(2)", 0)], [(0, 0), (1, 1)], "l2")
    >>> r.value, r.witness, r.direction       # (0,0) is √2 from X; (√2,0) is √(4−2√2) from Y
    (sqrt(2), (0, 0), 'Y->X')
    >>> r.verify()
    True
    """
    nm = parse_norm(norm)
    Xs, Ys = real_point_set(X, "X"), real_point_set(Y, "Y")
    if Xs.dim != Ys.dim:
        raise InvalidSet(f"Got sets in dimensions {Xs.dim} and {Ys.dim}; both must live in the same Rⁿ.")

    def larger(u: sympy.Expr, v: sympy.Expr) -> bool:
        return real_compare(u, v) > 0

    best: tuple[sympy.Expr, RealPoint, RealPoint, Literal["X->Y", "Y->X"]] | None = None
    for A, B, tag in ((Xs, Ys, "X->Y"), (Ys, Xs, "Y->X")):
        for a in A.points:
            near = B.points[0]
            dn = _dist(a, near, nm)
            for b in B.points[1:]:
                db = _dist(a, b, nm)
                if larger(dn, db):
                    near, dn = b, db
            if best is None or larger(dn, best[0]):
                best = (dn, a, near, tag)  # type: ignore[assignment]
    assert best is not None
    value = sympy.simplify(best[0])
    with workprec(128):
        enc = Enclosure(*arb_to_fraction_interval(sympy_to_arb(value)))
    return CertifiedHausdorffResult(value, enc, nm, best[1], best[2], best[3], Xs, Ys)


# ------------------------------------------------------------------------------------------
# capacity functional with real points (rational boxes)
# ------------------------------------------------------------------------------------------


def _cdf_expr(x: sympy.Expr, eps: sympy.Expr) -> sympy.Expr:
    if real_compare(x, sympy.Integer(0)) < 0:
        return sympy.exp(eps * x) / 2
    return 1 - sympy.exp(-eps * x) / 2


@dataclass(frozen=True)
class CertifiedCapacityResult(RealDocument):
    """T_{M(X)}(K) for real X: exact closed form (every branch certified) + enclosure."""

    expr: sympy.Expr
    level: PrivacyLevel
    X: RealPointSet
    K: tuple[Box, ...]

    def enclosure(self, prec: int = 64) -> arb:
        """A ball certified to contain the value."""
        with workprec(prec):
            return sympy_to_arb(self.expr)

    @property
    def value_float(self) -> float:
        """Float value (uncertified, display only)."""
        return float(self.enclosure(64).mid())

    KIND = CertificateKind.SET_CAPACITY_REAL
    def to_document(self, prec: int = REAL_DOCUMENT_PREC) -> dict[str, Any]:
        """The kernel document (kind ``set-capacity-real``): X, K, the level and an enclosure
        of T_{M(X)}(K) at ``prec`` bits.

        >>> r = capacity_functional_certified(["sqrt(2)"], Box(0, 2), eps=1)
        >>> CertifiedCapacityResult.from_document(r.to_document()).expr == r.expr
        True
        """
        question = {"K": [b.to_json() for b in self.K], "level": write_level(self.level)}
        return real_document(self.KIND, {"X": self.X.points}, question, {"enclosure": self.expr}, prec)

    @staticmethod
    def answer(q: dict[str, Any]) -> CertifiedCapacityResult:
        """The result for a document's question."""
        return capacity_functional_certified(read_real_points(q["X"]), read_boxes(q), read_level(q["level"]))

    def verify_in_python(self, prec: int | None = None) -> bool:
        """Re-check by a different algorithm at ``prec`` bits: inclusion–exclusion over the
        translated boxes in plain ball arithmetic (no branch decisions, see
        :func:`_union_probability_ball`) must overlap the closed form's enclosure, and the
        value must not be certainly outside [0, 1].

        Raises :class:`~exactdp.errors.InstanceTooLarge` above 14 translated boxes.
        """
        with workprec(prec or 512):
            again = _union_probability_ball(_real_raw_boxes(self.X, self.K), self.level)
            v = sympy_to_arb(self.expr)
            return arb_overlaps(again, v) and not bool(v < 0) and not bool(v > 1)


_MAX_IE_BOXES = 14


def _real_raw_boxes(X: RealPointSet, K: tuple[Box, ...]) -> list[tuple[RealPoint, RealPoint]]:
    return [
        (
            tuple(to_sympy(lo) - c for lo, c in zip(b.lower, x)),
            tuple(to_sympy(hi) - c for hi, c in zip(b.upper, x)),
        )
        for x in X.points
        for b in K
    ]


def _laplace_cdf_ball(x: arb, eps: arb) -> arb:
    """Enclosure of the Laplace(0, 1/ε) CDF F(x) = ½ + ½·sgn(x)·(1 − e^{−ε|x|}) on a ball x
    (continuous in x, so a ball straddling 0 gets the enclosure ½ ± ½(1 − e^{−ε|x|}))."""
    g = 1 - (-eps * abs(x)).exp()
    if x > 0:
        return (1 + g) / 2
    if x < 0:
        return (1 - g) / 2
    return (1 + arb(0, 1) * g) / 2


def _union_probability_ball(boxes: list[tuple[RealPoint, RealPoint]], level: PrivacyLevel) -> arb:
    """P[w ∈ ∪ boxes] by inclusion–exclusion in ball arithmetic at the current precision.

    An intersection [max lo, min hi] has probability Π_d max(0, F(hi_d) − F(lo_d)), a
    continuous function of the endpoints, so balls need no comparison to be decided.
    """
    if len(boxes) > _MAX_IE_BOXES:
        raise InstanceTooLarge(
            f"inclusion–exclusion re-check over {len(boxes)} boxes (limit {_MAX_IE_BOXES}); not re-checked"
        )
    eps = level.eps_ball()
    balls = [([sympy_to_arb(c) for c in lo], [sympy_to_arb(c) for c in hi]) for lo, hi in boxes]
    zero = arb(0)
    total = arb(0)
    for size in range(1, len(balls) + 1):
        for subset in itertools.combinations(balls, size):
            term = arb(1)
            for d in range(len(subset[0][0])):
                lo = functools.reduce(lambda u, w: u.max(w), (b[0][d] for b in subset))
                hi = functools.reduce(lambda u, w: u.min(w), (b[1][d] for b in subset))
                term *= (_laplace_cdf_ball(hi, eps) - _laplace_cdf_ball(lo, eps)).max(zero)
            total += term if size % 2 else -term
    return total


def capacity_functional_certified(X: Any, K: Any, eps: Any) -> CertifiedCapacityResult:
    """Capacity functional of M(X) = X + w for points with real closed-form coordinates.

    The union of the translates B − x is decomposed by the same slab sweep as the exact
    rational route (``exactdp.sets._capacity``), with every endpoint comparison and
    every CDF branch decided by :func:`real_compare`.

    >>> r = capacity_functional_certified(["sqrt(2)"], Box(0, 2), eps=1)
    >>> r.expr
    -exp(-2)*exp(sqrt(2))/2 - exp(-sqrt(2))/2 + 1
    >>> r.verify()
    True
    """
    Xs = real_point_set(X, "X")
    boxes = as_boxes(K)
    if boxes[0].dim != Xs.dim:
        raise InvalidBox(f"Got K in dimension {boxes[0].dim} for a point set in dimension {Xs.dim}.")
    level = as_level(eps)
    e = level.eps
    raw = _real_raw_boxes(Xs, boxes)
    n = Xs.dim
    key = functools.cmp_to_key(real_compare)

    def rec(active: tuple[int, ...], d: int) -> sympy.Expr:
        if d == n:
            return sympy.Integer(1)
        pts = sorted([raw[i][0][d] for i in active] + [raw[i][1][d] for i in active], key=key)
        cuts: list[sympy.Expr] = []
        for p in pts:
            if not cuts or real_compare(p, cuts[-1]) != 0:
                cuts.append(p)
        total = sympy.Integer(0)
        for a, b in zip(cuts, cuts[1:]):
            cover = tuple(
                i for i in active if real_compare(raw[i][0][d], a) <= 0 and real_compare(raw[i][1][d], b) >= 0
            )
            if cover:
                total += (_cdf_expr(b, e) - _cdf_expr(a, e)) * rec(cover, d + 1)
        return total

    value = sympy.expand(rec(tuple(range(len(raw))), 0))
    return CertifiedCapacityResult(value, level, Xs, boxes)


@dataclass(frozen=True)
class CertifiedSetPrivacyResult(RealDocument):
    """Verdict on T_{M(X)}(K) ≤ factor · T_{M(Y)}(K) for real-coordinate sets (CERTIFIED:
    the sign of rhs − lhs was separated from 0 by balls at ``prec`` bits, or proved zero)."""

    holds: bool
    lhs: sympy.Expr
    rhs: sympy.Expr
    factor: sympy.Expr
    d_H: sympy.Expr
    diam_K: sympy.Expr
    sign: Sign
    prec: int
    bound: str
    norm: Norm
    X: RealPointSet
    Y: RealPointSet
    K: tuple[Box, ...]
    level: PrivacyLevel

    @property
    def verdict(self) -> Verdict:
        """HOLDS or FAILS (certified): the verdict ``holds`` states."""
        return Verdict.from_bool(self.holds)

    KIND = CertificateKind.SET_PRIVACY_REAL
    def to_document(self, prec: int | None = None) -> dict[str, Any]:
        """The kernel document (kind ``set-privacy-real``) at ``prec`` bits (default: twice the
        deciding precision, at least 512, at most MAX_REAL_PREC): the question, the verdict
        and enclosures of d_H, diam K, the factor, T_X and T_Y.

        >>> r = check_set_privacy_certified([0, "sqrt(2)/8"], [0], Box(0, "1/8"), eps=1)
        >>> doc = r.to_document()
        >>> doc["claim"]["verdict"], CertifiedSetPrivacyResult.from_document(doc).holds
        ('fails', False)
        """
        same = len(self.X) == len(self.Y) and all(any(all(real_compare(a, b) == 0 for a, b in zip(x, y))
                                                      for y in self.Y.points) for x in self.X.points)
        if self.sign is Sign.ZERO and not same:  # the kernel proves a zero margin only for X = Y
            raise ExactnessRequired("the margin factor·T_Y − T_X is exactly 0 with X ≠ Y: no portable form.")
        prec = min(max(REAL_DOCUMENT_PREC, 2 * self.prec), MAX_REAL_PREC) if prec is None else prec
        question = {"K": [b.to_json() for b in self.K], "norm": self.norm, "bound": self.bound,
                    "level": write_level(self.level)}
        values = {"d_H": self.d_H, "diam_K": self.diam_K, "factor": self.factor, "T_X": self.lhs,
                  "T_Y": self.rhs / self.factor}
        return real_document(self.KIND, {"X": self.X.points, "Y": self.Y.points}, question, values, prec,
                             {"verdict": self.verdict.value})

    @staticmethod
    def answer(q: dict[str, Any]) -> CertifiedSetPrivacyResult:
        """The result for a document's question."""
        return check_set_privacy_certified(read_real_points(q["X"]), read_real_points(q["Y"]), read_boxes(q),
                                           read_level(q["level"]), bound=q["bound"], norm=q["norm"])

    def verify_in_python(self, max_prec: int | None = None) -> bool:
        """Independent re-check: recompute d_H (and check its certificate), diam K, the
        factor, and both capacities by inclusion–exclusion in ball arithmetic (not the
        slab sweep that produced ``lhs``/``rhs``), at precision rising from twice the
        deciding precision; the stored closed forms must lie in those enclosures and the
        recomputed margin must have the claimed sign (ZERO: also exact cancellation).

        Raises :class:`~exactdp.errors.InstanceTooLarge` above 14 translated boxes and
        :class:`~exactdp.errors.PrecisionLimitReached` when still undecided at ``max_prec``.
        """
        hd = hausdorff_distance_certified(self.X, self.Y, self.norm)
        if not hd.verify_in_python() or real_compare(hd.value, self.d_H) != 0:
            return False
        if region_diameter(self.K, self.norm)[0] != self.diam_K:
            return False
        factor = _bound_factor(self.bound, self.level, hd.value, self.diam_K, len(self.X))
        if real_compare(factor, self.factor) != 0:
            return False
        if self.sign is Sign.ZERO and sympy.simplify(self.rhs - self.lhs) != 0:
            return False
        raw_x, raw_y = _real_raw_boxes(self.X, self.K), _real_raw_boxes(self.Y, self.K)
        prec, max_prec = 2 * max(self.prec, 64), max_prec or 4 * _MAX_PREC
        while True:
            with workprec(prec):
                t_x = _union_probability_ball(raw_x, self.level)
                t_y = _union_probability_ball(raw_y, self.level)
                f = sympy_to_arb(factor)
                if not (arb_overlaps(t_x, sympy_to_arb(self.lhs)) and arb_overlaps(f * t_y, sympy_to_arb(self.rhs))):
                    return False
                margin = f * t_y - t_x
                if self.sign is Sign.ZERO:
                    return bool(margin.contains(0))
                if bool(margin > 0) or bool(margin < 0):
                    return bool(margin > 0) == (self.sign is Sign.POSITIVE)
            if prec >= max_prec:
                raise PrecisionLimitReached(f"could not re-check the privacy margin at {prec} bits")
            prec = min(2 * prec, max_prec)


def _bound_factor(bound: str, level: PrivacyLevel, d_h: sympy.Expr, diam_k: sympy.Expr, n_x: int) -> sympy.Expr:
    if bound == "paper":
        return sympy.exp(level.eps * (d_h + diam_k))
    if bound == "hausdorff":
        return sympy.exp(level.eps * d_h)
    if bound == "points":
        return n_x * sympy.exp(level.eps * d_h)
    raise InvalidArgument(f"Got bound={bound!r}; use 'paper', 'hausdorff' or 'points'.")


@proved_by("sets_correct_bound")
def check_set_privacy_certified(
    X: Any, Y: Any, K: Any, eps: Any, *, bound: str = "paper", norm: Any = "l1"
) -> CertifiedSetPrivacyResult:
    """:func:`~exactdp.sets.check_set_privacy` for sets with real closed-form coordinates.

    ``bound`` is "paper" (e^{ε(d_H + diam K)}), "hausdorff" (e^{ε d_H}) or "points"
    (|X| e^{ε d_H}, proven in ``proofs/sets_correct_bound.py`` for ℓ1).

    >>> r = check_set_privacy_certified([0, "sqrt(2)/8"], [0], Box(0, "1/8"), eps=1)
    >>> r.holds, r.d_H
    (False, sqrt(2)/8)
    >>> r.verify()
    True
    """
    nm = parse_norm(norm)
    level = as_level(eps)
    hd = hausdorff_distance_certified(X, Y, nm)
    boxes = as_boxes(K)
    diam_K = region_diameter(boxes, nm)[0]
    factor = _bound_factor(bound, level, hd.value, diam_K, len(hd.X))
    lhs = capacity_functional_certified(hd.X, boxes, level).expr
    rhs = factor * capacity_functional_certified(hd.Y, boxes, level).expr
    diff = rhs - lhs
    try:
        sign, prec = certified_sign(lambda _p: sympy_to_arb(diff), max_prec=_MAX_PREC, what="privacy margin")
    except PrecisionLimitReached:
        if sympy.simplify(diff) != 0:
            raise
        sign, prec = Sign.ZERO, 0
    return CertifiedSetPrivacyResult(
        sign is not Sign.NEGATIVE, lhs, rhs, factor, hd.value, diam_K, sign, prec, bound, nm, hd.X, hd.Y, boxes, level
    )

