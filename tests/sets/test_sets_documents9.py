"""``set-privacy`` kernel documents: round trip, ``exactdp verify`` exit codes in a fresh
process, every edited field rejected (ground truth: the search's own verdict on the edited
question), huge and underflowing rationals give specific errors."""

from __future__ import annotations

import copy
import json
import signal
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from exactdp.errors import (
    CertificateInvalid,
    InstanceTooLarge,
    InvalidArgument,
    PrecisionLimitReached,
)
from exactdp.kernel.jsonio import dumps, loads
from exactdp.kernel.sets import MAX_DIM, MAX_POINTS, MAX_TERMS, capacity, write_exp_poly
from exactdp.kernel.verify import verify_document, verify_json
from exactdp.sets import Box, SetPrivacyResult, check_set_privacy, theorem1_counterexample
from exactdp.sets._documents import write_set_privacy
from exactdp.sets._points import point_set
from exactdp.spaces.levels import parse_level

CASES: list[tuple[Any, Any, Any, Any, dict[str, Any]]] = [
    ([0, "1/4"], [0], Box(0, "1/4"), 1, {"bound": "paper"}),                      # fails
    ([0, "1/4"], [0], Box(0, "1/4"), 1, {"bound": "points"}),                     # holds
    ([0, 1, 3], ["1/2", 2], [Box(0, 1), Box(2, 5)], "1/2", {"bound": "points_sharp"}),
    ([(0, 0), (1, 2)], [(1, 1)], Box((0, 0), (2, 1)), "ln(2)", {"bound": "hausdorff",
                                                                "norm": "linf"}),
    ([(0, 0), (1, 2)], [(1, 1), (2, 3)], Box((0, 0), (1, 1)), "sqrt(2)", {"bound": "hausdorff"}),
    ([0, 1], [0, 1], Box(-1, 1), "ln(4)", {"bound": "hausdorff"}),              # margin ≡ 0
    (["-3/2", 1], [0], Box(0, 2), "ln(9/4)", {"bound": "paper"}),      # s = 2/3 rational, q = 2
]


def _doc(case: tuple[Any, ...]) -> dict[str, Any]:
    X, Y, K, eps, kw = case
    return check_set_privacy(X, Y, K, eps, **kw).to_document()


@pytest.mark.parametrize("case", CASES)
def test_round_trip_through_json(case) -> None:
    X, Y, K, eps, kw = case
    r = check_set_privacy(X, Y, K, eps, **kw)
    text = dumps(r.to_document())
    assert verify_json(text).verified
    back = SetPrivacyResult.from_document(text)
    assert back.holds == r.holds and back.to_document() == loads(text)


def _truth(doc: dict[str, Any]) -> bool:
    """Is the edited document's claim true? Answered by the search (sweep capacities,
    exp_poly_sign), not by the kernel: the claim must equal what the search writes."""
    from exactdp.sets._documents import set_privacy_question

    try:
        args = set_privacy_question(doc)
        res = check_set_privacy(args.pop("X"), args.pop("Y"), args.pop("K"), args.pop("eps"),
                                **args)
    except InvalidArgument:
        return False
    return res.to_document()["claim"] == doc["claim"]


