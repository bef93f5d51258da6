"""The registry of questions the regression oracle (:func:`exactdp.testing.crosscheck`) asks.

Each :class:`Question` says which *case* it reads (a tuple of exact objects), which float
arguments a user's function receives for that case, what the function must return, and how
the exact or certified truth is computed with exactdp's public functions. The list:

* ``tight-constraints`` — case ``(metric, eps)``; ``fn(D, eps) -> z`` or ``(z, exists)``
* ``regularity`` — ``(metric, prior, eps)``; ``fn(D, prior, eps) -> α`` or ``(α, regular)``
* ``threshold`` — ``metric`` or ``(metric, prior)``; ``fn(D, prior_or_None) -> ε*``
* ``privacy-level`` — ``(rows, metric)`` or ``(rows, metric, eps)``;
  ``fn(H, D, eps_or_None) -> level`` or ``(level, private)``
* ``utility`` — ``(rows, prior)``; ``fn(H, prior) -> U`` (optimal remap)
* ``min-entropy-leakage`` — ``(rows, prior)``; ``fn(H, prior) -> L`` in bits
* ``pufferfish-theta`` — ``(pair, eps)``; ``fn(p_points, p_probs, q_points, q_probs, eps) -> θ*``
* ``set-capacity`` — ``(points, boxes, eps)``; ``fn(X, boxes, eps) -> T(K)``

``rows`` are exact rows (sequences of rationals) or a :class:`~exactdp.mechanisms.Mechanism`.
``D`` is the float64 distance matrix, ``H`` the float64 mechanism matrix (rows are inputs),
``prior`` a float64 vector, ``eps`` a Python float (fl(ε)), ``X`` a k×dim float array and
``boxes`` a list of ``(lo, hi)`` float arrays. ``eps`` in a case is anything
:func:`~exactdp.spaces.levels.parse_level` reads as ε (``"1/2"``, ``"ln(2)"``, a Fraction) or a
:class:`~exactdp.spaces.levels.PrivacyLevel` (then given by t when t is rational).

Cases are validated when read, before the float function runs: a mechanism that is not
row-stochastic or does not fit the metric raises :class:`~exactdp.errors.InvalidMechanism`, a
prior that is not a distribution :class:`~exactdp.errors.InvalidPrior`, a bad level
:class:`~exactdp.errors.InvalidPrivacyLevel` (an invalid case is a bug in the test, never an
"undecided" row). A float function must return :attr:`Question.size` values (n for ``z`` and
``α``, 1 otherwise).

A truth exactdp *proves* is decided even when it is extreme: ε* = +∞ (the property never
holds, :class:`~exactdp.errors.PropertyNeverHolds`) is the value ``+∞`` (``ExactValue(None,
"oo")``), ε* = 0 the value 0; a float answer that contradicts it is a disagreement.

Where a question has a verdict, the float verdict is the one returned, else the one the value
implies (all z ≥ 0, all α ≥ 0, level ≤ eps; a Pufferfish θ* claims that Laplace(θ*) is private);
the level at which the exact verdict flips is ε for the first two (a certified flip of the
verdict between ε and ε·(1 ± tol_level)), the privacy level for ``privacy-level`` and θ* for
``pufferfish-theta``.

>>> sorted(QUESTIONS) == sorted(QUESTION_NAMES)
True
>>> QUESTIONS["utility"].signature
'fn(H, prior) -> U'
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import sympy

from exactdp.arithmetic.ball import arb_to_fraction_interval, sympy_to_arb, workprec
from exactdp.arithmetic.interval import Enclosure
from exactdp.errors import (
    InvalidArgument,
    InvalidBox,
    InvalidMechanism,
    InvalidPrivacyLevel,
    PropertyNeverHolds,
)
from exactdp.kinds import Verdict
from exactdp.mechanisms import Mechanism, from_rows, is_private, min_entropy_leakage, privacy_level, utility
from exactdp.pufferfish.calibration import exact_scale
from exactdp.pufferfish.distributions import DiscreteDistribution
from exactdp.pufferfish.loss import decide_loss
from exactdp.pufferfish.secrets import SecretPair, pair_laws
from exactdp.regularity import is_regular
from exactdp.sets import Box, BoxUnion, PointSet, capacity_functional, point_set
from exactdp.spaces.distances import Distance
from exactdp.spaces.levels import PrivacyLevel, parse_level
from exactdp.spaces.metrics import FiniteMetric
from exactdp.spaces.priors import read_prior, read_prior_values
from exactdp.threshold import epsilon_threshold
from exactdp.tight import tight_constraints

__all__ = ["Question", "QUESTIONS", "QUESTION_NAMES", "Truth", "ExactValue", "read_question",
           "read_level", "describe_case"]

#: Width of the ε* enclosure asked of :func:`~exactdp.threshold.epsilon_threshold` (absolute).
THRESHOLD_WIDTH = Fraction(1, 10**15)
#: Relative width of the θ* enclosure asked of :func:`~exactdp.pufferfish.exact_scale`.
PUFFERFISH_WIDTH = Fraction(1, 10**20)
#: Bits of the balls that enclose closed forms (privacy levels, capacities).
BALL_PREC = 128


@dataclass(frozen=True)
class ExactValue:
    """One component of the truth: a certified enclosure (None for +∞, then ``exact == "oo"``),
    and the exact value's text when known."""

    enclosure: Enclosure | None
    exact: str | None = None

    @classmethod
    def of_fraction(cls, q: Fraction) -> ExactValue:
        """An exact rational value."""
        return cls(Enclosure(q, q), str(q))


