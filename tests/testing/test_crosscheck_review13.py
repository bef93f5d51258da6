"""Regression tests for the adversarial review of issue 13 (notes/review13.md): each fails on the
code the review read (commit 1d3e923) and passes after the fix."""

from __future__ import annotations

import dataclasses
import json
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

import exactdp.batch as batch
from exactdp.errors import InvalidArgument, InvalidMechanism, InvalidMetric, InvalidPrior
from exactdp.pufferfish.distributions import bernoulli
from exactdp.pufferfish.secrets import DistributionPair
from exactdp.sets import Box, BoxUnion, point_set
from exactdp.spaces.metrics import line
from exactdp.testing import QUESTIONS, CrosscheckReport, assert_matches_exact, check_case, crosscheck
from exactdp.testing.float_reference import (
    capacity_1d_float,
    privacy_level_float,
    threshold_float,
    tight_z_float,
    utility_float,
)
from exactdp.testing.questions import ExactValue
from exactdp.testing.regression import DEFAULT_ABS_TOL, DEFAULT_TOL, _errors

F = Fraction
ROWS = ((F(2, 3), F(1, 3)), (F(1, 3), F(2, 3)))  # privacy level ln 2 on line(2)
FAR = (point_set([(0,)]), BoxUnion([Box((40,), (41,))]), 1)  # capacity (e^-40 − e^-41)/2 ≈ 1.34e-18


class _Flaky(Executor):
    """Runs tasks in-process; every task that carries case index 1 fails."""

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Future[Any]:
        fut: Future[Any] = Future()
        items = args[2] if len(args) > 2 and isinstance(args[2], list) else []
        if any(i == 1 for i, _ in items):
            fut.set_exception(RuntimeError("worker lost"))
        else:
            fut.set_result(fn(*args, **kwargs))
        return fut


# ---- C1: a proved "never holds" (ε* = +∞) is a decided truth ----


def test_threshold_never_holds_is_decided_plus_infinity() -> None:
    r = check_case(lambda D, p: 0.0, "threshold", (line(3), [1, 0, 0]))
    assert r.outcome == "disagrees" and r.failed and r.within_tol is False
    assert r.exact_value == (ExactValue(None, "oo"),)
    assert check_case(lambda D, p: float("inf"), "threshold", (line(3), [1, 0, 0])).outcome == "agrees"
    assert not crosscheck(lambda D, p: 0.0, "threshold", [(line(3), ["1/2", 0, "1/2"])]).ok
    # holds everywhere (ε* = 0 exactly) is decided too: a float far from 0 fails
    assert check_case(lambda D, p: 0.5, "threshold", line(4)).failed


# ---- M1: retries / chunksize validated; no case dropped ----


@pytest.mark.parametrize("kw", [{"retries": -1}, {"retries": "2"}, {"retries": True}, {"chunksize": None},
                                {"chunksize": 2.5}, {"chunksize": 0}, {"max_examples": 0}])
def test_retries_and_chunksize_are_validated(kw: dict[str, Any]) -> None:
    with pytest.raises(InvalidArgument, match=next(iter(kw))):
        crosscheck(tight_z_float, "tight-constraints", [(line(3), "1/2")], executor=_Flaky(), **kw)


def test_retries_zero_still_reports_the_failed_case() -> None:
    cases = [(line(3), "1/2"), (line(4), "1/2"), (line(5), 1)]
    rep = crosscheck(tight_z_float, "tight-constraints", cases, executor=_Flaky(), chunksize=1, retries=0)
    assert [r.index for r in rep.results] == [0, 1, 2] and not rep.ok
    bad = rep.results[1]
    assert bad.outcome == "error" and bad.side == "executor" and "1 attempt" in bad.message


# ---- M2: every exception is a per-case row saying whose, identical on executors ----


def test_short_output_is_a_float_error_identical_on_threads() -> None:
    cases = [(ROWS, line(2), "1")]
    a = crosscheck(lambda H, D, e: np.array([]), "privacy-level", cases)
    with ThreadPoolExecutor(1) as ex:
        b = crosscheck(lambda H, D, e: np.array([]), "privacy-level", cases, executor=ex)
    assert a == b
    r = a.results[0]
    assert r.outcome == "error" and r.side == "float-function" and "0 value(s), expected 1" in r.message
    pair = DistributionPair(bernoulli(F(1, 3)), bernoulli(F(1, 2)))
    r2 = check_case(lambda *args: np.array([]), "pufferfish-theta", (pair, "1/2"))
    assert r2.outcome == "error" and r2.failed


