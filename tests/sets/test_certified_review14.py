"""Review of task 14S (the certified set results as ``*-real`` kernel documents): regression
tests for what the review found (fixed by 14S-fix: every test passes), then attacks that held."""

from __future__ import annotations

import copy
from fractions import Fraction

import mpmath
import pytest
import sympy

import exactdp.kernel.sets_real as sets_real
from exactdp.errors import CertificateInvalid, InstanceTooLarge, InvalidArgument, PrecisionLimitReached
from exactdp.kernel.verify import verify_document
from exactdp.sets import Box
from exactdp.sets._real import (
    capacity_functional_certified,
    check_set_privacy_certified,
    hausdorff_distance_certified,
)
from exactdp.testing.budget import call_budget


def test_rational_valued_closed_form_coordinate_verifies():
    r = hausdorff_distance_certified([("(1+sqrt(2))**2 - 2*sqrt(2)",)], [(0,)], "l1")
    assert r.value == 3 and r.verify_in_python()
    assert r.verify()


def test_huge_rational_coordinate_verify_does_not_overflow():
    r = hausdorff_distance_certified([(2**1100,)], [(0,)], "l1")
    assert r.verify_in_python()
    assert r.verify()


class _Astronomical(Exception):
    pass


def test_huge_eps_writer_never_converts_an_astronomical_exponent(monkeypatch):
    import exactdp.sets._documents as documents

    class Guarded(Fraction):  # padded_enclosure's only exact power: the grid 2^g
        def __pow__(self, k):
            if abs(int(k)) > 10**6:
                raise _Astronomical(f"an exact power 2^{int(k):.3e}")
            return Fraction(self) ** k

    monkeypatch.setattr(documents, "Fraction", Guarded)
    r = capacity_functional_certified([("sqrt(2)",)], Box(0, 2), "10**300")
    assert r.verify_in_python()
    doc = r.to_document()
    ends = [Fraction(doc["claim"]["enclosure"][k]) for k in ("lo", "hi")]
    assert all(max(v.numerator.bit_length(), v.denominator.bit_length()) <= 600 for v in ends)
    assert verify_document(doc).verified and r.verify()


def test_writer_bounds_the_degree_before_the_minimal_polynomial():
    r = hausdorff_distance_certified([("2**(1/7)+3**(1/11)+5**(1/13)+7**(1/17)",)], [(0,)], "l1")
    assert r.verify_in_python()
    with call_budget(500_000), pytest.raises(InstanceTooLarge):
        r.to_document()


def test_kernel_refinement_is_bounded_per_occurrence(monkeypatch):
    c = {"minimal_polynomial": ["1"] + ["0"] * 31 + ["-3"], "isolating_interval": {"lo": "1", "hi": "2"}}
    doc = hausdorff_distance_certified([(0,)], [(1,)], "l1").to_document(4096)
    doc["question"]["X"] = [[c] * 15 + [str(k)] for k in range(64)]
    doc["question"]["Y"] = [[c] * 15 + [str(-k - 1)] for k in range(64)]
    doc["claim"]["enclosure"] = {"lo": "0", "hi": "1000"}
    calls = []
    real = sets_real.coordinate_ball

    def cheap(value, prec):  # count the refinements, do each at 53 bits (the verdict is not the point)
        if not isinstance(value, Fraction):
            calls.append(value)
        return real(value, 53)

    monkeypatch.setattr(sets_real, "coordinate_ball", cheap)
    try:
        sets_real.check_real_set_document(doc)
    except InstanceTooLarge:
        return  # refused up front: fine
    assert len(calls) <= 1, f"{len(calls)} refinements of one distinct coordinate at 4096 bits"


@pytest.mark.parametrize("poly", [["1", "-3"], ["1"]])
def test_low_degree_polynomial_is_malformed(poly):
    doc = hausdorff_distance_certified([("sqrt(2)", 0)], [(0, 0)], "l2").to_document()
    doc["question"]["X"][0][0] = {"minimal_polynomial": poly, "isolating_interval": {"lo": "2", "hi": "4"}}
    with pytest.raises(InvalidArgument):
        sets_real.check_real_set_document(doc)