@dataclass(frozen=True)
class Truth:
    """What exactdp says about one case: values (None when they do not exist, e.g. a singular
    Φ), the certified verdict (None for value-only questions) and a note."""

    values: tuple[ExactValue, ...] | None
    verdict: Verdict | None
    note: str = ""


@dataclass(frozen=True)
class Question:
    """One question of the registry (see the module docstring for the list)."""

    name: str
    signature: str
    case: str
    has_verdict: bool
    read_case: Callable[[Any], tuple[Any, ...]]
    float_args: Callable[[tuple[Any, ...]], tuple[Any, ...]]
    truth: Callable[[tuple[Any, ...]], Truth]
    float_verdict: Callable[[tuple[Any, ...], tuple[float, ...], bool | None], bool | None]
    exact_verdict: Callable[[tuple[Any, ...], Truth, tuple[float, ...]], Verdict | None]
    boundary: Callable[[tuple[Any, ...], Truth, tuple[float, ...], Fraction], Enclosure | None]
    size: Callable[[tuple[Any, ...]], int] | None = None

    def expected_size(self, c: tuple[Any, ...]) -> int:
        """How many values the float function must return for the read case ``c``.

        >>> from exactdp.spaces.metrics import line
        >>> read_question("tight-constraints").expected_size((line(3), read_level(1)))
        3
        """
        return 1 if self.size is None else self.size(c)


# ---- reading cases ----


def read_level(x: Any) -> PrivacyLevel:
    """A :class:`PrivacyLevel` as is, else ``parse_level(eps=x)``; a level whose ε float64
    cannot hold (fl(ε) = 0 or ∞: the float function would be asked a different question)
    raises :class:`~exactdp.errors.InvalidPrivacyLevel`.

    >>> read_level("ln(2)").t
    Fraction(1, 2)
    >>> read_level(10**400)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    exactdp.errors.InvalidPrivacyLevel: Got ε = 1000...0 (401 digits), which float64 cannot ...
    """
    level = x if isinstance(x, PrivacyLevel) else parse_level(eps=x)
    e = level.eps_float()
    if not 0 < e < math.inf:
        text = str(level.eps)
        if len(text) > 40:
            text = f"{text[:4]}...{text[-1]} ({len(text)} digits)"
        raise InvalidPrivacyLevel(f"Got ε = {text}, which float64 cannot represent (fl(ε) = {e}): a float "
                                  f"function would be given {e} instead. Pass an ε between about 1e-300 "
                                  "and 1e300.")
    return level


