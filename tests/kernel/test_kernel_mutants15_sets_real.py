"""Session 15 (15L, a sample of 60 mutants of ``kernel/sets_real.py``): the size limits and the
work formulas were only tested far beyond them, so moving a limit by one (``k -> k + 1``,
``> -> >=``, ``<= -> <``) or changing a work formula survived. Each test sits at an exact
boundary — just under a limit is read, just over it is refused with InstanceTooLarge — or
compares the documented work formula counted by hand (sizes only, so the tests are cheap)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from flint import arb

from exactdp.arithmetic.ball import workprec
from exactdp.arithmetic.interval import Enclosure
from exactdp.arithmetic.rationals import to_fmpq
from exactdp.errors import InstanceTooLarge, InvalidArgument, PrecisionLimitReached
from exactdp.kernel.jsonio import write_rational
from exactdp.kernel.sets_real import check_real_set_document, ie_check, laplace_cdf_ball, real_work


def _doc(X: list[list[Any]]) -> dict[str, Any]:
    """A 1-D ``set-hausdorff-real`` document over X and Y = {0} (its claim need not hold)."""
    return {"schema": "exactdp-certificate", "version": 1, "kind": "set-hausdorff-real",
            "question": {"X": X, "Y": [["0"]], "norm": "l1"},
            "claim": {"enclosure": {"lo": "0", "hi": "0"}}, "evidence": {"precision": 53}}


def _alg(poly: list[int], lo: Fraction, hi: Fraction) -> dict[str, Any]:
    return {"minimal_polynomial": [str(c) for c in poly],
            "isolating_interval": {"lo": write_rational(lo), "hi": write_rational(hi)}}


def _read(X: list[list[Any]]) -> bool:
    return check_real_set_document(_doc(X))  # a bool: read and checked, not refused


def test_rational_coordinate_bits_boundary():
    assert _read([[str(2**2047)]]) is False  # numerator of 2048 bits: read (d_H ≠ 0)
    with pytest.raises(InstanceTooLarge):
        _read([[str(2**2048)]])  # 2049 bits
    with pytest.raises(InstanceTooLarge):
        _read([["1/" + str(2**2048)]])


def test_point_count_boundary():
    assert _read([[str(i)] for i in range(1, 65)]) is False  # 64 points
    with pytest.raises(InvalidArgument, match="at most 64"):
        _read([[str(i)] for i in range(1, 66)])  # 65 points


def test_degree_boundary():
    # x^32 − 2 (Eisenstein: irreducible), its one root in (1, 2] is 2^(1/32)
    assert _read([[_alg([1] + [0] * 31 + [-2], Fraction(1), Fraction(2))]]) is False
    with pytest.raises(InstanceTooLarge):
        _read([[_alg([1] + [0] * 32 + [-2], Fraction(1), Fraction(2))]])  # degree 33


def test_coefficient_bits_boundary():
    # x^2 − 2^255 (2^255 is no square): a 256-bit coefficient, root 2^127.5 in (2^127, 2^128]
    assert _read([[_alg([1, 0, -(2**255)], Fraction(2**127), Fraction(2**128))]]) is False
    with pytest.raises(InstanceTooLarge):
        _read([[_alg([1, 0, -(2**257)], Fraction(2**128), Fraction(2**129))]])  # 258 bits


def test_interval_end_bits_boundary():
    # x^2 − 2 with lo = 2^-255 (a 256-bit denominator): root √2 in (lo, 2]
    assert _read([[_alg([1, 0, -2], Fraction(1, 2**255), Fraction(2))]]) is False
    with pytest.raises(InstanceTooLarge):
        _read([[_alg([1, 0, -2], Fraction(1, 2**256), Fraction(2))]])  # 257 bits
    with pytest.raises(InstanceTooLarge):
        _read([[_alg([1, 0, -2], Fraction(1), Fraction(2**256 + 1, 2**255))]])  # hi: 257 bits


def test_ie_work_boundary():
    # Σ 2^m·dim·(prec + 64) ≤ 400_000_000: one box (m = 0), dim 2: 2·(199_999_936 + 64) = 4e8
    ie_check([0], 2, 199_999_936)
    with pytest.raises(InstanceTooLarge):
        ie_check([0], 2, 199_999_937)  # 400_000_002
    ie_check([0], 1, 399_999_936)
    with pytest.raises(InstanceTooLarge):
        ie_check([0], 1, 399_999_937)  # 400_000_001


def test_ie_boxes_boundary():
    ie_check([14], 1, 53)  # 14 boxes allowed: 2^14·(53 + 64) is small
    with pytest.raises(InstanceTooLarge):
        ie_check([15], 1, 53)
    # 14 boxes count in the work: 2^14·(24_350 + 64) = 399_998_976 ≤ 4e8; 2^14·24_415 > 4e8
    ie_check([14], 1, 24_350)
    with pytest.raises(InstanceTooLarge):
        ie_check([14], 1, 24_351)


def _refine(g: tuple[int, ...], lo: Fraction, hi: Fraction, prec: int) -> int:
    """The documented refinement work of one coordinate, counted independently."""
    w = hi - lo
    steps = prec + 8 + max(0, w.numerator.bit_length() - w.denominator.bit_length() + 1)
    ebits = sum(max(v.numerator.bit_length(), v.denominator.bit_length()) for v in (lo, hi))
    cbits = max(abs(c).bit_length() for c in g)
    return steps * (len(g) * (len(g) * (steps + ebits) + cbits) + 2000)


def test_refine_work_formula():
    g, lo, hi = (1, 0, -13), Fraction(3), Fraction(4)  # √13 in (3, 4]: width 1, so 1 extra step
    # steps = 53 + 8 + 1 = 62, ebits = 2 + 3 = 5, cbits = 4: 62·(3·(3·67 + 4) + 2000) = 62·2615
    assert _refine(g, lo, hi, 53) == 62 * 2615
    assert real_work([[((g, Enclosure(lo, hi)),)]], 53) == 62 * 2615
    g2, lo2, hi2 = (1, 0, -2), Fraction(1, 3), Fraction(7, 4)  # width 17/12: 2 extra steps
    pts = [((g, Enclosure(lo, hi)),), ((g2, Enclosure(lo2, hi2)),)]
    assert real_work([pts], 100) == _refine(g, lo, hi, 100) + _refine(g2, lo2, hi2, 100)


def test_read_work_boundary():
    # Σ (degree + 1)^3·(cbits + ebits + 64) ≤ 30_000_000: two degree-32 coordinates, 33^3 = 35_937;
    # cbits 2 (the −2), ebits 2·(bits of lo and hi): 2·35_937·417 = 29_971_458 is read,
    # 2·35_937·418 = 30_043_332 is refused (ebits = 417 − 64 − 2 and 418 − 64 − 2).
    g = (1,) + (0,) * 31 + (-2,)

    def coords(ebits: int) -> list[tuple[Any, ...]]:
        # hi = 2 (2 bits); lo = k/2^(ebits − 3), k odd < 2^(ebits − 3): ebits − 2 bits
        d = 2 ** (ebits - 3)
        return [((g, Enclosure(Fraction(k, d), Fraction(2))),) for k in (d - 1, d - 3)]

    assert real_work([coords(417 - 64 - 2)], 53) > 0
    with pytest.raises(InstanceTooLarge):
        real_work([coords(418 - 64 - 2)], 53)


def _privacy(X: list[list[str]], Y: list[list[str]], verdict: str) -> dict[str, Any]:
    """A ``set-privacy-real`` document whose claimed balls are wide (so they hold) at 53 bits."""
    wide = {"lo": "-1", "hi": "100"}
    return {"schema": "exactdp-certificate", "version": 1, "kind": "set-privacy-real",
            "question": {"X": X, "Y": Y, "K": [{"lower": ["0"], "upper": ["1"]}], "norm": "l1",
                         "bound": "hausdorff", "level": {"eps": "1"}},
            "claim": {"verdict": verdict, **{k: wide for k in ("d_H", "diam_K", "factor", "T_X", "T_Y")}},
            "evidence": {"precision": 53}}


@pytest.mark.parametrize("verdict", ["holds", "fails"])
def test_undecided_margin_with_different_sets_is_not_decided(verdict: str):
    # d_H = 2^-200: the margin e^{ε d_H}·T_Y − T_X is within 2^-190 of 0, undecided at 53 bits;
    # X ≠ Y, so neither |X| = |Y| alone nor X ⊆ Y alone may stand for X = Y
    tiny = "1/" + str(2**200)
    for X, Y in (([["0"]], [[tiny]]), ([["0"]], [["0"], [tiny]])):
        with pytest.raises(PrecisionLimitReached):
            check_real_set_document(_privacy(X, Y, verdict))


def test_undecided_margin_with_equal_sets_holds():
    # X = Y (listed in another order): the margin is the ball 0 ± r, and the claim holds
    X, Y = [["0"], ["1/3"]], [["1/3"], ["0"]]
    assert check_real_set_document(_privacy(X, Y, "holds")) is True
    assert check_real_set_document(_privacy(X, Y, "fails")) is False


def _cdf(x: Fraction, eps: int) -> arb:
    """F(x) = ½ + ½·sgn(x)(1 − e^{−ε|x|}) of one exact x, as a tight ball."""
    g = 1 - (-eps * arb(to_fmpq(abs(x)))).exp()
    return (1 + g) / 2 if x > 0 else (1 - g) / 2 if x < 0 else arb(1) / 2


@pytest.mark.parametrize(("mid", "rad"), [(0, Fraction(1, 1024)), (Fraction(1, 4096), Fraction(1, 1024)),
                                          (Fraction(-1, 4096), Fraction(1, 1024)), (Fraction(1, 2), Fraction(1, 4)),
                                          (Fraction(-3, 2), Fraction(1, 4)), (Fraction(5), Fraction(1, 8))])
def test_laplace_cdf_ball_contains_the_cdf_over_the_ball(mid: Fraction, rad: Fraction):
    # the ball of a box end minus a coordinate can straddle 0 (an algebraic coordinate refined
    # next to a rational box end): F over it spans both sides of ½, and the ball must hold both
    with workprec(53):
        x = arb(to_fmpq(Fraction(mid)), to_fmpq(rad))
        out = laplace_cdf_ball(x, arb(1))
        for end in (Fraction(mid) - rad, Fraction(mid), Fraction(mid) + rad):
            assert out.contains(_cdf(end, 1)), (end, out)
