"""Review 12 of task 11S (``set-hausdorff`` / ``set-diameter`` / ``set-capacity`` documents).

Regression tests for what the review found (xfail strict: the fixer flips them) and for the
attacks that held up. Ground truth is computed here by brute force over all pairs (exact
Fractions) and, for the capacity, from the exact rational value at t = 1/2.
"""

from __future__ import annotations

import copy
import subprocess
import sys
from fractions import Fraction as F

import mpmath
import pytest

from exactdp.errors import InvalidArgument, PrecisionLimitReached
from exactdp.kernel.jsonio import dumps, loads
from exactdp.kernel.verify import verify_document
from exactdp.sets import Box, capacity_functional, diameter, hausdorff_distance

BIG = F(10**5000 + 1, 3)  # 5,000 digits: over Python's 4,300-digit int↔str limit


def _key(a, b, norm):
    g = [abs(u - v) for u, v in zip(a, b)]
    return max(g) if norm == "linf" else sum((x * x for x in g) if norm == "l2" else g, F(0))


def _kernel(doc):
    try:
        return verify_document(loads(dumps(doc))).verified
    except InvalidArgument:
        return None


@pytest.mark.parametrize("norm", ["l1", "l2", "linf"])
def test_point_results_with_5000_digit_coordinates_still_verify(norm):
    assert hausdorff_distance([(BIG, 0)], [(0, 0)], norm=norm).verify()
    assert diameter([(BIG, 0), (0, 0)], norm).verify()


def test_capacity_of_a_far_point_still_verifies():
    assert capacity_functional([(10**6,)], Box(0, 1), eps=1).verify()


@pytest.mark.parametrize("norm", ["l1", "l2", "linf"])
def test_every_witness_choice_agrees_with_brute_force(norm):
    X, Y = [(F(0), F(0)), (F(1), F(1))], [(F(0), F(0)), (F(3), F(4)), (F(-2), F(1, 3))]
    doc = hausdorff_distance(X, Y, norm=norm).to_document()
    assert _kernel(doc) is True
    d_H = max(min(_key(u, v, norm) for v in B) for A, B in ((X, Y), (Y, X)) for u in A)
    for w in X + Y:
        for nb in X + Y:
            for direction in ("X->Y", "Y->X"):
                src, dst = (X, Y) if direction == "X->Y" else (Y, X)
                d = copy.deepcopy(doc)
                d["claim"].update(witness=[str(c) for c in w], nearest=[str(c) for c in nb], direction=direction)
                truth = (w in src and nb in dst and _key(w, nb, norm) == d_H
                         and min(_key(w, v, norm) for v in dst) == d_H)
                assert _kernel(d) is truth, (w, nb, direction)
    swapped = copy.deepcopy(doc)
    swapped["question"]["X"], swapped["question"]["Y"] = doc["question"]["Y"], doc["question"]["X"]
    assert _kernel(swapped) is False  # the witness now lies in the wrong set


def test_l2_claim_stating_the_distance_not_its_square_is_rejected():
    doc = hausdorff_distance([(0, 0)], [(0, 0), (3, 4)], norm="l2").to_document()
    assert doc["claim"]["key"] == "25"
    doc["claim"]["key"] = "5"
    assert _kernel(doc) is False


def test_capacity_enclosure_at_rational_t_decided_exactly():
    doc = capacity_functional([(0,)], Box(0, 1), eps="ln(2)").to_document()
    value = F(1, 4)  # (1 − t)/2 at t = 1/2
    for (lo, hi), truth in {(value, value): True, (value - F(1, 10**3000), value + F(1, 10**3000)): True,
                            (value + F(1, 10**3000), value + F(1, 10**2999)): False,
                            (value - F(1, 10**2999), value - F(1, 10**3000)): False}.items():
        doc["claim"]["enclosure"] = {"lo": str(lo), "hi": str(hi)}
        assert _kernel(doc) is truth


def _just_above_value_at_eps_1(digits: int) -> F:
    """ceil((1 − e^{−1})/2 · 10^digits)/10^digits: above T(1) for X = {0}, K = [0, 1] by < 10^-digits."""
    with mpmath.workdps(digits + 50):
        return F(int(mpmath.ceil((1 - mpmath.exp(-1)) / 2 * mpmath.mpf(10) ** digits)), 10**digits)


