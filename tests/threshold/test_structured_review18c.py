"""Review 18AC fixes: huge band widths, exponents beyond int64, huge q on the structured
route, Descartes before Sturm in the exact kernel check, n = 1 solves, the kernel's shift."""

import random
import warnings
from fractions import Fraction

import flint
import pytest

import exactdp.kernel.threshold as kthr
import exactdp.kernel.threshold_exact as kte
import exactdp.kernel.threshold_poly as kpoly
from exactdp import epsilon_threshold
from exactdp.algebra.symbolic import solve_symbolic
from exactdp.algebra.toeplitz import solve_toeplitz_ones, toeplitz_step
from exactdp.algebra.toeplitz_general import solve_toeplitz_general
from exactdp.engine.questions import canonical_metric
from exactdp.errors import ExponentTooLarge, InstanceTooLarge
from exactdp.kernel.metricio import fingerprint
from exactdp.kernel.threshold import count_roots, no_root_upto, roots_01, roots_01_within
from exactdp.kernel.threshold_structured import structure_holds
from exactdp.spaces.metrics import band, from_matrix, line
from exactdp.threshold.structured import structured_route
from exactdp.threshold.toeplitz_general import toeplitz_general_route


def toeplitz(f):
    n = len(f)
    return from_matrix([[f[abs(i - j)] for j in range(n)] for i in range(n)])


def test_band_huge_w_is_the_line():  # M1: raised OverflowError before the fix
    m = band(5, 10**30)
    assert m.exponent_matrix().tolist() == line(5).exponent_matrix().tolist()
    assert str(10**30) in m.name                     # params / name keep w as given
    rebuilt, _, fp = canonical_metric(m)             # JSON: the same distances, same fingerprint
    assert fp == fingerprint(m) == fingerprint(rebuilt)
    assert rebuilt.exponent_matrix().tolist() == m.exponent_matrix().tolist()


def test_exponents_beyond_int64_raise_a_specific_error():  # M2: raw OverflowError before
    m = toeplitz([0, 10**20, 2 * 10**20, 10**20, 10**20])
    # since session 10 the exact route solves in the distances' common unit (10^20 here:
    # proofs/grid_spacing_scaling.py), so epsilon_threshold answers; the structured
    # machinery it no longer needs still refuses the raw exponents with a specific error
    r = epsilon_threshold(m, method="exact")
    assert str(r.as_sympy()) == "log(2)/200000000000000000000" and r.certificate.verify()
    calls = [lambda: toeplitz_step(m),
             lambda: solve_toeplitz_general(m), lambda: structured_route(m, Fraction(1, 10**9)),
             lambda: toeplitz_general_route(m, Fraction(1, 10**9)), lambda: solve_symbolic(m)]
    for call in calls:
        with pytest.raises(ExponentTooLarge, match="100000000000000000000") as info:
            call()
        assert isinstance(info.value, InstanceTooLarge) and "common factor" in str(info.value)


def test_structured_route_with_q_beyond_floats():  # M3: OverflowError in the float guess
    f = [Fraction(-(-k // 2), 10**400) for k in range(5)]   # sum_query(2, 2) scaled by 10^-400
    m = toeplitz(f)
    assert solve_toeplitz_ones(m) is not None
    res = structured_route(m, Fraction(10**391))             # ε* ~ 10^400: a coarse tolerance
    assert res is not None and res.verify()
    assert res.eps_upper - res.eps_lower <= 10**391
    ref = structured_route(toeplitz([Fraction(-(-k // 2)) for k in range(5)]), Fraction(1, 10**6))
    assert ref is not None  # ε*(d/g) = g·ε*(d)
    g = 10**400
    assert res.eps_lower <= g * ref.eps_upper and g * ref.eps_lower <= res.eps_upper


def test_exact_kernel_no_root_needs_no_sturm_on_band(monkeypatch):  # M4: Sturm took 22–34 s
    res = epsilon_threshold(band(40, 3))
    assert type(res.certificate).__name__ == "ExactThresholdCertificate"

    def no_sturm(*args, **kwargs):
        raise AssertionError("the Sturm count should not be needed here")

    monkeypatch.setattr(kthr, "count_roots", no_sturm)
    monkeypatch.setattr(kte, "count_roots", no_sturm)  # the exact check's own binding
    monkeypatch.setattr(kpoly, "count_roots", no_sturm)  # no_root_upto's Sturm fallback
    assert res.verify()


def test_descartes_counts_agree_with_sturm():
    rng = random.Random(18)
    for _ in range(150):
        p = flint.fmpz_poly([rng.randint(-6, 6) for _ in range(rng.randint(2, 9))])
        p *= flint.fmpz_poly([-rng.randint(1, 9), rng.randint(1, 12)]) ** rng.randint(0, 2)
        if p.degree() < 1:
            continue
        b = Fraction(rng.randint(1, 20), 20)
        exact = count_roots(p, Fraction(0), b)
        assert no_root_upto(p, b) == (exact == 0)
        assert roots_01(p) == count_roots(p, Fraction(0), Fraction(1)) - (p(1) == 0)
        got = roots_01_within(p, 1)
        assert got is None or got == roots_01(p)


def test_n1_solves_verify():  # m3: ValueError (matmul dimension mismatch) before the fix
    assert solve_toeplitz_general(from_matrix([[0]])).verify() is True
    assert solve_symbolic(line(1)).verify() is True


def test_kernel_rejects_a_huge_shift_without_warning():  # m4: numpy RuntimeWarning before
    m = band(6, 2)                                       # e = 0, 1, 2, 2, 2, 2: v = 1, c = 0, k0 = 2
    assert structure_holds(m, 1, 0, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for c in (2**63 - 1, 2**63, 2**70, 3):
            assert not structure_holds(m, 1, c, 2)
