"""Exact, strict JSON for certificates: the encoding primitives and the envelope.

Every certificate and result travels as one JSON document (schema
``docs/readme/certificate_schema.md``)::

    {"schema": "exactdp-certificate", "version": 1, "kind": "<tag>",
     "question": {...}, "claim": {...}, "evidence": {...}}

Numbers are never JSON floats. A rational is the string ``"p/q"`` in lowest terms with
``q > 1`` (an integer is ``"p"``); JSON integers appear only for small counts and indices
(at most :data:`MAX_JSON_INT_DIGITS` digits). An :class:`~exactdp.arithmetic.interval.Enclosure`
is ``{"lo": "p/q", "hi": "p/q"}``. A polynomial is the list of its coefficients in
*descending* degree, as ``sympy.Poly.all_coeffs()`` writes them (``[1, 0, -2]`` is
x² − 2). A closed form is the text ``str(expr)`` that the whitelist parser
:func:`~exactdp.arithmetic.expressions.parse_closed_form` reads back to the same
expression (text is never given to ``sympify``).

Every reader validates strictly: wrong type (a bool is not a number), missing or extra
key, duplicate key, float literal, ``NaN``/``Infinity``, a non-canonical rational (``"2/4"``,
``"1/1"``, ``"+1"``, ``"1.5"``, ``"1/0"``), or a size beyond the limits below raises
:class:`~exactdp.errors.InvalidArgument` naming the place (``where``) and the fix. The
size limits make hostile input fail fast rather than hang. An integer of a document has at
most :data:`MAX_DIGITS` digits (read and written through flint, beyond Python's 4300-digit
int↔str limit; :func:`document_numbers` is the scope the kernel checks a document in).

Examples
--------
>>> write_rational(Fraction(-3, 6)), read_rational("-1/2")
('-1/2', Fraction(-1, 2))
>>> read_rational("2/4")
Traceback (most recent call last):
...
exactdp.errors.InvalidArgument: value: got '2/4', not in lowest terms; write '1/2'.
>>> loads('{"a": 1, "a": 2}')
Traceback (most recent call last):
...
exactdp.errors.InvalidArgument: document: the key 'a' appears twice in one object; ...
>>> read_poly(["1", "0", "-2"])  # x² − 2, descending as sympy's Poly.all_coeffs()
(Fraction(1, 1), Fraction(0, 1), Fraction(-2, 1))
>>> doc = envelope("farkas", {"property": "regular"}, {"verdict": "fails"}, {})
>>> read_envelope(loads(dumps(doc))).kind
'farkas'
"""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, TypeVar

import flint
import sympy

from exactdp.arithmetic.expressions import parse_closed_form
from exactdp.arithmetic.interval import Enclosure
from exactdp.arithmetic.rationals import int_digits_at_least, shorten_numbers
from exactdp.errors import ExactDPError, InstanceTooLarge, InvalidArgument
from exactdp.kinds import CertificateKind, Verdict

__all__ = ["SCHEMA", "SCHEMA_VERSION", "MAX_DOCUMENT_CHARS", "MAX_DIGITS", "MAX_JSON_INT_DIGITS",
           "MAX_POLY_DEGREE", "Envelope", "loads", "dumps", "envelope", "read_envelope",
           "read_object", "read_int", "read_str", "read_bool", "read_list", "write_rational",
           "read_rational", "read_rationals", "write_enclosure", "read_enclosure", "read_poly",
           "write_closed_form", "read_closed_form", "write_verdict", "read_verdict", "read_kind",
           "rows_of", "show", "shorten_numbers", "document_numbers"]

#: The ``schema`` string of every certificate document.
SCHEMA = "exactdp-certificate"
#: The schema version this code writes and reads (a reader refuses any other).
SCHEMA_VERSION = 1
#: Longest document :func:`loads` reads (characters): 64 Mi.
MAX_DOCUMENT_CHARS = 64 * 2**20
#: Most decimal digits of one integer (numerator, denominator or coefficient): 10⁵.
MAX_DIGITS = 100_000
#: Most digits of a bare JSON integer (counts, indices, the version).
MAX_JSON_INT_DIGITS = 18
#: Highest polynomial degree read.
MAX_POLY_DEGREE = 100_000