def _boom(c: Any) -> Any:
    raise MemoryError("Unable to allocate 1.67 EiB")


def test_exactdp_raising_is_an_exactdp_error_row_not_blamed_on_fn() -> None:
    q = dataclasses.replace(QUESTIONS["tight-constraints"], truth=_boom)
    cases = [(line(3), "1/2"), (line(4), "1/2")]
    a = crosscheck(tight_z_float, q, cases)
    with ThreadPoolExecutor(1) as ex:
        b = crosscheck(tight_z_float, q, cases, executor=ex)
    assert a == b and not a.ok and a.counts["exactdp-error"] == 2
    assert {r.side for r in a.results} == {"exactdp-truth"} and not any(r.failed for r in a.results)
    assert "MemoryError" in a.results[0].message
    q2 = dataclasses.replace(QUESTIONS["tight-constraints"], float_verdict=lambda c, fv, g: [][0])
    r = check_case(tight_z_float, q2, (line(3), "1/2"))
    assert r.outcome == "exactdp-error" and r.side == "oracle"


def test_batch_rows_are_identical_in_process_and_on_an_executor(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(InvalidMetric, match=r"metrics\[1\]"):
        batch.thresholds_over_metrics([line(3), [[0, 1], [1, 0]]])
    with pytest.raises(InvalidArgument, match="class 'a'"):
        batch.pufferfish_over_classes({"a": 5}, 1)

    def crash(*a: Any, **k: Any) -> Any:
        raise AttributeError("exactdp bug")

    monkeypatch.setattr(batch, "epsilon_threshold", crash)
    a = batch.thresholds_over_metrics([line(3)])
    with ThreadPoolExecutor(1) as ex:
        b = batch.thresholds_over_metrics([line(3)], executor=ex)
    assert a == b and a.items[0].side == "exactdp-raised" and "AttributeError" in (a.items[0].error or "")


# ---- M3: the absolute floor hides no wrong answer on a nonzero truth ----


def test_zero_for_a_tiny_nonzero_truth_is_flagged() -> None:
    r = check_case(lambda X, b, e: 0.0, "set-capacity", FAR)  # what capacity_1d_float returned
    assert r.failed and r.within_tol is False and r.rel_error >= 1
    assert check_case(lambda X, b, e: 9e-16, "set-capacity", FAR).failed
    fixed = check_case(capacity_1d_float, "set-capacity", FAR)  # now without cancellation
    assert fixed.outcome == "agrees" and not fixed.by_abs_tol and fixed.rel_error < 1e-9
    # the user may declare an absolute scale: then it is passed, and the summary says so
    rep = crosscheck(lambda X, b, e: 0.0, "set-capacity", [FAR], abs_scale="1e-12")
    assert rep.ok and rep.counts["within-by-abs-tol"] == 1 and "within only by abs_tol 1" in rep.summary()


def test_abs_tol_applies_where_the_truth_may_be_zero() -> None:
    rows = ((F(1, 2), F(1, 2)), (F(1, 2), F(1, 2)))  # no leakage: L = 0 exactly
    r = check_case(lambda H, p: 1e-16, "min-entropy-leakage", (rows, ["1/2", "1/2"]))
    assert r.outcome == "agrees" and r.by_abs_tol
    assert check_case(lambda H, p: 1e-13, "min-entropy-leakage", (rows, ["1/2", "1/2"])).failed


# ---- M4: invalid cases raise the specific error before fn runs ----


@pytest.mark.parametrize("question, case, error", [
    ("privacy-level", (((F(1, 2), F(1, 3)), (F(1, 2), F(1, 2))), line(2), "1"), InvalidMechanism),
    ("privacy-level", (((F(1, 2), F(1, 2)), (F(1, 2), F(1, 2))), line(3), "1"), InvalidMechanism),
    ("utility", (((F(1, 2), F(1, 2)), (F(1, 2), F(1, 2))), ["1/3", "1/3"]), InvalidPrior),
    ("utility", (((F(1, 2), F(1, 2)), (F(1, 2), F(1, 2))), ["3/2", "-1/2"]), InvalidPrior),
    ("min-entropy-leakage", (((F(1),), (F(1),)), ["1/2", "1/4", "1/4"]), InvalidPrior),
])
def test_invalid_cases_raise_before_fn_runs(question: str, case: Any, error: type[Exception]) -> None:
    calls: list[int] = []

    def fn(*args: Any) -> float:
        calls.append(1)
        return 0.0

    with pytest.raises(error):
        check_case(fn, question, case)
    with pytest.raises(error):
        crosscheck(fn, question, [(ROWS, line(2), "1") if question == "privacy-level"
                                  else (ROWS, ["1/2", "1/2"]), case])
    assert calls == []


# ---- M5 / M6: the defaults catch an always-"exists" backend; threshold_float passes ----


def test_defaults_catch_an_always_exists_backend() -> None:
    def always_true(D: np.ndarray, e: float) -> tuple[np.ndarray, bool]:
        return tight_z_float(D, e)[0], True

    for n in (20, 50):
        with pytest.raises(AssertionError) as info:
            assert_matches_exact(always_true, "tight-constraints", max_examples=n)
        r = info.value.result  # type: ignore[attr-defined]
        assert r.exact_verdict.value == "fails" and r.float_verdict is True and r.outcome == "disagrees"


def test_threshold_float_passes_the_oracle_at_defaults() -> None:
    assert_matches_exact(threshold_float, "threshold")


# ---- minors ----


def test_error_bounds_are_rounded_up_and_take_the_worst_lower_bound() -> None:
    r = check_case(lambda H, p: 0.0, "utility", (((F(1),), (F(1),)), ["2/3", "1/3"]))
    assert F(r.abs_error) >= F(2, 3)  # m1
    from exactdp.arithmetic.interval import Enclosure
    out = _errors((0.5, 1.4), (ExactValue(Enclosure(F(0), F(1))), ExactValue.of_fraction(F(1))),
                  DEFAULT_TOL, DEFAULT_ABS_TOL)
    assert out[4] is False  # m4: component 1 is exactly 0.4 off


def test_json_nan_round_trip_and_tampered_reports_are_rejected() -> None:
    rep = crosscheck(lambda H, p: float("nan"), "utility", [(ROWS, ["1/2", "1/2"])])
    assert CrosscheckReport.from_json(json.dumps(rep.to_json())) == rep  # m2
    doc = rep.to_json()
    for field, bad in (("outcome", "bogus"), ("within_tol", "false"), ("float_value", "1.5")):
        d = json.loads(json.dumps(doc))
        d["results"][0][field] = bad
        with pytest.raises(InvalidArgument, match=field):
            CrosscheckReport.from_json(d)
    d = json.loads(json.dumps(doc))
    d["tol"] = "5"
    with pytest.raises(InvalidArgument):
        CrosscheckReport.from_json(d)


def test_crosscheck_honours_a_custom_question_object() -> None:
    q = dataclasses.replace(QUESTIONS["utility"], name="my-utility")
    rep = crosscheck(utility_float, q, [(ROWS, ["1/2", "1/2"])])
    assert rep.question == "my-utility" and rep.ok  # m5


def test_output_parsing() -> None:
    r = check_case(lambda D, e: [tight_z_float(D, e)[0], True], "tight-constraints", (line(3), "1/2"))
    assert r.outcome == "agrees"  # m6: a list (z, verdict) is read
    r = check_case(lambda D, e: (tight_z_float(D, e)[0], np.array(False)), "tight-constraints",
                   (line(3), "1/2"))
    assert r.float_verdict is False and r.outcome == "disagrees"
    r = check_case(lambda D, e: np.ones((2, 2)), "tight-constraints", (line(4), "1/2"))
    assert r.outcome == "error" and "shape (2, 2)" in r.message
    r = check_case(lambda H, p: [0.5, 0.5], "utility", (ROWS, ["1/2", "1/2"]))
    assert r.outcome == "error" and "2 value(s), expected 1" in r.message


def test_system_exit_in_fn_is_a_row_and_table_rows_validated() -> None:
    def exits(D: np.ndarray, e: float) -> None:
        raise SystemExit(3)

    rep = crosscheck(exits, "tight-constraints", [(line(3), "1/2")])
    assert rep.results[0].outcome == "error" and rep.results[0].side == "float-function"  # m10
    with pytest.raises(InvalidArgument, match="max_rows"):
        rep.table(max_rows=-1)  # m11
    r = check_case(privacy_level_float, "privacy-level", (ROWS, line(2)))
    assert r.outcome == "agrees"


def test_levels_float64_cannot_hold_are_refused() -> None:
    from exactdp.errors import InvalidPrivacyLevel

    for eps in (10**400, F(1, 10**400)):  # m9: fn would get inf / 0.0
        with pytest.raises(InvalidPrivacyLevel, match="float64 cannot represent"):
            check_case(tight_z_float, "tight-constraints", (line(3), eps))


def test_broken_process_pool_rows_say_the_executor_is_broken() -> None:
    from concurrent.futures import BrokenExecutor

    class Broken(Executor):
        def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Future[Any]:
            raise BrokenExecutor("A child process terminated abruptly")

    rep = crosscheck(tight_z_float, "tight-constraints", [(line(3), "1/2"), (line(4), 1)], executor=Broken())
    assert [r.outcome for r in rep.results] == ["error", "error"]  # m8: reported, not dropped
    assert all(r.side == "executor" and "executor is broken" in r.message for r in rep.results)


# ---- second review (review13b.md): N1–N3, N5 ----


def test_review13b_unrepresentable_inputs_are_invalid_cases_not_the_users_fault():
    from fractions import Fraction as F

    import pytest

    from exactdp.errors import InvalidArgument
    from exactdp.spaces.metrics import from_matrix
    from exactdp.testing import check_case, crosscheck

    called = []

    def fn(D, e):
        called.append(1)
        return [1.0] * len(D)

    for B in (10**400, F(1, 10**400)):  # overflows; underflows to 0.0
        case = (from_matrix([[0, B], [B, 0]]), "1/2")
        with pytest.raises(InvalidArgument, match="not representable as a float64"):
            check_case(fn, "tight-constraints", case)
        with pytest.raises(InvalidArgument, match="not representable as a float64"):
            crosscheck(fn, "tight-constraints", [case])
    assert not called


def test_review13b_overflowing_output_is_the_same_row_in_process_and_on_threads():
    from concurrent.futures import ThreadPoolExecutor

    from exactdp.spaces.metrics import line
    from exactdp.testing import check_case, crosscheck

    def fn(D, e):
        return [10**400] * len(D)

    here = check_case(fn, "tight-constraints", (line(3), "1/2"))
    with ThreadPoolExecutor(1) as ex:
        there = crosscheck(fn, "tight-constraints", [(line(3), "1/2")], executor=ex).results[0]
    assert (here.outcome, here.side) == (there.outcome, there.side) == ("error", "float-function")


def test_review13b_set_capacity_dimension_mismatch_is_refused_before_fn():
    import pytest

    from exactdp.errors import InvalidBox
    from exactdp.sets import Box, BoxUnion, point_set
    from exactdp.testing import check_case

    called = []

    def fn(X, boxes, e):
        called.append(1)
        return 0.5

    with pytest.raises(InvalidBox, match="dimension"):
        check_case(fn, "set-capacity", (point_set([(0, 0)]), BoxUnion([Box((0,), (1,))]), 1))
    assert not called


def test_review13b_a_verdict_slack_of_3e_6_is_caught_at_defaults():
    import numpy as np
    import pytest

    from exactdp.errors import CrosscheckFailed
    from exactdp.testing import assert_matches_exact

    def sloppy(D, eps):  # says "exists" up to 3e-6 below the threshold
        z = np.linalg.solve(np.exp(-eps * D), np.ones(len(D)))
        exists = bool(np.all(z >= 0))
        if not exists:
            z2 = np.linalg.solve(np.exp(-(eps * (1 + 3e-6)) * D), np.ones(len(D)))
            exists = bool(np.all(z2 >= 0))
        return z, exists

    with pytest.raises(CrosscheckFailed):
        assert_matches_exact(sloppy, "tight-constraints", max_examples=100)
