"""The regression oracle: run a user's float function on many cases and compare every answer
with exactdp's exact or certified one.

:func:`check_case` checks one case, :func:`crosscheck` many (a list, or a hypothesis strategy
drawn deterministically), optionally on any :class:`concurrent.futures.Executor`;
:class:`CrosscheckReport` holds the per-case results with summary counts, the worst case, an
exact JSON round trip and a plain-text table. The questions and the float signatures they
expect are listed in :mod:`exactdp.testing.questions`.

Per case the *value* check compares every float component with the certified enclosure of the
truth: ``abs_error`` is a certified upper bound of |float − truth| (worst component),
``rel_error`` that bound over the largest |truth| component (norm-wise, so z entries near 0 do
not blow it up), ``ulp_error`` it in ulps of the largest |truth| component (by
``exactdp.arithmetic.rounding.ulp``). ``within_tol`` is True when the bound is
≤ tol·scale + abs_tol, False when even the least possible error exceeds it, None when the
enclosure cannot tell.

The *verdict* outcome is one of :data:`OUTCOMES`: ``agrees``; ``disagrees``;
``within-tolerance-of-boundary`` (the float verdict differs, but the level at which the exact
verdict flips is certified to lie within ``tol_level`` of the queried level, so either answer
is acceptable); ``exactdp-undecided`` (exactdp could not decide: reported, never a float
error); and ``error`` (the float function raised, or the task failed on the executor).
Value-only questions (threshold, utility, leakage, capacity) have the verdict "the value is
within tol".

>>> from fractions import Fraction
>>> import numpy as np
>>> from exactdp.spaces.metrics import line
>>> def z_float(D, eps):
...     return np.linalg.solve(np.exp(-eps * D), np.ones(len(D)))
>>> report = crosscheck(z_float, "tight-constraints", [(line(3), "1/2"), (line(4), "ln(2)")])
>>> report.counts["agrees"], report.ok
(2, True)
>>> CrosscheckReport.from_json(report.to_json()) == report
True
"""

from __future__ import annotations

import json
import math
import traceback
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hseed

from exactdp.arithmetic.interval import Enclosure
from exactdp.arithmetic.rounding import ulp
from exactdp.arithmetic.validate import read_tol
from exactdp.errors import ExactDPError, InvalidArgument
from exactdp.kinds import Verdict
from exactdp.testing.questions import ExactValue, Truth, describe_case, read_question

__all__ = ["OUTCOMES", "DEFAULT_TOL", "DEFAULT_TOL_LEVEL", "DEFAULT_ABS_TOL", "CaseResult", "CrosscheckReport",
           "check_case", "crosscheck", "draw_cases"]