def test_narrow_lie_at_transcendental_level_is_never_verified():
    doc = capacity_functional([(0,)], Box(0, 1), eps=1).to_document()
    doc["claim"]["enclosure"] = {"lo": str(_just_above_value_at_eps_1(1400)), "hi": "1"}
    with pytest.raises(PrecisionLimitReached):  # undecided (exit 2), never verified
        verify_document(loads(dumps(doc)))


def test_fresh_process_exit_codes(tmp_path):
    good = hausdorff_distance([(0, 0)], [(0, 0), (3, 4)], norm="l2").to_document()
    forged = copy.deepcopy(good)
    forged["claim"]["witness"] = ["0", "0"]  # a point of the other set
    bad = copy.deepcopy(good)
    bad["question"]["Y"] = [["0", "0"], ["0", "0"]]  # duplicate points
    narrow = capacity_functional([(0,)], Box(0, 1), eps=1).to_document()
    narrow["claim"]["enclosure"] = {"lo": str(_just_above_value_at_eps_1(1400)), "hi": "1"}
    for doc, code in ((good, 0), (forged, 1), (bad, 3), (narrow, 2)):
        path = tmp_path / "c.json"
        path.write_text(dumps(doc))
        run = subprocess.run([sys.executable, "-m", "exactdp", "verify", str(path)], capture_output=True,
                             text=True, timeout=120)
        assert run.returncode == code, run.stdout + run.stderr
        assert "Traceback" not in run.stderr


# ---- fixes of task 11S-fix (session 12) ----
def test_capacity_of_a_very_far_point_is_refused_up_front_not_hung():
    from exactdp.errors import InstanceTooLarge
    from exactdp.testing.budget import call_budget

    r = capacity_functional([(10**20,)], Box(0, 1), eps=1)
    with call_budget(20_000), pytest.raises(InstanceTooLarge, match="MAX_EXPONENT"):
        r.verify()


def test_far_point_enclosure_is_short_and_true():
    doc = capacity_functional([(10**6,)], Box(0, 1), eps=1).to_document()
    lo, hi = F(doc["claim"]["enclosure"]["lo"]), F(doc["claim"]["enclosure"]["hi"])
    assert len(doc["claim"]["enclosure"]["hi"]) < 2000
    with mpmath.workdps(30):
        value = (mpmath.exp(-(10**6 - 1)) - mpmath.exp(-(10**6))) / 2
        assert mpmath.mpf(lo.numerator) / lo.denominator <= value <= mpmath.mpf(hi.numerator) / hi.denominator
        assert value > 0
    assert _kernel(doc) is True
    doc["claim"]["enclosure"]["hi"] = "0"
    assert _kernel(doc) is False


@pytest.mark.parametrize("prec", [1, 0, -5, 10**5, 2.5])
def test_bad_prec_is_a_specific_error(prec):
    with pytest.raises(InvalidArgument, match="prec"):
        capacity_functional([0], Box(0, 1), eps=1).to_document(prec=prec)


def test_pair_work_refused_before_any_pair_is_compared():
    from exactdp.errors import InstanceTooLarge
    from exactdp.kernel.sets import check_set_functional_document
    from exactdp.testing.budget import call_budget

    pts = [tuple(F(10**300 + i * 16 + j, 7**350) for j in range(16)) for i in range(60)]
    with pytest.raises(InstanceTooLarge, match="MAX_PAIR_WORK"):
        hausdorff_distance(pts, pts[:30], norm="l2").to_document()  # the writer refuses
    doc = hausdorff_distance(pts[:2], pts[:1], norm="l2").to_document()
    doc["question"]["X"] = [[str(c) for c in p] for p in pts]
    doc["question"]["Y"] = [[str(c) for c in p] for p in pts[:30]]
    # reading 90 × 16 rationals takes a few thousand calls; 3,600 ℓ2 keys would take far more
    with call_budget(60_000), pytest.raises(InstanceTooLarge, match="MAX_PAIR_WORK"):
        check_set_functional_document(doc)