_RATIONAL = re.compile(r"(0|-?[1-9][0-9]*)(?:/([1-9][0-9]*))?", re.ASCII)
_TAG = re.compile(r"[a-z][a-z0-9-]{0,63}", re.ASCII)
_BIG = 3000  # integers with more digits are converted by flint (no int↔str digit limit)
_T = TypeVar("_T")


def _fail(where: str, msg: str) -> InvalidArgument:
    return InvalidArgument(f"{where}: {msg}")


def _typed(value: Any, where: str, kind: type[_T] | tuple[type, ...], what: str) -> _T:
    """``value`` when it is a ``kind`` (a bool only when ``kind`` is bool), else InvalidArgument."""
    if isinstance(value, kind) and (kind is bool or not isinstance(value, bool)):
        return value  # type: ignore[return-value]  # narrowed to kind
    raise _fail(where, f"expected {what}, got {type(value).__name__} {_show(value)}.")


def _show(value: Any) -> str:
    """A bad value for a message: numbers shortened (:func:`show`), text cut to 40 characters."""
    if isinstance(value, int) and abs(value).bit_length() > 200:
        return f"<an integer of {abs(value).bit_length()} bits>"
    if isinstance(value, Fraction):
        return show(value)
    try:
        text = shorten_numbers(repr(value))
    except ValueError:  # a container holding an int over Python's 4300-digit str() limit
        return f"a {type(value).__name__} holding an integer of over 4300 digits"
    return text if len(text) <= 60 else text[:40] + f"...' ({len(text)} characters)"


def _int_text(v: int) -> str:
    """str(v) for an int of any size (flint above Python's int↔str digit limit)."""
    return str(v) if abs(v).bit_length() < 3 * _BIG else str(flint.fmpz(v))


def show(value: int | Fraction) -> str:
    """An exact number for a message, never calling str() on a huge integer (Python refuses
    over 4300 digits): integers over 40 digits are shortened to their ends and length.

    >>> show(Fraction(10**5000, 3))
    '1000000000…000000 (5001 digits)/3'
    """
    f = Fraction(value)
    parts = [_int_text(f.numerator)] + ([_int_text(f.denominator)] if f.denominator != 1 else [])
    return "/".join(shorten_numbers(t) for t in parts)


@contextmanager
def document_numbers(size: int = MAX_DIGITS) -> Iterator[None]:
    """The scope in which the kernel reads and checks one document of ``size`` characters:
    Python's int↔str limit (4300 digits) raised to one integer of the document
    (``min(MAX_DIGITS, size)``; never lowered; scopes open in other threads or nested in this
    one share it, the highest request is in force until the last closes), a longer
    derived number's ValueError turned into InvalidArgument, and every ExactDPError leaving
    it with its digit runs shortened (:func:`shorten_numbers`).

    >>> with document_numbers():
    ...     len(str(Fraction(1, 10**5000)))
    5003
    """
    limit = max(sys.int_info.default_max_str_digits, min(MAX_DIGITS, size))
    with int_digits_at_least(limit):
        try:
            yield
        except ExactDPError as exc:
            exc.args = tuple(shorten_numbers(a) if isinstance(a, str) else a for a in exc.args)
            raise
        except ValueError as exc:
            if "integer string conversion" not in str(exc):
                raise
            raise InvalidArgument(f"document: a number computed from its numbers has more than {limit} digits, "
                                  "which this check cannot print or parse; the limit is "
                                  f"{MAX_DIGITS} digits per integer (rescale the question).") from exc


# --------------------------------------------------------------------------------- text
def _inexact(text: str) -> Any:
    """The parse_float and parse_constant (NaN, ±Infinity) hook: refuse."""
    raise InvalidArgument(f"document: found the inexact number {_show(text)}; numbers are exact strings (write "
                          "'3/2' for 1.5).")


