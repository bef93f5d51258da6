"""Two test gaps the session-17 complete mutation runs left, closed (session 18).

1. ``threshold_exact.py`` line 152 (``or`` → ``and`` in ``_sides_ok``): the "fails at ε_lo" check
   skipped its root count on the enclosure of s_lo = e^{-lo/q} whenever the sign at the
   enclosure's low end is nonzero, so a witness that does *not* fail at ε_lo was accepted as long
   as a root of N_w sat inside the enclosure with N_w/D < 0 at its low end. The instance:
   grid(2, 2, manhattan) with π = (12, 5, 3, 1)/21. The solution of Φx = π is x = N/D with
   D = 21(1 − s²)² and N_3 = 12s² − 8s + 1 = (6s − 1)(2s − 1): x_3 < 0 on (1/6, 1/2) and
   x_3 > 0 above 1/2. The genuine certificate has witness 3, ε* = ln 6 (s* = 1/6). The forgery
   keeps everything and moves ε_lo to a rational just *below* ln 2: then s_lo = e^{-ε_lo} is just
   *above* 1/2, where x_3 > 0, so witness 3 does not fail there (a false witness). Its ε-claim
   ε* ∈ [ε_lo, ε_hi] is still true (ln 6 > ln 2), which is why this gap could only pass a false
   witness, never a false ε*. At 128 bits the enclosure of s_lo straddles the root 1/2 with its
   low end in (1/6, 1/2), where N_3/D < 0: only the root count rejects it; at 512 bits and above
   the enclosure lies above 1/2 and the sign test rejects it.
2. ``remap_qx.py`` line 140 (``or`` → ``and`` in "denominators … monic"): a non-monic
   denominator (the same value spelled 2/2 instead of 1/1) was accepted, so one mechanism had two
   spellings. The reader must refuse it as not canonical (:class:`InvalidArgument`, exit 3).

Ground truth is decided outside the kernel: rational arithmetic on the stated polynomials and a
60-digit mpmath comparison of ε_lo with ln 2.
"""

from __future__ import annotations

import copy
from fractions import Fraction as F

import mpmath
import pytest

from exactdp import epsilon_threshold
from exactdp.errors import InvalidArgument
from exactdp.kernel.threshold_poly import s_enclosure
from exactdp.kernel.verify import verify_document
from exactdp.spaces.metrics import grid, line

PRIOR = [F(k, 21) for k in (12, 5, 3, 1)]


def _eps_just_below_ln2() -> F:
    """A rational in (ln 2 − 2^-149, ln 2 − 2^-150): e^{-it} exceeds 1/2 by about 2^-151."""
    with mpmath.workdps(80):
        target = mpmath.log(2) - mpmath.mpf(2) ** -150
        eps = F(int(mpmath.floor(target * 2**160)), 2**160)
        assert mpmath.log(2) - mpmath.mpf(2) ** -149 < eps.numerator / mpmath.mpf(eps.denominator) < mpmath.log(2)
    return eps


@pytest.fixture(scope="module")
def genuine():
    doc = epsilon_threshold(grid(2, 2, norm="manhattan"), prior=PRIOR).certificate.to_json()
    assert doc["kind"] == "exact" and doc["evidence"]["witness"] == 3
    assert doc["evidence"]["numerators"][3] == ["12", "-8", "1"]            # (6s − 1)(2s − 1)
    assert doc["evidence"]["denominator"] == ["21", "0", "-42", "0", "21"]  # 21(1 − s²)²
    assert doc["claim"]["s_star"]["minimal_polynomial"] == ["6", "-1"]      # s* = 1/6
    return doc


def test_genuine_certificate_verifies(genuine):
    assert verify_document(genuine).verified


def test_ground_truth_of_the_false_witness():
    n3 = lambda s: 12 * s * s - 8 * s + 1  # noqa: E731
    assert n3(F(1, 2)) == 0 and n3(F(1, 3)) < 0 and n3(F(1, 2) + F(1, 2**200)) > 0
    eps = _eps_just_below_ln2()
    with mpmath.workdps(60):
        s_lo = mpmath.exp(-mpmath.mpf(eps.numerator) / eps.denominator)
        assert s_lo > mpmath.mpf(1) / 2            # x_3(s_lo) > 0: witness 3 does not fail at ε_lo
    # the 128-bit enclosure straddles the root 1/2 and starts where N_3/D < 0: the case the
    # root count alone decides
    lo, hi = s_enclosure(eps, 1, 128)
    assert F(1, 6) < lo < F(1, 2) < hi
    assert n3(lo) < 0 < n3(hi)                     # one root of N_3, 1/2, inside (lo, hi]
    assert s_enclosure(eps, 1, 512)[0] > F(1, 2)


@pytest.mark.parametrize("keep_s_star", [True, False])
def test_false_witness_with_a_true_eps_claim_is_rejected(genuine, keep_s_star):
    bad = copy.deepcopy(genuine)
    bad["claim"]["eps"]["lo"] = str(_eps_just_below_ln2())
    if not keep_s_star:
        bad["claim"]["s_star"] = None
    verdict = verify_document(bad)
    assert verdict.verified is False and verdict.kind == "exact"


def test_the_true_witness_at_a_lower_eps_lo_verifies(genuine):
    # the control: ε_lo = 1 (s_lo = e^{-1} ∈ (1/6, 1/2), x_3 < 0 there) is a true witness
    ok = copy.deepcopy(genuine)
    ok["claim"]["eps"]["lo"] = "1"
    assert verify_document(ok).verified


# --------------------------------------------------------------- remap_qx: monic denominators
_FP1 = "sha256:de846ceafb56d67ae8966fc9c2b89c160b194ee8160ff8155e0341b70e2c5ba0"  # line(1)


def _one_point(den: str, num: str) -> dict:
    """H = [num/den] on line(1), the one-point metric (no privacy pair: only H is checked)."""
    return {"schema": "exactdp-certificate", "version": 1, "kind": "remap",
            "question": {"metric": {"encoding": "builtin", "constructor": "line", "params": {"n": 1},
                                    "n": 1, "fingerprint": _FP1},
                         "property": "private", "rhs": None, "level": {"eps": "1"},
                         "mechanism": {"log_x": "-1", "denominators": [[[0, den]]],
                                       "entries": [[[0, [[0, num]]]]]}},
            "claim": {"verdict": "holds", "remap": [["1"]]}, "evidence": {}}


def test_the_fixture_is_line_1():
    from exactdp.kernel.metricio import fingerprint
    assert fingerprint(line(1)) == _FP1


def test_monic_denominator_verifies():
    assert verify_document(_one_point("1", "1")).verified is True


@pytest.mark.parametrize("den, num", [("2", "2"), ("1/2", "1/2"), ("-1", "-1")])
def test_non_monic_spelling_of_the_same_mechanism_is_refused(den, num):
    # the value is H = [1] each time; only its spelling is not the canonical one
    assert F(num) / F(den) == 1
    with pytest.raises(InvalidArgument, match="monic"):
        verify_document(_one_point(den, num))