def _at(metric: FiniteMetric, level: PrivacyLevel) -> dict[str, Any]:
    return {"t": level.t} if level.t is not None else {"eps": level.eps}


def _metric(x: Any) -> FiniteMetric:
    if not isinstance(x, FiniteMetric):
        raise InvalidArgument(f"Got {type(x).__name__} where a FiniteMetric was expected; build one "
                              "with exactdp.spaces.metrics (line, grid, from_matrix, ...).")
    return x


def _tuple(case: Any, sizes: tuple[int, ...], name: str) -> tuple[Any, ...]:
    if not isinstance(case, tuple) or len(case) not in sizes:
        raise InvalidArgument(f"Got case={case!r:.80}; the question {name!r} reads a tuple of "
                              f"{' or '.join(map(str, sizes))} items (see exactdp.testing.questions).")
    return case


def _rows(rows: Any) -> Any:
    """A :class:`~exactdp.mechanisms.Mechanism` as is, else exact rows (tuples of Fractions),
    checked row-stochastic (:class:`~exactdp.errors.InvalidMechanism` otherwise)."""
    if isinstance(rows, Mechanism):
        return rows
    try:
        out = tuple(tuple(Fraction(v) for v in r) for r in rows)
    except (TypeError, ValueError, ZeroDivisionError) as err:
        raise InvalidMechanism(f"Got rows={rows!r:.80}; pass a sequence of rows of exact "
                               f"probabilities (\"1/3\", Fraction, int): {err}") from err
    from_rows(out)  # validates: raises InvalidMechanism naming the bad row
    return out


def _n_inputs(rows: Any) -> int:
    return rows.n_inputs if isinstance(rows, Mechanism) else len(rows)


def _mech(rows: Any) -> Mechanism:
    return rows if isinstance(rows, Mechanism) else from_rows(rows)


def _read_tight(case: Any) -> tuple[Any, ...]:
    m, e = _tuple(case, (2,), "tight-constraints")
    return (_metric(m), read_level(e))


def _read_regularity(case: Any) -> tuple[Any, ...]:
    m, p, e = _tuple(case, (3,), "regularity")
    m = _metric(m)
    return (m, read_prior(m, p), read_level(e))


def _read_threshold(case: Any) -> tuple[Any, ...]:
    if isinstance(case, FiniteMetric):
        return (case, None)
    m, p = _tuple(case, (2,), "threshold")
    m = _metric(m)
    return (m, None if p is None else read_prior(m, p))


def _read_privacy(case: Any) -> tuple[Any, ...]:
    c = _tuple(case, (2, 3), "privacy-level")
    e = c[2] if len(c) == 3 else None
    rows, m = _rows(c[0]), _metric(c[1])
    if _n_inputs(rows) != m.n:
        raise InvalidMechanism(f"the mechanism has {_n_inputs(rows)} inputs but {m.name} has {m.n} "
                               "points; pass one row per point of the metric.")
    return (rows, m, None if e is None else read_level(e))


def _read_gain(case: Any) -> tuple[Any, ...]:
    rows, p = _tuple(case, (2,), "utility / min-entropy-leakage")
    rows = _rows(rows)
    n = _n_inputs(rows)
    return (rows, read_prior_values(p, n, f"the mechanism has {n} inputs"))


def _read_pufferfish(case: Any) -> tuple[Any, ...]:
    pair, e = _tuple(case, (2,), "pufferfish-theta")
    pair_laws(pair)  # validates
    return (pair, read_level(e))