def _edits(doc: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    out = []

    def edit(name: str, f: Any) -> None:
        d = copy.deepcopy(doc)
        f(d)
        out.append((name, d))

    def nudge(text: str) -> str:
        return str(Fraction(text) + Fraction(1, 7))

    c, q = "claim", "question"
    edit("verdict", lambda d: d[c].update(verdict="holds" if d[c]["verdict"] == "fails" else "fails"))
    for key in ("T_X", "T_Y"):
        edit(f"{key} coef", lambda d, k=key: d[c][k][-1].__setitem__(1, nudge(d[c][k][-1][1])))
        edit(f"{key} exponent", lambda d, k=key: d[c][k][-1].__setitem__(0, nudge(d[c][k][-1][0])))
    edit("T_X = T_Y swapped", lambda d: d[c].update(T_X=d[c]["T_Y"], T_Y=d[c]["T_X"]))
    for key in ("d_H", "diam_K"):
        edit(key, lambda d, k=key: d[c].update({k: nudge(d[c][k])}))
    edit("X point", lambda d: d[q]["X"][-1].__setitem__(0, nudge(d[q]["X"][-1][0])))
    edit("Y point", lambda d: d[q]["Y"][0].__setitem__(0, nudge(d[q]["Y"][0][0])))
    edit("K upper", lambda d: d[q]["K"][0]["upper"].__setitem__(0, nudge(d[q]["K"][0]["upper"][0])))
    edit("level", lambda d: d[q].update(level={"eps": "2"}))
    edit("bound", lambda d: d[q].update(bound="hausdorff" if d[q]["bound"] != "hausdorff" else "points"))
    edit("norm", lambda d: d[q].update(norm="linf" if d[q]["norm"] == "l1" else "l1"))
    return out


def test_every_edited_field_is_rejected_unless_the_edit_is_true() -> None:
    rejected = total = 0
    for case in (CASES[0], CASES[2], CASES[3]):
        for name, d in _edits(_doc(case)):
            truth = _truth(d)
            try:
                got = verify_document(d).verified
            except InvalidArgument:
                got = False  # malformed (e.g. points no longer sorted): not accepted either
            assert got == truth, (name, case)
            if not name.startswith(("X", "Y", "K", "level", "bound", "norm")):
                assert not got, (name, case)  # every claim field edited: a false claim
            total += 1
            rejected += not got
    # the 7 accepted edits are true claims (ℓ1 = ℓ∞ in 1-D; a verdict that holds at ε = 2 too)
    assert total == 3 * 14 and rejected == 35


def test_tampered_document_refused_by_from_document() -> None:
    doc = theorem1_counterexample().to_document()
    doc["claim"]["verdict"] = "holds"
    with pytest.raises(CertificateInvalid):
        SetPrivacyResult.from_document(doc)


def _cli(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-W", "ignore", "-m", "exactdp", "verify", str(path)],
                          capture_output=True, text=True, timeout=120)


def test_fresh_process_exit_codes(tmp_path: Path) -> None:
    good = theorem1_counterexample().to_document()
    forged = copy.deepcopy(good)
    forged["claim"]["verdict"] = "holds"
    malformed = copy.deepcopy(good)
    malformed["claim"]["d_H"] = "2/8"  # not in lowest terms
    large = copy.deepcopy(good)  # 400 points × 300 boxes: beyond the kernel's work limit
    large["question"]["X"] = [[str(i)] for i in range(400)]
    large["question"]["K"] = [{"lower": [str(2 * i)], "upper": [str(2 * i + 1)]} for i in range(300)]
    for doc, code in ((good, 0), (forged, 1), (malformed, 3), (large, 2)):
        path = tmp_path / f"doc{code}.json"
        path.write_text(json.dumps(doc))
        run = _cli(path)
        assert run.returncode == code, (code, run.stdout, run.stderr)
        assert "Traceback" not in run.stderr


def test_underflowing_coordinates_verify_without_floats() -> None:
    tiny = Fraction(1, 10**400)  # every float of e^{-ε·tiny} is exactly 1.0
    r = check_set_privacy([0, tiny], [0], Box(0, 1), 1, bound="hausdorff")
    doc = r.to_document()
    assert doc["claim"]["d_H"] == f"1/1{'0' * 400}"
    assert verify_document(doc).verified
    doc["claim"]["verdict"] = "holds" if not r.holds else "fails"
    assert not verify_document(doc).verified


def test_huge_and_overlong_rationals_give_specific_errors() -> None:
    doc = theorem1_counterexample().to_document()
    big = copy.deepcopy(doc)  # e^{-ε·10^400}: no ball separates it from 0
    big["question"]["X"] = [["0"], [str(10**400)]]
    big["question"]["K"] = [{"lower": ["0"], "upper": [str(10**400)]}]
    big["claim"]["d_H"] = big["claim"]["diam_K"] = str(10**400)
    big["claim"]["T_X"] = [["0", "1"], [str(10**400), "-1"]]
    big["claim"]["T_Y"] = [["0", "1/2"], [str(10**400), "-1/2"]]
    with pytest.raises(InstanceTooLarge, match="MAX_EXPONENT"):
        verify_document(big)
    huge = copy.deepcopy(doc)
    huge["claim"]["d_H"] = "1/1" + "0" * 100_001
    with pytest.raises(InvalidArgument, match="digits"):
        verify_document(huge)
    close = copy.deepcopy(doc)  # the margin sinks below every ball at 4,096 bits
    tiny = Fraction(1, 10**2000)
    close["question"]["X"] = [["0"], [str(tiny)]]
    close["question"]["K"] = [{"lower": ["0"], "upper": [str(tiny)]}]
    close["question"]["bound"] = "hausdorff"
    close["claim"]["d_H"] = close["claim"]["diam_K"] = str(tiny)
    close["claim"]["T_X"] = [["0", "1"], [str(tiny), "-1"]]
    close["claim"]["T_Y"] = [["0", "1/2"], [str(tiny), "-1/2"]]
    with pytest.raises(PrecisionLimitReached, match="cannot be verified") as info:
        verify_document(close)
    assert "pass an exact rational level" not in str(info.value)  # ε = 1 is exact already


def test_writer_refuses_what_the_kernel_cannot_read() -> None:
    with pytest.raises(InvalidArgument, match="norm"):
        check_set_privacy([0, 1], [0], Box(0, 1), 1, norm="l2").to_document()
    with pytest.raises(InvalidArgument, match="callable"):
        check_set_privacy([0, 1], [0], Box(0, 1), 1, bound=lambda b: 3).to_document()
    r = check_set_privacy([0, 1], [0], Box(0, 1), 1, bound="points")
    for X, Y, K in ((list(range(MAX_POINTS + 1)), [0], [Box(0, 1)]),
                    ([(0,) * (MAX_DIM + 1)], [(1,) * (MAX_DIM + 1)],
                     [Box((1,) * (MAX_DIM + 1), (2,) * (MAX_DIM + 1))]),
                    ([0], [1], [Box(2 * i, 2 * i + 1) for i in range(MAX_POINTS + 1)])):
        with pytest.raises(InstanceTooLarge, match="MAX_POINTS = 500 .* MAX_DIM = 16"):
            write_set_privacy(point_set(X), point_set(Y, "Y"), tuple(K), r.level, "l1",
                              "points", r.holds, r.T_X.value, r.T_Y.value, r.hausdorff.value,
                              r.diam_K)


class _Deadline:
    """Fail (TimeoutError) instead of hanging when the kernel runs past ``seconds``."""

    def __init__(self, seconds: int) -> None:
        self.seconds = seconds

    def __enter__(self) -> None:
        def fail(*_: Any) -> None:
            raise TimeoutError(f"the kernel ran for more than {self.seconds} s")
        self.outer = signal.getitimer(signal.ITIMER_REAL)  # pytest-timeout's, if armed
        self.handler = signal.signal(signal.SIGALRM, fail)
        signal.setitimer(signal.ITIMER_REAL, self.seconds)

    def __exit__(self, *_: Any) -> None:
        left, _ = signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, self.handler)
        if self.outer[0]:  # give the outer alarm back what is left of it (13H)
            signal.setitimer(signal.ITIMER_REAL, max(self.outer[0] - (self.seconds - left), 1e-3),
                             self.outer[1])


