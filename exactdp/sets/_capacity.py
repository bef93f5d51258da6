"""Exact Laplace probabilities and capacity functionals of the Laplacian Perturbation Mechanism.

``T_{M(X)}(K) = P[(X + w) ∩ K ≠ ∅] = P[w ∈ ∪_{x∈X, B∈K} (B − x)]`` with w_i i.i.d.
Laplace(0, 1/ε): the product-Laplace measure of a finite union of boxes. Three exact
algorithms, all returning an :class:`~exactdp.sets._exppoly.ExpPoly` in ε:

* ``"sweep"`` (default) — recursive slab decomposition: cut coordinate 1 at every box
  endpoint; on each slab the covering boxes are fixed, so the measure is
  ``Σ_slabs P[w_1 ∈ slab] · (measure of the union of the covering boxes in the remaining
  coordinates)``; adjacent slabs with the same covering set are merged and sub-results
  are memoised on the covering set. Worst case O((2N)ⁿ·N) for N = |X|·|K| boxes in Rⁿ,
  usually far less.
* ``"grid"`` — coordinate compression: every cell of the grid of all endpoints is
  either inside the union or not; sum the products of CDF differences over covered
  cells. Θ((2N)ⁿ·N); an independent check of ``"sweep"``.
* ``"inclusion-exclusion"`` — Σ over nonempty subsets S of (−1)^{|S|+1} P[∩S];
  Θ(2^N·n), only for N ≤ 16.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

import sympy
from flint import arb

from exactdp.arithmetic.ball import MAX_PREC, arb_lower_dyadic, arb_to_fraction_interval, workprec
from exactdp.arithmetic.interval import Enclosure
from exactdp.arithmetic.rationals import to_fraction
from exactdp.arithmetic.rounding import dyadic_down
from exactdp.errors import InstanceTooLarge, InvalidArgument, InvalidBox, PrecisionLimitReached
from exactdp.kernel.jsonio import document_numbers
from exactdp.kernel.sets import check_set_functional_document
from exactdp.kinds import proved_by
from exactdp.sets._boxes import Box, as_boxes
from exactdp.sets._documents import capacity_limits, write_capacity
from exactdp.sets._exppoly import ExpPoly
from exactdp.sets._points import PointSet, point_set
from exactdp.spaces.levels import PrivacyLevel, parse_level

__all__ = [
    "laplace_cdf",
    "interval_probability",
    "box_probability",
    "union_probability",
    "capacity_functional",
    "CapacityResult",
    "as_level",
]

Method = Literal["sweep", "grid", "inclusion-exclusion"]
_RawBox = tuple[tuple[Fraction, ...], tuple[Fraction, ...]]

_ONE = ExpPoly.constant(1)
_HALF = Fraction(1, 2)


def as_level(eps: Any) -> PrivacyLevel:
    """Accept a :class:`PrivacyLevel` or anything :func:`parse_level` reads as ε."""
    if isinstance(eps, PrivacyLevel):
        return eps
    return parse_level(eps=eps)


@proved_by("sets_laplace_capacity")
def laplace_cdf(x: Any) -> ExpPoly:
    """Exact CDF of Laplace(0, 1/ε) at a rational x, as an exp-polynomial in ε.

    F(x) = ½e^{εx} for x < 0 and 1 − ½e^{−εx} for x ≥ 0 (derived in
    ``proofs/sets_laplace_capacity.py``).

    >>> laplace_cdf(-2).to_sympy_symbol()
    exp(-2*epsilon)/2
    >>> laplace_cdf(0) == ExpPoly.constant(Fraction(1, 2))
    True
    """
    xf = to_fraction(x, "x")
    if xf < 0:
        return ExpPoly({-xf: _HALF})
    return ExpPoly.constant(1) + ExpPoly({xf: -_HALF})  # (a dict literal would merge x = 0)


_CDF_CACHE: dict[Fraction, ExpPoly] = {}


def _cdf(x: Fraction) -> ExpPoly:
    got = _CDF_CACHE.get(x)
    if got is None:
        got = laplace_cdf(x)
        if len(_CDF_CACHE) < 100_000:
            _CDF_CACHE[x] = got
    return got


@proved_by("sets_laplace_capacity")
def interval_probability(lower: Any, upper: Any) -> ExpPoly:
    """P[w ∈ [lower, upper]] = F(upper) − F(lower) for w ~ Laplace(0, 1/ε), exactly.

    See ``proofs/sets_laplace_capacity.py``.

    >>> interval_probability(-1, 1).to_sympy_symbol()
    1 - exp(-epsilon)
    """
    lo, hi = to_fraction(lower, "lower"), to_fraction(upper, "upper")
    if lo > hi:
        raise InvalidBox(f"Got an inverted interval [{lo}, {hi}]; swap the endpoints.")
    return _cdf(hi) - _cdf(lo)


@proved_by("sets_laplace_capacity")
def box_probability(box: Box) -> ExpPoly:
    """P[w ∈ box] = Π_i (F(u_i) − F(l_i)) for w with i.i.d. Laplace(0, 1/ε) coordinates.

    See ``proofs/sets_laplace_capacity.py``.

    >>> box_probability(Box((0, 0), (1, 1))).to_sympy(sympy.Integer(1))
    -exp(-1)/2 + exp(-2)/4 + 1/4
    """
    return _raw_box_probability((box.lower, box.upper))


def _raw_box_probability(b: _RawBox) -> ExpPoly:
    out = _ONE
    for lo, hi in zip(*b):
        out = out * (_cdf(hi) - _cdf(lo))
    return out


# ---------------------------------------------------------------------------------------
# the three union algorithms
# ---------------------------------------------------------------------------------------


def _sweep(boxes: list[_RawBox]) -> ExpPoly:
    n = len(boxes[0][0])
    memo: dict[tuple[int, frozenset[int]], ExpPoly] = {}

    def rec(active: frozenset[int], d: int) -> ExpPoly:
        if d == n:
            return _ONE
        key = (d, active)
        if key in memo:
            return memo[key]
        cuts = sorted({boxes[i][0][d] for i in active} | {boxes[i][1][d] for i in active})
        # slabs with their covering sets, adjacent equal covers merged
        runs: list[tuple[Fraction, Fraction, frozenset[int]]] = []
        for a, b in zip(cuts, cuts[1:]):
            cover = frozenset(i for i in active if boxes[i][0][d] <= a and boxes[i][1][d] >= b)
            if runs and runs[-1][2] == cover and runs[-1][1] == a:
                runs[-1] = (runs[-1][0], b, cover)
            else:
                runs.append((a, b, cover))
        parts = [(_cdf(b) - _cdf(a)) * rec(cover, d + 1) for a, b, cover in runs if cover]
        memo[key] = ExpPoly.sum(parts)
        return memo[key]

    return rec(frozenset(range(len(boxes))), 0)


def _grid(boxes: list[_RawBox], max_cells: int = 2_000_000) -> ExpPoly:
    n = len(boxes[0][0])
    axes = [sorted({b[0][d] for b in boxes} | {b[1][d] for b in boxes}) for d in range(n)]
    cells = 1
    for ax in axes:
        cells *= max(len(ax) - 1, 1)
    if cells > max_cells:
        raise InstanceTooLarge(f"the grid has {cells} cells (> {max_cells}); use method='sweep'")
    probs = [[_cdf(b) - _cdf(a) for a, b in zip(ax, ax[1:])] for ax in axes]
    total: list[ExpPoly] = []
    for idx in itertools.product(*[range(len(ax) - 1) for ax in axes]):
        mid = [(axes[d][i] + axes[d][i + 1]) / 2 for d, i in enumerate(idx)]
        if any(all(b[0][d] < mid[d] < b[1][d] for d in range(n)) for b in boxes):
            cell = _ONE
            for d, i in enumerate(idx):
                cell = cell * probs[d][i]
            total.append(cell)
    return ExpPoly.sum(total)


def _inclusion_exclusion(boxes: list[_RawBox], max_boxes: int = 16) -> ExpPoly:
    if len(boxes) > max_boxes:
        raise InstanceTooLarge(
            f"inclusion-exclusion over {len(boxes)} boxes needs 2^{len(boxes)} terms "
            f"(limit {max_boxes}); use method='sweep'"
        )
    n = len(boxes[0][0])
    terms: list[ExpPoly] = []
    for size in range(1, len(boxes) + 1):
        for subset in itertools.combinations(boxes, size):
            lo = tuple(max(b[0][d] for b in subset) for d in range(n))
            hi = tuple(min(b[1][d] for b in subset) for d in range(n))
            if all(a < b for a, b in zip(lo, hi)):
                p = _raw_box_probability((lo, hi))
                terms.append(p if size % 2 else -p)
    return ExpPoly.sum(terms)


_METHODS = {"sweep": _sweep, "grid": _grid, "inclusion-exclusion": _inclusion_exclusion}


@proved_by("sets_laplace_capacity")
def union_probability(boxes: Any, method: Method = "sweep") -> ExpPoly:
    """Exact product-Laplace measure of a finite union of boxes (see the module docstring).

    See ``proofs/sets_laplace_capacity.py``.

    >>> u = union_probability([Box(0, 2), Box(1, 3)])
    >>> u == interval_probability(0, 3)
    True
    >>> u == union_probability([Box(0, 2), Box(1, 3)], method="inclusion-exclusion")
    True
    """
    bs = as_boxes(boxes)
    if method not in _METHODS:
        raise InvalidArgument(f"Got method={method!r}; use 'sweep', 'grid' or 'inclusion-exclusion'.")
    return _METHODS[method]([(b.lower, b.upper) for b in bs])


def _translated_boxes(X: PointSet, boxes: tuple[Box, ...]) -> list[_RawBox]:
    if boxes[0].dim != X.dim:
        raise InvalidBox(
            f"Got K in dimension {boxes[0].dim} for a point set in dimension {X.dim}; "
            f"K and the sets must live in the same Rⁿ."
        )
    raw = {
        (
            tuple(lo - c for lo, c in zip(b.lower, x)),
            tuple(hi - c for hi, c in zip(b.upper, x)),
        )
        for x in X.points
        for b in boxes
    }
    return sorted(raw)


@dataclass(frozen=True)
class CapacityResult:
    """Exact capacity functional T_{M(X)}(K) = P[(X + w) ∩ K ≠ ∅].

    Attributes
    ----------
    value : ExpPoly
        The exact value as an exp-polynomial in ε (valid for every ε > 0).
    level : PrivacyLevel
        The ε at which :attr:`expr` and :meth:`enclosure` are taken.
    """

    X: PointSet
    K: tuple[Box, ...]
    level: PrivacyLevel
    value: ExpPoly
    method: str

    @property
    def expr(self) -> sympy.Expr:
        """The exact value at ε as a sympy closed form."""
        return self.value.to_sympy(self.level.eps)

    def enclosure(self, prec: int = 64) -> arb:
        """A ball certified to contain the value, at ``prec`` bits."""
        with workprec(prec):
            return self.value.ball(self.level)

    def interval(self, prec: int = 64) -> Enclosure:
        """A certified enclosure with exact rational endpoints (``lo, hi = r.interval()`` works)."""
        with workprec(prec):
            return Enclosure(*arb_to_fraction_interval(self.value.ball(self.level)))

    @property
    def value_float(self) -> float:
        """Float value (uncertified: display and plots only)."""
        with workprec(64):
            return float(self.value.ball(self.level).mid())

    def verify(self) -> bool:
        """Re-check :meth:`to_document` in the kernel (:mod:`exactdp.kernel.sets`): it
        recomputes T_{M(X)}(K) by its own coordinate compression, compares the exp-polynomial
        exactly (a probability, so in [0, 1]), and checks its value at ε lies in :meth:`interval`.

        Raises :class:`~exactdp.errors.InstanceTooLarge` beyond the kernel's limits
        (MAX_POINTS, MAX_DIM, MAX_WORK, MAX_TERMS, |ε·r| < MAX_EXPONENT, MAX_DIGITS), before any
        ball is computed, and PrecisionLimitReached when a sign
        stays undecided: undecided, not False.
        """
        with document_numbers():  # messages about 4,300+ digit numbers: shortened, never a bare ValueError
            return check_set_functional_document(self.to_document())

    def to_document(self, prec: int = 64) -> dict[str, Any]:
        """The kernel document (kind ``set-capacity``): X, K and ε; the claim is the
        exp-polynomial and its value's enclosure at ε (``prec`` bits).

        >>> claim = capacity_functional([0], Box(0, 1), eps="ln(2)").to_document()["claim"]
        >>> claim["T"], Fraction(claim["enclosure"]["lo"]) < Fraction(1, 4) < Fraction(claim["enclosure"]["hi"])
        ([['0', '1/2'], ['1', '-1/2']], True)
        """
        if isinstance(prec, bool) or not isinstance(prec, int) or not 2 <= prec <= MAX_DOCUMENT_PREC:
            raise InvalidArgument(f"Got prec={prec!r}; the enclosure precision must be an int in 2…"
                                  f"{MAX_DOCUMENT_PREC} bits (the kernel decides its signs within MAX_PREC = "
                                  f"{MAX_PREC}).")
        with document_numbers():
            capacity_limits(self.X, self.K, self.level, self.value)  # before any ball: InstanceTooLarge
            with workprec(prec):
                ball = self.value.ball(self.level)
            return write_capacity(self.X, self.K, self.level, self.value, compact_enclosure(ball, prec))


#: Highest ``prec`` of :meth:`CapacityResult.to_document` (the kernel needs headroom up to MAX_PREC).
MAX_DOCUMENT_PREC = MAX_PREC // 4
#: Finest grid 2^-(prec + FLOOR_BITS) of a document enclosure (a smaller value gets [0, 2^-…]).
FLOOR_BITS = 1024


def _endpoint(ball: arb, n: int, up: bool) -> Fraction:
    """The ball's lower end rounded down to the grid 2^-n (or its upper end rounded ``up``),
    never building a number finer than the grid (the end may be e^(−10²⁰))."""
    y = -ball if up else ball  # the upper end of ball is −(lower end of −ball)
    low = arb_lower_dyadic(y, max_exp=n + 2 * MAX_DOCUMENT_PREC)
    if low is None:  # |end| < 2^-n (tiny) or ≥ 2^n (beyond [0, 1]: clamped by the caller)
        end = y.lower()
        tiny = abs(end) < arb(2) ** -n
        low = (Fraction(-1, 2**n) if end < 0 else Fraction(0)) if tiny else Fraction(-1 if up else 0)
    rounded = dyadic_down(low, n)
    return -rounded if up else rounded


def compact_enclosure(ball: arb, prec: int) -> Enclosure:
    """A short outward rounding of a ball around a probability: both ends on the grid 2^-n,
    n = prec − (binary exponent of the upper end), at most prec + FLOOR_BITS, clamped to [0, 1]
    (so a value below 2^-(prec+FLOOR_BITS) gets [0, 2^-n]: true, and a few hundred digits).

    >>> from flint import arb
    >>> compact_enclosure(arb(1) / 3, 8)
    Enclosure(lo=Fraction(341, 1024), hi=Fraction(171, 512))
    >>> e = compact_enclosure((-arb(10) ** 20).exp(), 64)
    >>> e.lo, e.hi == Fraction(1, 2 ** (64 + FLOOR_BITS))
    (Fraction(0, 1), True)
    """
    if not ball.is_finite():
        raise PrecisionLimitReached(f"the capacity ball {ball} is not finite.")
    upper = -_endpoint(-ball, prec + FLOOR_BITS, False)  # ≥ the upper end, on the finest grid
    top = upper.numerator.bit_length() - upper.denominator.bit_length() if upper > 0 else -FLOOR_BITS
    n = max(prec, min(prec - top, prec + FLOOR_BITS))
    lo, hi = _endpoint(ball, n, False), _endpoint(ball, n, True)
    return Enclosure(max(Fraction(0), lo), min(Fraction(1), hi))


@proved_by("sets_laplace_capacity")
def capacity_functional(X: Any, K: Any, eps: Any, *, method: Method = "sweep") -> CapacityResult:
    """Exact capacity functional of the Laplacian Perturbation Mechanism M(X) = X + w.

    Parameters
    ----------
    X : point set (list of points, or a :class:`PointSet`)
    K : a :class:`Box`, a :class:`BoxUnion` or a list of boxes
    eps : ε > 0 (int, Fraction, "p/q", "ln(2)", sympy expression or PrivacyLevel)
    method : "sweep" (default), "grid" or "inclusion-exclusion"

    Exact by construction; see ``proofs/sets_laplace_capacity.py``.

    Examples
    --------
    >>> r = capacity_functional([0], Box(0, 1), eps=1)
    >>> r.expr
    1/2 - exp(-1)/2
    >>> capacity_functional([0, 1], Box(0, 1), eps=1).expr    # union [-1, 1]
    1 - exp(-1)
    >>> r.verify()
    True
    """
    Xs = point_set(X, "X")
    boxes = as_boxes(K)
    level = as_level(eps)
    if method not in _METHODS:
        raise InvalidArgument(f"Got method={method!r}; use 'sweep', 'grid' or 'inclusion-exclusion'.")
    value = _METHODS[method](_translated_boxes(Xs, boxes))
    return CapacityResult(Xs, boxes, level, value, method)