#: The outcomes of a case, in report order.
OUTCOMES = ("agrees", "disagrees", "within-tolerance-of-boundary", "exactdp-undecided", "error")
#: Default relative tolerance of values.
DEFAULT_TOL = Fraction(1, 10**9)
#: Default relative distance from the queried level within which a flip excuses a verdict.
DEFAULT_TOL_LEVEL = Fraction(1, 10**6)
#: Default absolute floor of the value tolerance (about 4.5 ulp of 1): a value whose truth is
#: exactly 0 (no leakage, ε* = 0) is matched by a float within it.
DEFAULT_ABS_TOL = Fraction(1, 10**15)


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

    @property
    def failed(self) -> bool:
        """True when the float function is wrong here: the verdict disagrees, the value is
        certified outside tol, or the float function raised."""
        return self.outcome in ("disagrees", "error") or self.within_tol is False

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
            "message": self.message,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> CaseResult:
        """Read :meth:`to_json` back."""
        def opt(x: Any) -> float | None:
            return None if x is None else float(x)
        return cls(
            int(d["index"]), str(d["case"]), tuple(float(v) for v in d["float_value"]),
            None if d["exact_value"] is None else tuple(_ev_read(e) for e in d["exact_value"]),
            opt(d["abs_error"]), opt(d["rel_error"]), opt(d["ulp_error"]), d["worst_component"],
            d["within_tol"], d["float_verdict"],
            None if d["exact_verdict"] is None else Verdict(d["exact_verdict"]), str(d["outcome"]),
            None if d["boundary"] is None else Enclosure(Fraction(d["boundary"][0]), Fraction(d["boundary"][1])),
            str(d["message"]),
        )


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
    return ExactValue(None if enc is None else Enclosure(Fraction(enc[0]), Fraction(enc[1])), d["exact"])


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

    @property
    def counts(self) -> dict[str, int]:
        """Number of cases per outcome, plus ``value-outside-tol`` and ``cases``."""
        out = {k: 0 for k in OUTCOMES}
        for r in self.results:
            out[r.outcome] += 1
        out["value-outside-tol"] = sum(r.within_tol is False for r in self.results)
        out["cases"] = len(self.results)
        return out

    @property
    def failures(self) -> tuple[CaseResult, ...]:
        """The cases where the float function is wrong (see :attr:`CaseResult.failed`)."""
        return tuple(r for r in self.results if r.failed)

    @property
    def ok(self) -> bool:
        """True when no case failed."""
        return not self.failures

    @property
    def worst(self) -> CaseResult | None:
        """The case with the largest relative error (None when no case has one)."""
        cands = [r for r in self.results if r.rel_error is not None]
        return max(cands, key=lambda r: (r.rel_error, -r.index)) if cands else None

    def summary(self) -> str:
        """One line of counts."""
        c = self.counts
        return (f"{self.question}: {c['cases']} cases — " + ", ".join(f"{k} {c[k]}" for k in OUTCOMES)
                + f", value outside tol {c['value-outside-tol']} (tol {float(self.tol):.3g}, "
                f"tol_level {float(self.tol_level):.3g})")

    def table(self, max_rows: int | None = 40) -> str:
        """A plain-text table, failed cases first (no pandas).

        >>> from exactdp.spaces.metrics import line
        >>> import numpy as np
        >>> r = crosscheck(lambda D, e: np.ones(len(D)), "tight-constraints", [(line(2), 1)])
        >>> print(r.table().splitlines()[0].split())
        ['#', 'verdict', 'outcome', 'within', 'tol', 'rel', 'error', 'ulp', 'error', 'case']
        """
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
                "abs_tol": str(self.abs_tol),
                "results": [r.to_json() for r in self.results]}

    @classmethod
    def from_json(cls, doc: Any) -> CrosscheckReport:
        """Read :meth:`to_json` (a dict or JSON text) back."""
        d = json.loads(doc) if isinstance(doc, str) else doc
        return cls(str(d["question"]), Fraction(d["tol"]), Fraction(d["tol_level"]),
                   tuple(CaseResult.from_json(r) for r in d["results"]), Fraction(d["abs_tol"]))


# ---- one case ----


def _split_output(out: Any) -> tuple[tuple[float, ...], bool | None]:
    """(values, verdict or None) from what a float function returned."""
    verdict: bool | None = None
    if isinstance(out, tuple) and len(out) == 2 and isinstance(out[1], (bool, np.bool_)):
        out, verdict = out[0], bool(out[1])
    arr = np.asarray(out, dtype=np.float64).ravel()
    return tuple(float(v) for v in arr), verdict


def _errors(fv: tuple[float, ...], ex: tuple[ExactValue, ...], tol: Fraction, abs_tol: Fraction
            ) -> tuple[float, float, float, int, bool | None]:
    """(abs, rel, ulp, worst index, within tol), certified upper bounds rounded up."""
    if len(fv) != len(ex):
        return math.inf, math.inf, math.inf, 0, False
    big_hi = Fraction(0)
    big_lo = Fraction(0)
    worst, worst_hi, worst_lo = 0, Fraction(-1), Fraction(0)
    infinite = False
    for i, (f, e) in enumerate(zip(fv, ex)):
        if e.enclosure is None:  # the truth is +∞
            if f != math.inf:
                infinite = True
                worst = i
            continue
        lo, hi = e.enclosure.lo, e.enclosure.hi
        big_hi = max(big_hi, abs(lo), abs(hi))
        big_lo = max(big_lo, Fraction(0) if lo <= 0 <= hi else min(abs(lo), abs(hi)))
        if not math.isfinite(f):
            infinite = True
            worst = i
            continue
        q = Fraction(f)
        e_hi = max(abs(q - lo), abs(q - hi))
        e_lo = Fraction(0) if lo <= q <= hi else min(abs(q - lo), abs(q - hi))
        if e_hi > worst_hi:
            worst, worst_hi, worst_lo = i, e_hi, e_lo
    if infinite:
        return math.inf, math.inf, math.inf, worst, False
    if worst_hi < 0:  # every truth is +∞ and every float is inf
        return 0.0, 0.0, 0.0, 0, True
    within: bool | None
    if worst_hi <= tol * big_lo + abs_tol:
        within = True
    elif worst_lo > tol * big_hi + abs_tol:
        within = False
    else:
        within = None
    ref = float(big_hi)
    abs_e = float(worst_hi)
    rel_e = math.inf if big_lo == 0 and worst_hi > 0 else (0.0 if worst_hi == 0 else float(worst_hi / big_lo))
    u = float(ulp(ref)) if ref != 0 else float(ulp(0.0))
    return abs_e, rel_e, abs_e / u, worst, within


