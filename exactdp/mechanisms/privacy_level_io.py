"""JSON forms of a :class:`~exactdp.mechanisms.privacy_result.PrivacyLevelResult`, and the
mathematical equality that a read-back is judged by.

* :func:`level_to_json` / :func:`level_from_json` — the result's own exact JSON (every field,
  about a mechanism and metric the caller holds); ``PrivacyLevelResult.to_json`` /
  ``from_json`` call them.
* :func:`level_from_kernel_document` — a ``privacy-level`` kernel document
  (:mod:`exactdp.mechanisms.privacy_json`) read back *after* the kernel re-checked it: the
  mechanism and metric are the document's own; ``PrivacyLevelResult.from_document`` calls it.
* :func:`same_level` — two results state the same answer: the same exact value (decided
  exactly, not by the shape of the sympy expression: ``log(4)`` equals ``2*log(2)``), the same
  enclosure, witness and witness distance, and the same witness ratio when both store one.
  ``method`` (the route that found the level) and ``pairs_checked`` (how many pairs *that*
  metric object made it read: a graph metric reads its edges, its portable form all pairs)
  are provenance, not the answer. At the level 0 every pair attains the level, so no witness
  (nor its ratio 1 and distance) is part of the answer. A stored ratio is e^{V·d} of the value V and distance d,
  so comparing it only when both store one keeps the relation transitive on genuine results.
Two values are equal when their expressions are, or when both read exactly as ln(T)/e
(a k·√s·ln T tree, a sum of logs of rationals, or — at the stored distance d — v·d expanding
to Σ c·ln p with rational c, p: −ln(2√6/9) = ln(27/8)/2) and :func:`log_sign` proves them
equal; otherwise they are unequal (a false "unequal" is possible for values of no such form,
e.g. ln(2)² vs ln(4)²/4; a false "equal" is not).

Not part of the answer either, by design: the *mechanism and metric* (``_mechanism``,
``_metric``; comparing exact rows would cost O(n·m) per ``==``): two results about different
mechanisms with the same value, enclosure, witness and distance compare equal — compare
``res._mechanism`` yourself when that matters. And the *witness* is compared although, when
several pairs attain the level, it is provenance (which route found which pair): the same
level of the same mechanism found by two routes can compare unequal (e.g. witness (0, 1, 0)
by the monomial route, (1, 2, 0) by the entry scan).

>>> from exactdp.spaces.metrics import line
>>> from exactdp.mechanisms.constructors import truncated_geometric
>>> from exactdp.mechanisms.privacy import privacy_level
>>> from exactdp.mechanisms.privacy_result import PrivacyLevelResult
>>> r = privacy_level(truncated_geometric(3, t="1/4"), line(3))
>>> back = PrivacyLevelResult.from_document(r.to_document())
>>> r.method, back.method, r == back
('monomial', 'exact', True)
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import sympy

from exactdp.arithmetic.interval import Enclosure
from exactdp.arithmetic.rationals import to_fraction, unlimited_int_digits
from exactdp.errors import InvalidArgument
from exactdp.kernel.jsonio import (
    read_bool,
    read_closed_form,
    read_enclosure,
    read_int,
    read_list,
    read_object,
    read_rational,
    read_str,
    write_closed_form,
    write_enclosure,
    write_rational,
)
from exactdp.kernel.privacy import LogValue, log_form, log_sign
from exactdp.mechanisms.constructors import from_rows
from exactdp.mechanisms.level_compare import log_ratio_value
from exactdp.mechanisms.mechanism import Mechanism
from exactdp.mechanisms.privacy_json import accepted_document
from exactdp.spaces.distances import Distance
from exactdp.spaces.metrics import FiniteMetric

if TYPE_CHECKING:
    from exactdp.mechanisms.privacy_result import PrivacyLevelResult

__all__ = ["VALUE_BY_RATIO", "LEVEL_METHODS", "level_to_json", "level_from_json",
           "level_from_kernel_document", "same_level", "level_hash"]

#: ``value_form`` of a JSON level whose closed form is too long to write: log(ratio)/distance.
VALUE_BY_RATIO = "log(ratio)/distance"
#: The routes a level can come from (``PrivacyLevelResult.method``).
LEVEL_METHODS = ("monomial", "row-monomial", "exact", "ball", "tight", "merged-monomial")


# ---------------------------------------------------------------------------- to_json
def level_to_json(res: PrivacyLevelResult) -> dict[str, Any]:
    """Every field of ``res`` as exact JSON (:mod:`exactdp.kernel.jsonio` forms)."""
    with unlimited_int_digits():  # exact rationals of any size (e.g. a ratio 10^5000)
        d = res.distance
        by_ratio = _value_by_ratio(res)
        doc = {
            "value": None if res.value is None or res.is_infinite or by_ratio
            else write_closed_form(res.value, "level"),
            "infinite": res.is_infinite,
            "enclosure": None if res.enclosure is None else write_enclosure(res.enclosure),
            "witness": None if res.witness is None else list(res.witness),
            "ratio": None if res.ratio is None else write_rational(res.ratio, "ratio"),
            "distance": None if d is None else {"coef": write_rational(d.coef, "distance"),
                                                "radicand": write_rational(d.radicand,
                                                                           "distance")},
            "exact": res.exact, "method": res.method, "pairs_checked": res.pairs_checked,
        }
        if by_ratio:  # a closed form too long to write: it is log(ratio)/distance exactly
            doc["value_form"] = VALUE_BY_RATIO
        return doc


def _value_by_ratio(res: PrivacyLevelResult) -> bool:
    """True when the value is log(ratio)/distance and its text is too long for a closed
    form (a ratio of more than ~1500 digits): JSON then stores only the ratio."""
    if res.ratio is None or res.distance is None or res.value is None:
        return False
    bits = res.ratio.numerator.bit_length() + res.ratio.denominator.bit_length()
    return bits > 4000 and res.value == log_ratio_value(res.ratio, res.distance)


# -------------------------------------------------------------------------- from_json
def level_from_json(cls: type[PrivacyLevelResult], doc: Any, mechanism: Mechanism,
                    metric: FiniteMetric) -> PrivacyLevelResult:
    """Read :func:`level_to_json` back (malformed: InvalidArgument naming the field)."""
    with unlimited_int_digits():  # what to_json wrote, of any size
        return _read(cls, doc, mechanism, metric)


def _read(cls: type[PrivacyLevelResult], doc: Any, mechanism: Mechanism,
          metric: FiniteMetric) -> PrivacyLevelResult:
    obj = read_object(doc, "privacy level", ("value", "infinite", "enclosure", "witness", "ratio",
                                              "distance", "exact", "method", "pairs_checked"),
                      ("value_form",))
    infinite = read_bool(obj["infinite"], "infinite")
    if infinite and obj["value"] is not None:
        raise InvalidArgument("privacy level: an infinite level has value null; got "
                              f"value {obj['value']!r}.")
    value = sympy.oo if infinite else (
        None if obj["value"] is None else read_closed_form(obj["value"], "value"))
    by_ratio = "value_form" in obj
    if by_ratio and (read_str(obj["value_form"], "value_form", (VALUE_BY_RATIO,)) and (
            value is not None or obj["ratio"] is None or obj["distance"] is None)):
        raise InvalidArgument("privacy level: value_form 'log(ratio)/distance' needs "
                              "value null and both ratio and distance.")
    enc = None if obj["enclosure"] is None else read_enclosure(obj["enclosure"])
    w = obj["witness"]
    n_in, n_out = mechanism.shape  # (y, y', z): two inputs and an output
    witness = None if w is None else tuple(
        read_int(x, f"witness[{k}] ({'an output' if k == 2 else 'an input'})", lo=0,
                 hi=(n_out if k == 2 else n_in) - 1)
        for k, x in enumerate(read_list(w, "witness", 3)))
    ratio = None if obj["ratio"] is None else read_rational(obj["ratio"], "ratio")
    dist = None
    if obj["distance"] is not None:
        dd = read_object(obj["distance"], "distance", ("coef", "radicand"))
        dist = Distance(read_rational(dd["coef"], "distance.coef"),
                        int(read_rational(dd["radicand"], "distance.radicand", integer=True)))
    if by_ratio:
        assert ratio is not None and dist is not None
        if ratio <= 0:
            raise InvalidArgument(f"privacy level: ratio {ratio} must be > 0.")
        value = log_ratio_value(ratio, dist)
    method = read_str(obj["method"], "method", LEVEL_METHODS)
    res = cls(value=value, enclosure=enc, witness=witness,  # type: ignore[arg-type]
              ratio=ratio, distance=dist, method=method,
              pairs_checked=read_int(obj["pairs_checked"], "pairs_checked", lo=0),
              _mechanism=mechanism, _metric=metric)
    if read_bool(obj["exact"], "exact") != res.exact:
        raise InvalidArgument("privacy level: 'exact' contradicts 'value'.")
    return res


# ------------------------------------------------------------------- kernel documents
def level_from_kernel_document(cls: type[PrivacyLevelResult], doc: Any) -> PrivacyLevelResult:
    """The level a ``privacy-level`` document states, after the kernel accepted it.

    The mechanism (exact rows) and metric (canonical form) are the document's; the value is
    0, ∞ or ln(R)/d of the witness, the enclosure the document's own (the kernel proved it
    contains the value) intersected with [0, ∞) (a level is ≥ 0; the kernel accepts a lower
    end below 0, ``verify()`` does not), the method ``"exact"`` (the document does not say
    which route found the level, and the kernel does not need to know). A document's
    enclosure may be wider than the writer's: the read-back then differs from the original
    under ``==`` (the enclosure is part of the answer) although its ``verify()`` holds.
    """
    with unlimited_int_digits():
        q, claim = accepted_document(doc, "privacy-level")
        assert q.mechanism is not None
        mech, metric = from_rows(q.mechanism), q.metric
        npairs = len(metric.check_edges())
        enc = None if claim["enclosure"] is None else read_enclosure(claim["enclosure"])
        w = None if claim["witness"] is None else tuple(claim["witness"])
        value, ratio, dist = claim["value"], None, None
        if value == "0":
            if enc is None:  # the writer always states [0, 0]; the kernel allows none
                enc = Enclosure(Fraction(0), Fraction(0))
            v: sympy.Expr = sympy.Integer(0)
            w = None
        elif value == "infinite":
            assert w is not None  # the kernel accepted: an infinite level has its witness
            v, enc, dist = sympy.oo, None, metric.distance(w[0], w[1])
        else:
            assert w is not None  # the kernel accepted: ln(R)/d has its witness
            a, b, z = w
            ratio, dist = Fraction(mech.entry(a, z) / mech.entry(b, z)), metric.distance(a, b)
            v = log_ratio_value(ratio, dist)
            if enc is None:
                raise InvalidArgument("claim.enclosure: a finite level needs its enclosure.")
        if enc is not None and enc.lo < 0:  # a level is ≥ 0: [max(lo, 0), hi] still holds it
            enc = Enclosure(Fraction(0), enc.hi)
        return cls(value=v, enclosure=enc, witness=w, ratio=ratio, distance=dist,
                   method="exact", pairs_checked=npairs, _mechanism=mech, _metric=metric)


# --------------------------------------------------------------------------- equality
def _log_key(res: PrivacyLevelResult) -> LogValue | None:
    """The finite positive value as ln(T)/e, read exactly from its expression tree."""
    v = res.value
    if v is None or not v.is_finite or v == 0:
        return None
    key = log_form(v)
    if key is None:  # e.g. (Δ·(−ln s) + ln S_b − ln S_a)/d: one log of a rational
        key = log_form(sympy.logcombine(sympy.expand_log(v, force=True), force=True))
    if key is None and res.distance is not None:
        key = _key_at_distance(v, res.distance)
    return key


def _key_at_distance(v: sympy.Expr, d: Distance) -> LogValue | None:
    """ln(T)/(D·d) when v·d expands (log rules for positive arguments) to Σ c_i·ln p_i with
    c_i, p_i > 0 rational (D: the lcm of the c_i's denominators, T = Π p_i^{c_i·D}). Read from
    ``v`` itself (the stored ratio is not trusted): −ln(2√6/9) at d = 2 is ln(27/8)/2. None
    otherwise, or when T would exceed 100,000 bits."""
    if not all(a.args[0].is_positive for a in v.atoms(sympy.log)):
        return None
    terms = []
    for t in sympy.Add.make_args(sympy.expand(sympy.expand_log(sympy.expand(v * d.to_sympy()),
                                                               force=True))):
        c, f = t.as_coeff_Mul()
        if not (isinstance(c, sympy.Rational) and isinstance(f, sympy.log)
                and isinstance(f.args[0], sympy.Rational) and f.args[0] > 0):
            return None
        terms.append((to_fraction(c), to_fraction(f.args[0])))
    D = math.lcm(*(c.denominator for c, _ in terms)) if terms else 1
    if sum(abs(c * D) * (p.numerator.bit_length() + p.denominator.bit_length())
           for c, p in terms) > 100_000:
        return None
    T = math.prod((p ** int(c * D) for c, p in terms), start=Fraction(1))
    return LogValue(T, Distance(d.coef * D, d.radicand)) if T > 1 else None


def _same_value(a: PrivacyLevelResult, b: PrivacyLevelResult) -> bool:
    if a.value == b.value:
        return True
    ka, kb = _log_key(a), _log_key(b)
    if ka is None or kb is None:
        return False  # not both ln(T)/e: only equal expressions count as equal
    return log_sign(ka.T, ka.e, kb.T, kb.e) == 0


def same_level(a: PrivacyLevelResult, b: PrivacyLevelResult) -> bool:
    """Equality on the mathematical content (see the module docstring)."""
    if a.exact != b.exact or a.enclosure != b.enclosure:
        return False
    if a.value == 0 and b.value == 0:
        return True  # every pair attains the level 0: no witness is distinguished
    if a.witness != b.witness or a.distance != b.distance:
        return False
    if a.ratio is not None and b.ratio is not None and a.ratio != b.ratio:
        return False
    return _same_value(a, b)


def level_hash(res: PrivacyLevelResult) -> int:
    """A hash consistent with :func:`same_level` (fields that equal results share)."""
    if res.value == 0:
        return hash((res.exact, res.enclosure))
    return hash((res.exact, res.enclosure, res.witness, res.distance))
