"""The shipped exact thresholds (exactdp/data/sum_query_150_5_threshold.json, issue 18).

CI recomputes the n = 151 entry from scratch; the n = 751 entry (≈ 10–25 s) is recomputed
by ``python scripts/structured_minpoly.py --check`` and only checked for internal
consistency here: irreducible minimal polynomial, exactly one root in the interval, and
the stated digits and ε-enclosure agree with −ln of that root.
"""

from __future__ import annotations

import importlib.util
import json
from fractions import Fraction
from pathlib import Path

import pytest
from flint import fmpz_poly

from exactdp.algebra.algebraic import AlgebraicNumber, log_enclosure

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "exactdp" / "data" / "sum_query_150_5_threshold.json"


def _script():
    spec = importlib.util.spec_from_file_location("structured_minpoly",
                                                  ROOT / "scripts" / "structured_minpoly.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def doc():
    return json.loads(DATA.read_text())["instances"]


def test_small_entry_matches_fresh_computation(doc):
    fresh = _script().entry(30, 5)
    stored = doc["sum_query(30, 5)"]
    for key in ("minimal_polynomial_descending", "isolating_interval", "eps_lower", "eps_upper",
                "eps_star_digits", "degree"):
        assert stored[key] == fresh[key], key


def test_headline_entry_is_consistent(doc):
    e = doc["sum_query(150, 5)"]
    assert e["n"] == 751 and e["degree"] == 373
    coeffs = tuple(int(c) for c in reversed(e["minimal_polynomial_descending"]))
    g = fmpz_poly(list(coeffs))
    content, factors = g.factor()
    assert content == 1 and len(factors) == 1 and factors[0] == (g, 1)   # irreducible
    lo, hi = (Fraction(x) for x in e["isolating_interval"])
    a = AlgebraicNumber(coeffs, (lo, hi))
    assert a.verify()                                   # exactly one root in the interval
    fine = a.refine(Fraction(1, 2**200))
    e_lo, e_hi = log_enclosure(*fine.isolating_interval, Fraction(-1), prec=256)
    assert Fraction(e["eps_lower"]) <= e_lo and e_hi <= Fraction(e["eps_upper"])
    digits = Fraction(e["eps_star_digits"])
    assert digits <= e_lo and e_hi < digits + Fraction(1, 10**40)
