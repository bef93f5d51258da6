"""scripts/hairline_fuzz.py: its judges tell false claims from true ones, and a small run finds no forgery.

The script's README figure (session 29) is a long run; CI runs a few edits per document and
checks the two judges on claims whose truth is known: the second root of the 4-point
instance's minimal polynomial (false, the session-28 forgery) and a grid witness moved to an
entry that is positive (false); the Pufferfish script's Gaussian truth against a closed form,
and its brute-force staircase ratio against the library's on small pairs.
"""

from __future__ import annotations

import copy
import importlib.util
import random
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

from exactdp.kernel.jsonio import dumps, loads
from exactdp.spaces.levels import parse_level
from exactdp.spaces.metrics import grid

ROOT = Path(__file__).resolve().parents[2]


def _script(stem: str) -> Any:
    """scripts/<stem>.py as a module (scripts/ is not a package)."""
    spec = importlib.util.spec_from_file_location(f"{stem}29", ROOT / "scripts" / f"{stem}.py")
    assert spec is not None and spec.loader is not None
    sys.modules[spec.name] = module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


hf = _script("hairline_fuzz")
hp = _script("hairline_fuzz_pufferfish")


def test_the_dense_judge_refuses_the_second_root() -> None:
    name, doc, _ = next(hf.dense_documents(0, 1))
    assert "two-root" in name and hf.judge_dense(doc) is True
    forged = copy.deepcopy(doc)
    forged["claim"]["s_star"]["isolating_interval"] = {"lo": "41/50", "hi": "87/100"}
    assert hf.judge_dense(forged) is False
    wide = copy.deepcopy(doc)
    wide["claim"]["eps"]["hi"] = "1"  # a wider enclosure: still true
    assert hf.judge_dense(wide) is True


def test_the_grid_judge_refuses_a_witness_at_a_positive_entry() -> None:
    cert = hf.solve_grid_point(grid(5, 4), parse_level(eps="1/2")).certificate
    doc = loads(dumps(cert.to_json()))
    assert doc["claim"]["verdict"] == "fails" and hf.judge_grid(doc) is True
    with hf.mpmath.workdps(70):
        z = hf._z(hf.read_grid(doc).shape, (Fraction(1),) * 20, hf.mpmath.mpf(1) / 2)
    positive = next(k for k in range(20) if z[k] > 0)
    moved = copy.deepcopy(doc)
    moved["claim"]["witness"] = positive
    assert hf.judge_grid(moved) is False


def test_a_small_run_finds_no_forgery() -> None:
    rng = random.Random(0)
    for name, doc, unit in list(hf.dense_documents(1, 3))[:6]:
        counts = hf.run(name, doc, lambda d, u=unit: hf.judge_dense(d, u), None, Fraction(1), 25, rng)
        assert counts[0] > 0 and counts[2] == 0


def test_the_gaussian_truth_matches_the_closed_form_of_a_point_pair() -> None:
    # δ for N(1, 1) against N(0, 1) at ε = 1: Φ(1/2 − 1) − e·Φ(−1/2 − 1) (Balle and Wang)
    mp = hp.mpmath
    with mp.workdps(30):
        got = hp.hockey([(mp.mpf(1), mp.mpf(1))], [(mp.mpf(0), mp.mpf(1))], mp.mpf(1), mp.mpf(1))
        want = mp.ncdf(mp.mpf(-1) / 2) - mp.e * mp.ncdf(mp.mpf(-3) / 2)
        assert abs(got - want) < mp.mpf(10) ** -25


def test_the_staircase_truth_agrees_with_the_library_on_small_pairs() -> None:
    from exactdp.pufferfish.distributions import DiscreteDistribution, point_mass
    from exactdp.pufferfish.secrets import DistributionPair, ValuePair
    from exactdp.pufferfish.staircase import staircase_loss

    doc = staircase_loss(ValuePair(1, 0), 1, "ln(2)", "1/2").to_document()
    R = hp.staircase_ratio(point_mass(1), point_mass(0), Fraction(1, 2), Fraction(1), Fraction(1, 2))
    assert R == Fraction(doc["claim"]["ratio"]) == 2
    P = DiscreteDistribution((Fraction(0), Fraction(2)), (Fraction(1, 3), Fraction(2, 3)))
    Q = DiscreteDistribution((Fraction(1), Fraction(3)), (Fraction(3, 4), Fraction(1, 4)))
    for gamma in ("0", "1/4", "3/4"):
        doc = staircase_loss(DistributionPair(P, Q), "3/2", "ln(3)", gamma).to_document()
        R = hp.staircase_ratio(P, Q, Fraction(1, 3), Fraction(3, 2), Fraction(gamma))
        assert R == Fraction(doc["claim"]["ratio"]) and R > 1
