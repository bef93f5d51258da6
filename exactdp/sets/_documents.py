"""Writers of the set documents (schema in docs/readme/certificate_schema.md):

* ``set-privacy`` (an exact set-privacy verdict, with its question reader) and ``set-capacity``
  (a capacity functional), checked by :mod:`exactdp.kernel.sets` (the ``set-hausdorff`` /
  ``set-diameter`` writers are the results' own ``to_document``);
* ``set-hausdorff-real``, ``set-capacity-real`` and ``set-privacy-real`` of the certified
  (real-coordinate) results, checked by :mod:`exactdp.kernel.sets_real`: coordinates as
  rationals or minimal polynomial + isolating interval (a structural degree bound before
  sympy's minimal polynomial), padded enclosures, the reader of a verified document's points
  and boxes, and :class:`RealDocument` (``verify()`` — the kernel's verdict, else the Python
  re-check — and ``from_document()``)."""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Any, ClassVar

import sympy
from flint import arb

from exactdp.arithmetic.ball import arb_lower_dyadic, sympy_to_arb, workprec
from exactdp.arithmetic.interval import Enclosure
from exactdp.arithmetic.rationals import to_fmpq, to_fraction, to_sympy
from exactdp.errors import (
    CertificateInvalid,
    ExactnessRequired,
    InstanceTooLarge,
    InvalidArgument,
    PrecisionLimitReached,
)
from exactdp.kernel.jsonio import (
    envelope,
    loads,
    read_envelope,
    read_object,
    read_rational,
    write_enclosure,
    write_rational,
)
from exactdp.kernel.question import read_level, write_level
from exactdp.kernel.sets import MAX_DIM, SET_CAPACITY, SET_PRIVACY, capacity_work, exponent_check, write_exp_poly
from exactdp.kernel.sets_real import (
    MAX_COEFF_BITS,
    MAX_END_BITS,
    MAX_RATIONAL_BITS,
    MAX_REAL_DEGREE,
    MAX_REAL_POINTS,
    MAX_REAL_PREC,
    ie_check,
    real_work,
)
from exactdp.kernel.verify import verify_document
from exactdp.kinds import CertificateKind
from exactdp.sets._boxes import Box
from exactdp.sets._exppoly import ExpPoly
from exactdp.sets._points import PointSet
from exactdp.spaces.levels import PrivacyLevel

__all__ = ["write_set_privacy", "set_privacy_question", "write_capacity", "capacity_limits", "write_real_points",
           "padded_enclosure", "real_document", "read_real_points", "REAL_DOCUMENT_PREC", "RealDocument",
           "read_boxes", "MAX_VALUE_BITS"]

#: Default ``precision`` of the certified (``*-real``) documents.
REAL_DOCUMENT_PREC = 512
#: Largest magnitude 2^MAX_VALUE_BITS of a quantity a ``*-real`` claim encloses.
MAX_VALUE_BITS = 65_536


def _rational(value: sympy.Expr, name: str) -> Fraction:
    if not isinstance(value, sympy.Rational):
        raise InvalidArgument(f"{name} = {value} is not rational; a set-privacy document needs "
                              "norm='l1' or 'linf' (rational distances).")
    return to_fraction(value, name)


def write_set_privacy(X: PointSet, Y: PointSet, K: tuple[Box, ...], level: PrivacyLevel,
                      norm: str, bound: str, holds: bool, T_X: ExpPoly, T_Y: ExpPoly,
                      d_H: sympy.Expr, diam_K: sympy.Expr) -> dict[str, Any]:
    """The document (InvalidArgument for an ℓ2 norm or a callable bound, InstanceTooLarge
    beyond the limits the kernel reads — MAX_POINTS points or boxes, MAX_DIM, MAX_WORK,
    MAX_TERMS, all checked by the kernel's own ``capacity_work``: such a verdict has no
    portable form)."""
    if norm not in ("l1", "linf") or bound not in ("paper", "hausdorff", "points", "points_sharp"):
        raise InvalidArgument(f"Got norm={norm!r}, bound={bound!r}; a set-privacy document "
                              "needs norm 'l1' or 'linf' and a named bound (not a callable).")
    capacity_work([(b.lower, b.upper) for b in K], list(X.points), list(Y.points))
    question = {"X": X.to_json(), "Y": Y.to_json(), "K": [b.to_json() for b in K],
                "norm": norm, "bound": bound, "level": write_level(level)}
    claim = {"verdict": "holds" if holds else "fails", "T_X": write_exp_poly(T_X.terms),
             "T_Y": write_exp_poly(T_Y.terms), "d_H": write_rational(_rational(d_H, "d_H")),
             "diam_K": write_rational(_rational(diam_K, "diam K"))}
    return envelope(SET_PRIVACY, question, claim, {})


