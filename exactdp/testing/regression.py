"""The regression oracle: run a user's float function on many cases and compare every answer
with exactdp's exact or certified one.

:func:`check_case` checks one case, :func:`crosscheck` many (a list, or a hypothesis strategy
drawn deterministically), optionally on any :class:`concurrent.futures.Executor`;
:class:`CrosscheckReport` holds the per-case results with summary counts, the worst case, an
exact JSON round trip and a plain-text table. The questions and the float signatures they
expect are listed in :mod:`exactdp.testing.questions`.

Per case the *value* check compares every float component with the certified enclosure of the
truth: ``abs_error`` is a certified upper bound of |float − truth| (worst component),
``rel_error`` that bound over the least possible largest |truth| component (norm-wise, so z
entries near 0 do not blow it up), ``ulp_error`` it in ulps of the largest |truth| component
(by ``exactdp.arithmetic.rounding.ulp``); all three are rounded up to floats.

*Tolerance rule.* ``within_tol`` is True when the certified relative error is ≤ ``tol``, or
when the absolute error is ≤ ``abs_tol`` **and the truth is at the scale where a relative
error means nothing**: its enclosure contains 0 (the truth may be exactly 0 — no leakage,
ε* = 0 — where every nonzero float has relative error ∞), or the largest |truth| is certified
≤ ``abs_scale`` (default 0: off). So by default a tiny *nonzero* truth (a capacity of 1.3e-18)
is checked relatively, and a float 0 there fails; a user whose backend is only meant to be
absolutely accurate for small values says so with ``abs_scale`` (e.g. ``abs_scale=1e-9``).
``within_tol`` is False when even the least possible error breaks both rules, None when the
enclosure cannot tell; ``by_abs_tol`` marks the cases passed only by the absolute rule (counted
as ``within-by-abs-tol`` in the summary).

The *verdict* outcome is one of :data:`OUTCOMES`: ``agrees``; ``disagrees``;
``within-tolerance-of-boundary`` (the float verdict differs, but the level at which the exact
verdict flips is certified to lie within ``tol_level`` of the queried level, so either answer
is acceptable); ``exactdp-undecided`` (exactdp could not decide —
:data:`UNDECIDED_ERRORS` — reported, never a float error); ``error`` (the float function raised
or returned something unreadable or of the wrong size, or the task failed on the executor;
``side`` says which); ``exactdp-error`` (exactdp's truth or the oracle's own classification
raised something else — a bug or limit of exactdp, never blamed on the float function, but the
report is not ``ok``). Every exception becomes a row, the same in-process and on any executor.
A proved extreme truth (ε* = +∞ when the property never holds) is decided, never undecided.
Value-only questions (threshold, utility, leakage, capacity) have the verdict "the value is
within tol". Invalid cases raise the library's specific error before ``fn`` is called
(:mod:`exactdp.testing.questions`).

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

import math
import traceback
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import BrokenExecutor, Executor, Future
from fractions import Fraction
from typing import Any

import numpy as np
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hseed

from exactdp.arithmetic.rounding import float_up, ulp
from exactdp.arithmetic.validate import read_tol
from exactdp.errors import (
    InstanceTooLarge,
    InvalidArgument,
    LPNotCertified,
    PrecisionLimitReached,
)
from exactdp.kinds import Verdict
from exactdp.testing.crosscheck_report import (
    DEFAULT_ABS_SCALE,
    DEFAULT_ABS_TOL,
    DEFAULT_TOL,
    DEFAULT_TOL_LEVEL,
    OUTCOMES,
    SIDES,
    CaseResult,
    CrosscheckReport,
    read_nonneg,
)
from exactdp.testing.questions import QUESTIONS, ExactValue, Question, Truth, describe_case, read_question

__all__ = ["OUTCOMES", "SIDES", "UNDECIDED_ERRORS", "DEFAULT_TOL", "DEFAULT_TOL_LEVEL", "DEFAULT_ABS_TOL",
           "DEFAULT_ABS_SCALE", "CaseResult", "CrosscheckReport", "check_case", "crosscheck", "draw_cases"]

#: exactdp errors that mean "exactdp could not decide this case" (``exactdp-undecided``); any
#: other exception while computing the truth is an ``exactdp-error`` row.
UNDECIDED_ERRORS = (PrecisionLimitReached, InstanceTooLarge, LPNotCertified)


# ---- one case ----


class _Unreadable(ValueError):
    """The float function returned something the oracle cannot read as the question's values."""


