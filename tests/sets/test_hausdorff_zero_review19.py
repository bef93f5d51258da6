"""Adversarial review (session 19) of the portable exact-zero Hausdorff distance.

The kernel accepts any claim lo <= 0 <= hi for a ``set-hausdorff-real`` document whose X and Y
are equal as sets (``_equal_sets``), and proves "holds" for an undecided privacy margin with
X = Y. These regression guards try to make distinct sets pass that test: numbers a few
2^-100 apart (two close roots of one Mignotte polynomial, an algebraic number next to a
rational, two rationals 2^-2000 apart), X strictly inside Y, and the conjugate root. Ground
truth is independent of the kernel: sympy isolates the roots exactly (asserted below), and the
rational cases are decided by Fraction arithmetic. All tests pass on main at the time of review.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from fractions import Fraction

import pytest
import sympy

from exactdp.errors import InvalidArgument
from exactdp.kernel.verify import verify_document
from exactdp.kinds import Verdict
from exactdp.sets._boxes import Box
from exactdp.sets._real import check_set_privacy_certified, hausdorff_distance_certified

_A = 2 ** 30
#: Mignotte's x^5 - 2(2^30 x - 1)^2 (Eisenstein at 2: irreducible): two real roots r1 < 2^-30 < r2
#: about 3.5e-32 apart, and a third near 1.3e6.
_MIGNOTTE = [1, 0, 0, -2 * _A * _A, 4 * _A, -2]
_BIG = 2 ** 100  # sqrt(2^200 + 1) lies in (2^100, 2^100 + 2^-101)


def _alg(poly, lo, hi) -> dict:
    return {"minimal_polynomial": [str(c) for c in poly], "isolating_interval": {"lo": str(lo), "hi": str(hi)}}


def _doc(X, Y, lo="0", hi="0", norm="l1", prec=128) -> dict:
    return {"schema": "exactdp-certificate", "version": 1, "kind": "set-hausdorff-real",
            "question": {"X": X, "Y": Y, "norm": norm},
            "claim": {"enclosure": {"lo": lo, "hi": hi}}, "evidence": {"precision": prec}}


R1 = _alg(_MIGNOTTE, 0, Fraction(1, _A))                    # r1
R1_OTHER = _alg(_MIGNOTTE, Fraction(1, 2 * _A), Fraction(1, _A))  # r1 again, another interval
R2 = _alg(_MIGNOTTE, Fraction(1, _A), 1)                    # r2 != r1
#: r1 and r2 with overlapping intervals: (0, c] and (b, 1] with r1 < b < c < r2 (the overlap holds no root).
R1_WIDE = _alg(_MIGNOTTE, 0, Fraction(1, _A) + Fraction(1, 2 ** 110))
R2_WIDE = _alg(_MIGNOTTE, Fraction(1, _A) - Fraction(1, 2 ** 110), 1)
SQRT_BIG = _alg([1, 0, -(_BIG ** 2 + 1)], _BIG, _BIG + 1)   # sqrt(2^200 + 1) != 2^100


def test_ground_truth_of_the_encodings():
    x = sympy.symbols("x")
    mig = sympy.Poly(_MIGNOTTE, x)
    assert mig.is_irreducible
    roots = mig.real_roots()  # exact (CRootOf), sorted
    assert len(roots) == 3 and roots[0] < sympy.Rational(1, _A) < roots[1] < 1 < roots[2]
    assert mig.count_roots(sympy.Rational(1, 2 * _A), sympy.Rational(1, _A)) == 1
    assert mig.count_roots(0, sympy.Rational(1, _A)) == 1
    assert mig.count_roots(sympy.Rational(1, _A), 1) == 1
    b, c = sympy.Rational(1, _A) - sympy.Rational(1, 2 ** 110), sympy.Rational(1, _A) + sympy.Rational(1, 2 ** 110)
    assert roots[0] < b < c < roots[1] and mig.count_roots(0, c) == 1 and mig.count_roots(b, 1) == 1
    big = sympy.Poly([1, 0, -(_BIG ** 2 + 1)], x)
    assert big.is_irreducible and big.count_roots(_BIG, _BIG + 1) == 1


@pytest.mark.parametrize("norm", ["l1", "l2", "linf"])
@pytest.mark.parametrize(("X", "Y"), [
    ([[R1]], [[R2]]),                                   # two roots of one polynomial, ~3.5e-32 apart
    ([[R1], ["0"]], [["0"], [R2]]),
    ([[R1_WIDE]], [[R2_WIDE]]),                         # overlapping intervals, different roots
    ([[R1]], [[R1_OTHER], [R2]]),                      # X strictly inside Y (the extra point is close)
    ([[str(_BIG)]], [[SQRT_BIG]]),                      # a rational ~2^-101 from an algebraic number
    ([["1/3", R1]], [[str(Fraction(1, 3) + Fraction(1, 2 ** 2000)), R1_OTHER]]),  # rationals 2^-2000 apart
    ([[_alg([1, 0, -2], 1, 2)]], [[_alg([1, 0, -2], -2, -1)]]),  # the conjugate
])
def test_a_zero_claim_for_nearly_equal_sets_is_rejected(X, Y, norm):
    for A, B in ((X, Y), (Y, X)):
        for lo, hi in (("0", "0"), ("-1/1000000", "0")):
            assert verify_document(_doc(A, B, lo, hi, norm, prec=4096)).verified is False


@pytest.mark.parametrize("norm", ["l1", "l2", "linf"])
def test_the_same_close_root_written_twice_is_exactly_zero(norm):
    X = [[R1, "1/2"], [R2, "1/2"], [SQRT_BIG, str(_BIG)]]
    Y = [[SQRT_BIG, str(_BIG)], [_alg(_MIGNOTTE, Fraction(1, _A), 2), "1/2"], [R1_OTHER, "1/2"]]
    assert verify_document(_doc(X, Y, norm=norm, prec=53)).verified is True
    assert verify_document(_doc(Y, X, "-1/3", "0", norm=norm)).verified is True


def test_a_close_root_written_twice_in_one_set_is_malformed():
    with pytest.raises(InvalidArgument, match="repeated"):
        verify_document(_doc([[R1], [R1_OTHER]], [[R1], [R2]]))


def test_the_zero_document_verifies_in_a_fresh_process(tmp_path):
    doc = hausdorff_distance_certified([("sqrt(2)", "1/3"), ("2**(1/3)", 0)],
                                       [("2**(1/3)", 0), ("sqrt(2)", "1/3")], "l2").to_document()
    assert doc["claim"]["enclosure"] == {"lo": "0", "hi": "0"}
    bad = copy.deepcopy(doc)
    bad["question"]["Y"][1][1] = "1/4"              # one coordinate changed: d_H = 1/12 > 0
    codes = []
    for k, d in enumerate((doc, bad)):
        path = tmp_path / f"d{k}.json"
        path.write_text(json.dumps(d))
        p = subprocess.run([sys.executable, "-m", "exactdp", "verify", str(path)],
                           capture_output=True, text=True, timeout=300)
        assert "Traceback" not in p.stderr
        codes.append(p.returncode)
    assert codes == [0, 1]


@pytest.mark.parametrize("bound", ["paper", "hausdorff", "points"])
def test_privacy_with_equal_sets_proves_only_holds(bound):
    # X = Y: T_X = T_Y and factor >= 1 (eps > 0, d_H = 0, |X| >= 1), so the verdict is "holds".
    X = [("sqrt(2)",), ("1/3",)]
    doc = check_set_privacy_certified(X, X[::-1], [Box(0, "1/2")], eps="1/2", bound=bound).to_document()
    assert doc["claim"]["verdict"] == Verdict.HOLDS.value
    assert verify_document(doc).verified is True
    for forged in (Verdict.FAILS.value, Verdict.UNDECIDED.value):
        bad = copy.deepcopy(doc)
        bad["claim"]["verdict"] = forged
        assert verify_document(bad).verified is False