def _read_sets(case: Any) -> tuple[Any, ...]:
    X, K, e = _tuple(case, (3,), "set-capacity")
    boxes = K.boxes if isinstance(K, BoxUnion) else (K,) if isinstance(K, Box) else tuple(K)
    X = point_set(X) if not isinstance(X, PointSet) else X
    K = BoxUnion(boxes)
    if K.boxes and K.boxes[0].dim != X.dim:  # capacity_functional would refuse it after fn ran
        raise InvalidBox(f"Got K in dimension {K.boxes[0].dim} for a point set in dimension "
                         f"{X.dim}; give the boxes the points' dimension.")
    return (X, K, read_level(e))


def describe_case(question: str, c: tuple[Any, ...]) -> str:
    """A one-line description of a read case (for reports).

    >>> from exactdp.spaces.metrics import line
    >>> describe_case("tight-constraints", (line(3), read_level("1/2")))
    'line(3) (n=3) at ε = 1/2'
    """
    parts = []
    for x in c:
        if isinstance(x, FiniteMetric):
            parts.append(f"{x.name} (n={x.n})")
        elif isinstance(x, PrivacyLevel):
            parts.append(f"at {x}")
        elif x is None:
            continue
        elif isinstance(x, Mechanism):
            parts.append(f"{x.n_inputs}×{x.n_outputs} mechanism")
        elif question in ("privacy-level", "utility", "min-entropy-leakage") and x is c[0]:
            parts.append(f"{len(x)}×{len(x[0])} mechanism")
        elif question in ("regularity", "threshold", "utility", "min-entropy-leakage"):
            parts.append("prior (" + ", ".join(map(str, x)) + ")")
        else:
            parts.append(_short(x))
    return " ".join(parts)


def _short(x: Any) -> str:
    """Compact text of distributions, secret pairs, point sets and boxes."""
    if isinstance(x, DiscreteDistribution):
        return "{" + ", ".join(f"{v}: {p}" for v, p in zip(x.support, x.probs)) + "}"
    if isinstance(x, PointSet):
        return "X = {" + "; ".join(",".join(map(str, p)) for p in x.points) + "}"
    if isinstance(x, BoxUnion):
        return "K = " + " ∪ ".join(
            "[" + ",".join(map(str, b.lower)) + "; " + ",".join(map(str, b.upper)) + "]" for b in x.boxes)
    if isinstance(x, SecretPair):
        P, Q = pair_laws(x)
        return f"{type(x).__name__} P={_short(P)} Q={_short(Q)}"
    return str(x)


# ---- float arguments ----


def _finite(v: Any, what: str) -> float:
    """float(v) for a float backend; a value float64 cannot hold (it overflows, or a nonzero value
    underflows to 0) is an invalid case: :class:`InvalidArgument` naming it, before fn runs."""
    try:
        f = float(v)
    except OverflowError:
        f = math.inf
    nonzero = v.square != 0 if isinstance(v, Distance) else v != 0
    if not math.isfinite(f) or (f == 0 and nonzero):
        raise InvalidArgument(
            f"the case's {what} {str(v):.60} is not representable as a float64 (it becomes "
            f"{f!r}); the oracle hands float64 inputs to your function: use values between about "
            "1e-300 and 1e300, or inputs='exact'.")
    return f


def _D(m: FiniteMetric) -> np.ndarray:
    vals = np.array([_finite(v, "distance") for v in m.values], dtype=np.float64)
    return vals[np.asarray(m.index)]


def _vec(p: Sequence[Fraction] | None) -> np.ndarray | None:
    return None if p is None else np.array([_finite(v, "value") for v in p], dtype=np.float64)


def _H(rows: Any) -> np.ndarray:
    if isinstance(rows, Mechanism):
        return np.asarray(rows.to_float(), dtype=np.float64)
    return np.array([[float(v) for v in r] for r in rows], dtype=np.float64)


def _float_eps(level: PrivacyLevel | None) -> float | None:
    return None if level is None else level.eps_float()


