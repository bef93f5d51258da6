"""Loading the mechanism a user deploys (floats read exactly), row-sum policies, file round trips,
bad input, slack/excess of the privacy verdict, and the JSON forms of utility and leakage."""

from __future__ import annotations

import json
import math
import warnings
from fractions import Fraction
from itertools import combinations

import numpy as np
import pytest
import sympy

from exactdp.errors import InexactInputWarning, InvalidArgument, InvalidMechanism
from exactdp.kernel.jsonio import read_enclosure, read_rational
from exactdp.mechanisms import min_entropy_leakage, utility
from exactdp.mechanisms.constructors import from_rows, randomized_response
from exactdp.mechanisms.files import (
    from_csv,
    from_json,
    from_npy,
    from_numpy,
    load_mechanism,
    to_csv,
)
from exactdp.mechanisms.privacy import is_private, privacy_level
from exactdp.spaces.metrics import discrete, grid, line
from exactdp.tight import tight_constraints


def _geometric(n: int, eps: float) -> np.ndarray:
    a = math.exp(-eps)
    H = np.array([[a ** abs(i - j) for j in range(n)] for i in range(n)])
    return H / H.sum(axis=1, keepdims=True)


def _brute_max_ratio(rows: list[list[Fraction]], pairs) -> Fraction:
    """Max over pairs and outputs of h[a,z]/h[b,z] in Fractions (distance-1 pairs only)."""
    best = Fraction(0)
    for a, b in pairs:
        for x, y in ((a, b), (b, a)):
            for z in range(len(rows[0])):
                if rows[x][z]:
                    best = max(best, rows[x][z] / rows[y][z])
    return best


def _load_quiet(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InexactInputWarning)
        return from_numpy(*args, **kwargs)


