"""Built mechanisms decided at their own boundary (issue 12, "decide the boundary"): the
tight-constraints structure on irrational metrics, libqif's rectangular/offset geometric and
exponential mechanisms, exact excess, and the exact JSON of a privacy level."""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import numpy as np
import pytest
import sympy

from exactdp.errors import InvalidArgument
from exactdp.mechanisms import (
    from_rows,
    is_private,
    min_entropy_leakage,
    privacy_level,
    tight_constraints_mechanism,
    truncated_geometric,
    utility,
)
from exactdp.mechanisms.privacy_result import PrivacyLevelResult
from exactdp.mechanisms.rectangular import exponential_rectangular, geometric_rectangular
from exactdp.spaces.metrics import discrete, grid, line
from exactdp.tight import tight_constraints

NINE_TENTHS = sympy.Rational(9, 10)


def test_tight_constraints_on_euclidean_grid_is_private_at_exactly_its_eps() -> None:
    m = grid(3, 3, "euclidean")
    H = tight_constraints_mechanism(m, eps="9/10")
    r = privacy_level(H, m)
    assert r.value == NINE_TENTHS and r.method == "tight" and r.verify()
    a, b, z = r.witness
    assert z == a and r.distance == m.distance(a, b)
    c = is_private(H, m, eps="9/10")
    assert c.private and c.excess == 0 and c.verify()
    assert "equals ε exactly" in str(c) and "≈ 0 (" not in str(c)
    no = is_private(H, m, eps="89/100")
    assert not no.private and no.excess == sympy.Rational(1, 100) and no.violation == r.witness
    # the result itself (a TightConstraintsResult) stands for the mechanism
    assert is_private(tight_constraints(m, eps="9/10"), m, eps="9/10").private


def test_tight_witness_tampering_and_other_metric() -> None:
    m = grid(3, 3, "euclidean")
    H = tight_constraints_mechanism(m, eps="9/10")
    r = privacy_level(H, m)
    assert not dataclasses.replace(r, value=sympy.Rational(8, 10)).verify()
    assert not dataclasses.replace(r, witness=(r.witness[0], r.witness[1], r.witness[1])).verify()
    # on another metric the structure does not apply: the level is only enclosed. On the
    # discrete metric (all pairs at distance 1) it is 0.9·(diameter 2√2) ≈ 2.5456
    other = discrete(9)
    r2 = privacy_level(H, other)
    assert r2.method == "ball" and r2.enclosure is not None
    assert Fraction(25455844, 10**7) <= r2.enclosure.lo <= r2.enclosure.hi <= Fraction(
        25455845, 10**7) and r2.enclosure.hi - r2.enclosure.lo < Fraction(1, 10**12)
    with pytest.raises(InvalidArgument, match="does not apply"):
        privacy_level(H, other, method="tight")


@pytest.mark.parametrize(("n_rows", "n_cols"), [(10, 20), (20, 10)])
def test_libqif_rectangular_geometric_is_private_at_exactly_09(n_rows: int, n_cols: int) -> None:
    H = geometric_rectangular(n_rows, eps="9/10", n_cols=n_cols)
    assert H.shape == (n_rows, n_cols)
    r = privacy_level(H, line(n_rows))
    assert r.value == NINE_TENTHS and r.verify()
    c = is_private(H, line(n_rows), eps="9/10")
    assert c.private and c.excess == 0 and c.verify()
    assert not is_private(H, line(n_rows), eps="89/100").private  # libqif: ε − 0.01 fails


def test_offset_geometric_equals_libqif_remap_and_crop() -> None:
    # libqif tests_cpp/src/mechanism/d_privacy.cpp: secrets 5..14, outputs 0..9 / 10..19 / 1..18
    # / 7..12, built by remapping a 20×20 geometric and cropping; exact at s = 1/2
    G0 = truncated_geometric(20, t="1/2").rows_fraction()
    for lo, hi in ((0, 9), (10, 19), (1, 18), (7, 12)):
        T = [[Fraction(0)] * 20 for _ in range(20)]
        for x in range(20):
            for v in range(20):
                T[x][min(max(v, lo), hi)] += G0[x][v]
        D = geometric_rectangular(10, t="1/2", n_cols=hi - lo + 1, first_x=5, first_y=lo)
        assert D.rows_fraction() == [row[lo:hi + 1] for row in T[5:15]]
        assert D.inputs == tuple(range(5, 15)) and D.outputs == tuple(range(lo, hi + 1))
        r = privacy_level(D, line(10))
        assert r.value == privacy_level(from_rows(D.rows_fraction()), line(10)).value
        assert r.verify()


def test_rectangular_mechanisms_match_libqif_floats() -> None:
    qif = pytest.importorskip("qif")
    for n, m, fx, fy in ((10, 20, 0, 0), (20, 10, 0, 0), (10, 6, 5, 7), (4, 3, 0, 20)):
        H = geometric_rectangular(n, eps="9/10", n_cols=m, first_x=fx, first_y=fy)
        Q = np.asarray(qif.mechanism.d_privacy.geometric(n, 0.9, m, fx, fy))
        assert np.abs(H.to_float() - Q).max() < 1e-14


def test_exponential_rectangular_libqif_value() -> None:
    # libqif's test: exponential(10, 0.9·1.1·|x−y|), smallest ε in units of 1.1·|x−y| is
    # 0.64197307180467134, i.e. the level at ε = 0.99 on line(10) divided by 1.1
    r = privacy_level(exponential_rectangular(10, eps="99/100"), line(10))
    assert r.value is not None and r.verify()
    assert abs(float(r) / 1.1 - 0.64197307180467134) < 1e-15
    fat = exponential_rectangular(10, eps="9/10", n_cols=20)
    assert fat.shape == (10, 20) and is_private(fat, line(10), eps="9/10").private


def test_rectangular_arguments_are_checked() -> None:
    with pytest.raises(InvalidArgument, match="n_cols"):
        geometric_rectangular(3, eps=1, n_cols=1)
    with pytest.raises(InvalidArgument, match="first_y"):
        geometric_rectangular(3, eps=1, first_y=1.5)


@pytest.mark.parametrize("case", ["exact", "monomial", "tight", "merged", "infinite", "ball"])
def test_privacy_level_json_round_trip(case: str) -> None:
    H, m = {
        "exact": (from_rows([["3/4", "1/4"], ["1/4", "3/4"]]), line(2)),
        "monomial": (truncated_geometric(4, eps="log(2) + 1/3"), line(4)),
        "tight": (tight_constraints_mechanism(grid(2, 3, "euclidean"), eps="1/2"),
                  grid(2, 3, "euclidean")),
        "merged": (geometric_rectangular(20, eps="9/10", n_cols=10), line(20)),
        "infinite": (from_rows([[1, 0], [0, 1]]), line(2)),
        "ball": (tight_constraints_mechanism(grid(2, 2, "euclidean"), eps="1/2"),
                 discrete(4)),
    }[case]
    r = privacy_level(H, m)
    doc = r.to_json()
    back = PrivacyLevelResult.from_json(doc, H, m)
    assert back == r and back.verify()
    if r.value is not None and not r.is_infinite:
        assert doc["value"] == str(r.value)
    bad = {**doc, "method": "guess"}
    with pytest.raises(InvalidArgument, match="method"):
        PrivacyLevelResult.from_json(bad, H, m)


def test_utility_and_leakage_take_a_tight_constraints_result() -> None:
    res = tight_constraints(line(3), t="1/2")
    assert utility(res).value == Fraction(5, 9)
    assert min_entropy_leakage(res).ratio == Fraction(5, 3)