def _split_output(out: Any) -> tuple[tuple[float, ...], bool | None]:
    """(values, verdict or None) from what a float function returned."""
    verdict: bool | None = None
    if isinstance(out, (tuple, list)) and len(out) == 2:
        flag = out[1]
        if isinstance(flag, np.ndarray) and flag.shape == () and flag.dtype == np.bool_:
            flag = flag.item()
        if isinstance(flag, (bool, np.bool_)):
            out, verdict = out[0], bool(flag)
    try:
        arr = np.asarray(out, dtype=np.float64)
    except (TypeError, ValueError, OverflowError) as err:
        raise _Unreadable(f"returned an unreadable value {out!r:.80} ({err}); return a float, a "
                          "1-D array of floats, or (values, verdict bool)") from None
    if arr.ndim > 1:
        raise _Unreadable(f"returned an array of shape {arr.shape}; return a 1-D array")
    return tuple(float(v) for v in arr.ravel()), verdict


def _errors(fv: tuple[float, ...], ex: tuple[ExactValue, ...], tol: Fraction, abs_tol: Fraction,
            abs_scale: Fraction = DEFAULT_ABS_SCALE) -> tuple[float, float, float, int, bool | None, bool]:
    """(abs, rel, ulp, worst index, within tol, by abs_tol only): certified upper bounds rounded
    up to floats, and the tolerance rule of the module docstring."""
    if len(fv) != len(ex):
        return math.inf, math.inf, math.inf, 0, False, False
    big_hi = Fraction(0)
    big_lo = Fraction(0)
    worst, worst_hi, least = 0, Fraction(-1), Fraction(0)  # least: max over components of the error's lower bound
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
        least = max(least, e_lo)
        if e_hi > worst_hi:
            worst, worst_hi = i, e_hi
    if infinite:
        return math.inf, math.inf, math.inf, worst, False, False
    if worst_hi < 0:  # every truth is +∞ and every float is inf
        return 0.0, 0.0, 0.0, 0, True, False
    # the absolute rule applies only where a relative error means nothing: the truth may be 0,
    # or the user declared its scale absolute (abs_scale)
    floor = abs_tol if (big_lo == 0 or big_hi <= abs_scale) else None
    relative_ok = worst_hi <= tol * big_lo
    within: bool | None
    if relative_ok or (floor is not None and worst_hi <= floor):
        within = True
    elif least > tol * big_hi and (floor is None or least > floor):
        within = False
    else:
        within = None
    by_abs = within is True and not relative_ok
    ref = float(big_hi)
    abs_e = float_up(worst_hi)
    rel_e = math.inf if big_lo == 0 and worst_hi > 0 else (0.0 if worst_hi == 0 else float_up(worst_hi / big_lo))
    u = Fraction(ulp(ref) if ref != 0 else ulp(0.0))
    return abs_e, rel_e, float_up(worst_hi / u), worst, within, by_abs


def _row(index: int, desc: str, outcome: str, side: str, message: str,
         fv: tuple[float, ...] = ()) -> CaseResult:
    return CaseResult(index, desc, fv, None, None, None, None, None, None, None, None, outcome, None,
                      message, side)


