"""Regression tests for review 16b (is_optimal bound to its question, forms, algebraic x,
t ≈ 1; Shannon-capacity JSON, precision cap, clamps, argument checks)."""

from __future__ import annotations

import copy
import dataclasses as dc
from fractions import Fraction

import numpy as np
import pytest
from flint import arb

from exactdp import Mechanism
from exactdp.errors import InstanceTooLarge, InvalidArgument, InvalidTolerance
from exactdp.mechanisms.constructors import from_rows, truncated_geometric
from exactdp.mechanisms.optimality import is_optimal
from exactdp.qif.shannon import ShannonCapacity, shannon_capacity
from exactdp.spaces.metrics.builtin import line
from exactdp.spaces.metrics.explicit import from_matrix
from exactdp.testing.budget import call_budget


@pytest.fixture(scope="module")
def pair():
    rG = is_optimal(truncated_geometric(3, t="1/2"), line(3), t="1/2")
    rF = is_optimal(from_rows([["1/3"] * 3] * 3), line(3), t="1/2")
    assert rG.optimal and not rF.optimal and rG.verify() and rF.verify()
    return rG, rF


def test_f1_certificate_of_another_question_is_rejected(pair):
    rG, rF = pair
    assert not dc.replace(rF, optimal=True, certificate=rG.certificate).verify()
    assert not dc.replace(rG, optimal=False, certificate=rF.certificate).verify()


def test_f1_question_and_tight_constraints_are_rechecked(pair):
    rG, rF = pair
    assert not dc.replace(rG, mechanism=rF.mechanism).verify()   # privacy check of another H
    assert not dc.replace(rG, private=rF.private).verify()
    assert not dc.replace(rG, tight_constraints=None).verify()
    other = is_optimal(truncated_geometric(3, t="1/3"), line(3), t="1/3")
    assert not dc.replace(rG, tight_constraints=other.tight_constraints).verify()
    assert rG.tight_constraints_exist is True


def test_f2_decides_from_entries_not_from_an_attached_form():
    G = truncated_geometric(3, eps=1)
    flat = np.array([[arb(1) / 3] * 3] * 3, dtype=object)
    M = Mechanism(flat, kind="certified", monomial=G.monomial)
    r = is_optimal(M, line(3), eps=1)
    assert r.optimal is False and r.verify()


def test_f3_algebraic_s_with_rational_phi_is_decided_exactly():
    H = from_rows(truncated_geometric(3, t="1/2").rows_fraction())
    D2 = from_matrix([[2 * abs(i - j) for j in range(3)] for i in range(3)])
    r = is_optimal(H, D2, eps="ln(2)/2")           # Φ = (1/√2)^(2|i−j|) = (1/2)^|i−j|
    assert r.optimal and r.verify()
    flat = is_optimal(from_rows([["1/3"] * 3] * 3), D2, eps="ln(2)/2")
    assert not flat.optimal and flat.verify()


def test_f4_near_one_t_verifies():
    t = 1 - Fraction(1, 10**40)
    r = is_optimal(truncated_geometric(3, t=t), line(3), t=t)
    assert r.optimal and r.verify()


def test_f6_certificate_types(pair):
    rG, rF = pair
    cG = rG.certificate
    as_bool = tuple(tuple(bool(v) for v in row) for row in cG.remap)
    assert not dc.replace(cG, remap=as_bool).verify()
    assert not dc.replace(rF.certificate, precision="64").verify()
    assert not dc.replace(rF.certificate, precision=True).verify()


@pytest.fixture(scope="module")
def doc():
    return shannon_capacity([["9/10", "1/10"], ["1/10", "9/10"], ["1/2", "1/2"]]).to_json()


@pytest.mark.parametrize("prec", [16_000_000, 2**40, 4097])
def test_f5_edited_precision_is_refused_fast(doc, prec):
    d = copy.deepcopy(doc)
    d["precision"] = prec
    with call_budget(2_000) as seen, pytest.raises(InvalidArgument, match="MAX_PREC"):
        ShannonCapacity.from_json(d)
    assert seen[2] < 4097  # refused before any arithmetic at the edited precision


def test_f5_prec_argument_is_capped():
    with pytest.raises(InvalidArgument, match="MAX_PREC"):
        shannon_capacity([["1/2", "1/2"], ["1", "0"]], prec=10**6)


@pytest.mark.parametrize("edit", [
    lambda d: d.pop("output"),
    lambda d: d.__setitem__("witness", None),
    lambda d: d.__setitem__("output", "1/2"),
    lambda d: d.__setitem__("unit", "nats"),            # F7
    lambda d: d.__setitem__("extra", 1),
])
def test_f6_f7_malformed_json_gives_specific_errors(doc, edit):
    d = copy.deepcopy(doc)
    edit(d)
    with pytest.raises(InvalidArgument):
        ShannonCapacity.from_json(d)
    assert ShannonCapacity.from_json(copy.deepcopy(doc)).verify()


def test_f8_lower_end_clamped_and_exact_zero():
    e = Fraction(1, 10**30)
    r = shannon_capacity([["1/2", "1/2"], [Fraction(1, 2) + e, Fraction(1, 2) - e]])
    assert r.enclosure.lo >= 0 and r.verify()
    for C in ([["1/3", "2/3"]], [["1/3", "2/3"], ["1/3", "2/3"]], [["1/4", "0", "3/4"]] * 3):
        z = shannon_capacity(C)
        assert (z.enclosure.lo, z.enclosure.hi) == (0, 0) and z.verify()
        assert ShannonCapacity.from_json(z.to_json()) == z


def test_f8_negative_lower_end_in_a_file_is_refused(doc):
    r = ShannonCapacity.from_json(copy.deepcopy(doc))
    assert not dc.replace(r, enclosure=dc.replace(r.enclosure, lo=Fraction(-1, 10**50))).verify()


@pytest.mark.parametrize("kw, err", [
    ({"tol": float("nan")}, InvalidTolerance), ({"tol": -1.0}, InvalidTolerance),
    ({"tol": "1e-9"}, InvalidTolerance), ({"max_iter": -5}, InvalidArgument),
    ({"max_iter": 2.5}, InvalidArgument), ({"max_iter": True}, InvalidArgument),
])
def test_f8_search_arguments_are_checked(kw, err):
    with pytest.raises(err):
        shannon_capacity([["1/2", "1/2"], ["1", "0"]], **kw)


def test_f8_size_limit():
    n = 201
    C = [["1" if j == i else "0" for j in range(n)] for i in range(n)]
    with pytest.raises(InstanceTooLarge, match="MAX_CHANNEL_ENTRIES"):
        shannon_capacity(C)