def _float_pufferfish(c: tuple[Any, ...]) -> tuple[Any, ...]:
    P, Q = pair_laws(c[0])
    return (_vec(P.support), _vec(P.probs), _vec(Q.support), _vec(Q.probs), c[1].eps_float())


def _float_sets(c: tuple[Any, ...]) -> tuple[Any, ...]:
    X, K, level = c
    pts = np.array([[_finite(v, "coordinate") for v in p] for p in X.points], dtype=np.float64)
    boxes = [(np.array([_finite(v, "box bound") for v in b.lower]),
              np.array([_finite(v, "box bound") for v in b.upper])) for b in K.boxes]
    return (pts, boxes, level.eps_float())


# ---- truths ----


def _enclose(expr: sympy.Expr) -> ExactValue:
    with workprec(BALL_PREC):
        lo, hi = arb_to_fraction_interval(sympy_to_arb(expr))
    return ExactValue(Enclosure(lo, hi), str(expr))


def _truth_tight(c: tuple[Any, ...]) -> Truth:
    m, level = c
    r = tight_constraints(m, **_at(m, level))
    values: tuple[ExactValue, ...] | None
    try:
        if r.is_exact:
            values = tuple(ExactValue.of_fraction(q) for q in r.z_exact)
        else:
            values = tuple(ExactValue(e) for e in r.z_enclosure)
    except PropertyNeverHolds:  # Φ singular and no z ≥ 0: there is no z to compare
        values = None
    return Truth(values, r.verdict, r.method)


def _truth_regularity(c: tuple[Any, ...]) -> Truth:
    m, prior, level = c
    r = is_regular(m, prior, **_at(m, level))
    try:
        enc = r.alpha_enclosure
    except PropertyNeverHolds:
        enc = None
    values = None if enc is None else tuple(
        ExactValue.of_fraction(e.lo) if e.lo == e.hi else ExactValue(e) for e in enc)
    return Truth(values, r.verdict, r.method)


def _truth_threshold(c: tuple[Any, ...]) -> Truth:
    m, prior = c
    try:
        r = epsilon_threshold(m, prior, tol=THRESHOLD_WIDTH)
    except PropertyNeverHolds as err:  # proved: the property holds at no ε, so ε* = +∞
        return Truth((ExactValue(None, "oo"),), None, f"never holds (ε* = +∞): {err}")
    exact = None if r.exact is None else str(r.exact)
    return Truth((ExactValue(Enclosure(r.eps_lower, r.eps_upper), exact),), None, r.method)


def _truth_privacy(c: tuple[Any, ...]) -> Truth:
    rows, m, level = c
    mech = _mech(rows)
    r = privacy_level(mech, m)
    if r.value is not None and r.value == sympy.oo:
        value = ExactValue(None, "oo")
    elif r.value is not None:
        value = _enclose(r.value)
    else:
        assert r.enclosure is not None
        value = ExactValue(r.enclosure)
    verdict = None
    if level is not None:
        verdict = Verdict.from_bool(is_private(mech, m, **({"eps": level.eps})).private)
    return Truth((value,), verdict, r.method)


def _truth_utility(c: tuple[Any, ...]) -> Truth:
    r = utility(_mech(c[0]), list(c[1]))
    v = ExactValue.of_fraction(r.value) if r.value is not None else ExactValue(r.enclosure)
    return Truth((v,), None)


def _truth_leakage(c: tuple[Any, ...]) -> Truth:
    r = min_entropy_leakage(_mech(c[0]), list(c[1]))
    if r.value is not None:
        v = _enclose(r.value)
        return Truth((ExactValue(v.enclosure, str(r.value)),), None)
    return Truth((ExactValue(r.enclosure),), None)


def _truth_pufferfish(c: tuple[Any, ...]) -> Truth:
    r = exact_scale(c[0], c[1].eps, tol=PUFFERFISH_WIDTH)
    text = None if r.theta_expr is None else str(r.theta_expr)
    if r.zero_noise:
        text = "0"
    return Truth((ExactValue(r.enclosure, text),), None, r.method)


