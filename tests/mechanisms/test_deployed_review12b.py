"""Regression tests for review 12b (commit 8f9e4d7): forged structure forms on balls (F1),
arrays editable after the check (F2), CSV exponent hang (F3), certify slack text (F4),
pickling / equality / parameters / CLI negatives / indexing details (F5–F8)."""

from __future__ import annotations

import copy
import pickle
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import sympy
from flint import arb, fmpq

from exactdp.cli.app import main
from exactdp.errors import (
    InvalidArgument,
    InvalidMechanism,
    InvalidPrior,
    PrecisionLimitReached,
)
from exactdp.mechanisms import (
    Mechanism,
    MonomialForm,
    RowNormalizedForm,
    TightForm,
    exponential_mechanism,
    from_csv,
    from_rows,
    truncated_geometric,
)
from exactdp.mechanisms.gain import utility
from exactdp.mechanisms.privacy import is_private, privacy_level
from exactdp.mechanisms.privacy_result import PrivacyLevelResult
from exactdp.spaces.metrics import grid, line
from exactdp.testing.budget import call_budget
from exactdp.tight import tight_constraints


def _near(x: sympy.Expr, digits: int = 50) -> sympy.Rational:
    return sympy.Rational(str(sympy.N(x, digits)))


def _inside(r: PrivacyLevelResult, true: sympy.Expr) -> bool:
    assert r.enclosure is not None
    t = Fraction(str(sympy.N(true, 60)))
    return r.enclosure.lo - Fraction(1, 10**40) <= t <= r.enclosure.hi + Fraction(1, 10**40)


# --- F1: a form attached to balls proves nothing about them -------------------------------

def test_f1_forged_row_normalized_form_on_library_balls_is_not_an_exact_level() -> None:
    m = line(3)
    H = exponential_mechanism(m, eps=1)
    f = H.row_normalized
    r = privacy_level(H, m)
    assert r.method == "row-monomial" and r.verify()  # built from its form: exact
    s2 = _near(f.s) - sympy.Rational(1, 10**44)  # not e^{-1/2}
    H2 = Mechanism(H.entries_object(), kind="certified", precision=H.precision,
                   row_normalized=RowNormalizedForm(s2, f.exponents))
    assert not H2.form_sealed
    r2 = privacy_level(H2, m)
    assert r2.method != "row-monomial" and r2.value is None  # an enclosure, from the balls
    assert r2.verify() and _inside(r2, r.value)
    with pytest.raises(PrecisionLimitReached):
        is_private(H2, m, eps=r.value)  # the balls cannot decide it: no contradictory verdict


def test_f1_forged_tight_form_is_not_used() -> None:
    met = grid(3, 3, "euclidean")
    H = tight_constraints(met, eps=sympy.Rational(9, 10)).mechanism
    f = H.structure
    r = privacy_level(H, met)
    assert r.value == sympy.Rational(9, 10) and r.method == "tight" and r.verify()
    eps3 = sympy.Rational(9, 10) - sympy.Rational(1, 10**45)
    H3 = Mechanism(H.entries_object(), kind="certified", precision=H.precision,
                   structure=TightForm(f.metric, eps3, f.z, f.positive))
    r3 = privacy_level(H3, met)
    assert r3.method != "tight" and r3.value != eps3 and r3.verify()
    assert not is_private(H, met, eps=eps3).private
    with pytest.raises(PrecisionLimitReached):
        is_private(H3, met, eps=eps3)


def test_f1_forged_monomial_form_is_not_used() -> None:
    G = truncated_geometric(3, eps=1)
    f = G.monomial
    assert privacy_level(G, line(3)).method == "monomial"
    s45 = _near(f.s, 45)
    G2 = Mechanism(G.entries_object(), kind="certified", precision=G.precision,
                   monomial=MonomialForm(s45, f.exponents, f.column_factors, f.symbol))
    r2 = privacy_level(G2, line(3))
    assert r2.method != "monomial" and r2.value is None and r2.verify()


def test_f1_wide_balls_with_a_form_give_no_level() -> None:
    half = arb("0.5 +/- 0.5")
    balls = np.array([[half, half], [half, half]], dtype=object)
    for s in (sympy.Rational(1, 2), sympy.Rational(1, 1000)):
        H = Mechanism(balls, kind="certified", precision=128,
                      row_normalized=RowNormalizedForm(s, np.array([[0, 1], [1, 0]])))
        with pytest.raises(PrecisionLimitReached):
            privacy_level(H, line(2))


def test_f1_from_form_builds_the_entries_and_keeps_the_form_in_force() -> None:
    E = np.array([[0, 1, 2], [1, 0, 1], [2, 1, 0]])
    H = Mechanism.from_form(RowNormalizedForm(sympy.exp(-sympy.Rational(1, 2)), E))
    assert H.form_sealed and H.kind == "certified"
    r = privacy_level(H, line(3))
    assert r.method == "row-monomial" and r.verify()
    assert r.value == privacy_level(exponential_mechanism(line(3), eps=1), line(3)).value


