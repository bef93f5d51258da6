"""Regression tests for the adversarial review of the issue-12 change (notes/review12.md).

Each test reproduces one finding (C1–C3 critical, M1–M8 major, some minors) and fails on the
reviewed commit: structure forms trusted without reading the entries, an unbound JSON ratio,
mutable float-backed mechanisms, the exponential_rectangular crash, an excess text that
contradicted the exact verdict, longdouble rounding, a JSON row_policy overriding an explicit
policy, big-rational printing, the decimal-scan cost and the far-offset hang.
"""

from __future__ import annotations

import copy
import json
import pickle
import warnings
from fractions import Fraction
from pathlib import Path

import flint
import numpy as np
import pytest
import sympy

from exactdp.arithmetic.rationals import unlimited_int_digits
from exactdp.errors import InvalidArgument, InvalidMechanism
from exactdp.mechanisms import (
    Mechanism,
    PrivacyLevelResult,
    from_rows,
    is_private,
    privacy_level,
    tight_constraints_mechanism,
)
from exactdp.mechanisms.files import from_json, from_numpy, load_mechanism, to_csv
from exactdp.mechanisms.rectangular import exponential_rectangular, geometric_rectangular
from exactdp.mechanisms.structure import structure_matches
from exactdp.spaces.metrics import grid, line
from exactdp.testing.budget import call_budget


@pytest.fixture(autouse=True)
def _quiet() -> None:
    warnings.simplefilter("ignore")


def _exact(rows: list[list[Fraction]], **kw: object) -> Mechanism:
    arr = np.array([[flint.fmpq(x.numerator, x.denominator) for x in r] for r in rows],
                   dtype=object)
    return Mechanism(arr, kind="exact", **kw)  # type: ignore[arg-type]


# --- C1: a MergedMonomialForm is never trusted without the entries -------------------------

def test_c1_merged_form_on_other_entries_gives_the_entries_level() -> None:
    G = geometric_rectangular(3, t="1/2", n_cols=2, first_y=1)          # level log(2)
    rows = [[Fraction(99, 100), Fraction(1, 100)], [Fraction(1, 100), Fraction(99, 100)],
            [Fraction(1, 2), Fraction(1, 2)]]                            # level log(99)
    X = _exact(rows, structure=G.structure)
    r = privacy_level(X, line(3))
    assert r.value == sympy.log(99) and r.method == "exact" and r.verify()
    assert not structure_matches(X)
    c = is_private(X, line(3), t="1/2")
    assert not c.private and c.verify()
    with pytest.raises(InvalidArgument):
        privacy_level(X, line(3), method="merged-monomial")
    # a forged merged-monomial result about X is rejected by verify()
    forged = PrivacyLevelResult.from_json(privacy_level(G, line(3)).to_json(), X, line(3))
    assert forged.verify() is False


def test_c1_structure_cannot_be_assigned_after_construction() -> None:
    G = geometric_rectangular(3, t="1/2", n_cols=2, first_y=1)
    X = from_rows([["99/100", "1/100"], ["1/100", "99/100"], ["1/2", "1/2"]])
    for attr, value in (("structure", G.structure), ("monomial", None), ("name", "x")):
        with pytest.raises(InvalidArgument, match="immutable"):
            setattr(X, attr, value)


def test_c1_the_library_constructors_still_match_their_forms() -> None:
    for H in (geometric_rectangular(3, t="1/2", n_cols=2, first_y=1),
              geometric_rectangular(4, eps="9/10", n_cols=3),
              geometric_rectangular(10, eps="9/10", n_cols=20),
              tight_constraints_mechanism(grid(2, 2, "euclidean"), eps="9/10")):
        assert structure_matches(H)


# --- C2: a TightForm is never trusted without the entries ----------------------------------