def _small_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_JSON_INT_DIGITS:
        raise InvalidArgument(f"document: a JSON integer has {len(text)} digits (at most {MAX_JSON_INT_DIGITS}); write "
                              "large numbers as strings \"p\".")
    return int(text)


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise InvalidArgument(f"document: the key {key!r} appears twice in one object; each key may appear once.")
        out[key] = value
    return out


def loads(text: str | bytes) -> Any:
    """Parse a certificate document strictly.

    Refuses documents over :data:`MAX_DOCUMENT_CHARS`, duplicate keys, float literals,
    ``NaN``/``Infinity``, JSON integers over :data:`MAX_JSON_INT_DIGITS` digits and
    nesting too deep for the parser.

    >>> loads('{"x": "1/3"}')
    {'x': '1/3'}
    >>> loads('{"x": 1.5}')
    Traceback (most recent call last):
    ...
    exactdp.errors.InvalidArgument: document: found the inexact number '1.5'; ...
    """
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InvalidArgument(f"document: not UTF-8 ({exc}); save it as UTF-8.") from exc
    if not isinstance(text, str):
        raise InvalidArgument(f"document: got {type(text).__name__}; pass the JSON text.")
    if len(text) > MAX_DOCUMENT_CHARS:
        raise InvalidArgument(f"document: {len(text)} characters, over the limit of {MAX_DOCUMENT_CHARS}.")
    try:
        return json.loads(text, object_pairs_hook=_unique_keys, parse_float=_inexact,
                          parse_int=_small_int, parse_constant=_inexact)
    except json.JSONDecodeError as exc:
        raise InvalidArgument(f"document: not valid JSON ({exc}).") from exc
    except RecursionError as exc:
        raise InvalidArgument("document: nested too deeply to be a certificate.") from exc


def dumps(doc: Any) -> str:
    """The canonical text of a document: sorted keys, no spaces, ASCII only.

    Refuses any value that :func:`loads` would not read back as itself (floats, Fractions,
    tuples, non-string keys, integers over :data:`MAX_JSON_INT_DIGITS` digits, ...), naming
    its path, so nothing inexact is ever written.

    >>> dumps({"b": ["1/3"], "a": 1})
    '{"a":1,"b":["1/3"]}'
    >>> dumps({"x": [{"y": 0.5}]})
    Traceback (most recent call last):
    ...
    exactdp.errors.InvalidArgument: document.x[0].y: float 0.5 is not a value of the schema; ...
    """
    try:
        text = json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
        if loads(text) == doc:  # a tuple or a non-string key: not what a reader gets back
            return text
        reason = "it does not read back as itself"
    except (TypeError, ValueError) as exc:  # a Fraction, a numpy number, NaN, mixed key types, ...
        reason = shorten_numbers(str(exc))
    where, value = _unwritable(doc, "document")
    if not where:  # e.g. a text over the size limit or nested too deeply
        raise InvalidArgument(f"document: cannot be written: {reason}.")
    raise _fail(where, f"{type(value).__name__} {_show(value)} is not a value of the schema; write exact numbers "
                "with write_rational (\"p/q\"), lists (not tuples), string keys and integers of at most "
                f"{MAX_JSON_INT_DIGITS} digits.")


def _unwritable(value: Any, where: str) -> tuple[str, Any]:
    """(path, value) of the first part of ``value`` that :func:`dumps` cannot write, or ("", None)."""
    items = list(value.items()) if isinstance(value, dict) else list(enumerate(value)) if isinstance(value, list) \
        else None
    if items is None:
        ok = value is None or isinstance(value, (bool, str)) or (
            type(value) is int and len(_int_text(value).lstrip("-")) <= MAX_JSON_INT_DIGITS)
        return ("", None) if ok else (where, value)
    for key, v in items:
        if isinstance(value, dict) and not isinstance(key, str):
            return where, key
        found = _unwritable(v, f"{where}.{key}" if isinstance(value, dict) else f"{where}[{key}]")
        if found[0]:
            return found
    return "", None