def check_case(fn: Callable[..., Any], question: Any, case: Any, *, tol: Any = DEFAULT_TOL,
               tol_level: Any = DEFAULT_TOL_LEVEL, inputs: str = "float", index: int = 0,
               abs_tol: Any = DEFAULT_ABS_TOL) -> CaseResult:
    """Run ``fn`` on one case and compare with exactdp (see the module docstring).

    ``inputs="float"`` (default) calls ``fn`` with the float arguments of the question's
    signature; ``inputs="exact"`` calls it with the exact case itself (for float routes that
    take exactdp objects, e.g. ``tight_constraints(m, eps, method="float")``).

    >>> import numpy as np
    >>> from exactdp.spaces.metrics import line
    >>> r = check_case(lambda D, e: -np.ones(len(D)), "tight-constraints", (line(3), "1/2"))
    >>> r.outcome, r.float_verdict, r.exact_verdict.value
    ('disagrees', False, 'holds')
    """
    q = read_question(question)
    tolq, tol_lq = read_tol(tol, "tol", below_one=True), read_tol(tol_level, "tol_level", below_one=True)
    atol = Fraction(0) if abs_tol == 0 else read_tol(abs_tol, "abs_tol")
    c = q.read_case(case)
    desc = describe_case(q.name, c)
    if inputs not in ("float", "exact"):
        raise InvalidArgument(f"Got inputs={inputs!r}; pass 'float' or 'exact'.")
    try:
        out = fn(*(q.float_args(c) if inputs == "float" else c))
        fv, given = _split_output(out)
    except Exception as err:  # the user's function failed: reported per case
        return CaseResult(index, desc, (), None, None, None, None, None, None, None, None, "error",
                          None, f"the float function raised {type(err).__name__}: {err}")
    fverdict = q.float_verdict(c, fv, given) if q.has_verdict else None
    try:
        truth: Truth = q.truth(c)
        ev = q.exact_verdict(c, truth, fv) if q.has_verdict else None
    except ExactDPError as err:
        return CaseResult(index, desc, fv, None, None, None, None, None, None, fverdict, None,
                          "exactdp-undecided", None, f"{type(err).__name__}: {err}")
    if truth.values is None:
        abs_e = rel_e = ulp_e = None
        worst: int | None = None
        within: bool | None = None
    else:
        abs_e, rel_e, ulp_e, worst, within = _errors(fv, truth.values, tolq, atol)
    boundary = None
    if not q.has_verdict or fverdict is None:
        outcome = {True: "agrees", False: "disagrees", None: "exactdp-undecided"}[within]
    elif ev is None or not ev.decided:
        outcome = "exactdp-undecided"
    elif (ev is Verdict.HOLDS) == fverdict:
        outcome = "agrees"
    else:
        try:
            boundary = q.boundary(c, truth, fv, tol_lq)
        except ExactDPError:
            boundary = None
        outcome = "disagrees" if boundary is None else "within-tolerance-of-boundary"
    return CaseResult(index, desc, fv, truth.values, abs_e, rel_e, ulp_e, worst, within, fverdict,
                      ev, outcome, boundary, truth.note if outcome == "exactdp-undecided" else "")


# ---- many cases ----


def draw_cases(strategy: Any, n: int = 50, *, seed: int = 0) -> list[Any]:
    """``n`` examples of a hypothesis strategy, the same ones on every run (derandomized).

    >>> from hypothesis import strategies as st
    >>> draw_cases(st.integers(0, 9), 5) == draw_cases(st.integers(0, 9), 5)
    True
    """
    out: list[Any] = []

    @hseed(seed)
    @settings(max_examples=n, database=None, derandomize=False, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck), deadline=None)
    @given(strategy)
    def collect(x: Any) -> None:
        out.append(x)

    collect()
    return out[:n]