def test_c2_exact_mechanism_near_the_tight_one_is_not_private_at_its_eps() -> None:
    met = grid(2, 2, "euclidean")
    H = tight_constraints_mechanism(met, eps="9/10")
    rows = []
    for i in range(4):  # 60-digit midpoints, renormalised exactly: ~1e-38 from the tight one
        row = [Fraction(str(b.mid().str(60, radius=False))) for b in H.to_balls()[i]]
        s = sum(row)
        rows.append([x / s for x in row])
    X = _exact(rows, structure=H.structure)
    r = privacy_level(X, met)
    assert r.method == "exact" and r.value != sympy.Rational(9, 10) and r.verify()
    assert is_private(X, met, eps="9/10").private is False
    assert is_private(from_rows(rows), met, eps="9/10").private is False


def test_c2_unrelated_certified_balls_do_not_take_the_tight_route() -> None:
    met = grid(2, 2, "euclidean")
    H = tight_constraints_mechanism(met, eps="9/10")
    U = Mechanism(np.array([[flint.arb(1) / 4] * 4] * 4, dtype=object), kind="certified",
                  precision=128, structure=H.structure)
    r = privacy_level(U, met)
    assert r.method == "ball" and r.value is None and r.verify()
    assert not structure_matches(U)
    forged = PrivacyLevelResult.from_json(privacy_level(H, met).to_json(), U, met)
    assert forged.verify() is False


# --- C3: the merged route's ratio is bound ------------------------------------------------

def test_c3_edited_ratio_fails_verify() -> None:
    H = geometric_rectangular(4, t="1/2", n_cols=3, first_y=1)
    m = line(4)
    doc = privacy_level(H, m).to_json()
    assert doc["ratio"] == "2" and PrivacyLevelResult.from_json(doc, H, m).verify()
    doc["ratio"] = str(Fraction(2) * (1 + Fraction(1, 10**30)))
    assert PrivacyLevelResult.from_json(doc, H, m).verify() is False
    doc["ratio"] = None
    assert PrivacyLevelResult.from_json(doc, H, m).verify() is False


# --- M1: float-backed mechanisms are immutable for good -----------------------------------

def test_m1_binary_floats_cannot_be_made_writeable() -> None:
    H = from_numpy(np.array([[0.75, 0.25], [0.25, 0.75]])).mechanism
    H.entries_object()
    for arr in (H.binary_floats, H.entries_object(), copy.deepcopy(H).binary_floats,
                pickle.loads(pickle.dumps(H)).binary_floats):
        assert arr is not None and not arr.flags.writeable
        with pytest.raises(ValueError):
            arr.setflags(write=True)
    P = pickle.loads(pickle.dumps(H))
    assert P.entry(0, 0) == Fraction(3, 4) and privacy_level(P, line(2)).value == sympy.log(3)


def test_m1_the_caller_keeps_no_handle_on_object_entries() -> None:
    arr = np.array([[flint.fmpq(1, 2), flint.fmpq(1, 2)]], dtype=object)
    H = Mechanism(arr, kind="exact")
    arr[0, 0] = flint.fmpq(1, 3)  # the caller's own array stays theirs
    assert H.entry(0, 0) == Fraction(1, 2)


# --- M2: exponential_rectangular with more rows than columns, or offsets ------------------

@pytest.mark.parametrize("n,m,fy,eps", [(3, 2, 0, 1), (3, 1, 0, 1), (5, 3, 0, "9/10"),
                                        (4, 6, 2, 1)])
def test_m2_exponential_rectangular_verifies(n: int, m: int, fy: int, eps: object) -> None:
    H = exponential_rectangular(n, eps=eps, n_cols=m, first_y=fy)
    r = privacy_level(H, line(n))
    assert r.verify() is True
    # the level agrees with a ball brute force of the same entries
    balls = Mechanism(H.to_balls(), kind="certified", precision=128)
    enc = privacy_level(balls, line(n)).enclosure
    assert enc is not None and r.enclosure is not None
    assert enc.lo <= r.enclosure.hi and r.enclosure.lo <= enc.hi