def test_line_20_float_mechanism_certified_with_its_exact_level():
    A = _geometric(20, 1.0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        loaded = from_numpy(A, rows="normalize")
    inexact = [w for w in caught if issubclass(w.category, InexactInputWarning)]
    assert len(inexact) == 1  # one summary warning, not 400
    H = loaded.mechanism
    r = privacy_level(H, line(20))
    # independent check: exact Fractions of the floats, normalised by hand
    rows = [[Fraction(x) for x in row] for row in A.tolist()]
    rows = [[v / sum(row) for v in row] for row in rows]
    R = _brute_max_ratio(rows, [(i, i + 1) for i in range(19)])
    assert r.ratio == R and r.verify()
    assert str(r.value) == f"log({R})"
    # the short form is a certified decimal, not a 70-digit rational
    assert r.short().startswith("≈ 1.2") and len(r.short()) < 160


def test_grid_10x10_float_mechanism_all_pairs():
    g = grid(10, 10, "manhattan")
    D = np.array([[float(g.distance(i, j)) for j in range(g.n)] for i in range(g.n)])
    A = np.exp(-0.5 * D)
    A /= A.sum(axis=1, keepdims=True)
    H = _load_quiet(A, rows="normalize").mechanism
    r = privacy_level(H, g)
    assert r.verify()
    # the level is attained at the witness and no pair exceeds it (brute force in floats
    # is only a cross-check: the exact level must lie within 1e-9 of the float estimate)
    with np.errstate(divide="ignore"):
        L = np.log(A)
    est = max(np.max(np.abs(L[i] - L[j])) / D[i, j]
              for i, j in combinations(range(g.n), 2))
    assert abs(float(r) - est) < 1e-9


def test_randomized_response_rounded_to_floats_excess_and_slack():
    n = 4
    e = math.e
    A = np.full((n, n), 1 / (e + n - 1))
    np.fill_diagonal(A, e / (e + n - 1))
    H = _load_quiet(A, rows="normalize").mechanism
    r = privacy_level(H, discrete(n))
    rows = H.rows_fraction()
    assert r.ratio == rows[0][0] / rows[1][0]
    c = is_private(H, discrete(n), eps=1)
    assert c.verify()
    assert c.excess == r.value - 1
    enc = c.excess_enclosure
    assert enc is not None and abs(enc.mid) < Fraction(1, 10**14)
    # the verdict matches the sign of the exact excess: log(R) ≤ 1 ⟺ R ≤ e
    assert c.private == (float(r.ratio) <= e) or abs(float(r.ratio) - e) < 1e-12
    loose = is_private(H, discrete(n), eps="99999/100000", slack="1/10000")
    assert loose.private and loose.slack == Fraction(1, 10000) and loose.verify()
    strict = is_private(H, discrete(n), eps="99999/100000")
    assert not strict.private and strict.violation == r.witness
    assert strict.excess_enclosure.lo > 0
    doc = strict.to_json()
    assert doc["verdict"] == "fails" and doc["slack"] == "0"
    assert read_enclosure(doc["excess_enclosure"]).lo > 0


def test_exact_textbook_randomized_response_decided_at_its_own_level():
    c = is_private(randomized_response(3, eps=1), discrete(3), eps=1)
    assert c.private and c.excess == 0


def test_slack_must_be_nonnegative():
    with pytest.raises(InvalidArgument, match="slack"):
        is_private(from_rows([[1]]), discrete(1), eps=1, slack="-1/2")


B = np.array([[0.7, 0.3], [0.3, 0.7]])  # 0.7 + 0.3 = 1 - 2^-54 exactly


def test_row_policy_exact_refuses_with_the_exact_defect():
    with pytest.raises(InvalidMechanism) as info:
        _load_quiet(B)
    msg = str(info.value)
    exact_sum = Fraction(0.7) + Fraction(0.3)
    assert f"sums to 1 - {1 - exact_sum}" in msg
    assert "rows='normalize'" in msg and "rows='as-is'" in msg


def test_row_policy_normalize_and_as_is():
    exact_sum = Fraction(0.7) + Fraction(0.3)
    norm = _load_quiet(B, rows="normalize")
    assert norm.rows.defects == (exact_sum - 1, exact_sum - 1)
    assert norm.mechanism.row_sums() == (1, 1)
    assert norm.mechanism.entry(0, 0) == Fraction(0.7) / exact_sum
    asis = _load_quiet(B, rows="as-is")
    assert asis.mechanism.row_sums() == (exact_sum, exact_sum)
    assert asis.mechanism.entry(0, 0) == Fraction(0.7)
    # privacy of the entries as loaded: ratio 0.7/0.3 exactly
    assert privacy_level(asis.mechanism, line(2)).ratio == Fraction(0.7) / Fraction(0.3)
    with pytest.raises(InvalidMechanism, match="rows='normalize'"):
        utility(asis.mechanism)
    assert utility(norm.mechanism).row_policy == "normalize"


def test_row_policy_unknown():
    with pytest.raises(InvalidArgument, match="normalize"):
        from_numpy(np.eye(2), rows="fix")


@pytest.mark.parametrize(
    ("array", "match"),
    [
        (np.array([[0.5, np.nan]]), r"entry \[0\]\[1\] = nan is not a finite"),
        (np.array([[0.5, np.inf]]), r"entry \[0\]\[1\] = inf"),
        (np.array([[1.5, -0.5]]), r"entry \[0\]\[1\] = -0.5 is negative"),
        (np.array([0.5, 0.5]), "2-D"),
        (np.array([[True, False]]), "boolean"),
        (np.array([[0, 0], [1, 0]]), "row 0 is all zeros"),
    ],
)
def test_from_numpy_bad_input(array, match):
    with pytest.raises(InvalidMechanism, match=match):
        from_numpy(array, rows="as-is")


def test_csv_npy_json_round_trips(tmp_path):
    A = _geometric(6, 0.8)
    ref = _load_quiet(A, rows="normalize").mechanism
    # CSV of exact fractions
    p = tmp_path / "h.csv"
    to_csv(ref, p)
    back = from_csv(p)
    assert back.mechanism.rows_fraction() == ref.rows_fraction()
    # NPY of the floats
    q = tmp_path / "h.npy"
    np.save(q, A)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InexactInputWarning)
        assert from_npy(q, rows="normalize").mechanism.rows_fraction() == ref.rows_fraction()
        # CSV of floats written with repr: the same binary values
        f = tmp_path / "f.csv"
        f.write_text("\n".join(",".join(repr(x) for x in row) for row in A.tolist()))
        assert load_mechanism(f, rows="normalize").mechanism.rows_fraction() == \
            ref.rows_fraction()
    # JSON (Mechanism.to_json) and a bare list of rows
    j = tmp_path / "h.json"
    j.write_text(json.dumps(ref.to_json()))
    assert from_json(j).mechanism.rows_fraction() == ref.rows_fraction()
    assert from_json([["1/2", "1/2"], [0, 1]]).mechanism.entry(1, 1) == 1


