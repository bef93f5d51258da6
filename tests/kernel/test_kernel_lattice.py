"""Issue 15/11: the kernel's Euclidean lattice λ_min check (exactdp.kernel.lattice), and
Euclidean ``grid-point`` documents re-checked by ``exactdp verify`` in a fresh process.

Ground truth: λ_min(Φ_S(ε)) ≥ min_θ f_{εh}(θ) for every finite S ⊂ h·Z², with equality in the
limit of large grids, and the minimum of the symbol is at θ = (π, π) (proofs/
lattice_spectrum_bound.py (c)). So a λ above the float value f(π, π) (direct sum, error
< 1e-12, far below the 1e-6 margin used) is a false claim: a large enough grid has λ_min
below it. The search's bound (exactdp.algebra.lattice_spectrum) is an independent proof of
its value, so the kernel must accept it.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from fractions import Fraction as F

import numpy as np
import pytest

from exactdp.algebra.lattice_spectrum import (
    euclidean_lattice_lambda_lower,
    euclidean_lattice_symbol_float,
)
from exactdp.engine.grid_point import solve_grid_point
from exactdp.errors import InvalidArgument
from exactdp.kernel.grid_point import check_grid_point, read_grid_point
from exactdp.kernel.jsonio import dumps
from exactdp.kernel.lattice import euclidean_lambda_ok
from exactdp.kernel.verify import verify_document
from exactdp.spaces.levels import parse_level
from exactdp.spaces.metrics import grid
from exactdp.spaces.metrics.masked import masked_grid
from exactdp.testing.budget import call_budget
from exactdp.tight import tight_constraints

RANGES = [("0.66", "0.67", "1"), ("1/100", "11/1000", "1"), ("1/1000", "1/1000", "1"),
          ("5", "6", "1"), ("0.66", "0.67", "1/10"), ("0.6653515836", "0.7209058", "1"),
          ("1.7729837", "2.5269318", "1"), ("10**-30", "10**-30", "1"), ("10**6", "10**6", "1")]


def _frac(text: str) -> F:
    return F(eval(text)) if "**" in text else F(text)  # noqa: S307 - literal test data


@pytest.mark.parametrize("lo, hi, h", RANGES)
def test_accepts_what_the_search_proved(lo, hi, h):
    lo_f, hi_f, h_f = _frac(lo), _frac(hi), F(h)
    lam = euclidean_lattice_lambda_lower(lo_f, hi_f, h_f)
    with call_budget(150_000):
        assert euclidean_lambda_ok(lo_f, hi_f, h_f, lam)


def _symbol_min_upper(e: F) -> float:
    """f_e(π, π) in float (an upper estimate of min f; see the module docstring)."""
    return euclidean_lattice_symbol_float(e, math.pi, math.pi)


@pytest.mark.parametrize("lo, hi, h", [("0.665", "0.665", "1"), ("0.66", "0.67", "1"),
                                       ("0.66", "0.67", "1/10"), ("3", "3", "1"),
                                       ("5", "6", "1"), ("1/20", "1/20", "1"), ("12", "12", "1")])
def test_rejects_a_lambda_above_the_symbol_minimum(lo, hi, h):
    lo_f, hi_f, h_f = F(lo), F(hi), F(h)
    top = min(_symbol_min_upper(lo_f * h_f), _symbol_min_upper(hi_f * h_f))
    assert not euclidean_lambda_ok(lo_f, hi_f, h_f, F(top * (1 + 1e-6)))
    # … and is close to it from below: within 1 % of min f (ranges within 2 %)
    below = F(top * (0.99 if lo == hi else 0.98))
    assert euclidean_lambda_ok(lo_f, hi_f, h_f, below)


def test_tiny_eps_tends_to_zero_and_stays_sound():
    # min f_e ≈ e·C as e → 0, C = 2π Σ_m (4π²|(1/2, 1/2) + m|²)^{-3/2} (Poisson, g_e ≤ e/(4π²q)^{3/2});
    # the partial sum |m|∞ ≤ 300 misses < 1/(2π·300) ≈ 0.13 % of C
    m = np.arange(-300, 301, dtype=float)
    q = (0.5 + m[:, None]) ** 2 + (0.5 + m[None, :]) ** 2
    c_part = float(2 * np.pi * np.sum((4 * np.pi**2 * q) ** -1.5))
    for e in (F(1, 10**30), F(1, 2**80)):
        assert euclidean_lambda_ok(e, e, F(1), F(c_part * 0.99) * e)
        assert not euclidean_lambda_ok(e, e, F(1), F(c_part * 1.01) * e)
        assert not euclidean_lambda_ok(e, e, F(1), F(1, 10**6))


def test_huge_eps():
    for e in (F(10**6), F(10**400)):
        assert euclidean_lambda_ok(e, e, F(1), 1 - F(1, 10**9))
        assert not euclidean_lambda_ok(e, e, F(1), F(1))  # a pair of points has λ_min < 1
    with call_budget(40_000):  # a huge range: sound (min f ≈ 4·10⁻⁷ at ε = 10⁻⁶), and bounded
        assert not euclidean_lambda_ok(F(1, 10**6), F(10**6), F(1), F(1, 10**5))


def test_degenerate_arguments():
    one = F(1)
    assert not euclidean_lambda_ok(F(2), F(1), one, F(1, 10))  # reversed range
    assert not euclidean_lambda_ok(F(0), F(1), one, F(1, 10))  # ε = 0: Φ = all ones
    assert euclidean_lambda_ok(F(0), F(1), one, F(0))
    assert not euclidean_lambda_ok(F(-1), F(1), one, F(-5))  # negative ε: nothing proved
    assert euclidean_lambda_ok(F(1), F(1), one, F(-3))  # λ ≤ 0: Φ is positive semidefinite
    assert not euclidean_lambda_ok(F(1), F(1), F(0), F(1, 10))
    assert not euclidean_lambda_ok(F(1), F(1), F(-1), F(1, 10))
    with pytest.raises(InvalidArgument, match="exact rationals"):
        euclidean_lambda_ok(0.5, 0.5, 1, F(1, 10))  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument):
        euclidean_lambda_ok(F(1), F(1), True, F(1, 10))  # type: ignore[arg-type]


def test_bounded_work_just_below_the_minimum():
    top = _symbol_min_upper(F("0.665"))
    with call_budget(40_000):
        euclidean_lambda_ok(F("0.665"), F("0.665"), F(1), F(top * (1 - 1e-7)))  # True or False


def test_spacing_scales_eps():
    lam = F(26, 100)
    assert euclidean_lambda_ok(F(665, 500), F(665, 500), F(1, 2), lam)
    assert euclidean_lambda_ok(F(665, 1000), F(665, 1000), F(1), lam)
    assert not euclidean_lambda_ok(F(665, 500), F(665, 500), F(1, 4), lam)  # ε·h = 0.3325


# ------------------------------------------------------------------- grid-point documents
@pytest.fixture(scope="module")
def euclid_doc():
    r = tight_constraints(grid(40, 40, "euclidean"), eps=1)
    assert r.method == "grid-matrix-free"
    return r.to_json()


def _run_verify(tmp_path, name, doc):
    path = tmp_path / name
    path.write_text(dumps(doc) if isinstance(doc, dict) else doc)
    return subprocess.run([sys.executable, "-m", "exactdp", "verify", str(path)],
                          capture_output=True, text=True, timeout=120)


def test_exactdp_verify_checks_euclidean_grid_point(euclid_doc, tmp_path):
    doc = euclid_doc
    assert doc["kind"] == "grid-point" and doc["question"]["metric"]["norm"] == "euclidean"
    ok = _run_verify(tmp_path, "genuine.json", doc)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    lam = read_grid_point(doc).lam
    # λ raised above the symbol minimum at ε = 1 (f(π, π) ≈ 0.3969): false, rejected
    raised = json.loads(dumps(doc))
    raised["evidence"]["lam"] = str(F(_symbol_min_upper(F(1)) * 1.001))
    assert lam < F(raised["evidence"]["lam"])
    bad = _run_verify(tmp_path, "raised.json", raised)
    assert bad.returncode == 1, bad.stdout + bad.stderr


def test_tampered_euclidean_documents_are_rejected(euclid_doc):
    doc = euclid_doc
    assert verify_document(doc).verified
    claim = read_grid_point(doc)
    assert check_grid_point(claim)
    mant = json.loads(dumps(doc))  # y_7 moved by 1/2: the residual grows past what λ allows
    mant["evidence"]["mantissas"][7] = str(int(mant["evidence"]["mantissas"][7])
                                           + 2 ** (claim.exponent - 1))
    assert not verify_document(mant).verified
    for key, value in (("spacing", "1/2"), ("norm", "manhattan")):  # same n, another question
        other = json.loads(dumps(doc))
        other["question"]["metric"][key] = value
        assert not verify_document(other).verified, key
    masked = json.loads(dumps(doc))  # one cell removed: the mantissa count no longer fits
    masked["question"]["metric"]["mask"] = ["0" + "1" * 39] + ["1" * 40] * 39
    with pytest.raises(InvalidArgument):
        verify_document(masked)
    flipped = json.loads(dumps(doc))
    flipped["claim"]["verdict"] = "fails"
    flipped["claim"]["witness"] = 0
    assert not verify_document(flipped).verified


def test_masked_euclidean_grid_point_verifies_in_the_kernel():
    mask = ["1111111", "1110111", "1100011", "1111111", "0111110"]
    sol = solve_grid_point(masked_grid(7, 5, "euclidean", mask=mask), parse_level(eps="3/4"))
    doc = sol.certificate.to_json()
    assert verify_document(doc).verified
    doc["evidence"]["lam"] = str(F(_symbol_min_upper(F(3, 4)) * 1.001))
    assert not verify_document(doc).verified


def test_fraction_of_numpy_ints_is_a_specific_error():
    """Review 15A8 m2: a Fraction built from numpy ints passed the type check and raised a
    bare TypeError deep in the arb conversion; now the documented InvalidArgument."""
    with pytest.raises(InvalidArgument, match="exact rationals"):
        euclidean_lambda_ok(F(1), F(1), F(np.int64(1)), F(1, 3))