# --- M3: the excess text agrees with an exact verdict -------------------------------------

def test_m3_excess_of_an_exact_not_private_verdict_is_positive() -> None:
    import mpmath
    with mpmath.workdps(80):
        R = Fraction(str(mpmath.e + mpmath.mpf(10) ** -50))
    a, b = R / (1 + R), 1 / (1 + R)
    c = is_private(from_rows([[a, b], [b, a]]), line(2), eps=1)
    assert not c.private and c.verify()
    enc = c.excess_enclosure
    assert enc is not None and enc.lo > 0 and enc.hi < Fraction(1, 10**50)
    assert "exceeds ε" in c.excess_text() and "differs" not in str(c)
    assert Fraction(c.to_json()["excess_enclosure"]["lo"]) > 0


# --- M4: longdouble is read exactly, never rounded to float64 ----------------------------

def test_m4_longdouble_matrix_is_read_exactly(tmp_path: Path) -> None:
    if np.finfo(np.longdouble).nmant <= 52:
        pytest.skip("longdouble is float64 on this platform")
    third = np.longdouble(1) / 3
    ld = np.array([[third, 1 - third], [0.5, 0.5]], dtype=np.longdouble)
    p, q = third.as_integer_ratio()
    H = from_numpy(ld, rows="as-is").mechanism
    assert H.entry(0, 0) == Fraction(int(p), int(q)) != Fraction(float(third))
    np.save(tmp_path / "ld.npy", ld)
    assert load_mechanism(tmp_path / "ld.npy", rows="as-is").mechanism.entry(0, 0) == \
        Fraction(int(p), int(q))


# --- M5: an explicit rows policy is never overridden by the file -------------------------

def test_m5_explicit_rows_conflicting_with_the_document_is_an_error(tmp_path: Path) -> None:
    doc = {"rows": [["3/2", "1/2"], ["1/2", "1/2"]], "row_policy": "as-is"}
    path = tmp_path / "asis.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(InvalidArgument, match="row_policy='as-is'"):
        from_json(path, rows="exact")
    with pytest.raises(InvalidArgument, match="row_policy='as-is'"):
        load_mechanism(path, rows="normalize")
    assert from_json(path).mechanism.row_policy == "as-is"           # unset: the document's
    assert from_json(path, rows="as-is").mechanism.row_policy == "as-is"
    with pytest.raises(InvalidMechanism, match="sums to"):
        from_json({"rows": doc["rows"]}, rows="exact")


# --- M6: huge rationals print and round-trip ---------------------------------------------

def test_m6_tiny_entry_prints_and_round_trips(tmp_path: Path) -> None:
    x = Fraction(1, 10**5000)
    H = from_rows([[x, 1 - x], ["1/2", "1/2"]])
    r = privacy_level(H, line(2))
    assert r.verify()
    assert "5000 digits" in str(r) and len(str(r)) < 300
    doc = json.loads(json.dumps(r.to_json()))
    back = PrivacyLevelResult.from_json(doc, H, line(2))
    assert back == r and back.verify()
    with unlimited_int_digits():
        doc["ratio"] = str(Fraction(doc["ratio"]) + 1)
    assert PrivacyLevelResult.from_json(doc, H, line(2)).verify() is False
    c = is_private(H, line(2), eps=1)
    assert "exceeds ε" in str(c) and c.to_json()["excess"] is None
    assert len(H.to_json()["rows"][0][0]) > 5000
    to_csv(H, tmp_path / "tiny.csv")
    assert load_mechanism(tmp_path / "tiny.csv").mechanism.entry(0, 0) == x


# --- M7 / M8: cost guards ------------------------------------------------------------------