def _truth_sets(c: tuple[Any, ...]) -> Truth:
    X, K, level = c
    r = capacity_functional(X, K, level.eps)
    with workprec(BALL_PREC):
        lo, hi = arb_to_fraction_interval(r.enclosure(BALL_PREC))
    return Truth((ExactValue(Enclosure(lo, hi), str(r.expr)),), None, r.method)


# ---- verdicts ----


def _fv_nonneg(c: tuple[Any, ...], fv: tuple[float, ...], given: bool | None) -> bool | None:
    return given if given is not None else all(v >= 0 for v in fv)


def _fv_privacy(c: tuple[Any, ...], fv: tuple[float, ...], given: bool | None) -> bool | None:
    if c[2] is None:
        return None
    return given if given is not None else bool(fv[0] <= c[2].eps_float())


def _fv_pufferfish(c: tuple[Any, ...], fv: tuple[float, ...], given: bool | None) -> bool | None:
    return True  # a returned θ* claims that Laplace(θ*) is private


def _fv_none(c: tuple[Any, ...], fv: tuple[float, ...], given: bool | None) -> bool | None:
    return None


def _ev_truth(c: tuple[Any, ...], truth: Truth, fv: tuple[float, ...]) -> Verdict | None:
    return truth.verdict


def _ev_pufferfish(c: tuple[Any, ...], truth: Truth, fv: tuple[float, ...]) -> Verdict | None:
    """Is Laplace(θ_float) private? Decided by the certified bracket of θ*, else directly."""
    assert truth.values is not None
    enc = truth.values[0].enclosure
    assert enc is not None
    if not np.isfinite(fv[0]):
        return Verdict.HOLDS if fv[0] > 0 else Verdict.FAILS
    theta = Fraction(fv[0])
    if theta <= 0:
        return Verdict.from_bool(enc.hi == 0)
    if theta >= enc.hi:
        return Verdict.HOLDS
    if theta <= enc.lo:
        return Verdict.FAILS
    P, Q = pair_laws(c[0])
    return decide_loss(P, Q, theta, c[1], direct=True).verdict


def _inner_window(level: PrivacyLevel, r: Fraction) -> tuple[Fraction, Fraction]:
    """Rationals a < ε < b with [a, b] ⊆ [ε(1 − r), ε(1 + r)], certified."""
    if level.eps_rational is not None:
        e = level.eps_rational
        return e * (1 - r), e * (1 + r)
    with workprec(BALL_PREC):
        lo, hi = arb_to_fraction_interval(level.eps_ball())
    return hi * (1 - r), lo * (1 + r)


def _flip_near(decide: Callable[[Fraction], Verdict], level: PrivacyLevel, verdict: Verdict,
               r: Fraction) -> Enclosure | None:
    """A certified bracket, within relative r of ε, in which the verdict flips (or None)."""
    a, b = _inner_window(level, r)
    with workprec(BALL_PREC):
        elo, ehi = arb_to_fraction_interval(level.eps_ball())
    for end, bracket in ((a, (a, ehi)), (b, (elo, b))):
        v = decide(end)
        if v.decided and v is not verdict:
            return Enclosure(*bracket)
    return None


def _bd_tight(c: tuple[Any, ...], truth: Truth, fv: tuple[float, ...], r: Fraction) -> Enclosure | None:
    m, level = c
    assert truth.verdict is not None
    return _flip_near(lambda e: tight_constraints(m, eps=e).verdict, level, truth.verdict, r)


def _bd_regularity(c: tuple[Any, ...], truth: Truth, fv: tuple[float, ...], r: Fraction) -> Enclosure | None:
    m, prior, level = c
    assert truth.verdict is not None
    return _flip_near(lambda e: is_regular(m, prior, eps=e).verdict, level, truth.verdict, r)