def _chunk(fn: Callable[..., Any], question: str, cases: Sequence[tuple[int, Any]], tol: Fraction,
           tol_level: Fraction, inputs: str, abs_tol: Fraction) -> list[CaseResult]:
    return [check_case(fn, question, c, tol=tol, tol_level=tol_level, inputs=inputs, index=i, abs_tol=abs_tol)
            for i, c in cases]


def _failed(i: int, case: Any, question: str, err: BaseException) -> CaseResult:
    try:
        desc = describe_case(question, read_question(question).read_case(case))
    except Exception:
        desc = repr(case)[:80]
    msg = "".join(traceback.format_exception_only(type(err), err)).strip()
    return CaseResult(i, desc, (), None, None, None, None, None, None, None, None, "error", None,
                      f"the task failed on the executor: {msg}")


def crosscheck(fn: Callable[..., Any], question: Any, cases: Any, *, tol: Any = DEFAULT_TOL,
               tol_level: Any = DEFAULT_TOL_LEVEL, executor: Executor | None = None,
               inputs: str = "float", max_examples: int = 50, chunksize: int = 4,
               retries: int = 1, abs_tol: Any = DEFAULT_ABS_TOL) -> CrosscheckReport:
    """Compare the float function ``fn`` with exactdp on every case.

    Parameters
    ----------
    fn : callable
        The float implementation, with the question's float signature
        (:mod:`exactdp.testing.questions`).
    question : str
        A name of :data:`~exactdp.testing.questions.QUESTION_NAMES`.
    cases : iterable or hypothesis strategy
        Exact cases of the question; a strategy is drawn ``max_examples`` times,
        deterministically (:func:`draw_cases`).
    tol, tol_level : relative tolerances (default 10⁻⁹ for values, 10⁻⁶ for the level).
    abs_tol : absolute floor added to ``tol``·scale (default 10⁻¹⁵; 0 for none).
    executor : concurrent.futures.Executor, optional
        Runs chunks of ``chunksize`` cases as tasks (``fn`` must then be picklable for a
        process or cluster executor, e.g. ``dask.distributed.Client(addr).get_executor()``).
        Results are in case order and identical whatever the executor; a failed task is
        retried ``retries`` times case by case, then reported as an ``error`` case.
    inputs : {"float", "exact"}
        What ``fn`` receives (see :func:`check_case`).
    """
    q = read_question(question)
    tolq, tol_lq = read_tol(tol, "tol", below_one=True), read_tol(tol_level, "tol_level", below_one=True)
    atol = Fraction(0) if abs_tol == 0 else read_tol(abs_tol, "abs_tol")
    if hasattr(cases, "example") and hasattr(cases, "map"):
        cases = draw_cases(cases, max_examples)
    items = list(enumerate(cases if isinstance(cases, Iterable) else [cases]))
    if executor is None:
        results = _chunk(fn, q.name, items, tolq, tol_lq, inputs, atol)
    else:
        results = _run_on(executor, fn, q.name, items, tolq, tol_lq, inputs, max(1, chunksize), retries,
                          atol)
    return CrosscheckReport(q.name, tolq, tol_lq, tuple(results), atol)


def _run_on(executor: Executor, fn: Callable[..., Any], question: str, items: list[tuple[int, Any]],
            tol: Fraction, tol_level: Fraction, inputs: str, chunksize: int, retries: int,
            abs_tol: Fraction) -> list[CaseResult]:
    chunks = [items[k:k + chunksize] for k in range(0, len(items), chunksize)]
    futures = [executor.submit(_chunk, fn, question, ch, tol, tol_level, inputs, abs_tol) for ch in chunks]
    out: list[CaseResult] = []
    for ch, fut in zip(chunks, futures):
        try:
            out.extend(fut.result())
            continue
        except Exception:  # the whole task failed (worker lost, unpicklable fn, ...)
            pass
        for i, case in ch:  # retry case by case, then report each failure
            err: BaseException | None = None
            for _ in range(retries + 1):
                try:
                    out.extend(executor.submit(_chunk, fn, question, [(i, case)], tol, tol_level,
                                               inputs, abs_tol).result())
                    err = None
                    break
                except Exception as e:
                    err = e
            if err is not None:
                out.append(_failed(i, case, question, err))
    return out