def set_privacy_question(doc: dict[str, Any]) -> dict[str, Any]:
    """The arguments of :func:`~exactdp.sets.check_set_privacy` a document asks about."""
    q = read_object(doc["question"], "question", ("X", "Y", "K", "norm", "bound", "level"))

    def pts(v: Any) -> list[tuple[Fraction, ...]]:
        return [tuple(read_rational(c, "point") for c in p) for p in v]

    return {"X": pts(q["X"]), "Y": pts(q["Y"]), "eps": read_level(q["level"]),
            "K": [Box(*pts([b["lower"], b["upper"]])) for b in q["K"]],
            "norm": q["norm"], "bound": q["bound"]}


def capacity_limits(X: PointSet, K: tuple[Box, ...], level: PrivacyLevel, T: ExpPoly) -> None:
    """InstanceTooLarge where the kernel refuses a ``set-capacity`` document, by its own
    estimates: ``capacity_work`` (MAX_POINTS, MAX_DIM, MAX_WORK, MAX_TERMS) and
    ``exponent_check`` (|ε·r| ≥ MAX_EXPONENT for an exponent r of T or of the enclosure's 0)."""
    capacity_work([(b.lower, b.upper) for b in K], list(X.points))
    exponent_check([Fraction(0), *T.terms], level)


def write_capacity(X: PointSet, K: tuple[Box, ...], level: PrivacyLevel, T: ExpPoly,
                   enclosure: Enclosure) -> dict[str, Any]:
    """The ``set-capacity`` document: T = T_{M(X)}(K) for every ε, and its value at ``level``
    within ``enclosure`` (InstanceTooLarge beyond the kernel's limits, checked by its own
    ``capacity_work`` before anything else)."""
    capacity_limits(X, K, level, T)
    question = {"X": X.to_json(), "K": [b.to_json() for b in K], "level": write_level(level)}
    claim = {"T": write_exp_poly(T.terms), "enclosure": write_enclosure(enclosure, "claim.enclosure")}
    return envelope(SET_CAPACITY, question, claim, {})


_x = sympy.Symbol("x")


def _degree_bound(c: sympy.Expr) -> int | None:
    """An upper bound on the algebraic degree of a closed form from its structure (a rational:
    1; b**(p/q): q·bound(b); a sum or product: the product of its terms' bounds, as the field
    they generate has at most that degree), capped just above MAX_REAL_DEGREE; None for pi,
    E, log, exp or an irrational exponent (not bounded: no portable form)."""
    if isinstance(c, sympy.Rational):
        return 1
    if isinstance(c, sympy.Pow) and isinstance(c.exp, sympy.Rational):
        b = _degree_bound(c.base)
        return None if b is None else min(b * int(c.exp.q), MAX_REAL_DEGREE + 1)
    if isinstance(c, (sympy.Add, sympy.Mul)):
        out = 1
        for a in c.args:
            b = _degree_bound(a)
            if b is None:
                return None
            out = min(out * b, MAX_REAL_DEGREE + 1)
        return out
    return None


def _write_rational(v: Fraction, name: str) -> str:
    if max(v.numerator.bit_length(), v.denominator.bit_length()) > MAX_RATIONAL_BITS:
        raise InstanceTooLarge(f"{name}: a rational coordinate of a certified set document has at most "
                               f"MAX_RATIONAL_BITS = {MAX_RATIONAL_BITS} bits; no portable form.")
    return write_rational(v, name)