# ---------------------------------------------------------------------- plain readers
def read_object(value: Any, where: str, required: Collection[str],
                optional: Collection[str] = ()) -> dict[str, Any]:
    """``value`` as a JSON object with exactly the ``required`` keys and some ``optional``.

    >>> read_object({"lo": "0"}, "I", ("lo", "hi"))
    Traceback (most recent call last):
    ...
    exactdp.errors.InvalidArgument: I: missing key(s) ['hi']; expected keys ['hi', 'lo'].
    """
    obj: dict[str, Any] = _typed(value, where, dict, "a JSON object")
    allowed = set(required) | set(optional)
    missing = sorted(set(required) - set(obj))
    extra = sorted(k for k in obj if k not in allowed)
    if missing:
        raise _fail(where, f"missing key(s) {missing}; expected keys {sorted(allowed)}.")
    if extra:
        raise _fail(where, f"unexpected key(s) {[_show(k) for k in extra]}; expected keys {sorted(allowed)}.")
    return obj


def read_int(value: Any, where: str, lo: int | None = None, hi: int | None = None) -> int:
    """A JSON integer (not a bool, not a string) in [lo, hi].

    >>> read_int(True, "n")
    Traceback (most recent call last):
    ...
    exactdp.errors.InvalidArgument: n: expected an integer, got bool True.
    """
    out = _typed(value, where, int, "an integer")
    if (lo is not None and out < lo) or (hi is not None and out > hi):
        raise _fail(where, f"got {_show(out)}; it must lie in [{lo}, {hi}].")
    return out


def read_str(value: Any, where: str, choices: Collection[str] | None = None) -> str:
    """A JSON string, optionally one of ``choices``."""
    out = _typed(value, where, str, "a string")
    if choices is not None and out not in choices:
        raise _fail(where, f"got {_show(out)}; expected one of {sorted(choices)}.")
    return out


def read_bool(value: Any, where: str) -> bool:
    """A JSON ``true``/``false`` (not 0/1)."""
    return _typed(value, where, bool, "true or false")


def read_list(value: Any, where: str, length: int | None = None, max_length: int | None = None,
              *, limit: int | None = None) -> list[Any]:
    """A JSON array, of exactly ``length`` items or at most ``max_length`` (more is malformed,
    :class:`~exactdp.errors.InvalidArgument`) and at most ``limit`` (a work limit: more is
    :class:`~exactdp.errors.InstanceTooLarge`, "undecided", exit 2).

    >>> read_list(["1", "2"], "pieces", limit=1)
    Traceback (most recent call last):
    ...
    exactdp.errors.InstanceTooLarge: pieces: has 2 items; the kernel checks at most 1.
    """
    out: list[Any] = _typed(value, where, list, "a JSON array")
    if length is not None and len(out) != length:
        raise _fail(where, f"has {len(out)} items; expected {length}.")
    if max_length is not None and len(out) > max_length:
        raise _fail(where, f"has {len(out)} items; at most {max_length} are allowed.")
    if limit is not None and len(out) > limit:
        raise InstanceTooLarge(f"{where}: has {len(out)} items; the kernel checks at most {limit}.")
    return out


# ------------------------------------------------------------------------- rationals
def _int_to_text(v: int, where: str) -> str:
    text = _int_text(v)
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise _fail(where, f"an integer of {len(text.lstrip('-'))} digits ({show(v)}) is over the limit of "
                    f"{MAX_DIGITS} digits per integer that readers accept; it has no portable form (rescale it).")
    return text


def _text_to_int(text: str) -> int:
    return int(text) if len(text) <= _BIG else int(flint.fmpz(text))


def write_rational(value: Fraction | int, where: str = "value") -> str:
    """``"p/q"`` in lowest terms (``"p"`` for an integer); refuses floats and bools.

    >>> write_rational(4), write_rational(Fraction(6, 4))
    ('4', '3/2')
    """
    _typed(value, where, (int, Fraction), "an int or a Fraction (written exactly)")
    f = Fraction(value)
    num = _int_to_text(f.numerator, where)
    return num if f.denominator == 1 else f"{num}/{_int_to_text(f.denominator, where)}"


