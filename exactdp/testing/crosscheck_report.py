"""The crosscheck report: :class:`CaseResult` (one case through the oracle) and
:class:`CrosscheckReport` (all of them, with counts, the worst case, an exact and validated
JSON round trip and a plain-text table). The oracle itself and the tolerance rule are in
:mod:`exactdp.testing.regression`.

>>> r = CaseResult(0, "a case", (float("nan"),), None, None, None, None, None, None, None, None, "error")
>>> CaseResult.from_json(r.to_json()) == r       # NaN values round-trip equal
True
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from exactdp.arithmetic.interval import Enclosure
from exactdp.arithmetic.validate import read_tol
from exactdp.errors import InvalidArgument
from exactdp.kinds import Verdict
from exactdp.testing.questions import ExactValue

__all__ = ["OUTCOMES", "SIDES", "DEFAULT_TOL", "DEFAULT_TOL_LEVEL", "DEFAULT_ABS_TOL", "DEFAULT_ABS_SCALE",
           "CaseResult", "CrosscheckReport", "read_nonneg"]

#: The outcomes of a case, in report order.
OUTCOMES = ("agrees", "disagrees", "within-tolerance-of-boundary", "exactdp-undecided", "error",
            "exactdp-error")
#: Who raised, for ``error`` / ``exactdp-error`` rows ("" otherwise).
SIDES = ("", "float-function", "exactdp-truth", "oracle", "executor")
#: Default relative tolerance of values.
DEFAULT_TOL = Fraction(1, 10**9)
#: Default relative distance from the queried level within which a flip excuses a verdict.
DEFAULT_TOL_LEVEL = Fraction(1, 10**6)
#: Default absolute tolerance (about 4.5 ulp of 1), applied only where the truth may be 0 or is
#: certified ≤ ``abs_scale`` (see the tolerance rule above).
DEFAULT_ABS_TOL = Fraction(1, 10**15)
#: Default ``abs_scale``: 0, the absolute rule only where the truth may be exactly 0.
DEFAULT_ABS_SCALE = Fraction(0)


def _fs(x: float) -> str:
    return repr(float(x))


@dataclass(frozen=True)
class CaseResult:
    """One case through the oracle (all fields deterministic; no timings).

    Attributes
    ----------
    index : int
        Position of the case in the list.
    case : str
        One-line description of the exact case.
    float_value : tuple[float, ...]
        The float function's value(s) (empty when it raised).
    exact_value : tuple[ExactValue, ...] | None
        exactdp's values (certified enclosures, exact text when known); None when there is no
        value (e.g. Φ singular) or exactdp could not answer.
    abs_error, rel_error, ulp_error : float | None
        Certified upper bounds (rounded up to floats), at the worst component.
    worst_component : int | None
    within_tol : bool | None
    float_verdict : bool | None
    exact_verdict : Verdict | None
    outcome : str
        One of :data:`OUTCOMES`.
    boundary : Enclosure | None
        Where the exact verdict flips near the queried level (boundary outcome only).
    message : str
        Why a case is undecided or errored ("" otherwise).
    side : str
        Who raised, one of :data:`SIDES` ("" when nobody did).
    by_abs_tol : bool
        True when the value is within tol only by the absolute rule.
    """

    index: int
    case: str
    float_value: tuple[float, ...]
    exact_value: tuple[ExactValue, ...] | None
    abs_error: float | None
    rel_error: float | None
    ulp_error: float | None
    worst_component: int | None
    within_tol: bool | None
    float_verdict: bool | None
    exact_verdict: Verdict | None
    outcome: str
    boundary: Enclosure | None = None
    message: str = ""
    side: str = ""
    by_abs_tol: bool = False

    @property
    def failed(self) -> bool:
        """True when the float function is wrong here: the verdict disagrees, the value is
        certified outside tol, or the float function raised (or its task failed)."""
        return self.outcome in ("disagrees", "error") or self.within_tol is False

    def __eq__(self, other: object) -> bool:
        """Equal JSON forms (so NaN float values compare equal to themselves)."""
        if not isinstance(other, CaseResult):
            return NotImplemented
        return self.to_json() == other.to_json()

    def __hash__(self) -> int:
        return hash(json.dumps(self.to_json(), sort_keys=True))

    def diff(self) -> str:
        """A readable float-vs-exact comparison of this case."""
        lines = [f"case #{self.index}: {self.case}", f"  verdict outcome: {self.outcome}"
                 + (f" ({self.message})" if self.message else "")]
        if self.float_verdict is not None or self.exact_verdict is not None:
            ev = None if self.exact_verdict is None else self.exact_verdict.value
            lines.append(f"  verdict: float says {self.float_verdict}, exactdp (certified) says {ev}")
        if self.boundary is not None:
            lines.append(f"  the exact verdict flips in [{float(self.boundary.lo):.17g}, "
                         f"{float(self.boundary.hi):.17g}]")
        ex = self.exact_value or ()
        for i in range(max(len(self.float_value), len(ex))):
            f = self.float_value[i] if i < len(self.float_value) else None
            e = ex[i] if i < len(ex) else None
            etext = "—" if e is None else _value_text(e)
            mark = "  <-- worst" if i == self.worst_component else ""
            lines.append(f"  [{i}] float {f!r:<24} exact {etext}{mark}")
        if self.abs_error is not None:
            lines.append(f"  error: abs ≤ {self.abs_error:.3g}, rel ≤ {self.rel_error:.3g}, "
                         f"{self.ulp_error:.3g} ulp; within tol: {self.within_tol}")
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        """Exact JSON form (floats as repr strings, rationals as "p/q")."""
        return {
            "index": self.index, "case": self.case,
            "float_value": [_fs(v) for v in self.float_value],
            "exact_value": None if self.exact_value is None else [_ev_json(e) for e in self.exact_value],
            "abs_error": None if self.abs_error is None else _fs(self.abs_error),
            "rel_error": None if self.rel_error is None else _fs(self.rel_error),
            "ulp_error": None if self.ulp_error is None else _fs(self.ulp_error),
            "worst_component": self.worst_component, "within_tol": self.within_tol,
            "float_verdict": self.float_verdict,
            "exact_verdict": None if self.exact_verdict is None else self.exact_verdict.value,
            "outcome": self.outcome,
            "boundary": None if self.boundary is None else [str(self.boundary.lo), str(self.boundary.hi)],
            "message": self.message, "side": self.side, "by_abs_tol": self.by_abs_tol,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> CaseResult:
        """Read :meth:`to_json` back, checking every field's type and range
        (:class:`~exactdp.errors.InvalidArgument` naming the field otherwise)."""
        try:
            return cls(
                _j_int(d["index"], "index"), _j_str(d["case"], "case"),
                tuple(_j_float(v, "float_value") for v in _j_list(d["float_value"], "float_value")),
                None if d["exact_value"] is None else tuple(
                    _ev_read(e) for e in _j_list(d["exact_value"], "exact_value")),
                _j_opt_float(d["abs_error"], "abs_error"), _j_opt_float(d["rel_error"], "rel_error"),
                _j_opt_float(d["ulp_error"], "ulp_error"),
                None if d["worst_component"] is None else _j_int(d["worst_component"], "worst_component"),
                _j_opt_bool(d["within_tol"], "within_tol"), _j_opt_bool(d["float_verdict"], "float_verdict"),
                None if d["exact_verdict"] is None else Verdict(d["exact_verdict"]),
                _j_choice(d["outcome"], OUTCOMES, "outcome"),
                None if d["boundary"] is None else Enclosure(
                    Fraction(_j_str(d["boundary"][0], "boundary")), Fraction(_j_str(d["boundary"][1], "boundary"))),
                _j_str(d["message"], "message"), _j_choice(d.get("side", ""), SIDES, "side"),
                bool(_j_opt_bool(d.get("by_abs_tol", False), "by_abs_tol")),
            )
        except (KeyError, TypeError, ValueError, ZeroDivisionError) as err:
            if isinstance(err, InvalidArgument):
                raise
            raise InvalidArgument(f"Got a case result that is not CaseResult.to_json() output "
                                  f"({type(err).__name__}: {err}); pass an unedited report.") from err


def _bad(name: str, x: Any, want: str) -> InvalidArgument:
    return InvalidArgument(f"Got {name}={x!r:.60} in a report; it must be {want} (pass an unedited "
                           "CrosscheckReport.to_json()).")


def _j_int(x: Any, name: str) -> int:
    if isinstance(x, bool) or not isinstance(x, int) or x < 0:
        raise _bad(name, x, "a whole number ≥ 0")
    return x


def _j_str(x: Any, name: str) -> str:
    if not isinstance(x, str):
        raise _bad(name, x, "a string")
    return x


def _j_list(x: Any, name: str) -> list[Any]:
    if not isinstance(x, list):
        raise _bad(name, x, "a list")
    return x


def _j_float(x: Any, name: str) -> float:
    if not isinstance(x, str):
        raise _bad(name, x, "a float's repr string")
    try:
        return float(x)
    except ValueError:
        raise _bad(name, x, "a float's repr string") from None


def _j_opt_float(x: Any, name: str) -> float | None:
    return None if x is None else _j_float(x, name)


def _j_opt_bool(x: Any, name: str) -> bool | None:
    if x is not None and not isinstance(x, bool):
        raise _bad(name, x, "true, false or null")
    return x


def _j_choice(x: Any, choices: tuple[str, ...], name: str) -> str:
    if x not in choices:
        raise _bad(name, x, f"one of {', '.join(map(repr, choices))}")
    return str(x)


def _value_text(e: ExactValue) -> str:
    if e.enclosure is None:
        return "+∞"
    mid = float(e.enclosure.mid)
    if e.exact is not None:
        return f"{e.exact} ≈ {mid:.17g}"
    return f"∈ [{float(e.enclosure.lo):.17g}, {float(e.enclosure.hi):.17g}]"


def _ev_json(e: ExactValue) -> dict[str, Any]:
    enc = None if e.enclosure is None else [str(e.enclosure.lo), str(e.enclosure.hi)]
    return {"enclosure": enc, "exact": e.exact}


def _ev_read(d: dict[str, Any]) -> ExactValue:
    enc = d["enclosure"]
    if enc is not None:
        _j_list(enc, "enclosure")
        enc = Enclosure(Fraction(_j_str(enc[0], "enclosure")), Fraction(_j_str(enc[1], "enclosure")))
    exact = d["exact"]
    return ExactValue(enc, None if exact is None else _j_str(exact, "exact"))


@dataclass(frozen=True)
class CrosscheckReport:
    """Every case's :class:`CaseResult` for one question, with tolerances.

    ``counts`` maps each of :data:`OUTCOMES` (and ``"value-outside-tol"``) to a number,
    ``worst`` is the case with the largest relative error, ``failures`` the failed cases,
    ``ok`` is True when none failed; ``table()`` renders plain text.
    """

    question: str
    tol: Fraction
    tol_level: Fraction
    results: tuple[CaseResult, ...]
    abs_tol: Fraction = DEFAULT_ABS_TOL
    abs_scale: Fraction = DEFAULT_ABS_SCALE

    @property
    def counts(self) -> dict[str, int]:
        """Number of cases per outcome, plus ``value-outside-tol``, ``within-by-abs-tol``
        (passed only by the absolute rule) and ``cases``."""
        out = {k: 0 for k in OUTCOMES}
        for r in self.results:
            out[r.outcome] += 1
        out["value-outside-tol"] = sum(r.within_tol is False for r in self.results)
        out["within-by-abs-tol"] = sum(r.by_abs_tol for r in self.results)
        out["cases"] = len(self.results)
        return out

    @property
    def failures(self) -> tuple[CaseResult, ...]:
        """The cases where the float function is wrong (see :attr:`CaseResult.failed`)."""
        return tuple(r for r in self.results if r.failed)

    @property
    def ok(self) -> bool:
        """True when no case failed and exactdp raised on none (``exactdp-error``)."""
        return not self.failures and not any(r.outcome == "exactdp-error" for r in self.results)

    @property
    def worst(self) -> CaseResult | None:
        """The case with the largest relative error (None when no case has one)."""
        cands = [r for r in self.results if r.rel_error is not None]
        return max(cands, key=lambda r: (r.rel_error, -r.index)) if cands else None

    def summary(self) -> str:
        """One line of counts."""
        c = self.counts
        return (f"{self.question}: {c['cases']} cases — " + ", ".join(f"{k} {c[k]}" for k in OUTCOMES)
                + f", value outside tol {c['value-outside-tol']}, within only by abs_tol "
                f"{c['within-by-abs-tol']} (tol {float(self.tol):.3g}, tol_level {float(self.tol_level):.3g}, "
                f"abs_tol {float(self.abs_tol):.3g} where the truth may be 0"
                + (f" or is ≤ {float(self.abs_scale):.3g}" if self.abs_scale else "") + ")")

    def table(self, max_rows: int | None = 40) -> str:
        """A plain-text table, failed cases first (no pandas).

        >>> from exactdp.testing.regression import crosscheck
        >>> from exactdp.spaces.metrics import line
        >>> import numpy as np
        >>> r = crosscheck(lambda D, e: np.ones(len(D)), "tight-constraints", [(line(2), 1)])
        >>> print(r.table().splitlines()[0].split())
        ['#', 'verdict', 'outcome', 'within', 'tol', 'rel', 'error', 'ulp', 'error', 'case']
        """
        if max_rows is not None and (isinstance(max_rows, bool) or not isinstance(max_rows, int) or max_rows < 0):
            raise InvalidArgument(f"Got max_rows={max_rows!r}; pass a whole number ≥ 0 or None (all rows).")
        head = f"{'#':>4}  {'verdict outcome':<29} {'within tol':<10} {'rel error':>10} {'ulp error':>10}  case"
        rows = sorted(self.results, key=lambda r: (not r.failed, r.index))
        if max_rows is not None:
            rows = rows[:max_rows]
        lines = [head, "-" * len(head)]
        for r in rows:
            rel = "—" if r.rel_error is None else f"{r.rel_error:.3g}"
            ul = "—" if r.ulp_error is None else f"{r.ulp_error:.3g}"
            lines.append(f"{r.index:>4}  {r.outcome:<29} {str(r.within_tol):<10} {rel:>10} {ul:>10}  {r.case}")
        if max_rows is not None and len(self.results) > max_rows:
            lines.append(f"... {len(self.results) - max_rows} more")
        lines.append(self.summary())
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.table()

    def to_json(self) -> dict[str, Any]:
        """Exact JSON form; :meth:`from_json` reads it back equal."""
        return {"question": self.question, "tol": str(self.tol), "tol_level": str(self.tol_level),
                "abs_tol": str(self.abs_tol), "abs_scale": str(self.abs_scale),
                "results": [r.to_json() for r in self.results]}

    @classmethod
    def from_json(cls, doc: Any) -> CrosscheckReport:
        """Read :meth:`to_json` (a dict or JSON text) back; tolerances and every result are
        checked as :func:`crosscheck` checks them (:class:`~exactdp.errors.InvalidArgument`)."""
        d = json.loads(doc) if isinstance(doc, str) else doc
        if not isinstance(d, dict):
            raise InvalidArgument(f"Got {type(d).__name__}; pass CrosscheckReport.to_json() (a dict or its JSON).")
        try:
            tol = read_tol(Fraction(_j_str(d["tol"], "tol")), "tol", below_one=True)
            tol_level = read_tol(Fraction(_j_str(d["tol_level"], "tol_level")), "tol_level", below_one=True)
            abs_tol = read_nonneg(Fraction(_j_str(d["abs_tol"], "abs_tol")), "abs_tol")
            abs_scale = read_nonneg(Fraction(_j_str(d.get("abs_scale", "0"), "abs_scale")), "abs_scale")
            results = tuple(CaseResult.from_json(r) for r in _j_list(d["results"], "results"))
            return cls(_j_str(d["question"], "question"), tol, tol_level, results, abs_tol, abs_scale)
        except (KeyError, TypeError, ValueError, ZeroDivisionError) as err:
            if isinstance(err, InvalidArgument):
                raise
            raise InvalidArgument(f"Got a report that is not CrosscheckReport.to_json() output "
                                  f"({type(err).__name__}: {err}); pass an unedited report.") from err


def read_nonneg(x: Any, name: str) -> Fraction:
    """A tolerance that may be 0 (abs_tol, abs_scale): 0 or a positive rational.

    >>> read_nonneg("0", "abs_tol"), read_nonneg("1e-15", "abs_tol") == Fraction(1, 10**15)
    (Fraction(0, 1), True)
    """
    return Fraction(0) if (isinstance(x, str) and x.strip() == "0") or (
        not isinstance(x, str) and x == 0) else read_tol(x, name)