def _read_tols(tol: Any, tol_level: Any, abs_tol: Any, abs_scale: Any
               ) -> tuple[Fraction, Fraction, Fraction, Fraction]:
    return (read_tol(tol, "tol", below_one=True), read_tol(tol_level, "tol_level", below_one=True),
            read_nonneg(abs_tol, "abs_tol"), read_nonneg(abs_scale, "abs_scale"))


def _exc(err: BaseException) -> str:
    return "".join(traceback.format_exception_only(type(err), err)).strip()


def check_case(fn: Callable[..., Any], question: Any, case: Any, *, tol: Any = DEFAULT_TOL,
               tol_level: Any = DEFAULT_TOL_LEVEL, inputs: str = "float", index: int = 0,
               abs_tol: Any = DEFAULT_ABS_TOL, abs_scale: Any = DEFAULT_ABS_SCALE) -> CaseResult:
    """Run ``fn`` on one case and compare with exactdp (see the module docstring).

    ``inputs="float"`` (default) calls ``fn`` with the float arguments of the question's
    signature; ``inputs="exact"`` calls it with the exact case itself (for float routes that
    take exactdp objects, e.g. ``tight_constraints(m, eps, method="float")``). An invalid case
    raises the library's specific error (before ``fn`` runs); every exception after that is a
    row (``side`` says whose).

    >>> import numpy as np
    >>> from exactdp.spaces.metrics import line
    >>> r = check_case(lambda D, e: -np.ones(len(D)), "tight-constraints", (line(3), "1/2"))
    >>> r.outcome, r.float_verdict, r.exact_verdict.value
    ('disagrees', False, 'holds')
    >>> check_case(lambda D, p: 0.0, "threshold", (line(3), [1, 0, 0])).outcome   # ε* = +∞
    'disagrees'
    """
    q = read_question(question)
    tolq, tol_lq, atol, ascale = _read_tols(tol, tol_level, abs_tol, abs_scale)
    if inputs not in ("float", "exact"):
        raise InvalidArgument(f"Got inputs={inputs!r}; pass 'float' or 'exact'.")
    c = q.read_case(case)
    desc = describe_case(q.name, c)
    args = q.float_args(c) if inputs == "float" else c  # unrepresentable: raises, fn not called
    try:
        out = fn(*args)
    except (Exception, SystemExit) as err:  # the user's function failed: reported per case
        return _row(index, desc, "error", "float-function", f"the float function raised {_exc(err)}")
    try:
        fv, given = _split_output(out)
    except _Unreadable as err:
        return _row(index, desc, "error", "float-function", f"the float function {err}")
    size = q.expected_size(c)
    if len(fv) != size:
        return _row(index, desc, "error", "float-function",
                    f"the float function returned {len(fv)} value(s), expected {size}", fv)
    try:
        truth: Truth = q.truth(c)
    except UNDECIDED_ERRORS as err:
        return _row(index, desc, "exactdp-undecided", "", f"{type(err).__name__}: {err}", fv)
    except Exception as err:  # exactdp itself failed: never blamed on the float function
        return _row(index, desc, "exactdp-error", "exactdp-truth", f"exactdp's truth raised {_exc(err)}", fv)
    try:
        return _classify(q, c, fv, given, truth, index, desc, tolq, tol_lq, atol, ascale)
    except UNDECIDED_ERRORS as err:
        return _row(index, desc, "exactdp-undecided", "", f"{type(err).__name__}: {err}", fv)
    except Exception as err:  # a bug in the oracle's verdict/boundary code
        return _row(index, desc, "exactdp-error", "oracle", f"the oracle's classification raised {_exc(err)}",
                    fv)