def _write_coordinate(c: sympy.Expr, name: str) -> str | dict[str, Any]:
    """``"p/q"``, or {minimal_polynomial, isolating_interval} of a real algebraic number
    (ExactnessRequired, naming the coordinate, when it is not algebraic or its degree has no
    structural bound; InstanceTooLarge beyond the kernel's limits — the degree bound is
    checked before sympy's minimal polynomial is computed)."""
    if isinstance(c, sympy.Rational):
        return _write_rational(to_fraction(c, name), name)
    bound = _degree_bound(c)
    if bound is None:
        raise ExactnessRequired(f"{name} = {c} is not an algebraic number built from rationals by + - * / and "
                                "rational powers: it has no portable form; verify() re-checks it in Python.")
    if bound > MAX_REAL_DEGREE:
        raise InstanceTooLarge(f"{name} = {c}: its degree may exceed MAX_REAL_DEGREE = {MAX_REAL_DEGREE} (the "
                               "product of its radical indices does); no portable form.")
    try:
        poly = sympy.Poly(sympy.minimal_polynomial(c, _x), _x)
    except (sympy.polys.polyerrors.NotAlgebraic, NotImplementedError) as exc:
        raise ExactnessRequired(f"{name} = {c} is not an algebraic number (or sympy cannot find its minimal "
                                "polynomial): it has no portable form; verify() re-checks it in Python.") from exc
    coeffs = [int(v) for v in poly.all_coeffs()]
    if coeffs[0] < 0:
        coeffs = [-v for v in coeffs]
    if len(coeffs) == 2:  # a rational written as a closed form, e.g. (1 + sqrt(2))**2 - 2*sqrt(2)
        return _write_rational(Fraction(-coeffs[1], coeffs[0]), name)
    if len(coeffs) > MAX_REAL_DEGREE + 1 or max(abs(v).bit_length() for v in coeffs) > MAX_COEFF_BITS:
        raise InstanceTooLarge(f"{name} = {c} has minimal polynomial {poly.as_expr()}: beyond MAX_REAL_DEGREE = "
                               f"{MAX_REAL_DEGREE} or MAX_COEFF_BITS = {MAX_COEFF_BITS}; no portable form.")
    with workprec(256):
        ball = sympy_to_arb(c)
    for eps in (Fraction(1, 2**10), Fraction(1, 2**64), Fraction(1, 2**200)):
        hits = [(lo, hi) for (lo, hi), _ in poly.intervals(eps=eps)
                if not (bool(ball < to_fmpq(to_fraction(sympy.Rational(lo), name))) or bool(
                    ball > to_fmpq(to_fraction(sympy.Rational(hi), name))))]
        if len(hits) == 1:
            break
    else:
        raise ExactnessRequired(f"{name} = {c}: its root of {poly.as_expr()} could not be isolated.")
    lo, hi = (to_fraction(sympy.Rational(v), name) for v in hits[0])
    if max(max(abs(v.numerator).bit_length(), v.denominator.bit_length()) for v in (lo, hi)) > MAX_END_BITS:
        raise InstanceTooLarge(f"{name} = {c}: its isolating interval needs ends of more than MAX_END_BITS = "
                               f"{MAX_END_BITS} bits; no portable form.")
    return {"minimal_polynomial": [str(v) for v in coeffs],
            "isolating_interval": write_enclosure(Enclosure(lo, hi), name)}


def write_real_points(points: tuple[tuple[sympy.Expr, ...], ...], name: str) -> list[list[Any]]:
    """The JSON form of a real point set (InstanceTooLarge beyond MAX_REAL_POINTS / MAX_DIM)."""
    if len(points) > MAX_REAL_POINTS or len(points[0]) > MAX_DIM:
        raise InstanceTooLarge(f"{name} has {len(points)} points in dimension {len(points[0])}: a certified set "
                               f"document allows MAX_REAL_POINTS = {MAX_REAL_POINTS} and MAX_DIM = {MAX_DIM}.")
    return [[_write_coordinate(c, f"{name}[{i}]") for c in p] for i, p in enumerate(points)]


