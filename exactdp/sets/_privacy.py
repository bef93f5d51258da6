"""Exact check of set-valued differential privacy for the Laplacian Perturbation Mechanism.

The paper's Definition 4 (formula lost in extraction; reconstructed from the proof of
Theorem 1) asks, for all sets X, Y and compact K,

    T_{M(X)}(K) ≤ e^{ε·(d_H(X, Y) + diam K)} · T_{M(Y)}(K).          ("paper")

This is FALSE for the mechanism in general (smallest counterexample, ε = 1:
X = {0, 1/4}, Y = {0}, K = [0, 1/4]: ratio exactly 2 > e^{1/2}; see
``proofs/sets_theorem1_counterexample.py``). What does hold, for every measurable K,
with d = ℓ1 distance (``proofs/sets_correct_bound.py``):

    T_{M(X)}(K) ≤ Σ_{x∈X} e^{ε·d₁(x, Y)} · T_{M(Y)}(K)                ("points_sharp")
                ≤ |X| · e^{ε·d_H(X, Y)} · T_{M(Y)}(K)                 ("points")

and the constant |X| is best possible; for translates Y = X + v, and whenever |X| = 1,
the factor is e^{ε·d_H} ("hausdorff"). Every bound is selectable, so other readings of
the definition (another norm, no diam term, a user formula) can be checked exactly.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy
from flint import arb

from exactdp.arithmetic.ball import certified_sign, sympy_to_arb, workprec
from exactdp.arithmetic.expressions import parse_closed_form
from exactdp.arithmetic.rationals import fmpq_to_fraction, to_fmpq, to_sympy
from exactdp.errors import CertificateInvalid, InvalidArgument, PrecisionLimitReached
from exactdp.kernel.jsonio import loads, read_envelope
from exactdp.kernel.sets import SET_PRIVACY, check_set_privacy_document
from exactdp.kinds import Sign, Verdict, proved_by
from exactdp.sets._boxes import Box, as_boxes, region_diameter
from exactdp.sets._capacity import CapacityResult, as_level, capacity_functional
from exactdp.sets._documents import set_privacy_question, write_set_privacy
from exactdp.sets._exppoly import ExpPoly, exp_poly_ratio, exp_poly_sign
from exactdp.sets._points import (
    HausdorffResult,
    Norm,
    PointSet,
    comparison_key,
    hausdorff_distance,
    key_to_sympy,
    parse_norm,
    point_set,
)
from exactdp.spaces.levels import PrivacyLevel

__all__ = [
    "BOUNDS",
    "BoundInputs",
    "SetPrivacyResult",
    "check_set_privacy",
    "bound_factor",
    "factor_terms",
    "is_translate",
    "theorem1_counterexample",
]

BOUNDS = ("paper", "hausdorff", "points", "points_sharp")


@dataclass(frozen=True)
class BoundInputs:
    """What a bound formula may depend on (passed to a user-supplied ``bound`` callable)."""

    eps: sympy.Expr
    d_H: sympy.Expr
    diam_K: sympy.Expr
    X: PointSet
    Y: PointSet
    norm: Norm


def is_translate(X: Any, Y: Any) -> tuple[Fraction, ...] | None:
    """The vector v with Y = X + v, or None when Y is not a translate of X.

    >>> is_translate([(0, 0), (1, 2)], [(1, 1), (2, 3)])
    (Fraction(1, 1), Fraction(1, 1))
    >>> is_translate([0, 1], [0, 2]) is None
    True
    """
    Xs, Ys = point_set(X, "X"), point_set(Y, "Y")
    if Xs.dim != Ys.dim or len(Xs) != len(Ys):
        return None
    v = tuple(b - a for a, b in zip(Xs.points[0], Ys.points[0]))
    return v if Xs.translate(v) == Ys else None


# A factor Σ_j a_j e^{ε β_j} is held as [(a_j, β_j)] with a_j rational, β_j exact sympy.
_Factor = list[tuple[Fraction, sympy.Expr]]


def factor_terms(bound: str, X: PointSet, Y: PointSet, d_H: sympy.Expr, diam_K: sympy.Expr, norm: Norm) -> _Factor:
    """The factor of a named ``bound`` as terms [(a_j, β_j)] of Σ_j a_j e^{ε β_j}."""
    if bound == "paper":
        return [(Fraction(1), d_H + diam_K)]
    if bound == "hausdorff":
        return [(Fraction(1), d_H)]
    if bound == "points":
        return [(Fraction(len(X)), d_H)]
    if bound == "points_sharp":
        acc: dict[sympy.Expr, Fraction] = {}
        for x in X.points:
            k = min(comparison_key(x, y, norm) for y in Y.points)
            beta = key_to_sympy(k, norm)
            acc[beta] = acc.get(beta, Fraction(0)) + 1
        return [(c, b) for b, c in acc.items()]
    raise InvalidArgument(f"Got bound={bound!r}; use one of {BOUNDS} or a callable BoundInputs -> sympy expr.")


def _factor_expr(terms: _Factor, eps: sympy.Expr) -> sympy.Expr:
    return sympy.Add(*[to_sympy(a) * sympy.exp(eps * b) for a, b in terms])


@proved_by("sets_correct_bound")
def bound_factor(X: Any, Y: Any, K: Any, eps: Any, bound: str = "points", norm: Any = "l1") -> sympy.Expr:
    """The exact factor c with the claim T_{M(X)}(K) ≤ c · T_{M(Y)}(K) under ``bound``.

    ``"points"`` and ``"points_sharp"`` (with ``norm="l1"``) are the library's proven
    bounds (``proofs/sets_correct_bound.py``).

    >>> bound_factor([0, 1], [0], Box(0, 1), eps=1)
    2*E
    >>> bound_factor([0, 1], [0], Box(0, 1), eps=1, bound="points_sharp")
    1 + E
    """
    Xs, Ys = point_set(X, "X"), point_set(Y, "Y")
    nm = parse_norm(norm)
    level = as_level(eps)
    d_H = hausdorff_distance(Xs, Ys, nm).value
    diam_K = region_diameter(as_boxes(K), nm)[0]
    return _factor_expr(factor_terms(bound, Xs, Ys, d_H, diam_K, nm), level.eps)


@proved_by("sets_correct_bound")
@dataclass(frozen=True)
class SetPrivacyResult:
    """Exact verdict on ``T_{M(X)}(K) ≤ factor · T_{M(Y)}(K)``.

    Attributes
    ----------
    verdict : Verdict
        HOLDS or FAILS, exact (equality counts as holding).
    holds : bool
        The same verdict as a bool.
    lhs, rhs : sympy.Expr
        T_{M(X)}(K) and factor · T_{M(Y)}(K) as exact closed forms.
    ratio : sympy.Expr
        T_{M(X)}(K) / T_{M(Y)}(K), exact.
    factor : sympy.Expr
        The bound's factor (e^{ε(d_H + diam K)} for ``bound="paper"``).
    sign : Sign
        Sign of rhs − lhs, decided exactly (``method`` says how) at ``prec`` bits.
    guaranteed : bool
        True when a theorem of ``proofs/sets_correct_bound.py`` implies the inequality
        for these inputs (so ``holds`` must be True).
    """

    X: PointSet
    Y: PointSet
    K: tuple[Box, ...]
    level: PrivacyLevel
    norm: Norm
    bound: str
    T_X: CapacityResult
    T_Y: CapacityResult
    hausdorff: HausdorffResult
    diam_K: sympy.Expr
    factor: sympy.Expr
    sign: Sign
    prec: int
    method: str
    guaranteed: bool

    @property
    def verdict(self) -> Verdict:
        """HOLDS when T_{M(X)}(K) ≤ factor · T_{M(Y)}(K), else FAILS (exact verdict)."""
        return _verdict_of(self.sign)

    @property
    def holds(self) -> bool:
        """True when T_{M(X)}(K) ≤ factor · T_{M(Y)}(K) (exact verdict)."""
        return self.sign is not Sign.NEGATIVE

    @property
    def lhs(self) -> sympy.Expr:
        """T_{M(X)}(K), exact."""
        return self.T_X.expr

    @property
    def rhs(self) -> sympy.Expr:
        """factor · T_{M(Y)}(K), exact."""
        return self.factor * self.T_Y.expr

    @property
    def ratio(self) -> sympy.Expr:
        """T_{M(X)}(K) / T_{M(Y)}(K), exact (simplified when sympy can)."""
        return exp_poly_ratio(self.T_X.value, self.T_Y.value, self.level.eps)

    def enclosures(self, prec: int = 64) -> dict[str, arb]:
        """Certified balls for lhs, rhs, ratio, factor and ratio / factor."""
        with workprec(prec):
            lhs = self.T_X.value.ball(self.level)
            ty = self.T_Y.value.ball(self.level)
            fac = sympy_to_arb(self.factor)
            return {
                "lhs": lhs,
                "rhs": fac * ty,
                "ratio": lhs / ty,
                "factor": fac,
                "ratio_over_factor": lhs / (fac * ty),
            }

    def floats(self) -> dict[str, float]:
        """Float summary (uncertified, display only)."""
        return {k: float(v.mid()) for k, v in self.enclosures(64).items()}

    def verify(self) -> bool:
        """Independent re-check: capacities by another algorithm, and the sign of
        rhs − lhs from the sympy closed forms with :func:`sympy_to_arb` (or, for a
        claimed equality, exact cancellation of the expression)."""
        if not (self.T_X.verify() and self.T_Y.verify()):
            return False
        diff = self.rhs - self.lhs
        if self.sign is Sign.ZERO:
            return bool(sympy.simplify(sympy.expand(diff)) == 0)
        with workprec(max(self.prec, 64) * 2):
            ball = sympy_to_arb(diff)
        if self.sign is Sign.POSITIVE:
            return bool(ball > 0)
        return bool(ball < 0)

    def to_document(self) -> dict[str, Any]:
        """The kernel document (kind ``set-privacy``; ``exactdp verify`` re-checks it in a
        fresh process: capacities, d_H, diam K and the verdict re-derived exactly). Only for
        ``norm`` "l1"/"linf" and a named bound (else InvalidArgument).

        >>> r = theorem1_counterexample()
        >>> doc = r.to_document()
        >>> doc["claim"]["verdict"], doc["claim"]["T_Y"]
        ('fails', [['0', '1/2'], ['1/4', '-1/2']])
        >>> SetPrivacyResult.from_document(doc).holds
        False
        """
        return write_set_privacy(self.X, self.Y, self.K, self.level, self.norm, self.bound,
                                 self.holds, self.T_X.value, self.T_Y.value,
                                 self.hausdorff.value, self.diam_K)

    @classmethod
    def from_document(cls, doc: Any) -> SetPrivacyResult:
        """Read :meth:`to_document` back (a dict or JSON text): the kernel re-checks it
        (rejected: :class:`~exactdp.errors.CertificateInvalid`; malformed: InvalidArgument),
        then :func:`check_set_privacy` answers the same question and must write the same
        document."""
        doc = loads(doc) if isinstance(doc, (str, bytes)) else doc
        if read_envelope(doc).kind != SET_PRIVACY:
            raise InvalidArgument(f"kind: got {doc['kind']!r}; expected {SET_PRIVACY!r}.")
        if not check_set_privacy_document(doc):
            raise CertificateInvalid("the kernel rejected the set-privacy document: the claim "
                                     "does not re-check.")
        args = set_privacy_question(doc)
        res = check_set_privacy(args.pop("X"), args.pop("Y"), args.pop("K"), args.pop("eps"), **args)
        if res.to_document() != doc:
            raise CertificateInvalid("the kernel accepted the document but check_set_privacy "
                                     "writes another; please report this as a bug.")
        return res

    def to_json(self) -> dict[str, Any]:
        """Exact JSON: closed forms as strings, floats labelled as such."""
        return {
            "holds": self.holds,
            "verdict": self.verdict.value,
            "bound": self.bound,
            "norm": self.norm,
            "eps": str(self.level.eps),
            "X": self.X.to_json(),
            "Y": self.Y.to_json(),
            "K": [b.to_json() for b in self.K],
            "d_H": str(self.hausdorff.value),
            "diam_K": str(self.diam_K),
            "lhs": str(self.lhs),
            "rhs": str(self.rhs),
            "factor": str(self.factor),
            "ratio": str(self.ratio),
            "sign": self.sign.name,
            "method": self.method,
            "prec": self.prec,
            "guaranteed": self.guaranteed,
            "floats": self.floats(),
        }


def _verdict_of(sign: Sign) -> Verdict:
    """The verdict of rhs − lhs having sign ``sign`` (≥ 0 holds)."""
    if sign is Sign.UNDECIDED:
        return Verdict.UNDECIDED
    return Verdict.from_bool(sign is not Sign.NEGATIVE)


def _decide(T_X: CapacityResult, T_Y: CapacityResult, terms: _Factor, level: PrivacyLevel) -> tuple[Sign, int, str]:
    """Sign of Σ_j a_j e^{ε β_j} T_Y − T_X, exactly."""
    if all(isinstance(b, sympy.Rational) for _, b in terms):
        margin = (
            ExpPoly.sum(
                T_Y.value.shift(-fmpq_to_fraction(b)) * a
                for a, b in terms  # type: ignore[attr-defined]
            )
            - T_X.value
        )
        return exp_poly_sign(margin, level)
    # Irrational (ℓ2) exponents: T_X has rational exponents only, each factor term
    # contributes exponents β_j − r, which are distinct from them; collect exactly.
    acc: dict[sympy.Expr, Fraction] = {}
    for r, c in T_X.value.terms.items():
        key = sympy.Rational(-r.numerator, r.denominator)
        acc[key] = acc.get(key, Fraction(0)) - c
    for a, b in terms:
        for r, c in T_Y.value.terms.items():
            key = sympy.expand(b - to_sympy(r))
            acc[key] = acc.get(key, Fraction(0)) + a * c
    live = [(k, c) for k, c in acc.items() if c]
    if not live:
        return Sign.ZERO, 0, "zero"

    def evaluate(_prec: int) -> arb:
        eps = level.eps_ball()
        total = arb(0)
        for k, c in live:
            total += arb(to_fmpq(c)) * (eps * sympy_to_arb(k)).exp()
        return total

    # Lindemann–Weierstrass: distinct algebraic ε·k give linearly independent e^{ε k}.
    algebraic = level.eps_rational is not None or bool(level.eps.is_algebraic)
    method = "lindemann-weierstrass+ball" if algebraic else "ball"
    sign, prec = certified_sign(evaluate, what="privacy margin")
    return sign, prec, method


def _exact_factor(value: Any, name: str) -> sympy.Expr:
    """The factor returned by a user ``bound`` callable, as an exact closed form.

    Floats (and sympy Floats inside an expression) are refused: an exact verdict needs
    an exact factor.
    """
    fix = (
        "return an exact value: a sympy expression such as sympy.exp(b.eps * b.d_H), "
        "an int, or a Fraction such as Fraction(3, 2)"
    )
    if isinstance(value, str):
        expr = parse_closed_form(value, f"the result of bound={name}", InvalidArgument)
    elif isinstance(value, bool):
        raise InvalidArgument(f"bound={name} returned {value!r} (a bool); {fix}.")
    elif isinstance(value, int):
        expr = sympy.Integer(value)
    elif isinstance(value, Fraction):
        expr = to_sympy(value)
    elif isinstance(value, sympy.Expr):
        expr = value
    else:
        raise InvalidArgument(
            f"bound={name} returned {value!r} of type {type(value).__name__}, which is not exact; {fix}."
        )
    if expr.has(sympy.Float):
        raise InvalidArgument(f"bound={name} returned {expr}, which contains a float; {fix}.")
    if expr.free_symbols:
        raise InvalidArgument(
            f"bound={name} returned {expr} with free symbols {sorted(map(str, expr.free_symbols))}; {fix}."
        )
    return expr


def _decide_callable(T_X: CapacityResult, T_Y: CapacityResult, factor: sympy.Expr) -> tuple[Sign, int, str]:
    diff = factor * T_Y.expr - T_X.expr
    try:
        sign, prec = certified_sign(lambda _p: sympy_to_arb(diff), what="privacy margin")
        return sign, prec, "ball"
    except PrecisionLimitReached:
        if sympy.simplify(diff) == 0:
            return Sign.ZERO, 0, "zero"
        raise


@proved_by("sets_correct_bound")
def _guaranteed(name: str, nm: Norm, X: PointSet, Y: PointSet, diam_K: sympy.Expr, level: PrivacyLevel) -> bool:
    """Whether a theorem of proofs/sets_correct_bound.py implies the inequality."""
    if nm != "l1":
        return False
    if name in ("points", "points_sharp"):
        return True  # Theorem B
    if name not in ("paper", "hausdorff"):
        return False
    if len(X) == 1 or is_translate(X, Y) is not None:
        return True  # Theorem C
    if name == "paper" and isinstance(diam_K, sympy.Rational):
        # Corollary E: |X| ≤ e^{ε·diam₁ K} makes "paper" weaker than Theorem B
        d = fmpq_to_fraction(diam_K)
        margin = ExpPoly({-d: 1}) - ExpPoly.constant(len(X))
        return exp_poly_sign(margin, level)[0] is not Sign.NEGATIVE
    return False


@proved_by("sets_theorem1_counterexample")
def theorem1_counterexample() -> SetPrivacyResult:
    """The smallest counterexample to the paper's Theorem 1 (reconstructed Definition 4).

    ε = 1, n = 1, X = {0, 1/4}, Y = {0}, K = [0, 1/4] (d_H = diam K = 1/4 in every norm):
    T_{M(X)}(K) = 1 − e^{−1/4}, T_{M(Y)}(K) = (1 − e^{−1/4})/2, ratio exactly 2, while
    the claimed bound is e^{1/2} ≈ 1.6487 < 2. Three points is the fewest possible
    (|X| = 1 always satisfies the bound). Derivation and minimality:
    ``proofs/sets_theorem1_counterexample.py``.

    >>> r = theorem1_counterexample()
    >>> r.holds, r.lhs, r.rhs
    (False, 1 - exp(-1/4), (1/2 - exp(-1/4)/2)*exp(1/2))
    """
    return check_set_privacy([0, Fraction(1, 4)], [0], Box(0, Fraction(1, 4)), 1, bound="paper", norm="l1")


@proved_by("sets_correct_bound", "sets_theorem1_counterexample")
def check_set_privacy(
    X: Any,
    Y: Any,
    K: Any,
    eps: Any,
    *,
    bound: str | Callable[[BoundInputs], sympy.Expr] = "paper",
    norm: Any = "l1",
) -> SetPrivacyResult:
    """Decide exactly whether ``T_{M(X)}(K) ≤ factor · T_{M(Y)}(K)``.

    Parameters
    ----------
    X, Y : finite point sets of one dimension
    K : a :class:`Box`, a :class:`BoxUnion` or a list of boxes
    eps : ε > 0
    bound : "paper" (e^{ε(d_H + diam K)}, the reconstructed Definition 4 — false in
        general), "hausdorff" (e^{ε d_H}), "points" (|X| e^{ε d_H}, proven),
        "points_sharp" (Σ_x e^{ε d(x, Y)}, proven), or a callable
        ``BoundInputs -> sympy expression`` for any other reading.
    norm : "l1" (the paper's proof), "l2" or "linf"; used for d_H, diam K and the
        "points_sharp" distances.

    The theorems behind "points"/"points_sharp"/"hausdorff" are in
    ``proofs/sets_correct_bound.py``; the counterexample to "paper" is in
    ``proofs/sets_theorem1_counterexample.py``.

    Examples
    --------
    The smallest counterexample to Theorem 1 (ε = 1):

    >>> r = check_set_privacy([0, "1/4"], [0], Box(0, "1/4"), eps=1)
    >>> r.holds, r.ratio, r.factor
    (False, 2, exp(1/2))
    >>> check_set_privacy([0, "1/4"], [0], Box(0, "1/4"), eps=1, bound="points").holds
    True
    >>> r.verify()
    True
    """
    Xs, Ys = point_set(X, "X"), point_set(Y, "Y")
    hd = hausdorff_distance(Xs, Ys, norm)  # checks dimensions
    nm = hd.norm
    boxes = as_boxes(K)
    level = as_level(eps)
    T_X = capacity_functional(Xs, boxes, level)
    T_Y = capacity_functional(Ys, boxes, level)
    diam_K = region_diameter(boxes, nm)[0]
    if callable(bound):
        name = getattr(bound, "__name__", "custom")
        factor = _exact_factor(bound(BoundInputs(level.eps, hd.value, diam_K, Xs, Ys, nm)), name)
        sign, prec, method = _decide_callable(T_X, T_Y, factor)
    else:
        terms = factor_terms(bound, Xs, Ys, hd.value, diam_K, nm)
        factor = _factor_expr(terms, level.eps)
        sign, prec, method = _decide(T_X, T_Y, terms, level)
        name = bound
    guaranteed = _guaranteed(name, nm, Xs, Ys, diam_K, level)
    return SetPrivacyResult(
        Xs,
        Ys,
        boxes,
        level,
        nm,
        name,
        T_X,
        T_Y,
        hd,
        diam_K,
        factor,
        sign,
        prec,
        method,
        guaranteed,
    )
