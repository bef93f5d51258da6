"""The question a certificate answers, bound exactly: metric, right-hand side, level, property.

A :class:`Question` is what a certificate's ``verify()`` re-derives everything from, and what
its JSON ``"question"`` part carries in full, so a fresh process can re-check it::

    {"metric": {...}, "property": "regular", "rhs": ["1/2", "1/2"] | "ones" | null,
     "level": {"t": "1/2"} | {"eps": "4/5"} | {"eps_range": {"lo": "0", "hi": null}} | null,
     "mechanism": [["1/2", "1/2"], ...] | null}

(the metric's form and fingerprint: :mod:`exactdp.kernel.metricio`). Which parts a property
needs is fixed by :data:`SHAPES`; a question whose parts do not fit its property is refused.

Questions are built on the search side (:mod:`exactdp.engine.questions`: the canonical
metric, user-style arguments); the kernel checks them (:meth:`Question.bind`) and reads them.

Examples
--------
>>> from exactdp.spaces.metrics import line
>>> from exactdp.spaces.levels import parse_level
>>> q = Question.bind(line(3), ("line", '{"n":3}'), fingerprint(line(3)), "regular",
...                   ["1/3"] * 3, parse_level(t="1/2"))
>>> q.level.t, q.rhs
(Fraction(1, 2), (Fraction(1, 3), Fraction(1, 3), Fraction(1, 3)))
>>> Question.from_json(loads(dumps(q.to_json()))) == q
True
>>> Question.bind(line(3), None, q.fingerprint, "regular", ["1/2"] * 3, q.level)
Traceback (most recent call last):
...
exactdp.errors.InvalidPrior: prior sums to 3/2, not 1 (difference 1/2); ...
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Literal

import sympy

from exactdp.arithmetic.rationals import to_fraction
from exactdp.errors import CertificateInvalid, ExactDPError, InvalidArgument, InvalidMechanism, InvalidPrivacyLevel
from exactdp.kernel.jsonio import (
    dumps,
    loads,
    read_closed_form,
    read_object,
    read_rational,
    read_rationals,
    read_str,
    rows_of,
    write_closed_form,
    write_rational,
)
from exactdp.kernel.metricio import MAX_DISTANCE_POINTS, MAX_POINTS, fingerprint, read_metric_json, write_metric
from exactdp.spaces.levels import PrivacyLevel, parse_level
from exactdp.spaces.metrics import FiniteMetric
from exactdp.spaces.priors import read_prior_values

__all__ = ["Property", "EpsRange", "ALL_EPS", "ONES", "SHAPES", "Rhs", "as_property", "MAX_EXP_DEPTH",
           "MAX_STRICT_EXP_DEPTH", "MAX_FORM",
           "Question", "dumps", "loads", "read_level", "read_form", "write_level", "big_power",
           "linear_property", "LINEAR_PROPS"]

#: Deepest nesting of exp() accepted in a closed form read from JSON (deciding the sign of
#: towers can hang); the number of exp() terms is not limited (the cost grows linearly).
MAX_EXP_DEPTH = 3
#: The same for ``strict`` reads (Pufferfish levels and closed forms, whose identities expand).
MAX_STRICT_EXP_DEPTH = 2
#: Longest closed form read from JSON (characters).
MAX_FORM = 400
#: The right-hand side of the tight-constraints system Φz = 1.
ONES: Literal["ones"] = "ones"
Rhs = tuple[Fraction, ...] | Literal["ones"] | None


class Property(enum.StrEnum):
    """What is asked about the metric (the ``property`` string of the JSON form)."""

    TIGHT_CONSTRAINTS = "tight-constraints"  #: Φz = 1 has a solution z ≥ 0 at the level
    REGULAR = "regular"  #: Φx = prior has a solution x ≥ 0 at the level
    THRESHOLD_TIGHT = "threshold-tight"  #: where in the ε-range tight constraints hold
    THRESHOLD_REGULAR = "threshold-regular"  #: where in the ε-range the prior is regular
    PRIVATE = "private"  #: the mechanism is ε-d-private at the level
    PRIVACY_LEVEL = "privacy-level"  #: the least ε at which the mechanism is private
    NONNEGATIVE_SOLUTION = "nonnegative-solution"  #: Φx = b (any exact b) has a solution x ≥ 0


@dataclass(frozen=True)
class EpsRange:
    """The ε-range {ε > 0 : lo ≤ ε ≤ hi} of a threshold question (``hi=None``: no bound).

    >>> EpsRange(Fraction(1), Fraction(2))
    EpsRange(lo=Fraction(1, 1), hi=Fraction(2, 1))
    >>> EpsRange(Fraction(2), Fraction(1))
    Traceback (most recent call last):
    ...
    exactdp.errors.InvalidPrivacyLevel: Got the ε-range [2, 1]; need 0 ≤ lo < hi (hi=None for no upper bound).
    """

    lo: Fraction
    hi: Fraction | None = None

    def __post_init__(self) -> None:
        lo = to_fraction(self.lo, "lo")
        hi = None if self.hi is None else to_fraction(self.hi, "hi")
        if lo < 0 or (hi is not None and hi <= lo):
            raise InvalidPrivacyLevel(f"Got the ε-range [{lo}, {hi}]; need 0 ≤ lo < hi (hi=None for no upper bound).")
        object.__setattr__(self, "lo", lo)
        object.__setattr__(self, "hi", hi)



#: Every ε > 0.
ALL_EPS = EpsRange(Fraction(0), None)

#: property -> (right-hand side, level, needs a mechanism): rhs "ones" | "prior" | "vector" | None,
#: level "exact" (a PrivacyLevel) | "range" (an EpsRange) | None.
SHAPES: dict[Property, tuple[str | None, str | None, bool]] = {
    Property.TIGHT_CONSTRAINTS: ("ones", "exact", False),
    Property.REGULAR: ("prior", "exact", False),
    Property.THRESHOLD_TIGHT: ("ones", "range", False),
    Property.THRESHOLD_REGULAR: ("prior", "range", False),
    Property.PRIVATE: (None, "exact", True),
    Property.PRIVACY_LEVEL: (None, None, True),
    Property.NONNEGATIVE_SOLUTION: ("vector", "exact", False),
}


@dataclass(frozen=True)
class Question:
    """One exact question about a finite metric space.

    Build it with :meth:`bind` (every part checked) or :meth:`from_json`; the search side's
    :func:`exactdp.engine.questions.make_question` binds the metric's canonical form.

    Attributes
    ----------
    metric : FiniteMetric
        The canonical metric (not compared: the fingerprint stands for it).
    prop : Property
        What is asked.
    rhs : tuple of Fraction, "ones" or None
        The prior (exact, nonnegative, summing to 1), :data:`ONES`, or None.
    level : PrivacyLevel, EpsRange or None
        The exact level (t = e^-ε held exactly when rational), an ε-range, or None.
    mechanism : tuple of tuples of Fraction, or None
        Exact row-stochastic rows, one per point (mechanism questions only).
    fingerprint : str
        SHA-256 of the point order and exact distances (:func:`~exactdp.kernel.metricio.fingerprint`).
    builtin : (constructor, params JSON text) or None
        How the metric travels: by its library constructor, or (None) by its distances.
    """

    metric: FiniteMetric = field(compare=False, repr=False)
    prop: Property
    rhs: Rhs
    level: PrivacyLevel | EpsRange | None
    mechanism: tuple[tuple[Fraction, ...], ...] | None
    fingerprint: str
    builtin: tuple[str, str] | None = field(compare=False, repr=False)

    @classmethod
    def bind(cls, metric: FiniteMetric, spec: tuple[str, str] | None, fp: str, prop: Property | str,
             rhs: Any = None, level: Any = None, mechanism: Any = None) -> Question:
        """Check every part against the property (:data:`SHAPES`) and bind it to the metric
        whose canonical form, spec and fingerprint are given."""
        prop = as_property(prop)
        rhs_kind, level_kind, needs_mech = SHAPES[prop]
        n = metric.n
        if rhs_kind == "ones":
            if rhs != ONES:
                raise InvalidArgument(f"Got rhs={rhs!r} for {prop.value!r}; its right-hand side is {ONES!r}.")
        elif rhs_kind == "prior":
            if rhs is None or isinstance(rhs, str):
                raise InvalidArgument(f"Got rhs={rhs!r} for {prop.value!r}; pass the prior as {n} exact probabilities.")
            rhs = read_prior_values(rhs, n, f"{metric.name} has {n} points")
        elif rhs_kind == "vector":
            if rhs is None or isinstance(rhs, str) or len(rhs) != n:
                raise InvalidArgument(f"Got rhs={rhs!r} for {prop.value!r}; pass b as {n} exact rationals.")
            rhs = tuple(to_fraction(v, "rhs entry") for v in rhs)
        elif rhs is not None:
            raise InvalidArgument(f"Got rhs={rhs!r} for {prop.value!r}; it takes none.")
        level = _check_level(level, level_kind, prop)
        if not needs_mech and mechanism is not None:
            raise InvalidArgument(f"Got a mechanism for {prop.value!r}; only {Property.PRIVATE.value!r} and "
                                  f"{Property.PRIVACY_LEVEL.value!r} take one.")
        mech = _check_mechanism(mechanism, n, prop) if needs_mech else None
        return cls(metric, prop, rhs, level, mech, fp, spec)

    # -- JSON ------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """The ``"question"`` part of a certificate document (exact; see the module doc)."""
        return {
            "metric": write_metric(self.metric, self.builtin, self.fingerprint),
            "property": self.prop.value,
            "rhs": (self.rhs if self.rhs is None or isinstance(self.rhs, str)
                    else [write_rational(p, "prior") for p in self.rhs]),
            "level": write_level(self.level),
            "mechanism": None if self.mechanism is None else [
                [write_rational(x, "mechanism") for x in row] for row in self.mechanism],
        }

    @classmethod
    def from_json(cls, value: Any, *, max_points: int = MAX_POINTS,
                  max_distance_points: int = MAX_DISTANCE_POINTS) -> Question:
        """Rebuild and check a question read from JSON.

        Raises :class:`~exactdp.errors.InvalidArgument` (or its subclasses InvalidMetric,
        InvalidPrior, InvalidPrivacyLevel, InvalidMechanism) for a malformed or
        non-canonical part, and :class:`~exactdp.errors.CertificateInvalid` when the
        stated fingerprint is not that of the rebuilt metric (the question was altered).

        >>> from exactdp.spaces.levels import parse_level
        >>> from exactdp.spaces.metrics import line
        >>> doc = Question.bind(line(3), ("line", '{"n":3}'), fingerprint(line(3)), "tight-constraints",
        ...                     ONES, parse_level(t="1/2")).to_json()
        >>> doc["metric"]["params"]["n"] = 4
        >>> Question.from_json(doc)
        Traceback (most recent call last):
        ...
        exactdp.errors.InvalidArgument: question.metric: line with these params has 4 points, not n = 3.
        """
        obj = read_object(value, "question", ("metric", "property", "rhs", "level", "mechanism"))
        metric, spec, stated = read_metric_json(obj["metric"], max_points=max_points,
                                                max_distance_points=max_distance_points)
        prop = Property(read_str(obj["property"], "question.property", [p.value for p in Property]))
        n = metric.n
        rhs: Rhs = obj["rhs"] if obj["rhs"] in (None, ONES) else read_rationals(obj["rhs"], "question.rhs", n)
        level = read_level(obj["level"], ranges=True)
        mech = None if obj["mechanism"] is None else tuple(
            read_rationals(r, f"question.mechanism[{i}]")
            for i, r in enumerate(rows_of(obj["mechanism"], "question.mechanism", n)))
        fp = fingerprint(metric, max(max_points, max_distance_points))
        if fp != stated:
            raise CertificateInvalid(f"question.metric.fingerprint is {stated[:20]!r}..., but the metric it describes "
                                     f"has {fp[:20]!r}...: the question was altered (or written by other code); "
                                     "re-create the certificate from the question.")
        q = cls.bind(metric, spec, fp, prop, rhs, level, mech)
        if dumps(q.to_json()) != dumps(obj):
            raise InvalidArgument("question: not in the canonical form this version writes (e.g. an ε that should be "
                                  "written as t, or reordered distances); re-write it with Question.to_json().")
        return q


#: The properties of a linear-system question Φx = b.
LINEAR_PROPS = (Property.TIGHT_CONSTRAINTS, Property.REGULAR, Property.NONNEGATIVE_SOLUTION)


def linear_property(b: Sequence[Fraction]) -> Property:
    """The property of Φx = b: ``tight-constraints`` when b = 1, ``regular`` when b is a
    probability vector, else ``nonnegative-solution``."""
    if all(v == 1 for v in b):
        return Property.TIGHT_CONSTRAINTS
    if all(v >= 0 for v in b) and sum(b, Fraction(0)) == 1:
        return Property.REGULAR
    return Property.NONNEGATIVE_SOLUTION


def as_property(value: Any) -> Property:
    """``value`` as a :class:`Property` (refused with the list of choices)."""
    try:
        return Property(value)
    except ValueError as exc:
        raise InvalidArgument(f"Got prop={value!r}; choose one of {[p.value for p in Property]}.") from exc


# ------------------------------------------------------------------------------ levels
# a SHAPES level kind -> (the type a level of that kind has, how to pass one)
_LEVEL_KINDS: dict[str | None, tuple[type[Any], str]] = {
    None: (type(None), "None (it takes no level)"), "range": (EpsRange, "an EpsRange (ALL_EPS for every ε > 0)"),
    "exact": (PrivacyLevel, "parse_level(eps=...) or parse_level(t=...)")}


def _check_level(level: Any, kind: str | None, prop: Property) -> PrivacyLevel | EpsRange | None:
    if not isinstance(level, _LEVEL_KINDS[kind][0]):
        raise InvalidArgument(f"Got level={level!r} for {prop.value!r}; pass {_LEVEL_KINDS[kind][1]}.")
    if not isinstance(level, PrivacyLevel):
        return level  # type: ignore[no-any-return]  # None or an EpsRange
    out: PrivacyLevel = parse_level(t=level.t) if level.t is not None else level  # canonical
    if out.t is None:  # refuses a closed form that cannot travel (or be read back)
        read_form(write_closed_form(out.eps, "level.eps"), "level.eps", InvalidPrivacyLevel)
    return out


def write_level(level: PrivacyLevel | EpsRange | None) -> dict[str, Any] | None:
    """The JSON form of a level: ``{"t"}`` when t = e^-ε is rational, else ``{"eps"}``, or
    ``{"eps_range"}``, or None."""
    if level is None:
        return None
    if isinstance(level, EpsRange):
        return {"eps_range": {"lo": write_rational(level.lo, "level.lo"),
                              "hi": None if level.hi is None else write_rational(level.hi, "level.hi")}}
    if level.t is not None:
        return {"t": write_rational(level.t, "level.t")}
    return {"eps": write_closed_form(level.eps, "level.eps")}


def read_level(value: Any, where: str = "question.level", *, ranges: bool = False,
               strict: bool = False) -> PrivacyLevel | EpsRange | None:
    """Read a level: ``{"t": "p/q"}``, ``{"eps": closed form}`` (only when t is irrational;
    :func:`read_form` limits, ``strict`` as there), and with ``ranges`` also ``null`` or
    ``{"eps_range"}``.

    >>> read_level({"eps": "log(2)"})
    Traceback (most recent call last):
    ...
    exactdp.errors.InvalidArgument: question.level: ε = log(2) has t = e^-ε = 1/2; write {"t": '1/2'}.
    """
    keys = ("t", "eps", "eps_range") if ranges else ("t", "eps")
    if value is None and ranges:
        return None
    if not isinstance(value, dict) or len(value) != 1 or next(iter(value)) not in keys:
        raise InvalidArgument(f"{where}: expected {'null or ' * ranges}an object with one key {' or '.join(keys)}.")
    ((key, v),) = value.items()
    if key == "eps_range":
        obj = read_object(v, where + ".eps_range", ("lo", "hi"))
        return EpsRange(read_rational(obj["lo"], where + ".eps_range.lo"),
                        None if obj["hi"] is None else read_rational(obj["hi"], where + ".eps_range.hi"))
    try:
        if key == "t":
            return parse_level(t=read_rational(v, where + ".t"))
        level: PrivacyLevel = parse_level(eps=read_form(v, where + ".eps", InvalidPrivacyLevel, strict=strict))
    except InvalidArgument as exc:  # parse_level's own message names no place: name it
        if not str(exc).startswith(where):
            exc.args = (f"{where}.{key}: {exc}",)
        raise
    except ExactDPError as exc:  # e.g. the sign of ε could not be decided
        raise InvalidPrivacyLevel(f"{where}: {exc}") from exc
    if level.t is not None:
        raise InvalidArgument(f"{where}: ε = {v} has t = e^-ε = {level.t}; write "
                              f"{{\"t\": {write_rational(level.t)!r}}}.")
    return level


def read_form(value: Any, where: str, error: type[InvalidArgument] = InvalidArgument, *,
              strict: bool = False) -> sympy.Expr:
    """A closed form with exp() nested at most :data:`MAX_EXP_DEPTH` deep (deciding the sign
    of towers can hang; huge powers such as exp(10**35*log(3/2)) are refused by the parser
    before sympy builds them); ``strict`` also caps the nesting at
    :data:`MAX_STRICT_EXP_DEPTH`, the text at :data:`MAX_FORM` characters and numbers at 64
    in exponents and log() factors (for identities that are expanded). ``error`` is raised
    otherwise.

    >>> read_form("exp(exp(exp(exp(2))))", "eps")
    Traceback (most recent call last):
    ...
    exactdp.errors.InvalidArgument: eps: 'exp(exp(exp(exp(2))))' nests exp() 4 deep, over the limit of 3; ...
    >>> read_form("exp(1/7) + exp(1/5) + exp(1/3) + exp(1/2)", "eps", strict=True)
    exp(1/7) + exp(1/5) + exp(1/3) + exp(1/2)
    """
    if strict and isinstance(value, str) and len(value) > MAX_FORM:
        raise error(f"{where}: a closed form over {MAX_FORM} characters.")
    expr = read_closed_form(value, where, error)
    depth, limit = _depth(expr), MAX_STRICT_EXP_DEPTH if strict else MAX_EXP_DEPTH
    if depth > limit:
        raise error(f"{where}: {value!r} nests exp() {depth} deep, over the limit of {limit}; such towers are refused.")
    if strict and any(big_power(n) for n in sympy.preorder_traversal(expr)):
        raise error(f"{where}: {value!r} has a power (or a factor of log()) beyond 64; such forms are refused.")
    return expr


def _depth(expr: sympy.Basic) -> int:
    """How deeply exp() nests in ``expr`` (E**x counts as exp)."""
    inner = max((_depth(a) for a in expr.args), default=0)
    return inner + (isinstance(expr, sympy.exp) or getattr(expr, "base", None) == sympy.E)


def big_power(n: sympy.Basic) -> bool:
    """A number beyond 64 in an exponent or in c of c·log(w) (exp() of it evaluates w**c)."""
    if isinstance(n, sympy.Pow):
        e = n.exp
    elif isinstance(n, sympy.Mul) and any(isinstance(a, sympy.log) for a in n.args):
        e = sympy.Mul(*(a for a in n.args if not isinstance(a, sympy.log)))
    else:
        return False
    return any(max(abs(r.p), r.q) > 64 for r in e.atoms(sympy.Rational))


def _check_mechanism(rows: Any, n: int, prop: Property) -> tuple[tuple[Fraction, ...], ...]:
    if rows is None:
        raise InvalidMechanism(f"{prop.value!r} needs the mechanism: {n} rows of exact probabilities.")
    out = tuple(tuple(to_fraction(x, "mechanism entry") for x in r) for r in rows)
    if len(out) != n or not out or not out[0] or any(len(r) != len(out[0]) for r in out):
        raise InvalidMechanism(f"Got a mechanism with {len(out)} rows of lengths "
                               f"{sorted({len(r) for r in out})}; need {n} rows of one length ≥ 1.")
    for i, r in enumerate(out):
        if any(x < 0 for x in r) or sum(r, Fraction(0)) != 1:
            raise InvalidMechanism(f"mechanism row {i} has a negative entry or sums to "
                                   f"{sum(r, Fraction(0))}; each row is a distribution (sum 1).")
    return out
