"""Review of 15H (session 12): thresholds at any spacing solved in the unit, ``exact-scaled``.

Ground truth: ε*(c·d′) = ε*(d′)/c (``proofs/grid_spacing_scaling.py``); the unit results
come from the same library at spacing 1 (both enclosures contain ε*, so they must meet).
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from fractions import Fraction as F

import pytest
import sympy

from exactdp.errors import ExactnessRequired, InstanceTooLarge, PropertyNeverHolds, ToleranceTooFine
from exactdp.kernel.verify import verify_document
from exactdp.spaces.metrics import grid, sum_query
from exactdp.spaces.metrics.masked import masked_grid
from exactdp.threshold import ThresholdResult, epsilon_threshold, tight_constraints_epsilons
from exactdp.threshold.certified import scaled_route, unit_of

L_MASK = ["1111", "1111", "1100", "1100"]
MIRROR = ["1111", "1111", "0011", "0011"]


def _verified(doc):
    return verify_document(doc).verified


@pytest.mark.parametrize("h, tol", [(10**7, F(1, 10**16)), (10**40, F(1, 10**30))], ids=["1e7", "1e40"])
def test_a_loose_absolute_tol_at_a_large_spacing_is_met(h, tol):
    r = epsilon_threshold(grid(4, 3, "euclidean", spacing=h), tol=tol)
    assert r.eps_upper - r.eps_lower <= tol and r.verify()


def test_unit_result_divided_by_c_at_far_spacings():
    one = epsilon_threshold(grid(4, 3, "euclidean"))
    for h, tol in ((F(10**40), F(1, 10**9)), (F(1, 10**400), F(10**391))):
        r = epsilon_threshold(grid(4, 3, "euclidean", spacing=h), tol=tol)
        assert r.eps_upper - r.eps_lower <= tol
        assert r.eps_lower * h <= one.eps_upper and one.eps_lower <= r.eps_upper * h
        assert _verified(r.to_json())


@pytest.fixture(scope="module")
def docs():
    prior = [F(k + 1, 78) for k in range(12)]
    return {"L1": epsilon_threshold(masked_grid(4, 4, "manhattan", 1, mask=L_MASK)).to_json(),
            "L400": epsilon_threshold(masked_grid(4, 4, "manhattan", 10**400, mask=L_MASK)).to_json(),
            "L40": epsilon_threshold(masked_grid(4, 4, "manhattan", 10**40, mask=L_MASK)).to_json(),
            "Lp40": epsilon_threshold(masked_grid(4, 4, "manhattan", 10**40, mask=L_MASK), prior=prior).to_json()}


def test_shape_question_with_a_metric_encoded_inner(docs):
    """The 10⁴⁰⁰ L travels as a shape around an exact (distances) inner: mixing holds up."""
    d = docs["L400"]
    assert d["question"]["metric"]["encoding"] == "grid" and _verified(d)
    good = copy.deepcopy(d)
    good["evidence"]["inner"] = copy.deepcopy(docs["L1"])  # the same unit question, solved alone
    assert _verified(good)
    for rows in (MIRROR, L_MASK[::-1]):
        bad = copy.deepcopy(d)
        bad["question"]["metric"]["mask"] = rows
        assert not _verified(bad)


def test_inner_rhs_must_be_the_outer_one(docs):
    for outer, inner in (("L40", "Lp40"), ("Lp40", "L40")):
        d = copy.deepcopy(docs[outer])
        d["evidence"]["inner"] = copy.deepcopy(docs[inner]["evidence"]["inner"])
        assert not _verified(d)


def test_malformed_units_exit_3_in_a_fresh_process(tmp_path, docs):
    files = []
    for k, unit in enumerate(["-1", "0", "1e400", " 7", "2/2", 1, None, []]):
        d = copy.deepcopy(docs["L400"])
        d["evidence"]["unit"] = unit
        files.append(tmp_path / f"u{k}.json")
        files[-1].write_text(json.dumps(d))
    code = "import sys; from exactdp.cli.app import main; print([main(['verify', f]) for f in sys.argv[1:]])"
    p = subprocess.run([sys.executable, "-c", code, *map(str, files)], capture_output=True, text=True,
                       timeout=600)
    assert p.stdout.strip().splitlines()[-1] == str([3] * len(files)), p.stdout + p.stderr
    assert "Traceback" not in p.stderr


# -- 15H-fix: the fields the scaled wrapper builds, the advice, the errors ---------------------

def test_scaled_route_carries_the_exact_eps_set_divided_by_c():
    """Fix 1: the inner exact ε-set (a finite endpoint) arrives with every ε divided by c."""
    g = masked_grid(4, 4, "manhattan", 10**40, mask=L_MASK)
    r = scaled_route(g, None, F(1, 10**9), None, unit_of(g), lambda m, t: epsilon_threshold(m, tol=t))
    one = epsilon_threshold(masked_grid(4, 4, "manhattan", 1, mask=L_MASK))
    assert r.eps_set is not None and one.eps_set is not None
    assert r.eps_set.as_sympy() == sympy.Interval(sympy.log(2) / 10**40, sympy.oo)
    assert sympy.simplify(one.eps_set.as_sympy().inf / 10**40 - r.eps_set.as_sympy().inf) == 0
    lo = r.eps_set.intervals[0].eps_lower_enclosure(F(1, 10**60))
    assert lo is not None and lo.width <= F(1, 10**60)
    assert lo.lo <= r.eps_upper and r.eps_lower <= lo.hi  # the set's ε* meets the threshold's
    assert str(r.eps_set) == "tight constraints exist: ε ∈ [6.9314718056e-41, ∞)"
    assert r.eps_set.to_json()["intervals"][0]["scale"] == str(10**40)
    assert r.q == g.q and r.exact is None and r.question == one.question and r.verify()
    assert r.as_sympy() == sympy.log(2) / 10**40
    back = ThresholdResult.from_json(r.to_json())
    assert r.method.startswith("exact (distances in units of")
    assert back.method == f"{r.method} (read from JSON)"  # _ROUTES knows exact-scaled
    for x in (r, back):  # no s* = e^(-ε*/q) of bounded degree here; the message names the unit's
        with pytest.raises(ExactnessRequired, match=r"s′\* = 1/2 is \.certificate\.inner\.s_star"):
            x.minimal_poly()


def test_matrix_free_tiny_spacing_keeps_holds_everywhere():
    """Fix 1 (test_grid_nogiveup9_fix): '(0, ∞)' stays '(0, ∞)' through the scaled wrapper."""
    mask = ["11111", "11011", "10001", "11111"]
    r = epsilon_threshold(masked_grid(5, 4, "manhattan", F(1, 10**9), mask=mask), matrix_free=True)
    assert r.certificate.kind.value == "exact-scaled" and r.eps_upper == 0
    assert str(r.eps_set) == "tight constraints exist: ε ∈ (0, ∞)"
    assert r.eps_set.as_sympy() == sympy.Interval.open(0, sympy.oo)


def test_eps_set_scaled_divides_every_endpoint():
    """EpsilonSet.scaled divides every endpoint (both ends of every piece) by c."""
    e = tight_constraints_epsilons(sum_query(3, 2))
    for c in (F(10**40), F(1, 10**400), F(7, 2)):
        s = e.scaled(c)
        assert len(s.intervals) == len(e.intervals) and s.monotone == e.monotone
        for a, b in zip(e.intervals, s.intervals, strict=True):
            assert sympy.simplify(a.as_sympy().inf / sympy.Rational(c.numerator, c.denominator)
                                  - b.as_sympy().inf) == 0
            ea, eb = a.eps_lower_enclosure(F(1, 10**12)), b.eps_lower_enclosure(F(1, 10**12) / c)
            if ea is not None:
                assert eb is not None and eb.lo <= ea.hi / c and ea.lo / c <= eb.hi
                assert eb.width <= F(1, 10**12) / c


@pytest.mark.parametrize("k, advice", [(7, "tol=Fraction(1, 10**2)"), (12, "tol=Fraction(10**3)")])
def test_tolerance_too_fine_names_a_tol_that_works(k, advice):
    """Fix 3: the advice is 10⁻⁹/c for any c (was clamped at 10**0), and following it works."""
    g = grid(4, 3, "euclidean", spacing=F(1, 10**k))
    with pytest.raises(ToleranceTooFine) as info:
        epsilon_threshold(g)
    msg = str(info.value)
    assert advice in msg and f"1/c = {10**k}" in msg and "1/1/" not in msg
    tol = F(10) ** (-9 + k)
    r = epsilon_threshold(g, tol=tol)
    assert r.eps_upper - r.eps_lower <= tol and r.verify()


def test_inner_errors_name_the_users_metric():
    """Fix 4: every error of the inner solve (not only PropertyNeverHolds / PrecisionLimitReached)
    says it was solved in units of c, keeps its type, and a never-holds ε-set is divided by c."""
    with pytest.raises(ExactnessRequired, match=r"spacing=1000000000000000000000000000000\) divided by c"):
        epsilon_threshold(grid(12, 12, "euclidean", spacing=10**30), method="exact")
    g = grid(3, 2, "manhattan", spacing=10**40)
    unit = unit_of(g)
    evidence = tight_constraints_epsilons(sum_query(2, 2))

    def never(m, t):
        raise PropertyNeverHolds(f"{m.name}: never", evidence=evidence)

    def too_large(m, t):
        raise InstanceTooLarge(f"{m.name}: too large")

    with pytest.raises(PropertyNeverHolds, match=r"never \[solved with every distance of grid\(3, 2") as info:
        scaled_route(g, None, F(1, 10**9), None, unit, never)
    assert info.value.evidence.as_sympy() == sympy.Interval(sympy.log(sympy.Rational(1, 2) + sympy.sqrt(5) / 2)
                                                            / 10**40, sympy.oo)
    with pytest.raises(InstanceTooLarge, match=r"too large \[solved with every distance .* divided by c"):
        scaled_route(g, None, F(1, 10**9), None, unit, too_large)