def test_csv_decimals_exact_versus_float(tmp_path):
    p = tmp_path / "d.csv"
    p.write_text("0.7,0.3\n0.3,0.7\n")
    assert from_csv(p, decimals="exact").mechanism.entry(0, 0) == Fraction(7, 10)
    with pytest.raises(InvalidMechanism, match="sums to 1 -"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", InexactInputWarning)
            from_csv(p)


@pytest.mark.parametrize(
    ("name", "text", "match"),
    [
        ("a.csv", "0.5,abc\n0.5,0.5\n", r"a.csv: row 0, column 1: 'abc' is not a number"),
        ("b.csv", "0.5,0.5\n1\n", r"b.csv: row 1 has 1 columns, row 0 has 2"),
        ("c.csv", "0.5,nan\n0.5,0.5\n", r"c.csv: row 0, column 1: 'nan' is not a finite"),
        ("d.csv", "1.5,-0.5\n0.5,0.5\n", r"d.csv: entry \[0\]\[1\] = -0.5 is negative"),
        ("e.csv", "0.5,\n0.5,0.5\n", r"e.csv: row 0, column 1 is empty"),
        ("f.json", "0.5,0.5\n", r"f.json: not JSON"),
        ("g.json", '{"matrix": [["1"]]}', r"g.json: a JSON object needs a 'rows' key"),
        ("h.json", '[[0.5, 0.5]]', r"h.json: row 0, column 0 is 0.5; write exact"),
        ("i.json", '{"rows": "1"}', r"i.json: expected a list of rows"),
        ("j.txt", "1\n", r"unknown mechanism file type '.txt'"),
    ],
)
def test_file_bad_input_names_file_row_and_column(tmp_path, name, text, match):
    p = tmp_path / name
    p.write_text(text)
    with pytest.raises(InvalidMechanism, match=match):
        load_mechanism(p)


def test_utility_and_leakage_to_json_exact():
    H = from_rows([["3/4", "1/4"], ["1/4", "3/4"]])
    U = utility(H, ["1/3", "2/3"])
    doc = U.to_json()
    assert read_rational(doc["value"]) == Fraction(1, 4) + Fraction(1, 2)
    assert doc["remap"] == [0, 1] and doc["row_policy"] == "exact"
    L = min_entropy_leakage(H, ["1/3", "2/3"])
    d = L.to_json()
    assert read_rational(d["ratio"]) == Fraction(3, 4) / Fraction(2, 3)
    enc = read_enclosure(d["enclosure"])  # log2(9/8) = 0.169925…
    assert Fraction(169925, 10**6) < enc.lo <= enc.hi < Fraction(169926, 10**6)
    assert "bits" in str(L) and "utility" in str(U)


def test_privacy_level_takes_a_tight_constraints_result():
    res = tight_constraints(grid(3, 3, "manhattan"), eps="9/10")
    r = privacy_level(res, grid(3, 3, "manhattan"))
    assert r.value == sympy.Rational(9, 10) and r.verify()
    assert is_private(res, grid(3, 3, "manhattan"), eps="9/10").private



def test_binary_file_named_csv_is_bad_input(tmp_path):
    p = tmp_path / "x.csv"
    np.save(tmp_path / "x.npy", np.eye(2))
    p.write_bytes((tmp_path / "x.npy").read_bytes())
    with pytest.raises(InvalidMechanism, match="x.csv: not a text CSV file"):
        load_mechanism(p)