def test_m7_exact_decimal_floats_load_without_a_per_entry_scan(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import exactdp.mechanisms.files as files

    calls = []

    class Counting(Fraction):
        def __new__(cls, *args: object, **kw: object) -> Counting:
            calls.append(1)
            return super().__new__(cls, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(files, "Fraction", Counting)
    L = from_numpy(np.full((200, 200), 2.0**-10), rows="as-is")
    assert len(calls) < 100  # the reviewed scan built 2 Fractions per entry (13 s at 10^6)
    monkeypatch.undo()
    assert L.mechanism.entry(0, 0) == Fraction(1, 1024)
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        from_numpy(np.full((3, 3), 2.0**-10), rows="as-is")
        assert not got                 # all short decimals: no warning
        from_numpy(np.array([[0.1, 0.9]]), rows="as-is")
        assert len(got) == 1 and "0.1" in str(got[0].message)


def test_m8_far_offset_is_refused_quickly() -> None:
    with call_budget(20_000), pytest.raises(InvalidArgument, match="first_y=10000000"):
        geometric_rectangular(3, t="1/2", n_cols=2, first_y=10**7)
    H = geometric_rectangular(3, t="1/2", n_cols=2, first_y=50)  # a near offset still works
    assert privacy_level(H, line(3)).verify()


# --- minors --------------------------------------------------------------------------------

def test_m1_minor_infinite_level_fields_are_bound() -> None:
    H = from_numpy(np.array([[1.0, 0.0], [0.5, 0.5]])).mechanism
    doc = privacy_level(H, line(2)).to_json()
    assert doc["infinite"] and PrivacyLevelResult.from_json(doc, H, line(2)).verify()
    for key, value in (("method", "tight"), ("method", "monomial"), ("method", "ball")):
        bad = dict(doc, **{key: value})
        assert PrivacyLevelResult.from_json(bad, H, line(2)).verify() is False
    with pytest.raises(InvalidArgument):
        PrivacyLevelResult.from_json(dict(doc, value="0"), H, line(2))


def test_minor_negative_enclosure_and_monomial_label_are_rejected() -> None:
    H = from_rows([["3/4", "1/4"], ["1/4", "3/4"]])
    doc = privacy_level(H, line(2)).to_json()
    wide = dict(doc, enclosure={"lo": "-5", "hi": "6"})
    assert PrivacyLevelResult.from_json(wide, H, line(2)).verify() is False
    mono = dict(doc, method="monomial")
    assert PrivacyLevelResult.from_json(mono, H, line(2)).verify() is False


def test_principle_a_monomial_form_is_not_trusted_either() -> None:
    from exactdp.mechanisms import truncated_geometric

    G = truncated_geometric(2, t="1/2")            # level log(2)
    X = Mechanism(from_rows([["99/100", "1/100"], ["1/100", "99/100"]]).entries_object(),
                  kind="exact", monomial=G.monomial)
    r = privacy_level(X, line(2))
    assert r.value == sympy.log(99) and r.method == "exact" and r.verify()
    with pytest.raises(InvalidArgument, match="monomial form"):
        privacy_level(X, line(2), method="monomial")
    Gc = truncated_geometric(2, eps=1)             # certified balls, level exactly 1
    U = Mechanism(np.array([[flint.arb(1) / 2] * 2] * 2, dtype=object), kind="certified",
                  precision=128, monomial=Gc.monomial)
    assert privacy_level(U, line(2)).method == "ball"
    forged = PrivacyLevelResult.from_json(privacy_level(Gc, line(2)).to_json(), U, line(2))
    assert forged.verify() is False
    assert privacy_level(Gc, line(2)).value == 1    # the library's own still decides exactly


def test_minor_leakage_error_names_leakage() -> None:
    from exactdp.mechanisms import min_entropy_leakage

    H = from_numpy(np.array([[0.75, 0.5], [0.25, 0.75]]), rows="as-is").mechanism
    with pytest.raises(InvalidMechanism, match="min_entropy_leakage needs"):
        min_entropy_leakage(H)