def _classify(q: Question, c: tuple[Any, ...], fv: tuple[float, ...], given: bool | None, truth: Truth,
              index: int, desc: str, tolq: Fraction, tol_lq: Fraction, atol: Fraction,
              ascale: Fraction) -> CaseResult:
    fverdict = q.float_verdict(c, fv, given) if q.has_verdict else None
    ev = q.exact_verdict(c, truth, fv) if q.has_verdict else None
    by_abs = False
    if truth.values is None:
        abs_e = rel_e = ulp_e = None
        worst: int | None = None
        within: bool | None = None
    else:
        abs_e, rel_e, ulp_e, worst, within, by_abs = _errors(fv, truth.values, tolq, atol, ascale)
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
        except UNDECIDED_ERRORS:
            boundary = None
        outcome = "disagrees" if boundary is None else "within-tolerance-of-boundary"
    return CaseResult(index, desc, fv, truth.values, abs_e, rel_e, ulp_e, worst, within, fverdict,
                      ev, outcome, boundary, truth.note if outcome == "exactdp-undecided" else "", "", by_abs)


# ---- many cases ----


def draw_cases(strategy: Any, n: int = 50, *, seed: int = 0) -> list[Any]:
    """Up to ``n`` examples of a hypothesis strategy, the same ones on every run.

    Fewer than ``n`` come back when the strategy has fewer distinct values (hypothesis stops
    once it has seen them all: ``st.booleans()`` gives 2).

    >>> from hypothesis import strategies as st
    >>> draw_cases(st.integers(0, 9), 5) == draw_cases(st.integers(0, 9), 5)
    True
    """
    n = _whole(n, "n", 1)
    out: list[Any] = []

    @hseed(seed)
    @settings(max_examples=n, database=None, derandomize=False, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck), deadline=None)
    @given(strategy)
    def collect(x: Any) -> None:
        out.append(x)

    collect()
    return out[:n]


def _whole(x: Any, name: str, minimum: int) -> int:
    if isinstance(x, bool) or not isinstance(x, (int, np.integer)) or x < minimum:
        raise InvalidArgument(f"Got {name}={x!r}; pass a whole number ≥ {minimum}.")
    return int(x)


def _chunk(fn: Callable[..., Any], question: Any, cases: Sequence[tuple[int, Any]], tol: Fraction,
           tol_level: Fraction, inputs: str, abs_tol: Fraction, abs_scale: Fraction = DEFAULT_ABS_SCALE
           ) -> list[CaseResult]:
    return [check_case(fn, question, c, tol=tol, tol_level=tol_level, inputs=inputs, index=i, abs_tol=abs_tol,
                       abs_scale=abs_scale) for i, c in cases]


def _failed(i: int, case: Any, q: Question, err: BaseException, attempts: int) -> CaseResult:
    try:
        desc = describe_case(q.name, q.read_case(case))
    except Exception:
        desc = repr(case)[:80]
    hint = ""
    if isinstance(err, BrokenExecutor):  # a dead worker breaks a process pool for every later task
        hint = (" — the executor is broken (a worker died, possibly while running another case), so "
                "this case was not run; use an executor that replaces dead workers (dask.distributed)")
    return _row(i, desc, "error", "executor",
                f"the task failed on the executor after {attempts} attempt(s): {_exc(err)}{hint}")