# --- F2: every array is read-only for good; editing the caller's copy changes nothing ------

def test_f2_caller_arrays_edited_after_construction_change_nothing() -> None:
    E = np.array([[0, 1], [1, 0]])
    G = np.array([[fmpq(2, 3), fmpq(1, 3)], [fmpq(1, 3), fmpq(2, 3)]], dtype=object)
    H = Mechanism(G, kind="exact", row_normalized=RowNormalizedForm(sympy.Rational(1, 2), E))
    cols = (sympy.Rational(2, 3), sympy.Rational(2, 3))
    E2 = np.array([[0, 1], [1, 0]])
    H3 = Mechanism(G, kind="exact", monomial=MonomialForm(sympy.Rational(1, 2), E2, cols))
    assert privacy_level(H, line(2)).value == sympy.log(2)
    assert privacy_level(H3, line(2)).value == sympy.log(2)
    E[0, 1] = E[1, 0] = 5
    E2[0, 1] = E2[1, 0] = 7
    G[0, 0] = fmpq(1)
    for M in (H, H3):
        r = privacy_level(M, line(2))
        assert r.value == sympy.log(2) and r.verify()
    assert is_private(H3, line(2), eps=1).private


def test_f2_library_form_arrays_cannot_be_made_writeable() -> None:
    H = exponential_mechanism(line(3), t="1/2")
    G = truncated_geometric(3, t="1/2")
    for arr in (H.row_normalized.exponents, H.row_normalized.row_polynomials[0],
                H.row_normalized.row_polynomials[1], G.monomial.exponents,
                G.monomial.zero_columns):
        with pytest.raises(ValueError):
            arr.setflags(write=True)


@pytest.mark.parametrize("floats", [False, True])
def test_f2_entries_object_base_edit_leaves_the_mechanism(floats: bool) -> None:
    if floats:
        from exactdp.mechanisms.files import from_numpy
        H = from_numpy(np.array([[0.5, 0.5], [0.25, 0.75]])).mechanism
    else:
        H = from_rows([["1/2", "1/2"], ["1/4", "3/4"]])
    base = H.entries_object().base
    base.setflags(write=True)
    base[0, 0], base[0, 1], base[1, 0], base[1, 1] = fmpq(1), fmpq(0), fmpq(0), fmpq(1)
    assert H.rows_fraction() == [[Fraction(1, 2), Fraction(1, 2)], [Fraction(1, 4), Fraction(3, 4)]]
    assert utility(H, "uniform").value == Fraction(5, 8)
    assert privacy_level(H, line(2)).value == sympy.log(2)


def test_f2_tight_form_keeps_the_distances_it_was_built_on() -> None:
    met = grid(2, 2, "euclidean")
    H = tight_constraints(met, eps=1).mechanism
    form = H.structure
    before = form.distance_index.copy()
    try:
        met.index.setflags(write=True)
    except ValueError:
        pass
    else:
        met.index[0, 1] = met.index[0, 0]
    assert np.array_equal(form.distance_index, before)
    with pytest.raises(ValueError):
        form.distance_index.setflags(write=True)


# --- F3: CSV exponents --------------------------------------------------------------------

@pytest.mark.parametrize("cell,decimals,match", [
    ("1e-40000000", "float", "underflows to 0"),
    ("1e-40000000", "exact", "decimal exponent beyond"),
    ("1e-999999999999999999999", "exact", "decimal exponent beyond"),
    ("-1e-400", "float", "is negative"),
])
def test_f3_huge_exponents_are_refused_at_once(tmp_path: Path, cell: str, decimals: str,
                                                match: str) -> None:
    p = tmp_path / "k.csv"
    p.write_text(f"{cell},1\n.5,.5\n")
    with call_budget(2_000) as seen, pytest.raises(InvalidMechanism, match=match):
        from_csv(p, rows="as-is", decimals=decimals)
    assert seen[1] < 2**20  # bytes: 10**40000000 (16.6 MB) is never formed


def test_f3_zero_with_a_huge_exponent_is_zero(tmp_path: Path) -> None:
    p = tmp_path / "z.csv"
    p.write_text("0e-99999999999,1\n.5,.5\n")
    H = from_csv(p, rows="as-is").mechanism
    assert H.entry(0, 0) == 0


# --- F4: certify prints a long slack shortened ----------------------------------------------