PRIMES = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79,
          83, 89, 97, 101, 103, 107, 109, 113, 127, 131]


def _straddling(n: int) -> dict[str, Any]:
    """One point, one box straddling 0 in n axes: 3ⁿ product terms per capacity."""
    lo = [Fraction(-1, PRIMES[2 * i]) for i in range(n)]
    hi = [Fraction(1, PRIMES[2 * i + 1]) for i in range(n)]
    return {"schema": "exactdp-certificate", "version": 1, "kind": "set-privacy",
            "question": {"X": [["0"] * n], "Y": [["0"] * n], "norm": "l1",
                         "bound": "hausdorff", "level": {"eps": "1"},
                         "K": [{"lower": [str(v) for v in lo], "upper": [str(v) for v in hi]}]},
            "claim": {"verdict": "holds", "d_H": "0", "diam_K": str(sum(hi) - sum(lo)),
                      "T_X": [["0", "1"]], "T_Y": [["0", "1"]]}, "evidence": {}}


def test_high_dimension_is_refused_before_the_3_to_the_n_product_terms() -> None:
    for n in (12, MAX_DIM):  # cell-box work 2, but 3ⁿ terms: hung for minutes before
        with _Deadline(10), pytest.raises(InstanceTooLarge, match="MAX_TERMS"):
            verify_document(_straddling(n))
    doc = _straddling(3)  # small dimension: still decided (the wrong 1-term claim rejected)
    assert not verify_document(doc).verified
    with pytest.raises(InstanceTooLarge, match=f"MAX_TERMS = {MAX_TERMS}"):  # writer: same limit
        check_set_privacy([(0,) * 11], [(0,) * 11], Box((1,) * 11, (2,) * 11), 1,
                          bound="points").to_document()