def _bd_privacy(c: tuple[Any, ...], truth: Truth, fv: tuple[float, ...], r: Fraction) -> Enclosure | None:
    assert truth.values is not None
    v = truth.values[0]
    if v.enclosure is None:
        return None
    a, b = _inner_window(c[2], r)
    return v.enclosure if a <= v.enclosure.lo and v.enclosure.hi <= b else None


def _bd_pufferfish(c: tuple[Any, ...], truth: Truth, fv: tuple[float, ...], r: Fraction) -> Enclosure | None:
    assert truth.values is not None
    enc = truth.values[0].enclosure
    if enc is None or not np.isfinite(fv[0]):
        return None
    theta = Fraction(fv[0])
    return enc if theta * (1 - r) <= enc.lo and enc.hi <= theta * (1 + r) else None


def _bd_none(c: tuple[Any, ...], truth: Truth, fv: tuple[float, ...], r: Fraction) -> Enclosure | None:
    return None


def _size_n(c: tuple[Any, ...]) -> int:
    return int(c[0].n)


def _q(name: str, signature: str, case: str, has_verdict: bool, read: Any, fargs: Any, truth: Any,
       fv: Any = _fv_none, ev: Any = _ev_truth, bd: Any = _bd_none, size: Any = None) -> Question:
    return Question(name, signature, case, has_verdict, read, fargs, truth, fv, ev, bd, size)


_ALL = (
    _q("tight-constraints", "fn(D, eps) -> z or (z, exists)", "(metric, eps)", True, _read_tight,
       lambda c: (_D(c[0]), c[1].eps_float()), _truth_tight, _fv_nonneg, _ev_truth, _bd_tight, _size_n),
    _q("regularity", "fn(D, prior, eps) -> alpha or (alpha, regular)", "(metric, prior, eps)", True,
       _read_regularity, lambda c: (_D(c[0]), _vec(c[1]), c[2].eps_float()), _truth_regularity,
       _fv_nonneg, _ev_truth, _bd_regularity, _size_n),
    _q("threshold", "fn(D, prior_or_None) -> eps_star", "metric or (metric, prior)", False,
       _read_threshold, lambda c: (_D(c[0]), _vec(c[1])), _truth_threshold),
    _q("privacy-level", "fn(H, D, eps_or_None) -> level or (level, private)",
       "(rows, metric) or (rows, metric, eps)", True, _read_privacy,
       lambda c: (_H(c[0]), _D(c[1]), _float_eps(c[2])), _truth_privacy, _fv_privacy, _ev_truth,
       _bd_privacy),
    _q("utility", "fn(H, prior) -> U", "(rows, prior)", False, _read_gain,
       lambda c: (_H(c[0]), _vec(c[1])), _truth_utility),
    _q("min-entropy-leakage", "fn(H, prior) -> L", "(rows, prior)", False, _read_gain,
       lambda c: (_H(c[0]), _vec(c[1])), _truth_leakage),
    _q("pufferfish-theta", "fn(p_points, p_probs, q_points, q_probs, eps) -> theta",
       "(pair, eps)", True, _read_pufferfish, _float_pufferfish, _truth_pufferfish,
       _fv_pufferfish, _ev_pufferfish, _bd_pufferfish),
    _q("set-capacity", "fn(X, boxes, eps) -> T", "(points, boxes, eps)", False, _read_sets,
       _float_sets, _truth_sets),
)

#: The questions by name.
QUESTIONS: dict[str, Question] = {q.name: q for q in _ALL}
#: Their names, in the documented order.
QUESTION_NAMES: tuple[str, ...] = tuple(q.name for q in _ALL)


def read_question(name: Any) -> Question:
    """The registered question called ``name``.

    >>> read_question("tight-constraints").has_verdict
    True
    """
    if isinstance(name, Question):
        return name
    if name not in QUESTIONS:
        raise InvalidArgument(f"Got question={name!r}; choose one of {', '.join(QUESTION_NAMES)}.")
    return QUESTIONS[name]