def read_rational(value: Any, where: str = "value", *, integer: bool = False) -> Fraction:
    """Read ``"p/q"`` (or ``"p"``) in canonical form; ``integer=True`` allows ``"p"`` only.

    >>> read_rational("7")
    Fraction(7, 1)
    >>> read_rational("-0")
    Traceback (most recent call last):
    ...
    exactdp.errors.InvalidArgument: value: got '-0', which is not a rational 'p/q' ...
    """
    _typed(value, where, str, "a rational string such as '3/2'")
    if len(value) > 2 * MAX_DIGITS + 2:
        raise _fail(where, f"a number of {len(value)} characters exceeds the limit of {MAX_DIGITS} digits per "
                    "integer (numerator and denominator); such a document cannot be checked.")
    m = _RATIONAL.fullmatch(value)
    if m is None:
        raise _fail(where, f"got {_show(value)}, which is not a rational 'p/q' in lowest terms "
                    "(digits only, optional leading '-', no '+', spaces, decimals or '/0').")
    p_text, q_text = m.group(1), m.group(2)
    for name, part in (("numerator", p_text.lstrip("-")), ("denominator", q_text or "")):
        if len(part) > MAX_DIGITS:
            raise _fail(where, f"the {name} has {len(part)} digits, over the limit of {MAX_DIGITS} digits per "
                        "integer; such a document cannot be checked (its writer refuses such numbers).")
    p = _text_to_int(p_text)
    if q_text is None:
        return Fraction(p)
    if integer:
        raise _fail(where, f"got {_show(value)}; an integer ('p') is required here.")
    q = _text_to_int(q_text)
    if q == 1 or math.gcd(p, q) != 1:  # "p/1", "2/4": one spelling per number
        raise _fail(where, f"got {_show(value)}, not in lowest terms; write {write_rational(Fraction(p, q))!r}.")
    return Fraction(p, q)


def read_rationals(value: Any, where: str, length: int | None = None) -> tuple[Fraction, ...]:
    """A JSON array of rationals (exactly ``length`` of them when given)."""
    return tuple(read_rational(v, f"{where}[{k}]") for k, v in enumerate(read_list(value, where, length)))


def write_enclosure(value: Enclosure, where: str = "enclosure") -> dict[str, str]:
    """``{"lo": "p/q", "hi": "p/q"}``.

    >>> write_enclosure(Enclosure(Fraction(1, 3), Fraction(1, 2)))
    {'lo': '1/3', 'hi': '1/2'}
    """
    _typed(value, where, Enclosure, "an Enclosure")
    return {"lo": write_rational(value.lo, where + ".lo"), "hi": write_rational(value.hi, where + ".hi")}


def read_enclosure(value: Any, where: str = "enclosure") -> Enclosure:
    """Read ``{"lo", "hi"}`` with lo ≤ hi.

    >>> read_enclosure({"lo": "1", "hi": "0"})
    Traceback (most recent call last):
    ...
    exactdp.errors.InvalidArgument: enclosure: lo = 1 > hi = 0; an enclosure needs lo ≤ hi.
    """
    obj = read_object(value, where, ("lo", "hi"))
    lo = read_rational(obj["lo"], where + ".lo")
    hi = read_rational(obj["hi"], where + ".hi")
    if lo > hi:
        raise _fail(where, f"lo = {show(lo)} > hi = {show(hi)}; an enclosure needs lo ≤ hi.")
    return Enclosure(lo, hi)


# ------------------------------------------------------------------------ polynomials
def read_poly(value: Any, where: str = "polynomial", *, integer: bool = False) -> tuple[Fraction, ...]:
    """Read descending coefficients: nonempty, nonzero leading coefficient, degree ≤ limit.

    >>> read_poly(["1", "0", "-2"], integer=True)
    (Fraction(1, 1), Fraction(0, 1), Fraction(-2, 1))
    >>> read_poly(["0", "1"])
    Traceback (most recent call last):
    ...
    exactdp.errors.InvalidArgument: polynomial: the leading coefficient is 0; ...
    """
    items = read_list(value, where, limit=MAX_POLY_DEGREE + 1)
    if not items:
        raise _fail(where, "an empty coefficient list; a polynomial needs ≥ 1 coefficient.")
    coeffs = tuple(read_rational(c, f"{where}[{k}]", integer=integer) for k, c in enumerate(items))
    if coeffs[0] == 0:
        raise _fail(where, "the leading coefficient is 0; coefficients run from the highest "
                    "degree down (as sympy's all_coeffs) with a nonzero first entry.")
    return coeffs