def crosscheck(fn: Callable[..., Any], question: Any, cases: Any, *, tol: Any = DEFAULT_TOL,
               tol_level: Any = DEFAULT_TOL_LEVEL, executor: Executor | None = None,
               inputs: str = "float", max_examples: int = 50, chunksize: int = 4,
               retries: int = 1, abs_tol: Any = DEFAULT_ABS_TOL,
               abs_scale: Any = DEFAULT_ABS_SCALE) -> CrosscheckReport:
    """Compare the float function ``fn`` with exactdp on every case.

    Parameters
    ----------
    fn : callable
        The float implementation, with the question's float signature
        (:mod:`exactdp.testing.questions`).
    question : str or Question
        A name of :data:`~exactdp.testing.questions.QUESTION_NAMES` (or a
        :class:`~exactdp.testing.questions.Question`; a custom one runs in-process or on a
        thread executor only, since it is not picklable by name).
    cases : iterable or hypothesis strategy
        Exact cases of the question; a strategy is drawn ``max_examples`` times,
        deterministically (:func:`draw_cases`). Every case is read (validated) first: an
        invalid case raises the library's specific error before any work starts.
    tol, tol_level : relative tolerances (default 10⁻⁹ for values, 10⁻⁶ for the level).
    abs_tol, abs_scale : the absolute rule (default 10⁻¹⁵ where the truth may be 0; see the
        module docstring).
    executor : concurrent.futures.Executor, optional
        Runs chunks of ``chunksize`` (≥ 1) cases as tasks (``fn`` must then be picklable for a
        process or cluster executor, e.g. ``dask.distributed.Client(addr).get_executor()``).
        Results are in case order and identical whatever the executor; a failed task is
        retried ``retries`` (≥ 0) more times case by case, then reported as an ``error`` case
        (side ``executor``); no case is ever dropped.
    inputs : {"float", "exact"}
        What ``fn`` receives (see :func:`check_case`).

    >>> crosscheck(abs, "utility", [], retries=-1)
    Traceback (most recent call last):
    ...
    exactdp.errors.InvalidArgument: Got retries=-1; pass a whole number ≥ 0.
    """
    q = read_question(question)
    tolq, tol_lq, atol, ascale = _read_tols(tol, tol_level, abs_tol, abs_scale)
    retries = _whole(retries, "retries", 0)
    chunksize = _whole(chunksize, "chunksize", 1)
    max_examples = _whole(max_examples, "max_examples", 1)
    if inputs not in ("float", "exact"):
        raise InvalidArgument(f"Got inputs={inputs!r}; pass 'float' or 'exact'.")
    if hasattr(cases, "example") and hasattr(cases, "map"):
        cases = draw_cases(cases, max_examples)
    items = list(enumerate(cases if isinstance(cases, Iterable) else [cases]))
    for _, case in items:  # invalid cases raise their specific error here, never become rows
        c = q.read_case(case)
        if inputs == "float":
            q.float_args(c)  # a case float64 cannot hold is invalid too
    ref: Any = q.name if QUESTIONS.get(q.name) is q else q  # registered ones travel by name
    if executor is None:
        results = _chunk(fn, ref, items, tolq, tol_lq, inputs, atol, ascale)
    else:
        results = _run_on(executor, fn, ref, q, items, tolq, tol_lq, inputs, chunksize, retries, atol, ascale)
    assert [r.index for r in results] == [i for i, _ in items], "a case was dropped"
    return CrosscheckReport(q.name, tolq, tol_lq, tuple(results), atol, ascale)


def _run_on(executor: Executor, fn: Callable[..., Any], ref: Any, q: Question, items: list[tuple[int, Any]],
            tol: Fraction, tol_level: Fraction, inputs: str, chunksize: int, retries: int,
            abs_tol: Fraction, abs_scale: Fraction) -> list[CaseResult]:
    args = (tol, tol_level, inputs, abs_tol, abs_scale)
    chunks = [items[k:k + chunksize] for k in range(0, len(items), chunksize)]
    futures = []
    for ch in chunks:
        try:
            futures.append(executor.submit(_chunk, fn, ref, ch, *args))
        except Exception as submit_err:  # submit itself failed (shut-down or broken pool)
            failed: Future[list[CaseResult]] = Future()
            failed.set_exception(submit_err)
            futures.append(failed)
    out: list[CaseResult] = []
    for ch, fut in zip(chunks, futures):
        try:
            out.extend(fut.result())
            continue
        except Exception:  # the whole task failed (worker lost, unpicklable fn, ...)
            pass
        for i, case in ch:  # retry case by case, then report each failure
            last: BaseException | None = None
            for _ in range(retries + 1):
                try:
                    out.extend(executor.submit(_chunk, fn, ref, [(i, case)], *args).result())
                    last = None
                    break
                except Exception as e:
                    last = e
            if last is not None:
                out.append(_failed(i, case, q, last, retries + 1))
    return out