def test_huge_powers_of_a_rational_s_fall_back_to_balls() -> None:
    X, Y, K = [(Fraction(0),), (Fraction(20000),)], [(Fraction(0),)], [((Fraction(0),),
                                                                            (Fraction(1),))]
    doc = {"schema": "exactdp-certificate", "version": 1, "kind": "set-privacy",
           "question": {"X": [["0"], ["20000"]], "Y": [["0"]], "norm": "l1", "bound": "paper",
                        "K": [{"lower": ["0"], "upper": ["1"]}],
                        "level": {"t": "1/1" + "0" * 100}},
           "claim": {"verdict": "holds", "d_H": "20000", "diam_K": "1",
                     "T_X": write_exp_poly(capacity(X, K)), "T_Y": write_exp_poly(capacity(Y, K))},
           "evidence": {}}  # s = 10^-100: powers of ~4·10^6 digits; hung for 24 min before
    with _Deadline(10):
        assert verify_document(doc).verified
        doc["claim"]["verdict"] = "fails"
        assert not verify_document(doc).verified


@pytest.mark.parametrize("level", [{"t": Fraction(1, 4)}, {"eps": "log(4)"}])
def test_equality_at_rational_t_with_an_irrational_root_verifies(level) -> None:
    # ratio 2 = e^{ε/2} exactly at t = 1/4, s = t^{1/4} = 1/√2 irrational
    r = check_set_privacy([0, "1/4"], [0], Box(0, "1/4"), parse_level(**level), bound="paper")
    assert (r.method, r.holds) == ("zero", True)
    doc = r.to_document()
    assert verify_document(doc).verified and SetPrivacyResult.from_document(doc).holds
    doc["claim"]["verdict"] = "fails"
    assert not verify_document(doc).verified
    near = check_set_privacy([0, "1/4"], [0], Box(0, "1/4"), parse_level(t="1/5"), bound="paper")
    assert verify_document(near.to_document()).verified  # nonzero margin: balls decide
    fine = check_set_privacy([0, Fraction(1, 2**60)], [0], Box(0, 1), parse_level(t="1/2"),
                             bound="hausdorff")  # q = 2⁶⁰: the reduction stays sparse
    assert verify_document(fine.to_document()).verified


def test_error_messages_name_the_real_problem() -> None:
    doc = theorem1_counterexample().to_document()
    wide = copy.deepcopy(doc)
    wide["question"]["K"] = [{"lower": ["0", "0"], "upper": ["1", "1"]}]
    with pytest.raises(InvalidArgument, match="corners of dimension 2 and 2; the points have "
                                              "dimension 1"):
        verify_document(wide)
    loud = copy.deepcopy(doc)
    loud["question"]["level"] = {"eps": str(10**20)}
    with pytest.raises(InstanceTooLarge, match=r"ε = 10+ and r = -?1/[24] .*smaller ε") as info:
        verify_document(loud)
    assert "·-" not in str(info.value)
