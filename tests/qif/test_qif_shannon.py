"""Certified Shannon capacity: closed forms, libqif in float, tampering, JSON."""

from __future__ import annotations

import random
from dataclasses import replace
from fractions import Fraction as F

import pytest
from flint import arb

from exactdp.arithmetic.ball import arb_from_fraction, arb_to_fraction_interval, workprec
from exactdp.arithmetic.interval import Enclosure
from exactdp.errors import InvalidArgument, InvalidChannel
from exactdp.qif.entropy import mutual_information
from exactdp.qif.shannon import ShannonCapacity, shannon_capacity


def _inside(r: ShannonCapacity, ball: arb) -> bool:
    lo, hi = arb_to_fraction_interval(ball)
    return r.enclosure.lo <= lo and hi <= r.enclosure.hi


@pytest.mark.parametrize("e", [F(1, 10), F(1, 3), F(2, 5)])
def test_binary_symmetric_channel_is_one_minus_h(e: F) -> None:
    r = shannon_capacity([[1 - e, e], [e, 1 - e]])
    with workprec(256):
        a, b = arb_from_fraction(e), arb_from_fraction(1 - e)
        truth = 1 + (a * a.log() + b * b.log()) / arb(2).log()
    assert _inside(r, truth) and r.width < F(1, 10**30) and r.verify()


@pytest.mark.parametrize("e", [F(1, 10), F(1, 2), F(3, 4)])
def test_erasure_channel_is_one_minus_e(e: F) -> None:
    r = shannon_capacity([[1 - e, e, 0], [0, e, 1 - e]])
    assert r.enclosure.contains(1 - e) and r.width < F(1, 10**9) and r.verify()


def test_z_channel_closed_form() -> None:
    # Z channel with crossover 1/2: capacity log2(5/4)
    r = shannon_capacity([["1/2", "1/2"], [0, 1]])
    with workprec(256):
        truth = arb(5).log() / arb(2).log() - 2
    assert _inside(r, truth) and r.width < F(1, 10**9) and r.verify()


def test_capacity_bounds_every_prior_and_identity_channel() -> None:
    rng = random.Random(3)
    for _ in range(10):
        n, m = rng.randint(2, 4), rng.randint(2, 4)
        C = []
        for _x in range(n):
            w = [rng.randint(0, 6) for _ in range(m)]
            w[rng.randrange(m)] += 1
            C.append([F(v, sum(w)) for v in w])
        r = shannon_capacity(C)
        assert r.verify() and r.width < F(1, 10**6)
        for _p in range(3):
            w = [rng.randint(0, 5) for _ in range(n)]
            w[0] += 1
            p = [F(v, sum(w)) for v in w]
            assert mutual_information(C, p).enclosure.lo <= r.enclosure.hi
    r = shannon_capacity([[1, 0, 0], [0, 1, 0], [0, 0, 1]])
    with workprec(256):
        truth = arb(3).log() / arb(2).log()
    assert _inside(r, truth)


def test_tampering_and_bad_input() -> None:
    r = shannon_capacity([["9/10", "1/10"], ["1/10", "9/10"]])
    mid = (r.enclosure.lo + r.enclosure.hi) / 2
    assert not replace(r, enclosure=Enclosure(r.enclosure.lo, mid)).verify()
    assert not replace(r, enclosure=Enclosure(mid, r.enclosure.hi)).verify()
    assert not replace(r, enclosure=Enclosure(F(1, 2), F(1, 2))).verify()
    # a worse witness still gives a valid (wider) lower end only if the claim is widened
    assert not replace(r, witness=(F(1), F(0))).verify()
    assert replace(r, witness=(F(1), F(0)), enclosure=Enclosure(F(0), r.enclosure.hi)).verify()
    assert not replace(r, witness=(F(1, 2), F(1, 3))).verify()
    assert not replace(r, output=(F(1), F(0))).verify()     # infinite divergence
    assert not replace(r, channel=((F(1), F(0)), (F(0), F(1)))).verify()
    assert not replace(r, precision=8).verify()
    with pytest.raises(InvalidChannel):
        shannon_capacity([["1/2", "1/3"], [0, 1]])


def test_json_round_trip_refuses_edits() -> None:
    r = shannon_capacity([["3/4", "1/4", 0], [0, "1/4", "3/4"]])
    doc = r.to_json()
    assert ShannonCapacity.from_json(doc) == r
    bad = dict(doc, enclosure={"lo": "1/2", "hi": "1/2"})
    with pytest.raises(InvalidArgument):
        ShannonCapacity.from_json(bad)


def test_agrees_with_libqif_in_float() -> None:
    qif = pytest.importorskip("qif", reason="libqif's Python binding (pip install qif)")
    import numpy as np

    rng = random.Random(11)
    for _ in range(8):
        n, m = rng.randint(2, 5), rng.randint(2, 5)
        C = []
        for _x in range(n):
            w = [rng.randint(0, 9) for _ in range(m)]
            w[rng.randrange(m)] += 1
            C.append([F(v, sum(w)) for v in w])
        r = shannon_capacity(C)
        theirs, _prior = qif.measure.shannon.add_capacity(np.array([[float(v) for v in row]
                                                                    for row in C]))
        # libqif's Blahut–Arimoto stops early: its float lies within 1e-6 below our bracket
        assert float(r.enclosure.lo) - 1e-6 <= theirs <= float(r.enclosure.hi) + 1e-9
