"""The crosscheck report: counts, worst case, failures, JSON round trip, plain-text table, the
undecided and error outcomes, and input validation."""

from __future__ import annotations

import dataclasses
import json
from fractions import Fraction

import numpy as np
import pytest

from exactdp.errors import InvalidArgument, InvalidTolerance, PrecisionLimitReached
from exactdp.spaces.metrics import cycle, line
from exactdp.testing import QUESTIONS, CrosscheckReport, check_case, crosscheck
from exactdp.testing.float_reference import threshold_float, tight_z_float


def _half_wrong(D: np.ndarray, eps: float) -> np.ndarray:
    z, _ = tight_z_float(D, eps)
    return z * (1 + 1e-6) if len(D) == 4 else z


def test_counts_worst_failures_and_table() -> None:
    cases = [(line(3), "1/2"), (line(4), "1/2"), (cycle(5), 2)]
    rep = crosscheck(_half_wrong, "tight-constraints", cases)
    assert rep.counts["cases"] == 3 and rep.counts["value-outside-tol"] == 1
    assert [r.index for r in rep.failures] == [1] and not rep.ok
    assert rep.worst is not None and rep.worst.index == 1
    assert 0.9e-6 < rep.worst.rel_error < 1.1e-6 and rep.worst.ulp_error > 1e9
    table = rep.table()
    assert table.splitlines()[2].split()[0] == "1"  # failed cases first
    assert "value outside tol 1" in table and "pandas" not in table


def test_json_round_trip_is_exact_and_plain_json() -> None:
    rep = crosscheck(_half_wrong, "tight-constraints", [(line(4), "ln(3)"), (cycle(4), "1/3")])
    text = json.dumps(rep.to_json())
    again = CrosscheckReport.from_json(text)
    assert again == rep and again.to_json() == rep.to_json()
    assert "NaN" not in text and "Infinity" not in text


def test_threshold_question_value_only() -> None:
    rep = crosscheck(threshold_float, "threshold", [cycle(5), (cycle(4), "uniform")])
    assert rep.ok, rep.table()
    assert all(r.float_verdict is None and r.exact_verdict is None for r in rep.results)


def test_float_function_that_raises_is_an_error_case() -> None:
    def broken(D: np.ndarray, eps: float) -> np.ndarray:
        raise np.linalg.LinAlgError("singular matrix")

    r = check_case(broken, "tight-constraints", (line(3), 1))
    assert r.outcome == "error" and r.failed and "LinAlgError" in r.message


def test_exactdp_undecided_is_reported_never_a_float_error() -> None:
    def refuse(c: tuple) -> None:
        raise PrecisionLimitReached("could not decide at 4096 bits")

    q = dataclasses.replace(QUESTIONS["tight-constraints"], truth=refuse)
    r = check_case(tight_z_float, q, (line(3), 1))
    assert r.outcome == "exactdp-undecided" and not r.failed and "4096" in r.message


def test_bad_arguments_name_the_fix() -> None:
    with pytest.raises(InvalidArgument, match="choose one of"):
        crosscheck(tight_z_float, "tight", [(line(3), 1)])
    with pytest.raises(InvalidArgument, match="reads a tuple"):
        check_case(tight_z_float, "tight-constraints", line(3))
    with pytest.raises(InvalidTolerance):
        crosscheck(tight_z_float, "tight-constraints", [(line(3), 1)], tol=Fraction(2))


def test_abs_tol_floor_for_a_zero_truth() -> None:
    """Found by the long run: a correct float leakage of ~3e-16 against an exact 0."""
    rows = ((Fraction(1, 2), Fraction(1, 2)), (Fraction(1, 2), Fraction(1, 2)))  # leaks nothing

    def leak(H: np.ndarray, prior: np.ndarray) -> float:
        return 3.2e-16

    assert check_case(leak, "min-entropy-leakage", (rows, ["1/3", "2/3"])).within_tol is True
    strict = check_case(leak, "min-entropy-leakage", (rows, ["1/3", "2/3"]), abs_tol=0)
    assert strict.within_tol is False and strict.failed
    assert check_case(lambda H, p: 1e-12, "min-entropy-leakage", (rows, ["1/3", "2/3"])).failed