# ------------------------------------------------------------------ attacks that held
def test_margin_of_1e_minus_182_is_decided_and_flipping_it_is_rejected():
    p, q = 1, 1
    while q.bit_length() <= 300:  # convergents of √2: |p/q − √2| ≈ 2^-600
        p, q = p + 2 * q, p + q
    r = check_set_privacy_certified(["sqrt(2)"], [f"{p}/{q}"], Box(0, 2), eps=1, bound="hausdorff")
    with mpmath.workdps(600):  # ground truth, independent of the library
        x, y = mpmath.sqrt(2), mpmath.mpf(p) / q

        def cap(c):
            f = [mpmath.exp(t) / 2 if t < 0 else 1 - mpmath.exp(-t) / 2 for t in (2 - c, -c)]
            return f[0] - f[1]

        margin = mpmath.exp(abs(x - y)) * cap(y) - cap(x)
    assert abs(margin) < mpmath.mpf(10) ** -150
    doc = r.to_document()
    assert r.holds == (margin > 0) and verify_document(doc).verified
    flipped = copy.deepcopy(doc)
    flipped["claim"]["verdict"] = "fails" if r.holds else "holds"
    assert not verify_document(flipped).verified
    for d in (doc, flipped):  # at 512 bits the kernel's balls are wider than the claims: never verified
        low = copy.deepcopy(d)
        low["evidence"]["precision"] = 512
        try:
            assert not verify_document(low).verified
        except PrecisionLimitReached:
            pass


def test_same_root_with_another_interval_is_a_repeated_point():
    doc = check_set_privacy_certified([0, "sqrt(2)/8"], [0], Box(0, "1/8"), eps=1, bound="points").to_document()
    twin = copy.deepcopy(doc["question"]["X"][1])
    iv = twin[0]["isolating_interval"]
    iv["lo"] = str(sympy.Rational(iv["lo"]) - sympy.Rational(1, 100))
    doc["question"]["X"].append(twin)  # the same √2/8, inflating |X| for the 'points' bound
    with pytest.raises(InvalidArgument, match="repeated"):
        sets_real.check_real_set_document(doc)


# ------------------------------------------------------------------ the fixes, pinned down
def test_rational_closed_form_is_written_as_a_rational():
    doc = hausdorff_distance_certified([("(1+sqrt(2))**2 - 2*sqrt(2)",)], [(0,)], "l1").to_document()
    assert doc["question"]["X"] == [["3"]] and verify_document(doc).verified


def test_rational_coordinate_bits_are_limited_in_writer_and_kernel():
    big = 10**5000 + 1
    r = hausdorff_distance_certified([(big,)], [(0,)], "l1")
    with pytest.raises(InstanceTooLarge, match=r"X\[0\].*MAX_RATIONAL_BITS"):
        r.to_document()
    assert r.verify()  # the Python re-check
    doc = hausdorff_distance_certified([(1,)], [(0,)], "l1").to_document()
    doc["question"]["X"] = [[str(2**sets_real.MAX_RATIONAL_BITS)]]
    with pytest.raises(InstanceTooLarge, match="MAX_RATIONAL_BITS"):
        sets_real.check_real_set_document(doc)
    doc["question"]["X"] = [[str(2**sets_real.MAX_RATIONAL_BITS - 1)]]
    assert not sets_real.check_real_set_document(doc)  # read, and the claim [0, 1]-ish is false


def test_degree_bound_refuses_before_sympy_and_names_the_coordinate():
    r = hausdorff_distance_certified([(0,), ("2**(1/3)*3**(1/11)",)], [(0,)], "l1")
    with call_budget(200_000), pytest.raises(InstanceTooLarge, match=r"X\[1\].*MAX_REAL_DEGREE"):
        r.to_document()
    assert r.verify()


def test_refinement_units_follow_degree_and_precision():
    c = ((1,) + (0,) * 31 + (-3,), sets_real.Enclosure(Fraction(1), Fraction(2)))
    assert sets_real.real_work([[(c,)]], 512) < sets_real.MAX_REFINE_WORK
    with pytest.raises(InstanceTooLarge, match="MAX_REFINE_WORK"):
        sets_real.real_work([[(c,)]], 4096)  # one degree-32 refinement at 4096 bits: ~5 s measured
    q = ((1, 0, -2), sets_real.Enclosure(Fraction(1), Fraction(2)))
    assert sets_real.real_work([[(q,)]], 2048) * 50 < sets_real.real_work([[(c,)]], 2048)
    assert sets_real.real_work([[(q,)]], 512) * 10 < sets_real.real_work([[(q,)]], 4096)


def test_verify_falls_back_to_python_when_the_kernel_refuses(monkeypatch):
    import exactdp.sets._documents as documents

    r = hausdorff_distance_certified([("sqrt(2)",)], [(0,)], "l1")

    def refuse(doc):
        raise InstanceTooLarge("a kernel limit")

    monkeypatch.setattr(documents, "verify_document", refuse)
    assert r.verify() is True


def test_from_document_names_a_non_canonical_document():
    r = hausdorff_distance_certified([("sqrt(2)",)], [(0,)], "l1")
    doc = r.to_document()
    doc["claim"]["enclosure"]["hi"] = "100"  # still true: the kernel verifies it
    assert verify_document(doc).verified
    with pytest.raises(CertificateInvalid, match="canonical"):
        type(r).from_document(doc)