def _lower_end(ball: arb) -> Fraction:
    """The exact lower end of ``ball`` rounded down at the working precision (an end of
    magnitude < 2^-MAX_VALUE_BITS becomes −2^-MAX_VALUE_BITS: never an astronomical exact
    number; InstanceTooLarge for an end of magnitude ≥ 2^(2·MAX_VALUE_BITS))."""
    low = arb_lower_dyadic(ball, 2 * MAX_VALUE_BITS)
    if low is not None:
        return low
    if not ball.is_finite() or not bool(abs(ball.lower()) < 1):
        raise InstanceTooLarge(f"the ball {ball.str(5)} is not finite or beyond 2^MAX_VALUE_BITS = "
                               f"2^{MAX_VALUE_BITS}: its enclosure has no portable form.")
    return Fraction(-1, 2**MAX_VALUE_BITS)


def padded_enclosure(value: sympy.Expr, prec: int) -> Enclosure:
    """An enclosure of ``value`` from its ball at ``prec`` bits, widened outward to the grid
    2^(e − prec/2), 2^e ≥ max(1, |value|): room for the kernel's own ball at ``prec``. The
    ball's ends are rounded outward to ``prec`` bits first (a radius of 2^-(10^300) is never
    made exact); InstanceTooLarge when |value| > 2^MAX_VALUE_BITS.

    >>> padded_enclosure(sympy.sqrt(2), 64).contains(sympy.sqrt(2))
    True
    """
    with workprec(prec):
        ball = sympy_to_arb(value)
        lo, hi = _lower_end(ball), -_lower_end(-ball)
    top = max(abs(lo), abs(hi), Fraction(1))
    e = max(0, top.numerator.bit_length() - top.denominator.bit_length() - 1)
    while Fraction(2) ** e < top:  # e = ceil(log2 top), after at most two steps
        e += 1
    if e > MAX_VALUE_BITS:
        raise InstanceTooLarge(f"{value} is about 2^{e}, beyond MAX_VALUE_BITS = {MAX_VALUE_BITS}: its enclosure "
                               "has no portable form.")
    grid = Fraction(2) ** (e + 1 - prec // 2)
    return Enclosure((lo // grid - 1) * grid, (1 - (-hi) // grid) * grid)


def real_document(kind: CertificateKind, sets: dict[str, tuple[tuple[sympy.Expr, ...], ...]],
                  question: dict[str, Any], values: dict[str, sympy.Expr], prec: int,
                  claim: dict[str, Any] | None = None) -> dict[str, Any]:
    """A ``*-real`` document: the point ``sets`` written exactly, then ``question``; the claim
    ``claim`` plus an enclosure of each of ``values`` at ``prec`` bits — after the limits the
    kernel applies (InvalidArgument for ``prec`` outside 53…MAX_REAL_PREC, InstanceTooLarge)."""
    if isinstance(prec, bool) or not isinstance(prec, int) or not 53 <= prec <= MAX_REAL_PREC:
        raise InvalidArgument(f"Got prec={prec!r}; a certified set document needs 53…{MAX_REAL_PREC} bits.")
    if question.get("K"):
        ie_check([len(question["K"]) * len(S) for S in sets.values()], len(next(iter(sets.values()))[0]), prec)
    written = {name: write_real_points(points, name) for name, points in sets.items()}
    real_work([[tuple(_read_coordinate(c) for c in p) for p in S] for S in written.values()], prec)
    claim = (claim or {}) | {k: write_enclosure(padded_enclosure(v, prec), f"claim.{k}") for k, v in values.items()}
    return envelope(kind, written | question, claim, {"precision": prec})


def _read_coordinate(c: Any) -> Any:
    if isinstance(c, str):
        return read_rational(c)
    iv = c["isolating_interval"]
    return tuple(int(v) for v in c["minimal_polynomial"]), Enclosure(read_rational(iv["lo"]), read_rational(iv["hi"]))


def read_real_points(value: list[list[Any]]) -> list[tuple[sympy.Expr, ...]]:
    """The coordinates of a (kernel-verified) document as sympy numbers: rationals, and the
    root in the interval of a quadratic (radicals) or of a higher minimal polynomial (its
    radical roots when sympy finds them; else ExactnessRequired)."""
    out = []
    for p in value:
        coords = []
        for c in p:
            v = _read_coordinate(c)
            if isinstance(v, Fraction):
                coords.append(to_sympy(v))
                continue
            (coeffs, iv) = v
            roots = [r for r in sympy.roots(sympy.Poly(coeffs, _x), filter="R")
                     if not r.has(sympy.CRootOf) and bool(to_sympy(iv.lo) < r) and bool(r < to_sympy(iv.hi))]
            if len(roots) != 1:
                raise ExactnessRequired(f"the root of {coeffs} in ({iv.lo}, {iv.hi}) has no radical form sympy finds.")
            coords.append(roots[0])
        out.append(tuple(coords))
    return out


def read_boxes(q: dict[str, Any]) -> list[Box]:
    """The boxes ``K`` of a (kernel-verified) question."""
    return [Box(tuple(map(read_rational, b["lower"])), tuple(map(read_rational, b["upper"]))) for b in q["K"]]


class RealDocument:
    """``verify()`` and ``from_document()`` of the certified (real-coordinate) set results,
    from their ``to_document``, ``answer`` (the result for a question) and ``verify_in_python``."""

    KIND: ClassVar[CertificateKind]
    if TYPE_CHECKING:
        def to_document(self, prec: int = ...) -> dict[str, Any]: ...
        def verify_in_python(self, prec: int | None = None) -> bool: ...
        @staticmethod
        def answer(q: dict[str, Any]) -> Any: ...

    def own_checks(self, prec: int | None = None) -> bool:
        """Checks of fields the document does not state (none by default)."""
        return True

    def verify(self, prec: int | None = None) -> bool:
        """The kernel's verdict on :meth:`to_document` (:mod:`exactdp.kernel.sets_real`: every
        quantity re-enclosed from the coordinates' minimal polynomials, a verdict re-derived),
        after :meth:`own_checks`; for a result with no portable form (a coordinate such as π,
        e, log 2 that is not algebraic; beyond the writer's or the kernel's limits, or a
        margin the kernel cannot decide: ExactnessRequired, InstanceTooLarge or
        PrecisionLimitReached from writing or checking) the Python re-check
        ``verify_in_python(prec)``."""
        try:
            verified = verify_document(self.to_document()).verified
        except (ExactnessRequired, InstanceTooLarge, PrecisionLimitReached):
            return self.verify_in_python(prec)
        return self.own_checks(prec) and verified

    @classmethod
    def from_document(cls, doc: Any) -> Any:
        """Read :meth:`to_document` back (a dict or JSON text): the kernel re-checks it
        (rejected: CertificateInvalid; malformed: InvalidArgument), then the question is
        answered again and must write the same document."""
        doc = loads(doc) if isinstance(doc, (str, bytes)) else doc
        if read_envelope(doc).kind != cls.KIND.value:
            raise InvalidArgument(f"kind: got {doc['kind']!r}; expected {cls.KIND.value!r}.")
        verdict = verify_document(doc)
        if not verdict.verified:
            raise CertificateInvalid(f"the kernel rejected the {cls.KIND.value} document: {verdict.reason}.")
        res = cls.answer(doc["question"])
        if res.to_document(doc["evidence"]["precision"]) != doc:
            raise CertificateInvalid("the kernel verified the document, but it is not the one to_document() "
                                     "writes for its question (another isolating interval, a wider enclosure "
                                     "or another precision): from_document reads only this library's canonical "
                                     "documents; check it with exactdp.kernel.verify_document instead.")
        return res