# ------------------------------------------------------------------------ closed forms
def write_closed_form(expr: sympy.Expr, where: str = "closed form") -> str:
    """``str(expr)``, after checking the whitelist parser reads it back to ``expr``.

    >>> write_closed_form(sympy.log(2) / 3)
    'log(2)/3'
    >>> write_closed_form(sympy.Symbol("x"))
    Traceback (most recent call last):
    ...
    exactdp.errors.InvalidArgument: closed form: 'x' cannot be read back exactly ...
    """
    _typed(expr, where, sympy.Expr, "a sympy expression")
    if _form_digits(expr) > _FORM_DIGITS:
        raise _fail(where, f"the expression holds a number of {_form_digits(expr)} digits, over the "
                    f"{_FORM_DIGITS} digits of a closed form; write it as a rational \"p/q\" instead.")
    text = str(expr)
    try:
        back = parse_closed_form(text, where, InvalidArgument)
    except InvalidArgument as exc:
        raise _fail(where, f"{_show(text)} cannot be read back exactly ({exc}); "
                    "only numbers, + - * / **, pi, E, sqrt, log, exp are portable.") from exc
    if back != expr:
        raise _fail(where, f"{_show(text)} reads back as {back}, not the same expression.")
    return text


def read_closed_form(value: Any, where: str = "closed form",
                     error: type[InvalidArgument] = InvalidArgument) -> sympy.Expr:
    """Parse with the whitelist parser (never ``sympify``) and require canonical text;
    ``error`` (a subclass of InvalidArgument) is raised for text the parser refuses.

    >>> read_closed_form("sqrt(2)/2")
    sqrt(2)/2
    >>> read_closed_form("__import__('os')")
    Traceback (most recent call last):
    ...
    exactdp.errors.InvalidArgument: Got closed form="__import__('os')"; only numbers, ...
    """
    text = read_str(value, where)
    expr = parse_closed_form(text, where, error)
    if _form_digits(expr) > _FORM_DIGITS:  # not this short text, in or out of document_numbers()
        raise error(f"{where}: {_show(text)} is a number of over {_FORM_DIGITS} digits "
                    f"({_form_digits(expr)}); such forms are refused.")
    canonical = str(expr)
    if canonical != text:
        raise _fail(where, f"{_show(text)} is not a real number." if expr.has(sympy.I) else
                    f"{_show(text)} is not in canonical form; write {canonical!r}.")
    return expr


_FORM_DIGITS = sys.int_info.default_max_str_digits  # Python's own limit: 4300 digits


def _form_digits(expr: sympy.Expr) -> int:
    """Most digits of an integer (numerator or denominator) in ``expr``; O(size)."""
    return max((len(_int_text(abs(int(v)))) for a in expr.atoms(sympy.Rational) for v in (a.p, a.q)
                if abs(int(v)).bit_length() > 14_000), default=0)  # 2^14000 < 10^4300


# --------------------------------------------------------------- verdicts, kinds, envelope
def write_verdict(value: Verdict) -> str:
    """A verdict by value: ``"holds"``, ``"fails"`` or ``"undecided"``."""
    _typed(value, "verdict", Verdict, "a Verdict")
    return value.value


def read_verdict(value: Any, where: str = "verdict") -> Verdict:
    """Read a verdict string.

    >>> read_verdict("holds")
    <Verdict.HOLDS: 'holds'>
    """
    return Verdict(read_str(value, where, [v.value for v in Verdict]))