def test_f4_certify_shortens_a_long_slack(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("m.csv").write_text("1/2,1/2\n1/4,3/4\n")
    slack = "1/3" + "0" * 57
    code = main(["certify", "--mechanism", "m.csv", "--metric", "line", "--n", "2",
                 "--eps", "1/2", "--slack", slack, "--no-verify"])
    out = capsys.readouterr().out
    assert code in (0, 1)
    assert "slack ≈ 3.33e-58 (exact: .slack)" in out and "0" * 57 not in out


# --- F5: pickling and equality --------------------------------------------------------------

@pytest.mark.parametrize("make", [
    lambda: (tight_constraints(line(3), t="1/3").mechanism, line(3)),
    lambda: (tight_constraints(line(3), eps=1).mechanism, line(3)),
    lambda: (tight_constraints(grid(2, 2, "euclidean"), eps=sympy.Rational(9, 10)).mechanism,
             grid(2, 2, "euclidean")),
])
def test_f5_tight_mechanisms_pickle_and_compare_by_value(make: object) -> None:
    H, met = make()  # type: ignore[operator]
    for H2 in (pickle.loads(pickle.dumps(H)), copy.deepcopy(H)):
        assert H2 == H and hash(H2) == hash(H) and H2.form_sealed == H.form_sealed
        r, r2 = privacy_level(H, met), privacy_level(H2, met)
        assert r2.value == r.value and r2.method == r.method and r2.verify()
    H3, _ = make()  # type: ignore[operator]
    assert H3 == H


def test_f5_unsealed_balls_pickle_exactly_and_equality_sees_the_seal() -> None:
    H = exponential_mechanism(line(3), eps=1)
    U = Mechanism(H.entries_object(), kind="certified", precision=H.precision)
    U2 = pickle.loads(pickle.dumps(U))
    assert U2 == U and not U2.form_sealed
    assert U != H  # same balls, but H's form is in force and U has none
    assert U != from_rows([["1/2", "1/2"], ["1/2", "1/2"], ["1/2", "1/2"]])


# --- F6: parameters are read-only and never a proof -----------------------------------------

def test_f6_parameters_are_read_only_and_as_sympy_ignores_them() -> None:
    H5 = from_rows([[1, 0], [0, 1]])
    with pytest.raises(TypeError):
        H5.parameters["exponential_of"] = (line(2), sympy.Rational(1, 2))  # type: ignore[index]
    H6 = Mechanism(H5.entries_object(), kind="exact",
                   parameters={"exponential_of": (line(2), sympy.Rational(1, 2))})
    assert H6.as_sympy() == sympy.eye(2)
    # a forged closed form on balls is not used either
    G = truncated_geometric(2, eps=1)
    forged = MonomialForm(sympy.Rational(1, 3), G.monomial.exponents,
                          (sympy.Rational(3, 4), sympy.Rational(3, 4)))
    G2 = Mechanism(G.entries_object(), kind="certified", precision=G.precision,
                   monomial=forged)
    with pytest.raises(InvalidMechanism):
        G2.as_sympy()


# --- F7: negative numbers reach their own check on every level option -----------------------

@pytest.mark.parametrize("args,match", [
    (["tight-constraints", "line", "--n", "3", "--eps", "-1/10"], "must be > 0"),
    (["regular", "line", "--n", "3", "--eps", "-1/10"], "must be > 0"),
    (["tight-constraints", "line", "--n", "3", "--t", "-1/2"], "between 0 and 1"),
])
def test_f7_negative_levels_get_the_specific_error(args: list[str], match: str,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    assert main(args) == 3
    err = capsys.readouterr().err
    assert match in err and "expected one argument" not in err


@pytest.mark.parametrize("value", ["-inf", "-nan", "-Infinity"])
def test_f7_negative_inf_and_nan_are_read_by_the_eps_check(
        value: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("m.csv").write_text("1/2,1/2\n1/4,3/4\n")
    assert main(["certify", "--mechanism", "m.csv", "--metric", "line", "--n", "2",
                 "--eps", value]) == 3
    err = capsys.readouterr().err
    assert f"eps='{value}'" in err and "expected one argument" not in err


# --- F8: indexing and message details --------------------------------------------------------

def test_f8_bool_index_is_refused() -> None:
    H = from_rows([["1/2", "1/2"], ["1/4", "3/4"]])
    for key in (True, np.bool_(False), (0, True)):
        with pytest.raises(InvalidArgument, match="indexed by integers"):
            H[key]


def test_f8_json_witness_out_of_range_names_the_range() -> None:
    H = tight_constraints(line(3), t="1/3").mechanism
    doc = privacy_level(H, line(3)).to_json()
    for w, match in (([-3, 2, 0], r"witness\[0\] \(an input\).*\[0, 2\]"),
                     ([0, 1, 9], r"witness\[2\] \(an output\).*\[0, 2\]")):
        doc["witness"] = w
        with pytest.raises(InvalidArgument, match=match):
            PrivacyLevelResult.from_json(doc, H, line(3))


def test_f8_utility_with_a_metric_as_prior_is_a_specific_error() -> None:
    H = tight_constraints(line(3), t="1/3").mechanism
    with pytest.raises(InvalidPrior, match="metric line\\(3\\) as the prior"):
        utility(H, line(3))  # type: ignore[arg-type]