def read_kind(value: Any, where: str = "kind", extra: Collection[str] = ()) -> str:
    """A :class:`~exactdp.kinds.CertificateKind` value or one of ``extra`` result tags."""
    text = read_str(value, where)
    allowed = {k.value for k in CertificateKind} | set(extra)
    if _TAG.fullmatch(text) is None or text not in allowed:
        raise _fail(where, f"got {_show(text)}; expected one of {sorted(allowed)}.")
    return text


@dataclass(frozen=True)
class Envelope:
    """A parsed document: its type tag and the three JSON objects it carries."""

    kind: str
    question: dict[str, Any]
    claim: dict[str, Any]
    evidence: dict[str, Any]


_TOP = ("schema", "version", "kind", "question", "claim", "evidence")


def envelope(kind: CertificateKind | str, question: dict[str, Any], claim: dict[str, Any],
             evidence: dict[str, Any]) -> dict[str, Any]:
    """Wrap the three parts into a document (``kind`` is a CertificateKind or a result tag)."""
    tag = kind.value if isinstance(kind, CertificateKind) else kind
    if not isinstance(tag, str) or _TAG.fullmatch(tag) is None:
        raise InvalidArgument(f"Got kind={kind!r}; a tag is lower-case letters, digits and '-'.")
    for name, part in (("question", question), ("claim", claim), ("evidence", evidence)):
        _typed(part, name, dict, "a JSON object (dict)")
    return {"schema": SCHEMA, "version": SCHEMA_VERSION, "kind": tag,
            "question": question, "claim": claim, "evidence": evidence}


def read_envelope(doc: Any, extra_kinds: Collection[str] = ()) -> Envelope:
    """Check the top level of a parsed document; the parts are read by their owners.

    >>> read_envelope({"schema": SCHEMA, "version": 2, "kind": "farkas",
    ...                "question": {}, "claim": {}, "evidence": {}})
    Traceback (most recent call last):
    ...
    exactdp.errors.InvalidArgument: version: got 2; it must lie in [1, 1].
    """
    obj = read_object(doc, "document", _TOP)
    read_str(obj["schema"], "schema", [SCHEMA])
    read_int(obj["version"], "version", SCHEMA_VERSION, SCHEMA_VERSION)
    kind = read_kind(obj["kind"], "kind", extra_kinds)
    for name in ("question", "claim", "evidence"):
        _typed(obj[name], name, dict, "a JSON object")
    return Envelope(kind, obj["question"], obj["claim"], obj["evidence"])


_Check = TypeVar("_Check")


def read_tabled(doc: Any, table: Mapping[str, tuple[Collection[str], Collection[str], Collection[str], _Check]]
                ) -> tuple[str, dict[str, Any], dict[str, Any], dict[str, Any], _Check]:
    """A document whose kind is a key of ``table`` (kind → question, claim and evidence keys,
    checker): its kind, its three parts read with exactly those keys, and the checker."""
    env = read_envelope(doc)
    if env.kind not in table:
        raise InvalidArgument(f"kind: {env.kind!r} is not one of {[str(k) for k in table]}.")
    qk, ck, ek, check = table[env.kind]
    return (env.kind, read_object(env.question, "question", qk), read_object(env.claim, "claim", ck),
            read_object(env.evidence, "evidence", ek), check)


def rows_of(value: Any, where: str, n_rows: int | None = None, max_entries: int = 10**7) -> Sequence[list[Any]]:
    """A rectangular JSON array of arrays (rows of equal length ≥ 1); over ``max_entries``
    entries is a work limit (:class:`~exactdp.errors.InstanceTooLarge`, exit 2)."""
    rows = read_list(value, where, length=n_rows)
    if not rows:
        raise _fail(where, "has no rows.")
    width = len(read_list(rows[0], f"{where}[0]"))
    if width == 0:
        raise _fail(where, f"{len(rows)}×0 entries; need ≥ 1 column.")
    if len(rows) * width > max_entries:
        raise InstanceTooLarge(f"{where}: {len(rows)}×{width} entries; the kernel checks at most {max_entries}.")
    for k, r in enumerate(rows):
        read_list(r, f"{where}[{k}]", length=width)
    return rows
